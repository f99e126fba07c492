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

use ccl_core::{ClassValue, MinRootForest as Forest, pages};

use super::Run;
use crate::rle::bits::row_to_bits;

/// The runs of a row as masks, for the joins: bit `x % 64` of word `x /
/// 64` of `nonzero` is whether value `x` is nonzero, of `starts` whether a
/// run starts there.
#[derive(Default)]
struct RowMasks {
    nonzero: Vec<u64>,
    starts: Vec<u64>,
    /// Runs of the row begun in the words before each word.
    starts_before: Vec<u32>,
    /// Index of the row's first run among all runs.
    first_run: usize,
}

impl RowMasks {
    /// Index of the run that holds value `x` (nonzero).
    #[inline(always)]
    fn run_at(&self, x: usize) -> u32 {
        let (w, b) = (x / 64, x % 64);
        let begun = self.starts_before[w] + (self.starts[w] & (u64::MAX >> (63 - b))).count_ones();
        (self.first_run + begun as usize - 1) as u32
    }
}

/// The runs of every row of a map `width` values wide (`values`), where
/// each row's runs begin, and the forest over the runs with every touching
/// pair of one value joined: each row with the earlier rows `pairs` gives
/// (`(row, earlier, reach)`, the parent module's `row_pairs`).
pub(super) fn label_map<T: ClassValue>(
    values: &[T],
    width: usize,
    pairs: impl Iterator<Item = (usize, usize, u32)>,
) -> (Vec<Run<T>>, Vec<usize>, Forest) {
    let words = width.div_ceil(64);
    let rows_count = values.len() / width;
    let mut scratch = vec![0u8; width];
    let mut changes = vec![0u64; words];
    // Every row's masks first, so that the runs' table is allocated once,
    // as large as their count (a table that grew as runs were found copied
    // itself and faulted in new pages each time it doubled).
    let mut rows: Vec<RowMasks> = Vec::with_capacity(rows_count);
    let mut ends = vec![0u64; words * rows_count];
    let mut count = 0;
    for (y, row) in values.chunks_exact(width).enumerate() {
        let mut masks = RowMasks {
            nonzero: vec![0; words],
            starts: vec![0; words],
            starts_before: vec![0; words],
            first_run: count,
        };
        for (flag, &value) in scratch.iter_mut().zip(row) {
            *flag = u8::from(value != T::BACKGROUND);
        }
        row_to_bits(&scratch, &mut masks.nonzero);
        // A value unlike the one before it (0 before the first).
        scratch[0] = u8::from(row[0] != T::BACKGROUND);
        for (flag, pair) in scratch[1..].iter_mut().zip(row.windows(2)) {
            *flag = u8::from(pair[0] != pair[1]);
        }
        row_to_bits(&scratch, &mut changes);
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
            ends[y * words + w] = masks.nonzero[w] & after;
            masks.starts_before[w] = begun;
            begun += masks.starts[w].count_ones();
        }
        count += begun as usize;
        rows.push(masks);
    }
    let mut runs = pages::with_capacity(count);
    let mut row_starts = Vec::with_capacity(rows_count + 1);
    row_starts.push(0);
    for (y, masks) in rows.iter().enumerate() {
        let row_values = &values[y * width..(y + 1) * width];
        // The next run of the row whose end is not yet known.
        let mut unended = runs.len();
        for w in 0..words {
            let base = w * 64;
            let mut starts = masks.starts[w];
            while starts != 0 {
                let start = base + starts.trailing_zeros() as usize;
                runs.push(Run {
                    start: start as u32,
                    end: start as u32,
                    value: row_values[start],
                });
                starts &= starts - 1;
            }
            let mut row_ends = ends[y * words + w];
            while row_ends != 0 {
                runs[unended].end = (base + row_ends.trailing_zeros() as usize) as u32;
                unended += 1;
                row_ends &= row_ends - 1;
            }
        }
        row_starts.push(runs.len());
    }

    let mut forest = Forest::new(runs.len());
    let (mut differ, mut vertical, mut diagonal) =
        (vec![0u64; words], vec![0u64; words], vec![0u64; words]);
    for (r, other, reach) in pairs {
        let (current, above) = (&rows[r], &rows[other]);
        let (row, row_above) = (
            &values[r * width..(r + 1) * width],
            &values[other * width..(other + 1) * width],
        );
        // Straight first; its matches then show which diagonal pairs join
        // runs that a straight pair joins already.
        differences(row, row_above, 0, &mut scratch);
        row_to_bits(&scratch, &mut differ);
        for w in 0..words {
            vertical[w] = !differ[w] & current.nonzero[w];
        }
        join_equal(&mut forest, current, above, &vertical, 0, |_| 0);
        // Where every nonzero value equals the value straight across (most
        // rows of a coarse map), every diagonal pair is joined already
        // (below): the diagonals are not compared.
        if reach == 0 || vertical == current.nonzero {
            continue;
        }
        let word = |mask: &[u64], i: usize| mask.get(i).copied().unwrap_or(0);
        for dx in [-1, 1] {
            differences(row, row_above, dx, &mut scratch);
            row_to_bits(&scratch, &mut differ);
            for w in 0..words {
                diagonal[w] = !differ[w] & current.nonzero[w];
            }
            // Value x equal to value x + dx of the other row is joined
            // already where value x equals the value straight across (then
            // x + dx and x there are one run), or where value x + dx does
            // (then x and x + dx are one run of this row).
            let redundant = |w: usize| {
                vertical[w]
                    | if dx < 0 {
                        (vertical[w] << 1) | if w == 0 { 0 } else { vertical[w - 1] >> 63 }
                    } else {
                        (vertical[w] >> 1) | (word(&vertical, w + 1) << 63)
                    }
            };
            join_equal(&mut forest, current, above, &diagonal, dx, redundant);
        }
    }
    (runs, row_starts, forest)
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
    forest: &mut Forest,
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
            forest.union(current.run_at(x), above.run_at(x.wrapping_add_signed(dx)));
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
