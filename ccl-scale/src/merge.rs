//! The merge across strips: every strip is labeled alone (1..=n_s in its
//! own raster order), the labels on either side of each border are joined
//! by a union-find whose nodes are only the labels that touch across a
//! border (the pairs found while the strips are scanned, [`BorderPairs`]),
//! and one walk over the strips in order numbers the components 1..=N in
//! raster order of their first pixel across the whole image. What a strip
//! then needs to write its final labels is small: the first number of its
//! new components and the numbers of its border labels that continue a
//! component numbered before ([`Renumbering`]).

use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use ccl_core::{
    ComponentStats, Connectivity, Error, MinRootForest as Forest, Result,
    SharedMinRootForest as SharedForest, VolumeStats,
};

use crate::shape::{Shape, border_offsets};
use crate::trace::{StripTrace, Trace};

/// The features of a component of any size (labeled in strips, one may
/// have more than `2^32` pixels): area, inclusive bounding box and the
/// coordinate sums, per axis x, y, z (z is 0 in an image).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LargeStats {
    /// Number of pixels (voxels).
    pub area: u64,
    /// Smallest x, y, z of any pixel.
    pub min: [u32; 3],
    /// Largest x, y, z of any pixel (inclusive).
    pub max: [u32; 3],
    /// Sums of the x, y, z coordinates of every pixel.
    pub sum: [u64; 3],
}

impl Default for LargeStats {
    fn default() -> Self {
        Self {
            area: 0,
            min: [u32::MAX; 3],
            max: [0; 3],
            sum: [0; 3],
        }
    }
}

impl From<&ComponentStats> for LargeStats {
    fn from(stats: &ComponentStats) -> Self {
        Self::of_image(stats, 0)
    }
}

impl From<&VolumeStats> for LargeStats {
    fn from(stats: &VolumeStats) -> Self {
        Self::of_volume(stats, 0)
    }
}

impl LargeStats {
    /// An image component's features, its y moved down by `rows`.
    pub(crate) fn of_image(stats: &ComponentStats, rows: u32) -> Self {
        let area = stats.area as u64;
        Self {
            area,
            min: [stats.x_min, stats.y_min + rows, 0],
            max: [stats.x_max, stats.y_max + rows, 0],
            sum: [stats.sum_x, stats.sum_y + rows as u64 * area, 0],
        }
    }

    /// A volume component's features, its z moved on by `slices`.
    pub(crate) fn of_volume(stats: &VolumeStats, slices: u32) -> Self {
        let area = stats.area as u64;
        Self {
            area,
            min: [stats.x_min, stats.y_min, stats.z_min + slices],
            max: [stats.x_max, stats.y_max, stats.z_max + slices],
            sum: [stats.sum_x, stats.sum_y, stats.sum_z + slices as u64 * area],
        }
    }

    /// Adds the pixels of `other` (of the same component).
    pub(crate) fn merge(&mut self, other: &LargeStats) {
        self.area += other.area;
        for axis in 0..3 {
            self.min[axis] = self.min[axis].min(other.min[axis]);
            self.max[axis] = self.max[axis].max(other.max[axis]);
            self.sum[axis] += other.sum[axis];
        }
    }

    /// The centroid (x, y, z): sums over the area.
    pub fn centroid(&self) -> [f64; 3] {
        self.sum.map(|s| s as f64 / self.area as f64)
    }

    /// As an image component's [`ComponentStats`]; an error where the area
    /// exceeds its `u32`.
    pub fn to_component_stats(&self) -> Result<ComponentStats> {
        Ok(ComponentStats {
            area: self.narrow_area()?,
            x_min: self.min[0],
            y_min: self.min[1],
            x_max: self.max[0],
            y_max: self.max[1],
            sum_x: self.sum[0],
            sum_y: self.sum[1],
        })
    }

    /// As a volume component's [`VolumeStats`]; an error where the area
    /// exceeds its `u32`.
    pub fn to_volume_stats(&self) -> Result<VolumeStats> {
        Ok(VolumeStats {
            area: self.narrow_area()?,
            x_min: self.min[0],
            y_min: self.min[1],
            z_min: self.min[2],
            x_max: self.max[0],
            y_max: self.max[1],
            z_max: self.max[2],
            sum_x: self.sum[0],
            sum_y: self.sum[1],
            sum_z: self.sum[2],
        })
    }

    fn narrow_area(&self) -> Result<u32> {
        u32::try_from(self.area).map_err(|_| {
            Error::InvalidArgument(format!(
                "a component of {} pixels does not fit a 32-bit area; read it as LargeStats",
                self.area
            ))
        })
    }
}

/// What labeling one strip alone gives: its count, its two border planes
/// and its features. [`BorderPairs::add`] keeps the count and features
/// ([`Scan`]) and compares the planes with the neighbours' as soon as
/// those are in.
#[derive(Clone, Debug, Default)]
pub(crate) struct StripScan {
    /// Its components (canonical labels 1..=count).
    pub(crate) count: u32,
    /// The labels of its first plane.
    pub(crate) first_plane: Vec<u32>,
    /// The labels of its last plane.
    pub(crate) last_plane: Vec<u32>,
    /// Where its features are, if asked for.
    pub(crate) features: StripFeatures,
}

/// Where a strip's features are after its scan.
#[derive(Clone, Debug, Default)]
pub(crate) enum StripFeatures {
    /// None were asked for.
    #[default]
    None,
    /// In host memory: each component's (index = label − 1), in the whole
    /// input's coordinates.
    Host(Vec<LargeStats>),
    /// On the GPU of the worker that scanned the strip, which writes them
    /// into the columns after the merge (`GpuWorker::write_columns`).
    Kept,
}

