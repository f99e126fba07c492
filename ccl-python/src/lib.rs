//! `ccl._ccl`, the native half of the `ccl` Python package: the registry,
//! labeling and analysis of host arrays (images by any registered variant,
//! volumes by those that label volumes), cc3d's statistics of either, and
//! labeling and analysis of device arrays that lie on a GPU (images, by
//! CUDA variants, on the caller's stream). It only translates: host arrays
//! go to the `ccl` facade ([`ccl::Variant`]), device arrays to `ccl_cuda`'s
//! pooled labelers (`ccl_cuda::interop::pool`).
//!
//! The Python half (`python/ccl/__init__.py`) checks and normalizes arrays,
//! allocates results in the caller's framework and passes raw addresses
//! here; each function below says what its addresses must hold. The GIL is
//! released while labeling, and every error reaches Python as an exception
//! with the Rust message: `ValueError` for bad arguments, `RuntimeError` for
//! what failed on this machine.

mod batch;
mod classes;
mod cuda;
mod faces;
mod filter;
mod forest;
mod host;
mod host_array;
mod statistics;
mod strips;
mod volume;

use ccl::{Connectivity, Error, Task, Variant};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// `len` packed values at `address`; an empty slice for `len` 0, whose
/// array's address may be anything, even null.
///
/// # Safety
///
/// Where `len` > 0, `len` values of `T` at `address` stay readable and
/// unchanged for `'a`.
pub(crate) unsafe fn values_at<'a, T>(address: usize, len: usize) -> &'a [T] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(address as *const T, len) }
}

/// The Python exception for a `ccl` error.
fn to_python(error: Error) -> PyErr {
    match error {
        Error::InvalidDimensions(_)
        | Error::InvalidArgument(_)
        | Error::ImageTooLarge { .. }
        | Error::VolumeTooLarge { .. }
        | Error::UnsupportedConnectivity { .. }
        | Error::UnsupportedTask { .. }
        | Error::UnknownAlgorithm { .. } => PyValueError::new_err(error.to_string()),
        _ => PyRuntimeError::new_err(error.to_string()),
    }
}

/// `4` or `8`, else a `ValueError`.
fn connectivity(value: u32) -> PyResult<Connectivity> {
    match value {
        4 => Ok(Connectivity::Four),
        8 => Ok(Connectivity::Eight),
        other => Err(PyValueError::new_err(format!(
            "connectivity must be 4 or 8, not {other}"
        ))),
    }
}

/// `6`, `18` or `26`, else a `ValueError`.
fn volume_connectivity(value: u32) -> PyResult<Connectivity> {
    match Connectivity::from_neighbours(value) {
        Some(connectivity) if connectivity.dimensions() == 3 => Ok(connectivity),
        _ => Err(PyValueError::new_err(format!(
            "connectivity of a volume must be 6, 18 or 26, not {value}"
        ))),
    }
}

/// Any connectivity: 4 or 8 (images), 6, 18 or 26 (volumes), else a
/// `ValueError`.
fn any_connectivity(value: u32) -> PyResult<Connectivity> {
    Connectivity::from_neighbours(value).ok_or_else(|| {
        PyValueError::new_err(format!(
            "connectivity must be 4 or 8 (images), or 6, 18 or 26 (volumes), not {value}"
        ))
    })
}

/// The variant called `name`, or the preferred available one for the task
/// (on `backend` where given); an error says why there is none.
fn pick(
    name: Option<&str>,
    task: Task,
    connectivity: Connectivity,
    backend: Option<ccl::Backend>,
) -> ccl::Result<Variant> {
    match (name, backend) {
        (Some(name), _) => Variant::named(name, task, connectivity),
        (None, Some(backend)) => Variant::preferred_on(backend, task, connectivity),
        (None, None) => Variant::preferred(task, connectivity),
    }
}

/// One registry entry as `algorithms()` returns it: `(name, backend,
/// connectivities, tasks, available, reason, summary, priority)`.
type AlgorithmRow = (
    &'static str,
    &'static str,
    Vec<u32>,
    Vec<&'static str>,
    bool,
    Option<String>,
    &'static str,
    u32,
);

/// Every registered variant, sorted by name, probed on this machine.
#[pyfunction]
fn algorithms(py: Python<'_>) -> Vec<AlgorithmRow> {
    py.detach(|| {
        ccl::algorithms()
            .into_iter()
            .map(|a| {
                let probe = a.probe();
                let tasks = [Task::Label, Task::Analyze]
                    .into_iter()
                    .filter(|&t| a.performs(t))
                    .map(<&'static str>::from)
                    .collect();
                (
                    a.name,
                    a.backend.into(),
                    a.connectivities.iter().map(|c| c.neighbours()).collect(),
                    tasks,
                    probe.is_ok(),
                    probe.err().map(|e| e.to_string()),
                    a.summary,
                    a.priority,
                )
            })
            .collect()
    })
}

/// The native module.
#[pymodule]
fn _ccl(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(algorithms, module)?)?;
    module.add_class::<host_array::HostArray>()?;
    // OpenCV's row 0 without background, from its one definition, for the
    // results the Python half makes itself (images without pixels).
    module.add(
        "NO_BACKGROUND_STATS",
        ccl::opencv::NO_BACKGROUND_STATS.to_vec(),
    )?;
    host::register(module)?;
    batch::register(module)?;
    volume::register(module)?;
    statistics::register(module)?;
    cuda::register(module)?;
    filter::register(module)?;
    faces::register(module)?;
    forest::register(module)?;
    classes::register(module)?;
    strips::register(module)?;
    Ok(())
}
