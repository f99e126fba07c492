//! Stage 1 of the run-based labeler: a row of bytes becomes a row of bits,
//! 64 pixels per word (bit `i` of word `w` is pixel `64 w + i`), so that run
//! boundaries can be found a word at a time.
//!
//! On x86-64 the bytes are compared with zero 32 (AVX2, detected at run
//! time) or 16 (SSE2, always there) at a time; elsewhere, and for the tail of
//! a row, eight at a time in a `u64` (SWAR).

/// Fills `words` with the foreground mask of `row` (nonzero byte = 1).
///
/// `words` must hold `row.len().div_ceil(64)` words; the bits past the end of
/// the row in the last word are 0.
pub(crate) fn row_to_bits(row: &[u8], words: &mut [u64]) {
    debug_assert_eq!(words.len(), row.len().div_ceil(64));
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected on this CPU just above.
            unsafe { x86::row_to_bits_avx2(row, words) };
        } else {
            // SAFETY: SSE2 is part of every x86-64 CPU.
            unsafe { x86::row_to_bits_sse2(row, words) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    row_to_bits_portable(row, words);
}

/// The portable form: eight bytes per step as one `u64`.
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(super) fn row_to_bits_portable(row: &[u8], words: &mut [u64]) {
    let full = row.len() / 64;
    for (word, chunk) in words.iter_mut().zip(row.chunks_exact(64)) {
        *word = bits_of_64(chunk);
    }
    finish_tail(row, words, full);
}

/// The mask of 64 bytes, eight at a time.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn bits_of_64(chunk: &[u8]) -> u64 {
    chunk
        .chunks_exact(8)
        .enumerate()
        .fold(0, |word, (i, bytes)| {
            let bytes = u64::from_le_bytes(bytes.try_into().expect("chunks of 8"));
            word | (nonzero_bytes_mask(bytes) << (8 * i))
        })
}

/// Bit `i` set where byte `i` (little-endian) of `bytes` is nonzero.
fn nonzero_bytes_mask(bytes: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // The high bit of each byte: set by its own high bit, or by the carry
    // out of its low seven bits (nonzero low bits + 0x7f overflow into it);
    // no carry crosses a byte because each sum is at most 0xfe.
    let high = (((bytes & LOW7) + LOW7) | bytes) & !LOW7;
    // One bit per byte at positions 0, 8, …, 56; the multiplication adds
    // shifted copies so that byte i's bit lands in bit 56 + i, with no
    // carries (each product bit has at most one source).
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// Word `full` from the last `row.len() % 64` bytes, if any, and nothing
/// past it.
fn finish_tail(row: &[u8], words: &mut [u64], full: usize) {
    let tail = &row[full * 64..];
    if tail.is_empty() {
        return;
    }
    let mut word = 0;
    for (i, bytes) in tail.chunks(8).enumerate() {
        let mut padded = [0u8; 8];
        padded[..bytes.len()].copy_from_slice(bytes);
        word |= nonzero_bytes_mask(u64::from_le_bytes(padded)) << (8 * i);
    }
    words[full] = word;
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128,
        _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_setzero_si256,
    };

    use super::finish_tail;

    /// 32 bytes per compare.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn row_to_bits_avx2(row: &[u8], words: &mut [u64]) {
        let zero = _mm256_setzero_si256();
        let full = row.len() / 64;
        for (word, chunk) in words.iter_mut().zip(row.chunks_exact(64)) {
            // SAFETY: `chunk` holds 64 bytes; unaligned loads of 32 at 0 and 32.
            let (low, high) = unsafe {
                (
                    _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>()),
                    _mm256_loadu_si256(chunk.as_ptr().add(32).cast::<__m256i>()),
                )
            };
            // Bits set where a byte is zero, i.e. background.
            let zero_low = _mm256_movemask_epi8(_mm256_cmpeq_epi8(low, zero)) as u32 as u64;
            let zero_high = _mm256_movemask_epi8(_mm256_cmpeq_epi8(high, zero)) as u32 as u64;
            *word = !(zero_low | zero_high << 32);
        }
        finish_tail(row, words, full);
    }

    /// 16 bytes per compare.
    ///
    /// # Safety
    /// The CPU must support SSE2 (every x86-64 CPU does).
    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn row_to_bits_sse2(row: &[u8], words: &mut [u64]) {
        let zero = _mm_setzero_si128();
        let full = row.len() / 64;
        for (word, chunk) in words.iter_mut().zip(row.chunks_exact(64)) {
            let mut background = 0u64;
            for (i, part) in chunk.chunks_exact(16).enumerate() {
                // SAFETY: `part` holds 16 bytes; an unaligned load.
                let bytes = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
                let zeros = _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, zero)) as u32 as u64;
                background |= zeros << (16 * i);
            }
            *word = !background;
        }
        finish_tail(row, words, full);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit by bit: the definition.
    fn naive(row: &[u8]) -> Vec<u64> {
        let mut words = vec![0u64; row.len().div_ceil(64)];
        for (x, &pixel) in row.iter().enumerate() {
            if pixel != 0 {
                words[x / 64] |= 1 << (x % 64);
            }
        }
        words
    }

    /// Rows of every length up to three words and a bit, of bytes that
    /// include 0x80 and 0x01 (the edge cases of the SWAR test) and 0xff.
    fn rows() -> impl Iterator<Item = Vec<u8>> {
        let mut numbers = ccl_testdata::Xorshift32::new(0x9e37_79b9);
        (0..200).map(move |len| {
            (0..len)
                .map(|_| [0, 0, 0, 1, 0x80, 0xff, 0x7f, 2][numbers.below(8) as usize])
                .collect()
        })
    }

    fn check(convert: fn(&[u8], &mut [u64])) {
        for row in rows() {
            let mut words = vec![u64::MAX; row.len().div_ceil(64)];
            convert(&row, &mut words);
            assert_eq!(words, naive(&row), "row of {} bytes", row.len());
        }
    }

    #[test]
    fn portable_matches_the_definition() {
        check(row_to_bits_portable);
    }

    #[test]
    fn dispatched_matches_the_definition() {
        check(row_to_bits);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_matches_the_definition() {
        // SAFETY: SSE2 is part of every x86-64 CPU.
        check(|row, words| unsafe { x86::row_to_bits_sse2(row, words) });
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_matches_the_definition() {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected just above.
            check(|row, words| unsafe { x86::row_to_bits_avx2(row, words) });
        }
    }
}
