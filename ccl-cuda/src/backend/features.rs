//! The shared back end (`features.cu`): from any forest that keeps the
//! contract of `ccl_device.cuh`, the ranks of its roots in raster order of
//! the components' first pixels, and with them the canonical labels and the
//! seven features of every component; and the forest compression
//! ([`Flatten`]).
//!
//! A labeling ends the same way as an analysis begins: its roots are
//! flagged and ranked, and the variant's last pass writes each pixel's
//! rank + 1 ([`RootsFlagged::number_with`]), or the shared pass does ([`Features::number_forest`]). What a labeling returns is
//! the proof [`Numbered`]; the labels then need no second pass.
//!
//! An analysis is a sequence the types enforce, each step returning the
//! value the next one takes: [`Features::begin`] → [`FlagRoots`] (the shared
//! root kernel over a pixel forest, or the variant's own into
//! [`FlagRoots::targets`]) → [`RootsFlagged`] → [`Ranked`] (ranked in raster
//! order, stats initialised; or [`RanksOnly`]) → [`Analyzed`] (the shared
//! accumulation, or the variant's own through [`Ranked::accumulate_with`],
//! the one customization point: HA accumulates per segment, FLSL per run).
//! The read-back ([`Features::complete`], [`Features::read`]) follows.

use std::sync::Arc;

use ccl_core::{ComponentStats, Error, Result};
use cudarc::driver::{
    CudaStream, CudaView, CudaViewMut, DeviceRepr, LaunchConfig, ValidAsZeroBits,
};

use super::filter::{Cleanup, Kept, RankedFeatures};
use super::stats::DeviceStats;
use crate::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Divisor, Gpu, HostWord, ImageArgs, Kernel, KernelSource,
    StageClock, cuda_error, linear_grid, warp_grid,
};

/// Root words per group of the ranking scan (`CCL_ROOT_GROUP_WORDS`).
pub const ROOT_GROUP_WORDS: usize = 1024;

/// Warps per block of the per-word kernels of `features.cu`.
pub(crate) const WARPS_PER_BLOCK: u32 = 8;

/// Words of a row per warp of the accumulation: a component crossing them
/// costs one atomic per feature instead of one per word.
const ACCUMULATE_SPAN_WORDS: u32 = 16;

/// Consecutive rows of a volume per warp of its accumulation, over which
/// the warp's pending component gathers: the large component of a volume
/// past its percolation threshold costs one atomic per feature per span of
/// this many rows instead of per row.
const ACCUMULATE_VOLUME_ROWS: u32 = 16;

/// The shared kernels, compiled once per process and device.
pub(crate) const KERNELS: KernelSource = KernelSource {
    name: "ccl_features",
    source: include_str!("features.cu"),
    constants: &[
        ("ACCUMULATE_SPAN_WORDS", ACCUMULATE_SPAN_WORDS),
        ("ACCUMULATE_VOLUME_ROWS", ACCUMULATE_VOLUME_ROWS),
    ],
};

inventory::submit! { KERNELS }

/// `CclRootIndex`: where each root's rank is found.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RootIndexArgs {
    /// One bit per pixel that is a root.
    pub bits: DevPtr<u32>,
    /// Roots before each word.
    pub offsets: DevPtr<u32>,
    /// Words per row of `bits`.
    pub words_per_row: u32,
    /// Rows of one image of a batch, whose labels `ccl_root_label` counts
    /// apart; 0 for one image or a volume.
    pub slice_rows: u32,
    /// Each rank's label after a clean-up (0: removed), which
    /// `ccl_root_label` reads instead of the rank + 1; null without one
    /// ([`RootsFlagged::number_filtered_with`]).
    pub remap: DevPtr<u32>,
    /// One image's largest component alone after a clean-up: its selection
    /// key (the low word the complement of its rank, 0 where none is kept),
    /// by which `ccl_root_label` gives that rank 1 and every other 0; null
    /// otherwise.
    pub largest: DevPtr<u64>,
    /// `slice_rows` (1 for 0) as kernels divide rows by it.
    pub slice_divisor: Divisor,
}

// SAFETY: plain old data with C layout, matching CclRootIndex.
unsafe impl DeviceRepr for RootIndexArgs {}

/// `CclStatsOut`: the stats array and its capacity.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct StatsOutArgs {
    /// One entry per component, by rank.
    pub stats: DevPtr<DeviceStats>,
    /// Entries allocated; higher ranks are not stored.
    pub capacity: u32,
}

// SAFETY: plain old data with C layout, matching CclStatsOut.
unsafe impl DeviceRepr for StatsOutArgs {}

/// One forest node's features as the on-the-fly (OTF) kernels gather them:
/// the layout of `CclNode` in `ccl_device.cuh`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceNode {
    /// Number of pixels.
    pub area: u32,
    /// Smallest column.
    pub x_min: u32,
    /// Largest column.
    pub x_max: u32,
    /// Largest row.
    pub y_max: u32,
    /// Sum of columns.
    pub sum_x: u64,
    /// Sum of rows.
    pub sum_y: u64,
}

// SAFETY: plain old data with C layout.
unsafe impl DeviceRepr for DeviceNode {}
// SAFETY: all-zero bytes are a valid value of every field.
unsafe impl ValidAsZeroBits for DeviceNode {}

/// How the root bits of an image are laid out: `words_per_row` 32-bit words
/// per row (at least `ceil(width / 32)`; more where a variant's own words
/// are wider), `height` rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootLayout {
    /// Words per row.
    pub words_per_row: usize,
    /// Rows.
    pub height: usize,
}

impl RootLayout {
    /// One word per 32 columns: the layout of the shared kernels.
    pub fn of(image: &DeviceImage<'_>) -> Self {
        Self {
            words_per_row: image.width().div_ceil(32),
            height: image.height(),
        }
    }

