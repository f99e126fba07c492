//! [`ArrayLabeler`]s kept in a pool per variant and device, and host images
//! labeled on a GPU through them.
//!
//! Making a labeler loads its kernels, and its first calls on a size
//! allocate scratch; a caller that labels image after image (the `ccl`
//! facade, the Python package) leases one instead ([`Lease`]), so that
//! repeated calls allocate nothing, and concurrent threads never share one:
//! a thread that finds none idle makes another, on a stream of its own.
//!
//! - [`on_caller_stream`]: a caller's device arrays (CuPy, PyTorch), the
//!   labeler's work ordered after and before the caller's stream;
//! - [`label_host_image`], [`label_host_image_with_features`] and
//!   [`analyze_host_image`]: a host image uploaded, labeled and numbered on
//!   the GPU, its labels and features copied back. OpenCV's statistics of a
//!   host image are laid out from those features on the host, by
//!   [`ccl_core::opencv`], as a CPU variant's are: every host image's
//!   statistics come from that one definition.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use ccl_core::{
    Algorithm, Backend, BinaryImage, ComponentStats, Connectivity, Error, LabelImage, Result, Task,
};
use cudarc::driver::{CudaSlice, CudaStream, sys::CUstream};

use super::{ArrayLabeler, DeviceArray, Element};
use crate::runtime::{DevPtr, DeviceBuffer, cuda_error, upload_image};

/// The device host images are labeled on: device 0, the one the registry's
/// constructors use.
const HOST_IMAGE_DEVICE: usize = 0;

/// A labeler and the device buffers of the host images it labels.
struct Pooled {
    labeler: ArrayLabeler,
    /// A host image, uploaded as it is laid out there.
    image: DeviceBuffer<u8>,
    /// The image's labels, until they are copied back.
    labels: DeviceBuffer<u32>,
}

/// Idle labelers by (variant name, device ordinal).
type Pool = HashMap<(&'static str, usize), Vec<Pooled>>;

/// `None` until the first lease (a `HashMap` cannot be made in a `static`).
static POOL: Mutex<Option<Pool>> = Mutex::new(None);

/// The pool, whatever a thread that panicked while holding it left: a
/// poisoned pool only holds labelers that were idle.
fn with_pool<T>(f: impl FnOnce(&mut Pool) -> T) -> T {
    f(POOL
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new))
}

/// A pooled labeler of one variant on one device, for the length of one
/// call. It goes back to the pool only through
/// [`give_back`](Self::give_back): one that an error may have left in an
/// unknown state is dropped instead, and freed.
pub struct Lease {
    key: (&'static str, usize),
    pooled: Pooled,
}

impl Lease {
    /// An idle labeler of the CUDA variant `algorithm` on device `device`,
    /// or a new one on a new stream of that device when none is idle. An
    /// error when `algorithm` is not a CUDA variant or cannot run there.
    pub fn take(algorithm: &'static Algorithm, device: usize) -> Result<Self> {
        let key = (algorithm.name, device);
        let idle = with_pool(|pool| pool.get_mut(&key).and_then(Vec::pop));
        let pooled = match idle {
            Some(pooled) => pooled,
            None => {
                let gpu = crate::runtime::gpu(device)?;
                let stream = gpu.new_stream()?;
                Pooled {
                    labeler: ArrayLabeler::new(crate::backend::variant_on(
                        algorithm.name,
                        gpu,
                        stream,
                    )?)?,
                    image: DeviceBuffer::new(),
                    labels: DeviceBuffer::new(),
                }
            }
        };
        Ok(Self { key, pooled })
    }

    /// The labeler, whose work goes on its own stream.
    pub fn labeler(&mut self) -> &mut ArrayLabeler {
        &mut self.pooled.labeler
    }

    /// Returns the labeler to the pool, for the next call of its variant on
    /// its device.
    pub fn give_back(self) {
        with_pool(|pool| pool.entry(self.key).or_default().push(self.pooled));
    }

