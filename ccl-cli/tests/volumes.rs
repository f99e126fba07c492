//! `ccl` on volumes as a user runs it: `gen` writes the random and pattern
//! volumes of ccl-testdata, `label` writes labels that `numpy.load` and
//! tifffile read as `ccl::label_volume` numbers them, `analyze` prints the
//! volume features with z columns, `verify` runs the volume conformance
//! kit, and the inputs and arguments a volume cannot take are one-line
//! errors.

mod common;

use std::path::Path;

use common::*;

use ccl_core::{BinaryVolumeBuf, Connectivity};

/// A `.npy` array's header dictionary and data, read as numpy reads the
/// files `ccl` writes (format 1.0).
fn read_npy(path: &Path) -> (String, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "{}", path.display());
    let length = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + length])
        .unwrap()
        .to_owned();
    (header, bytes[10 + length..].to_vec())
}

/// The labels of a `.npy` of shape (depth, height, width) and `<u4`.
fn read_npy_labels(path: &Path, (width, height, depth): (usize, usize, usize)) -> Vec<u32> {
    let (header, data) = read_npy(path);
    let shape = format!("'shape': ({depth}, {height}, {width})");
    assert!(
        header.contains("'descr': '<u4'") && header.contains(&shape),
        "{header}"
    );
    data.chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

/// The labels of a TIFF stack of 32-bit pages of `width` x `height`.
fn read_tiff_labels(path: &Path, (width, height): (usize, usize)) -> Vec<u32> {
    let file = std::fs::File::open(path).unwrap();
    let mut tiff = tiff::decoder::Decoder::new(file).unwrap();
    let mut labels = Vec::new();
    loop {
        assert_eq!(
            tiff.dimensions().unwrap(),
            (width as u32, height as u32),
            "page {}",
            labels.len() / (width * height)
        );
        match tiff.read_image().unwrap() {
            tiff::decoder::DecodingResult::U32(page) => labels.extend(page),
            _ => panic!("not a 32-bit unsigned TIFF"),
        }
        if !tiff.more_images() {
            return labels;
        }
        tiff.next_image().unwrap();
    }
}

/// Writes a `.npy` of `uint8` values of shape (depth, height, width).
fn write_npy_u8(path: &Path, (width, height, depth): (usize, usize, usize), values: &[u8]) {
    write_npy(
        path,
        "|u1",
        &format!("({depth}, {height}, {width})"),
        values,
    );
}

/// `(width, height, depth)`.
fn sides(volume: &BinaryVolumeBuf) -> (usize, usize, usize) {
    (volume.width(), volume.height(), volume.depth())
}

#[test]
fn gen_writes_the_random_and_pattern_volumes_in_both_formats() {
    let dir = scratch("gen");
    let random = ccl_testdata::random_volume(21, 13, 9, 31, 2, 5).unwrap();
    let helix = ccl_testdata::volume_pattern("helix", 13, 11, 9).unwrap();
    for file in ["r.npy", "r.tif"] {
        let out = succeeds(
            &dir,
            &[
                "gen", "--size", "21x13x9", "-d", "31", "-g", "2", "--seed", "5", "-o", file,
            ],
        );
        let count = random.view().foreground_count();
        assert_eq!(
            out.trim(),
            format!("wrote {file}: 21x13x9, {count} foreground voxels")
        );
        assert_eq!(ccl_io::load_volume(&dir.join(file)).unwrap(), random);
    }
    for file in ["h.npy", "h.tiff"] {
        succeeds(
            &dir,
            &["gen", "--pattern", "helix", "--size", "13x11x9", "-o", file],
        );
        assert_eq!(ccl_io::load_volume(&dir.join(file)).unwrap(), helix);
    }
    // A .npy of uint8 0 / 1 of shape (depth, height, width), as numpy.save.
    let (header, data) = read_npy(&dir.join("r.npy"));
    assert!(
        header.contains("'descr': '|u1'") && header.contains("'shape': (9, 13, 21)"),
        "{header}"
    );
    assert_eq!(data, random.voxels());
}

#[test]
fn label_writes_the_labels_of_label_volume_in_both_formats() {
    let dir = scratch("label");
    succeeds(
        &dir,
        &[
            "gen", "--size", "40x24x16", "-d", "31", "-g", "1", "--seed", "3", "-o", "v.npy",
        ],
    );
    succeeds(
        &dir,
        &[
            "gen", "--size", "40x24x16", "-d", "31", "-g", "1", "--seed", "3", "-o", "v.tif",
        ],
    );
    let volume = ccl_testdata::random_volume(40, 24, 16, 31, 1, 3).unwrap();
    let size = sides(&volume);
    for c in Connectivity::VOLUME {
        let expected = ccl::label_volume(&volume.view(), c).unwrap();
        let count = expected.component_count();
        assert!(count > 1, "{c}: {count}");
        let c = c.to_string();
        for input in ["v.npy", "v.tif"] {
            for output in ["labels.npy", "labels.tif"] {
                let out = succeeds(&dir, &["label", input, "-c", &c, "-o", output]);
                assert_eq!(
                    out.trim(),
                    format!("{count} components in a 40x24x16 volume"),
                    "{input} -c {c}"
                );
                let labels = match output {
                    "labels.npy" => read_npy_labels(&dir.join(output), size),
                    _ => read_tiff_labels(&dir.join(output), (40, 24)),
                };
                assert_eq!(labels, expected.labels(), "{input} -c {c} -o {output}");
            }
        }
    }
    // Without -c, a 3-D .npy and a TIFF stack are volumes in 26-connectivity,
    // whichever variant labels them.
    let expected = ccl::label_volume(&volume.view(), Connectivity::TwentySix).unwrap();
    for input in ["v.npy", "v.tif"] {
        for algorithm in [&[][..], &["-a", "cpu-uf"], &["-a", "cpu-rle"]] {
            let args = [&["label", input, "-o", "d.npy"][..], algorithm].concat();
            succeeds(&dir, &args);
            assert_eq!(
                read_npy_labels(&dir.join("d.npy"), size),
                expected.labels(),
                "{args:?}"
            );
        }
    }
}

#[test]
fn inputs_that_are_volumes_by_their_shape_or_connectivity() {
    let dir = scratch("kinds");
    let volume = ccl_testdata::random_volume(12, 10, 1, 40, 1, 0).unwrap();
    // A 2-D image read with a volume's connectivity: a volume of depth 1.
    let image = ccl_testdata::random_image(12, 10, 40, 1, 0).unwrap();
    ccl_io::save_image(&image, &dir.join("a.png")).unwrap();
    let count = ccl::label_volume(&volume.view(), Connectivity::Six)
        .unwrap()
        .component_count();
    let out = succeeds(&dir, &["label", "a.png", "-c", "6", "-o", "l.npy"]);
    assert_eq!(
        out.trim(),
        format!("{count} components in a 12x10x1 volume")
    );
    assert_eq!(
        read_npy_labels(&dir.join("l.npy"), (12, 10, 1)),
        ccl::label_volume(&volume.view(), Connectivity::Six)
            .unwrap()
            .labels()
    );
    // A 2-D .npy is an image: 8-connectivity, and a PNG of its labels.
    let pixels: Vec<u8> = image.pixels().iter().map(|&p| p * 200).collect();
    let dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (10, 12), }";
    let mut npy = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
    npy.extend(format!("{dict:<117}\n").bytes());
    npy.extend(&pixels);
    std::fs::write(dir.join("i.npy"), &npy).unwrap();
    let count = ccl::label(&image.view(), Connectivity::Eight)
        .unwrap()
        .component_count();
    let out = succeeds(&dir, &["label", "i.npy", "-o", "i.png"]);
    assert_eq!(out.trim(), format!("{count} components"));
    assert!(dir.join("i.png").exists());
    // A 3-D .npy of one slice is still a volume.
    write_npy_u8(&dir.join("one.npy"), (12, 10, 1), &pixels);
    let out = succeeds(&dir, &["label", "one.npy"]);
    assert!(out.ends_with("in a 12x10x1 volume\n"), "{out}");
    // Standard input cannot be looked at first: it is read as a volume,
    // and one slice is an image.
    let stack = ccl_testdata::random_volume(12, 10, 3, 40, 1, 0).unwrap();
    ccl_io::save_volume(&stack, &dir.join("s.npy")).unwrap();
    let bytes = std::fs::read(dir.join("s.npy")).unwrap();
    let count = ccl::label_volume(&stack.view(), Connectivity::TwentySix)
        .unwrap()
        .component_count();
    let (out, _) = succeeds_with(&dir, &["label", "-"], Some(&bytes));
    assert_eq!(
        out.trim(),
        format!("{count} components in a 12x10x3 volume")
    );
    let png = std::fs::read(dir.join("a.png")).unwrap();
    let (out, _) = succeeds_with(&dir, &["label", "-", "-c", "4"], Some(&png));
    let count = ccl::label(&image.view(), Connectivity::Four)
        .unwrap()
        .component_count();
    assert_eq!(out.trim(), format!("{count} components"));
    fails_with_input(
        &dir,
        &["label", "-", "-c", "8"],
        Some(&bytes),
        "standard input is a volume of 3 slices: 8-connectivity is for images; give -c 6, 18 or 26",
    );
}

