//! [`Ha`]: the device-resident stages of every HA variant, launching the
//! kernels of `ha4.cu` in order.

use std::sync::Arc;

use ccl_core::{Error, Result};
use ccl_cuda::backend::{
    Analyzed, BitImage, BitImageArgs, CudaVariant, DeviceNode, DeviceVariant, Features, Numbered,
    Ranked, RootIndexArgs, RootLayout, RootsFlagged, Run, StatsOutArgs, check_forest,
};
use ccl_cuda::cudarc::driver::{CudaStream, CudaViewMut, LaunchConfig};
use ccl_cuda::inventory;
use ccl_cuda::runtime::{
    DevPtr, DeviceImage, Gpu, Kernel, KernelArgs, KernelSource, blocks, linear_grid, warp_grid,
};

use crate::HaVariant;

/// Rows per strip: a block of this many warps labels a strip.
const STRIP_ROWS: usize = 4;
/// Words per span, the unit of work of a warp walking a row.
const SPAN_WORDS: usize = 16;
/// Warps per block of the per-word and per-span kernels.
const WARPS_PER_BLOCK: u32 = 4;

/// The kernels of every HA variant, compiled once per process.
pub const KERNELS: KernelSource = KernelSource {
    name: "ha4",
    source: include_str!("ha4.cu"),
    constants: &[
        ("STRIP_ROWS", STRIP_ROWS as u32),
        ("SPAN_WORDS", SPAN_WORDS as u32),
    ],
};

/// The same kernels counting their feature updates: the instrumented build
/// that `ccl updates` (ccl-cuda-flsl) loads with [`Ha::load`].
pub const COUNTED_KERNELS: KernelSource = KernelSource {
    name: "ha4_counted",
    source: KERNELS.source,
    constants: &[
        ("STRIP_ROWS", STRIP_ROWS as u32),
        ("SPAN_WORDS", SPAN_WORDS as u32),
        ("CCL_COUNT_UPDATES", 1),
    ],
};

inventory::submit! { KERNELS }
inventory::submit! { COUNTED_KERNELS }

/// The arguments of the forest-building kernels that move features on the
/// fly: the bit image, the forest, a record per pixel, the update counts (null
/// outside the instrumented build).
type OtfArgs = (BitImageArgs, DevPtr<u32>, DevPtr<DeviceNode>, DevPtr<u32>);

/// The kernels that build a forest (strip labeling, border merge, span
/// stitching), all taking `Args`.
struct ForestKernels<Args> {
    strip: Kernel<Args>,
    border: Kernel<Args>,
    stitch: Kernel<Args>,
}

impl<Args: KernelArgs> ForestKernels<Args> {
    fn load(gpu: &Gpu, module: &KernelSource, prefix: &str) -> Result<Self> {
        Ok(Self {
            strip: Kernel::load(gpu, module, &format!("{prefix}_strip"))?,
            border: Kernel::load(gpu, module, &format!("{prefix}_border"))?,
            stitch: Kernel::load(gpu, module, &format!("{prefix}_stitch"))?,
        })
    }
}

/// The kernels of one variant; each field declares a kernel's arguments.
/// Every kernel reads the image's bit image, never its bytes.
struct Kernels {
    forest: ForestKernels<(BitImageArgs, DevPtr<u32>)>,
    /// The on-the-fly forest kernels (32-pixel words only).
    forest_otf: Option<ForestKernels<OtfArgs>>,
    relabel: Kernel<(BitImageArgs, DevPtr<u32>)>,
    number: Kernel<(BitImageArgs, DevPtr<u32>, RootIndexArgs, DevPtr<u32>)>,
    count_roots: Kernel<(BitImageArgs, DevPtr<u32>, DevPtr<u32>, DevPtr<u32>)>,
    features: Kernel<(BitImageArgs, DevPtr<u32>, RootIndexArgs, StatsOutArgs)>,
}

/// The device-resident stages of one HA variant: the image is packed into
/// bits (ccl-cuda's front end), strip labeling and border merge build the
/// forest; its roots are flagged with HA's own kernel and
/// ranked with the shared back end; then the labeling's last pass (the
/// seed's relabeling) writes each pixel's rank + 1, or the analysis
/// accumulates features per segment.
pub struct Ha {
    variant: HaVariant,
    kernels: Kernels,
    /// The bit image of the image being labeled.
    bit_image: BitImage,
}

/// An HA variant on the default GPU, as the registry makes it: labels with
/// [`ccl_core::Labeler`], analyzes with [`ccl_core::Analyzer`], and has the
/// device-resident path ([`CudaVariant::label_device`],
/// [`CudaVariant::analyze_device`]) timed per stage: `strip`, `border`,
/// `roots`, then `labels` or `features`.
pub fn ha(variant: HaVariant) -> Result<CudaVariant<Ha>> {
    CudaVariant::new(variant.info(), |gpu, _| Ha::new(gpu, variant))
}

