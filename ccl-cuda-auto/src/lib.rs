//! The labeler chosen per call on NVIDIA GPUs: `tiles` (tile-local
//! union-find in shared memory, `ccl-cuda-tiles`) for fine images and
//! volumes, whose runs are short and many, and `flsl-cd` (runs and a global
//! forest of them, `ccl-cuda-flsl`) for the rest. Kernel in `sample.cu`.
//!
//! ```
//! use ccl_core::{BinaryVolume, Connectivity, Labeler};
//! // Linking the crate registers its variant.
//! use ccl_cuda_auto as _;
//!
//! // Two slices of 3 x 2: the voxels touch across the slices by a face
//! // (x = 0), by an edge (x = 2, y = 0 and 1) and not at all (x = 1).
//! let voxels = [1, 0, 1,
//!               0, 0, 0,
//!
//!               1, 0, 0,
//!               0, 0, 1];
//! let volume = BinaryVolume::new(&voxels, 3, 2, 2)?;
//! let auto = ccl_core::find("auto")?;
//! match auto.labeler() {
//!     Ok(mut labeler) => {
//!         let labels = labeler.label_volume(&volume, Connectivity::Six)?;
//!         assert_eq!(labels.labels(), &[1, 0, 2, 0, 0, 0,  1, 0, 0, 0, 0, 3]);
//!     }
//!     // No GPU, driver or NVRTC here: a clear error, never a panic.
//!     Err(reason) => println!("skipped: {reason}"),
//! }
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! Registered variant: `auto` (4 and 8 on images and batches, 6, 18 and
//! 26 on volumes; the default volume labeler and analyzer wherever a GPU
//! runs, while
//! images are `flsl-cd`'s unless `auto` is named: the sample's round trip,
//! 0.025 ms, costs coarse images more than fine ones gain). An image, batch
//! or volume of at least 2^20 pixels is sampled first: whole rows, about
//! 2^22 pixels of them, counted (foreground, runs) by one kernel and copied
//! back, and the bits that both labelers read are packed while the host
//! waits for the copy (stage `choose` of a timed run, before the chosen
//! variant's own stages). Many runs per voxel (≥ 0.07: fine random volumes
//! from 10 %) pick `tiles`, whose unions stay in shared memory, except above
//! 85 % foreground in 18 and 26, where `flsl-cd`'s runs grow long and its
//! unions few; an image needs ≥ 0.15 runs per pixel (random images
//! at g = 1 from about 20 % to 80 %). The rest (coarse images and volumes,
//! segmentations whose runs are long, small inputs) go to `flsl-cd`. The
//! choice changes speed, never the labels: both give the canonical labels.
//! A volume's features come from the labeler chosen for them (the default
//! volume analyzer too): the same rule, and also `tiles` for coarse sparse
//! volumes (runs of two voxels or more, at most 35 / 12 / 7 % foreground
//! in 6 / 18 / 26), whose features it gathers per tile with a store per
//! component where `flsl-cd` adds per run. An image's features are
//! `flsl-cd`'s.

mod auto;

pub use auto::Auto;
