//! The pairs of `ccl.dask`: the distinct pairs of face labels that touch
//! across one face between chunks, found in native code with the GIL
//! released. As numpy steps (a mask, a gather and `np.unique` per offset and
//! neighbour chunk) the 144 faces of a 2048³ volume in 512³ chunks took
//! 5.0–5.3 s of a dask worker's threads, more than labeling the chunks, and
//! held the GIL from the chunks' tasks
//! (bench/2026-11-28-h200x2-kept-features).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::host_array::HostArray;
use crate::values_at;

/// The distinct pairs that touch across one face: `last` (the face's last
/// plane of ranks, `rows × columns` packed `uint32`; 0 is background) against
/// `following` (the plane after it, `rows + pad_rows × columns + pad_columns`
/// packed `uint32`, padded by `low = (low_row, low_column)` before `last`'s
/// extent, with `sources`, packed `uint8` of the same shape, naming the
/// neighbour chunk, a slot below `slots`, that each of its elements comes
/// from). A voxel of `last` at `(r, c)` touches, for each `(dr, dc)` of
/// `offsets` (packed `int64` pairs), the element of `following` at
/// `(r + dr + low_row, c + dc + low_column)` where that lies in it. An image's
/// face is one row.
///
/// Returns `(pairs, lengths)`, both `uint64`: for each slot in order,
/// its pairs as `rank in last << 32 | rank in following`, ascending and
/// without repeats, `lengths[slot]` of them.
///
/// All arrays must stay alive and unchanged during the call.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn face_pairs(
    py: Python<'_>,
    last_address: usize,
    shape: (usize, usize),
    following_address: usize,
    sources_address: usize,
    padded: (usize, usize),
    low: (usize, usize),
    offsets_address: usize,
    offsets: usize,
    slots: usize,
) -> PyResult<(HostArray, HostArray)> {
    let ((rows, columns), (padded_rows, padded_columns)) = (shape, padded);
    let (low_row, low_column) = low;
    if padded_rows < rows || padded_columns < columns || low_row > padded_rows - rows {
        return Err(PyValueError::new_err(
            "the plane that follows is smaller than the face's last plane",
        ));
    }
    if low_column > padded_columns - columns || slots == 0 || slots > 256 {
        return Err(PyValueError::new_err(format!(
            "a face needs its padding within the plane and 1 to 256 slots, not {slots}"
        )));
    }
    // SAFETY: the Python caller's contract: packed arrays of these sizes.
    let (last, following, sources, offsets) = unsafe {
        (
            values_at::<u32>(last_address, rows * columns),
            values_at::<u32>(following_address, padded_rows * padded_columns),
            values_at::<u8>(sources_address, padded_rows * padded_columns),
            values_at::<[i64; 2]>(offsets_address, offsets),
        )
    };
    if let Some(&slot) = sources.iter().find(|&&s| s as usize >= slots) {
        return Err(PyValueError::new_err(format!(
            "a plane element names slot {slot}, past the {slots} slots"
        )));
    }
    let face = Face {
        last,
        shape,
        following,
        sources,
        padded,
        low,
    };
    let (pairs, lengths) = py.detach(|| face.pairs(offsets, slots));
    let (pairs_len, slots_len) = (pairs.len(), lengths.len());
    Ok((
        HostArray::u64(pairs, vec![pairs_len]),
        HostArray::u64(lengths, vec![slots_len]),
    ))
}

/// One face: its last plane and the padded plane that follows it.
struct Face<'a> {
    last: &'a [u32],
    shape: (usize, usize),
    following: &'a [u32],
    sources: &'a [u8],
    padded: (usize, usize),
    low: (usize, usize),
}

