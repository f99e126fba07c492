//! [`Flsl`]: the run-based variants `flsl`, `flsl-otf` and `flsl-cd`,
//! launching the kernels of `flsl.cu`.

use std::sync::Arc;

use ccl_core::{Connectivity, Error, Result, Task};
use ccl_cuda::backend::{
    Analyzed, BitImage, BitImageArgs, Cleanup, DeviceNode, DeviceVariant, Features, FilterVotes,
    Filtered, Numbered, RootIndexArgs, RootLayout, RootsFlagged, Run, StatsOutArgs, VariantInfo,
    VolumeFeatures, VolumeStatsOutArgs,
};
use ccl_cuda::cudarc::driver::{CudaStream, CudaViewMut, DeviceRepr, LaunchConfig};
use ccl_cuda::inventory;
use ccl_cuda::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Divisor, Gpu, Kernel, KernelSource, blocks, warp_grid,
};

use crate::counting::{CountsUpdates, UpdateCounter, UpdateCounts};

mod classes;

pub use classes::FlslClasses;

/// Threads per block of the kernels that give a block one row's runs (or a
/// group of short rows', `run_grid`).
const ROW_BLOCK: u32 = 256;
/// Warps per block of the run kernel, each with its stage of run records in
/// shared memory.
const RUN_WARPS: u32 = 4;
/// Warps per block of a class map's run kernel, whose stage holds 1024
/// runs a warp (`flsl.cu`, `FLSL_CLASS_STAGED_RUNS`).
const CLASS_RUN_WARPS: u32 = 2;
/// The widest rows that the run kernel takes two a warp (16 words of 32;
/// a half-warp labels a row of any width, in more iterations).
const PAIRED_ROW_PIXELS: usize = 512;
/// Warps per block of the per-word and per-row kernels.
const WORD_WARPS: u32 = 8;
/// Pixels of the rows of one block of the per-run kernels (`run_grid`): a
/// row of an 8192-pixel image, 16 rows of a batch of 512-pixel images.
const GROUP_PIXELS: usize = 8192;
/// Rows of a slice of a volume (an image of a batch) that one warp joins,
/// row after row; at most 32, a lane holding each row's count (`FlslBand`
/// in `flsl.cu`). Bands of 8 took 0.85-0.97 times the unions' time and
/// 1.1-2.2 times the joins' on 256 masks of 512² and a 512³ volume, and
/// the calls 2-5 % longer (ncu, H200).
const BAND_ROWS: u32 = 16;
const _: () = assert!(BAND_ROWS <= 32);
/// The share of foreground (%) under which a batch's unions take all rows
/// at once, not row after row in bands (`flsl.cu`, "Slices in bands"): on
/// 256 masks of 512² the bands won from 20 % at g = 4 in 4-connectivity
/// and at g = 1 and 4 in 8, from 30 % at g = 1 in 4 and g = 16 in 8, and
/// from 45 % at g = 16 in 4 (ncu, H200).
const FLAT_BATCH_BELOW_PERCENT: u32 = 15;
/// The most root words of a group of rows (`Geometry::group_rows`) for
/// `flsl_count_group_roots`, whose warps gather a group's in shared memory;
/// groups of one row, or of more words, take `flsl_count_roots`' warp per
/// row. A group of rows holds at most about 300.
const GROUP_ROOT_WORDS: u32 = 512;
/// Warps per block of `flsl_count_group_roots`, a group each.
const COUNT_WARPS: u32 = 8;
/// Rows per warp of a volume's vote: a block gathers the votes of
/// `WORD_WARPS` times as many consecutive rows in shared memory.
const VOTE_ROWS_PER_WARP: u32 = 4;
/// Words of a row per warp of the pixel labeling (a multiple of 32): the
/// warp loads them a lane each, then writes their labels.
const LABEL_SPAN_WORDS: u32 = 32;
/// The most words a row may have for the pixel labeling to give a warp
/// several rows (32 / words of them): rows of up to 512 pixels.
const SHORT_LABEL_WORDS: u32 = 16;

/// `flsl.cu`, and the class maps' kernels that build on its walks.
const SOURCE: &str = concat!(include_str!("flsl.cu"), include_str!("flsl/classes.cu"));

/// The kernels of the timed build.
const KERNELS: KernelSource = KernelSource {
    name: "flsl",
    source: SOURCE,
    constants: &[
        ("LABEL_SPAN_WORDS", LABEL_SPAN_WORDS),
        ("FLSL_SHORT_LABEL_WORDS", SHORT_LABEL_WORDS),
        ("VOTE_ROWS_PER_WARP", VOTE_ROWS_PER_WARP),
        ("RUN_WARPS", RUN_WARPS),
        ("FLSL_CLASS_RUN_WARPS", CLASS_RUN_WARPS),
        ("FLSL_GROUP_ROOT_WORDS", GROUP_ROOT_WORDS),
        ("FLSL_COUNT_WARPS", COUNT_WARPS),
    ],
};
/// The same kernels counting their feature updates (`ccl updates`).
const COUNTED_KERNELS: KernelSource = KernelSource {
    name: "flsl_counted",
    source: SOURCE,
    constants: &[
        ("LABEL_SPAN_WORDS", LABEL_SPAN_WORDS),
        ("FLSL_SHORT_LABEL_WORDS", SHORT_LABEL_WORDS),
        ("VOTE_ROWS_PER_WARP", VOTE_ROWS_PER_WARP),
        ("RUN_WARPS", RUN_WARPS),
        ("FLSL_CLASS_RUN_WARPS", CLASS_RUN_WARPS),
        ("FLSL_GROUP_ROOT_WORDS", GROUP_ROOT_WORDS),
        ("FLSL_COUNT_WARPS", COUNT_WARPS),
        ("CCL_COUNT_UPDATES", 1),
    ],
};
inventory::submit! { KERNELS }
inventory::submit! { COUNTED_KERNELS }

