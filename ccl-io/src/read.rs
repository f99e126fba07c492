//! Binary images from files and standard input: PNG, PNM (PBM / PGM / PPM /
//! PAM) and TIFF, binarized by a threshold rule.
//!
//! One rule for every format: a pixel is foreground iff its stored sample is
//! nonzero. For gray and colour images that is "not black" (any colour
//! channel nonzero; alpha is ignored, as OpenCV's and scikit-image's gray
//! loaders ignore it, and [`Decoded::translucent`] says when that mattered;
//! [`Channel::Alpha`](crate::Channel::Alpha) binarizes the alpha channel instead). For PBM it is a
//! 1 bit, which netpbm calls black (ink): the `image` crate decodes PBM to
//! gray with 1 bits as 0, so PBM input is inverted back here, and
//! [`save_image`](crate::save_image) writes foreground as 1 bits, so a PBM
//! round-trips.
//!
//! Files come from strangers: every size is checked from the header before
//! anything is allocated (against the labels' space and
//! [`ReadOptions::max_pixels`]), the decoders' own allocations are bounded
//! by the declared size, a TIFF's pages are counted before one is decoded,
//! and standard input is read into memory only up to what the declared
//! image can need.

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read, Seek, SeekFrom};
use std::path::Path;

use ccl_core::{BinaryImageBuf, Error, Result, check_size};
use image::codecs::{png::PngDecoder, pnm::PnmDecoder, tiff::TiffDecoder};
use image::{DynamicImage, ImageDecoder, ImageError, ImageFormat};

use crate::binarize::{Binarization, binarize};
use crate::pages::{self, Repointed};

/// The default of [`ReadOptions::max_pixels`]: 2^30 pixels, a 32768 × 32768
/// image.
///
/// Why a fixed number rather than one read from the memory available: it
/// gives the same answer on every machine (a script that works on one works
/// on another), it is known before anything is read (standard input
/// included), and the memory that matters may be a GPU's. At this size the
/// mask (1 byte a pixel) and the labels (4 bytes) alone take 5 GiB, and the
/// decoded image 1 to 16 bytes a pixel more: past it, an image is more
/// likely a mistake or a decompression bomb (a 100 KB PNG can declare
/// 60000 × 60000) than a wish, and the error says how to raise the limit.
pub const DEFAULT_MAX_PIXELS: u64 = 1 << 30;

/// How [`read_image`] reads a file: the binarization, the page of a
/// multi-page TIFF and the size limit; and how
/// [`read_volume`](crate::read_volume) reads a volume (every page, so no
/// page, and the limit counts voxels).
///
/// Error messages name each option by the `ccl` flag that sets it (`ccl`
/// is this crate's main user): `page` is `--page`, `max_pixels` is
/// `--max-pixels`, [`Channel::Alpha`](crate::Channel::Alpha) is `--alpha`.
///
/// ```
/// let options = ccl_io::ReadOptions { page: Some(2), ..Default::default() };
/// assert_eq!(options.max_pixels, ccl_io::DEFAULT_MAX_PIXELS);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// How gray and colour samples become binary.
    pub binarization: Binarization,
    /// The page of a multi-page TIFF to read, counted from 0 (as tifffile,
    /// Pillow's `seek` and ImageMagick's `file.tif[N]` count; ImageJ's
    /// slice N is page N - 1). `None` reads a file of one page and refuses
    /// one of several, naming the page count: a stack read as its first
    /// page would be silently wrong. Every other format has one page, 0.
    /// [`read_volume`](crate::read_volume) reads every page, one slice
    /// each, and refuses a page.
    pub page: Option<usize>,
    /// The most pixels an image (voxels a volume) may have, checked
    /// against the header before anything is decoded
    /// ([`DEFAULT_MAX_PIXELS`] by default). The labels' own limit,
    /// [`MAX_PIXELS`](ccl_core::MAX_PIXELS), applies whatever this says.
    pub max_pixels: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            binarization: Binarization::default(),
            page: None,
            max_pixels: DEFAULT_MAX_PIXELS,
        }
    }
}

/// A decoded, binarized image and what decoding found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The binary image.
    pub image: BinaryImageBuf,
    /// Distinct values of the binarized channel (gray, or alpha for
    /// [`Channel::Alpha`](crate::Channel::Alpha)), counted up to 3: more than 2 means it was not a
    /// binary mask.
    pub gray_levels: usize,
    /// The gray value foreground lies above, for the `Above` and `Otsu`
    /// rules.
    pub threshold: Option<u32>,
    /// The image has an alpha channel and some pixel is not fully opaque:
    /// with [`Channel::Colour`](crate::Channel::Colour), transparency that the rule ignored.
    pub translucent: bool,
    /// The pages of the file: 1 but for a multi-page TIFF (counted up to
    /// 65,536).
    pub pages: usize,
}

