//! Labeling in strips against labeling whole: on random, pattern and
//! percolating images and volumes, every connectivity, with strips from one
//! plane to the whole image, on the CPU always and on the GPU where one
//! runs (`CCL_REQUIRE_GPU=1` makes a missing GPU a failure).

use ccl::{
    Backend, BinaryImage, BinaryImageBuf, BinaryVolume, Connectivity, Task, Variant, VolumeStats,
};
use ccl_scale::{
    FeatureColumns, LabelWord, LargeStats, Pixels, Shape, StripLabeler, StripOptions,
    needs_wide_labels,
};
use ccl_testdata::{
    pattern, pattern_kinds, random_image, random_volume, volume_pattern, volume_pattern_kinds,
};
use ccl_testkit::policy::testable_backends;

fn options(backend: Backend, strip_planes: usize) -> StripOptions {
    StripOptions {
        backend,
        max_strip_planes: Some(strip_planes),
        ..StripOptions::default()
    }
}

/// The image's shape, and its pixels as a strip source.
fn image_pixels(image: &BinaryImageBuf) -> (Shape, Pixels<'_>) {
    let view = image.view();
    let shape = Shape::Image {
        width: view.width(),
        height: view.height(),
    };
    (shape, Pixels::new(view.as_bytes(), shape).unwrap())
}

/// The whole image's canonical labels, by the reference.
fn whole_image(image: &BinaryImage<'_>, connectivity: Connectivity) -> Vec<u32> {
    let reference = Variant::named("cpu-uf", Task::Label, connectivity).unwrap();
    reference
        .label(image, connectivity)
        .unwrap()
        .0
        .into_labels()
}

fn whole_volume(volume: &BinaryVolume<'_>, connectivity: Connectivity) -> Vec<u32> {
    let reference = Variant::named("cpu-uf", Task::Label, connectivity).unwrap();
    reference
        .label_volume(volume, connectivity)
        .unwrap()
        .0
        .into_labels()
}

/// Labels `pixels` in strips of `strip_planes` as `L` and checks the labels
/// equal `expected`, naming the case on failure.
fn check<L: LabelWord + Into<u64>>(
    backend: Backend,
    pixels: &Pixels<'_>,
    connectivity: Connectivity,
    strip_planes: usize,
    expected: &[u32],
    case: &str,
) {
    let labeler = StripLabeler::new(options(backend, strip_planes), connectivity).unwrap();
    let mut labels = vec![L::default(); expected.len()];
    let report = labeler
        .label_pixels(pixels, connectivity, &mut labels)
        .unwrap();
    let count = expected.iter().copied().max().unwrap_or(0) as u64;
    assert_eq!(
        report.count, count,
        "{case} {backend:?} strips of {strip_planes}: count"
    );
    assert_eq!(
        report.strips,
        pixels.shape().planes().div_ceil(strip_planes)
    );
    if let Some(at) = labels
        .iter()
        .zip(expected)
        .position(|(&l, &e)| l.into() != e as u64)
    {
        panic!(
            "{case} {backend:?} {connectivity} strips of {strip_planes}: label {} at pixel {at}, expected {}",
            labels[at].into(),
            expected[at]
        );
    }
}

#[test]
fn images_in_strips_equal_the_whole_image() {
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        for (density, granularity) in [(30, 1), (59, 1), (60, 4), (90, 1), (100, 1), (0, 1)] {
            let image = random_image(97, 61, density, granularity, 7).unwrap();
            let (_, pixels) = image_pixels(&image);
            for connectivity in Connectivity::PLANE {
                let expected = whole_image(&image.view(), connectivity);
                for strip_planes in [1, 2, 3, 7, 60, 61] {
                    let case = format!("random d{density} g{granularity}");
                    check::<u64>(
                        backend,
                        &pixels,
                        connectivity,
                        strip_planes,
                        &expected,
                        &case,
                    );
                    check::<u32>(
                        backend,
                        &pixels,
                        connectivity,
                        strip_planes,
                        &expected,
                        &case,
                    );
                }
            }
        }
    }
}

