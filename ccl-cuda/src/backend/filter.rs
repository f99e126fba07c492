//! The clean-up after a labeling, on the device (`filter.cu`): what a
//! [`Filter`] keeps of the canonical labels of images, batches and volumes
//! — components in size and bounding-box ranges, the k largest of each
//! image — as new labels 1..=k in place or as a mask, with the kept
//! components' features. The label image never leaves the device: the host
//! reads back one number, the component total that sizes the scratch.
//!
//! The components are measured from the labels in one pass (the area; the
//! bounding box where the ranges or the features read it; coordinate sums
//! where the features are wanted), so any labeling feeds it, whichever
//! variant made it. The pass walks spans of rows and adds a component's run
//! once per span, not once per warp of pixels: a dense image's giant
//! component would otherwise serialize the pass on its record's atomics.
//! The k largest of every image are found together by a radix select over
//! (area, label) keys whose rounds stop as soon as every image's k-th key
//! is known.
//!
//! Within a labeling ([`Cleanup`], [`DeviceFilter::renumber_ranked`]) the
//! filter skips both passes over the labels: it reads the variant's areas
//! (or features) by rank, and its renumbering becomes the remap through
//! which the variant's own last pass writes the kept labels or mask.

use std::sync::Arc;

use ccl_core::{Error, Filter, Result, VolumeStats};
use cudarc::driver::{CudaStream, CudaViewMut, DeviceRepr, LaunchConfig, ValidAsZeroBits};

use super::features::KERNELS as FEATURE_KERNELS;
use super::stats::DeviceStats;
use super::volume::DeviceVolumeStats;
use crate::runtime::{
    DevPtr, DeviceBuffer, Gpu, Kernel, KernelSource, cuda_error, linear_grid, warp_grid,
};

/// `FILTER_ALL`: no limit on how many components in range are kept.
const ALL: u32 = u32::MAX;

/// Keys per block of the select's histogram (`FILTER_ITEMS`).
const HISTOGRAM_ITEMS: u32 = 4096;

/// The most blocks of the range test (`ccl_filter_flag*`), whose grid
/// strides over the components: one image's largest key is an atomic per
/// block on one address. 1024 blocks of 256 threads about fill an H200's
/// 132 multiprocessors.
const FLAG_BLOCKS: u32 = 1024;

/// Components per block of the numbering (its block scan's width).
const NUMBER_BLOCK: u32 = 1024;

/// Chunks of 32 labels in a span of a row, what one warp of the measuring
/// pass walks (`FILTER_SPAN_CHUNKS`): a component that runs across the span
/// is added once, not once per chunk.
const SPAN_CHUNKS: u32 = 16;

/// Warps per block of the measuring pass (`FILTER_MEASURE_WARPS`), whose
/// spans follow one another; their last runs combine before they are added,
/// in one warp (a lane each).
const MEASURE_WARPS: u32 = 8;
const _: () = assert!(MEASURE_WARPS <= 32);

/// What the measuring pass gathers of each component, each level with
/// everything below it: no more than the ranges and the features read, as
/// every field is a same-address atomic where a component is large.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
enum Measure {
    /// The area alone (`FILTER_MEASURE_AREA`): the size ranges and the k
    /// largest read no more.
    Area = 0,
    /// With the bounding box (`FILTER_MEASURE_BOX`): the extent ranges.
    Box = 1,
    /// With the coordinate sums too (`FILTER_MEASURE_FEATURES`): the kept
    /// components' features.
    Features = 2,
}

/// How `ccl_filter_decide` finds each image's smallest kept key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
enum SelectionKind {
    /// No k largest (`FILTER_SELECT_NONE`): every key in range is kept.
    None = 0,
    /// The radix select's threshold (`FILTER_SELECT_RADIX`).
    Radix = 1,
    /// The largest alone (`FILTER_SELECT_LARGEST`): the image's largest key,
    /// which the range test already found, with no radix round.
    Largest = 2,
}

impl SelectionKind {
    /// How `filter` selects.
    fn of(filter: &Filter) -> Self {
        match filter.largest {
            None => Self::None,
            Some(1) => Self::Largest,
            Some(_) => Self::Radix,
        }
    }
}

impl Measure {
    /// What `filter` and, `with_features`, the kept features read.
    fn of(filter: &Filter, with_features: bool) -> Self {
        if with_features {
            Self::Features
        } else if filter.reads_extent() {
            Self::Box
        } else {
            Self::Area
        }
    }
}

