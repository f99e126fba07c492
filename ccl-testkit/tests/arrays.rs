//! `ccl_cuda::interop::ArrayLabeler`, the path of CuPy arrays and PyTorch tensors,
//! for every CUDA variant that can run here: canonical labels, OpenCV's
//! stats rows and the feature columns, written into device memory the
//! caller owns, equal to the reference's on patterns, real and random
//! images (and on one image with more components than the first stats
//! array holds); and arrays of other element types and strides read as
//! their nonzero elements.

use std::sync::Arc;

use ccl as _;
use ccl_core::{Backend, BinaryImage, ComponentStats, Connectivity, LabelImage};
use ccl_cuda::cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};
use ccl_cuda::interop::{ArrayLabeler, DeviceArray, Element};
use ccl_cuda::runtime::DevPtr;
use ccl_testkit::cases::{Case, Source, pattern_cases, random_cases, real_cases};
use ccl_testkit::policy::testable_variants;

/// A labeler for every CUDA variant that runs here (none without a GPU).
fn labelers() -> Vec<ArrayLabeler> {
    testable_variants()
        .into_iter()
        .filter(|a| a.backend == Backend::Cuda)
        .map(|a| {
            let gpu = ccl_cuda::runtime::default_gpu().unwrap();
            let stream = gpu.new_stream().unwrap();
            ArrayLabeler::new(ccl_cuda::backend::variant_on(a.name, gpu, stream).unwrap()).unwrap()
        })
        .collect()
}

fn upload<T: DeviceRepr>(stream: &Arc<CudaStream>, values: &[T]) -> CudaSlice<T> {
    stream.clone_htod(values).unwrap()
}

fn zeroed<T: DeviceRepr + ValidAsZeroBits>(stream: &Arc<CudaStream>, len: usize) -> CudaSlice<T> {
    stream.alloc_zeros(len.max(1)).unwrap()
}

fn address<T>(slice: &CudaSlice<T>, stream: &CudaStream) -> u64 {
    DevPtr::of(slice, stream).address()
}

fn download<T: DeviceRepr + Default + Clone>(
    stream: &Arc<CudaStream>,
    slice: &CudaSlice<T>,
    len: usize,
) -> Vec<T> {
    if len == 0 {
        return Vec::new();
    }
    stream.clone_dtoh(&slice.slice(..len)).unwrap()
}

/// OpenCV's rows for the reference: background first, computed pixel by pixel.
fn expected_opencv(image: &BinaryImage<'_>, components: &[ComponentStats]) -> (Vec<i32>, Vec<f64>) {
    let mut background: Option<ComponentStats> = None;
    for y in 0..image.height() {
        for (x, &pixel) in image.row(y).iter().enumerate() {
            if pixel == 0 {
                let p = ComponentStats::pixel(x as u32, y as u32);
                match &mut background {
                    Some(b) => b.merge(&p),
                    None => background = Some(p),
                }
            }
        }
    }
    let mut stats = Vec::new();
    let mut centroids = Vec::new();
    let row = |s: &ComponentStats| {
        [
            s.x_min as i32,
            s.y_min as i32,
            s.width() as i32,
            s.height() as i32,
            s.area as i32,
        ]
    };
    match background {
        Some(b) => {
            stats.extend(row(&b));
            centroids.extend(<[f64; 2]>::from(b.centroid()));
        }
        None => {
            stats.extend([0; 5]);
            centroids.extend([f64::NAN; 2]);
        }
    }
    for c in components {
        stats.extend(row(c));
        centroids.extend(<[f64; 2]>::from(c.centroid()));
    }
    (stats, centroids)
}

