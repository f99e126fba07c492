//! `ccl`: connected component labeling (a label per pixel) and analysis
//! (area, bounding box and coordinate sums per component) of binary images,
//! on NVIDIA GPUs through CUDA and on the CPU. This crate links every
//! algorithm of the workspace into one registry and picks the preferred one
//! that runs here: a CUDA variant where a GPU works, else a CPU one.
//!
//! ```
//! use ccl::{BinaryImage, Connectivity};
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
//! // Or a variant by name (`ccl list` shows them all).
//! let reference = ccl::find("cpu-uf")?;
//! let same = reference.labeler()?.label(&image, Connectivity::Eight)?;
//! assert!(same.same_partition(&labels));
//! # Ok::<(), ccl::Error>(())
//! ```
//!
//! Nothing here needs a GPU, a CUDA toolkit or a driver at build time:
//! CUDA variants load the driver and NVRTC when first used, and report
//! themselves unavailable ([`Algorithm::probe`]) where they cannot run.
//!
//! The repository's README follows; its examples are tested here.
//!
#![doc = include_str!("../../README.md")]

pub use ccl_core::{
    Algorithm, Analyzer, Backend, BinaryImage, BinaryImageBuf, ComponentStats, Connectivity, Error,
    LabelImage, Labeler, MAX_PIXELS, Result, StageTime, Task, TimedRun, default_algorithm,
    default_algorithm_on, find,
};

/// Files: binary images in, label images out (`ccl-io`).
pub use ccl_io as io;

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
/// that runs here.
pub fn label(image: &BinaryImage<'_>, connectivity: Connectivity) -> Result<LabelImage> {
    let algorithm = default_algorithm(Task::Label, connectivity)?;
    Ok(algorithm
        .labeler()?
        .label(image, connectivity)?
        .into_canonical())
}

/// The features of every component of `image`, in raster order of the
/// components' first pixels (index i is canonical label i + 1), by the
/// preferred variant that runs here.
pub fn analyze(image: &BinaryImage<'_>, connectivity: Connectivity) -> Result<Vec<ComponentStats>> {
    let algorithm = default_algorithm(Task::Analyze, connectivity)?;
    algorithm.analyzer()?.analyze(image, connectivity)
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
        for connectivity in Connectivity::ALL {
            let labels = label(&image, connectivity).unwrap();
            assert_eq!(labels, labels.canonical());
            let stats = analyze(&image, connectivity).unwrap();
            assert_eq!(stats, ComponentStats::from_labels(&labels));
        }
    }
}
