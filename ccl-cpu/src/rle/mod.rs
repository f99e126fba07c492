//! `cpu-rle` and `cpu-rle-1t`: run-based labeling and analysis on the CPU,
//! after Light Speed Labeling and its parallel form (Cabaret, Lacassagne &
//! Etiemble, "Parallel Light Speed Labeling: an efficient connected
//! component labeling and analysis algorithm for multi-core processors",
//! JRTIP 2018) and the run-length form of Lemaitre, Hennequin & Lacassagne
//! ("How to speed connected component labeling up with SIMD RLE
//! algorithms", WPMVP 2020).
//!
//! The image is cut into horizontal bands, labeled in parallel (rayon):
//! 1. [`bits`]: each row becomes a bit mask, 16 to 32 pixels per SIMD compare;
//! 2. [`runs`]: run boundaries come from the mask a word (64 pixels) at a time;
//! 3. [`band`]: each run joins the runs above it that it touches in a
//!    union-find forest of provisional labels, and with analysis adds its
//!    features to its class;
//! 4. [`merge`]: the bands' forests are joined across the band borders and
//!    their roots numbered in raster order;
//! 5. labels are written run by run, in parallel.
//!
//! Work and memory follow the number of runs, not of pixels: analysis keeps
//! no run past its row, labeling one `u32` per run.

mod band;
pub(crate) mod bits;
mod forest;
mod merge;
mod runs;
mod slab;
mod volume;
mod write;

use std::ops::Range;

use ccl_core::{
    Algorithm, Analyzer, Backend, BinaryImage, BinaryVolume, ComponentStats, Connectivity,
    HostTimedRun, LabelImage, LabelVolume, Labeler, Result, VolumeStats, check_connectivity,
    check_label_buffer, check_volume_label_buffer, pages,
};
use rayon::prelude::*;

use band::Band;
use merge::JoinBuffers;
use slab::Slab;

const CONNECTIVITIES: &[Connectivity] = &[
    Connectivity::Four,
    Connectivity::Eight,
    Connectivity::Six,
    Connectivity::Eighteen,
    Connectivity::TwentySix,
];

/// Bands per thread of the pool: a few, so that a thread whose band is
/// quick takes another while a dense band is still being labeled.
const BANDS_PER_THREAD: usize = 2;

/// The fewest rows a band has (short bands cost a border each).
const MIN_BAND_ROWS: usize = 16;

/// The fewest slices a slab of a volume has (each slab border costs a
/// slice of rows joined on one thread).
const MIN_SLAB_SLICES: usize = 4;

/// The fewest pixels a band (or voxels a slab) has, so that a band's work
/// outweighs its share of handing bands out and merging their borders.
const MIN_BAND_PIXELS: usize = 1 << 14;

/// With `T` threads in the pool, an image of fewer than
/// `MIN_PARALLEL_PIXELS / (T - 1)` pixels (voxels) is labeled on the
/// calling thread: the other threads must take enough work off it to pay
/// for waking them. Measured 2026-11-25, 8-connectivity labels, mean over
/// densities 10-90 % at g = 1 and 4: on the 2-core development machine
/// two threads in bands of 64 Kpx lost to one from 384² to 768² at g = 4
/// (1.1-2.1x slower) and drew level at 1024²; on the GPU machine's 16
/// host cores, whose pool wakes far faster, 16 threads took 0.46 / 0.77x
/// the time of one at 384² (g = 1 / 4) and 0.15-0.62x from 512² to 1448²
/// (the rule before, one thread below 1 Mpx, left that); 256² was level.
const MIN_PARALLEL_PIXELS: usize = 1 << 20;

/// Whether an input of `pixels` pixels (voxels) is worth the pool: see
/// [`MIN_PARALLEL_PIXELS`].
pub(crate) fn worth_the_pool(pixels: usize) -> bool {
    let helpers = rayon::current_num_threads().saturating_sub(1);
    helpers > 0 && pixels.saturating_mul(helpers) >= MIN_PARALLEL_PIXELS
}

