//! The `ccl` binary as a user runs it: one-line errors with a non-zero exit
//! status and no panic, the JSON layout of `analyze`, `gen` round trips,
//! and short runs of `list`, `label`, `verify`, `sweep`, `plot` and
//! `updates`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

use ccl_core::{Connectivity, Labeler};
use ccl_cpu::UnionFind;

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
    // Errors speak of the file, not of the decoder.
    std::fs::write(dir.join("bad.png"), [&b"\x89PNX"[..], &bytes[4..]].concat()).unwrap();
    for (file, needle) in [("cut.png", "ends early"), ("bad.png", "bad.png")] {
        fails_with(&dir, &["label", file], needle);
        let stderr = String::from_utf8(ccl(&dir, &["label", file]).stderr).unwrap();
        for internal in ["Some(", "Format error", "Png:"] {
            assert!(!stderr.contains(internal), "{file}: {stderr}");
        }
    }
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
    // A volume's connectivity reads the image as a volume of depth 1.
    let out = succeeds(&dir, &["label", "a.png", "-a", "cpu-uf", "-c", "6"]);
    assert!(out.ends_with("in a 8x8x1 volume\n"), "{out}");
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
        for c in Connectivity::PLANE
            .into_iter()
            .chain(Connectivity::VOLUME)
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
    fails_with(&dir, &["label", "big.pgm"], "too large");
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
            ccl_io::load_image(&dir.join(file)).unwrap(),
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
        ccl_io::load_image(&dir.join("s.pbm")).unwrap(),
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
    for c in Connectivity::PLANE {
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
fn verify_adds_the_worst_cases_up_to_a_side() {
    let dir = scratch("verify-worst");
    let images = |worst_side: &str| -> usize {
        let out = succeeds(
            &dir,
            &[
                "verify",
                "-a",
                "cpu-uf",
                "--cases",
                "1",
                "--worst-side",
                worst_side,
            ],
        );
        let (_, after) = out.split_once(" on ").expect("an image count");
        after.split(' ').next().unwrap().parse().unwrap()
    };
    // Seven kinds at sides 256 and 255.
    assert_eq!(images("256") - images("0"), 2 * 7);
}

#[test]
fn verify_of_random_images_only_checks_just_those() {
    let dir = scratch("verify-random-only");
    let out = succeeds(
        &dir,
        &["verify", "-a", "cpu-uf", "--cases", "3", "--random-only"],
    );
    assert!(out.starts_with("cpu-uf  ok"), "{out}");
    assert!(out.contains(" on 3 images"), "{out}");
}

#[test]
fn pattern_sweep_tabulates_ms_per_image_by_pattern_and_size() {
    let dir = scratch("sweep-patterns");
    let out = succeeds(
        &dir,
        &[
            "sweep",
            "-a",
            "cpu-uf",
            "--pattern",
            "spiral,maze",
            "--sizes",
            "40,33",
            "--reps",
            "1",
            "--task",
            "label",
            "-c",
            "8",
            "--out",
            "results",
        ],
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("8-connectivity label: median ms per image"),
        "{out}"
    );
    let rows: Vec<Vec<&str>> = lines[2..6]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let images: Vec<(&str, &str)> = rows.iter().map(|r| (r[0], r[1])).collect();
    assert_eq!(
        images,
        [
            ("maze", "33x33"),
            ("maze", "40x40"),
            ("spiral", "33x33"),
            ("spiral", "40x40")
        ],
        "{out}"
    );
    assert!(rows.iter().all(|r| r[2].parse::<f64>().is_ok()), "{out}");
    let csv = std::fs::read_to_string(dir.join("results/sweep.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{csv}");
    assert!(
        rows.iter().all(|r| r.starts_with("cpu-uf,cpu,8,label,")),
        "{csv}"
    );
    assert!(
        rows.iter()
            .any(|r| r.ends_with(",spiral") && r.contains(",40,40,0,0,")),
        "{csv}"
    );
    // Plots are over density: a pattern sweep draws none.
    assert!(!out.contains("wrote results/time"), "{out}");
    fails_with(
        &dir,
        &["sweep", "--pattern", "spirl"],
        "known patterns: empty",
    );
    fails_with(&dir, &["sweep", "--sizes", "64"], "--pattern");
    fails_with(
        &dir,
        &["sweep", "--pattern", "spiral", "--size", "64x64"],
        "cannot be used with",
    );
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
    // One row per granularity in the means table, one in the all-white table.
    assert_eq!(
        out.lines().filter(|l| l.starts_with("cpu-uf ")).count(),
        3 + 1,
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
    let table: Vec<&str> = H200_SUMMARY
        .lines()
        .filter(|line| !line.starts_with("sweep:") && !line.starts_with("wrote "))
        .collect();
    // The run printed no 10-90 % column, which the means table has since:
    // every other field of every line is the run's.
    let printed: Vec<&str> = out.lines().take(table.len()).collect();
    assert_eq!(printed.len(), table.len(), "{out}");
    for (line, run) in printed.iter().zip(&table) {
        let mut fields: Vec<&str> = line.split_whitespace().collect();
        let run: Vec<&str> = run.split_whitespace().collect();
        if fields.get(6) == Some(&"10-90%") {
            fields.drain(6..8); // the header's `10-90% Gpx/s`
        } else if fields.len() == run.len() + 1 {
            fields.remove(5); // a means row's mid mean
        }
        assert_eq!(fields, run, "{out}");
    }
    assert!(out.contains("10-90% Gpx/s"), "{out}");
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

#[test]
fn large_images_round_trip() {
    // Over the image decoder's default 512 MiB limit, far under the labels'.
    let dir = scratch("large-round-trip");
    let (width, height) = (20_000, 20_000);
    succeeds(
        &dir,
        &[
            "gen",
            "--size",
            "20000x20000",
            "-d",
            "50",
            "-g",
            "4",
            "-o",
            "big.png",
        ],
    );
    let image = ccl_testdata::random_image(width, height, 50, 4, 0).unwrap();
    let expected = UnionFind
        .label(&image.view(), Connectivity::Four)
        .unwrap()
        .component_count();
    drop(image);
    let out = succeeds(&dir, &["label", "big.png", "-a", "cpu-uf", "-c", "4"]);
    assert_eq!(out.trim(), format!("{expected} components"));
}

/// A gray scan: light background (200) with `disks` dark disks (30), and
/// some noise in between so that it is not two-valued.
fn write_gray_scan(path: &Path, disks: usize) {
    let (width, height) = (40 * disks + 20, 60);
    let mut pixels = vec![0u8; width * height];
    for y in 0..height {
        for x in 0..width {
            let (cx, cy) = (40 * (x / 40) + 30, 30);
            let inside =
                x / 40 < disks && (x as i64 - cx as i64).pow(2) + (y as i64 - cy).pow(2) < 144;
            pixels[y * width + x] = if inside {
                30
            } else {
                200 + ((x * 7 + y * 3) % 9) as u8
            };
        }
    }
    let header = format!("P5\n{width} {height}\n255\n");
    std::fs::write(path, [header.as_bytes(), &pixels].concat()).unwrap();
}

#[test]
fn gray_images_are_binarized_as_asked_and_the_default_says_so() {
    let dir = scratch("gray");
    write_gray_scan(&dir.join("scan.pgm"), 5);
    // Every nonzero pixel: one component, and a note on stderr.
    let output = ccl(&dir, &["label", "scan.pgm", "-a", "cpu-uf"]);
    assert!(output.status.success());
    assert_eq!(stdout(&output).trim(), "1 component");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("not a binary mask") && stderr.contains("--otsu"),
        "{stderr}"
    );
    // Dark disks on a light background.
    for args in [["--otsu", "--invert"], ["--threshold", "100"]] {
        let mut all = vec!["label", "scan.pgm", "-a", "cpu-uf"];
        all.extend(args);
        if args[0] == "--threshold" {
            all.push("--invert");
        }
        let output = ccl(&dir, &all);
        assert!(output.status.success(), "{all:?}");
        assert_eq!(stdout(&output).trim(), "5 components", "{all:?}");
    }
    // Without --invert the background is the one component.
    let out = succeeds(&dir, &["label", "scan.pgm", "-a", "cpu-uf", "--otsu"]);
    assert_eq!(out.trim(), "1 component");
    // A binary mask gets no note.
    succeeds(
        &dir,
        &[
            "gen", "--size", "20x20", "-d", "50", "-g", "2", "-o", "mask.png",
        ],
    );
    let output = ccl(&dir, &["label", "mask.png", "-a", "cpu-uf"]);
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    fails_with(
        &dir,
        &["label", "scan.pgm", "--threshold", "255"],
        "no foreground",
    );
}

#[test]
fn labels_export_as_32_bit_tiff_and_npy() {
    let dir = scratch("export");
    succeeds(
        &dir,
        &[
            "gen", "--size", "70x30", "-d", "40", "-g", "1", "-o", "a.png",
        ],
    );
    let image = ccl_testdata::random_image(70, 30, 40, 1, 0).unwrap();
    let expected = UnionFind.label(&image.view(), Connectivity::Eight).unwrap();
    succeeds(
        &dir,
        &["label", "a.png", "-a", "cpu-uf", "-o", "labels.tif"],
    );
    let mut tiff =
        tiff::decoder::Decoder::new(std::fs::File::open(dir.join("labels.tif")).unwrap()).unwrap();
    assert_eq!(tiff.dimensions().unwrap(), (70, 30));
    match tiff.read_image().unwrap() {
        tiff::decoder::DecodingResult::U32(values) => assert_eq!(values, expected.labels()),
        _ => panic!("not a 32-bit unsigned TIFF"),
    }
    succeeds(
        &dir,
        &["label", "a.png", "-a", "cpu-uf", "-o", "labels.npy"],
    );
    let npy = std::fs::read(dir.join("labels.npy")).unwrap();
    assert_eq!(&npy[..8], b"\x93NUMPY\x01\x00");
    let header_len = u16::from_le_bytes([npy[8], npy[9]]) as usize;
    let header = std::str::from_utf8(&npy[10..10 + header_len]).unwrap();
    assert!(
        header.contains("'descr': '<u4'") && header.contains("'shape': (30, 70)"),
        "{header}"
    );
    assert_eq!((10 + header_len) % 64, 0, "data 64-byte aligned");
    let values: Vec<u32> = npy[10 + header_len..]
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(values, expected.labels());
    fails_with(&dir, &["label", "a.png", "-o", "labels.pgm"], ".npy");
}

#[test]
fn verify_of_a_named_variant_that_cannot_run_fails() {
    let dir = scratch("verify-named");
    let ha = ccl::find("ha4-32").unwrap();
    let output = ccl(&dir, &["verify", "-a", "ha4-32", "--cases", "2"]);
    let out = stdout(&output);
    match ha.probe() {
        Ok(()) => assert!(output.status.success(), "{out}"),
        Err(_) => assert!(!output.status.success() && out.contains("FAILED"), "{out}"),
    }
    // Asking a 4-connectivity variant for 8-connectivity is no check at all.
    let output = ccl(&dir, &["verify", "-a", "ha4-32", "-c", "8", "--cases", "1"]);
    assert!(!output.status.success(), "{}", stdout(&output));
}

#[test]
fn a_closed_pipe_ends_every_format_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = scratch("pipe");
    succeeds(
        &dir,
        &[
            "gen", "--size", "300x300", "-d", "30", "-g", "1", "-o", "a.png",
        ],
    );
    for format in ["json", "csv", "table"] {
        let mut child = Command::new(ccl_binary())
            .args(["analyze", "a.png", "-a", "cpu-uf", "--format", format])
            .current_dir(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut head = [0u8; 50];
        child.stdout.take().unwrap().read_exact(&mut head).unwrap();
        // The read end is closed here: the rest of the output hits a closed pipe.
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success() && stderr.is_empty(),
            "{format}: {stderr}"
        );
    }
}

#[test]
fn help_and_usage_say_what_gen_needs() {
    let dir = scratch("gen-help");
    let help = succeeds(&dir, &["gen", "--help"]);
    assert!(help.contains(".tif"), "{help}");
    assert!(
        help.contains("-d <D> -g <G>") && !help.contains("[-d"),
        "{help}"
    );
    // A subcommand's error points at its own help.
    fails_with(
        &dir,
        &["gen", "--size", "8x8", "-o", "a.png"],
        "`ccl gen --help`",
    );
    fails_with(&dir, &["label"], "`ccl label --help`");
}

#[test]
fn sweep_explains_a_missing_percolation_peak() {
    let dir = scratch("sweep-peak");
    let out = succeeds(
        &dir,
        &[
            "sweep",
            "-a",
            "cpu-uf",
            "--size",
            "16x16",
            "--reps",
            "1",
            "--densities",
            "0,50",
            "--granularities",
            "1",
            "--out",
            "results",
        ],
    );
    assert!(out.contains("lack the percolation threshold"), "{out}");
}

#[test]
fn standard_input_is_read_and_endless_files_are_refused() {
    let dir = scratch("stdin");
    succeeds(
        &dir,
        &[
            "gen", "--size", "30x20", "-d", "40", "-g", "2", "-o", "a.png",
        ],
    );
    let expected = succeeds(&dir, &["label", "a.png", "-a", "cpu-uf"]);
    let png = std::fs::read(dir.join("a.png")).unwrap();
    let output = ccl_with(&dir, &["label", "-", "-a", "cpu-uf"], Some(&png));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(stdout(&output), expected);
    let output = ccl_with(&dir, &["label", "-"], Some(b"not an image"));
    assert!(!output.status.success());
    // /dev/zero never ends: it is refused from its first bytes.
    if Path::new("/dev/zero").exists() {
        fails_with(&dir, &["label", "/dev/zero"], "/dev/zero");
    }
}

#[test]
fn updates_refuses_a_variant_it_does_not_count() {
    let dir = scratch("updates-unknown");
    let args = ["updates", "-a", "ha4-32"];
    let counted = ccl_cuda_flsl::COUNTED_VARIANTS.join(", ");
    fails_with(&dir, &args, &format!("[possible values: {counted}]"));
    // A usage error, as every bad argument is.
    assert_eq!(ccl(&dir, &args).status.code(), Some(2));
}

#[test]
fn updates_counts_where_cuda_runs_and_says_why_not_where_it_cannot() {
    let dir = scratch("updates");
    let args = [
        "updates",
        "-a",
        "flsl",
        "-a",
        "naive-cca",
        "--size",
        "64x48",
        "--densities",
        "0,50,100",
        "-c",
        "8",
        "--out",
        "results",
    ];
    // The counts run the variants' instrumented kernels on ccl-cuda's
    // runtime, as ha4-32 runs its own: where it cannot run, neither can they.
    let cuda = ccl::find("ha4-32").unwrap();
    if ccl_testkit::policy::decide(cuda).should_run() {
        let out = succeeds(&dir, &args);
        for path in ["results/updates.csv (6 rows)", "results/updates.svg"] {
            assert!(out.contains(&format!("wrote {path}\n")), "{out}");
        }
        let rows = ccl_bench::updates::read(&dir.join("results/updates.csv")).unwrap();
        assert_eq!(rows.len(), 6);
        // Nothing to update in an empty image, something in the others.
        for row in &rows {
            assert_eq!(row.counts.updates == 0, row.density == 0, "{row:?}");
        }
        let svg = std::fs::read_to_string(dir.join("results/updates.svg")).unwrap();
        assert!(svg.starts_with("<svg"));
    } else {
        // The first variant's error, under its name, and nothing written.
        fails_with(&dir, &args, "error: flsl: ");
        assert!(!dir.join("results").exists());
    }
}

/// A sweep of one small image, writing into the folder that follows.
const SMALL_SWEEP: &[&str] = &[
    "sweep",
    "-a",
    "cpu-uf",
    "--size",
    "16x16",
    "--reps",
    "1",
    "--densities",
    "50",
    "--granularities",
    "1",
    "--task",
    "label",
    "-c",
    "4",
    "--out",
];

/// Every command that prints its results, as a user types it in the
/// folder of [`printing_commands_dir`].
fn printing_commands() -> Vec<Vec<&'static str>> {
    vec![
        vec!["list"],
        vec!["label", "a.png", "-a", "cpu-uf"],
        vec!["analyze", "a.png", "-a", "cpu-uf"],
        vec![
            "gen", "--size", "20x10", "-d", "50", "-g", "1", "-o", "b.png",
        ],
        vec![
            "verify",
            "-a",
            "cpu-uf",
            "--cases",
            "1",
            "--worst-side",
            "0",
        ],
        [SMALL_SWEEP, &["again"]].concat(),
        vec!["plot", "results/sweep.csv", "--out", "plots"],
    ]
}

/// A folder with what [`printing_commands`] read: `a.png` and a sweep's
/// `results/sweep.csv`.
fn printing_commands_dir(test: &str) -> PathBuf {
    let dir = scratch(test);
    succeeds(
        &dir,
        &[
            "gen", "--size", "40x30", "-d", "40", "-g", "1", "-o", "a.png",
        ],
    );
    succeeds(&dir, &[SMALL_SWEEP, &["results"]].concat());
    dir
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_one_error_line_for_every_command() {
    let dir = printing_commands_dir("full");
    for args in printing_commands() {
        let output = Command::new(ccl_binary())
            .args(&args)
            .current_dir(&dir)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(
            errors,
            ["error: cannot write to standard output: No space left on device (os error 28)"],
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    use std::process::Stdio;
    let dir = printing_commands_dir("closed-pipe");
    for args in printing_commands() {
        let mut child = Command::new(ccl_binary())
            .args(&args)
            .current_dir(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The read end is closed before the command writes anything.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success() && !stderr.contains("error") && !stderr.contains("panicked"),
            "{args:?}: {:?} {stderr}",
            output.status
        );
    }
}

#[test]
fn a_sweep_that_cannot_save_fails_before_timing() {
    let dir = scratch("sweep-unwritable");
    std::fs::write(dir.join("file"), "").unwrap();
    // A folder inside a file cannot be made; nothing may be timed first.
    let output = ccl(&dir, &["sweep", "-a", "cpu-uf", "--out", "file/results"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains("file/results"),
        "{stderr}"
    );
    assert!(!stderr.contains("sweep:"), "timed before failing: {stderr}");
}

#[test]
fn an_interrupted_sweep_leaves_the_rows_it_finished() {
    use std::process::Stdio;
    let dir = scratch("sweep-interrupted");
    let mut child = Command::new(ccl_binary())
        .args([
            "sweep", "-a", "cpu-uf", "--size", "512x512", "--reps", "3", "--task", "label", "-c",
            "4", "--out", "results",
        ])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let csv = dir.join("results/sweep.csv");
    let rows =
        || std::fs::read_to_string(&csv).map_or(0, |text| text.lines().count().saturating_sub(1));
    // Stopped once two images are saved; bounded, in case it never gets there.
    for _ in 0..600 {
        if rows() >= 2 || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let saved = rows();
    assert!((2..21 * 3).contains(&saved), "{saved} rows");
    let out = succeeds(&dir, &["plot", "results/sweep.csv", "--out", "plots"]);
    assert!(out.contains("wrote"), "{out}");
}

#[test]
fn a_size_without_pixels_is_named_before_missing_arguments() {
    let dir = scratch("zero-size");
    fails_with(
        &dir,
        &["gen", "--size", "0x0", "-o", "a.png"],
        "`0x0` has no pixels",
    );
    fails_with(
        &dir,
        &["gen", "--size", "5x0", "-d", "5", "-g", "1", "-o", "a.png"],
        "at least 1x1",
    );
    fails_with(&dir, &["updates", "--size", "0x8"], "at least 1x1");
}

/// A TIFF of 3 pages of 9×3, page i holding i + 1 separate dots.
fn write_stack(path: &Path) {
    let mut file = std::fs::File::create(path).unwrap();
    let mut encoder = tiff::encoder::TiffEncoder::new(&mut file).unwrap();
    for dots in 1..=3 {
        let pixels: Vec<u8> = (0..27)
            .map(|i| u8::from(i / 9 == 1 && i % 9 % 3 == 1 && i % 9 / 3 < dots) * 255)
            .collect();
        encoder
            .write_image::<tiff::encoder::colortype::Gray8>(9, 3, &pixels)
            .unwrap();
    }
}

#[test]
fn multi_page_tiffs_are_volumes_without_a_page_and_images_with_one() {
    let dir = scratch("pages");
    write_stack(&dir.join("stack.tif"));
    // Not silently the first page: every page, one slice each. The dots at
    // x = 1, 4 and 7 of row 1 reach back through the pages before.
    let out = succeeds(&dir, &["label", "stack.tif", "-a", "cpu-uf"]);
    assert_eq!(out.trim(), "3 components in a 9x3x3 volume");
    // An image's connectivity names the volume's and the option of a page.
    for needle in ["stack.tif", "several pages", "6, 18 or 26", "--page N"] {
        fails_with(&dir, &["label", "stack.tif", "-c", "8"], needle);
    }
    for (page, expected) in [
        ("0", "1 component"),
        ("1", "2 components"),
        ("2", "3 components"),
    ] {
        let out = succeeds(
            &dir,
            &["label", "stack.tif", "-a", "cpu-uf", "--page", page],
        );
        assert_eq!(out.trim(), expected);
    }
    let csv = succeeds(
        &dir,
        &["analyze", "stack.tif", "--page", "1", "--format", "csv"],
    );
    assert_eq!(csv.lines().count(), 3, "{csv}");
    fails_with(
        &dir,
        &["label", "stack.tif", "--page", "3"],
        "--page 3 is past the last page",
    );
    fails_with(
        &dir,
        &["label", "stack.tif", "--page", "-1"],
        "must be 0 or more",
    );
}

/// A 12×3 RGBA PNG: colour in every pixel, and two opaque squares of 3×3 in
/// the alpha channel, on transparency.
fn write_rgba(path: &Path, opaque_background: bool) {
    let image = image::RgbaImage::from_fn(12, 3, |x, _| {
        let square = x < 3 || (6..9).contains(&x);
        let alpha = if square || opaque_background { 255 } else { 0 };
        image::Rgba([200, 40, 10, alpha])
    });
    image.save(path).unwrap();
}

#[test]
fn transparent_pixels_are_noted_and_alpha_is_the_mask_on_request() {
    let dir = scratch("alpha");
    write_rgba(&dir.join("rgba.png"), false);
    // The rule stays "any colour channel nonzero", and stderr says that
    // transparency was ignored and how to use it.
    let output = ccl(&dir, &["label", "rgba.png", "-a", "cpu-uf"]);
    assert!(output.status.success());
    assert_eq!(stdout(&output).trim(), "1 component");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("note: ")
            && stderr.contains("transparent")
            && stderr.contains("--alpha"),
        "{stderr}"
    );
    // The alpha channel as the mask: two squares, nothing to note.
    let output = ccl(&dir, &["label", "rgba.png", "-a", "cpu-uf", "--alpha"]);
    assert!(output.status.success());
    assert_eq!(stdout(&output).trim(), "2 components");
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = succeeds(
        &dir,
        &["label", "rgba.png", "-a", "cpu-uf", "--alpha", "--invert"],
    );
    assert_eq!(out.trim(), "2 components");
    // An opaque RGBA image has nothing to note.
    write_rgba(&dir.join("opaque.png"), true);
    let output = ccl(&dir, &["label", "opaque.png", "-a", "cpu-uf"]);
    assert!(output.status.success() && output.stderr.is_empty());
    // --alpha needs an alpha channel.
    succeeds(
        &dir,
        &[
            "gen", "--size", "8x8", "-d", "50", "-g", "1", "-o", "gray.png",
        ],
    );
    fails_with(
        &dir,
        &["label", "gray.png", "--alpha"],
        "has no alpha channel",
    );
    let help = succeeds(&dir, &["label", "--help"]);
    assert!(help.contains("whatever its alpha") && help.contains("--alpha"));
}

#[test]
fn labels_never_overwrite_the_input() {
    let dir = scratch("overwrite");
    for name in ["in.png", "in.tif"] {
        succeeds(
            &dir,
            &["gen", "--size", "16x16", "-d", "50", "-g", "2", "-o", name],
        );
    }
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::fs::hard_link(dir.join("in.png"), dir.join("linked.png")).unwrap();
    let before = std::fs::read(dir.join("in.png")).unwrap();
    for (input, output) in [
        ("in.png", "in.png"),
        ("in.png", "./in.png"),
        ("in.png", "sub/../in.png"),
        ("in.png", "linked.png"),
    ] {
        fails_with(
            &dir,
            &["label", input, "-o", output],
            "that is the input image",
        );
    }
    assert_eq!(std::fs::read(dir.join("in.png")).unwrap(), before);
    let tif = std::fs::read(dir.join("in.tif")).unwrap();
    fails_with(
        &dir,
        &["label", "in.tif", "-o", "in.tif"],
        "that is the input image",
    );
    assert_eq!(std::fs::read(dir.join("in.tif")).unwrap(), tif);
    // Another file is written.
    succeeds(&dir, &["label", "in.png", "-a", "cpu-uf", "-o", "out.png"]);
    assert!(dir.join("out.png").exists());
}

/// CRC-32 of PNG chunks.
fn png_crc(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                crc >> 1 ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A PNG of a few dozen bytes that declares `width` × `height` 8-bit gray:
/// a decompression bomb's header, and the start of its data.
fn png_bomb(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8], data: &[u8]| {
        png.extend((data.len() as u32).to_be_bytes());
        let body = [kind, data].concat();
        png.extend(&body);
        png.extend(png_crc(&body).to_be_bytes());
    };
    let mut header = width.to_be_bytes().to_vec();
    header.extend(height.to_be_bytes());
    header.extend([8, 0, 0, 0, 0]);
    chunk(b"IHDR", &header);
    // zlib's header and the start of a deflate stream of zeros.
    chunk(b"IDAT", &[0x78, 0xda, 0xed, 0xc1, 0x01, 0x0d, 0x00, 0x00]);
    png
}

#[test]
fn images_past_the_pixel_limit_are_refused_from_the_header() {
    let dir = scratch("max-pixels");
    std::fs::write(dir.join("bomb.png"), png_bomb(60_000, 60_000)).unwrap();
    // The size, the limit and the flag, before decoding.
    for needle in [
        "bomb.png",
        "60000x60000",
        "3600000000 pixels",
        "1073741824",
        "--max-pixels 3600000000",
    ] {
        fails_with(&dir, &["label", "bomb.png"], needle);
    }
    // Standard input too, before it is read to its end.
    let output = ccl_with(&dir, &["analyze", "-"], Some(&png_bomb(60_000, 60_000)));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("--max-pixels"),
        "{stderr}"
    );
    // The limit is the user's.
    succeeds(
        &dir,
        &[
            "gen", "--size", "20x20", "-d", "50", "-g", "2", "-o", "a.png",
        ],
    );
    fails_with(
        &dir,
        &["label", "a.png", "--max-pixels", "399"],
        "--max-pixels 400 reads it",
    );
    succeeds(&dir, &["label", "a.png", "--max-pixels", "400"]);
    fails_with(
        &dir,
        &["label", "a.png", "--max-pixels", "-5"],
        "must be 0 or more",
    );
    let help = succeeds(&dir, &["label", "--help"]);
    assert!(help.contains("[default: 1073741824]"), "{help}");
}

#[test]
fn negative_numbers_are_refused_by_name() {
    let dir = scratch("negative");
    succeeds(
        &dir,
        &["gen", "--size", "8x8", "-d", "50", "-g", "1", "-o", "a.png"],
    );
    for command in ["label", "analyze"] {
        fails_with(
            &dir,
            &[command, "a.png", "--threshold", "-1"],
            "the threshold must be 0 or more",
        );
        fails_with(
            &dir,
            &[command, "a.png", "--threshold=-1"],
            "the threshold must be 0 or more",
        );
    }
    fails_with(
        &dir,
        &["label", "a.png", "--threshold", "1.5"],
        "whole number",
    );
    // An option after it is still an option.
    fails_with(
        &dir,
        &["label", "a.png", "--threshold", "--otsu"],
        "--threshold",
    );
}

#[test]
fn label_cleans_up_by_size() {
    let dir = scratch("cleanup");
    succeeds(
        &dir,
        &[
            "gen", "--size", "64x48", "-d", "40", "-g", "1", "-o", "a.png",
        ],
    );
    let image = ccl::io::load_image(&dir.join("a.png")).unwrap();
    let (labels, _) = ccl::Variant::named("cpu-uf", ccl::Task::Label, Connectivity::Eight)
        .unwrap()
        .label(&image.view(), Connectivity::Eight)
        .unwrap();
    let stats = ccl::ComponentStats::from_labels(&labels);
    let at_least_3 = stats.iter().filter(|s| s.area >= 3).count();
    let out = succeeds(&dir, &["label", "a.png", "-a", "cpu-uf", "--min-size", "3"]);
    assert_eq!(out, format!("{at_least_3} components\n"));
    let out = succeeds(
        &dir,
        &[
            "label",
            "a.png",
            "-a",
            "cpu-uf",
            "--min-size",
            "3",
            "--largest",
            "2",
        ],
    );
    assert_eq!(out, format!("{} components\n", at_least_3.min(2)));
    fails_with(
        &dir,
        &["label", "a.png", "--min-size", "9", "--max-size", "2"],
        "exceeds",
    );
    fails_with(&dir, &["label", "a.png", "--largest", "-1"], "-1");
}
