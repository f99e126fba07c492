//! The clean-up that follows a labeling: which components to keep (cc3d's
//! `dust` and `largest_k`, MONAI's keep-largest, feature ranges), decided
//! from each component's size and bounding box, and the canonical labels
//! 1..=k of what is kept.
//!
//! ```
//! use ccl_core::{Filter, LabelImage};
//!
//! // Three components of 1, 3 and 2 pixels.
//! let labels = LabelImage::new(4, 2, vec![1, 0, 2, 2,
//!                                         0, 3, 3, 2])?;
//! let specks_removed = Filter { min_size: 2, ..Filter::default() };
//! assert_eq!(specks_removed.apply_to_image(labels.clone())?.labels(),
//!            &[0, 0, 1, 1,
//!              0, 2, 2, 1]);
//! let largest = Filter { largest: Some(1), ..Filter::default() };
//! assert_eq!(largest.apply_to_image(labels)?.labels(),
//!            &[0, 0, 1, 1,
//!              0, 0, 0, 1]);
//! # Ok::<(), ccl_core::Error>(())
//! ```

use crate::{ComponentStats, Error, LabelImage, LabelVolume, Result, VolumeStats};

/// Which components a clean-up keeps: those whose area and bounding-box
/// extents lie in the ranges (all bounds inclusive), and of those, where
/// [`largest`](Self::largest) is set, only the `k` largest by area (among
/// equal areas, the first in raster order of their first pixels).
///
/// What is kept is numbered again 1..=k in the order of its old labels, so
/// canonical labels stay canonical. [`Filter::default`] keeps everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Filter {
    /// Smallest area kept, in pixels or voxels (cc3d's `dust` threshold).
    pub min_size: u32,
    /// Largest area kept.
    pub max_size: u32,
    /// Smallest bounding-box extent kept along x, y and z (columns, rows,
    /// slices; z of an image is 1).
    pub min_extent: [u32; 3],
    /// Largest bounding-box extent kept along x, y and z.
    pub max_extent: [u32; 3],
    /// Keep only the `k` largest components of those in range (`Some(1)`:
    /// MONAI's keep-largest; `Some(0)` keeps none).
    pub largest: Option<u32>,
}

impl Default for Filter {
    /// Keeps every component.
    fn default() -> Self {
        Self {
            min_size: 0,
            max_size: u32::MAX,
            min_extent: [0; 3],
            max_extent: [u32::MAX; 3],
            largest: None,
        }
    }
}

/// What a [`Filter`] reads of a component: its area and the extents of its
/// bounding box.
pub trait Measured {
    /// Pixels or voxels.
    fn area(&self) -> u32;
    /// Bounding-box extent along x, y and z (1 along z of an image).
    fn extent(&self) -> [u32; 3];
}

impl Measured for ComponentStats {
    fn area(&self) -> u32 {
        self.area
    }
    fn extent(&self) -> [u32; 3] {
        [self.width(), self.height(), 1]
    }
}

impl Measured for VolumeStats {
    fn area(&self) -> u32 {
        self.area
    }
    fn extent(&self) -> [u32; 3] {
        [
            self.x_max - self.x_min + 1,
            self.y_max - self.y_min + 1,
            self.z_max - self.z_min + 1,
        ]
    }
}

/// A component's area and bounding box, as [`Filter::apply`] measures it
/// from labels (no coordinate sums).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Extent {
    area: u32,
    min: [u32; 3],
    max: [u32; 3],
}

impl Measured for Extent {
    fn area(&self) -> u32 {
        self.area
    }
    fn extent(&self) -> [u32; 3] {
        std::array::from_fn(|axis| self.max[axis] - self.min[axis] + 1)
    }
}

impl Filter {
    /// `Ok` when the ranges are not empty: a minimum above its maximum is
    /// an [`Error::InvalidArgument`].
    pub fn check(&self) -> Result<()> {
        if self.min_size > self.max_size {
            return Err(Error::InvalidArgument(format!(
                "the smallest size kept ({}) exceeds the largest ({})",
                self.min_size, self.max_size
            )));
        }
        for (axis, name) in ["x", "y", "z"].iter().enumerate() {
            if self.min_extent[axis] > self.max_extent[axis] {
                return Err(Error::InvalidArgument(format!(
                    "the smallest {name} extent kept ({}) exceeds the largest ({})",
                    self.min_extent[axis], self.max_extent[axis]
                )));
            }
        }
        Ok(())
    }

    /// Whether every component passes (nothing to do).
    pub fn keeps_all(&self) -> bool {
        let all = Self::default();
        self.largest.is_none()
            && self.min_size <= 1
            && self.max_size == all.max_size
            && self.min_extent.iter().all(|&e| e <= 1)
            && self.max_extent == all.max_extent
    }

