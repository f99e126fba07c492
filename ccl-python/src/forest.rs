//! The merge of `ccl.dask`: the components that span chunks, joined over
//! the pairs of face labels that touch across chunk faces, and numbered.

use std::sync::atomic::{AtomicBool, Ordering};

use ccl::SharedMinRootForest;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::host_array::HostArray;
use crate::values_at;

/// Nodes (or pairs) a task of the join takes: tasks many more than the
/// pool's threads for the tens of millions of face labels of a large
/// volume; 2 in unit tests, so that a few nodes make several tasks.
const NODES_PER_TASK: usize = if cfg!(test) { 2 } else { 1 << 16 };

/// Joins the components that span chunks and numbers them, from the
/// `chunks` chunks' counts (`int64` at `counts_address`), the sizes of
/// their lists of face labels (`int64` at `sizes_address`), those lists one
/// after the other (`uint32` local labels, each list ascending, at
/// `faces_address`) and the `pairs` pairs of face labels that touch across
/// the faces (`uint64` keys at `first_address` and `second_address`: a
/// chunk's index above 32 bits, the label's 1-based rank among its chunk's
/// face labels below).
///
/// A chunk's labels follow the earlier chunks' (its global label is its
/// local one plus the counts before it), so the face labels, chunk after
/// chunk, are the graph's nodes in ascending global order. A component's
/// number is its smallest label less the labels merged into others below
/// it. Returns `(paired, finals, merged, merged_finals)` as `uint64`
/// arrays: the global face labels of some pair, ascending, with their
/// numbers, and the face labels that are not their component's smallest,
/// ascending, with theirs (which the relabeling looks up).
///
/// Every step runs on the pool: the merge of a 2048³ volume in 512³ chunks
/// (some 20 M face labels, 11 M pairs) took 0.44 s on the client of a
/// two-H200 host as numpy steps around one thread's numbering. The merged
/// labels' numbers come with them: found afterwards by a binary search of
/// each among the paired labels, on the client's one thread, they took
/// 0.41-0.49 s for 10.8 M merged labels among 12.6 M paired ones (a
/// synthetic join on the 2-core development machine).
///
/// All arrays must stay alive and unchanged during the call.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn join_chunk_faces(
    py: Python<'_>,
    counts_address: usize,
    sizes_address: usize,
    chunks: usize,
    faces_address: usize,
    first_address: usize,
    second_address: usize,
    pairs: usize,
) -> PyResult<(HostArray, HostArray, HostArray, HostArray)> {
    // SAFETY: the Python caller's contract: `chunks` int64 at the counts'
    // and the sizes' addresses.
    let (counts, sizes) = unsafe {
        (
            values_at::<i64>(counts_address, chunks),
            values_at::<i64>(sizes_address, chunks),
        )
    };
    if let Some(bad) = counts.iter().chain(sizes).find(|&&n| n < 0) {
        return Err(PyValueError::new_err(format!(
            "a chunk's count or number of face labels is {bad}"
        )));
    }
    let nodes: i64 = sizes.iter().sum();
    if nodes > u32::MAX as i64 {
        return Err(PyValueError::new_err(format!(
            "{nodes} face labels do not fit 32-bit node indices"
        )));
    }
    let nodes = nodes as usize;
    // SAFETY: the caller's contract: the face labels' sizes add up to
    // `nodes` uint32, and `pairs` uint64 at each key address.
    let (local, first, second) = unsafe {
        (
            values_at::<u32>(faces_address, nodes),
            values_at::<u64>(first_address, pairs),
            values_at::<u64>(second_address, pairs),
        )
    };
    py.detach(|| join(counts, sizes, local, (first, second)))
        .map_err(PyValueError::new_err)
        .map(|joined| {
            let (paired_len, merged_len) = (joined.paired.len(), joined.merged.len());
            (
                HostArray::u64(joined.paired, vec![paired_len]),
                HostArray::u64(joined.finals, vec![paired_len]),
                HostArray::u64(joined.merged, vec![merged_len]),
                HostArray::u64(joined.merged_finals, vec![merged_len]),
            )
        })
}

