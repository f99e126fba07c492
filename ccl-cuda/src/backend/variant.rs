//! The variant layer: a CUDA variant implements [`DeviceVariant`] (its
//! device-resident stages), and [`CudaVariant`] gives it everything else —
//! [`Labeler`], [`Analyzer`] and [`TimedRun`], the upload, the stage clock,
//! the checks against its registry entry, the shared numbering of the
//! labels and the shared analysis, and the read-back. [`register_variant!`](crate::register_variant) makes its
//! registry entry.

use std::sync::Arc;
use std::time::Instant;

use ccl_core::{
    Analyzer, BinaryImage, BinaryVolume, ComponentStats, Connectivity, Error, Filter, LabelImage,
    LabelVolume, Labeler, Result, StageTime, Task, TimedRun, VolumeStats, check_connectivity,
    not_loaded, not_run,
};
use cudarc::driver::{CudaStream, CudaView, CudaViewMut};

use super::bits::BitImageArgs;
use super::features::{Analyzed, Features, Filtered, Numbered};
use super::filter::{Cleanup, DeviceFilter, FilterOutput, LabelShape};
use super::stats::DeviceStats;
use super::volume::{DeviceVolumeStats, Slices, VolumeFeatures, with_rows};
use crate::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, StageClock, cuda_error, upload_image,
};

/// What each device-resident call of a variant runs with.
pub struct Run<'a> {
    /// The stream every launch goes on (the one the variant was made for).
    pub stream: &'a Arc<CudaStream>,
    /// The connectivity asked for; one the registry entry declares.
    pub connectivity: Connectivity,
    /// Marks the end of each stage (records nothing when untimed).
    pub clock: &'a mut StageClock,
    /// `Some` when the image is a volume's rows, slice after slice (see
    /// [`Slices`]): only for a variant that declares a volume's
    /// connectivity, and then always with one.
    pub slices: Option<Slices>,
    /// The image's bit image, already queued on the stream by a composite
    /// variant that looked at the image before it chose who labels it
    /// (`auto`); `None` (every other call): the variant packs the image
    /// itself, if it reads bits ([`BitImage::pack_for`]).
    ///
    /// [`BitImage::pack_for`]: super::BitImage::pack_for
    pub packed: Option<BitImageArgs>,
}

impl Run<'_> {
    /// The slices of a volume's (or a batch's) rows; an error where the
    /// call is an image's, which has none.
    pub fn volume_slices(&self) -> Result<Slices> {
        self.slices
            .ok_or_else(|| Error::InvalidArgument("a volume's analysis needs its slices".into()))
    }
}

/// The device-resident work of a CUDA variant. Images given to it have at
/// least one pixel and a size [`check_size`](Self::check_size) accepted;
/// every launch goes on `run.stream`.
pub trait DeviceVariant {
    /// Refuses, before any upload, sizes the variant cannot label. By
    /// default every size a [`DeviceImage`] can have is accepted.
    fn check_size(&self, _width: usize, _height: usize) -> Result<()> {
        Ok(())
    }

    /// Whether the variant labels a batch of images in one launch
    /// sequence: given an image's connectivity with `run.slices` (the
    /// images' rows one after the other), its forest joins no row of one
    /// slice to a row of another. [`CudaVariant`] then numbers the images
    /// apart in the variant's own last pass (`ccl_root_label`); without
    /// it, the images of a batch are labeled one after the other.
    fn labels_batches(&self) -> bool {
        false
    }

    /// Builds a forest of the contract of `ccl_device.cuh` over `image`'s
    /// pixels in `forest` (width × height, packed): every foreground pixel
    /// reaches its component's root, the component's first pixel in raster
    /// order, by its parents. Flat labels (1 + the raster index of the
    /// component's first pixel) are such a forest.
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()>;

    /// Writes the canonical labels of `image` into `labels` (width ×
    /// height, packed): 0 for background, 1..=N in raster order of each
    /// component's first pixel, with `forest` (as large, another buffer) as
    /// scratch. The labeling ends through `numbering`, whose ranking of the
    /// roots the last pass numbers the pixels with, so that the labels need
    /// no second pass. By default: [`forest`](Self::forest), then the shared
    /// finish ([`Features::number_forest`]: root flags, ranking, one pass);
    /// a variant with a last pass of its own flags its roots from
    /// [`Features::begin`] (or [`Features::flag_forest`]) on and writes each
    /// pixel's rank + 1 in that pass ([`RootsFlagged::number_with`]).
    ///
    /// [`RootsFlagged::number_with`]: super::features::RootsFlagged::number_with
    fn label(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
    ) -> Result<Numbered> {
        self.forest(run, image, forest)?;
        numbering.number_forest(run.stream, image, forest, labels, run.clock)
    }

    /// Whether [`label_filtered`](Self::label_filtered) is the variant's:
    /// whether its last pass writes the labels a clean-up keeps. Without it,
    /// [`CudaVariant::label_device_filtered`] labels and then filters the
    /// labels in passes of their own.
    fn filters_labels(&self) -> bool {
        false
    }

    /// Writes into `labels` the labels of `image` that `cleanup` keeps: as
    /// [`label`](Self::label), but only the components its filter keeps,
    /// numbered 1..=k in raster order of their first pixels, every other
    /// pixel 0. The variant gathers its features by rank, and its own last
    /// pass writes through a root index that maps each rank to its new
    /// label ([`RootsFlagged::number_filtered_with`]): no pass over the
    /// labels is added. Called only where
    /// [`filters_labels`](Self::filters_labels) says so, for one image (no
    /// `run.slices`) or, where the variant [labels batches](Self::labels_batches),
    /// a batch numbered apart (`cleanup.counts` then holds its counts); by
    /// default an error.
    ///
    /// [`RootsFlagged::number_filtered_with`]: super::features::RootsFlagged::number_filtered_with
    fn label_filtered(
        &mut self,
        _run: &mut Run<'_>,
        _image: &DeviceImage<'_>,
        _forest: &mut CudaViewMut<'_, u32>,
        _labels: &mut CudaViewMut<'_, u32>,
        _numbering: &mut Features,
        _cleanup: Cleanup<'_, '_>,
    ) -> Result<Filtered> {
        Err(Error::Unavailable(
            "this variant filters labels after labeling them, not in its last pass".into(),
        ))
    }

