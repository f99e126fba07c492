//! The host path: arrays in host memory, labeled by the preferred available
//! variant (or the one named). A CPU variant labels them in place; a CUDA
//! variant gets them uploaded and numbers and lays out its results on the
//! device ([`cuda::on_host_image`]).

use ccl::{Algorithm, Backend, BinaryImage, ComponentStats, Connectivity, Error, Task};
use pyo3::prelude::*;

use crate::cuda::{self, HostTask};
use crate::host_array::HostArray;
use crate::{connectivity, pick, to_python};

/// A host image as Python describes it: `(address, height, width,
/// row_stride)`: bytes, nonzero = foreground, one per column, rows
/// `row_stride` bytes apart.
type ImageArgs = (usize, usize, usize, usize);

/// The image at `address`.
///
/// # Safety
/// `address` must point at `(height - 1) * row_stride + width` readable
/// bytes that stay alive and unchanged for `'a`.
unsafe fn image<'a>(
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
    let algorithm = pick(algorithm, Task::Label, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let image = unsafe { image(image_args)? };
        let (labels, count) = canonical_labels(algorithm, &image, connectivity)?;
        Ok((labels_array(labels, &image, false), count))
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
    let algorithm = pick(algorithm, Task::Label, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let image = unsafe { image(image_args)? };
        let (labels, count, stats, centroids) = if algorithm.backend == Backend::Cuda {
            let r = cuda::on_host_image(algorithm, &image, connectivity, HostTask::LabelWithStats)?;
            (r.labels, r.count, r.stats, r.centroids)
        } else {
            let (labels, count) = canonical_labels(algorithm, &image, connectivity)?;
            let components = match algorithm.analyzer {
                Some(_) => algorithm.analyzer()?.analyze(&image, connectivity)?,
                None => ComponentStats::from_labels(&ccl::LabelImage::new(
                    image.width(),
                    image.height(),
                    labels.clone(),
                )?),
            };
            if components.len() != count {
                return Err(Error::Unavailable(format!(
                    "{} labeled {count} components but analyzed {}",
                    algorithm.name,
                    components.len()
                )));
            }
            let (stats, centroids) = opencv_stats(&image, &components);
            (labels, count, stats, centroids)
        };
        let rows = count + 1;
        Ok((
            rows,
            labels_array(labels, &image, true),
            HostArray::i32(stats, vec![rows, 5]),
            HostArray::f64(centroids, vec![rows, 2]),
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
    let algorithm = pick(algorithm, Task::Analyze, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let image = unsafe { image(image_args)? };
        let (count, bounds, sums, centroids) = if algorithm.backend == Backend::Cuda {
            let r = cuda::on_host_image(algorithm, &image, connectivity, HostTask::Analyze)?;
            (r.count, r.bounds, r.sums, r.centroids)
        } else {
            let components = algorithm.analyzer()?.analyze(&image, connectivity)?;
            let bounds = components
                .iter()
                .flat_map(|s| [s.area, s.x_min, s.y_min, s.x_max, s.y_max])
                .collect();
            let sums = components.iter().flat_map(|s| [s.sum_x, s.sum_y]).collect();
            let centroids = components
                .iter()
                .flat_map(|s| <[f64; 2]>::from(s.centroid()))
                .collect();
            (components.len(), bounds, sums, centroids)
        };
        Ok((
            HostArray::u32(bounds, vec![count, 5]),
            HostArray::u64(sums, vec![count, 2]),
            HostArray::f64(centroids, vec![count, 2]),
        ))
    })
    .map_err(to_python)
}

/// Canonical labels of `image` and their count, by `algorithm`.
fn canonical_labels(
    algorithm: &'static Algorithm,
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
) -> ccl::Result<(Vec<u32>, usize)> {
    if algorithm.backend == Backend::Cuda {
        let r = cuda::on_host_image(algorithm, image, connectivity, HostTask::Label)?;
        return Ok((r.labels, r.count));
    }
    let labels = algorithm
        .labeler()?
        .label(image, connectivity)?
        .into_canonical();
    let count = labels
        .component_count_if_canonical()
        .ok_or_else(|| Error::Unavailable("canonical labels were not canonical".into()))?;
    Ok((labels.into_labels(), count))
}

/// A label image for numpy: uint32, or OpenCV's int32.
fn labels_array(labels: Vec<u32>, image: &BinaryImage<'_>, as_int32: bool) -> HostArray {
    let shape = vec![image.height(), image.width()];
    if as_int32 {
        HostArray::u32_as_i32(labels, shape)
    } else {
        HostArray::u32(labels, shape)
    }
}

/// OpenCV's stats rows (left, top, width, height, area) and centroids, row
/// 0 the background, from the components' features and the image. A
/// background without pixels is all zeros with a NaN centroid.
fn opencv_stats(image: &BinaryImage<'_>, components: &[ComponentStats]) -> (Vec<i32>, Vec<f64>) {
    let rows = components.len() + 1;
    let (mut stats, mut centroids) = (Vec::with_capacity(rows * 5), Vec::with_capacity(rows * 2));
    let background = background(image, components);
    match background {
        Some(b) => {
            stats.extend(row(&b.bounds));
            centroids.extend([
                b.sum_x as f64 / b.bounds.area as f64,
                b.sum_y as f64 / b.bounds.area as f64,
            ]);
        }
        None => {
            stats.extend([0; 5]);
            centroids.extend([f64::NAN; 2]);
        }
    }
    for component in components {
        stats.extend(row(component));
        centroids.extend(<[f64; 2]>::from(component.centroid()));
    }
    (stats, centroids)
}

/// One OpenCV stats row.
fn row(s: &ComponentStats) -> [i32; 5] {
    [
        s.x_min as i32,
        s.y_min as i32,
        s.width() as i32,
        s.height() as i32,
        s.area as i32,
    ]
}

/// The background's features: its bounds in a [`ComponentStats`] (sums
/// unused) and its coordinate sums, which may exceed 64 bits' worth of
/// a component's.
struct Background {
    bounds: ComponentStats,
    sum_x: u128,
    sum_y: u128,
}

/// The background of `image` (every pixel not in a component), or `None`
/// when every pixel is foreground. Area and sums are the image's less the
/// components'; the bounding box scans rows from each side and stops as
/// soon as it is known (at once, for most images).
fn background(image: &BinaryImage<'_>, components: &[ComponentStats]) -> Option<Background> {
    let (width, height) = (image.width() as u128, image.height() as u128);
    let foreground: u128 = components.iter().map(|c| c.area as u128).sum();
    let area = width * height - foreground;
    if area == 0 {
        return None;
    }
    let sum_x =
        height * width * (width - 1) / 2 - components.iter().map(|c| c.sum_x as u128).sum::<u128>();
    let sum_y = width * height * (height - 1) / 2
        - components.iter().map(|c| c.sum_y as u128).sum::<u128>();
    let rows = 0..image.height();
    let has_background = |y: &usize| image.row(*y).contains(&0);
    let y_min = rows.clone().find(has_background)?;
    let y_max = rows.clone().rev().find(has_background)?;
    let last_column = image.width() - 1;
    let (mut x_min, mut x_max) = (usize::MAX, 0);
    for y in y_min..=y_max {
        let row = image.row(y);
        if x_min > 0
            && let Some(x) = row.iter().position(|&p| p == 0)
        {
            x_min = x_min.min(x);
        }
        if x_max < last_column
            && let Some(x) = row.iter().rposition(|&p| p == 0)
        {
            x_max = x_max.max(x);
        }
        if x_min == 0 && x_max == last_column {
            break;
        }
    }
    Some(Background {
        bounds: ComponentStats {
            area: area as u32,
            x_min: x_min as u32,
            y_min: y_min as u32,
            x_max: x_max as u32,
            y_max: y_max as u32,
            sum_x: 0,
            sum_y: 0,
        },
        sum_x,
        sum_y,
    })
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(label_host, module)?)?;
    module.add_function(wrap_pyfunction!(
        connected_components_with_stats_host,
        module
    )?)?;
    module.add_function(wrap_pyfunction!(analyze_host, module)?)?;
    Ok(())
}
