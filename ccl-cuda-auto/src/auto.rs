//! [`Auto`]: the `auto` variant, which samples a volume's rows (`sample.cu`)
//! and hands the volume to `tiles` or `flsl-cd`.

use std::sync::Arc;

use ccl_core::{Connectivity, Error, Result, Task};
use ccl_cuda::backend::{DeviceVariant, Features, Numbered, Run, VolumeFeatures};
use ccl_cuda::cudarc::driver::CudaViewMut;
use ccl_cuda::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, cuda_error, warp_grid,
};
use ccl_cuda_flsl::{Flsl, Voting};
use ccl_cuda_tiles::Tiles;

const KERNELS: KernelSource = KernelSource {
    name: "auto",
    source: include_str!("sample.cu"),
    constants: &[],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Warps per block of the sample kernel (256 threads, its launch bound).
const SAMPLE_WARPS: u32 = 8;
/// About as many rows as the sample takes (every `rows / SAMPLED_ROWS`-th
/// row): 8192 rows of 512 voxels are 4 Mvox, a few microseconds.
const SAMPLED_ROWS: usize = 8192;
/// Volumes of fewer voxels go to `flsl-cd` unsampled: their labeling takes
/// tens of microseconds, as long as the sample and its read-back.
const MIN_SAMPLED_VOXELS: usize = 1 << 20;

/// How the sample decides, from the H100 sweep of 512^3 random volumes in
/// bench/2026-11-26-h100-tiles-flatten (g = 1 / 4 / 16, 5–80 %).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rule {
    /// Runs per voxel from which `tiles` labels faster: its tile-local
    /// unions never leave the chip, where `flsl-cd`'s forest of runs makes a
    /// global union per run. Fine volumes have 0.09 (10 %, g = 1) to 0.25
    /// (50 %); coarse ones (g = 4) at most 0.0625, where `flsl-cd` ties or
    /// leads.
    short_runs: f64,
    /// The foreground fraction above which `flsl-cd` leads again in 18- and
    /// 26-connectivity (in 26 at g = 1, 60 %: 4.62 against 5.23 ms; 80 %:
    /// 2.81 against 5.04), where `tiles`' face merges grow with the
    /// density. In 6-connectivity `tiles` leads up to 80 %.
    dense: f64,
}

const RULE: Rule = Rule {
    short_runs: 0.07,
    dense: 0.55,
};

/// Which labeler the sample chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    Tiles,
    Runs,
}

impl Rule {
    /// The choice for `foreground` voxels and `runs` runs among `voxels`
    /// sampled ones.
    fn choose(self, connectivity: Connectivity, voxels: u64, foreground: u64, runs: u64) -> Choice {
        if voxels == 0 {
            return Choice::Runs;
        }
        let run_density = runs as f64 / voxels as f64;
        let density = foreground as f64 / voxels as f64;
        let not_too_dense = connectivity == Connectivity::Six || density <= self.dense;
        if run_density >= self.short_runs && not_too_dense {
            Choice::Tiles
        } else {
            Choice::Runs
        }
    }
}

/// The `auto` variant: `tiles` for fine volumes, `flsl-cd` for the rest,
/// chosen per call by a sample of the rows; its analysis is `flsl-cd`'s.
pub struct Auto {
    tiles: Tiles,
    runs: Flsl,
    sample: Kernel<(ImageArgs, u32, u32, DevPtr<u64>)>,
    /// The sample's two counts: foreground voxels, runs.
    counts: DeviceBuffer<u64>,
}

impl Auto {
    /// Compiles (once per process and device) and loads the kernels of
    /// both labelers and of the sample.
    pub fn new(gpu: &Arc<Gpu>) -> Result<Self> {
        Ok(Self {
            tiles: Tiles::new(gpu)?,
            runs: Flsl::new(gpu, Voting::ConflictDetection)?,
            sample: Kernel::load(gpu, &KERNELS, "auto_sample")?,
            counts: DeviceBuffer::new(),
        })
    }

