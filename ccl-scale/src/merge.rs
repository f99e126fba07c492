//! The merge across strips: every strip is labeled alone (1..=n_s in its
//! own raster order), the labels on either side of each border are joined
//! by a union-find whose nodes are only the labels that lie on a border,
//! and one walk over the strips in order numbers the components 1..=N in
//! raster order of their first pixel across the whole image. What a strip
//! then needs to write its final labels is small: the first number of its
//! new components and the numbers of its border labels that continue a
//! component numbered before ([`Renumbering`]).

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

/// What labeling one strip alone leaves for the merge.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scan {
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

/// The nodes of the merge: every (strip, label) on a border between two
/// strips, as the sorted global ids `offset[strip] + label`.
struct BorderNodes {
    ids: Vec<u64>,
}

impl BorderNodes {
    fn index(&self, id: u64) -> u32 {
        self.ids
            .binary_search(&id)
            .expect("every border label is a node") as u32
    }
}

/// Numbers the components of the whole image from the scans of its
/// strips (in order), joined across each border under `connectivity`.
pub(crate) fn number(
    shape: Shape,
    connectivity: Connectivity,
    scans: &[Scan],
) -> Result<Numbering> {
    let mut offsets = Vec::with_capacity(scans.len());
    let mut total = 0u64;
    for scan in scans {
        offsets.push(total);
        total += scan.count as u64;
    }
    let borders = scans.len().saturating_sub(1);
    let mut ids = Vec::new();
    for s in 0..borders {
        let below = &scans[s + 1];
        ids.extend(
            scans[s]
                .last_plane
                .iter()
                .filter(|&&l| l != 0)
                .map(|&l| offsets[s] + l as u64),
        );
        ids.extend(
            below
                .first_plane
                .iter()
                .filter(|&&l| l != 0)
                .map(|&l| offsets[s + 1] + l as u64),
        );
    }
    ids.sort_unstable();
    ids.dedup();
    if ids.len() > u32::MAX as usize {
        return Err(Error::Unavailable(format!(
            "{} labels lie on strip borders: more than the merge indexes; use taller strips",
            ids.len()
        )));
    }
    let nodes = BorderNodes { ids };
    let mut forest = Forest::new(nodes.ids.len());
    let (width, rows) = (shape.width() as isize, shape.plane_rows() as isize);
    let offsets_in_plane = border_offsets(connectivity);
    for s in 0..borders {
        let (above, below) = (&scans[s].last_plane, &scans[s + 1].first_plane);
        for &(dx, dy) in offsets_in_plane {
            // The last pair joined along this offset: runs of equal pairs,
            // the common case, cost one comparison each.
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
                    forest.union(
                        nodes.index(offsets[s] + a as u64),
                        nodes.index(offsets[s + 1] + b as u64),
                    );
                }
            }
        }
    }

    // One walk in raster order: a component's number is given at its first
    // label, whose strip and label are the smallest of all its labels.
    const UNNUMBERED: u64 = 0;
    let mut numbers = vec![UNNUMBERED; nodes.ids.len()];
    let mut next = 1u64;
    let mut strips = Vec::with_capacity(scans.len());
    for (s, scan) in scans.iter().enumerate() {
        let mut border: Vec<u32> = Vec::new();
        if s > 0 {
            border.extend(scan.first_plane.iter().copied().filter(|&l| l != 0));
        }
        if s < borders {
            border.extend(scan.last_plane.iter().copied().filter(|&l| l != 0));
        }
        border.sort_unstable();
        border.dedup();
        let mut renumbering = Renumbering {
            first_new: next,
            ..Renumbering::default()
        };
        for label in border {
            let root = forest.find(nodes.index(offsets[s] + label as u64)) as usize;
            if numbers[root] == UNNUMBERED {
                numbers[root] = renumbering.number(label);
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
pub(crate) fn merge_stats(numbering: &Numbering, scans: &[Scan]) -> Vec<LargeStats> {
    let mut merged = vec![LargeStats::default(); numbering.count as usize];
    for (renumbering, scan) in numbering.strips.iter().zip(scans) {
        for (number, stats) in renumbering.table(scan.count).into_iter().zip(&scan.stats) {
            merged[number as usize - 1].merge(stats);
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(count: u32, first_plane: &[u32], last_plane: &[u32]) -> Scan {
        Scan {
            count,
            first_plane: first_plane.to_vec(),
            last_plane: last_plane.to_vec(),
            stats: Vec::new(),
        }
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
        let scans = [
            scan(3, &[1, 0, 0, 0, 2], &[1, 0, 0, 0, 2]),
            scan(2, &[1, 1, 1, 1, 1], &[0, 0, 0, 2, 0]),
        ];
        let numbering = number(shape, Connectivity::Four, &scans).unwrap();
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
    fn diagonals_join_only_in_eight_connectivity() {
        let shape = Shape::Image {
            width: 3,
            height: 2,
        };
        let scans = [
            scan(1, &[1, 0, 0], &[1, 0, 0]),
            scan(1, &[0, 1, 0], &[0, 1, 0]),
        ];
        assert_eq!(number(shape, Connectivity::Four, &scans).unwrap().count, 2);
        assert_eq!(number(shape, Connectivity::Eight, &scans).unwrap().count, 1);
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
        let scans = [top, bottom];
        let numbering = number(shape, Connectivity::Four, &scans).unwrap();
        let stats = merge_stats(&numbering, &scans);
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
}