/// Bytes of standard input read before its header is looked at.
const STDIN_PROBE: u64 = 64 << 10;

/// Bytes of standard input allowed past what the declared image needs
/// (metadata, comments).
const STDIN_SLACK: u64 = 16 << 20;

/// Standard input bytes allowed per byte of the declared, decoded image:
/// enough for ASCII PNM (up to 4 characters a sample) and for any
/// compressed PNG; a larger encoding is read from a file.
const STDIN_BYTES_PER_BYTE: u64 = 4;

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
/// As [`read_image`] with the default [`ReadOptions`].
pub fn load_image(path: &Path) -> Result<BinaryImageBuf> {
    Ok(read_image(path, &ReadOptions::default())?.image)
}

/// Reads an image file (`-`: standard input) and binarizes it as `options`
/// say.
///
/// The header's size is checked against the labels' space
/// ([`MAX_PIXELS`](ccl_core::MAX_PIXELS)) and against
/// [`ReadOptions::max_pixels`] before anything is allocated, and the
/// decoders may allocate no more than a few times the declared image. A
/// file is decoded as it is read; standard input is read into memory, after
/// its first bytes are recognised as an image, up to 16 MiB more than 4
/// bytes for every byte of the decoded image its header declares (for a
/// TIFF, whose header may come last, of `max_pixels` 8-bit pixels).
///
/// # Errors
/// [`Error::Io`] when the file cannot be read (missing, a directory, no
/// permission); [`Error::Decode`] when it is not an image of a supported
/// format, is truncated or corrupt, is a TIFF of several pages and
/// [`ReadOptions::page`] is `None` or past them, has more pixels than
/// 32-bit labels allow (with [`Error::ImageTooLarge`]'s message) or than
/// [`ReadOptions::max_pixels`], or is more standard input than its size
/// needs; [`Error::InvalidArgument`] for a threshold above the image's
/// range, or [`Channel::Alpha`](crate::Channel::Alpha) for an image without alpha.
pub fn read_image(path: &Path, options: &ReadOptions) -> Result<Decoded> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    if path == Path::new("-") {
        return read_stream(std::io::stdin().lock(), path, options);
    }
    let file = File::open(path).map_err(io_error)?;
    if file.metadata().map_err(io_error)?.is_dir() {
        return Err(io_error(std::io::Error::other("is a directory")));
    }
    decode_with(BufReader::new(file), path, options)
}

/// Decodes an image held in memory (an image embedded in a program, a
/// download) with the default [`ReadOptions`]; `path` names it in error
/// messages and supplies the extension when the content is not recognised.
///
/// # Errors
/// As [`read_image`], less the I/O errors.
pub fn decode(bytes: &[u8], path: &Path) -> Result<BinaryImageBuf> {
    Ok(decode_with(Cursor::new(bytes), path, &ReadOptions::default())?.image)
}

/// Reads an image from a stream that cannot seek (standard input) into
/// memory, refusing it as soon as its header declares too many pixels, and
/// stopping at the bytes the declared image can need.
pub(crate) fn read_stream(
    input: impl BufRead,
    path: &Path,
    options: &ReadOptions,
) -> Result<Decoded> {
    let bytes = read_stream_bytes(input, path, options)?;
    decode_with(Cursor::new(bytes), path, options)
}