    /// Computes the features of `image` into `features`, with `forest`
    /// (width × height) as scratch, and returns the back end's proof that
    /// the analysis ran to its end. By default: [`forest`](Self::forest),
    /// then the shared back end ([`Features::analyze_forest`]); a variant
    /// with its own root flags or accumulation takes the steps from
    /// [`Features::begin`] on.
    fn analyze(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        features: &mut Features,
    ) -> Result<Analyzed> {
        self.forest(run, image, forest)?;
        features.analyze_forest(run.stream, image, forest, run.clock)
    }

    /// Computes the features of a volume (`rows`, sliced as
    /// `run.slices`) into `features`, with `forest` and `labels` (a voxel
    /// each) as scratch. By default: [`label`](Self::label) into `labels`,
    /// then one pass over them ([`VolumeFeatures::accumulate`]); a variant
    /// with its own accumulation ranks its roots and adds into
    /// [`VolumeFeatures::output`].
    fn analyze_volume(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
        features: &mut VolumeFeatures,
    ) -> Result<()> {
        let slices = run.volume_slices()?;
        self.label(run, rows, forest, labels, numbering)?;
        let count = numbering.component_count(run.stream)?;
        features.accumulate(
            run.stream,
            rows,
            &labels.as_view(),
            slices,
            count,
            run.clock,
        )
    }
}

/// The facts of a registry entry that [`CudaVariant`] checks calls against.
#[derive(Clone, Copy, Debug)]
pub struct VariantInfo {
    /// The registry name.
    pub name: &'static str,
    /// The connectivities it declares.
    pub connectivities: &'static [Connectivity],
    /// Whether it declares analysis.
    pub analyzes: bool,
}

impl VariantInfo {
    /// `Ok` when the variant performs `task` in `connectivity` on inputs
    /// of `dimensions` (2: images, 3: volumes).
    fn check(&self, task: Task, connectivity: Connectivity, dimensions: usize) -> Result<()> {
        check_connectivity(self.name, self.connectivities, connectivity)?;
        connectivity.check_dimensions(dimensions)?;
        if task == Task::Analyze && !self.analyzes {
            return Err(Error::UnsupportedTask {
                algorithm: self.name.into(),
                task,
            });
        }
        Ok(())
    }
}

/// A [`DeviceVariant`] bound to a GPU and a stream, with the buffers its
/// host-side and timed calls reuse.
pub struct CudaVariant<V> {
    info: VariantInfo,
    gpu: Arc<Gpu>,
    stream: Arc<CudaStream>,
    variant: V,
    /// The shared back end: the ranking that numbers the labels, and the
    /// features.
    features: Features,
    /// The uploaded image and its `(width, height, pitch)`.
    image: DeviceBuffer<u8>,
    geometry: Option<(usize, usize, usize)>,
    /// `Some` when the uploaded image is a volume's rows.
    slices: Option<Slices>,
    labels: DeviceBuffer<u32>,
    /// The component counts of a host batch's images.
    counts: DeviceBuffer<u32>,
    forest: DeviceBuffer<u32>,
    labeled: bool,
    /// A volume's features, from its canonical labels.
    volume_features: VolumeFeatures,
    /// The clean-up of [`label_device_filtered`](Self::label_device_filtered),
    /// loaded on its first use.
    filter: Option<DeviceFilter>,
}

impl<V: DeviceVariant> CudaVariant<V> {
    /// The variant on the default GPU's default stream; `make` compiles and
    /// loads its kernels. [`Error::NoCudaDevice`] where no GPU can be used.
    pub fn new(
        info: VariantInfo,
        make: impl FnOnce(&Arc<Gpu>, &Arc<CudaStream>) -> Result<V>,
    ) -> Result<Self> {
        let gpu = crate::runtime::default_gpu()?;
        let stream = gpu.default_stream();
        Self::on(gpu, stream, info, make)
    }

    /// The variant on `stream` of `gpu`, which all its work will use.
    pub fn on(
        gpu: Arc<Gpu>,
        stream: Arc<CudaStream>,
        info: VariantInfo,
        make: impl FnOnce(&Arc<Gpu>, &Arc<CudaStream>) -> Result<V>,
    ) -> Result<Self> {
        let variant = make(&gpu, &stream)?;
        let features = Features::new(&gpu)?;
        let volume_features = VolumeFeatures::new(&gpu)?;
        Ok(Self {
            info,
            gpu,
            stream,
            variant,
            features,
            image: DeviceBuffer::new(),
            geometry: None,
            slices: None,
            labels: DeviceBuffer::new(),
            counts: DeviceBuffer::new(),
            forest: DeviceBuffer::new(),
            labeled: false,
            volume_features,
            filter: None,
        })
    }

    /// The device-resident stages.
    pub fn variant(&self) -> &V {
        &self.variant
    }

    /// The GPU it runs on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// The stream all its work is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Device-resident labeling: `image` and `labels` (at least width ×
    /// height) are in device memory, ready in [`stream`](Self::stream)'s
    /// order; the canonical labels are left there and their count in
    /// [`component_count`](Self::component_count). Nothing is copied and
    /// nothing waits for the device; scratch is allocated only on the first
    /// call for a size. `clock` marks the variant's stages.
    pub fn label_device(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.info.check(Task::Label, connectivity, 2)?;
        self.variant.check_size(image.width(), image.height())?;
        self.features.set_label_stats(false);
        let mut parts = self.parts();
        parts.label(image, labels, connectivity, None, clock)
    }

    /// Device-resident labeling that keeps only what `filter` keeps: into
    /// `labels`, the kept components numbered 1..=k in raster order of
    /// their first pixels, every other pixel 0, as
    /// [`label_device`](Self::label_device) followed by a [`DeviceFilter`]
    /// gives them; with `mask` (a byte per pixel), 1 where a pixel is kept
    /// and 0 elsewhere into it instead, `labels` then the scratch. A variant
    /// that [filters labels](DeviceVariant::filters_labels) writes either
    /// in its own last pass, from its features by rank; any other labels,
    /// then filters in passes over the labels. Returns k (a read-back).
    /// [`component_count`](Self::component_count) stays the labeling's,
    /// before the clean-up.
    pub fn label_device_filtered(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        filter: &Filter,
        mask: Option<&mut CudaViewMut<'_, u8>>,
        clock: &mut StageClock,
    ) -> Result<usize> {
        self.info.check(Task::Label, connectivity, 2)?;
        let kept = self.filtered(image, None, labels, connectivity, filter, mask, clock)?;
        kept.ok_or_else(|| Error::Unavailable("one image's clean-up counted nothing".into()))
    }

