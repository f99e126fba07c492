//! The host path of volumes: 3-D arrays in host memory, labeled and
//! analyzed by the preferred available variant that labels volumes (or the
//! one named) through the `ccl` facade ([`ccl::Variant::label_volume`] and
//! its siblings; a CUDA variant gets the volume uploaded). Volumes in GPU
//! memory take the device path (`cuda.rs`). This module only translates.

use ccl::{BinaryVolume, Error, Task, VolumeStats};
use pyo3::prelude::*;

use crate::host_array::HostArray;
use crate::{pick, to_python, volume_connectivity};

/// A host volume as Python describes it: `(address, depth, height, width,
/// row_stride, slice_stride)`: bytes, nonzero = foreground, one per voxel,
/// x fastest, rows `row_stride` bytes apart and slices `slice_stride`.
pub(crate) type VolumeArgs = (usize, usize, usize, usize, usize, usize);

/// The volume at `address`.
///
/// # Safety
/// `address` must point at `(depth - 1) * slice_stride + (height - 1) *
/// row_stride + width` readable bytes that stay alive and unchanged for
/// `'a`.
pub(crate) unsafe fn volume<'a>(
    (address, depth, height, width, row_stride, slice_stride): VolumeArgs,
) -> ccl::Result<BinaryVolume<'a>> {
    if width == 0 || height == 0 || depth == 0 {
        return Err(Error::InvalidDimensions(format!(
            "a {depth}x{height}x{width} array has no voxels"
        )));
    }
    let len = (depth - 1)
        .checked_mul(slice_stride)
        .and_then(|n| n.checked_add((height - 1).checked_mul(row_stride)?))
        .and_then(|n| n.checked_add(width))
        .ok_or_else(|| Error::InvalidDimensions("the array's extent overflows".into()))?;
    // SAFETY: the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(address as *const u8, len) };
    BinaryVolume::with_strides(bytes, width, height, depth, row_stride, slice_stride)
}

/// Labels a host volume: `(labels, n)`, labels a `depth × height × width`
/// uint32 array (1..=n in raster order of each component's first voxel:
/// z, then y, then x).
///
/// The volume's bytes must stay alive and unchanged during the call (the
/// Python caller holds the array).
#[pyfunction]
#[pyo3(signature = (volume_args, connectivity_value, algorithm=None))]
fn label_volume_host(
    py: Python<'_>,
    volume_args: VolumeArgs,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<(HostArray, usize)> {
    let connectivity = volume_connectivity(connectivity_value)?;
    let variant = pick(algorithm, Task::Label, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let volume = unsafe { volume(volume_args)? };
        let (labels, count) = variant.label_volume(&volume, connectivity)?;
        let shape = vec![labels.depth(), labels.height(), labels.width()];
        Ok((HostArray::u32(labels.into_labels(), shape), count))
    })
    .map_err(to_python)
}

/// Labels a host volume into the caller's array at `labels_address`
/// (`depth × height × width` packed 32-bit labels, written in place):
/// returns n.
///
/// The volume's bytes must stay alive and unchanged during the call, and
/// the labels' memory writable by this call alone, apart from the volume
/// (the Python caller checks both and holds the arrays).
#[pyfunction]
#[pyo3(signature = (volume_args, labels_address, connectivity_value, algorithm=None))]
fn label_volume_host_into(
    py: Python<'_>,
    volume_args: VolumeArgs,
    labels_address: usize,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<usize> {
    let connectivity = volume_connectivity(connectivity_value)?;
    let variant = pick(algorithm, Task::Label, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let volume = unsafe { volume(volume_args)? };
        // SAFETY: the caller's array holds depth * height * width aligned
        // 32-bit labels that nothing else reads or writes during the call.
        let labels = unsafe {
            std::slice::from_raw_parts_mut(labels_address as *mut u32, volume.voxel_count())
        };
        variant.label_volume_into(&volume, connectivity, labels)
    })
    .map_err(to_python)
}

/// The features of every component of a host volume: `(bounds, sums,
/// centroids)`, N × 7 uint32 (area, x_min, y_min, z_min, x_max, y_max,
/// z_max), N × 3 uint64 (sum_x, sum_y, sum_z) and N × 3 float64 (x, y, z).
#[pyfunction]
#[pyo3(signature = (volume_args, connectivity_value, algorithm=None))]
fn analyze_volume_host(
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
        Ok(feature_columns(&components))
    })
    .map_err(to_python)
}

/// The features as numpy columns: bounds, sums and centroids.
fn feature_columns(components: &[VolumeStats]) -> (HostArray, HostArray, HostArray) {
    let count = components.len();
    let bounds = components
        .iter()
        .flat_map(|s| [s.area, s.x_min, s.y_min, s.z_min, s.x_max, s.y_max, s.z_max])
        .collect();
    let sums = components
        .iter()
        .flat_map(|s| [s.sum_x, s.sum_y, s.sum_z])
        .collect();
    let centroids = components
        .iter()
        .flat_map(|s| <[f64; 3]>::from(s.centroid()))
        .collect();
    (
        HostArray::u32(bounds, vec![count, 7]),
        HostArray::u64(sums, vec![count, 3]),
        HostArray::f64(centroids, vec![count, 3]),
    )
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(label_volume_host, module)?)?;
    module.add_function(wrap_pyfunction!(label_volume_host_into, module)?)?;
    module.add_function(wrap_pyfunction!(analyze_volume_host, module)?)?;
    Ok(())
}
