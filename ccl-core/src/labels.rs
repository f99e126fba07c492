//! Label images, their canonical form and partition equality.

use std::collections::HashMap;

use crate::{Error, Result, check_size, check_volume_size};

/// One `u32` label per pixel, row-major and packed: 0 is background, and all
/// pixels of a component share one nonzero label that no other component has.
///
/// Raw labels are an algorithm's own (often 1 + the raster index of a
/// component's first pixel); [`LabelImage::canonical`] renumbers them 1..=N
/// in raster order of each component's first pixel.
///
/// ```
/// use ccl_core::LabelImage;
/// let raw = LabelImage::new(3, 2, vec![3, 0, 1, 3, 0, 1])?;
/// assert_eq!(raw.canonical().labels(), &[1, 0, 2, 1, 0, 2]);
/// assert_eq!(raw.component_count(), 2);
/// # Ok::<(), ccl_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LabelImage {
    width: usize,
    height: usize,
    labels: Vec<u32>,
}

impl LabelImage {
    /// Wraps `width * height` labels.
    pub fn new(width: usize, height: usize, labels: Vec<u32>) -> Result<Self> {
        check_size(width, height)?;
        if labels.len() != width * height {
            return Err(Error::InvalidDimensions(format!(
                "{} labels for a {width}x{height} image",
                labels.len()
            )));
        }
        Ok(Self {
            width,
            height,
            labels,
        })
    }

    /// Width in pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The labels, row-major.
    pub fn labels(&self) -> &[u32] {
        &self.labels
    }

    /// Takes the labels out.
    pub fn into_labels(self) -> Vec<u32> {
        self.labels
    }

    /// The label of pixel `(x, y)`.
    ///
    /// # Panics
    /// If the pixel lies outside the image.
    pub fn get(&self, x: usize, y: usize) -> u32 {
        assert!(
            x < self.width && y < self.height,
            "pixel ({x}, {y}) outside the image"
        );
        self.labels[y * self.width + x]
    }

    /// The number of components (distinct nonzero labels).
    pub fn component_count(&self) -> usize {
        component_count(&self.labels)
    }

    /// Renumbers the components 1..=N in raster order of their first pixel,
    /// the form used for comparisons and snapshots.
    pub fn canonical(&self) -> LabelImage {
        LabelImage {
            width: self.width,
            height: self.height,
            labels: canonical(&self.labels),
        }
    }

    /// The canonical form, without renumbering when the labels already are
    /// canonical (as the CPU variants' are): one pass checks that each new
    /// label met in raster order is one more than the largest met before.
    ///
    /// ```
    /// use ccl_core::LabelImage;
    /// let raw = LabelImage::new(3, 1, vec![5, 0, 2])?;
    /// assert_eq!(raw.into_canonical().labels(), &[1, 0, 2]);
    /// # Ok::<(), ccl_core::Error>(())
    /// ```
    pub fn into_canonical(self) -> LabelImage {
        if self.component_count_if_canonical().is_some() {
            self
        } else {
            self.canonical()
        }
    }

    /// N when the labels are canonical (1..=N in raster order of each
    /// component's first pixel), else `None`.
    pub fn component_count_if_canonical(&self) -> Option<usize> {
        component_count_if_canonical(&self.labels)
    }

    /// True when both images have the same size and group the same pixels
    /// into components, whatever the raw label values.
    pub fn same_partition(&self, other: &LabelImage) -> bool {
        self.width == other.width
            && self.height == other.height
            && self.canonical().labels == other.canonical().labels
    }

    /// The first pixel (raster order) where `self` and `other` disagree as
    /// partitions, or `None` when [`same_partition`](Self::same_partition)
    /// holds. Sizes must match.
    pub fn first_difference(&self, other: &LabelImage) -> Option<(usize, usize)> {
        if self.width != other.width || self.height != other.height {
            return Some((0, 0));
        }
        let (a, b) = (self.canonical(), other.canonical());
        let index = a.labels.iter().zip(&b.labels).position(|(x, y)| x != y)?;
        Some((index % self.width, index / self.width))
    }
}

/// One `u32` label per voxel, x fastest, then y, then z, packed: the 3-D
/// [`LabelImage`]. 0 is background; [`canonical`](Self::canonical)
/// renumbers the components 1..=N in raster order of each one's first voxel
/// (z, then y, then x), as `scipy.ndimage.label` and cc3d number them.
///
/// ```
/// use ccl_core::LabelVolume;
/// let raw = LabelVolume::new(2, 1, 2, vec![0, 7, 3, 7])?;
/// assert_eq!(raw.canonical().labels(), &[0, 1, 2, 1]);
/// assert_eq!(raw.get(0, 0, 1), 3);
/// # Ok::<(), ccl_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LabelVolume {
    width: usize,
    height: usize,
    depth: usize,
    labels: Vec<u32>,
}

impl LabelVolume {
    /// Wraps `width * height * depth` labels.
    pub fn new(width: usize, height: usize, depth: usize, labels: Vec<u32>) -> Result<Self> {
        check_volume_size(width, height, depth)?;
        if labels.len() != width * height * depth {
            return Err(Error::InvalidDimensions(format!(
                "{} labels for a {width}x{height}x{depth} volume",
                labels.len()
            )));
        }
        Ok(Self {
            width,
            height,
            depth,
            labels,
        })
    }

    /// Width (x) in voxels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height (y) in voxels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Depth (z) in voxels.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The labels, x fastest, then y, then z.
    pub fn labels(&self) -> &[u32] {
        &self.labels
    }

    /// Takes the labels out.
    pub fn into_labels(self) -> Vec<u32> {
        self.labels
    }

