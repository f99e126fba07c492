//! Class maps of any value type, images and volumes: the runs and the
//! pairs of runs to join found 64 values at a time, from bit masks,
//! instead of value by value and run by run.
//!
//! Every mask is the SIMD foreground mask of the labeler of binary images
//! ([`row_to_bits`]) over a row of bytes, each 1 where a comparison holds:
//! a value is nonzero; it differs from the value before it (where a run
//! starts); it differs from its neighbour above, straight or diagonal.
//! The comparisons are whole rows zipped, which compile to vector
//! compares for every integer width.
//!
//! A run is joined with a run of an earlier row (the row above, or a row
//! of the slice before: the table of the parent module) where some value
//! of it equals its neighbour there, straight across or diagonal (`reach`
//! 1). Of a stretch of such
//! neighbours that stay in the same two runs, only the first is joined: a
//! bit is kept where the stretch starts or the row starts a run. A
//! diagonal pair is joined only where no straight pair joins the same two
//! runs. At g = 1 the value-by-value loops branched on coin tosses: 9 ns a
//! value to find the runs of a 2048² map of 4 classes at 60 %, 12-14 ns a
//! run to join them.

use ccl_core::{ClassValue, MinRootForest as Forest, SharedMinRootForest, pages};
use rayon::prelude::*;

use super::{Run, split_by_lengths};
use crate::rle::bits::row_to_bits;

/// The fewest rows a thread of the pool takes at a time, finding masks and
/// runs or joining rows: a row of a narrow map is too little work to hand
/// out alone.
pub(super) const MIN_POOL_ROWS: usize = 16;

/// The runs of a row as masks, for the joins: bit `x % 64` of word `x /
/// 64` of `nonzero` is whether value `x` is nonzero, of `starts` whether a
/// run starts there, of `ends` whether one ends there.
#[derive(Default)]
struct RowMasks {
    nonzero: Vec<u64>,
    starts: Vec<u64>,
    ends: Vec<u64>,
    /// Runs of the row begun in the words before each word.
    starts_before: Vec<u32>,
    /// Runs of the row.
    runs: usize,
    /// Index of the row's first run among all runs.
    first_run: usize,
}

impl RowMasks {
    /// The masks of `row` (`first_run` left 0), with a thread's scratch: a
    /// flag per value and a word per 64 values.
    fn of<T: ClassValue>(row: &[T], scratch: &mut [u8], changes: &mut [u64]) -> Self {
        let (width, words) = (row.len(), changes.len());
        let mut masks = RowMasks {
            nonzero: vec![0; words],
            starts: vec![0; words],
            ends: vec![0; words],
            starts_before: vec![0; words],
            runs: 0,
            first_run: 0,
        };
        for (flag, &value) in scratch.iter_mut().zip(row) {
            *flag = u8::from(value != T::BACKGROUND);
        }
        row_to_bits(scratch, &mut masks.nonzero);
        // A value unlike the one before it (0 before the first).
        scratch[0] = u8::from(row[0] != T::BACKGROUND);
        for (flag, pair) in scratch[1..].iter_mut().zip(row.windows(2)) {
            *flag = u8::from(pair[0] != pair[1]);
        }
        row_to_bits(scratch, changes);
        let mut begun = 0;
        for w in 0..words {
            // Bit i: value base + i + 1 differs from value base + i; the
            // row's last value ends its run, whatever follows.
            let next = changes.get(w + 1).map_or(0, |&c| c & 1);
            let mut after = (changes[w] >> 1) | (next << 63);
            if w + 1 == words {
                after |= 1 << ((width - 1) % 64);
            }
            masks.starts[w] = masks.nonzero[w] & changes[w];
            masks.ends[w] = masks.nonzero[w] & after;
            masks.starts_before[w] = begun;
            begun += masks.starts[w].count_ones();
        }
        masks.runs = begun as usize;
        masks
    }

    /// Index of the run that holds value `x` (nonzero).
    #[inline(always)]
    fn run_at(&self, x: usize) -> u32 {
        let (w, b) = (x / 64, x % 64);
        let begun = self.starts_before[w] + (self.starts[w] & (u64::MAX >> (63 - b))).count_ones();
        (self.first_run + begun as usize - 1) as u32
    }

