//! The `le` variant: Hawick, Leist and Playne's label equivalence (kernel D)
//! on pixels. `le_init`, then rounds of `le_scan`, `le_analyze` and
//! `le_relabel` until a scan changes nothing; the last round leaves flat
//! labels (1 + the raster index of each component's first pixel), so there
//! is no final pass.

use std::sync::Arc;

use ccl_core::{Connectivity, Result};
use ccl_cuda::backend::{ChangeFlag, DeviceVariant, Run};
use ccl_cuda::cudarc::driver::{CudaStream, CudaViewMut};
use ccl_cuda::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, tile_grid,
};

/// The kernels of `le.cu`.
const KERNELS: KernelSource = KernelSource {
    name: "le",
    source: include_str!("le.cu"),
    constants: &[],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Threads per block of every kernel: a warp along a row, 8 rows.
const BLOCK: (u32, u32) = (32, 8);

/// Label equivalence (Hawick, Leist & Playne, Parallel Computing 2010):
/// labels `L` (the caller's buffer) and a reference array `R` indexed by
/// labels, both one word per pixel, iterated to a fixed point.
pub struct LabelEquivalence {
    /// `le_init(image, L, R)`.
    init: Kernel<(ImageArgs, DevPtr<u32>, DevPtr<u32>)>,
    /// `le_scan(image, L, R, eight, changed)`.
    scan: Kernel<(ImageArgs, DevPtr<u32>, DevPtr<u32>, i32, DevPtr<u32>)>,
    /// `le_analyze(image, L, R)`.
    analyze: Kernel<(ImageArgs, DevPtr<u32>, DevPtr<u32>)>,
    /// `le_relabel(image, L, R)`.
    relabel: Kernel<(ImageArgs, DevPtr<u32>, DevPtr<u32>)>,
    /// `R`, one word per pixel, kept across calls.
    references: DeviceBuffer<u32>,
    /// Set by `le_scan` when a label has a lower neighbour.
    changed: ChangeFlag,
}

impl LabelEquivalence {
    /// Compiles (once per process and device) and loads the kernels; the
    /// change flag lives on `stream`, which every call must use.
    pub fn new(gpu: &Arc<Gpu>, stream: &Arc<CudaStream>) -> Result<Self> {
        Ok(Self {
            init: Kernel::load(gpu, &KERNELS, "le_init")?,
            scan: Kernel::load(gpu, &KERNELS, "le_scan")?,
            analyze: Kernel::load(gpu, &KERNELS, "le_analyze")?,
            relabel: Kernel::load(gpu, &KERNELS, "le_relabel")?,
            references: DeviceBuffer::new(),
            changed: ChangeFlag::new(stream)?,
        })
    }
}

impl DeviceVariant for LabelEquivalence {
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let (stream, args) = (run.stream, image.args(run.stream));
        let grid = tile_grid(image.width(), image.height(), BLOCK)?;
        let eight = i32::from(run.connectivity == Connectivity::Eight);
        let references = self.references.reserve(stream, image.pixel_count())?;
        let references = DevPtr::of_mut(references, stream);
        let labels = DevPtr::of_mut(forest, stream);
        // SAFETY: `forest` holds width * height entries (checked by the
        // variant layer), `references` at least as many (reserved above);
        // the kernel writes entry y * width + x of both for the pixels of
        // the image, and reads pixels inside it.
        unsafe { self.init.launch(stream, grid, (args, labels, references))? };
        run.clock.mark("init")?;
        let (scan, analyze, relabel) = (&self.scan, &self.analyze, &self.relabel);
        let rounds = self.changed.until_stable(stream, |changed| {
            // SAFETY: as for the init: every index the kernels touch is a
            // pixel index (neighbours inside the image) or a label - 1,
            // which init and every later write keep a pixel index;
            // `changed` is the flag's one word, alive for the round.
            unsafe {
                scan.launch(stream, grid, (args, labels, references, eight, changed))?;
                analyze.launch(stream, grid, (args, labels, references))?;
                relabel.launch(stream, grid, (args, labels, references))?;
            }
            Ok(())
        })?;
        run.clock.mark_rounds("iterate", rounds)
    }
}

ccl_cuda::register_variant! {
    name: "le",
    connectivities: &[Connectivity::Four, Connectivity::Eight],
    analyzes: true,
    summary: "label equivalence, scan / analysis / labeling rounds (Hawick, Leist & Playne, Parallel Computing 2010)",
    priority: 10,
    new: LabelEquivalence::new,
}
