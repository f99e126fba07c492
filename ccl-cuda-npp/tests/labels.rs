//! `npp-uf` against the CPU reference where NPP and a GPU exist, and a
//! clean refusal where they do not.
//!
//! Without NPP or a GPU the comparisons skip with the reason, except under
//! `CCL_REQUIRE_GPU=1` (the GPU machine), where they fail.

use ccl_core::{BinaryImage, Connectivity, Error, Labeler, Task, TimedRun};
use ccl_cpu::UnionFind;
use ccl_cuda_npp::NppUf;

const BOTH: [Connectivity; 2] = [Connectivity::Four, Connectivity::Eight];

/// A labeler, or `None` after printing why there is none.
fn npp() -> Option<NppUf> {
    match NppUf::new() {
        Ok(npp) => Some(npp),
        Err(reason) => {
            let required = std::env::var("CCL_REQUIRE_GPU").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "CCL_REQUIRE_GPU=1 but npp-uf cannot run: {reason}"
            );
            eprintln!("skipped: {reason}");
            None
        }
    }
}

/// Labels `image` with both and checks the partition and the raw contract:
/// background 0, foreground nonzero.
fn check(npp: &mut NppUf, name: &str, image: &BinaryImage<'_>) {
    for connectivity in BOTH {
        let expected = UnionFind.label(image, connectivity).unwrap();
        let labels = npp
            .label(image, connectivity)
            .unwrap_or_else(|e| panic!("{name} {connectivity}: {e}"));
        assert_eq!(
            labels.first_difference(&expected),
            None,
            "{name} {connectivity}-connectivity: first difference (x, y)"
        );
        for y in 0..image.height() {
            for x in 0..image.width() {
                assert_eq!(
                    labels.get(x, y) != 0,
                    image.is_foreground(x, y),
                    "{name} {connectivity}: pixel ({x}, {y})"
                );
            }
        }
    }
}

#[test]
fn registered_as_a_labeler_that_probes_cleanly() {
    let entry = ccl_core::find("npp-uf").unwrap();
    assert!(entry.performs(Task::Label) && !entry.performs(Task::Analyze));
    assert!(entry.supports(Connectivity::Four) && entry.supports(Connectivity::Eight));
    assert!(entry.priority < 10, "a peer is never the default");
    match entry.probe() {
        Ok(()) => {
            assert!(entry.labeler().is_ok());
            assert!(matches!(
                entry.analyzer(),
                Err(Error::UnsupportedTask { .. })
            ));
        }
        Err(reason) => {
            let message = reason.to_string();
            assert!(
                message.contains("libnpp") || message.contains("CUDA"),
                "the probe says what is missing: {message}"
            );
            // Constructing fails the same way instead of panicking.
            assert!(entry.labeler().is_err());
            assert!(entry.timed().is_err());
            eprintln!("npp-uf unavailable here: {message}");
        }
    }
}

#[test]
fn patterns_match_the_reference() {
    let Some(mut npp) = npp() else { return };
    for pattern in ccl_testdata::patterns() {
        check(&mut npp, &pattern.name, &pattern.image.view());
    }
}

#[test]
fn random_images_match_the_reference() {
    let Some(mut npp) = npp() else { return };
    for (width, height) in [(1000, 700), (4099, 3), (3, 4099), (257, 129)] {
        for density in [0, 10, 45, 60, 90, 100] {
            for granularity in [1, 4] {
                let image =
                    ccl_testdata::random_image(width, height, density, granularity, 7).unwrap();
                let name = format!("random {width}x{height} d={density} g={granularity}");
                check(&mut npp, &name, &image.view());
            }
        }
    }
}

#[test]
fn percolating_images_match_the_reference() {
    // Near the percolation thresholds one component spans the image: the
    // most pieces for NPP to split and for the repair to join.
    let Some(mut npp) = npp() else { return };
    for density in [45, 60] {
        let image = ccl_testdata::random_image(2048, 2048, density, 1, 11).unwrap();
        check(
            &mut npp,
            &format!("random 2048x2048 d={density}"),
            &image.view(),
        );
    }
}

#[test]
fn real_images_match_the_reference() {
    let Some(mut npp) = npp() else { return };
    for real in ccl_testdata::real_images().unwrap() {
        check(&mut npp, real.name, &real.image.view());
    }
}

#[test]
fn any_nonzero_byte_is_foreground_and_stride_is_honoured() {
    let Some(mut npp) = npp() else { return };
    // Touching pixels of different nonzero values are one component (NPP
    // alone would split them); the stride's padding bytes are never read.
    let (width, height, stride) = (37, 19, 45);
    let pixels: Vec<u8> = (0..height * stride)
        .map(|i| {
            let (x, y) = (i % stride, i / stride);
            if x >= width {
                0xAB
            } else if (x * 7 + y * 3) % 5 < 3 {
                (1 + (x + y) % 255) as u8
            } else {
                0
            }
        })
        .collect();
    let image = BinaryImage::with_stride(&pixels, width, height, stride).unwrap();
    check(&mut npp, "multi-valued strided", &image);
}

#[test]
fn timed_runs_label_and_refuse_analysis() {
    let Some(mut npp) = npp() else { return };
    let image = ccl_testdata::random_image(512, 384, 55, 1, 3).unwrap();
    let view = image.view();
    npp.load(&view).unwrap();
    for connectivity in BOTH {
        let stages = npp.run(Task::Label, connectivity).unwrap();
        let names: Vec<_> = stages.iter().map(|s| s.stage).collect();
        assert_eq!(names, ["binarize", "npp", "repair", "finish"]);
        assert!(stages.iter().all(|s| s.ms >= 0.0));
        let expected = UnionFind.label(&view, connectivity).unwrap();
        assert!(npp.labels().unwrap().same_partition(&expected));
    }
    assert!(matches!(
        npp.run(Task::Analyze, Connectivity::Four),
        Err(Error::UnsupportedTask { .. })
    ));
    assert!(matches!(npp.stats(), Err(Error::UnsupportedTask { .. })));
}