/// How the features of the runs reach their components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Voting {
    /// `flsl`: after the unions, one atomic update per run.
    PerRun,
    /// `flsl-otf`: during the unions, features move to the new root
    /// (on-the-fly, the paper's Algorithm 2).
    OnTheFly,
    /// `flsl-cd`: after the unions, one atomic update per root and warp
    /// (conflict detection, the paper's Algorithm 3).
    ConflictDetection,
}

impl Voting {
    /// Registry name.
    pub const fn name(self) -> &'static str {
        match self {
            Voting::PerRun => "flsl",
            Voting::OnTheFly => "flsl-otf",
            Voting::ConflictDetection => "flsl-cd",
        }
    }

    /// What the variant layer checks calls against.
    pub const fn info(self) -> VariantInfo {
        VariantInfo {
            name: self.name(),
            connectivities: match self {
                // One of the three labels volumes: their labelings are one.
                Voting::ConflictDetection => &[
                    Connectivity::Four,
                    Connectivity::Eight,
                    Connectivity::Six,
                    Connectivity::Eighteen,
                    Connectivity::TwentySix,
                ],
                _ => &[Connectivity::Four, Connectivity::Eight],
            },
            analyzes: true,
        }
    }
}

/// The run table of `flsl.cu` (`FlslRuns`).
#[repr(C)]
#[derive(Clone, Copy)]
struct RunTableArgs {
    runs: DevPtr<u64>,
    parent: DevPtr<u32>,
    extra: DevPtr<u32>,
    count: DevPtr<u32>,
    word_runs: DevPtr<u32>,
    capacity: u32,
    row_words: u32,
    rows: u32,
    group_rows: u32,
    capacity_divisor: Divisor,
}

// SAFETY: plain old data with C layout, matching FlslRuns.
unsafe impl DeviceRepr for RunTableArgs {}

/// How the slices of a volume (the images of a batch) are cut into bands
/// of `BAND_ROWS` rows for the band kernels (`flsl.cu`, `FlslBands`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bands {
    /// Rows of a slice.
    slice_height: u32,
    /// Rows of a band (the slice's last band may be shorter).
    band_height: u32,
    /// Bands of a slice.
    per_slice: u32,
    /// Bands of all slices.
    count: u32,
    /// Bands after the first of their slice, of all slices: the bands
    /// whose first rows a batch joins to the band above.
    joined: u32,
}

// SAFETY: plain old data with C layout, matching FlslBands.
unsafe impl DeviceRepr for Bands {}

impl Bands {
    /// The bands of `slices` slices of `slice_height` rows (none where the
    /// slices have no rows).
    fn of(slices: usize, slice_height: u32) -> Result<Self> {
        let band_height = BAND_ROWS.min(slice_height);
        let per_slice = if band_height == 0 {
            0
        } else {
            slice_height.div_ceil(band_height)
        };
        let counted = |bands: usize| {
            u32::try_from(bands)
                .map_err(|_| Error::InvalidDimensions("more than 2^32 bands of rows".into()))
        };
        Ok(Self {
            slice_height,
            band_height,
            per_slice,
            count: counted(slices * per_slice as usize)?,
            joined: counted(slices * (per_slice as usize).saturating_sub(1))?,
        })
    }
}

/// How far (in columns) a run of a slice's row reaches into the rows the
/// band joins take: the band above's last row, and in a volume the slice
/// before's row y and rows y ± 1 (negative: not at all). The binary and the
/// class joins both read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Reaches {
    /// The band above (4, 6: shared columns; 8, 18, 26: also diagonal).
    band: u32,
    /// Row y of the slice before (none in a batch's images).
    face: i32,
    /// Rows y ± 1 of the slice before (6: none; 18: shared columns; 26:
    /// also diagonal).
    edge: i32,
}

impl Reaches {
    fn of(connectivity: Connectivity) -> Self {
        let (band, face, edge) = match connectivity {
            Connectivity::Four => (0, -1, -1),
            Connectivity::Eight => (1, -1, -1),
            Connectivity::Six => (0, 0, -1),
            Connectivity::Eighteen => (1, 1, 0),
            Connectivity::TwentySix => (1, 1, 1),
        };
        Self { band, face, edge }
    }
}

/// Where the runs of an image are kept: `capacity` slots per row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Geometry {
    width: usize,
    height: usize,
    /// The most runs a row can hold.
    capacity: usize,
    /// Words of 32 pixels per row, plus one past the edge.
    row_words: usize,
}

impl Geometry {
    /// A binary image's: a row holds at most every other pixel's run.
    fn of(width: usize, height: usize) -> Result<Self> {
        Self::with_capacity(width, height, width.div_ceil(2))
    }

    /// A class map's: runs of different values may touch, one a pixel.
    fn of_classes(width: usize, height: usize) -> Result<Self> {
        Self::with_capacity(width, height, width)
    }

    fn with_capacity(width: usize, height: usize, capacity: usize) -> Result<Self> {
        let geometry = Self {
            width,
            height,
            capacity,
            row_words: width / 32 + 1,
        };
        // Slots and parents (slot + 1) are 32-bit.
        if geometry.slots() >= u32::MAX as usize
            || geometry.height * geometry.row_words >= u32::MAX as usize
        {
            return Err(Error::InvalidDimensions(format!(
                "a {width}x{height} image has too many run slots for 32-bit indices"
            )));
        }
        Ok(geometry)
    }

