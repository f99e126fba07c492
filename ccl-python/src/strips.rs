//! Host arrays larger than a GPU's memory, or past 2^32 pixels, labeled in
//! strips streamed through the GPU (`ccl_scale::StripLabeler`) into the
//! caller's label array, 32- or 64-bit, or analyzed so (features and cc3d's
//! statistics merged across strips).

use std::sync::{Arc, Mutex};

use ccl::{Connectivity, Task};
use ccl_scale::{FeatureColumns, Pixels, Shape, StripLabeler, StripOptions};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::host_array::HostArray;
use crate::statistics::{BackgroundBox, statistics_rows};
use crate::{any_connectivity, to_python, values_at};

/// The shape of packed bytes: (height, width) or (depth, height, width).
fn strip_shape(shape: &[usize]) -> ccl::Result<Shape> {
    match *shape {
        [height, width] => Ok(Shape::Image { width, height }),
        [depth, height, width] => Ok(Shape::Volume {
            width,
            height,
            depth,
        }),
        _ => Err(ccl::Error::InvalidDimensions(format!(
            "{} dimensions; an image has 2, a volume 3",
            shape.len()
        ))),
    }
}

/// The kept strip labeler for a call: the named variant's backend, else
/// the preferred one's for `task`.
fn strip_labeler(
    task: Task,
    connectivity: Connectivity,
    algorithm: Option<&str>,
    max_memory: Option<u64>,
    devices: Option<Vec<usize>>,
) -> ccl::Result<Arc<StripLabeler>> {
    let backend = match algorithm {
        Some(name) => ccl::find(name)?.backend,
        None => ccl::default_algorithm(task, connectivity)?.backend,
    };
    let options = StripOptions {
        backend,
        devices: devices.unwrap_or_default(),
        max_memory,
        variant: algorithm.map(str::to_string),
        ..StripOptions::default()
    };
    labeler(options, connectivity)
}

/// Labels the packed bytes at `address` (nonzero = foreground) of `shape`
/// ((height, width) or (depth, height, width)) in strips into the caller's
/// packed labels at `labels_address` (`uint64` where `wide`, else
/// `uint32`): returns `(n, strips)`.
///
/// The bytes must stay alive and unchanged during the call, and the labels'
/// memory writable by this call alone (the Python caller holds both arrays).
#[pyfunction]
#[pyo3(signature = (address, shape, labels_address, wide, connectivity_value, algorithm=None, max_memory=None, devices=None))]
#[allow(clippy::too_many_arguments)]
fn label_strips_host(
    py: Python<'_>,
    address: usize,
    shape: Vec<usize>,
    labels_address: usize,
    wide: bool,
    connectivity_value: u32,
    algorithm: Option<&str>,
    max_memory: Option<u64>,
    devices: Option<Vec<usize>>,
) -> PyResult<(u64, usize)> {
    let connectivity = any_connectivity(connectivity_value)?;
    let shape = strip_shape(&shape).map_err(to_python)?;
    py.detach(|| {
        let labeler = strip_labeler(Task::Label, connectivity, algorithm, max_memory, devices)?;
        let len = shape.pixels() as usize;
        // SAFETY: the Python caller's contract: `len` readable bytes.
        let pixels = Pixels::new(unsafe { values_at::<u8>(address, len) }, shape)?;
        let report = if wide {
            // SAFETY: the caller's contract: `len` writable u64, apart.
            let out = unsafe { std::slice::from_raw_parts_mut(labels_address as *mut u64, len) };
            labeler.label_pixels(&pixels, connectivity, out)?
        } else {
            // SAFETY: as above, of u32.
            let out = unsafe { std::slice::from_raw_parts_mut(labels_address as *mut u32, len) };
            labeler.label_pixels(&pixels, connectivity, out)?
        };
        Ok((report.count, report.strips))
    })
    .map_err(to_python)
}

/// The features of every component of the packed bytes at `address` (of
/// `shape`), merged across strips: `(areas, mins, maxs, sums, centroids)`,
/// `N` areas (uint32 where the array has at most 2^32 − 2 pixels, else
/// uint64), `N × 3` uint32 (x, y, z), `N × 3` uint32, `N × 3` uint64 and
/// `N × axes` float64 (x, y[, z]), row `i` canonical label `i + 1` (z 0 of
/// an image).
///
/// The bytes must stay alive and unchanged during the call.
#[pyfunction]
#[pyo3(signature = (address, shape, connectivity_value, algorithm=None, max_memory=None, devices=None))]
fn analyze_strips_host(
    py: Python<'_>,
    address: usize,
    shape: Vec<usize>,
    connectivity_value: u32,
    algorithm: Option<&str>,
    max_memory: Option<u64>,
    devices: Option<Vec<usize>>,
) -> PyResult<(HostArray, HostArray, HostArray, HostArray, HostArray)> {
    let connectivity = any_connectivity(connectivity_value)?;
    let axes = shape.len();
    let shape = strip_shape(&shape).map_err(to_python)?;
    py.detach(|| {
        let labeler = strip_labeler(Task::Analyze, connectivity, algorithm, max_memory, devices)?;
        // SAFETY: the Python caller's contract: the array's bytes.
        let bytes = unsafe { values_at::<u8>(address, shape.pixels() as usize) };
        let pixels = Pixels::new(bytes, shape)?;
        Ok(if shape.pixels() <= ccl::MAX_PIXELS {
            // Every area is below the pixels, so narrowing loses nothing.
            let columns =
                labeler.analyze_columns(shape, connectivity, &pixels, axes, |area| area as u32)?;
            arrays(columns, axes, HostArray::u32)
        } else {
            let columns =
                labeler.analyze_columns(shape, connectivity, &pixels, axes, |area| area)?;
            arrays(columns, axes, HostArray::u64)
        })
    })
    .map_err(to_python)
}