/// What the merge keeps of a strip once its border planes are compared.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scan {
    /// Its components (canonical labels 1..=count).
    pub(crate) count: u32,
    /// The largest label of its first plane, whose labels are exactly
    /// 1..=this (canonical labels: the first plane holds the first pixel of
    /// every component it touches); 0 for the first strip, whose first
    /// plane is no border.
    pub(crate) first_plane_labels: u32,
    /// Where its features are, if asked for.
    pub(crate) features: StripFeatures,
}

/// The pairs of labels that touch across each border, found while the
/// strips are scanned: as soon as the strips on both sides of a border are
/// in, the two planes are compared (on the host's pool, in tasks of their
/// own) and dropped. Host memory holds the border planes
/// of the strips in flight and the pairs, never the planes of every strip
/// (two planes of 4 bytes a pixel per strip: a volume of slabs of one or
/// two slices would keep as much as its whole 32-bit label image).
pub(crate) struct BorderPairs<'a> {
    shape: Shape,
    /// Where the planes go once compared (or known to touch no border).
    planes: &'a LabelBuffers,
    connectivity: Connectivity,
    /// Per strip: the planes waiting for a neighbour.
    waiting: Mutex<Vec<WaitingPlanes>>,
    /// Per strip: the largest label of its first plane, set as the strip
    /// comes in ([`Scan::first_plane_labels`]).
    first_plane_labels: Vec<AtomicU32>,
    /// Per border (between strips `s` and `s + 1`): what its comparison
    /// found.
    joins: Vec<Mutex<BorderJoins>>,
}

/// What the comparison of the border between strips `s` and `s + 1` keeps
/// for the merge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BorderJoins {
    /// Pairs (label in `s`'s last plane, label in `s + 1`'s first) that
    /// touch across it, sorted, a spanning forest of them.
    pub(crate) pairs: Vec<(u32, u32)>,
    /// The labels above of `pairs` past `s`'s first-plane labels, ascending,
    /// without repeats: the merge's nodes of `s`'s last plane, found here,
    /// in the first pass, rather than between the passes.
    pub(crate) last_plane_labels: Vec<u32>,
}

/// A strip's border planes not yet compared with a neighbour's.
#[derive(Default)]
struct WaitingPlanes {
    first: Option<Vec<u32>>,
    last: Option<Vec<u32>>,
}

impl<'a> BorderPairs<'a> {
    /// For `strips` strips of `shape`, joined under `connectivity`, the
    /// planes given back to `planes` once compared.
    pub(crate) fn new(
        shape: Shape,
        connectivity: Connectivity,
        strips: usize,
        planes: &'a LabelBuffers,
    ) -> Self {
        let borders = strips.saturating_sub(1);
        Self {
            shape,
            planes,
            connectivity,
            waiting: Mutex::new((0..strips).map(|_| WaitingPlanes::default()).collect()),
            first_plane_labels: (0..strips).map(|_| AtomicU32::new(0)).collect(),
            joins: (0..borders).map(|_| Mutex::default()).collect(),
        }
    }

    /// Where a scan takes the buffers of its border planes.
    pub(crate) fn planes(&self) -> &'a LabelBuffers {
        self.planes
    }

    /// Takes strip `s`'s scan: its border planes wait for the neighbours',
    /// or, where a neighbour's are in, are compared with them on the host's
    /// pool (tasks of `comparisons`, which the caller waits for before
    /// [`into_pairs`](Self::into_pairs)); the rest is returned.
    pub(crate) fn add<'scope>(
        &'scope self,
        s: usize,
        scan: StripScan,
        comparisons: &rayon::Scope<'scope>,
        trace: StripTrace<'scope>,
    ) -> Scan {
        let strips = self.joins.len() + 1;
        let first_plane_labels = match s {
            0 => 0,
            _ => scan.first_plane.iter().copied().max().unwrap_or(0),
        };
        // Before the planes wait: a comparison they join reads it.
        self.first_plane_labels[s].store(first_plane_labels, Ordering::Relaxed);
        let ready = {
            let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
            // The first strip's first plane and the last's last touch no
            // border.
            if s > 0 {
                waiting[s].first = Some(scan.first_plane);
            } else {
                self.planes.give(scan.first_plane);
            }
            if s + 1 < strips {
                waiting[s].last = Some(scan.last_plane);
            } else {
                self.planes.give(scan.last_plane);
            }
            let mut ready = Vec::with_capacity(2);
            for border in [s.checked_sub(1), (s + 1 < strips).then_some(s)]
                .into_iter()
                .flatten()
            {
                if waiting[border].last.is_some() && waiting[border + 1].first.is_some() {
                    let above = waiting[border].last.take().expect("checked");
                    let below = waiting[border + 1].first.take().expect("checked");
                    ready.push((border, above, below));
                }
            }
            ready
        };
        for (border, above, below) in ready {
            self.compare(border, above, below, comparisons, trace);
        }
        Scan {
            count: scan.count,
            first_plane_labels,
            features: scan.features,
        }
    }

    /// Finds the pairs that touch across `border` (between `above`, the
    /// last plane of the strip before it, and `below`, the first of the one
    /// after): each band of rows a task of `comparisons`, the task that
    /// finishes last sorting them and keeping a spanning forest.
    ///
    /// A volume's border plane is millions of pixels, compared with up to
    /// nine of the next's a pixel. On its worker's thread the comparison held that
    /// worker's GPU back (15 ms a border of a 1024³ volume, d = 31 %,
    /// 6-connectivity, on two H200s); as one task that split itself (a
    /// parallel iterator), a task waiting for its parts ran other borders'
    /// meanwhile, and a border took 10–40 ms (two H100s). Tasks of their
    /// own wait for nothing.
    fn compare<'scope>(
        &'scope self,
        border: usize,
        above: Vec<u32>,
        below: Vec<u32>,
        comparisons: &rayon::Scope<'scope>,
        trace: StripTrace<'scope>,
    ) {
        let bands = comparison_bands(self.shape);
        if bands.is_empty() {
            return; // planes of no rows: no pairs
        }
        let comparison = Arc::new(Comparison {
            above,
            below,
            planes: self.planes,
            found: Mutex::new(Vec::new()),
            bands_left: AtomicUsize::new(bands.len()),
        });
        let reach = BorderReach::of(self.connectivity);
        let (width, rows) = (self.shape.width(), self.shape.plane_rows());
        for band in bands {
            let comparison = comparison.clone();
            comparisons.spawn(move |_| {
                trace.step("compare", || {
                    // A row's candidates go to `row`, the pairs found to
                    // `found`: the band's memory is what it finds, not a
                    // pair per pixel (at 2^16 pixels a band, that took the
                    // allocator to fresh pages every band).
                    let (mut row, mut found) = (Vec::with_capacity(width), Vec::new());
                    let (above, below) = (&comparison.above, &comparison.below);
                    for y in band {
                        row.clear();
                        if reach.is_straight() {
                            straight_row_pairs(
                                &above[y * width..][..width],
                                &below[y * width..][..width],
                                &mut row,
                            );
                        } else {
                            reaching_row_pairs(above, below, width, rows, y, reach, &mut row);
                        }
                        found.extend_from_slice(&row);
                    }
                    let mut all = comparison.found.lock().unwrap_or_else(|e| e.into_inner());
                    all.extend_from_slice(&found);
                    drop(all);
                    if comparison.bands_left.fetch_sub(1, Ordering::AcqRel) == 1 {
                        let mut all = comparison.found.lock().unwrap_or_else(|e| e.into_inner());
                        let mut pairs = std::mem::take(&mut *all);
                        drop(all);
                        // The last border to finish is the first pass's
                        // tail, when the pool has little else to run.
                        trace.step("border-sort", || {
                            pairs.par_sort_unstable();
                            pairs.dedup();
                        });
                        let joins = trace.step("border-spanning", || {
                            let pairs = spanning_pairs(pairs, comparison.planes);
                            let first = self.first_plane_labels[border].load(Ordering::Relaxed);
                            // The pairs are sorted by their label above.
                            let mut last_plane_labels: Vec<u32> = pairs
                                .iter()
                                .map(|&(a, _)| a)
                                .filter(|&a| a > first)
                                .collect();
                            last_plane_labels.dedup();
                            BorderJoins {
                                pairs,
                                last_plane_labels,
                            }
                        });
                        *self.joins[border].lock().unwrap_or_else(|e| e.into_inner()) = joins;
                    }
                });
            });
        }
    }

    /// What the comparison of every border found, in order.
    pub(crate) fn into_joins(self) -> Vec<BorderJoins> {
        self.joins
            .into_iter()
            .map(|joins| joins.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect()
    }
}

