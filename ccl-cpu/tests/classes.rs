//! `label_classes` against the simplest labeling there is: a flood fill over
//! voxels, each voxel's neighbours listed as explicit offsets, components
//! numbered in raster order of their first voxel. Nothing in it is shared
//! with the run-based code it checks.

use std::collections::VecDeque;

use ccl_core::{
    BinaryImage, BinaryVolume, ClassLabels, ClassMap, ClassValue, Connectivity, Error, Labeler,
};
use ccl_cpu::{UnionFind, label_classes, label_classes_into};

/// xorshift64*: enough randomness for test maps, reproducible from a seed,
/// and no dependency for it.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0), near enough for tests.
    fn below(&mut self, n: usize) -> usize {
        (self.next() >> 33) as usize % n
    }

    /// True with `percent` % probability.
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// The neighbour offsets `(dx, dy, dz)` of each connectivity, spelled out
/// from their definitions: 4 and 8 in the plane; 6 the faces (one nonzero
/// coordinate), 18 faces and edges (at most two), 26 all.
fn offsets(connectivity: Connectivity) -> Vec<(isize, isize, isize)> {
    let mut all = Vec::new();
    for dz in -1..=1isize {
        for dy in -1..=1isize {
            for dx in -1..=1isize {
                if (dx, dy, dz) != (0, 0, 0) {
                    all.push((dx, dy, dz));
                }
            }
        }
    }
    let nonzero =
        |&(dx, dy, dz): &(isize, isize, isize)| [dx, dy, dz].iter().filter(|&&d| d != 0).count();
    let kept: Vec<_> = match connectivity {
        Connectivity::Four => vec![(-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0)],
        Connectivity::Eight => all.iter().copied().filter(|o| o.2 == 0).collect(),
        Connectivity::Six => all.iter().copied().filter(|o| nonzero(o) == 1).collect(),
        Connectivity::Eighteen => all.iter().copied().filter(|o| nonzero(o) <= 2).collect(),
        Connectivity::TwentySix => all,
    };
    assert_eq!(kept.len() as u32, connectivity.neighbours());
    kept
}

/// Flood fill: every unlabeled nonzero voxel met in raster order starts a
/// new component and floods the voxels of its value reachable through the
/// connectivity's offsets.
fn reference<T: ClassValue>(
    values: &[T],
    (width, height, depth): (usize, usize, usize),
    connectivity: Connectivity,
) -> (Vec<u32>, Vec<T>) {
    let offsets = offsets(connectivity);
    let index = |x: usize, y: usize, z: usize| (z * height + y) * width + x;
    let mut labels = vec![0u32; values.len()];
    let mut classes = Vec::new();
    let mut queue = VecDeque::new();
    for z in 0..depth {
        for y in 0..height {
            for x in 0..width {
                let value = values[index(x, y, z)];
                if value == T::BACKGROUND || labels[index(x, y, z)] != 0 {
                    continue;
                }
                classes.push(value);
                let label = classes.len() as u32;
                labels[index(x, y, z)] = label;
                queue.push_back((x, y, z));
                while let Some((x, y, z)) = queue.pop_front() {
                    for &(dx, dy, dz) in &offsets {
                        let (nx, ny, nz) = (x as isize + dx, y as isize + dy, z as isize + dz);
                        if nx < 0
                            || ny < 0
                            || nz < 0
                            || nx >= width as isize
                            || ny >= height as isize
                            || nz >= depth as isize
                        {
                            continue;
                        }
                        let n = index(nx as usize, ny as usize, nz as usize);
                        if values[n] == value && labels[n] == 0 {
                            labels[n] = label;
                            queue.push_back((nx as usize, ny as usize, nz as usize));
                        }
                    }
                }
            }
        }
    }
    (labels, classes)
}

/// A random map: `density` % of the voxels nonzero, of `classes` values
/// drawn from `palette`. With `sticky`, a voxel copies its left or upper
/// neighbour half of the time, so that runs are long and blobs of
/// different classes touch along long borders.
fn random_map<T: ClassValue>(
    rng: &mut Rng,
    (width, height, depth): (usize, usize, usize),
    palette: &[T],
    density: usize,
    sticky: bool,
) -> Vec<T> {
    let mut values = vec![T::BACKGROUND; width * height * depth];
    for z in 0..depth {
        for y in 0..height {
            for x in 0..width {
                let i = (z * height + y) * width + x;
                values[i] = if sticky && x > 0 && rng.chance(50) {
                    values[i - 1]
                } else if sticky && y > 0 && rng.chance(40) {
                    values[i - width]
                } else if rng.chance(density) {
                    palette[rng.below(palette.len())]
                } else {
                    T::BACKGROUND
                };
            }
        }
    }
    values
}