    /// Words in all.
    pub fn words(&self) -> usize {
        self.words_per_row * self.height
    }

    fn groups(&self) -> usize {
        self.words().div_ceil(ROOT_GROUP_WORDS)
    }

    fn words_u32(&self) -> Result<(u32, u32)> {
        let too_many = || Error::InvalidDimensions("too many root words for 32-bit indices".into());
        Ok((
            u32::try_from(self.words()).map_err(|_| too_many())?,
            u32::try_from(self.words_per_row).map_err(|_| too_many())?,
        ))
    }

    /// A grid with one warp per word.
    fn grid(&self) -> Result<LaunchConfig> {
        warp_grid(self.words(), WARPS_PER_BLOCK)
    }
}

/// What a variant's own root kernel writes: the bit of every root, and the
/// count of roots per group of [`ROOT_GROUP_WORDS`] words (zeroed by
/// [`Features::begin`], to be added to atomically).
#[derive(Clone, Copy)]
pub struct RootTargets {
    /// One bit per root, in the layout given to `begin`.
    pub bits: DevPtr<u32>,
    /// Roots per group.
    pub group_count: DevPtr<u32>,
}

struct Kernels {
    count_roots: Kernel<(ImageArgs, DevPtr<u32>, DevPtr<u32>, u32, u32, DevPtr<u32>)>,
    count_root_bits: Kernel<(DevPtr<u32>, u32, DevPtr<u32>)>,
    scan_groups: Kernel<(DevPtr<u32>, DevPtr<u32>, DevPtr<u32>, u32)>,
    rank_roots: Kernel<(
        DevPtr<u32>,
        DevPtr<u32>,
        DevPtr<u32>,
        StatsOutArgs,
        u32,
        u32,
    )>,
    accumulate: Kernel<(
        ImageArgs,
        DevPtr<u32>,
        RootIndexArgs,
        StatsOutArgs,
        u32,
        u32,
        u32,
    )>,
    accumulate_labels: Kernel<(
        ImageArgs,
        DevPtr<u32>,
        StatsOutArgs,
        DevPtr<DeviceStats>,
        u32,
        u32,
        u32,
    )>,
    number_forest: Kernel<(ImageArgs, DevPtr<u32>, RootIndexArgs, DevPtr<u32>, u32)>,
    slice_counts: Kernel<(RootIndexArgs, DevPtr<u32>, u32, DevPtr<u32>)>,
}

/// The state of the last analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Analysis {
    None,
    /// The image had no pixels: no components.
    Empty,
    /// Roots were flagged in this layout.
    Ran(RootLayout),
}

/// The buffers of the analysis back end, reused across calls: root bits and
/// offsets (a bit per pixel and a word per 32 pixels), and the stats array,
/// sized from the component count of earlier runs rather than the image.
pub struct Features {
    kernels: Kernels,
    root_bits: DeviceBuffer<u32>,
    group_count: DeviceBuffer<u32>,
    group_offset: DeviceBuffer<u32>,
    word_offset: DeviceBuffer<u32>,
    components: DeviceBuffer<u32>,
    stats: DeviceBuffer<DeviceStats>,
    /// Stats entries the array holds (allocated when first written, by
    /// [`RootsFlagged::rank`]).
    capacity: usize,
    analysis: Analysis,
    /// Whether the last ranking initialised the stats array (not after
    /// [`RootsFlagged::rank_only`]).
    stats_initialised: bool,
    /// Whether a labeling's ranking ([`RootsFlagged::number_with`])
    /// initialises the stats array, for the features of its labels.
    label_stats: bool,
    /// Rows of one image when a labeling numbers the images of a batch
    /// apart ([`set_batch_numbering`](Self::set_batch_numbering)), else 0.
    slice_rows: u32,
    /// The component count of the last ranking, on its way to the host
    /// from right after the ranking's scan (see [`Features::component_count`];
    /// made by the first ranking).
    early_count: Option<HostWord>,
    /// Whether a ranking queues that copy ([`set_count_to_host`](Self::set_count_to_host)).
    count_to_host: bool,
}

/// The smallest stats array: most images of a size have fewer components
/// than `pixels / 64`; those with more grow the array once.
fn initial_capacity(pixels: usize) -> usize {
    (pixels / 64).max(4096)
}

impl Features {
    /// Compiles (once per process and device) and loads the shared kernels.
    pub fn new(gpu: &Arc<Gpu>) -> Result<Self> {
        Ok(Self {
            kernels: Kernels {
                count_roots: Kernel::load(gpu, &KERNELS, "ccl_count_roots")?,
                count_root_bits: Kernel::load(gpu, &KERNELS, "ccl_count_root_bits")?,
                scan_groups: Kernel::load(gpu, &KERNELS, "ccl_scan_root_groups")?,
                rank_roots: Kernel::load(gpu, &KERNELS, "ccl_rank_roots")?,
                accumulate: Kernel::load(gpu, &KERNELS, "ccl_accumulate")?,
                accumulate_labels: Kernel::load(gpu, &KERNELS, "ccl_accumulate_labels")?,
                number_forest: Kernel::load(gpu, &KERNELS, "ccl_number_forest")?,
                slice_counts: Kernel::load(gpu, &KERNELS, "ccl_slice_counts")?,
            },
            root_bits: DeviceBuffer::new(),
            group_count: DeviceBuffer::new(),
            group_offset: DeviceBuffer::new(),
            word_offset: DeviceBuffer::new(),
            components: DeviceBuffer::new(),
            stats: DeviceBuffer::new(),
            capacity: 0,
            analysis: Analysis::None,
            stats_initialised: false,
            label_stats: false,
            slice_rows: 0,
            early_count: None,
            count_to_host: true,
        })
    }

