//! The CUDA layer of `ccl`, in three layers, each built on the one before:
//!
//! - [`runtime`]: device handles that never panic, NVRTC compilation,
//!   typed kernel launches, device buffers, stage timing, and the device
//!   header every kernel shares (`ccl_device.cuh`);
//! - [`backend`]: the variant layer and the shared analysis every CUDA
//!   variant builds on ([`register_variant!`] registers one);
//! - [`interop`]: callers' device arrays (CuPy, PyTorch) labeled by a
//!   variant, with OpenCV's statistics layout, and the pool of such
//!   labelers through which device arrays and host images reach a GPU
//!   ([`interop::pool`]).
//!
//! ```
//! // On a machine without a GPU this reports why instead of panicking.
//! match ccl_cuda::runtime::default_gpu() {
//!     Ok(gpu) => println!("{} (sm_{}{})", gpu.name(), gpu.arch().0, gpu.arch().1),
//!     Err(reason) => println!("no GPU: {reason}"),
//! }
//! ```
//!
//! A variant crate keeps its kernels in a `.cu` file, registers the module,
//! declares each kernel's arguments once as a [`Kernel`](runtime::Kernel)
//! field, implements [`DeviceVariant`](backend::DeviceVariant) and registers
//! the variant; `docs/design.md` walks
//! through the smallest complete one.

pub mod backend;
pub mod interop;
pub mod runtime;

/// Re-exported for the registration macro.
pub use ccl_core;
/// Re-exported for launchers.
pub use cudarc;
/// Re-exported so that crates register kernel modules without naming it.
pub use inventory;
