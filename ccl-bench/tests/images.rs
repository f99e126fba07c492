//! Every available variant against the reference on every structured
//! pattern, the real images and the random verification images; the real
//! images' counts against `components.json`.

use ccl_bench::cases::{Case, pattern_cases, random_cases, real_cases};
use ccl_bench::verify::{Expected, Variant};
use ccl_core::{Connectivity, Task};

/// Checks every testable variant on every case, in every connectivity and
/// task it supports, and fails listing every mismatch.
fn check_all(cases: &[Case]) {
    let mut failures = Vec::new();
    for algorithm in ccl_bench::gpu_policy::testable_variants() {
        let mut variant = Variant::new(algorithm).expect("a testable variant constructs");
        for case in cases {
            for connectivity in Connectivity::ALL
                .into_iter()
                .filter(|&c| algorithm.supports(c))
            {
                let expected = Expected::compute(&case.image.view(), connectivity)
                    .expect("the reference labels any valid image");
                for task in variant.tasks() {
                    if let Err(failure) =
                        variant.check(task, &case.image.view(), connectivity, &expected)
                    {
                        failures.push(format!(
                            "{} on {}, {connectivity}-connectivity {task}: {failure}",
                            algorithm.name, case.source
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_pattern() {
    check_all(&pattern_cases().unwrap());
}

#[test]
fn every_real_image() {
    check_all(&real_cases().unwrap());
}

#[test]
fn random_verification_images() {
    check_all(&random_cases(120).unwrap());
}

#[test]
fn real_image_counts_match_components_json() {
    let reals = ccl_testdata::real_images().unwrap();
    assert!(!reals.is_empty(), "ccl-testdata has no real images");
    for algorithm in ccl_bench::gpu_policy::testable_variants() {
        let mut labeler = algorithm.labeler().ok();
        let mut analyzer = algorithm.analyzer().ok();
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
                if let Some(labeler) = labeler.as_mut() {
                    let labels = labeler.label(&image, connectivity).unwrap();
                    assert_eq!(
                        labels.component_count(),
                        expected,
                        "{context} {}",
                        Task::Label
                    );
                }
                if let Some(analyzer) = analyzer.as_mut() {
                    let stats = analyzer.analyze(&image, connectivity).unwrap();
                    assert_eq!(stats.len(), expected, "{context} {}", Task::Analyze);
                }
            }
        }
    }
}