    /// The labeler for `rows`: the sample of its rows read back (stage
    /// `choose`), unless the volume is small or `tiles` cannot take it.
    fn choose(&mut self, run: &mut Run<'_>, rows: &DeviceImage<'_>) -> Result<Choice> {
        if run.slices.is_none()
            || rows.pixel_count() < MIN_SAMPLED_VOXELS
            || self.tiles.check_size(rows.width(), rows.height()).is_err()
        {
            return Ok(Choice::Runs);
        }
        let stream = run.stream;
        let stride = (rows.height() / SAMPLED_ROWS).max(1);
        let sampled = rows.height().div_ceil(stride);
        let counts = self.counts.reserve(stream, 2)?;
        stream.memset_zeros(counts).map_err(cuda_error)?;
        let counts_at = DevPtr::of_mut(counts, stream);
        let narrow =
            |n: usize| u32::try_from(n).map_err(|_| Error::InvalidDimensions(format!("{n} rows")));
        // SAFETY: a warp per sampled row (rows 0, stride, 2 stride, … below
        // the image's height, `width` bytes of each, inside the image that
        // DeviceImage checked); the two counters were reserved above.
        unsafe {
            self.sample.launch(
                stream,
                warp_grid(sampled, SAMPLE_WARPS)?,
                (
                    rows.args(stream),
                    narrow(stride)?,
                    narrow(sampled)?,
                    counts_at,
                ),
            )
        }?;
        let counts = stream
            .clone_dtoh(&self.counts.get()?.slice(..2))
            .map_err(cuda_error)?;
        run.clock.mark("choose")?;
        let voxels = (sampled * rows.width()) as u64;
        Ok(RULE.choose(run.connectivity, voxels, counts[0], counts[1]))
    }
}

impl DeviceVariant for Auto {
    /// Sizes `flsl-cd` labels; `tiles` is chosen only for sizes it takes.
    fn check_size(&self, width: usize, height: usize) -> Result<()> {
        self.runs.check_size(width, height)
    }

    fn forest(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        match self.choose(run, rows)? {
            Choice::Tiles => self.tiles.forest(run, rows, forest),
            Choice::Runs => self.runs.forest(run, rows, forest),
        }
    }

    fn label(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
    ) -> Result<Numbered> {
        match self.choose(run, rows)? {
            Choice::Tiles => self.tiles.label(run, rows, forest, labels, numbering),
            Choice::Runs => self.runs.label(run, rows, forest, labels, numbering),
        }
    }

    /// `flsl-cd`'s: its features gathered per run and warp; `tiles`' go
    /// through one more pass over the labels.
    fn analyze_volume(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
        features: &mut VolumeFeatures,
    ) -> Result<()> {
        self.runs
            .analyze_volume(run, rows, forest, labels, numbering, features)
    }
}

ccl_cuda::register_variant! {
    name: "auto",
    connectivities: &[
        Connectivity::Six,
        Connectivity::Eighteen,
        Connectivity::TwentySix,
    ],
    analyzes: true,
    summary: "volumes: tiles where a sample of rows has short runs (fine volumes), else flsl-cd; analysis by flsl-cd",
    priority: 60,
    preferred_for: &[
        (Task::Label, Connectivity::Six),
        (Task::Label, Connectivity::Eighteen),
        (Task::Label, Connectivity::TwentySix),
    ],
    new: |gpu, _| Auto::new(gpu),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fine_volumes_go_to_tiles() {
        // 512 voxels of a random volume at g = 1: 50 % (128 runs), 10 %
        // (46 runs).
        for c in [Connectivity::Six, Connectivity::Eighteen] {
            assert_eq!(RULE.choose(c, 512, 256, 128), Choice::Tiles);
            assert_eq!(RULE.choose(c, 512, 51, 46), Choice::Tiles);
        }
    }

    #[test]
    fn coarse_sparse_and_empty_volumes_go_to_runs() {
        // g = 4 at 50 %: 0.0625 runs per voxel; 5 % at g = 1: 0.0475.
        assert_eq!(
            RULE.choose(Connectivity::Six, 4096, 2048, 256),
            Choice::Runs
        );
        assert_eq!(
            RULE.choose(Connectivity::TwentySix, 4096, 205, 195),
            Choice::Runs
        );
        assert_eq!(RULE.choose(Connectivity::Six, 4096, 0, 0), Choice::Runs);
        assert_eq!(RULE.choose(Connectivity::Six, 0, 0, 0), Choice::Runs);
    }

    #[test]
    fn dense_fine_volumes_go_to_tiles_in_six_only() {
        // g = 1 at 80 %: 0.16 runs per voxel.
        assert_eq!(
            RULE.choose(Connectivity::Six, 1000, 800, 160),
            Choice::Tiles
        );
        assert_eq!(
            RULE.choose(Connectivity::Eighteen, 1000, 800, 160),
            Choice::Runs
        );
        assert_eq!(
            RULE.choose(Connectivity::TwentySix, 1000, 600, 240),
            Choice::Runs
        );
    }
}