/// Labels `values` and compares labels and classes with the reference.
fn check<T: ClassValue>(
    values: &[T],
    shape: (usize, usize, usize),
    connectivity: Connectivity,
    what: &str,
) -> ClassLabels<T> {
    let (width, height, depth) = shape;
    let map = ClassMap::new(values, width, height, depth).unwrap();
    let got = label_classes(&map, connectivity).unwrap();
    let (labels, classes) = reference(values, shape, connectivity);
    assert_eq!(
        (got.labels.width(), got.labels.height(), got.labels.depth()),
        shape,
        "{what}"
    );
    if got.labels.labels() != labels.as_slice() {
        let i = got
            .labels
            .labels()
            .iter()
            .zip(&labels)
            .position(|(a, b)| a != b)
            .unwrap();
        let (x, y, z) = (i % width, i / width % height, i / width / height);
        panic!(
            "{what}: labels differ first at ({x}, {y}, {z}): {} != {}\nvalues: {values:?}",
            got.labels.labels()[i],
            labels[i]
        );
    }
    assert_eq!(got.classes, classes, "{what}");
    got
}

/// 1..=5 classes taken from `palette`, densities 10-90 %, plain and sticky.
fn sweep<T: ClassValue>(
    seed: u64,
    palette: &[T],
    shapes: &[(usize, usize, usize)],
    connectivities: &[Connectivity],
) {
    let mut rng = Rng::new(seed);
    for &shape in shapes {
        for classes in 1..=5.min(palette.len()) {
            for density in [10, 30, 50, 70, 90] {
                for sticky in [false, true] {
                    let values = random_map(&mut rng, shape, &palette[..classes], density, sticky);
                    for &c in connectivities {
                        let what = format!(
                            "{}: {shape:?}, {c}-connectivity, {classes} classes, {density} %, sticky {sticky}",
                            std::any::type_name::<T>()
                        );
                        check(&values, shape, c, &what);
                    }
                }
            }
        }
    }
}

const IMAGE_SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (1, 9, 1),
    (9, 1, 1),
    (2, 2, 1),
    (7, 5, 1),
    (13, 9, 1),
    (31, 17, 1),
    (64, 3, 1),
    (65, 40, 1),
];

const VOLUME_SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (1, 1, 7),
    (1, 6, 5),
    (6, 1, 5),
    (3, 3, 3),
    (5, 4, 6),
    (9, 7, 8),
    (17, 13, 11),
];

const ALL: [Connectivity; 5] = [
    Connectivity::Four,
    Connectivity::Eight,
    Connectivity::Six,
    Connectivity::Eighteen,
    Connectivity::TwentySix,
];

#[test]
fn random_images_match_the_flood_fill() {
    // 6, 18 and 26 on images (depth 1) act as 4, 8 and 8.
    sweep::<u8>(1, &[1, 2, 255, 3, 4], IMAGE_SHAPES, &ALL);
    sweep::<u16>(2, &[7, 65535, 1, 300, 2], IMAGE_SHAPES, &ALL);
    sweep::<i32>(3, &[-1, 1, i32::MIN, i32::MAX, -7], IMAGE_SHAPES, &ALL);
    sweep::<i64>(4, &[-5, i64::MIN, 5, -1, i64::MAX], IMAGE_SHAPES, &ALL);
}

#[test]
fn random_volumes_match_the_flood_fill() {
    sweep::<u8>(5, &[1, 2, 3, 4, 5], VOLUME_SHAPES, &Connectivity::VOLUME);
    sweep::<u16>(
        6,
        &[9, 1, 65535, 2, 3],
        VOLUME_SHAPES,
        &Connectivity::VOLUME,
    );
    sweep::<i32>(
        7,
        &[-2, 2, -1, 1, i32::MIN],
        VOLUME_SHAPES,
        &Connectivity::VOLUME,
    );
    sweep::<i64>(
        8,
        &[i64::MIN, -3, 3, i64::MAX, -1],
        VOLUME_SHAPES,
        &Connectivity::VOLUME,
    );
}

#[test]
fn the_other_value_types_match_the_flood_fill() {
    let shapes = &[(7, 5, 3), (12, 1, 4)];
    sweep::<i8>(9, &[-128, 127, -1, 1, 2], shapes, &Connectivity::VOLUME);
    sweep::<i16>(10, &[-3, 3, i16::MIN, 1, 2], shapes, &Connectivity::VOLUME);
    sweep::<u32>(11, &[u32::MAX, 1, 2, 3, 4], shapes, &Connectivity::VOLUME);
    sweep::<u64>(12, &[u64::MAX, 1, 2, 3, 4], shapes, &Connectivity::VOLUME);
}