#[test]
fn patterns_in_strips_equal_the_whole_image() {
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        for &kind in pattern_kinds() {
            let image = pattern(kind, 67, 45).unwrap();
            let shape = Shape::Image {
                width: 67,
                height: 45,
            };
            let pixels = Pixels::new(image.view().as_bytes(), shape).unwrap();
            for connectivity in Connectivity::PLANE {
                let expected = whole_image(&image.view(), connectivity);
                for strip_planes in [1, 4, 16] {
                    check::<u64>(
                        backend,
                        &pixels,
                        connectivity,
                        strip_planes,
                        &expected,
                        kind,
                    );
                }
            }
        }
    }
}

#[test]
fn volumes_in_slabs_equal_the_whole_volume() {
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        let mut volumes: Vec<(String, ccl::BinaryVolumeBuf)> = [(20, 1), (35, 1), (60, 2)]
            .iter()
            .map(|&(d, g)| {
                (
                    format!("random d{d} g{g}"),
                    random_volume(23, 19, 17, d, g, 3).unwrap(),
                )
            })
            .collect();
        for &kind in volume_pattern_kinds() {
            volumes.push((kind.to_string(), volume_pattern(kind, 16, 12, 14).unwrap()));
        }
        for (case, volume) in &volumes {
            let view = volume.view();
            let shape = Shape::Volume {
                width: view.width(),
                height: view.height(),
                depth: view.depth(),
            };
            let pixels = Pixels::new(volume.view().as_bytes(), shape).unwrap();
            for connectivity in Connectivity::VOLUME {
                let expected = whole_volume(&view, connectivity);
                for strip_planes in [1, 2, 5, view.depth()] {
                    check::<u64>(
                        backend,
                        &pixels,
                        connectivity,
                        strip_planes,
                        &expected,
                        case,
                    );
                }
            }
        }
    }
}

#[test]
fn features_merged_across_strips_equal_the_whole_analysis() {
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        let image = random_image(83, 57, 62, 1, 11).unwrap();
        let (shape, pixels) = image_pixels(&image);
        for connectivity in Connectivity::PLANE {
            let reference = Variant::named("cpu-uf", Task::Analyze, connectivity).unwrap();
            let expected = reference.analyze(&image.view(), connectivity).unwrap();
            for strip_planes in [1, 5, 57] {
                let labeler =
                    StripLabeler::new(options(backend, strip_planes), connectivity).unwrap();
                let large = labeler.analyze(shape, connectivity, &pixels).unwrap();
                let merged: Vec<_> = large
                    .iter()
                    .map(|s| s.to_component_stats().unwrap())
                    .collect();
                assert_eq!(
                    merged, expected,
                    "{backend:?} {connectivity} strips of {strip_planes}"
                );
                let columns = labeler
                    .analyze_columns(shape, connectivity, &pixels, 2, |area| area)
                    .unwrap();
                assert_eq!(
                    columns,
                    FeatureColumns::of_stats(&large, 2, |area| area),
                    "{backend:?} {connectivity} strips of {strip_planes}, columns"
                );
            }
        }
        let volume = random_volume(21, 18, 15, 33, 1, 5).unwrap();
        let view = volume.view();
        let shape = Shape::Volume {
            width: 21,
            height: 18,
            depth: 15,
        };
        let pixels = Pixels::new(volume.view().as_bytes(), shape).unwrap();
        for connectivity in Connectivity::VOLUME {
            let reference = Variant::named("cpu-uf", Task::Analyze, connectivity).unwrap();
            let expected = reference.analyze_volume(&view, connectivity).unwrap();
            for strip_planes in [1, 4] {
                let labeler =
                    StripLabeler::new(options(backend, strip_planes), connectivity).unwrap();
                let large = labeler.analyze(shape, connectivity, &pixels).unwrap();
                let merged: Vec<VolumeStats> =
                    large.iter().map(|s| s.to_volume_stats().unwrap()).collect();
                assert_eq!(
                    merged, expected,
                    "{backend:?} {connectivity} slabs of {strip_planes}"
                );
                let columns = labeler
                    .analyze_columns(shape, connectivity, &pixels, 3, |area| area)
                    .unwrap();
                assert_eq!(
                    columns,
                    FeatureColumns::of_stats(&large, 3, |area| area),
                    "{backend:?} {connectivity} slabs of {strip_planes}, columns"
                );
            }
        }
    }
}

