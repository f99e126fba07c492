//! Tile-local union-find for images, batches and volumes on NVIDIA GPUs:
//! each block labels a tile of 32 × 16 × 16 voxels (32 × 256 pixels of an
//! image) of the packed bit image in shared memory, over the tile's runs,
//! and writes every voxel's parent, the first voxel of its tile component;
//! one thread per word of a row then merges the pairs of voxels on either
//! side of the tiles' faces in global memory. After the
//! tile-local labeling and border merging of O. Štava & B. Beneš,
//! "Connected component labeling in CUDA" (GPU Computing Gems, Emerald
//! Edition, 2011). Kernels in `tiles.cu`.
//!
//! ```
//! use ccl_core::{BinaryVolume, Connectivity, Labeler};
//! // Linking the crate registers its variant.
//! use ccl_cuda_tiles as _;
//!
//! // Two slices of 3 x 2: the voxels touch across the slices by a face
//! // (x = 0), by an edge (x = 2, y = 0 and 1) and not at all (x = 1).
//! let voxels = [1, 0, 1,
//!               0, 0, 0,
//!
//!               1, 0, 0,
//!               0, 0, 1];
//! let volume = BinaryVolume::new(&voxels, 3, 2, 2)?;
//! let tiles = ccl_core::find("tiles")?;
//! match tiles.labeler() {
//!     Ok(mut labeler) => {
//!         let labels = labeler.label_volume(&volume, Connectivity::Six)?;
//!         assert_eq!(labels.labels(), &[1, 0, 2, 0, 0, 0,  1, 0, 0, 0, 0, 3]);
//!         let labels = labeler.label_volume(&volume, Connectivity::Eighteen)?;
//!         assert_eq!(labels.labels(), &[1, 0, 2, 0, 0, 0,  1, 0, 0, 0, 0, 2]);
//!     }
//!     // No GPU, driver or NVRTC here: a clear error, never a panic.
//!     Err(reason) => println!("skipped: {reason}"),
//! }
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! Registered variant: `tiles` (4- and 8-connectivity on images and
//! batches of them, whose images are slices no step joins; 6-, 18- and
//! 26-connectivity on volumes; the kernels take a connectivity's backward
//! rows from a table; labels with its own root flags and last pass; a
//! volume's (and a batch's) features its own, an image's through the
//! shared back end of `ccl-cuda`). Timed runs report the stages `bits`,
//! `tiles`, `faces`, `roots` and `labels`, or `features` in place of
//! `labels` for a volume's analysis.
//!
//! A volume's features need no label pass: each tile's runs are gathered
//! in shared memory into a part per tile component (or per root), the part
//! that holds a component's root stores the component's whole record, and
//! the others are put aside in a scratch buffer and added once every root
//! has stored its record. A small component (most of them at low
//! densities) costs one store instead of an atomic update per run.
//!
//! Only the voxels of a tile's faces reach global memory's atomics, which
//! suits the short runs of fine random volumes. Inside a tile, unions take
//! a lane per touching pair of runs (pairs that other pairs imply left out,
//! from the bits alone), and every run's node is pointed at its root before
//! the voxels' parents are written. On the H100 (512^3, g = 1,
//! bench/2026-11-26-h100-tiles-flatten) it labels a 50 % volume in 2.32 ms
//! in 6-connectivity (`flsl-cd` 5.77); on the H200, with pairs in 18 and
//! 26 too (bench/2026-11-26-tiles-pairs), a 31 % volume in 2.24 ms in 18
//! (`flsl-cd` 6.16). Where runs are
//! long (coarse volumes, dense ones in 18 and 26), writing and reading a
//! parent per voxel and the face merges cost it more than `flsl-cd`'s
//! runs: the `auto` variant (`ccl-cuda-auto`) chooses between the two per
//! call. On 8192² images (H100, g = 1, bench/2026-11-26-image-tiles)
//! it labels 30–75 % in 0.55–0.81× `flsl-cd`'s time, and coarse ones (g =
//! 4, 16) in about twice it.

mod tiles;

pub use tiles::Tiles;