    /// Calls `emit` with each run of `row` (its values), in order: the
    /// k-th run ends at the k-th end bit.
    #[inline(always)]
    fn for_each_run<T: ClassValue>(&self, row: &[T], mut emit: impl FnMut(Run<T>)) {
        let (mut end_word, mut ends) = (0, self.ends.first().copied().unwrap_or(0));
        for (w, &starts) in self.starts.iter().enumerate() {
            let mut starts = starts;
            while starts != 0 {
                let start = w * 64 + starts.trailing_zeros() as usize;
                starts &= starts - 1;
                // A run ends at or after its start: in this word or later.
                while ends == 0 {
                    end_word += 1;
                    ends = self.ends[end_word];
                }
                let end = end_word * 64 + ends.trailing_zeros() as usize;
                ends &= ends - 1;
                emit(Run {
                    start: start as u32,
                    end: end as u32,
                    value: row[start],
                });
            }
        }
    }
}

/// A forest the joins unite runs in: the calling thread's alone, or one
/// that the pool's threads join at once.
trait Join {
    fn join(&mut self, a: u32, b: u32);
}

impl Join for Forest {
    fn join(&mut self, a: u32, b: u32) {
        self.union(a, b);
    }
}

impl Join for &SharedMinRootForest {
    fn join(&mut self, a: u32, b: u32) {
        self.union(a, b);
    }
}

/// One thread's buffers for the joins: a flag per value, masks of a row.
struct JoinScratch {
    flags: Vec<u8>,
    differ: Vec<u64>,
    vertical: Vec<u64>,
    diagonal: Vec<u64>,
}

impl JoinScratch {
    fn new(width: usize) -> Self {
        let words = width.div_ceil(64);
        Self {
            flags: vec![0; width],
            differ: vec![0; words],
            vertical: vec![0; words],
            diagonal: vec![0; words],
        }
    }
}

/// The runs of every row of a map `width` values wide (`values`), where
/// each row's runs begin, and the parents of a forest over the runs with
/// every touching pair of one value joined (the smaller index the root,
/// a non-root's parent before it): each row with the earlier rows `pairs`
/// gives (`(row, earlier, reach)`, the parent module's `row_pairs`). With
/// `parallel`, rows are found and joined on rayon's pool, the joins into
/// a forest of atomic parents: the same runs and the same components.
pub(super) fn label_map<T: ClassValue>(
    values: &[T],
    width: usize,
    pairs: impl Iterator<Item = (usize, usize, u32)>,
    parallel: bool,
) -> (Vec<Run<T>>, Vec<usize>, Vec<u32>) {
    let words = width.div_ceil(64);
    let scratch = || (vec![0u8; width], vec![0u64; words]);
    // Every row's masks first, so that the runs' table is allocated once,
    // as large as their count (a table that grew as runs were found copied
    // itself and faulted in new pages each time it doubled).
    let mut rows: Vec<RowMasks> = if parallel {
        values
            .par_chunks_exact(width)
            .with_min_len(MIN_POOL_ROWS)
            .map_init(scratch, |(flags, changes), row| {
                RowMasks::of(row, flags, changes)
            })
            .collect()
    } else {
        let (mut flags, mut changes) = scratch();
        values
            .chunks_exact(width)
            .map(|row| RowMasks::of(row, &mut flags, &mut changes))
            .collect()
    };
    let mut row_starts = Vec::with_capacity(rows.len() + 1);
    row_starts.push(0);
    for masks in &mut rows {
        masks.first_run = row_starts[row_starts.len() - 1];
        row_starts.push(masks.first_run + masks.runs);
    }
    let count = row_starts[rows.len()];
    let mut runs = pages::with_capacity(count);
    if parallel {
        // Each row's runs straight into its place in the table.
        let places = split_by_lengths(
            &mut runs.spare_capacity_mut()[..count],
            rows.iter().map(|masks| masks.runs),
        );
        rows.par_iter()
            .zip(places)
            .zip(values.par_chunks_exact(width))
            .with_min_len(MIN_POOL_ROWS)
            .for_each(|((masks, places), row)| {
                let mut places = places.iter_mut();
                masks.for_each_run(row, |run| {
                    places
                        .next()
                        .expect("a place for each of the row's runs")
                        .write(run);
                });
                assert!(places.next().is_none(), "as many runs as the row counted");
            });
        // SAFETY: the rows' places cover the first `count` slots, and each
        // row wrote every one of its places (the asserts above).
        unsafe { runs.set_len(count) };
    } else {
        for (masks, row) in rows.iter().zip(values.chunks_exact(width)) {
            masks.for_each_run(row, |run| runs.push(run));
        }
    }

    let parents = if parallel {
        let forest = SharedMinRootForest::new(count);
        let pairs: Vec<(usize, usize, u32)> = pairs.collect();
        pairs.par_iter().with_min_len(MIN_POOL_ROWS).for_each_init(
            || JoinScratch::new(width),
            |scratch, &pair| join_rows(values, width, &rows, pair, scratch, &mut &forest),
        );
        forest.into_parents()
    } else {
        let mut forest = Forest::new(count);
        let mut scratch = JoinScratch::new(width);
        for pair in pairs {
            join_rows(values, width, &rows, pair, &mut scratch, &mut forest);
        }
        forest.into_parents()
    };
    (runs, row_starts, parents)
}