/// What [`join`] returns (see [`join_chunk_faces`]).
#[derive(Debug)]
struct Joined {
    /// The global face labels of some pair, ascending.
    paired: Vec<u64>,
    /// Their final numbers.
    finals: Vec<u64>,
    /// The face labels that are not their component's smallest, ascending.
    merged: Vec<u64>,
    /// Their final numbers.
    merged_finals: Vec<u64>,
}

/// [`join_chunk_faces`] of the arrays themselves; an error for a key of no
/// face label or face labels out of order.
fn join(
    counts: &[i64],
    sizes: &[i64],
    local: &[u32],
    (first, second): (&[u64], &[u64]),
) -> Result<Joined, String> {
    // Per chunk: its first global label less one, and its first node.
    let mut offsets = Vec::with_capacity(counts.len());
    let mut first_nodes = Vec::with_capacity(sizes.len());
    let (mut offset, mut node) = (0u64, 0usize);
    for (&count, &size) in counts.iter().zip(sizes) {
        offsets.push(offset);
        first_nodes.push(node);
        offset += count as u64;
        node += size as usize;
    }
    // Each node's global label, chunk by chunk.
    let mut labels = vec![0u64; local.len()];
    let mut parts = Vec::with_capacity(sizes.len());
    let mut rest = labels.as_mut_slice();
    for &size in sizes {
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(size as usize);
        parts.push(part);
        rest = tail;
    }
    parts.into_par_iter().enumerate().for_each(|(chunk, part)| {
        let start = first_nodes[chunk];
        let len = part.len();
        for (label, &l) in part.iter_mut().zip(&local[start..start + len]) {
            *label = offsets[chunk] + u64::from(l);
        }
    });
    if labels.first().is_some_and(|&l| l < 1) || labels.par_windows(2).any(|w| w[0] >= w[1]) {
        return Err("the face labels must be positive and ascending, chunk after chunk".into());
    }
    // A key's node: its chunk's first node plus its rank less one.
    let node_of = |key: u64| -> Result<u32, String> {
        let (chunk, rank) = ((key >> 32) as usize, key & 0xffff_ffff);
        match sizes.get(chunk) {
            Some(&size) if (1..=size as u64).contains(&rank) => {
                Ok((first_nodes[chunk] + rank as usize - 1) as u32)
            }
            _ => Err(format!(
                "the pair key {key:#x} names no face label (chunk {chunk}, rank {rank})"
            )),
        }
    };
    let forest = SharedMinRootForest::new(local.len());
    let paired: Vec<AtomicBool> = (0..local.len()).map(|_| AtomicBool::new(false)).collect();
    first
        .par_chunks(NODES_PER_TASK)
        .zip(second.par_chunks(NODES_PER_TASK))
        .try_for_each(|(first, second)| {
            for (&a, &b) in first.iter().zip(second) {
                let (a, b) = (node_of(a)?, node_of(b)?);
                forest.union(a, b);
                paired[a as usize].store(true, Ordering::Relaxed);
                paired[b as usize].store(true, Ordering::Relaxed);
            }
            Ok::<_, String>(())
        })?;
    // Each node's root (its unions are done), and the merged labels (those
    // whose root is another node) before each node, counted per task and
    // then across the tasks.
    let roots: Vec<u32> = (0..local.len() as u32)
        .into_par_iter()
        .map(|node| forest.find(node))
        .collect();
    let mut merged_before: Vec<u32> = vec![0; local.len()];
    let task_merged: Vec<u32> = merged_before
        .par_chunks_mut(NODES_PER_TASK)
        .enumerate()
        .map(|(task, part)| {
            let base = task * NODES_PER_TASK;
            let mut merged = 0;
            for (i, before) in part.iter_mut().enumerate() {
                *before = merged;
                merged += u32::from(roots[base + i] as usize != base + i);
            }
            merged
        })
        .collect();
    let mut task_base = Vec::with_capacity(task_merged.len());
    let mut total = 0;
    for merged in task_merged {
        task_base.push(total);
        total += merged;
    }
    merged_before
        .par_chunks_mut(NODES_PER_TASK)
        .zip(task_base)
        .for_each(|(part, base)| part.iter_mut().for_each(|before| *before += base));
    // A root's number is its label less the merged labels before it (all
    // of them smaller); a merged label takes its root's.
    let number = |node: usize| {
        let root = roots[node] as usize;
        labels[root] - u64::from(merged_before[root])
    };
    // Every merged label was in some pair: the merged labels and their
    // numbers are a sequential pass over the paired ones, flagged as they
    // are numbered (not a second pass of random lookups over all nodes).
    let (paired, (finals, merged_flags)): (Vec<u64>, (Vec<u64>, Vec<bool>)) = (0..local.len())
        .into_par_iter()
        .filter(|&node| paired[node].load(Ordering::Relaxed))
        .map(|node| (labels[node], (number(node), roots[node] as usize != node)))
        .unzip();
    let (merged, merged_finals): (Vec<u64>, Vec<u64>) = paired
        .par_iter()
        .zip(&finals)
        .zip(&merged_flags)
        .filter(|(_, merged)| **merged)
        .map(|((&label, &number), _)| (label, number))
        .unzip();
    Ok(Joined {
        paired,
        finals,
        merged,
        merged_finals,
    })
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(join_chunk_faces, module)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three chunks of 5, 4 and 6 labels; face labels (local) 2, 5 | 1, 3 |
    /// 1, 4, 6; pairs join chunk 0's label 5 with chunk 1's 1, chunk 1's 3
    /// with chunk 2's 1 and 6, and chunk 0's 2 with chunk 2's 4: global
    /// labels 5 ~ 6 and 8 ~ 10 ~ 15, 2 ~ 13.
    #[test]
    fn components_across_chunks_are_numbered_by_their_smallest_label() {
        let counts = [5, 4, 6];
        let sizes = [2, 2, 3];
        let local = [2, 5, 1, 3, 1, 4, 6];
        let key = |chunk: u64, rank: u64| (chunk << 32) | rank;
        let first = [key(0, 2), key(1, 2), key(2, 3), key(0, 1)];
        let second = [key(1, 1), key(2, 1), key(1, 2), key(2, 2)];
        let joined = join(&counts, &sizes, &local, (&first, &second)).unwrap();
        // Global face labels: 2, 5 | 6, 8 | 10, 13, 15.
        assert_eq!(joined.paired, [2, 5, 6, 8, 10, 13, 15]);
        assert_eq!(joined.merged, [6, 10, 13, 15]);
        // 2 -> 2, 5 -> 5, 6 -> 5; 8 -> 8 - 1 (6 merged below it) = 7; 10 and
        // 15 -> 7; 13 -> 2.
        assert_eq!(joined.finals, [2, 5, 5, 7, 7, 2, 7]);
        assert_eq!(joined.merged_finals, [5, 7, 2, 7]);
        // Merged labels in an early task of the numbering count for every
        // root after it: nodes (labels) 1..=9 in three chunks, 2 merged
        // into 1 and 9 into 5.
        let all = [1, 2, 3, 1, 2, 3, 1, 2, 3];
        let (first, second) = ([key(0, 1), key(1, 2)], [key(0, 2), key(2, 3)]);
        let joined = join(&[3; 3], &[3; 3], &all, (&first, &second)).unwrap();
        assert_eq!(
            (joined.paired, joined.merged),
            (vec![1, 2, 5, 9], vec![2, 9])
        );
        assert_eq!(joined.finals, [1, 1, 4, 4]);
        assert_eq!(joined.merged_finals, [1, 4]);
        // Bad keys and labels out of order are errors.
        let bad = [key(3, 1)];
        let error = join(&counts, &sizes, &local, (&bad, &bad)).unwrap_err();
        assert!(error.contains("chunk 3"), "{error}");
        let error = join(&counts, &sizes, &[2, 1, 1, 3, 1, 4, 6], (&first, &second)).unwrap_err();
        assert!(error.contains("ascending"), "{error}");
    }
}
