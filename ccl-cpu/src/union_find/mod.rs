//! `cpu-uf`: two-pass labeling with an equivalence table (Rosenfeld &
//! Pfaltz, "Sequential operations in digital picture processing", 1966), kept
//! as a union-find forest with path compression; [`volume`] does the same
//! for volumes.

mod volume;

use ccl_core::{
    Algorithm, Analyzer, Backend, BinaryImage, BinaryVolume, ComponentStats, Connectivity,
    HostTimedRun, LabelImage, LabelVolume, Labeler, Result, VolumeStats, check_connectivity,
};

const NAME: &str = "cpu-uf";
const CONNECTIVITIES: &[Connectivity] = &[
    Connectivity::Four,
    Connectivity::Eight,
    Connectivity::Six,
    Connectivity::Eighteen,
    Connectivity::TwentySix,
];

/// The reference labeler of images and volumes: sequential, simple, and
/// canonical by construction (components are numbered 1..=N in raster order
/// of their first pixel or voxel).
#[derive(Clone, Copy, Debug, Default)]
pub struct UnionFind;

ccl_core::inventory::submit! {
    Algorithm {
        name: NAME,
        aliases: &[],
        crate_name: env!("CARGO_PKG_NAME"),
        backend: Backend::Cpu,
        connectivities: CONNECTIVITIES,
        summary: "two-pass union-find with path compression, single thread (Rosenfeld & Pfaltz 1966); the reference, images and volumes",
        priority: 10,
        preferred_for: &[],
        probe: || Ok(()),
        labeler: Some(|| Ok(Box::new(UnionFind))),
        analyzer: Some(|| Ok(Box::new(UnionFind))),
        timed: || Ok(Box::new(HostTimedRun::new(UnionFind))),
    }
}

impl Labeler for UnionFind {
    fn label(&mut self, image: &BinaryImage<'_>, connectivity: Connectivity) -> Result<LabelImage> {
        check_connectivity(NAME, CONNECTIVITIES, connectivity)?;
        connectivity.check_dimensions(2)?;
        let (labels, _) = label_and_measure(image, connectivity, false);
        LabelImage::new(image.width(), image.height(), labels)
    }