/// Joins the runs of row `r` with those of row `other` they touch and
/// share a value with, `reach` columns apart at most (0: straight across;
/// 1: diagonals too).
fn join_rows<T: ClassValue>(
    values: &[T],
    width: usize,
    rows: &[RowMasks],
    (r, other, reach): (usize, usize, u32),
    scratch: &mut JoinScratch,
    forest: &mut impl Join,
) {
    let JoinScratch {
        flags,
        differ,
        vertical,
        diagonal,
    } = scratch;
    let (current, above) = (&rows[r], &rows[other]);
    let (row, row_above) = (
        &values[r * width..(r + 1) * width],
        &values[other * width..(other + 1) * width],
    );
    // Straight first; its matches then show which diagonal pairs join
    // runs that a straight pair joins already.
    differences(row, row_above, 0, flags);
    row_to_bits(flags, differ);
    for w in 0..differ.len() {
        vertical[w] = !differ[w] & current.nonzero[w];
    }
    join_equal(forest, current, above, vertical, 0, |_| 0);
    // Where every nonzero value equals the value straight across (most
    // rows of a coarse map), every diagonal pair is joined already
    // (below): the diagonals are not compared.
    if reach == 0 || *vertical == current.nonzero {
        return;
    }
    let word = |mask: &[u64], i: usize| mask.get(i).copied().unwrap_or(0);
    for dx in [-1, 1] {
        differences(row, row_above, dx, flags);
        row_to_bits(flags, differ);
        for w in 0..differ.len() {
            diagonal[w] = !differ[w] & current.nonzero[w];
        }
        // Value x equal to value x + dx of the other row is joined
        // already where value x equals the value straight across (then
        // x + dx and x there are one run), or where value x + dx does
        // (then x and x + dx are one run of this row).
        let vertical = &*vertical;
        let redundant = |w: usize| {
            vertical[w]
                | if dx < 0 {
                    (vertical[w] << 1) | if w == 0 { 0 } else { vertical[w - 1] >> 63 }
                } else {
                    (vertical[w] >> 1) | (word(vertical, w + 1) << 63)
                }
        };
        join_equal(forest, current, above, diagonal, dx, redundant);
    }
}

/// Joins the run of each value x of `current` whose bit is set in `equal`
/// (nonzero, and equal to value x + dx of the row above) with the run
/// above that holds x + dx, but for the bits of `redundant(w)` (word `w`:
/// pairs joined already). A stretch of equal neighbours stays in one run
/// of each row while its value does; where the value changes, the row
/// starts a run (and so does the row above, its neighbours being equal to
/// it): so of a stretch only the first bit, and those where the row starts
/// a run, are joined.
fn join_equal(
    forest: &mut impl Join,
    current: &RowMasks,
    above: &RowMasks,
    equal: &[u64],
    dx: isize,
    redundant: impl Fn(usize) -> u64,
) {
    let mut carry = 0u64;
    for (w, &equal) in equal.iter().enumerate() {
        let before = (equal << 1) | carry;
        carry = equal >> 63;
        let mut pairs = equal & (!before | current.starts[w]) & !redundant(w);
        while pairs != 0 {
            let x = w * 64 + pairs.trailing_zeros() as usize;
            forest.join(current.run_at(x), above.run_at(x.wrapping_add_signed(dx)));
            pairs &= pairs - 1;
        }
    }
}

/// `out[x]`: 1 where `row[x]` differs from `above[x + dx]` (`dx` -1, 0 or
/// 1), or is nonzero beside no neighbour (past either end of `above`).
/// Whole slices zipped, so that the loops compile to vector compares.
fn differences<T: ClassValue>(row: &[T], above: &[T], dx: isize, out: &mut [u8]) {
    let width = row.len();
    let (out, row, above) = match dx {
        0 => (&mut out[..], row, above),
        -1 => {
            out[0] = u8::from(row[0] != T::BACKGROUND);
            (&mut out[1..], &row[1..], &above[..width - 1])
        }
        _ => {
            out[width - 1] = u8::from(row[width - 1] != T::BACKGROUND);
            (&mut out[..width - 1], &row[..width - 1], &above[1..])
        }
    };
    for ((out, a), b) in out.iter_mut().zip(row).zip(above) {
        *out = u8::from(a != b);
    }
}
