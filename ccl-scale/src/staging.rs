//! Pinned staging between a GPU and host memory that is not page-locked
//! (a numpy array, a file's planes, the features a strip gives): two halves
//! of a few MiB, so that the host's copy into or out of one half overlaps
//! the link's copy of the other, and a worker pins a few MiB once rather
//! than a strip's worth. Pinning is slow: on the two-H100 machine the first
//! reads of eight workers took 330 ms, most of it pinning their 64 MiB
//! strips of pixels, and the first analysis of a 1024³ volume on two GPUs
//! took 1.75 s where the next took 0.45–0.52 (bench/2026-11-28-strip-features).

use std::ops::Range;
use std::sync::Arc;

use ccl::Result;
use ccl_cuda::runtime::{Gpu, cuda_error};
use cudarc::driver::{
    CudaEvent, CudaStream, CudaView, CudaViewMut, DeviceRepr, PinnedHostSlice, sys,
};

/// Bytes a half holds (it grows where one unit of the copy, a plane, is
/// larger): 8 MiB moves in about 0.15 ms over the link, long enough to hide
/// the wait for an event, and two halves a worker stay small beside the
/// strips.
pub(crate) const HALF_BYTES: usize = 8 << 20;

/// Page-locked host memory that grows on demand; `write_combined` for
/// memory the host only writes (pixels going up: faster uploads), plain
/// for memory it reads back (write-combined reads are uncached).
pub(crate) struct Pinned {
    slice: Option<PinnedHostSlice<u8>>,
    write_combined: bool,
}

impl Pinned {
    pub(crate) fn new(write_combined: bool) -> Self {
        Self {
            slice: None,
            write_combined,
        }
    }

    /// The first `bytes` of the buffer, grown to hold them where it is
    /// smaller (the old contents are then lost).
    pub(crate) fn reserve(&mut self, gpu: &Gpu, bytes: usize) -> Result<&mut [u8]> {
        if self.slice.as_ref().is_none_or(|s| s.len() < bytes) {
            self.slice = None;
            let flags = if self.write_combined {
                sys::CU_MEMHOSTALLOC_WRITECOMBINED
            } else {
                0
            };
            // SAFETY: the bytes are written (by the source or a copy from
            // the device) before they are read.
            let slice = unsafe {
                gpu.context()
                    .alloc_pinned_with_flags::<u8>(bytes.max(1), flags)
            }
            .map_err(cuda_error)?;
            self.slice = Some(slice);
        }
        let slice = self.slice.as_mut().expect("allocated above");
        Ok(&mut slice.as_mut_slice().map_err(cuda_error)?[..bytes])
    }
}

/// Two pinned halves and, for each, the copy that last used it.
pub(crate) struct Staging {
    halves: [Pinned; 2],
    /// The event after the last copy queued on each half: it is waited for
    /// before the half is filled, read or grown.
    copies: [Option<CudaEvent>; 2],
}

impl Staging {
    /// Halves of write-combined memory where `write_combined` (for uploads).
    pub(crate) fn new(write_combined: bool) -> Self {
        Self {
            halves: [Pinned::new(write_combined), Pinned::new(write_combined)],
            copies: [None, None],
        }
    }

    /// Waits for the last copy that used half `half`.
    fn settle(&mut self, half: usize) -> Result<()> {
        if let Some(copy) = self.copies[half].take() {
            copy.synchronize().map_err(cuda_error)?;
        }
        Ok(())
    }

    /// Records the work queued on `stream` so far as half `half`'s copy.
    fn record(&mut self, half: usize, stream: &CudaStream) -> Result<()> {
        let flags = Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING);
        self.copies[half] = Some(stream.record_event(flags).map_err(cuda_error)?);
        Ok(())
    }

    /// Uploads into `device` the bytes that `read(offset, chunk)` fills,
    /// `chunk_bytes` at a time (the last chunk shorter), queued on `stream`:
    /// each chunk is read into a half once that half's upload before is
    /// done, and the call returns with the last uploads still running.
    pub(crate) fn upload(
        &mut self,
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        device: &mut CudaViewMut<'_, u8>,
        chunk_bytes: usize,
        mut read: impl FnMut(usize, &mut [u8]) -> Result<()>,
    ) -> Result<()> {
        for (k, chunk) in chunks(device.len(), chunk_bytes).enumerate() {
            let half = k % 2;
            self.settle(half)?;
            let staged = self.halves[half].reserve(gpu, chunk.len())?;
            read(chunk.start, staged)?;
            stream
                .memcpy_htod(&*staged, &mut device.slice_mut(chunk))
                .map_err(cuda_error)?;
            self.record(half, stream)?;
        }
        Ok(())
    }

    /// Downloads `device` (queued on `stream`, after the work there) and
    /// hands it to `take(offset, values)` `chunk_len` values at a time, in
    /// order: the next chunk comes down into one half while `take` reads the
    /// other. Returns once every chunk is taken.
    pub(crate) fn download<T: DeviceRepr>(
        &mut self,
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        device: &CudaView<'_, T>,
        chunk_len: usize,
        mut take: impl FnMut(usize, &[T]) -> Result<()>,
    ) -> Result<()> {
        let chunks: Vec<Range<usize>> = chunks(device.len(), chunk_len).collect();
        for (k, chunk) in chunks.iter().enumerate().take(2) {
            self.fetch(gpu, stream, device, k, chunk)?;
        }
        for (k, chunk) in chunks.iter().enumerate() {
            let half = k % 2;
            self.settle(half)?;
            let bytes = self.halves[half].reserve(gpu, chunk.len() * size_of::<T>())?;
            // SAFETY: pinned allocations are page-aligned, so aligned for
            // `T`; the half holds the chunk's values, just copied from the
            // device (plain old data: any bytes are valid values).
            let values =
                unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), chunk.len()) };
            take(chunk.start, values)?;
            if let Some(next) = chunks.get(k + 2) {
                self.fetch(gpu, stream, device, k + 2, next)?;
            }
        }
        Ok(())
    }

    /// Queues the copy of chunk `k` (`range` of `device`) into its half.
    fn fetch<T: DeviceRepr>(
        &mut self,
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        device: &CudaView<'_, T>,
        k: usize,
        range: &Range<usize>,
    ) -> Result<()> {
        let half = k % 2;
        self.settle(half)?;
        let bytes = self.halves[half].reserve(gpu, range.len() * size_of::<T>())?;
        // SAFETY: as in `download`: aligned, and `range.len()` values long.
        let host =
            unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), range.len()) };
        stream
            .memcpy_dtoh(&device.slice(range.clone()), host)
            .map_err(cuda_error)?;
        self.record(half, stream)
    }
}

impl Drop for Staging {
    /// Waits for the copies still using the halves before their memory is
    /// unpinned and freed: a call that failed between two chunks may leave
    /// an upload running.
    fn drop(&mut self) {
        for half in 0..2 {
            // Nothing is left to report a failed wait to.
            let _ = self.settle(half);
        }
    }
}

/// `0..len` in consecutive ranges of `chunk` (the last shorter).
fn chunks(len: usize, chunk: usize) -> impl Iterator<Item = Range<usize>> {
    let chunk = chunk.max(1);
    (0..len)
        .step_by(chunk)
        .map(move |start| start..(start + chunk).min(len))
}

/// The largest whole number of units of `unit` bytes (planes) in a half,
/// at least one: the chunk of a copy that must keep its units whole.
pub(crate) fn units_per_chunk(unit: usize) -> usize {
    (HALF_BYTES / unit.max(1)).max(1)
}
