//! Class maps from files: a `.npy` of integers (2-D or 3-D, any byte order,
//! C or Fortran order) read as the values whose equal nonzero neighbours
//! are connected (`ccl::label_classes`), in the file's own type.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use ccl_core::Result;

use crate::ReadOptions;
use crate::npy::{self, Dtype};
use crate::stream::io_error;
use crate::volume::{Layout, check_voxels, decode_error, read_values};

/// The values of a class map, in the file's integer type (`bool` as `u8`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClassValues {
    /// `uint8` (and `bool`).
    U8(Vec<u8>),
    /// `int8`.
    I8(Vec<i8>),
    /// `uint16`.
    U16(Vec<u16>),
    /// `int16`.
    I16(Vec<i16>),
    /// `uint32`.
    U32(Vec<u32>),
    /// `int32`.
    I32(Vec<i32>),
    /// `uint64`.
    U64(Vec<u64>),
    /// `int64`.
    I64(Vec<i64>),
}

/// A class map read from a file: its values (x fastest, then y, then z)
/// and its sides; an image has depth 1 and `dimensions` 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassMapFile {
    /// The values.
    pub values: ClassValues,
    /// Columns.
    pub width: usize,
    /// Rows (of each slice).
    pub height: usize,
    /// Slices (1 for an image).
    pub depth: usize,
    /// 2 for a `(height, width)` array, 3 for `(depth, height, width)`.
    pub dimensions: usize,
}

/// Reads the class map of the `.npy` at `path`: an integer or bool array of
/// shape `(height, width)` or `(depth, height, width)`, at most
/// `options.max_pixels` elements. A float array is refused (its values are
/// not classes: round or cast it first), and so is anything but a `.npy`.
pub fn read_class_map(path: &Path, options: &ReadOptions) -> Result<ClassMapFile> {
    let is_npy = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    if !is_npy {
        return Err(decode_error(
            path,
            "a class map is read from a .npy of integers (numpy.save); convert the image first"
                .into(),
        ));
    }
    let file = File::open(path).map_err(io_error(path))?;
    let length = file.metadata().map_err(io_error(path))?.len();
    let mut input = BufReader::new(file);
    let header = npy::read_header(&mut input)
        .map_err(io_error(path))?
        .map_err(|message| decode_error(path, message))?;
    let sides: Vec<usize> = header
        .shape
        .iter()
        .map(|&n| usize::try_from(n).unwrap_or(usize::MAX))
        .collect();
    let (width, height, depth) = match sides[..] {
        [height, width] => (width, height, 1),
        [depth, height, width] => (width, height, depth),
        _ => {
            return Err(decode_error(
                path,
                format!(
                    "{} dimensions; a class map is 2-D (height, width) or 3-D (depth, height, width)",
                    sides.len()
                ),
            ));
        }
    };
    check_voxels((width, height, depth), path, options)?;
    if matches!(header.dtype, Dtype::F32 | Dtype::F64) {
        return Err(decode_error(
            path,
            format!(
                "a {} array; a class map holds integer classes (cast it: a.astype(numpy.int32))",
                header.dtype.name()
            ),
        ));
    }
    let layout = Layout {
        width,
        height,
        depth,
        fortran_order: header.fortran_order,
    };
    let needed = (layout.count() as u64).saturating_mul(header.dtype.size() as u64);
    if length.saturating_sub(header.data_offset) < needed {
        return Err(decode_error(
            path,
            format!("the header declares {needed} bytes of data, the file holds fewer"),
        ));
    }
    let big = header.big_endian;
    let read = |input: &mut dyn Read| -> std::io::Result<ClassValues> {
        let mut input = input;
        Ok(match header.dtype {
            Dtype::Bool => ClassValues::U8(
                read_values::<u8>(&mut input, layout, big)?
                    .into_iter()
                    .map(|b| u8::from(b != 0))
                    .collect(),
            ),
            Dtype::U8 => ClassValues::U8(read_values(&mut input, layout, big)?),
            Dtype::I8 => ClassValues::I8(read_values(&mut input, layout, big)?),
            Dtype::U16 => ClassValues::U16(read_values(&mut input, layout, big)?),
            Dtype::I16 => ClassValues::I16(read_values(&mut input, layout, big)?),
            Dtype::U32 => ClassValues::U32(read_values(&mut input, layout, big)?),
            Dtype::I32 => ClassValues::I32(read_values(&mut input, layout, big)?),
            Dtype::U64 => ClassValues::U64(read_values(&mut input, layout, big)?),
            Dtype::I64 => ClassValues::I64(read_values(&mut input, layout, big)?),
            Dtype::F32 | Dtype::F64 => unreachable!("refused above"),
        })
    };
    let values = read(&mut input).map_err(io_error(path))?;
    Ok(ClassMapFile {
        values,
        width,
        height,
        depth,
        dimensions: sides.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(path: &Path, descr: &str, fortran: bool, shape: &str, data: &[u8]) {
        let dict = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
            if fortran { "True" } else { "False" }
        );
        let mut bytes = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
        bytes.extend(format!("{dict:<117}\n").bytes());
        bytes.extend(data);
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn class_maps_keep_their_type_byte_order_and_layout() {
        let path = std::env::temp_dir().join(format!("ccl-io-classes-{}.npy", std::process::id()));
        let options = ReadOptions::default();
        // Big-endian int16, Fortran order: the file holds columns first.
        let column_major: Vec<u8> = [1i16, 4, 2, 5, 3, -6]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        npy(&path, ">i2", true, "(2, 3)", &column_major);
        let map = read_class_map(&path, &options).unwrap();
        assert_eq!(
            (map.width, map.height, map.depth, map.dimensions),
            (3, 2, 1, 2)
        );
        assert_eq!(map.values, ClassValues::I16(vec![1, 2, 3, 4, 5, -6]));
        // bool reads as 0 / 1 of u8; a volume keeps its depth.
        npy(&path, "|b1", false, "(2, 1, 2)", &[0, 1, 2, 0]);
        let map = read_class_map(&path, &options).unwrap();
        assert_eq!((map.depth, map.dimensions), (2, 3));
        assert_eq!(map.values, ClassValues::U8(vec![0, 1, 1, 0]));
        // Floats, a short file and four dimensions are refused.
        npy(&path, "<f8", false, "(1, 1)", &[0; 8]);
        assert!(
            read_class_map(&path, &options)
                .unwrap_err()
                .to_string()
                .contains("integer")
        );
        npy(&path, "<u4", false, "(2, 2)", &[0; 12]);
        assert!(
            read_class_map(&path, &options)
                .unwrap_err()
                .to_string()
                .contains("declares 16")
        );
        npy(&path, "|u1", false, "(1, 1, 1, 1)", &[0]);
        assert!(
            read_class_map(&path, &options)
                .unwrap_err()
                .to_string()
                .contains("4 dimensions")
        );
        std::fs::remove_file(&path).unwrap();
    }
}
