//! The CUDA runtime: device handles that never panic ([`gpu`]), NVRTC
//! compilation of kernel modules (CUBIN for the device's own `sm_XY`, cached
//! per process and device), typed kernel launches ([`Kernel`]), divisors
//! fixed for a launch ([`Divisor`]), device
//! buffers that only grow, images on the device, and CUDA-event stage
//! timing. Nothing here knows about labels or components.

mod buffer;
mod compile;
mod device;
mod divisor;
mod image;
mod launch;
mod timing;

pub(crate) use buffer::Borrowed;
pub use buffer::{DeviceBuffer, HostWord, copy_device_bytes};
pub use compile::{DEVICE_HEADER, KernelSource, compile_cubin, kernel_sources, nvrtc_available};
pub use device::{Gpu, cuda_error, default_gpu, gpu, probe};
pub use divisor::Divisor;
pub use image::{DeviceImage, upload_image};
pub use launch::{
    DevPtr, ImageArgs, Kernel, KernelArgs, blocks, linear_grid, tile_grid, warp_grid,
};
pub use timing::StageClock;
