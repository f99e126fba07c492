//! `ccl`: connected component labeling (a label per pixel) and analysis
//! (area, bounding box and coordinate sums per component) of binary images,
//! on NVIDIA GPUs through CUDA and on the CPU. This crate links every
//! algorithm of the workspace into one registry and picks the preferred one
//! that runs here: a CUDA variant where a GPU works, else a CPU one.
//!
//! ```
//! use ccl::{BinaryImage, Connectivity, Task};
//!
//! // Two blobs; any nonzero byte is foreground.
//! let pixels = [1, 1, 0, 0,
//!               0, 1, 0, 7,
//!               0, 0, 0, 7];
//! let image = BinaryImage::new(&pixels, 4, 3)?;
//!
//! // Labels 1..=N in raster order of each component's first pixel.
//! let labels = ccl::label(&image, Connectivity::Eight)?;
//! assert_eq!(labels.labels(), &[1, 1, 0, 0, 0, 1, 0, 2, 0, 0, 0, 2]);
//!
//! // The seven features of every component, in the same order.
//! let stats = ccl::analyze(&image, Connectivity::Eight)?;
//! assert_eq!((stats[0].area, stats[1].area), (3, 2));
//! assert_eq!(stats[1].centroid(), (3.0, 1.5));
//!
//! // OpenCV's `connectedComponentsWithStats`: row 0 the background, then
//! // left, top, width, height, area of each component.
//! let opencv = ccl::connected_components_with_stats(&image, Connectivity::Eight)?;
//! assert_eq!((opencv.count, &opencv.labels), (2, &labels));
//! assert_eq!(opencv.stats, [0, 0, 4, 3, 7,  0, 0, 2, 2, 3,  3, 1, 1, 2, 2]);
//!
//! // Or a variant by name (`ccl list` shows them all).
//! let reference = ccl::Variant::named("cpu-uf", Task::Label, Connectivity::Eight)?;
//! let (same, count) = reference.label(&image, Connectivity::Eight)?;
//! assert_eq!((&same, count), (&labels, 2));
//! # Ok::<(), ccl::Error>(())
//! ```
//!
//! Host images run on the variant's own hardware: a CPU variant labels them
//! in place; a CUDA variant gets them uploaded to a labeler leased from a
//! pool per variant (`ccl_cuda::interop::pool`), numbered there, and its
//! results copied back. OpenCV's statistics of either are laid out by one
//! definition, [`opencv`].
//!
//! Nothing here needs a GPU, a CUDA toolkit or a driver at build time:
//! CUDA variants load the driver and NVRTC when first used, and report
//! themselves unavailable ([`Algorithm::probe`]) where they cannot run.
//!
//! The repository's README follows; its examples are tested here.
//!
#![doc = include_str!("../../README.md")]

pub use ccl_core::{
    Algorithm, Analyzer, Backend, BinaryImage, BinaryImageBuf, BinaryVolume, BinaryVolumeBuf,
    ClassLabels, ClassMap, ClassValue, ComponentStats, Connectivity, Error, Filter, LabelImage,
    LabelVolume, Labeler, MAX_PIXELS, Measured, MinRootForest, Result, SharedMinRootForest,
    StageTime, Task, TimedRun, VolumeStats, default_algorithm, default_algorithm_on, find,
};

/// Files: binary images in, label images out (`ccl-io`).
pub use ccl_io as io;

/// OpenCV's `connectedComponentsWithStats` layout (`ccl-core`): what
/// [`connected_components_with_stats`] returns.
pub use ccl_core::opencv;

mod kept;
mod variant;

pub use variant::Variant;

// Each algorithm crate registers itself through `inventory`; linking it
// here, registrations included, puts it in every program that uses `ccl`.
// `build.rs` writes one `use … as _;` per dependency in Cargo.toml, the one
// list of algorithm crates; a workspace test (ccl-testkit's `registry`)
// fails for a crate that registers variants and is missing there.
include!(concat!(env!("OUT_DIR"), "/linked_crates.rs"));

/// Every registered variant, sorted by name.
pub fn algorithms() -> Vec<&'static Algorithm> {
    ccl_core::registry()
}

/// The canonical labels of `image` (1..=N in raster order of each
/// component's first pixel, 0 for background) by the preferred variant
/// that runs here ([`Variant::preferred`]).
pub fn label(image: &BinaryImage<'_>, connectivity: Connectivity) -> Result<LabelImage> {
    let (labels, _) = Variant::preferred(Task::Label, connectivity)?.label(image, connectivity)?;
    Ok(labels)
}

