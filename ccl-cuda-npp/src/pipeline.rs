//! [`NppUf`]: binarize, NPP's LabelMarkersUF, repair, finish (the kernels
//! are in `npp.cu`, which says why each is needed), queued in order on the
//! variant's stream, into scratch buffers reused across calls.

use std::sync::Arc;

use ccl_core::{Connectivity, Error, Result};
use ccl_cuda::backend::{DeviceVariant, Run};
use ccl_cuda::cudarc::driver::sys::{self, CUdevice_attribute};
use ccl_cuda::cudarc::driver::{CudaStream, CudaViewMut, LaunchConfig};
use ccl_cuda::inventory;
use ccl_cuda::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, blocks, cuda_error,
    linear_grid,
};

use crate::library::{NPPI_NORM_INF, NPPI_NORM_L1, Npp, NppStreamContext, NppiSize, npp};

/// The adapter kernels, compiled once per process.
pub(crate) const KERNELS: KernelSource = KernelSource {
    name: "npp",
    source: include_str!("npp.cu"),
    constants: &[],
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

/// The adapter kernels; each field declares a kernel's arguments.
struct Kernels {
    binarize: Kernel<(ImageArgs, DevPtr<u8>)>,
    repair: Kernel<(DevPtr<u8>, DevPtr<u32>, i32, i32, i32)>,
    first_pixels: Kernel<(DevPtr<u8>, DevPtr<u32>, DevPtr<u32>, u64)>,
    finish: Kernel<(DevPtr<u8>, DevPtr<u32>, DevPtr<u32>, DevPtr<u32>, u64)>,
}

/// NPP's union-find labeler as the device-resident stages of `npp-uf`:
/// `binarize`, `npp` (NPP's own call alone), `repair` and `finish` make a
/// forest of flat first-pixel labels, which the shared finish numbers.
/// Labels only: NPP computes none of ccl's features.
pub struct NppUf {
    npp: &'static Npp,
    context: NppStreamContext,
    kernels: Kernels,
    /// The input as 0 / 255, packed.
    binary: DeviceBuffer<u8>,
    /// NPP's labels: a union-find forest of raster indices.
    forest: DeviceBuffer<u32>,
    /// The complement of each tree's first pixel, by root.
    first: DeviceBuffer<u32>,
    /// NPP's working buffer.
    scratch: DeviceBuffer<u8>,
    /// NPP's scratch bytes for the last `(width, height)`, so the host-side
    /// size query stays out of timed runs.
    scratch_bytes: Option<((usize, usize), usize)>,
}

impl NppUf {
    /// Opens NPP first, so that where it is missing the error says so, then
    /// compiles the adapter kernels for `gpu` and binds NPP to `stream`.
    pub fn new(gpu: &Arc<Gpu>, stream: &Arc<CudaStream>) -> Result<Self> {
        let npp = npp()?;
        Ok(Self {
            npp,
            context: stream_context(gpu, stream)?,
            kernels: Kernels {
                binarize: Kernel::load(gpu, &KERNELS, "npp_binarize")?,
                repair: Kernel::load(gpu, &KERNELS, "npp_repair")?,
                first_pixels: Kernel::load(gpu, &KERNELS, "npp_first_pixels")?,
                finish: Kernel::load(gpu, &KERNELS, "npp_finish")?,
            },
            binary: DeviceBuffer::new(),
            forest: DeviceBuffer::new(),
            first: DeviceBuffer::new(),
            scratch: DeviceBuffer::new(),
            scratch_bytes: None,
        })
    }

    /// NPP's scratch bytes for `image`, queried once per size.
    fn scratch_bytes(&mut self, image: &DeviceImage<'_>, size: NppiSize) -> Result<usize> {
        let dims = (image.width(), image.height());
        match self.scratch_bytes {
            Some((known, bytes)) if known == dims => Ok(bytes),
            _ => {
                let bytes = self.npp.buffer_size(size)?;
                self.scratch_bytes = Some((dims, bytes));
                Ok(bytes)
            }
        }
    }
}

// SAFETY: the only field that is not `Send` is the stream handle inside
// `NppStreamContext`, a driver handle that any thread may use; the stream
// itself is kept alive by the `CudaVariant` that owns this pipeline.
unsafe impl Send for NppUf {}

impl DeviceVariant for NppUf {
    fn check_size(&self, width: usize, height: usize) -> Result<()> {
        check_size(width, height)
    }

    /// Flat labels: 0 for background, 1 + the raster index of the
    /// component's first pixel for foreground.
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let stream = run.stream;
        let pixels = image.pixel_count();
        let args = image.args(stream);
        let (width, height) = (args.width, args.height);
        let size = NppiSize { width, height };
        let scratch_bytes = self.scratch_bytes(image, size)?;
        let binary = DevPtr::of_mut(self.binary.reserve(stream, pixels)?, stream);
        let labels = DevPtr::of_mut(forest, stream);
        let forest = DevPtr::of_mut(self.forest.reserve(stream, pixels)?, stream);
        let scratch = DevPtr::of_mut(self.scratch.reserve(stream, scratch_bytes)?, stream);
        let first = self.first.reserve(stream, pixels)?;
        stream
            .memset_zeros(&mut first.slice_mut(..pixels))
            .map_err(cuda_error)?;
        let first = DevPtr::of_mut(first, stream);

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
        unsafe { self.kernels.binarize.launch(stream, rows, (args, binary)) }?;
        run.clock.mark("binarize")?;

        let norm = if run.connectivity.image_diagonals()? {
            NPPI_NORM_INF
        } else {
            NPPI_NORM_L1
        };
        // NPP's runtime works in the thread's current context: make it ours.
        stream.context().bind_to_thread().map_err(cuda_error)?;
        // SAFETY: `binary` is packed (row step = width), `forest` is an
        // allocation of its own holding width * height u32 with row step
        // 4 * width (fits an int: at most MAX_PIXELS pixels), `scratch` has
        // NPP's size; all three outlive the call, which is queued on the
        // variant's stream, the one its buffers are used on.
        unsafe {
            self.npp.label_markers_uf(
                binary.address() as *mut u8,
                width,
                forest.address() as *mut u32,
                4 * width,
                size,
                norm,
                scratch.address() as *mut u8,
                self.context,
            )
        }?;
        run.clock.mark("npp")?;

        let eight = i32::from(run.connectivity == Connectivity::Eight);
        // SAFETY: reads width * height bytes of `binary` and links within
        // the width * height entries of `forest`.
        unsafe {
            self.kernels
                .repair
                .launch(stream, rows, (binary, forest, width, height, eight))
        }?;
        run.clock.mark("repair")?;

        // SAFETY: read `pixels` entries of `binary` and `forest` (whose
        // parents lie within it) and index `first` (as long) by roots;
        // finish writes `pixels` labels (checked by the variant layer).
        unsafe {
            let grid = linear_grid(pixels, THREADS)?;
            self.kernels.first_pixels.launch(
                stream,
                grid,
                (binary, forest, first, pixels as u64),
            )?;
            self.kernels
                .finish
                .launch(stream, grid, (binary, forest, first, labels, pixels as u64))
        }?;
        run.clock.mark("finish")
    }
}

/// NPP's stream context for `stream` of `gpu`, from the driver's attributes
/// of its device (the values NPP's docs take from `cudaGetDeviceProperties`).
fn stream_context(gpu: &Gpu, stream: &CudaStream) -> Result<NppStreamContext> {
    let context = gpu.context();
    let attribute = |a: CUdevice_attribute| context.attribute(a).map_err(cuda_error);
    let stream = stream.cu_stream();
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
