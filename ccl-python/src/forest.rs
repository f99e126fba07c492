//! The union-find of `ccl.dask`'s merge: the components that span chunks,
//! joined over the pairs of face labels that touch across chunk faces.

use ccl::MinRootForest;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::host_array::HostArray;

/// The root of each of the `nodes` nodes (its tree's smallest node), the
/// `pairs` pairs of nodes at `first_address` and `second_address` (each
/// `pairs` packed `uint32`) joined: a `uint32` array of `nodes`.
///
/// Both pair arrays must stay alive and unchanged during the call.
#[pyfunction]
fn join_pairs(
    py: Python<'_>,
    first_address: usize,
    second_address: usize,
    pairs: usize,
    nodes: usize,
) -> PyResult<HostArray> {
    if nodes > u32::MAX as usize {
        return Err(PyValueError::new_err(format!(
            "{nodes} nodes do not fit 32-bit indices"
        )));
    }
    let (first, second): (&[u32], &[u32]) = if pairs == 0 {
        // An empty array's address may be anything, even null.
        (&[], &[])
    } else {
        // SAFETY: the Python caller's contract: `pairs` uint32 at each address.
        unsafe {
            (
                std::slice::from_raw_parts(first_address as *const u32, pairs),
                std::slice::from_raw_parts(second_address as *const u32, pairs),
            )
        }
    };
    if let Some(&node) = first.iter().chain(second).find(|&&n| n as usize >= nodes) {
        return Err(PyValueError::new_err(format!(
            "node {node} of a pair is not below {nodes}"
        )));
    }
    let roots = py.detach(|| {
        let mut forest = MinRootForest::new(nodes);
        for (&a, &b) in first.iter().zip(second) {
            forest.union(a, b);
        }
        // A parent comes before its child, so one pass in order gives every
        // node its root.
        let mut roots = forest.into_parents();
        for i in 0..roots.len() {
            roots[i] = roots[roots[i] as usize];
        }
        roots
    });
    Ok(HostArray::u32(roots, vec![nodes]))
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(join_pairs, module)?)?;
    Ok(())
}