impl Face<'_> {
    /// The distinct touching pairs of each slot, one after another, and
    /// how many each has.
    fn pairs(&self, offsets: &[[i64; 2]], slots: usize) -> (Vec<u64>, Vec<u64>) {
        let mut by_slot: Vec<Vec<u64>> = vec![Vec::new(); slots];
        let (rows, columns) = self.shape;
        let (padded_rows, padded_columns) = self.padded;
        // The first and past-the-last index of `last` along an axis of `len`
        // whose neighbour at offset `d` lies in `padded` after `low`.
        let span = |len: usize, padded: usize, low: usize, d: i64| {
            let start = (-d - low as i64).max(0) as usize;
            let stop = (padded as i64 - d - low as i64).min(len as i64).max(0) as usize;
            (start.min(stop), stop)
        };
        for &[dr, dc] in offsets {
            let (row_start, row_stop) = span(rows, padded_rows, self.low.0, dr);
            let (column_start, column_stop) = span(columns, padded_columns, self.low.1, dc);
            for r in row_start..row_stop {
                let there_row = (r as i64 + dr) as usize + self.low.0;
                let here = &self.last[r * columns..(r + 1) * columns];
                let base = there_row * padded_columns;
                for (c, &a) in here.iter().enumerate().take(column_stop).skip(column_start) {
                    if a == 0 {
                        continue;
                    }
                    let there = base + ((c as i64 + dc) as usize + self.low.1);
                    let b = self.following[there];
                    if b != 0 {
                        let slot = self.sources[there] as usize;
                        by_slot[slot].push(u64::from(a) << 32 | u64::from(b));
                    }
                }
            }
        }
        let mut pairs = Vec::with_capacity(by_slot.iter().map(Vec::len).sum());
        let mut lengths = Vec::with_capacity(slots);
        for mut slot in by_slot {
            slot.sort_unstable();
            slot.dedup();
            lengths.push(slot.len() as u64);
            pairs.extend_from_slice(&slot);
        }
        (pairs, lengths)
    }
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(face_pairs, module)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2 × 3 last plane against a plane padded by one row and column
    /// before and after (slot 1 on the padding, slot 0 inside): the facing
    /// offset alone, then every diagonal, and pairs repeated once only.
    #[test]
    fn pairs_are_those_of_a_scan_of_every_offset() {
        let last = [1, 0, 2, 3, 3, 0];
        #[rustfmt::skip]
        let following = [
            9, 0, 0, 0, 8,
            0, 1, 1, 0, 0,
            0, 2, 0, 4, 0,
            7, 0, 0, 0, 0,
        ];
        let mut sources = [0u8; 20];
        for (i, source) in sources.iter_mut().enumerate() {
            let (r, c) = (i / 5, i % 5);
            *source = u8::from(r == 0 || r == 3 || c == 0 || c == 4);
        }
        let face = Face {
            last: &last,
            shape: (2, 3),
            following: &following,
            sources: &sources,
            padded: (4, 5),
            low: (1, 1),
        };
        let pair = |a: u64, b: u64| a << 32 | b;
        // Facing: (0,0) 1~1, (0,2) 2~0 no, (1,0) 3~2, (1,1) 3~0 no.
        let (pairs, lengths) = face.pairs(&[[0, 0]], 2);
        assert_eq!((pairs, lengths), (vec![pair(1, 1), pair(3, 2)], vec![2, 0]));
        // Every offset: the same scan by hand, on a full 3 × 3 neighbourhood.
        let every: Vec<[i64; 2]> = (-1..=1)
            .flat_map(|dr| (-1..=1).map(move |dc| [dr, dc]))
            .collect();
        let mut expected = vec![Vec::new(), Vec::new()];
        for (i, &a) in last.iter().enumerate() {
            let (r, c) = ((i / 3) as i64, (i % 3) as i64);
            for &[dr, dc] in &every {
                let there = ((r + dr + 1) * 5 + c + dc + 1) as usize;
                if a != 0 && following[there] != 0 {
                    expected[sources[there] as usize].push(pair(a as u64, following[there] as u64));
                }
            }
        }
        for slot in &mut expected {
            slot.sort_unstable();
            slot.dedup();
        }
        let (pairs, lengths) = face.pairs(&every, 2);
        assert_eq!(
            lengths,
            [expected[0].len() as u64, expected[1].len() as u64]
        );
        assert_eq!(pairs, expected.concat());
        assert!(
            expected[1].contains(&pair(1, 9)),
            "a corner of the padding joins"
        );
    }
}
