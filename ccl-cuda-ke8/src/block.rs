//! The block-based `bke` and `buf` variants: one forest node per 2×2 block.

use std::sync::Arc;

use ccl_core::{Connectivity, Result};
use ccl_cuda::backend::{
    BitImage, BitImageArgs, DeviceVariant, Features, Numbered, RootIndexArgs, Run,
};

use crate::block_volume::BlockVolume;
use ccl_cuda::cudarc::driver::{CudaViewMut, LaunchConfig};
use ccl_cuda::runtime::{DevPtr, DeviceImage, Gpu, Kernel, KernelSource, tile_grid};

const KERNELS: KernelSource = KernelSource {
    name: "block",
    source: include_str!("block.cu"),
    constants: &[],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Threads per block, one per 2×2 block of pixels: 64 columns, 16 rows.
const BLOCK: (u32, u32) = (32, 8);

/// Which block-based algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockAlgorithm {
    /// `bke`: Komura equivalence on blocks — init with a link, compression,
    /// reduction.
    Bke,
    /// `buf`: union-find on blocks — init, merge.
    Buf,
}

type BlockKernel = Kernel<(BitImageArgs, DevPtr<u32>)>;

/// The kernels of one block-based algorithm and the expansion of block
/// roots' ranks to pixel labels that both share. Every kernel reads the
/// image's bit image (ccl-cuda's front end), never its bytes.
pub struct BlockBased {
    /// Each stage's name and kernel, in order, up to a forest.
    stages: Vec<(&'static str, BlockKernel)>,
    number: Kernel<(BitImageArgs, DevPtr<u32>, RootIndexArgs, DevPtr<u32>)>,
    /// The bit image of the image being labeled.
    bits: BitImage,
}

impl BlockBased {
    /// Compiles (once per process and device) and loads the kernels.
    pub fn new(gpu: &Arc<Gpu>, algorithm: BlockAlgorithm) -> Result<Self> {
        let stage_names: &[(&str, &str)] = match algorithm {
            BlockAlgorithm::Bke => &[
                ("init", "bke_init"),
                ("compress", "bke_compress"),
                ("reduce", "bke_reduce"),
            ],
            BlockAlgorithm::Buf => &[("init", "buf_init"), ("merge", "buf_merge")],
        };
        let stages = stage_names
            .iter()
            .map(|&(stage, kernel)| Ok((stage, Kernel::load(gpu, &KERNELS, kernel)?)))
            .collect::<Result<_>>()?;
        Ok(Self {
            stages,
            number: Kernel::load(gpu, &KERNELS, "block_number")?,
            bits: BitImage::new(gpu)?,
        })
    }

    /// Packs `image` into bits, then runs the stages up to the block
    /// forest; returns the bit image, which the labels' pass reads too.
    /// Packing is part of the first stage (`init`).
    fn build_forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<BitImageArgs> {
        let bits = self.bits.pack(run.stream, image)?;
        let grid = Self::grid(image)?;
        let parents = DevPtr::of_mut(forest, run.stream);
        for (stage, kernel) in &self.stages {
            // SAFETY: every block kernel writes only the width * height
            // entries of the forest (the variant layer checked its length)
            // and reads the bit image's words (0 outside it).
            unsafe { kernel.launch(run.stream, grid, (bits, parents)) }?;
            run.clock.mark(stage)?;
        }
        Ok(bits)
    }

    fn grid(image: &DeviceImage<'_>) -> Result<LaunchConfig> {
        tile_grid(image.width().div_ceil(2), image.height().div_ceil(2), BLOCK)
    }
}

impl DeviceVariant for BlockBased {
    /// The block forest: each pixel's parent is its block's key (the
    /// block's first foreground pixel), each key's a key.
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        self.build_forest(run, image, forest).map(drop)
    }

    /// The forest, its roots flagged and ranked by the shared back end
    /// (stage `roots`), then one pass per block that finds the block's root
    /// and writes its rank + 1 to the block's pixels (stage `labels`).
    fn label(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
    ) -> Result<Numbered> {
        let bits = self.build_forest(run, image, forest)?;
        let grid = Self::grid(image)?;
        let (parents, labels) = (
            DevPtr::of(forest, run.stream),
            DevPtr::of_mut(labels, run.stream),
        );
        numbering
            .flag_forest(run.stream, image, forest)?
            .number_with(run.clock, |index, stream| {
                // SAFETY: reads the forest's width * height entries at block
                // keys and their ancestors, writes the width * height labels
                // (another buffer, both checked by the variant layer); the
                // root index covers the image.
                unsafe {
                    self.number
                        .launch(stream, grid, (bits, parents, index, labels))
                }
            })
    }
}

ccl_cuda::register_variant! {
    name: "bke",
    connectivities: &[Connectivity::Eight],
    analyzes: true,
    summary: "block-based Komura equivalence on 2x2 blocks, as in OpenCV (Allegretti, Bolelli & Grana, IEEE TPDS 2020)",
    priority: 45,
    new: |gpu, _| BlockBased::new(gpu, BlockAlgorithm::Bke),
}

/// `buf`: BUF on 2×2 blocks of images and 2×2×2 blocks of volumes.
pub struct Buf {
    image: BlockBased,
    volume: BlockVolume,
}

impl Buf {
    /// Compiles (once per process and device) and loads both kernel sets.
    pub fn new(gpu: &Arc<Gpu>) -> Result<Self> {
        Ok(Self {
            image: BlockBased::new(gpu, BlockAlgorithm::Buf)?,
            volume: BlockVolume::new(gpu)?,
        })
    }
}

impl DeviceVariant for Buf {
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        match run.slices {
            Some(slices) => self.volume.forest(run, image, slices, forest),
            None => self.image.forest(run, image, forest),
        }
    }

    /// An image's labels by [`BlockBased`]'s own last pass; a volume's by
    /// the shared finish over its block forest.
    fn label(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
    ) -> Result<Numbered> {
        match run.slices {
            Some(slices) => {
                self.volume.forest(run, image, slices, forest)?;
                numbering.number_forest(run.stream, image, forest, labels, run.clock)
            }
            None => self.image.label(run, image, forest, labels, numbering),
        }
    }
}

ccl_cuda::register_variant! {
    name: "buf",
    connectivities: &[Connectivity::Eight, Connectivity::TwentySix],
    analyzes: true,
    summary: "block-based union-find on 2x2 blocks of images and 2x2x2 blocks of volumes (Allegretti, Bolelli & Grana, IEEE TPDS 2020)",
    priority: 45,
    new: |gpu, _| Buf::new(gpu),
}