    /// [`label_device_filtered`](Self::label_device_filtered) of a batch of
    /// images of one size, given as the image of their rows (as
    /// [`label_device_batch`](Self::label_device_batch)): each image cleaned
    /// on its own, its kept components numbered 1..=k_i into its plane of
    /// `labels` (or its mask into `mask`), and k_i into `counts[i]` (one
    /// `u32` per image), on the device. A variant that filters labels and
    /// labels batches does it in one launch sequence. Nothing waits for the
    /// device but the read-back of the component total.
    #[allow(clippy::too_many_arguments)] // the labels, their shape and the request, apart
    pub fn label_device_batch_filtered(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        counts: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        filter: &Filter,
        mask: Option<&mut CudaViewMut<'_, u8>>,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.info.check(Task::Label, connectivity, 2)?;
        check_slices(rows, slices)?;
        if counts.len() < slices.depth {
            return Err(Error::InvalidDimensions(format!(
                "{} counts for a batch of {} images",
                counts.len(),
                slices.depth
            )));
        }
        let mut counts = counts.slice_mut(..slices.depth);
        self.filtered(
            rows,
            Some((slices, &mut counts)),
            labels,
            connectivity,
            filter,
            mask,
            clock,
        )
        .map(|_| ())
    }

    /// The labeling with a clean-up of one image, whose kept count it
    /// returns (a read-back), or of a batch with its counts (`None`).
    #[allow(clippy::too_many_arguments)] // as `label_device_batch_filtered`
    fn filtered(
        &mut self,
        image: &DeviceImage<'_>,
        batch: Option<(Slices, &mut CudaViewMut<'_, u32>)>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        filter: &Filter,
        mask: Option<&mut CudaViewMut<'_, u8>>,
        clock: &mut StageClock,
    ) -> Result<Option<usize>> {
        self.variant.check_size(image.width(), image.height())?;
        filter.check()?;
        crate::backend::check_forest(labels.len(), image)?;
        let pixels = image.pixel_count();
        if let Some(mask) = &mask
            && mask.len() < pixels
        {
            return Err(Error::InvalidDimensions(format!(
                "a mask of {} bytes for {pixels} pixels",
                mask.len()
            )));
        }
        if self.filter.is_none() {
            self.filter = Some(DeviceFilter::new(&self.gpu)?);
        }
        let in_last_pass = self.variant.filters_labels()
            && !image.is_empty()
            && (batch.is_none() || self.variant.labels_batches());
        if !in_last_pass {
            return self.label_then_filter(image, batch, labels, connectivity, filter, mask, clock);
        }
        self.features.set_label_stats(false);
        let one_image = batch.is_none();
        let (slices, mut counts) = batch.unzip();
        let mask = mask.map(|mask| DevPtr::of_mut(mask, &self.stream));
        let forest = self.forest.reserve(&self.stream, pixels)?;
        self.features
            .set_batch_numbering(slices.map(|slices| slices.height))?;
        let mut result = Err(count_grew());
        for _ in 0..2 {
            let device = self.filter.as_mut().expect("loaded above");
            let mut run = Run {
                stream: &self.stream,
                connectivity,
                clock,
                slices,
                packed: None,
            };
            let filtered = self.variant.label_filtered(
                &mut run,
                image,
                &mut forest.slice_mut(..pixels),
                labels,
                &mut self.features,
                Cleanup {
                    device,
                    filter,
                    mask,
                    counts: counts.as_deref_mut(),
                },
            );
            match filtered {
                Ok(Filtered::Grown) => continue,
                Ok(Filtered::Numbered(_)) if one_image => {
                    result = device.kept_count(&self.stream).map(Some);
                }
                Ok(Filtered::Numbered(_)) => result = Ok(None),
                Err(error) => result = Err(error),
            }
            break;
        }
        self.features.set_batch_numbering(None)?;
        result
    }

    /// [`filtered`](Self::filtered) of a variant whose last pass does not
    /// filter (or of an image without pixels): the labels, then the
    /// filter's passes over them.
    #[allow(clippy::too_many_arguments)] // as `filtered`
    fn label_then_filter(
        &mut self,
        image: &DeviceImage<'_>,
        batch: Option<(Slices, &mut CudaViewMut<'_, u32>)>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        filter: &Filter,
        mask: Option<&mut CudaViewMut<'_, u8>>,
        clock: &mut StageClock,
    ) -> Result<Option<usize>> {
        let writes_mask = mask.is_some();
        let output = match mask {
            Some(mask) => FilterOutput::Mask(mask),
            None => FilterOutput::Labels,
        };
        match batch {
            Some((slices, counts)) => {
                self.parts()
                    .label_batch(image, slices, labels, counts, connectivity, clock)?;
                let shape = LabelShape {
                    width: image.width(),
                    height: slices.height,
                    depth: 1,
                    images: slices.depth,
                };
                let device = self.filter.as_mut().expect("loaded by the caller");
                device.run(
                    &self.stream,
                    labels,
                    counts,
                    None,
                    shape,
                    filter,
                    output,
                    false,
                )?;
                if writes_mask && shape.pixels() > 0 {
                    // A mask leaves the counts as they were; the filter
                    // counted the kept, which the labels' path writes there.
                    device.copy_kept_counts(&self.stream, counts)?;
                }
                Ok(None)
            }
            None => {
                self.label_device(image, labels, connectivity, clock)?;
                let count = self.component_count()?;
                let count = u32::try_from(count)
                    .map_err(|_| Error::InvalidDimensions(format!("{count} components")))?;
                let shape = LabelShape {
                    width: image.width(),
                    height: image.height(),
                    depth: 1,
                    images: 1,
                };
                let kept = self.counts.reserve(&self.stream, 1)?;
                let mut kept = kept.slice_mut(..1);
                let device = self.filter.as_mut().expect("loaded by the caller");
                device.run(
                    &self.stream,
                    labels,
                    &mut kept,
                    Some(count),
                    shape,
                    filter,
                    output,
                    false,
                )?;
                if writes_mask && shape.pixels() > 0 {
                    return device.kept_count(&self.stream).map(Some);
                }
                let kept = self.stream.clone_dtoh(&kept).map_err(cuda_error)?;
                Ok(Some(kept[0] as usize))
            }
        }
    }

    /// [`label_device`](Self::label_device), and the features of the labels
    /// from one pass over them, for every variant (an analyzing one or
    /// not): they stay on the device for [`device_stats`](Self::device_stats)
    /// and [`read_stats`](Self::read_stats). With `background` (one entry,
    /// zeroed before), the same pass adds the background's features there
    /// (x and y minima as complements). Reads back the component count
    /// (labels again in the rare case that the stats array had to grow).
    pub fn label_device_with_stats(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        background: Option<DevPtr<DeviceStats>>,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.info.check(Task::Label, connectivity, 2)?;
        self.variant.check_size(image.width(), image.height())?;
        if image.is_empty() {
            return Err(Error::InvalidDimensions(
                "an image without pixels has no features to gather".into(),
            ));
        }
        self.features.set_label_stats(true);
        let result = self.label_with_stats(image, labels, connectivity, background, clock);
        self.features.set_label_stats(false);
        result
    }

    fn label_with_stats(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        background: Option<DevPtr<DeviceStats>>,
        clock: &mut StageClock,
    ) -> Result<()> {
        for _ in 0..2 {
            let mut parts = self.parts();
            parts.label(image, labels, connectivity, None, clock)?;
            if self.features.complete(&self.stream)? {
                self.features
                    .accumulate_labels(&self.stream, image, labels, background, clock)?;
                return Ok(());
            }
        }
        Err(count_grew())
    }

    /// Device-resident labeling of a volume, given as the image of its rows
    /// (`rows`, slice after slice, sliced as `slices`): as
    /// [`label_device`](Self::label_device), in a volume's connectivity.
    pub fn label_device_volume(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.info.check(Task::Label, connectivity, 3)?;
        check_slices(rows, slices)?;
        self.variant.check_size(rows.width(), rows.height())?;
        self.features.set_label_stats(false);
        let mut parts = self.parts();
        parts.label(rows, labels, connectivity, Some(slices), clock)
    }

    /// Device-resident analysis of a volume given as the image of its rows:
    /// its canonical labels (into the variant's own buffer), then their
    /// features, left on the device for
    /// [`read_volume_stats`](Self::read_volume_stats).
    pub fn analyze_device_volume(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.info.check(Task::Analyze, connectivity, 3)?;
        check_slices(rows, slices)?;
        self.variant.check_size(rows.width(), rows.height())?;
        self.features.set_label_stats(false);
        let pixels = rows.pixel_count();
        // The labels buffer is the analysis's scratch: it no longer holds
        // the last labeling's labels.
        self.labeled = false;
        let labels = self.labels.reserve(&self.stream, pixels)?;
        let mut labels = labels.slice_mut(..pixels);
        let mut parts = Parts {
            variant: &mut self.variant,
            stream: &self.stream,
            forest: &mut self.forest,
            features: &mut self.features,
        };
        parts.analyze_volume(
            rows,
            slices,
            &mut labels,
            connectivity,
            &mut self.volume_features,
            clock,
        )
    }

    /// Device-resident labeling of a batch of images of one size, given as
    /// the image of their rows (`rows`, image after image, `slices.height`
    /// rows each) in an image's connectivity: each image's canonical labels
    /// (1..=n_i in its own raster order) into its plane of `labels`, and
    /// n_i into `counts[i]` (one `u32` per image), on the device. A variant
    /// that [labels batches](DeviceVariant::labels_batches) does it in one
    /// launch sequence, any other image by image. Nothing waits for the
    /// device.
    pub fn label_device_batch(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        counts: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.info.check(Task::Label, connectivity, 2)?;
        self.parts()
            .label_batch(rows, slices, labels, counts, connectivity, clock)
    }

    /// The features of every image of a batch given as the image of its
    /// rows (as [`label_device_batch`](Self::label_device_batch)), copied
    /// to the host: entry `i` holds image `i`'s components in its raster
    /// order, their y within the image. A variant that labels batches
    /// analyzes them in one launch sequence (a volume's analysis, whose z
    /// is the image), any other image by image. Waits for the stream.
    pub fn analyze_device_batch(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<Vec<Vec<ComponentStats>>> {
        self.info.check(Task::Analyze, connectivity, 2)?;
        // The labels buffer is the analysis's scratch.
        self.labeled = false;
        let labels = self.labels.reserve(&self.stream, rows.pixel_count())?;
        let mut labels = labels.slice_mut(..rows.pixel_count());
        let mut parts = Parts {
            variant: &mut self.variant,
            stream: &self.stream,
            forest: &mut self.forest,
            features: &mut self.features,
        };
        parts.analyze_batch(
            rows,
            slices,
            &mut labels,
            connectivity,
            &mut self.volume_features,
            clock,
        )
    }

    /// The features of the last volume analysis, in raster order of the
    /// components' first voxels.
    pub fn read_volume_stats(&self) -> Result<Vec<VolumeStats>> {
        self.volume_features.read(&self.stream)
    }

    /// The features of the last volume analysis where they lie on the
    /// device, in raster order of the components' first voxels; `None` when
    /// it found no component.
    pub fn device_volume_stats(&self) -> Result<Option<CudaView<'_, DeviceVolumeStats>>> {
        self.volume_features.device()
    }

    /// The number of components of the last labeling or analysis (a
    /// read-back: waits for the ranking that counts them, not for the
    /// passes queued after it, which later work on the stream follows).
    pub fn component_count(&self) -> Result<usize> {
        self.features.component_count(&self.stream)
    }

    /// Device-resident analysis of `image`; the features stay on the device
    /// until [`read_stats`](Self::read_stats). Returns once the features of
    /// every component are queued on the stream to be stored (it reads back
    /// the component count, and runs again in the rare case that the stats
    /// array had to grow).
    pub fn analyze_device(
        &mut self,
        image: &DeviceImage<'_>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.info.check(Task::Analyze, connectivity, 2)?;
        self.variant.check_size(image.width(), image.height())?;
        for _ in 0..2 {
            let mut parts = self.parts();
            parts.analyze(image, connectivity, None, clock)?;
            if self.features.complete(&self.stream)? {
                return Ok(());
            }
        }
        Err(count_grew())
    }

    /// The features of the last analysis (or labeling with stats), in
    /// raster order of the components' first pixels.
    pub fn read_stats(&self) -> Result<Vec<ComponentStats>> {
        self.features.read(&self.stream)
    }

    /// The features of the last [`analyze_device`](Self::analyze_device) or
    /// [`label_device_with_stats`](Self::label_device_with_stats) where they
    /// lie on the device; `None` when it found no component.
    pub fn device_stats(&self) -> Result<Option<CudaView<'_, DeviceStats>>> {
        self.features.device_stats(&self.stream)
    }

    /// The variant, its stream, scratch and back end, borrowed apart.
    fn parts(&mut self) -> Parts<'_, V> {
        Parts {
            variant: &mut self.variant,
            stream: &self.stream,
            forest: &mut self.forest,
            features: &mut self.features,
        }
    }

