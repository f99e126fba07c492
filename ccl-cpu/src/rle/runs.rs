//! Stage 2: runs (maximal horizontal segments of foreground) from a row's
//! bit mask, and which runs of the row above touch each run.

use std::ops::Range;

use ccl_core::Connectivity;

/// A run of pixels `start..end` of one row (`end` exclusive) and the
/// provisional label it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Run {
    /// First pixel.
    pub start: u32,
    /// One past the last pixel.
    pub end: u32,
    /// Provisional label (an index of the band's equivalence forest).
    pub label: u32,
}

/// Each word of a row's mask `words` with the starts of its runs (bit x set
/// where pixel x is foreground and the pixel left of it, in the word before
/// for bit 0, is not), left to right: what the label write walks, and the
/// pool's run estimate counts.
#[inline(always)]
pub(super) fn with_run_starts(words: &[u64]) -> impl Iterator<Item = (u64, u64)> + '_ {
    words.iter().scan(0u64, |left, &mask| {
        let starts = mask & !((mask << 1) | *left);
        *left = mask >> 63;
        Some((mask, starts))
    })
}

/// Appends the runs of a row of `width` pixels whose mask is `words` (as
/// [`super::bits::row_to_bits`] makes it: no bit past the row's end) to
/// `runs`, left to right, with label 0.
///
/// A word's run starts and run ends are each a mask, and each mask is
/// written out eight set bits at a time, unconditionally, the count
/// advancing by the bits there were (the entries past it are written
/// again or dropped). A loop that pushed a run per edge toggled between
/// starts and ends on every edge and left its inner loop at a different
/// count in every word, and at g = 1 both mispredicted.
#[inline(always)]
pub(super) fn extract_runs(words: &[u64], width: usize, runs: &mut Vec<Run>) {
    // A run takes at least a pixel and the background pixel after it; the
    // last eight writes of a mask may go up to seven entries past its bits.
    let base = runs.len();
    runs.reserve(width.div_ceil(2) + FLATTEN);
    let slots = runs.spare_capacity_mut();
    let (mut started, mut ended) = (0usize, 0usize);
    // The pixel left of the current word (0 at the row's start).
    let mut carry = 0u64;
    for (w, &mask) in words.iter().enumerate() {
        let shifted = (mask << 1) | carry;
        carry = mask >> 63;
        let x = (w * 64) as u32;
        started += flatten::<true>(mask & !shifted, x, slots, started);
        // Bit x of the ends: a run ends just before pixel x.
        ended += flatten::<false>(!mask & shifted, x, slots, ended);
    }
    if carry != 0 {
        // The last run reaches the row's end (a width a multiple of 64).
        ended += flatten::<false>(1, width as u32, slots, ended);
    }
    debug_assert_eq!(started, ended);
    // SAFETY: entries base..base + started were written, each field: a
    // start (and label) by the starts' pass and an end by the ends' pass,
    // which count the same runs (each run has one start and one end).
    unsafe { runs.set_len(base + started) };
}

/// Entries [`flatten`] writes at a time.
const FLATTEN: usize = 8;

/// Writes, for each set bit `i` of `bits`, `x + i` into entry `first + k`
/// of `slots` (the `k`-th bit): its start (and label 0) with `START`, else
/// its end; eight entries at a time, so up to seven past the last bit.
/// Returns the number of bits.
#[inline(always)]
fn flatten<const START: bool>(
    mut bits: u64,
    x: u32,
    slots: &mut [std::mem::MaybeUninit<Run>],
    first: usize,
) -> usize {
    let count = bits.count_ones() as usize;
    let mut done = 0;
    while done < count {
        for slot in &mut slots[first + done..first + done + FLATTEN] {
            let run = slot.as_mut_ptr();
            let at = x + bits.trailing_zeros();
            // SAFETY: `run` points into `slots`, a live allocation: fields
            // are written through raw pointers, none read.
            unsafe {
                if START {
                    std::ptr::addr_of_mut!((*run).start).write(at);
                    std::ptr::addr_of_mut!((*run).label).write(0);
                } else {
                    std::ptr::addr_of_mut!((*run).end).write(at);
                }
            }
            bits &= bits.wrapping_sub(1);
        }
        done += FLATTEN;
    }
    count
}