/// Features kept on the GPUs until the merge (`analyze_columns`), some
/// strips' or all or none, as the room beside the workers allows: the same
/// columns as the whole input's analysis. Two devices (GPU 0 named twice
/// where the host has one) of two workers each; the room is what the cap
/// leaves beside the workers' strips (25 bytes a pixel each).
#[test]
fn features_kept_on_the_gpus_in_any_room_equal_the_whole_analysis() {
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        let capped = |strip_pixels: usize, room: u64, strip_planes: usize| StripOptions {
            backend,
            devices: vec![0, 0],
            workers_per_device: 2,
            max_memory: Some(2 * strip_pixels as u64 * 25 + room),
            max_strip_planes: Some(strip_planes),
            ..StripOptions::default()
        };
        let image = random_image(300, 240, 50, 1, 3).unwrap();
        let (shape, pixels) = image_pixels(&image);
        for connectivity in Connectivity::PLANE {
            let reference = Variant::named("cpu-uf", Task::Analyze, connectivity).unwrap();
            let expected: Vec<LargeStats> = reference
                .analyze(&image.view(), connectivity)
                .unwrap()
                .iter()
                .map(LargeStats::from)
                .collect();
            // About 40 bytes of features a component, some thousands of them.
            for room in [0, 30_000, 90_000, 1 << 30] {
                let options = capped(16 * 300, room, 16);
                let labeler = StripLabeler::new(options, connectivity).unwrap();
                for axes in [2, 3] {
                    let columns = labeler
                        .analyze_columns(shape, connectivity, &pixels, axes, |area| area as u32)
                        .unwrap();
                    assert_eq!(
                        columns,
                        FeatureColumns::of_stats(&expected, axes, |area| area as u32),
                        "{backend:?} {connectivity}, room {room}, {axes} axes"
                    );
                }
            }
        }
        let volume = random_volume(40, 30, 24, 40, 1, 9).unwrap();
        let shape = Shape::Volume {
            width: 40,
            height: 30,
            depth: 24,
        };
        let pixels = Pixels::new(volume.view().as_bytes(), shape).unwrap();
        for connectivity in Connectivity::VOLUME {
            let reference = Variant::named("cpu-uf", Task::Analyze, connectivity).unwrap();
            let expected: Vec<LargeStats> = reference
                .analyze_volume(&volume.view(), connectivity)
                .unwrap()
                .iter()
                .map(LargeStats::from)
                .collect();
            for room in [0, 20_000, 60_000, 1 << 30] {
                let options = capped(3 * 40 * 30, room, 3);
                let labeler = StripLabeler::new(options, connectivity).unwrap();
                let columns = labeler
                    .analyze_columns(shape, connectivity, &pixels, 3, |area| area)
                    .unwrap();
                assert_eq!(
                    columns,
                    FeatureColumns::of_stats(&expected, 3, |area| area),
                    "{backend:?} {connectivity}, room {room}"
                );
            }
        }
    }
}

/// Several workers, and on a GPU two devices: GPUs 0 and 1 where the host
/// has two, else GPU 0 named twice (the same multi-GPU path, each device's
/// workers on streams of their own).
#[test]
fn several_workers_and_devices_label_exactly() {
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        let image = random_image(128, 200, 61, 1, 2).unwrap();
        let (_, pixels) = image_pixels(&image);
        let expected = whole_image(&image.view(), Connectivity::Eight);
        let devices = match backend {
            Backend::Cuda if ccl_cuda::runtime::gpu(1).is_ok() => vec![0, 1],
            Backend::Cuda => vec![0, 0],
            Backend::Cpu => Vec::new(),
        };
        for workers_per_device in [1, 2, 3] {
            let options = StripOptions {
                backend,
                devices: devices.clone(),
                workers_per_device,
                max_strip_planes: Some(9),
                ..StripOptions::default()
            };
            let labeler = StripLabeler::new(options, Connectivity::Eight).unwrap();
            let mut labels = vec![0u64; expected.len()];
            let report = labeler
                .label_pixels(&pixels, Connectivity::Eight, &mut labels)
                .unwrap();
            assert_eq!(report.strips, 23);
            assert!(labels.iter().zip(&expected).all(|(&l, &e)| l == e as u64));
        }
    }
}

