//! Stage 4: the bands' forests become one. Each band's labels get a global
//! offset, the runs on either side of each band border are joined, and the
//! roots of the joined forest are numbered 1..=N in raster order (Parallel
//! Light Speed Labeling's border merge and relabeling).

use super::forest::RunFeatures;
use super::runs::{Run, Touching};
use ccl_core::pages;

use super::map_bands;

/// The fewest labels for which a join's passes run on the pool: each
/// parallel pass wakes the pool's threads, which on the 2-core development
/// machine costs 20-45 µs before any work (an empty round, measured
/// 2026-11-25), a sizeable share of a pass over fewer labels.
const MIN_PARALLEL_LABELS: usize = 1 << 17;

/// The same threshold in bytes a pass reads and writes (4 a label), for
/// the numbering pass of an analysis, which also copies each root's
/// features: on the GPU machine's 16 host cores, 72 K labels of a 4096²
/// image (g = 4, 8-connectivity, 30 %) took 0.88 ms numbered on the calling
/// thread, their features written by sixteen others (0.13 ms for labels).
/// (Unit tests take the pool from one byte, so that their small images
/// run the parallel numbering too.)
const MIN_PARALLEL_BYTES: usize = if cfg!(test) {
    1
} else {
    MIN_PARALLEL_LABELS * 4
};

/// The fewest runs, over all the rows that face each other across band
/// borders, for which the pairs of each border are found on the pool. On
/// 16 cores, the 31 borders of a 4096² image took 1.0 ms joined on one
/// thread at g = 1, 70 % (about 27 K runs each side), and 0.2–0.3 ms at
/// g = 4 (6–8 K): a border's rows were written by other cores, and about
/// 16 ns a run goes to fetching them. From 4 K runs on, 2048² labels at
/// g = 4 (about 3 K each side) lost more to waking the pool than they
/// gained (0.59 → 0.68 ms at 10 %, 8-connectivity). (Unit tests take the
/// pool from one run.)
const MIN_PARALLEL_BORDER_RUNS: usize = if cfg!(test) { 1 } else { 1 << 13 };

/// The per-label tables of a join, kept by the labeler between calls so
/// that a join allocates (and faults in) nothing after the first image.
#[derive(Default)]
pub(super) struct JoinBuffers {
    /// The global root of every label; for labeling, then its canonical
    /// label.
    root: Vec<u32>,
    /// At each root, its rank among its band's roots from 1; for analysis
    /// then its component's canonical label 1..=N.
    rank: Vec<u32>,
}

/// The joined forest of every band.
pub(super) struct Joined<'a> {
    /// Where each band's labels start among all labels.
    offsets: Vec<usize>,
    /// For labeling: the canonical label 1..=N of every label (global
    /// index = band offset + local label). Empty for analysis.
    canonical: &'a [u32],
    /// The number of components.
    pub count: usize,
}

impl Joined<'_> {
    /// The canonical label of local label `label` of band `band`
    /// (labeling only).
    #[inline]
    pub(super) fn final_label(&self, band: usize, label: u32) -> u32 {
        self.canonical[self.offsets[band] + label as usize]
    }
}

/// One band's part in a join: its flattened forest (the local root of
/// every provisional label) and, with analysis, the features at each root.
pub(super) struct BandForest<'a, F> {
    /// The local root of each label.
    pub parent: &'a [u32],
    /// The features of each root's class (empty for labeling).
    pub stats: &'a [F],
}

/// Two rows that face each other across the border between band `b - 1`
/// (`upper`, a row of its last rows) and band `b` (`lower`, a row of its
/// first rows), whose runs touch within `reach` columns.
pub(super) struct Border<'a> {
    /// Runs of a row of the upper band, labeled with its local labels.
    pub upper: &'a [Run],
    /// Runs of a row of the lower band, labeled with its local labels.
    pub lower: &'a [Run],
    /// How many columns apart touching runs may be.
    pub reach: u32,
}

