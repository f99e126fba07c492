//! Device buffers that are reused across calls on images of the same size.

use std::mem::ManuallyDrop;
use std::sync::Arc;

use ccl_core::{Error, Result};
use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DeviceRepr, PinnedHostSlice};

use super::device::cuda_error;

/// A device allocation that only grows: asking for a size it already covers
/// reuses it, so repeated runs on one image size allocate nothing.
pub struct DeviceBuffer<T> {
    slice: Option<CudaSlice<T>>,
}

impl<T> Default for DeviceBuffer<T> {
    fn default() -> Self {
        Self { slice: None }
    }
}

impl<T: DeviceRepr> DeviceBuffer<T> {
    /// An empty buffer (nothing allocated yet).
    pub fn new() -> Self {
        Self::default()
    }

    /// At least `len` elements of uninitialised device memory; reallocates
    /// (dropping the contents) only when the current allocation is smaller.
    pub fn reserve(&mut self, stream: &Arc<CudaStream>, len: usize) -> Result<&mut CudaSlice<T>> {
        let len = len.max(1);
        if self.slice.as_ref().is_none_or(|s| s.len() < len) {
            self.slice = None; // free before allocating the larger one
            // SAFETY: every kernel writes before it reads what it needs of
            // these buffers; the host reads back only what kernels wrote.
            let slice = unsafe { stream.alloc::<T>(len) }.map_err(cuda_error)?;
            self.slice = Some(slice);
        }
        Ok(self.slice.as_mut().expect("allocated above"))
    }

    /// The elements allocated: 0 before the first [`reserve`](Self::reserve).
    pub fn capacity(&self) -> usize {
        self.slice.as_ref().map_or(0, |slice| slice.len())
    }

    /// The allocation; an error if nothing was reserved yet.
    pub fn get(&self) -> Result<&CudaSlice<T>> {
        self.slice
            .as_ref()
            .ok_or_else(|| Error::Unavailable("device buffer used before it was allocated".into()))
    }
}

/// One `u32` of device memory on its way to the host: a copy into
/// page-locked memory queued on a stream with an event behind it, so that
/// the host waits for that copy alone, not for the whole stream, while the
/// work queued after it runs. (Where nothing is queued after it, a plain
/// read-back is as fast: a class map's run count read through one left
/// the GPU idle 17–32 µs around the copy against 15–22 µs, H200,
/// `bench/2026-11-29-h200-class-gaps`.)
pub struct HostWord {
    host: PinnedHostSlice<u32>,
    copied: CudaEvent,
    /// Whether a copy was queued since the last [`forget`](Self::forget).
    queued: bool,
}

impl HostWord {
    /// Page-locked memory for one word and an event, in `stream`'s context.
    pub fn new(stream: &CudaStream) -> Result<Self> {
        let context = stream.context();
        // SAFETY: the word is read only after a copy has written it (`wait`
        // answers `None` before one is queued).
        let host = unsafe { context.alloc_pinned_with_flags::<u32>(1, 0) }.map_err(cuda_error)?;
        let copied = context.new_event(None).map_err(cuda_error)?;
        Ok(Self {
            host,
            copied,
            queued: false,
        })
    }

    /// Queues the copy of `word`'s first element, in `stream`'s order.
    pub fn queue(&mut self, stream: &Arc<CudaStream>, word: &CudaSlice<u32>) -> Result<()> {
        stream
            .memcpy_dtoh(&word.slice(..1), &mut self.host)
            .map_err(cuda_error)?;
        self.copied.record(stream).map_err(cuda_error)?;
        self.queued = true;
        Ok(())
    }

    /// Drops the queued copy from what [`wait`](Self::wait) answers: the
    /// word it copied is about to be rewritten.
    pub fn forget(&mut self) {
        self.queued = false;
    }

    /// The word the last queued copy brought, once it has; `None` where no
    /// copy is queued.
    pub fn wait(&self) -> Result<Option<u32>> {
        if !self.queued {
            return Ok(None);
        }
        self.copied.synchronize().map_err(cuda_error)?;
        Ok(Some(self.host.as_slice().map_err(cuda_error)?[0]))
    }
}

/// Copies `bytes` bytes of device memory from the address `source` to the
/// address `target`, in `stream`'s order.
///
/// # Safety
/// Both must be device memory of `stream`'s context holding `bytes` bytes,
/// alive until the copy has run, and not overlap.
pub unsafe fn copy_device_bytes(
    stream: &CudaStream,
    target: u64,
    source: u64,
    bytes: usize,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    // SAFETY: the caller's contract; the copy is ordered in the stream.
    unsafe { cudarc::driver::result::memcpy_dtod_async(target, source, bytes, stream.cu_stream()) }
        .map_err(cuda_error)
}

/// Device memory that a caller owns, seen as a cudarc slice for the length
/// of a call; never freed here.
pub(crate) struct Borrowed<T>(pub(crate) ManuallyDrop<CudaSlice<T>>);

impl<T> Borrowed<T> {
    /// # Safety
    /// `address` must be device memory of `stream`'s context holding `len`
    /// elements of `T`, allocated for as long as the value lives.
    pub(crate) unsafe fn new(stream: &Arc<CudaStream>, address: u64, len: usize) -> Self {
        // SAFETY: the caller's contract; the slice is leaked, never freed.
        Self(ManuallyDrop::new(unsafe {
            stream.upgrade_device_ptr(address, len)
        }))
    }
}

impl<T> Drop for Borrowed<T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; leaking gives the memory back to its
        // owner without freeing it.
        unsafe { ManuallyDrop::take(&mut self.0) }.leak();
    }
}
