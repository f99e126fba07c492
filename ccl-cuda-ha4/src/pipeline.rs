//! Launches the HA kernels of `ha4.cu` in order, on the shared stream, into
//! buffers that are reused across calls.

use std::sync::Arc;

use ccl_core::{ComponentStats, Error, Result};
use ccl_cuda::cudarc::driver::{CudaFunction, CudaViewMut, LaunchConfig, PushKernelArg};
use ccl_cuda::{
    DeviceBuffer, DeviceImage, DeviceStats, Gpu, KernelSource, StageClock, blocks, cuda_error,
    inventory,
};

use crate::HaVariant;

/// The kernels of every HA variant, compiled once per process.
pub(crate) const KERNELS: KernelSource = KernelSource {
    name: "ha4",
    source: include_str!("ha4.cu"),
};

inventory::submit! { KERNELS }

/// Words per group of the root ranking (`WORDS_PER_GROUP` in ha4.cu).
const WORDS_PER_GROUP: usize = 1024;
/// Words per span, the unit of work of a warp (`SPAN_WORDS` in ha4.cu).
const SPAN_WORDS: usize = 16;
/// Warps per block of the per-word kernels (blockDim 32 x 4).
const WARPS_PER_BLOCK: usize = 4;

struct Kernels {
    strip: CudaFunction,
    border: CudaFunction,
    stitch: CudaFunction,
    relabel: CudaFunction,
    count_roots: CudaFunction,
    scan_groups: CudaFunction,
    rank_roots: CudaFunction,
    features: CudaFunction,
}

impl Kernels {
    fn load(gpu: &Gpu, variant: HaVariant) -> Result<Self> {
        let label = variant.label_kernels();
        let word = variant.word_kernels();
        let f = |name: String| gpu.function(&KERNELS, &name);
        Ok(Self {
            strip: f(format!("{label}_strip"))?,
            border: f(format!("{label}_border"))?,
            stitch: f(format!("{label}_stitch"))?,
            relabel: f(format!("{word}_relabel"))?,
            count_roots: f(format!("{word}_count_roots"))?,
            scan_groups: f("ha_scan_groups".into())?,
            rank_roots: f(format!("{word}_rank_roots"))?,
            features: f(format!("{word}_features"))?,
        })
    }
}

/// A grid of `warps` warps in blocks of 32 x 4 threads.
fn warp_grid(warps: usize) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid_dim: (blocks(warps, WARPS_PER_BLOCK)?, 1, 1),
        block_dim: (32, WARPS_PER_BLOCK as u32, 1),
        shared_mem_bytes: 0,
    })
}

/// Kernels and scratch buffers of one variant.
pub(crate) struct Pipeline {
    variant: HaVariant,
    gpu: Arc<Gpu>,
    kernels: Kernels,
    forest: DeviceBuffer<u32>,
    root_bits: DeviceBuffer<u64>,
    group_count: DeviceBuffer<u32>,
    group_offset: DeviceBuffer<u32>,
    word_offset: DeviceBuffer<u32>,
    components: DeviceBuffer<u32>,
    stats: DeviceBuffer<DeviceStats>,
    /// Whether the last analysis had any pixel (an empty image launches nothing).
    analyzed_pixels: Option<bool>,
}

impl Pipeline {
    pub(crate) fn new(variant: HaVariant) -> Result<Self> {
        let gpu = ccl_cuda::gpu()?;
        let kernels = Kernels::load(&gpu, variant)?;
        Ok(Self {
            variant,
            gpu,
            kernels,
            forest: DeviceBuffer::new(),
            root_bits: DeviceBuffer::new(),
            group_count: DeviceBuffer::new(),
            group_offset: DeviceBuffer::new(),
            word_offset: DeviceBuffer::new(),
            components: DeviceBuffer::new(),
            stats: DeviceBuffer::new(),
            analyzed_pixels: None,
        })
    }

    pub(crate) fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    fn words_per_row(&self, image: &DeviceImage<'_>) -> usize {
        image.width().div_ceil(self.variant.word_bits() as usize)
    }

