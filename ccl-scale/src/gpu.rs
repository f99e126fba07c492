//! A strip worker on a GPU: the strip's pixels go up from the source's
//! memory where it is pinned, else through the worker's pinned staging
//! (`staging.rs`, a few planes at a time), a CUDA variant labels them where
//! they land (on the worker's own stream), and only what the merge needs
//! comes back in the first pass (the count, the two border planes, the
//! features, through the staging); in the second pass the strip's labels
//! are renumbered on the device (`renumber.cu`) — those the worker kept
//! from the first pass where the GPU had room for them, else those of
//! labeling the strip again — and its final labels come back into the
//! sink's memory where it is pinned, else through the staging. Several
//! workers on one GPU, each on its own stream, overlap one's transfers
//! with another's labeling.

use std::collections::HashMap;
use std::sync::Arc;

use ccl::{Connectivity, Result};
use ccl_cuda::backend::{DynVariant, Slices, variant_on};
use ccl_cuda::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, Kernel, KernelSource, StageClock, cuda_error,
    linear_grid,
};
use cudarc::driver::{CudaSlice, CudaStream, CudaView, DeviceRepr, sys};
use rayon::prelude::*;

use crate::Shape;
use crate::merge::{LabelBuffers, LargeStats, Renumbering, StripScan};
use crate::staging::{Staging, units_per_chunk};
use crate::stream::{LabelWord, PlaneSink, PlaneSource};
use crate::trace::StripTrace;
use crate::worker::Strip;

const KERNELS: KernelSource = KernelSource {
    name: "ccl_renumber",
    source: include_str!("renumber.cu"),
    constants: &[],
};

inventory::submit! { KERNELS }

/// Threads per block of the renumbering kernels.
const THREADS: u32 = 256;
/// Blocks of the grid-stride renumbering pass: enough to fill any GPU.
const RENUMBER_BLOCKS: usize = 4096;

type TableArgs = (DevPtr<u32>, DevPtr<u64>, u32, u32, u64, DevPtr<u64>);
type RenumberArgs<L> = (DevPtr<u32>, u32, DevPtr<u64>, DevPtr<L>);

struct Kernels {
    table: Kernel<TableArgs>,
    renumber_u32: Kernel<RenumberArgs<u32>>,
    renumber_u64: Kernel<RenumberArgs<u64>>,
}

/// Labels strips on one GPU, on its own stream.
pub(crate) struct GpuWorker {
    gpu: Arc<Gpu>,
    stream: Arc<CudaStream>,
    variant: Box<dyn DynVariant>,
    kernels: Kernels,
    /// Where pixels that are not page-locked go up.
    upload_staging: Staging,
    /// Where what comes back goes when its destination is not page-locked:
    /// the strips' features in the first pass, their labels in the second.
    download_staging: Staging,
    pixels: DeviceBuffer<u8>,
    labels: DeviceBuffer<u32>,
    table: DeviceBuffer<u64>,
    continued: DeviceBuffer<u32>,
    numbers: DeviceBuffer<u64>,
    out: DeviceBuffer<u8>,
    /// The labels of strips scanned in the first pass and kept for the
    /// second, by first plane.
    kept: HashMap<usize, DeviceBuffer<u32>>,
    /// Buffers of kept labels whose strips are written (in this call or an
    /// earlier one), for the next strips kept: the labeler's calls after
    /// its first allocate and free no device memory. Freed at every call's
    /// end instead, a 1024³ volume's 4 GiB of kept labels were mapped and
    /// unmapped again each call: 143 → 129 ms on one H200, 106 → 83 ms
    /// on two (the device's pool holding freed memory, in a scratch test).
    spare_labels: Vec<DeviceBuffer<u32>>,
    /// The strips this worker kept in the call: as many spares as it
    /// holds once the call ends.
    kept_in_call: usize,
    /// The bytes of the strip last loaded onto the device.
    loaded: usize,
}

