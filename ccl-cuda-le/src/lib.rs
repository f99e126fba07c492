//! Hawick, Leist and Playne's label equivalence on NVIDIA GPUs (K. A.
//! Hawick, A. Leist & D. P. Playne, "Parallel graph component labelling
//! with GPUs and CUDA", Parallel Computing 36(12), 2010; their kernel D), in
//! 4- and 8-connectivity: one thread per pixel, labels and a reference
//! array indexed by labels; rounds of scanning (each label records the
//! lowest neighbouring label as its reference), analysis (each reference
//! root resolves its chain) and labeling (each label replaced by its
//! reference) until a scan finds nothing to lower. Kernels in `le.cu`.
//!
//! ```
//! use ccl_core::{BinaryImage, Connectivity, Labeler};
//! // Linking the crate registers its variant.
//! use ccl_cuda_le as _;
//!
//! let pixels = [1, 0, 1,
//!               0, 1, 0];
//! let image = BinaryImage::new(&pixels, 3, 2)?;
//! let le = ccl_core::find("le")?;
//! match le.labeler() {
//!     Ok(mut labeler) => {
//!         let labels = labeler.label(&image, Connectivity::Eight)?;
//!         // Raw labels are 1 + the raster index of each component's first pixel.
//!         assert_eq!(labels.labels(), &[1, 0, 1, 0, 1, 0]);
//!         let labels = labeler.label(&image, Connectivity::Four)?;
//!         assert_eq!(labels.labels(), &[1, 0, 3, 0, 5, 0]);
//!     }
//!     // No GPU, driver or NVRTC here: a clear error, never a panic.
//!     Err(reason) => println!("skipped: {reason}"),
//! }
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! Registered variant: `le` (4- and 8-connectivity, labels and, through the
//! shared back end of `ccl-cuda`, features). Timed runs report the stages
//! `init` and `iterate (N rounds)`.

mod le;

pub use le::LabelEquivalence;