/// A border being compared: its two planes, the pairs its bands found so
/// far, and the bands not yet compared.
struct Comparison<'a> {
    above: Vec<u32>,
    below: Vec<u32>,
    planes: &'a LabelBuffers,
    found: Mutex<Vec<(u32, u32)>>,
    bands_left: AtomicUsize,
}

impl Drop for Comparison<'_> {
    /// The planes go back for the next strips' scans once every band's
    /// task is done with them.
    fn drop(&mut self) {
        self.planes.give(std::mem::take(&mut self.above));
        self.planes.give(std::mem::take(&mut self.below));
    }
}

/// Buffers of labels that a labeler's calls fill again and again: the
/// strips' border planes, given back once their border is compared and
/// taken again by the next strips' scans, and the memory of each border's
/// spanning forest, in the call and in the labeler's next calls. A volume's
/// border plane is megabytes of labels: into fresh pages, a worker's two
/// planes took 1–4.5 ms a strip of its thread on the two-H200 host (1024³,
/// 16 strips), which then held back its GPU's next strip.
#[derive(Debug, Default)]
pub(crate) struct LabelBuffers {
    free: Mutex<Vec<Vec<u32>>>,
}

impl LabelBuffers {
    /// Bytes of buffers kept at most: the planes in flight of a 1024³
    /// volume's call several times over (4 MiB each), a few of a 4096²
    /// plane's (64 MiB); a labeler holds them between its calls.
    const KEPT_BYTES: usize = 512 << 20;

    /// A buffer of `len` labels to be overwritten whole (a given-back one
    /// holds stale labels).
    pub(crate) fn take(&self, len: usize) -> Vec<u32> {
        let mut buffer = self
            .free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default();
        buffer.resize(len, 0);
        buffer
    }

    /// Gives `buffer` back for a later [`take`](Self::take), unless the
    /// buffers kept would pass [`KEPT_BYTES`](Self::KEPT_BYTES).
    pub(crate) fn give(&self, buffer: Vec<u32>) {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        let kept: usize = free.iter().map(Vec::capacity).sum();
        if buffer.capacity() > 0
            && (kept + buffer.capacity()) * size_of::<u32>() <= Self::KEPT_BYTES
        {
            free.push(buffer);
        }
    }
}

/// The bands of rows of a border plane of `shape`, each compared by a task
/// of its own: about 2^16 pixels, enough to outweigh a task's scheduling.
fn comparison_bands(shape: Shape) -> Vec<Range<usize>> {
    const BAND_PIXELS: usize = 1 << 16;
    let (width, rows) = (shape.width(), shape.plane_rows());
    let band_rows = (BAND_PIXELS / width.max(1)).max(1);
    (0..rows)
        .step_by(band_rows)
        .map(|y| y..(y + band_rows).min(rows))
        .collect()
}

/// Which pixels of the next plane a pixel touches across a border
/// (`shape::border_offsets`): the one across, and its neighbours in the
/// row (`columns`), in the rows beside (`rows`), on the diagonals
/// (`corners`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BorderReach {
    columns: bool,
    rows: bool,
    corners: bool,
}