    fn load_image(&mut self, image: &BinaryImage<'_>) -> Result<()> {
        // Refused before the upload, not after it.
        self.variant.check_size(image.width(), image.height())?;
        let pitch = upload_image(&self.stream, &mut self.image, image)?;
        self.geometry = Some((image.width(), image.height(), pitch));
        self.slices = None;
        self.labeled = false;
        Ok(())
    }

    /// Uploads `volume` as the image of its rows.
    fn load_volume_rows(&mut self, volume: &BinaryVolume<'_>) -> Result<()> {
        with_rows(volume, |rows| self.load_image(rows))?;
        self.slices = Some(Slices {
            height: volume.height(),
            depth: volume.depth(),
        });
        Ok(())
    }

    /// Runs `task` once on the uploaded image.
    fn run_loaded(
        &mut self,
        task: Task,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        let (width, height, pitch) = self.geometry.ok_or_else(not_loaded)?;
        let image = DeviceImage::new(self.image.get()?.as_view(), width, height, pitch)?;
        // `parts()` field by field: `image` borrows the uploaded bytes.
        let mut parts = Parts {
            variant: &mut self.variant,
            stream: &self.stream,
            forest: &mut self.forest,
            features: &mut self.features,
        };
        let slices = self.slices;
        match (task, slices) {
            (Task::Label, _) => {
                self.labeled = false;
                let pixels = width * height;
                let labels = self.labels.reserve(&self.stream, pixels)?;
                let mut labels = labels.slice_mut(..pixels);
                parts.label(&image, &mut labels, connectivity, slices, clock)?;
                self.labeled = true;
            }
            (Task::Analyze, None) => {
                parts.analyze(&image, connectivity, None, clock)?;
            }
            (Task::Analyze, Some(slices)) => {
                // The labels buffer is the analysis's scratch.
                self.labeled = false;
                let pixels = width * height;
                let labels = self.labels.reserve(&self.stream, pixels)?;
                let mut labels = labels.slice_mut(..pixels);
                parts.analyze_volume(
                    &image,
                    slices,
                    &mut labels,
                    connectivity,
                    &mut self.volume_features,
                    clock,
                )?;
            }
        }
        Ok(())
    }

