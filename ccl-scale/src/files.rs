//! `.npy` files as strip sources and sinks (`ccl_io`'s positioned readers
//! and writers): an array larger than memory read and labeled plane by
//! plane.

use std::path::Path;

use ccl::Result;
use ccl::io::{NpyBytes, NpyLabelFile};

use crate::Shape;
use crate::stream::{PlaneSink, PlaneSource};

/// A `.npy` of bytes (bool, uint8, int8; (height, width) or (depth,
/// height, width), C order) read plane by plane.
#[derive(Debug)]
pub struct NpySource {
    array: NpyBytes,
    shape: Shape,
}

impl NpySource {
    /// Opens `path`; its dimensions say image or volume.
    pub fn open(path: &Path) -> Result<Self> {
        let array = NpyBytes::open(path)?;
        let shape = match *array.shape() {
            [height, width] => Shape::Image { width, height },
            [depth, height, width] => Shape::Volume {
                width,
                height,
                depth,
            },
            _ => unreachable!("NpyBytes opens 2 or 3 dimensions only"),
        };
        Ok(Self { array, shape })
    }

    /// The array's shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }
}

impl PlaneSource for NpySource {
    fn read_planes(&self, first: usize, out: &mut [u8]) -> Result<()> {
        self.array
            .read_at(first as u64 * self.shape.plane_len() as u64, out)
    }
}

/// A `.npy` of labels (`uint32` or `uint64`, the source's shape) written
/// plane by plane.
#[derive(Debug)]
pub struct NpySink {
    file: NpyLabelFile,
    plane_len: usize,
}

impl NpySink {
    /// Creates `path` for the labels of `shape`, 64-bit where `wide`.
    pub fn create(path: &Path, shape: Shape, wide: bool) -> Result<Self> {
        let dims = match shape {
            Shape::Image { width, height } => vec![height, width],
            Shape::Volume {
                width,
                height,
                depth,
            } => vec![depth, height, width],
        };
        Ok(Self {
            file: NpyLabelFile::create(path, &dims, wide)?,
            plane_len: shape.plane_len(),
        })
    }
}

impl PlaneSink<u32> for NpySink {
    fn write_planes(&self, first: usize, labels: &[u32]) -> Result<()> {
        self.file
            .write_at(first as u64 * self.plane_len as u64, labels)
    }
}

impl PlaneSink<u64> for NpySink {
    fn write_planes(&self, first: usize, labels: &[u64]) -> Result<()> {
        self.file
            .write_at(first as u64 * self.plane_len as u64, labels)
    }
}
