//! The device path: CuPy arrays and CUDA tensors labeled where they lie,
//! on the caller's stream, by a pooled [`ArrayLabeler`]
//! (`ccl_cuda::interop::pool::on_caller_stream`: a labeler per call, its
//! work ordered after and before the caller's stream through events). The
//! host waits only for the component count, which sizes the results that
//! Python allocates in its framework.

use ccl::{Backend, Connectivity, Task, Variant};
use ccl_cuda::backend::Slices;
use ccl_cuda::cudarc::driver::{CudaStream, sys::CUstream};
use ccl_cuda::interop::pool::on_caller_stream;
use ccl_cuda::interop::{ArrayLabeler, DeviceArray, Element};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::filter::{FilterArgs, filter_of};
use crate::{connectivity, pick, to_python, volume_connectivity};

/// The CUDA variant a device array runs with: the one named, or the
/// preferred available CUDA variant.
pub(crate) fn cuda_variant(
    name: Option<&str>,
    task: Task,
    connectivity: Connectivity,
) -> PyResult<Variant> {
    let variant = pick(name, task, connectivity, Some(Backend::Cuda)).map_err(to_python)?;
    let algorithm = variant.algorithm();
    if algorithm.backend != Backend::Cuda {
        return Err(PyValueError::new_err(format!(
            "{} runs on the CPU and cannot label an array in GPU memory; name a CUDA variant \
             (ccl.algorithms() lists them) or copy the array to the host",
            algorithm.name
        )));
    }
    Ok(variant)
}

/// Runs `work` with a pooled labeler of `variant` on `device`, in the
/// caller's `stream`'s order ([`on_caller_stream`]).
///
/// # Safety
/// `stream` must be a live stream of `device` (or 0, the legacy default
/// stream), kept alive by the caller for the call.
pub(crate) unsafe fn on_stream<T>(
    variant: Variant,
    device: usize,
    stream: usize,
    work: impl FnOnce(&mut ArrayLabeler, &CudaStream) -> PyResult<T>,
) -> PyResult<T> {
    // SAFETY: this function's contract; a stream handle is its address.
    unsafe { on_caller_stream(variant.algorithm(), device, stream as CUstream, work) }
        .map_err(to_python)?
}

/// A device array as Python describes it: `(address, height, width,
/// row_stride, column_stride, kind, itemsize)`, strides in bytes, `kind`
/// numpy's dtype kind (`b`, `i`, `u` or `f`).
pub(crate) type ArrayArgs = (u64, usize, usize, isize, isize, char, usize);

pub(crate) fn device_array(
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
/// on the same device); returns the number of components. With `filter`,
/// only the components it keeps, numbered 1..=k, and returns k (in the
/// labeling's last pass where the variant's filters); with `mask` too (a
/// byte per pixel), whether each pixel is kept into it, `labels` then
/// scratch.
///
/// The addresses must be device memory of `device` as described, alive
/// until the call returns; `stream` is the caller's current stream there.
#[pyfunction]
#[pyo3(signature = (device, stream, array, labels, connectivity_value, algorithm=None, filter=None, mask=None))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn label_device(
    py: Python<'_>,
    device: usize,
    stream: usize,
    array: ArrayArgs,
    labels: u64,
    connectivity_value: u32,
    algorithm: Option<&str>,
    filter: Option<FilterArgs>,
    mask: Option<u64>,
) -> PyResult<usize> {
    let connectivity = connectivity(connectivity_value)?;
    let variant = cuda_variant(algorithm, Task::Label, connectivity)?;
    let array = device_array(array)?;
    let filter = filter.map(filter_of).transpose()?;
    if mask.is_some() && filter.is_none() {
        return Err(PyValueError::new_err(
            "a mask is the clean-up's: pass a filter with it",
        ));
    }
    py.detach(|| {
        let work = |labeler: &mut ArrayLabeler, _: &CudaStream| {
            // SAFETY: the Python caller's contract above.
            unsafe {
                match &filter {
                    None => labeler.label(&array, labels, connectivity, false),
                    Some(filter) => {
                        labeler.label_filtered(&array, labels, connectivity, filter, mask)
                    }
                }
            }
            .map_err(to_python)
        };
        // SAFETY: the Python caller passes its framework's current stream.
        unsafe { on_stream(variant, device, stream, work) }
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
    let variant = cuda_variant(algorithm, Task::Label, connectivity)?;
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
        unsafe { on_stream(variant, device, stream, work) }
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
    let variant = cuda_variant(algorithm, Task::Analyze, connectivity)?;
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
        unsafe { on_stream(variant, device, stream, work) }
    })
}

