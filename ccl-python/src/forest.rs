//! The merge of `ccl.dask`: the components that span chunks, joined over
//! the pairs of face labels that touch across chunk faces, and numbered.

use ccl::SharedMinRootForest;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::host_array::HostArray;
use crate::values_at;

/// Joins the `pairs` pairs of nodes at `first_address` and `second_address`
/// (each `pairs` packed `uint32`) over the `nodes` face labels at
/// `faces_address` (packed `int64`, ascending, each a global label ≥ 1,
/// node `i` label `faces[i]`), and numbers the components: a component's
/// number is its smallest label less the labels merged into others below
/// it. Returns `(paired, finals, merged)` as `uint64` arrays: the face
/// labels of some pair, ascending, with their numbers, and the face labels
/// that are not their component's smallest, ascending.
///
/// All three arrays must stay alive and unchanged during the call.
#[pyfunction]
fn join_face_pairs(
    py: Python<'_>,
    first_address: usize,
    second_address: usize,
    pairs: usize,
    faces_address: usize,
    nodes: usize,
) -> PyResult<(HostArray, HostArray, HostArray)> {
    if nodes > u32::MAX as usize {
        return Err(PyValueError::new_err(format!(
            "{nodes} face labels do not fit 32-bit node indices"
        )));
    }
    // SAFETY: the Python caller's contract: `pairs` uint32 at each pair
    // address, `nodes` int64 at `faces_address`.
    let (first, second, faces) = unsafe {
        (
            values_at::<u32>(first_address, pairs),
            values_at::<u32>(second_address, pairs),
            values_at::<i64>(faces_address, nodes),
        )
    };
    if let Some(&node) = first.iter().chain(second).find(|&&n| n as usize >= nodes) {
        return Err(PyValueError::new_err(format!(
            "node {node} of a pair is not below {nodes}"
        )));
    }
    if faces.first().is_some_and(|&f| f < 1) || faces.windows(2).any(|w| w[0] >= w[1]) {
        return Err(PyValueError::new_err(
            "the face labels must be positive and ascending",
        ));
    }
    let (paired_faces, paired_finals, merged) = py.detach(|| {
        // The unions on all threads (millions of pairs over tens of
        // millions of face labels: each a cache miss or two).
        let forest = SharedMinRootForest::new(nodes);
        first
            .par_chunks(1 << 16)
            .zip(second.par_chunks(1 << 16))
            .for_each(|(first, second)| {
                for (&a, &b) in first.iter().zip(second) {
                    forest.union(a, b);
                }
            });
        let mut paired = vec![false; nodes];
        for &node in first.iter().chain(second) {
            paired[node as usize] = true;
        }
        // Every node's root in one pass (a parent comes before its child);
        // then, in node order, a root's entry becomes the count of merged
        // labels before it, all of which are below its label, so that its
        // number is its label less that count: no table of a number a node
        // (a 2048³ volume in 512³ chunks has some 20 M face labels).
        let mut roots = forest.into_parents();
        for node in 0..roots.len() {
            roots[node] = roots[roots[node] as usize];
        }
        let (mut paired_faces, mut paired_finals, mut merged) =
            (Vec::new(), Vec::new(), Vec::new());
        for node in 0..nodes {
            let label = faces[node] as u64;
            let root = roots[node] as usize;
            let number = if root == node {
                roots[node] = merged.len() as u32;
                label - merged.len() as u64
            } else {
                merged.push(label);
                faces[root] as u64 - u64::from(roots[root])
            };
            if paired[node] {
                paired_faces.push(label);
                paired_finals.push(number);
            }
        }
        (paired_faces, paired_finals, merged)
    });
    let (paired, merged_len) = (paired_faces.len(), merged.len());
    Ok((
        HostArray::u64(paired_faces, vec![paired]),
        HostArray::u64(paired_finals, vec![paired]),
        HostArray::u64(merged, vec![merged_len]),
    ))
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(join_face_pairs, module)?)?;
    Ok(())
}
