//! The `ccl` binary as a user runs it: one-line errors with a non-zero exit
//! status and no panic, the JSON layout of `analyze`, `gen` round trips,
//! and short runs of `list`, `label`, `verify`, `sweep` and `plot`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ccl_core::{Connectivity, Labeler};
use ccl_cpu::UnionFind;

/// A fresh, empty folder for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `ccl` with `args` in `dir`. Under a nextest archive (the GPU
/// machine) the binary is not where cargo built it: nextest says where.
fn ccl(dir: &Path, args: &[&str]) -> Output {
    let binary =
        std::env::var_os("NEXTEST_BIN_EXE_ccl").unwrap_or_else(|| env!("CARGO_BIN_EXE_ccl").into());
    Command::new(binary)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Asserts success and returns stdout.
fn succeeds(dir: &Path, args: &[&str]) -> String {
    let output = ccl(dir, args);
    assert!(
        output.status.success(),
        "ccl {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout(&output)
}

/// Asserts a non-zero exit status and a single `error:` line on stderr that
/// contains `needle`, without a panic.
fn fails_with(dir: &Path, args: &[&str], needle: &str) {
    let output = ccl(dir, args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "ccl {args:?} succeeded");
    assert!(
        !stderr.contains("panicked"),
        "ccl {args:?} panicked: {stderr}"
    );
    assert_eq!(
        stderr.lines().count(),
        1,
        "ccl {args:?}: not one line: {stderr}"
    );
    assert!(stderr.starts_with("error: "), "ccl {args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "ccl {args:?}: no `{needle}` in: {stderr}"
    );
}

#[test]
fn missing_file() {
    let dir = scratch("missing");
    fails_with(&dir, &["label", "nowhere.png"], "nowhere.png");
    fails_with(&dir, &["analyze", "nowhere.png"], "nowhere.png");
}

#[test]
fn truncated_and_non_image_files() {
    let dir = scratch("truncated");
    succeeds(
        &dir,
        &[
            "gen",
            "--size",
            "64x64",
            "-d",
            "50",
            "-g",
            "1",
            "-o",
            "whole.png",
        ],
    );
    let bytes = std::fs::read(dir.join("whole.png")).unwrap();
    std::fs::write(dir.join("cut.png"), &bytes[..bytes.len() / 2]).unwrap();
    fails_with(&dir, &["label", "cut.png"], "cut.png");
    std::fs::write(dir.join("notes.txt"), "not an image\n").unwrap();
    fails_with(&dir, &["analyze", "notes.txt"], "notes.txt");
    std::fs::write(dir.join("fake.png"), "not a png either").unwrap();
    fails_with(&dir, &["label", "fake.png"], "fake.png");
}

#[test]
fn unknown_algorithm() {
    let dir = scratch("unknown");
    succeeds(
        &dir,
        &["gen", "--size", "8x8", "-d", "50", "-g", "1", "-o", "a.png"],
    );
    fails_with(&dir, &["label", "a.png", "-a", "no-such"], "cpu-uf");
    fails_with(&dir, &["verify", "-a", "no-such"], "unknown algorithm");
    fails_with(&dir, &["sweep", "-a", "no-such"], "unknown algorithm");
}

#[test]
fn unsupported_connectivity() {
    let dir = scratch("connectivity");
    succeeds(
        &dir,
        &["gen", "--size", "8x8", "-d", "50", "-g", "1", "-o", "a.png"],
    );
    fails_with(&dir, &["label", "a.png", "-c", "6"], "expected 4 or 8");
    fails_with(
        &dir,
        &["analyze", "a.png", "-c", "sixteen"],
        "expected 4 or 8",
    );
    // Every available variant that lacks a connectivity refuses it by name.
    for algorithm in ccl::algorithms() {
        if !ccl_testkit::policy::decide(algorithm).should_run() {
            continue;
        }
        for c in Connectivity::ALL
            .into_iter()
            .filter(|&c| !algorithm.supports(c))
        {
            let c = c.to_string();
            fails_with(
                &dir,
                &["label", "a.png", "-a", algorithm.name, "-c", &c],
                "does not support",
            );
        }
    }
}

#[test]
fn image_too_large() {
    let dir = scratch("large");
    fails_with(
        &dir,
        &[
            "gen",
            "--size",
            "65536x65536",
            "-d",
            "50",
            "-g",
            "1",
            "-o",
            "big.pbm",
        ],
        "too large",
    );
    // A header that promises more pixels than 32-bit labels allow.
    std::fs::write(dir.join("big.pgm"), "P5\n70000 70000\n255\n").unwrap();
    fails_with(&dir, &["label", "big.pgm"], "big.pgm");
}

#[test]
fn bad_arguments_are_one_line_too() {
    let dir = scratch("arguments");
    fails_with(&dir, &["gen", "--size", "8x8", "-o", "a.png"], "--density");
    fails_with(
        &dir,
        &["gen", "--size", "8by8", "-d", "5", "-g", "1", "-o", "a.png"],
        "WIDTHxHEIGHT",
    );
    fails_with(
        &dir,
        &[
            "gen", "--size", "8x8", "-d", "101", "-g", "1", "-o", "a.png",
        ],
        "101",
    );
    fails_with(
        &dir,
        &["gen", "--size", "8x8", "-d", "5", "-g", "1", "-o", "a.jpg"],
        "a.jpg",
    );
    fails_with(&dir, &["sweep", "--reps", "0"], "--reps");
    fails_with(&dir, &["sweep", "--size", "0x8"], "at least 1x1");
}

#[test]
fn analyze_json_has_the_documented_keys_in_order() {
    let dir = scratch("json");
    succeeds(
        &dir,
        &[
            "gen", "--size", "24x16", "-d", "40", "-g", "2", "--seed", "3", "-o", "a.pgm",
        ],
    );
    let text = succeeds(
        &dir,
        &[
            "analyze", "a.pgm", "-a", "cpu-uf", "-c", "4", "--format", "json",
        ],
    );
    assert!(
        text.starts_with(
            r#"{"width":24,"height":16,"connectivity":4,"algorithm":"cpu-uf","components":"#
        ),
        "{text}"
    );
    let first = &text[text.find(r#""stats":[{"#).expect("a stats array") + 10..];
    let first = &first[..first.find('}').unwrap()];
    let keys: Vec<&str> = first
        .split(',')
        .map(|kv| kv.split(':').next().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            r#""label""#,
            r#""area""#,
            r#""x_min""#,
            r#""y_min""#,
            r#""x_max""#,
            r#""y_max""#,
            r#""sum_x""#,
            r#""sum_y""#,
            r#""centroid_x""#,
            r#""centroid_y""#,
        ]
    );
    // The values are the reference's, in canonical order.
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let image = ccl_testdata::random_image(24, 16, 40, 2, 3).unwrap();
    let labels = UnionFind.label(&image.view(), Connectivity::Four).unwrap();
    let expected = ccl_core::ComponentStats::from_labels(&labels);
    let stats = json["stats"].as_array().unwrap();
    assert_eq!(json["components"], expected.len());
    assert_eq!(stats.len(), expected.len());
    for (i, (row, s)) in stats.iter().zip(&expected).enumerate() {
        assert_eq!(row["label"], i + 1);
        assert_eq!(
            (row["area"].as_u64(), row["sum_x"].as_u64()),
            (Some(u64::from(s.area)), Some(s.sum_x))
        );
        assert_eq!(row["centroid_y"].as_f64(), Some(s.centroid().1));
    }
}

#[test]
fn analyze_table_and_csv_have_one_row_per_component() {
    let dir = scratch("table");
    succeeds(
        &dir,
        &[
            "gen",
            "--pattern",
            "hline",
            "--size",
            "9x7",
            "-o",
            "lines.png",
        ],
    );
    let csv = succeeds(&dir, &["analyze", "lines.png", "--format", "csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "label,area,x_min,y_min,x_max,y_max,sum_x,sum_y,centroid_x,centroid_y"
    );
    assert_eq!(lines.len(), 1 + 4);
    assert_eq!(lines[1], "1,9,0,0,8,0,36,0,4,0");
    let table = succeeds(&dir, &["analyze", "lines.png"]);
    assert_eq!(table.lines().count(), 1 + 4);
    assert!(
        table
            .lines()
            .next()
            .unwrap()
            .trim_start()
            .starts_with("label")
    );
}

#[test]
fn gen_round_trips_through_every_format() {
    let dir = scratch("gen");
    let expected = ccl_testdata::random_image(70, 33, 45, 4, 11).unwrap();
    for file in ["a.png", "a.pgm", "a.pbm"] {
        succeeds(
            &dir,
            &[
                "gen", "--size", "70x33", "-d", "45", "-g", "4", "--seed", "11", "-o", file,
            ],
        );
        assert_eq!(
            ccl_testdata::load_image(&dir.join(file)).unwrap(),
            expected,
            "{file}"
        );
    }
    succeeds(
        &dir,
        &[
            "gen",
            "--pattern",
            "spiral",
            "--size",
            "33x31",
            "-o",
            "s.pbm",
        ],
    );
    assert_eq!(
        ccl_testdata::load_image(&dir.join("s.pbm")).unwrap(),
        ccl_testdata::pattern("spiral", 33, 31).unwrap()
    );
}

#[test]
fn label_counts_and_writes_colour_labels() {
    let dir = scratch("label");
    succeeds(
        &dir,
        &[
            "gen", "--size", "50x40", "-d", "30", "-g", "2", "-o", "a.png",
        ],
    );
    let image = ccl_testdata::random_image(50, 40, 30, 2, 0).unwrap();
    for c in Connectivity::ALL {
        let expected = UnionFind.label(&image.view(), c).unwrap().component_count();
        let out = succeeds(
            &dir,
            &["label", "a.png", "-c", &c.to_string(), "-o", "labels.png"],
        );
        assert_eq!(out.trim(), format!("{expected} components"));
    }
    let colours = image::open(dir.join("labels.png")).unwrap().into_rgb8();
    assert_eq!(colours.dimensions(), (50, 40));
    for (x, y, pixel) in colours.enumerate_pixels() {
        let background = !image.get(x as usize, y as usize);
        assert_eq!(pixel.0 == [0, 0, 0], background, "({x}, {y})");
    }
}

#[test]
fn list_names_every_variant() {
    let dir = scratch("list");
    let out = succeeds(&dir, &["list"]);
    for algorithm in ccl::algorithms() {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{} ", algorithm.name)))
            .unwrap_or_else(|| panic!("{} missing from:\n{out}", algorithm.name));
        assert!(line.contains(algorithm.summary), "{line}");
    }
}

#[test]
fn verify_passes_on_the_reference() {
    let dir = scratch("verify");
    let out = succeeds(&dir, &["verify", "-a", "cpu-uf", "--cases", "10"]);
    assert!(out.starts_with("cpu-uf  ok"), "{out}");
}

#[test]
fn sweep_writes_one_csv_row_per_measurement() {
    let dir = scratch("sweep");
    let out = succeeds(
        &dir,
        &[
            "sweep", "-a", "cpu-uf", "--size", "48x40", "--reps", "1", "--task", "label", "-c",
            "4", "--out", "results",
        ],
    );
    // Header, then one row per granularity.
    assert_eq!(
        out.lines().filter(|l| l.starts_with("cpu-uf ")).count(),
        3,
        "{out}"
    );
    let csv = std::fs::read_to_string(dir.join("results/sweep.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 21 * 3);
    assert!(
        rows.iter()
            .all(|r| r.starts_with("cpu-uf,cpu,4,label,48,40,")),
        "{csv}"
    );
    // One task and connectivity: a time and a stage plot, each SVG and PNG.
    for plot in ["time-label-4conn", "stages-label-4conn"] {
        for extension in ["svg", "png"] {
            let path = format!("results/{plot}.{extension}");
            assert!(out.contains(&format!("wrote {path}\n")), "{out}");
            assert!(dir.join(&path).is_file(), "{path}");
        }
    }
}

/// The H200 sweep committed under bench/, with the summary its run printed.
const H200_SWEEP: &str = include_str!("../../bench/2026-11-22-h200/sweep.csv");
const H200_SUMMARY: &str = include_str!("../../bench/2026-11-22-h200/summary.txt");

#[test]
fn plot_redraws_a_saved_sweep_with_the_summary_its_run_printed() {
    let dir = scratch("plot");
    std::fs::write(dir.join("sweep.csv"), H200_SWEEP).unwrap();
    let out = succeeds(&dir, &["plot", "sweep.csv", "--out", "plots"]);
    // The summary.txt table: the lines between the run's `sweep:` line and
    // its `wrote` line.
    let table: String = H200_SUMMARY
        .lines()
        .filter(|line| !line.starts_with("sweep:") && !line.starts_with("wrote "))
        .map(|line| format!("{line}\n"))
        .collect();
    assert!(out.starts_with(&table), "{out}");
    let mut written = 0;
    for task in ["label", "analyze"] {
        for connectivity in [4, 8] {
            for kind in ["time", "stages"] {
                let stem = format!("{kind}-{task}-{connectivity}conn");
                let svg = std::fs::read_to_string(dir.join(format!("plots/{stem}.svg"))).unwrap();
                assert!(svg.starts_with("<svg") && svg.len() < 100_000, "{stem}.svg");
                let png = image::open(dir.join(format!("plots/{stem}.png"))).unwrap();
                assert_eq!((png.width(), png.height()), (1280, 460), "{stem}.png");
                written += 2;
            }
        }
    }
    assert_eq!(
        out.lines().filter(|l| l.starts_with("wrote ")).count(),
        written
    );
}

#[test]
fn plot_refuses_what_is_not_a_sweep() {
    let dir = scratch("plot-bad");
    std::fs::write(dir.join("other.csv"), "a,b\n1,2\n").unwrap();
    fails_with(
        &dir,
        &["plot", "other.csv"],
        "other.csv: line 1: not a sweep's CSV",
    );
    fails_with(&dir, &["plot", "missing.csv"], "missing.csv");
}