/// The filter's kernels, compiled once per process and device.
const KERNELS: KernelSource = KernelSource {
    name: "ccl_filter",
    source: include_str!("filter.cu"),
    constants: &[
        ("FILTER_ALL", ALL),
        ("FILTER_ITEMS", HISTOGRAM_ITEMS),
        ("FILTER_SPAN_CHUNKS", SPAN_CHUNKS),
        ("FILTER_MEASURE_WARPS", MEASURE_WARPS),
        ("FILTER_MEASURE_AREA", Measure::Area as u32),
        ("FILTER_MEASURE_BOX", Measure::Box as u32),
        ("FILTER_MEASURE_FEATURES", Measure::Features as u32),
        ("FILTER_SELECT_NONE", SelectionKind::None as u32),
        ("FILTER_SELECT_RADIX", SelectionKind::Radix as u32),
        ("FILTER_SELECT_LARGEST", SelectionKind::Largest as u32),
    ],
};

inventory::submit! { KERNELS }

/// The labels a [`DeviceFilter`] cleans: `images` images one after the
/// other, each `depth` slices of `height` rows of `width` labels, numbered
/// on its own (a batch of images: depth 1; a volume: one image).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelShape {
    /// Columns.
    pub width: usize,
    /// Rows of a slice.
    pub height: usize,
    /// Slices of an image (1 for images).
    pub depth: usize,
    /// Images.
    pub images: usize,
}

impl LabelShape {
    /// Labels in all.
    pub fn pixels(&self) -> usize {
        self.width * self.height * self.depth * self.images
    }

    fn args(&self) -> Result<ShapeArgs> {
        let narrow = |v: usize, what: &str| {
            u32::try_from(v)
                .map_err(|_| Error::InvalidDimensions(format!("{v} {what} exceed 32 bits")))
        };
        Ok(ShapeArgs {
            width: narrow(self.width, "columns")?,
            height: narrow(self.height, "rows")?,
            depth: narrow(self.depth, "slices")?,
            images: narrow(self.images, "images")?,
            pixels: self.pixels() as u64,
        })
    }
}

/// `CclFilterShape`.
#[repr(C)]
#[derive(Clone, Copy)]
struct ShapeArgs {
    width: u32,
    height: u32,
    depth: u32,
    images: u32,
    pixels: u64,
}

// SAFETY: plain old data with C layout, matching CclFilterShape.
unsafe impl DeviceRepr for ShapeArgs {}

/// `CclFilterRanges`: a [`Filter`] as the kernels read it.
#[repr(C)]
#[derive(Clone, Copy)]
struct RangeArgs {
    min_size: u32,
    max_size: u32,
    min_extent: [u32; 3],
    max_extent: [u32; 3],
    largest: u32,
    padding: u32,
}

// SAFETY: plain old data with C layout, matching CclFilterRanges.
unsafe impl DeviceRepr for RangeArgs {}

impl From<&Filter> for RangeArgs {
    fn from(filter: &Filter) -> Self {
        Self {
            min_size: filter.min_size,
            max_size: filter.max_size,
            min_extent: filter.min_extent,
            max_extent: filter.max_extent,
            largest: filter.largest.unwrap_or(ALL),
            padding: 0,
        }
    }
}

/// `CclSelection`: one image's radix select.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Selection {
    max_key: u64,
    prefix: u64,
    threshold: u64,
    remaining: u32,
    done: u32,
}

// SAFETY: plain old data with C layout, matching CclSelection.
unsafe impl DeviceRepr for Selection {}
// SAFETY: all-zero bytes are a valid value of every field.
unsafe impl ValidAsZeroBits for Selection {}

/// A clean-up applied within a labeling
/// ([`DeviceVariant::label_filtered`](super::DeviceVariant::label_filtered)):
/// what is kept, and the filter's kernels and scratch that decide it.
pub struct Cleanup<'a, 'b> {
    /// The kernels and scratch.
    pub device: &'a mut DeviceFilter,
    /// What is kept.
    pub filter: &'a Filter,
    /// Where the mask of the kept pixels goes (a byte per pixel: 1 where
    /// kept, else 0), written by the last pass in place of the labels; `None`
    /// for the labels.
    pub mask: Option<DevPtr<u8>>,
    /// A batch's component count per image (one `u32` each, on the device):
    /// written by the labeling, read by the clean-up and rewritten with
    /// each image's kept count; `None` for one image.
    pub counts: Option<&'a mut CudaViewMut<'b, u32>>,
}

