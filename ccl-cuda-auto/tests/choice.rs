//! `auto` on volumes large enough to be sampled: the choice it makes (seen
//! in the stages of a timed run) and its labels against the CPU reference,
//! both ways. Skips where no GPU can be used.

use ccl_core::{Connectivity, Task};
use ccl_cuda_auto as _;
// The reference, `cpu-uf`, registers there.
use ccl_cpu as _;
use ccl_testdata::random_volume;

/// The stages of a timed `auto` label run on `volume`, and its labels, or
/// `None` where no GPU can be used.
fn timed_label(
    volume: &ccl_core::BinaryVolumeBuf,
    connectivity: Connectivity,
) -> Option<(Vec<&'static str>, ccl_core::LabelVolume)> {
    let mut timed = match ccl_core::find("auto").unwrap().timed() {
        Ok(timed) => timed,
        Err(reason) => {
            println!("skipped: {reason}");
            return None;
        }
    };
    timed.load_volume(&volume.view()).unwrap();
    let stages = timed.run(Task::Label, connectivity).unwrap();
    let labels = timed.volume_labels().unwrap();
    Some((stages.iter().map(|s| s.stage).collect(), labels))
}

fn reference(
    volume: &ccl_core::BinaryVolumeBuf,
    connectivity: Connectivity,
) -> ccl_core::LabelVolume {
    let mut cpu = ccl_core::find("cpu-uf").unwrap().labeler().unwrap();
    cpu.label_volume(&volume.view(), connectivity).unwrap()
}

#[test]
fn fine_volumes_are_labeled_by_tiles_and_coarse_ones_by_runs() {
    // 128 x 96 x 100 voxels (1.2 Mvox, past the sampling threshold; rows of
    // four words, slices of six tiles' rows, a partial tile in z).
    let cases = [
        // (density %, granularity, connectivity, the chosen stages' mark)
        (30, 1, Connectivity::Six, "tiles"),
        (45, 1, Connectivity::Eighteen, "tiles"),
        (20, 1, Connectivity::TwentySix, "tiles"),
        (75, 1, Connectivity::Six, "tiles"),
        (75, 1, Connectivity::TwentySix, "runs"),
        (50, 4, Connectivity::Six, "runs"),
        (3, 1, Connectivity::Eighteen, "runs"),
    ];
    for (density, granularity, connectivity, chosen) in cases {
        let volume = random_volume(128, 96, 100, density, granularity, density).unwrap();
        let Some((stages, labels)) = timed_label(&volume, connectivity) else {
            return;
        };
        let case = format!("{density} %, g = {granularity}, {connectivity}-connectivity");
        assert_eq!(stages.first(), Some(&"choose"), "{case}: {stages:?}");
        assert!(
            stages.contains(&chosen),
            "{case}: expected {chosen}, ran {stages:?}"
        );
        assert_eq!(labels, reference(&volume, connectivity), "{case}");
    }
}

#[test]
fn small_volumes_go_to_runs_unsampled() {
    let volume = random_volume(64, 64, 64, 30, 1, 1).unwrap();
    let Some((stages, labels)) = timed_label(&volume, Connectivity::Six) else {
        return;
    };
    assert!(!stages.contains(&"choose"), "{stages:?}");
    assert!(stages.contains(&"runs"), "{stages:?}");
    assert_eq!(labels, reference(&volume, Connectivity::Six));
}
