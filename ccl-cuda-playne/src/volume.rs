//! Playne & Hawick's direct method on volumes (`volume.cu`): link, the
//! shared compression, merge; the shared finish numbers the forest as it
//! does an image's (the volume is the image of its rows).

use std::sync::Arc;

use ccl_core::{Connectivity, Error, Result};
use ccl_cuda::backend::{Flatten, Run, Slices};
use ccl_cuda::cudarc::driver::CudaViewMut;
use ccl_cuda::runtime::{DevPtr, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, tile_grid};

const KERNELS: KernelSource = KernelSource {
    name: "playne_volume",
    source: include_str!("volume.cu"),
    constants: &[],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Threads per block: a warp along a row, 8 rows.
const BLOCK: (u32, u32) = (32, 8);

/// The volume kernels, each `(CclImage rows, u32* L, u32 height, int
/// differing)`, one thread per voxel.
pub struct PlayneVolume {
    init: Kernel<(ImageArgs, DevPtr<u32>, u32, i32)>,
    merge: Kernel<(ImageArgs, DevPtr<u32>, u32, i32)>,
    compress: Flatten,
}

/// How many coordinates of two voxels may differ for them to be adjacent
/// in a volume's `connectivity`.
pub(crate) fn differing(connectivity: Connectivity) -> Result<i32> {
    match connectivity {
        Connectivity::Six => Ok(1),
        Connectivity::Eighteen => Ok(2),
        Connectivity::TwentySix => Ok(3),
        image => Err(Error::InvalidArgument(format!(
            "{image}-connectivity is an image's; a volume takes 6, 18 or 26"
        ))),
    }
}

impl PlayneVolume {
    /// Compiles (once per process and device) and loads the kernels.
    pub fn new(gpu: &Arc<Gpu>) -> Result<Self> {
        Ok(Self {
            init: Kernel::load(gpu, &KERNELS, "playne_volume_init")?,
            merge: Kernel::load(gpu, &KERNELS, "playne_volume_merge")?,
            compress: Flatten::new(gpu)?,
        })
    }

    /// The forest of the volume whose rows are `rows`, sliced as `slices`.
    pub fn forest(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        slices: Slices,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let (stream, args) = (run.stream, rows.args(run.stream));
        let grid = tile_grid(rows.width(), rows.height(), BLOCK)?;
        let differing = differing(run.connectivity)?;
        let height = u32::try_from(slices.height)
            .map_err(|_| Error::InvalidDimensions("a volume taller than 2^32 rows".into()))?;
        let parents = DevPtr::of_mut(forest, stream);
        // SAFETY: both kernels write only the width * height * depth
        // entries of the forest (the variant layer checked its length) and
        // read voxels inside the volume.
        unsafe {
            self.init
                .launch(stream, grid, (args, parents, height, differing))?
        };
        run.clock.mark("init")?;
        self.compress.run(stream, rows, forest)?;
        run.clock.mark("compress")?;
        // SAFETY: as above.
        unsafe {
            self.merge
                .launch(stream, grid, (args, parents, height, differing))?
        };
        run.clock.mark("merge")
    }
}
