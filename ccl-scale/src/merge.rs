//! The merge across strips: every strip is labeled alone (1..=n_s in its
//! own raster order), the labels on either side of each border are joined
//! by a union-find whose nodes are only the labels that touch across a
//! border (the pairs found while the strips are scanned, [`BorderPairs`]),
//! and one walk over the strips in order numbers the components 1..=N in
//! raster order of their first pixel across the whole image. What a strip
//! then needs to write its final labels is small: the first number of its
//! new components and the numbers of its border labels that continue a
//! component numbered before ([`Renumbering`]).

use std::sync::Mutex;

use ccl_core::{ComponentStats, Connectivity, Error, MinRootForest as Forest, Result, VolumeStats};

use crate::shape::{Shape, border_offsets};

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
    /// The features of each component (index = label − 1), in the whole
    /// image's coordinates; empty unless asked for.
    pub(crate) stats: Vec<LargeStats>,
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
    /// The features of each component (index = label − 1), in the whole
    /// image's coordinates; empty unless asked for.
    pub(crate) stats: Vec<LargeStats>,
}

/// The pairs of labels that touch across each border, found while the
/// strips are scanned: as soon as the strips on both sides of a border are
/// in, the two planes are compared (on the thread of the worker that
/// brought the second) and dropped. Host memory holds the border planes
/// of the strips in flight and the pairs, never the planes of every strip
/// (two planes of 4 bytes a pixel per strip: a volume of slabs of one or
/// two slices would keep as much as its whole 32-bit label image).
pub(crate) struct BorderPairs {
    shape: Shape,
    connectivity: Connectivity,
    /// Per strip: the planes waiting for a neighbour.
    waiting: Mutex<Vec<WaitingPlanes>>,
    /// Per border (between strips `s` and `s + 1`): its pairs (label in
    /// `s`'s last plane, label in `s + 1`'s first), sorted, without repeats.
    pairs: Vec<Mutex<Vec<(u32, u32)>>>,
}

/// A strip's border planes not yet compared with a neighbour's.
#[derive(Default)]
struct WaitingPlanes {
    first: Option<Vec<u32>>,
    last: Option<Vec<u32>>,
}

impl BorderPairs {
    /// For `strips` strips of `shape`, joined under `connectivity`.
    pub(crate) fn new(shape: Shape, connectivity: Connectivity, strips: usize) -> Self {
        let borders = strips.saturating_sub(1);
        Self {
            shape,
            connectivity,
            waiting: Mutex::new((0..strips).map(|_| WaitingPlanes::default()).collect()),
            pairs: (0..borders).map(|_| Mutex::default()).collect(),
        }
    }

