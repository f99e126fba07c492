//! Batches: `(images, height, width)` arrays whose images are labeled and
//! analyzed apart in one call, each numbered 1..=n_i in its own raster
//! order. Host arrays go through the facade ([`ccl::Variant::label_batch`]),
//! device arrays through a pooled [`ArrayLabeler`] on the caller's stream
//! ([`ArrayLabeler::label_batch`]), their counts left on the device. This
//! module only translates.

use ccl::{ComponentStats, Task};
use ccl_cuda::cudarc::driver::CudaStream;
use ccl_cuda::interop::ArrayLabeler;
use pyo3::prelude::*;

use crate::cuda::{ArrayArgs, cuda_variant, device_array, on_stream, slices};
use crate::filter::{FilterArgs, filter_of};
use crate::host::feature_columns;
use crate::host_array::HostArray;
use crate::volume::{VolumeArgs, volume};
use crate::{connectivity, pick, to_python};

/// Each image's features as the columns of `analyze_host`.
type BatchFeatures = Vec<(HostArray, HostArray, HostArray)>;

fn columns(images: &[Vec<ComponentStats>]) -> BatchFeatures {
    images.iter().map(|image| feature_columns(image)).collect()
}

/// Labels a host batch (`volume_args`: its images as a volume's slices)
/// into the caller's packed 32-bit labels at `labels_address` (one per
/// pixel, written in place): returns each image's count.
///
/// The batch's bytes must stay alive and unchanged during the call, and
/// the labels' memory writable by this call alone, apart from the batch
/// (the Python caller allocates it).
#[pyfunction]
#[pyo3(signature = (volume_args, labels_address, connectivity_value, algorithm=None))]
fn label_batch_host(
    py: Python<'_>,
    volume_args: VolumeArgs,
    labels_address: usize,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<HostArray> {
    let connectivity = connectivity(connectivity_value)?;
    let variant = pick(algorithm, Task::Label, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let batch = unsafe { volume(volume_args)? };
        // SAFETY: the caller's array holds one aligned 32-bit label per
        // pixel of the batch, which nothing else reads or writes during the
        // call.
        let labels = unsafe {
            std::slice::from_raw_parts_mut(labels_address as *mut u32, batch.voxel_count())
        };
        let mut counts = vec![0; batch.depth()];
        variant.label_batch(&batch, connectivity, labels, &mut counts)?;
        let images = counts.len();
        // A count fits u32: an image holds fewer than 2^32 pixels.
        Ok(HostArray::u32(
            counts.into_iter().map(|n| n as u32).collect(),
            vec![images],
        ))
    })
    .map_err(to_python)
}

/// The features of every image of a host batch: per image, the
/// `(bounds, sums, centroids)` columns of `analyze_host`.
#[pyfunction]
#[pyo3(signature = (volume_args, connectivity_value, algorithm=None))]
fn analyze_batch_host(
    py: Python<'_>,
    volume_args: VolumeArgs,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<BatchFeatures> {
    let connectivity = connectivity(connectivity_value)?;
    let variant = pick(algorithm, Task::Analyze, connectivity, None).map_err(to_python)?;
    py.detach(|| {
        // SAFETY: the Python caller's contract above.
        let batch = unsafe { volume(volume_args)? };
        Ok(columns(&variant.analyze_batch(&batch, connectivity)?))
    })
    .map_err(to_python)
}

/// Labels a device batch, given as the 2-D array of its rows (`rows`,
/// image after image, `height` rows each, `images` images), on the
/// caller's `stream`: the labels into `labels` (one `u32` per pixel) and
/// each image's count into `counts` (one `u32` per image). With `filter`,
/// each image's kept components and kept count (and with `mask`, one byte
/// per pixel, whether it is kept, `labels` then scratch). Nothing is read
/// back but, with a filter, the component total.
///
/// # Safety (the Python caller's contract)
/// The addresses must be device memory of `device` as described, alive
/// until the work queued on `stream` is done.
#[pyfunction]
#[pyo3(signature = (device, stream, rows, images, height, labels, counts, connectivity_value, algorithm=None, filter=None, mask=None))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn label_batch_device(
    py: Python<'_>,
    device: usize,
    stream: usize,
    rows: ArrayArgs,
    images: usize,
    height: usize,
    labels: u64,
    counts: u64,
    connectivity_value: u32,
    algorithm: Option<&str>,
    filter: Option<FilterArgs>,
    mask: Option<u64>,
) -> PyResult<()> {
    let connectivity = connectivity(connectivity_value)?;
    let variant = cuda_variant(algorithm, Task::Label, connectivity)?;
    let rows = device_array(rows)?;
    let slices = slices(&rows, images, height)?;
    let filter = filter.map(filter_of).transpose()?;
    py.detach(|| {
        let work = |labeler: &mut ArrayLabeler, _: &CudaStream| {
            // SAFETY: the Python caller's contract above.
            unsafe {
                labeler.label_batch(
                    &rows,
                    slices,
                    labels,
                    counts,
                    connectivity,
                    filter.as_ref(),
                    mask,
                )
            }
            .map_err(to_python)
        };
        // SAFETY: the Python caller passes its framework's current stream.
        unsafe { on_stream(variant, device, stream, work) }
    })
}

/// The features of every image of a device batch (given as its rows, as
/// [`label_batch_device`]): per image, the columns of `analyze_host` on
/// the host (one record per component: Python moves them to the array's
/// device).
#[pyfunction]
#[pyo3(signature = (device, stream, rows, images, height, connectivity_value, algorithm=None))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn analyze_batch_device(
    py: Python<'_>,
    device: usize,
    stream: usize,
    rows: ArrayArgs,
    images: usize,
    height: usize,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<BatchFeatures> {
    let connectivity = connectivity(connectivity_value)?;
    let variant = cuda_variant(algorithm, Task::Analyze, connectivity)?;
    let rows = device_array(rows)?;
    let slices = slices(&rows, images, height)?;
    py.detach(|| {
        let work = |labeler: &mut ArrayLabeler, _: &CudaStream| {
            // SAFETY: the Python caller's contract above.
            let images =
                unsafe { labeler.analyze_batch(&rows, slices, connectivity) }.map_err(to_python)?;
            Ok(columns(&images))
        };
        // SAFETY: the Python caller passes its framework's current stream.
        unsafe { on_stream(variant, device, stream, work) }
    })
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(label_batch_host, module)?)?;
    module.add_function(wrap_pyfunction!(analyze_batch_host, module)?)?;
    module.add_function(wrap_pyfunction!(label_batch_device, module)?)?;
    module.add_function(wrap_pyfunction!(analyze_batch_device, module)?)?;
    Ok(())
}
