//! Playne and Hawick's direct connected component labeling on NVIDIA GPUs
//! (D. P. Playne & K. Hawick, "A new algorithm for parallel
//! connected-component labelling on GPUs", IEEE TPDS 29(6), 2018), in 4-
//! and 8-connectivity: one thread per pixel, a link to a backward neighbour
//! at initialisation, a compression, unions only where the local
//! configuration needs one (the `atomicMin` merge of the shared device
//! header), and a final compression that leaves the labels. Kernels in
//! `playne.cu`, run by the pixel label-equivalence pipeline of this crate
//! ([`Equivalence`]: link, compress, unions, compress), which `ccl-cuda-ke8`'s
//! Komura equivalence (`ke4`, `ke8`) runs on too.
//!
//! ```
//! use ccl_core::{BinaryImage, Connectivity, Labeler};
//! // Linking the crate registers its variants.
//! use ccl_cuda_playne as _;
//!
//! let pixels = [1, 0, 1,
//!               0, 1, 0];
//! let image = BinaryImage::new(&pixels, 3, 2)?;
//! let playne = ccl_core::find("playne")?;
//! match playne.labeler() {
//!     Ok(mut labeler) => {
//!         let labels = labeler.label(&image, Connectivity::Eight)?;
//!         assert_eq!(labels.labels(), &[1, 0, 1, 0, 1, 0]);
//!     }
//!     // No GPU, driver or NVRTC here: a clear error, never a panic.
//!     Err(reason) => println!("skipped: {reason}"),
//! }
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! Registered variant: `playne` (4- and 8-connectivity on images; 6, 18
//! and 26 on volumes, where the same method needs no change but its list
//! of backward neighbours; labels and, through the shared back end of
//! `ccl-cuda`, features).

mod equivalence;
mod playne;
mod volume;

pub use equivalence::{Equivalence, EquivalenceKernels};
pub use playne::{PLAYNE, Playne};
pub use volume::PlayneVolume;