impl BorderReach {
    fn of(connectivity: Connectivity) -> Self {
        let offsets = border_offsets(connectivity);
        Self {
            columns: offsets.iter().any(|&(dx, _)| dx != 0),
            rows: offsets.iter().any(|&(_, dy)| dy != 0),
            corners: offsets.iter().any(|&(dx, dy)| dx != 0 && dy != 0),
        }
    }

    /// Only the pixel across (4- and 6-connectivity).
    fn is_straight(self) -> bool {
        !(self.columns || self.rows)
    }
}

/// Appends to `pairs` the pairs (label above, label below) of a row of the
/// last plane of a strip (`above`) and the same row of the next strip's
/// first plane (`below`) where both pixels are foreground, each run of one
/// pair once. Without a branch on the pixels: a branch a pixel,
/// mispredicted at mid densities, took 3.5 ns a pixel.
fn straight_row_pairs(above: &[u32], below: &[u32], pairs: &mut Vec<(u32, u32)>) {
    pairs.reserve(above.len());
    let slots = &mut pairs.spare_capacity_mut()[..above.len()];
    // Every pixel's pair is written at the next slot, and the slot taken
    // only where it is a new one.
    let (mut taken, mut last) = (0, (0, 0));
    for (&a, &b) in above.iter().zip(below) {
        slots[taken].write((a, b));
        let new = (a != 0) & (b != 0) & ((a != last.0) | (b != last.1));
        taken += usize::from(new);
        last = if new { (a, b) } else { last };
    }
    // SAFETY: the first `taken` slots past the length were written above.
    unsafe { pairs.set_len(pairs.len() + taken) };
}

/// Appends to `pairs` the pairs (label above, label below) that row `y` of
/// `above` (the last plane of a strip, `width` × `rows`) makes with the
/// next strip's first plane (`below`) under `reach` (8, 18 or 26).
///
/// Foreground pixels of one plane that touch within it carry one label
/// (the plane's own neighbours are in every such connectivity), so where
/// the pixel across is foreground it is the only pair; else each
/// foreground neighbour in the row and the rows beside, and a corner only
/// where both of its neighbours beside the pixel across are background.
/// In 26-connectivity that is one to five labels looked at where nine
/// offsets each scanned the plane (31 ms a 1024² border, on one thread).
fn reaching_row_pairs(
    above: &[u32],
    below: &[u32],
    width: usize,
    rows: usize,
    y: usize,
    reach: BorderReach,
    pairs: &mut Vec<(u32, u32)>,
) {
    let row = y * width;
    let (has_north, has_south) = (reach.rows && y > 0, reach.rows && y + 1 < rows);
    let mut last = (0, 0);
    let mut add = |pair: (u32, u32), pairs: &mut Vec<(u32, u32)>| {
        if pair.1 != 0 && pair != last {
            last = pair;
            pairs.push(pair);
        }
    };
    for x in 0..width {
        let a = above[row + x];
        if a == 0 {
            continue;
        }
        let across = below[row + x];
        if across != 0 {
            add((a, across), pairs);
            continue;
        }
        let (has_west, has_east) = (reach.columns && x > 0, reach.columns && x + 1 < width);
        let west = if has_west { below[row + x - 1] } else { 0 };
        let east = if has_east { below[row + x + 1] } else { 0 };
        let north = if has_north { below[row - width + x] } else { 0 };
        let south = if has_south { below[row + width + x] } else { 0 };
        for beside in [west, east, north, south] {
            add((a, beside), pairs);
        }
        if reach.corners {
            // Indices past an edge wrap, and are read only where `open`.
            let (north_row, south_row) = (row.wrapping_sub(width), row + width);
            let corners = [
                (
                    has_north && has_west && north == 0 && west == 0,
                    north_row.wrapping_add(x).wrapping_sub(1),
                ),
                (
                    has_north && has_east && north == 0 && east == 0,
                    north_row.wrapping_add(x + 1),
                ),
                (
                    has_south && has_west && south == 0 && west == 0,
                    (south_row + x).wrapping_sub(1),
                ),
                (
                    has_south && has_east && south == 0 && east == 0,
                    south_row + x + 1,
                ),
            ];
            for (open, at) in corners {
                if open {
                    add((a, below[at]), pairs);
                }
            }
        }
    }
}

/// Of `pairs` (sorted, without repeats), those that join labels not yet
/// joined by an earlier one: a spanning forest of the border's graph, at
/// most one pair fewer than the labels it touches. The merge needs only
/// which labels are joined, and where labels are small and many (noise, a
/// slab of one slice) the pairs outnumber the labels several times: kept
/// whole they took as much memory as the planes they came from.
///
/// The forest's memory is one of `buffers`', given back after: a 1024²
/// border of a volume at d = 31 % has hundreds of thousands of labels, and
/// a forest of them in fresh pages lengthens the first pass's tail.
fn spanning_pairs(mut pairs: Vec<(u32, u32)>, buffers: &LabelBuffers) -> Vec<(u32, u32)> {
    // Local nodes: the labels above in order of first appearance (the
    // pairs are sorted by them), then the labels below, 1..=k by value.
    let above_labels = pairs.chunk_by(|p, q| p.0 == q.0).count();
    let below_labels = pairs.iter().map(|&(_, b)| b).max().unwrap_or(0) as usize;
    let mut forest = Forest::reusing(buffers.take(0), above_labels + below_labels);
    let mut above = 0u32;
    let mut previous = None;
    pairs.retain(|&(a, b)| {
        if previous.is_some_and(|p| p != a) {
            above += 1;
        }
        previous = Some(a);
        let (x, y) = (forest.find(above), forest.find(above_labels as u32 + b - 1));
        if x == y {
            return false;
        }
        forest.union(x, y);
        true
    });
    buffers.give(forest.into_parents());
    // What is kept for the merge is the spanning forest, not the capacity
    // the pairs grew to.
    pairs.shrink_to_fit();
    pairs
}

