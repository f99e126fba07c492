//! Binary images from files and standard input: PNG, PNM (PBM / PGM / PPM /
//! PAM) and TIFF, binarized by a threshold rule.
//!
//! One rule for every format: a pixel is foreground iff its stored sample is
//! nonzero. For gray and colour images that is "not black" (any colour
//! channel nonzero; alpha is ignored, as OpenCV's and scikit-image's gray
//! loaders ignore it). For PBM it is a 1 bit, which netpbm calls black (ink):
//! the `image` crate decodes PBM to gray with 1 bits as 0, so PBM input is
//! inverted back here, and [`save_image`](crate::save_image) writes foreground as 1 bits, so a
//! PBM round-trips.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read, Seek};
use std::path::Path;

use ccl_core::{BinaryImageBuf, Error, Result, check_size};
use image::{DynamicImage, ImageBuffer, ImageError, ImageFormat, ImageReader, Pixel, Primitive};

/// How a gray or colour image becomes binary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Threshold {
    /// Any nonzero sample (in any colour channel) is foreground: the rule
    /// for masks, and the default.
    #[default]
    Nonzero,
    /// Foreground where the gray value is above this one, in the image's
    /// own range (0..=255, or 0..=65535 for 16-bit images), as OpenCV's
    /// `THRESH_BINARY`.
    Above(u32),
    /// Otsu's threshold: the gray value that best separates the histogram
    /// into two classes (largest between-class variance), as OpenCV's
    /// `THRESH_OTSU`; foreground above it.
    Otsu,
}

/// The binarization of an input image: a threshold rule, then optionally
/// the complement (dark objects on a light background).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Binarization {
    /// Which pixels are foreground.
    pub threshold: Threshold,
    /// Swap foreground and background after the threshold.
    pub invert: bool,
}

/// A decoded, binarized image and what decoding found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The binary image.
    pub image: BinaryImageBuf,
    /// Distinct gray values of the input, counted up to 3: more than 2
    /// means it was not a binary mask.
    pub gray_levels: usize,
    /// The gray value foreground lies above, for the `Above` and `Otsu`
    /// rules.
    pub threshold: Option<u32>,
}

/// The most bytes read from standard input: a raw 8-bit image of
/// `MAX_PIXELS` with room for a header. Larger inputs are read from files,
/// which are decoded as they are read.
const MAX_STDIN_BYTES: u64 = ccl_core::MAX_PIXELS + (1 << 20);

/// Reads a binary image from a PNG, PNM (PBM, PGM, PPM, PAM) or TIFF file.
///
/// The format is recognised from the file's first bytes (the extension is
/// only a fallback). Foreground is every nonzero pixel, whatever the bit
/// depth; in a PBM, every 1 (black) bit. [`read_image`] binarizes gray
/// images other ways.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ccl-io-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let image = ccl_core::BinaryImageBuf::from_fn(5, 3, |x, y| (x + y) % 2 == 0)?;
/// let path = dir.join("board.pbm");
/// ccl_io::save_image(&image, &path)?;
/// assert_eq!(ccl_io::load_image(&path)?, image);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`read_image`].
pub fn load_image(path: &Path) -> Result<BinaryImageBuf> {
    Ok(read_image(path, Binarization::default())?.image)
}

/// Reads an image file (`-`: standard input) and binarizes it as
/// `binarization` says.
///
/// Any image the labels can hold is decoded (up to
/// [`MAX_PIXELS`](ccl_core::MAX_PIXELS) pixels): the header's size is
/// checked against that limit before anything is allocated. A file is
/// decoded as it is read; standard input is read whole first (at most 4 GiB),
/// after its first bytes are recognised as an image.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read (missing, a directory, no
/// permission); [`Error::Decode`] when it is not an image of a supported
/// format, or is truncated or corrupt; [`Error::ImageTooLarge`] when it has
/// more pixels than 32-bit labels allow; [`Error::InvalidArgument`] for a
/// threshold above the image's range.
pub fn read_image(path: &Path, binarization: Binarization) -> Result<Decoded> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    if path == Path::new("-") {
        let mut stdin = std::io::stdin().lock();
        let head = stdin.fill_buf().map_err(io_error)?;
        if image::guess_format(head).is_err() {
            return Err(Error::Decode {
                path: path.to_path_buf(),
                message: "standard input is not a PNG, PNM (PBM/PGM/PPM/PAM) or TIFF image".into(),
            });
        }
        let mut bytes = Vec::new();
        stdin
            .take(MAX_STDIN_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io_error)?;
        if bytes.len() as u64 > MAX_STDIN_BYTES {
            return Err(Error::Decode {
                path: path.to_path_buf(),
                message: "more than 4 GiB on standard input; read it from a file".into(),
            });
        }
        return decode_with(Cursor::new(bytes), path, binarization);
    }
    let file = File::open(path).map_err(io_error)?;
    if file.metadata().map_err(io_error)?.is_dir() {
        return Err(io_error(std::io::Error::other("is a directory")));
    }
    decode_with(BufReader::new(file), path, binarization)
}

