//! The device clean-up (`ccl_cuda::backend::DeviceFilter`) against the host
//! one (`ccl_core::Filter::apply`), the definition: on batches of random
//! images, one large image with many components of equal sizes (the select
//! down to its last byte) and random volumes; labels renumbered in place,
//! masks, the kept counts and the kept components' features. Runs where a
//! CUDA variant can (`CCL_REQUIRE_GPU=1` makes a missing GPU a failure).

use std::sync::Arc;

use ccl_core::{Backend, Connectivity, Filter, LabelVolume, Task, VolumeStats};
use ccl_cuda::backend::{DeviceFilter, FilterOutput, LabelShape};
use ccl_cuda::cudarc::driver::CudaStream;
use ccl_testdata::{random_image, random_volume};
use ccl_testkit::policy::testable_variants;

/// The GPU's default stream, where a CUDA variant runs here.
fn stream() -> Option<Arc<CudaStream>> {
    let runs = testable_variants()
        .into_iter()
        .any(|a| a.backend == Backend::Cuda);
    runs.then(|| ccl_cuda::runtime::default_gpu().unwrap().default_stream())
}

/// The filters every case runs: ranges, the k largest (none, one, some, more
/// than there are), and both.
fn filters() -> Vec<Filter> {
    let all = Filter::default();
    vec![
        all,
        Filter { min_size: 3, ..all },
        Filter { max_size: 2, ..all },
        Filter {
            largest: Some(0),
            ..all
        },
        Filter {
            largest: Some(1),
            ..all
        },
        Filter {
            largest: Some(5),
            ..all
        },
        Filter {
            largest: Some(1000),
            ..all
        },
        Filter {
            largest: Some(100_000),
            ..all
        },
        Filter {
            min_size: 2,
            largest: Some(7),
            ..all
        },
        Filter {
            min_extent: [2, 3, 1],
            max_extent: [20, 30, 2],
            ..all
        },
    ]
}

/// Canonical labels of `images` and their counts: per image, labeled on the
/// host by `cpu-uf`.
struct Labels {
    labels: Vec<u32>,
    counts: Vec<u32>,
    shape: LabelShape,
}

fn batch(width: usize, height: usize, images: usize, density: u32, granularity: u32) -> Labels {
    let labeler = ccl::Variant::named("cpu-uf", Task::Label, Connectivity::Eight).unwrap();
    let (mut labels, mut counts) = (Vec::new(), Vec::new());
    for i in 0..images {
        let image = random_image(width, height, density, granularity, 7 + i as u32).unwrap();
        let (image_labels, count) = labeler.label(&image.view(), Connectivity::Eight).unwrap();
        labels.extend(image_labels.into_labels());
        counts.push(count as u32);
    }
    Labels {
        labels,
        counts,
        shape: LabelShape {
            width,
            height,
            depth: 1,
            images,
        },
    }
}

fn volume(side: usize, depth: usize, density: u32) -> Labels {
    let volume = random_volume(side, side, depth, density, 1, 11).unwrap();
    let labeler =
        ccl::Variant::preferred_on(Backend::Cpu, Task::Label, Connectivity::TwentySix).unwrap();
    let (labels, count) = labeler
        .label_volume(&volume.view(), Connectivity::TwentySix)
        .unwrap();
    Labels {
        labels: labels.into_labels(),
        counts: vec![count as u32],
        shape: LabelShape {
            width: side,
            height: side,
            depth,
            images: 1,
        },
    }
}

/// The host's filtered labels, counts and kept features (image after image).
fn expected(case: &Labels, filter: &Filter) -> (Vec<u32>, Vec<u32>, Vec<VolumeStats>) {
    let (mut labels, mut counts) = (case.labels.clone(), case.counts.clone());
    let s = case.shape;
    filter
        .apply(&mut labels, [s.width, s.height, s.depth], &mut counts)
        .unwrap();
    let per_image = s.width * s.height * s.depth;
    let features = labels
        .chunks(per_image)
        .flat_map(|image| {
            let volume = LabelVolume::new(s.width, s.height, s.depth, image.to_vec()).unwrap();
            VolumeStats::from_labels(&volume)
        })
        .collect();
    (labels, counts, features)
}

