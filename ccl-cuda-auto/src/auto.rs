//! [`Auto`]: the `auto` variant, which samples the rows of an image, a
//! batch or a volume (`sample.cu`) and hands them to `tiles` or `flsl-cd`.

use std::sync::Arc;

use ccl_core::{Connectivity, Error, Result, Task};
use ccl_cuda::backend::{
    Analyzed, BitImage, DeviceVariant, Features, Numbered, Run, VolumeFeatures,
};
use ccl_cuda::cudarc::driver::sys::CUevent_flags;
use ccl_cuda::cudarc::driver::{CudaViewMut, PinnedHostSlice};
use ccl_cuda::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, cuda_error, warp_grid,
};
use ccl_cuda_flsl::{Flsl, Voting};
use ccl_cuda_tiles::Tiles;

/// Pixels of a sampled row per warp of the sample kernel (`SAMPLE_CHUNK`):
/// 32 steps of 32, so that a wide image's row is cut among many warps (a
/// warp per row of 8192 pixels took 36 us for 512 rows on an H100).
const SAMPLE_CHUNK: u32 = 1024;

const KERNELS: KernelSource = KernelSource {
    name: "auto",
    source: include_str!("sample.cu"),
    constants: &[("SAMPLE_CHUNK", SAMPLE_CHUNK)],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Warps per block of the sample kernel (256 threads, its launch bound).
const SAMPLE_WARPS: u32 = 8;
/// About as many voxels as the sample takes, whole rows, every
/// `voxels / SAMPLED_VOXELS`-th: 8192 rows of 512 voxels of a 512^3
/// volume, 512 rows of an 8192^2 image; a few microseconds.
const SAMPLED_VOXELS: usize = 1 << 22;
/// Images and volumes of fewer pixels go to `flsl-cd` unsampled: their
/// labeling takes tens of microseconds, as long as the sample and its
/// read-back.
const MIN_SAMPLED_VOXELS: usize = 1 << 20;

/// How the sample decides: volumes from the H100 sweep of 512^3 random
/// volumes in bench/2026-11-26-h100-tiles-flatten (g = 1 / 4 / 16,
/// 5–80 %), images from the H100 sweep of 8192^2 random images in
/// bench/2026-11-26-image-tiles (10–90 %).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rule {
    /// Runs per voxel from which `tiles` labels faster: its tile-local
    /// unions never leave the chip, where `flsl-cd`'s forest of runs makes a
    /// global union per run. Fine volumes have 0.09 (10 %, g = 1) to 0.25
    /// (50 %); coarse ones (g = 4) at most 0.0625, where `flsl-cd` ties or
    /// leads.
    short_runs: f64,
    /// The foreground fraction above which `flsl-cd` leads again in 18- and
    /// 26-connectivity: its runs grow long there, where `tiles` still
    /// merges every face. H200 sweep at g = 1, with `tiles`' unions a lane
    /// per pair (bench/2026-11-26-tiles-pairs): in 18 at 80 %, `tiles` 2.30
    /// against 2.53 ms, at 90 % 1.87 against 1.68; in 26 at 80 %, 2.40
    /// against 2.53, at 90 % 1.90 against 1.68. In 6-connectivity `tiles`
    /// leads up to 80 %.
    dense: f64,
    /// Runs per pixel from which `tiles` labels an image (or a batch of
    /// them) faster: random images at g = 1 from 30 % (0.21) to 75 %
    /// (0.19), in 4- and 8-connectivity (at 60 %: 1.14 against 1.96 ms and
    /// 1.68 against 3.23); not at 10 % or 90 % (0.09), nor at g = 4 (at
    /// most 0.0625), where writing and reading a parent per pixel costs it
    /// more than `flsl-cd`'s unions.
    short_image_runs: f64,
    /// The foreground fraction up to which `tiles` analyzes a coarse volume
    /// (runs of two voxels or more on the mean) faster than `flsl-cd`, in
    /// 6-, 18- and 26-connectivity, whichever labels it: its features come
    /// from the tiles with a store per component, where `flsl-cd` gathers
    /// them per run. H200 sweep of 512^3 volumes at g = 4 and 16
    /// (bench/2026-11-26-volume-features/h200): in 6 at g = 4, 31 %, 1.21
    /// against 1.38 ms, at 40 % 1.40 against 1.12; in 18 at g = 4, 10 %,
    /// 0.95 against 1.06, at 14 % 1.18 against 1.12; in 26 at g = 4, 5 %,
    /// 0.78 against 0.82, at 10 % 1.06 against 0.98.
    coarse_features: [f64; 3],
}