/// How a strip's labels become the whole image's: label `l` is either one
/// of `continued` (a component numbered by an earlier label), or new, and
/// then numbered `first_new + (l − 1) − (continued labels below l)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Renumbering {
    /// The number of the strip's first new component.
    pub first_new: u64,
    /// The labels that continue a component numbered before, ascending.
    pub continued: Vec<u32>,
    /// Their numbers, in the same order.
    pub numbers: Vec<u64>,
}

impl Renumbering {
    /// The final number of the strip's label `label` (1..=count).
    pub fn number(&self, label: u32) -> u64 {
        match self.continued.binary_search(&label) {
            Ok(found) => self.numbers[found],
            Err(below) => self.first_new + (label as u64 - 1) - below as u64,
        }
    }

    /// The final numbers of labels 1..=count, in order (one pass).
    pub(crate) fn table(&self, count: u32) -> Vec<u64> {
        let mut table = Vec::with_capacity(count as usize);
        let mut next_continued = 0;
        for label in 1..=count {
            if self.continued.get(next_continued) == Some(&label) {
                table.push(self.numbers[next_continued]);
                next_continued += 1;
            } else {
                table.push(self.first_new + (label as u64 - 1) - next_continued as u64);
            }
        }
        table
    }
}

/// What a labeler's merges keep between its calls: the forest over the
/// border nodes (2.4 M entries for a 1024³ volume in 16 strips), which a
/// call made afresh took 1.3–2.5 ms to allocate and fault in on the
/// two-H200 host, and the roots' ranks beside it.
#[derive(Debug, Default)]
pub(crate) struct MergeMemory {
    forest: Vec<AtomicU32>,
    ranks: Vec<u32>,
}

/// The whole image's numbering from every strip's scan.
pub(crate) struct Numbering {
    /// One per strip, in order.
    pub(crate) strips: Vec<Renumbering>,
    /// The components of the whole image.
    pub(crate) count: u64,
}

/// The nodes of the merge: the labels of each strip that touch a border
/// plane's neighbour, indexed in order of (strip, label) — the order in
/// which the numbering walk meets them.
///
/// A strip's first-plane labels are exactly 1..=k ([`Scan::first_plane_labels`]):
/// they need no lookup. Only its last plane's labels past k that touch the
/// next strip are kept, sorted, and found by walking them in step with the
/// border's pairs, which come sorted by the same label. (Indexing every
/// border label of the whole image through one sorted vector cost 0.5 s of
/// a 1.3 s labeling at 65536² — 67 strips, millions of border labels; a
/// binary search per pair in the strip's own labels, and a find per node
/// in the numbering walk, 163 ms of a 1024³ volume's merge at d = 31 %,
/// 6-connectivity, 30 strips on the CPU, where walking in step and the
/// roots of all nodes in one pass take 122–137.)
struct BorderNodes {
    /// Per strip: its first node.
    base: Vec<u32>,
    /// Per strip: the largest label of its first plane (0 for the first
    /// strip, whose first plane is no border).
    first_plane_labels: Vec<u32>,
    /// Per strip: the labels of its last plane past `first_plane_labels`
    /// that touch the next strip, sorted, without repeats.
    last_plane_labels: Vec<Vec<u32>>,
}

impl BorderNodes {
    fn new(scans: &[Scan], borders: &mut [BorderJoins]) -> Result<Self> {
        let first_plane_labels: Vec<u32> =
            scans.iter().map(|scan| scan.first_plane_labels).collect();
        // The last strip's last plane is no border.
        let last_plane_labels: Vec<Vec<u32>> = (0..scans.len())
            .map(|s| {
                borders.get_mut(s).map_or(Vec::new(), |border| {
                    std::mem::take(&mut border.last_plane_labels)
                })
            })
            .collect();
        let mut base = Vec::with_capacity(scans.len());
        let mut nodes = 0u64;
        for (first, last) in first_plane_labels.iter().zip(&last_plane_labels) {
            base.push(nodes as u32);
            nodes += u64::from(*first) + last.len() as u64;
            if nodes > u64::from(u32::MAX) {
                return Err(Error::Unavailable(format!(
                    "{nodes} labels lie on strip borders: more than the merge indexes; use taller strips"
                )));
            }
        }
        Ok(Self {
            base,
            first_plane_labels,
            last_plane_labels,
        })
    }

    /// The nodes of strip `s`.
    fn strip_len(&self, s: usize) -> usize {
        self.first_plane_labels[s] as usize + self.last_plane_labels[s].len()
    }

    /// The nodes in all.
    fn len(&self) -> usize {
        match self.base.last() {
            Some(&base) => {
                base as usize
                    + *self.first_plane_labels.last().unwrap_or(&0) as usize
                    + self.last_plane_labels.last().map_or(0, Vec::len)
            }
            None => 0,
        }
    }

    /// The node of label `label` of strip `s`'s first plane (1..=its
    /// largest label there).
    fn first_plane_node(&self, s: usize, label: u32) -> u32 {
        debug_assert!((1..=self.first_plane_labels[s]).contains(&label));
        self.base[s] + label - 1
    }

    /// The labels of strip `s` that are nodes, ascending, with their nodes.
    fn of_strip(&self, s: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let (base, first) = (self.base[s], self.first_plane_labels[s]);
        (1..=first)
            .chain(self.last_plane_labels[s].iter().copied())
            .zip(base..)
    }
}

