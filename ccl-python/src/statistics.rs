//! cc3d's `statistics` of host images and volumes, from the components'
//! features: per label (row 0 the background, row i canonical label i) the
//! voxel count, the inclusive bounding box and the centroid, each with one
//! entry per array axis in the array's order (z, y, x for a volume; y, x
//! for an image), as `cc3d.statistics` lays them out.
//!
//! The components' rows are the variant's own analysis. The background's
//! count and centroid are the totals minus the components'; its bounding
//! box is where the input holds a zero, found by one scan of its rows.

use ccl::{BinaryImage, BinaryVolume, ComponentStats, Error, Task, VolumeStats};
use pyo3::prelude::*;

use crate::host::{ImageArgs, image};
use crate::host_array::HostArray;
use crate::volume::{VolumeArgs, volume};
use crate::{connectivity, pick, to_python, volume_connectivity};

/// cc3d's three arrays, built a row at a time: `(N + 1)` uint32 counts,
/// `(N + 1) × 2·axes` uint32 bounds (min, max of each axis) and `(N + 1) ×
/// axes` float64 centroids.
struct Rows {
    axes: usize,
    counts: Vec<u32>,
    bounds: Vec<u32>,
    centroids: Vec<f64>,
}

impl Rows {
    fn new(axes: usize, rows: usize) -> Self {
        Self {
            axes,
            counts: Vec::with_capacity(rows),
            bounds: Vec::with_capacity(rows * 2 * axes),
            centroids: Vec::with_capacity(rows * axes),
        }
    }

    /// A label's row: its count, `(min, max)` and coordinate sum of each
    /// axis in array order. A label without voxels has cc3d's sentinel box
    /// (min `u32::MAX`, max 0) and a NaN centroid.
    fn push(&mut self, count: u32, bounds: &[(u32, u32)], sums: &[u128]) {
        debug_assert!(bounds.len() == self.axes && sums.len() == self.axes);
        self.counts.push(count);
        for &(min, max) in bounds {
            self.bounds.extend([min, max]);
        }
        // cc3d divides its sum (exact below 2^53, as here) by the count.
        self.centroids.extend(sums.iter().map(|&sum| match count {
            0 => f64::NAN,
            _ => sum as f64 / f64::from(count),
        }));
    }

    fn into_arrays(self) -> (HostArray, HostArray, HostArray) {
        let rows = self.counts.len();
        (
            HostArray::u32(self.counts, vec![rows]),
            HostArray::u32(self.bounds, vec![rows, 2 * self.axes]),
            HostArray::f64(self.centroids, vec![rows, self.axes]),
        )
    }
}

/// The inclusive box of the background: the columns of any row's zeros,
/// and the rows and slices that hold one. `None` while no zero was seen.
#[derive(Default)]
struct BackgroundBox {
    bounds: Option<[(u32, u32); 3]>,
}

impl BackgroundBox {
    /// Adds row `y` of slice `z`.
    fn add_row(&mut self, row: &[u8], y: usize, z: usize) {
        let Some(first) = row.iter().position(|&p| p == 0) else {
            return;
        };
        let last = row.iter().rposition(|&p| p == 0).unwrap_or(first);
        // Every coordinate is below MAX_PIXELS, a u32.
        let (first, last, y, z) = (first as u32, last as u32, y as u32, z as u32);
        let bounds = self.bounds.get_or_insert([(first, last), (y, y), (z, z)]);
        let [x_range, y_range, z_range] = bounds;
        *x_range = (x_range.0.min(first), x_range.1.max(last));
        *y_range = (y_range.0.min(y), y_range.1.max(y));
        *z_range = (z_range.0.min(z), z_range.1.max(z));
    }

    /// `(min, max)` of x, y and z, or cc3d's sentinel for a label without
    /// voxels.
    fn bounds(&self) -> [(u32, u32); 3] {
        self.bounds.unwrap_or([(u32::MAX, 0); 3])
    }
}

/// The voxels the components do not cover: the background's count.
fn background_count(total: usize, components: impl Iterator<Item = u32>) -> ccl::Result<u32> {
    let covered: u64 = components.map(u64::from).sum();
    (total as u64)
        .checked_sub(covered)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            Error::Unavailable(format!(
                "the analysis covers {covered} of the input's {total} pixels or voxels"
            ))
        })
}