impl GpuWorker {
    /// A worker on GPU `ordinal` with a stream of its own, labeling with
    /// the CUDA variant `variant`.
    pub(crate) fn new(ordinal: usize, variant: &str) -> Result<Self> {
        let gpu = ccl_cuda::runtime::gpu(ordinal)?;
        let stream = gpu.new_stream()?;
        let variant = variant_on(variant, gpu.clone(), stream.clone())?;
        Ok(Self {
            kernels: Kernels {
                table: Kernel::load(&gpu, &KERNELS, "ccl_renumber_table")?,
                renumber_u32: Kernel::load(&gpu, &KERNELS, "ccl_renumber_u32")?,
                renumber_u64: Kernel::load(&gpu, &KERNELS, "ccl_renumber_u64")?,
            },
            gpu,
            stream,
            variant,
            upload_staging: Staging::new(true),
            download_staging: Staging::new(false),
            pixels: DeviceBuffer::new(),
            labels: DeviceBuffer::new(),
            table: DeviceBuffer::new(),
            continued: DeviceBuffer::new(),
            numbers: DeviceBuffer::new(),
            out: DeviceBuffer::new(),
            kept: HashMap::new(),
            spare_labels: Vec::new(),
            kept_in_call: 0,
            loaded: 0,
        })
    }

    /// The device memory of the worker's spare label buffers, in bytes:
    /// its own to reuse, though the GPU does not count it free.
    pub(crate) fn spare_bytes(&self) -> u64 {
        let labels: usize = self.spare_labels.iter().map(DeviceBuffer::capacity).sum();
        (labels * size_of::<u32>()) as u64
    }

    /// The GPU's free memory in bytes now.
    pub(crate) fn free_memory(&self) -> Result<u64> {
        self.gpu.context().bind_to_thread().map_err(cuda_error)?;
        let (free, _) = self.gpu.context().mem_get_info().map_err(cuda_error)?;
        Ok(free as u64)
    }

    /// Uploads the `bytes` of the planes (of `plane_len` bytes) from
    /// `first` on, queued on the worker's stream: straight from the
    /// source's memory where it is page-locked, else through the worker's
    /// pinned staging, a few planes at a time (a copy on the host's cores:
    /// on two H200s, 70 GB/s of them together against the links' 107).
    pub(crate) fn load(
        &mut self,
        source: &dyn PlaneSource,
        first: usize,
        bytes: usize,
        plane_len: usize,
    ) -> Result<()> {
        let device = self.pixels.reserve(&self.stream, bytes)?;
        let mut device = device.slice_mut(..bytes);
        match source
            .memory(first, bytes)
            .filter(|memory| is_page_locked(memory.as_ptr().cast()))
        {
            // The copy runs after the call returns: the source's memory
            // lives through the labeler's call.
            Some(memory) => self
                .stream
                .memcpy_htod(memory, &mut device)
                .map_err(cuda_error)?,
            None => self.upload_staging.upload(
                &self.gpu,
                &self.stream,
                &mut device,
                units_per_chunk(plane_len) * plane_len,
                |offset, staged| source.read_planes(first + offset / plane_len, staged),
            )?,
        }
        self.loaded = bytes;
        Ok(())
    }

