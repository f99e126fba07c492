//! The reference's volumes: the same two passes over voxels, each voxel
//! united with its neighbours that come before it in raster order (z, then
//! y, then x). Nothing here is shared with the fast labelers it checks.

use ccl_core::{BinaryVolume, Connectivity, VolumeStats};

use super::Equivalences;

/// The offsets `(dx, dy, dz)` of the neighbours of a voxel that precede it
/// in raster order, for a volume's `connectivity`: half of the 26
/// surrounding voxels, kept where at most 1 (6), 2 (18) or 3 (26)
/// coordinates differ.
pub(super) fn earlier_neighbours(connectivity: Connectivity) -> Vec<(isize, isize, isize)> {
    let max_differing = match connectivity {
        Connectivity::Six => 1,
        Connectivity::Eighteen => 2,
        _ => 3,
    };
    let mut offsets = Vec::new();
    for dz in -1..=0isize {
        for dy in -1..=1isize {
            for dx in -1..=1isize {
                let earlier = dz < 0 || (dz == 0 && (dy < 0 || (dy == 0 && dx < 0)));
                let differing = [dx, dy, dz].iter().filter(|&&d| d != 0).count();
                if earlier && differing <= max_differing {
                    offsets.push((dx, dy, dz));
                }
            }
        }
    }
    offsets
}

/// First pass: provisional labels and equivalences; second pass: canonical
/// labels (roots are their class's first label in raster order) and, when
/// asked, the features.
pub(super) fn label_and_measure(
    volume: &BinaryVolume<'_>,
    connectivity: Connectivity,
    measure: bool,
) -> (Vec<u32>, Vec<VolumeStats>) {
    let (width, height, depth) = (volume.width(), volume.height(), volume.depth());
    let offsets = earlier_neighbours(connectivity);
    let mut table = Equivalences { parent: vec![0] };
    let mut labels = vec![0u32; volume.voxel_count()];
    let index = |x: usize, y: usize, z: usize| (z * height + y) * width + x;

    for z in 0..depth {
        for y in 0..height {
            let row = volume.row(y, z);
            for x in 0..width {
                if row[x] == 0 {
                    continue;
                }
                let mut label = 0;
                for &(dx, dy, dz) in &offsets {
                    let (nx, ny, nz) = (x as isize + dx, y as isize + dy, z as isize + dz);
                    if nx < 0 || ny < 0 || nz < 0 || nx >= width as isize || ny >= height as isize {
                        continue;
                    }
                    let neighbour = labels[index(nx as usize, ny as usize, nz as usize)];
                    if neighbour != 0 {
                        label = if label == 0 {
                            neighbour
                        } else {
                            table.union(label, neighbour)
                        };
                    }
                }
                if label == 0 {
                    label = table.new_label();
                }
                labels[index(x, y, z)] = label;
            }
        }
    }

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
                stats.push(VolumeStats::default());
            }
        }
        *label = final_label[root];
        if measure {
            let (row, x) = (i / width, (i % width) as u32);
            let (y, z) = ((row % height) as u32, (row / height) as u32);
            stats[*label as usize - 1].merge(&VolumeStats::voxel(x, y, z));
        }
    }
    (labels, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbour_counts_are_half_of_each_connectivity() {
        for c in Connectivity::VOLUME {
            assert_eq!(
                earlier_neighbours(c).len() as u32 * 2,
                c.neighbours(),
                "{c}"
            );
        }
    }
}
