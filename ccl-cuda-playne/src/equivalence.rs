//! The pixel label-equivalence pipeline that Playne–Hawick and Komura share:
//! a link kernel, a compression, a union kernel; the shared finish numbers
//! the forest. A variant of this shape is its two kernels and a
//! registration.

use std::sync::Arc;

use ccl_core::{Connectivity, Result};
use ccl_cuda::backend::{DeviceVariant, Flatten, Run};
use ccl_cuda::cudarc::driver::CudaViewMut;
use ccl_cuda::runtime::{DevPtr, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, tile_grid};

/// Threads per block of both kernels: a warp along a row, 8 rows.
const BLOCK: (u32, u32) = (32, 8);

/// Where a variant's two kernels are. Each is
/// `(CclImage image, u32* L, int eight)`, one thread per pixel, launched on
/// [`tile_grid`] (rows walked with `CCL_FOR_EACH_ROW`).
#[derive(Clone, Copy, Debug)]
pub struct EquivalenceKernels {
    /// The module that holds both.
    pub module: &'static KernelSource,
    /// Links each foreground pixel to one backward neighbour (or itself),
    /// parents at smaller indices: a forest of `ccl_device.cuh`'s contract.
    pub link: &'static str,
    /// Makes, after the compression, the unions the links leave out.
    pub unions: &'static str,
    /// The stage name of `unions` in timed runs (the paper's word).
    pub unions_stage: &'static str,
}

/// Link, compress, unions: the forest, which the shared finish numbers
/// (its pass finds each pixel's root, the compression the papers end
/// with). The compression is the shared [`Flatten`]; it keeps the unions'
/// finds short (the links alone make chains as long as a component is
/// tall).
pub struct Equivalence {
    link: Kernel<(ImageArgs, DevPtr<u32>, i32)>,
    unions: Kernel<(ImageArgs, DevPtr<u32>, i32)>,
    unions_stage: &'static str,
    compress: Flatten,
}

impl Equivalence {
    /// Compiles (once per process and device) and loads the kernels.
    pub fn new(gpu: &Arc<Gpu>, kernels: &EquivalenceKernels) -> Result<Self> {
        Ok(Self {
            link: Kernel::load(gpu, kernels.module, kernels.link)?,
            unions: Kernel::load(gpu, kernels.module, kernels.unions)?,
            unions_stage: kernels.unions_stage,
            compress: Flatten::new(gpu)?,
        })
    }
}

impl DeviceVariant for Equivalence {
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let (stream, args) = (run.stream, image.args(run.stream));
        let grid = tile_grid(image.width(), image.height(), BLOCK)?;
        let eight = i32::from(run.connectivity == Connectivity::Eight);
        let parents = DevPtr::of_mut(forest, stream);
        // SAFETY: both kernels write only the width * height entries of the
        // forest (the variant layer checked its length) and read pixels
        // inside the image.
        unsafe { self.link.launch(stream, grid, (args, parents, eight))? };
        run.clock.mark("init")?;
        self.compress.run(stream, image, forest)?;
        run.clock.mark("compress")?;
        // SAFETY: as above.
        unsafe { self.unions.launch(stream, grid, (args, parents, eight))? };
        run.clock.mark(self.unions_stage)
    }
}
