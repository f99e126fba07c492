//! The GPU's class maps (`ccl_cuda::backend::ClassLabeler`) against the
//! CPU's (`ccl_cpu::label_classes`, itself checked against a flood fill in
//! ccl-cpu's tests): random maps of several classes, maps of long runs and
//! long class borders, every value size, images in 4 and 8, volumes in 6,
//! 18 and 26, sizes on and off the tiles' edges, a large image whose
//! components cross many tiles, and a batch labeled in one launch sequence
//! against each image alone. Runs where a CUDA variant can
//! (`CCL_REQUIRE_GPU=1` makes a missing GPU a failure).

use std::sync::Arc;

use ccl_core::{Backend, ClassMap, ClassValue, Connectivity};
use ccl_cuda::backend::{ClassLabeler, ClassPlugin, ClassShape};
use ccl_cuda::runtime::{DevPtr, default_gpu};
use ccl_cuda_flsl::FlslClasses;
use ccl_testkit::policy::testable_variants;
// Links every variant, so that the registry (`testable_variants`) sees the
// CUDA ones; without it this test would find no GPU and check nothing.
use ccl as _;

/// The labelers on the default GPU, where a CUDA variant runs here: the
/// default one (FLSL's runs, `ccl-cuda-flsl`'s plugin, unless a map's runs
/// are nearly as many as its values), FLSL's runs for every map, and the
/// tiles alone.
fn labelers() -> Vec<ClassLabeler> {
    let runs = testable_variants()
        .into_iter()
        .any(|a| a.backend == Backend::Cuda);
    if !runs {
        return Vec::new();
    }
    let gpu = default_gpu().unwrap();
    let every_map = FlslClasses::with_run_share(&gpu, gpu.default_stream(), 1.0).unwrap();
    vec![
        ClassLabeler::new(&gpu, gpu.default_stream()).unwrap(),
        ClassLabeler::with_plugin(&gpu, gpu.default_stream(), Box::new(every_map)).unwrap(),
        ClassLabeler::tiles(&gpu, gpu.default_stream()).unwrap(),
    ]
}

/// xorshift64*: the maps need no particular generator, only a seeded one.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        (self.next() >> 11) % n
    }
}