/// The bytes of an image on a stream that cannot seek, as [`read_stream`]
/// bounds them: a TIFF (a stack read as a volume included) to what
/// `options.max_pixels` 8-bit pixels can need.
pub(crate) fn read_stream_bytes(
    mut input: impl BufRead,
    path: &Path,
    options: &ReadOptions,
) -> Result<Vec<u8>> {
    let decode_error = |message: String| Error::Decode {
        path: path.to_path_buf(),
        message,
    };
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let head = input.fill_buf().map_err(io_error)?;
    let Ok(format) = image::guess_format(head) else {
        return Err(decode_error(
            "standard input is not a PNG, PNM (PBM/PGM/PPM/PAM) or TIFF image".into(),
        ));
    };
    let mut bytes = Vec::new();
    (&mut input)
        .take(STDIN_PROBE)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    // PNG and PNM declare their size first; a TIFF's directory may come
    // after its pixels, so it is bounded by the limit instead.
    let declared = match format {
        ImageFormat::Png => png_size(&bytes),
        ImageFormat::Pnm => PnmDecoder::new(Cursor::new(&bytes[..]))
            .ok()
            .map(|decoder| (decoder.dimensions(), decoder.total_bytes())),
        _ => None,
    };
    let cap = match declared {
        Some(((width, height), total)) => {
            check_pixels(width, height, path, options)?;
            STDIN_SLACK.saturating_add(total.saturating_mul(STDIN_BYTES_PER_BYTE))
        }
        None => STDIN_SLACK.saturating_add(options.max_pixels.saturating_mul(STDIN_BYTES_PER_BYTE)),
    };
    let left = cap.saturating_sub(bytes.len() as u64);
    (&mut input)
        .take(left.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > cap {
        let size = match declared {
            Some(((width, height), _)) => format!("a {width}x{height} image"),
            None => format!("an image of at most {} pixels", options.max_pixels),
        };
        return Err(decode_error(format!(
            "standard input holds more than {cap} bytes, more than {size} needs \
             ({STDIN_BYTES_PER_BYTE} bytes for every byte of it, and 16 MiB); read it from a file"
        )));
    }
    Ok(bytes)
}

/// Decodes an image whose first byte is at position 0 of `input`.
pub(crate) fn decode_with<R: BufRead + Seek>(
    input: R,
    path: &Path,
    options: &ReadOptions,
) -> Result<Decoded> {
    let page = decode_image(input, path, options)?;
    binarize(&page.image, page.pbm, options.binarization, page.pages)
        .map_err(|message| Error::InvalidArgument(format!("{}: {message}", path.display())))
}

/// One decoded page of an image file, before binarization.
pub(crate) struct Page {
    /// The page's samples as the decoder gave them.
    pub(crate) image: DynamicImage,
    /// The file is a PBM, whose 1 bits (decoded as 0) are foreground.
    pub(crate) pbm: bool,
    /// The pages of the file (see [`Decoded::pages`]).
    pub(crate) pages: usize,
}

/// Decodes the page `options` choose of the PNG, PNM or TIFF whose first
/// byte is at position 0 of `input`, its size checked against the limit
/// before its pixels are decoded.
pub(crate) fn decode_image<R: BufRead + Seek>(
    mut input: R,
    path: &Path,
    options: &ReadOptions,
) -> Result<Page> {
    let decode_error = |message: String| Error::Decode {
        path: path.to_path_buf(),
        message,
    };
    let head = input.fill_buf().map_err(|e| decode_error(e.to_string()))?;
    // netpbm's PBM stores ink (1 bits) as black: foreground.
    let pbm = head.starts_with(b"P1") || head.starts_with(b"P4");
    // The content decides; the extension is a fallback.
    let format = image::guess_format(head)
        .or_else(|_| ImageFormat::from_path(path))
        .ok();
    let (format, name) = match format {
        Some(format @ ImageFormat::Png) => (format, "PNG"),
        Some(format @ ImageFormat::Pnm) => (format, "PNM"),
        Some(format @ ImageFormat::Tiff) => (format, "TIFF"),
        _ => {
            return Err(decode_error(
                "not a PNG, PNM (PBM/PGM/PPM/PAM) or TIFF image".into(),
            ));
        }
    };
    let pages = if format == ImageFormat::Tiff {
        pages::walk(&mut input, options.page)
            .map_err(|e| decode_error(describe(name, ImageError::IoError(e))))?
            .map_err(decode_error)?
    } else {
        pages::Pages {
            count: 1,
            more: false,
            header: None,
        }
    };
    check_page(name, &pages, options.page).map_err(decode_error)?;
    if format == ImageFormat::Png {
        check_palette(&mut input)
            .map_err(|e| decode_error(describe(name, ImageError::IoError(e))))?
            .map_err(decode_error)?;
    }
    // A PNG's size is in its first bytes: checked before the decoder reads
    // on to the pixels (through any metadata).
    if format == ImageFormat::Png
        && let Some(((width, height), _)) = png_size(input.fill_buf().unwrap_or_default())
    {
        check_pixels(width, height, path, options)?;
    }
    let decoder = open_page(input, pages.header, format).map_err(decode_error)?;
    let (width, height) = decoder.dimensions();
    check_pixels(width, height, path, options)?;
    let image = decode_page(decoder, name).map_err(decode_error)?;
    Ok(Page {
        image,
        pbm,
        pages: pages.count,
    })
}

/// A decoder of `format` for `input`, its header read; for a TIFF,
/// `header` (from [`pages`]) chooses the page.
pub(crate) fn open_page<'a, R: BufRead + Seek + 'a>(
    input: R,
    header: Option<Vec<u8>>,
    format: ImageFormat,
) -> std::result::Result<Box<dyn ImageDecoder + 'a>, String> {
    let name = match format {
        ImageFormat::Png => "PNG",
        ImageFormat::Pnm => "PNM",
        _ => "TIFF",
    };
    match header {
        Some(header) => open(Repointed::new(input, header), format),
        None => open(input, format),
    }
    .map_err(|e| describe(name, e))
}

