//! The clean-up after a labeling ([`ccl::Filter`]): canonical labels that
//! Python already holds (from `label_*` here) are filtered where they lie,
//! host labels by [`Filter::apply`], device labels by the pooled labeler's
//! [`DeviceFilter`](ccl_cuda::backend::DeviceFilter) on the caller's
//! stream. This module only translates.

use ccl::{Filter, Task};
use ccl_cuda::backend::LabelShape;
use ccl_cuda::cudarc::driver::CudaStream;
use ccl_cuda::interop::{ArrayLabeler, Counts};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::cuda::{cuda_variant, on_stream};
use crate::{to_python, volume_connectivity};

/// A filter as Python passes it: `(min_size, max_size, min_extent,
/// max_extent, largest)`, extents `(x, y, z)`, `largest` `None` for all.
pub(crate) type FilterArgs = (u32, u32, [u32; 3], [u32; 3], Option<u32>);

/// `(images, depth, height, width)` of the labels.
type ShapeArgs = (usize, usize, usize, usize);

pub(crate) fn filter_of(
    (min_size, max_size, min_extent, max_extent, largest): FilterArgs,
) -> PyResult<Filter> {
    let filter = Filter {
        min_size,
        max_size,
        min_extent,
        max_extent,
        largest,
    };
    filter.check().map_err(to_python)?;
    Ok(filter)
}

fn shape_of((images, depth, height, width): ShapeArgs) -> PyResult<LabelShape> {
    let shape = LabelShape {
        width,
        height,
        depth,
        images,
    };
    shape
        .width
        .checked_mul(height)
        .and_then(|n| n.checked_mul(depth))
        .and_then(|n| n.checked_mul(images))
        .ok_or_else(|| PyValueError::new_err("the labels' extent overflows"))?;
    Ok(shape)
}

/// Filters host labels in place: `labels_address` holds the packed `u32`
/// labels of `shape`, `counts_address` one `u32` count per image, both
/// rewritten (the kept components numbered 1..=k per image, the kept
/// counts).
///
/// Both arrays must be the caller's, writable by this call alone.
#[pyfunction]
fn filter_host(
    py: Python<'_>,
    labels_address: usize,
    counts_address: usize,
    shape: ShapeArgs,
    filter: FilterArgs,
) -> PyResult<()> {
    let shape = shape_of(shape)?;
    let filter = filter_of(filter)?;
    py.detach(|| {
        // SAFETY: the caller's contract: aligned, packed, writable by this
        // call alone, as long as the shape says.
        let (labels, counts) = unsafe {
            (
                std::slice::from_raw_parts_mut(labels_address as *mut u32, shape.pixels()),
                std::slice::from_raw_parts_mut(counts_address as *mut u32, shape.images),
            )
        };
        filter.apply(labels, [shape.width, shape.height, shape.depth], counts)
    })
    .map_err(to_python)
}

/// Filters device labels (`labels`, packed `u32` of `shape` on `device`)
/// on the caller's `stream`, with the pooled labeler of `algorithm` (the
/// one that labeled them, so that its scratch is reused): the component
/// count is `count` for one image or volume, else the device array at
/// `counts` (one `u32` per image). With `mask` (the address of one byte
/// per label), writes whether each label's component is kept; else
/// renumbers in place. Returns the kept count of one image or volume.
///
/// The addresses must be device memory of `device`, alive until the work
/// queued on `stream` is done.
#[pyfunction]
#[pyo3(signature = (device, stream, labels, shape, count, counts, filter, mask, connectivity_value, algorithm=None))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn filter_device(
    py: Python<'_>,
    device: usize,
    stream: usize,
    labels: u64,
    shape: ShapeArgs,
    count: Option<usize>,
    counts: Option<u64>,
    filter: FilterArgs,
    mask: Option<u64>,
    connectivity_value: u32,
    algorithm: Option<&str>,
) -> PyResult<Option<usize>> {
    let shape = shape_of(shape)?;
    let filter = filter_of(filter)?;
    let counts = match (count, counts) {
        (Some(n), None) => Counts::One(n),
        (None, Some(address)) => Counts::Device(address),
        _ => {
            return Err(PyValueError::new_err(
                "filter_device takes a count or a device count array, not both",
            ));
        }
    };
    let connectivity = match connectivity_value {
        4 | 8 => crate::connectivity(connectivity_value)?,
        other => volume_connectivity(other)?,
    };
    let variant = cuda_variant(algorithm, Task::Label, connectivity)?;
    py.detach(|| {
        let work = |labeler: &mut ArrayLabeler, _: &CudaStream| {
            // SAFETY: the Python caller's contract above.
            unsafe { labeler.filter(labels, counts, shape, &filter, mask) }.map_err(to_python)
        };
        // SAFETY: the Python caller passes its framework's current stream.
        unsafe { on_stream(variant, device, stream, work) }
    })
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(filter_host, module)?)?;
    module.add_function(wrap_pyfunction!(filter_device, module)?)?;
    Ok(())
}
