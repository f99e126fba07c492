//! `ccl sweep --volume` as a user runs it: the CSV rows and the summary of
//! a short volume sweep, the default size of `--quick`, and one-line
//! errors for the connectivities and sizes it refuses.

mod common;

use common::*;

use ccl_bench::volume_sweep::csv::{FILE_NAME, HEADER, read};
use ccl_core::{Connectivity, Task};

#[test]
fn a_volume_sweep_writes_its_rows_and_summary() {
    let dir = scratch("sweep");
    let (out, err) = succeeds_with(
        &dir,
        &[
            "sweep",
            "--volume",
            "24x20x16",
            "--quick",
            "--algorithm",
            "cpu-rle",
            "--algorithm",
            "cpu-uf",
            "--densities",
            "10,31",
            "--granularities",
            "1",
            "--out",
            "results",
        ],
        None,
    );
    assert!(
        err.starts_with("volume sweep: 24x20x16, densities 10,31, g 1, 3 reps"),
        "{err}"
    );
    // 2 variants × 3 connectivities × 2 tasks × 2 densities.
    let csv = std::fs::read_to_string(dir.join("results").join(FILE_NAME)).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], HEADER);
    assert_eq!(lines.len(), 1 + 24, "{csv}");
    assert!(
        lines[1..].iter().all(|row| {
            (row.starts_with("cpu-rle,cpu,") || row.starts_with("cpu-uf,cpu,"))
                && row.contains(",24,20,16,1,")
                && row.split(',').count() == HEADER.split(',').count()
                // The CPU variants' one stage.
                && row.rsplit(',').next().is_some_and(|s| s.starts_with("total="))
        }),
        "{csv}"
    );
    let rows = read(&dir.join("results").join(FILE_NAME)).unwrap();
    for variant in ["cpu-rle", "cpu-uf"] {
        for connectivity in Connectivity::VOLUME {
            for task in [Task::Label, Task::Analyze] {
                let densities: Vec<u32> = rows
                    .iter()
                    .filter(|m| {
                        (m.variant.as_str(), m.connectivity, m.task)
                            == (variant, connectivity, task)
                    })
                    .map(|m| m.density)
                    .collect();
                assert_eq!(densities, [10, 31], "{variant} {connectivity} {task}");
            }
        }
    }
    assert!(rows.iter().all(|m| m.reps == 3 && m.median_ms > 0.0));
    // The summary printed is the one saved: a row per variant,
    // connectivity and task (one granularity), then analyze / label.
    let summary = std::fs::read_to_string(dir.join("results/summary.txt")).unwrap();
    assert!(out.starts_with(&summary), "{out}");
    assert_eq!(
        summary
            .lines()
            .filter(|l| l.starts_with("cpu-rle ") || l.starts_with("cpu-uf "))
            .count(),
        12 + 6,
        "{summary}"
    );
    assert!(summary.contains("analyze / label"), "{summary}");
    assert!(
        out.contains("wrote results/volume-sweep.csv (24 rows)\nwrote results/summary.txt\n"),
        "{out}"
    );
}

#[test]
fn quick_volumes_are_96_cubed_unless_told() {
    let dir = scratch("quick");
    let (out, err) = succeeds_with(
        &dir,
        &[
            "sweep",
            "--volume",
            "--quick",
            "-a",
            "cpu-rle",
            "-c",
            "26",
            "--task",
            "label",
            "--densities",
            "10",
            "--granularities",
            "16",
            "--out",
            "results",
        ],
        None,
    );
    assert!(err.starts_with("volume sweep: 96x96x96,"), "{err}");
    assert!(out.contains("(1 rows)"), "{out}");
    let rows = read(&dir.join("results").join(FILE_NAME)).unwrap();
    assert_eq!(
        (rows[0].width, rows[0].depth, rows[0].connectivity),
        (96, 96, Connectivity::TwentySix)
    );
}

#[test]
fn volume_sweeps_refuse_what_they_cannot_run() {
    let dir = scratch("errors");
    let volume = ["sweep", "--volume", "8x8x8", "--reps", "1"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        volume.iter().chain(extra).copied().collect()
    };
    fails_with(
        &dir,
        &with(&["-c", "4"]),
        "4-connectivity is for images; a volume sweep (--volume) takes 6, 18 or 26",
    );
    fails_with(
        &dir,
        &["sweep", "-c", "6", "--size", "8x8"],
        "6-connectivity is for volumes: add --volume",
    );
    fails_with(&dir, &with(&["-c", "12"]), "6, 18 or 26 (volumes)");
    fails_with(&dir, &with(&["--size", "8x8"]), "cannot be used with");
    fails_with(&dir, &with(&["--pattern", "spiral"]), "cannot be used with");
    // A variant that labels only images is refused by name.
    fails_with(
        &dir,
        &with(&["-a", "npp-uf"]),
        "npp-uf does not support 6-connectivity",
    );
    fails_with(&dir, &["sweep", "--volume", "8x8"], "WIDTHxHEIGHTxDEPTH");
    fails_with(&dir, &["sweep", "--volume", "8x0x8"], "at least 1x1x1");
    fails_with(
        &dir,
        &["sweep", "--volume", "4096x4096x4096"],
        "volume too large",
    );
    // Nothing was written for any of them.
    assert!(!dir.join("target").exists());
}