    fn slots(&self) -> usize {
        self.height * self.capacity
    }

    /// Rows per block of the per-run kernels: about [`GROUP_PIXELS`]
    /// pixels, 1 to 32 rows (flsl.cu's `flsl_group_runs`).
    fn group_rows(&self) -> usize {
        (GROUP_PIXELS / self.width.max(1)).clamp(1, 32)
    }

    /// Root bits: one per slot.
    fn root_layout(&self) -> RootLayout {
        RootLayout {
            words_per_row: self.capacity.div_ceil(32),
            height: self.height,
        }
    }
}

/// The buffers of the run table, reused across calls.
#[derive(Default)]
struct RunTable {
    runs: DeviceBuffer<u64>,
    parent: DeviceBuffer<u32>,
    extra: DeviceBuffer<u32>,
    count: DeviceBuffer<u32>,
    word_runs: DeviceBuffer<u32>,
    nodes: DeviceBuffer<DeviceNode>,
    /// A batch's choice of unions, made by the run kernel: 1 where the band
    /// unions take its runs all rows at once, 0 where row after row.
    flat_unions: DeviceBuffer<u32>,
}

impl RunTable {
    fn args(&mut self, stream: &Arc<CudaStream>, geometry: Geometry) -> Result<RunTableArgs> {
        let slots = geometry.slots();
        Ok(RunTableArgs {
            runs: DevPtr::of_mut(self.runs.reserve(stream, slots)?, stream),
            parent: DevPtr::of_mut(self.parent.reserve(stream, slots)?, stream),
            extra: DevPtr::of_mut(self.extra.reserve(stream, slots)?, stream),
            count: DevPtr::of_mut(self.count.reserve(stream, geometry.height)?, stream),
            word_runs: DevPtr::of_mut(
                self.word_runs
                    .reserve(stream, geometry.height * geometry.row_words)?,
                stream,
            ),
            capacity: geometry.capacity as u32,
            row_words: geometry.row_words as u32,
            rows: geometry.height as u32,
            group_rows: geometry.group_rows() as u32,
            capacity_divisor: Divisor::new(geometry.capacity as u32)?,
        })
    }

    fn nodes(
        &mut self,
        stream: &Arc<CudaStream>,
        geometry: Geometry,
    ) -> Result<DevPtr<DeviceNode>> {
        Ok(DevPtr::of_mut(
            self.nodes.reserve(stream, geometry.slots())?,
            stream,
        ))
    }
}

/// The run kernels' arguments: the bit image, the table, OTF records or
/// null, the slices' and bands' heights, and a batch's choice of unions
/// (`FLAT_BATCH_BELOW_PERCENT`'s, and where to store it, or null).
type RunKernel = Kernel<(
    BitImageArgs,
    RunTableArgs,
    DevPtr<DeviceNode>,
    u32,
    u32,
    u32,
    DevPtr<u32>,
)>;

/// The voting kernels' (`flsl_vote`, `flsl_vote_cd`): the run table, the
/// root index, the stats array, the counts per rank (or null), and where
/// each run's rank goes by slot (a labeling's clean-up: the table's
/// `extra`, for `flsl_number_voted_runs`; null in an analysis).
type VoteArgs = (
    RunTableArgs,
    RootIndexArgs,
    StatsOutArgs,
    DevPtr<u32>,
    DevPtr<u32>,
);

/// The kernels; each field declares a kernel's arguments.
struct Kernels {
    runs_c4: RunKernel,
    runs_c8: RunKernel,
    runs_c4_pairs: RunKernel,
    runs_c8_pairs: RunKernel,
    unions: Kernel<(RunTableArgs,)>,
    band_unions: Kernel<(RunTableArgs, Bands, DevPtr<u32>)>,
    band_joins: Kernel<(
        BitImageArgs,
        RunTableArgs,
        Bands,
        u32,
        i32,
        i32,
        DevPtr<u32>,
    )>,
    unions_otf: Kernel<(RunTableArgs, DevPtr<DeviceNode>, DevPtr<u32>)>,
    count_roots: Kernel<(RunTableArgs, u32, DevPtr<u32>, u32, DevPtr<u32>)>,
    count_group_roots: Kernel<(RunTableArgs, DevPtr<u32>, u32, DevPtr<u32>)>,
    vote: Kernel<VoteArgs>,
    vote_cd: Kernel<VoteArgs>,
    vote_areas: Kernel<(RunTableArgs, RootIndexArgs, DevPtr<u32>, DevPtr<u32>)>,
    vote_volume: Kernel<(RunTableArgs, u32, RootIndexArgs, VolumeStatsOutArgs)>,
    volume_root_records: Kernel<(RunTableArgs, u32, RootIndexArgs, VolumeStatsOutArgs)>,
    store_roots: Kernel<(
        RunTableArgs,
        DevPtr<DeviceNode>,
        RootIndexArgs,
        StatsOutArgs,
    )>,
    label_runs: Kernel<(RunTableArgs, u32)>,
    number_runs: Kernel<(RunTableArgs, RootIndexArgs)>,
    number_voted_runs: Kernel<(RunTableArgs, RootIndexArgs)>,
    label_pixels: Kernel<(BitImageArgs, RunTableArgs, DevPtr<u32>)>,
    mask_pixels: Kernel<(BitImageArgs, RunTableArgs, DevPtr<u8>)>,
    label_largest_pixels: Kernel<(BitImageArgs, RunTableArgs, DevPtr<u32>, DevPtr<u64>)>,
    mask_largest_pixels: Kernel<(BitImageArgs, RunTableArgs, DevPtr<u8>, DevPtr<u64>)>,
}

