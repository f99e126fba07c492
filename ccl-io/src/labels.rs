//! Label images to files: as data (a 32-bit TIFF, a NumPy `.npy`), which
//! ImageJ / Fiji, tifffile, OpenCV and numpy read back, or as a colour PNG
//! to look at.

use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::Path;

use ccl_core::{Error, LabelImage, Result};

/// How a label image is written; [`LabelFormat::of`] chooses by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelFormat {
    /// `.tif` / `.tiff`: one 32-bit unsigned gray sample per pixel (TIFF's
    /// SampleFormat 1, BitsPerSample 32).
    Tiff,
    /// `.npy`: NumPy's format 1.0, a little-endian `uint32` array of shape
    /// (height, width) in C order.
    Npy,
    /// `.png`: an RGB picture, background black, one colour per label (the
    /// first 262,143 labels all distinct: see [`label_colour`]).
    Png,
}

impl LabelFormat {
    /// The format a file's extension (any case) names.
    ///
    /// # Errors
    /// [`Error::Decode`] naming the accepted extensions, for any other.
    pub fn of(path: &Path) -> Result<Self> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("tif" | "tiff") => Ok(LabelFormat::Tiff),
            Some("npy") => Ok(LabelFormat::Npy),
            Some("png") => Ok(LabelFormat::Png),
            _ => Err(Error::Decode {
                path: path.to_path_buf(),
                message: "labels are written as .tif / .tiff (32-bit), .npy (NumPy uint32) or \
                          .png (colours); name the file with one of those extensions"
                    .into(),
            }),
        }
    }

    /// Writes `labels` in this format to `out`; `path` names it in errors.
    ///
    /// # Errors
    /// [`Error::Io`] when writing fails; [`Error::Decode`] when the format
    /// cannot hold the image (TIFF and PNG refuse images without pixels).
    pub fn write(
        self,
        labels: &LabelImage,
        out: &mut (impl Write + Seek),
        path: &Path,
    ) -> Result<()> {
        let encode_error = |message: String| Error::Decode {
            path: path.to_path_buf(),
            message,
        };
        let io_error = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        if labels.labels().is_empty() && self != LabelFormat::Npy {
            return Err(encode_error(
                "an image with no pixels can only be written as .npy".into(),
            ));
        }
        match self {
            LabelFormat::Tiff => write_tiff(labels, out).map_err(encode_error),
            LabelFormat::Npy => write_npy(labels, out).map_err(io_error),
            LabelFormat::Png => write_colour_png(labels, out).map_err(encode_error),
        }
    }
}

/// Writes the labels to `path` in the format its extension names
/// ([`LabelFormat::of`]).
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ccl-io-labels-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let labels = ccl_core::LabelImage::new(2, 2, vec![1, 0, 2, 2])?;
/// ccl_io::save_labels(&labels, &dir.join("labels.npy"))?;
/// ccl_io::save_labels(&labels, &dir.join("labels.tif"))?;
/// assert!(ccl_io::save_labels(&labels, &dir.join("labels.jpg")).is_err());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`LabelFormat::of`] and [`LabelFormat::write`]; [`Error::Io`] when
/// the file cannot be created.
pub fn save_labels(labels: &LabelImage, path: &Path) -> Result<()> {
    let format = LabelFormat::of(path)?;
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::create(path).map_err(io_error)?;
    let mut out = BufWriter::new(file);
    format.write(labels, &mut out, path)?;
    out.flush().map_err(io_error)
}

fn write_tiff(labels: &LabelImage, out: &mut (impl Write + Seek)) -> Result<(), String> {
    let (width, height) = sides(labels)?;
    crate::volume::write_tiff_pages::<tiff::encoder::colortype::Gray32>(
        out,
        (width, height),
        labels.labels(),
        false,
    )
}

fn write_npy(labels: &LabelImage, out: &mut impl Write) -> std::io::Result<()> {
    crate::npy::write_header(out, "<u4", &[labels.height(), labels.width()])?;
    for label in labels.labels() {
        out.write_all(&label.to_le_bytes())?;
    }
    Ok(())
}

