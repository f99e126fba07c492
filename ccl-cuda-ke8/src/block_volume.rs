//! `buf` on volumes (`block_volume.cu`): one forest node per 2×2×2 block,
//! in 26-connectivity (where every two voxels of a block are adjacent).
//! Init, merge and compress make the forest; the shared finish numbers it
//! as it does an image's (the volume is the image of its rows).

use std::sync::Arc;

use ccl_core::{Error, Result};
use ccl_cuda::backend::{Run, Slices};
use ccl_cuda::cudarc::driver::{CudaViewMut, DeviceRepr};
use ccl_cuda::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, tile_grid,
};

const KERNELS: KernelSource = KernelSource {
    name: "block_volume",
    source: include_str!("block_volume.cu"),
    constants: &[],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Threads per block of the launch, one per 2×2×2 block of voxels.
const BLOCK: (u32, u32) = (32, 8);

/// `VolumeBlocks`: the volume's size in blocks, and its height in voxels.
#[repr(C)]
#[derive(Clone, Copy)]
struct VolumeBlocks {
    width: u32,
    height: u32,
    depth: u32,
    volume_height: u32,
}

// SAFETY: four integers, C layout.
unsafe impl DeviceRepr for VolumeBlocks {}

type BlockKernel = Kernel<(ImageArgs, DevPtr<u32>, DevPtr<u8>, VolumeBlocks)>;

/// BUF's volume kernels and the mask of each block, kept for the next
/// volume.
pub struct BlockVolume {
    init: BlockKernel,
    merge: BlockKernel,
    compress: BlockKernel,
    masks: DeviceBuffer<u8>,
}

impl BlockVolume {
    /// Compiles (once per process and device) and loads the kernels.
    pub fn new(gpu: &Arc<Gpu>) -> Result<Self> {
        Ok(Self {
            init: Kernel::load(gpu, &KERNELS, "buf_volume_init")?,
            merge: Kernel::load(gpu, &KERNELS, "buf_volume_merge")?,
            compress: Kernel::load(gpu, &KERNELS, "buf_volume_compress")?,
            masks: DeviceBuffer::new(),
        })
    }

    /// The block forest of the volume whose rows are `rows`: every
    /// foreground voxel's parent is its block's key, each key's a key.
    pub fn forest(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        slices: Slices,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let too_large = || Error::InvalidDimensions("a volume of more than 2^32 blocks".into());
        let blocks = VolumeBlocks {
            width: u32::try_from(rows.width().div_ceil(2)).map_err(|_| too_large())?,
            height: u32::try_from(slices.height.div_ceil(2)).map_err(|_| too_large())?,
            depth: u32::try_from(slices.depth.div_ceil(2)).map_err(|_| too_large())?,
            volume_height: u32::try_from(slices.height).map_err(|_| too_large())?,
        };
        let count = blocks.width as usize * blocks.height as usize * blocks.depth as usize;
        let stream = run.stream;
        let masks = DevPtr::of_mut(self.masks.reserve(stream, count)?, stream);
        let grid = tile_grid(
            blocks.width as usize,
            blocks.height as usize * blocks.depth as usize,
            BLOCK,
        )?;
        let (args, parents) = (rows.args(stream), DevPtr::of_mut(forest, stream));
        for (stage, kernel) in [
            ("init", &self.init),
            ("merge", &self.merge),
            ("compress", &self.compress),
        ] {
            // SAFETY: each kernel reads voxels inside the volume and the
            // masks of its `count` blocks (the buffer holds them), and
            // writes forest entries of the volume's voxels (the variant
            // layer checked the forest's length).
            unsafe { kernel.launch(stream, grid, (args, parents, masks, blocks))? };
            run.clock.mark(stage)?;
        }
        Ok(())
    }
}