    /// Whether the next labelings number the images of a batch apart: with
    /// `Some(rows)` (the rows of one image of the root layout), each
    /// label is its root's rank among the roots of its own image, plus one
    /// (`ccl_root_label`); the ranks themselves, and so any stats, stay
    /// those of the whole batch.
    pub(crate) fn set_batch_numbering(&mut self, rows: Option<usize>) -> Result<()> {
        self.slice_rows = match rows {
            None => 0,
            Some(rows) => u32::try_from(rows)
                .ok()
                .filter(|&rows| rows > 0)
                .ok_or_else(|| {
                    Error::InvalidDimensions(format!("images of {rows} rows in a batch"))
                })?,
        };
        Ok(())
    }

    /// Whether the next rankings send their component count to the host
    /// right after their scan, for [`component_count`](Self::component_count)
    /// to read without waiting for the passes after it (the default). A
    /// labeling whose caller reads no total, a batch's that writes each
    /// image's count on the device, leaves that copy out of the stream: a
    /// copy between two kernels that the next one waits for. The count is
    /// still there to read back.
    pub(crate) fn set_count_to_host(&mut self, wanted: bool) {
        self.count_to_host = wanted;
    }

    /// After a labeling of a batch of `images` images numbered apart: the
    /// components of each image into `counts` (one `u32` per image), from
    /// the ranking, on the device.
    pub(crate) fn batch_counts(
        &self,
        stream: &Arc<CudaStream>,
        images: usize,
        counts: DevPtr<u32>,
    ) -> Result<()> {
        let layout = match self.analysis {
            Analysis::Ran(layout) => layout,
            Analysis::Empty => {
                return Err(Error::InvalidArgument(
                    "a batch without pixels has no counts to write".into(),
                ));
            }
            Analysis::None => return Err(ccl_core::not_run()),
        };
        if self.slice_rows == 0 {
            return Err(Error::InvalidArgument(
                "the last labeling did not number a batch's images apart".into(),
            ));
        }
        let images_u32 = u32::try_from(images)
            .map_err(|_| Error::InvalidDimensions(format!("a batch of {images} images")))?;
        let index = self.index(stream, layout)?;
        let components = DevPtr::of(self.components.get()?, stream);
        // SAFETY: the last ranking wrote an offset per word of `layout`,
        // whose rows are `images` slices of `slice_rows`; `counts` holds an
        // entry per image (the caller's contract).
        unsafe {
            self.kernels.slice_counts.launch(
                stream,
                linear_grid(images, 256)?,
                (index, components, images_u32, counts),
            )
        }
    }

    /// Whether the next labelings rank with the stats array initialised, so
    /// that [`accumulate_labels`](Self::accumulate_labels) can follow.
    pub(crate) fn set_label_stats(&mut self, label_stats: bool) {
        self.label_stats = label_stats;
    }

