//! Stage 5: the label image, row by row, from each row's bit mask and the
//! final labels of its runs. A word inside one run is filled at once; a word
//! of mixed pixels is written pixel by pixel with no branch per run: at
//! g = 1 runs are a pixel or two long, and a fill per run would mispredict
//! its length every time.

/// Writes one row of labels: `finals[k]` is the final label of the row's
/// `k`-th run (`finals[0]` is 0, for pixels before the first run), `words`
/// the row's mask as [`super::bits::row_to_bits`] makes it. `out` must be
/// zeroed: background words are skipped.
pub(super) fn write_row(words: &[u64], finals: &[u32], out: &mut [u32]) {
    // Runs started so far: the index in `finals` of the current run.
    let mut count = 0usize;
    let mut left = 0u64;
    for (&mask, pixels) in words.iter().zip(out.chunks_mut(64)) {
        let starts = mask & !((mask << 1) | left);
        left = mask >> 63;
        if mask == 0 {
            continue;
        }
        if mask == u64::MAX && starts == 0 {
            pixels.fill(finals[count]);
            continue;
        }
        for (i, pixel) in pixels.iter_mut().enumerate() {
            count += ((starts >> i) & 1) as usize;
            // Background reads finals[0] = 0: an index select, not a
            // branch on the pixel, which would mispredict on half the
            // pixels of a random image (LLVM turns a masked value back
            // into a branch around the load; a masked index it keeps).
            let foreground = ((mask >> i) & 1) as usize;
            *pixel = finals[count & foreground.wrapping_neg()];
        }
    }
}

/// `len` zeroed labels. On Linux the allocation is marked for transparent
/// huge pages, as numpy marks its large arrays: the first write to each
/// 2 MiB then costs one page fault instead of 512, and at these sizes page
/// faults, not the writes, would dominate a labeling.
pub(super) fn zeroed_labels(len: usize) -> Vec<u32> {
    // calloc of a large block maps fresh zero pages without touching them,
    // so the advice comes before any page is faulted in.
    let mut labels = vec![0u32; len];
    #[cfg(target_os = "linux")]
    advise_huge_pages(&mut labels);
    labels
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(labels: &mut [u32]) {
    const HUGE: usize = 2 << 20;
    const PAGE: usize = 4096;
    let bytes = std::mem::size_of_val(labels);
    if bytes < 2 * HUGE {
        return;
    }
    // madvise needs a page-aligned start: the pages wholly inside the slice.
    let start = labels.as_mut_ptr() as usize;
    let aligned = start.next_multiple_of(PAGE);
    let length = (start + bytes - aligned) / PAGE * PAGE;
    // SAFETY: the range lies inside `labels`' allocation, which this
    // function borrows mutably; MADV_HUGEPAGE changes how pages are backed,
    // never their contents. A failure (THP disabled) leaves small pages.
    unsafe {
        libc::madvise(aligned as *mut libc::c_void, length, libc::MADV_HUGEPAGE);
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
        let mut out = vec![0u32; row.len()];
        write_row(&words, &finals, &mut out);
        let mut expected = vec![0u32; row.len()];
        for (k, run) in runs.iter().enumerate() {
            expected[run.start as usize..run.end as usize].fill(finals[k + 1]);
        }
        assert_eq!(out, expected);
    }

    #[test]
    fn zeroed_labels_are_zero() {
        for len in [0, 5, 3 << 20] {
            let labels = zeroed_labels(len);
            assert_eq!(labels.len(), len);
            assert!(labels.iter().all(|&l| l == 0));
        }
    }
}