fn check(stream: &Arc<CudaStream>, device_filter: &mut DeviceFilter, case: &Labels, what: &str) {
    for filter in filters() {
        let (labels, counts, features) = expected(case, &filter);
        // Labels renumbered in place, with the kept features.
        let mut device_labels = stream.clone_htod(&case.labels).unwrap();
        let mut device_counts = stream.clone_htod(&case.counts).unwrap();
        device_filter
            .run(
                stream,
                &mut device_labels.slice_mut(..),
                &mut device_counts.slice_mut(..),
                None,
                case.shape,
                &filter,
                FilterOutput::Labels,
                true,
            )
            .unwrap();
        let got = stream.clone_dtoh(&device_labels).unwrap();
        assert!(got == labels, "{what}, {filter:?}: labels differ");
        let got_counts = stream.clone_dtoh(&device_counts).unwrap();
        assert_eq!(got_counts, counts, "{what}, {filter:?}: counts");
        let got_features = device_filter.read_features(stream).unwrap();
        assert!(
            got_features == features,
            "{what}, {filter:?}: features differ"
        );
        // The mask, labels and counts left as they were; one image's count
        // passed by the caller (no read-back of the total).
        let mut device_labels = stream.clone_htod(&case.labels).unwrap();
        let mut device_counts = stream.clone_htod(&case.counts).unwrap();
        let mut mask = stream.alloc_zeros::<u8>(case.labels.len()).unwrap();
        device_filter
            .run(
                stream,
                &mut device_labels.slice_mut(..),
                &mut device_counts.slice_mut(..),
                (case.shape.images == 1).then(|| case.counts[0]),
                case.shape,
                &filter,
                FilterOutput::Mask(&mut mask.slice_mut(..)),
                false,
            )
            .unwrap();
        let got_mask = stream.clone_dtoh(&mask).unwrap();
        let want_mask: Vec<u8> = labels.iter().map(|&l| u8::from(l != 0)).collect();
        assert!(got_mask == want_mask, "{what}, {filter:?}: mask differs");
        assert!(stream.clone_dtoh(&device_labels).unwrap() == case.labels);
        assert_eq!(stream.clone_dtoh(&device_counts).unwrap(), case.counts);
    }
}

#[test]
fn device_filter_equals_the_host_filter() {
    let Some(stream) = stream() else {
        return;
    };
    let gpu = ccl_cuda::runtime::default_gpu().unwrap();
    let mut device_filter = DeviceFilter::new(&gpu).unwrap();
    let cases = [
        ("a batch of 16 images of 61x37", batch(61, 37, 16, 45, 1)),
        ("a batch of 3 blobby images", batch(96, 80, 3, 55, 4)),
        ("a batch with empty images", batch(40, 30, 5, 0, 1)),
        // Images of fewer pixels than a thread of the last pass takes, and
        // 21 pixels in all: groups that span several images, a short last.
        ("a batch of 7 images of 3x1", batch(3, 1, 7, 60, 1)),
        (
            "one 1024x1024 image, many equal sizes",
            batch(1024, 1024, 1, 30, 1),
        ),
        ("a 48x48x20 volume", volume(48, 20, 35)),
    ];
    for (what, case) in &cases {
        check(&stream, &mut device_filter, case, what);
    }
}