    /// Starts an analysis whose roots are flagged in `layout`: reserves the
    /// buffers (allocating only when they grow) and zeroes the group counts.
    /// The steps that follow are typed: [`FlagRoots`] → [`RootsFlagged`] →
    /// [`Ranked`] (or [`RanksOnly`]) → [`Analyzed`].
    pub fn begin(&mut self, stream: &Arc<CudaStream>, layout: RootLayout) -> Result<FlagRoots<'_>> {
        let targets = self.reserve(stream, layout)?;
        Ok(FlagRoots {
            features: self,
            stream: stream.clone(),
            layout,
            targets,
        })
    }

    /// Records the analysis of an image with no pixels: no components.
    pub fn begin_empty(&mut self) -> Analyzed {
        self.analysis = Analysis::Empty;
        Analyzed { _private: () }
    }

    /// Flags the roots of a pixel forest (width × height, the contract of
    /// `ccl_device.cuh`) and ranks them with the shared kernels, stats
    /// initialised (stage `roots`): ready for an accumulation.
    pub fn rank_forest(
        &mut self,
        stream: &Arc<CudaStream>,
        image: &DeviceImage<'_>,
        forest: &CudaViewMut<'_, u32>,
        clock: &mut StageClock,
    ) -> Result<Ranked<'_>> {
        let ranked = self.flag_forest(stream, image, forest)?.rank()?;
        clock.mark("roots")?;
        Ok(ranked)
    }

    /// The canonical labels of a pixel forest (width × height, the contract
    /// of `ccl_device.cuh`) into `labels`, a different buffer of as many
    /// entries: its roots flagged and ranked with the shared kernels, then
    /// one pass writes each pixel's rank + 1 (stage `labels`). The last
    /// step of a labeling whose variant has no last pass of its own.
    pub fn number_forest(
        &mut self,
        stream: &Arc<CudaStream>,
        image: &DeviceImage<'_>,
        forest: &CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        clock: &mut StageClock,
    ) -> Result<Numbered> {
        check_forest(labels.len(), image)?;
        let forest_at = DevPtr::of(forest, stream);
        let labels_at = DevPtr::of_mut(labels, stream);
        self.flag_forest(stream, image, forest)?
            .number_forest(image, forest_at, labels_at, clock)
    }

    /// The features of canonical labels (what a labeling whose ranking
    /// initialised the stats left, `set_label_stats`)
    /// in one pass over the labels alone; with `background`, that pass also
    /// adds the background's features into it (one entry, zeroed before; x
    /// and y minima as complements). Stage `features`.
    pub fn accumulate_labels(
        &mut self,
        stream: &Arc<CudaStream>,
        image: &DeviceImage<'_>,
        labels: &CudaViewMut<'_, u32>,
        background: Option<DevPtr<DeviceStats>>,
        clock: &mut StageClock,
    ) -> Result<Analyzed> {
        check_forest(labels.len(), image)?;
        if !self.stats_initialised {
            return Err(Error::Unavailable(
                "the features of labels follow a labeling that ranked with stats".into(),
            ));
        }
        let (words_per_row, spans_per_row, spans) = accumulation_spans(image)?;
        let output = self.output(stream)?;
        // SAFETY: `labels` holds width * height canonical labels (checked),
        // whose ranks past the stats array's capacity are not stored;
        // `background` is null or one entry; one warp per span.
        unsafe {
            self.kernels.accumulate_labels.launch(
                stream,
                warp_grid(spans as usize, WARPS_PER_BLOCK)?,
                (
                    image.args(stream),
                    DevPtr::of(labels, stream),
                    output,
                    background.unwrap_or_else(DevPtr::null),
                    words_per_row,
                    spans_per_row,
                    spans,
                ),
            )
        }?;
        clock.mark("features")?;
        Ok(Analyzed { _private: () })
    }

    /// The whole analysis of a pixel forest with the shared kernels,
    /// marking the stages `roots` and `features`.
    pub fn analyze_forest(
        &mut self,
        stream: &Arc<CudaStream>,
        image: &DeviceImage<'_>,
        forest: &CudaViewMut<'_, u32>,
        clock: &mut StageClock,
    ) -> Result<Analyzed> {
        let analyzed = self
            .rank_forest(stream, image, forest, clock)?
            .accumulate(image, DevPtr::of(forest, stream))?;
        clock.mark("features")?;
        Ok(analyzed)
    }

    /// Begins in the layout of the shared kernels ([`RootLayout::of`]) and
    /// flags the roots of `forest` (width × height, the contract of
    /// `ccl_device.cuh`) with the shared kernel: the ranking follows.
    pub fn flag_forest(
        &mut self,
        stream: &Arc<CudaStream>,
        image: &DeviceImage<'_>,
        forest: &CudaViewMut<'_, u32>,
    ) -> Result<RootsFlagged<'_>> {
        check_forest(forest.len(), image)?;
        self.begin(stream, RootLayout::of(image))?
            .flag_forest(image, DevPtr::of(forest, stream))
    }

    /// Reserves the buffers of an analysis in `layout` and zeroes the group
    /// counts; the root bits are the variant's or the shared kernel's to set.
    fn reserve(&mut self, stream: &Arc<CudaStream>, layout: RootLayout) -> Result<RootTargets> {
        let words = layout.words();
        let groups = layout.groups();
        self.analysis = Analysis::None;
        if let Some(early) = &mut self.early_count {
            early.forget();
        }
        self.word_offset.reserve(stream, words)?;
        self.group_offset.reserve(stream, groups)?;
        self.components.reserve(stream, 1)?;
        // A bit per pixel of the layout: at least the image's pixels. The
        // array itself is reserved by the ranking with stats, so a ranking
        // without them allocates none.
        self.capacity = self.capacity.max(initial_capacity(layout.words() * 32));
        self.stats_initialised = false;
        let group_count = self.group_count.reserve(stream, groups)?;
        stream
            .memset_zeros(&mut group_count.slice_mut(..groups))
            .map_err(cuda_error)?;
        let group_count = DevPtr::of_mut(group_count, stream);
        let bits = DevPtr::of_mut(self.root_bits.reserve(stream, words)?, stream);
        self.analysis = Analysis::Ran(layout);
        Ok(RootTargets { bits, group_count })
    }

    /// The ranking kernels, initialising the stats in `output` (none where
    /// its capacity is 0: `ccl_rank_roots` stores no rank at or past it).
    fn rank_into(
        &mut self,
        stream: &Arc<CudaStream>,
        layout: RootLayout,
        output: StatsOutArgs,
    ) -> Result<()> {
        let (words, words_per_row) = layout.words_u32()?;
        let groups = layout.groups();
        let groups_u32 = u32::try_from(groups)
            .map_err(|_| Error::InvalidDimensions("too many groups".into()))?;
        let group_count = DevPtr::of(self.group_count.get()?, stream);
        let group_offset = DevPtr::of_mut(self.group_offset.reserve(stream, groups)?, stream);
        let components = DevPtr::of_mut(self.components.reserve(stream, 1)?, stream);
        let bits = DevPtr::of(self.root_bits.get()?, stream);
        let word_offset = DevPtr::of_mut(self.word_offset.reserve(stream, words as usize)?, stream);
        // SAFETY: `reserve` reserved every buffer for `layout`: a count and
        // an offset per group, a bit word and an offset per word; the stats
        // array holds `capacity` entries and ranks past it are not stored.
        unsafe {
            self.kernels.scan_groups.launch(
                stream,
                linear_grid(1024, 1024)?,
                (group_count, group_offset, components, groups_u32),
            )?;
        }
        if self.count_to_host {
            self.queue_count_copy(stream)?;
        }
        // SAFETY: as above.
        unsafe {
            self.kernels.rank_roots.launch(
                stream,
                LaunchConfig {
                    grid_dim: (groups_u32, 1, 1),
                    block_dim: (ROOT_GROUP_WORDS as u32, 1, 1),
                    shared_mem_bytes: 0,
                },
                (
                    bits,
                    group_offset,
                    word_offset,
                    output,
                    words,
                    words_per_row,
                ),
            )
        }
    }

    /// Queues the copy of the ranking's component count to the host, after
    /// the scan that writes it.
    fn queue_count_copy(&mut self, stream: &Arc<CudaStream>) -> Result<()> {
        let early = match &mut self.early_count {
            Some(early) => early,
            None => self.early_count.insert(HostWord::new(stream)?),
        };
        early.queue(stream, self.components.get()?)
    }

    /// The root index of the last ranking.
    fn index(&self, stream: &CudaStream, layout: RootLayout) -> Result<RootIndexArgs> {
        Ok(RootIndexArgs {
            bits: DevPtr::of(self.root_bits.get()?, stream),
            offsets: DevPtr::of(self.word_offset.get()?, stream),
            words_per_row: layout.words_u32()?.1,
            slice_rows: self.slice_rows,
            remap: DevPtr::null(),
            largest: DevPtr::null(),
            slice_divisor: Divisor::new(self.slice_rows.max(1))?,
        })
    }

    /// The root index of the last labeling or analysis, for kernels that
    /// find each component's root by its rank after it; an error before
    /// any ranking, or after an image without pixels.
    pub(crate) fn last_index(&self, stream: &CudaStream) -> Result<RootIndexArgs> {
        match self.analysis {
            Analysis::Ran(layout) => self.index(stream, layout),
            Analysis::Empty => Err(Error::Unavailable(
                "an image without pixels has no roots".into(),
            )),
            Analysis::None => Err(ccl_core::not_run()),
        }
    }

    /// The stats array, reserved at the current capacity.
    fn output(&mut self, stream: &Arc<CudaStream>) -> Result<StatsOutArgs> {
        let stats = self.stats.reserve(stream, self.capacity)?;
        Ok(StatsOutArgs {
            stats: DevPtr::of_mut(stats, stream),
            capacity: u32::try_from(self.capacity).unwrap_or(u32::MAX),
        })
    }

    /// Copies the component count of the last labeling or analysis into
    /// `count` (one `u32` on the device), without waiting for it.
    pub(crate) fn copy_count(
        &self,
        stream: &Arc<CudaStream>,
        count: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        match self.analysis {
            Analysis::None => Err(ccl_core::not_run()),
            Analysis::Empty => stream.memset_zeros(count).map_err(cuda_error),
            Analysis::Ran(_) => stream
                .memcpy_dtod(&self.components.get()?.slice(..1), count)
                .map_err(cuda_error),
        }
    }

    /// Whether the last analysis stored every component. If it found more
    /// than the stats array holds, the array is grown for the next run,
    /// which the caller makes (reads back the count: a synchronisation).
    pub fn complete(&mut self, stream: &Arc<CudaStream>) -> Result<bool> {
        Ok(self.stored_count(stream)?.is_some())
    }

    /// The component count of the last analysis where the stats array
    /// stored every component; else `None`, the array grown for the next
    /// run (a read-back, as [`complete`](Self::complete)).
    fn stored_count(&mut self, stream: &Arc<CudaStream>) -> Result<Option<usize>> {
        let count = self.component_count(stream)?;
        if count <= self.capacity {
            return Ok(Some(count));
        }
        self.capacity = count + count / 8;
        Ok(None)
    }

    /// The number of components the last analysis or labeling found (a
    /// read-back: waits for the copy the ranking queued after its scan, not
    /// for the stream).
    pub fn component_count(&self, stream: &Arc<CudaStream>) -> Result<usize> {
        match self.analysis {
            Analysis::None => Err(ccl_core::not_run()),
            Analysis::Empty => Ok(0),
            // The ranking's copy, queued right after its scan: the host's
            // work on the count overlaps the passes after it, such as
            // Python's allocation of a class map's `classes` array (44–59 µs
            // of an idle GPU after the pixel pass on 8192² maps, H200,
            // `bench/2026-11-29-h200-class-gaps`) or a clean-up's sizing of
            // its scratch.
            Analysis::Ran(_) => match self.early_count.as_ref().map(HostWord::wait) {
                Some(Ok(Some(count))) => Ok(count as usize),
                Some(Err(error)) => Err(error),
                _ => Ok(stream
                    .clone_dtoh(&self.components.get()?.slice(..1))
                    .map_err(cuda_error)?[0] as usize),
            },
        }
    }

    /// The features of the last analysis as they lie on the device, one
    /// entry per component in raster order of the components' first pixels;
    /// `None` when it found no component. Reads back the component count.
    pub fn device_stats(
        &self,
        stream: &Arc<CudaStream>,
    ) -> Result<Option<CudaView<'_, DeviceStats>>> {
        if !self.stats_initialised && self.analysis != Analysis::Empty {
            return Err(Error::Unavailable(
                "the last ranking computed no features (ranks only)".into(),
            ));
        }
        let count = self.component_count(stream)?;
        if count > self.capacity {
            return Err(Error::Cuda(format!(
                "the analysis found {count} components but stored {}; run it again",
                self.capacity
            )));
        }
        if count == 0 {
            return Ok(None);
        }
        Ok(Some(self.stats.get()?.slice(..count)))
    }

    /// The features of the last analysis, in raster order of the
    /// components' first pixels.
    pub fn read(&self, stream: &Arc<CudaStream>) -> Result<Vec<ComponentStats>> {
        let Some(stats) = self.device_stats(stream)? else {
            return Ok(Vec::new());
        };
        let stats = stream.clone_dtoh(&stats).map_err(cuda_error)?;
        Ok(stats.into_iter().map(ComponentStats::from).collect())
    }
}