#[test]
fn binarization_options_apply_to_volumes() {
    let dir = scratch("binarize");
    // Two bright slabs (200) on a noisy dark background (10..=14), and a
    // black wall (0) between them, open at y = 3 and 4.
    let (w, h, d) = (15, 5, 5);
    let values: Vec<u8> = (0..w * h * d)
        .map(|i| {
            let x = i % w;
            match x / 5 {
                0 if x < 3 => 200,
                1 if x < 8 && i / w % h < 3 => 0,
                2 if x >= 12 => 200,
                _ => 10 + (i % 5) as u8,
            }
        })
        .collect();
    write_npy_u8(&dir.join("gray.npy"), (w, h, d), &values);
    // Every nonzero voxel: one component, and a note that it is not a mask.
    let (out, stderr) = succeeds_with(&dir, &["label", "gray.npy", "-a", "cpu-uf"], None);
    assert_eq!(out.trim(), "1 component in a 15x5x5 volume");
    assert!(
        stderr.contains("not a binary mask") && stderr.contains("nonzero voxel"),
        "{stderr}"
    );
    for args in [&["--threshold", "100"][..], &["--otsu"]] {
        let all = [&["label", "gray.npy", "-a", "cpu-uf"][..], args].concat();
        assert_eq!(
            succeeds(&dir, &all).trim(),
            "2 components in a 15x5x5 volume",
            "{all:?}"
        );
    }
    // Dark objects: the wall.
    let out = succeeds(
        &dir,
        &[
            "label",
            "gray.npy",
            "--threshold",
            "5",
            "--invert",
            "-c",
            "6",
        ],
    );
    assert_eq!(out.trim(), "1 component in a 15x5x5 volume");
    fails_with(
        &dir,
        &["label", "gray.npy", "--threshold", "255"],
        "uint8 values run from 0 to 255",
    );
}