impl Kernels {
    fn load(gpu: &Gpu, module: &KernelSource) -> Result<Self> {
        Ok(Self {
            runs_c4: Kernel::load(gpu, module, "flsl_runs_c4")?,
            runs_c8: Kernel::load(gpu, module, "flsl_runs_c8")?,
            runs_c4_pairs: Kernel::load(gpu, module, "flsl_runs_c4_pairs")?,
            runs_c8_pairs: Kernel::load(gpu, module, "flsl_runs_c8_pairs")?,
            unions: Kernel::load(gpu, module, "flsl_unions")?,
            band_unions: Kernel::load(gpu, module, "flsl_band_unions")?,
            band_joins: Kernel::load(gpu, module, "flsl_band_joins")?,
            unions_otf: Kernel::load(gpu, module, "flsl_unions_otf")?,
            count_roots: Kernel::load(gpu, module, "flsl_count_roots")?,
            count_group_roots: Kernel::load(gpu, module, "flsl_count_group_roots")?,
            vote: Kernel::load(gpu, module, "flsl_vote")?,
            vote_cd: Kernel::load(gpu, module, "flsl_vote_cd")?,
            vote_areas: Kernel::load(gpu, module, "flsl_vote_areas")?,
            vote_volume: Kernel::load(gpu, module, "flsl_vote_volume")?,
            volume_root_records: Kernel::load(gpu, module, "flsl_volume_root_records")?,
            store_roots: Kernel::load(gpu, module, "flsl_store_roots")?,
            label_runs: Kernel::load(gpu, module, "flsl_label_runs")?,
            number_runs: Kernel::load(gpu, module, "flsl_number_runs")?,
            number_voted_runs: Kernel::load(gpu, module, "flsl_number_voted_runs")?,
            label_pixels: Kernel::load(gpu, module, "flsl_label_pixels")?,
            mask_pixels: Kernel::load(gpu, module, "flsl_mask_pixels")?,
            label_largest_pixels: Kernel::load(gpu, module, "flsl_label_largest_pixels")?,
            mask_largest_pixels: Kernel::load(gpu, module, "flsl_mask_largest_pixels")?,
        })
    }
}

/// The device-resident stages of one FLSL variant: `runs` (the image packed
/// into bits, then Algorithm 1), `unions`, then `labels`, or `roots` and
/// `features`.
pub struct Flsl {
    voting: Voting,
    kernels: Kernels,
    /// The image as bits, which the run and pixel kernels read.
    bits: BitImage,
    table: RunTable,
    counter: UpdateCounter,
}

/// A grid of one block of [`ROW_BLOCK`] threads per row of the image, for
/// the kernels that take their row from `blockIdx.x` (the votes, the OTF
/// record store: their block's threads share a row's totals).
fn row_grid(height: usize) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid_dim: (blocks(height, 1)?, 1, 1),
        block_dim: (ROW_BLOCK, 1, 1),
        shared_mem_bytes: 0,
    })
}

/// The pixel pass's grid: a warp per `32 / words` rows of at most
/// `SHORT_LABEL_WORDS` words, else per span of `LABEL_SPAN_WORDS` words of
/// each row.
fn pixel_grid(geometry: Geometry) -> Result<LaunchConfig> {
    let words_per_row = geometry.width.div_ceil(32);
    let warps = if words_per_row == 0 {
        0
    } else if words_per_row <= SHORT_LABEL_WORDS as usize {
        geometry.height.div_ceil(32 / words_per_row)
    } else {
        geometry.height * words_per_row.div_ceil(LABEL_SPAN_WORDS as usize)
    };
    warp_grid(warps, WORD_WARPS)
}

/// The grid of the per-run kernels (the unions, the runs' labels): a block
/// of [`ROW_BLOCK`] threads per group of [`Geometry::group_rows`] rows.
fn run_grid(geometry: Geometry) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid_dim: (blocks(geometry.height, geometry.group_rows())?, 1, 1),
        block_dim: (ROW_BLOCK, 1, 1),
        shared_mem_bytes: 0,
    })
}

impl Flsl {
    /// Compiles (once per process) and loads the kernels of `voting`.
    pub fn new(gpu: &Arc<Gpu>, voting: Voting) -> Result<Self> {
        Self::build(gpu, voting, &KERNELS, UpdateCounter::off())
    }

    /// The instrumented build, counting its feature updates.
    pub(crate) fn counted(gpu: &Arc<Gpu>, voting: Voting) -> Result<Self> {
        Self::build(gpu, voting, &COUNTED_KERNELS, UpdateCounter::on())
    }

    fn build(
        gpu: &Arc<Gpu>,
        voting: Voting,
        module: &KernelSource,
        counter: UpdateCounter,
    ) -> Result<Self> {
        Ok(Self {
            voting,
            kernels: Kernels::load(gpu, module)?,
            bits: BitImage::new(gpu)?,
            table: RunTable::default(),
            counter,
        })
    }

    /// The variant it runs.
    pub fn voting(&self) -> Voting {
        self.voting
    }

