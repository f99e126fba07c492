//! Komura equivalence and the block-based algorithms of OpenCV and YACCLAB
//! on NVIDIA GPUs:
//!
//! - `ke4` — Y. Komura, "GPU-based cluster-labeling algorithm without the
//!   use of conventional iteration", Comput. Phys. Commun. 194, 2015;
//! - `ke8` — its 8-connectivity form, S. Allegretti, F. Bolelli,
//!   M. Cancilla & C. Grana, "Optimizing GPU-based connected components
//!   labeling algorithms", IEEE IPAS 2018;
//! - `bke` and `buf` — S. Allegretti, F. Bolelli & C. Grana, "Optimized
//!   block-based algorithms to label connected components on GPUs", IEEE
//!   TPDS 31(2), 2020: KE and union-find on 2×2 blocks, 8-connectivity
//!   (OpenCV's `cv::cuda::connectedComponents` runs BKE).
//!
//! Each labels and, through the shared back end of `ccl-cuda`, analyzes.
//! The block-based ones are 8-connectivity only: the foreground pixels of a
//! 2×2 block are one 8-connected set, which is what lets a block be one
//! node; in 4-connectivity a block's two diagonal pixels may belong to
//! different components. Kernels in `ke.cu` (run by the pipeline KE
//! shares with Playne's, [`ccl_cuda_playne::Equivalence`]) and `block.cu`.
//!
//! ```
//! use ccl_core::{BinaryImage, Connectivity, Labeler};
//! // Linking the crate registers its variants.
//! use ccl_cuda_ke8 as _;
//!
//! let pixels = [1, 0, 0, 1,
//!               0, 1, 0, 1];
//! let image = BinaryImage::new(&pixels, 4, 2)?;
//! match ccl_core::find("buf")?.labeler() {
//!     Ok(mut buf) => {
//!         let labels = buf.label(&image, Connectivity::Eight)?;
//!         assert_eq!(labels.labels(), &[1, 0, 0, 2, 0, 1, 0, 2]);
//!     }
//!     // No GPU, driver or NVRTC here: a clear error, never a panic.
//!     Err(reason) => println!("skipped: {reason}"),
//! }
//! # Ok::<(), ccl_core::Error>(())
//! ```

mod block;
mod block_volume;
mod ke;

pub use block::{BlockAlgorithm, BlockBased, Buf};
pub use block_volume::BlockVolume;
pub use ke::KOMURA;
