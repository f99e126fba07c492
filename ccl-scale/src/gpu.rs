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

use ccl::{Error, Result};
use ccl_cuda::backend::{DeviceStats, DeviceVolumeStats, DynVariant, Slices, variant_on};
use ccl_cuda::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, Kernel, KernelSource, StageClock, cuda_error,
    linear_grid,
};
use cudarc::driver::{CudaSlice, CudaStream, CudaView, DeviceRepr, sys};
use rayon::prelude::*;

use crate::Shape;
use crate::columns::Rows;
use crate::merge::{LabelBuffers, LargeStats, Renumbering, StripFeatures, StripScan};
use crate::staging::{Staging, units_per_chunk};
use crate::stream::{LabelWord, PlaneSink, PlaneSource};
use crate::trace::StripTrace;
use crate::worker::{Features, Strip, StripJob};

const KERNELS: KernelSource = KernelSource {
    name: "ccl_renumber",
    source: include_str!("renumber.cu"),
    constants: &[],
};

inventory::submit! { KERNELS }

const COLUMN_KERNELS: KernelSource = KernelSource {
    name: "ccl_strip_columns",
    source: include_str!("columns.cu"),
    constants: &[],
};

inventory::submit! { COLUMN_KERNELS }

/// Threads per block of the renumbering kernels.
const THREADS: u32 = 256;
/// Blocks of the grid-stride renumbering pass: enough to fill any GPU.
const RENUMBER_BLOCKS: usize = 4096;
/// Labels of a strip whose columns are written and brought down at once:
/// the worker's column buffer holds at most this many rows (80 bytes each
/// at most: 160 MiB), whatever the strip's components.
const LABELS_PER_COLUMN_CHUNK: u32 = 1 << 21;

type TableArgs = (DevPtr<u32>, DevPtr<u64>, u32, u32, u64, DevPtr<u64>);
type RenumberArgs<L> = (DevPtr<u32>, u32, DevPtr<u64>, DevPtr<L>);

type ColumnsArgs<R> = (DevPtr<R>, DevPtr<u32>, ColumnsChunk, ColumnsOut, DevPtr<R>);

struct Kernels {
    table: Kernel<TableArgs>,
    renumber_u32: Kernel<RenumberArgs<u32>>,
    renumber_u64: Kernel<RenumberArgs<u64>>,
    columns_image: Kernel<ColumnsArgs<DeviceStats>>,
    columns_volume: Kernel<ColumnsArgs<DeviceVolumeStats>>,
}

/// One chunk of a strip's labels for `columns.cu` (`CclColumnsChunk`):
/// indices `first..first + count`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct ColumnsChunk {
    first: u32,
    count: u32,
    /// The new labels of the strip before the chunk: its first row.
    row_base: u32,
    continued_count: u32,
    /// The planes before the strip.
    offset: u32,
    axes: u32,
}

// SAFETY: plain old data with C layout (`CclColumnsChunk`).
unsafe impl DeviceRepr for ColumnsChunk {}

/// Where `columns.cu` writes a chunk's rows (`CclColumnsOut`).
#[repr(C)]
#[derive(Clone, Copy)]
struct ColumnsOut {
    areas: DevPtr<u64>,
    mins: DevPtr<u32>,
    maxs: DevPtr<u32>,
    sums: DevPtr<u64>,
    centroids: DevPtr<f64>,
}

// SAFETY: five device pointers, as `CclColumnsOut` holds them.
unsafe impl DeviceRepr for ColumnsOut {}

/// A variant's per-component record on the device, which a worker keeps
/// for the columns: an image's or a volume's.
trait KeptRecord: DeviceRepr + Copy + Default + Unpin {
    /// The kernel that writes columns from records of this kind.
    fn columns_kernel(kernels: &Kernels) -> &Kernel<ColumnsArgs<Self>>;
    /// The record in the whole input's coordinates, its strip `planes`
    /// planes down.
    fn large(&self, planes: u32) -> LargeStats;
}

impl KeptRecord for DeviceStats {
    fn columns_kernel(kernels: &Kernels) -> &Kernel<ColumnsArgs<Self>> {
        &kernels.columns_image
    }

    fn large(&self, planes: u32) -> LargeStats {
        LargeStats::of_image(&(*self).into(), planes)
    }
}