    /// Whether the ranges constrain the bounding box (else the area alone
    /// decides).
    pub fn reads_extent(&self) -> bool {
        self.min_extent.iter().any(|&e| e > 1) || self.max_extent != Self::default().max_extent
    }

    /// Whether `component` lies in the ranges (before [`largest`](Self::largest)).
    pub fn in_range(&self, component: &impl Measured) -> bool {
        let area = component.area();
        let extent = component.extent();
        (self.min_size..=self.max_size).contains(&area)
            && (0..3)
                .all(|axis| (self.min_extent[axis]..=self.max_extent[axis]).contains(&extent[axis]))
    }

    /// The new label of each component (entry `i` for label `i + 1`): 0
    /// where it is removed, else 1..=k in the order of the old labels.
    pub fn renumbering<M: Measured>(&self, components: &[M]) -> Vec<u32> {
        let mut kept: Vec<bool> = components.iter().map(|c| self.in_range(c)).collect();
        if let Some(k) = self.largest {
            let mut passing: Vec<usize> = (0..components.len()).filter(|&i| kept[i]).collect();
            if passing.len() > k as usize {
                // Largest area first; equal areas in label order (stable).
                passing.sort_by_key(|&i| std::cmp::Reverse(components[i].area()));
                for &i in &passing[k as usize..] {
                    kept[i] = false;
                }
            }
        }
        let mut next = 0;
        kept.into_iter()
            .map(|keep| {
                if keep {
                    next += 1;
                    next
                } else {
                    0
                }
            })
            .collect()
    }

    /// The components that are kept, in order: the features of the labels
    /// that [`apply`](Self::apply) leaves.
    pub fn retain<M: Measured + Clone>(&self, components: &[M]) -> Vec<M> {
        self.renumbering(components)
            .into_iter()
            .zip(components)
            .filter(|&(label, _)| label != 0)
            .map(|(_, c)| c.clone())
            .collect()
    }

    /// Filters canonical labels in place: `labels` holds `images` images
    /// of `depth` slices of `height` rows of `width` labels, each image
    /// numbered 1..=`counts[i]` on its own (a batch of images: depth 1; a
    /// volume: one image). Each image keeps what the filter keeps of its
    /// components, numbered 1..=k; `counts` becomes the ks. A label above
    /// its image's count is an [`Error::InvalidArgument`].
    pub fn apply(
        &self,
        labels: &mut [u32],
        [width, height, depth]: [usize; 3],
        counts: &mut [u32],
    ) -> Result<()> {
        self.check()?;
        let per_image = width * height * depth;
        if labels.len() != per_image * counts.len() {
            return Err(Error::InvalidDimensions(format!(
                "{} labels are not {} images of {width} x {height} x {depth}",
                labels.len(),
                counts.len()
            )));
        }
        if per_image == 0 || self.keeps_all() {
            return Ok(());
        }
        for (image, count) in labels.chunks_exact_mut(per_image).zip(counts.iter_mut()) {
            let components = measure(image, width, height, *count)?;
            let renumbering = self.renumbering(&components);
            *count = renumbering.iter().copied().max().unwrap_or(0);
            for label in image.iter_mut().filter(|l| **l != 0) {
                *label = renumbering[*label as usize - 1];
            }
        }
        Ok(())
    }

    /// [`apply`](Self::apply) to the canonical labels of one image.
    pub fn apply_to_image(&self, labels: LabelImage) -> Result<LabelImage> {
        let (width, height) = (labels.width(), labels.height());
        let mut count = [count_of(labels.labels())?];
        let mut labels = labels.into_labels();
        self.apply(&mut labels, [width, height, 1], &mut count)?;
        LabelImage::new(width, height, labels)
    }

    /// [`apply`](Self::apply) to the canonical labels of one volume.
    pub fn apply_to_volume(&self, labels: LabelVolume) -> Result<LabelVolume> {
        let (width, height, depth) = (labels.width(), labels.height(), labels.depth());
        let mut count = [count_of(labels.labels())?];
        let mut labels = labels.into_labels();
        self.apply(&mut labels, [width, height, depth], &mut count)?;
        LabelVolume::new(width, height, depth, labels)
    }
}

/// The largest label, as a count.
fn count_of(labels: &[u32]) -> Result<u32> {
    Ok(labels.iter().copied().max().unwrap_or(0))
}