/// The five arrays of [`analyze_strips_host`], the areas made an array by
/// `areas`.
fn arrays<A>(
    columns: FeatureColumns<A>,
    axes: usize,
    areas: fn(Vec<A>, Vec<usize>) -> HostArray,
) -> (HostArray, HostArray, HostArray, HostArray, HostArray) {
    let n = columns.len();
    (
        areas(columns.areas, vec![n]),
        HostArray::u32(columns.mins, vec![n, 3]),
        HostArray::u32(columns.maxs, vec![n, 3]),
        HostArray::u64(columns.sums, vec![n, 3]),
        HostArray::f64(columns.centroids, vec![n, axes]),
    )
}

/// cc3d's `statistics` of the packed bytes at `address` (of `shape`), the
/// components' rows merged across strips: `(counts, bounds, centroids)` as
/// [`statistics_host`](crate::statistics) returns them, counts uint64
/// past 2^32 − 1 voxels.
///
/// The bytes must stay alive and unchanged during the call.
#[pyfunction]
#[pyo3(signature = (address, shape, connectivity_value, algorithm=None, max_memory=None, devices=None))]
fn statistics_strips_host(
    py: Python<'_>,
    address: usize,
    shape: Vec<usize>,
    connectivity_value: u32,
    algorithm: Option<&str>,
    max_memory: Option<u64>,
    devices: Option<Vec<usize>>,
) -> PyResult<(HostArray, HostArray, HostArray)> {
    let connectivity = any_connectivity(connectivity_value)?;
    let axes = shape.len();
    let shape = strip_shape(&shape).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract: the array's bytes.
        let bytes = unsafe { values_at::<u8>(address, shape.pixels() as usize) };
        let strips = (algorithm, max_memory, devices);
        let components = analyze_strips(bytes, shape, connectivity, strips)?;
        let [width, height, depth] = shape.sides();
        let background = packed_background(bytes, width, height);
        statistics_rows(axes, [width, height, depth], background, &components)
    })
    .map_err(to_python)
}

/// The features of the components of `bytes` (of `shape`), merged across
/// strips labeled as `(algorithm, max_memory, devices)` say.
fn analyze_strips(
    bytes: &[u8],
    shape: Shape,
    connectivity: Connectivity,
    (algorithm, max_memory, devices): (Option<&str>, Option<u64>, Option<Vec<usize>>),
) -> ccl::Result<Vec<ccl_scale::LargeStats>> {
    let labeler = strip_labeler(Task::Analyze, connectivity, algorithm, max_memory, devices)?;
    labeler.analyze(shape, connectivity, &Pixels::new(bytes, shape)?)
}

/// The background box of packed rows of `width` (`height` a slice), the
/// rows in tasks on the host's pool: one read of an array that may be
/// larger than a GPU.
fn packed_background(bytes: &[u8], width: usize, height: usize) -> BackgroundBox {
    bytes
        .par_chunks_exact(width.max(1))
        .enumerate()
        .fold(BackgroundBox::default, |mut background, (row, pixels)| {
            background.add_row(pixels, row % height, row / height);
            background
        })
        .reduce(BackgroundBox::default, |mut all, part| {
            all.merge(part);
            all
        })
}

/// The backend (`"cuda"` or `"cpu"`) of the variant that labels in
/// `connectivity_value` when `algorithm` is named, or when none is: the
/// preferred one here.
#[pyfunction]
#[pyo3(signature = (connectivity_value, algorithm=None))]
fn label_backend(connectivity_value: u32, algorithm: Option<&str>) -> PyResult<&'static str> {
    let connectivity = any_connectivity(connectivity_value)?;
    let backend = match algorithm {
        Some(name) => ccl::find(name),
        None => ccl::default_algorithm(Task::Label, connectivity),
    }
    .map_err(to_python)?
    .backend;
    Ok(backend.into())
}

/// Bytes of a size as people write it (`8GiB`, `512MiB`, `2GB`): the
/// CLI's `--max-gpu-memory` parser ([`ccl_scale::parse_size`]).
#[pyfunction]
fn parse_size(text: &str) -> PyResult<u64> {
    ccl_scale::parse_size(text).map_err(to_python)
}

/// The labelers of the last calls, kept with their workers: a GPU worker's
/// pinned host buffers take longer to allocate than a strip to label.
type Kept = Vec<((StripOptions, Connectivity), Arc<StripLabeler>)>;
static LABELERS: Mutex<Kept> = Mutex::new(Vec::new());

/// Labelers kept at most (each holds pinned host memory of its strips).
const KEPT_LABELERS: usize = 2;

/// The kept labeler of `options` and `connectivity`, or a new one (kept in
/// place of the oldest).
fn labeler(options: StripOptions, connectivity: Connectivity) -> ccl::Result<Arc<StripLabeler>> {
    let mut kept = LABELERS.lock().unwrap_or_else(|e| e.into_inner());
    let key = (options, connectivity);
    if let Some((_, labeler)) = kept.iter().find(|(k, _)| *k == key) {
        return Ok(labeler.clone());
    }
    let labeler = Arc::new(StripLabeler::new(key.0.clone(), connectivity)?);
    if kept.len() == KEPT_LABELERS {
        kept.remove(0);
    }
    kept.push((key, labeler.clone()));
    Ok(labeler)
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(label_strips_host, module)?)?;
    module.add_function(wrap_pyfunction!(analyze_strips_host, module)?)?;
    module.add_function(wrap_pyfunction!(statistics_strips_host, module)?)?;
    module.add_function(wrap_pyfunction!(parse_size, module)?)?;
    module.add_function(wrap_pyfunction!(label_backend, module)?)?;
    Ok(())
}