    /// Bits, runs and unions: the forest over the runs of `image`, and its
    /// bit image. With `nodes`, features move on the fly (OTF) and `counts`
    /// counts their updates.
    fn build_forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        geometry: Geometry,
        otf: Option<(DevPtr<DeviceNode>, DevPtr<u32>)>,
    ) -> Result<(RunTableArgs, BitImageArgs)> {
        let stream = run.stream;
        // Packing is part of the `runs` stage, so that stage times stay
        // comparable with the byte-reading run kernel's.
        let bits = self.bits.pack_for(run, image)?;
        let table = self.table.args(stream, geometry)?;
        let nodes = otf.map_or(DevPtr::null(), |(nodes, _)| nodes);
        // Within a slice of a volume, runs of adjacent rows touch
        // diagonally in 18- and 26-connectivity; the images of a batch (an
        // image's connectivity with slices) as the connectivity says.
        let slice_height = match run.slices {
            None => 0,
            Some(slices) => u32::try_from(slices.height)
                .map_err(|_| Error::InvalidDimensions("slices taller than 2^32 rows".into()))?,
        };
        let volume = run.slices.is_some() && run.connectivity.dimensions() == 3;
        // The slices of a volume and the images of a batch are joined in
        // bands (flsl.cu, "Slices in bands"), unless features move with
        // the unions (OTF), which the row kernel does. (A batch's images
        // joined as an image's rows, by the row kernel, took 0.41-0.45
        // against 0.35-0.38 ms for 256 images of 512^2 at g = 16, 60-90 %,
        // on the H200, and 1.58 against 1.23 at g = 1, 75 %.)
        let bands = match run.slices {
            Some(slices) if otf.is_none() => Some(Bands::of(slices.depth, slice_height)?),
            _ => None,
        };
        // The run kernel links no run of a volume to the row above across
        // a band's first row: the band joins do. A batch's runs it links
        // within their image, and decides into `flat_unions` whether the
        // band unions take them all rows at once (a sparse batch) or drop
        // them and go row after row.
        let band_height = match bands {
            Some(bands) if volume => bands.band_height,
            _ => slice_height,
        };
        let batch_in_bands = bands.is_some() && !volume;
        let (flat_unions, flat_below_percent) = if batch_in_bands {
            let word = self.table.flat_unions.reserve(stream, 1)?;
            (DevPtr::of_mut(word, stream), FLAT_BATCH_BELOW_PERCENT)
        } else {
            (DevPtr::null(), 0)
        };
        let diagonals = if volume {
            run.connectivity != Connectivity::Six
        } else {
            run.connectivity.image_diagonals()?
        };
        // Rows of at most 16 words (512 pixels: a batch's masks, a
        // volume's slices) two a warp, a half-warp each: a warp on one such
        // row left half its lanes idle, and the kernel is bound by the
        // instructions it issues (ncu: 79 % of the SMs' throughput on 256
        // masks of 512^2).
        let pairs = geometry.width <= PAIRED_ROW_PIXELS;
        let runs = match (diagonals, pairs) {
            (false, false) => &self.kernels.runs_c4,
            (true, false) => &self.kernels.runs_c8,
            (false, true) => &self.kernels.runs_c4_pairs,
            (true, true) => &self.kernels.runs_c8_pairs,
        };
        let rows_per_block = RUN_WARPS as usize * if pairs { 2 } else { 1 };
        let grid = LaunchConfig {
            grid_dim: (blocks(geometry.height, rows_per_block)?, 1, 1),
            block_dim: (32, RUN_WARPS, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the run table holds `capacity` slots per row (a row has
        // at most that many runs), a count per row and `row_words` words per
        // row; `nodes` is null or holds a record per slot; `flat_unions`
        // is null or a word; the kernel reads the bit image's words only
        // (0 outside it).
        unsafe {
            runs.launch(
                stream,
                grid,
                (
                    bits,
                    table,
                    nodes,
                    slice_height,
                    band_height,
                    flat_below_percent,
                    flat_unions,
                ),
            )
        }?;
        run.clock.mark("runs")?;
        if let Some(bands) = bands {
            self.join_bands(run, geometry, bits, table, bands, flat_unions)?;
        } else {
            let grid = run_grid(geometry)?;
            // SAFETY: each group's block (run_grid) walks the runs its rows'
            // counts give; parents and the runs above they name are slots
            // of the table.
            unsafe {
                match otf {
                    Some((nodes, counts)) => {
                        self.kernels
                            .unions_otf
                            .launch(stream, grid, (table, nodes, counts))
                    }
                    None => self.kernels.unions.launch(stream, grid, (table,)),
                }
            }?;
        }
        run.clock.mark("unions")?;
        Ok((table, bits))
    }
}

impl Flsl {
    /// The unions of the runs of slices: within each band of rows of a
    /// slice, then of each band with the band above and, in a volume, with
    /// the slice before.
    fn join_bands(
        &self,
        run: &mut Run<'_>,
        geometry: Geometry,
        bits: BitImageArgs,
        table: RunTableArgs,
        bands: Bands,
        flat_unions: DevPtr<u32>,
    ) -> Result<()> {
        if bands.count == 0 {
            return Ok(());
        }
        let stream = run.stream;
        // SAFETY: a warp per band walks the runs its rows' counts give, and
        // the runs above they name, all slots of the table; `flat_unions`
        // is null or the word the run kernel wrote.
        unsafe {
            self.kernels.band_unions.launch(
                stream,
                warp_grid(bands.count as usize, WORD_WARPS)?,
                (table, bands, flat_unions),
            )
        }?;
        let Reaches {
            band: band_reach,
            face: face_reach,
            edge: edge_reach,
        } = Reaches::of(run.connectivity);
        // A volume's rows all join the slice before; a batch's images, only
        // the first rows of their bands after the first (the kernel maps
        // its warps to them).
        let joined_rows = if face_reach < 0 {
            bands.joined as usize
        } else {
            geometry.height
        };
        if joined_rows == 0 {
            return Ok(());
        }
        // SAFETY: each warp walks the runs its row's count gives and those
        // of the rows of the band above and the slice before, all slots of
        // the table, and reads the bit image's words (0 outside it).
        unsafe {
            self.kernels.band_joins.launch(
                stream,
                warp_grid(joined_rows, WORD_WARPS)?,
                (
                    bits,
                    table,
                    bands,
                    band_reach,
                    face_reach,
                    edge_reach,
                    flat_unions,
                ),
            )
        }
    }

    /// Flags the root runs of `table` with FLSL's own kernel, in the layout
    /// of its slots: the ranking follows.
    fn flag_roots<'f>(
        &self,
        stream: &Arc<CudaStream>,
        geometry: Geometry,
        table: RunTableArgs,
        features: &'f mut Features,
    ) -> Result<RootsFlagged<'f>> {
        let layout = geometry.root_layout();
        let flagging = features.begin(stream, layout)?;
        let roots = flagging.targets();
        let words_per_row = layout.words_per_row as u32;
        let group_words = geometry.group_rows() * layout.words_per_row;
        // SAFETY: `begin` reserved a root word per 32 slots of each row and
        // a count per group; the kernels read the runs each of their rows
        // has and write those rows' words (a group's at most
        // GROUP_ROOT_WORDS, in shared memory).
        unsafe {
            if geometry.group_rows() > 1 && group_words <= GROUP_ROOT_WORDS as usize {
                self.kernels.count_group_roots.launch(
                    stream,
                    warp_grid(geometry.height.div_ceil(geometry.group_rows()), COUNT_WARPS)?,
                    (table, roots.bits, words_per_row, roots.group_count),
                )
            } else {
                self.kernels.count_roots.launch(
                    stream,
                    warp_grid(geometry.height, WORD_WARPS)?,
                    (
                        table,
                        geometry.height as u32,
                        roots.bits,
                        words_per_row,
                        roots.group_count,
                    ),
                )
            }
        }?;
        Ok(flagging.flagged())
    }

    /// A labeling's last pass: each run's label from its rank (its rank +
    /// 1, or a clean-up's remap or largest key, through the root index), on
    /// `rows` (`run_grid`), then the pixels' from their runs into `output`
    /// (width × height).
    #[allow(clippy::too_many_arguments)] // the table, its geometry and the output, apart
    fn number_pixels(
        &self,
        stream: &Arc<CudaStream>,
        rows: LaunchConfig,
        geometry: Geometry,
        table: RunTableArgs,
        bits: BitImageArgs,
        index: RootIndexArgs,
        ranks: RunRanks,
        output: PixelOutput,
    ) -> Result<()> {
        let number = match ranks {
            RunRanks::FromRoots => &self.kernels.number_runs,
            // One image's largest alone: the pixel pass compares each run's
            // voted rank with the kept one, with no pass over the runs.
            RunRanks::Voted if index.largest.address() != 0 => {
                return self.write_pixels(
                    stream,
                    geometry,
                    table,
                    bits,
                    output,
                    Some(index.largest),
                );
            }
            RunRanks::Voted => &self.kernels.number_voted_runs,
        };
        // SAFETY: a block per group of rows (run_grid), walking the runs
        // its rows' counts give; the root index covers every slot (its
        // remap, if any, holds an entry per rank); voted ranks are those
        // of the same index.
        unsafe { number.launch(stream, rows, (table, index)) }?;
        self.write_pixels(stream, geometry, table, bits, output, None)
    }

    /// Each pixel's label from its run's (in `extra`) into `output` (width ×
    /// height): the label, or whether it is nonzero. With `largest` (one
    /// image's largest selection key, on the device), `extra` holds each
    /// run's rank instead, and the label is 1 for the kept rank, else 0.
    fn write_pixels(
        &self,
        stream: &Arc<CudaStream>,
        geometry: Geometry,
        table: RunTableArgs,
        bits: BitImageArgs,
        output: PixelOutput,
        largest: Option<DevPtr<u64>>,
    ) -> Result<()> {
        let grid = pixel_grid(geometry)?;
        let kernels = &self.kernels;
        // SAFETY: the pixel kernel (a warp per span of a row) writes the
        // width * height labels or mask bytes (checked by the variant layer)
        // and reads the labels (or ranks) of runs its row has; `largest` is
        // one key.
        unsafe {
            match (output, largest) {
                (PixelOutput::Labels(labels), None) => {
                    kernels
                        .label_pixels
                        .launch(stream, grid, (bits, table, labels))
                }
                (PixelOutput::Mask(mask), None) => {
                    kernels
                        .mask_pixels
                        .launch(stream, grid, (bits, table, mask))
                }
                (PixelOutput::Labels(labels), Some(key)) => {
                    kernels
                        .label_largest_pixels
                        .launch(stream, grid, (bits, table, labels, key))
                }
                (PixelOutput::Mask(mask), Some(key)) => {
                    kernels
                        .mask_largest_pixels
                        .launch(stream, grid, (bits, table, mask, key))
                }
            }
        }
    }

    /// The analysis' voting kernel into a stats array: `flsl-cd`'s per root
    /// and warp, else per run (`flsl-otf`'s own is its moves on the fly).
    fn stats_vote(&self) -> &Kernel<VoteArgs> {
        match self.voting {
            Voting::ConflictDetection => &self.kernels.vote_cd,
            Voting::PerRun | Voting::OnTheFly => &self.kernels.vote,
        }
    }
}

