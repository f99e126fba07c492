//! `ccl_cuda::interop::ArrayLabeler`, the path of CuPy arrays and PyTorch tensors,
//! for every CUDA variant that can run here: canonical labels, OpenCV's
//! stats rows (the device kernel against `ccl_core::opencv`, the one
//! definition of the layout) and the feature columns, written into device
//! memory the caller owns, equal to the reference's on patterns, real and
//! random images (and on one image with more components than the first
//! stats array holds); arrays of other element types and strides read as
//! their nonzero elements; and pooled labelers ordered on a caller's stream
//! (`ccl_cuda::interop::pool::on_caller_stream`).

use std::sync::Arc;

use ccl as _;
use ccl_core::opencv::OpenCvStats;
use ccl_core::{Backend, BinaryImage, ComponentStats, Connectivity, LabelImage};
use ccl_cuda::cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};
use ccl_cuda::interop::pool::on_caller_stream;
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

fn same_floats(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// After a label call with stats that found `count` components of
/// `image`: `write_opencv_stats`'s device output is `ccl_core::opencv`'s
/// layout of the reference's `components`, centroids bit for bit.
fn check_opencv_stats(
    labeler: &mut ArrayLabeler,
    count: usize,
    image: &BinaryImage<'_>,
    components: &[ComponentStats],
    context: &str,
) {
    let stream = labeler.variant().stream().clone();
    let rows = count + 1;
    let (stats, centroids) = (
        zeroed::<i32>(&stream, rows * 5),
        zeroed::<f64>(&stream, rows * 2),
    );
    // SAFETY: buffers of the documented sizes.
    unsafe { labeler.write_opencv_stats(address(&stats, &stream), address(&centroids, &stream)) }
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let expected = OpenCvStats::new(image, components);
    assert_eq!(
        download(&stream, &stats, rows * 5),
        expected.stats,
        "{context}: OpenCV stats"
    );
    assert!(
        same_floats(
            &download(&stream, &centroids, rows * 2),
            &expected.centroids
        ),
        "{context}: OpenCV centroids"
    );
}

/// Checks every output of `labeler` on `array` (the pixels of `image`)
/// against the reference.
fn check(labeler: &mut ArrayLabeler, array: &DeviceArray, image: &BinaryImage<'_>, context: &str) {
    let stream = labeler.variant().stream().clone();
    let info = labeler.variant().info();
    let reference = ccl_core::find("cpu-uf").unwrap();
    let pixels = image.pixel_count();
    for &connectivity in info.connectivities.iter().filter(|c| c.dimensions() == 2) {
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
        check_opencv_stats(labeler, components.len(), image, &components, &context);
        assert_eq!(
            labeler.read_features().unwrap(),
            components,
            "{context}: features of the labels"
        );
        if !info.analyzes {
            continue;
        }
        // SAFETY: the array is the caller's.
        let count = unsafe { labeler.analyze(array, connectivity) }.unwrap();
        assert_eq!(count, components.len(), "{context}: analyzed count");
        assert_eq!(
            labeler.read_features().unwrap(),
            components,
            "{context}: features read back"
        );
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

/// `write_opencv_stats` writes `ccl_core::opencv`'s layout on the edge
/// images of row 0 — all background, all foreground (row 0 all zeros with
/// a NaN centroid), one row, one column — and on random images of every
/// density, at sizes around the warp and block borders.
#[test]
fn opencv_stats_are_the_host_definition() {
    let mut labelers = labelers();
    if labelers.is_empty() {
        return;
    }
    let mut images = Vec::new();
    for (width, height) in [(1, 1), (1, 300), (300, 1), (37, 53), (1025, 3)] {
        for kind in ["empty", "full"] {
            let image = ccl_testdata::pattern(kind, width, height).unwrap();
            images.push((image, format!("{kind} {width}x{height}")));
        }
    }
    let sizes = [(1, 300), (300, 1), (64, 64), (257, 33), (1100, 40)];
    for (i, (width, height)) in sizes.into_iter().enumerate() {
        for density in [0, 3, 50, 97, 100] {
            let seed = (i * 7) as u32 + density;
            let image = ccl_testdata::random_image(width, height, density, 1, seed).unwrap();
            images.push((
                image,
                format!("random {width}x{height} d{density} seed {seed}"),
            ));
        }
    }
    let reference = ccl_core::find("cpu-uf").unwrap();
    for (image, name) in &images {
        let image = image.view();
        for labeler in &mut labelers {
            let stream = labeler.variant().stream().clone();
            let info = labeler.variant().info();
            let (_bytes, array) = byte_array(&stream, &image, image.width() + 1);
            let labels = zeroed::<u32>(&stream, image.pixel_count());
            for &connectivity in info.connectivities.iter().filter(|c| c.dimensions() == 2) {
                let context = format!("{} {name}, {connectivity}-connectivity", info.name);
                let expected = reference.labeler().unwrap().label(&image, connectivity);
                let components = ComponentStats::from_labels(&expected.unwrap());
                // SAFETY: a packed label per pixel; the array is the caller's.
                let count =
                    unsafe { labeler.label(&array, address(&labels, &stream), connectivity, true) }
                        .unwrap_or_else(|e| panic!("{context}: {e}"));
                assert_eq!(count, components.len(), "{context}: count");
                check_opencv_stats(labeler, count, &image, &components, &context);
            }
        }
    }
}

/// A pooled labeler works in the order of a caller's stream: it sees the
/// upload queued there, and the caller's copy queued after the call sees
/// its labels; a failing call leaves the pool usable.
#[test]
fn pooled_labelers_follow_the_callers_stream() {
    let Some(algorithm) = testable_variants()
        .into_iter()
        .find(|a| a.backend == Backend::Cuda)
    else {
        return;
    };
    let gpu = ccl_cuda::runtime::default_gpu().unwrap();
    let caller = gpu.new_stream().unwrap();
    let image = ccl_testdata::random_image(300, 200, 55, 2, 9).unwrap();
    let image = image.view();
    let reference = ccl_core::find("cpu-uf").unwrap();
    for &connectivity in algorithm
        .connectivities
        .iter()
        .filter(|c| c.dimensions() == 2)
    {
        let expected = reference
            .labeler()
            .unwrap()
            .label(&image, connectivity)
            .unwrap()
            .canonical();
        let (_bytes, array) = byte_array(&caller, &image, image.width());
        let labels = zeroed::<u32>(&caller, image.pixel_count());
        let labels_address = address(&labels, &caller);
        for _ in 0..2 {
            let work = |labeler: &mut ArrayLabeler, _: &CudaStream| {
                // SAFETY: the array and the labels are device memory of the
                // labeler's device, ready in the caller's stream's order,
                // which the labeler follows.
                unsafe { labeler.label(&array, labels_address, connectivity, false) }
            };
            // SAFETY: `caller` is a stream of device 0, alive for the call.
            let count = unsafe { on_caller_stream(algorithm, 0, caller.cu_stream(), work) }
                .unwrap()
                .unwrap();
            let got = LabelImage::new(
                image.width(),
                image.height(),
                download(&caller, &labels, image.pixel_count()),
            )
            .unwrap();
            assert_eq!((count, &got), (expected.component_count(), &expected));
        }
        let refuse = |_: &mut ArrayLabeler, _: &CudaStream| Err::<(), _>("refused by the test");
        // SAFETY: `caller` is a stream of device 0, alive for the call.
        let failed = unsafe { on_caller_stream(algorithm, 0, caller.cu_stream(), refuse) };
        assert_eq!(failed.unwrap(), Err("refused by the test"));
    }
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

/// `HostWord`, the copy that brings a labeling's component count to the
/// host: the word as the stream left it at the copy, not after; nothing
/// once forgotten.
#[test]
fn a_host_word_is_the_word_at_its_copy() {
    if !testable_variants()
        .iter()
        .any(|a| a.backend == Backend::Cuda)
    {
        return;
    }
    let gpu = ccl_cuda::runtime::default_gpu().unwrap();
    let stream = gpu.new_stream().unwrap();
    let mut word = ccl_cuda::runtime::HostWord::new(&stream).unwrap();
    assert_eq!(word.wait().unwrap(), None, "nothing queued yet");
    let mut device = upload(&stream, &[7u32, 9]);
    word.queue(&stream, &device).unwrap();
    // Queued after the copy: not what the copy brings.
    stream
        .memcpy_htod(&[11u32], &mut device.slice_mut(..1))
        .unwrap();
    assert_eq!(word.wait().unwrap(), Some(7));
    word.queue(&stream, &device).unwrap();
    assert_eq!(word.wait().unwrap(), Some(11));
    word.forget();
    assert_eq!(word.wait().unwrap(), None, "forgotten");
}
