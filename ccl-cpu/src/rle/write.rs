//! Stage 5: the label image, row by row, from each row's bit mask and the
//! final labels of its runs. A word inside one run is filled at once; a word
//! of mixed pixels is written with no branch per run (at g = 1 runs are a
//! pixel or two long, and a fill per run would mispredict its length every
//! time): on x86-64 with AVX2 eight pixels per instruction, elsewhere one
//! at a time.
//!
//! The eight-pixel select: pixel `i` of a byte of the mask takes the label
//! of the run begun last at or before it, i.e. `finals[base + r_i]` with
//! `base` the runs begun before the byte and `r_i` the run starts among its
//! pixels `0..=i` (at most 4: a run start follows a background pixel).
//! `r_i` comes from a table indexed by the byte of run starts; one
//! unaligned load of `finals[base..base + 8]` and a lane permutation
//! (`vpermd`) pick the labels, and the foreground bits mask background to
//! 0. No gather, no branch, one 32-byte store per 8 pixels.
//!
//! A label image of [`MIN_STREAMED_PIXELS`] or more is written with
//! non-temporal stores, which go to memory without first reading each
//! cache line in: on the 2-core development machine (Intel Xeon, 2026-11-26)
//! 64 MiB took 3.2 ms so against 8.2 ms with plain stores on one thread,
//! and 1.8 against 4.1 ms on two; from 4 MiB on, streaming was never slower.

use super::bits::row_to_bits;
use super::runs::with_run_starts;

/// Entries that [`write_row`] may read past the last run's in `finals`: the
/// eight-pixel select loads eight labels from the current run on.
pub(super) const FINALS_PADDING: usize = 8;

/// The fewest labels (1 Mi, 4 MiB) written with non-temporal stores: a
/// smaller label image may still be in the cache when the caller reads it.
pub(super) const MIN_STREAMED_PIXELS: usize = 1 << 20;

/// Writes the label rows of one band (or slab): the scratch a row needs, and
/// whether its stores stream past the cache.
pub(super) struct RowWriter {
    /// A row's mask, as [`row_to_bits`] makes it.
    words: Vec<u64>,
    /// `0`, then the final label of each run of a row, then padding.
    finals: Vec<u32>,
    /// Whether rows are written with non-temporal stores.
    stream: bool,
    /// The labels of the last row written, where [`Self::write_in_band`]
    /// was told that the next row repeats it; cached, unlike a streamed row.
    kept: Vec<u32>,
    /// Whether `kept` holds the last row written.
    kept_is_last: bool,
}

impl RowWriter {
    /// A writer for rows of `width` pixels; `stream` as [`streams`] says
    /// for the whole label image.
    pub(super) fn new(width: usize, stream: bool) -> Self {
        Self {
            words: vec![0; width.div_ceil(64)],
            finals: Vec::new(),
            stream,
            kept: Vec::new(),
            kept_is_last: false,
        }
    }

    /// Writes `out`, the labels of a row of `pixels` whose runs have the
    /// final labels `finals` (left to right). With `ZEROED`, `out` is all 0
    /// already and background is skipped; else every label is written.
    pub(super) fn write<const ZEROED: bool>(
        &mut self,
        pixels: &[u8],
        finals: impl Iterator<Item = u32>,
        out: &mut [u32],
    ) {
        self.kept_is_last = false;
        // A row without runs is all background: no need to read it again.
        if !self.load_row(pixels, finals) {
            if !ZEROED {
                out.fill(0);
            }
            return;
        }
        write_row::<ZEROED>(&self.words, &self.finals, out, self.stream);
    }

    /// Loads a row into `words` and `finals` (0, the final labels of its
    /// runs, then padding) as [`write_row`] reads them; returns whether it
    /// has runs (without them, neither is loaded).
    fn load_row(&mut self, pixels: &[u8], finals: impl Iterator<Item = u32>) -> bool {
        self.finals.clear();
        self.finals.push(0);
        self.finals.extend(finals);
        if self.finals.len() == 1 {
            return false;
        }
        self.finals.extend([0; FINALS_PADDING]);
        row_to_bits(pixels, &mut self.words);
        true
    }

