//! Deterministic test images for `ccl`: MT19937 density / granularity images
//! as the benchmark protocol defines them, structured patterns that stress
//! labeling algorithms, and small real images with known component counts.
//!
//! ```
//! use ccl_core::{Connectivity, Labeler};
//! use ccl_cpu::UnionFind;
//!
//! // The benchmark's random image: 60 % of 4×4 cells set, seed 0.
//! let random = ccl_testdata::random_image(256, 256, 60, 4, 0)?;
//! assert_eq!(random, ccl_testdata::random_image(256, 256, 60, 4, 0)?);
//!
//! // A structured pattern: a 1-pixel spiral is one long component.
//! let spiral = ccl_testdata::pattern("spiral", 33, 33)?;
//! let labels = UnionFind.label(&spiral.view(), Connectivity::Four)?;
//! assert_eq!(labels.component_count(), 1);
//!
//! // Every pattern kind at every size around warp and strip borders.
//! assert!(ccl_testdata::patterns().iter().any(|p| p.name == "checkerboard-33x31"));
//!
//! // Real images carry their expected counts.
//! for real in ccl_testdata::real_images()? {
//!     let labels = UnionFind.label(&real.image.view(), Connectivity::Eight)?;
//!     assert_eq!(labels.component_count(), real.components_8, "{}", real.name);
//! }
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! Files (reading images, writing labels) are `ccl-io`'s.

mod patterns;
mod random;
mod real;

pub use patterns::{PATTERN_SIZES, Pattern, pattern, pattern_kinds, patterns};
pub use random::{DEFAULT_SEED, random_image};
pub use real::{REAL_DIR, RealImage, real_images};