#[test]
fn analyze_prints_the_volume_features_with_z_columns() {
    let dir = scratch("analyze");
    succeeds(
        &dir,
        &[
            "gen", "--size", "19x11x7", "-d", "20", "-g", "2", "--seed", "9", "-o", "v.tif",
        ],
    );
    let volume = ccl_testdata::random_volume(19, 11, 7, 20, 2, 9).unwrap();
    let expected = ccl::analyze_volume(&volume.view(), Connectivity::Six).unwrap();
    assert!(expected.len() > 2);
    let csv = succeeds(&dir, &["analyze", "v.tif", "-c", "6", "--format", "csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "label,area,x_min,y_min,z_min,x_max,y_max,z_max,sum_x,sum_y,sum_z,centroid_x,\
         centroid_y,centroid_z"
    );
    assert_eq!(lines.len(), 1 + expected.len());
    for (i, (line, s)) in lines[1..].iter().zip(&expected).enumerate() {
        let (cx, cy, cz) = s.centroid();
        let row = format!(
            "{},{},{},{},{},{},{},{},{},{},{},{cx},{cy},{cz}",
            i + 1,
            s.area,
            s.x_min,
            s.y_min,
            s.z_min,
            s.x_max,
            s.y_max,
            s.z_max,
            s.sum_x,
            s.sum_y,
            s.sum_z
        );
        assert_eq!(*line, row);
    }
    let json = succeeds(
        &dir,
        &[
            "analyze", "v.tif", "-a", "cpu-uf", "-c", "6", "--format", "json",
        ],
    );
    assert!(
        json.starts_with(
            r#"{"width":19,"height":11,"depth":7,"connectivity":6,"algorithm":"cpu-uf","components":"#
        ),
        "{json}"
    );
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["components"], expected.len());
    let stats = value["stats"].as_array().unwrap();
    assert_eq!(stats.len(), expected.len());
    for (row, s) in stats.iter().zip(&expected) {
        assert_eq!(row["z_max"].as_u64(), Some(u64::from(s.z_max)));
        assert_eq!(row["sum_z"].as_u64(), Some(s.sum_z));
        assert_eq!(row["centroid_z"].as_f64(), Some(s.centroid().2));
    }
    let table = succeeds(&dir, &["analyze", "v.tif", "-c", "6"]);
    assert_eq!(table.lines().count(), 1 + expected.len());
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header.len(), 14);
    assert_eq!(header[4], "z_min");
    // Without -c: 26-connectivity.
    let json = succeeds(&dir, &["analyze", "v.tif", "--format", "json"]);
    assert!(json.contains(r#""connectivity":26"#), "{json}");
}

#[test]
fn what_a_volume_cannot_take_is_one_error_line() {
    let dir = scratch("errors");
    for file in ["v.npy", "v.tif"] {
        succeeds(
            &dir,
            &["gen", "--size", "8x6x4", "-d", "50", "-g", "1", "-o", file],
        );
    }
    // An image's connectivity for a volume names the volume's.
    for c in ["4", "8"] {
        fails_with(&dir, &["label", "v.npy", "-c", c], "give -c 6, 18 or 26");
        fails_with(&dir, &["analyze", "v.tif", "-c", c], "give -c 6, 18 or 26");
    }
    fails_with(&dir, &["label", "v.tif", "-c", "4"], "--page N");
    // A page is an image's; a volume is every page.
    fails_with(
        &dir,
        &["label", "v.tif", "-c", "26", "--page", "0"],
        "a volume is every page",
    );
    fails_with(
        &dir,
        &["analyze", "v.npy", "--page", "1"],
        "a volume is every page",
    );
    // Labels of a volume are written as .npy or .tif, refused before work.
    fails_with(
        &dir,
        &["label", "v.npy", "-o", "labels.png"],
        "a .png holds one 2-D image, not a volume",
    );
    fails_with(
        &dir,
        &["label", "v.npy", "-o", "v.npy"],
        "that is the input volume",
    );
    // A variant that labels no volume says which connectivities it has.
    fails_with(
        &dir,
        &["label", "v.npy", "-a", "ha4-32"],
        "does not support",
    );
    // gen: unknown patterns list the kinds, and say which size the other
    // kind's pattern needs.
    fails_with(
        &dir,
        &["gen", "--pattern", "nope", "--size", "8x8x8", "-o", "p.npy"],
        "known volume patterns: ",
    );
    fails_with(
        &dir,
        &[
            "gen",
            "--pattern",
            "spiral",
            "--size",
            "8x8x8",
            "-o",
            "p.npy",
        ],
        "`spiral` is an image pattern: give --size WxH",
    );
    fails_with(
        &dir,
        &["gen", "--pattern", "helix", "--size", "8x8", "-o", "p.png"],
        "`helix` is a volume pattern: give --size WxHxD",
    );
    // gen: sizes without voxels or of four sides, volume file types.
    for (size, needle) in [
        (
            "8x0x8",
            "`8x0x8` has no voxels: give a size of at least 1x1x1",
        ),
        ("8x8x8x8", "WIDTHxHEIGHTxDEPTH"),
        ("8xx8", "WIDTHxHEIGHTxDEPTH"),
        ("8x8x-1", "WIDTHxHEIGHTxDEPTH"),
        ("8x8x", "WIDTHxHEIGHTxDEPTH"),
    ] {
        fails_with(
            &dir,
            &["gen", "--size", size, "-d", "5", "-g", "1", "-o", "g.npy"],
            needle,
        );
    }
    fails_with(
        &dir,
        &[
            "gen", "--size", "8x8x8", "-d", "5", "-g", "1", "-o", "g.png",
        ],
        "not a volume",
    );
    fails_with(
        &dir,
        &[
            "gen",
            "--size",
            "2048x2048x1024",
            "-d",
            "5",
            "-g",
            "1",
            "-o",
            "g.npy",
        ],
        "too large",
    );
    // Not a volume at all.
    std::fs::write(dir.join("bad.npy"), "not numpy").unwrap();
    fails_with(&dir, &["label", "bad.npy"], "bad.npy");
    fails_with(&dir, &["label", "bad.npy", "-c", "26"], "bad.npy");
}

#[test]
fn verify_runs_the_volume_kit_on_the_variants_that_label_volumes() {
    let dir = scratch("verify");
    // The small form for slow checkers: random volumes only.
    let out = succeeds(
        &dir,
        &[
            "verify",
            "-a",
            "cpu-rle",
            "--volumes",
            "--random-only",
            "--cases",
            "4",
        ],
    );
    assert!(
        out.starts_with("cpu-rle  ok") && out.contains("(6,18,26 x label,analyze on 4 volumes)"),
        "{out}"
    );
    // By default images and volumes, in one line per variant; random
    // volumes, every pattern volume and the edge-shaped ones.
    let out = succeeds(
        &dir,
        &[
            "verify",
            "-a",
            "cpu-uf",
            "--cases",
            "2",
            "--worst-side",
            "0",
        ],
    );
    let line = out.lines().next().unwrap();
    assert!(line.starts_with("cpu-uf  ok"), "{out}");
    let volumes = 2
        + ccl_testdata::volume_patterns().len()
        + ccl_testkit::volumes::edge_volume_cases().count();
    assert!(
        line.contains("(4,8 x label,analyze on ")
            && line.ends_with(&format!("; 6,18,26 x label,analyze on {volumes} volumes)")),
        "{line}"
    );
    // A connectivity picks the kind.
    let out = succeeds(
        &dir,
        &[
            "verify",
            "-a",
            "cpu-uf",
            "-c",
            "18",
            "--random-only",
            "--cases",
            "3",
        ],
    );
    assert!(out.contains("(18 x label,analyze on 3 volumes)"), "{out}");
    let out = succeeds(
        &dir,
        &[
            "verify",
            "-a",
            "cpu-uf",
            "--images",
            "--random-only",
            "--cases",
            "3",
        ],
    );
    assert!(out.contains("(4,8 x label,analyze on 3 images)"), "{out}");
    fails_with(
        &dir,
        &["verify", "-a", "cpu-uf", "-c", "8", "--volumes"],
        "--volumes verifies volumes in 6, 18 or 26",
    );
    fails_with(
        &dir,
        &["verify", "-a", "cpu-uf", "-c", "6", "--images"],
        "--images verifies images in 4 or 8",
    );
    // A named variant that labels no volume is no check at all.
    let output = ccl_with(
        &dir,
        &[
            "verify",
            "-a",
            "ke4",
            "--volumes",
            "--random-only",
            "--cases",
            "1",
        ],
        None,
    );
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success() && out.contains("FAILED"), "{out}");
}