    /// As [`Self::write`], for the rows of a band (or of any run of rows
    /// written in order by this writer): where a row has the mask of the row
    /// written before it (`same_as_above`), its runs have that row's final
    /// labels, and its labels are a copy of that row's. The row before a
    /// repeated one (`same_below`) is labeled into a cached copy first, and
    /// each repeat streams that copy out: a load and a store per four
    /// labels, where the eight-pixel select spends a dozen instructions per
    /// eight. At g = 4 three rows in four repeat the row above, at g = 16
    /// fifteen in sixteen.
    pub(super) fn write_in_band<const ZEROED: bool>(
        &mut self,
        pixels: &[u8],
        finals: impl ExactSizeIterator<Item = u32>,
        out: &mut [u32],
        same_as_above: bool,
        same_below: bool,
    ) {
        // A row of no runs is background, which `write` skips or fills.
        if finals.len() == 0 || !(same_below || same_as_above && self.kept_is_last) {
            self.write::<ZEROED>(pixels, finals, out);
            return;
        }
        if !(same_as_above && self.kept_is_last) {
            self.load_row(pixels, finals);
            self.kept.resize(out.len(), 0);
            write_row::<false>(&self.words, &self.finals, &mut self.kept, false);
            self.kept_is_last = true;
        }
        copy_row(&self.kept, out, self.stream);
    }
}

/// Copies the labels `from` to `out`; with `stream` (which needs AVX2 and
/// `out` 16-byte aligned: see [`streams`]), with non-temporal stores.
fn copy_row(from: &[u32], out: &mut [u32], stream: bool) {
    #[cfg(target_arch = "x86_64")]
    if stream {
        debug_assert!((out.as_ptr() as usize).is_multiple_of(16));
        // SAFETY: `stream` is set only where AVX2 was detected and `out` is
        // 16-byte aligned, with a width a multiple of 4.
        unsafe { x86::stream_copy(from, out) };
        return;
    }
    debug_assert!(!stream);
    out.copy_from_slice(from);
}

impl Drop for RowWriter {
    /// Orders the band's non-temporal stores before what follows on this
    /// thread (the end of the parallel pass that the caller waits for):
    /// they are weakly ordered, and another thread may read the labels next.
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if self.stream {
            // SAFETY: SSE is part of x86-64.
            unsafe { std::arch::x86_64::_mm_sfence() };
        }
    }
}

/// Whether the rows of `width` pixels of `labels` are written with
/// non-temporal stores: a label image of [`MIN_STREAMED_PIXELS`] or more,
/// on a CPU with AVX2, whose rows all start 16-byte aligned.
pub(super) fn streams(width: usize, labels: &[u32]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        labels.len() >= MIN_STREAMED_PIXELS
            && (labels.as_ptr() as usize).is_multiple_of(16)
            && width.is_multiple_of(4)
            && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (width, labels);
        false
    }
}

/// Writes one row of labels: `finals[k]` is the final label of the row's
/// `k`-th run (`finals[0]` is 0, for pixels before the first run), followed
/// by [`FINALS_PADDING`] entries of any value; `words` is the row's mask as
/// [`super::bits::row_to_bits`] makes it. With `ZEROED`, `out` is all 0
/// already and background words are skipped; else they are written. With
/// `stream` (which needs AVX2 and `out` 16-byte aligned: see [`streams`]),
/// whole 64-pixel words are written with non-temporal stores.
fn write_row<const ZEROED: bool>(words: &[u64], finals: &[u32], out: &mut [u32], stream: bool) {
    debug_assert!(finals.len() > FINALS_PADDING);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected on this CPU just above; `stream` is set
        // only where `out` is 16-byte aligned.
        unsafe {
            if stream {
                debug_assert!((out.as_ptr() as usize).is_multiple_of(16));
                x86::write_row_avx2::<ZEROED, true>(words, finals, out);
            } else {
                x86::write_row_avx2::<ZEROED, false>(words, finals, out);
            }
        }
        return;
    }
    debug_assert!(!stream);
    write_row_scalar::<ZEROED>(words, finals, out);
}

/// [`write_row`] a pixel at a time.
fn write_row_scalar<const ZEROED: bool>(words: &[u64], finals: &[u32], out: &mut [u32]) {
    // Runs started so far: the index in `finals` of the current run.
    let mut count = 0usize;
    for ((mask, starts), pixels) in with_run_starts(words).zip(out.chunks_mut(64)) {
        count = write_word::<ZEROED>(mask, starts, count, finals, pixels);
    }
}

