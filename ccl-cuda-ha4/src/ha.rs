//! [`Ha`]: the device-resident stages of every HA variant, launching the
//! kernels of `ha4.cu` in order.

use std::sync::Arc;

use ccl_core::Result;
use ccl_cuda::cudarc::driver::{CudaStream, CudaViewMut, LaunchConfig};
use ccl_cuda::features::{RootIndexArgs, RootLayout, StatsOutArgs};
use ccl_cuda::{
    CudaVariant, DevPtr, DeviceImage, DeviceVariant, Features, Gpu, ImageArgs, Kernel,
    KernelSource, Run, blocks, inventory, linear_grid, warp_grid,
};

use crate::HaVariant;

/// Rows per strip: a block of this many warps labels a strip.
const STRIP_ROWS: usize = 4;
/// Words per span, the unit of work of a warp walking a row.
const SPAN_WORDS: usize = 16;
/// Warps per block of the per-word and per-span kernels.
const WARPS_PER_BLOCK: u32 = 4;

/// The kernels of every HA variant, compiled once per process.
pub(crate) const KERNELS: KernelSource = KernelSource {
    name: "ha4",
    source: include_str!("ha4.cu"),
    constants: &[
        ("STRIP_ROWS", STRIP_ROWS as u32),
        ("SPAN_WORDS", SPAN_WORDS as u32),
    ],
};

inventory::submit! { KERNELS }

/// The kernels of one variant; each field declares a kernel's arguments.
struct Kernels {
    strip: Kernel<(ImageArgs, DevPtr<u32>)>,
    border: Kernel<(ImageArgs, DevPtr<u32>)>,
    stitch: Kernel<(ImageArgs, DevPtr<u32>)>,
    relabel: Kernel<(ImageArgs, DevPtr<u32>)>,
    count_roots: Kernel<(ImageArgs, DevPtr<u32>, DevPtr<u32>, DevPtr<u32>)>,
    features: Kernel<(ImageArgs, DevPtr<u32>, RootIndexArgs, StatsOutArgs)>,
}

/// The device-resident stages of one HA variant: strip labeling and border
/// merge build the forest; relabel writes the labels (raw: 1 + the raster
/// index of each component's first pixel); the analysis flags roots with
/// its own kernel, ranks them with the shared back end, and accumulates
/// features per segment.
pub struct Ha {
    variant: HaVariant,
    kernels: Kernels,
}

/// An HA variant on the default GPU, as the registry makes it: labels with
/// [`ccl_core::Labeler`], analyzes with [`ccl_core::Analyzer`], and has the
/// device-resident path ([`CudaVariant::label_device`],
/// [`CudaVariant::analyze_device`]) timed per stage: `strip`, `border`,
/// then `relabel`, or `roots` and `features`.
pub fn ha(variant: HaVariant) -> Result<CudaVariant<Ha>> {
    CudaVariant::new(variant.info(), |gpu, _| Ha::new(gpu, variant))
}

impl Ha {
    /// Compiles (once per process) and loads the kernels of `variant`.
    pub fn new(gpu: &Arc<Gpu>, variant: HaVariant) -> Result<Self> {
        let label = variant.label_kernels();
        let word = variant.word_kernels();
        let kernels = Kernels {
            strip: Kernel::load(gpu, &KERNELS, &format!("{label}_strip"))?,
            border: Kernel::load(gpu, &KERNELS, &format!("{label}_border"))?,
            stitch: Kernel::load(gpu, &KERNELS, &format!("{label}_stitch"))?,
            relabel: Kernel::load(gpu, &KERNELS, &format!("{word}_relabel"))?,
            count_roots: Kernel::load(gpu, &KERNELS, &format!("{word}_count_roots"))?,
            features: Kernel::load(gpu, &KERNELS, &format!("{word}_features"))?,
        };
        Ok(Self { variant, kernels })
    }

    /// The variant it runs.
    pub fn variant(&self) -> HaVariant {
        self.variant
    }

    fn bits(&self) -> usize {
        self.variant.word_bits() as usize
    }

    /// Spans per row: each warp of the row-walking kernels takes one.
    fn spans_per_row(&self, image: &DeviceImage<'_>) -> usize {
        image.width().div_ceil(SPAN_WORDS * self.bits())
    }

    /// A grid with one warp per span of every row.
    fn span_grid(&self, image: &DeviceImage<'_>) -> Result<LaunchConfig> {
        warp_grid(image.height() * self.spans_per_row(image), WARPS_PER_BLOCK)
    }

    /// Strip labeling then border merge: the forest of `image` in `forest`,
    /// held at local starts only.
    fn build_forest(
        &self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: DevPtr<u32>,
    ) -> Result<()> {
        let stream: &CudaStream = run.stream;
        let args = (image.args(stream), forest);
        let strips = image.height().div_ceil(STRIP_ROWS) * self.spans_per_row(image);
        let strip_grid = LaunchConfig {
            grid_dim: (blocks(strips, 1)?, 1, 1),
            block_dim: (32, STRIP_ROWS as u32, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: strip, border and stitch read `height` rows of `pitch`
        // bytes (checked by DeviceImage) and write within the width * height
        // labels of `forest` (checked by the variant layer).
        unsafe { self.kernels.strip.launch(stream, strip_grid, args) }?;
        run.clock.mark("strip")?;
        let borders = (image.height() - 1) / STRIP_ROWS;
        if borders > 0 {
            let words = borders * image.width().div_ceil(self.bits());
            let grid = warp_grid(words, WARPS_PER_BLOCK)?;
            // SAFETY: as for the strip kernel.
            unsafe { self.kernels.border.launch(stream, grid, args) }?;
        }
        let span_borders = (image.width() - 1) / (SPAN_WORDS * self.bits());
        if span_borders > 0 {
            let grid = linear_grid(span_borders * image.height(), 128)?;
            // SAFETY: as for the strip kernel.
            unsafe { self.kernels.stitch.launch(stream, grid, args) }?;
        }
        run.clock.mark("border")
    }
}

impl DeviceVariant for Ha {
    fn label(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let labels = DevPtr::of_mut(labels, run.stream);
        self.build_forest(run, image, labels)?;
        let grid = self.span_grid(image)?;
        // SAFETY: reads the image and rewrites exactly width * height labels.
        unsafe {
            self.kernels
                .relabel
                .launch(run.stream, grid, (image.args(run.stream), labels))
        }?;
        run.clock.mark("relabel")
    }

    fn analyze(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        features: &mut Features,
    ) -> Result<()> {
        let stream = run.stream;
        let forest = DevPtr::of_mut(forest, stream);
        self.build_forest(run, image, forest)?;
        // A word of 64 pixels is two root words: the rows keep whole words.
        let layout = RootLayout {
            words_per_row: image.width().div_ceil(self.bits()) * (self.bits() / 32),
            height: image.height(),
        };
        let roots = features.begin(stream, layout)?;
        let grid = self.span_grid(image)?;
        let args = image.args(stream);
        // SAFETY: `begin` reserved a root word per 32 columns of `layout`
        // and a count per group; the forest holds width * height labels.
        unsafe {
            self.kernels.count_roots.launch(
                stream,
                grid,
                (args, forest, roots.bits, roots.group_count),
            )
        }?;
        features.rank(stream)?;
        run.clock.mark("roots")?;
        let (index, output) = (features.roots(stream)?, features.output(stream)?);
        // SAFETY: the root index covers `layout`; ranks past the stats
        // array's capacity are not stored.
        unsafe {
            self.kernels
                .features
                .launch(stream, grid, (args, forest, index, output))
        }?;
        run.clock.mark("features")
    }
}