/// `count` values in 1..=classes on `density` % of them, 0 elsewhere;
/// `sticky` repeats the previous value along x four times in five.
fn class_values(
    count: usize,
    width: usize,
    classes: u64,
    density: u64,
    sticky: bool,
    seed: u64,
) -> Vec<u64> {
    let mut noise = Noise(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut values = Vec::with_capacity(count);
    for i in 0..count {
        let fresh = if noise.below(100) < density {
            1 + noise.below(classes)
        } else {
            0
        };
        let repeat = sticky && i % width != 0 && noise.below(5) != 0;
        values.push(if repeat { values[i - 1] } else { fresh });
    }
    values
}

/// The GPU's labels and classes of `values` equal the CPU's.
fn check<T: ClassValue>(
    labeler: &mut ClassLabeler,
    values: &[T],
    shape: [usize; 3],
    connectivity: Connectivity,
) {
    let [width, height, depth] = shape;
    let map = ClassMap::new(values, width, height, depth).unwrap();
    let expected = ccl_cpu::label_classes(&map, connectivity).unwrap();
    let got = labeler.label_map(&map, connectivity).unwrap();
    let what = format!(
        "{width}x{height}x{depth} {connectivity}-connectivity, {} components",
        expected.classes.len()
    );
    if let Some(at) = got.labels.first_difference(&expected.labels) {
        panic!("labels differ at {at:?} ({what})");
    }
    assert_eq!(got.classes, expected.classes, "classes ({what})");
}

const IMAGE_SHAPES: [[usize; 3]; 6] = [
    [1, 1, 1],
    [97, 1, 1],
    [1, 70, 1],
    [31, 33, 1],
    [64, 64, 1],
    [203, 157, 1],
];
const VOLUME_SHAPES: [[usize; 3]; 6] = [
    [1, 1, 1],
    [33, 9, 17],
    [32, 8, 8],
    [70, 1, 20],
    [1, 30, 19],
    [45, 21, 13],
];

/// Linking `ccl-cuda-flsl` (as the facade does) plugs FLSL's runs into
/// every `ClassLabeler`; this holds without a GPU.
#[test]
fn flsl_registers_the_image_class_labeler() {
    let plugins = ccl_cuda::inventory::iter::<ClassPlugin>.into_iter().count();
    assert_eq!(plugins, 1);
}

#[test]
fn images_and_volumes_equal_the_cpu() {
    for mut labeler in labelers() {
        images_and_volumes_equal_the_cpu_with(&mut labeler);
    }
}

fn images_and_volumes_equal_the_cpu_with(labeler: &mut ClassLabeler) {
    let mut seed = 1;
    for (shapes, connectivities) in [
        (&IMAGE_SHAPES, &Connectivity::PLANE[..]),
        (&VOLUME_SHAPES, &Connectivity::VOLUME[..]),
    ] {
        for &shape in shapes {
            for &connectivity in connectivities {
                for (classes, density, sticky) in
                    [(1, 60, false), (4, 50, false), (3, 90, true), (5, 30, true)]
                {
                    seed += 1;
                    let count = shape.iter().product();
                    let values = class_values(count, shape[0], classes, density, sticky, seed);
                    let bytes: Vec<u8> = values.iter().map(|&v| v as u8).collect();
                    check(labeler, &bytes, shape, connectivity);
                    let wide: Vec<u16> = values.iter().map(|&v| (v * 1000) as u16).collect();
                    check(labeler, &wide, shape, connectivity);
                    let signed: Vec<i32> = values.iter().map(|&v| 2 - v as i32).collect();
                    check(labeler, &signed, shape, connectivity);
                    let long: Vec<u64> = values.iter().map(|&v| v << 40).collect();
                    check(labeler, &long, shape, connectivity);
                }
            }
        }
    }
}

/// Runs of one pixel (a value unlike both neighbours' along x, 32 runs a
/// word of the run planes) and diagonal stripes, whose runs touch runs of
/// other values above (and in the slice before) on both sides; rows two a
/// warp (up to 512 pixels) and a warp each.
#[test]
fn alternating_values_equal_the_cpu() {
    for mut labeler in labelers() {
        for [width, height, depth] in [
            [64, 40, 1],
            [65, 33, 1],
            [512, 9, 1],
            [1031, 17, 1],
            [65, 20, 5],
            [512, 9, 3],
            [600, 18, 3],
        ] {
            for (period, step) in [(2u8, 0usize), (3, 1), (2, 1), (5, 2)] {
                let values: Vec<u8> = (0..width * height * depth)
                    .map(|i| {
                        let (x, y, z) = (i % width, i / width % height, i / (width * height));
                        1 + ((x + step * (y + z)) % period as usize) as u8
                    })
                    .collect();
                let connectivities = if depth == 1 {
                    &Connectivity::PLANE[..]
                } else {
                    &Connectivity::VOLUME[..]
                };
                for &connectivity in connectivities {
                    check(&mut labeler, &values, [width, height, depth], connectivity);
                }
            }
        }
    }
}

#[test]
fn large_maps_equal_the_cpu() {
    for mut labeler in labelers() {
        large_maps_equal_the_cpu_with(&mut labeler);
    }
}

fn large_maps_equal_the_cpu_with(labeler: &mut ClassLabeler) {
    for (shape, connectivities) in [
        ([1031, 1024, 1], &Connectivity::PLANE[..]),
        ([130, 120, 70], &Connectivity::VOLUME[..]),
        // Rows of a warp each in FLSL's walk, slices of several bands.
        ([600, 40, 6], &Connectivity::VOLUME[..]),
    ] {
        for &connectivity in connectivities {
            for (classes, density, sticky) in [(4, 70, true), (2, 95, true), (1, 65, false)] {
                let values = class_values(
                    shape.iter().product(),
                    shape[0],
                    classes,
                    density,
                    sticky,
                    77,
                );
                let bytes: Vec<u8> = values.iter().map(|&v| v as u8).collect();
                check(labeler, &bytes, shape, connectivity);
            }
        }
    }
}

#[test]
fn a_batch_equals_each_image_alone() {
    for mut labeler in labelers() {
        // Images of rows two a warp in FLSL's walk, and of a warp a row.
        for (width, height, images) in [(161, 67, 6), (600, 21, 3)] {
            let values = class_values(width * height * images, width, 4, 75, true, 5)
                .into_iter()
                .map(|v| v as u16)
                .collect();
            a_batch_equals_each_image_alone_with(&mut labeler, values, width, height, images);
        }
        // Stripes of three columns, of values 1..=4 in turn, the images'
        // full height: each component crosses every band of rows that a
        // batch's unions join one after another (16 rows), and the last band
        // is short.
        let (width, height, images) = (40, 70, 4);
        let stripes = (0..width * height * images)
            .map(|i| 1 + (i % width / 3 % 4) as u16)
            .collect();
        a_batch_equals_each_image_alone_with(&mut labeler, stripes, width, height, images);
    }
}

fn a_batch_equals_each_image_alone_with(
    labeler: &mut ClassLabeler,
    values: Vec<u16>,
    width: usize,
    height: usize,
    images: usize,
) {
    let stream = Arc::clone(labeler.stream());
    let device_values = stream.clone_htod(&values).unwrap();
    let mut labels = stream.alloc_zeros::<u32>(values.len()).unwrap();
    let mut counts = stream.alloc_zeros::<u32>(images).unwrap();
    let shape = ClassShape {
        width,
        height,
        depth: images,
    };
    for connectivity in Connectivity::PLANE {
        // SAFETY: the values, labels and counts are this GPU's, of the sizes
        // the shape says, alive until the copies below wait for the stream.
        let total = unsafe {
            labeler
                .label(
                    DevPtr::of(&device_values, &stream).address(),
                    2,
                    shape,
                    connectivity,
                    &mut labels.slice_mut(..),
                    Some(DevPtr::of_mut(&mut counts, &stream).address()),
                )
                .unwrap()
        };
        let mut classes = stream.alloc_zeros::<u16>(total.max(1)).unwrap();
        // SAFETY: `classes` holds `total` values; the map is alive.
        unsafe {
            labeler
                .write_classes(DevPtr::of_mut(&mut classes, &stream).address())
                .unwrap()
        };
        let got_labels = stream.clone_dtoh(&labels).unwrap();
        let got_counts = stream.clone_dtoh(&counts).unwrap();
        let got_classes = stream.clone_dtoh(&classes).unwrap();
        let mut first = 0;
        for (i, image) in values.chunks(width * height).enumerate() {
            let alone = ccl_cpu::label_classes(
                &ClassMap::image(image, width, height).unwrap(),
                connectivity,
            )
            .unwrap();
            let plane = &got_labels[i * width * height..(i + 1) * width * height];
            assert_eq!(plane, alone.labels.labels(), "image {i}, {connectivity}");
            assert_eq!(
                got_counts[i] as usize,
                alone.classes.len(),
                "image {i} count"
            );
            assert_eq!(
                &got_classes[first..first + alone.classes.len()],
                &alone.classes[..],
                "image {i} classes"
            );
            first += alone.classes.len();
        }
        assert_eq!(first, total);
    }
    // A batch needs a place for its counts; a value size must be one there is.
    // SAFETY: as above.
    unsafe {
        let address = DevPtr::of(&device_values, &stream).address();
        assert!(
            labeler
                .label(
                    address,
                    2,
                    shape,
                    Connectivity::Four,
                    &mut labels.slice_mut(..),
                    None
                )
                .is_err()
        );
        assert!(
            labeler
                .label(
                    address,
                    3,
                    shape,
                    Connectivity::Six,
                    &mut labels.slice_mut(..),
                    None
                )
                .is_err()
        );
    }
}

#[test]
fn an_images_connectivity_on_a_volume_is_an_error() {
    for mut labeler in labelers() {
        let values = [1u8; 8];
        let map = ClassMap::new(&values, 2, 2, 2).unwrap();
        assert!(labeler.label_map(&map, Connectivity::Eight).is_err());
    }
}