/// The features of every component of `image`, in raster order of the
/// components' first pixels (index i is canonical label i + 1), by the
/// preferred variant that runs here.
pub fn analyze(image: &BinaryImage<'_>, connectivity: Connectivity) -> Result<Vec<ComponentStats>> {
    Variant::preferred(Task::Analyze, connectivity)?.analyze(image, connectivity)
}

/// The canonical labels of a volume (1..=N in raster order of each
/// component's first voxel, z then y then x, as `scipy.ndimage.label`
/// numbers them) by the preferred variant for `connectivity` (6, 18 or 26)
/// that runs here.
///
/// ```
/// use ccl::{BinaryVolume, Connectivity};
///
/// // Two 2x2 slices; the voxels (0, 0, 0) and (1, 1, 1) share a corner.
/// let voxels = [1, 0,  0, 0,
///               0, 0,  0, 1];
/// let volume = BinaryVolume::new(&voxels, 2, 2, 2)?;
/// assert_eq!(ccl::label_volume(&volume, Connectivity::TwentySix)?.component_count(), 1);
/// let labels = ccl::label_volume(&volume, Connectivity::Six)?;
/// assert_eq!(labels.labels(), &[1, 0, 0, 0, 0, 0, 0, 2]);
/// let stats = ccl::analyze_volume(&volume, Connectivity::Six)?;
/// assert_eq!(stats[1].centroid(), (1.0, 1.0, 1.0));
/// // A volume's connectivity says it is a volume: 4 and 8 are refused.
/// assert!(ccl::label_volume(&volume, Connectivity::Four).is_err());
/// # Ok::<(), ccl::Error>(())
/// ```
pub fn label_volume(volume: &BinaryVolume<'_>, connectivity: Connectivity) -> Result<LabelVolume> {
    connectivity.check_dimensions(3)?;
    let (labels, _) =
        Variant::preferred(Task::Label, connectivity)?.label_volume(volume, connectivity)?;
    Ok(labels)
}

/// The features of every component of a volume, in raster order of the
/// components' first voxels, by the preferred variant that runs here.
pub fn analyze_volume(
    volume: &BinaryVolume<'_>,
    connectivity: Connectivity,
) -> Result<Vec<VolumeStats>> {
    connectivity.check_dimensions(3)?;
    Variant::preferred(Task::Analyze, connectivity)?.analyze_volume(volume, connectivity)
}

/// OpenCV's `connectedComponentsWithStats` of `image` by the preferred
/// variant that runs here: canonical labels, the component count N, and
/// `(N + 1) × 5` stats and `(N + 1) × 2` centroids, row 0 the background
/// ([`opencv`] defines the layout). [`Variant::connected_components_with_stats`]
/// names a variant.
pub fn connected_components_with_stats(
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
) -> Result<opencv::OpenCvComponents> {
    Variant::preferred(Task::Label, connectivity)?
        .connected_components_with_stats(image, connectivity)
}

/// The components of a class map (a segmentation's classes, an atlas):
/// neighbours of the same nonzero value are connected, so each class's
/// components are labeled apart, as cc3d's `connected_components` labels a
/// multilabel image. Canonical labels (1..=N in raster order of each
/// component's first pixel, z then y then x) and the class of each
/// component; on the GPU where one runs ([`label_classes_on`] picks).
/// 4 and 8 take an image (depth 1), 6, 18 and 26 any volume.
///
/// ```
/// use ccl::{ClassMap, Connectivity};
///
/// // Two classes that touch: two components where binary labeling sees one.
/// let values: [u8; 6] = [3, 3, 7,
///                        0, 7, 7];
/// let labeled = ccl::label_classes(&ClassMap::image(&values, 3, 2)?, Connectivity::Four)?;
/// assert_eq!(labeled.labels.labels(), &[1, 1, 2, 0, 2, 2]);
/// assert_eq!(labeled.classes, vec![3, 7]);
/// # Ok::<(), ccl::Error>(())
/// ```
pub fn label_classes<T: ClassValue>(
    map: &ClassMap<'_, T>,
    connectivity: Connectivity,
) -> Result<ClassLabels<T>> {
    let backend = if ccl_cuda::runtime::probe().is_ok() {
        Backend::Cuda
    } else {
        Backend::Cpu
    };
    label_classes_on(backend, map, connectivity)
}

