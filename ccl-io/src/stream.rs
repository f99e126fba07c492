//! `.npy` files read and written at any offset, for images and volumes
//! larger than memory: a binary array is read a run of elements at a time
//! ([`NpyBytes`]) and a label array written the same way
//! ([`NpyLabelFile`]), from several threads at once (positioned reads and
//! writes share no cursor).

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};

use ccl_core::{Error, Result};

use crate::npy::{self, Dtype};
use crate::volume::decode_error;

/// [`Error::Io`] for `path`.
pub(crate) fn io_error(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What the bytes of an array streamed a byte an element hold
/// ([`NpyBytes::element`]): which values a threshold compares, and their
/// range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteElement {
    /// numpy's `bool`: any nonzero byte is `True`, the value 1.
    Bool,
    /// `uint8` (and 8-bit gray samples): 0..=255.
    U8,
    /// `int8`: −128..=127, the bytes in two's complement.
    I8,
}

impl ByteElement {
    /// numpy's name of the type, for messages.
    pub fn name(self) -> &'static str {
        match self {
            ByteElement::Bool => "bool",
            ByteElement::U8 => "uint8",
            ByteElement::I8 => "int8",
        }
    }

    /// The smallest and the largest value.
    pub fn range(self) -> (i32, i32) {
        match self {
            ByteElement::Bool => (0, 1),
            ByteElement::U8 => (0, u8::MAX.into()),
            ByteElement::I8 => (i8::MIN.into(), i8::MAX.into()),
        }
    }
}

/// A `.npy` of one byte an element (`bool`, `uint8` or `int8`, C order, 2
/// or 3 dimensions), read at any offset: nonzero is foreground.
#[derive(Debug)]
pub struct NpyBytes {
    path: PathBuf,
    file: File,
    shape: Vec<usize>,
    element: ByteElement,
    data_offset: u64,
}

impl NpyBytes {
    /// Opens `path` and reads its header; an error names what is not such
    /// an array (another type, Fortran order, a file shorter than its data).
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(io_error(path))?;
        let header = npy::read_header(&mut BufReader::new(&file))
            .map_err(io_error(path))?
            .map_err(|message| decode_error(path, message))?;
        let element = match header.dtype {
            Dtype::Bool => ByteElement::Bool,
            Dtype::U8 => ByteElement::U8,
            Dtype::I8 => ByteElement::I8,
            other => {
                return Err(decode_error(
                    path,
                    format!(
                        "a {} array; streamed labeling reads one byte an element (bool, uint8 or int8): convert it first, e.g. (a != 0).astype(numpy.uint8)",
                        other.name()
                    ),
                ));
            }
        };
        if header.fortran_order {
            return Err(decode_error(
                path,
                "a Fortran-order array; save it in C order (numpy.ascontiguousarray)".into(),
            ));
        }
        if !(2..=3).contains(&header.shape.len()) {
            return Err(decode_error(
                path,
                format!(
                    "{} dimensions; an image has 2, a volume 3",
                    header.shape.len()
                ),
            ));
        }
        let shape = header
            .shape
            .iter()
            .map(|&n| usize::try_from(n))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|_| decode_error(path, "a dimension past this machine's memory".into()))?;
        let elements = header
            .shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d))
            .ok_or_else(|| decode_error(path, "its dimensions overflow".into()))?;
        let length = file.metadata().map_err(io_error(path))?.len();
        if length < header.data_offset + elements {
            return Err(decode_error(
                path,
                format!(
                    "the header declares {elements} bytes of data, the file holds {}",
                    length.saturating_sub(header.data_offset)
                ),
            ));
        }
        Ok(Self {
            path: path.to_path_buf(),
            file,
            shape,
            element,
            data_offset: header.data_offset,
        })
    }

    /// The array's shape: (height, width) or (depth, height, width).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The type of its elements: how a threshold reads the bytes.
    pub fn element(&self) -> ByteElement {
        self.element
    }

    /// Fills `out` with the elements from `element` on (in C order).
    pub fn read_at(&self, element: u64, out: &mut [u8]) -> Result<()> {
        read_exact_at(&self.file, out, self.data_offset + element).map_err(io_error(&self.path))
    }
}

/// A `.npy` of `uint32` or `uint64` labels of a given shape, written at any
/// offset: created at its full length, then filled by
/// [`write_at`](Self::write_at) in any order.
#[derive(Debug)]
pub struct NpyLabelFile {
    path: PathBuf,
    file: File,
    data_offset: u64,
}

impl NpyLabelFile {
    /// Creates `path` for an array of `shape` (C order) of `uint64` labels
    /// where `wide`, else `uint32`; its data reads as zeros until written.
    pub fn create(path: &Path, shape: &[usize], wide: bool) -> Result<Self> {
        let file = File::create(path).map_err(io_error(path))?;
        let mut header = Vec::new();
        npy::write_header(&mut header, if wide { "<u8" } else { "<u4" }, shape)
            .map_err(io_error(path))?;
        let elements = shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d as u64))
            .ok_or_else(|| Error::InvalidDimensions(format!("{shape:?} overflows")))?;
        let bytes = elements * if wide { 8 } else { 4 };
        {
            use std::io::Write;
            let mut writer = BufWriter::new(&file);
            writer.write_all(&header).map_err(io_error(path))?;
            writer.flush().map_err(io_error(path))?;
        }
        file.set_len(header.len() as u64 + bytes)
            .map_err(io_error(path))?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
            data_offset: header.len() as u64,
        })
    }

    /// Writes `labels` (little-endian, as the header says) from element
    /// `element` on; `T` is `u32` or `u64`, as created.
    pub fn write_at<T: LabelBytes>(&self, element: u64, labels: &[T]) -> Result<()> {
        let offset = self.data_offset + element * size_of::<T>() as u64;
        write_labels_at(&self.file, labels, offset).map_err(io_error(&self.path))
    }
}