/// The first step of an analysis ([`Features::begin`]): the roots are to be
/// flagged, by the shared kernel over a pixel forest ([`flag_forest`]) or
/// by the variant's own kernel into [`targets`].
///
/// [`flag_forest`]: FlagRoots::flag_forest
/// [`targets`]: FlagRoots::targets
pub struct FlagRoots<'f> {
    features: &'f mut Features,
    stream: Arc<CudaStream>,
    layout: RootLayout,
    targets: RootTargets,
}

impl<'f> FlagRoots<'f> {
    /// Where a variant's own root kernel writes: the bit of every root in
    /// the layout given to `begin`, and the count of roots per group of
    /// [`ROOT_GROUP_WORDS`] words (zeroed, to be added to atomically).
    pub fn targets(&self) -> RootTargets {
        self.targets
    }

    /// The roots were flagged into [`targets`](Self::targets) by the
    /// variant's own kernel, queued on the analysis' stream.
    pub fn flagged(self) -> RootsFlagged<'f> {
        RootsFlagged {
            features: self.features,
            stream: self.stream,
            layout: self.layout,
        }
    }

    /// The variant's own kernels set every word of the root bits of
    /// [`targets`](Self::targets) and no group count, queued on the
    /// analysis' stream: the shared kernel counts the bits per group.
    pub fn flagged_bits(self) -> Result<RootsFlagged<'f>> {
        let (words, _) = self.layout.words_u32()?;
        let groups = self.layout.groups();
        // SAFETY: `begin` reserved a bit word per word and a count per group
        // of the layout; one block per group.
        unsafe {
            self.features.kernels.count_root_bits.launch(
                &self.stream,
                linear_grid(groups * 256, 256)?,
                (self.targets.bits, words, self.targets.group_count),
            )
        }?;
        Ok(self.flagged())
    }

    /// Flags the roots of `forest` (width × height labels of the contract of
    /// `ccl_device.cuh`) with the shared kernel; the analysis must have
    /// begun in [`RootLayout::of`] this image.
    pub fn flag_forest(
        self,
        image: &DeviceImage<'_>,
        forest: DevPtr<u32>,
    ) -> Result<RootsFlagged<'f>> {
        check_layout(self.layout, image)?;
        let (words, words_per_row) = self.layout.words_u32()?;
        let stream = &self.stream;
        // SAFETY: `begin` reserved a bit word per word and a count per group
        // of the layout, which covers the image (checked above); `forest`
        // holds width * height labels (the caller's contract).
        unsafe {
            self.features.kernels.count_roots.launch(
                stream,
                self.layout.grid()?,
                (
                    image.args(stream),
                    forest,
                    self.targets.bits,
                    words_per_row,
                    words,
                    self.targets.group_count,
                ),
            )
        }?;
        Ok(self.flagged())
    }
}