    /// Runs `task` on the uploaded image until its result is whole (an
    /// analysis that outgrew the stats array runs once more).
    fn run_whole(
        &mut self,
        task: Task,
        connectivity: Connectivity,
        timed: bool,
    ) -> Result<Vec<StageTime>> {
        let dimensions = if self.slices.is_some() { 3 } else { 2 };
        self.info.check(task, connectivity, dimensions)?;
        for _ in 0..2 {
            let mut clock = if timed {
                StageClock::start(&self.stream)?
            } else {
                StageClock::disabled()
            };
            self.run_loaded(task, connectivity, &mut clock)?;
            let stages = clock.finish()?;
            let complete = match task {
                Task::Analyze if self.slices.is_none() => self.features.complete(&self.stream)?,
                _ => true,
            };
            if complete {
                return Ok(stages);
            }
        }
        Err(count_grew())
    }

    fn read_labels(&self) -> Result<LabelImage> {
        let (width, height, _) = self.geometry.ok_or_else(not_loaded)?;
        if !self.labeled || self.slices.is_some() {
            return Err(not_run());
        }
        let pixels = width * height;
        let labels = if pixels == 0 {
            Vec::new()
        } else {
            self.stream
                .clone_dtoh(&self.labels.get()?.slice(..pixels))
                .map_err(cuda_error)?
        };
        LabelImage::new(width, height, labels)
    }
}

impl<V: DeviceVariant> CudaVariant<V> {
    /// The labels of the last labeling of an uploaded volume.
    fn read_volume_labels(&self) -> Result<LabelVolume> {
        let (width, _, _) = self.geometry.ok_or_else(not_loaded)?;
        let slices = self.slices.filter(|_| self.labeled).ok_or_else(not_run)?;
        let voxels = width * slices.height * slices.depth;
        let labels = if voxels == 0 {
            Vec::new()
        } else {
            self.stream
                .clone_dtoh(&self.labels.get()?.slice(..voxels))
                .map_err(cuda_error)?
        };
        LabelVolume::new(width, slices.height, slices.depth, labels)
    }
}

/// A [`CudaVariant`]'s variant, stream, scratch forest and back end,
/// borrowed apart from its other buffers.
struct Parts<'a, V> {
    variant: &'a mut V,
    stream: &'a Arc<CudaStream>,
    forest: &'a mut DeviceBuffer<u32>,
    features: &'a mut Features,
}

impl<V: DeviceVariant> Parts<'_, V> {
    /// Labels a device image canonically; for one without pixels, writes
    /// nothing and records no components.
    fn label(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        slices: Option<Slices>,
        clock: &mut StageClock,
    ) -> Result<()> {
        crate::backend::check_forest(labels.len(), image)?;
        if image.is_empty() {
            self.features.begin_empty();
            return Ok(());
        }
        let pixels = image.pixel_count();
        let forest = self.forest.reserve(self.stream, pixels)?;
        let mut run = Run {
            stream: self.stream,
            connectivity,
            clock,
            slices,
            packed: None,
        };
        let _numbered: Numbered = self.variant.label(
            &mut run,
            image,
            &mut forest.slice_mut(..pixels),
            labels,
            self.features,
        )?;
        Ok(())
    }

    /// Analyzes a device image once.
    fn analyze(
        &mut self,
        image: &DeviceImage<'_>,
        connectivity: Connectivity,
        slices: Option<Slices>,
        clock: &mut StageClock,
    ) -> Result<Analyzed> {
        if image.is_empty() {
            return Ok(self.features.begin_empty());
        }
        let pixels = image.pixel_count();
        let forest = self.forest.reserve(self.stream, pixels)?;
        let mut run = Run {
            stream: self.stream,
            connectivity,
            clock,
            slices,
            packed: None,
        };
        self.variant.analyze(
            &mut run,
            image,
            &mut forest.slice_mut(..pixels),
            self.features,
        )
    }
}