/// The sum of the coordinates 0..n, `others` times over.
fn coordinate_sum(n: usize, others: usize) -> u128 {
    let n = n as u128;
    n * n.saturating_sub(1) / 2 * others as u128
}

/// cc3d's statistics of an image: rows of (y, x).
fn image_rows(image: &BinaryImage<'_>, components: &[ComponentStats]) -> ccl::Result<Rows> {
    let (width, height) = (image.width(), image.height());
    let mut rows = Rows::new(2, components.len() + 1);
    let mut background = BackgroundBox::default();
    for y in 0..height {
        background.add_row(image.row(y), y, 0);
    }
    let [x, y, _] = background.bounds();
    let sum = |total: u128, part: fn(&ComponentStats) -> u64| {
        total - components.iter().map(|s| u128::from(part(s))).sum::<u128>()
    };
    rows.push(
        background_count(image.pixel_count(), components.iter().map(|s| s.area))?,
        &[y, x],
        &[
            sum(coordinate_sum(height, width), |s| s.sum_y),
            sum(coordinate_sum(width, height), |s| s.sum_x),
        ],
    );
    for s in components {
        rows.push(
            s.area,
            &[(s.y_min, s.y_max), (s.x_min, s.x_max)],
            &[u128::from(s.sum_y), u128::from(s.sum_x)],
        );
    }
    Ok(rows)
}

/// cc3d's statistics of a volume: rows of (z, y, x).
fn volume_rows(volume: &BinaryVolume<'_>, components: &[VolumeStats]) -> ccl::Result<Rows> {
    let (width, height, depth) = (volume.width(), volume.height(), volume.depth());
    let mut rows = Rows::new(3, components.len() + 1);
    let mut background = BackgroundBox::default();
    for z in 0..depth {
        for y in 0..height {
            background.add_row(volume.row(y, z), y, z);
        }
    }
    let [x, y, z] = background.bounds();
    let sum = |total: u128, part: fn(&VolumeStats) -> u64| {
        total - components.iter().map(|s| u128::from(part(s))).sum::<u128>()
    };
    rows.push(
        background_count(volume.voxel_count(), components.iter().map(|s| s.area))?,
        &[z, y, x],
        &[
            sum(coordinate_sum(depth, width * height), |s| s.sum_z),
            sum(coordinate_sum(height, width * depth), |s| s.sum_y),
            sum(coordinate_sum(width, height * depth), |s| s.sum_x),
        ],
    );
    for s in components {
        rows.push(
            s.area,
            &[(s.z_min, s.z_max), (s.y_min, s.y_max), (s.x_min, s.x_max)],
            &[
                u128::from(s.sum_z),
                u128::from(s.sum_y),
                u128::from(s.sum_x),
            ],
        );
    }
    Ok(rows)
}

/// cc3d's `statistics` of the labels of a host image: `(counts, bounds,
/// centroids)`, `(N + 1)` uint32, `(N + 1) × 4` uint32 (y_min, y_max,
/// x_min, x_max; a background without pixels has `u32::MAX` minima and 0
/// maxima) and `(N + 1) × 2` float64 (y, x; NaN for that background).
///
/// The image's bytes must stay alive and unchanged during the call (the
/// Python caller holds the array).
#[pyfunction]
#[pyo3(signature = (image_args, connectivity_value, algorithm=None))]
fn statistics_host(
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
        Ok(image_rows(&image, &components)?.into_arrays())
    })
    .map_err(to_python)
}

/// [`statistics_host`] of a host volume: `(N + 1) × 6` bounds (z_min,
/// z_max, y_min, y_max, x_min, x_max) and `(N + 1) × 3` centroids (z, y,
/// x).
#[pyfunction]
#[pyo3(signature = (volume_args, connectivity_value, algorithm=None))]
fn statistics_volume_host(
    py: Python<'_>,
    volume_args: VolumeArgs,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<(HostArray, HostArray, HostArray)> {
    let connectivity = volume_connectivity(connectivity_value)?;
    let variant = pick(algorithm, Task::Analyze, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let volume = unsafe { volume(volume_args)? };
        let components = variant.analyze_volume(&volume, connectivity)?;
        Ok(volume_rows(&volume, &components)?.into_arrays())
    })
    .map_err(to_python)
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(statistics_host, module)?)?;
    module.add_function(wrap_pyfunction!(statistics_volume_host, module)?)?;
    Ok(())
}