/// The roots are flagged: the next step ranks them in raster order.
pub struct RootsFlagged<'f> {
    features: &'f mut Features,
    stream: Arc<CudaStream>,
    layout: RootLayout,
}

impl<'f> RootsFlagged<'f> {
    /// Ranks the roots in raster order and initialises the stats of every
    /// component that fits the stats array.
    pub fn rank(self) -> Result<Ranked<'f>> {
        let output = self.features.output(&self.stream)?;
        self.features.rank_into(&self.stream, self.layout, output)?;
        self.features.stats_initialised = true;
        Ok(Ranked::new(self.features, self.stream))
    }

    /// Ranks the roots in raster order and leaves the stats array alone
    /// (none is allocated): for callers that need the ranks only, as
    /// compact labels or canonical numbers. Features cannot be read after
    /// it (an error, not stale entries).
    pub fn rank_only(self) -> Result<RanksOnly<'f>> {
        let nothing = StatsOutArgs {
            stats: DevPtr::null(),
            capacity: 0,
        };
        self.features
            .rank_into(&self.stream, self.layout, nothing)?;
        let index = self.features.index(&self.stream, self.layout)?;
        Ok(RanksOnly {
            index,
            _features: self.features,
        })
    }

    /// The end of a labeling, its one customization point (as
    /// [`Ranked::accumulate_with`] is an analysis'): ranks the roots in
    /// raster order (stage `roots`; the stats initialised too where the
    /// caller asked for the features of the labels,
    /// `Features::set_label_stats`), then `last_pass`, the variant's own,
    /// queued on the stream it is given, writes each pixel's root's rank + 1
    /// (`ccl_root_rank` of the index it is given) into the labels (stage
    /// `labels`).
    pub fn number_with(
        mut self,
        clock: &mut StageClock,
        last_pass: impl FnOnce(RootIndexArgs, &Arc<CudaStream>) -> Result<()>,
    ) -> Result<Numbered> {
        let stream = self.stream.clone();
        let index = self.rank_labels()?;
        clock.mark("roots")?;
        last_pass(index, &stream)?;
        clock.mark("labels")?;
        Ok(Numbered { _private: () })
    }

    /// The end of a labeling that keeps only what a filter keeps, whose
    /// labels are written once, by the variant's own last pass: ranks the
    /// roots (stage `roots`); then `accumulate`, the variant's own kernels,
    /// adds every foreground pixel to its component by rank, into the
    /// [`FilterVotes`] it is given (stage `features`): the areas alone where
    /// the filter reads no extent, else the stats array (as in
    /// [`Ranked::accumulate_with`]); `cleanup` decides from them which
    /// components stay and numbers them
    /// ([`DeviceFilter::renumber_ranked`](super::DeviceFilter::renumber_ranked),
    /// stage `filter`); and `last_pass` writes each pixel's label through
    /// the root index it is given, whose `ccl_root_label` reads the new
    /// labels (stage `labels`).
    ///
    /// The images of a batch (numbered apart, as
    /// `Features::set_batch_numbering` asks) are cleaned each on its own, with
    /// the cleanup's `counts`. Reads back the component count (a
    /// synchronisation) to size the clean-up. Where the stats array held
    /// fewer components, it is grown and nothing is written:
    /// [`Filtered::Grown`], the caller labels again.
    pub fn number_filtered_with(
        self,
        clock: &mut StageClock,
        cleanup: Cleanup<'_, '_>,
        accumulate: impl FnOnce(RootIndexArgs, FilterVotes, &Arc<CudaStream>) -> Result<()>,
        last_pass: impl FnOnce(RootIndexArgs, &Arc<CudaStream>) -> Result<()>,
    ) -> Result<Filtered> {
        let Cleanup {
            device,
            filter,
            mut counts,
            ..
        } = cleanup;
        let stream = self.stream.clone();
        let reads_extent = filter.reads_extent();
        let output = if reads_extent {
            self.features.output(&stream)?
        } else {
            StatsOutArgs {
                stats: DevPtr::null(),
                capacity: 0,
            }
        };
        self.features.rank_into(&stream, self.layout, output)?;
        self.features.stats_initialised = reads_extent;
        let mut index = self.features.index(&stream, self.layout)?;
        if let Some(counts) = counts.as_deref_mut() {
            // Each image's components, which the clean-up's offsets follow.
            let images = counts.len();
            let counts = DevPtr::of_mut(counts, &stream);
            self.features.batch_counts(&stream, images, counts)?;
        }
        clock.mark("roots")?;
        let (count, features) = if reads_extent {
            accumulate(index, FilterVotes::Stats(output), &stream)?;
            let Some(count) = self.features.stored_count(&stream)? else {
                return Ok(Filtered::Grown);
            };
            (count, RankedFeatures::Stats(output.stats))
        } else {
            let count = self.features.component_count(&stream)?;
            let areas = device.zeroed_areas(&stream, count)?;
            accumulate(index, FilterVotes::Areas(areas), &stream)?;
            (count, RankedFeatures::Areas(areas))
        };
        clock.mark("features")?;
        let count = u32::try_from(count)
            .map_err(|_| Error::InvalidDimensions(format!("{count} components")))?;
        match device.renumber_ranked(&stream, features, count, counts, filter)? {
            Kept::Remap(remap) => index.remap = remap,
            Kept::Largest(key) => index.largest = key,
        }
        clock.mark("filter")?;
        last_pass(index, &stream)?;
        clock.mark("labels")?;
        Ok(Filtered::Numbered(Numbered { _private: () }))
    }

    /// The end of a labeling with the shared last pass: ranks the roots as
    /// [`number_with`](Self::number_with) does (stage `roots`), then writes
    /// each pixel's root's rank + 1 from `forest` (width × height labels of
    /// the contract of `ccl_device.cuh`, whose roots were flagged) into
    /// `labels`, a different buffer of as many entries (stage `labels`).
    pub fn number_forest(
        mut self,
        image: &DeviceImage<'_>,
        forest: DevPtr<u32>,
        labels: DevPtr<u32>,
        clock: &mut StageClock,
    ) -> Result<Numbered> {
        check_layout(self.layout, image)?;
        let index = self.rank_labels()?;
        clock.mark("roots")?;
        let (words, _) = self.layout.words_u32()?;
        let stream = &self.stream;
        // SAFETY: the root index covers the image (its layout, checked);
        // `forest` and `labels` hold width * height entries and are
        // different buffers (the caller's contract).
        unsafe {
            self.features.kernels.number_forest.launch(
                stream,
                self.layout.grid()?,
                (image.args(stream), forest, index, labels, words),
            )
        }?;
        clock.mark("labels")?;
        Ok(Numbered { _private: () })
    }

    /// Ranks a labeling's roots (with stats where asked); the root index.
    fn rank_labels(&mut self) -> Result<RootIndexArgs> {
        let output = if self.features.label_stats {
            self.features.output(&self.stream)?
        } else {
            StatsOutArgs {
                stats: DevPtr::null(),
                capacity: 0,
            }
        };
        self.features.rank_into(&self.stream, self.layout, output)?;
        self.features.stats_initialised = self.features.label_stats;
        self.features.index(&self.stream, self.layout)
    }
}

