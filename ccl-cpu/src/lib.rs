//! CPU algorithms of `ccl`. [`UnionFind`] (`cpu-uf`) is the reference every
//! other variant is checked against; [`RunLabeler`] (`cpu-rle`, and
//! `cpu-rle-1t` on one thread) is the fast one, run-based and multi-core,
//! and the default where no GPU runs. [`label_classes`] labels class maps
//! (a segmentation's argmax, an atlas) as cc3d's multilabel mode does: each
//! nonzero value's components apart, canonical, with each one's class.
//!
//! ```
//! use ccl_core::{Analyzer, BinaryImage, Connectivity, Labeler};
//! use ccl_cpu::UnionFind;
//!
//! let pixels = [1, 1, 0,
//!               0, 0, 1];
//! let image = BinaryImage::new(&pixels, 3, 2)?;
//! let labels = UnionFind.label(&image, Connectivity::Four)?;
//! assert_eq!(labels.labels(), &[1, 1, 0, 0, 0, 2]);
//! let stats = UnionFind.analyze(&image, Connectivity::Eight)?;
//! assert_eq!(stats.len(), 1);
//! assert_eq!(stats[0].area, 3);
//! # Ok::<(), ccl_core::Error>(())
//! ```

mod classes;
mod rle;
mod union_find;

pub use classes::{label_classes, label_classes_into};
pub use rle::RunLabeler;
pub use union_find::UnionFind;