    /// Takes strip `s`'s scan: its border planes wait for the neighbours'
    /// (or are compared with those already in); the rest is returned.
    pub(crate) fn add(&self, s: usize, scan: StripScan) -> Scan {
        let strips = self.pairs.len() + 1;
        let first_plane_labels = match s {
            0 => 0,
            _ => scan.first_plane.iter().copied().max().unwrap_or(0),
        };
        let ready = {
            let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
            if s > 0 {
                waiting[s].first = Some(scan.first_plane);
            }
            if s + 1 < strips {
                waiting[s].last = Some(scan.last_plane);
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
            let pairs = touching_pairs(self.shape, self.connectivity, &above, &below);
            *self.pairs[border].lock().unwrap_or_else(|e| e.into_inner()) = pairs;
        }
        Scan {
            count: scan.count,
            first_plane_labels,
            stats: scan.stats,
        }
    }

    /// The pairs of every border, in order.
    pub(crate) fn into_pairs(self) -> Vec<Vec<(u32, u32)>> {
        self.pairs
            .into_iter()
            .map(|pairs| pairs.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect()
    }
}

/// The pairs of labels that touch across one border under `connectivity`:
/// (label in `above`, the last plane of a strip; label in `below`, the
/// first plane of the next), sorted, without repeats.
fn touching_pairs(
    shape: Shape,
    connectivity: Connectivity,
    above: &[u32],
    below: &[u32],
) -> Vec<(u32, u32)> {
    let (width, rows) = (shape.width() as isize, shape.plane_rows() as isize);
    let mut pairs = Vec::new();
    for &(dx, dy) in border_offsets(connectivity) {
        // The last pair joined along this offset: runs of equal pairs, the
        // common case, cost one comparison each.
        let mut last = (0, 0);
        for y in 0..rows {
            let ny = y + dy;
            if ny < 0 || ny >= rows {
                continue;
            }
            for x in 0..width {
                let nx = x + dx;
                if nx < 0 || nx >= width {
                    continue;
                }
                let a = above[(y * width + x) as usize];
                let b = below[(ny * width + nx) as usize];
                if a == 0 || b == 0 || (a, b) == last {
                    continue;
                }
                last = (a, b);
                pairs.push(last);
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    spanning_pairs(pairs)
}

/// Of `pairs` (sorted, without repeats), those that join labels not yet
/// joined by an earlier one: a spanning forest of the border's graph, at
/// most one pair fewer than the labels it touches. The merge needs only
/// which labels are joined, and where labels are small and many (noise, a
/// slab of one slice) the pairs outnumber the labels several times: kept
/// whole they took as much memory as the planes they came from.
fn spanning_pairs(mut pairs: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    // Local nodes: the labels above in order of first appearance (the
    // pairs are sorted by them), then the labels below, 1..=k by value.
    let above_labels = pairs.chunk_by(|p, q| p.0 == q.0).count();
    let below_labels = pairs.iter().map(|&(_, b)| b).max().unwrap_or(0) as usize;
    let mut forest = Forest::new(above_labels + below_labels);
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
    fn new(scans: &[Scan], pairs: &[Vec<(u32, u32)>]) -> Result<Self> {
        let mut base = Vec::with_capacity(scans.len());
        let mut first_plane_labels = Vec::with_capacity(scans.len());
        let mut last_plane_labels = Vec::with_capacity(scans.len());
        let mut nodes = 0u64;
        for (s, scan) in scans.iter().enumerate() {
            let first = scan.first_plane_labels;
            // The pairs are sorted by their label above: its labels come in order.
            let mut last: Vec<u32> = pairs.get(s).map_or(Vec::new(), |pairs| {
                pairs
                    .iter()
                    .map(|&(a, _)| a)
                    .filter(|&a| a > first)
                    .collect()
            });
            last.dedup();
            base.push(nodes as u32);
            nodes += u64::from(first) + last.len() as u64;
            if nodes > u64::from(u32::MAX) {
                return Err(Error::Unavailable(format!(
                    "{nodes} labels lie on strip borders: more than the merge indexes; use taller strips"
                )));
            }
            first_plane_labels.push(first);
            last_plane_labels.push(last);
        }
        Ok(Self {
            base,
            first_plane_labels,
            last_plane_labels,
        })
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
pub(crate) fn number(scans: &[Scan], pairs: &[Vec<(u32, u32)>]) -> Result<Numbering> {
    let nodes = BorderNodes::new(scans, pairs)?;
    let mut forest = Forest::new(nodes.len());
    for (border, pairs) in pairs.iter().enumerate() {
        // The pairs come sorted by their label above, as the strip's last-
        // plane nodes are: those past its first plane's labels are found by
        // walking both in step, not by a search each.
        let (base, first) = (nodes.base[border], nodes.first_plane_labels[border]);
        let last = &nodes.last_plane_labels[border];
        let mut position = 0;
        for &(a, b) in pairs {
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
    }
    // Each node's root in one pass: a parent comes before its child.
    let mut roots = forest.into_parents();
    for node in 0..roots.len() {
        roots[node] = roots[roots[node] as usize];
    }

    // One walk in raster order: a component's number is given at its first
    // label, whose strip and label are the smallest of all its labels (the
    // forest's roots are its smallest nodes).
    const UNNUMBERED: u64 = 0;
    let mut numbers = vec![UNNUMBERED; nodes.len()];
    let mut next = 1u64;
    let mut strips = Vec::with_capacity(scans.len());
    for (s, scan) in scans.iter().enumerate() {
        let mut renumbering = Renumbering {
            first_new: next,
            ..Renumbering::default()
        };
        for (label, node) in nodes.of_strip(s) {
            let root = roots[node as usize] as usize;
            if numbers[root] == UNNUMBERED {
                // The strip's labels come ascending, so the continued ones
                // listed so far are exactly those below `label`: its
                // number without a search.
                numbers[root] = renumbering.first_new + u64::from(label - 1)
                    - renumbering.continued.len() as u64;
            } else {
                renumbering.continued.push(label);
                renumbering.numbers.push(numbers[root]);
            }
        }
        next += scan.count as u64 - renumbering.continued.len() as u64;
        strips.push(renumbering);
    }
    Ok(Numbering {
        strips,
        count: next - 1,
    })
}

/// The features of every component of the whole image, index `n − 1` for
/// number `n`, from each strip's features and renumbering.
///
/// A strip's new components take the consecutive numbers from its
/// `first_new`, so the strips' shares of the result are disjoint: each is
/// copied on its own thread, which also spreads the first touch of the
/// result's pages over the host's cores (tens of millions of components
/// are gigabytes). The labels that continue a component numbered before
/// are then merged into it, one strip after the other.
pub(crate) fn merge_stats(numbering: &Numbering, scans: &[Scan]) -> Result<Vec<LargeStats>> {
    if let Some(s) = scans
        .iter()
        .position(|scan| scan.stats.len() != scan.count as usize)
    {
        return Err(Error::Unavailable(format!(
            "strip {s} has {} components but features for {}: its variant gave no features",
            scans[s].count,
            scans[s].stats.len()
        )));
    }
    let count = numbering.count as usize;
    let mut merged: Vec<LargeStats> = Vec::with_capacity(count);
    let mut rest = &mut merged.spare_capacity_mut()[..count];
    let mut shares = Vec::with_capacity(scans.len());
    for (renumbering, scan) in numbering.strips.iter().zip(scans) {
        let new = scan.count as usize - renumbering.continued.len();
        let (share, tail) = std::mem::take(&mut rest).split_at_mut(new);
        shares.push((share, renumbering, scan));
        rest = tail;
    }
    assert!(rest.is_empty(), "the strips' new components are the count");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut groups: Vec<Vec<_>> = (0..threads.min(shares.len())).map(|_| Vec::new()).collect();
    for (i, share) in shares.into_iter().enumerate() {
        groups[i % threads].push(share);
    }
    std::thread::scope(|scope| {
        for group in groups {
            scope.spawn(move || {
                for (share, renumbering, scan) in group {
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
                        .map(|(slot, label)| slot.write(scan.stats[label as usize - 1]))
                        .count();
                    assert_eq!(written, slots, "a strip's new labels fill its share");
                }
            });
        }
    });
    // SAFETY: the shares partition `0..count` (asserted above), and every
    // slot of each share was written (asserted in its thread: a failed
    // assertion ends the scope with a panic before this line).
    unsafe { merged.set_len(count) };
    for (renumbering, scan) in numbering.strips.iter().zip(scans) {
        for (&label, &number) in renumbering.continued.iter().zip(&renumbering.numbers) {
            merged[number as usize - 1].merge(&scan.stats[label as usize - 1]);
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(count: u32, first_plane: &[u32], last_plane: &[u32]) -> StripScan {
        StripScan {
            count,
            first_plane: first_plane.to_vec(),
            last_plane: last_plane.to_vec(),
            stats: Vec::new(),
        }
    }

    /// The scans as the labeler keeps them and the numbering, the scans
    /// added last first (workers finish out of order).
    fn number_scans(
        shape: Shape,
        connectivity: Connectivity,
        scans: Vec<StripScan>,
    ) -> (Vec<Scan>, Numbering) {
        let borders = BorderPairs::new(shape, connectivity, scans.len());
        let mut kept: Vec<(usize, Scan)> = scans
            .into_iter()
            .enumerate()
            .rev()
            .map(|(s, scan)| (s, borders.add(s, scan)))
            .collect();
        kept.reverse();
        let kept: Vec<Scan> = kept.into_iter().map(|(_, scan)| scan).collect();
        let numbering = number(&kept, &borders.into_pairs()).unwrap();
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
        let borders = BorderPairs::new(shape, Connectivity::Four, 3);
        let waiting = |borders: &BorderPairs| -> Vec<(bool, bool)> {
            let waiting = borders.waiting.lock().unwrap();
            waiting
                .iter()
                .map(|w| (w.first.is_some(), w.last.is_some()))
                .collect()
        };
        // The last strip first: its first plane waits; it has no last.
        borders.add(2, scan(1, &[1, 1], &[1, 1]));
        assert_eq!(
            waiting(&borders),
            [(false, false), (false, false), (true, false)]
        );
        // The first: nothing touches it yet (strip 1 is not in).
        borders.add(0, scan(1, &[1, 0], &[1, 0]));
        assert_eq!(
            waiting(&borders),
            [(false, true), (false, false), (true, false)]
        );
        // The middle: both borders compared, every plane dropped.
        borders.add(1, scan(2, &[1, 2], &[0, 2]));
        assert_eq!(waiting(&borders), [(false, false); 3]);
        assert_eq!(borders.into_pairs(), [vec![(1, 1)], vec![(2, 1)]]);
    }

    #[test]
    fn a_border_keeps_a_spanning_forest_of_its_pairs() {
        // Above labels 1 and 4 each touch below labels 1 and 2: four pairs
        // among four labels, of which three span them; (5, 3) stands apart.
        let kept = spanning_pairs(vec![(1, 1), (1, 2), (4, 1), (4, 2), (5, 3)]);
        assert_eq!(kept, [(1, 1), (1, 2), (4, 1), (5, 3)]);
        assert!(spanning_pairs(Vec::new()).is_empty());
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

    #[test]
    fn merged_stats_add_up_across_strips() {
        let shape = Shape::Image {
            width: 2,
            height: 2,
        };
        let mut top = scan(1, &[1, 1], &[1, 1]);
        top.stats = vec![LargeStats::of_image(&ComponentStats::pixel(0, 0), 0)];
        top.stats[0].merge(&LargeStats::of_image(&ComponentStats::pixel(1, 0), 0));
        let mut bottom = scan(1, &[0, 1], &[0, 1]);
        bottom.stats = vec![LargeStats::of_image(&ComponentStats::pixel(1, 0), 1)];
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
        top.stats = vec![LargeStats::of_image(&ComponentStats::pixel(0, 0), 0)];
        let bottom = scan(1, &[0, 1], &[0, 1]);
        let (scans, numbering) = number_scans(shape, Connectivity::Four, vec![top, bottom]);
        let error = merge_stats(&numbering, &scans).unwrap_err();
        assert!(error.to_string().contains("strip 1"), "{error}");
    }
}