/// Where the memory beside the workers' own holds some strips' labels,
/// those strips are renumbered from the labels kept in the first pass and
/// the others labeled again: both in one call, on every backend, with one
/// to three workers a device, calls after calls.
#[test]
fn kept_and_relabeled_strips_label_exactly() {
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        let image = random_image(100, 40, 61, 1, 3).unwrap();
        let (_, pixels) = image_pixels(&image);
        let expected = whole_image(&image.view(), Connectivity::Eight);
        // On a GPU, one device, and GPU 0 named twice: each device has its
        // own room, so how many strips are kept there depends on how many
        // its workers took.
        let device_sets = match backend {
            Backend::Cuda => vec![vec![0], vec![0, 0]],
            Backend::Cpu => vec![Vec::new()],
        };
        for devices in device_sets {
            let groups = devices.len().max(1);
            for workers_per_device in [1, 2, 3] {
                // Strips of 4 rows of 100 pixels at 25 + 8 bytes each: 13200
                // bytes a worker; each strip's first labels take 1600 more.
                let workers_bytes = workers_per_device as u64 * 13200;
                for room_for in [0, 3, 99] {
                    let options = StripOptions {
                        backend,
                        devices: devices.clone(),
                        workers_per_device,
                        max_memory: Some(workers_bytes + room_for * 1600 + 100),
                        max_strip_planes: Some(4),
                        ..StripOptions::default()
                    };
                    let labeler = StripLabeler::new(options, Connectivity::Eight).unwrap();
                    // Each device keeps up to its room of the strips it scans.
                    let room = room_for as usize;
                    let kept_range = room.min(10)..=(room * groups).min(10);
                    for call in 0..2 {
                        let mut labels = vec![0u64; expected.len()];
                        let report = labeler
                            .label_pixels(&pixels, Connectivity::Eight, &mut labels)
                            .unwrap();
                        let case = format!(
                            "{backend:?} on {devices:?}, {workers_per_device} workers a device, room for {room_for}, call {call}"
                        );
                        assert_eq!(report.strips, 10, "{case}");
                        assert!(
                            kept_range.contains(&report.kept),
                            "{case}: {} kept",
                            report.kept
                        );
                        assert!(
                            labels.iter().zip(&expected).all(|(&l, &e)| l == e as u64),
                            "{case}"
                        );
                    }
                }
            }
        }
        // A count or an analysis keeps nothing: it has no second pass.
        let options = StripOptions {
            backend,
            max_strip_planes: Some(4),
            max_memory: Some(1 << 30),
            ..StripOptions::default()
        };
        let labeler = StripLabeler::new(options, Connectivity::Eight).unwrap();
        let shape = pixels.shape();
        assert_eq!(
            labeler
                .count(shape, Connectivity::Eight, &pixels)
                .unwrap()
                .kept,
            0
        );
    }
}

/// One labeler (default memory: on a GPU, every strip kept) over images of
/// other sizes in turn, smaller and larger than the last: a GPU worker's
/// label buffers, kept for the next call, are reused where large enough
/// and grown where not, and every call's labels are exact.
#[test]
fn calls_of_other_sizes_reuse_the_kept_buffers_exactly() {
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        let options = StripOptions {
            backend,
            devices: if backend == Backend::Cuda {
                vec![0, 0]
            } else {
                Vec::new()
            },
            workers_per_device: 2,
            max_strip_planes: Some(6),
            ..StripOptions::default()
        };
        let labeler = StripLabeler::new(options, Connectivity::Four).unwrap();
        for (call, &(width, height, density)) in [
            (64, 40, 45),
            (200, 90, 60),
            (30, 20, 30),
            (200, 90, 55),
            (120, 61, 50),
        ]
        .iter()
        .enumerate()
        {
            let image = random_image(width, height, density, 1, call as u32 + 11).unwrap();
            let (_, pixels) = image_pixels(&image);
            let expected = whole_image(&image.view(), Connectivity::Four);
            let mut labels = vec![0u32; expected.len()];
            let report = labeler
                .label_pixels(&pixels, Connectivity::Four, &mut labels)
                .unwrap();
            let case = format!("{backend:?}, call {call}, {width}x{height}");
            assert_eq!(report.strips, height.div_ceil(6), "{case}");
            if backend == Backend::Cuda {
                assert_eq!(report.kept, report.strips, "{case}: every strip kept");
            }
            assert_eq!(labels, expected, "{case}");
        }
    }
}