    fn label_volume(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<LabelVolume> {
        check_connectivity(NAME, CONNECTIVITIES, connectivity)?;
        connectivity.check_dimensions(3)?;
        let (labels, _) = volume::label_and_measure(volume, connectivity, false);
        LabelVolume::new(volume.width(), volume.height(), volume.depth(), labels)
    }
}

impl Analyzer for UnionFind {
    fn analyze(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<ComponentStats>> {
        check_connectivity(NAME, CONNECTIVITIES, connectivity)?;
        connectivity.check_dimensions(2)?;
        Ok(label_and_measure(image, connectivity, true).1)
    }

    fn analyze_volume(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<VolumeStats>> {
        check_connectivity(NAME, CONNECTIVITIES, connectivity)?;
        connectivity.check_dimensions(3)?;
        Ok(volume::label_and_measure(volume, connectivity, true).1)
    }
}

/// The equivalence table: `parent[l]` leads toward the smallest provisional
/// label of the class, so a root is always the class's first label in raster
/// order.
struct Equivalences {
    parent: Vec<u32>,
}

impl Equivalences {
    fn new_label(&mut self) -> u32 {
        let label = self.parent.len() as u32;
        self.parent.push(label);
        label
    }

    fn find(&mut self, mut label: u32) -> u32 {
        let mut root = label;
        while self.parent[root as usize] != root {
            root = self.parent[root as usize];
        }
        while self.parent[label as usize] != root {
            let next = self.parent[label as usize];
            self.parent[label as usize] = root;
            label = next;
        }
        root
    }

    fn union(&mut self, a: u32, b: u32) -> u32 {
        let (a, b) = (self.find(a), self.find(b));
        let (low, high) = (a.min(b), a.max(b));
        self.parent[high as usize] = low;
        low
    }
}

/// First pass: provisional labels and equivalences; second pass: final
/// canonical labels and, when asked, the features.
fn label_and_measure(
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
    measure: bool,
) -> (Vec<u32>, Vec<ComponentStats>) {
    let (width, height) = (image.width(), image.height());
    // Provisional label 0 stands for background.
    let mut table = Equivalences { parent: vec![0] };
    let mut labels = vec![0u32; width * height];
    let eight = connectivity == Connectivity::Eight;

    for y in 0..height {
        let row = image.row(y);
        for x in 0..width {
            if row[x] == 0 {
                continue;
            }
            let above = |dx: isize| -> u32 {
                let nx = x as isize + dx;
                if y == 0 || nx < 0 || nx >= width as isize {
                    0
                } else {
                    labels[(y - 1) * width + nx as usize]
                }
            };
            let mut neighbours = [0u32; 4];
            neighbours[0] = if x > 0 { labels[y * width + x - 1] } else { 0 };
            neighbours[1] = above(0);
            if eight {
                neighbours[2] = above(-1);
                neighbours[3] = above(1);
            }
            let mut label = 0;
            for n in neighbours.into_iter().filter(|&n| n != 0) {
                label = if label == 0 { n } else { table.union(label, n) };
            }
            if label == 0 {
                label = table.new_label();
            }
            labels[y * width + x] = label;
        }
    }

    // Roots are the first label of their class, so numbering roots in order
    // of first appearance yields canonical labels.
    let mut final_label = vec![0u32; table.parent.len()];
    let mut count = 0u32;
    let mut stats = Vec::new();
    for (i, label) in labels.iter_mut().enumerate() {
        if *label == 0 {
            continue;
        }
        let root = table.find(*label) as usize;
        if final_label[root] == 0 {
            count += 1;
            final_label[root] = count;
            if measure {
                stats.push(ComponentStats::default());
            }
        }
        *label = final_label[root];
        if measure {
            let (x, y) = ((i % width) as u32, (i / width) as u32);
            stats[*label as usize - 1].merge(&ComponentStats::pixel(x, y));
        }
    }
    (labels, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(pixels: &[u8], width: usize, connectivity: Connectivity) -> Vec<u32> {
        let image = BinaryImage::new(pixels, width, pixels.len() / width.max(1)).unwrap();
        UnionFind.label(&image, connectivity).unwrap().into_labels()
    }

    #[test]
    fn u_shape_merges_late() {
        #[rustfmt::skip]
        let pixels = [
            1, 0, 1,
            1, 0, 1,
            1, 1, 1,
        ];
        assert_eq!(
            label(&pixels, 3, Connectivity::Four),
            [1, 0, 1, 1, 0, 1, 1, 1, 1]
        );
    }

    #[test]
    fn diagonals_join_only_with_eight() {
        #[rustfmt::skip]
        let pixels = [
            1, 0, 1,
            0, 1, 0,
        ];
        assert_eq!(label(&pixels, 3, Connectivity::Four), [1, 0, 2, 0, 3, 0]);
        assert_eq!(label(&pixels, 3, Connectivity::Eight), [1, 0, 1, 0, 1, 0]);
    }

    #[test]
    fn empty_images() {
        for (w, h) in [(0, 0), (0, 3), (3, 0)] {
            let image = BinaryImage::new(&[], w, h).unwrap();
            assert!(
                UnionFind
                    .label(&image, Connectivity::Four)
                    .unwrap()
                    .labels()
                    .is_empty()
            );
            assert!(
                UnionFind
                    .analyze(&image, Connectivity::Eight)
                    .unwrap()
                    .is_empty()
            );
        }
    }

    #[test]
    fn volumes_join_across_slices_by_connectivity() {
        // A = (0, 0, 0) and C = (2, 1, 0) in slice 0, B = (1, 0, 1) in slice
        // 1: A and B share an edge, B and C a corner.
        #[rustfmt::skip]
        let voxels = [
            1, 0, 0,  0, 0, 1,
            0, 1, 0,  0, 0, 0,
        ];
        let volume = BinaryVolume::new(&voxels, 3, 2, 2).unwrap();
        let count = |c| {
            UnionFind
                .label_volume(&volume, c)
                .unwrap()
                .component_count()
        };
        assert_eq!(count(Connectivity::Six), 3);
        assert_eq!(count(Connectivity::Eighteen), 2);
        assert_eq!(count(Connectivity::TwentySix), 1);
        let labels = UnionFind
            .label_volume(&volume, Connectivity::Eighteen)
            .unwrap();
        assert_eq!(labels.labels(), &[1, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0]);
        let stats = UnionFind
            .analyze_volume(&volume, Connectivity::Eighteen)
            .unwrap();
        assert_eq!(stats, VolumeStats::from_labels(&labels));
        assert_eq!((stats[0].area, stats[0].z_max, stats[0].sum_x), (2, 1, 1));
    }

    #[test]
    fn a_connectivity_of_the_other_dimension_is_refused() {
        let image = BinaryImage::new(&[1], 1, 1).unwrap();
        assert!(UnionFind.label(&image, Connectivity::Six).is_err());
        let volume = BinaryVolume::new(&[1], 1, 1, 1).unwrap();
        assert!(UnionFind.label_volume(&volume, Connectivity::Four).is_err());
    }

    #[test]
    fn analysis_matches_features_of_labels() {
        #[rustfmt::skip]
        let pixels = [
            0, 1, 1, 0, 1,
            1, 1, 0, 0, 1,
            0, 0, 1, 0, 0,
        ];
        let image = BinaryImage::new(&pixels, 5, 3).unwrap();
        for c in Connectivity::PLANE {
            let labels = UnionFind.label(&image, c).unwrap();
            assert_eq!(
                UnionFind.analyze(&image, c).unwrap(),
                ComponentStats::from_labels(&labels)
            );
        }
    }
}