/// `--max-gpu-memory` labels a `.npy` in strips (slabs) streamed from and
/// to files: the same labels as the whole volume's, at caps that force one
/// slice a slab and a few; on the CPU (`-a cpu-rle`, the cap its working
/// memory) so that every machine checks the merge, and with the default
/// algorithm where it runs.
#[test]
fn streamed_labels_equal_the_whole_volume() {
    let dir = scratch("streamed");
    let volume = ccl_testdata::random_volume(40, 30, 20, 33, 1, 9).unwrap();
    let size = sides(&volume);
    write_npy_u8(&dir.join("v.npy"), size, volume.view().as_bytes());
    for connectivity in ["6", "26"] {
        succeeds(
            &dir,
            &[
                "label",
                "v.npy",
                "-c",
                connectivity,
                "-a",
                "cpu-uf",
                "-o",
                "whole.npy",
            ],
        );
        let whole = read_npy_labels(&dir.join("whole.npy"), size);
        // 1200 voxels a slice at 25 + 4 bytes each, over 4 workers: one
        // slice a slab, then four.
        for cap in ["140KB", "600KB"] {
            let count = succeeds(
                &dir,
                &[
                    "label",
                    "v.npy",
                    "-c",
                    connectivity,
                    "-a",
                    "cpu-rle",
                    "--max-gpu-memory",
                    cap,
                    "-o",
                    "strips.npy",
                ],
            );
            assert_eq!(
                read_npy_labels(&dir.join("strips.npy"), size),
                whole,
                "-c {connectivity} cap {cap}"
            );
            let expected = whole.iter().max().unwrap();
            assert_eq!(count.trim(), format!("{expected} components"));
        }
        // Without -o, the count alone.
        let count = succeeds(
            &dir,
            &[
                "label",
                "v.npy",
                "-c",
                connectivity,
                "--max-gpu-memory",
                "1MB",
            ],
        );
        assert_eq!(
            count.trim(),
            format!("{} components", whole.iter().max().unwrap())
        );
    }
    // `ccl analyze --max-gpu-memory`: the features merged across slabs,
    // row for row those of the whole volume (CSV: no variant's name).
    for connectivity in ["6", "26"] {
        let whole = succeeds(
            &dir,
            &[
                "analyze",
                "v.npy",
                "-c",
                connectivity,
                "-a",
                "cpu-uf",
                "--format",
                "csv",
            ],
        );
        let merged = succeeds(
            &dir,
            &[
                "analyze",
                "v.npy",
                "-c",
                connectivity,
                "-a",
                "cpu-rle",
                "--max-gpu-memory",
                "140KB",
                "--format",
                "csv",
            ],
        );
        assert_eq!(merged, whole, "-c {connectivity}");
        assert!(whole.lines().count() > 2, "{whole}");
    }
    fails_with(
        &dir,
        &["label", "v.npy", "--max-gpu-memory", "1KB", "-a", "cpu-rle"],
        "memory cap",
    );
    fails_with(
        &dir,
        &["label", "v.npy", "--max-gpu-memory", "8GiB", "-o", "x.png"],
        "into a .npy or a .tif / .tiff",
    );
    fails_with(
        &dir,
        &[
            "label",
            "v.npy",
            "--max-gpu-memory",
            "8GiB",
            "--min-size",
            "3",
        ],
        "streams",
    );
    fails_with(
        &dir,
        &["label", "v.npy", "--max-gpu-memory", "lots"],
        "not a size",
    );
}