/// Decodes the pixels of an opened decoder whose size has been checked.
pub(crate) fn decode_page(
    mut decoder: Box<dyn ImageDecoder + '_>,
    name: &str,
) -> std::result::Result<DynamicImage, String> {
    let (width, height) = decoder.dimensions();
    // The decoders may allocate the image and twice as much again
    // (a TIFF's compressed strips), and 1 MiB: bounded by what the header
    // declares, which is bounded by the limit.
    let total = decoder.total_bytes();
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(total.saturating_mul(3).saturating_add(1 << 20));
    decoder.set_limits(limits).map_err(|e| describe(name, e))?;
    // An image without pixels has nothing to decode, and decoders trip on
    // the sides of one (image 0.25's PBM reader adds 7 to a width of
    // 2^32 - 1, for a height of 0).
    if u64::from(width) * u64::from(height) == 0 {
        Ok(DynamicImage::new(width, height, decoder.color_type()))
    } else {
        DynamicImage::from_decoder(decoder).map_err(|e| describe(name, e))
    }
}

/// The size a PNG's IHDR chunk declares (it must come first), and the
/// bytes it decodes to (palettes count as RGBA, the most they expand to).
fn png_size(head: &[u8]) -> Option<((u32, u32), u64)> {
    if head.len() < 26 || &head[12..16] != b"IHDR" {
        return None;
    }
    let word = |at: usize| u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    let (width, height) = (word(16), word(20));
    let channels: u64 = match head[25] {
        0 => 1,
        2 => 3,
        4 => 2,
        _ => 4,
    };
    let bytes = if head[24] == 16 { 2 } else { 1 };
    let total = (u64::from(width) * u64::from(height)).saturating_mul(channels * bytes);
    Some(((width, height), total))
}

/// Refuses a PNG whose palette (PLTE chunk) is not a whole number of RGB
/// entries: the `png` crate 0.18 accepts one and then reads past its end
/// (a panic). Walks the chunks before the pixels (IDAT), from position 0
/// of `input` and back to it; whatever else is wrong with them is the
/// decoder's to say.
fn check_palette<R: BufRead + Seek>(input: &mut R) -> std::io::Result<Result<(), String>> {
    let mut at = 8u64;
    let length = input.seek(SeekFrom::End(0))?;
    let mut header = [0u8; 8];
    let mut verdict = Ok(());
    while at + 8 <= length {
        input.seek(SeekFrom::Start(at))?;
        input.read_exact(&mut header)?;
        let size = u32::from_be_bytes([header[0], header[1], header[2], header[3]]);
        match &header[4..] {
            b"IDAT" | b"IEND" => break,
            b"PLTE" if size % 3 != 0 => {
                verdict = Err(format!(
                    "not a valid PNG file (its palette is {size} bytes, not a whole number of \
                     RGB entries)"
                ));
                break;
            }
            _ => at += 12 + u64::from(size),
        }
    }
    input.seek(SeekFrom::Start(0))?;
    Ok(verdict)
}

/// A decoder of `format` for `input`, its header read.
fn open<'a, R: BufRead + Seek + 'a>(
    input: R,
    format: ImageFormat,
) -> std::result::Result<Box<dyn ImageDecoder + 'a>, ImageError> {
    Ok(match format {
        ImageFormat::Png => Box::new(PngDecoder::new(input)?),
        ImageFormat::Pnm => Box::new(PnmDecoder::new(input)?),
        _ => Box::new(TiffDecoder::new(input)?),
    })
}

/// Refuses a multi-page file read without a page, and a page past the
/// last.
fn check_page(
    name: &str,
    pages: &pages::Pages,
    page: Option<usize>,
) -> std::result::Result<(), String> {
    let count = if pages.more {
        format!("more than {}", pages.count)
    } else {
        pages.count.to_string()
    };
    match page {
        None if pages.count > 1 => Err(format!(
            "a TIFF of {count} pages (a stack or a series); ccl reads one 2-D image: \
             pick a page with --page N, counted from 0 (0 to {}{})",
            pages.count.saturating_sub(1),
            if pages.more {
                ", the pages it can pick"
            } else {
                ""
            }
        )),
        Some(p) if p >= pages.count && pages.count == 1 => Err(format!(
            "--page {p} is past the last page: the {name} has one page, 0 (pages are counted from 0)"
        )),
        Some(p) if p >= pages.count => Err(format!(
            "--page {p} is past the last page: the {name} has {count} pages, 0 to {} \
             (pages are counted from 0)",
            pages.count.saturating_sub(1)
        )),
        _ => Ok(()),
    }
}