/// [`label_classes`] on `backend`: the run-based CPU labeler of class maps
/// ([`ccl_cpu::label_classes`]), or the GPU's
/// ([`ccl_cuda::backend::ClassLabeler`], on the default GPU and stream).
pub fn label_classes_on<T: ClassValue>(
    backend: Backend,
    map: &ClassMap<'_, T>,
    connectivity: Connectivity,
) -> Result<ClassLabels<T>> {
    match backend {
        Backend::Cpu => ccl_cpu::label_classes(map, connectivity),
        Backend::Cuda => {
            let gpu = ccl_cuda::runtime::default_gpu()?;
            ccl_cuda::backend::ClassLabeler::new(&gpu, gpu.default_stream())?
                .label_map(map, connectivity)
        }
    }
}

/// The CPU's labeling of a class map ([`ccl_cpu::label_classes_into`])
/// into the caller's `labels`, one per value, every one written: nothing is
/// allocated for them. Returns the classes, `classes[i]` the value of
/// component `i + 1`.
///
/// ```
/// use ccl::{ClassMap, Connectivity};
///
/// let values: [u8; 4] = [3, 3, 0, 5];
/// let mut labels = vec![0; values.len()];
/// let classes = ccl::label_classes_into(&ClassMap::image(&values, 4, 1)?, Connectivity::Four, &mut labels)?;
/// assert_eq!((labels, classes), (vec![1, 1, 0, 2], vec![3, 5]));
/// # Ok::<(), ccl::Error>(())
/// ```
///
/// # Errors
/// As [`label_classes`]; an error where `labels` does not hold one label
/// per value.
pub fn label_classes_into<T: ClassValue>(
    map: &ClassMap<'_, T>,
    connectivity: Connectivity,
    labels: &mut [u32],
) -> Result<Vec<T>> {
    ccl_cpu::label_classes_into(map, connectivity, labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_and_analyze_agree_with_the_reference_on_a_real_image() {
        let coins = ccl_testdata::real_images()
            .unwrap()
            .into_iter()
            .find(|r| r.name == "coins")
            .unwrap();
        let image = coins.image.view();
        for connectivity in Connectivity::PLANE {
            let labels = label(&image, connectivity).unwrap();
            assert_eq!(labels, labels.canonical());
            let stats = analyze(&image, connectivity).unwrap();
            assert_eq!(stats, ComponentStats::from_labels(&labels));
            let opencv = connected_components_with_stats(&image, connectivity).unwrap();
            let expected = opencv::OpenCvStats::new(&image, &stats);
            assert_eq!((&opencv.labels, opencv.count), (&labels, stats.len()));
            assert_eq!(opencv.stats, expected.stats);
            let bits = |values: &[f64]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&opencv.centroids), bits(&expected.centroids));
        }
    }

    /// A name is checked for existence, connectivity and task before the
    /// probe, so that what the caller asked wrongly is reported first.
    #[test]
    fn naming_a_variant_reports_what_is_wrong_in_order() {
        let four = Connectivity::Four;
        assert!(matches!(
            Variant::named("no-such-variant", Task::Label, four),
            Err(Error::UnknownAlgorithm { .. })
        ));
        let eight_only = algorithms()
            .into_iter()
            .find(|a| !a.supports(four))
            .expect("a variant without 4-connectivity");
        assert!(matches!(
            Variant::named(eight_only.name, Task::Label, four),
            Err(Error::UnsupportedConnectivity { .. })
        ));
        let label_only = algorithms()
            .into_iter()
            .find(|a| !a.performs(Task::Analyze))
            .expect("a variant that only labels");
        let connectivity = label_only.connectivities[0];
        assert!(matches!(
            Variant::named(label_only.name, Task::Analyze, connectivity),
            Err(Error::UnsupportedTask { .. })
        ));
        for algorithm in algorithms() {
            let connectivity = algorithm.connectivities[0];
            let named = Variant::named(algorithm.name, Task::Label, connectivity);
            match algorithm.probe() {
                Ok(()) => assert_eq!(named.unwrap().algorithm().name, algorithm.name),
                Err(_) => assert!(matches!(named, Err(Error::Unavailable(message))
                    if message.contains(algorithm.name))),
            }
        }
    }

    #[test]
    fn an_image_without_pixels_has_no_components() {
        let image = BinaryImage::new(&[], 0, 3).unwrap();
        for connectivity in Connectivity::PLANE {
            assert_eq!(label(&image, connectivity).unwrap().labels(), &[] as &[u32]);
            assert_eq!(analyze(&image, connectivity).unwrap(), []);
            let opencv = connected_components_with_stats(&image, connectivity).unwrap();
            assert_eq!(
                (opencv.count, &opencv.stats[..]),
                (0, &ccl_core::opencv::NO_BACKGROUND_STATS[..])
            );
        }
    }
}