/// The least work, in runs, for which an image [worth the pool by its
/// pixels](worth_the_pool) runs there: a run costs 10-20 ns on one
/// thread, a pixel about a 64th of that (its mask and its label write).
/// On the GPU machine's 16 host cores (2026-11-29, 8-connectivity,
/// mean over 10-90 %), 16 threads took 1.1-2.1x one thread's time on a
/// 384² image at g = 4 and 16 (6 K runs and fewer), drew level at 512², g =
/// 4 (11 K), and took a half or less from 768², g = 4 and 384², g = 1 (25
/// K) on. Pixels alone cannot tell these apart: a g = 4 image has a quarter
/// of the runs of a g = 1 image of its size.
const MIN_PARALLEL_RUNS: usize = 1 << 14;

/// Pixels that cost about what one run costs (see [`MIN_PARALLEL_RUNS`]):
/// a word of mask. An empty 1024² image is then just worth two threads, as
/// the 2-core development machine had it (about 0.1-0.2 against 0.21 ms).
const PIXELS_PER_RUN: usize = 64;

/// Rows between the rows whose runs are counted to estimate an image's.
const RUN_SAMPLE_STRIDE: usize = 8;

/// Whether `image` is worth the pool: by its pixels ([`worth_the_pool`]),
/// then by its work, its runs estimated from every
/// [`RUN_SAMPLE_STRIDE`]-th row (a few µs at 1 Mpx) where its pixels alone
/// do not settle it (under [`MIN_PARALLEL_RUNS`] × [`PIXELS_PER_RUN`]).
fn image_worth_the_pool(image: &BinaryImage<'_>) -> bool {
    let pixels = image.pixel_count();
    if !worth_the_pool(pixels) {
        return false;
    }
    let pixel_work = pixels / PIXELS_PER_RUN;
    pixel_work >= MIN_PARALLEL_RUNS || pixel_work + estimated_runs(image) >= MIN_PARALLEL_RUNS
}

/// The runs of `image`, estimated from those of every
/// [`RUN_SAMPLE_STRIDE`]-th row.
fn estimated_runs(image: &BinaryImage<'_>) -> usize {
    let height = image.height();
    let mut words = vec![0u64; image.width().div_ceil(64)];
    let (mut runs, mut sampled) = (0usize, 0usize);
    for y in (0..height).step_by(RUN_SAMPLE_STRIDE) {
        bits::row_to_bits(image.row(y), &mut words);
        runs += runs::with_run_starts(&words)
            .map(|(_, starts)| starts.count_ones() as usize)
            .sum::<usize>();
        sampled += 1;
    }
    runs * height / sampled.max(1)
}

/// The run-based labeler: bands of rows in parallel on rayon's pool (whose
/// size `RAYON_NUM_THREADS` sets), or on the calling thread alone.
///
/// Its labels are canonical (1..=N in raster order of each component's
/// first pixel), as are the reference's.
///
/// ```
/// use ccl_core::{Analyzer, BinaryImage, Connectivity, Labeler};
/// use ccl_cpu::RunLabeler;
///
/// let pixels = [1, 1, 0, 1,
///               0, 1, 0, 1];
/// let image = BinaryImage::new(&pixels, 4, 2)?;
/// let labels = RunLabeler::parallel().label(&image, Connectivity::Four)?;
/// assert_eq!(labels.labels(), &[1, 1, 0, 2, 0, 1, 0, 2]);
/// let stats = RunLabeler::single_threaded().analyze(&image, Connectivity::Four)?;
/// assert_eq!((stats[0].area, stats[1].sum_y), (3, 1));
/// # Ok::<(), ccl_core::Error>(())
/// ```
pub struct RunLabeler {
    parallel: bool,
    /// The bands' buffers, kept for the next image.
    scratch: Vec<Band>,
    /// The slabs' buffers, kept for the next volume.
    volume_scratch: Vec<Slab>,
    /// The merge's per-label tables, kept for the next image or volume.
    join_buffers: JoinBuffers,
}

impl RunLabeler {
    /// On every thread of rayon's global pool.
    pub fn parallel() -> Self {
        Self {
            parallel: true,
            scratch: Vec::new(),
            volume_scratch: Vec::new(),
            join_buffers: JoinBuffers::default(),
        }
    }

    /// On the calling thread only (one band).
    pub fn single_threaded() -> Self {
        Self {
            parallel: false,
            scratch: Vec::new(),
            volume_scratch: Vec::new(),
            join_buffers: JoinBuffers::default(),
        }
    }