    /// Labels the strip [`load`](Self::load)ed into `labels` (canonical,
    /// packed), queued on the worker's stream. With `image_stats`, an
    /// image's features are gathered in the same pass, left for
    /// [`stats`](Self::stats).
    fn label(
        &mut self,
        shape: Shape,
        strip: Strip,
        connectivity: Connectivity,
        image_stats: bool,
    ) -> Result<()> {
        let bytes = self.loaded;
        let (width, rows) = (shape.width(), strip.planes * shape.plane_rows());
        let image = DeviceImage::new(self.pixels.get()?.slice(..bytes), width, rows, width)?;
        let labels = self.labels.reserve(&self.stream, bytes)?;
        let mut labels = labels.slice_mut(..bytes);
        let mut clock = StageClock::disabled();
        match shape {
            Shape::Image { .. } if image_stats => self.variant.label_device_with_stats(
                &image,
                &mut labels,
                connectivity,
                None,
                &mut clock,
            )?,
            Shape::Image { .. } => {
                self.variant
                    .label_device(&image, &mut labels, connectivity, &mut clock)?
            }
            Shape::Volume { height, .. } => self.variant.label_device_volume(
                &image,
                Slices {
                    height,
                    depth: strip.planes,
                },
                &mut labels,
                connectivity,
                &mut clock,
            )?,
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn scan(
        &mut self,
        shape: Shape,
        strip: Strip,
        connectivity: Connectivity,
        with_stats: bool,
        keep: bool,
        planes: &LabelBuffers,
        trace: StripTrace<'_>,
    ) -> Result<StripScan> {
        // A strip has at most MAX_PIXELS pixels, so its count fits.
        let count = trace.step("label", || {
            self.label(shape, strip, connectivity, with_stats)?;
            Ok::<_, ccl::Error>(self.variant.component_count()? as u32)
        })?;
        let (plane, pixels) = (shape.plane_len(), self.loaded);
        let labels = self.labels.get()?;
        // Into buffers of planes compared before (`LabelBuffers`). A copy
        // into pageable memory returns once done; the wait after them says
        // so here rather than leaning on it, at no cost (nothing else is
        // queued on the stream by then).
        let (mut first_plane, mut last_plane) = (planes.take(plane), planes.take(plane));
        self.stream
            .memcpy_dtoh(&labels.slice(..plane), &mut first_plane[..])
            .map_err(cuda_error)?;
        self.stream
            .memcpy_dtoh(&labels.slice(pixels - plane..pixels), &mut last_plane[..])
            .map_err(cuda_error)?;
        self.stream.synchronize().map_err(cuda_error)?;
        let stats = if with_stats && count > 0 {
            self.stats(shape, strip, connectivity, trace)?
        } else {
            Vec::new()
        };
        if keep {
            // The next labeling takes a buffer of its own: a spare one,
            // once an earlier strip has left one.
            let next = self.spare_labels.pop().unwrap_or_default();
            let labels = std::mem::replace(&mut self.labels, next);
            self.kept.insert(strip.first, labels);
            self.kept_in_call += 1;
        }
        Ok(StripScan {
            count,
            first_plane,
            last_plane,
            stats,
        })
    }

    /// Ends a call: the labels still kept (a call that failed) become
    /// spares, and the spares are cut to the strips kept in the call, which
    /// the next call on the same input keeps again; any others are freed
    /// (in the stream's order, after the work queued on them).
    pub(crate) fn release_kept(&mut self) {
        self.spare_labels
            .extend(self.kept.drain().map(|(_, labels)| labels));
        self.spare_labels.truncate(self.kept_in_call);
        self.kept_in_call = 0;
    }

    /// The features of the strip's components, in the whole image's
    /// coordinates: an image's from its labeling, a volume's from the
    /// variant's analysis of the strip still on the device.
    fn stats(
        &mut self,
        shape: Shape,
        strip: Strip,
        connectivity: Connectivity,
        trace: StripTrace<'_>,
    ) -> Result<Vec<LargeStats>> {
        let first = strip.first as u32;
        match shape {
            Shape::Image { .. } => {
                let Some(stats) = self.variant.device_stats()? else {
                    return Ok(Vec::new());
                };
                trace.step("stats-download", || {
                    converted(
                        &mut self.download_staging,
                        &self.gpu,
                        &self.stream,
                        &stats,
                        |s| LargeStats::of_image(&(*s).into(), first),
                    )
                })
            }
            Shape::Volume { height, .. } => {
                let bytes = self.loaded;
                let rows = strip.planes * height;
                let (width, slices) = (
                    shape.width(),
                    Slices {
                        height,
                        depth: strip.planes,
                    },
                );
                let image =
                    DeviceImage::new(self.pixels.get()?.slice(..bytes), width, rows, width)?;
                trace.step("stats-gpu", || {
                    let mut clock = StageClock::disabled();
                    self.variant
                        .analyze_device_volume(&image, slices, connectivity, &mut clock)
                })?;
                let Some(stats) = self.variant.device_volume_stats()? else {
                    return Ok(Vec::new());
                };
                trace.step("stats-download", || {
                    converted(
                        &mut self.download_staging,
                        &self.gpu,
                        &self.stream,
                        &stats,
                        |s| LargeStats::of_volume(&(*s).into(), first),
                    )
                })
            }
        }
    }

    /// Renumbers the strip's `count` components on the device (its kept
    /// labels, or else it is labeled again from its input) and brings the
    /// labels to `sink`. Nothing waits for the GPU until the labels are
    /// down: the count is the scan's.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write<L: LabelWord>(
        &mut self,
        shape: Shape,
        strip: Strip,
        connectivity: Connectivity,
        count: u32,
        renumbering: &Renumbering,
        sink: &dyn PlaneSink<L>,
        trace: StripTrace<'_>,
    ) -> Result<()> {
        let pixels = strip.planes * shape.plane_len();
        let pinned_destination = sink
            .destination(strip.first, pixels)
            .filter(|&d| is_page_locked(d.cast()));
        trace.step("label", || {
            self.renumbered::<L>(shape, strip, connectivity, count, renumbering)?;
            if trace.recording() {
                self.stream.synchronize().map_err(cuda_error)?;
            }
            Ok::<_, ccl::Error>(())
        })?;
        let out_bytes = pixels * size_of::<L>();
        let stream = self.stream.clone();
        let device = self.out.get()?.slice(..out_bytes);
        if let Some(destination) = pinned_destination {
            // SAFETY: `destination` takes `pixels` labels that no one else
            // writes during the call (`PlaneSink::destination`'s contract);
            // any bytes are valid labels.
            let destination =
                unsafe { std::slice::from_raw_parts_mut(destination.cast::<u8>(), out_bytes) };
            return trace.step("download", || {
                stream
                    .memcpy_dtoh(&device, destination)
                    .map_err(cuda_error)?;
                stream.synchronize().map_err(cuda_error)
            });
        }
        // Whole planes a chunk, in bytes: the sink takes planes.
        let plane_bytes = shape.plane_len() * size_of::<L>();
        let chunk_bytes = units_per_chunk(plane_bytes) * plane_bytes;
        let staging = &mut self.download_staging;
        trace.step("download", || {
            staging.download(&self.gpu, &stream, &device, chunk_bytes, |offset, bytes| {
                // SAFETY: pinned allocations are page-aligned, so aligned
                // for `L`, and a chunk is whole planes of labels of `L` just
                // copied from the device (every bit pattern is a valid u32
                // or u64).
                let labels = unsafe {
                    std::slice::from_raw_parts(
                        bytes.as_ptr().cast::<L>(),
                        bytes.len() / size_of::<L>(),
                    )
                };
                sink.write_planes(strip.first + offset / plane_bytes, labels)
            })
        })
    }

    /// Renumbers the strip's labels (kept, or labeled now) into `out` as
    /// `L`, queued on the worker's stream.
    fn renumbered<L: LabelWord>(
        &mut self,
        shape: Shape,
        strip: Strip,
        connectivity: Connectivity,
        count: u32,
        renumbering: &Renumbering,
    ) -> Result<()> {
        let kept = self.kept.remove(&strip.first);
        if kept.is_none() {
            self.label(shape, strip, connectivity, false)?;
        }
        let pixels = strip.planes * shape.plane_len();
        let stream = self.stream.clone();
        let continued = upload(&stream, &mut self.continued, &renumbering.continued)?;
        let numbers = upload(&stream, &mut self.numbers, &renumbering.numbers)?;
        let table = self.table.reserve(&stream, count as usize)?;
        let table = DevPtr::of_mut(table, &stream);
        let labels = DevPtr::of(kept.as_ref().unwrap_or(&self.labels).get()?, &stream);
        let out_bytes = pixels * size_of::<L>();
        let out = self.out.reserve(&stream, out_bytes)?;
        let out_address = DevPtr::of_mut(out, &stream).address();
        // SAFETY: `continued` and `numbers` hold the renumbering's entries,
        // `table` `count`, `labels` the strip's `pixels` labels (each at
        // most `count`), `out` `pixels` labels of `L`; all on this stream.
        unsafe {
            // A strip without components has no table (and a grid of no
            // blocks is an invalid launch); its labels are all 0.
            if count > 0 {
                self.kernels.table.launch(
                    &stream,
                    linear_grid(count as usize, THREADS)?,
                    (
                        continued,
                        numbers,
                        renumbering.continued.len() as u32,
                        count,
                        renumbering.first_new,
                        table,
                    ),
                )?;
            }
            let grid = linear_grid(pixels.min(RENUMBER_BLOCKS * THREADS as usize), THREADS)?;
            let args = (labels, pixels as u32, table);
            if size_of::<L>() == 8 {
                renumber(&self.kernels.renumber_u64, &stream, grid, args, out_address)?;
            } else {
                renumber(&self.kernels.renumber_u32, &stream, grid, args, out_address)?;
            }
        }
        // The next strip kept may take the buffer: its labeling is queued
        // on this stream, after the renumbering that reads it.
        self.spare_labels.extend(kept);
        Ok(())
    }
}

/// Launches the renumbering kernel of one label width: `(labels, pixels,
/// table)` into the labels of `W` at `out_address`.
///
/// # Safety
///
/// As [`Kernel::launch`]: the pointers hold what the kernel reads and
/// writes, on `stream`.
unsafe fn renumber<W: cudarc::driver::DeviceRepr>(
    kernel: &Kernel<RenumberArgs<W>>,
    stream: &Arc<CudaStream>,
    grid: cudarc::driver::LaunchConfig,
    (labels, pixels, table): (DevPtr<u32>, u32, DevPtr<u64>),
    out_address: u64,
) -> Result<()> {
    // SAFETY: the caller's contract.
    unsafe {
        kernel.launch(
            stream,
            grid,
            (labels, pixels, table, DevPtr::from_address(out_address)),
        )
    }
}

/// Whether host memory at `address` is page-locked (allocated pinned, or
/// registered), so that the GPU copies into it directly. The plural call
/// answers pageable memory, unknown to the driver, with a memory type of 0
/// where the singular one returns an error (which compute-sanitizer
/// reports).
fn is_page_locked(address: *const std::ffi::c_void) -> bool {
    let mut memory_type = 0u32;
    let mut attribute = sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
    let mut data = (&mut memory_type as *mut u32).cast::<std::ffi::c_void>();
    // SAFETY: one attribute, whose value (an unsigned int) the driver writes
    // through `data`; any address may be asked about.
    let status = unsafe {
        sys::cuPointerGetAttributes(1, &mut attribute, &mut data, address as sys::CUdeviceptr)
    };
    status == sys::CUresult::CUDA_SUCCESS
        && memory_type == sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32
}

/// `values` in `buffer` on the device; a pointer to them (to one unused
/// element where there are none).
fn upload<T: cudarc::driver::DeviceRepr>(
    stream: &Arc<CudaStream>,
    buffer: &mut DeviceBuffer<T>,
    values: &[T],
) -> Result<DevPtr<T>> {
    let device: &mut CudaSlice<T> = buffer.reserve(stream, values.len())?;
    if !values.is_empty() {
        stream
            .memcpy_htod(values, &mut device.slice_mut(..values.len()))
            .map_err(cuda_error)?;
    }
    Ok(DevPtr::of_mut(device, stream))
}
/// The features `stats` on the device brought down through `staging` and
/// converted, a chunk at a time, on every thread of the host's pool, into
/// memory advised for huge pages. A copy into new pageable memory ran at
/// the speed the host faults its pages in (about 1 GB/s, one worker's copy
/// at a time): the features of millions of components took longer than
/// labeling their strip.
fn converted<T: DeviceRepr + Sync>(
    staging: &mut Staging,
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    stats: &CudaView<'_, T>,
    convert: impl Fn(&T) -> LargeStats + Sync + Send,
) -> Result<Vec<LargeStats>> {
    let count = stats.len();
    let mut out: Vec<LargeStats> = ccl_core::pages::with_capacity(count);
    let slots = &mut out.spare_capacity_mut()[..count];
    // Every page of the result is faulted in first, on every thread: a
    // chunk's records lie on a few huge pages, which one thread at a time
    // faults in. On two H100s, analyzing 1024³ (d = 31 %, 6-connectivity)
    // took 715–839 ms a call without this and 526–536 with it.
    let per_page = (4096 / size_of::<LargeStats>()).max(1);
    slots.par_chunks_mut(1 << 15).for_each(|part| {
        for slot in part.iter_mut().step_by(per_page) {
            slot.write(LargeStats::default());
        }
    });
    let chunk = units_per_chunk(size_of::<T>());
    staging.download(gpu, stream, stats, chunk, |offset, values| {
        slots[offset..offset + values.len()]
            .par_iter_mut()
            .zip(values.par_iter())
            .for_each(|(slot, value)| {
                slot.write(convert(value));
            });
        Ok(())
    })?;
    // SAFETY: the download handed over every value of `0..count`, in
    // chunks, and each chunk's slots were written above.
    unsafe { out.set_len(count) };
    Ok(out)
}