/// Writes the pixels of one word (`mask`, its run `starts`) a pixel at a
/// time, `count` runs begun before it; returns the runs begun up to its end.
#[inline(always)]
fn write_word<const ZEROED: bool>(
    mask: u64,
    starts: u64,
    mut count: usize,
    finals: &[u32],
    pixels: &mut [u32],
) -> usize {
    if mask == 0 {
        if !ZEROED {
            pixels.fill(0);
        }
        return count;
    }
    if mask == u64::MAX && starts == 0 {
        pixels.fill(finals[count]);
        return count;
    }
    for (i, pixel) in pixels.iter_mut().enumerate() {
        count += ((starts >> i) & 1) as usize;
        // Background reads finals[0] = 0: an index select, not a branch on
        // the pixel, which would mispredict on half the pixels of a random
        // image (LLVM turns a masked value back into a branch around the
        // load; a masked index it keeps).
        let foreground = ((mask >> i) & 1) as usize;
        *pixel = finals[count & foreground.wrapping_neg()];
    }
    count
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{with_run_starts, write_word};

    /// For each byte of run starts, the starts among its bits `0..=i` in
    /// byte `i` (little-endian): the `r_i` of the module's select.
    static PREFIX_STARTS: [u64; 256] = {
        let mut table = [0u64; 256];
        let mut byte = 0;
        while byte < 256 {
            let mut entry = 0u64;
            let mut i = 0;
            while i < 8 {
                let below = (byte & ((2u32 << i) - 1)) as u8;
                entry |= (below.count_ones() as u64) << (8 * i);
                i += 1;
            }
            table[byte as usize] = entry;
            byte += 1;
        }
        table
    };

    /// `super::write_row` eight pixels per instruction; with `STREAM`, the
    /// stores of whole words are non-temporal.
    ///
    /// # Safety
    /// The CPU must have AVX2; `finals` must hold [`super::FINALS_PADDING`]
    /// entries past the row's last run; with `STREAM`, `out` must be
    /// 16-byte aligned.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn write_row_avx2<const ZEROED: bool, const STREAM: bool>(
        words: &[u64],
        finals: &[u32],
        out: &mut [u32],
    ) {
        // Lane i tests bit i of a broadcast mask byte.
        let lane_bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        let mut count = 0usize;
        for ((mask, starts), pixels) in with_run_starts(words).zip(out.chunks_mut(64)) {
            let full_word = pixels.len() == 64;
            let uniform = mask == 0 || (mask == u64::MAX && starts == 0);
            if !full_word || (uniform && !STREAM) {
                count = write_word::<ZEROED>(mask, starts, count, finals, pixels);
                continue;
            }
            if uniform {
                // All background, or inside one run: `count` stays.
                if mask != 0 || !ZEROED {
                    let label = if mask == 0 { 0 } else { finals[count] };
                    let labels = _mm256_set1_epi32(label as i32);
                    for group in 0..8 {
                        // SAFETY: the eight pixels lie in this full chunk,
                        // 16-byte aligned as `out` is (64 labels apart).
                        unsafe { store::<STREAM>(pixels.as_mut_ptr().add(8 * group), labels) };
                    }
                }
                continue;
            }
            for byte in 0..8 {
                let shift = 8 * byte;
                let start_bits = ((starts >> shift) & 0xff) as usize;
                let mask_bits = ((mask >> shift) & 0xff) as i32;
                // SAFETY: count + 8 <= finals.len(): count is at most the
                // row's runs, and FINALS_PADDING entries follow the last;
                // the store's eight pixels lie in this full 64-pixel chunk.
                unsafe {
                    let runs = _mm256_loadu_si256(finals.as_ptr().add(count).cast());
                    let index =
                        _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(PREFIX_STARTS[start_bits] as i64));
                    let labels = _mm256_permutevar8x32_epi32(runs, index);
                    let foreground = _mm256_cmpeq_epi32(
                        _mm256_and_si256(_mm256_set1_epi32(mask_bits), lane_bits),
                        lane_bits,
                    );
                    store::<STREAM>(
                        pixels.as_mut_ptr().add(shift),
                        _mm256_and_si256(labels, foreground),
                    );
                }
                count += start_bits.count_ones() as usize;
            }
        }
    }

    /// Copies `from` to `out` four labels per non-temporal store.
    ///
    /// # Safety
    /// The CPU must have AVX2; `out` must be 16-byte aligned, as long as
    /// `from`, and a multiple of 4 labels long.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn stream_copy(from: &[u32], out: &mut [u32]) {
        debug_assert!(from.len() == out.len() && out.len().is_multiple_of(4));
        for (to, four) in out.chunks_exact_mut(4).zip(from.chunks_exact(4)) {
            // SAFETY: four labels each side; `to` is 16-byte aligned, as
            // `out` is, 16 bytes apart.
            unsafe {
                let labels = _mm_loadu_si128(four.as_ptr().cast());
                _mm_stream_si128(to.as_mut_ptr().cast(), labels);
            }
        }
    }

    /// Stores eight labels at `to`: with `STREAM` as two non-temporal
    /// 16-byte stores (which need only 16-byte alignment, where a 32-byte
    /// one would need 32), else one unaligned store.
    ///
    /// # Safety
    /// `to..to + 8` must be writable; with `STREAM`, `to` 16-byte aligned.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn store<const STREAM: bool>(to: *mut u32, labels: __m256i) {
        // SAFETY: as the caller promises.
        unsafe {
            if STREAM {
                _mm_stream_si128(to.cast(), _mm256_castsi256_si128(labels));
                _mm_stream_si128(to.add(4).cast(), _mm256_extracti128_si256::<1>(labels));
            } else {
                _mm256_storeu_si256(to.cast(), labels);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rle::bits::row_to_bits;
    use crate::rle::runs::extract_runs;

    #[test]
    fn rows_of_every_kind_of_word() {
        // Mixed words, a word inside one run, a run across words, empty words.
        let mut row = vec![0u8; 300];
        row[1] = 1;
        row[3..5].fill(1);
        row[60..200].fill(1);
        row[299] = 1;
        let mut words = vec![0; row.len().div_ceil(64)];
        row_to_bits(&row, &mut words);
        let mut runs = Vec::new();
        extract_runs(&words, row.len(), &mut runs);
        let finals: Vec<u32> = std::iter::once(0)
            .chain((1..=runs.len() as u32).map(|k| 10 * k))
            .collect();
        let mut expected = vec![0u32; row.len()];
        for (k, run) in runs.iter().enumerate() {
            expected[run.start as usize..run.end as usize].fill(finals[k + 1]);
        }
        let mut padded = finals.clone();
        padded.extend([u32::MAX; FINALS_PADDING]);
        for stream in stream_modes() {
            let mut out = Aligned::new(row.len(), 0);
            write_row::<true>(&words, &padded, out.labels(), stream);
            assert_eq!(out.labels(), expected, "stream {stream}");
            // Over a dirty buffer, every pixel is written.
            let mut out = Aligned::new(row.len(), 7);
            write_row::<false>(&words, &padded, out.labels(), stream);
            assert_eq!(out.labels(), expected, "stream {stream}");
        }
        // The pixel-at-a-time path gives the same.
        let mut out = vec![7u32; row.len()];
        write_row_scalar::<false>(&words, &padded, &mut out);
        assert_eq!(out, expected);
    }

    /// Rows written in order where some repeat the row before (a band at
    /// g > 1), rows of no runs among them: [`RowWriter::write_in_band`]
    /// writes what [`RowWriter::write`] writes row by row, into a zeroed
    /// buffer and over a dirty one, streamed and not.
    #[test]
    fn repeated_rows_are_copies() {
        let width = 136;
        let mut numbers = ccl_testdata::Xorshift32::new(0x0dd_ba11);
        // Rows 0-2 alike, 3 empty, 4-5 empty, 6, 7-9 alike.
        let distinct: Vec<Vec<u8>> = (0..4)
            .map(|_| {
                (0..width)
                    .map(|_| u8::from(numbers.below(100) < 45))
                    .collect()
            })
            .collect();
        let empty = vec![0u8; width];
        let rows = [
            &distinct[0],
            &distinct[0],
            &distinct[0],
            &empty,
            &empty,
            &empty,
            &distinct[1],
            &distinct[2],
            &distinct[2],
            &distinct[2],
        ];
        let finals_of = |row: &[u8]| -> Vec<u32> {
            let mut words = vec![0; width.div_ceil(64)];
            row_to_bits(row, &mut words);
            let mut runs = Vec::new();
            extract_runs(&words, width, &mut runs);
            // Alike rows' runs share final labels, as a band's do.
            let first = rows.iter().position(|r| *r == row).unwrap();
            (0..runs.len() as u32)
                .map(|k| 100 * first as u32 + k + 1)
                .collect()
        };
        for stream in stream_modes() {
            for zeroed in [true, false] {
                let fill = if zeroed { 0 } else { 9 };
                let mut expected = Aligned::new(width * rows.len(), fill);
                let mut got = Aligned::new(width * rows.len(), fill);
                let mut plain = RowWriter::new(width, stream);
                let mut copying = RowWriter::new(width, stream);
                let same = |y: usize| y > 0 && y < rows.len() && rows[y] == rows[y - 1];
                for (y, row) in rows.iter().enumerate() {
                    let finals = finals_of(row);
                    let span = y * width..(y + 1) * width;
                    let (want, have) = (
                        &mut expected.labels()[span.clone()],
                        &mut got.labels()[span],
                    );
                    if zeroed {
                        plain.write::<true>(row, finals.iter().copied(), want);
                        copying.write_in_band::<true>(
                            row,
                            finals.iter().copied(),
                            have,
                            same(y),
                            same(y + 1),
                        );
                    } else {
                        plain.write::<false>(row, finals.iter().copied(), want);
                        copying.write_in_band::<false>(
                            row,
                            finals.iter().copied(),
                            have,
                            same(y),
                            same(y + 1),
                        );
                    }
                }
                drop((plain, copying));
                assert_eq!(
                    got.labels(),
                    expected.labels(),
                    "stream {stream}, zeroed {zeroed}"
                );
            }
        }
    }

    /// Plain stores, and non-temporal ones where the CPU has them.
    fn stream_modes() -> Vec<bool> {
        let avx2 = cfg!(target_arch = "x86_64") && std::is_x86_feature_detected!("avx2");
        if avx2 { vec![false, true] } else { vec![false] }
    }

    /// `len` labels of `value` that start 16-byte aligned, as streaming
    /// needs.
    struct Aligned {
        buffer: Vec<u32>,
        offset: usize,
        len: usize,
    }

    impl Aligned {
        fn new(len: usize, value: u32) -> Self {
            let buffer = vec![value; len + 3];
            let offset = (buffer.as_ptr() as usize / 4).wrapping_neg() % 4;
            Self {
                buffer,
                offset,
                len,
            }
        }

        fn labels(&mut self) -> &mut [u32] {
            &mut self.buffer[self.offset..self.offset + self.len]
        }
    }

    /// Random rows of every density: the eight-pixel select (where the CPU
    /// runs it) writes what the pixel-at-a-time path writes.
    #[test]
    fn both_paths_agree_on_random_rows() {
        let mut numbers = ccl_testdata::Xorshift32::new(0x9e37_79b9);
        for width in [1, 63, 64, 65, 200, 512, 1000] {
            for density in [3, 20, 50, 80, 97] {
                let row: Vec<u8> = (0..width)
                    .map(|_| u8::from(numbers.below(100) < density))
                    .collect();
                let mut words = vec![0; row.len().div_ceil(64)];
                row_to_bits(&row, &mut words);
                let mut runs = Vec::new();
                extract_runs(&words, row.len(), &mut runs);
                let mut finals: Vec<u32> = (0..=runs.len() as u32).map(|k| k * 3).collect();
                finals.extend([u32::MAX; FINALS_PADDING]);
                let mut scalar = vec![2u32; width];
                write_row_scalar::<false>(&words, &finals, &mut scalar);
                for stream in stream_modes() {
                    let mut fast = Aligned::new(width, 1);
                    write_row::<false>(&words, &finals, fast.labels(), stream);
                    assert_eq!(fast.labels(), scalar, "width {width}, density {density}");
                }
            }
        }
    }
}
