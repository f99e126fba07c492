//! Deterministic test images and volumes for `ccl`: MT19937 density /
//! granularity images and volumes as the benchmark protocol defines them,
//! structured patterns (2-D and 3-D) that stress labeling algorithms, and
//! small real images with known component counts.
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
//!
//! // Volumes: the random rule with g×g×g cells (here near the 6-connected
//! // percolation threshold), and 3-D patterns such as a coil of one path.
//! let volume = ccl_testdata::random_volume(64, 64, 64, 31, 1, 0)?;
//! assert_eq!(volume.depth(), 64);
//! let helix = ccl_testdata::volume_pattern("helix", 33, 33, 33)?;
//! assert!(ccl_testdata::volume_pattern_kinds().contains(&"maze3d"));
//! # let _ = helix;
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! Files (reading images, writing labels) are `ccl-io`'s.

mod patterns;
mod patterns_volume;
mod random;
mod random_volume;
mod real;
mod xorshift;

pub use patterns::{PATTERN_SIZES, Pattern, pattern, pattern_kinds, patterns};
pub use patterns_volume::{
    VOLUME_PATTERN_SIZES, VolumePattern, volume_pattern, volume_pattern_kinds, volume_patterns,
};
pub use random::{DEFAULT_SEED, random_image};
pub use random_volume::random_volume;
pub use real::{REAL_DIR, RealImage, real_images};
pub use xorshift::{Xorshift32, Xorshift64};