/// `--max-gpu-memory` streams TIFFs too: a TIFF image and a TIFF stack
/// (`ccl gen`'s, uncompressed, and LZW-compressed in strips of 3 rows) in,
/// TIFF labels out, those of the in-core `ccl label` of the same file, at
/// caps that force one plane a strip and a few; the features of a stack
/// merged across slabs are the in-core ones; a 16-bit TIFF is refused with
/// what to convert it to.
#[test]
fn streamed_tiffs_label_as_in_core() {
    let dir = scratch("streamed-tiff");
    succeeds(
        &dir,
        &[
            "gen", "--size", "97x61", "-d", "60", "-g", "1", "--seed", "4", "-o", "i.tif",
        ],
    );
    succeeds(
        &dir,
        &[
            "gen", "--size", "40x30x20", "-d", "33", "-g", "1", "--seed", "9", "-o", "v.tif",
        ],
    );
    // The same stack, LZW-compressed in strips of 3 rows.
    let volume = ccl_io::load_volume(&dir.join("v.tif")).unwrap();
    write_lzw_stack(&dir.join("v-lzw.tif"), sides(&volume), volume.voxels());
    // (input, connectivities, a page's sides, caps: a plane a strip, a few)
    let cases = [
        ("i.tif", ["4", "8"], (97, 61), ["12KB", "60KB"]),
        ("v.tif", ["6", "26"], (40, 30), ["140KB", "600KB"]),
        ("v-lzw.tif", ["6", "26"], (40, 30), ["140KB", "600KB"]),
    ];
    for (input, connectivities, page, caps) in cases {
        for connectivity in connectivities {
            let in_core = succeeds(
                &dir,
                &[
                    "label",
                    input,
                    "-c",
                    connectivity,
                    "-a",
                    "cpu-uf",
                    "-o",
                    "whole.tif",
                ],
            );
            let whole = read_tiff_labels(&dir.join("whole.tif"), page);
            let count = whole.iter().max().unwrap();
            assert!(*count > 1, "{input} -c {connectivity}");
            assert!(
                in_core.starts_with(&format!("{count} component")),
                "{in_core}"
            );
            for cap in caps {
                let streamed = succeeds(
                    &dir,
                    &[
                        "label",
                        input,
                        "-c",
                        connectivity,
                        "-a",
                        "cpu-rle",
                        "--max-gpu-memory",
                        cap,
                        "-o",
                        "strips.TIFF",
                    ],
                );
                assert_eq!(streamed.trim(), format!("{count} components"));
                assert_eq!(
                    read_tiff_labels(&dir.join("strips.TIFF"), page),
                    whole,
                    "{input} -c {connectivity} cap {cap}"
                );
            }
        }
    }
    // A TIFF in, a .npy out.
    succeeds(
        &dir,
        &[
            "label",
            "v-lzw.tif",
            "-a",
            "cpu-rle",
            "--max-gpu-memory",
            "140KB",
            "-o",
            "v.npy",
        ],
    );
    succeeds(&dir, &["label", "v.tif", "-a", "cpu-uf", "-o", "whole.tif"]);
    assert_eq!(
        read_npy_labels(&dir.join("v.npy"), sides(&volume)),
        read_tiff_labels(&dir.join("whole.tif"), (40, 30))
    );
    let whole = succeeds(
        &dir,
        &["analyze", "v.tif", "-a", "cpu-uf", "--format", "csv"],
    );
    let merged = succeeds(
        &dir,
        &[
            "analyze",
            "v-lzw.tif",
            "-a",
            "cpu-rle",
            "--max-gpu-memory",
            "140KB",
            "--format",
            "csv",
        ],
    );
    assert_eq!(merged, whole);
    // 16-bit samples: refused, saying what to convert them to.
    let mut gray16 = std::fs::File::create(dir.join("g16.tif")).unwrap();
    tiff::encoder::TiffEncoder::new(&mut gray16)
        .unwrap()
        .write_image::<tiff::encoder::colortype::Gray16>(4, 3, &[300; 12])
        .unwrap();
    let args = [
        "label",
        "g16.tif",
        "-a",
        "cpu-rle",
        "--max-gpu-memory",
        "1MB",
        "-o",
        "l.tif",
    ];
    fails_with(&dir, &args, "16-bit gray pages");
    fails_with(&dir, &args, "astype(numpy.uint8)");
    assert_eq!(ccl_with(&dir, &args, None).status.code(), Some(1));
    assert!(!dir.join("l.tif").exists());
}