/// Joins `bands` (consecutive, in raster order) across `borders`
/// (`borders[b - 1]`: the row pairs between bands `b - 1` and `b`); with
/// `MEASURE`, gathers the features of every component into `stats`
/// (replacing what it held, in its memory where it has room), else the
/// canonical label of every label; in `buffers`' tables. With `pool` (the
/// bands ran on rayon's pool), passes large enough run there too.
pub(super) fn join<'a, const MEASURE: bool, F: RunFeatures>(
    bands: &[BandForest<'_, F>],
    borders: &[Vec<Border<'_>>],
    pool: bool,
    buffers: &'a mut JoinBuffers,
    stats: &mut Vec<F>,
) -> Joined<'a> {
    let mut offsets = Vec::with_capacity(bands.len() + 1);
    offsets.push(0);
    for band in bands {
        offsets.push(offsets.last().unwrap() + band.parent.len());
    }
    let total = *offsets.last().unwrap();
    let parallel = pool && total >= MIN_PARALLEL_LABELS;

    // Every band's flattened forest, shifted by its offset.
    let JoinBuffers { root, rank } = buffers;
    pages::reuse(root, total);
    map_bands(
        parallel,
        split(root, &offsets)
            .into_iter()
            .zip(bands)
            .enumerate()
            .collect(),
        |(b, (chunk, band))| {
            let offset = offsets[b] as u32;
            for (global, &local) in chunk.iter_mut().zip(band.parent) {
                *global = local + offset;
            }
        },
    );

    join_borders(borders, &offsets, pool, root);

    pages::reuse(rank, total);
    let roots_per_band = global_roots(parallel, &offsets, root, rank);
    // Roots in label order are components in raster order of their first
    // pixel: band `b`'s roots take the labels after those of the bands above.
    let mut firsts = Vec::with_capacity(bands.len());
    let mut count = 0u32;
    for &roots in &roots_per_band {
        firsts.push(count);
        count += roots;
    }
    if !MEASURE {
        canonical_labels(parallel, &offsets, &firsts, root, rank);
        return Joined {
            offsets,
            canonical: root,
            count: count as usize,
        };
    }

    // The features are written once each, by the pass below, on every
    // thread: filling them first would write them twice and fault their
    // pages in on this thread alone. A caller's vector reused from call to
    // call has its pages mapped already; one too small is replaced, not
    // grown, as its entries would only be copied to be overwritten.
    stats.clear();
    if stats.capacity() < count as usize {
        *stats = pages::with_capacity(count as usize);
    }
    let bounds: Vec<usize> = firsts
        .iter()
        .map(|&f| f as usize)
        .chain([count as usize])
        .collect();
    let stat_chunks = split(&mut stats.spare_capacity_mut()[..count as usize], &bounds);
    let roots = &*root;
    // Numbered on the pool by the bytes the pass moves, each root's
    // features with its rank.
    let number_in_parallel = pool && total * (4 + size_of::<F>()) >= MIN_PARALLEL_BYTES;
    // The features of a band's local roots that a border joined to a root
    // elsewhere: (global root, features), added once every root has a rank.
    let moved: Vec<Vec<(u32, F)>> = map_bands(
        number_in_parallel,
        split(rank, &offsets)
            .into_iter()
            .zip(stat_chunks)
            .enumerate()
            .collect(),
        |(b, (ranks, out))| {
            let offset = offsets[b];
            let band = &bands[b];
            let mut moved = Vec::new();
            for (i, rank) in ranks.iter_mut().enumerate() {
                let global_root = roots[offset + i];
                if global_root as usize == offset + i {
                    // Its rank among the band's roots, from 1.
                    let local = *rank;
                    *rank = firsts[b] + local;
                    out[local as usize - 1].write(band.stats[i]);
                } else {
                    // Read only at roots; written so no stale entry is left.
                    *rank = 0;
                    if band.parent[i] as usize == i {
                        moved.push((global_root, band.stats[i]));
                    }
                }
            }
            moved
        },
    );
    // SAFETY: band `b` has `roots_per_band[b]` roots, counted by
    // `global_roots` with the test that chose the roots above and ranked
    // 1..=roots_per_band[b] there, and wrote one entry for each, at
    // firsts[b]..firsts[b] + roots_per_band[b]: entries 0..count, each once.
    unsafe { stats.set_len(count as usize) };
    for (global_root, features) in moved.iter().flatten() {
        stats[rank[*global_root as usize] as usize - 1].merge(features);
    }
    Joined {
        offsets,
        canonical: &[],
        count: count as usize,
    }
}