const RULE: Rule = Rule {
    short_runs: 0.07,
    dense: 0.85,
    short_image_runs: 0.15,
    coarse_features: [0.35, 0.12, 0.07],
};

/// Which labeler the sample chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    Tiles,
    Runs,
}

impl Rule {
    /// The choice for `task` (the labeling's where the analysis has no
    /// rule of its own).
    fn choose_for(
        self,
        task: Task,
        connectivity: Connectivity,
        voxels: u64,
        foreground: u64,
        runs: u64,
    ) -> Choice {
        let coarse_limit = match connectivity {
            Connectivity::Six => Some(self.coarse_features[0]),
            Connectivity::Eighteen => Some(self.coarse_features[1]),
            Connectivity::TwentySix => Some(self.coarse_features[2]),
            Connectivity::Four | Connectivity::Eight => None,
        };
        if let (Task::Analyze, Some(limit)) = (task, coarse_limit)
            && runs > 0
            && foreground >= 2 * runs
            && foreground as f64 <= limit * voxels as f64
        {
            return Choice::Tiles;
        }
        self.choose(connectivity, voxels, foreground, runs)
    }

    /// The labeling's choice for `foreground` voxels and `runs` runs among
    /// `voxels` sampled ones.
    fn choose(self, connectivity: Connectivity, voxels: u64, foreground: u64, runs: u64) -> Choice {
        if voxels == 0 {
            return Choice::Runs;
        }
        let run_density = runs as f64 / voxels as f64;
        if connectivity.dimensions() == 2 {
            return if run_density >= self.short_image_runs {
                Choice::Tiles
            } else {
                Choice::Runs
            };
        }
        let density = foreground as f64 / voxels as f64;
        let not_too_dense = connectivity == Connectivity::Six || density <= self.dense;
        if run_density >= self.short_runs && not_too_dense {
            Choice::Tiles
        } else {
            Choice::Runs
        }
    }
}

/// The `auto` variant: `tiles` for fine images, batches and volumes,
/// `flsl-cd` for the rest, chosen per call by a sample of the rows; a
/// volume's analysis by the same choice (and `tiles` for coarse sparse
/// volumes), an image's by `flsl-cd`.
pub struct Auto {
    tiles: Tiles,
    runs: Flsl,
    sample: Kernel<(ImageArgs, u32, u32, u32, DevPtr<u64>)>,
    /// The sample's two counts: foreground voxels, runs.
    counts: DeviceBuffer<u64>,
    /// Their copy on the host, page-locked: the copy is queued, and the
    /// host waits for it alone, not for the packing queued after it.
    host_counts: PinnedHostSlice<u64>,
    /// The image's bits, packed while the host waits for the sample, and
    /// handed to the chosen labeler ([`Run::packed`]).
    bits: BitImage,
}

impl Auto {
    /// Compiles (once per process and device) and loads the kernels of
    /// both labelers and of the sample.
    pub fn new(gpu: &Arc<Gpu>) -> Result<Self> {
        // SAFETY: the two counts are written by a copy from the device
        // before they are read (`choose`). Not write-combined: the host
        // reads them.
        let host_counts =
            unsafe { gpu.context().alloc_pinned_with_flags::<u64>(2, 0) }.map_err(cuda_error)?;
        Ok(Self {
            tiles: Tiles::new(gpu)?,
            runs: Flsl::new(gpu, Voting::ConflictDetection)?,
            sample: Kernel::load(gpu, &KERNELS, "auto_sample")?,
            counts: DeviceBuffer::new(),
            host_counts,
            bits: BitImage::new(gpu)?,
        })
    }