/// Decodes an image held in memory (an image embedded in a program, a
/// download) with the nonzero rule; `path` names it in error messages and
/// supplies the extension when the content is not recognised.
///
/// # Errors
/// As [`read_image`], less the I/O errors.
pub fn decode(bytes: &[u8], path: &Path) -> Result<BinaryImageBuf> {
    Ok(decode_with(Cursor::new(bytes), path, Binarization::default())?.image)
}

fn decode_with<R: BufRead + Seek>(
    mut input: R,
    path: &Path,
    binarization: Binarization,
) -> Result<Decoded> {
    let decode_error = |message: String| Error::Decode {
        path: path.to_path_buf(),
        message,
    };
    let start = input
        .stream_position()
        .map_err(|e| decode_error(e.to_string()))?;
    let head = input.fill_buf().map_err(|e| decode_error(e.to_string()))?;
    // netpbm's PBM stores ink (1 bits) as black: foreground.
    let pbm = head.starts_with(b"P1") || head.starts_with(b"P4");
    let format = match image::guess_format(head) {
        Ok(format) => format,
        Err(_) => ImageFormat::from_path(path)
            .map_err(|_| decode_error("not a PNG, PNM (PBM/PGM/PPM/PAM) or TIFF image".into()))?,
    };
    let name = format_name(format);
    let mut reader = ImageReader::with_format(&mut input, format);
    reader.no_limits();
    let (width, height) = reader
        .into_dimensions()
        .map_err(|e| decode_error(describe(name, e)))?;
    check_size(width as usize, height as usize).map_err(|e| decode_error(e.to_string()))?;
    input
        .seek(std::io::SeekFrom::Start(start))
        .map_err(|e| decode_error(e.to_string()))?;
    let mut reader = ImageReader::with_format(input, format);
    // The size was checked against the label space above; within it, what
    // the image needs is what the labels will need anyway.
    reader.no_limits();
    let decoded = reader
        .decode()
        .map_err(|e| decode_error(describe(name, e)))?;
    binarize(&decoded, pbm, binarization)
        .map_err(|message| Error::InvalidArgument(format!("{}: {message}", path.display())))
}

/// A format's name for messages.
fn format_name(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Png => "PNG",
        ImageFormat::Pnm => "PNM",
        ImageFormat::Tiff => "TIFF",
        _ => "image",
    }
}

/// What went wrong, in a user's words rather than the decoder's.
fn describe(name: &str, error: ImageError) -> String {
    let text = error.to_string();
    match error {
        ImageError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            format!("the {name} data ends early (a truncated file)")
        }
        _ if text.contains("end of file") || text.contains("EOF") => {
            format!("the {name} data ends early (a truncated file)")
        }
        ImageError::IoError(e) => format!("cannot read it: {e}"),
        ImageError::Unsupported(e) => format!("a {name} variant that is not supported ({e})"),
        ImageError::Limits(_) => "too large to decode".into(),
        ImageError::Decoding(_) | ImageError::Parameter(_) | ImageError::Encoding(_) => {
            format!("not a valid {name} file (corrupt data or header)")
        }
    }
}

/// The gray values of an image: its own bytes for 8-bit gray, else luma
/// (Rec. 709, as the `image` crate computes it) at 8 or 16 bits.
enum Gray<'a> {
    Eight(Cow<'a, [u8]>),
    Sixteen(Vec<u16>),
}

impl Gray<'_> {
    fn of(image: &DynamicImage, pbm: bool) -> Gray<'_> {
        if pbm {
            // Ink decodes as 0: gray values count ink as bright.
            let ink = image.to_luma8().into_raw().into_iter().map(|v| 255 - v);
            return Gray::Eight(Cow::Owned(ink.collect()));
        }
        match image {
            DynamicImage::ImageLuma8(b) => Gray::Eight(Cow::Borrowed(b.as_raw())),
            DynamicImage::ImageLumaA8(_)
            | DynamicImage::ImageRgb8(_)
            | DynamicImage::ImageRgba8(_) => Gray::Eight(Cow::Owned(image.to_luma8().into_raw())),
            _ => Gray::Sixteen(image.to_luma16().into_raw()),
        }
    }

    fn max(&self) -> u32 {
        match self {
            Gray::Eight(_) => u8::MAX as u32,
            Gray::Sixteen(_) => u16::MAX as u32,
        }
    }

    fn values(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            Gray::Eight(v) => Box::new(v.iter().map(|&x| x as u32)),
            Gray::Sixteen(v) => Box::new(v.iter().map(|&x| x as u32)),
        }
    }

    /// Distinct values, counted up to 3.
    fn levels(&self) -> usize {
        let mut seen: Vec<u32> = Vec::with_capacity(3);
        for v in self.values() {
            if !seen.contains(&v) {
                seen.push(v);
                if seen.len() == 3 {
                    break;
                }
            }
        }
        seen.len()
    }

    /// Otsu's threshold of the histogram.
    fn otsu(&self) -> u32 {
        let mut histogram = vec![0u64; self.max() as usize + 1];
        for v in self.values() {
            histogram[v as usize] += 1;
        }
        otsu_threshold(&histogram)
    }
}

