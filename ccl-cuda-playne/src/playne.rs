//! The `playne` variant: init, compression, merge, compression.

use std::sync::Arc;

use ccl_core::{Connectivity, Result};
use ccl_cuda::cudarc::driver::{CudaStream, CudaViewMut};
use ccl_cuda::{
    DevPtr, DeviceImage, DeviceVariant, Flatten, Gpu, ImageArgs, Kernel, KernelSource, Run,
    tile_grid,
};

const KERNELS: KernelSource = KernelSource {
    name: "playne",
    source: include_str!("playne.cu"),
    constants: &[],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Threads per block: a warp along a row, 8 rows.
const BLOCK: (u32, u32) = (32, 8);

/// The kernels of the direct method; the compressions are the shared
/// [`Flatten`], which points every pixel at its root.
pub struct Playne {
    init: Kernel<(ImageArgs, DevPtr<u32>, i32)>,
    merge: Kernel<(ImageArgs, DevPtr<u32>, i32)>,
    compress: Flatten,
}

impl Playne {
    /// Compiles (once per process and device) and loads the kernels.
    pub fn new(gpu: &Arc<Gpu>, _stream: &Arc<CudaStream>) -> Result<Self> {
        Ok(Self {
            init: Kernel::load(gpu, &KERNELS, "playne_init")?,
            merge: Kernel::load(gpu, &KERNELS, "playne_merge")?,
            compress: Flatten::new(gpu)?,
        })
    }

    /// Init, compression and merge: the forest of `image` in `forest`. The
    /// compression before the merge keeps its finds short: the links of
    /// init alone make chains as long as a component is tall.
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
        unsafe { self.merge.launch(stream, grid, (args, pointer, eight))? };
        run.clock.mark("merge")
    }
}

impl DeviceVariant for Playne {
    fn label(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        self.forest(run, image, labels)?;
        self.compress.run(run.stream, image, labels)?;
        run.clock.mark("relabel")
    }
}

ccl_cuda::register_variant! {
    name: "playne",
    connectivities: &[Connectivity::Four, Connectivity::Eight],
    analyzes: true,
    summary: "direct label equivalence with local configuration tests (Playne & Hawick, IEEE TPDS 2018)",
    priority: 40,
    new: Playne::new,
}
