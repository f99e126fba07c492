//! Files labeled in strips: a TIFF image and a TIFF stack, uncompressed and
//! LZW-compressed, read plane by plane ([`TiffSource`]) and labeled into a
//! label TIFF ([`TiffSink`]) with strips from one plane to the whole,
//! equal the whole image's labels as the `tiff` crate decodes them; on the
//! CPU always and on the GPU where one runs.

use std::path::{Path, PathBuf};

use ccl::{Backend, BinaryImage, BinaryVolume, Connectivity, Task, Variant};
use ccl_scale::{LabelWord, Shape, StripLabeler, StripOptions, TiffSink, TiffSource};
use ccl_testdata::{random_image, random_volume};
use ccl_testkit::policy::testable_backends;
use tiff::encoder::{Compression, TiffEncoder, colortype::Gray8};

/// A fresh, empty folder for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("scale-files-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `pixels` (0 / 1, packed) as 8-bit pages of `width` × `height`
/// (foreground 255), 3 rows a strip.
fn write_tiff(
    path: &Path,
    (width, height): (usize, usize),
    pixels: &[u8],
    compression: Compression,
) {
    let mut file = std::fs::File::create(path).unwrap();
    let mut encoder = TiffEncoder::new(&mut file)
        .unwrap()
        .with_compression(compression);
    for page in pixels.chunks(width * height) {
        let gray: Vec<u8> = page.iter().map(|&p| p * 255).collect();
        let mut image = encoder
            .new_image::<Gray8>(width as u32, height as u32)
            .unwrap();
        image.rows_per_strip(3).unwrap();
        image.write_data(&gray).unwrap();
    }
}

/// Every label of a label TIFF, page after page, each page checked to be
/// `width` × `height`.
fn read_labels(path: &Path, (width, height): (usize, usize)) -> Vec<u64> {
    let mut decoder = tiff::decoder::Decoder::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut labels = Vec::new();
    loop {
        assert_eq!(decoder.dimensions().unwrap(), (width as u32, height as u32));
        match decoder.read_image().unwrap() {
            tiff::decoder::DecodingResult::U32(page) => {
                labels.extend(page.into_iter().map(u64::from))
            }
            tiff::decoder::DecodingResult::U64(page) => labels.extend(page),
            _ => panic!("not 32- or 64-bit unsigned labels"),
        }
        if !decoder.more_images() {
            return labels;
        }
        decoder.next_image().unwrap();
    }
}

fn whole_image(image: &BinaryImage<'_>, connectivity: Connectivity) -> Vec<u64> {
    let reference = Variant::named("cpu-uf", Task::Label, connectivity).unwrap();
    let labels = reference.label(image, connectivity).unwrap().0;
    labels.into_labels().into_iter().map(u64::from).collect()
}

fn whole_volume(volume: &BinaryVolume<'_>, connectivity: Connectivity) -> Vec<u64> {
    let reference = Variant::named("cpu-uf", Task::Label, connectivity).unwrap();
    let labels = reference.label_volume(volume, connectivity).unwrap().0;
    labels.into_labels().into_iter().map(u64::from).collect()
}

/// Labels the TIFF at `input` in strips of `strip_planes` into a label
/// TIFF of `L` and checks it against `expected`.
fn check<L: LabelWord>(
    backend: Backend,
    input: &Path,
    connectivity: Connectivity,
    strip_planes: usize,
    expected: &[u64],
    case: &str,
) where
    TiffSink: ccl_scale::PlaneSink<L>,
{
    let source = TiffSource::open(input).unwrap();
    let shape = source.shape();
    let options = StripOptions {
        backend,
        max_strip_planes: Some(strip_planes),
        ..StripOptions::default()
    };
    let labeler = StripLabeler::new(options, connectivity).unwrap();
    let output = input.with_file_name("labels.tif");
    let sink = TiffSink::create(&output, shape, L::MAX > u64::from(u32::MAX)).unwrap();
    let report = labeler
        .label::<L>(shape, connectivity, &source, &sink)
        .unwrap();
    drop(sink);
    let case = format!("{case} {backend:?} {connectivity} strips of {strip_planes}");
    assert_eq!(
        report.count,
        expected.iter().copied().max().unwrap_or(0),
        "{case}"
    );
    assert_eq!(
        report.strips,
        shape.planes().div_ceil(strip_planes),
        "{case}"
    );
    let (width, height) = match shape {
        Shape::Image { width, height } | Shape::Volume { width, height, .. } => (width, height),
    };
    assert!(read_labels(&output, (width, height)) == expected, "{case}");
}

#[test]
fn tiff_images_labeled_in_strips_equal_the_whole_image() {
    let dir = scratch("image");
    let image = random_image(97, 61, 60, 1, 7).unwrap();
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        for (compression, name) in [
            (Compression::Uncompressed, "raw"),
            (Compression::Lzw, "LZW"),
        ] {
            let input = dir.join("image.tif");
            write_tiff(&input, (97, 61), image.view().as_bytes(), compression);
            let source = TiffSource::open(&input).unwrap();
            assert_eq!(
                source.shape(),
                Shape::Image {
                    width: 97,
                    height: 61
                }
            );
            for connectivity in Connectivity::PLANE {
                let expected = whole_image(&image.view(), connectivity);
                for strip_planes in [1, 4, 7, 61] {
                    check::<u32>(backend, &input, connectivity, strip_planes, &expected, name);
                }
                check::<u64>(backend, &input, connectivity, 5, &expected, name);
            }
        }
    }
}

#[test]
fn tiff_stacks_labeled_in_slabs_equal_the_whole_volume() {
    let dir = scratch("volume");
    let volume = random_volume(23, 19, 17, 35, 1, 3).unwrap();
    for backend in testable_backends(ccl_cuda::runtime::probe()) {
        for (compression, name) in [
            (Compression::Uncompressed, "raw"),
            (Compression::Lzw, "LZW"),
        ] {
            let input = dir.join("volume.tif");
            write_tiff(&input, (23, 19), volume.view().as_bytes(), compression);
            let source = TiffSource::open(&input).unwrap();
            assert_eq!(
                source.shape(),
                Shape::Volume {
                    width: 23,
                    height: 19,
                    depth: 17
                }
            );
            for connectivity in Connectivity::VOLUME {
                let expected = whole_volume(&volume.view(), connectivity);
                for strip_planes in [1, 4, 17] {
                    check::<u32>(backend, &input, connectivity, strip_planes, &expected, name);
                }
                check::<u64>(backend, &input, connectivity, 3, &expected, name);
            }
        }
    }
}
