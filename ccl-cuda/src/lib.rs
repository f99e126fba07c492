//! The one CUDA runtime layer of `ccl`: device discovery that never panics
//! and a handle per device ([`gpu`]), NVRTC compilation of kernel modules
//! (CUBIN for the device's own `sm_XY`, cached per process), typed kernel
//! launches ([`Kernel`]), reusable device buffers, CUDA-event stage timing,
//! the device header every kernel shares (`ccl_device.cuh`), the shared
//! analysis back end ([`Features`], [`Flatten`]), the variant layer
//! ([`DeviceVariant`], [`CudaVariant`], [`register_variant!`]), variants
//! made by name on a caller's stream ([`variant_on`]) that label a caller's
//! device arrays ([`ArrayLabeler`]: CuPy arrays, PyTorch tensors), and the
//! pixel label-equivalence pipeline of Playne and Komura ([`Equivalence`]).
//!
//! ```
//! // On a machine without a GPU this reports why instead of panicking.
//! match ccl_cuda::default_gpu() {
//!     Ok(gpu) => println!("{} (sm_{}{})", gpu.name(), gpu.arch().0, gpu.arch().1),
//!     Err(reason) => println!("no GPU: {reason}"),
//! }
//! ```
//!
//! A variant crate keeps its kernels in a `.cu` file, registers the module,
//! declares each kernel's arguments once as a [`Kernel`] field, implements
//! [`DeviceVariant`] and registers the variant; `docs/design.md` walks
//! through the smallest complete one.

mod arrays;
mod buffer;
mod by_name;
mod compile;
mod device;
mod equivalence;
pub mod features;
mod image;
mod launch;
mod rounds;
mod timing;
mod variant;

pub use arrays::{ArrayLabeler, DeviceArray, Element};
pub use buffer::DeviceBuffer;
pub use by_name::{DeviceRegistration, variant_on};
pub use compile::{DEVICE_HEADER, KernelSource, compile_cubin, kernel_sources, nvrtc_available};
pub use device::{Gpu, cuda_error, default_gpu, gpu, probe};
pub use equivalence::{Equivalence, EquivalenceKernels};
pub use features::{Features, Flatten};
pub use image::{DeviceImage, DeviceStats, upload_image};
pub use launch::{
    DevPtr, ImageArgs, Kernel, KernelArgs, blocks, linear_grid, tile_grid, warp_grid,
};
pub use rounds::{ChangeFlag, counted_stage, rounds_of_stage};
pub use timing::StageClock;
pub use variant::{CudaVariant, DeviceVariant, DynVariant, Run, VariantInfo};

/// Re-exported for the registration macro.
pub use ccl_core;
/// Re-exported for launchers.
pub use cudarc;
/// Re-exported so that crates register kernel modules without naming it.
pub use inventory;