/// Numbers the components of the whole image from the scans of its
/// strips (in order) and the pairs that touch across each border
/// ([`BorderPairs`]).
///
/// Between the two passes nothing else runs, so every step is spread over
/// the host's threads but one cheap pass over the strips: the borders'
/// unions (a shared forest), each node's root and whether it continues a
/// component numbered before (a node whose root is not itself, as roots
/// are the smallest nodes), each strip's share of the new numbers and each
/// continued label's number (from its root's rank, in a table beside the
/// forest; both are `memory`, which the labeler keeps for its next call).
/// A 1024³ volume's merge (d = 31 %,
/// 6-connectivity, 16 strips, 2.4 M nodes) took 47–57 ms on one thread of
/// the 2-core development machine, 20–26 ms so. On the 32 host cores of the
/// two-H200 machine one thread took 67–103 ms, the first version spread
/// over threads (a table of ranks beside the roots) 25–35 ms, and the
/// labeler's later calls 10–11 ms at f42f8ff (each step 1–2.5 ms).
pub(crate) fn number(
    scans: &[Scan],
    mut borders: Vec<BorderJoins>,
    memory: &mut MergeMemory,
    trace: &Trace,
) -> Result<Numbering> {
    let nodes = trace.step("merge-nodes", || BorderNodes::new(scans, &mut borders))?;
    let forest = trace.step("merge-forest", || {
        SharedForest::reusing(std::mem::take(&mut memory.forest), nodes.len())
    });
    let unions = || {
        borders.par_iter().enumerate().for_each(|(border, joins)| {
            // The pairs come sorted by their label above, as the strip's last-
            // plane nodes are: those past its first plane's labels are found by
            // walking both in step, not by a search each.
            let (base, first) = (nodes.base[border], nodes.first_plane_labels[border]);
            let last = &nodes.last_plane_labels[border];
            let mut position = 0;
            for &(a, b) in &joins.pairs {
                let above = if a <= first {
                    nodes.first_plane_node(border, a)
                } else {
                    while last[position] < a {
                        position += 1;
                    }
                    base + first + position as u32
                };
                forest.union(above, nodes.first_plane_node(border + 1, b));
            }
        })
    };
    trace.step("merge-unions", unions);
    // Per strip, on threads of their own: each node's root (read through
    // the forest, its unions done), and so the strip's labels that continue
    // a component numbered before (their root, the component's smallest
    // node, is another node) with those roots, and each of its roots' rank
    // among the strip's new components, from 0, in `ranks` (a strip's
    // thread writes only its own nodes' entries; an entry not a root's is
    // never read). As two steps, every root first, then the strips, this
    // took 1.1 + 1.9–2.1 ms of a 1024³ volume's merge on the two-H200 host.
    let mut ranks = std::mem::take(&mut memory.ranks);
    ccl_core::pages::reuse(&mut ranks, nodes.len());
    let strip_nodes = (0..scans.len()).map(|s| nodes.strip_len(s));
    let continued_labels = || {
        split_into(&mut ranks, strip_nodes)
            .into_par_iter()
            .enumerate()
            .map(|(s, share)| {
                let base = nodes.base[s];
                // Room for all at once: grown push by push, 16 strips'
                // vectors went back to the allocator again and again (the
                // step took 3.2–5.9 ms on the two-H200 host, 1.9–2.1 so).
                let mut continued = Vec::with_capacity(share.len());
                let mut their_roots = Vec::with_capacity(share.len());
                for (label, node) in nodes.of_strip(s) {
                    let root = forest.find(node);
                    if root == node {
                        // Labels come ascending: the continued ones so far are
                        // exactly those below `label`.
                        share[(node - base) as usize] = label - 1 - continued.len() as u32;
                    } else {
                        continued.push(label);
                        their_roots.push(root);
                    }
                }
                (continued, their_roots)
            })
            .collect()
    };
    let continued: Vec<(Vec<u32>, Vec<u32>)> = trace.step("merge-continued", continued_labels);
    memory.forest = forest.into_memory();
    let mut first_new = Vec::with_capacity(scans.len());
    let mut next = 1u64;
    for (scan, (continued, _)) in scans.iter().zip(&continued) {
        first_new.push(next);
        next += u64::from(scan.count) - continued.len() as u64;
    }
    let numbers = || {
        continued
            .into_par_iter()
            .enumerate()
            .map(|(s, (continued, their_roots))| {
                let numbers = their_roots
                    .iter()
                    .map(|&root| {
                        let root_strip = nodes.base.partition_point(|&base| base <= root) - 1;
                        first_new[root_strip] + u64::from(ranks[root as usize])
                    })
                    .collect();
                Renumbering {
                    first_new: first_new[s],
                    continued,
                    numbers,
                }
            })
            .collect()
    };
    let strips = trace.step("merge-numbers", numbers);
    memory.ranks = ranks;
    Ok(Numbering {
        strips,
        count: next - 1,
    })
}

/// `values` cut into consecutive parts of `lengths`, which cover it.
pub(crate) fn split_into<T>(
    mut values: &mut [T],
    lengths: impl IntoIterator<Item = usize>,
) -> Vec<&mut [T]> {
    let mut parts = Vec::new();
    for len in lengths {
        let (part, rest) = std::mem::take(&mut values).split_at_mut(len);
        parts.push(part);
        values = rest;
    }
    assert!(values.is_empty(), "the parts cover the values");
    parts
}

/// The features of strip `s` in host memory, one per component; an error
/// where its variant gave no features for some, or they were left on its GPU.
pub(crate) fn host_features(scans: &[Scan], s: usize) -> Result<&[LargeStats]> {
    match &scans[s].features {
        StripFeatures::Host(stats) if stats.len() == scans[s].count as usize => Ok(stats),
        StripFeatures::Host(stats) => Err(Error::Unavailable(format!(
            "strip {s} has {} components but features for {}: its variant gave no features",
            scans[s].count,
            stats.len()
        ))),
        StripFeatures::None if scans[s].count == 0 => Ok(&[]),
        StripFeatures::None => Err(Error::Unavailable(format!(
            "strip {s} has {} components but no features: its variant gave none",
            scans[s].count
        ))),
        StripFeatures::Kept => Err(Error::Unavailable(format!(
            "strip {s}'s features were left on its GPU, not brought to the host"
        ))),
    }
}