#[test]
fn a_memory_cap_sets_the_strips() {
    let image = random_image(100, 40, 50, 1, 1).unwrap();
    let (_, pixels) = image_pixels(&image);
    let expected = whole_image(&image.view(), Connectivity::Four);
    let capped = |max_memory| StripOptions {
        backend: Backend::Cpu,
        workers_per_device: 1,
        max_memory: Some(max_memory),
        ..StripOptions::default()
    };
    // 100 pixels a row at 25 + 8 bytes each: 3300 bytes a row.
    let labeler = StripLabeler::new(capped(10 * 3300), Connectivity::Four).unwrap();
    let mut labels = vec![0u64; 4000];
    let report = labeler
        .label_pixels(&pixels, Connectivity::Four, &mut labels)
        .unwrap();
    assert_eq!((report.strip_planes, report.strips), (10, 4));
    assert!(labels.iter().zip(&expected).all(|(&l, &e)| l == e as u64));
    // Less than one row is refused, with the reason.
    let labeler = StripLabeler::new(capped(3000), Connectivity::Four).unwrap();
    let error = labeler
        .label_pixels(&pixels, Connectivity::Four, &mut labels)
        .unwrap_err();
    assert!(error.to_string().contains("memory cap"), "{error}");
}

#[test]
fn bad_calls_are_refused() {
    let image = random_image(10, 10, 50, 1, 1).unwrap();
    let (_, pixels) = image_pixels(&image);
    let cpu = |workers_per_device| StripOptions {
        backend: Backend::Cpu,
        workers_per_device,
        ..StripOptions::default()
    };
    assert!(StripLabeler::new(cpu(0), Connectivity::Four).is_err());
    let labeler = StripLabeler::new(cpu(1), Connectivity::Four).unwrap();
    // A label buffer of another size.
    assert!(
        labeler
            .label_pixels(&pixels, Connectivity::Four, &mut vec![0u32; 99])
            .is_err()
    );
    // A volume's connectivity for an image.
    assert!(
        labeler
            .label_pixels(&pixels, Connectivity::Six, &mut vec![0u32; 100])
            .is_err()
    );
    // A CUDA variant named for the CPU backend.
    let named = StripOptions {
        variant: Some("flsl-cd".into()),
        ..cpu(1)
    };
    assert!(StripLabeler::new(named, Connectivity::Four).is_err());
    // A shape without pixels has no components and no strips.
    let empty = Pixels::new(
        &[],
        Shape::Image {
            width: 0,
            height: 5,
        },
    )
    .unwrap();
    let report = labeler
        .label_pixels(&empty, Connectivity::Four, &mut Vec::<u64>::new())
        .unwrap();
    assert_eq!((report.count, report.strips), (0, 0));
    // Wide labels only past 2^32 - 2 pixels.
    assert!(!needs_wide_labels(Shape::Image {
        width: 65_535,
        height: 65_536
    }));
    assert!(needs_wide_labels(Shape::Image {
        width: 65_536,
        height: 65_536
    }));
}

/// Large strips (98 and 196 MB of labels), the last one short.
#[test]
fn large_strips_equal_the_whole_image() {
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        let (width, height) = (8192, 3000);
        let image = random_image(width, height, 60, 1, 21).unwrap();
        let (_, pixels) = image_pixels(&image);
        let expected = whole_image(&image.view(), Connectivity::Four);
        check::<u64>(
            backend,
            &pixels,
            Connectivity::Four,
            1500,
            &expected,
            "8192x3000",
        );
        check::<u32>(
            backend,
            &pixels,
            Connectivity::Four,
            2999,
            &expected,
            "8192x3000",
        );
    }
}