/// Labels that do not start 16-byte aligned (a caller's view into a larger
/// buffer): the last pass reads and writes them a label at a time.
#[test]
fn device_filter_takes_unaligned_labels() {
    let Some(stream) = stream() else {
        return;
    };
    let gpu = ccl_cuda::runtime::default_gpu().unwrap();
    let mut device_filter = DeviceFilter::new(&gpu).unwrap();
    let case = batch(61, 37, 3, 45, 1);
    for filter in filters() {
        let (labels, counts, _) = expected(&case, &filter);
        let padded: Vec<u32> = std::iter::once(9)
            .chain(case.labels.iter().copied())
            .collect();
        let mut device_labels = stream.clone_htod(&padded).unwrap();
        let mut device_counts = stream.clone_htod(&case.counts).unwrap();
        device_filter
            .run(
                &stream,
                &mut device_labels.slice_mut(1..),
                &mut device_counts.slice_mut(..),
                None,
                case.shape,
                &filter,
                FilterOutput::Labels,
                false,
            )
            .unwrap();
        let got = stream.clone_dtoh(&device_labels).unwrap();
        assert_eq!(
            got[0], 9,
            "{filter:?}: the label before the view was written"
        );
        assert!(got[1..] == labels[..], "{filter:?}: labels differ");
        assert_eq!(stream.clone_dtoh(&device_counts).unwrap(), counts);
    }
}

/// One image's count known on the host reaches `counts` (where the caller
/// reads the kept count back) even where the filter keeps everything and
/// nothing runs.
#[test]
fn device_filter_writes_a_host_count_where_it_keeps_all() {
    let Some(stream) = stream() else {
        return;
    };
    let gpu = ccl_cuda::runtime::default_gpu().unwrap();
    let mut device_filter = DeviceFilter::new(&gpu).unwrap();
    let case = batch(61, 37, 1, 45, 1);
    let mut labels = stream.clone_htod(&case.labels).unwrap();
    let mut counts = stream.clone_htod(&[u32::MAX]).unwrap();
    device_filter
        .run(
            &stream,
            &mut labels.slice_mut(..),
            &mut counts.slice_mut(..),
            Some(case.counts[0]),
            case.shape,
            &Filter::default(),
            FilterOutput::Labels,
            false,
        )
        .unwrap();
    assert_eq!(stream.clone_dtoh(&counts).unwrap(), case.counts);
    assert!(stream.clone_dtoh(&labels).unwrap() == case.labels);
}

#[test]
fn device_filter_refuses_bad_arguments() {
    let Some(stream) = stream() else {
        return;
    };
    let gpu = ccl_cuda::runtime::default_gpu().unwrap();
    let mut device_filter = DeviceFilter::new(&gpu).unwrap();
    let case = batch(8, 8, 2, 50, 1);
    let mut labels = stream.clone_htod(&case.labels).unwrap();
    let mut counts = stream.clone_htod(&case.counts).unwrap();
    let inverted = Filter {
        min_size: 4,
        max_size: 3,
        ..Filter::default()
    };
    let bigger = LabelShape {
        images: 3,
        ..case.shape
    };
    // A count known on the host is refused for a batch of two images.
    for (filter, shape, count) in [
        (inverted, case.shape, None),
        (Filter::default(), bigger, None),
        (Filter::default(), case.shape, Some(case.counts[0])),
    ] {
        let result = device_filter.run(
            &stream,
            &mut labels.slice_mut(..),
            &mut counts.slice_mut(..),
            count,
            shape,
            &filter,
            FilterOutput::Labels,
            false,
        );
        assert!(result.is_err(), "{filter:?} on {shape:?} ran");
    }
}