/// Writes `voxels` (0 / 1) as an LZW-compressed TIFF stack of 8-bit pages
/// (foreground 255) in strips of 3 rows.
fn write_lzw_stack(path: &Path, sides: (usize, usize, usize), voxels: &[u8]) {
    let gray: Vec<u8> = voxels.iter().map(|&v| v * 255).collect();
    write_gray_stack(path, sides, &gray);
}

/// Writes `gray` as an LZW-compressed TIFF of 8-bit pages of `width` x
/// `height` (one page an image, several a stack) in strips of 3 rows.
fn write_gray_stack(path: &Path, (width, height, _): (usize, usize, usize), gray: &[u8]) {
    use tiff::encoder::{Compression, TiffEncoder, colortype::Gray8};
    let mut file = std::fs::File::create(path).unwrap();
    let mut encoder = TiffEncoder::new(&mut file)
        .unwrap()
        .with_compression(Compression::Lzw);
    for page in gray.chunks(width * height) {
        let mut image = encoder
            .new_image::<Gray8>(width as u32, height as u32)
            .unwrap();
        image.rows_per_strip(3).unwrap();
        image.write_data(page).unwrap();
    }
}

/// Gray values over a random volume's voxels: its foreground bright
/// (130..=229), its background dark (0..=109), both noisy, so that the
/// nonzero rule, a threshold and Otsu's each give other components.
fn gray_over(volume: &BinaryVolumeBuf) -> Vec<u8> {
    let mut numbers = ccl_testdata::Xorshift32::new(0x2545_F491);
    volume
        .voxels()
        .iter()
        .map(|&v| {
            let state = numbers.next_u32();
            if v != 0 {
                130 + (state % 100) as u8
            } else {
                (state % 110) as u8
            }
        })
        .collect()
}