#[test]
fn binary_maps_label_as_the_union_find_reference() {
    let mut rng = Rng::new(13);
    for &(width, height, _) in IMAGE_SHAPES {
        for density in [10, 50, 90] {
            let values = random_map::<u8>(&mut rng, (width, height, 1), &[1], density, false);
            let image = BinaryImage::new(&values, width, height).unwrap();
            let map = ClassMap::image(&values, width, height).unwrap();
            for c in Connectivity::PLANE {
                let expected = UnionFind.label(&image, c).unwrap();
                let got = label_classes(&map, c).unwrap();
                assert_eq!(
                    got.labels.labels(),
                    expected.labels(),
                    "{width}x{height} {c}"
                );
                assert_eq!(got.classes, vec![1; expected.component_count()]);
            }
        }
    }
    for &shape @ (width, height, depth) in VOLUME_SHAPES {
        for density in [10, 50, 90] {
            let values = random_map::<u8>(&mut rng, shape, &[1], density, false);
            let volume = BinaryVolume::new(&values, width, height, depth).unwrap();
            let map = ClassMap::new(&values, width, height, depth).unwrap();
            for c in Connectivity::VOLUME {
                let expected = UnionFind.label_volume(&volume, c).unwrap();
                let got = label_classes(&map, c).unwrap();
                assert_eq!(got.labels, expected, "{shape:?} {c}");
                assert_eq!(got.classes, vec![1; expected.component_count()]);
            }
        }
    }
}

#[test]
fn an_images_connectivity_on_a_volume_is_an_error() {
    let values = [1u8; 8];
    let map = ClassMap::new(&values, 2, 2, 2).unwrap();
    for c in Connectivity::PLANE {
        match label_classes(&map, c) {
            Err(Error::InvalidArgument(message)) => {
                assert!(message.contains("depth 2"), "{message}");
                assert!(message.contains("6, 18 or 26"), "{message}");
            }
            other => panic!("{c} on a volume gave {other:?}"),
        }
    }
    // No voxels, but still a volume's shape: refused the same way.
    let empty = ClassMap::<u8>::new(&[], 2, 2, 0).unwrap();
    assert!(label_classes(&empty, Connectivity::Four).is_err());
}

#[test]
fn empty_maps_have_no_components() {
    for (w, h, d) in [(0, 0, 1), (0, 7, 1), (7, 0, 1), (0, 3, 3), (3, 3, 0)] {
        let map = ClassMap::<i32>::new(&[], w, h, d).unwrap();
        for c in ALL {
            if c.dimensions() == 2 && d != 1 {
                continue;
            }
            let got = label_classes(&map, c).unwrap();
            assert_eq!(got.component_count(), 0);
            assert_eq!(
                (got.labels.width(), got.labels.height(), got.labels.depth()),
                (w, h, d)
            );
        }
    }
}

#[test]
fn background_only_maps_have_no_components() {
    let values = [0i64; 60];
    let map = ClassMap::new(&values, 5, 4, 3).unwrap();
    let got = label_classes(&map, Connectivity::TwentySix).unwrap();
    assert_eq!(got.component_count(), 0);
    assert!(got.labels.labels().iter().all(|&l| l == 0));
}

#[test]
fn touching_classes_stay_apart() {
    // A checkerboard of classes 1 and 2: a pixel's diagonal neighbours
    // share its class, its side neighbours do not. With 8 (and 18, 26 on
    // an image) each class is one component; with 4 (and 6) every pixel is
    // its own.
    let (width, height) = (9, 6);
    let values: Vec<u16> = (0..width * height)
        .map(|i| 1 + ((i % width + i / width) % 2) as u16)
        .collect();
    let map = ClassMap::image(&values, width, height).unwrap();
    for c in [
        Connectivity::Eight,
        Connectivity::Eighteen,
        Connectivity::TwentySix,
    ] {
        let got = label_classes(&map, c).unwrap();
        assert_eq!(got.classes, [1, 2], "{c}");
        let expected: Vec<u32> = values.iter().map(|&v| u32::from(v)).collect();
        assert_eq!(got.labels.labels(), expected.as_slice(), "{c}");
    }
    for c in [Connectivity::Four, Connectivity::Six] {
        let got = label_classes(&map, c).unwrap();
        assert_eq!(got.component_count(), width * height, "{c}");
        let expected: Vec<u32> = (1..=(width * height) as u32).collect();
        assert_eq!(got.labels.labels(), expected.as_slice(), "{c}");
        assert_eq!(got.classes, values, "{c}");
    }
}