/// What a filter writes.
pub enum FilterOutput<'a, 'b> {
    /// The kept components' new labels over the labels, and the kept count
    /// of each image over the counts.
    Labels,
    /// 1 where a pixel's component is kept, 0 elsewhere (one byte per
    /// label); the labels and counts are left as they are.
    Mask(&'a mut CudaViewMut<'b, u8>),
}

type Records = DevPtr<DeviceVolumeStats>;

/// `ccl_filter_measure`'s: labels, shape, offsets, records, spans per row,
/// spans, what to measure.
type MeasureArgs = (DevPtr<u32>, ShapeArgs, DevPtr<u32>, Records, u32, u64, u32);

/// `ccl_filter_flag`'s and `ccl_filter_flag_ranked`'s: records, total,
/// offsets, images, ranges, keys, images of the keys, selections.
type FlagArgs<R> = (
    DevPtr<R>,
    u32,
    DevPtr<u32>,
    u32,
    RangeArgs,
    DevPtr<u64>,
    DevPtr<u32>,
    DevPtr<Selection>,
);

/// What [`DeviceFilter::renumber_ranked`] reads of each component, by rank.
#[derive(Clone, Copy)]
pub enum RankedFeatures {
    /// An analysis' features (the stats array of the shared back end).
    Stats(DevPtr<DeviceStats>),
    /// The areas alone ([`DeviceFilter::zeroed_areas`]), for a filter that
    /// reads no extent.
    Areas(DevPtr<u32>),
}

/// What a renumbering keeps, as the last pass reads it: the labels'
/// [`ccl_filter_apply`](DeviceFilter::run), or a labeling's own
/// (`ccl_root_label`, through [`RootIndexArgs`](super::RootIndexArgs)).
#[derive(Clone, Copy)]
pub enum Kept {
    /// Each component's new label (0: removed), by rank
    /// ([`RootIndexArgs::remap`](super::RootIndexArgs::remap)).
    Remap(DevPtr<u32>),
    /// One image's largest component alone: its selection key, whose low
    /// word is the complement of its rank (0 where none is kept;
    /// [`RootIndexArgs::largest`](super::RootIndexArgs::largest)). No table
    /// per component is written or read (8192^2 at g = 1, 10 %: 4.6
    /// million components).
    Largest(DevPtr<u64>),
}

/// The records the range test reads: measured from labels, or by rank.
#[derive(Clone, Copy)]
enum RecordsIn {
    Measured(Records),
    Ranked(RankedFeatures),
}

/// `ccl_filter_decide`'s: keys, images, total, selections, whether they
/// select, the renumbering, the kept per block and per image.
type DecideArgs = (
    DevPtr<u64>,
    DevPtr<u32>,
    u32,
    DevPtr<Selection>,
    u32,
    DevPtr<u32>,
    DevPtr<u32>,
    DevPtr<u32>,
);

struct Kernels {
    scan: Kernel<(DevPtr<u32>, DevPtr<u32>, DevPtr<u32>, u32)>,
    init: Kernel<(Records, u32, DevPtr<Selection>, u32, u32)>,
    measure: Kernel<MeasureArgs>,
    flag: Kernel<FlagArgs<DeviceVolumeStats>>,
    flag_ranked: Kernel<FlagArgs<DeviceStats>>,
    flag_areas: Kernel<FlagArgs<u32>>,
    histogram: Kernel<(
        DevPtr<u64>,
        DevPtr<u32>,
        u32,
        DevPtr<Selection>,
        DevPtr<u32>,
        u32,
    )>,
    select: Kernel<(DevPtr<u32>, DevPtr<Selection>, u32, u32)>,
    decide: Kernel<DecideArgs>,
    keep_largest: Kernel<(DevPtr<Selection>, DevPtr<u32>, DevPtr<u32>)>,
    number: Kernel<(
        DevPtr<u32>,
        u32,
        DevPtr<u32>,
        DevPtr<u32>,
        DevPtr<u32>,
        Records,
        Records,
    )>,
    apply: Kernel<(
        DevPtr<u32>,
        ShapeArgs,
        DevPtr<u32>,
        DevPtr<u32>,
        DevPtr<u64>,
        DevPtr<u8>,
    )>,
}

