//! The shared contracts of `ccl`: binary images and volumes, label images
//! and volumes, component features, the [`Labeler`] / [`Analyzer`] traits, the
//! clean-up that keeps components by size ([`Filter`]), the registry through
//! which every algorithm crate makes itself known, and OpenCV's
//! `connectedComponentsWithStats` layout of the features ([`opencv`]).
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
//! An algorithm crate implements the traits for its type and registers it;
//! the registry then finds it by name (here a toy that calls every
//! foreground pixel a component of its own, right for no real image):
//!
//! ```
//! use ccl_core::{Algorithm, Backend, BinaryImage, Connectivity, HostTimedRun, LabelImage};
//! use ccl_core::{Analyzer, ComponentStats, Labeler, Result};
//!
//! struct Singletons;
//!
//! impl Labeler for Singletons {
//!     fn label(&mut self, image: &BinaryImage<'_>, _: Connectivity) -> Result<LabelImage> {
//!         let pixels = image.to_buf();
//!         let labels = pixels.pixels().iter().zip(1..).map(|(&p, i)| p as u32 * i).collect();
//!         LabelImage::new(image.width(), image.height(), labels)
//!     }
//! }
//!
//! impl Analyzer for Singletons {
//!     fn analyze(&mut self, image: &BinaryImage<'_>, c: Connectivity) -> Result<Vec<ComponentStats>> {
//!         Ok(ComponentStats::from_labels(&self.label(image, c)?))
//!     }
//! }
//!
//! ccl_core::inventory::submit! {
//!     Algorithm {
//!         name: "singletons",
//!         aliases: &[],
//!         crate_name: env!("CARGO_PKG_NAME"),
//!         backend: Backend::Cpu,
//!         connectivities: &[Connectivity::Four, Connectivity::Eight],
//!         summary: "every foreground pixel its own component (a toy)",
//!         priority: 0,
//!         preferred_for: &[],
//!         probe: || Ok(()),
//!         labeler: Some(|| Ok(Box::new(Singletons))),
//!         analyzer: Some(|| Ok(Box::new(Singletons))),
//!         timed: || Ok(Box::new(HostTimedRun::new(Singletons))),
//!     }
//! }
//!
//! let toy = ccl_core::find("singletons")?;
//! let image = BinaryImage::new(&[1, 1], 2, 1)?;
//! let labels = toy.labeler()?.label(&image, Connectivity::Four)?;
//! assert_eq!(labels.component_count(), 2);
//! # Ok::<(), ccl_core::Error>(())
//! ```

mod algorithm;
mod classes;
mod connectivity;
mod error;
mod filter;
mod forest;
mod image;
mod labels;
pub mod opencv;
pub mod pages;
mod registry;
mod stats;
mod volume;

pub use algorithm::{
    Algorithm, Analyzer, AnalyzerFactory, Backend, HostTimedRun, Labeler, LabelerFactory,
    StageTime, Task, TimedFactory, TimedRun, check_batch_buffers, check_connectivity,
    check_label_buffer, check_volume_label_buffer, not_loaded, not_run,
};
pub use classes::{ClassLabels, ClassMap, ClassValue};
pub use connectivity::Connectivity;
pub use error::{Error, Result};
pub use filter::{Filter, Measured};
pub use forest::{MinRootForest, SharedMinRootForest};
pub use image::{BinaryImage, BinaryImageBuf, MAX_PIXELS, check_size};
pub use labels::{LabelImage, LabelVolume};
pub use registry::{default_algorithm, default_algorithm_on, find, registry};
pub use stats::{ComponentStats, VolumeStats};
pub use volume::{BinaryVolume, BinaryVolumeBuf, check_volume_size};

/// Re-exported so that algorithm crates register without naming `inventory`.
pub use inventory;
