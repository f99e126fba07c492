//! What is labeled in strips: an image cut across its rows, or a volume
//! cut across its slices. Both are a sequence of *planes* (a row of an
//! image, a slice of a volume), and a strip is a run of whole planes, so
//! one strip touches the next only through the plane on either side.

use ccl_core::{Connectivity, Error, Result};

/// The dimensions of an image or a volume labeled in strips: any size,
/// past `2^32` pixels included (the strips themselves stay under it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `height` rows of `width` pixels; a plane is a row.
    Image {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// `depth` slices of `height` rows of `width` voxels; a plane is a slice.
    Volume {
        /// Columns.
        width: usize,
        /// Rows per slice.
        height: usize,
        /// Slices.
        depth: usize,
    },
}

impl Shape {
    /// Pixels (voxels) per plane: a row's or a slice's.
    pub fn plane_len(&self) -> usize {
        match *self {
            Shape::Image { width, .. } => width,
            Shape::Volume { width, height, .. } => width * height,
        }
    }

    /// Planes: rows of an image, slices of a volume.
    pub fn planes(&self) -> usize {
        match *self {
            Shape::Image { height, .. } => height,
            Shape::Volume { depth, .. } => depth,
        }
    }

    /// Every pixel (voxel).
    pub fn pixels(&self) -> u64 {
        self.plane_len() as u64 * self.planes() as u64
    }

    /// 2 or 3.
    pub fn dimensions(&self) -> usize {
        match self {
            Shape::Image { .. } => 2,
            Shape::Volume { .. } => 3,
        }
    }

    /// Columns.
    pub fn width(&self) -> usize {
        match *self {
            Shape::Image { width, .. } | Shape::Volume { width, .. } => width,
        }
    }

    /// Width, height and depth (1 for an image).
    pub fn sides(&self) -> [usize; 3] {
        match *self {
            Shape::Image { width, height } => [width, height, 1],
            Shape::Volume {
                width,
                height,
                depth,
            } => [width, height, depth],
        }
    }

    /// Rows of a plane: 1 for an image's row, the height for a volume's slice.
    pub fn plane_rows(&self) -> usize {
        match *self {
            Shape::Image { .. } => 1,
            Shape::Volume { height, .. } => height,
        }
    }

    /// Checks that the dimensions multiply without overflow and that
    /// `connectivity` is one of this dimension's.
    pub(crate) fn check(&self, connectivity: Connectivity) -> Result<()> {
        connectivity.check_dimensions(self.dimensions())?;
        let [width, height, depth] = self.sides();
        width
            .checked_mul(height)
            .and_then(|plane| plane.checked_mul(depth))
            .map(|_| ())
            .ok_or_else(|| {
                Error::InvalidDimensions(format!(
                    "{width}x{height}x{depth} overflows this machine's address space"
                ))
            })
    }
}

/// The neighbours of a pixel across a border plane, as (dx, dy) offsets
/// within the plane: who in the next strip's first plane touches a pixel
/// of this strip's last plane.
pub(crate) fn border_offsets(connectivity: Connectivity) -> &'static [(isize, isize)] {
    match connectivity {
        Connectivity::Four | Connectivity::Six => &[(0, 0)],
        Connectivity::Eight => &[(-1, 0), (0, 0), (1, 0)],
        Connectivity::Eighteen => &[(0, -1), (-1, 0), (0, 0), (1, 0), (0, 1)],
        Connectivity::TwentySix => &[
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (0, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_of_images_and_volumes() {
        let image = Shape::Image {
            width: 7,
            height: 5,
        };
        assert_eq!(
            (image.plane_len(), image.planes(), image.pixels()),
            (7, 5, 35)
        );
        let volume = Shape::Volume {
            width: 7,
            height: 5,
            depth: 3,
        };
        assert_eq!(
            (volume.plane_len(), volume.planes(), volume.plane_rows()),
            (35, 3, 5)
        );
        assert!(image.check(Connectivity::Six).is_err());
        assert!(volume.check(Connectivity::Eight).is_err());
        assert!(volume.check(Connectivity::TwentySix).is_ok());
        let huge = Shape::Volume {
            width: usize::MAX,
            height: 2,
            depth: 1,
        };
        assert!(huge.check(Connectivity::Six).is_err());
    }

    #[test]
    fn border_offsets_match_the_connectivity() {
        // Across a plane, a pixel touches 1, 3, 1, 5 or 9 of the next.
        let counts: Vec<usize> = [
            Connectivity::Four,
            Connectivity::Eight,
            Connectivity::Six,
            Connectivity::Eighteen,
            Connectivity::TwentySix,
        ]
        .iter()
        .map(|&c| border_offsets(c).len())
        .collect();
        assert_eq!(counts, [1, 3, 1, 5, 9]);
        // 18: the offsets of which at most one coordinate is nonzero.
        assert!(
            border_offsets(Connectivity::Eighteen)
                .iter()
                .all(|&(dx, dy)| dx == 0 || dy == 0)
        );
    }
}