/// Images labeled and filtered in one call
/// (`CudaVariant::label_device_filtered`) by every CUDA variant that labels
/// images, against the host's labels filtered by the host: the variants
/// whose last pass filters (`flsl`'s) and those filtered after labeling,
/// in both connectivities, as labels and as a mask; the images include one
/// with more components than the stats array first holds and one without
/// foreground. The variant is reused across images of different sizes.
#[test]
fn labeling_and_filtering_in_one_call_equals_the_host_filter() {
    use ccl_cuda::backend::variant_on;
    use ccl_cuda::runtime::{DeviceImage, StageClock};

    let Some(stream) = stream() else {
        return;
    };
    let gpu = ccl_cuda::runtime::default_gpu().unwrap();
    let images = [
        random_image(61, 37, 45, 1, 3).unwrap(),
        // 262144 pixels at 25 %: more components than the first stats array
        // (pixels / 64, at least 4096).
        random_image(512, 512, 25, 1, 5).unwrap(),
        random_image(300, 200, 60, 4, 9).unwrap(),
        random_image(40, 30, 0, 1, 1).unwrap(),
    ];
    let variants = testable_variants()
        .into_iter()
        .filter(|a| a.backend == Backend::Cuda);
    for algorithm in variants {
        for connectivity in [Connectivity::Four, Connectivity::Eight] {
            if !algorithm.connectivities.contains(&connectivity) {
                continue;
            }
            let reference = ccl::Variant::named("cpu-uf", Task::Label, connectivity).unwrap();
            let mut variant = variant_on(algorithm.name, gpu.clone(), stream.clone()).unwrap();
            for image in &images {
                let (width, height) = (image.width(), image.height());
                let (labels, count) = reference.label(&image.view(), connectivity).unwrap();
                let labels = labels.into_labels();
                let pixels = stream.clone_htod(image.pixels()).unwrap();
                let device_image =
                    DeviceImage::new(pixels.slice(..), width, height, width).unwrap();
                for filter in filters() {
                    let mut want = labels.clone();
                    let mut want_count = [count as u32];
                    filter
                        .apply(&mut want, [width, height, 1], &mut want_count)
                        .unwrap();
                    let mut device_labels = stream.alloc_zeros::<u32>(width * height).unwrap();
                    let kept = variant
                        .label_device_filtered(
                            &device_image,
                            &mut device_labels.slice_mut(..),
                            connectivity,
                            &filter,
                            None,
                            &mut StageClock::disabled(),
                        )
                        .unwrap();
                    let what = format!(
                        "{} {connectivity:?} {width}x{height} {filter:?}",
                        algorithm.name
                    );
                    assert_eq!(kept, want_count[0] as usize, "{what}: kept count");
                    let got = stream.clone_dtoh(&device_labels).unwrap();
                    assert!(got == want, "{what}: labels differ");
                    // The mask of the kept pixels instead, over stale bytes.
                    let mut mask = stream.clone_htod(&vec![7u8; width * height]).unwrap();
                    let kept = variant
                        .label_device_filtered(
                            &device_image,
                            &mut device_labels.slice_mut(..),
                            connectivity,
                            &filter,
                            Some(&mut mask.slice_mut(..)),
                            &mut StageClock::disabled(),
                        )
                        .unwrap();
                    assert_eq!(kept, want_count[0] as usize, "{what}: kept count (mask)");
                    let want_mask: Vec<u8> = want.iter().map(|&l| u8::from(l != 0)).collect();
                    assert!(
                        stream.clone_dtoh(&mask).unwrap() == want_mask,
                        "{what}: mask differs"
                    );
                }
                // A filter that keeps nothing by an inverted range is refused.
                let inverted = Filter {
                    min_size: 4,
                    max_size: 3,
                    ..Filter::default()
                };
                let mut device_labels = stream.alloc_zeros::<u32>(width * height).unwrap();
                let refused = variant.label_device_filtered(
                    &device_image,
                    &mut device_labels.slice_mut(..),
                    connectivity,
                    &inverted,
                    None,
                    &mut StageClock::disabled(),
                );
                assert!(refused.is_err(), "{}: {inverted:?} ran", algorithm.name);
                // So is a mask shorter than the image.
                let mut short = stream.alloc_zeros::<u8>(width * height - 1).unwrap();
                let refused = variant.label_device_filtered(
                    &device_image,
                    &mut device_labels.slice_mut(..),
                    connectivity,
                    &Filter::default(),
                    Some(&mut short.slice_mut(..)),
                    &mut StageClock::disabled(),
                );
                assert!(
                    refused.is_err(),
                    "{}: a short mask was taken",
                    algorithm.name
                );
            }
        }
    }
}