/// The slices of a device volume given as the array of its rows
/// (`depth * height` rows): `height` rows each.
pub(crate) fn slices(rows: &DeviceArray, depth: usize, height: usize) -> PyResult<Slices> {
    if depth.checked_mul(height) != Some(rows.height) {
        return Err(PyValueError::new_err(format!(
            "{depth} slices of {height} rows are not the {} rows given",
            rows.height
        )));
    }
    Ok(Slices { height, depth })
}

/// Labels a device volume, given as `rows` (its `depth * height` rows, slice
/// after slice), into `labels` (`depth × height × width` 32-bit, C order,
/// on the same device); returns the number of components.
///
/// The addresses must be device memory of `device` as described, alive
/// until the call returns; `stream` is the caller's current stream there.
#[pyfunction]
#[pyo3(signature = (device, stream, rows, depth, height, labels, connectivity_value, algorithm=None))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn label_volume_device(
    py: Python<'_>,
    device: usize,
    stream: usize,
    rows: ArrayArgs,
    depth: usize,
    height: usize,
    labels: u64,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<usize> {
    let connectivity = volume_connectivity(connectivity_value)?;
    let variant = cuda_variant(algorithm, Task::Label, connectivity)?;
    let rows = device_array(rows)?;
    let slices = slices(&rows, depth, height)?;
    py.detach(|| {
        let work = |labeler: &mut ArrayLabeler, _: &CudaStream| {
            // SAFETY: the Python caller's contract above.
            unsafe { labeler.label_volume(&rows, slices, labels, connectivity) }.map_err(to_python)
        };
        // SAFETY: the Python caller passes its framework's current stream.
        unsafe { on_stream(variant, device, stream, work) }
    })
}

/// Analyzes a device volume (given as its rows, as [`label_volume_device`])
/// with the variant's own analysis: once the count N is known,
/// `allocate(N)` returns the addresses of `N × 7` uint32 (area, x_min,
/// y_min, z_min, x_max, y_max, z_max), `N × 3` uint64 (sum_x, sum_y,
/// sum_z) and `N × 3` float64 (centroids) on the device, which are filled
/// there: the features never cross to the host.
#[pyfunction]
#[pyo3(signature = (device, stream, rows, depth, height, connectivity_value, allocate, algorithm=None))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn analyze_volume_device(
    py: Python<'_>,
    device: usize,
    stream: usize,
    rows: ArrayArgs,
    depth: usize,
    height: usize,
    connectivity_value: u32,
    allocate: Py<PyAny>,
    algorithm: Option<&str>,
) -> PyResult<usize> {
    let connectivity = volume_connectivity(connectivity_value)?;
    let variant = cuda_variant(algorithm, Task::Analyze, connectivity)?;
    let rows = device_array(rows)?;
    let slices = slices(&rows, depth, height)?;
    py.detach(|| {
        let work = |labeler: &mut ArrayLabeler, caller: &CudaStream| {
            // SAFETY: the Python caller's contract above.
            let count = unsafe { labeler.analyze_volume(&rows, slices, connectivity) }
                .map_err(to_python)?;
            let (bounds, sums, centroids): (u64, u64, u64) =
                Python::attach(|py| allocate.call1(py, (count,))?.extract(py))?;
            // The results were allocated on the caller's stream.
            labeler.after(caller).map_err(to_python)?;
            // SAFETY: `allocate` returned arrays of the documented sizes.
            unsafe { labeler.write_volume_features(bounds, sums, centroids) }.map_err(to_python)?;
            Ok(count)
        };
        // SAFETY: the Python caller passes its framework's current stream.
        unsafe { on_stream(variant, device, stream, work) }
    })
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(label_volume_device, module)?)?;
    module.add_function(wrap_pyfunction!(analyze_volume_device, module)?)?;
    module.add_function(wrap_pyfunction!(label_device, module)?)?;
    module.add_function(wrap_pyfunction!(
        connected_components_with_stats_device,
        module
    )?)?;
    module.add_function(wrap_pyfunction!(analyze_device, module)?)?;
    Ok(())
}