/// Labels converted to bytes at a time by [`write_labels_at`]: a strip's
/// labels (gigabytes) are written without a copy of their size.
const LABELS_A_WRITE: usize = 1 << 18;

/// Writes `labels` little-endian at byte `offset` of `file`, a block at a
/// time.
pub(crate) fn write_labels_at<T: LabelBytes>(
    file: &File,
    labels: &[T],
    offset: u64,
) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(LABELS_A_WRITE.min(labels.len()) * size_of::<T>());
    let mut at = offset;
    for block in labels.chunks(LABELS_A_WRITE) {
        bytes.clear();
        for &label in block {
            label.extend_le(&mut bytes);
        }
        write_all_at(file, &bytes, at)?;
        at += bytes.len() as u64;
    }
    Ok(())
}

/// The label integers a [`NpyLabelFile`] or a
/// [`TiffLabelFile`](crate::TiffLabelFile) holds.
pub trait LabelBytes: Copy {
    /// Appends the little-endian bytes.
    fn extend_le(self, out: &mut Vec<u8>);
}

impl LabelBytes for u32 {
    fn extend_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl LabelBytes for u64 {
    fn extend_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

#[cfg(unix)]
pub(crate) fn read_at(file: &File, out: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, out, offset)
}

#[cfg(unix)]
pub(crate) fn read_exact_at(file: &File, out: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, out, offset)
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(windows)]
pub(crate) fn read_at(file: &File, out: &mut [u8], offset: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, out, offset)
}

#[cfg(windows)]
pub(crate) fn read_exact_at(
    file: &File,
    mut out: &mut [u8],
    mut offset: u64,
) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !out.is_empty() {
        match file.seek_read(out, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                out = &mut out[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

#[cfg(windows)]
fn write_all_at(file: &File, mut bytes: &[u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !bytes.is_empty() {
        let n = file.seek_write(bytes, offset)?;
        bytes = &bytes[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("ccl-io-stream-{}-{name}", std::process::id()))
    }

    #[test]
    fn label_files_written_out_of_order_read_back_as_numpy_would() {
        let path = temp("labels.npy");
        let file = NpyLabelFile::create(&path, &[2, 3], true).unwrap();
        file.write_at(3, &[4u64, 5, 6]).unwrap();
        file.write_at(0, &[1u64, 2, 3]).unwrap();
        drop(file);
        let bytes = std::fs::read(&path).unwrap();
        let header = npy::read_header(&mut &bytes[..]).unwrap().unwrap();
        assert_eq!(
            (header.dtype, header.shape.clone()),
            (Dtype::U64, vec![2, 3])
        );
        let data = &bytes[header.data_offset as usize..];
        let values: Vec<u64> = data
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(values, [1, 2, 3, 4, 5, 6]);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn byte_arrays_read_at_offsets_and_other_arrays_are_refused() {
        let path = temp("bytes.npy");
        let mut bytes = Vec::new();
        npy::write_header(&mut bytes, "|u1", &[2, 2, 3]).unwrap();
        bytes.extend(0..12u8);
        std::fs::write(&path, &bytes).unwrap();
        let array = NpyBytes::open(&path).unwrap();
        assert_eq!(array.shape(), [2, 2, 3]);
        assert_eq!(array.element(), ByteElement::U8);
        let mut out = [0u8; 6];
        array.read_at(6, &mut out).unwrap();
        assert_eq!(out, [6, 7, 8, 9, 10, 11]);
        assert!(array.read_at(7, &mut out).is_err());
        // Short of its data, another type, one dimension: refused.
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(
            NpyBytes::open(&path)
                .unwrap_err()
                .to_string()
                .contains("declares 12 bytes")
        );
        let mut wide = Vec::new();
        npy::write_header(&mut wide, "<u2", &[2, 2]).unwrap();
        wide.extend([0u8; 8]);
        std::fs::write(&path, &wide).unwrap();
        assert!(
            NpyBytes::open(&path)
                .unwrap_err()
                .to_string()
                .contains("uint16")
        );
        // The element types of a byte, told apart.
        for (descr, element) in [("|b1", ByteElement::Bool), ("|i1", ByteElement::I8)] {
            let mut other = Vec::new();
            npy::write_header(&mut other, descr, &[2, 2]).unwrap();
            other.extend([0u8; 4]);
            std::fs::write(&path, &other).unwrap();
            assert_eq!(NpyBytes::open(&path).unwrap().element(), element, "{descr}");
        }
        let mut flat = Vec::new();
        npy::write_header(&mut flat, "|u1", &[4]).unwrap();
        flat.extend([0u8; 4]);
        std::fs::write(&path, &flat).unwrap();
        assert!(
            NpyBytes::open(&path)
                .unwrap_err()
                .to_string()
                .contains("1 dimensions")
        );
        std::fs::remove_file(&path).unwrap();
    }
}