/// Filters canonical labels on the device; its scratch is kept for the
/// next call.
pub struct DeviceFilter {
    kernels: Kernels,
    /// Components before each image; the total after the last.
    offsets: DeviceBuffer<u32>,
    records: DeviceBuffer<DeviceVolumeStats>,
    kept_records: DeviceBuffer<DeviceVolumeStats>,
    keys: DeviceBuffer<u64>,
    image_of: DeviceBuffer<u32>,
    selection: DeviceBuffer<Selection>,
    histogram: DeviceBuffer<u32>,
    renumbering: DeviceBuffer<u32>,
    /// The areas by rank of [`zeroed_areas`](Self::zeroed_areas).
    areas: DeviceBuffer<u32>,
    block_kept: DeviceBuffer<u32>,
    block_offset: DeviceBuffer<u32>,
    kept_per_image: DeviceBuffer<u32>,
    /// Kept before each image; the kept total after the last.
    image_base: DeviceBuffer<u32>,
    /// Of the last run that kept the features of what it kept: its images,
    /// and whether it had any component.
    features: Option<(usize, bool)>,
}

impl DeviceFilter {
    /// Loads the kernels (compiled once per process and device).
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(Self {
            kernels: Kernels {
                scan: Kernel::load(gpu, &FEATURE_KERNELS, "ccl_scan_root_groups")?,
                init: Kernel::load(gpu, &KERNELS, "ccl_filter_init")?,
                measure: Kernel::load(gpu, &KERNELS, "ccl_filter_measure")?,
                flag: Kernel::load(gpu, &KERNELS, "ccl_filter_flag")?,
                flag_ranked: Kernel::load(gpu, &KERNELS, "ccl_filter_flag_ranked")?,
                flag_areas: Kernel::load(gpu, &KERNELS, "ccl_filter_flag_areas")?,
                histogram: Kernel::load(gpu, &KERNELS, "ccl_filter_histogram")?,
                select: Kernel::load(gpu, &KERNELS, "ccl_filter_select")?,
                decide: Kernel::load(gpu, &KERNELS, "ccl_filter_decide")?,
                keep_largest: Kernel::load(gpu, &KERNELS, "ccl_filter_keep_largest")?,
                number: Kernel::load(gpu, &KERNELS, "ccl_filter_number")?,
                apply: Kernel::load(gpu, &KERNELS, "ccl_filter_apply")?,
            },
            offsets: DeviceBuffer::new(),
            records: DeviceBuffer::new(),
            kept_records: DeviceBuffer::new(),
            keys: DeviceBuffer::new(),
            image_of: DeviceBuffer::new(),
            selection: DeviceBuffer::new(),
            histogram: DeviceBuffer::new(),
            renumbering: DeviceBuffer::new(),
            areas: DeviceBuffer::new(),
            block_kept: DeviceBuffer::new(),
            block_offset: DeviceBuffer::new(),
            kept_per_image: DeviceBuffer::new(),
            image_base: DeviceBuffer::new(),
            features: None,
        })
    }

    /// Applies `filter` to `labels`, canonical labels of `shape` (each
    /// image numbered 1..=`counts[i]`; a label above its image's count is
    /// not a component and is removed), writing `output`. With
    /// `with_features`, the kept components' features are gathered for
    /// [`read_features`](Self::read_features). Queued on `stream`; waits
    /// only for the component total (one read-back), and not even for that
    /// where the caller holds one image's count on the host and passes it
    /// as `count`: it is then written to `counts[0]` here, so that the
    /// total the scratch is sized by and the counts the kernels read agree.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a `count` with more than one image;
    /// [`Error::InvalidDimensions`] where the buffers are too small for
    /// `shape`; those of [`Filter::check`].
    #[allow(clippy::too_many_arguments)] // the labels, their shape and the request, apart
    pub fn run(
        &mut self,
        stream: &Arc<CudaStream>,
        labels: &mut CudaViewMut<'_, u32>,
        counts: &mut CudaViewMut<'_, u32>,
        count: Option<u32>,
        shape: LabelShape,
        filter: &Filter,
        output: FilterOutput<'_, '_>,
        with_features: bool,
    ) -> Result<()> {
        filter.check()?;
        if count.is_some() && shape.images != 1 {
            return Err(Error::InvalidArgument(format!(
                "a count known on the host is one image's; this shape has {} images",
                shape.images
            )));
        }
        self.features = None;
        let pixels = shape.pixels();
        let shape_args = shape.args()?;
        let images = shape_args.images;
        if labels.len() < pixels || counts.len() < shape.images {
            return Err(Error::InvalidDimensions(format!(
                "{} labels and {} counts for {} images of {} x {} x {}",
                labels.len(),
                counts.len(),
                shape.images,
                shape.width,
                shape.height,
                shape.depth
            )));
        }
        // Written before any early return: the caller reads the kept count
        // back from `counts[0]`.
        if let Some(count) = count {
            stream
                .memcpy_htod(&[count], &mut counts.slice_mut(..1))
                .map_err(cuda_error)?;
        }
        let mask = match output {
            FilterOutput::Mask(mask) if mask.len() < pixels => {
                return Err(Error::InvalidDimensions(format!(
                    "a mask of {} bytes for {pixels} labels",
                    mask.len()
                )));
            }
            FilterOutput::Mask(mask) => Some(DevPtr::of_mut(mask, stream)),
            FilterOutput::Labels => None,
        };
        if pixels == 0 {
            return Ok(());
        }
        if mask.is_none() && filter.keeps_all() && !with_features {
            return Ok(());
        }
        let labels = DevPtr::of_mut(labels, stream);
        let counts_ptr = DevPtr::of_mut(counts, stream);

        // Offsets of each image's components, and their total.
        let offsets = DevPtr::of_mut(self.offsets.reserve(stream, shape.images + 1)?, stream);
        let end = DevPtr::from_address(offsets.address() + 4 * u64::from(images));
        self.scan(stream, counts_ptr, offsets, end, images)?;
        let total = match count {
            Some(count) => count,
            None => {
                let total_at = self.offsets.get()?.slice(shape.images..shape.images + 1);
                stream.clone_dtoh(&total_at).map_err(cuda_error)?[0]
            }
        };
        let total_items = total as usize;

        let records = DevPtr::of_mut(self.records.reserve(stream, total_items)?, stream);
        let selection = DevPtr::of_mut(self.selection.reserve(stream, shape.images)?, stream);
        let largest = filter.largest.unwrap_or(ALL);
        let measure = Measure::of(filter, with_features);
        let mut ranges = RangeArgs::from(filter);
        if measure == Measure::Area {
            // No extent range is read (min extents <= 1, max extents
            // unbounded: every component passes), but the records' boxes stay
            // empty: the test passes every extent, an empty box's too.
            ranges.min_extent = [0; 3];
            ranges.max_extent = [u32::MAX; 3];
        }
        // A warp per span of SPAN_CHUNKS * 32 columns of a row, the last of
        // each row shorter; spans <= pixels, as a row has at least one column
        // per span.
        let spans_per_row = shape_args.width.div_ceil(SPAN_CHUNKS * 32);
        let spans = pixels / shape.width * spans_per_row as usize;
        // At most CUDA's 2^31 - 1 blocks: past them (more than 2^34 spans,
        // narrow images only), each block walks several rounds of spans.
        let grid_spans = spans.min(i32::MAX as usize * MEASURE_WARPS as usize);
        // SAFETY: (this launch and those below) the buffers were reserved above or
        // here for `total` components, `images` images and `pixels` labels,
        // the sizes the kernels index by (the measure's spans tile the
        // `pixels / width` rows of `width` labels, and no more); `labels`,
        // `counts` and `mask` hold as many (checked).
        unsafe {
            self.kernels.init.launch(
                stream,
                linear_grid(total_items.max(shape.images), 256)?,
                (records, total, selection, images, largest),
            )?;
            self.kernels.measure.launch(
                stream,
                warp_grid(grid_spans, MEASURE_WARPS)?,
                (
                    labels,
                    shape_args,
                    offsets,
                    records,
                    spans_per_row,
                    spans as u64,
                    measure as u32,
                ),
            )?;
        }
        let kept = self.renumber(
            stream,
            RecordsIn::Measured(records),
            total,
            offsets,
            images,
            ranges,
            SelectionKind::of(filter),
            with_features,
        )?;
        let (renumbering, largest_key) = match kept {
            Kept::Remap(renumbering) => (renumbering, DevPtr::null()),
            Kept::Largest(key) => (DevPtr::null(), key),
        };
        // SAFETY: the labels and the mask hold `pixels` entries (checked);
        // `offsets` an entry per image and one past, `renumbering` one per
        // component, or `largest_key` one image's key.
        unsafe {
            let writes_labels = mask.is_none();
            if total > 0 || !writes_labels {
                self.kernels.apply.launch(
                    stream,
                    linear_grid(pixels, 256)?,
                    (
                        labels,
                        shape_args,
                        offsets,
                        renumbering,
                        largest_key,
                        mask.unwrap_or_else(DevPtr::null),
                    ),
                )?;
            }
            if writes_labels && total > 0 {
                stream
                    .memcpy_dtod(
                        &self.kept_per_image.get()?.slice(..shape.images),
                        &mut counts.slice_mut(..shape.images),
                    )
                    .map_err(cuda_error)?;
            }
        }
        if with_features {
            self.features = Some((shape.images, total > 0));
        }
        Ok(())
    }

    /// The features of the components the last run kept (with features),
    /// image after image, each in its new label order; z is the slice
    /// within the image. A read-back: waits for the stream.
    pub fn read_features(&self, stream: &Arc<CudaStream>) -> Result<Vec<VolumeStats>> {
        let (images, any) = self.features.ok_or_else(ccl_core::not_run)?;
        if !any {
            return Ok(Vec::new());
        }
        let kept = stream
            .clone_dtoh(&self.image_base.get()?.slice(images..images + 1))
            .map_err(cuda_error)?[0] as usize;
        if kept == 0 {
            return Ok(Vec::new());
        }
        let records = stream
            .clone_dtoh(&self.kept_records.get()?.slice(..kept))
            .map_err(cuda_error)?;
        Ok(records.into_iter().map(VolumeStats::from).collect())
    }

    /// A zeroed area per component (`count` of them, of one image or a
    /// batch), for a labeling to add its pixels to by rank, then
    /// [`renumber_ranked`](Self::renumber_ranked) to read
    /// ([`RankedFeatures::Areas`]). Queued on `stream`.
    pub fn zeroed_areas(&mut self, stream: &Arc<CudaStream>, count: usize) -> Result<DevPtr<u32>> {
        let areas = self.areas.reserve(stream, count.max(1))?;
        stream
            .memset_zeros(&mut areas.slice_mut(..count.max(1)))
            .map_err(cuda_error)?;
        Ok(DevPtr::of_mut(areas, stream))
    }

    /// Renumbers components by what `filter` keeps, from their features by
    /// rank (`total` of them: an analysis' as the shared back end leaves
    /// them, or the areas alone where `filter` reads no extent), of one
    /// image, or of a batch whose per-image counts are `counts` (one per
    /// image, on the device; rewritten with the kept counts): what is kept
    /// gives component r its new label 1..=k in its image, 0 where it is
    /// removed. It goes into a root index ([`Kept`]), through which a
    /// labeling's own last pass writes the kept labels with no pass over
    /// them here; [`kept_count`](Self::kept_count) reads one image's kept
    /// count. Queued on `stream`, without waiting.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for areas alone with a filter that reads
    /// extents; those of [`Filter::check`].
    pub fn renumber_ranked(
        &mut self,
        stream: &Arc<CudaStream>,
        features: RankedFeatures,
        total: u32,
        counts: Option<&mut CudaViewMut<'_, u32>>,
        filter: &Filter,
    ) -> Result<Kept> {
        filter.check()?;
        if matches!(features, RankedFeatures::Areas(_)) && filter.reads_extent() {
            return Err(Error::InvalidArgument(
                "a filter of extents reads the bounding boxes, not the areas alone".into(),
            ));
        }
        self.features = None;
        let images = counts.as_ref().map_or(1, |counts| counts.len());
        let images_u32 = u32::try_from(images)
            .map_err(|_| Error::InvalidDimensions(format!("a batch of {images} images")))?;
        let offsets_buffer = self.offsets.reserve(stream, images + 1)?;
        if counts.is_none() {
            // One image: its components begin at 0, and the range test
            // reads no other offset.
            stream
                .memset_zeros(&mut offsets_buffer.slice_mut(..1))
                .map_err(cuda_error)?;
        }
        let offsets = DevPtr::of_mut(offsets_buffer, stream);
        if let Some(counts) = &counts {
            let end = DevPtr::from_address(offsets.address() + 4 * u64::from(images_u32));
            self.scan(
                stream,
                DevPtr::of(*counts, stream),
                offsets,
                end,
                images_u32,
            )?;
        }
        let selection = DevPtr::of_mut(self.selection.reserve(stream, images)?, stream);
        // SAFETY: a selection per image, and no record (a total of 0) to
        // initialise.
        unsafe {
            self.kernels.init.launch(
                stream,
                linear_grid(images, 256)?,
                (
                    DevPtr::null(),
                    0,
                    selection,
                    images_u32,
                    filter.largest.unwrap_or(ALL),
                ),
            )?;
        }
        let kept = self.renumber(
            stream,
            RecordsIn::Ranked(features),
            total,
            offsets,
            images_u32,
            RangeArgs::from(filter),
            SelectionKind::of(filter),
            false,
        )?;
        if let Some(counts) = counts {
            self.copy_kept_counts(stream, counts)?;
        }
        Ok(kept)
    }

    /// The kept count of one image of the last [`run`](Self::run) or
    /// [`renumber_ranked`](Self::renumber_ranked) (a read-back: waits for
    /// the stream).
    pub fn kept_count(&self, stream: &Arc<CudaStream>) -> Result<usize> {
        let kept = self.kept_per_image.get()?.slice(..1);
        Ok(stream.clone_dtoh(&kept).map_err(cuda_error)?[0] as usize)
    }

    /// Copies the kept count of each image of the last run into `counts`
    /// (one per image), on the device.
    pub fn copy_kept_counts(
        &self,
        stream: &Arc<CudaStream>,
        counts: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let images = counts.len();
        stream
            .memcpy_dtod(&self.kept_per_image.get()?.slice(..images), counts)
            .map_err(cuda_error)
    }

    /// From the records of `total` components of `images` images (whose
    /// components begin at `offsets`; the selections initialised) on: the
    /// range test, the selection of the k largest, and the new labels, in
    /// the returned renumbering (one per component; one image's largest
    /// alone, its key), the kept per image in `kept_per_image` and before
    /// each image in `image_base`; with `with_features`, the kept records
    /// compacted (measured ones only).
    #[allow(clippy::too_many_arguments)] // the records, where they lie and the request, apart
    fn renumber(
        &mut self,
        stream: &Arc<CudaStream>,
        records: RecordsIn,
        total: u32,
        offsets: DevPtr<u32>,
        images: u32,
        ranges: RangeArgs,
        selection_kind: SelectionKind,
        with_features: bool,
    ) -> Result<Kept> {
        let total_items = total as usize;
        let image_count = images as usize;
        let selection = DevPtr::of_mut(self.selection.reserve(stream, image_count)?, stream);
        // Kept records are compacted from measured ones only.
        let keeps_records = with_features && matches!(records, RecordsIn::Measured(_));
        // The largest of one image is its largest key, which the flag's
        // block maxima find: no key, image or renumbering is written or
        // read (8192^2 at g = 1, 10 %: 4.6 million components, 73 MB).
        let largest_alone =
            selection_kind == SelectionKind::Largest && images == 1 && !keeps_records;
        let (keys, image_of) = if largest_alone {
            (DevPtr::null(), DevPtr::null())
        } else {
            (
                DevPtr::of_mut(self.keys.reserve(stream, total_items)?, stream),
                DevPtr::of_mut(self.image_of.reserve(stream, total_items)?, stream),
            )
        };
        // A grid needs a block: no launch without components.
        if total > 0 {
            let mut grid = linear_grid(total_items, 256)?;
            grid.grid_dim.0 = grid.grid_dim.0.min(FLAG_BLOCKS);
            // SAFETY: (this launch and those below) the buffers were
            // reserved here or by the caller for `total` components and
            // `images` images, the sizes the kernels index by; the records
            // hold `total`.
            unsafe {
                match records {
                    RecordsIn::Measured(records) => self.kernels.flag.launch(
                        stream,
                        grid,
                        (
                            records, total, offsets, images, ranges, keys, image_of, selection,
                        ),
                    ),
                    RecordsIn::Ranked(RankedFeatures::Stats(stats)) => {
                        self.kernels.flag_ranked.launch(
                            stream,
                            grid,
                            (
                                stats, total, offsets, images, ranges, keys, image_of, selection,
                            ),
                        )
                    }
                    RecordsIn::Ranked(RankedFeatures::Areas(areas)) => {
                        self.kernels.flag_areas.launch(
                            stream,
                            grid,
                            (
                                areas, total, offsets, images, ranges, keys, image_of, selection,
                            ),
                        )
                    }
                }?;
            }
        }
        if selection_kind == SelectionKind::Radix && total > 0 {
            let histogram = self.histogram.reserve(stream, 256 * image_count)?;
            let bins = 256 * image_count;
            for shift in (0..64).step_by(8).rev() {
                stream
                    .memset_zeros(&mut histogram.slice_mut(..bins))
                    .map_err(cuda_error)?;
                let bins_ptr = DevPtr::of_mut(histogram, stream);
                // SAFETY: as above; the histogram holds 256 bins per image.
                unsafe {
                    self.kernels.histogram.launch(
                        stream,
                        linear_grid(total_items.div_ceil(HISTOGRAM_ITEMS as usize) * 256, 256)?,
                        (keys, image_of, total, selection, bins_ptr, shift),
                    )?;
                    self.kernels.select.launch(
                        stream,
                        linear_grid(image_count, 256)?,
                        (bins_ptr, selection, images, shift),
                    )?;
                }
            }
        }
        let image_base = DevPtr::of_mut(self.image_base.reserve(stream, image_count + 1)?, stream);
        let kept_per_image = self.kept_per_image.reserve(stream, image_count)?;
        if largest_alone {
            let kept_per_image = DevPtr::of_mut(kept_per_image, stream);
            // SAFETY: one selection (the first, its largest key at its
            // start), one kept count and two bases.
            unsafe {
                self.kernels.keep_largest.launch(
                    stream,
                    linear_grid(1, 32)?,
                    (selection, kept_per_image, image_base),
                )?;
            }
            let key = selection.address() + std::mem::offset_of!(Selection, max_key) as u64;
            return Ok(Kept::Largest(DevPtr::from_address(key)));
        }
        stream
            .memset_zeros(&mut kept_per_image.slice_mut(..image_count))
            .map_err(cuda_error)?;
        let kept_per_image = DevPtr::of_mut(kept_per_image, stream);
        let blocks = total_items.div_ceil(NUMBER_BLOCK as usize);
        let renumbering = DevPtr::of_mut(
            self.renumbering.reserve(stream, total_items.max(1))?,
            stream,
        );
        let block_kept = DevPtr::of_mut(self.block_kept.reserve(stream, blocks)?, stream);
        let block_offset = self.block_offset.reserve(stream, blocks + 1)?;
        let block_offset = DevPtr::of_mut(block_offset, stream);
        let kept_records = if keeps_records {
            DevPtr::of_mut(self.kept_records.reserve(stream, total_items)?, stream)
        } else {
            DevPtr::null()
        };
        let blocks_u32 = u32::try_from(blocks)
            .map_err(|_| Error::InvalidDimensions("too many components".into()))?;
        // SAFETY: as above; `blocks` blocks of NUMBER_BLOCK components.
        unsafe {
            if total > 0 {
                let number_grid = LaunchConfig {
                    grid_dim: (blocks_u32, 1, 1),
                    block_dim: (NUMBER_BLOCK, 1, 1),
                    shared_mem_bytes: 0,
                };
                self.kernels.decide.launch(
                    stream,
                    number_grid,
                    (
                        keys,
                        image_of,
                        total,
                        selection,
                        selection_kind as u32,
                        renumbering,
                        block_kept,
                        kept_per_image,
                    ),
                )?;
                let kept_total =
                    DevPtr::from_address(block_offset.address() + 4 * u64::from(blocks_u32));
                self.scan(stream, block_kept, block_offset, kept_total, blocks_u32)?;
                let base_end = DevPtr::from_address(image_base.address() + 4 * u64::from(images));
                self.scan(stream, kept_per_image, image_base, base_end, images)?;
                self.kernels.number.launch(
                    stream,
                    number_grid,
                    (
                        renumbering,
                        total,
                        image_of,
                        block_offset,
                        image_base,
                        match records {
                            RecordsIn::Measured(records) => records,
                            // Not read: no kept records without features.
                            RecordsIn::Ranked(_) => DevPtr::null(),
                        },
                        kept_records,
                    ),
                )?;
            }
        }
        Ok(Kept::Remap(renumbering))
    }

    fn scan(
        &self,
        stream: &Arc<CudaStream>,
        values: DevPtr<u32>,
        exclusive: DevPtr<u32>,
        total: DevPtr<u32>,
        len: u32,
    ) -> Result<()> {
        let one_block = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: `values` and `exclusive` hold `len` entries, `total` one.
        unsafe {
            self.kernels
                .scan
                .launch(stream, one_block, (values, exclusive, total, len))
        }
    }
}
