//! The CUDA path: CuPy arrays and CUDA tensors labeled where they lie, on
//! the caller's stream, and host arrays uploaded to a CUDA variant.
//!
//! Each call leases an [`ArrayLabeler`] (a variant on a stream of its own,
//! with its scratch buffers) from a pool kept per variant and device, so that
//! repeated calls allocate nothing and threads never share one. A labeler's
//! work is ordered after what the caller queued on its stream and before
//! what it queues next, through events: the host does not wait, except for
//! the component count, which sizes the results.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use ccl::{Algorithm, Backend, BinaryImage, Connectivity, Task};
use ccl_cuda::cudarc::driver::{CudaSlice, CudaStream, sys::CUstream};
use ccl_cuda::interop::{ArrayLabeler, DeviceArray, Element};
use ccl_cuda::runtime::{DevPtr, DeviceBuffer, cuda_error};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::{connectivity, pick, to_python};

/// A labeler and the device buffers of host arrays it labels.
struct Pooled {
    labeler: ArrayLabeler,
    image: DeviceBuffer<u8>,
    labels: DeviceBuffer<u32>,
    stats: DeviceBuffer<i32>,
    bounds: DeviceBuffer<u32>,
    sums: DeviceBuffer<u64>,
    centroids: DeviceBuffer<f64>,
}