/// The proof that a labeling was queued to its end with canonical labels
/// (0 for background, 1..=N in raster order of each component's first
/// pixel): what [`DeviceVariant::label`] returns, made only by the back end.
///
/// [`DeviceVariant::label`]: super::variant::DeviceVariant::label
#[derive(Debug)]
pub struct Numbered {
    _private: (),
}

/// Where a labeling that keeps what a filter keeps adds its pixels, by
/// rank ([`RootsFlagged::number_filtered_with`]).
#[derive(Clone, Copy)]
pub enum FilterVotes {
    /// One `u32` area per component, zeroed: the filter reads no extent.
    Areas(DevPtr<u32>),
    /// The stats array, initialised by the ranking, as an analysis fills it.
    Stats(StatsOutArgs),
}

/// How a labeling that keeps what a filter keeps ended
/// ([`RootsFlagged::number_filtered_with`]).
#[derive(Debug)]
pub enum Filtered {
    /// The kept components' labels are written (the kept count is the
    /// clean-up's, [`DeviceFilter::kept_count`](super::DeviceFilter::kept_count)).
    Numbered(Numbered),
    /// The image had more components than the stats array held: the array
    /// was grown, no label was written, and the labeling is to run again.
    Grown,
}

/// The roots are ranked and the stats initialised: what is left is to add
/// every pixel's features to its component, with the shared kernel over a
/// pixel forest ([`accumulate`](Ranked::accumulate)) or with the variant's
/// own kernels ([`accumulate_with`](Ranked::accumulate_with)).
pub struct Ranked<'f> {
    features: &'f mut Features,
    stream: Arc<CudaStream>,
}

impl<'f> Ranked<'f> {
    fn new(features: &'f mut Features, stream: Arc<CudaStream>) -> Self {
        Self { features, stream }
    }

    /// Where each root's rank is found, for kernels that number labels
    /// by it.
    pub fn index(&self) -> Result<RootIndexArgs> {
        let layout = self.layout()?;
        self.features.index(&self.stream, layout)
    }