    /// The labeler for `rows`: the sample of its rows read back (stage
    /// `choose`), unless they are few or `tiles` cannot take them. With a
    /// sample, the rows' bits are packed (both labelers read them) while
    /// the host waits for it, and handed on in `run.packed`: the device
    /// does not wait for the host's choice.
    fn choose(&mut self, run: &mut Run<'_>, rows: &DeviceImage<'_>, task: Task) -> Result<Choice> {
        if rows.pixel_count() < MIN_SAMPLED_VOXELS
            || self.tiles.check_size(rows.width(), rows.height()).is_err()
        {
            return Ok(Choice::Runs);
        }
        let stream = run.stream;
        let stride = (rows.pixel_count() / SAMPLED_VOXELS).clamp(1, rows.height());
        let sampled = rows.height().div_ceil(stride);
        let counts = self.counts.reserve(stream, 2)?;
        stream.memset_zeros(counts).map_err(cuda_error)?;
        let counts_at = DevPtr::of_mut(counts, stream);
        let narrow =
            |n: usize| u32::try_from(n).map_err(|_| Error::InvalidDimensions(format!("{n} rows")));
        let chunks_per_row = rows.width().div_ceil(SAMPLE_CHUNK as usize);
        // SAFETY: a warp per chunk of a sampled row (rows 0, stride, 2
        // stride, … below the image's height; `width` bytes of each, inside
        // the image that DeviceImage checked); the two counters were
        // reserved above.
        unsafe {
            self.sample.launch(
                stream,
                warp_grid(sampled * chunks_per_row, SAMPLE_WARPS)?,
                (
                    rows.args(stream),
                    narrow(stride)?,
                    narrow(sampled)?,
                    narrow(chunks_per_row)?,
                    counts_at,
                ),
            )
        }?;
        stream
            .memcpy_dtoh(&self.counts.get()?.slice(..2), &mut self.host_counts)
            .map_err(cuda_error)?;
        // The runtime turns cudarc's own event tracking off (runtime::gpu):
        // the copy's end is this event, not the pinned slice's.
        let copied = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .map_err(cuda_error)?;
        run.clock.mark("choose")?;
        run.packed = Some(self.bits.pack(stream, rows)?);
        copied.synchronize().map_err(cuda_error)?;
        let counts = self.host_counts.as_slice().map_err(cuda_error)?;
        let voxels = (sampled * rows.width()) as u64;
        Ok(RULE.choose_for(task, run.connectivity, voxels, counts[0], counts[1]))
    }
}

impl DeviceVariant for Auto {
    /// Sizes `flsl-cd` labels; `tiles` is chosen only for sizes it takes.
    fn check_size(&self, width: usize, height: usize) -> Result<()> {
        self.runs.check_size(width, height)
    }

    /// Both label a batch's images apart in one launch sequence.
    fn labels_batches(&self) -> bool {
        true
    }

