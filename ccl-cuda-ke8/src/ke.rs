//! The `ke4` and `ke8` variants: init, compression, reduction, compression.

use std::sync::Arc;

use ccl_core::{Connectivity, Result};
use ccl_cuda::cudarc::driver::{CudaStream, CudaViewMut};
use ccl_cuda::{
    DevPtr, DeviceImage, DeviceVariant, Flatten, Gpu, ImageArgs, Kernel, KernelSource, Run,
    tile_grid,
};

const KERNELS: KernelSource = KernelSource {
    name: "ke",
    source: include_str!("ke.cu"),
    constants: &[],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Threads per block: a warp along a row, 8 rows.
const BLOCK: (u32, u32) = (32, 8);

/// Komura equivalence on pixels; the compressions are the shared
/// [`Flatten`], which points every pixel at its root.
pub struct Komura {
    init: Kernel<(ImageArgs, DevPtr<u32>, i32)>,
    reduce: Kernel<(ImageArgs, DevPtr<u32>, i32)>,
    compress: Flatten,
}

impl Komura {
    /// Compiles (once per process and device) and loads the kernels.
    pub fn new(gpu: &Arc<Gpu>, _stream: &Arc<CudaStream>) -> Result<Self> {
        Ok(Self {
            init: Kernel::load(gpu, &KERNELS, "ke_init")?,
            reduce: Kernel::load(gpu, &KERNELS, "ke_reduce")?,
            compress: Flatten::new(gpu)?,
        })
    }

    /// Init, compression and reduction: the forest of `image` in `forest`.
    fn forest(
        &self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let (stream, args) = (run.stream, image.args(run.stream));
        let grid = tile_grid(image.width(), image.height(), BLOCK)?;
        let eight = i32::from(run.connectivity == Connectivity::Eight);
        let pointer = DevPtr::of_mut(forest, stream);
        // SAFETY: the kernels write the width * height entries of the forest
        // (the variant layer checked its length) and read the image's rows.
        unsafe { self.init.launch(stream, grid, (args, pointer, eight))? };
        run.clock.mark("init")?;
        self.compress.run(stream, image, forest)?;
        run.clock.mark("compress")?;
        // SAFETY: as above.
        unsafe { self.reduce.launch(stream, grid, (args, pointer, eight))? };
        run.clock.mark("reduce")
    }
}

impl DeviceVariant for Komura {
    fn label(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        self.forest(run, image, labels)?;
        // The final compression leaves every pixel pointing at its root:
        // the labels.
        self.compress.run(run.stream, image, labels)?;
        run.clock.mark("relabel")
    }
}

ccl_cuda::register_variant! {
    name: "ke4",
    connectivities: &[Connectivity::Four],
    analyzes: true,
    summary: "Komura equivalence, 4-connectivity (Komura, Comput. Phys. Commun. 2015)",
    priority: 30,
    new: Komura::new,
}

ccl_cuda::register_variant! {
    name: "ke8",
    connectivities: &[Connectivity::Eight],
    analyzes: true,
    summary: "Komura equivalence, 8-connectivity (Allegretti, Bolelli, Cancilla & Grana, IPAS 2018)",
    priority: 30,
    new: Komura::new,
}
