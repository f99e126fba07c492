//! Property tests on random small images: every available variant against
//! the reference, and the reference against an independent flood fill and
//! the invariants any labeling must satisfy. Failing images shrink toward
//! fewer and fewer pixels.

use std::collections::VecDeque;

use ccl as _;
use ccl_core::{Analyzer, BinaryImageBuf, ComponentStats, Connectivity, LabelImage, Labeler};
use ccl_cpu::UnionFind;
use ccl_testkit::verify::{Expected, Variant};
use proptest::prelude::*;

/// Images of `width × height` drawn from the ranges, pixels foreground with
/// probability one half; shrinking reduces the size and clears pixels.
fn images_of(
    widths: std::ops::Range<usize>,
    heights: std::ops::Range<usize>,
) -> impl Strategy<Value = BinaryImageBuf> {
    (widths, heights).prop_flat_map(|(width, height)| {
        proptest::collection::vec(any::<bool>(), width * height).prop_map(move |pixels| {
            BinaryImageBuf::from_fn(width, height, |x, y| pixels[y * width + x])
                .expect("small images fit the label space")
        })
    })
}

/// Wide and flat (across 32 / 64-pixel warps), tall and narrow, and square.
fn images() -> impl Strategy<Value = BinaryImageBuf> {
    prop_oneof![
        images_of(0..80, 0..12),
        images_of(0..12, 0..80),
        images_of(0..40, 0..40),
        images_of(60..70, 1..5),
    ]
}

/// The canonical labels by breadth-first flood fill from each unlabeled
/// foreground pixel in raster order: slow, obvious, and independent of
/// the union-find reference.
fn flood_fill(image: &BinaryImageBuf, connectivity: Connectivity) -> Vec<u32> {
    let (width, height) = (image.width(), image.height());
    let mut labels = vec![0u32; width * height];
    let mut next = 0;
    for start in 0..width * height {
        if labels[start] != 0 || image.pixels()[start] == 0 {
            continue;
        }
        next += 1;
        labels[start] = next;
        let mut queue = VecDeque::from([start]);
        while let Some(i) = queue.pop_front() {
            for n in neighbours(i % width, i / width, width, height, connectivity) {
                let j = n.1 * width + n.0;
                if image.pixels()[j] != 0 && labels[j] == 0 {
                    labels[j] = next;
                    queue.push_back(j);
                }
            }
        }
    }
    labels
}

/// The in-image neighbours of `(x, y)`.
fn neighbours(
    x: usize,
    y: usize,
    width: usize,
    height: usize,
    connectivity: Connectivity,
) -> impl Iterator<Item = (usize, usize)> {
    let offsets: &[(isize, isize)] = match connectivity {
        Connectivity::Four => &[(-1, 0), (1, 0), (0, -1), (0, 1)],
        // The properties of images run over `Connectivity::PLANE` only.
        _ => &[
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ],
    };
    offsets.iter().filter_map(move |&(dx, dy)| {
        let (nx, ny) = (x.checked_add_signed(dx)?, y.checked_add_signed(dy)?);
        (nx < width && ny < height).then_some((nx, ny))
    })
}

#[test]
fn every_variant_matches_the_reference() {
    // Outside the property: the skip reasons print once, not per case.
    let variants = ccl_testkit::policy::testable_variants();
    proptest!(|(image in images())| {
        for &algorithm in &variants {
            let mut variant = Variant::new(algorithm).map_err(|e| TestCaseError::fail(e.to_string()))?;
            for connectivity in Connectivity::PLANE.into_iter().filter(|&c| algorithm.supports(c)) {
                let expected = Expected::compute(&image.view(), connectivity)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                for task in variant.tasks() {
                    if let Err(failure) = variant.check(task, &image.view(), connectivity, &expected) {
                        prop_assert!(false, "{} {connectivity}-connectivity {task}: {failure}", algorithm.name);
                    }
                }
            }
        }
    });
}

proptest! {
    #[test]
    fn reference_equals_flood_fill(image in images()) {
        for connectivity in Connectivity::PLANE {
            let labels = UnionFind.label(&image.view(), connectivity).unwrap();
            prop_assert_eq!(labels.labels(), &flood_fill(&image, connectivity)[..], "{}-connectivity", connectivity);
        }
    }

    #[test]
    fn reference_labels_are_canonical_and_connected(image in images()) {
        for connectivity in Connectivity::PLANE {
            let labels = UnionFind.label(&image.view(), connectivity).unwrap();
            prop_assert_eq!(&labels, &labels.canonical());
            let (width, height) = (image.width(), image.height());
            for y in 0..height {
                for x in 0..width {
                    let label = labels.get(x, y);
                    prop_assert_eq!(label != 0, image.get(x, y), "({}, {})", x, y);
                    for (nx, ny) in neighbours(x, y, width, height, connectivity) {
                        if image.get(x, y) && image.get(nx, ny) {
                            prop_assert_eq!(label, labels.get(nx, ny), "({}, {}) and ({}, {})", x, y, nx, ny);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn reference_features_match_its_labels(image in images()) {
        for connectivity in Connectivity::PLANE {
            let labels: LabelImage = UnionFind.label(&image.view(), connectivity).unwrap();
            let stats = UnionFind.analyze(&image.view(), connectivity).unwrap();
            prop_assert_eq!(&stats, &ComponentStats::from_labels(&labels));
            prop_assert_eq!(stats.iter().map(|s| s.area as usize).sum::<usize>(), image.view().foreground_count());
        }
    }

    #[test]
    fn eight_connectivity_never_has_more_components(image in images()) {
        let count = |c| UnionFind.label(&image.view(), c).unwrap().component_count();
        prop_assert!(count(Connectivity::Eight) <= count(Connectivity::Four));
    }
}