impl<V: DeviceVariant> Parts<'_, V> {
    /// [`CudaVariant::label_device_batch`], its connectivity checked.
    fn label_batch(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        counts: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        check_slices(rows, slices)?;
        if counts.len() < slices.depth {
            return Err(Error::InvalidDimensions(format!(
                "{} counts for a batch of {} images",
                counts.len(),
                slices.depth
            )));
        }
        self.variant.check_size(rows.width(), rows.height())?;
        self.features.set_label_stats(false);
        let mut counts = counts.slice_mut(..slices.depth);
        if rows.is_empty() {
            self.features.begin_empty();
            return self.stream.memset_zeros(&mut counts).map_err(cuda_error);
        }
        if self.variant.labels_batches() {
            self.features.set_batch_numbering(Some(slices.height))?;
            // Each image's count is written on the device; no total is read.
            self.features.set_count_to_host(false);
            let labeled = self
                .label(rows, labels, connectivity, Some(slices), clock)
                .and_then(|()| {
                    let counts = DevPtr::of_mut(&mut counts, self.stream);
                    self.features
                        .batch_counts(self.stream, slices.depth, counts)
                });
            self.features.set_count_to_host(true);
            self.features.set_batch_numbering(None)?;
            return labeled;
        }
        let plane = rows.width() * slices.height;
        for z in 0..slices.depth {
            let image = rows.rows(z * slices.height, slices.height)?;
            let mut plane_labels = labels.slice_mut(z * plane..(z + 1) * plane);
            self.label(&image, &mut plane_labels, connectivity, None, clock)?;
            self.features
                .copy_count(self.stream, &mut counts.slice_mut(z..z + 1))?;
        }
        Ok(())
    }

    /// [`CudaVariant::analyze_device_batch`], its connectivity checked,
    /// with `labels` (a pixel each) as scratch.
    fn analyze_batch(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        volume_features: &mut VolumeFeatures,
        clock: &mut StageClock,
    ) -> Result<Vec<Vec<ComponentStats>>> {
        check_slices(rows, slices)?;
        self.variant.check_size(rows.width(), rows.height())?;
        self.features.set_label_stats(false);
        let mut images = vec![Vec::new(); slices.depth];
        if rows.is_empty() {
            return Ok(images);
        }
        if self.variant.labels_batches() {
            self.analyze_volume(rows, slices, labels, connectivity, volume_features, clock)?;
            // Components in raster order of the batch: image after image.
            for stats in volume_features.read(self.stream)? {
                let image = images.get_mut(stats.z_min as usize).ok_or_else(|| {
                    Error::Unavailable("a component outside the batch's images".into())
                })?;
                image.push(ComponentStats {
                    area: stats.area,
                    x_min: stats.x_min,
                    y_min: stats.y_min,
                    x_max: stats.x_max,
                    y_max: stats.y_max,
                    sum_x: stats.sum_x,
                    sum_y: stats.sum_y,
                });
            }
            return Ok(images);
        }
        for (z, features) in images.iter_mut().enumerate() {
            let image = rows.rows(z * slices.height, slices.height)?;
            let mut complete = false;
            for _ in 0..2 {
                self.analyze(&image, connectivity, None, clock)?;
                complete = self.features.complete(self.stream)?;
                if complete {
                    break;
                }
            }
            if !complete {
                return Err(count_grew());
            }
            *features = self.features.read(self.stream)?;
        }
        Ok(images)
    }
}

/// `Ok` when `slices` cut exactly the rows of `rows`.
fn check_slices(rows: &DeviceImage<'_>, slices: Slices) -> Result<()> {
    if slices.height.checked_mul(slices.depth) != Some(rows.height()) {
        return Err(Error::InvalidDimensions(format!(
            "{} slices of {} rows are not the {} rows given",
            slices.depth,
            slices.height,
            rows.height()
        )));
    }
    Ok(())
}

impl<V: DeviceVariant> Parts<'_, V> {
    /// Analyzes a volume (the image of its rows) once, with `labels` as
    /// scratch; for one without voxels, records no components.
    fn analyze_volume(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        features: &mut VolumeFeatures,
        clock: &mut StageClock,
    ) -> Result<()> {
        if rows.is_empty() {
            features.output(self.stream, slices, 0)?;
            return Ok(());
        }
        let pixels = rows.pixel_count();
        let forest = self.forest.reserve(self.stream, pixels)?;
        let mut run = Run {
            stream: self.stream,
            connectivity,
            clock,
            slices: Some(slices),
            packed: None,
        };
        self.variant.analyze_volume(
            &mut run,
            rows,
            &mut forest.slice_mut(..pixels),
            labels,
            self.features,
            features,
        )
    }
}

/// The error of an analysis that outgrew its stats array twice: its
/// component count changed between two runs on one image.
fn count_grew() -> Error {
    Error::Cuda("the component count grew between two runs on one image".into())
}

impl<V: DeviceVariant> Labeler for CudaVariant<V> {
    fn label(&mut self, image: &BinaryImage<'_>, connectivity: Connectivity) -> Result<LabelImage> {
        self.info.check(Task::Label, connectivity, 2)?;
        self.load_image(image)?;
        self.run_whole(Task::Label, connectivity, false)?;
        self.read_labels()
    }