    /// Adds every foreground pixel of `image` to its component's features
    /// with the shared kernel; `forest` holds width × height labels of the
    /// contract of `ccl_device.cuh`.
    pub fn accumulate(self, image: &DeviceImage<'_>, forest: DevPtr<u32>) -> Result<Analyzed> {
        let (words_per_row, spans_per_row, spans) = accumulation_spans(image)?;
        let roots = self.index()?;
        let output = self.features.output(&self.stream)?;
        let stream = &self.stream;
        // SAFETY: the root index covers the image (checked when it was
        // flagged); `forest` holds width * height labels; one warp per span.
        unsafe {
            self.features.kernels.accumulate.launch(
                stream,
                warp_grid(spans as usize, WARPS_PER_BLOCK)?,
                (
                    image.args(stream),
                    forest,
                    roots,
                    output,
                    words_per_row,
                    spans_per_row,
                    spans,
                ),
            )
        }?;
        Ok(Analyzed { _private: () })
    }

    /// The one customization point of the analysis: the variant's own
    /// feature kernels, which `accumulate` queues on the stream it is given,
    /// add every foreground pixel to the entry of its root's rank (read
    /// from the root index) in the stats array; ranks at or past the
    /// array's capacity are not stored.
    pub fn accumulate_with(
        self,
        accumulate: impl FnOnce(RootIndexArgs, StatsOutArgs, &Arc<CudaStream>) -> Result<()>,
    ) -> Result<Analyzed> {
        let index = self.index()?;
        let output = self.features.output(&self.stream)?;
        accumulate(index, output, &self.stream)?;
        Ok(Analyzed { _private: () })
    }

    fn layout(&self) -> Result<RootLayout> {
        match self.features.analysis {
            Analysis::Ran(layout) => Ok(layout),
            _ => Err(Error::Unavailable(
                "the analysis back end lost its layout".into(),
            )),
        }
    }
}

/// The roots are ranked, without stats: the ranks are compact labels or
/// canonical numbers. Holds the back end until the ranks have been used.
pub struct RanksOnly<'f> {
    index: RootIndexArgs,
    _features: &'f mut Features,
}

impl RanksOnly<'_> {
    /// Where each root's rank is found.
    pub fn index(&self) -> RootIndexArgs {
        self.index
    }
}

/// The proof that an analysis was queued to its end (features accumulated,
/// or an image without pixels): what [`DeviceVariant::analyze`]
/// returns, made only by the back end.
///
/// [`DeviceVariant::analyze`]: super::variant::DeviceVariant::analyze
#[derive(Debug)]
pub struct Analyzed {
    _private: (),
}

/// The forest → label image finish of `features.cu`.
pub struct Flatten {
    kernel: Kernel<(ImageArgs, DevPtr<u32>, DevPtr<u32>, u32, u32)>,
}

impl Flatten {
    /// Compiles (once per process and device) and loads the kernel.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(Self {
            kernel: Kernel::load(gpu, &KERNELS, "ccl_flatten")?,
        })
    }

    /// Rewrites the forest in `labels` as final labels, in place: 0 for
    /// background, 1 + the root's raster index for foreground.
    pub fn run(
        &self,
        stream: &Arc<CudaStream>,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        check_forest(labels.len(), image)?;
        let layout = RootLayout::of(image);
        let (words, words_per_row) = layout.words_u32()?;
        let labels = DevPtr::of_mut(labels, stream);
        // SAFETY: `labels` holds width * height entries (checked above).
        unsafe {
            self.kernel.launch(
                stream,
                layout.grid()?,
                (image.args(stream), labels, labels, words_per_row, words),
            )
        }
    }
}

/// The accumulation's geometry: words per row, spans of
/// `ACCUMULATE_SPAN_WORDS` words per row, and spans in all (a warp each).
fn accumulation_spans(image: &DeviceImage<'_>) -> Result<(u32, u32, u32)> {
    let layout = RootLayout::of(image);
    let (_, words_per_row) = layout.words_u32()?;
    let spans_per_row = words_per_row.div_ceil(ACCUMULATE_SPAN_WORDS);
    let spans = u32::try_from(spans_per_row as usize * layout.height).map_err(|_| {
        Error::InvalidDimensions("too many accumulation spans for 32-bit indices".into())
    })?;
    Ok((words_per_row, spans_per_row, spans))
}

/// The warps of a volume's accumulation over `image` (its rows):
/// `(words_per_row, spans_per_row, warps)`, a warp per span of
/// [`ACCUMULATE_VOLUME_ROWS`] rows.
pub(crate) fn volume_accumulation_warps(image: &DeviceImage<'_>) -> Result<(u32, u32, u32)> {
    let (words_per_row, spans_per_row, _) = accumulation_spans(image)?;
    let row_groups = image.height().div_ceil(ACCUMULATE_VOLUME_ROWS as usize);
    let warps = u32::try_from(spans_per_row as usize * row_groups).map_err(|_| {
        Error::InvalidDimensions("too many accumulation warps for 32-bit indices".into())
    })?;
    Ok((words_per_row, spans_per_row, warps))
}

/// `Ok` when a forest (or label buffer) of `len` entries covers `image`'s
/// pixels, else [`Error::InvalidDimensions`].
pub fn check_forest(len: usize, image: &DeviceImage<'_>) -> Result<()> {
    if len < image.pixel_count() {
        return Err(Error::InvalidDimensions(format!(
            "the buffer holds {len} entries, the image has {} pixels (one entry per pixel)",
            image.pixel_count()
        )));
    }
    Ok(())
}

fn check_layout(layout: RootLayout, image: &DeviceImage<'_>) -> Result<()> {
    if layout.height != image.height() || layout.words_per_row * 32 < image.width() {
        return Err(Error::InvalidDimensions(format!(
            "root layout of {} words x {} rows does not cover a {}x{} image",
            layout.words_per_row,
            layout.height,
            image.width(),
            image.height()
        )));
    }
    Ok(())
}