impl KeptRecord for DeviceVolumeStats {
    fn columns_kernel(kernels: &Kernels) -> &Kernel<ColumnsArgs<Self>> {
        &kernels.columns_volume
    }

    fn large(&self, planes: u32) -> LargeStats {
        LargeStats::of_volume(&(*self).into(), planes)
    }
}

/// The 8-byte words of `count` records of `R` (both kinds are whole words).
fn record_words<R>(count: usize) -> usize {
    const {
        assert!(
            size_of::<DeviceStats>().is_multiple_of(8)
                && size_of::<DeviceVolumeStats>().is_multiple_of(8)
        );
    }
    count * size_of::<R>() / 8
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
    /// The features of strips scanned in the first pass of an analysis and
    /// kept for the columns, as 8-byte words of their records, by first
    /// plane: they come down once, as rows of the columns, after the merge
    /// (brought through the host in the first pass and converted there,
    /// they made a 32768² image's first pass four times its labeling,
    /// bench/2026-11-28-h200x2-spare-labels).
    kept_features: HashMap<usize, DeviceBuffer<u64>>,
    /// Buffers of kept features written out, for the next strips' (as
    /// `spare_labels`).
    spare_features: Vec<DeviceBuffer<u64>>,
    /// The strips whose features this worker kept in the call.
    features_kept_in_call: usize,
    /// A chunk of a strip's rows of the columns, written on the device.
    columns: DeviceBuffer<u64>,
    /// The records of a strip's continued labels, gathered for the host.
    gathered: DeviceBuffer<u64>,
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
                columns_image: Kernel::load(&gpu, &COLUMN_KERNELS, "ccl_strip_columns_image")?,
                columns_volume: Kernel::load(&gpu, &COLUMN_KERNELS, "ccl_strip_columns_volume")?,
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
            kept_features: HashMap::new(),
            spare_features: Vec::new(),
            features_kept_in_call: 0,
            columns: DeviceBuffer::new(),
            gathered: DeviceBuffer::new(),
            loaded: 0,
        })
    }

    /// The device memory of the worker's spare label buffers, in bytes:
    /// its own to reuse, though the GPU does not count it free.
    pub(crate) fn spare_bytes(&self) -> u64 {
        let labels: usize = self.spare_labels.iter().map(DeviceBuffer::capacity).sum();
        let features: usize = self.spare_features.iter().map(DeviceBuffer::capacity).sum();
        (labels * size_of::<u32>() + features * size_of::<u64>()) as u64
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
    /// [`features`](Self::features).
    fn label(&mut self, job: StripJob, image_stats: bool) -> Result<()> {
        let StripJob {
            shape,
            strip,
            connectivity,
        } = job;
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

    pub(crate) fn scan(
        &mut self,
        job: StripJob,
        features: Features<'_>,
        keep: bool,
        planes: &LabelBuffers,
        trace: StripTrace<'_>,
    ) -> Result<StripScan> {
        let StripJob { shape, strip, .. } = job;
        // A strip has at most MAX_PIXELS pixels, so its count fits.
        let count = trace.step("label", || {
            self.label(job, features.wanted())?;
            let count = self.variant.component_count()? as u32;
            // The count comes while the last passes still run; the step
            // ends with them, as the copies below would wait for them.
            self.stream.synchronize().map_err(cuda_error)?;
            Ok::<_, ccl::Error>(count)
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
        let features = match features {
            Features::None => StripFeatures::None,
            _ if count == 0 => StripFeatures::Host(Vec::new()),
            wanted => self.features(job, count, wanted, trace)?,
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
            features,
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
        self.spare_features
            .extend(self.kept_features.drain().map(|(_, records)| records));
        self.spare_features.truncate(self.features_kept_in_call);
        self.features_kept_in_call = 0;
    }

    /// The features of the strip's components: an image's from its
    /// labeling, a volume's from the variant's analysis of the strip still
    /// on the device; kept there where `wanted` grants the room, else
    /// brought to host memory in the whole input's coordinates.
    fn features(
        &mut self,
        StripJob {
            shape,
            strip,
            connectivity,
        }: StripJob,
        count: u32,
        wanted: Features<'_>,
        trace: StripTrace<'_>,
    ) -> Result<StripFeatures> {
        let first = strip.first as u32;
        if let Shape::Volume { height, .. } = shape {
            let bytes = self.loaded;
            let rows = strip.planes * height;
            let (width, slices) = (
                shape.width(),
                Slices {
                    height,
                    depth: strip.planes,
                },
            );
            let image = DeviceImage::new(self.pixels.get()?.slice(..bytes), width, rows, width)?;
            trace.step("stats-gpu", || {
                let mut clock = StageClock::disabled();
                self.variant
                    .analyze_device_volume(&image, slices, connectivity, &mut clock)
            })?;
        }
        let sink = RecordSink {
            gpu: &self.gpu,
            stream: &self.stream,
            staging: &mut self.download_staging,
            spares: &mut self.spare_features,
            count: count as usize,
        };
        let outcome = match shape {
            Shape::Image { .. } => match self.variant.device_stats()? {
                Some(records) => Some(sink.keep_or_bring(&records, first, wanted, trace)?),
                None => None,
            },
            Shape::Volume { .. } => match self.variant.device_volume_stats()? {
                Some(records) => Some(sink.keep_or_bring(&records, first, wanted, trace)?),
                None => None,
            },
        };
        Ok(match outcome {
            Some(Ok(records)) => {
                self.kept_features.insert(strip.first, records);
                self.features_kept_in_call += 1;
                StripFeatures::Kept
            }
            Some(Err(brought)) => StripFeatures::Host(brought),
            // A variant without features: the merge reports it.
            None => StripFeatures::Host(Vec::new()),
        })
    }

    /// Writes the strip's new components into `share` (its rows of the
    /// columns, over `axes` axes, areas made `A` by `area`) from the
    /// features its scan kept on this worker's GPU, renumbered as
    /// `renumbering` says; returns the features of its continued labels,
    /// in their order, for the host to add to the components they continue.
    ///
    /// The rows are written on the device in the columns' layout, a chunk
    /// of labels at a time, and come down through the staging straight
    /// into the share, copied on the host's pool.
    pub(crate) fn write_columns<A: Copy + Send + Sync>(
        &mut self,
        StripJob { shape, strip, .. }: StripJob,
        count: u32,
        renumbering: &Renumbering,
        share: Rows<'_, A>,
        axes: usize,
        area: fn(u64) -> A,
    ) -> Result<Vec<LargeStats>> {
        let records = self.kept_features.remove(&strip.first).ok_or_else(|| {
            Error::Unavailable(format!(
                "the features of the strip from plane {} are not on this worker's GPU",
                strip.first
            ))
        })?;
        let written = match shape {
            Shape::Image { .. } => self.columns_of::<DeviceStats, A>(
                &records,
                strip,
                count,
                renumbering,
                share,
                (axes, area),
            ),
            Shape::Volume { .. } => self.columns_of::<DeviceVolumeStats, A>(
                &records,
                strip,
                count,
                renumbering,
                share,
                (axes, area),
            ),
        };
        // The next strip kept may take the buffer: its copy is queued on
        // this stream, after the kernels that read it.
        self.spare_features.push(records);
        written
    }

    /// [`write_columns`](Self::write_columns) of records of `R`.
    fn columns_of<R: KeptRecord, A: Copy + Send + Sync>(
        &mut self,
        records: &DeviceBuffer<u64>,
        strip: Strip,
        count: u32,
        renumbering: &Renumbering,
        share: Rows<'_, A>,
        (axes, area): (usize, fn(u64) -> A),
    ) -> Result<Vec<LargeStats>> {
        let stream = self.stream.clone();
        let continued = &renumbering.continued;
        let below = |label: u32| continued.partition_point(|&l| l < label);
        let continued_on_device = upload(&stream, &mut self.continued, continued)?;
        let gathered = self
            .gathered
            .reserve(&stream, record_words::<R>(continued.len()))?;
        let gathered_address = DevPtr::of_mut(gathered, &stream).address();
        let records_address = DevPtr::of(records.get()?, &stream).address();
        let Rows {
            areas,
            mins,
            maxs,
            sums,
            centroids,
        } = share;
        for first in (0..count).step_by(LABELS_PER_COLUMN_CHUNK as usize) {
            // Labels first + 1..=end; their new ones take rows row_base.. of
            // the share.
            let end = first.saturating_add(LABELS_PER_COLUMN_CHUNK).min(count);
            let row_base = first as usize - below(first + 1);
            let rows = (end - first) as usize - (below(end + 1) - below(first + 1));
            if row_base + rows > areas.len() {
                return Err(Error::Unavailable(format!(
                    "the strip from plane {} has more new components than its share of the columns",
                    strip.first
                )));
            }
            // Sums (3 words a row), areas (1), centroids (axes), then the
            // minima and maxima (3 + 3 u32: 3 words).
            let words = rows * (7 + axes);
            let buffer = self.columns.reserve(&stream, words)?;
            let base = DevPtr::of_mut(buffer, &stream).address();
            let word = |w: usize| base + (w * size_of::<u64>()) as u64;
            let out = ColumnsOut {
                sums: DevPtr::from_address(word(0)),
                areas: DevPtr::from_address(word(3 * rows)),
                centroids: DevPtr::from_address(word(4 * rows)),
                mins: DevPtr::from_address(word((4 + axes) * rows)),
                maxs: DevPtr::from_address(word((4 + axes) * rows) + (3 * rows * 4) as u64),
            };
            let chunk = ColumnsChunk {
                first,
                count: end - first,
                row_base: row_base as u32,
                continued_count: continued.len() as u32,
                offset: strip.first as u32,
                axes: axes as u32,
            };
            // SAFETY: `records` holds the strip's `count` records of `R`,
            // `continued` its continued labels (ascending), `gathered` room
            // for one record each, the column buffer `words` words laid out
            // as `out` says for `rows` rows, of which the kernel writes row
            // (index − continued below − row_base) < rows of each new label
            // of the chunk; all on this stream.
            unsafe {
                R::columns_kernel(&self.kernels).launch(
                    &stream,
                    linear_grid((end - first) as usize, THREADS)?,
                    (
                        DevPtr::from_address(records_address),
                        continued_on_device,
                        chunk,
                        out,
                        DevPtr::from_address(gathered_address),
                    ),
                )?;
            }
            let device = self.columns.get()?.slice(..words);
            // The words of `per_row` words a row from word `at × rows` on.
            let rows_of = |per_row: usize, at: usize| at * rows..(at + per_row) * rows;
            let staging = &mut self.download_staging;
            let gpu = &self.gpu;
            let range = |per_row: usize| per_row * row_base..per_row * (row_base + rows);
            download_into(
                staging,
                gpu,
                &stream,
                &device.slice(rows_of(3, 0)),
                &mut sums[range(3)],
                |s| s,
            )?;
            download_into(
                staging,
                gpu,
                &stream,
                &device.slice(rows_of(1, 3)),
                &mut areas[range(1)],
                area,
            )?;
            download_into(
                staging,
                gpu,
                &stream,
                &device.slice(rows_of(axes, 4)),
                &mut centroids[range(axes)],
                f64::from_bits,
            )?;
            let bounds = device.slice(rows_of(3, 4 + axes));
            // SAFETY: the 3 × rows words hold 6 × rows u32 (the minima,
            // then the maxima); any bits are a valid u32.
            let bounds =
                unsafe { bounds.transmute::<u32>(6 * rows) }.expect("6 u32 fit 3 words a row");
            download_into(
                staging,
                gpu,
                &stream,
                &bounds.slice(..3 * rows),
                &mut mins[range(3)],
                |m| m,
            )?;
            download_into(
                staging,
                gpu,
                &stream,
                &bounds.slice(3 * rows..),
                &mut maxs[range(3)],
                |m| m,
            )?;
        }
        let mut gathered = vec![R::default(); continued.len()];
        if !gathered.is_empty() {
            let device = self.gathered.get()?;
            // SAFETY: the buffer holds one record of `R` (whole words) per
            // continued label, each written by the kernel.
            let device = unsafe { device.transmute::<R>(continued.len()) }
                .expect("the buffer holds a record per continued label");
            stream
                .memcpy_dtoh(&device, &mut gathered[..])
                .map_err(cuda_error)?;
            stream.synchronize().map_err(cuda_error)?;
        }
        let first_plane = strip.first as u32;
        Ok(gathered
            .iter()
            .map(|record| record.large(first_plane))
            .collect())
    }

    /// Renumbers the strip's `count` components on the device (its kept
    /// labels, or else it is labeled again from its input) and brings the
    /// labels to `sink`. Nothing waits for the GPU until the labels are
    /// down: the count is the scan's.
    pub(crate) fn write<L: LabelWord>(
        &mut self,
        job: StripJob,
        count: u32,
        renumbering: &Renumbering,
        sink: &dyn PlaneSink<L>,
        trace: StripTrace<'_>,
    ) -> Result<()> {
        let StripJob { shape, strip, .. } = job;
        let pixels = strip.planes * shape.plane_len();
        let pinned_destination = sink
            .destination(strip.first, pixels)
            .filter(|&d| is_page_locked(d.cast()));
        trace.step("label", || {
            self.renumbered::<L>(job, count, renumbering)?;
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
        job: StripJob,
        count: u32,
        renumbering: &Renumbering,
    ) -> Result<()> {
        let StripJob { shape, strip, .. } = job;
        let kept = self.kept.remove(&strip.first);
        if kept.is_none() {
            self.label(job, false)?;
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
/// The parts of a worker that keep or bring down a strip's records,
/// borrowed apart from its variant, which holds the records.
struct RecordSink<'a> {
    gpu: &'a Gpu,
    stream: &'a Arc<CudaStream>,
    staging: &'a mut Staging,
    spares: &'a mut Vec<DeviceBuffer<u64>>,
    /// The strip's components: only a record for each is kept (the
    /// columns' kernel reads that many); any other number comes to the
    /// host, where the merge reports it.
    count: usize,
}

impl RecordSink<'_> {
    /// `records` (in the variant's buffer, which its next labeling
    /// overwrites) copied on the device into a buffer to keep (a spare one
    /// where there is one) where `wanted` grants their bytes; else brought
    /// down and converted, their strip `first` planes down.
    fn keep_or_bring<R: KeptRecord + Sync>(
        self,
        records: &CudaView<'_, R>,
        first: u32,
        wanted: Features<'_>,
        trace: StripTrace<'_>,
    ) -> Result<std::result::Result<DeviceBuffer<u64>, Vec<LargeStats>>> {
        let bytes = (records.len() * size_of::<R>()) as u64;
        if let Features::KeptWhereRoom(room) = wanted
            && records.len() == self.count
            && room(bytes)
        {
            let mut kept = self.spares.pop().unwrap_or_default();
            trace.step("stats-keep", || {
                let buffer = kept.reserve(self.stream, record_words::<R>(records.len()))?;
                // SAFETY: the buffer holds at least the records' words;
                // its bytes become records of `R`, plain old data.
                let mut destination = unsafe { buffer.transmute_mut::<R>(records.len()) }
                    .expect("reserved for the records");
                self.stream
                    .memcpy_dtod(records, &mut destination)
                    .map_err(cuda_error)
            })?;
            return Ok(Ok(kept));
        }
        trace
            .step("stats-download", || {
                converted(self.staging, self.gpu, self.stream, records, |s| {
                    s.large(first)
                })
            })
            .map(Err)
    }
}

/// `device` brought down through `staging` into `host` (as long), each
/// value made a `U` by `convert`, copied on the host's pool a chunk at a
/// time.
fn download_into<T: DeviceRepr + Copy + Sync, U: Send>(
    staging: &mut Staging,
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    device: &CudaView<'_, T>,
    host: &mut [U],
    convert: impl Fn(T) -> U + Sync,
) -> Result<()> {
    debug_assert_eq!(device.len(), host.len());
    let chunk = units_per_chunk(size_of::<T>());
    staging.download(gpu, stream, device, chunk, |offset, values| {
        host[offset..offset + values.len()]
            .par_chunks_mut(COPY_TASK)
            .zip(values.par_chunks(COPY_TASK))
            .for_each(|(to, from)| {
                for (to, &from) in to.iter_mut().zip(from) {
                    *to = convert(from);
                }
            });
        Ok(())
    })
}

/// Values a task copies out of the staging: a half is split over a few
/// threads of the pool.
const COPY_TASK: usize = 1 << 16;

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