#[test]
fn a_volume_checkerboard_separates_by_connectivity() {
    // Classes by the parity of x + y + z: neighbours across a face or a
    // corner differ in parity, across an edge they share it. So 18 and 26
    // join each class into one component, 6 joins nothing.
    let (width, height, depth) = (5, 4, 3);
    let values: Vec<u8> = (0..width * height * depth)
        .map(|i| 1 + ((i % width + i / width % height + i / (width * height)) % 2) as u8)
        .collect();
    let map = ClassMap::new(&values, width, height, depth).unwrap();
    for c in [Connectivity::Eighteen, Connectivity::TwentySix] {
        assert_eq!(label_classes(&map, c).unwrap().classes, [1, 2], "{c}");
    }
    let six = label_classes(&map, Connectivity::Six).unwrap();
    assert_eq!(six.component_count(), width * height * depth);
}

#[test]
fn eighteen_joins_edges_but_not_corners() {
    // Two voxels of one class one slice apart: diagonal in x and y (a
    // corner, 26 only), or in x alone (an edge, 18 and 26).
    let shape = (2, 2, 2);
    let corner: [u8; 8] = [4, 0, 0, 0, 0, 0, 0, 4];
    let edge: [u8; 8] = [4, 0, 0, 0, 0, 4, 0, 0];
    let count = |values: &[u8], c| {
        let map = ClassMap::new(values, shape.0, shape.1, shape.2).unwrap();
        label_classes(&map, c).unwrap().component_count()
    };
    assert_eq!(count(&corner, Connectivity::Six), 2);
    assert_eq!(count(&corner, Connectivity::Eighteen), 2);
    assert_eq!(count(&corner, Connectivity::TwentySix), 1);
    assert_eq!(count(&edge, Connectivity::Six), 2);
    assert_eq!(count(&edge, Connectivity::Eighteen), 1);
    assert_eq!(count(&edge, Connectivity::TwentySix), 1);
}

#[test]
fn a_larger_map_matches_the_flood_fill() {
    // Long sticky runs of three classes over many rows: the run joins'
    // pointer and the forest's path halving on more than a toy.
    let mut rng = Rng::new(14);
    let shape = (257, 193, 1);
    let values = random_map::<i32>(&mut rng, shape, &[-1, 2, 3], 60, true);
    for c in ALL {
        check(&values, shape, c, &format!("257x193 {c}"));
    }
    let shape = (61, 47, 29);
    let values = random_map::<u16>(&mut rng, shape, &[1, 2, 3], 60, true);
    for c in Connectivity::VOLUME {
        check(&values, shape, c, &format!("61x47x29 {c}"));
    }
}

#[test]
fn a_million_values_match_the_flood_fill_into_either_buffer() {
    // Maps of a million values and more, labeled into a fresh buffer
    // (background skipped) and into the caller's dirty one (every label
    // written).
    let mut rng = Rng::new(15);
    let shape = (1030, 1030, 1);
    let values = random_map::<u8>(&mut rng, shape, &[1, 2, 3, 4], 45, false);
    let volume_shape = (130, 100, 90);
    let volume = random_map::<u16>(&mut rng, volume_shape, &[1, 2], 40, true);
    for (values, shape, connectivity) in [
        (&values[..], shape, Connectivity::Eight),
        (&values[..], shape, Connectivity::Four),
    ] {
        let what = format!("{shape:?} {connectivity}");
        let expected = check(values, shape, connectivity, &what);
        let map = ClassMap::new(values, shape.0, shape.1, shape.2).unwrap();
        let mut dirty = vec![u32::MAX; values.len()];
        let classes = label_classes_into(&map, connectivity, &mut dirty).unwrap();
        assert_eq!(dirty, expected.labels.labels(), "{what} into");
        assert_eq!(classes, expected.classes, "{what} into");
    }
    let expected = check(&volume, volume_shape, Connectivity::TwentySix, "volume");
    let map = ClassMap::new(&volume, volume_shape.0, volume_shape.1, volume_shape.2).unwrap();
    let mut dirty = vec![7; volume.len()];
    label_classes_into(&map, Connectivity::TwentySix, &mut dirty).unwrap();
    assert_eq!(dirty, expected.labels.labels(), "volume into");
}