/// Area and bounding box of each of the `count` components of one image's
/// canonical labels.
fn measure(labels: &[u32], width: usize, height: usize, count: u32) -> Result<Vec<Extent>> {
    let empty = Extent {
        area: 0,
        min: [u32::MAX; 3],
        max: [0; 3],
    };
    let mut components = vec![empty; count as usize];
    let plane = width * height;
    for (i, &label) in labels.iter().enumerate() {
        if label == 0 {
            continue;
        }
        let c = components.get_mut(label as usize - 1).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "label {label} exceeds the image's {count} components: not canonical labels"
            ))
        })?;
        let at = [i % width, i % plane / width, i / plane].map(|v| v as u32);
        c.area += 1;
        for (axis, &v) in at.iter().enumerate() {
            c.min[axis] = c.min[axis].min(v);
            c.max[axis] = c.max[axis].max(v);
        }
    }
    if let Some(label) = components.iter().position(|c| c.area == 0) {
        return Err(Error::InvalidArgument(format!(
            "label {} has no pixels: not canonical labels",
            label + 1
        )));
    }
    Ok(components)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Labels of 2 x 1 images: `areas` components side by side in one row.
    fn row(areas: &[u32]) -> Vec<u32> {
        areas
            .iter()
            .zip(1..)
            .flat_map(|(&a, label)| std::iter::repeat_n(label, a as usize).chain([0]))
            .collect()
    }

    fn areas_kept(filter: Filter, areas: &[u32]) -> Vec<u32> {
        let mut labels = row(areas);
        let width = labels.len();
        let mut count = [areas.len() as u32];
        filter
            .apply(&mut labels, [width, 1, 1], &mut count)
            .unwrap();
        let kept = measure(&labels, width, 1, count[0]).unwrap();
        kept.iter().map(|c| c.area).collect()
    }

    #[test]
    fn dust_keeps_components_of_at_least_the_size() {
        let filter = Filter {
            min_size: 3,
            ..Filter::default()
        };
        assert_eq!(areas_kept(filter, &[1, 3, 2, 5]), vec![3, 5]);
    }

    #[test]
    fn largest_k_breaks_ties_by_label() {
        let filter = Filter {
            largest: Some(2),
            ..Filter::default()
        };
        // Areas 2, 4, 2, 4, 4: the first two of the three 4s.
        let mut labels = row(&[2, 4, 2, 4, 4]);
        let width = labels.len();
        let mut count = [5];
        filter
            .apply(&mut labels, [width, 1, 1], &mut count)
            .unwrap();
        assert_eq!(count, [2]);
        let kept: Vec<u32> = labels.iter().copied().filter(|&l| l != 0).collect();
        assert_eq!(kept, vec![1, 1, 1, 1, 2, 2, 2, 2]);
        // The kept ones are the second and fourth components.
        assert_eq!(&labels[3..7], &[1, 1, 1, 1]);
        assert_eq!(&labels[11..15], &[2, 2, 2, 2]);
    }

    #[test]
    fn ranges_of_extent_and_batches_number_each_image() {
        // Two 4 x 2 images: a 2 x 2 square and a 1 x 2 bar; a 3 x 1 bar.
        let mut labels = vec![
            1, 1, 0, 2, //
            1, 1, 0, 2, //
            1, 1, 1, 0, //
            0, 0, 0, 0,
        ];
        let mut counts = [2, 1];
        let wide = Filter {
            min_extent: [2, 0, 0],
            ..Filter::default()
        };
        wide.apply(&mut labels, [4, 2, 1], &mut counts).unwrap();
        assert_eq!(counts, [1, 1]);
        assert_eq!(labels, [1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn bad_ranges_and_labels_are_errors() {
        let inverted = Filter {
            min_size: 5,
            max_size: 4,
            ..Filter::default()
        };
        assert!(matches!(inverted.check(), Err(Error::InvalidArgument(_))));
        let largest = Filter {
            largest: Some(1),
            ..Filter::default()
        };
        let mut labels = vec![1, 0, 3];
        assert!(largest.apply(&mut labels, [3, 1, 1], &mut [2]).is_err());
        assert!(largest.apply(&mut labels, [2, 1, 1], &mut [3]).is_err());
    }

    #[test]
    fn retain_matches_the_renumbering() {
        let stats: Vec<ComponentStats> = [(0, 3), (5, 5), (7, 9)]
            .map(|(x0, x1)| {
                let mut s = ComponentStats::pixel(x0, 0);
                s.add_run(x0, x1, 1);
                s
            })
            .to_vec();
        let filter = Filter {
            min_size: 4,
            ..Filter::default()
        };
        assert_eq!(filter.renumbering(&stats), vec![1, 0, 2]);
        assert_eq!(filter.retain(&stats), vec![stats[0], stats[2]]);
    }
}
