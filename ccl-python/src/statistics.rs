//! cc3d's `statistics` of host images and volumes, from the components'
//! features: per label (row 0 the background, row i canonical label i) the
//! voxel count, the inclusive bounding box and the centroid, each with one
//! entry per array axis in the array's order (z, y, x for a volume; y, x
//! for an image), as `cc3d.statistics` lays them out.
//!
//! The components' rows are the variant's own analysis (or the strips'
//! merged one, [`crate::strips`]). The background's count and centroid are
//! the totals minus the components'; its bounding box is where the input
//! holds a zero, found by one scan of its rows.

use ccl::{BinaryImage, BinaryVolume, Error, Task};
use ccl_scale::LargeStats;
use pyo3::prelude::*;

use crate::host::{ImageArgs, image};
use crate::host_array::HostArray;
use crate::volume::{VolumeArgs, volume};
use crate::{connectivity, pick, to_python, volume_connectivity};

/// cc3d's three arrays, built a row at a time: `(N + 1)` counts (uint32,
/// or uint64 where one exceeds it: an array past 2^32 voxels),
/// `(N + 1) × 2·axes` uint32 bounds (min, max of each axis) and `(N + 1) ×
/// axes` float64 centroids.
struct Rows {
    axes: usize,
    counts: Vec<u64>,
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
    fn push(&mut self, count: u64, bounds: &[(u32, u32)], sums: &[u128]) {
        debug_assert!(bounds.len() == self.axes && sums.len() == self.axes);
        self.counts.push(count);
        for &(min, max) in bounds {
            self.bounds.extend([min, max]);
        }
        // cc3d divides its sum (exact below 2^53, as here) by the count.
        self.centroids.extend(sums.iter().map(|&sum| match count {
            0 => f64::NAN,
            _ => sum as f64 / count as f64,
        }));
    }

    fn into_arrays(self) -> (HostArray, HostArray, HostArray) {
        let rows = self.counts.len();
        let counts = match self
            .counts
            .iter()
            .map(|&n| u32::try_from(n))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(narrow) => HostArray::u32(narrow, vec![rows]),
            Err(_) => HostArray::u64(self.counts, vec![rows]),
        };
        (
            counts,
            HostArray::u32(self.bounds, vec![rows, 2 * self.axes]),
            HostArray::f64(self.centroids, vec![rows, self.axes]),
        )
    }
}

/// The inclusive box of the background: the columns of any row's zeros,
/// and the rows and slices that hold one. `None` while no zero was seen.
#[derive(Clone, Copy, Default)]
pub(crate) struct BackgroundBox {
    bounds: Option<[(u32, u32); 3]>,
}

impl BackgroundBox {
    /// Adds row `y` of slice `z`.
    pub(crate) fn add_row(&mut self, row: &[u8], y: usize, z: usize) {
        let Some(first) = row.iter().position(|&p| p == 0) else {
            return;
        };
        let last = row.iter().rposition(|&p| p == 0).unwrap_or(first);
        // Every coordinate of an array is below 2^32 (its sides are).
        let (first, last, y, z) = (first as u32, last as u32, y as u32, z as u32);
        self.add_box([(first, last), (y, y), (z, z)]);
    }

    /// Adds the box of another part of the same array.
    pub(crate) fn merge(&mut self, other: BackgroundBox) {
        if let Some(bounds) = other.bounds {
            self.add_box(bounds);
        }
    }

    fn add_box(&mut self, [x, y, z]: [(u32, u32); 3]) {
        let bounds = self.bounds.get_or_insert([x, y, z]);
        for (range, add) in bounds.iter_mut().zip([x, y, z]) {
            *range = (range.0.min(add.0), range.1.max(add.1));
        }
    }

    /// `(min, max)` of x, y and z, or cc3d's sentinel for a label without
    /// voxels.
    fn bounds(&self) -> [(u32, u32); 3] {
        self.bounds.unwrap_or([(u32::MAX, 0); 3])
    }
}

/// The sum of the coordinates 0..n, `others` times over.
fn coordinate_sum(n: usize, others: usize) -> u128 {
    let n = n as u128;
    n * n.saturating_sub(1) / 2 * others as u128
}

/// cc3d's statistics of an array of `sides` (width, height, depth; depth 1
/// for an image, which has `axes` 2) whose zeros lie in `background` and
/// whose components are `components`: rows of (y, x) or (z, y, x).
pub(crate) fn statistics_rows(
    axes: usize,
    [width, height, depth]: [usize; 3],
    background: BackgroundBox,
    components: &[LargeStats],
) -> ccl::Result<(HostArray, HostArray, HostArray)> {
    let total = width as u64 * height as u64 * depth as u64;
    let covered: u64 = components.iter().map(|s| s.area).sum();
    let background_count = total.checked_sub(covered).ok_or_else(|| {
        Error::Unavailable(format!(
            "the analysis covers {covered} of the input's {total} pixels or voxels"
        ))
    })?;
    // Per axis x, y, z: the sum of that coordinate over every voxel.
    let totals = [
        coordinate_sum(width, height * depth),
        coordinate_sum(height, width * depth),
        coordinate_sum(depth, width * height),
    ];
    let covered_sums: [u128; 3] =
        std::array::from_fn(|axis| components.iter().map(|s| u128::from(s.sum[axis])).sum());
    // Array order: the last `axes` of z, y, x.
    let order = &[2, 1, 0][3 - axes..];
    let mut rows = Rows::new(axes, components.len() + 1);
    let boxes = background.bounds();
    rows.push(
        background_count,
        &order.iter().map(|&a| boxes[a]).collect::<Vec<_>>(),
        &order
            .iter()
            .map(|&a| totals[a] - covered_sums[a])
            .collect::<Vec<_>>(),
    );
    for s in components {
        rows.push(
            s.area,
            &order
                .iter()
                .map(|&a| (s.min[a], s.max[a]))
                .collect::<Vec<_>>(),
            &order
                .iter()
                .map(|&a| u128::from(s.sum[a]))
                .collect::<Vec<_>>(),
        );
    }
    Ok(rows.into_arrays())
}

/// The background box of an image's rows.
fn image_background(image: &BinaryImage<'_>) -> BackgroundBox {
    let mut background = BackgroundBox::default();
    for y in 0..image.height() {
        background.add_row(image.row(y), y, 0);
    }
    background
}

/// The background box of a volume's rows.
fn volume_background(volume: &BinaryVolume<'_>) -> BackgroundBox {
    let mut background = BackgroundBox::default();
    for z in 0..volume.depth() {
        for y in 0..volume.height() {
            background.add_row(volume.row(y, z), y, z);
        }
    }
    background
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
        let components: Vec<LargeStats> = variant
            .analyze(&image, connectivity)?
            .iter()
            .map(LargeStats::from)
            .collect();
        let sides = [image.width(), image.height(), 1];
        statistics_rows(2, sides, image_background(&image), &components)
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
        let components: Vec<LargeStats> = variant
            .analyze_volume(&volume, connectivity)?
            .iter()
            .map(LargeStats::from)
            .collect();
        let sides = [volume.width(), volume.height(), volume.depth()];
        statistics_rows(3, sides, volume_background(&volume), &components)
    })
    .map_err(to_python)
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(statistics_host, module)?)?;
    module.add_function(wrap_pyfunction!(statistics_volume_host, module)?)?;
    Ok(())
}