/// The features of every component of the whole image, index `n − 1` for
/// number `n`, from each strip's features and renumbering.
///
/// A strip's new components take the consecutive numbers from its
/// `first_new`, so the strips' shares of the result are disjoint: each is
/// copied by a task of its own on the pool, which also spreads the first touch of the
/// result's pages over the host's cores (tens of millions of components
/// are gigabytes). The labels that continue a component numbered before
/// are then merged into it, one strip after the other.
pub(crate) fn merge_stats(numbering: &Numbering, scans: &[Scan]) -> Result<Vec<LargeStats>> {
    let features = (0..scans.len())
        .map(|s| host_features(scans, s))
        .collect::<Result<Vec<_>>>()?;
    let count = numbering.count as usize;
    let mut merged: Vec<LargeStats> = Vec::with_capacity(count);
    let news: Vec<usize> = numbering
        .strips
        .iter()
        .zip(scans)
        .map(|(renumbering, scan)| scan.count as usize - renumbering.continued.len())
        .collect();
    assert_eq!(
        news.iter().sum::<usize>(),
        count,
        "the strips' new components are the count"
    );
    let shares = split_into(&mut merged.spare_capacity_mut()[..count], news);
    shares
        .into_par_iter()
        .zip(numbering.strips.par_iter().zip(scans).zip(&features))
        .for_each(|(share, ((renumbering, scan), stats))| {
            let mut continued = renumbering.continued.iter().peekable();
            let new_labels = (1..=scan.count).filter(|label| {
                let is_continued = continued.peek() == Some(&label);
                if is_continued {
                    continued.next();
                }
                !is_continued
            });
            let slots = share.len();
            let written = share
                .iter_mut()
                .zip(new_labels)
                .map(|(slot, label)| slot.write(stats[label as usize - 1]))
                .count();
            assert_eq!(written, slots, "a strip's new labels fill its share");
        });
    // SAFETY: the shares partition `0..count` (asserted above), and every
    // slot of each share was written (asserted in its task: a failed
    // assertion panics out of `for_each` before this line).
    unsafe { merged.set_len(count) };
    for (renumbering, stats) in numbering.strips.iter().zip(&features) {
        for (&label, &number) in renumbering.continued.iter().zip(&renumbering.numbers) {
            merged[number as usize - 1].merge(&stats[label as usize - 1]);
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Trace;

    fn scan(count: u32, first_plane: &[u32], last_plane: &[u32]) -> StripScan {
        StripScan {
            count,
            first_plane: first_plane.to_vec(),
            last_plane: last_plane.to_vec(),
            features: StripFeatures::None,
        }
    }

    /// `borders.add` of strip `s`, its comparisons done on return.
    fn add(borders: &BorderPairs, s: usize, scan: StripScan) -> Scan {
        let trace = Trace::from_env();
        rayon::scope(|comparisons| borders.add(s, scan, comparisons, trace.strip(0, s)))
    }

    /// The scans as the labeler keeps them and the numbering, the scans
    /// added last first (workers finish out of order).
    fn number_scans(
        shape: Shape,
        connectivity: Connectivity,
        scans: Vec<StripScan>,
    ) -> (Vec<Scan>, Numbering) {
        let planes = LabelBuffers::default();
        let borders = BorderPairs::new(shape, connectivity, scans.len(), &planes);
        let mut kept: Vec<(usize, Scan)> = scans
            .into_iter()
            .enumerate()
            .rev()
            .map(|(s, scan)| (s, add(&borders, s, scan)))
            .collect();
        kept.reverse();
        let kept: Vec<Scan> = kept.into_iter().map(|(_, scan)| scan).collect();
        let numbering = number(
            &kept,
            borders.into_joins(),
            &mut MergeMemory::default(),
            &Trace::from_env(),
        )
        .unwrap();
        (kept, numbering)
    }

    #[test]
    fn a_u_joined_below_numbers_its_second_arm_as_its_first() {
        // Strip 0: two arms, labels 1 and 2, and a speck 3 between them
        // that touches neither border plane. Strip 1: one bar (label 1)
        // under both arms, then a speck 2.
        let shape = Shape::Image {
            width: 5,
            height: 4,
        };
        let scans = vec![
            scan(3, &[1, 0, 0, 0, 2], &[1, 0, 0, 0, 2]),
            scan(2, &[1, 1, 1, 1, 1], &[0, 0, 0, 2, 0]),
        ];
        let (_, numbering) = number_scans(shape, Connectivity::Four, scans);
        assert_eq!(numbering.count, 3);
        let [top, bottom] = &numbering.strips[..] else {
            panic!()
        };
        assert_eq!(
            (1..=3).map(|l| top.number(l)).collect::<Vec<_>>(),
            [1, 1, 2]
        );
        assert_eq!(
            (1..=2).map(|l| bottom.number(l)).collect::<Vec<_>>(),
            [1, 3]
        );
        assert_eq!(top.table(3), [1, 1, 2]);
        assert_eq!(bottom.table(2), [1, 3]);
    }

    #[test]
    fn border_planes_are_dropped_once_both_sides_are_in() {
        let shape = Shape::Image {
            width: 2,
            height: 3,
        };
        let planes = LabelBuffers::default();
        let borders = BorderPairs::new(shape, Connectivity::Four, 3, &planes);
        let waiting = |borders: &BorderPairs| -> Vec<(bool, bool)> {
            let waiting = borders.waiting.lock().unwrap();
            waiting
                .iter()
                .map(|w| (w.first.is_some(), w.last.is_some()))
                .collect()
        };
        // The last strip first: its first plane waits; it has no last.
        add(&borders, 2, scan(1, &[1, 1], &[1, 1]));
        assert_eq!(
            waiting(&borders),
            [(false, false), (false, false), (true, false)]
        );
        // The first: nothing touches it yet (strip 1 is not in).
        add(&borders, 0, scan(1, &[1, 0], &[1, 0]));
        assert_eq!(
            waiting(&borders),
            [(false, true), (false, false), (true, false)]
        );
        // The middle: both borders compared, every plane dropped.
        add(&borders, 1, scan(2, &[1, 2], &[0, 2]));
        assert_eq!(waiting(&borders), [(false, false); 3]);
        let joins = borders.into_joins();
        let pairs: Vec<&[(u32, u32)]> = joins.iter().map(|j| j.pairs.as_slice()).collect();
        assert_eq!(pairs, [[(1, 1)], [(2, 1)]]);
        // Strip 0's first plane is no border; strip 1's holds labels 1..=2,
        // so its last-plane label 2 is one of them, not a node of its own.
        let last: Vec<&[u32]> = joins
            .iter()
            .map(|j| j.last_plane_labels.as_slice())
            .collect();
        assert_eq!(last, [&[1][..], &[][..]]);
        // ... and given back, all six (beside the borders' forests), for
        // the next scans.
        assert!(planes.free.lock().unwrap().len() >= 6);
        assert_eq!(planes.take(3).len(), 3);
    }

    #[test]
    fn a_border_keeps_a_spanning_forest_of_its_pairs() {
        // Above labels 1 and 4 each touch below labels 1 and 2: four pairs
        // among four labels, of which three span them; (5, 3) stands apart.
        let buffers = LabelBuffers::default();
        let kept = spanning_pairs(vec![(1, 1), (1, 2), (4, 1), (4, 2), (5, 3)], &buffers);
        assert_eq!(kept, [(1, 1), (1, 2), (4, 1), (5, 3)]);
        assert!(spanning_pairs(Vec::new(), &buffers).is_empty());
    }

    #[test]
    fn diagonals_join_only_in_eight_connectivity() {
        let shape = Shape::Image {
            width: 3,
            height: 2,
        };
        let scans = vec![
            scan(1, &[1, 0, 0], &[1, 0, 0]),
            scan(1, &[0, 1, 0], &[0, 1, 0]),
        ];
        let count = |c| number_scans(shape, c, scans.clone()).1.count;
        assert_eq!(count(Connectivity::Four), 2);
        assert_eq!(count(Connectivity::Eight), 1);
    }

    /// Across a slice: a corner joins only in 26-connectivity, a pixel
    /// beside only in 18 and 26; each corner and side of the 3 × 3 window.
    #[test]
    fn corners_and_sides_join_as_the_connectivity_reaches() {
        let shape = Shape::Volume {
            width: 3,
            height: 3,
            depth: 2,
        };
        let center = [0, 0, 0, 0, 1, 0, 0, 0, 0];
        let count = |below: [u32; 9], c| {
            let scans = vec![scan(1, &center, &center), scan(1, &below, &below)];
            number_scans(shape, c, scans).1.count
        };
        for at in 0..9 {
            let mut below = [0; 9];
            below[at] = 1;
            let corner = at != 4 && at % 2 == 0;
            let expected = |joins: bool| if joins { 1 } else { 2 };
            assert_eq!(count(below, Connectivity::Six), expected(at == 4), "{at}");
            assert_eq!(
                count(below, Connectivity::Eighteen),
                expected(!corner),
                "{at}"
            );
            assert_eq!(count(below, Connectivity::TwentySix), 1, "{at}");
        }
        // A corner beside a side that is foreground joins through the side.
        let below = [1, 1, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(count(below, Connectivity::Eighteen), 1);
        assert_eq!(count(below, Connectivity::TwentySix), 1);
    }

    #[test]
    fn merged_stats_add_up_across_strips() {
        let shape = Shape::Image {
            width: 2,
            height: 2,
        };
        let mut top = scan(1, &[1, 1], &[1, 1]);
        let mut pair = LargeStats::of_image(&ComponentStats::pixel(0, 0), 0);
        pair.merge(&LargeStats::of_image(&ComponentStats::pixel(1, 0), 0));
        top.features = StripFeatures::Host(vec![pair]);
        let mut bottom = scan(1, &[0, 1], &[0, 1]);
        let below = LargeStats::of_image(&ComponentStats::pixel(1, 0), 1);
        bottom.features = StripFeatures::Host(vec![below]);
        let (scans, numbering) = number_scans(shape, Connectivity::Four, vec![top, bottom]);
        let stats = merge_stats(&numbering, &scans).unwrap();
        assert_eq!(stats.len(), 1);
        assert_eq!(
            (stats[0].area, stats[0].min, stats[0].max),
            (3, [0, 0, 0], [1, 1, 0])
        );
        assert_eq!(stats[0].sum, [2, 1, 0]);
        assert_eq!(stats[0].to_component_stats().unwrap().area, 3);
        let huge = LargeStats {
            area: 1 << 33,
            ..stats[0]
        };
        assert!(huge.to_component_stats().is_err());
    }

    #[test]
    fn a_strip_without_features_is_an_error_not_a_panic() {
        let shape = Shape::Image {
            width: 2,
            height: 2,
        };
        let mut top = scan(1, &[1, 0], &[1, 0]);
        let pixel = LargeStats::of_image(&ComponentStats::pixel(0, 0), 0);
        top.features = StripFeatures::Host(vec![pixel]);
        let bottom = scan(1, &[0, 1], &[0, 1]);
        let (scans, numbering) = number_scans(shape, Connectivity::Four, vec![top, bottom]);
        let error = merge_stats(&numbering, &scans).unwrap_err();
        assert!(error.to_string().contains("strip 1"), "{error}");
        // Features left on a GPU are no host features either.
        let (mut scans, numbering) = number_scans(
            shape,
            Connectivity::Four,
            vec![scan(1, &[1, 0], &[1, 0]), scan(1, &[0, 1], &[0, 1])],
        );
        scans[0].features = StripFeatures::Host(vec![pixel]);
        scans[1].features = StripFeatures::Kept;
        let error = merge_stats(&numbering, &scans).unwrap_err();
        assert!(error.to_string().contains("left on its GPU"), "{error}");
    }
}