    /// Spans per row: each warp of the row-walking kernels takes one.
    fn spans_per_row(variant: HaVariant, image: &DeviceImage<'_>) -> usize {
        image
            .width()
            .div_ceil(SPAN_WORDS * variant.word_bits() as usize)
    }

    /// Strip labeling then border merge: the union-find forest of `image`
    /// in `forest`, held at local starts only.
    fn build_forest(
        variant: HaVariant,
        kernels: &Kernels,
        gpu: &Gpu,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        clock: &mut StageClock,
    ) -> Result<()> {
        let stream = gpu.stream();
        let (pitch, width, height) = image.kernel_dims();
        let spans = Self::spans_per_row(variant, image);
        let strip_grid = LaunchConfig {
            grid_dim: (blocks(image.height().div_ceil(4) * spans, 1)?, 1, 1),
            block_dim: (32, 4, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY (all launches below): the kernels read `height` rows of
        // `pitch` bytes (checked by DeviceImage) and write within width *
        // height labels (checked by callers).
        unsafe {
            stream
                .launch_builder(&kernels.strip)
                .arg(image.pixels())
                .arg(&pitch)
                .arg(&mut *forest)
                .arg(&width)
                .arg(&height)
                .launch(strip_grid)
        }
        .map_err(cuda_error)?;
        clock.mark("strip")?;
        let borders = (image.height() - 1) / 4;
        if borders > 0 {
            unsafe {
                stream
                    .launch_builder(&kernels.border)
                    .arg(image.pixels())
                    .arg(&pitch)
                    .arg(&mut *forest)
                    .arg(&width)
                    .arg(&height)
                    .launch(warp_grid(
                        borders * image.width().div_ceil(variant.word_bits() as usize),
                    )?)
            }
            .map_err(cuda_error)?;
        }
        let span_borders = (image.width() - 1) / (SPAN_WORDS * variant.word_bits() as usize);
        if span_borders > 0 {
            let threads = span_borders * image.height();
            unsafe {
                stream
                    .launch_builder(&kernels.stitch)
                    .arg(image.pixels())
                    .arg(&pitch)
                    .arg(&mut *forest)
                    .arg(&width)
                    .arg(&height)
                    .launch(LaunchConfig {
                        grid_dim: (blocks(threads, 128)?, 1, 1),
                        block_dim: (128, 1, 1),
                        shared_mem_bytes: 0,
                    })
            }
            .map_err(cuda_error)?;
        }
        clock.mark("border")?;
        Ok(())
    }

    /// Labels `image` into `labels` (width * height, raw root labels).
    pub(crate) fn label(
        &self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        clock: &mut StageClock,
    ) -> Result<()> {
        if labels.len() < image.pixel_count() {
            return Err(Error::InvalidDimensions(format!(
                "the label buffer holds {} labels, the image has {} pixels",
                labels.len(),
                image.pixel_count()
            )));
        }
        if image.is_empty() {
            return Ok(());
        }
        let (pitch, width, height) = image.kernel_dims();
        Self::build_forest(self.variant, &self.kernels, &self.gpu, image, labels, clock)?;
        let spans = image.height() * Self::spans_per_row(self.variant, image);
        // SAFETY: reads the image and rewrites exactly width * height labels.
        unsafe {
            self.gpu
                .stream()
                .launch_builder(&self.kernels.relabel)
                .arg(image.pixels())
                .arg(&pitch)
                .arg(&mut *labels)
                .arg(&width)
                .arg(&height)
                .launch(warp_grid(spans)?)
        }
        .map_err(cuda_error)?;
        clock.mark("relabel")?;
        Ok(())
    }

    /// Computes the features of `image`; they stay on the device until
    /// [`read_stats`](Self::read_stats).
    pub(crate) fn analyze(
        &mut self,
        image: &DeviceImage<'_>,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.analyzed_pixels = Some(!image.is_empty());
        if image.is_empty() {
            return Ok(());
        }
        let stream = self.gpu.stream().clone();
        let (pitch, width, height) = image.kernel_dims();
        let pixels = image.pixel_count();
        let words_per_row = self.words_per_row(image);
        let words = image.height() * words_per_row;
        let groups = words.div_ceil(WORDS_PER_GROUP);
        // A 4-connected checkerboard has the most components: ceil(pixels / 2).
        let max_components = pixels.div_ceil(2);

        let forest = self.forest.reserve(&stream, pixels)?;
        let mut forest = forest.slice_mut(..pixels);
        let root_bits = self.root_bits.reserve(&stream, words)?;
        let group_count = self.group_count.reserve(&stream, groups)?;
        let group_offset = self.group_offset.reserve(&stream, groups)?;
        let word_offset = self.word_offset.reserve(&stream, words)?;
        let components = self.components.reserve(&stream, 1)?;
        let stats = self.stats.reserve(&stream, max_components)?;

        Self::build_forest(
            self.variant,
            &self.kernels,
            &self.gpu,
            image,
            &mut forest,
            clock,
        )?;
        let spans = image.height() * Self::spans_per_row(self.variant, image);
        let (words_u32, words_per_row_u32, groups_u32) = (
            u32::try_from(words).map_err(|_| too_many("words"))?,
            u32::try_from(words_per_row).map_err(|_| too_many("words"))?,
            u32::try_from(groups).map_err(|_| too_many("groups"))?,
        );
        stream
            .memset_zeros(&mut group_count.slice_mut(..groups))
            .map_err(cuda_error)?;
        // SAFETY (all launches below): every buffer was reserved above with
        // the sizes the kernels index: root_bits / word_offset per word,
        // group_count / group_offset per group, stats per component.
        unsafe {
            stream
                .launch_builder(&self.kernels.count_roots)
                .arg(image.pixels())
                .arg(&pitch)
                .arg(&mut forest)
                .arg(&width)
                .arg(&height)
                .arg(&mut *root_bits)
                .arg(&mut *group_count)
                .launch(warp_grid(spans)?)
        }
        .map_err(cuda_error)?;
        unsafe {
            stream
                .launch_builder(&self.kernels.scan_groups)
                .arg(&*group_count)
                .arg(&mut *group_offset)
                .arg(&mut *components)
                .arg(&groups_u32)
                .launch(LaunchConfig {
                    grid_dim: (1, 1, 1),
                    block_dim: (1024, 1, 1),
                    shared_mem_bytes: 0,
                })
        }
        .map_err(cuda_error)?;
        unsafe {
            stream
                .launch_builder(&self.kernels.rank_roots)
                .arg(&*root_bits)
                .arg(&*group_offset)
                .arg(&mut *word_offset)
                .arg(&mut *stats)
                .arg(&words_u32)
                .arg(&words_per_row_u32)
                .launch(LaunchConfig {
                    grid_dim: (groups_u32, 1, 1),
                    block_dim: (WORDS_PER_GROUP as u32, 1, 1),
                    shared_mem_bytes: 0,
                })
        }
        .map_err(cuda_error)?;
        clock.mark("roots")?;
        unsafe {
            stream
                .launch_builder(&self.kernels.features)
                .arg(image.pixels())
                .arg(&pitch)
                .arg(&mut forest)
                .arg(&width)
                .arg(&height)
                .arg(&*root_bits)
                .arg(&*word_offset)
                .arg(&mut *stats)
                .launch(warp_grid(spans)?)
        }
        .map_err(cuda_error)?;
        clock.mark("features")?;
        Ok(())
    }

    /// Copies the features of the last analysis to the host.
    pub(crate) fn read_stats(&self) -> Result<Vec<ComponentStats>> {
        match self.analyzed_pixels {
            None => Err(ccl_core::not_run()),
            Some(false) => Ok(Vec::new()),
            Some(true) => {
                let stream = self.gpu.stream();
                let count = stream
                    .clone_dtoh(&self.components.get()?.slice(..1))
                    .map_err(cuda_error)?[0] as usize;
                if count == 0 {
                    return Ok(Vec::new());
                }
                let stats = stream
                    .clone_dtoh(&self.stats.get()?.slice(..count))
                    .map_err(cuda_error)?;
                Ok(stats.into_iter().map(ComponentStats::from).collect())
            }
        }
    }
}

fn too_many(what: &str) -> Error {
    Error::InvalidDimensions(format!("the image has too many {what} for 32-bit indices"))
}
