//! Host images through the `ccl` facade's [`Variant`], for every variant
//! that can run here: CPU variants in place, CUDA variants on labelers
//! pooled by `ccl_cuda::interop::pool` (upload, numbering on the device,
//! copy back). Labels, counts, features and OpenCV's statistics equal the
//! reference's, the statistics laid out by `ccl_core::opencv` from the
//! reference's features; and concurrent threads, each leasing its own
//! labeler, get the same.

use ccl::opencv::OpenCvStats;
use ccl::{BinaryImage, ComponentStats, Connectivity, Task, Variant};
use ccl_testkit::cases::{Case, pattern_cases, random_cases, real_cases};
use ccl_testkit::policy::testable_variants;

/// The reference's canonical labels and features of `image`.
fn reference(
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
) -> (ccl::LabelImage, Vec<ComponentStats>) {
    let labels = ccl::find("cpu-uf")
        .unwrap()
        .labeler()
        .unwrap()
        .label(image, connectivity)
        .unwrap()
        .canonical();
    let components = ComponentStats::from_labels(&labels);
    (labels, components)
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// Every host-image result of `variant` on `image` against the reference.
fn check(variant: Variant, image: &BinaryImage<'_>, case: &str) {
    let algorithm = variant.algorithm();
    for &connectivity in algorithm
        .connectivities
        .iter()
        .filter(|c| c.dimensions() == 2)
    {
        let context = format!("{} on {case}, {connectivity}-connectivity", algorithm.name);
        let (expected, components) = reference(image, connectivity);
        let (labels, count) = variant
            .label(image, connectivity)
            .unwrap_or_else(|e| panic!("{context}: {e}"));
        assert_eq!(
            (count, &labels),
            (components.len(), &expected),
            "{context}: labels"
        );
        if algorithm.performs(Task::Analyze) {
            let features = variant.analyze(image, connectivity).unwrap();
            assert_eq!(features, components, "{context}: features");
        }
        let opencv = variant
            .connected_components_with_stats(image, connectivity)
            .unwrap_or_else(|e| panic!("{context}: {e}"));
        let layout = OpenCvStats::new(image, &components);
        assert_eq!(
            (opencv.count, &opencv.labels),
            (count, &expected),
            "{context}"
        );
        assert_eq!(opencv.stats, layout.stats, "{context}: OpenCV stats");
        assert_eq!(
            bits(&opencv.centroids),
            bits(&layout.centroids),
            "{context}: OpenCV centroids"
        );
    }
}

fn variants() -> Vec<Variant> {
    testable_variants()
        .into_iter()
        .filter(|a| a.performs(Task::Label))
        .map(|a| Variant::named(a.name, Task::Label, a.connectivities[0]).unwrap())
        .collect()
}

fn check_cases(cases: impl Iterator<Item = ccl_core::Result<Case>>) {
    let variants = variants();
    for case in cases {
        let case = case.unwrap();
        for &variant in &variants {
            check(variant, &case.image.view(), &format!("{:?}", case.source));
        }
    }
}

#[test]
fn every_pattern() {
    check_cases(pattern_cases());
}

#[test]
fn real_and_random_images() {
    check_cases(
        real_cases()
            .unwrap()
            .into_iter()
            .map(Ok)
            .chain(random_cases(24)),
    );
}

/// A strided view whose padding bytes are foreground-looking: never read.
#[test]
fn strided_views() {
    let image = ccl_testdata::random_image(97, 41, 50, 2, 3).unwrap();
    let stride = image.width() + 5;
    let mut bytes = vec![0xFFu8; stride * image.height()];
    for y in 0..image.height() {
        let row = &image.pixels()[y * image.width()..(y + 1) * image.width()];
        bytes[y * stride..y * stride + image.width()].copy_from_slice(row);
    }
    let view = BinaryImage::with_stride(&bytes, image.width(), image.height(), stride).unwrap();
    for variant in variants() {
        check(variant, &view, "a strided view");
    }
}

/// Threads at once on each variant: pooled CUDA labelers are never shared,
/// and every thread's results are its own image's.
#[test]
fn concurrent_threads() {
    for variant in variants() {
        std::thread::scope(|scope| {
            for seed in 0..4 {
                scope.spawn(move || {
                    let image = ccl_testdata::random_image(211, 67, 45, 1, seed).unwrap();
                    for _ in 0..3 {
                        check(variant, &image.view(), &format!("thread {seed}"));
                    }
                });
            }
        });
    }
}
