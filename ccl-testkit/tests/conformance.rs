//! Every registered variant that can run here, through the conformance kit:
//! every structured pattern, the real images, the random verification
//! images and large images at the percolation thresholds; and the real
//! images' counts against `components.json`.

use ccl as _;
use ccl_core::{Connectivity, Task};
use ccl_testkit::cases::{Case, Source, pattern_cases, random_cases, real_cases};
use ccl_testkit::conformance::check_registry;
use ccl_testkit::policy::testable_variants;

#[test]
fn every_pattern() {
    check_registry(pattern_cases());
}

#[test]
fn every_real_image() {
    check_registry(real_cases().unwrap().into_iter().map(Ok));
}

#[test]
fn random_verification_images() {
    check_registry(random_cases(120));
}

#[test]
fn large_images_at_the_percolation_thresholds() {
    // One component spans the image: the longest merge chains, across every
    // strip, span and block border.
    let (width, height) = (2048, 1536);
    check_registry([45, 60].map(|density| {
        Ok(Case {
            image: ccl_testdata::random_image(width, height, density, 1, 11)?,
            source: Source::Random {
                width,
                height,
                density,
                granularity: 1,
                seed: 11,
            },
        })
    }));
}

#[test]
fn more_components_than_the_first_stats_array_holds() {
    // A 4-connected checkerboard of 1024x1024 has 2^19 components: a CUDA
    // analysis starts with room for max(4096, pixels / 64) = 16384, so it
    // grows its stats array from the count it reads back and runs again.
    let (width, height) = (1024, 1024);
    check_registry(std::iter::once(Ok(Case {
        image: ccl_testdata::pattern("checkerboard", width, height).unwrap(),
        source: Source::Pattern {
            kind: "checkerboard",
            width,
            height,
        },
    })));
}

#[test]
fn real_image_counts_match_components_json() {
    let reals = ccl_testdata::real_images().unwrap();
    assert!(!reals.is_empty(), "ccl-testdata has no real images");
    for algorithm in testable_variants() {
        for real in &reals {
            let image = real.image.view();
            assert_eq!(image.foreground_count(), real.foreground, "{}", real.name);
            for (connectivity, expected) in [
                (Connectivity::Four, real.components_4),
                (Connectivity::Eight, real.components_8),
            ] {
                if !algorithm.supports(connectivity) {
                    continue;
                }
                let context = format!(
                    "{} on {}, {connectivity}-connectivity",
                    algorithm.name, real.name
                );
                if algorithm.performs(Task::Label) {
                    let labels = algorithm
                        .labeler()
                        .and_then(|mut l| l.label(&image, connectivity))
                        .unwrap_or_else(|e| panic!("{context}: {e}"));
                    assert_eq!(labels.component_count(), expected, "{context} label");
                }
                if algorithm.performs(Task::Analyze) {
                    let stats = algorithm
                        .analyzer()
                        .and_then(|mut a| a.analyze(&image, connectivity))
                        .unwrap_or_else(|e| panic!("{context}: {e}"));
                    assert_eq!(stats.len(), expected, "{context} analyze");
                }
            }
        }
    }
}

#[test]
fn every_volume_variant_on_random_pattern_and_edge_volumes() {
    use ccl_testkit::volumes::{
        check_registry_volumes, edge_volume_cases, pattern_volume_cases, random_volume_cases,
    };
    let checked = check_registry_volumes(
        random_volume_cases(48)
            .chain(pattern_volume_cases())
            .chain(edge_volume_cases()),
    );
    for name in ["cpu-uf", "cpu-rle", "cpu-rle-1t"] {
        assert!(checked.contains(&name), "{name} not checked: {checked:?}");
    }
}

#[test]
fn a_large_volume_at_each_percolation_threshold() {
    // 160 x 128 x 96 voxels (about 2 Mvox): cpu-rle cuts it into slabs, and
    // at the threshold one component crosses every slab border.
    use ccl_testkit::volumes::{VolumeCase, check_registry_volumes};
    let (width, height, depth) = (160, 128, 96);
    check_registry_volumes([10, 14, 31].map(|density| {
        Ok(VolumeCase {
            name: format!("random {width}x{height}x{depth} d={density} g=1 seed=5"),
            volume: ccl_testdata::random_volume(width, height, depth, density, 1, 5)?,
        })
    }));
}

#[test]
fn every_image_variant_on_batches() {
    use ccl_testkit::batches::{batch_cases, check_registry_batches};
    let checked = check_registry_batches(batch_cases());
    for name in ["cpu-uf", "cpu-rle", "cpu-rle-1t"] {
        assert!(checked.contains(&name), "{name} not checked: {checked:?}");
    }
}