/// Which runs of a row touch a span of the row below, without a loop: the
/// row's run starts and run ends as bit masks, with the count of each before
/// every word, so that "runs that end left of x" and "runs that start left
/// of x" are each a popcount. (A two-pointer walk, as [`Touching`], costs
/// two data-dependent loop exits per run, which at g = 1 mispredict.)
#[derive(Default)]
pub(super) struct RunIndex {
    /// Bit x: a run starts at pixel x.
    starts: Vec<u64>,
    /// Bit x: a run ends just before pixel x (x is the exclusive end).
    ends: Vec<u64>,
    /// Runs starting in the words before each word.
    starts_before: Vec<u32>,
    /// Runs ending in the words before each word.
    ends_before: Vec<u32>,
}

impl RunIndex {
    /// Indexes the row whose mask is `words`; all zero words index a row
    /// without runs.
    #[inline(always)]
    pub(super) fn build(&mut self, words: &[u64]) {
        // One word more than the mask: a run that ends at the row's end has
        // its end bit there, and queries reach one pixel past the row.
        let len = words.len() + 1;
        for table in [&mut self.starts, &mut self.ends] {
            table.resize(len, 0);
        }
        for table in [&mut self.starts_before, &mut self.ends_before] {
            table.resize(len, 0);
        }
        let (mut left, mut started, mut ended) = (0u64, 0u32, 0u32);
        for w in 0..len {
            let mask = words.get(w).copied().unwrap_or(0);
            let shifted = (mask << 1) | left;
            left = mask >> 63;
            self.starts[w] = mask & !shifted;
            self.ends[w] = !mask & shifted;
            self.starts_before[w] = started;
            self.ends_before[w] = ended;
            started += self.starts[w].count_ones();
            ended += self.ends[w].count_ones();
        }
    }

    /// The indexes (in the row's left-to-right order) of the row's runs
    /// that touch pixels `start..end` of a neighbouring row within `reach`
    /// columns (see [`reach`]).
    #[inline(always)]
    pub(super) fn touching(&self, start: u32, end: u32, reach: u32) -> Range<usize> {
        // Runs that end at or before start - reach lie wholly left; runs
        // that start before end + reach reach under the span or lie left.
        let first = rank(&self.ends, &self.ends_before, start + 1 - reach);
        let last = rank(&self.starts, &self.starts_before, end + reach);
        first..last
    }
}

/// How many columns apart two runs of neighbouring rows may be and still
/// touch: 0 where only shared columns connect (4-connectivity), 1 where
/// diagonal neighbours do too (8-connectivity).
pub(super) fn reach(connectivity: Connectivity) -> u32 {
    u32::from(connectivity == Connectivity::Eight)
}

/// The bits of `masks` below position `x`.
#[inline(always)]
fn rank(masks: &[u64], before: &[u32], x: u32) -> usize {
    let word = (x / 64) as usize;
    let below = (1u64 << (x % 64)) - 1;
    (before[word] + (masks[word] & below).count_ones()) as usize
}

/// The runs of the row above that touch each run of a row, for the runs of
/// the row taken left to right: a two-pointer walk, so a row costs the runs
/// of both rows. It joins the rows on either side of a band border, where
/// the rows' masks are gone; inside a band, [`RunIndex`] does it.
pub(super) struct Touching<'a> {
    above: &'a [Run],
    next: usize,
    /// 0 in 4-connectivity; 1 in 8-connectivity, where a run also touches
    /// the runs that end just left of its start or start just right of its
    /// end (diagonal neighbours).
    reach: u32,
}

impl<'a> Touching<'a> {
    /// A walk over `above` for runs that touch within `reach` columns
    /// (see [`reach`]).
    pub(super) fn new(above: &'a [Run], reach: u32) -> Self {
        Self {
            above,
            next: 0,
            reach,
        }
    }