/// `--threshold`, `--otsu` and `--invert` binarize a streamed input
/// (`--max-gpu-memory`) as they do the in-core one: of a gray `uint8`
/// `.npy` volume, a gray TIFF image and a gray TIFF stack, the same labels,
/// count, Otsu's threshold (said on stderr) and features; an `int8` `.npy`
/// by its signed values; a threshold that leaves no foreground, --alpha
/// and --page refused, naming them.
#[test]
fn streamed_gray_inputs_binarize_as_in_core() {
    let dir = scratch("streamed-gray");
    let volume = ccl_testdata::random_volume(40, 30, 20, 40, 2, 11).unwrap();
    let size = sides(&volume);
    let gray = gray_over(&volume);
    write_npy_u8(&dir.join("g.npy"), size, &gray);
    write_gray_stack(&dir.join("g.tif"), size, &gray);
    // An image: the first 97x61 values.
    write_gray_stack(&dir.join("i.tif"), (97, 61, 1), &gray[..97 * 61]);
    let rules: [&[&str]; 6] = [
        &["--threshold", "100"],
        &["--threshold", "0"],
        &["--otsu"],
        &["--invert"],
        &["--threshold", "120", "--invert"],
        &["--otsu", "--invert"],
    ];
    // (input, connectivity, labels out, a plane a strip under the cap)
    let cases = [
        ("g.npy", "6", "npy", "140KB"),
        ("g.tif", "26", "tif", "140KB"),
        ("i.tif", "8", "tif", "12KB"),
    ];
    let labels_of = |name: &str| match name.ends_with(".npy") {
        true => read_npy_labels(&dir.join(name), size),
        false if name.starts_with("i-") => read_tiff_labels(&dir.join(name), (97, 61)),
        false => read_tiff_labels(&dir.join(name), (40, 30)),
    };
    let mut otsu_thresholds = Vec::new();
    for (input, connectivity, out, cap) in cases {
        let prefix = if input == "i.tif" { "i-" } else { "" };
        let (whole_out, strips_out) = (
            format!("{prefix}whole.{out}"),
            format!("{prefix}strips.{out}"),
        );
        for rule in rules {
            let case = format!("{input} -c {connectivity} {rule:?}");
            let common = [&[input, "-c", connectivity][..], rule].concat();
            let in_core = [&["label"][..], &common, &["-a", "cpu-uf", "-o", &whole_out]].concat();
            let (in_core_count, in_core_note) = succeeds_with(&dir, &in_core, None);
            let streamed = [
                &["label"][..],
                &common,
                &["-a", "cpu-rle", "--max-gpu-memory", cap, "-o", &strips_out],
            ]
            .concat();
            let (streamed_count, streamed_note) = succeeds_with(&dir, &streamed, None);
            let whole = labels_of(&whole_out);
            let count = *whole.iter().max().unwrap();
            assert!(count >= 1, "{case}");
            assert!(labels_of(&strips_out) == whole, "{case}: other labels");
            // "N component(s)"; a volume's in-core count goes on to say
            // its size.
            let streamed_count = streamed_count.trim();
            assert!(
                streamed_count.starts_with(&format!("{count} component")),
                "{case}: {streamed_count}"
            );
            assert!(
                in_core_count.starts_with(streamed_count),
                "{case}: {in_core_count}"
            );
            if rule.contains(&"--otsu") {
                let note = |stderr: &str| {
                    stderr
                        .lines()
                        .find(|line| line.starts_with("note: Otsu's threshold for"))
                        .map(str::to_owned)
                };
                let in_core_note = note(&in_core_note).expect(&case);
                assert_eq!(note(&streamed_note), Some(in_core_note.clone()), "{case}");
                otsu_thresholds.push(in_core_note);
            }
        }
    }
    // Otsu's threshold lies between the dark and the bright values.
    assert!(
        otsu_thresholds.iter().all(|note| note
            .rsplit(' ')
            .next()
            .and_then(|t| t.parse::<u32>().ok())
            .is_some_and(|t| (60..180).contains(&t))),
        "{otsu_thresholds:?}"
    );
    // The features, merged across slabs, row for row the in-core ones.
    for rule in [&["--threshold", "100"][..], &["--otsu", "--invert"]] {
        let whole = succeeds(
            &dir,
            &[
                &[
                    "analyze", "g.npy", "-c", "6", "-a", "cpu-uf", "--format", "csv",
                ][..],
                rule,
            ]
            .concat(),
        );
        let merged = succeeds(
            &dir,
            &[
                &[
                    "analyze",
                    "g.npy",
                    "-c",
                    "6",
                    "-a",
                    "cpu-rle",
                    "--max-gpu-memory",
                    "140KB",
                    "--format",
                    "csv",
                ][..],
                rule,
            ]
            .concat(),
        );
        assert_eq!(merged, whole, "{rule:?}");
        assert!(whole.lines().count() > 2, "{whole}");
    }
    // int8: a threshold compares the signed values (200 is -56).
    write_npy(&dir.join("s.npy"), "|i1", "(20, 30, 40)", &gray);
    for rule in [
        &["--threshold", "50"][..],
        &["--threshold", "0", "--invert"],
    ] {
        let common = [&["s.npy", "-c", "6"][..], rule].concat();
        succeeds(
            &dir,
            &[
                &["label"][..],
                &common,
                &["-a", "cpu-uf", "-o", "whole.npy"],
            ]
            .concat(),
        );
        succeeds(
            &dir,
            &[
                &["label"][..],
                &common,
                &[
                    "-a",
                    "cpu-rle",
                    "--max-gpu-memory",
                    "140KB",
                    "-o",
                    "strips.npy",
                ],
            ]
            .concat(),
        );
        assert!(
            read_npy_labels(&dir.join("strips.npy"), size)
                == read_npy_labels(&dir.join("whole.npy"), size),
            "int8 {rule:?}: other labels"
        );
    }
    let streamed = |input: &'static str, rule: &[&'static str]| -> Vec<&'static str> {
        [
            &["label", input, "-a", "cpu-rle", "--max-gpu-memory", "1MB"][..],
            rule,
        ]
        .concat()
    };
    fails_with(
        &dir,
        &streamed("s.npy", &["--otsu"]),
        "s.npy: Otsu's threshold needs unsigned values",
    );
    // What leaves no foreground, refused as in core.
    for (input, t, range) in [
        ("g.npy", "255", "uint8 values run from 0 to 255"),
        ("g.tif", "255", "values run from 0 to 255"),
        ("i.tif", "300", "values run from 0 to 255"),
        ("s.npy", "127", "int8 values run from -128 to 127"),
    ] {
        let message = format!("threshold {t} leaves no foreground");
        fails_with(&dir, &["label", input, "--threshold", t], &message);
        fails_with(&dir, &["label", input, "--threshold", t], range);
        fails_with(&dir, &streamed(input, &["--threshold", t]), &message);
        fails_with(&dir, &streamed(input, &["--threshold", t]), range);
    }
    // A bool array: any nonzero byte is True, so 0 is the only threshold.
    // 0 1 0 / 1 0 2 inverted: three pixels apart.
    write_npy(&dir.join("b.npy"), "|b1", "(2, 3)", &[0, 1, 0, 1, 0, 2]);
    let rule = [
        "b.npy",
        "-c",
        "4",
        "--threshold",
        "0",
        "--invert",
        "-a",
        "cpu-rle",
    ];
    assert_eq!(
        succeeds(&dir, &[&["label"][..], &rule].concat()).trim(),
        "3 components"
    );
    assert_eq!(
        succeeds(
            &dir,
            &[&["label"][..], &rule, &["--max-gpu-memory", "1MB"]].concat()
        )
        .trim(),
        "3 components"
    );
    fails_with(
        &dir,
        &streamed("b.npy", &["--threshold", "1"]),
        "bool values run from 0 to 1",
    );
    // No alpha channel, and every page streamed.
    fails_with(&dir, &streamed("g.tif", &["--alpha"]), "--alpha");
    fails_with(&dir, &streamed("g.tif", &["--page", "1"]), "--page 1");
    fails_with(
        &dir,
        &streamed("g.npy", &["--page", "0"]),
        "extract the page",
    );
}

