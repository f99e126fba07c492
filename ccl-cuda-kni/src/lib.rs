//! Kasagi, Nakano & Ito's subregion-graph labeling on NVIDIA GPUs
//! (A. Kasagi, K. Nakano & Y. Ito, "Fast image component labeling on the
//! GPU"), with subregions of M = 32 pixels square, in 4- and
//! 8-connectivity (the paper is 4-connectivity; 8 adds the diagonal pairs
//! across subregion borders). The paper's stages: subregions labeled in
//! shared memory; compact labels for their local components
//! (LabelAllocate, in raster order, through the shared back end's ranking);
//! per-level lists of the label pairs that touch across the inner borders
//! of regions of 2^l M pixels square (MakeEdge); rounds of unions over each
//! level's edges until one changes nothing (LabelPropagate); and a final
//! LookUp. The labels are 1 + the raster index of each component's first
//! pixel, so features come from the shared back end of `ccl-cuda`. Kernels
//! in `kni.cu`.
//!
//! ```
//! use ccl_core::{BinaryImage, Connectivity, Labeler};
//! // Linking the crate registers its variant.
//! use ccl_cuda_kni as _;
//!
//! let pixels = [1, 0, 1,
//!               0, 1, 0];
//! let image = BinaryImage::new(&pixels, 3, 2)?;
//! match ccl_core::find("kni")?.labeler() {
//!     Ok(mut kni) => {
//!         let eight = kni.label(&image, Connectivity::Eight)?;
//!         assert_eq!(eight.labels(), &[1, 0, 1, 0, 1, 0]);
//!         let four = kni.label(&image, Connectivity::Four)?;
//!         assert_eq!(four.labels(), &[1, 0, 2, 0, 3, 0]);
//!     }
//!     // No GPU, driver or NVRTC here: a clear error, never a panic.
//!     Err(reason) => println!("skipped: {reason}"),
//! }
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! Registered variant: `kni` (4- and 8-connectivity, labels and, through
//! the shared back end, features). A reference algorithm, of low priority:
//! its propagation reads a flag back to the host every round.

mod kni;

pub use kni::Kni;