/// Where a labeling's last pass finds each run's rank.
#[derive(Clone, Copy)]
enum RunRanks {
    /// From its root run, through the root index (`flsl_number_runs`).
    FromRoots,
    /// In the run table's `extra`, where the clean-up's votes left it
    /// (`flsl_number_voted_runs`; for one image's largest alone, the pixel
    /// pass compares it with the kept rank, `flsl_label_largest_pixels`).
    Voted,
}

/// Where FLSL's pixel pass writes.
#[derive(Clone, Copy)]
enum PixelOutput {
    /// The labels, a `u32` per pixel.
    Labels(DevPtr<u32>),
    /// Whether each pixel's label is nonzero, a byte per pixel.
    Mask(DevPtr<u8>),
}

impl DeviceVariant for Flsl {
    fn check_size(&self, width: usize, height: usize) -> Result<()> {
        Geometry::of(width, height).map(|_| ())
    }

    /// A batch's images are slices whose first rows have no row above.
    fn labels_batches(&self) -> bool {
        true
    }

    /// Raw labels, 1 + the raster index of each component's first pixel
    /// (FLSL's forest proper is over runs, not pixels).
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let geometry = Geometry::of(image.width(), image.height())?;
        let (table, bits) = self.build_forest(run, image, geometry, None)?;
        // SAFETY: a block per group of rows (run_grid), walking the runs
        // its rows' counts give.
        unsafe {
            self.kernels.label_runs.launch(
                run.stream,
                run_grid(geometry)?,
                (table, geometry.width as u32),
            )
        }?;
        let forest = DevPtr::of_mut(forest, run.stream);
        self.write_pixels(
            run.stream,
            geometry,
            table,
            bits,
            PixelOutput::Labels(forest),
            None,
        )?;
        run.clock.mark("labels")
    }

    /// Runs, unions, the root runs flagged and ranked (stage `roots`), then
    /// each run's rank + 1 and the pixels' labels from their runs (stage
    /// `labels`).
    fn label(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        _forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
    ) -> Result<Numbered> {
        let geometry = Geometry::of(image.width(), image.height())?;
        let (table, bits) = self.build_forest(run, image, geometry, None)?;
        let rows = run_grid(geometry)?;
        let labels = PixelOutput::Labels(DevPtr::of_mut(labels, run.stream));
        self.flag_roots(run.stream, geometry, table, numbering)?
            .number_with(run.clock, |index, stream| {
                self.number_pixels(
                    stream,
                    rows,
                    geometry,
                    table,
                    bits,
                    index,
                    RunRanks::FromRoots,
                    labels,
                )
            })
    }

    /// Any voting: the clean-up reads the votes of `flsl` or `flsl-cd`.
    fn filters_labels(&self) -> bool {
        true
    }

    /// Runs, unions, the root runs flagged and ranked (stage `roots`); the
    /// votes by rank (stage `features`): each stretch of runs of one root
    /// adds its length to the component's area, or, where the filter reads
    /// extents, the analysis' votes into the stats array, per run (`flsl`,
    /// and `flsl-otf`, whose moves on the fly are for its analysis) or per
    /// root and warp (`flsl-cd`), each vote leaving its run's rank in the
    /// table's `extra`; the clean-up's decision (stage `filter`); then each
    /// run's new label from that rank, and the pixels' labels, or mask,
    /// from their runs (stage `labels`), as [`label`](DeviceVariant::label)
    /// writes them; for one image's largest alone, the pixels' straight from
    /// their runs' ranks.
    fn label_filtered(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        _forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
        cleanup: Cleanup<'_, '_>,
    ) -> Result<Filtered> {
        let geometry = Geometry::of(image.width(), image.height())?;
        let stream = run.stream;
        let counts = self.counter.begin(stream, geometry.slots())?;
        let (table, bits) = self.build_forest(run, image, geometry, None)?;
        let rows = run_grid(geometry)?;
        let vote_grid = row_grid(geometry.height)?;
        let output = match cleanup.mask {
            Some(mask) => PixelOutput::Mask(mask),
            None => PixelOutput::Labels(DevPtr::of_mut(labels, stream)),
        };
        let vote = self.stats_vote();
        let vote_areas = &self.kernels.vote_areas;
        self.flag_roots(stream, geometry, table, numbering)?
            .number_filtered_with(
                run.clock,
                cleanup,
                |index, votes, stream| match votes {
                    // SAFETY: a block per row walks the runs its count gives;
                    // the root index covers every slot, whose ranks are below
                    // the component count, the areas' length; `extra` holds
                    // an entry per slot.
                    FilterVotes::Areas(areas) => unsafe {
                        vote_areas.launch(stream, vote_grid, (table, index, areas, table.extra))
                    },
                    // SAFETY: as in `analyze`: the root index covers every
                    // slot; ranks past the stats array's capacity are not
                    // stored; `counts` is null or, as `extra` does, holds
                    // an entry per slot.
                    FilterVotes::Stats(output) => unsafe {
                        vote.launch(
                            stream,
                            vote_grid,
                            (table, index, output, counts, table.extra),
                        )
                    },
                },
                |index, stream| {
                    self.number_pixels(
                        stream,
                        rows,
                        geometry,
                        table,
                        bits,
                        index,
                        RunRanks::Voted,
                        output,
                    )
                },
            )
    }

    fn analyze(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        _forest: &mut CudaViewMut<'_, u32>,
        features: &mut Features,
    ) -> Result<Analyzed> {
        let geometry = Geometry::of(image.width(), image.height())?;
        let stream = run.stream;
        // Ranks (flsl, flsl-cd) and slots (flsl-otf) are both below the
        // number of slots.
        let counts = self.counter.begin(stream, geometry.slots())?;
        let otf = match self.voting {
            Voting::OnTheFly => Some((self.table.nodes(stream, geometry)?, counts)),
            _ => None,
        };
        let (table, _) = self.build_forest(run, image, geometry, otf)?;
        let ranked = self.flag_roots(stream, geometry, table, features)?.rank()?;
        run.clock.mark("roots")?;
        let grid = row_grid(geometry.height)?;
        // FLSL's own accumulation: a record per run, not per pixel.
        let analyzed = ranked.accumulate_with(|index, output, stream| {
            // SAFETY: the root index covers every slot; ranks past the stats
            // array's capacity are not stored; `counts` is null or holds an
            // entry per slot, and ranks are below the number of runs.
            unsafe {
                match otf {
                    Some((nodes, _)) => {
                        self.kernels
                            .store_roots
                            .launch(stream, grid, (table, nodes, index, output))
                    }
                    None => self.stats_vote().launch(
                        stream,
                        grid,
                        (table, index, output, counts, DevPtr::null()),
                    ),
                }
            }
        })?;
        run.clock.mark("features")?;
        Ok(analyzed)
    }

    /// A volume's features by FLSL-CD's voting (a record per run, one
    /// atomic per root and warp) into a volume's stats array, without a
    /// label image: runs, unions, the root runs flagged and ranked (stage
    /// `roots`), then the votes (stage `features`).
    fn analyze_volume(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        _forest: &mut CudaViewMut<'_, u32>,
        _labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
        features: &mut VolumeFeatures,
    ) -> Result<()> {
        let slices = run.volume_slices()?;
        let geometry = Geometry::of(rows.width(), rows.height())?;
        let stream = run.stream;
        let (table, _) = self.build_forest(run, rows, geometry, None)?;
        let index = self
            .flag_roots(stream, geometry, table, numbering)?
            .rank_only()?
            .index();
        run.clock.mark("roots")?;
        // The stats array is sized by the count, read back (a
        // synchronisation, as an image's analysis reads it to check its
        // capacity).
        let count = numbering.component_count(stream)?;
        // Every record is a root run's first: stored, then completed.
        let output = features.output_for_roots(stream, slices, count)?;
        if count > 0 {
            let rows = u32::try_from(geometry.height)
                .map_err(|_| Error::InvalidDimensions("a volume of more than 2^32 rows".into()))?;
            // SAFETY: a warp per row walks the runs its count gives; the
            // root index covers every slot, whose ranks are below `count`.
            unsafe {
                self.kernels.volume_root_records.launch(
                    stream,
                    warp_grid(geometry.height, WORD_WARPS)?,
                    (table, rows, index, output),
                )
            }?;
            // SAFETY: a warp per VOTE_ROWS_PER_WARP rows walks the runs
            // their counts give; the root index covers every slot; ranks are
            // below `count`, the stats array's capacity.
            unsafe {
                self.kernels.vote_volume.launch(
                    stream,
                    warp_grid(
                        geometry.height.div_ceil(VOTE_ROWS_PER_WARP as usize),
                        WORD_WARPS,
                    )?,
                    (table, rows, index, output),
                )
            }?;
        }
        run.clock.mark("features")
    }
}