    fn forest(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        match self.choose(run, rows, Task::Label)? {
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
        match self.choose(run, rows, Task::Label)? {
            Choice::Tiles => self.tiles.label(run, rows, forest, labels, numbering),
            Choice::Runs => self.runs.label(run, rows, forest, labels, numbering),
        }
    }

    /// `flsl-cd`'s: its features gathered per run and warp, where `tiles`'
    /// forest goes through the shared back end's pass over every pixel.
    fn analyze(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        features: &mut Features,
    ) -> Result<Analyzed> {
        self.runs.analyze(run, image, forest, features)
    }

    /// The chosen labeler's: `tiles` gathers its features per tile
    /// component, `flsl-cd` per run and warp.
    fn analyze_volume(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
        features: &mut VolumeFeatures,
    ) -> Result<()> {
        match self.choose(run, rows, Task::Analyze)? {
            Choice::Tiles => self
                .tiles
                .analyze_volume(run, rows, forest, labels, numbering, features),
            Choice::Runs => self
                .runs
                .analyze_volume(run, rows, forest, labels, numbering, features),
        }
    }
}

ccl_cuda::register_variant! {
    name: "auto",
    connectivities: &[
        Connectivity::Four,
        Connectivity::Eight,
        Connectivity::Six,
        Connectivity::Eighteen,
        Connectivity::TwentySix,
    ],
    analyzes: true,
    summary: "tiles where a sample of rows has short runs (fine images and volumes, and for features coarse sparse volumes), else flsl-cd",
    priority: 60,
    // Images' labels and features stay `flsl-cd`'s by default: the sample's
    // round trip (0.025 ms on the H200) costs coarse 8192^2 images 7-11 %
    // (g = 4, 16; smaller images more), for 23 % at g = 1 over 10-90 %
    // (bench/2026-11-26-image-tiles). Volumes take long enough.
    preferred_for: &[
        (Task::Label, Connectivity::Six),
        (Task::Label, Connectivity::Eighteen),
        (Task::Label, Connectivity::TwentySix),
        (Task::Analyze, Connectivity::Six),
        (Task::Analyze, Connectivity::Eighteen),
        (Task::Analyze, Connectivity::TwentySix),
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
    fn fine_images_go_to_tiles_from_0_15_runs_per_pixel() {
        // 1000 pixels at g = 1: 60 % (240 runs), 30 % (210), 10 % and 90 %
        // (90); g = 4 at 50 % (62).
        for c in Connectivity::PLANE {
            assert_eq!(RULE.choose(c, 1000, 600, 240), Choice::Tiles);
            assert_eq!(RULE.choose(c, 1000, 300, 210), Choice::Tiles);
            assert_eq!(RULE.choose(c, 1000, 100, 90), Choice::Runs);
            assert_eq!(RULE.choose(c, 1000, 900, 90), Choice::Runs);
            assert_eq!(RULE.choose(c, 1000, 500, 62), Choice::Runs);
        }
    }

    #[test]
    fn coarse_sparse_volumes_are_analyzed_by_tiles() {
        // g = 4 at 31 %: about 0.053 runs per voxel, labeled by runs and
        // analyzed by tiles in 6-connectivity; at 10 % by tiles in 18 but
        // not in 26; at 45 % by runs in all.
        let (voxels, foreground, runs) = (4096, 1270, 218);
        let six = |task| RULE.choose_for(task, Connectivity::Six, voxels, foreground, runs);
        assert_eq!(six(Task::Label), Choice::Runs);
        assert_eq!(six(Task::Analyze), Choice::Tiles);
        let tenth = |c| RULE.choose_for(Task::Analyze, c, 4096, 410, 92);
        assert_eq!(tenth(Connectivity::Eighteen), Choice::Tiles);
        assert_eq!(tenth(Connectivity::TwentySix), Choice::Runs);
        for c in Connectivity::VOLUME {
            assert_eq!(
                RULE.choose_for(Task::Analyze, c, 4096, 1843, 253),
                Choice::Runs
            );
        }
        // Fine volumes (runs of one or two voxels) follow the labeling's
        // rule: g = 1 at 5 % by runs.
        assert_eq!(
            RULE.choose_for(Task::Analyze, Connectivity::Six, 4096, 205, 195),
            Choice::Runs
        );
        // Images have no rule of their own.
        assert_eq!(
            RULE.choose_for(Task::Analyze, Connectivity::Four, 1000, 300, 20),
            Choice::Runs
        );
    }

    #[test]
    fn the_densest_fine_volumes_go_to_runs_except_in_six() {
        // g = 1 at 80 %: 0.16 runs per voxel; at 90 %, 0.09.
        for c in Connectivity::VOLUME {
            assert_eq!(RULE.choose(c, 1000, 800, 160), Choice::Tiles);
        }
        assert_eq!(RULE.choose(Connectivity::Six, 1000, 900, 90), Choice::Tiles);
        assert_eq!(
            RULE.choose(Connectivity::Eighteen, 1000, 900, 90),
            Choice::Runs
        );
        assert_eq!(
            RULE.choose(Connectivity::TwentySix, 1000, 900, 90),
            Choice::Runs
        );
    }
}
