//! The shared contracts of `ccl`: binary images, label images, component
//! features, the [`Labeler`] / [`Analyzer`] traits and the registry through
//! which every algorithm crate makes itself known.
//!
//! ```
//! use ccl_core::{BinaryImage, ComponentStats, Connectivity, LabelImage};
//!
//! // Two diagonal pixels: one component with 8-connectivity, two with 4.
//! let pixels = [1, 0,
//!               0, 1];
//! let image = BinaryImage::new(&pixels, 2, 2)?;
//! assert_eq!(image.foreground_count(), 2);
//!
//! // Whatever an algorithm's raw labels, the canonical form compares.
//! let labels = LabelImage::new(2, 2, vec![1, 0, 0, 4])?;
//! assert_eq!(labels.canonical().labels(), &[1, 0, 0, 2]);
//! let stats = ComponentStats::from_labels(&labels);
//! assert_eq!(stats[1].centroid(), (1.0, 1.0));
//! assert_eq!("8".parse::<Connectivity>().unwrap(), Connectivity::Eight);
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! An algorithm crate implements the traits for its type and registers it:
//!
//! ```ignore
//! ccl_core::inventory::submit! {
//!     ccl_core::Algorithm {
//!         name: "cpu-uf",
//!         backend: ccl_core::Backend::Cpu,
//!         connectivities: &[Connectivity::Four, Connectivity::Eight],
//!         summary: "…",
//!         priority: 10,
//!         probe: || Ok(()),
//!         labeler: Some(|| Ok(Box::new(UnionFind::new()))),
//!         analyzer: Some(|| Ok(Box::new(UnionFind::new()))),
//!         timed: || Ok(Box::new(HostTimedRun::new(UnionFind::new()))),
//!     }
//! }
//! ```

mod algorithm;
mod connectivity;
mod error;
mod image;
mod labels;
mod registry;
mod stats;

pub use algorithm::{
    Algorithm, Analyzer, AnalyzerFactory, Backend, HostTimedRun, Labeler, LabelerFactory,
    StageTime, Task, TimedFactory, TimedRun, check_connectivity, not_loaded, not_run,
};
pub use connectivity::Connectivity;
pub use error::{Error, Result};
pub use image::{BinaryImage, BinaryImageBuf, MAX_PIXELS, check_size};
pub use labels::LabelImage;
pub use registry::{default_algorithm, find, registry};
pub use stats::ComponentStats;

/// Re-exported so that algorithm crates register without naming `inventory`.
pub use inventory;