    /// The label of voxel `(x, y, z)`.
    ///
    /// # Panics
    /// If the voxel lies outside the volume.
    pub fn get(&self, x: usize, y: usize, z: usize) -> u32 {
        assert!(
            x < self.width && y < self.height && z < self.depth,
            "voxel ({x}, {y}, {z}) outside the volume"
        );
        self.labels[(z * self.height + y) * self.width + x]
    }

    /// The number of components (distinct nonzero labels).
    pub fn component_count(&self) -> usize {
        component_count(&self.labels)
    }

    /// Renumbers the components 1..=N in raster order of their first voxel.
    pub fn canonical(&self) -> LabelVolume {
        LabelVolume {
            labels: canonical(&self.labels),
            ..*self
        }
    }

    /// The canonical form, without renumbering labels that already are.
    pub fn into_canonical(self) -> LabelVolume {
        if self.component_count_if_canonical().is_some() {
            self
        } else {
            self.canonical()
        }
    }

    /// N when the labels are canonical, else `None`.
    pub fn component_count_if_canonical(&self) -> Option<usize> {
        component_count_if_canonical(&self.labels)
    }

    /// True when both volumes have the same size and group the same voxels
    /// into components, whatever the raw label values.
    pub fn same_partition(&self, other: &LabelVolume) -> bool {
        self.first_difference(other).is_none()
    }

    /// The first voxel `(x, y, z)` in raster order where `self` and `other`
    /// disagree as partitions (`(0, 0, 0)` when the sizes differ), or `None`.
    pub fn first_difference(&self, other: &LabelVolume) -> Option<(usize, usize, usize)> {
        if (self.width, self.height, self.depth) != (other.width, other.height, other.depth) {
            return Some((0, 0, 0));
        }
        let (a, b) = (canonical(&self.labels), canonical(&other.labels));
        let index = a.iter().zip(&b).position(|(x, y)| x != y)?;
        let (row, x) = (index / self.width, index % self.width);
        Some((x, row % self.height, row / self.height))
    }
}

/// The number of distinct nonzero labels.
fn component_count(labels: &[u32]) -> usize {
    let mut renumber = Renumbering::new(labels.len());
    for &label in labels {
        if label != 0 {
            renumber.get(label);
        }
    }
    renumber.count as usize
}

/// The labels renumbered 1..=N in order of first appearance (0 stays 0).
fn canonical(labels: &[u32]) -> Vec<u32> {
    let mut renumber = Renumbering::new(labels.len());
    labels
        .iter()
        .map(|&label| if label == 0 { 0 } else { renumber.get(label) })
        .collect()
}

/// N when each new label met in order is one more than the largest before.
fn component_count_if_canonical(labels: &[u32]) -> Option<usize> {
    let mut largest = 0u32;
    for &label in labels {
        if label > largest {
            if label != largest + 1 {
                return None;
            }
            largest = label;
        }
    }
    Some(largest as usize)
}

/// Maps raw labels to 1, 2, … in order of first appearance; dense for labels
/// up to a bound (the usual raster-index labels), hashed beyond it.
struct Renumbering {
    dense: Vec<u32>,
    sparse: HashMap<u32, u32>,
    count: u32,
}

impl Renumbering {
    fn new(pixels: usize) -> Self {
        Self {
            dense: vec![0; pixels + 2],
            sparse: HashMap::new(),
            count: 0,
        }
    }

    fn get(&mut self, label: u32) -> u32 {
        let count = &mut self.count;
        let slot = match self.dense.get_mut(label as usize) {
            Some(slot) => slot,
            None => self.sparse.entry(label).or_insert(0),
        };
        if *slot == 0 {
            *count += 1;
            *slot = *count;
        }
        *slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_handles_labels_beyond_the_pixel_count() {
        let image = LabelImage::new(2, 2, vec![u32::MAX, 0, 7, u32::MAX]).unwrap();
        assert_eq!(image.canonical().labels(), &[1, 0, 2, 1]);
    }

    #[test]
    fn partition_equality_ignores_values_not_grouping() {
        let a = LabelImage::new(3, 1, vec![5, 5, 2]).unwrap();
        let b = LabelImage::new(3, 1, vec![1, 1, 9]).unwrap();
        let c = LabelImage::new(3, 1, vec![1, 1, 1]).unwrap();
        assert!(a.same_partition(&b));
        assert!(!a.same_partition(&c));
        assert_eq!(a.first_difference(&c), Some((2, 0)));
        assert_eq!(a.first_difference(&b), None);
    }

    #[test]
    fn background_must_match() {
        let a = LabelImage::new(2, 1, vec![1, 0]).unwrap();
        let b = LabelImage::new(2, 1, vec![1, 2]).unwrap();
        assert!(!a.same_partition(&b));
    }

    #[test]
    fn wrong_length_is_an_error() {
        assert!(LabelImage::new(2, 2, vec![0; 3]).is_err());
        assert!(LabelVolume::new(2, 2, 2, vec![0; 7]).is_err());
    }

    #[test]
    fn volume_differences_are_located_in_three_dimensions() {
        let a = LabelVolume::new(2, 2, 2, vec![1, 1, 0, 0, 0, 0, 1, 5]).unwrap();
        let b = LabelVolume::new(2, 2, 2, vec![4, 4, 0, 0, 0, 0, 4, 4]).unwrap();
        assert_eq!(a.first_difference(&b), Some((1, 1, 1)));
        assert!(a.same_partition(&a.canonical()));
        assert_eq!(a.component_count(), 2);
        assert_eq!(a.canonical().component_count_if_canonical(), Some(2));
    }
}
