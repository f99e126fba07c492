//! The one CUDA runtime layer of `ccl`: device discovery that never panics,
//! NVRTC compilation of kernel modules (CUBIN for the device's own `sm_XY`,
//! cached per process), reusable device buffers, CUDA-event stage timing,
//! and the device header every kernel shares (`ccl_device.cuh`).
//!
//! ```
//! // On a machine without a GPU this reports why instead of panicking.
//! match ccl_cuda::gpu() {
//!     Ok(gpu) => println!("{} (sm_{}{})", gpu.name(), gpu.arch().0, gpu.arch().1),
//!     Err(reason) => println!("no GPU: {reason}"),
//! }
//! ```
//!
//! An algorithm crate keeps its kernels in a `.cu` file, registers it, and
//! launches through [`Gpu::function`]:
//!
//! ```ignore
//! pub(crate) const KERNELS: KernelSource = KernelSource { name: "ha4", source: include_str!("ha4.cu") };
//! ccl_cuda::inventory::submit! { KERNELS }
//! let strip = ccl_cuda::gpu()?.function(&KERNELS, "ha4_strip_w64_c4")?;
//! ```

mod buffer;
mod compile;
mod device;
mod host;
mod image;
mod timing;

pub use buffer::{DeviceBuffer, blocks};
pub use compile::{DEVICE_HEADER, KernelSource, compile_cubin, kernel_sources, nvrtc_available};
pub use device::{Gpu, cuda_error, gpu, probe};
pub use host::LoadedImage;
pub use image::{DeviceImage, DeviceStats, upload_image};
pub use timing::StageClock;

/// Re-exported for launchers.
pub use cudarc;
/// Re-exported so that crates register kernel modules without naming it.
pub use inventory;