impl Ha {
    /// Compiles (once per process) and loads the kernels of `variant`.
    pub fn new(gpu: &Arc<Gpu>, variant: HaVariant) -> Result<Self> {
        Self::load(gpu, variant, &KERNELS)
    }

    /// Loads the kernels of `variant` from `module`: the timed build
    /// (`KERNELS`, what [`new`](Self::new) loads) or [`COUNTED_KERNELS`].
    pub fn load(gpu: &Arc<Gpu>, variant: HaVariant, module: &KernelSource) -> Result<Self> {
        let label = variant.label_kernels();
        let word = variant.word_kernels();
        let forest_otf = (variant.word_bits() == 32)
            .then(|| ForestKernels::load(gpu, module, &format!("{label}_otf")))
            .transpose()?;
        let kernels = Kernels {
            forest: ForestKernels::load(gpu, module, &label)?,
            forest_otf,
            relabel: Kernel::load(gpu, module, &format!("{word}_relabel"))?,
            number: Kernel::load(gpu, module, &format!("{word}_number"))?,
            count_roots: Kernel::load(gpu, module, &format!("{word}_count_roots"))?,
            features: Kernel::load(gpu, module, &format!("{word}_features"))?,
        };
        Ok(Self {
            variant,
            kernels,
            bit_image: BitImage::new(gpu)?,
        })
    }

    /// The variant it runs.
    pub fn variant(&self) -> HaVariant {
        self.variant
    }

    fn word_bits(&self) -> usize {
        self.variant.word_bits() as usize
    }

    /// Spans per row: each warp of the row-walking kernels takes one.
    fn spans_per_row(&self, image: &BitImageArgs) -> usize {
        (image.width as usize).div_ceil(SPAN_WORDS * self.word_bits())
    }

    /// A grid with one warp per span of every row.
    fn span_grid(&self, image: &BitImageArgs) -> Result<LaunchConfig> {
        warp_grid(
            image.height as usize * self.spans_per_row(image),
            WARPS_PER_BLOCK,
        )
    }

    /// Packing, strip labeling, then border merge (stages `strip` and
    /// `border`): the forest of `image` in `forest` (width × height), held
    /// at local starts only (see `ha4.cu`), and the image's bit image, which
    /// the later stages read: its roots are flagged and ranked by
    /// [`rank_roots`](Self::rank_roots).
    pub fn build_forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<BitImageArgs> {
        check_forest(forest.len(), image)?;
        // Packing is part of the `strip` stage, so that stage times stay
        // comparable with the byte-reading strip kernel's.
        let bits = self.bit_image.pack(run.stream, image)?;
        let args = (bits, DevPtr::of_mut(forest, run.stream));
        self.launch_forest(run, &bits, &self.kernels.forest, args)?;
        Ok(bits)
    }

    /// [`build_forest`](Self::build_forest) moving features on the fly (OTF,
    /// `ccl_merge_otf` of `ccl_device.cuh`): each segment's record starts at
    /// its first pixel's node in `nodes` (width × height records), and
    /// every union moves the linked root's record to the new root, so that
    /// the roots end up with their components' features. `counts` is null,
    /// or, with the kernels of [`COUNTED_KERNELS`], a zeroed count per pixel.
    /// Variants with 32-pixel words only.
    pub fn build_forest_on_the_fly(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        nodes: &mut CudaViewMut<'_, DeviceNode>,
        counts: DevPtr<u32>,
    ) -> Result<BitImageArgs> {
        check_forest(forest.len(), image)?;
        check_forest(nodes.len(), image)?;
        let kernels = self.kernels.forest_otf.as_ref().ok_or_else(|| {
            Error::Unavailable(format!(
                "{} has no on-the-fly kernels (32-pixel words only)",
                self.variant.name()
            ))
        })?;
        let stream = run.stream;
        let bits = self.bit_image.pack(stream, image)?;
        let args = (
            bits,
            DevPtr::of_mut(forest, stream),
            DevPtr::of_mut(nodes, stream),
            counts,
        );
        self.launch_forest(run, &bits, kernels, args)?;
        Ok(bits)
    }

