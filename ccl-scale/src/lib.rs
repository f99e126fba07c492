//! `ccl-scale`: images and volumes past one GPU. An image (or volume) of
//! any size — past device memory, past `2^32` pixels — is labeled in
//! strips (runs of rows; of slices in a volume) streamed through one or
//! several GPUs, or the CPU: each strip labeled alone by a registered
//! variant, the labels on either side of each border joined by a small
//! union-find over border labels only, and each strip labeled again and
//! renumbered, so that the labels are canonical across the whole image
//! (1..=N in raster order of each component's first pixel) and the
//! features are merged per component. Memory on the device and the host
//! is bounded by the strips in flight: a [`PlaneSource`] hands out the
//! pixels of any run of planes and a [`PlaneSink`] takes the labels.
//!
//! ```
//! use ccl::{Backend, Connectivity};
//! use ccl_scale::{Pixels, Shape, StripLabeler, StripOptions};
//!
//! // A U: two arms that meet only in the last row.
//! let pixels = [1, 0, 1,
//!               1, 0, 1,
//!               1, 1, 1];
//! let shape = Shape::Image { width: 3, height: 3 };
//! let options = StripOptions {
//!     backend: Backend::Cpu,
//!     max_strip_planes: Some(1), // a strip a row
//!     ..StripOptions::default()
//! };
//! let labeler = StripLabeler::new(options, Connectivity::Four)?;
//! let mut labels = vec![0u64; 9];
//! let report = labeler.label_pixels(&Pixels::new(&pixels, shape)?, Connectivity::Four, &mut labels)?;
//! assert_eq!((report.count, report.strips), (1, 3));
//! assert_eq!(labels, [1, 0, 1, 1, 0, 1, 1, 1, 1]);
//!
//! // Features merged across the strips.
//! let stats = labeler.analyze(shape, Connectivity::Four, &Pixels::new(&pixels, shape)?)?;
//! assert_eq!((stats[0].area, stats[0].max), (7, [2, 2, 0]));
//! # Ok::<(), ccl::Error>(())
//! ```
//!
//! On a GPU ([`StripOptions::backend`] `Cuda`, the default), every GPU
//! named in [`StripOptions::devices`] runs [`StripOptions::workers_per_device`]
//! workers, each on its own stream with pinned staging, taking the
//! next strip as it finishes one; [`StripOptions::max_memory`] caps what
//! they take of each GPU.
//!
//! A source's nonzero bytes are foreground; gray values (a `.npy` of
//! `uint8`, a TIFF of 8-bit pages) are thresholded as they stream by a
//! [`Foreground`] rule (a threshold, Otsu's threshold of the whole input,
//! inverted or not, as `ccl::io` binarizes an in-memory read) read through
//! [`Binarized`].

mod binarize;
mod columns;
mod cpu;
mod files;
mod gpu;
mod labeler;
mod merge;
mod shape;
mod size;
mod staging;
mod stream;
mod trace;
mod worker;

pub use binarize::{Binarized, Foreground, otsu_threshold};
pub use columns::FeatureColumns;
pub use files::{NpySink, NpySource, TiffSink, TiffSource};
pub use labeler::{StripLabeler, StripOptions, StripReport};
pub use merge::{LargeStats, Renumbering};
pub use shape::Shape;
pub use size::parse_size;
pub use stream::{LabelWord, Labels, Pixels, PlaneSink, PlaneSource};

/// Whether labels of `shape` need 64 bits: more pixels than 32-bit labels
/// number (`2^32 − 2`).
pub fn needs_wide_labels(shape: Shape) -> bool {
    shape.pixels() > ccl::MAX_PIXELS
}
