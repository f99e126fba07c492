//! The host path: arrays in host memory, labeled by the preferred available
//! variant (or the one named) through the `ccl` facade ([`ccl::Variant`]):
//! a CPU variant labels them in place, a CUDA variant on a pooled labeler.
//! OpenCV's layout is `ccl::opencv`'s; this module only translates.

use ccl::{BinaryImage, ComponentStats, Error, LabelImage, Task};
use pyo3::prelude::*;

use crate::host_array::HostArray;
use crate::{connectivity, pick, to_python};

/// A host image as Python describes it: `(address, height, width,
/// row_stride)`: bytes, nonzero = foreground, one per column, rows
/// `row_stride` bytes apart.
pub(crate) type ImageArgs = (usize, usize, usize, usize);

/// The image at `address`.
///
/// # Safety
/// `address` must point at `(height - 1) * row_stride + width` readable
/// bytes that stay alive and unchanged for `'a`.
pub(crate) unsafe fn image<'a>(
    (address, height, width, row_stride): ImageArgs,
) -> ccl::Result<BinaryImage<'a>> {
    if width == 0 || height == 0 {
        return Err(Error::InvalidDimensions(format!(
            "a {width}x{height} array has no pixels"
        )));
    }
    let len = (height - 1)
        .checked_mul(row_stride)
        .and_then(|n| n.checked_add(width))
        .ok_or_else(|| Error::InvalidDimensions("the array's extent overflows".into()))?;
    // SAFETY: the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(address as *const u8, len) };
    BinaryImage::with_stride(bytes, width, height, row_stride)
}

/// Labels a host image: `(labels, n)`, labels a `height × width` uint32
/// array (1..=n in raster order of each component's first pixel).
///
/// The image's bytes must stay alive and unchanged during the call (the
/// Python caller holds the array).
#[pyfunction]
#[pyo3(signature = (image_args, connectivity_value, algorithm=None))]
fn label_host(
    py: Python<'_>,
    image_args: ImageArgs,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<(HostArray, usize)> {
    let connectivity = connectivity(connectivity_value)?;
    let variant = pick(algorithm, Task::Label, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let image = unsafe { image(image_args)? };
        let (labels, count) = variant.label(&image, connectivity)?;
        Ok((labels_array(labels, false), count))
    })
    .map_err(to_python)
}

/// Labels a host image into the caller's array at `labels_address`
/// (`height × width` packed 32-bit labels, written in place): returns n.
///
/// The image's bytes must stay alive and unchanged during the call, and the
/// labels' memory writable by this call alone, apart from the image (the
/// Python caller checks both and holds the arrays).
#[pyfunction]
#[pyo3(signature = (image_args, labels_address, connectivity_value, algorithm=None))]
fn label_host_into(
    py: Python<'_>,
    image_args: ImageArgs,
    labels_address: usize,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<usize> {
    let connectivity = connectivity(connectivity_value)?;
    let variant = pick(algorithm, Task::Label, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let image = unsafe { image(image_args)? };
        // SAFETY: the caller's array holds height * width aligned 32-bit
        // labels that nothing else reads or writes during the call.
        let labels = unsafe {
            std::slice::from_raw_parts_mut(labels_address as *mut u32, image.pixel_count())
        };
        variant.label_into(&image, connectivity, labels)
    })
    .map_err(to_python)
}

/// OpenCV's `connectedComponentsWithStats` of a host image: `(n, labels,
/// stats, centroids)` with n counting the background.
#[pyfunction]
#[pyo3(signature = (image_args, connectivity_value, algorithm=None))]
fn connected_components_with_stats_host(
    py: Python<'_>,
    image_args: ImageArgs,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<(usize, HostArray, HostArray, HostArray)> {
    let connectivity = connectivity(connectivity_value)?;
    let variant = pick(algorithm, Task::Label, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let image = unsafe { image(image_args)? };
        let result = variant.connected_components_with_stats(&image, connectivity)?;
        let rows = result.count + 1;
        Ok((
            rows,
            labels_array(result.labels, true),
            HostArray::i32(result.stats, vec![rows, ccl::opencv::STATS_COLUMNS]),
            HostArray::f64(result.centroids, vec![rows, ccl::opencv::CENTROID_COLUMNS]),
        ))
    })
    .map_err(to_python)
}

/// The features of every component of a host image: `(bounds, sums,
/// centroids)`, N × 5 uint32 (area, x_min, y_min, x_max, y_max), N × 2
/// uint64 (sum_x, sum_y) and N × 2 float64.
#[pyfunction]
#[pyo3(signature = (image_args, connectivity_value, algorithm=None))]
fn analyze_host(
    py: Python<'_>,
    image_args: ImageArgs,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<(HostArray, HostArray, HostArray)> {
    let connectivity = connectivity(connectivity_value)?;
    let variant = pick(algorithm, Task::Analyze, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let image = unsafe { image(image_args)? };
        let components = variant.analyze(&image, connectivity)?;
        Ok(feature_columns(&components))
    })
    .map_err(to_python)
}

/// The features as numpy columns: bounds, sums and centroids.
pub(crate) fn feature_columns(components: &[ComponentStats]) -> (HostArray, HostArray, HostArray) {
    let count = components.len();
    let bounds = components
        .iter()
        .flat_map(|s| [s.area, s.x_min, s.y_min, s.x_max, s.y_max])
        .collect();
    let sums = components.iter().flat_map(|s| [s.sum_x, s.sum_y]).collect();
    let centroids = components
        .iter()
        .flat_map(|s| <[f64; 2]>::from(s.centroid()))
        .collect();
    (
        HostArray::u32(bounds, vec![count, 5]),
        HostArray::u64(sums, vec![count, 2]),
        HostArray::f64(centroids, vec![count, 2]),
    )
}

/// A label image for numpy: uint32, or OpenCV's int32.
fn labels_array(labels: LabelImage, as_int32: bool) -> HostArray {
    let shape = vec![labels.height(), labels.width()];
    if as_int32 {
        HostArray::u32_as_i32(labels.into_labels(), shape)
    } else {
        HostArray::u32(labels.into_labels(), shape)
    }
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(label_host, module)?)?;
    module.add_function(wrap_pyfunction!(label_host_into, module)?)?;
    module.add_function(wrap_pyfunction!(
        connected_components_with_stats_host,
        module
    )?)?;
    module.add_function(wrap_pyfunction!(analyze_host, module)?)?;
    Ok(())
}
