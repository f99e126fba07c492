//! FLSL, OTF and CD on NVIDIA GPUs: run-based direct labeling and the
//! voting-conflict reducers of its feature accumulation, after Lemaitre,
//! Hennequin & Lacassagne, "Taming voting algorithms on GPUs for an
//! efficient connected component analysis algorithm" (ICASSP 2021).
//!
//! ```
//! use ccl_core::{BinaryImage, Connectivity};
//! // Linking the crate registers its variants.
//! use ccl_cuda_flsl as _;
//!
//! let pixels = [1, 1, 0, 1,
//!               0, 1, 0, 1];
//! let image = BinaryImage::new(&pixels, 4, 2)?;
//! let flsl_cd = ccl_core::find("flsl-cd")?;
//! match flsl_cd.analyzer() {
//!     Ok(mut analyzer) => {
//!         let stats = analyzer.analyze(&image, Connectivity::Four)?;
//!         assert_eq!((stats[0].area, stats[1].area), (3, 2));
//!     }
//!     // No GPU, driver or NVRTC here: a clear error, never a panic.
//!     Err(reason) => println!("skipped: {reason}"),
//! }
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! Registered variants, each in 4- and 8-connectivity, labeling and
//! analysis:
//!
//! - `flsl` ([`Flsl`], `flsl.cu`): full-line segment labeling. The image
//!   is packed into bits (`ccl_cuda::backend::BitImage`); one warp walks
//!   each row, a lane per word of 32 pixels, finding its runs with
//!   `__funnelshift_l` edges, `__popc` ranks and warp scans (the paper's
//!   Algorithm 1);
//!   the forest's nodes are runs; one thread per run unites it with the
//!   runs above it touches, then adds its features (area, Σx in closed form,
//!   Σy, bounding box) with one atomic update.
//! - `flsl-otf`: features gathered at provisional roots and moved at every
//!   union (on-the-fly, Algorithm 2).
//! - `flsl-cd`: the per-run updates of a warp combined per root first
//!   (conflict detection with `__match_any_sync`, Algorithm 3).
//! - `naive-cca`, `ha-otf`, `ha-cd` ([`HaAnalysis`], `ha_cca.cu`): the
//!   reference of one atomic update per pixel, OTF and CD, on the strip
//!   labeling and border merge of `ccl-cuda-ha4` (32-pixel words). Their
//!   labels are HA's.
//!
//! [`FlslClasses`] (`flsl/classes.cu`) labels class maps (images, batches
//! and volumes) by the same runs, runs of one value (two values touching in
//! a row are two runs), for `ccl_cuda::backend::ClassLabeler`, which takes
//! it from the registry of class labelers (`ClassPlugin`).
//!
//! [`count_updates`] runs an instrumented build of any of them and counts
//! the atomic feature updates and their conflicts (the paper's Fig. 5,
//! `ccl updates`).

/// Registers a variant of this crate: `$device::new(gpu, $voting)` for
/// both connectivities, labels and features.
macro_rules! register {
    ($device:ident, $voting:expr, $summary:literal, $priority:literal $(, $preferred_for:expr)?) => {
        ccl_cuda::register_variant! {
            name: $voting.name(),
            connectivities: $voting.info().connectivities,
            analyzes: true,
            summary: $summary,
            priority: $priority,
            $(preferred_for: $preferred_for,)?
            new: |gpu, _| $device::new(gpu, $voting),
        }
    };
}

mod counting;
mod flsl;
mod ha_cca;

pub use counting::{COUNTED_VARIANTS, UpdateCounts, count_updates};
pub use flsl::{Flsl, FlslClasses, Voting};
pub use ha_cca::{HaAnalysis, HaVoting};