/// The value t maximising the between-class variance of the classes
/// `..=t` and `t + 1..` of `histogram` (Otsu 1979); 0 for an empty or
/// one-valued histogram.
fn otsu_threshold(histogram: &[u64]) -> u32 {
    let total: u64 = histogram.iter().sum();
    let sum: f64 = histogram
        .iter()
        .enumerate()
        .map(|(v, &n)| v as f64 * n as f64)
        .sum();
    let (mut below, mut below_sum, mut best, mut best_variance) = (0u64, 0f64, 0, -1f64);
    for (t, &n) in histogram.iter().enumerate() {
        below += n;
        below_sum += t as f64 * n as f64;
        if below == 0 {
            continue;
        }
        if below == total {
            break;
        }
        let above = total - below;
        let mean_below = below_sum / below as f64;
        let mean_above = (sum - below_sum) / above as f64;
        let variance = below as f64 * above as f64 * (mean_below - mean_above).powi(2);
        if variance > best_variance {
            best_variance = variance;
            best = t as u32;
        }
    }
    best
}

fn binarize(
    image: &DynamicImage,
    pbm: bool,
    binarization: Binarization,
) -> std::result::Result<Decoded, String> {
    let (width, height) = (image.width() as usize, image.height() as usize);
    let gray = Gray::of(image, pbm);
    let gray_levels = gray.levels();
    let (mut pixels, threshold) = match binarization.threshold {
        Threshold::Nonzero if pbm => (gray.values().map(|v| u8::from(v != 0)).collect(), None),
        Threshold::Nonzero => (foreground(image), None),
        Threshold::Above(t) => {
            if t >= gray.max() {
                return Err(format!(
                    "threshold {t} leaves no foreground: gray values run from 0 to {}",
                    gray.max()
                ));
            }
            (gray.values().map(|v| u8::from(v > t)).collect(), Some(t))
        }
        Threshold::Otsu => {
            let t = gray.otsu();
            (gray.values().map(|v| u8::from(v > t)).collect(), Some(t))
        }
    };
    if binarization.invert {
        for p in &mut pixels {
            *p ^= 1;
        }
    }
    let image = BinaryImageBuf::from_pixels(pixels, width, height).map_err(|e| e.to_string())?;
    Ok(Decoded {
        image,
        gray_levels,
        threshold,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::save_image;
    use crate::tests::{TempDir, sample};

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
    fn otsu_splits_two_modes_between_them() {
        let mut histogram = vec![0u64; 256];
        histogram[30] = 500;
        histogram[31] = 100;
        histogram[200] = 300;
        histogram[205] = 50;
        let t = otsu_threshold(&histogram);
        assert!((31..200).contains(&t), "{t}");
        assert_eq!(otsu_threshold(&[0, 7, 0]), 0, "one value: no split");
        assert_eq!(otsu_threshold(&[]), 0);
    }

    #[test]
    fn thresholds_and_inversion_binarize_gray_values() {
        let dir = TempDir::new("gray");
        let path = dir.0.join("ramp.pgm");
        let ramp: Vec<u8> = (0..8).map(|v| v * 30).collect(); // 0, 30, ..., 210
        std::fs::write(&path, [&b"P5\n8 1\n255\n"[..], &ramp].concat()).unwrap();
        let read =
            |threshold, invert| read_image(&path, Binarization { threshold, invert }).unwrap();
        let nonzero = read(Threshold::Nonzero, false);
        assert_eq!(nonzero.image.pixels(), &[0, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!((nonzero.gray_levels, nonzero.threshold), (3, None));
        let above = read(Threshold::Above(100), false);
        assert_eq!(above.image.pixels(), &[0, 0, 0, 0, 1, 1, 1, 1]);
        assert_eq!(above.threshold, Some(100));
        let inverted = read(Threshold::Above(100), true);
        assert_eq!(inverted.image.pixels(), &[1, 1, 1, 1, 0, 0, 0, 0]);
        let otsu = read(Threshold::Otsu, false);
        let t = otsu.threshold.unwrap();
        assert!((30..210).contains(&t), "{t}");
        let error = read_image(
            &path,
            Binarization {
                threshold: Threshold::Above(255),
                invert: false,
            },
        )
        .unwrap_err();
        assert!(error.to_string().contains("no foreground"), "{error}");
    }

    #[test]
    fn headers_past_the_label_space_are_refused_before_decoding() {
        let dir = TempDir::new("huge");
        let path = dir.0.join("huge.pgm");
        std::fs::write(&path, "P5\n100000 100000\n255\n").unwrap();
        let error = load_image(&path).unwrap_err().to_string();
        assert!(
            error.contains("huge.pgm") && error.contains("too large"),
            "{error}"
        );
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
}