fn write_colour_png(labels: &LabelImage, out: &mut impl Write) -> Result<(), String> {
    use image::ImageEncoder;
    let (width, height) = sides(labels)?;
    let rgb: Vec<u8> = labels
        .labels()
        .iter()
        .flat_map(|&l| label_colour(l))
        .collect();
    image::codecs::png::PngEncoder::new(out)
        .write_image(&rgb, width, height, image::ExtendedColorType::Rgb8)
        .map_err(|e| e.to_string())
}

fn sides(labels: &LabelImage) -> Result<(u32, u32), String> {
    // Both fit: check_size bounds the pixel count below 2^32, and a side of
    // an image with pixels is at most that count.
    let side = |n: usize| u32::try_from(n).map_err(|_| format!("a side of {n} pixels"));
    Ok((side(labels.width())?, side(labels.height())?))
}

/// Levels per channel of the palette: 64, from 64 to 253, so that no
/// component looks like the black background.
const LEVELS: u32 = 64;

/// The colour of a label in [`LabelFormat::Png`]: black for background (0);
/// for a label, one of the 2^18 colours of the palette, by a bijection of
/// the label's low 18 bits that scatters neighbouring labels (odd
/// multiplier and xor-shift, both invertible modulo 2^18): the first
/// 262,143 labels all get distinct colours, so neighbouring components
/// never share one.
pub fn label_colour(label: u32) -> [u8; 3] {
    if label == 0 {
        return [0; 3];
    }
    const BITS: u32 = 18;
    const MASK: u32 = (1 << BITS) - 1;
    let mut h = label & MASK;
    h = h.wrapping_mul(0x2_9E37) & MASK;
    h ^= h >> 9;
    h = h.wrapping_mul(0x1_B873) & MASK;
    h ^= h >> 7;
    let channel = |shift: u32| (64 + 3 * ((h >> shift) % LEVELS)) as u8;
    [channel(0), channel(6), channel(12)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::TempDir;

    #[test]
    fn background_is_black_and_labels_are_not() {
        assert_eq!(label_colour(0), [0, 0, 0]);
        for label in 1..1000 {
            assert!(label_colour(label).iter().all(|&c| c >= 64), "{label}");
        }
        assert_eq!(label_colour(7), label_colour(7));
    }

    #[test]
    fn the_first_labels_all_have_distinct_colours() {
        let mut seen = std::collections::HashSet::new();
        for label in 1..(1 << 18) {
            assert!(
                seen.insert(label_colour(label)),
                "label {label} repeats a colour"
            );
        }
    }

    #[test]
    fn npy_and_tiff_hold_the_labels() {
        let dir = TempDir::new("labels");
        let labels = LabelImage::new(3, 2, vec![0, 1, 70_000, 2, 0, 1]).unwrap();
        let npy = dir.0.join("l.npy");
        save_labels(&labels, &npy).unwrap();
        let bytes = std::fs::read(&npy).unwrap();
        assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
        assert!(header.contains("'shape': (2, 3)"), "{header}");
        let data: Vec<u32> = bytes[10 + header_len..]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(data, labels.labels());

        let tif = dir.0.join("l.TIFF");
        save_labels(&labels, &tif).unwrap();
        let mut decoder = tiff::decoder::Decoder::new(File::open(&tif).unwrap()).unwrap();
        assert_eq!(decoder.dimensions().unwrap(), (3, 2));
        match decoder.read_image().unwrap() {
            tiff::decoder::DecodingResult::U32(data) => assert_eq!(data, labels.labels()),
            _ => panic!("not 32-bit"),
        }
    }

    #[test]
    fn wrong_extensions_and_empty_images_are_refused() {
        let dir = TempDir::new("label-errors");
        let labels = LabelImage::new(1, 1, vec![1]).unwrap();
        let error = save_labels(&labels, &dir.0.join("l.bmp")).unwrap_err();
        assert!(error.to_string().contains(".tif / .tiff"), "{error}");
        let empty = LabelImage::new(0, 4, Vec::new()).unwrap();
        let error = save_labels(&empty, &dir.0.join("e.png")).unwrap_err();
        assert!(
            error.to_string().contains("only be written as .npy"),
            "{error}"
        );
        save_labels(&empty, &dir.0.join("e.npy")).unwrap();
        let error = save_labels(&labels, &dir.0.join("no-such-dir/l.npy")).unwrap_err();
        assert!(matches!(error, Error::Io { .. }), "{error}");
    }
}
