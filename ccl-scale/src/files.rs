//! `.npy` and TIFF files as strip sources and sinks (`ccl_io`'s positioned
//! readers and writers): an array larger than memory read and labeled
//! plane by plane.

use std::path::Path;

use ccl::Result;
use ccl::io::{ByteElement, LabelBytes, NpyBytes, NpyLabelFile, TiffBytes, TiffLabelFile};

use crate::Shape;
use crate::stream::{LabelWord, PlaneSink, PlaneSource};

/// A `.npy` of bytes (bool, uint8, int8; (height, width) or (depth,
/// height, width), C order) read plane by plane, the values as they are
/// (nonzero is foreground; [`Binarized`](crate::Binarized) thresholds
/// them).
#[derive(Debug)]
pub struct NpySource {
    array: NpyBytes,
    shape: Shape,
}

impl NpySource {
    /// Opens `path`; its dimensions say image or volume.
    pub fn open(path: &Path) -> Result<Self> {
        let array = NpyBytes::open(path)?;
        let shape = shape_of(array.shape());
        Ok(Self { array, shape })
    }

    /// The array's shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The type of its elements: how a threshold reads its bytes
    /// ([`Foreground`](crate::Foreground)).
    pub fn element(&self) -> ByteElement {
        self.array.element()
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
        Ok(Self {
            file: NpyLabelFile::create(path, &dimensions(shape), wide)?,
            plane_len: shape.plane_len(),
        })
    }
}

impl<L: LabelWord + LabelBytes> PlaneSink<L> for NpySink {
    fn write_planes(&self, first: usize, labels: &[L]) -> Result<()> {
        self.file
            .write_at(first as u64 * self.plane_len as u64, labels)
    }
}

/// A TIFF of 8-bit (or 1-bit) gray pages read plane by plane: one page an
/// image (a plane a row), several a volume (a plane a page), the gray
/// values as they are (nonzero is foreground; [`Binarized`](crate::Binarized)
/// thresholds them). Only the strips or tiles that hold the planes asked
/// for are decoded.
#[derive(Debug)]
pub struct TiffSource {
    tiff: TiffBytes,
    shape: Shape,
}

impl TiffSource {
    /// Opens `path`; its pages say image or volume.
    pub fn open(path: &Path) -> Result<Self> {
        let tiff = TiffBytes::open(path)?;
        let shape = shape_of(tiff.shape());
        Ok(Self { tiff, shape })
    }

    /// The image's or volume's shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The type of its samples as read: [`ByteElement::U8`], 8-bit gray
    /// values (1-bit pages read as 0 and 255, as ccl's in-memory reader
    /// reads them), for a threshold ([`Foreground`](crate::Foreground)).
    pub fn element(&self) -> ByteElement {
        ByteElement::U8
    }
}

impl PlaneSource for TiffSource {
    fn read_planes(&self, first: usize, out: &mut [u8]) -> Result<()> {
        self.tiff.read_planes(first, out)
    }
}

/// A TIFF of labels (`uint32` or `uint64` gray, one page for an image, one
/// a slice for a volume; uncompressed, BigTIFF past 4 GiB) written plane
/// by plane.
#[derive(Debug)]
pub struct TiffSink {
    file: TiffLabelFile,
    plane_len: usize,
}

impl TiffSink {
    /// Creates `path` for the labels of `shape`, 64-bit where `wide`.
    pub fn create(path: &Path, shape: Shape, wide: bool) -> Result<Self> {
        Ok(Self {
            file: TiffLabelFile::create(path, &dimensions(shape), wide)?,
            plane_len: shape.plane_len(),
        })
    }
}

impl<L: LabelWord + LabelBytes> PlaneSink<L> for TiffSink {
    fn write_planes(&self, first: usize, labels: &[L]) -> Result<()> {
        self.file
            .write_at(first as u64 * self.plane_len as u64, labels)
    }
}

/// The shape of an array of `dimensions` (height, width) or (depth,
/// height, width), as the readers give them.
fn shape_of(dimensions: &[usize]) -> Shape {
    match *dimensions {
        [height, width] => Shape::Image { width, height },
        [depth, height, width] => Shape::Volume {
            width,
            height,
            depth,
        },
        _ => unreachable!("the readers open 2 or 3 dimensions only"),
    }
}

/// The dimensions of `shape` in numpy's order: (height, width) or (depth,
/// height, width).
fn dimensions(shape: Shape) -> Vec<usize> {
    match shape {
        Shape::Image { width, height } => vec![height, width],
        Shape::Volume {
            width,
            height,
            depth,
        } => vec![depth, height, width],
    }
}