fn same_floats(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Checks every output of `labeler` on `array` (the pixels of `image`)
/// against the reference.
fn check(labeler: &mut ArrayLabeler, array: &DeviceArray, image: &BinaryImage<'_>, context: &str) {
    let stream = labeler.variant().stream().clone();
    let info = labeler.variant().info();
    let reference = ccl_core::find("cpu-uf").unwrap();
    let pixels = image.pixel_count();
    for &connectivity in info.connectivities {
        let context = format!("{} {context}, {connectivity}-connectivity", info.name);
        let expected = reference
            .labeler()
            .unwrap()
            .label(image, connectivity)
            .unwrap()
            .canonical();
        let components = ComponentStats::from_labels(&expected);
        let labels = zeroed::<u32>(&stream, pixels);
        for with_stats in [false, true] {
            // SAFETY: a packed label per pixel; the array is the caller's.
            let count = unsafe {
                labeler.label(array, address(&labels, &stream), connectivity, with_stats)
            }
            .unwrap_or_else(|e| panic!("{context}: {e}"));
            assert_eq!(count, components.len(), "{context}: count");
            let got = LabelImage::new(
                image.width(),
                image.height(),
                download(&stream, &labels, pixels),
            )
            .unwrap();
            assert_eq!(
                got, expected,
                "{context}: labels (with stats: {with_stats})"
            );
        }
        let rows = components.len() + 1;
        let (stats, centroids) = (
            zeroed::<i32>(&stream, rows * 5),
            zeroed::<f64>(&stream, rows * 2),
        );
        // SAFETY: buffers of the documented sizes.
        unsafe {
            labeler.write_opencv_stats(address(&stats, &stream), address(&centroids, &stream))
        }
        .unwrap();
        let (expected_stats, expected_centroids) = expected_opencv(image, &components);
        assert_eq!(
            download(&stream, &stats, rows * 5),
            expected_stats,
            "{context}: OpenCV stats"
        );
        assert!(
            same_floats(
                &download(&stream, &centroids, rows * 2),
                &expected_centroids
            ),
            "{context}: OpenCV centroids"
        );
        if !info.analyzes {
            continue;
        }
        // SAFETY: the array is the caller's.
        let count = unsafe { labeler.analyze(array, connectivity) }.unwrap();
        assert_eq!(count, components.len(), "{context}: analyzed count");
        let (bounds, sums, centroids) = (
            zeroed::<u32>(&stream, count * 5),
            zeroed::<u64>(&stream, count * 2),
            zeroed::<f64>(&stream, count * 2),
        );
        // SAFETY: buffers of the documented sizes.
        unsafe {
            labeler.write_features(
                address(&bounds, &stream),
                address(&sums, &stream),
                address(&centroids, &stream),
            )
        }
        .unwrap();
        let expected_bounds: Vec<u32> = components
            .iter()
            .flat_map(|s| [s.area, s.x_min, s.y_min, s.x_max, s.y_max])
            .collect();
        let expected_sums: Vec<u64> = components.iter().flat_map(|s| [s.sum_x, s.sum_y]).collect();
        let expected_centroids: Vec<f64> = components
            .iter()
            .flat_map(|s| <[f64; 2]>::from(s.centroid()))
            .collect();
        assert_eq!(
            download(&stream, &bounds, count * 5),
            expected_bounds,
            "{context}: bounds"
        );
        assert_eq!(
            download(&stream, &sums, count * 2),
            expected_sums,
            "{context}: sums"
        );
        assert!(
            same_floats(
                &download(&stream, &centroids, count * 2),
                &expected_centroids
            ),
            "{context}: centroids"
        );
    }
}

/// The image's bytes on the device as a byte array rows `pitch` apart.
fn byte_array(
    stream: &Arc<CudaStream>,
    image: &BinaryImage<'_>,
    pitch: usize,
) -> (CudaSlice<u8>, DeviceArray) {
    let mut bytes = vec![0xAAu8; image.height() * pitch];
    for y in 0..image.height() {
        bytes[y * pitch..y * pitch + image.width()].copy_from_slice(image.row(y));
    }
    let slice = upload(stream, &bytes);
    let array = DeviceArray {
        address: address(&slice, stream),
        width: image.width(),
        height: image.height(),
        row_stride: pitch as isize,
        column_stride: 1,
        element: Element::Integer(1),
    };
    (slice, array)
}

fn check_cases(cases: impl Iterator<Item = ccl_core::Result<Case>>) {
    let mut labelers = labelers();
    if labelers.is_empty() {
        return;
    }
    for case in cases {
        let case = case.unwrap();
        let image = case.image.view();
        if image.is_empty() {
            continue;
        }
        for labeler in &mut labelers {
            let stream = labeler.variant().stream().clone();
            // A pitch past the width: the padding must never be read as pixels.
            let (_bytes, array) = byte_array(&stream, &image, image.width() + 3);
            check(labeler, &array, &image, &format!("{:?}", case.source));
        }
    }
}

#[test]
fn every_pattern() {
    check_cases(pattern_cases());
}

#[test]
fn real_and_random_images() {
    check_cases(
        real_cases()
            .unwrap()
            .into_iter()
            .map(Ok)
            .chain(random_cases(24)),
    );
}

#[test]
fn more_components_than_the_first_stats_array_holds() {
    let (width, height) = (1024, 512);
    check_cases(std::iter::once(Ok(Case {
        image: ccl_testdata::pattern("checkerboard", width, height).unwrap(),
        source: Source::Pattern {
            kind: "checkerboard",
            width,
            height,
        },
    })));
}

/// Element types and layouts: floats whose -0.0 is background and NaN
/// foreground, integers of every size, column-major and reversed arrays.
#[test]
fn arrays_of_any_element_type_and_strides() {
    let Some(mut labeler) = labelers().into_iter().next() else {
        return;
    };
    let stream = labeler.variant().stream().clone();
    let image = ccl_testdata::random_image(77, 45, 50, 1, 5).unwrap();
    let image = image.view();
    let (width, height) = (image.width(), image.height());
    let foreground = |x: usize, y: usize| image.row(y)[x] != 0;
    // Column-major (Fortran order) elements of `bytes` bytes, from `value`.
    fn column_major<const N: usize>(
        width: usize,
        height: usize,
        value: impl Fn(usize, usize) -> [u8; N],
    ) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(width * height * N);
        for x in 0..width {
            for y in 0..height {
                bytes.extend(value(x, y));
            }
        }
        bytes
    }
    let layouts: Vec<(Vec<u8>, Element, &str)> = vec![
        (
            column_major(width, height, |x, y| {
                if foreground(x, y) { f32::NAN } else { -0.0f32 }.to_le_bytes()
            }),
            Element::Float(4),
            "f32 NaN / -0.0",
        ),
        (
            column_major(width, height, |x, y| {
                if foreground(x, y) { -1.0e-300f64 } else { 0.0 }.to_le_bytes()
            }),
            Element::Float(8),
            "f64",
        ),
        (
            column_major(width, height, |x, y| {
                (foreground(x, y) as u16 * 256).to_le_bytes()
            }),
            Element::Integer(2),
            "u16 high byte",
        ),
        (
            column_major(width, height, |x, y| {
                (foreground(x, y) as i32 * -7).to_le_bytes()
            }),
            Element::Integer(4),
            "i32",
        ),
        (
            column_major(width, height, |x, y| {
                ((foreground(x, y) as u64) << 63).to_le_bytes()
            }),
            Element::Integer(8),
            "u64 top bit",
        ),
    ];
    for (bytes, element, name) in layouts {
        let size = match element {
            Element::Integer(n) | Element::Float(n) => n,
        };
        let slice = upload(&stream, &bytes);
        let array = DeviceArray {
            address: address(&slice, &stream),
            width,
            height,
            row_stride: size as isize,
            column_stride: (size * height) as isize,
            element,
        };
        check(
            &mut labeler,
            &array,
            &image,
            &format!("column-major {name}"),
        );
    }
    // Both axes reversed: element (0, 0) is the last byte in memory.
    let mut reversed: Vec<u8> = Vec::with_capacity(width * height);
    for y in (0..height).rev() {
        reversed.extend(image.row(y).iter().rev());
    }
    let slice = upload(&stream, &reversed);
    let array = DeviceArray {
        address: address(&slice, &stream) + (width * height - 1) as u64,
        width,
        height,
        row_stride: -(width as isize),
        column_stride: -1,
        element: Element::Integer(1),
    };
    check(&mut labeler, &array, &image, "reversed bytes");
}

#[test]
fn bad_arrays_are_refused() {
    let Some(mut labeler) = labelers().into_iter().next() else {
        return;
    };
    let stream = labeler.variant().stream().clone();
    let labels = zeroed::<u32>(&stream, 16);
    let empty = DeviceArray {
        address: address(&labels, &stream),
        width: 0,
        height: 4,
        row_stride: 4,
        column_stride: 1,
        element: Element::Integer(1),
    };
    let bad_element = DeviceArray {
        width: 4,
        element: Element::Float(1),
        ..empty
    };
    for (array, expected) in [(empty, "no pixels"), (bad_element, "unsupported element")] {
        // SAFETY: nothing is read: both arrays are refused before any launch.
        let error = unsafe {
            labeler.label(
                &array,
                address(&labels, &stream),
                Connectivity::Eight,
                false,
            )
        }
        .unwrap_err()
        .to_string();
        assert!(error.contains(expected), "{error}");
    }
}