/// Each label straight to its global root (`root` as [`join_borders`] left
/// it: a label's local root comes before it in its band, and holds its
/// global root where a border linked it), band by band, and each root's
/// rank among its band's roots into `rank`; returns each band's roots.
fn global_roots(parallel: bool, offsets: &[usize], root: &mut [u32], rank: &mut [u32]) -> Vec<u32> {
    map_bands(
        parallel,
        split(root, offsets)
            .into_iter()
            .zip(split(rank, offsets))
            .enumerate()
            .collect(),
        |(b, (chunk, ranks))| {
            let offset = offsets[b];
            let mut roots = 0u32;
            for i in 0..chunk.len() {
                // Below the offset: a root linked into a band above, already
                // pointed at its final root.
                if let Some(local_root) = (chunk[i] as usize).checked_sub(offset) {
                    chunk[i] = chunk[local_root];
                }
                roots += u32::from(chunk[i] as usize == offset + i);
                // Read at roots only: written at every label, without a
                // branch on whether it is one (a coin toss at g = 1).
                ranks[i] = roots;
            }
            roots
        },
    )
}

/// Labeling: each label's canonical label in place of its global root, its
/// root's rank among its band's roots after the roots of the bands above
/// (`firsts`), so that the label write looks up one table per run. First
/// each band's ranks become ranks among all roots (its first added to every
/// entry: those of labels that are not roots are never read), then each
/// label reads its root's, with no branch on whose band the root is in: in
/// a dense image one giant component spans the bands, so that a label of a
/// lower band has its root above as often as in its own band, a coin toss
/// per label (and a search of the bands for that root's took 4 ns a label:
/// 2048², g = 1, 70 %, 4-connectivity, 0.42-0.54 ms for 102 K labels on
/// one thread).
fn canonical_labels(
    parallel: bool,
    offsets: &[usize],
    firsts: &[u32],
    root: &mut [u32],
    rank: &mut [u32],
) {
    map_bands(
        parallel,
        split(rank, offsets).into_iter().enumerate().collect(),
        |(b, ranks)| {
            for rank in ranks {
                *rank += firsts[b];
            }
        },
    );
    let rank = &*rank;
    map_bands(
        parallel,
        split(root, offsets).into_iter().collect(),
        |chunk| {
            for label in chunk {
                *label = rank[*label as usize];
            }
        },
    );
}

/// Joins the rows that face each other across each border. The pairs of
/// local roots that touch are found border by border, on the pool where
/// the rows have runs enough, from `root` as the first pass left it (every
/// label at its local root), consecutive repeats dropped: in a dense image
/// most pairs of a border join the same two roots. Then they are linked on
/// this thread, one border after another.
fn join_borders(borders: &[Vec<Border<'_>>], offsets: &[usize], pool: bool, root: &mut [u32]) {
    let runs: usize = borders
        .iter()
        .flatten()
        .map(|pair| pair.upper.len() + pair.lower.len())
        .sum();
    let local_roots = &*root;
    let pairs: Vec<Vec<(u32, u32)>> = map_bands(
        pool && runs >= MIN_PARALLEL_BORDER_RUNS,
        borders.iter().enumerate().collect(),
        |(b, rows)| {
            let (upper, lower) = (offsets[b] as u32, offsets[b + 1] as u32);
            let mut pairs: Vec<(u32, u32)> = Vec::new();
            for pair in rows {
                let mut touching = Touching::new(pair.upper, pair.reach);
                for run in pair.lower {
                    let below = local_roots[(lower + run.label) as usize];
                    for other in touching.of(run) {
                        let joined = (local_roots[(upper + other.label) as usize], below);
                        if pairs.last() != Some(&joined) {
                            pairs.push(joined);
                        }
                    }
                }
            }
            pairs
        },
    );
    // Roots linked under another root: afterwards they are pointed straight
    // at their final root, so that the parallel pass that follows finds
    // every root in one step.
    let mut linked = Vec::new();
    for &(above, below) in pairs.iter().flatten() {
        let a = find(root, above);
        let c = find(root, below);
        if a != c {
            let (low, high) = (a.min(c), a.max(c));
            root[high as usize] = low;
            linked.push(high);
        }
    }
    for label in linked {
        root[label as usize] = find(root, label);
    }
}

/// The root of `label` without compressing: the bands' forests are flat, so
/// only the links made at the borders are walked.
fn find(root: &[u32], mut label: u32) -> u32 {
    while root[label as usize] != label {
        label = root[label as usize];
    }
    label
}

/// `items` cut at `bounds` (`bounds[i]..bounds[i + 1]` is part `i`).
pub(super) fn split<'a, T>(items: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut parts = Vec::with_capacity(bounds.len().saturating_sub(1));
    let mut rest = items;
    for pair in bounds.windows(2) {
        let (part, tail) = rest.split_at_mut(pair[1] - pair[0]);
        parts.push(part);
        rest = tail;
    }
    parts
}