/// Refuses a size past the labels' space or past the limit.
fn check_pixels(width: u32, height: u32, path: &Path, options: &ReadOptions) -> Result<()> {
    check_size(width as usize, height as usize).map_err(|e| Error::Decode {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let pixels = u64::from(width) * u64::from(height);
    if pixels > options.max_pixels {
        return Err(Error::Decode {
            path: path.to_path_buf(),
            message: format!(
                "too large to read: {width}x{height} is {pixels} pixels, over the limit of {} \
                 (set by --max-pixels, which guards memory: reading and labelling take 5 bytes \
                 a pixel or more); --max-pixels {pixels} reads it",
                options.max_pixels
            ),
        });
    }
    Ok(())
}

/// What went wrong, in a user's words rather than the decoder's.
pub(crate) fn describe(name: &str, error: ImageError) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{TempDir, encode, png_header, sample, tiff_entry, tiff_stack};
    use crate::{Channel, Threshold, save_image};

    /// Options with this threshold and inversion.
    fn rule(threshold: Threshold, invert: bool) -> ReadOptions {
        ReadOptions {
            binarization: Binarization {
                threshold,
                invert,
                ..Default::default()
            },
            ..Default::default()
        }
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
    fn thresholds_and_inversion_binarize_gray_values() {
        let dir = TempDir::new("gray");
        let path = dir.0.join("ramp.pgm");
        let ramp: Vec<u8> = (0..8).map(|v| v * 30).collect(); // 0, 30, ..., 210
        std::fs::write(&path, [&b"P5\n8 1\n255\n"[..], &ramp].concat()).unwrap();
        let read = |threshold, invert| read_image(&path, &rule(threshold, invert)).unwrap();
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
        let error = read_image(&path, &rule(Threshold::Above(255), false)).unwrap_err();
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

    /// Decodes `bytes` in memory with `options`.
    fn decode_as(bytes: &[u8], name: &str, options: &ReadOptions) -> Result<Decoded> {
        decode_with(Cursor::new(bytes), Path::new(name), options)
    }

    #[test]
    fn a_multi_page_tiff_is_refused_without_a_page_and_read_with_one() {
        let stack = tiff_stack(3);
        // Before: read as its first page, without a word.
        let error = decode_as(&stack, "stack.tif", &ReadOptions::default())
            .unwrap_err()
            .to_string();
        for needle in [
            "stack.tif",
            "3 pages",
            "--page N",
            "counted from 0",
            "0 to 2",
        ] {
            assert!(error.contains(needle), "{needle}: {error}");
        }
        for page in 0..3 {
            let options = ReadOptions {
                page: Some(page),
                ..Default::default()
            };
            let decoded = decode_as(&stack, "stack.tif", &options).unwrap();
            assert_eq!(decoded.pages, 3);
            assert_eq!(decoded.image.pixels(), &[1; 6], "page {page}");
            // Each page holds its own value: thresholds tell them apart.
            let above = ReadOptions {
                binarization: Binarization {
                    threshold: Threshold::Above(page as u32),
                    ..Default::default()
                },
                ..options
            };
            let decoded = decode_as(&stack, "stack.tif", &above).unwrap();
            assert_eq!(decoded.image.pixels(), &[1; 6], "page {page}");
            let above = ReadOptions {
                binarization: Binarization {
                    threshold: Threshold::Above(page as u32 + 1),
                    ..Default::default()
                },
                ..options
            };
            let decoded = decode_as(&stack, "stack.tif", &above).unwrap();
            assert_eq!(decoded.image.pixels(), &[0; 6], "page {page}");
        }
        let past = ReadOptions {
            page: Some(3),
            ..Default::default()
        };
        let error = decode_as(&stack, "stack.tif", &past)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("--page 3 is past") && error.contains("0 to 2"),
            "{error}"
        );
        // One page: no page needed, page 0 allowed, page 1 past it; so for
        // every other format.
        let single = tiff_stack(1);
        assert_eq!(
            decode_as(&single, "one.tif", &ReadOptions::default())
                .unwrap()
                .pages,
            1
        );
        let zero = ReadOptions {
            page: Some(0),
            ..Default::default()
        };
        decode_as(&single, "one.tif", &zero).unwrap();
        let one = ReadOptions {
            page: Some(1),
            ..Default::default()
        };
        let error = decode_as(&single, "one.tif", &one).unwrap_err().to_string();
        assert!(error.contains("has one page, 0"), "{error}");
        let pgm = b"P5\n2 1\n255\n\x00\x07";
        decode_as(pgm, "a.pgm", &zero).unwrap();
        let error = decode_as(pgm, "a.pgm", &one).unwrap_err().to_string();
        assert!(error.contains("the PNM has one page"), "{error}");
    }

    /// A 4×1 RGBA image: colour everywhere, alpha 0, 255, 128, 0.
    fn rgba() -> image::DynamicImage {
        let pixels = [9, 9, 9, 0, 9, 9, 9, 255, 9, 9, 9, 128, 0, 0, 0, 0];
        image::DynamicImage::ImageRgba8(image::RgbaImage::from_raw(4, 1, pixels.to_vec()).unwrap())
    }

    #[test]
    fn alpha_is_ignored_by_default_said_so_and_used_on_request() {
        let png = encode(&rgba(), image::ImageFormat::Png);
        let default = decode_as(&png, "rgba.png", &ReadOptions::default()).unwrap();
        // The rule: any colour channel nonzero, alpha ignored ...
        assert_eq!(default.image.pixels(), &[1, 1, 1, 0]);
        // ... and the caller learns that transparency was ignored.
        assert!(default.translucent);
        let alpha = |threshold| ReadOptions {
            binarization: Binarization {
                threshold,
                channel: Channel::Alpha,
                ..Default::default()
            },
            ..Default::default()
        };
        let mask = decode_as(&png, "rgba.png", &alpha(Threshold::Nonzero)).unwrap();
        assert_eq!(mask.image.pixels(), &[0, 1, 1, 0]);
        assert_eq!(mask.gray_levels, 3);
        let above = decode_as(&png, "rgba.png", &alpha(Threshold::Above(200))).unwrap();
        assert_eq!(above.image.pixels(), &[0, 1, 0, 0]);
        // 16-bit gray + alpha (float RGBA, which `image` writes in no
        // format read here, is tested in `binarize`).
        let la16 = image::DynamicImage::ImageLumaA16(
            image::ImageBuffer::from_raw(3, 1, vec![0, 0, 0, 1, 7, 65535]).unwrap(),
        );
        let png = encode(&la16, image::ImageFormat::Png);
        let decoded = decode_as(&png, "la16.png", &alpha(Threshold::Nonzero)).unwrap();
        assert_eq!(decoded.image.pixels(), &[0, 1, 1]);
        // Opaque images are not translucent.
        let opaque = image::DynamicImage::ImageRgba8(
            image::RgbaImage::from_raw(1, 1, vec![0, 0, 0, 255]).unwrap(),
        );
        let png = encode(&opaque, image::ImageFormat::Png);
        assert!(
            !decode_as(&png, "o.png", &ReadOptions::default())
                .unwrap()
                .translucent
        );
        // No alpha channel: refused, naming the layout.
        let error = decode_as(
            b"P5\n2 1\n255\n\x00\x07",
            "g.pgm",
            &alpha(Threshold::Nonzero),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("no alpha channel") && error.contains("8-bit gray"),
            "{error}"
        );
    }

    #[test]
    fn sizes_past_the_pixel_limit_are_refused_from_the_header() {
        // 60000 × 60000 fits the labels but not the default limit: refused
        // before a byte of pixels is read (there are none).
        let error = decode_as(
            &png_header(60_000, 60_000),
            "bomb.png",
            &ReadOptions::default(),
        )
        .unwrap_err()
        .to_string();
        for needle in [
            "bomb.png",
            "60000x60000",
            "3600000000",
            "1073741824",
            "--max-pixels",
        ] {
            assert!(error.contains(needle), "{needle}: {error}");
        }
        // A lower limit refuses a real image; its own size reads it.
        let png = encode(&rgba(), image::ImageFormat::Png);
        let limit = |max_pixels| ReadOptions {
            max_pixels,
            ..Default::default()
        };
        let error = decode_as(&png, "rgba.png", &limit(3))
            .unwrap_err()
            .to_string();
        assert!(error.contains("--max-pixels 4 reads it"), "{error}");
        decode_as(&png, "rgba.png", &limit(4)).unwrap();
        // The limit applies to the page that is read, in every format.
        let pgm = b"P5\n40000 40000\n255\n";
        let error = decode_as(pgm, "big.pgm", &ReadOptions::default()).unwrap_err();
        assert!(error.to_string().contains("over the limit"), "{error}");
    }

    /// A stream that yields `head`, then `tail` forever.
    struct Endless {
        head: Cursor<Vec<u8>>,
        read: u64,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.head.read(buf)?;
            let n = if n == 0 {
                buf.fill(0);
                buf.len()
            } else {
                n
            };
            self.read += n as u64;
            Ok(n)
        }
    }

    #[test]
    fn standard_input_is_bounded_by_its_declared_size() {
        let stdin = Path::new("-");
        // A declared bomb: refused after the first 64 KiB.
        let mut endless = Endless {
            head: Cursor::new(png_header(60_000, 60_000)),
            read: 0,
        };
        let error = read_stream(BufReader::new(&mut endless), stdin, &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(error.contains("--max-pixels"), "{error}");
        assert!(endless.read <= STDIN_PROBE + (8 << 10), "{}", endless.read);
        // A small image followed by endless bytes: refused at 16 MiB and
        // 4 bytes a byte of the image, not at 4 GiB.
        let mut endless = Endless {
            head: Cursor::new(b"P5\n10 10\n255\n".to_vec()),
            read: 0,
        };
        let error = read_stream(BufReader::new(&mut endless), stdin, &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("read it from a file") && error.contains("10x10"),
            "{error}"
        );
        assert!(
            endless.read <= STDIN_SLACK + 400 + (16 << 10),
            "{}",
            endless.read
        );
        // A whole image reads as from a file.
        let png = encode(&rgba(), image::ImageFormat::Png);
        let decoded = read_stream(Cursor::new(&png), stdin, &ReadOptions::default()).unwrap();
        assert_eq!(decoded.image.pixels(), &[1, 1, 1, 0]);
        let stack = tiff_stack(2);
        let error = read_stream(Cursor::new(&stack), stdin, &ReadOptions::default()).unwrap_err();
        assert!(error.to_string().contains("2 pages"), "{error}");
    }

    // Crashes the mutation test (`fuzz.rs`) found, one test each.

    #[test]
    fn a_tiff_entry_with_more_values_than_the_file_has_bytes_is_refused_before_allocating() {
        // Found as "tiff-packbits mutated by [tag 278 count = 4294967295;
        // ...]": the `tiff` crate reserves room for every declared value
        // before reading one, up to 256 MiB for a file of 300 bytes.
        let mut bytes = tiff_stack(1);
        let entry = tiff_entry(&bytes, 278);
        bytes[entry + 4..entry + 8].copy_from_slice(&0x0080_0000u32.to_le_bytes());
        let (result, largest) = crate::fuzz::largest_allocation(|| {
            decode_as(&bytes, "many.tif", &ReadOptions::default())
        });
        let error = result.unwrap_err().to_string();
        assert!(error.contains("tag 278 declares 8388608 values"), "{error}");
        assert!(largest < 1 << 20, "{largest} bytes at once");
    }

    #[test]
    fn a_tiff_sample_format_without_values_is_an_error_not_a_panic() {
        // Found as "tiff-gray16 mutated by [tag 339 count = 0]": the `tiff`
        // crate 0.10 indexes the first SampleFormat value unchecked.
        let mut bytes = encode(
            &image::DynamicImage::ImageLuma16(image::ImageBuffer::new(3, 2)),
            image::ImageFormat::Tiff,
        );
        let entry = tiff_entry(&bytes, 339);
        bytes[entry + 4..entry + 8].copy_from_slice(&0u32.to_le_bytes());
        let error = decode_as(&bytes, "empty.tif", &ReadOptions::default()).unwrap_err();
        assert!(
            error.to_string().contains("tag 339 has no values"),
            "{error}"
        );
    }

    #[test]
    fn a_tiff_without_pages_is_an_error() {
        // Found as "tiff-big-endian-pages mutated by [flip bits ...]": a
        // first-directory offset of 0 made no pages, and the page check's
        // `count - 1` overflowed (a panic with overflow checks).
        let mut bytes = tiff_stack(2);
        bytes[4..8].fill(0);
        for page in [None, Some(0), Some(2)] {
            let options = ReadOptions {
                page,
                ..Default::default()
            };
            let error = decode_as(&bytes, "empty.tif", &options).unwrap_err();
            assert!(error.to_string().contains("no image directory"), "{error}");
        }
    }

    #[test]
    fn an_image_without_pixels_is_empty_whatever_its_other_side() {
        // Found as "pbm-binary mutated by [PNM number at 3..5 =
        // \"4294967295\"; PNM number at 14..15 = \"0\"]": the `image` crate's
        // PBM reader computes the row length as width + 7, which overflows
        // (a panic where overflow is checked, as in `cargo test`'s profile).
        for header in ["P4\n4294967295 0\n", "P1\n4294967295 0\n", "P5\n0 7\n255\n"] {
            let decoded = decode_as(header.as_bytes(), "empty.pbm", &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{header:?}: {e}"));
            assert_eq!(decoded.image.pixels().len(), 0, "{header:?}");
        }
    }

    #[test]
    fn a_png_palette_of_a_partial_entry_is_refused_not_a_panic() {
        // Found as "png-palette-2bit mutated by [delete 42..47; chunk length
        // at 33 = 7; CRCs mended]": the `png` crate 0.18 takes a PLTE of 7
        // bytes and copies 3 from the 1 left after two entries.
        let png = |palette: Vec<u8>| {
            crate::fuzz::png_by_hand((2, 1), 8, 3, &[0, 1], &[(b"PLTE", palette)], false)
        };
        let error = decode_as(&png(vec![9; 7]), "p.png", &ReadOptions::default()).unwrap_err();
        assert!(error.to_string().contains("palette is 7 bytes"), "{error}");
        let decoded = decode_as(
            &png(vec![0, 0, 0, 9, 9, 9]),
            "p.png",
            &ReadOptions::default(),
        );
        assert_eq!(decoded.unwrap().image.pixels(), &[0, 1]);
    }

    #[test]
    fn a_tiff_image_tag_holding_text_is_refused_not_a_panic() {
        // Found as "tiff-deflate mutated by [byte 151 = 0x0; tag 339 type =
        // 2; tag 339 value (2 bytes) = 0]": SampleFormat as the text "" is
        // no values to the `tiff` crate, which indexes the first.
        let mut bytes = encode(
            &image::DynamicImage::ImageLuma16(image::ImageBuffer::new(3, 2)),
            image::ImageFormat::Tiff,
        );
        let entry = tiff_entry(&bytes, 339);
        bytes[entry + 2..entry + 4].copy_from_slice(&2u16.to_le_bytes());
        bytes[entry + 8..entry + 12].fill(0);
        let error = decode_as(&bytes, "text.tif", &ReadOptions::default()).unwrap_err();
        assert!(
            error.to_string().contains("tag 339 has values of type 2"),
            "{error}"
        );
    }

    #[test]
    fn a_bigtiff_entry_of_unknown_type_is_refused_before_it_misaligns_the_rest() {
        // Found as "bigtiff mutated by [flip bits ...; delete 256..305; ...]"
        // (a 32 MiB allocation from 363 bytes): the `tiff` crate skips 8
        // bytes after an unknown type, where a BigTIFF entry has 16 more,
        // and reads the next entries from the middle of this one. Here that
        // middle says: StripOffsets, 8-byte values, 2^20 of them.
        let mut out = Cursor::new(Vec::new());
        tiff::encoder::TiffEncoder::new_big(&mut out)
            .unwrap()
            .write_image::<tiff::encoder::colortype::Gray8>(3, 2, &[1; 6])
            .unwrap();
        let mut bytes = out.into_inner();
        let ifd = u64::from_le_bytes(bytes[8..16].try_into().unwrap()) as usize;
        let entries = u64::from_le_bytes(bytes[ifd..ifd + 8].try_into().unwrap()) as usize;
        let entry = |i: usize| ifd + 8 + 20 * i;
        // The last two entries: the one of unknown type, and the one whose
        // first bytes end the misread count.
        let (odd, next) = (entry(entries - 2), entry(entries - 1));
        bytes[odd + 2..odd + 4].copy_from_slice(&0x100u16.to_le_bytes());
        bytes[odd + 12..odd + 14].copy_from_slice(&273u16.to_le_bytes());
        bytes[odd + 14..odd + 16].copy_from_slice(&16u16.to_le_bytes());
        bytes[odd + 16..odd + 20].copy_from_slice(&(1u32 << 20).to_le_bytes());
        bytes[next..next + 4].fill(0);
        let (result, largest) = crate::fuzz::largest_allocation(|| {
            decode_as(&bytes, "big.tif", &ReadOptions::default())
        });
        let error = result.unwrap_err().to_string();
        assert!(error.contains("unknown type 256"), "{error}");
        assert!(largest < 1 << 20, "{largest} bytes at once");
    }
}
