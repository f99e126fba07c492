//! HA4 and HA8 on NVIDIA GPUs: direct connected component labeling and
//! analysis after Hennequin, Lacassagne, Cabaret & Meunier (DASIP 2018).
//! Strips of 4 rows, one warp per row, segments found in 32- or 64-pixel
//! words with `__ballot_sync` / `__clz` / `__ffs`; the kernels are in
//! `ha4.cu`, compiled at run time by NVRTC.
//!
//! ```
//! use ccl_core::{BinaryImage, Connectivity, Labeler};
//! use ccl_cuda_ha4::{HaVariant, ha};
//!
//! let pixels = [1, 1, 0, 1,
//!               0, 1, 0, 1];
//! let image = BinaryImage::new(&pixels, 4, 2)?;
//! match ha(HaVariant::Ha4W32) {
//!     Ok(mut ha4) => {
//!         let labels = ha4.label(&image, Connectivity::Four)?;
//!         assert_eq!(labels.labels(), &[1, 1, 0, 2, 0, 1, 0, 2]);
//!     }
//!     // No GPU, driver or NVRTC here: a clear error, never a panic.
//!     Err(reason) => println!("skipped: {reason}"),
//! }
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! Registered variants: `ha4-32`, `ha4-64` (4-connectivity), `ha8-32` and
//! `ha8-64` (8-connectivity; `ha8` is its former name). Each labels,
//! analyzes, and has a device-resident path timed per stage, through the
//! variant layer of `ccl-cuda` ([`ccl_cuda::backend::CudaVariant`]).

mod ha;
mod variant;

pub use ha::{COUNTED_KERNELS, Ha, KERNELS, ha};
pub use variant::HaVariant;
