//! Cabaret, Lacassagne and Etiemble's distanceless label propagation on
//! NVIDIA GPUs (L. Cabaret, L. Lacassagne & D. Etiemble, "Distanceless label
//! propagation: an efficient direct connected component labeling algorithm
//! for GPUs", IPTA 2017), in 4- and 8-connectivity, as we read the paper:
//! one thread per pixel; in each round every foreground pixel takes the
//! least label of itself and its neighbours and lowers to it, with
//! `atomicMin`, its own label and the label stored at each label it saw
//! (labels are addresses: the label's representative pixel), so a low label
//! travels any distance in one step; then pointer jumping flattens the
//! labels. Rounds repeat until one lowers nothing. Kernels, and why they
//! converge to the exact labels, in `dlp.cu`.
//!
//! ```
//! use ccl_core::{BinaryImage, Connectivity, Labeler};
//! // Linking the crate registers its variant.
//! use ccl_cuda_dlp as _;
//!
//! let pixels = [1, 0, 1,
//!               0, 1, 0];
//! let image = BinaryImage::new(&pixels, 3, 2)?;
//! let dlp = ccl_core::find("dlp")?;
//! match dlp.labeler() {
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
//! Registered variant: `dlp` (4- and 8-connectivity, labels and, through
//! the shared back end of `ccl-cuda`, features). Timed runs report the
//! stages `init` and `iterate (N rounds)`.

mod dlp;

pub use dlp::DistancelessPropagation;