/// Strips of hundreds of thousands of components: a GPU worker brings
/// their features down through its staging in several chunks (8 MiB of
/// 40-byte image or 56-byte volume records each), the last one short.
#[test]
fn features_of_large_strips_equal_the_whole_analysis() {
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        let image = random_image(8192, 3000, 60, 1, 22).unwrap();
        let (shape, pixels) = image_pixels(&image);
        let connectivity = Connectivity::Four;
        let reference = Variant::named("cpu-rle", Task::Analyze, connectivity).unwrap();
        let expected = reference.analyze(&image.view(), connectivity).unwrap();
        let labeler = StripLabeler::new(options(backend, 1500), connectivity).unwrap();
        let large = labeler.analyze(shape, connectivity, &pixels).unwrap();
        assert!(large.len() > 500_000, "{} components", large.len());
        let merged: Vec<_> = large
            .iter()
            .map(|s| s.to_component_stats().unwrap())
            .collect();
        assert!(merged == expected, "{backend:?} image features");
        let columns = labeler
            .analyze_columns(shape, connectivity, &pixels, 2, |area| area)
            .unwrap();
        assert!(
            columns == FeatureColumns::of_stats(&large, 2, |area| area),
            "{backend:?} image columns"
        );

        let volume = random_volume(256, 256, 200, 31, 1, 23).unwrap();
        let view = volume.view();
        let shape = Shape::Volume {
            width: 256,
            height: 256,
            depth: 200,
        };
        let pixels = Pixels::new(view.as_bytes(), shape).unwrap();
        let connectivity = Connectivity::Six;
        let reference = Variant::named("cpu-rle", Task::Analyze, connectivity).unwrap();
        let expected = reference.analyze_volume(&view, connectivity).unwrap();
        let labeler = StripLabeler::new(options(backend, 100), connectivity).unwrap();
        let merged: Vec<VolumeStats> = labeler
            .analyze(shape, connectivity, &pixels)
            .unwrap()
            .iter()
            .map(|s| s.to_volume_stats().unwrap())
            .collect();
        assert!(merged.len() > 500_000, "{} components", merged.len());
        assert!(merged == expected, "{backend:?} volume features");
    }
}

/// Labels written into page-locked memory: a GPU worker copies them there
/// itself, without staging (checked on the GPU only; elsewhere there is no
/// pinned memory).
#[test]
fn pinned_memory_is_copied_to_and_from_directly() {
    if !testable_backends(ccl_cuda::runtime::probe()).contains(&Backend::Cuda) {
        return;
    }
    let gpu = ccl_cuda::runtime::default_gpu().unwrap();
    let image = random_image(1000, 700, 62, 1, 5).unwrap();
    let (shape, pixels) = image_pixels(&image);
    let expected = whole_image(&image.view(), Connectivity::Eight);
    // SAFETY: every label is written by the labeler before it is read.
    let mut pinned = unsafe { gpu.context().alloc_pinned_with_flags::<u64>(700_000, 0) }.unwrap();
    let labels = pinned.as_mut_slice().unwrap();
    labels.fill(u64::MAX);
    let labeler = StripLabeler::new(options(Backend::Cuda, 64), Connectivity::Eight).unwrap();
    let report = labeler
        .label_pixels(&pixels, Connectivity::Eight, labels)
        .unwrap();
    assert_eq!((report.strips, shape.planes()), (11, 700));
    assert!(labels.iter().zip(&expected).all(|(&l, &e)| l == e as u64));

    // Pinned pixels too: each strip is uploaded from them, not staged.
    // SAFETY: every byte is written below before the labeler reads it.
    let mut pinned_pixels =
        unsafe { gpu.context().alloc_pinned_with_flags::<u8>(700_000, 0) }.unwrap();
    let bytes = pinned_pixels.as_mut_slice().unwrap();
    bytes.copy_from_slice(image.view().as_bytes());
    let pixels = Pixels::new(bytes, shape).unwrap();
    labels.fill(u64::MAX);
    labeler
        .label_pixels(&pixels, Connectivity::Eight, labels)
        .unwrap();
    assert!(labels.iter().zip(&expected).all(|(&l, &e)| l == e as u64));
}
