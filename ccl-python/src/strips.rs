//! Host arrays larger than a GPU's memory, or past 2^32 pixels, labeled in
//! strips streamed through the GPU (`ccl_scale::StripLabeler`) into the
//! caller's label array, 32- or 64-bit.

use std::sync::{Arc, Mutex};

use ccl::{Connectivity, Task};
use ccl_scale::{Pixels, Shape, StripLabeler, StripOptions};
use pyo3::prelude::*;

use crate::{any_connectivity, to_python};

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
    let shape = match shape[..] {
        [height, width] => Shape::Image { width, height },
        [depth, height, width] => Shape::Volume {
            width,
            height,
            depth,
        },
        _ => {
            return Err(to_python(ccl::Error::InvalidDimensions(format!(
                "{} dimensions; an image has 2, a volume 3",
                shape.len()
            ))));
        }
    };
    py.detach(|| {
        let backend = match algorithm {
            Some(name) => ccl::find(name)?.backend,
            None => ccl::default_algorithm(Task::Label, connectivity)?.backend,
        };
        let options = StripOptions {
            backend,
            devices: devices.unwrap_or_default(),
            max_memory,
            variant: algorithm.map(str::to_string),
            ..StripOptions::default()
        };
        let labeler = labeler(options, connectivity)?;
        let len = shape.pixels() as usize;
        // SAFETY: the Python caller's contract: `len` readable bytes.
        let bytes = unsafe { std::slice::from_raw_parts(address as *const u8, len) };
        let pixels = Pixels::new(bytes, shape)?;
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
    module.add_function(wrap_pyfunction!(parse_size, module)?)?;
    Ok(())
}
