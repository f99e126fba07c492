//! Binary images from and to files: PNG, PNM (PBM / PGM / PPM / PAM) and TIFF.
//!
//! One rule for every format: a pixel is foreground iff its stored sample is
//! nonzero. For gray and colour images that is "not black" (any colour
//! channel nonzero; alpha is ignored, as OpenCV's and scikit-image's gray
//! loaders ignore it). For PBM it is a 1 bit, which netpbm calls black (ink):
//! the `image` crate decodes PBM to gray with 1 bits as 0, so PBM input is
//! inverted back here, and [`save_image`] writes foreground as 1 bits, so a
//! PBM round-trips.

use std::io::Cursor;
use std::path::Path;

use ccl_core::{BinaryImageBuf, Error, Result};
use image::{DynamicImage, ImageBuffer, ImageEncoder, ImageFormat, ImageReader, Pixel, Primitive};

/// Reads a binary image from a PNG, PNM (PBM, PGM, PPM, PAM) or TIFF file.
///
/// The format is recognised from the file's first bytes (the extension is
/// only a fallback). Foreground is every nonzero pixel, whatever the bit
/// depth; in a PBM, every 1 (black) bit. Decoding uses the `image` crate's
/// default memory limits, so a malicious header cannot make it allocate
/// without bound.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ccl-testdata-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let image = ccl_testdata::pattern("checkerboard", 5, 3)?;
/// let path = dir.join("board.pbm");
/// ccl_testdata::save_image(&image, &path)?;
/// assert_eq!(ccl_testdata::load_image(&path)?, image);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`Error::Io`] when the file cannot be read (missing, a directory, no
/// permission); [`Error::Decode`] when it is not an image of a supported
/// format, or is truncated or corrupt; [`Error::ImageTooLarge`] when it has
/// more pixels than 32-bit labels allow.
pub fn load_image(path: &Path) -> Result<BinaryImageBuf> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    decode(&bytes, path)
}

/// Decodes an image held in memory; `path` names it in error messages and
/// supplies the extension when the content is not recognised.
pub(crate) fn decode(bytes: &[u8], path: &Path) -> Result<BinaryImageBuf> {
    let decode_error = |message: String| Error::Decode {
        path: path.to_path_buf(),
        message,
    };
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| decode_error(e.to_string()))?;
    if reader.format().is_none() {
        reader.set_format(
            ImageFormat::from_path(path).map_err(|_| {
                decode_error("not a PNG, PNM (PBM/PGM/PPM/PAM) or TIFF image".into())
            })?,
        );
    }
    let format = reader.format();
    let image = reader.decode().map_err(|e| {
        // The bytes are already in memory: an I/O error from the decoder
        // means the data ended early, not that the disk failed.
        decode_error(format!("cannot decode as {format:?}: {e}"))
    })?;
    let (width, height) = (image.width() as usize, image.height() as usize);
    let mut pixels = foreground(&image);
    if bytes.starts_with(b"P1") || bytes.starts_with(b"P4") {
        for p in &mut pixels {
            *p ^= 1;
        }
    }
    BinaryImageBuf::from_pixels(pixels, width, height)
}

