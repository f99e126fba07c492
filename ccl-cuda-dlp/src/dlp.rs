//! The `dlp` variant: Cabaret, Lacassagne and Etiemble's distanceless label
//! propagation, as we read it. `dlp_init`, then rounds of `dlp_propagate`
//! and `dlp_jump` until a propagation lowers nothing; the last round leaves
//! flat labels (1 + the raster index of each component's first pixel), so
//! there is no final pass.

use std::sync::Arc;

use ccl_core::{Connectivity, Result};
use ccl_cuda::backend::{ChangeFlag, DeviceVariant, Run};
use ccl_cuda::cudarc::driver::{CudaStream, CudaViewMut};
use ccl_cuda::runtime::{DevPtr, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, tile_grid};

/// The kernels of `dlp.cu`.
const KERNELS: KernelSource = KernelSource {
    name: "dlp",
    source: include_str!("dlp.cu"),
    constants: &[],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Threads per block of every kernel: a warp along a row, 8 rows.
const BLOCK: (u32, u32) = (32, 8);

/// Distanceless label propagation (Cabaret, Lacassagne & Etiemble, IPTA
/// 2017): labels used as addresses, so that a pixel lowers the label at each
/// label it sees as well as its own, then pointer jumping; in place in the
/// caller's label buffer, no other scratch than the change flag.
pub struct DistancelessPropagation {
    /// `dlp_init(image, L)`.
    init: Kernel<(ImageArgs, DevPtr<u32>)>,
    /// `dlp_propagate(image, L, eight, changed)`.
    propagate: Kernel<(ImageArgs, DevPtr<u32>, i32, DevPtr<u32>)>,
    /// `dlp_jump(image, L)`.
    jump: Kernel<(ImageArgs, DevPtr<u32>)>,
    /// Set by `dlp_propagate` when it lowers a label.
    changed: ChangeFlag,
}

impl DistancelessPropagation {
    /// Compiles (once per process and device) and loads the kernels; the
    /// change flag lives on `stream`, which every call must use.
    pub fn new(gpu: &Arc<Gpu>, stream: &Arc<CudaStream>) -> Result<Self> {
        Ok(Self {
            init: Kernel::load(gpu, &KERNELS, "dlp_init")?,
            propagate: Kernel::load(gpu, &KERNELS, "dlp_propagate")?,
            jump: Kernel::load(gpu, &KERNELS, "dlp_jump")?,
            changed: ChangeFlag::new(stream)?,
        })
    }
}

impl DeviceVariant for DistancelessPropagation {
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let (stream, args) = (run.stream, image.args(run.stream));
        let grid = tile_grid(image.width(), image.height(), BLOCK)?;
        let eight = i32::from(run.connectivity == Connectivity::Eight);
        let labels = DevPtr::of_mut(forest, stream);
        // SAFETY: `forest` holds width * height entries (checked by the
        // variant layer); the kernel writes entry y * width + x for the
        // pixels of the image and reads pixels inside it.
        unsafe { self.init.launch(stream, grid, (args, labels))? };
        run.clock.mark("init")?;
        let (propagate, jump) = (&self.propagate, &self.jump);
        let rounds = self.changed.until_stable(stream, |changed| {
            // SAFETY: as for the init: every index the kernels touch is a
            // pixel index (neighbours inside the image) or a label - 1,
            // which init and every later write keep a pixel index;
            // `changed` is the flag's one word, alive for the round.
            unsafe {
                propagate.launch(stream, grid, (args, labels, eight, changed))?;
                jump.launch(stream, grid, (args, labels))?;
            }
            Ok(())
        })?;
        run.clock.mark_rounds("iterate", rounds)
    }
}

ccl_cuda::register_variant! {
    name: "dlp",
    connectivities: &[Connectivity::Four, Connectivity::Eight],
    analyzes: true,
    summary: "distanceless label propagation with pointer jumping (Cabaret, Lacassagne & Etiemble, IPTA 2017)",
    priority: 10,
    new: DistancelessPropagation::new,
}
