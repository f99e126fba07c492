//! Per-component features: the seven of OpenCV's `connectedComponentsWithStats`.

use crate::{LabelImage, LabelVolume};

/// Area, inclusive bounding box and coordinate sums of one component
/// (centroid = sum / area).
///
/// An [`Analyzer`](crate::Analyzer) returns one per component, ordered by the
/// raster index of the component's first pixel: index `i` describes
/// canonical label `i + 1`, so results of different variants compare with `==`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ComponentStats {
    /// Number of pixels.
    pub area: u32,
    /// Smallest x of any pixel.
    pub x_min: u32,
    /// Smallest y of any pixel.
    pub y_min: u32,
    /// Largest x of any pixel (inclusive).
    pub x_max: u32,
    /// Largest y of any pixel (inclusive).
    pub y_max: u32,
    /// Sum of the x coordinates of every pixel.
    pub sum_x: u64,
    /// Sum of the y coordinates of every pixel.
    pub sum_y: u64,
}

impl ComponentStats {
    /// The statistics of a single pixel at `(x, y)`.
    #[inline]
    pub fn pixel(x: u32, y: u32) -> Self {
        Self {
            area: 1,
            x_min: x,
            y_min: y,
            x_max: x,
            y_max: y,
            sum_x: x as u64,
            sum_y: y as u64,
        }
    }

    /// Adds the horizontal run of pixels `x_start..=x_end` of row `y`.
    #[inline]
    pub fn add_run(&mut self, x_start: u32, x_end: u32, y: u32) {
        let n = (x_end - x_start + 1) as u64;
        if self.area == 0 {
            *self = Self {
                x_min: x_start,
                y_min: y,
                x_max: x_end,
                y_max: y,
                ..Self::default()
            };
        }
        self.area += n as u32;
        self.x_min = self.x_min.min(x_start);
        self.x_max = self.x_max.max(x_end);
        self.y_min = self.y_min.min(y);
        self.y_max = self.y_max.max(y);
        self.sum_x += (x_start as u64 + x_end as u64) * n / 2;
        self.sum_y += y as u64 * n;
    }

    /// Merges the statistics of another part of the same component.
    #[inline]
    pub fn merge(&mut self, other: &ComponentStats) {
        if other.area == 0 {
            return;
        }
        if self.area == 0 {
            *self = *other;
            return;
        }
        self.area += other.area;
        self.x_min = self.x_min.min(other.x_min);
        self.y_min = self.y_min.min(other.y_min);
        self.x_max = self.x_max.max(other.x_max);
        self.y_max = self.y_max.max(other.y_max);
        self.sum_x += other.sum_x;
        self.sum_y += other.sum_y;
    }

    /// `(sum_x / area, sum_y / area)`.
    pub fn centroid(&self) -> (f64, f64) {
        let area = self.area.max(1) as f64;
        (self.sum_x as f64 / area, self.sum_y as f64 / area)
    }

    /// Bounding box width, `x_max - x_min + 1`.
    pub fn width(&self) -> u32 {
        self.x_max - self.x_min + 1
    }

    /// Bounding box height, `y_max - y_min + 1`.
    pub fn height(&self) -> u32 {
        self.y_max - self.y_min + 1
    }

    /// The statistics of every component of a label image, in raster order of
    /// the components' first pixels — the reference every
    /// [`Analyzer`](crate::Analyzer) is checked against.
    ///
    /// ```
    /// use ccl_core::{ComponentStats, LabelImage};
    /// let labels = LabelImage::new(3, 2, vec![4, 0, 2, 4, 4, 0])?;
    /// let stats = ComponentStats::from_labels(&labels);
    /// assert_eq!(stats.len(), 2);
    /// assert_eq!((stats[0].area, stats[0].x_max, stats[0].sum_x), (3, 1, 1));
    /// assert_eq!(stats[1], ComponentStats::pixel(2, 0));
    /// # Ok::<(), ccl_core::Error>(())
    /// ```
    pub fn from_labels(labels: &LabelImage) -> Vec<ComponentStats> {
        let canonical = labels.canonical();
        let mut stats: Vec<ComponentStats> = Vec::new();
        let width = labels.width();
        for (i, &label) in canonical.labels().iter().enumerate() {
            if label == 0 {
                continue;
            }
            let (x, y) = ((i % width) as u32, (i / width) as u32);
            let index = label as usize - 1;
            if index == stats.len() {
                stats.push(ComponentStats::pixel(x, y));
            } else {
                stats[index].merge(&ComponentStats::pixel(x, y));
            }
        }
        stats
    }
}