type Pool = HashMap<(&'static str, usize), Vec<Pooled>>;

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

/// A pooled labeler for the length of one call; it goes back to the pool
/// only through [`Lease::give_back`], so one left in an unknown state by an
/// error is dropped instead.
struct Lease {
    key: (&'static str, usize),
    pooled: Pooled,
}

impl Lease {
    fn take(algorithm: &'static Algorithm, device: usize) -> ccl::Result<Self> {
        let key = (algorithm.name, device);
        let pooled = POOL
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert_with(HashMap::new)
            .get_mut(&key)
            .and_then(Vec::pop);
        let pooled = match pooled {
            Some(pooled) => pooled,
            None => {
                let gpu = ccl_cuda::runtime::gpu(device)?;
                let stream = gpu.new_stream()?;
                Pooled {
                    labeler: ArrayLabeler::new(ccl_cuda::backend::variant_on(
                        algorithm.name,
                        gpu,
                        stream,
                    )?)?,
                    image: DeviceBuffer::new(),
                    labels: DeviceBuffer::new(),
                    stats: DeviceBuffer::new(),
                    bounds: DeviceBuffer::new(),
                    sums: DeviceBuffer::new(),
                    centroids: DeviceBuffer::new(),
                }
            }
        };
        Ok(Self { key, pooled })
    }

    fn give_back(self) {
        POOL.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert_with(HashMap::new)
            .entry(self.key)
            .or_default()
            .push(self.pooled);
    }

    fn stream(&self) -> std::sync::Arc<CudaStream> {
        self.pooled.labeler.variant().stream().clone()
    }

    /// The caller's stream, as a handle that never destroys it.
    ///
    /// # Safety
    /// `stream` must be a live stream of the labeler's device (or 0, the
    /// legacy default stream), kept alive by the caller for the call.
    unsafe fn caller_stream(&self, stream: usize) -> std::sync::Arc<CudaStream> {
        let context = self.pooled.labeler.variant().gpu().context().clone();
        // SAFETY: the caller's contract.
        unsafe { context.wrap_borrowed_stream(stream as CUstream) }
    }
}

/// The CUDA algorithm a device array runs with: the one named, or the
/// preferred available CUDA variant.
fn cuda_algorithm(
    name: Option<&str>,
    task: Task,
    connectivity: Connectivity,
) -> PyResult<&'static Algorithm> {
    let algorithm = pick(name, task, connectivity, Some(Backend::Cuda)).map_err(to_python)?;
    if algorithm.backend != Backend::Cuda {
        return Err(PyValueError::new_err(format!(
            "{} runs on the CPU and cannot label an array in GPU memory; name a CUDA variant \
             (ccl.algorithms() lists them) or copy the array to the host",
            algorithm.name
        )));
    }
    Ok(algorithm)
}

/// Runs `work` with the pooled labeler of `algorithm` on `device`, ordered
/// after the work queued so far on the caller's `stream` and before what
/// the caller queues next; the labeler goes back to the pool afterwards.
/// `work` gets the caller's stream too, to wait again for results it has
/// the caller allocate.
///
/// # Safety
/// `stream` must be a live stream of `device` (or 0, the legacy default
/// stream), kept alive by the caller for the call.
unsafe fn on_caller_stream<T>(
    algorithm: &'static Algorithm,
    device: usize,
    stream: usize,
    work: impl FnOnce(&mut ArrayLabeler, &CudaStream) -> PyResult<T>,
) -> PyResult<T> {
    let mut lease = Lease::take(algorithm, device).map_err(to_python)?;
    // SAFETY: this function's contract.
    let caller = unsafe { lease.caller_stream(stream) };
    let labeler = &mut lease.pooled.labeler;
    labeler.after(&caller).map_err(to_python)?;
    let result = work(labeler, &caller)?;
    labeler.before(&caller).map_err(to_python)?;
    lease.give_back();
    Ok(result)
}

/// A device array as Python describes it: `(address, height, width,
/// row_stride, column_stride, kind, itemsize)`, strides in bytes, `kind`
/// numpy's dtype kind (`b`, `i`, `u` or `f`).
type ArrayArgs = (u64, usize, usize, isize, isize, char, usize);

fn device_array(
    (address, height, width, row_stride, column_stride, kind, itemsize): ArrayArgs,
) -> PyResult<DeviceArray> {
    let element = match kind {
        'b' | 'i' | 'u' => Element::Integer(itemsize),
        'f' => Element::Float(itemsize),
        other => {
            return Err(PyValueError::new_err(format!(
                "unsupported dtype kind {other:?}: use bool, integer or float arrays"
            )));
        }
    };
    Ok(DeviceArray {
        address,
        width,
        height,
        row_stride,
        column_stride,
        element,
    })
}

/// Labels a device array into `labels` (`height × width` 32-bit, C order,
/// on the same device); returns the number of components.
///
/// The addresses must be device memory of `device` as described, alive
/// until the call returns; `stream` is the caller's current stream there.
#[pyfunction]
#[pyo3(signature = (device, stream, array, labels, connectivity_value, algorithm=None))]
fn label_device(
    py: Python<'_>,
    device: usize,
    stream: usize,
    array: ArrayArgs,
    labels: u64,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<usize> {
    let connectivity = connectivity(connectivity_value)?;
    let algorithm = cuda_algorithm(algorithm, Task::Label, connectivity)?;
    let array = device_array(array)?;
    py.detach(|| {
        let work = |labeler: &mut ArrayLabeler, _: &CudaStream| {
            // SAFETY: the Python caller's contract above.
            unsafe { labeler.label(&array, labels, connectivity, false) }.map_err(to_python)
        };
        // SAFETY: the Python caller passes its framework's current stream.
        unsafe { on_caller_stream(algorithm, device, stream, work) }
    })
}

/// [`label_device`] and OpenCV's statistics: once the count N is known,
/// `allocate(N)` returns the addresses of `(N + 1) × 5` int32 stats and
/// `(N + 1) × 2` float64 centroids on the device, which are filled.
#[pyfunction]
#[pyo3(signature = (device, stream, array, labels, connectivity_value, allocate, algorithm=None))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn connected_components_with_stats_device(
    py: Python<'_>,
    device: usize,
    stream: usize,
    array: ArrayArgs,
    labels: u64,
    connectivity_value: u32,
    allocate: Py<PyAny>,
    algorithm: Option<&str>,
) -> PyResult<usize> {
    let connectivity = connectivity(connectivity_value)?;
    let algorithm = cuda_algorithm(algorithm, Task::Label, connectivity)?;
    let array = device_array(array)?;
    py.detach(|| {
        let work = |labeler: &mut ArrayLabeler, caller: &CudaStream| {
            // SAFETY: the Python caller's contract above.
            let count =
                unsafe { labeler.label(&array, labels, connectivity, true) }.map_err(to_python)?;
            let (stats, centroids): (u64, u64) =
                Python::attach(|py| allocate.call1(py, (count,))?.extract(py))?;
            // The results were allocated on the caller's stream.
            labeler.after(caller).map_err(to_python)?;
            // SAFETY: `allocate` returned arrays of the documented sizes.
            unsafe { labeler.write_opencv_stats(stats, centroids) }.map_err(to_python)?;
            Ok(count)
        };
        // SAFETY: the Python caller passes its framework's current stream.
        unsafe { on_caller_stream(algorithm, device, stream, work) }
    })
}

/// Analyzes a device array with the variant's own analysis: once the count
/// N is known, `allocate(N)` returns the addresses of `N × 5` uint32 (area,
/// x_min, y_min, x_max, y_max), `N × 2` uint64 (sum_x, sum_y) and `N × 2`
/// float64 (centroids) on the device, which are filled.
#[pyfunction]
#[pyo3(signature = (device, stream, array, connectivity_value, allocate, algorithm=None))]
fn analyze_device(
    py: Python<'_>,
    device: usize,
    stream: usize,
    array: ArrayArgs,
    connectivity_value: u32,
    allocate: Py<PyAny>,
    algorithm: Option<&str>,
) -> PyResult<usize> {
    let connectivity = connectivity(connectivity_value)?;
    let algorithm = cuda_algorithm(algorithm, Task::Analyze, connectivity)?;
    let array = device_array(array)?;
    py.detach(|| {
        let work = |labeler: &mut ArrayLabeler, caller: &CudaStream| {
            // SAFETY: the Python caller's contract above.
            let count = unsafe { labeler.analyze(&array, connectivity) }.map_err(to_python)?;
            let (bounds, sums, centroids): (u64, u64, u64) =
                Python::attach(|py| allocate.call1(py, (count,))?.extract(py))?;
            // The results were allocated on the caller's stream.
            labeler.after(caller).map_err(to_python)?;
            // SAFETY: `allocate` returned arrays of the documented sizes.
            unsafe { labeler.write_features(bounds, sums, centroids) }.map_err(to_python)?;
            Ok(count)
        };
        // SAFETY: the Python caller passes its framework's current stream.
        unsafe { on_caller_stream(algorithm, device, stream, work) }
    })
}

/// What a host array labeled by a CUDA variant asks for.
pub(crate) enum HostTask {
    /// Canonical labels.
    Label,
    /// Canonical labels and OpenCV's statistics.
    LabelWithStats,
    /// The feature columns.
    Analyze,
}

/// The results of [`on_host_image`], copied back to the host.
pub(crate) struct HostResults {
    /// Components found.
    pub count: usize,
    /// Canonical labels (label tasks).
    pub labels: Vec<u32>,
    /// OpenCV's stats rows, background first.
    pub stats: Vec<i32>,
    /// The feature bounds: area, x_min, y_min, x_max, y_max per component.
    pub bounds: Vec<u32>,
    /// The coordinate sums (analysis).
    pub sums: Vec<u64>,
    /// Centroids.
    pub centroids: Vec<f64>,
}

/// Uploads `image` to a CUDA variant's device (device 0), runs `task` there
/// with the device-side numbering and layouts, and copies the results back.
pub(crate) fn on_host_image(
    algorithm: &'static Algorithm,
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
    task: HostTask,
) -> ccl::Result<HostResults> {
    let mut lease = Lease::take(algorithm, 0)?;
    let stream = lease.stream();
    let pooled = &mut lease.pooled;
    let pitch = ccl_cuda::runtime::upload_image(&stream, &mut pooled.image, image)?;
    let array = DeviceArray {
        address: DevPtr::of(pooled.image.get()?, &stream).address(),
        width: image.width(),
        height: image.height(),
        row_stride: pitch as isize,
        column_stride: 1,
        element: Element::Integer(1),
    };
    let pixels = image.pixel_count();
    let mut results = HostResults {
        count: 0,
        labels: Vec::new(),
        stats: Vec::new(),
        bounds: Vec::new(),
        sums: Vec::new(),
        centroids: Vec::new(),
    };
    match task {
        HostTask::Label | HostTask::LabelWithStats => {
            let with_stats = matches!(task, HostTask::LabelWithStats);
            let labels = address(pooled.labels.reserve(&stream, pixels)?, &stream);
            // SAFETY: the uploaded image and a label per pixel, on the
            // labeler's own stream.
            results.count = unsafe {
                pooled
                    .labeler
                    .label(&array, labels, connectivity, with_stats)?
            };
            results.labels = download(&stream, &pooled.labels, pixels)?;
            if with_stats {
                let rows = results.count + 1;
                let stats = address(pooled.stats.reserve(&stream, rows * 5)?, &stream);
                let centroids = address(pooled.centroids.reserve(&stream, rows * 2)?, &stream);
                // SAFETY: buffers of the documented sizes.
                unsafe { pooled.labeler.write_opencv_stats(stats, centroids)? };
                results.stats = download(&stream, &pooled.stats, rows * 5)?;
                results.centroids = download(&stream, &pooled.centroids, rows * 2)?;
            }
        }
        HostTask::Analyze => {
            // SAFETY: the uploaded image, on the labeler's own stream.
            let count = unsafe { pooled.labeler.analyze(&array, connectivity)? };
            results.count = count;
            let bounds = address(pooled.bounds.reserve(&stream, count * 5)?, &stream);
            let sums = address(pooled.sums.reserve(&stream, count * 2)?, &stream);
            let centroids = address(pooled.centroids.reserve(&stream, count * 2)?, &stream);
            // SAFETY: buffers of the documented sizes.
            unsafe { pooled.labeler.write_features(bounds, sums, centroids)? };
            results.bounds = download(&stream, &pooled.bounds, count * 5)?;
            results.sums = download(&stream, &pooled.sums, count * 2)?;
            results.centroids = download(&stream, &pooled.centroids, count * 2)?;
        }
    }
    lease.give_back();
    Ok(results)
}

/// The device address of `buffer`.
fn address<T>(buffer: &mut CudaSlice<T>, stream: &CudaStream) -> u64 {
    DevPtr::of(buffer, stream).address()
}

/// The first `len` elements of `buffer`.
fn download<T: ccl_cuda::cudarc::driver::DeviceRepr + Default + Clone>(
    stream: &std::sync::Arc<CudaStream>,
    buffer: &DeviceBuffer<T>,
    len: usize,
) -> ccl::Result<Vec<T>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    stream
        .clone_dtoh(&buffer.get()?.slice(..len))
        .map_err(cuda_error)
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(label_device, module)?)?;
    module.add_function(wrap_pyfunction!(
        connected_components_with_stats_device,
        module
    )?)?;
    module.add_function(wrap_pyfunction!(analyze_device, module)?)?;
    Ok(())
}
