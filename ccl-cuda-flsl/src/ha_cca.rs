//! [`HaAnalysis`]: `naive-cca`, `ha-otf` and `ha-cd`, the analyses of the
//! paper run on HA's forest (`ccl-cuda-ha4`'s strip labeling and border
//! merge, 32-pixel words), launching the kernels of `ha_cca.cu`.

use std::sync::Arc;

use ccl_core::{Connectivity, Result};
use ccl_cuda::backend::{
    Analyzed, DeviceNode, DeviceVariant, Features, Numbered, RootIndexArgs, Run, StatsOutArgs,
    VariantInfo,
};
use ccl_cuda::cudarc::driver::{CudaStream, CudaViewMut};
use ccl_cuda::inventory;
use ccl_cuda::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, tile_grid, warp_grid,
};
use ccl_cuda_ha4::{Ha, HaVariant};

use crate::counting::{CountsUpdates, UpdateCounter, UpdateCounts};

/// Warps per block of the per-word kernels.
const WORD_WARPS: u32 = 8;

const SOURCE: &str = include_str!("ha_cca.cu");

/// The kernels of the timed build.
const KERNELS: KernelSource = KernelSource {
    name: "ha_cca",
    source: SOURCE,
    constants: &[],
};
/// The same kernels counting their feature updates (`ccl updates`).
const COUNTED_KERNELS: KernelSource = KernelSource {
    name: "ha_cca_counted",
    source: SOURCE,
    constants: &[("CCL_COUNT_UPDATES", 1)],
};
inventory::submit! { KERNELS }
inventory::submit! { COUNTED_KERNELS }

/// How the features of HA's forest reach their components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HaVoting {
    /// `naive-cca`: HA's labels, then one atomic update per foreground
    /// pixel: the paper's reference point.
    Naive,
    /// `ha-otf`: features move to the new root at every union of HA's
    /// strip labeling and border merge (the paper's Algorithm 2).
    OnTheFly,
    /// `ha-cd`: after HA's forest, one atomic update per root and word
    /// (the paper's Algorithm 3).
    ConflictDetection,
}

impl HaVoting {
    /// Registry name.
    pub const fn name(self) -> &'static str {
        match self {
            HaVoting::Naive => "naive-cca",
            HaVoting::OnTheFly => "ha-otf",
            HaVoting::ConflictDetection => "ha-cd",
        }
    }

    /// What the variant layer checks calls against.
    pub const fn info(self) -> VariantInfo {
        VariantInfo {
            name: self.name(),
            connectivities: &[Connectivity::Four, Connectivity::Eight],
            analyzes: true,
        }
    }
}

/// The kernels; each field declares a kernel's arguments.
struct Kernels {
    naive_vote: Kernel<(
        ImageArgs,
        DevPtr<u32>,
        RootIndexArgs,
        StatsOutArgs,
        DevPtr<u32>,
    )>,
    vote_cd: Kernel<(
        ImageArgs,
        DevPtr<u32>,
        RootIndexArgs,
        StatsOutArgs,
        DevPtr<u32>,
    )>,
    store_roots: Kernel<(ImageArgs, DevPtr<DeviceNode>, RootIndexArgs, StatsOutArgs)>,
}

/// The device-resident stages of one of them: HA's (`strip`, `border`,
/// then `relabel` for the naive analysis), then `roots` and `features`.
/// Labels are HA's.
pub struct HaAnalysis {
    voting: HaVoting,
    ha4: Ha,
    ha8: Ha,
    kernels: Kernels,
    nodes: DeviceBuffer<DeviceNode>,
    counter: UpdateCounter,
}

impl HaAnalysis {
    /// Compiles (once per process) and loads the kernels of `voting`.
    pub fn new(gpu: &Arc<Gpu>, voting: HaVoting) -> Result<Self> {
        Self::build(
            gpu,
            voting,
            (&KERNELS, &ccl_cuda_ha4::KERNELS),
            UpdateCounter::off(),
        )
    }

    /// The instrumented build, counting its feature updates.
    pub(crate) fn counted(gpu: &Arc<Gpu>, voting: HaVoting) -> Result<Self> {
        Self::build(
            gpu,
            voting,
            (&COUNTED_KERNELS, &ccl_cuda_ha4::COUNTED_KERNELS),
            UpdateCounter::on(),
        )
    }