    /// The runs above that touch `run`; `run` must lie right of the run of
    /// the previous call.
    #[inline]
    pub(super) fn of(&mut self, run: &Run) -> &'a [Run] {
        let above = self.above;
        let mut first = self.next;
        while first < above.len() && above[first].end + self.reach <= run.start {
            first += 1;
        }
        let mut end = first;
        while end < above.len() && above[end].start < run.end + self.reach {
            end += 1;
        }
        // The last run that touches may reach on under the next run too.
        self.next = end.saturating_sub(1).max(first);
        &above[first..end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rle::bits::row_to_bits;

    fn runs_of(row: &[u8]) -> Vec<(u32, u32)> {
        let mut words = vec![0; row.len().div_ceil(64)];
        row_to_bits(row, &mut words);
        let mut runs = Vec::new();
        extract_runs(&words, row.len(), &mut runs);
        runs.iter().map(|r| (r.start, r.end)).collect()
    }

    #[test]
    fn runs_across_word_borders_and_at_the_ends() {
        assert_eq!(runs_of(&[]), []);
        assert_eq!(runs_of(&[0; 70]), []);
        assert_eq!(runs_of(&[1; 70]), [(0, 70)]);
        let mut row = vec![0u8; 130];
        row[0] = 1;
        row[60..68].fill(1);
        row[127..130].fill(1);
        assert_eq!(runs_of(&row), [(0, 1), (60, 68), (127, 130)]);
        let alternating: Vec<u8> = (0..128).map(|x| (x % 2) as u8).collect();
        assert_eq!(runs_of(&alternating).len(), 64);
        assert_eq!(runs_of(&[1; 64]), [(0, 64)]);
    }

    /// Random rows of every density, on widths around whole words (runs
    /// written eight at a time, up to 32 a word): the runs a pixel-by-pixel
    /// scan finds, appended after the runs already in the vector.
    #[test]
    fn runs_agree_with_a_scan_of_the_pixels() {
        let mut numbers = ccl_testdata::Xorshift32::new(0x5eed_0042);
        for width in [1, 7, 63, 64, 65, 127, 128, 129, 200, 256] {
            for density in [3, 30, 50, 70, 97] {
                let row: Vec<u8> = (0..width)
                    .map(|_| u8::from(numbers.below(100) < density))
                    .collect();
                let mut expected = Vec::new();
                let mut x = 0;
                while x < width {
                    if row[x] != 0 {
                        let start = x;
                        while x < width && row[x] != 0 {
                            x += 1;
                        }
                        expected.push((start as u32, x as u32));
                    }
                    x += 1;
                }
                let mut words = vec![0; width.div_ceil(64)];
                row_to_bits(&row, &mut words);
                let before = run(3, 5);
                let mut runs = vec![before];
                extract_runs(&words, width, &mut runs);
                assert_eq!(runs[0], before, "width {width}, d = {density}");
                let found: Vec<(u32, u32)> = runs[1..].iter().map(|r| (r.start, r.end)).collect();
                assert_eq!(found, expected, "width {width}, d = {density}");
                assert!(runs[1..].iter().all(|r| r.label == 0));
            }
        }
    }

    fn run(start: u32, end: u32) -> Run {
        Run {
            start,
            end,
            label: start,
        }
    }

    #[test]
    fn touching_runs_by_connectivity() {
        // Above: [0,2) [4,6) [8,10); below: [2,4) [6,7) [9,12).
        let above = [run(0, 2), run(4, 6), run(8, 10)];
        let row = [run(2, 4), run(6, 7), run(9, 12)];
        let starts = |c| {
            let mut touching = Touching::new(&above, reach(c));
            row.iter()
                .map(|r| touching.of(r).iter().map(|a| a.start).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            starts(Connectivity::Four),
            [vec![], vec![], vec![8]],
            "4-connectivity: shared columns only"
        );
        assert_eq!(
            starts(Connectivity::Eight),
            [vec![0, 4], vec![4], vec![8]],
            "8-connectivity: diagonals too"
        );
    }

    #[test]
    fn the_index_agrees_with_the_walk() {
        let mut numbers = ccl_testdata::Xorshift32::new(0x1234_5678);
        for width in [1, 2, 63, 64, 65, 127, 128, 200] {
            for density in [20, 50, 80] {
                let mut row = || -> Vec<u8> {
                    (0..width)
                        .map(|_| u8::from(numbers.below(100) < density))
                        .collect()
                };
                let (top, bottom) = (row(), row());
                let mut top_words = vec![0; top.len().div_ceil(64)];
                row_to_bits(&top, &mut top_words);
                let mut above = Vec::new();
                extract_runs(&top_words, width, &mut above);
                let mut index = RunIndex::default();
                index.build(&top_words);
                let mut bottom_words = vec![0; bottom.len().div_ceil(64)];
                row_to_bits(&bottom, &mut bottom_words);
                let mut runs = Vec::new();
                extract_runs(&bottom_words, width, &mut runs);
                for connectivity in Connectivity::PLANE {
                    let mut walk = Touching::new(&above, reach(connectivity));
                    for run in &runs {
                        let range = index.touching(run.start, run.end, reach(connectivity));
                        assert_eq!(
                            &above[range],
                            walk.of(run),
                            "width {width}, {connectivity}, run {run:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn one_run_above_touches_several_below() {
        let above = [run(0, 10)];
        let row = [run(0, 1), run(3, 4), run(9, 12)];
        let mut touching = Touching::new(&above, 0);
        for r in &row {
            assert_eq!(touching.of(r), &above);
        }
    }
}
