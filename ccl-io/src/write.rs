//! Binary images to files: PNG, PGM, PBM and TIFF, read back by
//! [`load_image`](crate::load_image) as they were written.

use std::io::Cursor;
use std::path::Path;

use ccl_core::{BinaryImageBuf, Error, Result};
use image::ImageEncoder;

/// Writes `image` in the format its extension names (any case): `.png` and
/// `.pgm` (8-bit gray, foreground 255, background 0), `.pbm` (binary P4,
/// foreground as 1 bits), `.tif` / `.tiff` (8-bit gray, foreground 255).
///
/// # Errors
/// [`Error::Decode`] for an unknown or missing extension, or when the format
/// cannot hold the image (PNG and TIFF refuse 0-pixel images and sides over
/// `u32::MAX`); [`Error::Io`] when the file cannot be written.
pub fn save_image(image: &BinaryImageBuf, path: &Path) -> Result<()> {
    let encode_error = |message: String| Error::Decode {
        path: path.to_path_buf(),
        message,
    };
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let (width, height) = (image.width(), image.height());
    let gray = || image.pixels().iter().map(|&p| p * 255).collect::<Vec<u8>>();
    let bytes = match extension.as_deref() {
        Some("pgm") => [format!("P5\n{width} {height}\n255\n").into_bytes(), gray()].concat(),
        Some("pbm") => [
            format!("P4\n{width} {height}\n").into_bytes(),
            pbm_bits(image),
        ]
        .concat(),
        Some(ext @ ("png" | "tif" | "tiff")) => {
            let side = |n: usize| {
                u32::try_from(n).map_err(|_| encode_error(format!("a side of {n} pixels")))
            };
            let (w, h) = (side(width)?, side(height)?);
            let mut out = Cursor::new(Vec::new());
            let color = image::ExtendedColorType::L8;
            let written = if ext == "png" {
                image::codecs::png::PngEncoder::new(&mut out).write_image(&gray(), w, h, color)
            } else {
                image::codecs::tiff::TiffEncoder::new(&mut out).write_image(&gray(), w, h, color)
            };
            written.map_err(|e| encode_error(format!("cannot encode as {ext}: {e}")))?;
            out.into_inner()
        }
        _ => {
            return Err(encode_error(
                "unknown image extension: use .png, .pgm, .pbm, .tif or .tiff".into(),
            ));
        }
    };
    std::fs::write(path, bytes).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// PBM raster: rows of `ceil(width / 8)` bytes, leftmost pixel in the high
/// bit, 1 = foreground.
fn pbm_bits(image: &BinaryImageBuf) -> Vec<u8> {
    let mut bits = Vec::with_capacity(image.width().div_ceil(8) * image.height());
    for row in image.pixels().chunks(image.width().max(1)) {
        bits.extend(
            row.chunks(8).map(|byte| {
                (0..8).fold(0u8, |acc, i| acc << 1 | byte.get(i).copied().unwrap_or(0))
            }),
        );
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{TempDir, sample};

    #[test]
    fn written_bytes_follow_the_formats() {
        let dir = TempDir::new("bytes");
        #[rustfmt::skip]
        let image = BinaryImageBuf::from_pixels(vec![
            1, 0, 0, 0, 0, 0, 0, 0, 1, 1,
            0, 1, 0, 0, 0, 0, 0, 0, 0, 1,
        ], 10, 2).unwrap();
        let path = dir.0.join("a.pbm");
        save_image(&image, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes, b"P4\n10 2\n\x80\xc0\x40\x40");
        let path = dir.0.join("a.pgm");
        save_image(&image, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..10], b"P5\n10 2\n25");
        assert_eq!(&bytes[bytes.len() - 3..], &[0, 0, 255]);
    }

    #[test]
    fn saving_refuses_what_it_cannot_write() {
        let dir = TempDir::new("save");
        let image = sample();
        for name in ["sample.bmp", "sample", "sample.jpg"] {
            let err = save_image(&image, &dir.0.join(name)).unwrap_err();
            assert!(err.to_string().contains(".png, .pgm, .pbm"), "{err}");
        }
        let err = save_image(&image, &dir.0.join("no-such-dir/sample.png")).unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{err}");
        let empty = BinaryImageBuf::new(0, 3).unwrap();
        let err = save_image(&empty, &dir.0.join("empty.png")).unwrap_err();
        assert!(matches!(err, Error::Decode { .. }), "{err}");
    }
}
