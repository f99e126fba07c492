//! Class maps: images and volumes whose values are classes (a segmentation
//! network's argmax, an atlas), labeled "multilabel" as cc3d does: two
//! pixels are connected when they are neighbours of the same nonzero value,
//! so the components of each class are found apart, and zero is background.
//!
//! ```
//! use ccl_core::{ClassMap, ClassValue};
//!
//! // Classes 1 and 2 side by side: two components where a binary labeling
//! // would see one.
//! let values: [u16; 6] = [1, 1, 2,
//!                         0, 2, 2];
//! let map = ClassMap::image(&values, 3, 2)?;
//! assert_eq!((map.width(), map.height(), map.depth()), (3, 2, 1));
//! assert_eq!(map.get(2, 0, 0), 2);
//! assert!(<u16 as ClassValue>::BACKGROUND == 0);
//! # Ok::<(), ccl_core::Error>(())
//! ```

use std::fmt::Debug;

use crate::{Error, LabelVolume, Result, check_volume_size};

mod sealed {
    pub trait Sealed {}
}

/// The value type of a class map: an integer, compared for equality, whose
/// zero is background. Floats are not classes (equality of floats is not a
/// class), and are refused where a caller could pass them.
pub trait ClassValue: Copy + Eq + Debug + Send + Sync + 'static + sealed::Sealed {
    /// The background value, zero.
    const BACKGROUND: Self;
    /// The bytes of one value.
    const BYTES: usize;
}

macro_rules! class_values {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl ClassValue for $t {
            const BACKGROUND: Self = 0;
            const BYTES: usize = std::mem::size_of::<$t>();
        }
    )*};
}

class_values!(u8, i8, u16, i16, u32, i32, u64, i64);

/// A borrowed class map: `width × height × depth` values, x fastest, then
/// y, then z, packed; an image is a map of depth 1.
#[derive(Clone, Copy, Debug)]
pub struct ClassMap<'a, T> {
    values: &'a [T],
    width: usize,
    height: usize,
    depth: usize,
}

impl<'a, T: ClassValue> ClassMap<'a, T> {
    /// A volume of `depth` slices of `height` rows of `width` values.
    /// Errors when `values` does not hold exactly that many, or when the
    /// map has more voxels than 32-bit labels can number.
    pub fn new(values: &'a [T], width: usize, height: usize, depth: usize) -> Result<Self> {
        check_volume_size(width, height, depth)?;
        let expected = width * height * depth;
        if values.len() != expected {
            return Err(Error::InvalidDimensions(format!(
                "a {width}x{height}x{depth} class map holds {expected} values, not {}",
                values.len()
            )));
        }
        Ok(Self {
            values,
            width,
            height,
            depth,
        })
    }

    /// An image: a map of one slice.
    pub fn image(values: &'a [T], width: usize, height: usize) -> Result<Self> {
        Self::new(values, width, height, 1)
    }

    /// Columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows per slice.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Slices (1 for an image).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The values, packed.
    pub fn values(&self) -> &'a [T] {
        self.values
    }

    /// The value at (x, y, z).
    pub fn get(&self, x: usize, y: usize, z: usize) -> T {
        self.values[(z * self.height + y) * self.width + x]
    }

    /// Whether the map has no values.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// A labeled class map: canonical labels (0 for background, 1..=N in
/// raster order of each component's first pixel, z then y then x) and the
/// class of each component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassLabels<T> {
    /// The labels, the map's shape (depth 1 for an image).
    pub labels: LabelVolume,
    /// `classes[i]` is the value of component `i + 1`'s pixels.
    pub classes: Vec<T>,
}

impl<T: ClassValue> ClassLabels<T> {
    /// The number of components.
    pub fn component_count(&self) -> usize {
        self.classes.len()
    }
}
