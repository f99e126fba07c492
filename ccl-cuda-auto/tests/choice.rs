//! `auto` on volumes large enough to be sampled: the choice it makes (seen
//! in the stages of a timed run) and its labels against the CPU reference,
//! both ways. Skips where no GPU can be used.

use ccl_core::{Connectivity, Task};
use ccl_cuda_auto as _;
// The reference, `cpu-uf`, registers there.
use ccl_cpu as _;
use ccl_testdata::random_volume;

/// `auto`'s timed form, or `None` where no GPU can be used.
fn timed_auto() -> Option<Box<dyn ccl_core::TimedRun>> {
    match ccl_core::find("auto").unwrap().timed() {
        Ok(timed) => Some(timed),
        Err(reason) => {
            println!("skipped: {reason}");
            None
        }
    }
}

/// The stages of a timed `auto` label run on `volume`, and its labels, or
/// `None` where no GPU can be used.
fn timed_label(
    volume: &ccl_core::BinaryVolumeBuf,
    connectivity: Connectivity,
) -> Option<(Vec<&'static str>, ccl_core::LabelVolume)> {
    let mut timed = timed_auto()?;
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
        (75, 1, Connectivity::TwentySix, "tiles"),
        (92, 1, Connectivity::TwentySix, "runs"),
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

/// The stages of a timed `auto` label run on `image`, and its labels, or
/// `None` where no GPU can be used.
fn timed_image_label(
    image: &ccl_core::BinaryImageBuf,
    connectivity: Connectivity,
) -> Option<(Vec<&'static str>, ccl_core::LabelImage)> {
    let mut timed = timed_auto()?;
    timed.load(&image.view()).unwrap();
    let stages = timed.run(Task::Label, connectivity).unwrap();
    let labels = timed.labels().unwrap();
    Some((stages.iter().map(|s| s.stage).collect(), labels))
}

#[test]
fn fine_images_are_labeled_by_tiles_and_coarse_ones_by_runs() {
    // 1100 x 1000 pixels (1.1 Mpx, past the sampling threshold; rows of 35
    // words, the last partial; a partial tile of rows at the bottom).
    let cases = [
        (45, 1, Connectivity::Four, "tiles"),
        (60, 1, Connectivity::Eight, "tiles"),
        (10, 1, Connectivity::Four, "runs"),
        (50, 4, Connectivity::Eight, "runs"),
    ];
    let mut cpu = ccl_core::find("cpu-uf").unwrap().labeler().unwrap();
    for (density, granularity, connectivity, chosen) in cases {
        let image = ccl_testdata::random_image(1100, 1000, density, granularity, density).unwrap();
        let Some((stages, labels)) = timed_image_label(&image, connectivity) else {
            return;
        };
        let case = format!("{density} %, g = {granularity}, {connectivity}-connectivity");
        assert_eq!(stages.first(), Some(&"choose"), "{case}: {stages:?}");
        assert!(
            stages.contains(&chosen),
            "{case}: expected {chosen}, ran {stages:?}"
        );
        let expected = cpu.label(&image.view(), connectivity).unwrap();
        assert_eq!(labels, expected, "{case}");
    }
}

#[test]
fn a_batch_of_fine_images_is_labeled_image_by_image() {
    // 24 images of 300 x 200 (1.44 Mpx in all, sampled): each numbered
    // apart, as the reference labels it alone, with a full image among
    // them that a labeler joining the images would spill into.
    let (width, height, count) = (300, 200, 24);
    let images: Vec<_> = (0..count)
        .map(|i| {
            if i == 5 {
                ccl_core::BinaryImageBuf::from_fn(width, height, |_, _| true).unwrap()
            } else {
                ccl_testdata::random_image(width, height, 45 + i as u32, 1, i as u32).unwrap()
            }
        })
        .collect();
    let bytes: Vec<u8> = images
        .iter()
        .flat_map(|image| image.pixels().iter().copied())
        .collect();
    let batch = ccl_core::BinaryVolume::new(&bytes, width, height, count).unwrap();
    let mut labeler = match ccl_core::find("auto").unwrap().labeler() {
        Ok(labeler) => labeler,
        Err(reason) => {
            println!("skipped: {reason}");
            return;
        }
    };
    let mut cpu = ccl_core::find("cpu-uf").unwrap().labeler().unwrap();
    for connectivity in Connectivity::PLANE {
        let mut labels = vec![0u32; width * height * count];
        let mut counts = vec![0usize; count];
        labeler
            .label_batch(&batch, connectivity, &mut labels, &mut counts)
            .unwrap();
        for (i, image) in images.iter().enumerate() {
            let expected = cpu.label(&image.view(), connectivity).unwrap();
            let plane = &labels[i * width * height..(i + 1) * width * height];
            assert_eq!(plane, expected.labels(), "image {i}, {connectivity}");
            assert_eq!(
                counts[i],
                expected.component_count(),
                "image {i}, {connectivity}"
            );
        }
    }
}