/// Batches labeled and filtered in one call
/// (`CudaVariant::label_device_batch_filtered`) by every CUDA variant that
/// labels 8-connected images, against each image's host labels filtered by
/// the host: labels, masks and the kept counts, an empty image among them.
#[test]
fn batches_labeled_and_filtered_in_one_call_equal_the_host_filter() {
    use ccl_cuda::backend::{Slices, variant_on};
    use ccl_cuda::runtime::{DeviceImage, StageClock};

    let Some(stream) = stream() else {
        return;
    };
    let gpu = ccl_cuda::runtime::default_gpu().unwrap();
    let (width, height, images) = (61, 37, 6);
    let pixels: Vec<u8> = (0..images)
        .flat_map(|i| {
            let density = if i == 2 { 0 } else { 45 };
            random_image(
                width,
                height,
                density,
                1 + (i as u32 % 2) * 3,
                20 + i as u32,
            )
            .unwrap()
            .pixels()
            .to_vec()
        })
        .collect();
    let reference = ccl::Variant::named("cpu-uf", Task::Label, Connectivity::Eight).unwrap();
    let plane = width * height;
    let (mut host_labels, mut host_counts) = (Vec::new(), Vec::new());
    for image in pixels.chunks(plane) {
        let image = ccl_core::BinaryImage::new(image, width, height).unwrap();
        let (labels, count) = reference.label(&image, Connectivity::Eight).unwrap();
        host_labels.extend(labels.into_labels());
        host_counts.push(count as u32);
    }
    let slices = Slices {
        height,
        depth: images,
    };
    let device_pixels = stream.clone_htod(&pixels).unwrap();
    let rows = DeviceImage::new(device_pixels.slice(..), width, height * images, width).unwrap();
    let variants = testable_variants()
        .into_iter()
        .filter(|a| a.backend == Backend::Cuda && a.connectivities.contains(&Connectivity::Eight));
    for algorithm in variants {
        let mut variant = variant_on(algorithm.name, gpu.clone(), stream.clone()).unwrap();
        for filter in filters() {
            let mut want = host_labels.clone();
            let mut want_counts = host_counts.clone();
            filter
                .apply(&mut want, [width, height, 1], &mut want_counts)
                .unwrap();
            let want_mask: Vec<u8> = want.iter().map(|&l| u8::from(l != 0)).collect();
            let mut labels = stream.alloc_zeros::<u32>(plane * images).unwrap();
            // The labels, then the mask of the kept pixels over stale bytes
            // (the labels then scratch); the kept counts either way.
            for masked in [false, true] {
                let what = format!("{} {filter:?} mask {masked}", algorithm.name);
                let mut mask = stream.clone_htod(&vec![7u8; plane * images]).unwrap();
                let mut counts = stream.alloc_zeros::<u32>(images).unwrap();
                variant
                    .label_device_batch_filtered(
                        &rows,
                        slices,
                        &mut labels.slice_mut(..),
                        &mut counts.slice_mut(..),
                        Connectivity::Eight,
                        &filter,
                        masked.then_some(&mut mask.slice_mut(..)),
                        &mut StageClock::disabled(),
                    )
                    .unwrap();
                if masked {
                    let got = stream.clone_dtoh(&mask).unwrap();
                    assert!(got == want_mask, "{what}: mask differs");
                } else {
                    let got = stream.clone_dtoh(&labels).unwrap();
                    assert!(got == want, "{what}: labels differ");
                }
                let got_counts = stream.clone_dtoh(&counts).unwrap();
                assert_eq!(got_counts, want_counts, "{what}: counts");
            }
        }
    }
}
