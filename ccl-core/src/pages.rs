//! Large buffers that a call allocates and writes once: label images, a
//! merge's per-label tables, the features it returns. On Linux they are
//! marked for transparent huge pages, as numpy marks its large arrays: the
//! first write to each 2 MiB then costs one page fault instead of 512. On
//! the 2-core development machine, analysing a 4096² image at d = 30 %,
//! g = 1 spent a quarter of its time in the page faults of such buffers;
//! on the GPU machine's host, the features of tens of millions of
//! components came back at about 1 GB/s a thread into new small pages.

/// `len` zeroed values (`T::default()` of a primitive number is 0, which
/// `vec!` allocates with calloc). calloc of a large block maps fresh zero
/// pages without touching them, so the advice comes before any page is
/// faulted in, and pages a labeling never writes (background rows) stay
/// unmapped.
pub fn zeroed<T: Clone + Default>(len: usize) -> Vec<T> {
    let mut values = vec![T::default(); len];
    advise_huge_pages(values.as_mut_ptr(), values.len());
    values
}

/// `len` copies of `value`, in memory advised for huge pages before its
/// first write.
pub fn filled<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut items = with_capacity(len);
    items.resize(len, value);
    items
}

/// An empty vector with room for `len` items, advised for huge pages
/// before its first write.
pub fn with_capacity<T>(len: usize) -> Vec<T> {
    let mut items = Vec::with_capacity(len);
    advise_huge_pages(items.as_mut_ptr(), len);
    items
}

/// `buffer` made `len` long for a stage that writes every entry it reads:
/// kept entries hold stale values. A buffer kept between calls grows only
/// when an input needs more than any before it, so a labeler reused on
/// images of one size faults no page in after its first call.
pub fn reuse<T: Clone + Default>(buffer: &mut Vec<T>, len: usize) {
    if buffer.capacity() < len {
        *buffer = filled(len, T::default());
    } else {
        buffer.resize(len, T::default());
    }
}

/// Advises the whole pages inside the `len` items from `start` for huge
/// pages (nothing below 4 MiB, where a huge page would rarely fill).
fn advise_huge_pages<T>(start: *mut T, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        const PAGE: usize = 4096;
        let bytes = len * std::mem::size_of::<T>();
        if bytes < 2 * HUGE {
            return;
        }
        // madvise needs a page-aligned start: the pages wholly inside.
        let start = start as usize;
        let aligned = start.next_multiple_of(PAGE);
        let length = (start + bytes - aligned) / PAGE * PAGE;
        // SAFETY: the range lies inside an allocation of `len` items that
        // the caller owns; MADV_HUGEPAGE changes how pages are backed,
        // never their contents. A failure (THP disabled) leaves small pages.
        unsafe {
            libc::madvise(aligned as *mut libc::c_void, length, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_have_the_length_and_values_asked() {
        for len in [0, 5, 3 << 20] {
            let labels = zeroed::<u32>(len);
            assert_eq!(labels.len(), len);
            assert!(labels.iter().all(|&l| l == 0));
            let items = filled(len, 7u64);
            assert_eq!(items.len(), len);
            assert!(items.iter().all(|&i| i == 7));
        }
        let mut buffer = Vec::new();
        for len in [10, 3 << 20, 4, 3 << 20] {
            reuse::<u32>(&mut buffer, len);
            assert_eq!(buffer.len(), len);
        }
    }
}