/// Writes a `.npy` of `descr` (`<i4`, `<f4`, ...) and `shape` (`(2, 3)`)
/// holding `data`.
fn write_npy(path: &Path, descr: &str, shape: &str, data: &[u8]) {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let mut bytes = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
    bytes.extend(format!("{dict:<117}\n").bytes());
    bytes.extend(data);
    std::fs::write(path, bytes).unwrap();
}

/// `--classes`: a class map's components, each class labeled apart, with
/// the class of every label; images and volumes; what it refuses.
#[test]
fn class_maps_label_each_class_apart() {
    let dir = scratch("classes");
    // Two classes that touch: 3 3 7 / 0 7 7 (int32), and a third region of
    // class 3 apart from the first.
    let image: [i32; 8] = [3, 3, 7, 3, 0, 7, 7, 0];
    let bytes: Vec<u8> = image.iter().flat_map(|v| v.to_le_bytes()).collect();
    write_npy(&dir.join("map.npy"), "<i4", "(2, 4)", &bytes);
    let printed = succeeds(
        &dir,
        &[
            "label",
            "map.npy",
            "--classes",
            "-c",
            "4",
            "-o",
            "labels.npy",
            "--class-table",
            "classes.csv",
        ],
    );
    assert_eq!(printed.trim(), "3 components in 2 classes");
    let (header, data) = read_npy(&dir.join("labels.npy"));
    assert!(header.contains("'shape': (2, 4)"), "{header}");
    let labels: Vec<u32> = data
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(labels, [1, 1, 2, 3, 0, 2, 2, 0]);
    assert_eq!(
        std::fs::read_to_string(dir.join("classes.csv")).unwrap(),
        "label,class\n1,3\n2,7\n3,3\n"
    );
    // A checker of two classes: four components in 4-connectivity, two in
    // 8 (each class joined through its corner), the default for an image.
    let checker: Vec<u8> = [3i32, 7, 7, 3]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    write_npy(&dir.join("checker.npy"), "<i4", "(2, 2)", &checker);
    let printed = succeeds(&dir, &["label", "checker.npy", "--classes", "-c", "4"]);
    assert_eq!(printed.trim(), "4 components in 2 classes");
    let printed = succeeds(&dir, &["label", "checker.npy", "--classes"]);
    assert_eq!(printed.trim(), "2 components in 2 classes");
    // A volume of two slices (uint16): 6 keeps the corner-touching voxels of
    // one class apart, 26 joins them; labels (depth, height, width).
    let volume: [u16; 8] = [5, 0, 0, 0, 0, 0, 0, 5];
    let bytes: Vec<u8> = volume.iter().flat_map(|v| v.to_le_bytes()).collect();
    write_npy(&dir.join("vol.npy"), "<u2", "(2, 2, 2)", &bytes);
    assert_eq!(
        succeeds(&dir, &["label", "vol.npy", "--classes", "-c", "6"]).trim(),
        "2 components in 1 class"
    );
    succeeds(
        &dir,
        &["label", "vol.npy", "--classes", "-o", "vol-labels.npy"],
    );
    assert_eq!(
        read_npy_labels(&dir.join("vol-labels.npy"), (2, 2, 2)),
        [1, 0, 0, 0, 0, 0, 0, 1]
    );
    // Refused: floats, a volume's connectivity mismatch, binarizing flags,
    // anything but a .npy.
    write_npy(&dir.join("f.npy"), "<f4", "(1, 2)", &[0; 8]);
    fails_with(&dir, &["label", "f.npy", "--classes"], "integer");
    fails_with(
        &dir,
        &["label", "vol.npy", "--classes", "-c", "4"],
        "6, 18 or 26",
    );
    fails_with(
        &dir,
        &["label", "map.npy", "--classes", "--otsu"],
        "--classes",
    );
    std::fs::write(dir.join("m.png"), b"not a png").unwrap();
    fails_with(&dir, &["label", "m.png", "--classes"], ".npy of integers");
}