    /// The caller's stream, as a handle that never destroys it.
    ///
    /// # Safety
    /// `stream` must be a live stream of the labeler's device (or null, the
    /// legacy default stream), kept alive by the caller for the call.
    unsafe fn caller_stream(&self, stream: CUstream) -> Arc<CudaStream> {
        let context = self.pooled.labeler.variant().gpu().context().clone();
        // SAFETY: the caller's contract.
        unsafe { context.wrap_borrowed_stream(stream) }
    }
}

/// Runs `work` with a pooled labeler of the CUDA variant `algorithm` on
/// `device`, ordered after the work queued so far on the caller's `stream`
/// and before what the caller queues next, through events: the host waits
/// for neither. `work` gets the caller's stream too, to order the labeler
/// after it again ([`ArrayLabeler::after`]) once it has had the caller
/// allocate results there. The labeler goes back to the pool afterwards.
///
/// The outer error is the pool's or the ordering's; the inner one is
/// `work`'s, of its own type (a Python exception, say). After an error of
/// `work` the caller's stream still waits for what the labeler queued, and
/// the labeler, in an unknown state, is dropped rather than pooled.
///
/// # Safety
/// `stream` must be a live stream of `device` (or null, the legacy default
/// stream), kept alive by the caller for the call; what `work` passes to
/// the labeler must meet the labeler's own contracts.
pub unsafe fn on_caller_stream<T, E>(
    algorithm: &'static Algorithm,
    device: usize,
    stream: CUstream,
    work: impl FnOnce(&mut ArrayLabeler, &CudaStream) -> std::result::Result<T, E>,
) -> Result<std::result::Result<T, E>> {
    let mut lease = Lease::take(algorithm, device)?;
    // SAFETY: this function's contract.
    let caller = unsafe { lease.caller_stream(stream) };
    let labeler = lease.labeler();
    labeler.after(&caller)?;
    match work(labeler, &caller) {
        Ok(value) => {
            labeler.before(&caller)?;
            lease.give_back();
            Ok(Ok(value))
        }
        Err(error) => {
            // The labeler may have queued writes into the caller's memory
            // before `work` failed: the caller's stream waits for them, so
            // that memory the caller frees after the error is not written
            // afterwards. Should that fail too, `work`'s error says more.
            let _ = labeler.before(&caller);
            Ok(Err(error))
        }
    }
}

/// The canonical labels of a host image by the CUDA variant `algorithm` on
/// device 0, and their count N: the image is uploaded to a pooled labeler,
/// labeled and numbered 1..=N there (in raster order of each component's
/// first pixel), and the labels copied back.
pub fn label_host_image(
    algorithm: &'static Algorithm,
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
) -> Result<(LabelImage, usize)> {
    let (labels, count, _) = label_on_gpu(algorithm, image, connectivity, false)?;
    Ok((labels, count))
}

/// [`label_host_image`] and the features of the components it numbered,
/// index i for label i + 1, from the shared analysis of the same labels
/// (so even a variant that only labels has them): what OpenCV's
/// statistics are laid out from ([`ccl_core::opencv::OpenCvStats::new`]).
/// The count is the features' length.
pub fn label_host_image_with_features(
    algorithm: &'static Algorithm,
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
) -> Result<(LabelImage, Vec<ComponentStats>)> {
    let (labels, _, features) = label_on_gpu(algorithm, image, connectivity, true)?;
    Ok((labels, features))
}

/// The features of every component of a host image, by the CUDA variant
/// `algorithm`'s own analysis on device 0, in raster order of the
/// components' first pixels: the image is uploaded to a pooled labeler and
/// only the features are copied back.
pub fn analyze_host_image(
    algorithm: &'static Algorithm,
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
) -> Result<Vec<ComponentStats>> {
    if image.is_empty() {
        check_without_gpu(algorithm, Task::Analyze, connectivity)?;
        return Ok(Vec::new());
    }
    on_uploaded(algorithm, image, |labeler, array, _| {
        // SAFETY: `array` is the uploaded image, in the lease's buffer,
        // ready on the labeler's stream.
        unsafe { labeler.analyze(array, connectivity)? };
        labeler.read_features()
    })
}

/// Labels and numbers `image` on a pooled labeler; with `with_features`,
/// also reads the features of the labels back. Returns the labels, their
/// count and the features (empty without `with_features`).
fn label_on_gpu(
    algorithm: &'static Algorithm,
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
    with_features: bool,
) -> Result<(LabelImage, usize, Vec<ComponentStats>)> {
    let (width, height) = (image.width(), image.height());
    if image.is_empty() {
        check_without_gpu(algorithm, Task::Label, connectivity)?;
        return Ok((LabelImage::new(width, height, Vec::new())?, 0, Vec::new()));
    }
    on_uploaded(algorithm, image, |labeler, array, labels| {
        let stream = labeler.variant().stream().clone();
        let pixels = width * height;
        let address = address(labels.reserve(&stream, pixels)?, &stream);
        // SAFETY: `array` is the uploaded image and `address` a label per
        // pixel, both in the lease's buffers, ready on the labeler's stream.
        let count = unsafe { labeler.label(array, address, connectivity, with_features)? };
        let labels = stream
            .clone_dtoh(&labels.get()?.slice(..pixels))
            .map_err(cuda_error)?;
        let features = if with_features {
            labeler.read_features()?
        } else {
            Vec::new()
        };
        Ok((LabelImage::new(width, height, labels)?, count, features))
    })
}

/// Uploads `image` (at least one pixel) to a pooled labeler of `algorithm`
/// on device 0 and runs `work` with the labeler, the image as a device
/// array and the pooled label buffer; the labeler goes back to the pool
/// when `work` succeeds.
fn on_uploaded<T>(
    algorithm: &'static Algorithm,
    image: &BinaryImage<'_>,
    work: impl FnOnce(&mut ArrayLabeler, &DeviceArray, &mut DeviceBuffer<u32>) -> Result<T>,
) -> Result<T> {
    let mut lease = Lease::take(algorithm, HOST_IMAGE_DEVICE)?;
    let Pooled {
        labeler,
        image: uploaded,
        labels,
    } = &mut lease.pooled;
    let stream = labeler.variant().stream().clone();
    // The upload keeps the host's row stride, so the rows' padding travels
    // too; `row_stride` tells the labeler to skip it.
    let pitch = upload_image(&stream, uploaded, image)?;
    let array = DeviceArray {
        address: DevPtr::of(uploaded.get()?, &stream).address(),
        width: image.width(),
        height: image.height(),
        row_stride: pitch as isize,
        column_stride: 1,
        element: Element::Integer(1),
    };
    let result = work(labeler, &array, labels)?;
    lease.give_back();
    Ok(result)
}

/// For an image without pixels, which needs no GPU: the checks a labeler
/// would have made, so that such an image is refused for the same reasons.
fn check_without_gpu(
    algorithm: &'static Algorithm,
    task: Task,
    connectivity: Connectivity,
) -> Result<()> {
    if algorithm.backend != Backend::Cuda {
        return Err(Error::InvalidArgument(format!(
            "{} runs on the CPU, not on a GPU; name a CUDA variant",
            algorithm.name
        )));
    }
    algorithm.check_connectivity(connectivity)?;
    algorithm.check_task(task)
}

/// The device address of `buffer`.
fn address<T>(buffer: &mut CudaSlice<T>, stream: &CudaStream) -> u64 {
    DevPtr::of(buffer, stream).address()
}
