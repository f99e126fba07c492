//! Class maps ("multilabel"): pixels connected when they are neighbours of
//! the same nonzero value, as cc3d labels. Host maps go to the facade
//! ([`ccl::label_classes_into`], the CPU's, into the caller's array),
//! device maps to the pooled labeler's class labeling on the caller's
//! stream ([`ArrayLabeler::label_classes`]). This module only translates.

use ccl::{ClassMap, ClassValue, Connectivity, Error, Task};
use ccl_cuda::cudarc::driver::CudaStream;
use ccl_cuda::interop::ArrayLabeler;
use pyo3::prelude::*;

use crate::cuda::{ArrayArgs, cuda_variant, device_array, on_stream, slices};
use crate::host_array::HostArray;
use crate::{any_connectivity, to_python};

/// A host class map as Python describes it: `(address, depth, height,
/// width, kind, itemsize)`, C-contiguous, `kind` numpy's dtype kind.
type MapArgs = (usize, usize, usize, usize, char, usize);

/// Labels the map at `address` (`depth` slices of `T`) slice by slice
/// (`batch`) or as one map, into the caller's labels; returns the classes
/// as u64 bit patterns (sign-extended; Python casts them back to the map's
/// dtype) and each slice's count.
///
/// # Safety
/// As [`label_classes_host`].
unsafe fn label_typed<T: ClassValue>(
    (address, depth, height, width, _, _): MapArgs,
    labels_address: usize,
    connectivity: Connectivity,
    batch: bool,
    widen: fn(T) -> u64,
) -> ccl::Result<(Vec<u64>, Vec<u32>)> {
    let voxels = depth * height * width;
    if voxels == 0 {
        return Ok((Vec::new(), vec![0; if batch { depth } else { 1 }]));
    }
    // SAFETY: the caller's contract: `voxels` aligned values of `T`, alive
    // and unchanged, and the labels' memory, one `u32` per value, apart.
    let (values, labels) = unsafe {
        (
            std::slice::from_raw_parts(address as *const T, voxels),
            std::slice::from_raw_parts_mut(labels_address as *mut u32, voxels),
        )
    };
    let (slices, per_slice) = if batch {
        (depth, height * width)
    } else {
        (1, voxels)
    };
    let mut classes = Vec::new();
    let mut counts = Vec::with_capacity(slices);
    for (slice, out) in values.chunks(per_slice).zip(labels.chunks_mut(per_slice)) {
        let map_depth = if batch { 1 } else { depth };
        let map = ClassMap::new(slice, width, height, map_depth)?;
        // Straight into the caller's array: no labels of our own to copy.
        let labeled = ccl::label_classes_into(&map, connectivity, out)?;
        counts.push(labeled.len() as u32);
        classes.extend(labeled.into_iter().map(widen));
    }
    Ok((classes, counts))
}