impl CountsUpdates for Flsl {
    fn update_counts(&self, stream: &Arc<CudaStream>) -> Result<UpdateCounts> {
        self.counter.read(stream)
    }
}

register!(
    Flsl,
    Voting::PerRun,
    "FLSL: runs found with word operations on a bit image, unions per run, one atomic update per run (Lemaitre et al., ICASSP 2021)",
    35
);
register!(
    Flsl,
    Voting::OnTheFly,
    "FLSL with on-the-fly features moved at every union, OTF (Lemaitre et al., ICASSP 2021, Alg. 2)",
    35
);
// `flsl-cd` is the default labeler and analyzer where a GPU runs: in the
// H200 sweep of bench/2026-11-23-h200-canonical (canonical labels timed) it
// labels at 97.7 / 222.9 / 308.9 Gpx/s at g = 1 / 4 / 16 in 4-connectivity
// (`ha4-32` 41.2 / 61.1 / 77.4) and 90.4 / 209.0 / 295.7 in 8 (`buf` 34.1 /
// 57.9 / 68.4), and analyzes at 94.8 / 209.5 / 335.4 and 95.5 / 219.6 /
// 352.8 (`ha4-32` 30.5 / 49.0 / 63.5, `buf` 26.8 / 42.1 / 51.2).
register!(
    Flsl,
    Voting::ConflictDetection,
    "FLSL with conflict detection, one atomic per root and warp, CD (Lemaitre et al., ICASSP 2021, Alg. 3)",
    65,
    &[
        (Task::Label, Connectivity::Four),
        (Task::Label, Connectivity::Eight),
        (Task::Analyze, Connectivity::Four),
        // Volumes' labels and features are `auto`'s (ccl-cuda-auto), which
        // hands coarse volumes to this variant and fine ones to `tiles`.
        (Task::Analyze, Connectivity::Eight)
    ]
);

#[cfg(test)]
mod tests {
    use super::{BAND_ROWS, Bands};

    #[test]
    fn slices_are_cut_into_bands_of_band_rows_the_last_one_shorter() {
        let rows = 2 * BAND_ROWS + 8;
        let bands = Bands::of(3, rows).unwrap();
        assert_eq!(
            bands,
            Bands {
                slice_height: rows,
                band_height: BAND_ROWS,
                per_slice: 3,
                count: 9,
                joined: 6,
            }
        );
        // Slices no taller than a band: one band each, none joined.
        let short = Bands::of(4, 5).unwrap();
        assert_eq!((short.band_height, short.count, short.joined), (5, 4, 0));
        // Slices of no rows: no bands.
        let empty = Bands::of(4, 0).unwrap();
        assert_eq!((empty.count, empty.joined), (0, 0));
    }

    #[test]
    fn more_bands_than_a_u32_counts_is_an_error() {
        assert!(Bands::of(1 << 32, BAND_ROWS).is_err());
    }
}