    fn launch_forest<Args: KernelArgs + Copy>(
        &self,
        run: &mut Run<'_>,
        image: &BitImageArgs,
        kernels: &ForestKernels<Args>,
        args: Args,
    ) -> Result<()> {
        let stream: &CudaStream = run.stream;
        let (width, height) = (image.width as usize, image.height as usize);
        let strips = height.div_ceil(STRIP_ROWS) * self.spans_per_row(image);
        let strip_grid = LaunchConfig {
            grid_dim: (blocks(strips, 1)?, 1, 1),
            block_dim: (32, STRIP_ROWS as u32, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: strip, border and stitch read the words of the bit image
        // (0 outside it) and write within the width * height labels (and
        // records) of the buffers (checked by the callers).
        unsafe { kernels.strip.launch(stream, strip_grid, args) }?;
        run.clock.mark("strip")?;
        let borders = (height - 1) / STRIP_ROWS;
        if borders > 0 {
            let words = borders * width.div_ceil(self.word_bits());
            let grid = warp_grid(words, WARPS_PER_BLOCK)?;
            // SAFETY: as for the strip kernel.
            unsafe { kernels.border.launch(stream, grid, args) }?;
        }
        let span_borders = (width - 1) / (SPAN_WORDS * self.word_bits());
        if span_borders > 0 {
            let grid = linear_grid(span_borders * height, 128)?;
            // SAFETY: as for the strip kernel.
            unsafe { kernels.stitch.launch(stream, grid, args) }?;
        }
        run.clock.mark("border")
    }

    /// Flags the roots of a forest that [`build_forest`](Self::build_forest)
    /// (or its on-the-fly form) left in `forest` with HA's own kernel, which
    /// reads the bit image `bits` it returned: the ranking follows.
    pub fn flag_roots<'f>(
        &self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        bits: &BitImageArgs,
        forest: &CudaViewMut<'_, u32>,
        features: &'f mut Features,
    ) -> Result<RootsFlagged<'f>> {
        check_forest(forest.len(), image)?;
        let stream = run.stream;
        // A word of 64 pixels is two root words: the rows keep whole words.
        let layout = RootLayout {
            words_per_row: image.width().div_ceil(self.word_bits()) * (self.word_bits() / 32),
            height: image.height(),
        };
        let flagging = features.begin(stream, layout)?;
        let roots = flagging.targets();
        // SAFETY: `begin` reserved a root word per 32 columns of `layout`
        // and a count per group; the forest holds width * height labels.
        unsafe {
            self.kernels.count_roots.launch(
                stream,
                self.span_grid(bits)?,
                (
                    *bits,
                    DevPtr::of(forest, stream),
                    roots.bits,
                    roots.group_count,
                ),
            )
        }?;
        Ok(flagging.flagged())
    }

    /// [`flag_roots`](Self::flag_roots), then the shared ranking with the
    /// stats initialised (stage `roots`): the analysis then needs its
    /// features accumulated.
    pub fn rank_roots<'f>(
        &self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        bits: &BitImageArgs,
        forest: &CudaViewMut<'_, u32>,
        features: &'f mut Features,
    ) -> Result<Ranked<'f>> {
        let ranked = self
            .flag_roots(run, image, bits, forest, features)?
            .rank()?;
        run.clock.mark("roots")?;
        Ok(ranked)
    }
}

impl DeviceVariant for Ha {
    /// The forest, flattened: raw labels, 1 + the raster index of each
    /// component's first pixel (HA's forest proper is held at local starts
    /// only, which the contract of `ccl_device.cuh` does not allow).
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let bits = self.build_forest(run, image, forest)?;
        let forest = DevPtr::of_mut(forest, run.stream);
        // SAFETY: reads the bit image and rewrites exactly width * height
        // labels.
        unsafe {
            self.kernels
                .relabel
                .launch(run.stream, self.span_grid(&bits)?, (bits, forest))
        }?;
        run.clock.mark("relabel")
    }

    fn label(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
    ) -> Result<Numbered> {
        check_forest(labels.len(), image)?;
        let bits = self.build_forest(run, image, forest)?;
        let grid = self.span_grid(&bits)?;
        let (parents, labels) = (
            DevPtr::of(forest, run.stream),
            DevPtr::of_mut(labels, run.stream),
        );
        let number = &self.kernels.number;
        self.flag_roots(run, image, &bits, forest, numbering)?
            .number_with(run.clock, |index, stream| {
                // SAFETY: reads the bit image and the forest, writes exactly
                // width * height labels into another buffer; the root index
                // covers the image in HA's layout.
                unsafe { number.launch(stream, grid, (bits, parents, index, labels)) }
            })
    }

    fn analyze(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        features: &mut Features,
    ) -> Result<Analyzed> {
        let bits = self.build_forest(run, image, forest)?;
        let ranked = self.rank_roots(run, image, &bits, forest, features)?;
        let grid = self.span_grid(&bits)?;
        let forest = DevPtr::of(forest, run.stream);
        // HA's own accumulation: one record per segment, not per pixel.
        let analyzed = ranked.accumulate_with(|index, output, stream| {
            // SAFETY: the root index covers the image; ranks past the stats
            // array's capacity are not stored.
            unsafe {
                self.kernels
                    .features
                    .launch(stream, grid, (bits, forest, index, output))
            }
        })?;
        run.clock.mark("features")?;
        Ok(analyzed)
    }
}
