//! NVIDIA NPP's connected component labeler as a `ccl` peer: `npp-uf` runs
//! `nppiLabelMarkersUF_8u32u_C1R_Ctx` (NPP's union-find after Chen et al.),
//! with `nppiNormL1` for 4-connectivity and `nppiNormInf` for 8, so that
//! benchmarks compare with the library a user would otherwise pick.
//!
//! ```
//! use ccl_core::{BinaryImage, Connectivity, Labeler};
//! use ccl_cuda_npp::npp_uf;
//!
//! // Any nonzero byte is foreground, whatever its value.
//! let pixels = [1, 9, 0, 1,
//!               0, 255, 0, 1];
//! let image = BinaryImage::new(&pixels, 4, 2)?;
//! match npp_uf() {
//!     Ok(mut npp) => {
//!         let labels = npp.label(&image, Connectivity::Four)?;
//!         assert_eq!(labels.labels(), &[1, 1, 0, 2, 0, 1, 0, 2]);
//!     }
//!     // No NPP, GPU, driver or NVRTC here: a clear error, never a panic.
//!     Err(reason) => println!("skipped: {reason}"),
//! }
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! NPP is opened at run time (`libnppc.so.13` / `libnppif.so.13`, or the
//! unversioned names, from the loader path, `/usr/local/cuda/lib64` or
//! `$CUDA_HOME/lib64`): the crate builds anywhere, and where NPP or a GPU is
//! missing, the registry entry's probe and [`npp_uf`] say which.
//!
//! NPP labels every region of equal pixel values, background included, so
//! a kernel first maps the input to 0 / 255. NPP also over-segments on
//! Hopper (some touching pixels of one component get different labels, a
//! different number each run; `npp.cu` has the evidence), so a repair
//! kernel joins NPP's union-find trees across every touching foreground
//! pair, and a last one writes background 0 and foreground root + 1: the
//! result keeps ccl's contract (background 0, one distinct nonzero label
//! per component). The device-resident path
//! ([`ccl_cuda::backend::CudaVariant::label_device`]) times the stages `binarize`,
//! `npp` (NPP alone), `repair` and `finish`. NPP computes no features, so
//! `npp-uf` only labels; images are limited to [`MAX_PIXELS`] by NPP's
//! 32-bit scratch-size arithmetic.

mod library;
mod pipeline;
mod variant;

pub use pipeline::{MAX_PIXELS, NppUf};
pub use variant::npp_uf;