    fn name(&self) -> &'static str {
        if self.parallel { PARALLEL } else { SINGLE }
    }

    /// Whether `image` is labeled on the pool: in more than one band.
    #[cfg(test)]
    fn parallel_for(&self, image: &BinaryImage<'_>) -> bool {
        self.bands(image).len() > 1
    }

    /// The image's rows cut into bands: where the labeler is parallel and
    /// the image [worth the pool](image_worth_the_pool), a few per thread
    /// of the pool, as many as the image has pixels and rows for; else one.
    fn bands(&self, image: &BinaryImage<'_>) -> Vec<Range<usize>> {
        let height = image.height();
        let count = if self.parallel && image_worth_the_pool(image) {
            (rayon::current_num_threads() * BANDS_PER_THREAD)
                .min(height.div_ceil(MIN_BAND_ROWS))
                .min(image.pixel_count() / MIN_BAND_PIXELS)
        } else {
            1
        };
        even_bands(height, count)
    }

    /// Whether `volume` is labeled on the pool: in more than one slab.
    fn parallel_for_volume(&self, volume: &BinaryVolume<'_>) -> bool {
        self.slabs(volume).len() > 1
    }

    /// The volume's slices cut into slabs, as [`Self::bands`] cuts rows.
    fn slabs(&self, volume: &BinaryVolume<'_>) -> Vec<Range<usize>> {
        let depth = volume.depth();
        let count = if self.parallel && worth_the_pool(volume.voxel_count()) {
            (rayon::current_num_threads() * BANDS_PER_THREAD)
                .min(depth.div_ceil(MIN_SLAB_SLICES))
                .min(volume.voxel_count() / MIN_BAND_PIXELS)
        } else {
            1
        };
        even_bands(depth, count)
    }
}

impl std::fmt::Debug for RunLabeler {
    /// The variant, not the buffers (a band's runs are megabytes).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunLabeler")
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

const PARALLEL: &str = "cpu-rle";
const SINGLE: &str = "cpu-rle-1t";

ccl_core::inventory::submit! {
    Algorithm {
        name: PARALLEL,
        aliases: &[],
        crate_name: env!("CARGO_PKG_NAME"),
        backend: Backend::Cpu,
        connectivities: CONNECTIVITIES,
        summary: "run-based union-find, rows as 64-pixel words, bands on every core (Cabaret et al., Parallel Light Speed Labeling, JRTIP 2018; Lemaitre et al., SIMD RLE, WPMVP 2020)",
        // Above the reference, below every GPU variant: the default where no GPU runs.
        priority: 20,
        preferred_for: &[],
        probe: || Ok(()),
        labeler: Some(|| Ok(Box::new(RunLabeler::parallel()))),
        analyzer: Some(|| Ok(Box::new(RunLabeler::parallel()))),
        timed: || Ok(Box::new(HostTimedRun::new(RunLabeler::parallel()))),
    }
}

ccl_core::inventory::submit! {
    Algorithm {
        name: SINGLE,
        aliases: &[],
        crate_name: env!("CARGO_PKG_NAME"),
        backend: Backend::Cpu,
        connectivities: CONNECTIVITIES,
        summary: "cpu-rle on one thread: the single-core figure of the run-based labeler",
        priority: 15,
        preferred_for: &[],
        probe: || Ok(()),
        labeler: Some(|| Ok(Box::new(RunLabeler::single_threaded()))),
        analyzer: Some(|| Ok(Box::new(RunLabeler::single_threaded()))),
        timed: || Ok(Box::new(HostTimedRun::new(RunLabeler::single_threaded()))),
    }
}

impl Labeler for RunLabeler {
    fn label(&mut self, image: &BinaryImage<'_>, connectivity: Connectivity) -> Result<LabelImage> {
        Ok(self.label_with_count(image, connectivity)?.0)
    }

    /// N comes from the border merge, not from a pass over the labels.
    fn label_with_count(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
    ) -> Result<(LabelImage, usize)> {
        self.check(connectivity, 2)?;
        let bands = self.bands(image);
        let mut labels = pages::zeroed::<u32>(image.pixel_count());
        let count = label_in_bands::<true>(
            image,
            connectivity,
            &bands,
            bands.len() > 1,
            &mut self.scratch,
            &mut self.join_buffers,
            &mut labels,
        );
        Ok((
            LabelImage::new(image.width(), image.height(), labels)?,
            count,
        ))
    }