/// 1 where any colour channel is nonzero, else 0, decided at the image's
/// own depth (converting 16-bit or colour input to 8-bit gray first would
/// turn small or dark-but-nonzero values into 0).
fn foreground(image: &DynamicImage) -> Vec<u8> {
    fn mask<P: Pixel>(image: &ImageBuffer<P, Vec<P::Subpixel>>) -> Vec<u8> {
        let colours = usize::from(P::CHANNEL_COUNT) - usize::from(P::HAS_ALPHA);
        let zero = <P::Subpixel as Primitive>::DEFAULT_MIN_VALUE;
        image
            .pixels()
            .map(|p| u8::from(p.channels()[..colours].iter().any(|&c| c != zero)))
            .collect()
    }
    match image {
        DynamicImage::ImageLuma8(b) => mask(b),
        DynamicImage::ImageLumaA8(b) => mask(b),
        DynamicImage::ImageRgb8(b) => mask(b),
        DynamicImage::ImageRgba8(b) => mask(b),
        DynamicImage::ImageLuma16(b) => mask(b),
        DynamicImage::ImageLumaA16(b) => mask(b),
        DynamicImage::ImageRgb16(b) => mask(b),
        DynamicImage::ImageRgba16(b) => mask(b),
        DynamicImage::ImageRgb32F(b) => mask(b),
        DynamicImage::ImageRgba32F(b) => mask(b),
        // `DynamicImage` is non-exhaustive; a future layout converts losslessly.
        other => mask(&other.to_rgba32f()),
    }
}

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

    struct TempDir(std::path::PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            let dir = std::env::temp_dir().join(format!(
                "ccl-testdata-{tag}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            std::fs::create_dir_all(&dir).unwrap();
            Self(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn sample() -> BinaryImageBuf {
        // 13 wide: PBM rows end in a partial byte.
        crate::random_image(13, 7, 50, 1, 4).unwrap()
    }

    #[test]
    fn every_format_round_trips() {
        let dir = TempDir::new("round-trip");
        let image = sample();
        for ext in ["png", "pgm", "pbm", "tif", "tiff", "PNG"] {
            let path = dir.0.join(format!("sample.{ext}"));
            save_image(&image, &path).unwrap();
            assert_eq!(load_image(&path).unwrap(), image, "{ext}");
        }
    }

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
    fn foreign_files_follow_the_nonzero_rule() {
        let dir = TempDir::new("foreign");
        // ASCII PBM: 1 is foreground.
        let path = dir.0.join("ascii.pbm");
        std::fs::write(&path, "P1\n3 2\n1 0 1\n0 1 0\n").unwrap();
        assert_eq!(load_image(&path).unwrap().pixels(), &[1, 0, 1, 0, 1, 0]);
        // 16-bit PGM: the value 1 is foreground (8-bit conversion would drop it).
        let path = dir.0.join("deep.pgm");
        std::fs::write(&path, b"P5\n3 1\n65535\n\x00\x01\x00\x00\xff\xff").unwrap();
        assert_eq!(load_image(&path).unwrap().pixels(), &[1, 0, 1]);
        // Colour: a dark red pixel (luma 0 after rounding) is foreground.
        let path = dir.0.join("colour.ppm");
        std::fs::write(&path, b"P6\n2 1\n255\n\x01\x00\x00\x00\x00\x00").unwrap();
        assert_eq!(load_image(&path).unwrap().pixels(), &[1, 0]);
        // Content wins over a wrong extension.
        let path = dir.0.join("really-a-pgm.png");
        std::fs::write(&path, b"P5\n2 1\n255\n\x00\x07").unwrap();
        assert_eq!(load_image(&path).unwrap().pixels(), &[0, 1]);
    }

    #[test]
    fn bad_files_are_clear_errors() {
        let dir = TempDir::new("bad");
        let missing = dir.0.join("missing.png");
        let err = load_image(&missing).unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{err}");
        assert!(err.to_string().contains("missing.png"), "{err}");
        assert!(matches!(load_image(&dir.0), Err(Error::Io { .. })));

        let text = dir.0.join("notes.txt");
        std::fs::write(&text, "not an image").unwrap();
        let err = load_image(&text).unwrap_err();
        assert!(matches!(err, Error::Decode { .. }), "{err}");
        assert!(err.to_string().contains("notes.txt"), "{err}");
        let fake = dir.0.join("fake.png");
        std::fs::write(&fake, "not an image").unwrap();
        assert!(matches!(load_image(&fake), Err(Error::Decode { .. })));
        let empty = dir.0.join("empty.pgm");
        std::fs::write(&empty, "").unwrap();
        assert!(matches!(load_image(&empty), Err(Error::Decode { .. })));
    }

    #[test]
    fn truncations_are_errors_not_panics_nor_wrong_pixels() {
        let dir = TempDir::new("truncated");
        let image = sample();
        for ext in ["png", "pgm", "pbm", "tiff"] {
            let path = dir.0.join(format!("whole.{ext}"));
            save_image(&image, &path).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            for len in 0..bytes.len() {
                // A cut inside PNG's trailing IEND chunk loses no pixel and
                // the decoder accepts it; anything else must be refused.
                match decode(&bytes[..len], &path) {
                    Err(Error::Decode { .. }) => {}
                    Ok(decoded) if decoded == image && ext == "png" && len + 4 >= bytes.len() => {}
                    other => panic!("{ext} cut at {len} of {}: {other:?}", bytes.len()),
                }
            }
        }
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