    fn label_volume(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<LabelVolume> {
        self.info.check(Task::Label, connectivity, 3)?;
        self.load_volume_rows(volume)?;
        self.run_whole(Task::Label, connectivity, false)?;
        self.read_volume_labels()
    }

    /// The batch uploaded as the image of its rows, labeled in one call of
    /// [`label_device_batch`](CudaVariant::label_device_batch).
    fn label_batch(
        &mut self,
        batch: &BinaryVolume<'_>,
        connectivity: Connectivity,
        labels: &mut [u32],
        counts: &mut [usize],
    ) -> Result<()> {
        self.info.check(Task::Label, connectivity, 2)?;
        ccl_core::check_batch_buffers(batch, connectivity, labels, counts)?;
        self.load_volume_rows(batch)?;
        let slices = self.slices.ok_or_else(not_loaded)?;
        let (width, height, pitch) = self.geometry.ok_or_else(not_loaded)?;
        let rows = DeviceImage::new(self.image.get()?.as_view(), width, height, pitch)?;
        let pixels = rows.pixel_count();
        let device_labels = self.labels.reserve(&self.stream, pixels.max(1))?;
        let mut device_labels = device_labels.slice_mut(..pixels);
        let device_counts = self.counts.reserve(&self.stream, slices.depth.max(1))?;
        let mut device_counts = device_counts.slice_mut(..slices.depth);
        let mut parts = Parts {
            variant: &mut self.variant,
            stream: &self.stream,
            forest: &mut self.forest,
            features: &mut self.features,
        };
        parts.label_batch(
            &rows,
            slices,
            &mut device_labels,
            &mut device_counts,
            connectivity,
            &mut StageClock::disabled(),
        )?;
        if pixels > 0 {
            self.stream
                .memcpy_dtoh(&device_labels, labels)
                .map_err(cuda_error)?;
        }
        let device_counts = self.stream.clone_dtoh(&device_counts).map_err(cuda_error)?;
        for (count, device) in counts.iter_mut().zip(device_counts) {
            *count = device as usize;
        }
        Ok(())
    }
}

impl<V: DeviceVariant> Analyzer for CudaVariant<V> {
    fn analyze(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<ComponentStats>> {
        self.info.check(Task::Analyze, connectivity, 2)?;
        self.load_image(image)?;
        self.run_whole(Task::Analyze, connectivity, false)?;
        self.read_stats()
    }

    fn analyze_volume(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<VolumeStats>> {
        self.info.check(Task::Analyze, connectivity, 3)?;
        self.load_volume_rows(volume)?;
        self.run_whole(Task::Analyze, connectivity, false)?;
        self.volume_features.read(&self.stream)
    }

    /// The batch uploaded as the image of its rows, analyzed in one call of
    /// [`analyze_device_batch`](CudaVariant::analyze_device_batch).
    fn analyze_batch(
        &mut self,
        batch: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<Vec<ComponentStats>>> {
        self.info.check(Task::Analyze, connectivity, 2)?;
        self.load_volume_rows(batch)?;
        let slices = self.slices.ok_or_else(not_loaded)?;
        let (width, height, pitch) = self.geometry.ok_or_else(not_loaded)?;
        let rows = DeviceImage::new(self.image.get()?.as_view(), width, height, pitch)?;
        let pixels = rows.pixel_count();
        let labels = self.labels.reserve(&self.stream, pixels.max(1))?;
        let mut labels = labels.slice_mut(..pixels);
        let mut parts = Parts {
            variant: &mut self.variant,
            stream: &self.stream,
            forest: &mut self.forest,
            features: &mut self.features,
        };
        parts.analyze_batch(
            &rows,
            slices,
            &mut labels,
            connectivity,
            &mut self.volume_features,
            &mut StageClock::disabled(),
        )
    }
}

impl<V: DeviceVariant> TimedRun for CudaVariant<V> {
    /// Uploads the image, timed from an idle stream to the end of the copy.
    fn load(&mut self, image: &BinaryImage<'_>) -> Result<f64> {
        self.stream.synchronize().map_err(cuda_error)?;
        let start = Instant::now();
        self.load_image(image)?;
        self.stream.synchronize().map_err(cuda_error)?;
        Ok(start.elapsed().as_secs_f64() * 1e3)
    }

    fn run(&mut self, task: Task, connectivity: Connectivity) -> Result<Vec<StageTime>> {
        self.run_whole(task, connectivity, true)
    }

    fn labels(&mut self) -> Result<LabelImage> {
        self.read_labels()
    }

    fn stats(&mut self) -> Result<Vec<ComponentStats>> {
        if self.slices.is_some() {
            return Err(not_run());
        }
        self.read_stats()
    }

    /// Uploads the volume's rows, timed as [`load`](TimedRun::load).
    fn load_volume(&mut self, volume: &BinaryVolume<'_>) -> Result<f64> {
        self.stream.synchronize().map_err(cuda_error)?;
        let start = Instant::now();
        self.load_volume_rows(volume)?;
        self.stream.synchronize().map_err(cuda_error)?;
        Ok(start.elapsed().as_secs_f64() * 1e3)
    }

    fn volume_labels(&mut self) -> Result<LabelVolume> {
        self.read_volume_labels()
    }

    fn volume_stats(&mut self) -> Result<Vec<VolumeStats>> {
        if self.slices.is_none() {
            return Err(not_run());
        }
        self.volume_features.read(&self.stream)
    }
}

/// A CUDA variant of any type, bound to a GPU and a stream: what a caller
/// that picks variants by name ([`variant_on`](crate::backend::variant_on)) and
/// brings its own device memory ([`ArrayLabeler`](crate::interop::ArrayLabeler))
/// needs of one. Every [`CudaVariant`] is one.
pub trait DynVariant: Send {
    /// Its registry facts.
    fn info(&self) -> VariantInfo;

    /// The GPU it runs on.
    fn gpu(&self) -> &Arc<Gpu>;

    /// The stream all its work is queued on.
    fn stream(&self) -> &Arc<CudaStream>;

    /// [`CudaVariant::label_device`].
    fn label_device(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()>;

    /// [`CudaVariant::label_device_filtered`].
    fn label_device_filtered(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        filter: &Filter,
        mask: Option<&mut CudaViewMut<'_, u8>>,
        clock: &mut StageClock,
    ) -> Result<usize>;

    /// [`CudaVariant::label_device_batch_filtered`].
    #[allow(clippy::too_many_arguments)] // as the method it forwards to
    fn label_device_batch_filtered(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        counts: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        filter: &Filter,
        mask: Option<&mut CudaViewMut<'_, u8>>,
        clock: &mut StageClock,
    ) -> Result<()>;

    /// [`CudaVariant::label_device_with_stats`].
    fn label_device_with_stats(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        background: Option<DevPtr<DeviceStats>>,
        clock: &mut StageClock,
    ) -> Result<()>;

    /// [`CudaVariant::label_device_volume`].
    fn label_device_volume(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()>;

    /// [`CudaVariant::label_device_batch`].
    fn label_device_batch(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        counts: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()>;

    /// [`CudaVariant::analyze_device_batch`].
    fn analyze_device_batch(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<Vec<Vec<ComponentStats>>>;

    /// [`CudaVariant::analyze_device_volume`].
    fn analyze_device_volume(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()>;

    /// [`CudaVariant::device_volume_stats`].
    fn device_volume_stats(&self) -> Result<Option<CudaView<'_, DeviceVolumeStats>>>;

    /// [`CudaVariant::component_count`].
    fn component_count(&self) -> Result<usize>;

    /// [`CudaVariant::analyze_device`].
    fn analyze_device(
        &mut self,
        image: &DeviceImage<'_>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()>;

    /// [`CudaVariant::device_stats`].
    fn device_stats(&self) -> Result<Option<CudaView<'_, DeviceStats>>>;
}

impl<V: DeviceVariant + Send> DynVariant for CudaVariant<V> {
    fn info(&self) -> VariantInfo {
        self.info
    }

    fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    fn label_device(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        CudaVariant::label_device(self, image, labels, connectivity, clock)
    }

    fn label_device_filtered(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        filter: &Filter,
        mask: Option<&mut CudaViewMut<'_, u8>>,
        clock: &mut StageClock,
    ) -> Result<usize> {
        CudaVariant::label_device_filtered(self, image, labels, connectivity, filter, mask, clock)
    }

    fn label_device_batch_filtered(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        counts: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        filter: &Filter,
        mask: Option<&mut CudaViewMut<'_, u8>>,
        clock: &mut StageClock,
    ) -> Result<()> {
        CudaVariant::label_device_batch_filtered(
            self,
            rows,
            slices,
            labels,
            counts,
            connectivity,
            filter,
            mask,
            clock,
        )
    }

    fn label_device_with_stats(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        background: Option<DevPtr<DeviceStats>>,
        clock: &mut StageClock,
    ) -> Result<()> {
        CudaVariant::label_device_with_stats(self, image, labels, connectivity, background, clock)
    }

    fn label_device_volume(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        CudaVariant::label_device_volume(self, rows, slices, labels, connectivity, clock)
    }

    fn label_device_batch(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        labels: &mut CudaViewMut<'_, u32>,
        counts: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        CudaVariant::label_device_batch(self, rows, slices, labels, counts, connectivity, clock)
    }

    fn analyze_device_batch(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<Vec<Vec<ComponentStats>>> {
        CudaVariant::analyze_device_batch(self, rows, slices, connectivity, clock)
    }

    fn analyze_device_volume(
        &mut self,
        rows: &DeviceImage<'_>,
        slices: Slices,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        CudaVariant::analyze_device_volume(self, rows, slices, connectivity, clock)
    }

    fn device_volume_stats(&self) -> Result<Option<CudaView<'_, DeviceVolumeStats>>> {
        CudaVariant::device_volume_stats(self)
    }

    fn component_count(&self) -> Result<usize> {
        CudaVariant::component_count(self)
    }

    fn analyze_device(
        &mut self,
        image: &DeviceImage<'_>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        CudaVariant::analyze_device(self, image, connectivity, clock)
    }

    fn device_stats(&self) -> Result<Option<CudaView<'_, DeviceStats>>> {
        CudaVariant::device_stats(self)
    }
}

/// Registers a CUDA variant: its registry entry, whose constructors make a
/// [`CudaVariant`] on the default GPU with `new(gpu, stream)`, and its
/// [`DeviceRegistration`](crate::backend::DeviceRegistration), which makes one on a
/// caller's GPU and stream.
///
/// ```ignore
/// ccl_cuda::register_variant! {
///     name: "ha4-32",
///     aliases: &[],                      // optional: former names
///     connectivities: &[Connectivity::Four],
///     analyzes: true,                    // false: labels only
///     summary: "HA4, … (Hennequin et al., DASIP 2018)",
///     priority: 60,
///     preferred_for: &[(Task::Label, Connectivity::Four)], // optional
///     probe: my_probe,                   // optional: default ccl_cuda::runtime::probe
///     new: |gpu, _stream| Ha::new(gpu, HaVariant::Ha4W32),
/// }
/// ```
#[macro_export]
macro_rules! register_variant {
    (
        name: $name:expr,
        $(aliases: $aliases:expr,)?
        connectivities: $connectivities:expr,
        analyzes: $analyzes:expr,
        summary: $summary:expr,
        priority: $priority:expr,
        $(preferred_for: $preferred_for:expr,)?
        $(probe: $probe:expr,)?
        new: $new:expr $(,)?
    ) => {
        const _: () = {
            use $crate::ccl_core as core;
            const REGISTERED: $crate::backend::VariantInfo = $crate::backend::VariantInfo {
                name: $name,
                connectivities: $connectivities,
                analyzes: $analyzes,
            };
            fn make() -> core::Result<
                ::std::boxed::Box<$crate::backend::CudaVariant<impl $crate::backend::DeviceVariant + 'static>>,
            > {
                Ok(::std::boxed::Box::new($crate::backend::CudaVariant::new(REGISTERED, $new)?))
            }
            fn make_on(
                gpu: ::std::sync::Arc<$crate::runtime::Gpu>,
                stream: ::std::sync::Arc<$crate::cudarc::driver::CudaStream>,
            ) -> core::Result<::std::boxed::Box<dyn $crate::backend::DynVariant>> {
                ($crate::register_variant!(@probe $($probe)?))()?;
                Ok(::std::boxed::Box::new($crate::backend::CudaVariant::on(gpu, stream, REGISTERED, $new)?))
            }
            $crate::inventory::submit! {
                $crate::backend::DeviceRegistration { name: $name, make: make_on }
            }
            $crate::inventory::submit! {
                core::Algorithm {
                    name: $name,
                    aliases: $crate::register_variant!(@aliases $($aliases)?),
                    crate_name: env!("CARGO_PKG_NAME"),
                    backend: core::Backend::Cuda,
                    connectivities: $connectivities,
                    summary: $summary,
                    priority: $priority,
                    preferred_for: $crate::register_variant!(@preferred_for $($preferred_for)?),
                    probe: $crate::register_variant!(@probe $($probe)?),
                    labeler: Some(|| Ok(make()? as ::std::boxed::Box<dyn core::Labeler>)),
                    analyzer: if $analyzes {
                        Some(|| Ok(make()? as ::std::boxed::Box<dyn core::Analyzer>))
                    } else {
                        None
                    },
                    timed: || Ok(make()? as ::std::boxed::Box<dyn core::TimedRun>),
                }
            }
        };
    };
    (@aliases) => { &[] };
    (@aliases $aliases:expr) => { $aliases };
    (@preferred_for) => { &[] };
    (@preferred_for $preferred_for:expr) => { $preferred_for };
    (@probe) => { $crate::runtime::probe };
    (@probe $probe:expr) => { $probe };
}
