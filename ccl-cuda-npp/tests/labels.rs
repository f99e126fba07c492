//! What is particular to `npp-uf` (the conformance kit of `ccl-testkit`
//! checks its labels on every verification image): a clean registry entry
//! and refusal where NPP or a GPU is missing, its stage names, and the
//! analysis and sizes it refuses.

use ccl_core::{BinaryImage, Connectivity, Error, Labeler, Task, TimedRun};
use ccl_cpu::UnionFind;
use ccl_cuda_npp::{MAX_PIXELS, npp_uf};
use ccl_testkit::policy;

/// The registry entry, and whether it can run here (skips print why; under
/// `CCL_REQUIRE_GPU=1` a missing NPP or GPU fails).
fn entry() -> (&'static ccl_core::Algorithm, bool) {
    let entry = ccl_core::find("npp-uf").unwrap();
    (entry, policy::decide(entry).should_run())
}

#[test]
fn registered_as_a_labeler_that_probes_cleanly() {
    let (entry, runs) = entry();
    assert!(entry.performs(Task::Label) && !entry.performs(Task::Analyze));
    assert!(entry.supports(Connectivity::Four) && entry.supports(Connectivity::Eight));
    assert!(entry.priority < 10, "a peer is never the default");
    if runs {
        assert!(entry.labeler().is_ok());
        assert!(matches!(
            entry.analyzer(),
            Err(Error::UnsupportedTask { .. })
        ));
    } else {
        let message = entry.probe().unwrap_err().to_string();
        assert!(
            message.contains("NPP") || message.contains("CUDA") || message.contains("NVRTC"),
            "the probe says what is missing: {message}"
        );
        assert!(message.len() < 200, "one short line: {message}");
        // Constructing fails the same way instead of panicking.
        assert!(entry.labeler().is_err());
        assert!(entry.timed().is_err());
        assert!(npp_uf().is_err());
    }
}

#[test]
fn timed_runs_name_npp_apart_and_refuse_analysis() {
    if !entry().1 {
        return;
    }
    let mut npp = npp_uf().unwrap();
    let image = ccl_testdata::random_image(512, 384, 55, 1, 3).unwrap();
    let view = image.view();
    npp.load(&view).unwrap();
    for connectivity in Connectivity::PLANE {
        let stages = npp.run(Task::Label, connectivity).unwrap();
        let names: Vec<_> = stages.iter().map(|s| s.stage).collect();
        // NPP's own call apart; then the shared numbering of its labels.
        assert_eq!(
            names,
            ["binarize", "npp", "repair", "finish", "roots", "labels"]
        );
        let expected = UnionFind.label(&view, connectivity).unwrap();
        assert_eq!(npp.labels().unwrap(), expected.canonical());
    }
    assert!(matches!(
        npp.run(Task::Analyze, Connectivity::Four),
        Err(Error::UnsupportedTask { .. })
    ));
    assert!(npp.stats().is_err());
}

#[test]
fn sizes_past_npp_int_arithmetic_are_refused_before_upload() {
    if !entry().1 {
        return;
    }
    let mut npp = npp_uf().unwrap();
    // A view of MAX_PIXELS + 1 pixels over a one-row buffer: refused by its
    // size before a byte of it is read.
    let row = vec![0u8; MAX_PIXELS + 1];
    let image = BinaryImage::new(&row, MAX_PIXELS + 1, 1).unwrap();
    let error = npp.label(&image, Connectivity::Four).unwrap_err();
    assert!(error.to_string().contains("at most"), "{error}");
}
