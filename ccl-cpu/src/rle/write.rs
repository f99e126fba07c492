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

/// Entries that [`write_row`] may read past the last run's in `finals`: the
/// eight-pixel select loads eight labels from the current run on.
pub(super) const FINALS_PADDING: usize = 8;

/// Writes one row of labels: `finals[k]` is the final label of the row's
/// `k`-th run (`finals[0]` is 0, for pixels before the first run), followed
/// by [`FINALS_PADDING`] entries of any value; `words` is the row's mask as
/// [`super::bits::row_to_bits`] makes it. With `ZEROED`, `out` is all 0
/// already and background words are skipped; else they are written.
pub(super) fn write_row<const ZEROED: bool>(words: &[u64], finals: &[u32], out: &mut [u32]) {
    debug_assert!(finals.len() > FINALS_PADDING);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected on this CPU just above.
        unsafe { x86::write_row_avx2::<ZEROED>(words, finals, out) };
        return;
    }
    write_row_scalar::<ZEROED>(words, finals, out);
}

/// [`write_row`] a pixel at a time.
fn write_row_scalar<const ZEROED: bool>(words: &[u64], finals: &[u32], out: &mut [u32]) {
    // Runs started so far: the index in `finals` of the current run.
    let mut count = 0usize;
    let mut left = 0u64;
    for (&mask, pixels) in words.iter().zip(out.chunks_mut(64)) {
        let starts = mask & !((mask << 1) | left);
        left = mask >> 63;
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

    use super::write_word;

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

    /// `super::write_row` eight pixels per instruction.
    ///
    /// # Safety
    /// The CPU must have AVX2; `finals` must hold [`super::FINALS_PADDING`]
    /// entries past the row's last run.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn write_row_avx2<const ZEROED: bool>(
        words: &[u64],
        finals: &[u32],
        out: &mut [u32],
    ) {
        // Lane i tests bit i of a broadcast mask byte.
        let lane_bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        let mut count = 0usize;
        let mut left = 0u64;
        for (&mask, pixels) in words.iter().zip(out.chunks_mut(64)) {
            let starts = mask & !((mask << 1) | left);
            left = mask >> 63;
            let full_word = pixels.len() == 64;
            if !full_word || mask == 0 || (mask == u64::MAX && starts == 0) {
                count = write_word::<ZEROED>(mask, starts, count, finals, pixels);
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
                    _mm256_storeu_si256(
                        pixels.as_mut_ptr().add(shift).cast(),
                        _mm256_and_si256(labels, foreground),
                    );
                }
                count += start_bits.count_ones() as usize;
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
        let mut out = vec![0u32; row.len()];
        write_row::<true>(&words, &padded, &mut out);
        assert_eq!(out, expected);
        // Over a dirty buffer, every pixel is written.
        let mut out = vec![7u32; row.len()];
        write_row::<false>(&words, &padded, &mut out);
        assert_eq!(out, expected);
        // The pixel-at-a-time path gives the same.
        let mut out = vec![7u32; row.len()];
        write_row_scalar::<false>(&words, &padded, &mut out);
        assert_eq!(out, expected);
    }

    /// Random rows of every density: the eight-pixel select (where the CPU
    /// runs it) writes what the pixel-at-a-time path writes.
    #[test]
    fn both_paths_agree_on_random_rows() {
        let mut state = 0x9e37_79b9_u32;
        for width in [1, 63, 64, 65, 200, 512, 1000] {
            for density in [3, 20, 50, 80, 97] {
                let row: Vec<u8> = (0..width)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 17;
                        state ^= state << 5;
                        u8::from(state % 100 < density)
                    })
                    .collect();
                let mut words = vec![0; row.len().div_ceil(64)];
                row_to_bits(&row, &mut words);
                let mut runs = Vec::new();
                extract_runs(&words, row.len(), &mut runs);
                let mut finals: Vec<u32> = (0..=runs.len() as u32).map(|k| k * 3).collect();
                finals.extend([u32::MAX; FINALS_PADDING]);
                let mut fast = vec![1u32; width];
                let mut scalar = vec![2u32; width];
                write_row::<false>(&words, &finals, &mut fast);
                write_row_scalar::<false>(&words, &finals, &mut scalar);
                assert_eq!(fast, scalar, "width {width}, density {density}");
            }
        }
    }
}
