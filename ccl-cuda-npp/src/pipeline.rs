//! Binarize, NPP's LabelMarkersUF, repair, finish (the kernels are in
//! `npp.cu`, which says why each is needed): queued in order on the shared
//! stream, into scratch buffers reused across calls.

use std::sync::Arc;

use ccl_core::{Connectivity, Error, Result};
use ccl_cuda::cudarc::driver::sys::{self, CUdevice_attribute};
use ccl_cuda::cudarc::driver::{
    CudaFunction, CudaViewMut, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use ccl_cuda::{
    DeviceBuffer, DeviceImage, Gpu, KernelSource, StageClock, blocks, cuda_error, inventory,
};

use crate::library::{NPPI_NORM_INF, NPPI_NORM_L1, Npp, NppStreamContext, NppiSize, npp};

/// The adapter kernels, compiled once per process.
pub(crate) const KERNELS: KernelSource = KernelSource {
    name: "npp",
    source: include_str!("npp.cu"),
};

inventory::submit! { KERNELS }

/// The most pixels `npp-uf` labels: NPP computes its scratch size as
/// `4 * pixels + 8` in a C `int` and (13.2) silently wraps beyond this, and
/// the label row step `4 * width` is an `int` too.
pub const MAX_PIXELS: usize = (i32::MAX as usize - 8) / 4;

/// Threads per block of every kernel.
const THREADS: u32 = 256;
/// CUDA's limit on `gridDim.y`, over which npp_binarize and npp_repair
/// stride rows.
const MAX_GRID_Y: usize = 65_535;

/// `Ok` when NPP can label a `width` x `height` image, else why not.
pub(crate) fn check_size(width: usize, height: usize) -> Result<()> {
    let pixels = width as u128 * height as u128;
    if pixels > MAX_PIXELS as u128 {
        return Err(Error::InvalidDimensions(format!(
            "npp-uf labels at most {MAX_PIXELS} pixels (NPP sizes its scratch buffer in a 32-bit \
             int, 4 bytes per pixel); {width}x{height} has {pixels}"
        )));
    }
    Ok(())
}

/// Kernels, NPP handle and scratch buffers.
pub(crate) struct Pipeline {
    gpu: Arc<Gpu>,
    npp: &'static Npp,
    context: NppStreamContext,
    binarize: CudaFunction,
    repair: CudaFunction,
    finish: CudaFunction,
    /// The input as 0 / 255, packed.
    binary: DeviceBuffer<u8>,
    /// NPP's labels: a union-find forest of raster indices.
    forest: DeviceBuffer<u32>,
    /// NPP's working buffer.
    scratch: DeviceBuffer<u8>,
    /// NPP's scratch bytes for the last `(width, height)`, so the host-side
    /// size query stays out of timed runs.
    scratch_bytes: Option<((usize, usize), usize)>,
}

impl Pipeline {
    /// Opens NPP first, so that where it is missing the error says so.
    pub(crate) fn new() -> Result<Self> {
        let npp = npp()?;
        let gpu = ccl_cuda::gpu()?;
        let context = stream_context(&gpu)?;
        Ok(Self {
            binarize: gpu.function(&KERNELS, "npp_binarize")?,
            repair: gpu.function(&KERNELS, "npp_repair")?,
            finish: gpu.function(&KERNELS, "npp_finish")?,
            gpu,
            npp,
            context,
            binary: DeviceBuffer::new(),
            forest: DeviceBuffer::new(),
            scratch: DeviceBuffer::new(),
            scratch_bytes: None,
        })
    }

    pub(crate) fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    pub(crate) fn npp_version(&self) -> (i32, i32, i32) {
        self.npp.version()
    }

    /// Labels `image` into `labels` (at least width * height, packed; any
    /// device memory: NPP writes its own buffer).
    pub(crate) fn label(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        let pixels = image.pixel_count();
        if labels.len() < pixels {
            return Err(Error::InvalidDimensions(format!(
                "the label buffer holds {} labels, the image has {pixels} pixels",
                labels.len()
            )));
        }
        if image.is_empty() {
            return Ok(());
        }
        check_size(image.width(), image.height())?;
        let (pitch, width, height) = image.kernel_dims();
        let size = NppiSize { width, height };
        let scratch_bytes = match self.scratch_bytes {
            Some((dims, bytes)) if dims == (image.width(), image.height()) => bytes,
            _ => {
                let bytes = self.npp.buffer_size(size)?;
                self.scratch_bytes = Some(((image.width(), image.height()), bytes));
                bytes
            }
        };
        let stream = self.gpu.stream().clone();
        let binary = self.binary.reserve(&stream, pixels)?;
        let forest = self.forest.reserve(&stream, pixels)?;
        let scratch = self.scratch.reserve(&stream, scratch_bytes)?;

        let rows = LaunchConfig {
            grid_dim: (
                blocks(image.width(), THREADS as usize)?,
                image.height().min(MAX_GRID_Y) as u32,
                1,
            ),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: reads `height` rows of `pitch` bytes (checked by
        // DeviceImage), writes width * height bytes of `binary`.
        unsafe {
            stream
                .launch_builder(&self.binarize)
                .arg(image.pixels())
                .arg(&pitch)
                .arg(&mut *binary)
                .arg(&width)
                .arg(&height)
                .launch(rows)
        }
        .map_err(cuda_error)?;
        clock.mark("binarize")?;

        let norm = match connectivity {
            Connectivity::Four => NPPI_NORM_L1,
            Connectivity::Eight => NPPI_NORM_INF,
        };
        // NPP's runtime works in the thread's current context: make it ours.
        self.gpu.context().bind_to_thread().map_err(cuda_error)?;
        {
            let (src, _src) = binary.device_ptr(&stream);
            let (dst, _dst) = forest.device_ptr_mut(&stream);
            let (buffer, _buffer) = scratch.device_ptr_mut(&stream);
            // SAFETY: `binary` is packed (row step = width), `forest` is an
            // allocation of its own holding width * height u32 with row step
            // 4 * width (fits an int: at most MAX_PIXELS pixels), `scratch`
            // has NPP's size; all three outlive the call, which is queued on
            // our stream before the buffers can be reused.
            unsafe {
                self.npp.label_markers_uf(
                    src as *mut u8,
                    width,
                    dst as *mut u32,
                    4 * width,
                    size,
                    norm,
                    buffer as *mut u8,
                    self.context,
                )
            }?;
        }
        clock.mark("npp")?;

        let eight = i32::from(connectivity == Connectivity::Eight);
        // SAFETY: reads width * height bytes of `binary` and links within
        // the width * height entries of `forest`.
        unsafe {
            stream
                .launch_builder(&self.repair)
                .arg(&*binary)
                .arg(&mut *forest)
                .arg(&width)
                .arg(&height)
                .arg(&eight)
                .launch(rows)
        }
        .map_err(cuda_error)?;
        clock.mark("repair")?;

        let pixels_u64 = pixels as u64;
        let grid = LaunchConfig {
            grid_dim: (blocks(pixels, THREADS as usize)?, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: reads `pixels` entries of `binary` and `forest` (whose
        // parents lie within it), writes `pixels` labels (checked above).
        unsafe {
            stream
                .launch_builder(&self.finish)
                .arg(&*binary)
                .arg(&*forest)
                .arg(&mut *labels)
                .arg(&pixels_u64)
                .launch(grid)
        }
        .map_err(cuda_error)?;
        clock.mark("finish")?;
        Ok(())
    }
}

/// NPP's stream context for `gpu`'s stream, from the driver's attributes of
/// its device (the values NPP's docs take from `cudaGetDeviceProperties`).
fn stream_context(gpu: &Gpu) -> Result<NppStreamContext> {
    let context = gpu.context();
    let attribute = |a: CUdevice_attribute| context.attribute(a).map_err(cuda_error);
    let stream = gpu.stream().cu_stream();
    let mut flags = 0;
    context.bind_to_thread().map_err(cuda_error)?;
    // SAFETY: `stream` is a live stream of the current context.
    unsafe { sys::cuStreamGetFlags(stream, &mut flags) }
        .result()
        .map_err(cuda_error)?;
    let shared = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?;
    Ok(NppStreamContext {
        stream: stream.cast(),
        device_id: i32::try_from(context.ordinal())
            .map_err(|_| Error::Cuda("device ordinal out of range".into()))?,
        multiprocessor_count: attribute(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )?,
        max_threads_per_multiprocessor: attribute(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
        )?,
        max_threads_per_block: attribute(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        )?,
        shared_mem_per_block: usize::try_from(shared)
            .map_err(|_| Error::Cuda(format!("shared memory per block reads {shared}")))?,
        compute_capability_major: attribute(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
        )?,
        compute_capability_minor: attribute(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
        )?,
        stream_flags: flags,
        reserved: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_past_npp_int_arithmetic_are_refused() {
        assert!(check_size(8192, 8192).is_ok());
        assert!(check_size(MAX_PIXELS, 1).is_ok());
        assert!(check_size(1, MAX_PIXELS).is_ok());
        let error = check_size(MAX_PIXELS + 1, 1).unwrap_err().to_string();
        assert!(error.contains("at most 536870909 pixels"), "{error}");
        assert!(check_size(65_535, 65_535).is_err());
        assert!(check_size(usize::MAX, usize::MAX).is_err());
    }
}