    /// Writes every pixel of `labels` (background too), in the same pass as
    /// the labels: nothing is allocated, and N comes from the border merge,
    /// not from a pass over the labels.
    fn label_into(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
        labels: &mut [u32],
    ) -> Result<usize> {
        self.check(connectivity, 2)?;
        check_label_buffer(image, labels)?;
        let bands = self.bands(image);
        Ok(label_in_bands::<false>(
            image,
            connectivity,
            &bands,
            bands.len() > 1,
            &mut self.scratch,
            &mut self.join_buffers,
            labels,
        ))
    }

    fn label_volume(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<LabelVolume> {
        self.check(connectivity, 3)?;
        let mut labels = pages::zeroed::<u32>(volume.voxel_count());
        volume::label_in_slabs::<true>(
            volume,
            connectivity,
            &self.slabs(volume),
            self.parallel_for_volume(volume),
            &mut self.volume_scratch,
            &mut self.join_buffers,
            &mut labels,
        );
        LabelVolume::new(volume.width(), volume.height(), volume.depth(), labels)
    }

    /// Writes every voxel of `labels`, as [`Self::label_into`] does pixels.
    fn label_volume_into(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
        labels: &mut [u32],
    ) -> Result<usize> {
        self.check(connectivity, 3)?;
        check_volume_label_buffer(volume, labels)?;
        Ok(volume::label_in_slabs::<false>(
            volume,
            connectivity,
            &self.slabs(volume),
            self.parallel_for_volume(volume),
            &mut self.volume_scratch,
            &mut self.join_buffers,
            labels,
        ))
    }
}

impl RunLabeler {
    /// `Ok` when it labels `dimensions`-D inputs in `connectivity`.
    fn check(&self, connectivity: Connectivity, dimensions: usize) -> Result<()> {
        check_connectivity(self.name(), CONNECTIVITIES, connectivity)?;
        connectivity.check_dimensions(dimensions)
    }
}

impl Analyzer for RunLabeler {
    fn analyze(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<ComponentStats>> {
        let mut stats = Vec::new();
        self.analyze_into(image, connectivity, &mut stats)?;
        Ok(stats)
    }

    /// Writes each component's features once, straight into `stats`'s
    /// memory where it has room (a new vector, advised for huge pages,
    /// where it has not).
    fn analyze_into(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
        stats: &mut Vec<ComponentStats>,
    ) -> Result<()> {
        self.check(connectivity, 2)?;
        let bands = self.bands(image);
        analyze_in_bands(
            image,
            connectivity,
            &bands,
            bands.len() > 1,
            &mut self.scratch,
            &mut self.join_buffers,
            stats,
        );
        Ok(())
    }

    fn analyze_volume(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<VolumeStats>> {
        let mut stats = Vec::new();
        self.analyze_volume_into(volume, connectivity, &mut stats)?;
        Ok(stats)
    }

    /// As [`Self::analyze_into`], for a volume.
    fn analyze_volume_into(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
        stats: &mut Vec<VolumeStats>,
    ) -> Result<()> {
        self.check(connectivity, 3)?;
        volume::analyze_in_slabs(
            volume,
            connectivity,
            &self.slabs(volume),
            self.parallel_for_volume(volume),
            &mut self.volume_scratch,
            &mut self.join_buffers,
            stats,
        );
        Ok(())
    }
}

/// Writes the canonical labels of `image` into `labels` (one per pixel),
/// labeled in bands of `rows` with `scratch`'s buffers, and returns the
/// number of components. With `ZEROED` the caller's `labels` are all 0 and
/// background is skipped (a fresh allocation's pages are then never
/// touched where the image is empty); else every label is written. With
/// `parallel`, the whole call runs on a pool worker ([`in_pool`]).
fn label_in_bands<const ZEROED: bool>(
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
    rows: &[Range<usize>],
    parallel: bool,
    scratch: &mut Vec<Band>,
    join_buffers: &mut JoinBuffers,
    labels: &mut [u32],
) -> usize {
    in_pool(parallel, || {
        let bands = label_bands::<false>(image, connectivity, rows, parallel, scratch);
        let (forests, borders) = Band::join_parts(bands, connectivity);
        let joined =
            merge::join::<false, _>(&forests, &borders, parallel, join_buffers, &mut Vec::new());
        let width = image.width();
        let stream = write::streams(width, labels);
        let bounds: Vec<usize> = std::iter::once(0)
            .chain(rows.iter().map(|rows| rows.end * width))
            .collect();
        map_bands(
            parallel,
            merge::split(labels, &bounds)
                .into_iter()
                .zip(bands)
                .enumerate()
                .collect(),
            |(b, (out, band))| {
                let mut writer = write::RowWriter::new(width, stream);
                let rows = band.rows.clone();
                for (row, y) in out.chunks_exact_mut(width.max(1)).zip(rows.clone()) {
                    let finals = band.labels_of_row(y).iter();
                    writer.write_in_band::<ZEROED>(
                        image.row(y),
                        finals.map(|&label| joined.final_label(b, label)),
                        row,
                        band.same_as_above(y),
                        y + 1 < rows.end && band.same_as_above(y + 1),
                    );
                }
            },
        );
        joined.count
    })
}

/// The features of every component of `image`, in raster order, analyzed in
/// bands of `rows`, into `stats` (replacing what it held); with `parallel`,
/// on a pool worker ([`in_pool`]).
fn analyze_in_bands(
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
    rows: &[Range<usize>],
    parallel: bool,
    scratch: &mut Vec<Band>,
    join_buffers: &mut JoinBuffers,
    stats: &mut Vec<ComponentStats>,
) {
    in_pool(parallel, || {
        let bands = label_bands::<true>(image, connectivity, rows, parallel, scratch);
        let (forests, borders) = Band::join_parts(bands, connectivity);
        merge::join::<true, _>(&forests, &borders, parallel, join_buffers, stats);
    });
}

/// Each band of `rows` labeled on its own, into `scratch`'s buffers.
fn label_bands<'a, const MEASURE: bool>(
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
    rows: &[Range<usize>],
    parallel: bool,
    scratch: &'a mut Vec<Band>,
) -> &'a [Band] {
    scratch.resize_with(rows.len(), Band::default);
    map_bands(
        parallel,
        scratch.iter_mut().zip(rows.iter().cloned()).collect(),
        |(band, rows)| band.label::<MEASURE>(image, rows, connectivity),
    );
    scratch
}

/// `work` on a thread of rayon's pool where it is `parallel` (its passes
/// fork there), else on this one. Passes forked from outside the pool each
/// wait for its sleeping workers to wake, and the caller waits for them
/// idle; forked from a worker, a pass starts on that worker at once, the
/// others join it as they wake, and between passes the workers stay awake.
/// On the 2-vCPU development machine (AMD EPYC, KVM, 2026-11-30), three
/// passes of 4 × 150 µs of work with 50 µs alone between them took a
/// median 2.09 ms forked from outside, one thread's time (1.95 ms) and
/// more, and 1.20 ms from a worker (`wake.rs` of
/// `bench/2026-11-30-cpu-pool-passes`).
pub(super) fn in_pool<R: Send>(parallel: bool, work: impl FnOnce() -> R + Send) -> R {
    if parallel {
        rayon::scope(|_| work())
    } else {
        work()
    }
}

/// `f` on each of `items`, on rayon's pool or in turn on this thread.
fn map_bands<I: Send, T: Send>(
    parallel: bool,
    items: Vec<I>,
    f: impl Fn(I) -> T + Send + Sync,
) -> Vec<T> {
    if parallel {
        items.into_par_iter().map(f).collect()
    } else {
        items.into_iter().map(f).collect()
    }
}

/// `0..height` in `count` bands whose heights differ by at most one (none
/// for an empty image).
fn even_bands(height: usize, count: usize) -> Vec<Range<usize>> {
    let count = count.clamp(1, height.max(1));
    (0..count)
        .map(|i| height * i / count..height * (i + 1) / count)
        .filter(|rows| !rows.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccl_core::BinaryImageBuf;

    use crate::UnionFind;

    /// Random images of several densities and shapes, labeled in every band
    /// height from one row up: every border case of the merge.
    #[test]
    fn any_band_cut_gives_the_reference() {
        let mut numbers = ccl_testdata::Xorshift32::new(0x2545_f491);
        let mut next = move || numbers.next_u32();
        // One set of merge tables for every image: stale entries of a larger
        // image before must not leak into the next.
        let mut join_buffers = JoinBuffers::default();
        for (width, height) in [(1, 9), (9, 1), (13, 7), (70, 11), (129, 6)] {
            for density in [10, 45, 60, 90] {
                let image =
                    BinaryImageBuf::from_fn(width, height, |_, _| next() % 100 < density).unwrap();
                let context = format!("{width}x{height} d={density}");
                assert_every_cut_gives_the_reference(&image.view(), &mut join_buffers, &context);
            }
        }
    }

    /// Rows whose runs are all of one class ([`IndexedRow::join`]'s
    /// shortcut): a run must still join such a row's class where it touches
    /// the row only at a corner (8-connectivity), and not where it does not
    /// touch it (4-connectivity); a row of runs of several classes must not
    /// be taken for one class.
    ///
    /// [`IndexedRow::join`]: forest::IndexedRow::join
    #[test]
    fn rows_of_one_class_join_as_their_runs() {
        let mut join_buffers = JoinBuffers::default();
        // Row 0 is one run; row 1's run meets it at a corner only, and row
        // 2's second run meets row 1's at a corner only; row 2's first run
        // is under row 0's, two rows apart.
        let corners = BinaryImageBuf::from_fn(10, 3, |x, y| match y {
            0 => x < 4,
            1 => (4..6).contains(&x),
            _ => x < 3 || (6..8).contains(&x),
        })
        .unwrap();
        let counts: Vec<usize> = Connectivity::PLANE
            .iter()
            .map(|&c| {
                UnionFind
                    .label(&corners.view(), c)
                    .unwrap()
                    .component_count()
            })
            .collect();
        assert_eq!(counts, [4, 2], "4, 8");
        assert_every_cut_gives_the_reference(&corners.view(), &mut join_buffers, "corners");
        // Row 0: two runs, two classes; row 1: a run under the second only.
        let two_classes = BinaryImageBuf::from_fn(6, 2, |x, y| match y {
            0 => !(2..4).contains(&x),
            _ => x == 5,
        })
        .unwrap();
        assert_every_cut_gives_the_reference(&two_classes.view(), &mut join_buffers, "two classes");
        // Dense images, where most rows are one class, in cells of several
        // sides, so that runs are long and short.
        let mut numbers = ccl_testdata::Xorshift32::new(0x0bad_cafe);
        for granularity in [1, 2, 3] {
            for density in [60, 75, 88, 96] {
                let cells = BinaryImageBuf::from_fn(130 / granularity + 1, 40, |_, _| {
                    numbers.below(100) < density
                })
                .unwrap();
                let image = BinaryImageBuf::from_fn(130, 40, |x, y| {
                    cells.get(x / granularity, y / granularity)
                })
                .unwrap();
                let context = format!("dense, g = {granularity}, d = {density}");
                assert_every_cut_gives_the_reference(&image.view(), &mut join_buffers, &context);
            }
        }
    }

    /// `image` labeled and analyzed in both connectivities, in bands of
    /// every height from one row up (every border case of the merge), on
    /// the pool and not: the reference's answers.
    fn assert_every_cut_gives_the_reference(
        image: &BinaryImage<'_>,
        join_buffers: &mut JoinBuffers,
        context: &str,
    ) {
        let height = image.height();
        for connectivity in Connectivity::PLANE {
            let expected = UnionFind.label(image, connectivity).unwrap();
            let expected_stats = UnionFind.analyze(image, connectivity).unwrap();
            for count in 1..=height {
                let bands = even_bands(height, count);
                for parallel in [false, true] {
                    let mut scratch = Vec::new();
                    let context = format!("{context} {connectivity} {count} bands");
                    // Into a zeroed buffer (background skipped) and into a
                    // dirty one (every label written).
                    for zeroed in [true, false] {
                        let (labels, count) = labels_via(
                            zeroed,
                            image,
                            connectivity,
                            &bands,
                            parallel,
                            &mut scratch,
                            join_buffers,
                        );
                        assert_eq!(labels, expected.labels(), "{context} {zeroed}");
                        assert_eq!(count, expected.component_count(), "{context} {zeroed}");
                    }
                    // Into a vector that held more stale features than
                    // the image has components.
                    let mut stats = vec![ComponentStats::pixel(7, 7); 3 * image.pixel_count()];
                    analyze_in_bands(
                        image,
                        connectivity,
                        &bands,
                        parallel,
                        &mut scratch,
                        join_buffers,
                        &mut stats,
                    );
                    assert_eq!(stats, expected_stats, "{context}");
                }
            }
        }
    }

    /// [`label_in_bands`] into a new buffer: all 0 with `zeroed` (and
    /// background skipped), else all `u32::MAX` (and every label written).
    fn labels_via(
        zeroed: bool,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
        bands: &[Range<usize>],
        parallel: bool,
        scratch: &mut Vec<Band>,
        join_buffers: &mut JoinBuffers,
    ) -> (Vec<u32>, usize) {
        let fill = if zeroed { 0 } else { u32::MAX };
        let mut labels = vec![fill; image.pixel_count()];
        let count = if zeroed {
            label_in_bands::<true>(
                image,
                connectivity,
                bands,
                parallel,
                scratch,
                join_buffers,
                &mut labels,
            )
        } else {
            label_in_bands::<false>(
                image,
                connectivity,
                bands,
                parallel,
                scratch,
                join_buffers,
                &mut labels,
            )
        };
        (labels, count)
    }

    #[test]
    fn bands_cover_the_rows_once() {
        assert!(even_bands(0, 4).is_empty());
        assert_eq!(even_bands(5, 1), vec![0..5]);
        assert_eq!(even_bands(5, 9), [0..1, 1..2, 2..3, 3..4, 4..5]);
        assert_eq!(even_bands(10, 3), [0..3, 3..6, 6..10]);
    }

    /// An image's runs estimated from every `RUN_SAMPLE_STRIDE`-th row:
    /// exact where every row has the same runs, none where the sampled rows
    /// have none.
    #[test]
    fn runs_are_estimated_from_sampled_rows() {
        let stripes = BinaryImageBuf::from_fn(130, 37, |x, _| x % 3 == 0).unwrap();
        assert_eq!(estimated_runs(&stripes.view()), 44 * 37);
        let between =
            BinaryImageBuf::from_fn(64, 64, |x, y| y % RUN_SAMPLE_STRIDE != 0 && x % 2 == 0)
                .unwrap();
        assert_eq!(estimated_runs(&between.view()), 0);
        let sampled =
            BinaryImageBuf::from_fn(64, 64, |x, y| y % RUN_SAMPLE_STRIDE == 0 && x % 2 == 0)
                .unwrap();
        assert_eq!(estimated_runs(&sampled.view()), 32 * 64);
    }

    #[test]
    fn small_images_run_on_one_thread_and_large_ones_in_bands() {
        let side = |pixels: usize| (pixels as f64).sqrt().ceil() as usize;
        let threads = rayon::current_num_threads();
        let parallel = RunLabeler::parallel();
        // The smallest image worth the pool, and the one below it.
        let threshold = side(MIN_PARALLEL_PIXELS / threads.saturating_sub(1).max(1));
        // Runs enough at any size here: a run every other column.
        let striped = |side| BinaryImageBuf::from_fn(side, side, |x, _| x % 2 == 0).unwrap();
        let small = striped(threshold - 1);
        assert!(!parallel.parallel_for(&small.view()));
        assert_eq!(parallel.bands(&small.view()).len(), 1);
        let worth = striped(threshold);
        assert_eq!(parallel.parallel_for(&worth.view()), threads > 1);
        // Pixels enough, work too little: an empty image of fewer pixels
        // than the least work stands for runs on one thread.
        if threshold * threshold < MIN_PARALLEL_RUNS * PIXELS_PER_RUN {
            let empty = BinaryImageBuf::new(threshold, threshold).unwrap();
            assert!(!parallel.parallel_for(&empty.view()));
        }
        // Enough pixels and rows for every thread's bands.
        let large_side = side(threads * BANDS_PER_THREAD * MIN_BAND_PIXELS)
            .max(threads * BANDS_PER_THREAD * MIN_BAND_ROWS)
            .max(threshold);
        let large = striped(large_side);
        let bands = parallel.bands(&large.view()).len();
        let expected = if threads > 1 {
            threads * BANDS_PER_THREAD
        } else {
            1
        };
        assert_eq!(bands, expected, "{bands} bands");
        let single = RunLabeler::single_threaded();
        assert!(!single.parallel_for(&large.view()));
        assert_eq!(single.bands(&large.view()).len(), 1);
        // Both paths give the same labels past the threshold.
        let mut numbers = ccl_testdata::Xorshift32::new(0x9e37_79b9);
        let n = threshold.max(64);
        let image = BinaryImageBuf::from_fn(n, n, |_, _| numbers.below(100) < 55).unwrap();
        for connectivity in Connectivity::PLANE {
            let one = RunLabeler::single_threaded()
                .label(&image.view(), connectivity)
                .unwrap();
            let many = RunLabeler::parallel()
                .label(&image.view(), connectivity)
                .unwrap();
            assert_eq!(one, many, "{connectivity}");
        }
    }

    /// Label images large enough to be written with non-temporal stores
    /// (where the CPU has them), at widths whose rows start 16-byte aligned
    /// and widths whose rows do not, in cells of one pixel and of several
    /// (rows that repeat the row above, copied by the writer): the
    /// reference's labels, into a new buffer and over a dirty one, and for
    /// a volume.
    #[test]
    fn large_label_images_give_the_reference() {
        let mut numbers = ccl_testdata::Xorshift32::new(0x1234_5679);
        let mut next = move || numbers.next_u32();
        let height = 1024;
        for (width, granularity) in [(1024, 1), (1027, 1), (1088, 1), (1024, 5), (1027, 3)] {
            assert!(width * height >= write::MIN_STREAMED_PIXELS);
            for density in [8, 50, 93] {
                let cells = BinaryImageBuf::from_fn(
                    width.div_ceil(granularity),
                    height.div_ceil(granularity),
                    |_, _| next() % 100 < density,
                )
                .unwrap();
                let image = BinaryImageBuf::from_fn(width, height, |x, y| {
                    cells.get(x / granularity, y / granularity)
                })
                .unwrap();
                let view = image.view();
                for connectivity in Connectivity::PLANE {
                    let expected = UnionFind.label(&view, connectivity).unwrap();
                    let context =
                        format!("{width}x{height} g={granularity} d={density} {connectivity}");
                    for mut labeler in [RunLabeler::parallel(), RunLabeler::single_threaded()] {
                        let labels = labeler.label(&view, connectivity).unwrap();
                        assert_eq!(labels, expected, "{context}");
                        let mut dirty = vec![u32::MAX; width * height];
                        let count = labeler.label_into(&view, connectivity, &mut dirty).unwrap();
                        assert_eq!(count, expected.component_count(), "{context}");
                        assert_eq!(dirty, expected.labels(), "{context}");
                    }
                }
            }
        }
        let (width, height, depth) = (128, 96, 90);
        let voxels: Vec<u8> = (0..width * height * depth)
            .map(|_| u8::from(next() % 100 < 30))
            .collect();
        let volume = BinaryVolume::new(&voxels, width, height, depth).unwrap();
        let expected = UnionFind.label_volume(&volume, Connectivity::Six).unwrap();
        let mut dirty = vec![7; voxels.len()];
        let count = RunLabeler::parallel()
            .label_volume_into(&volume, Connectivity::Six, &mut dirty)
            .unwrap();
        assert_eq!(count, expected.component_count());
        assert_eq!(dirty, expected.labels());
    }

    #[test]
    fn empty_and_strided_images() {
        for (width, height) in [(0, 0), (0, 5), (5, 0)] {
            let image = BinaryImage::new(&[], width, height).unwrap();
            for mut labeler in [RunLabeler::parallel(), RunLabeler::single_threaded()] {
                assert!(
                    labeler
                        .label(&image, Connectivity::Eight)
                        .unwrap()
                        .labels()
                        .is_empty()
                );
                assert!(
                    labeler
                        .analyze(&image, Connectivity::Four)
                        .unwrap()
                        .is_empty()
                );
            }
        }
        // Rows 1 0 1 / 1 1 1 with junk between them that must not be read.
        let pixels = [1, 0, 1, 9, 9, 1, 1, 1];
        let image = BinaryImage::with_stride(&pixels, 3, 2, 5).unwrap();
        let labels = RunLabeler::parallel()
            .label(&image, Connectivity::Four)
            .unwrap();
        assert_eq!(labels.labels(), &[1, 0, 1, 1, 1, 1]);
    }
}