    fn build(
        gpu: &Arc<Gpu>,
        voting: HaVoting,
        (module, ha_module): (&KernelSource, &KernelSource),
        counter: UpdateCounter,
    ) -> Result<Self> {
        Ok(Self {
            voting,
            ha4: Ha::load(gpu, HaVariant::Ha4W32, ha_module)?,
            ha8: Ha::load(gpu, HaVariant::Ha8W32, ha_module)?,
            kernels: Kernels {
                naive_vote: Kernel::load(gpu, module, "naive_vote")?,
                vote_cd: Kernel::load(gpu, module, "ha_vote_cd")?,
                store_roots: Kernel::load(gpu, module, "ha_store_roots")?,
            },
            nodes: DeviceBuffer::new(),
            counter,
        })
    }

    /// The variant it runs.
    pub fn voting(&self) -> HaVoting {
        self.voting
    }

    fn ha(&mut self, connectivity: Connectivity) -> Result<&mut Ha> {
        Ok(if connectivity.image_diagonals()? {
            &mut self.ha8
        } else {
            &mut self.ha4
        })
    }
}

impl DeviceVariant for HaAnalysis {
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        self.ha(run.connectivity)?.forest(run, image, forest)
    }

    fn label(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
    ) -> Result<Numbered> {
        self.ha(run.connectivity)?
            .label(run, image, forest, labels, numbering)
    }

    fn analyze(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        features: &mut Features,
    ) -> Result<Analyzed> {
        let stream: &Arc<CudaStream> = run.stream;
        // Ranks and nodes are both below the number of pixels.
        let counts = self.counter.begin(stream, image.pixel_count())?;
        let args = image.args(stream);
        let word_grid = warp_grid(image.height() * image.width().div_ceil(32), WORD_WARPS)?;
        let analyzed = match self.voting {
            HaVoting::Naive => {
                self.ha(run.connectivity)?.forest(run, image, forest)?;
                let ranked = features.rank_forest(stream, image, forest, run.clock)?;
                let grid = tile_grid(image.width(), image.height(), (32, 8))?;
                let labels = DevPtr::of(forest, stream);
                let kernels = &self.kernels;
                ranked.accumulate_with(|index, output, stream| {
                    // SAFETY: flat labels of width * height pixels; the root
                    // index covers the image; `counts` is null or holds a
                    // count per pixel, and ranks are below the number of
                    // pixels.
                    unsafe {
                        kernels.naive_vote.launch(
                            stream,
                            grid,
                            (args, labels, index, output, counts),
                        )
                    }
                })?
            }
            HaVoting::ConflictDetection => {
                let ha = self.ha(run.connectivity)?;
                let bits = ha.build_forest(run, image, forest)?;
                let ranked = ha.rank_roots(run, image, &bits, forest, features)?;
                let forest = DevPtr::of(forest, stream);
                let kernels = &self.kernels;
                ranked.accumulate_with(|index, output, stream| {
                    // SAFETY: as for the naive vote, on HA's forest.
                    unsafe {
                        kernels.vote_cd.launch(
                            stream,
                            word_grid,
                            (args, forest, index, output, counts),
                        )
                    }
                })?
            }
            HaVoting::OnTheFly => {
                let nodes = self.nodes.reserve(stream, image.pixel_count())?;
                let mut nodes = nodes.slice_mut(..image.pixel_count());
                // The fields, not `ha`: `nodes` borrows `self.nodes`.
                let ha = if run.connectivity.image_diagonals()? {
                    &mut self.ha8
                } else {
                    &mut self.ha4
                };
                let bits = ha.build_forest_on_the_fly(run, image, forest, &mut nodes, counts)?;
                let ranked = ha.rank_roots(run, image, &bits, forest, features)?;
                let nodes = DevPtr::of(&nodes, stream);
                let kernels = &self.kernels;
                ranked.accumulate_with(|index, output, stream| {
                    // SAFETY: a record per pixel; the root index covers the
                    // image.
                    unsafe {
                        kernels
                            .store_roots
                            .launch(stream, word_grid, (args, nodes, index, output))
                    }
                })?
            }
        };
        run.clock.mark("features")?;
        Ok(analyzed)
    }
}

impl CountsUpdates for HaAnalysis {
    fn update_counts(&self, stream: &Arc<CudaStream>) -> Result<UpdateCounts> {
        self.counter.read(stream)
    }
}

register!(
    HaAnalysis,
    HaVoting::Naive,
    "HA's labels, then one atomic update per pixel: the reference CCA of Lemaitre et al., ICASSP 2021",
    10
);
register!(
    HaAnalysis,
    HaVoting::OnTheFly,
    "HA with on-the-fly features moved at every union, OTF (Lemaitre et al., ICASSP 2021, Alg. 2)",
    10
);
register!(
    HaAnalysis,
    HaVoting::ConflictDetection,
    "HA's forest, then one atomic per root and word, CD (Lemaitre et al., ICASSP 2021, Alg. 3)",
    10
);