/// Labels a host class map on the CPU into the caller's packed 32-bit
/// labels at `labels_address`: with `batch`, each slice an image numbered
/// apart in an image's connectivity; else one image (depth 1, 4 or 8) or
/// volume (6, 18 or 26). Returns `(classes, counts)`: the class of each
/// component in label order (slice after slice), as uint64 bit patterns of
/// the map's values, and the components of each slice.
///
/// The map must be C-contiguous and aligned, alive and unchanged during the
/// call, and the labels' memory writable by this call alone (the Python
/// caller allocates it).
#[pyfunction]
#[pyo3(signature = (map_args, labels_address, connectivity_value, batch))]
fn label_classes_host(
    py: Python<'_>,
    map_args: MapArgs,
    labels_address: usize,
    connectivity_value: u32,
    batch: bool,
) -> PyResult<(HostArray, HostArray)> {
    let connectivity = any_connectivity(connectivity_value)?;
    let (kind, itemsize) = (map_args.4, map_args.5);
    py.detach(|| {
        // SAFETY: the Python caller's contract above, for the type its
        // dtype names.
        let (classes, counts) = unsafe {
            match (kind, itemsize) {
                ('b' | 'u', 1) => {
                    label_typed::<u8>(map_args, labels_address, connectivity, batch, |v| v as u64)
                }
                ('i', 1) => label_typed::<i8>(map_args, labels_address, connectivity, batch, |v| {
                    v as i64 as u64
                }),
                ('u', 2) => {
                    label_typed::<u16>(map_args, labels_address, connectivity, batch, |v| v as u64)
                }
                ('i', 2) => {
                    label_typed::<i16>(map_args, labels_address, connectivity, batch, |v| {
                        v as i64 as u64
                    })
                }
                ('u', 4) => {
                    label_typed::<u32>(map_args, labels_address, connectivity, batch, |v| v as u64)
                }
                ('i', 4) => {
                    label_typed::<i32>(map_args, labels_address, connectivity, batch, |v| {
                        v as i64 as u64
                    })
                }
                ('u', 8) => {
                    label_typed::<u64>(map_args, labels_address, connectivity, batch, |v| v)
                }
                ('i', 8) => {
                    label_typed::<i64>(map_args, labels_address, connectivity, batch, |v| v as u64)
                }
                _ => Err(not_classes(kind, itemsize)),
            }
        }?;
        let (n, images) = (classes.len(), counts.len());
        Ok((
            HostArray::u64(classes, vec![n]),
            HostArray::u32(counts, vec![images]),
        ))
    })
    .map_err(to_python)
}

fn not_classes(kind: char, itemsize: usize) -> Error {
    Error::InvalidArgument(if kind == 'f' {
        "a class map holds integers; floats are not classes (cast the map to an integer type)"
            .into()
    } else {
        format!(
            "unsupported class map dtype (kind {kind:?}, {itemsize} bytes): use bool or integers"
        )
    })
}

/// Labels a device class map, given as the 2-D array of its rows (`depth`
/// slices of `height` rows, C-contiguous), on the caller's `stream`, into
/// `labels` (one `u32` per value): with an image's connectivity the slices
/// are a batch's images, numbered apart, their counts into `counts` (one
/// `u32` per image); with a volume's, one volume. Once the number N of
/// components (of all slices) is known, `allocate(N)` returns the address
/// of N values of the map's dtype on the device, which get each
/// component's class. Returns N.
///
/// The addresses must be device memory of `device` as described, alive
/// until the work queued on `stream` is done.
#[pyfunction]
#[pyo3(signature = (device, stream, rows, depth, height, labels, counts, connectivity_value, allocate))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn label_classes_device(
    py: Python<'_>,
    device: usize,
    stream: usize,
    rows: ArrayArgs,
    depth: usize,
    height: usize,
    labels: u64,
    counts: Option<u64>,
    connectivity_value: u32,
    allocate: Py<PyAny>,
) -> PyResult<usize> {
    let connectivity = any_connectivity(connectivity_value)?;
    if rows.5 == 'f' {
        return Err(to_python(not_classes('f', rows.6)));
    }
    // Any CUDA variant's pooled labeler will do: the class labeling is the
    // shared layer's, on the labeler's stream.
    let variant = cuda_variant(None, Task::Label, connectivity)?;
    let rows = device_array(rows)?;
    let slices = slices(&rows, depth, height)?;
    py.detach(|| {
        let work = |labeler: &mut ArrayLabeler, caller: &CudaStream| {
            // SAFETY: the Python caller's contract above.
            let count =
                unsafe { labeler.label_classes(&rows, slices, labels, counts, connectivity) }
                    .map_err(to_python)?;
            let classes: u64 = Python::attach(|py| allocate.call1(py, (count,))?.extract(py))?;
            // The classes were allocated on the caller's stream.
            labeler.after(caller).map_err(to_python)?;
            // SAFETY: `allocate` returned N values of the map's dtype.
            unsafe { labeler.write_classes(classes) }.map_err(to_python)?;
            Ok(count)
        };
        // SAFETY: the Python caller passes its framework's current stream.
        unsafe { on_stream(variant, device, stream, work) }
    })
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(label_classes_host, module)?)?;
    module.add_function(wrap_pyfunction!(label_classes_device, module)?)?;
    Ok(())
}