/// Voxel count, inclusive bounding box and coordinate sums of one component
/// of a volume (centroid = sum / area): cc3d's `statistics` fields.
///
/// A volume analysis returns one per component in raster order of the
/// components' first voxels (z, then y, then x): index `i` describes
/// canonical label `i + 1`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct VolumeStats {
    /// Number of voxels.
    pub area: u32,
    /// Smallest x of any voxel.
    pub x_min: u32,
    /// Smallest y of any voxel.
    pub y_min: u32,
    /// Smallest z of any voxel.
    pub z_min: u32,
    /// Largest x of any voxel (inclusive).
    pub x_max: u32,
    /// Largest y of any voxel (inclusive).
    pub y_max: u32,
    /// Largest z of any voxel (inclusive).
    pub z_max: u32,
    /// Sum of the x coordinates of every voxel.
    pub sum_x: u64,
    /// Sum of the y coordinates of every voxel.
    pub sum_y: u64,
    /// Sum of the z coordinates of every voxel.
    pub sum_z: u64,
}

impl VolumeStats {
    /// The statistics of a single voxel at `(x, y, z)`.
    #[inline]
    pub fn voxel(x: u32, y: u32, z: u32) -> Self {
        Self {
            area: 1,
            x_min: x,
            y_min: y,
            z_min: z,
            x_max: x,
            y_max: y,
            z_max: z,
            sum_x: x as u64,
            sum_y: y as u64,
            sum_z: z as u64,
        }
    }

    /// The statistics of the run of voxels `x_start..=x_end` of row `(y, z)`.
    #[inline]
    pub fn run(x_start: u32, x_end: u32, y: u32, z: u32) -> Self {
        let n = (x_end - x_start + 1) as u64;
        Self {
            area: n as u32,
            x_min: x_start,
            y_min: y,
            z_min: z,
            x_max: x_end,
            y_max: y,
            z_max: z,
            sum_x: (x_start as u64 + x_end as u64) * n / 2,
            sum_y: y as u64 * n,
            sum_z: z as u64 * n,
        }
    }

    /// Merges the statistics of another part of the same component.
    #[inline]
    pub fn merge(&mut self, other: &VolumeStats) {
        if other.area == 0 {
            return;
        }
        if self.area == 0 {
            *self = *other;
            return;
        }
        self.area += other.area;
        self.x_min = self.x_min.min(other.x_min);
        self.y_min = self.y_min.min(other.y_min);
        self.z_min = self.z_min.min(other.z_min);
        self.x_max = self.x_max.max(other.x_max);
        self.y_max = self.y_max.max(other.y_max);
        self.z_max = self.z_max.max(other.z_max);
        self.sum_x += other.sum_x;
        self.sum_y += other.sum_y;
        self.sum_z += other.sum_z;
    }

    /// `(sum_x / area, sum_y / area, sum_z / area)`.
    pub fn centroid(&self) -> (f64, f64, f64) {
        let area = self.area.max(1) as f64;
        (
            self.sum_x as f64 / area,
            self.sum_y as f64 / area,
            self.sum_z as f64 / area,
        )
    }

    /// The statistics of every component of a label volume, in raster order
    /// of the components' first voxels: the reference every volume analysis
    /// is checked against.
    ///
    /// ```
    /// use ccl_core::{LabelVolume, VolumeStats};
    /// let labels = LabelVolume::new(2, 1, 2, vec![0, 8, 8, 8])?;
    /// let stats = VolumeStats::from_labels(&labels);
    /// assert_eq!(stats.len(), 1);
    /// assert_eq!((stats[0].area, stats[0].z_max, stats[0].sum_z), (3, 1, 2));
    /// # Ok::<(), ccl_core::Error>(())
    /// ```
    pub fn from_labels(labels: &LabelVolume) -> Vec<VolumeStats> {
        let canonical = labels.canonical();
        let (width, height) = (labels.width(), labels.height());
        let mut stats: Vec<VolumeStats> = Vec::new();
        for (i, &label) in canonical.labels().iter().enumerate() {
            if label == 0 {
                continue;
            }
            let (row, x) = (i / width, (i % width) as u32);
            let (y, z) = ((row % height) as u32, (row / height) as u32);
            let index = label as usize - 1;
            if index == stats.len() {
                stats.push(VolumeStats::voxel(x, y, z));
            } else {
                stats[index].merge(&VolumeStats::voxel(x, y, z));
            }
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_equals_its_pixels() {
        let mut run = ComponentStats::default();
        run.add_run(3, 7, 2);
        let mut pixels = ComponentStats::default();
        for x in 3..=7 {
            pixels.merge(&ComponentStats::pixel(x, 2));
        }
        assert_eq!(run, pixels);
        assert_eq!(run.centroid(), (5.0, 2.0));
        assert_eq!((run.width(), run.height()), (5, 1));
    }

    #[test]
    fn a_volume_run_equals_its_voxels() {
        let run = VolumeStats::run(2, 6, 1, 4);
        let mut voxels = VolumeStats::default();
        for x in 2..=6 {
            voxels.merge(&VolumeStats::voxel(x, 1, 4));
        }
        assert_eq!(run, voxels);
        assert_eq!(run.centroid(), (4.0, 1.0, 4.0));
    }
}
