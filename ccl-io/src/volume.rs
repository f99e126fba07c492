//! Volumes (3-D) from and to files: binary volumes read from a NumPy `.npy`
//! array or a TIFF stack (one page a slice) and binarized by the rules of
//! images; label volumes and binary volumes written as `.npy` or as a
//! multi-page TIFF.
//!
//! Axes are numpy's: an array of shape (depth, height, width) holds voxel
//! (x, y, z) at `[z, y, x]`, and a TIFF's page z is slice z. A 2-D array
//! or image is a volume of depth 1.
//!
//! Files come from strangers here as in [`read`](crate::read): the voxel
//! count is checked against [`ReadOptions::max_pixels`] from the header
//! (`.npy`) or from the first page's size and the page count (TIFF) before
//! anything of its size is allocated.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Cursor, Read, Seek, SeekFrom, Write};
use std::path::Path;

use ccl_core::{BinaryVolumeBuf, Error, LabelVolume, MAX_PIXELS, Result, check_volume_size};
use image::{ImageError, ImageFormat};
use tiff::encoder::colortype::{ColorType, Gray8, Gray32};
use tiff::encoder::{TiffEncoder, TiffKind, TiffValue};

use crate::binarize::{Binarizer, Gray};
use crate::npy::{self, Dtype};
use crate::pages;
use crate::read::{self, ReadOptions, describe};
use crate::{Channel, Threshold};

/// The most pages of a TIFF read as a volume, whatever the voxel limit: a
/// stack's pages are walked and their offsets kept before one is decoded,
/// and this bounds that work for a crafted chain of directories.
pub(crate) const MAX_SLICES: u64 = 1 << 24;

/// Bytes of a `.npy` array's data read at a time (a multiple of every
/// element size).
const CHUNK: usize = 1 << 16;

/// A decoded, binarized volume and what decoding found: the 3-D
/// counterpart of [`Decoded`](crate::Decoded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedVolume {
    /// The binary volume.
    pub volume: BinaryVolumeBuf,
    /// Distinct values of the binarized channel over every voxel, counted
    /// up to 3: more than 2 means it was not a binary mask.
    pub gray_levels: usize,
    /// The value foreground lies above, for the `Above` and `Otsu` rules.
    pub threshold: Option<u32>,
    /// Some page of a TIFF stack (or the image read as one slice) has an
    /// alpha channel and a pixel that is not fully opaque: with
    /// [`Channel::Colour`], transparency that the rule ignored.
    pub translucent: bool,
}

/// Reads a binary volume from a `.npy` array or a TIFF stack, every
/// nonzero voxel foreground.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ccl-io-volume-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let volume = ccl_core::BinaryVolumeBuf::from_fn(4, 3, 2, |x, y, z| (x + y + z) % 2 == 0)?;
/// for name in ["v.npy", "v.tif"] {
///     ccl_io::save_volume(&volume, &dir.join(name))?;
///     assert_eq!(ccl_io::load_volume(&dir.join(name))?, volume);
/// }
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`read_volume`] with the default [`ReadOptions`].
pub fn load_volume(path: &Path) -> Result<BinaryVolumeBuf> {
    Ok(read_volume(path, &ReadOptions::default())?.volume)
}

/// Reads a volume file (`-`: standard input) and binarizes it as `options`
/// say.
///
/// The format is recognised from the file's first bytes (the extension is
/// only a fallback):
///
/// - a NumPy `.npy` (format 1.0 to 3.0) of a 3-D array of shape (depth,
///   height, width), or a 2-D one (height, width) as depth 1, in C or
///   Fortran order, of `bool`, `uint8`, `int8`, `uint16`, `int16`,
///   `uint32`, `int32`, `uint64`, `int64`, `float32` or `float64`, either
///   byte order. Foreground is every nonzero value (NaN included, as numpy's
///   `astype(bool)` says), or with [`Threshold::Above`] every value above
///   the threshold; `bool`, `uint8` and `uint16` arrays are binarized as
///   8- and 16-bit gray images are ([`Threshold::Otsu`] included), the
///   other types refuse Otsu's threshold (it is chosen from a histogram of
///   every value) and every type refuses [`Channel::Alpha`].
/// - a TIFF of one or more pages of one size, page z the slice z (an
///   ImageJ / Fiji or tifffile stack), each binarized as
///   [`read_image`](crate::read_image) binarizes a page, by one threshold
///   for the whole volume (Otsu's is chosen from every page's values).
/// - a PNG or PNM image: a volume of depth 1.
///
/// The voxel count is checked against the labels' space and
/// [`ReadOptions::max_pixels`] before anything of the volume's size is
/// allocated; a TIFF's pages are counted first (up to `max_pixels` pages,
/// and at most 2^24); a `.npy` file shorter than its header declares is
/// refused before its array is allocated. Standard input is read into
/// memory as [`read_image`](crate::read_image) reads it, except a `.npy`,
/// which is read as it comes (its header bounds it).
///
/// ```
/// use ccl_io::{Binarization, ReadOptions, Threshold};
/// # let dir = std::env::temp_dir().join(format!("ccl-io-read-volume-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// // numpy.save("v.npy", numpy.array([[[0, 3]], [[200, 9]]], dtype=numpy.uint8))
/// let mut npy = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
/// let dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 1, 2), }";
/// npy.extend(format!("{dict:<117}\n").bytes());
/// npy.extend([0, 3, 200, 9]);
/// std::fs::write(dir.join("v.npy"), &npy)?;
/// let options = ReadOptions {
///     binarization: Binarization { threshold: Threshold::Above(5), ..Default::default() },
///     ..Default::default()
/// };
/// let decoded = ccl_io::read_volume(&dir.join("v.npy"), &options)?;
/// assert_eq!(decoded.volume.voxels(), &[0, 0, 1, 1]);
/// assert_eq!((decoded.volume.width(), decoded.volume.depth()), (2, 2));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`Error::Io`] when the file cannot be read; [`Error::Decode`] when it
/// is not a volume of a supported format or type, is truncated or corrupt,
/// has pages of different sizes (naming the first that differs), or more
/// voxels than 32-bit labels allow or than [`ReadOptions::max_pixels`];
/// [`Error::InvalidArgument`] for [`ReadOptions::page`] (a volume is every
/// page), a threshold above the values' range, a rule that the values
/// cannot take (Otsu's threshold of a `float32` array, the alpha channel
/// of a `.npy`), or one threshold for TIFF pages of different bit depths.
pub fn read_volume(path: &Path, options: &ReadOptions) -> Result<DecodedVolume> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    if path == Path::new("-") {
        return read_volume_stream(std::io::stdin().lock(), path, options);
    }
    let file = File::open(path).map_err(io_error)?;
    if file.metadata().map_err(io_error)?.is_dir() {
        return Err(io_error(std::io::Error::other("is a directory")));
    }
    decode_volume_with(BufReader::new(file), path, options)
}

/// Refuses a page: a volume is every page of its file.
fn check_no_page(path: &Path, options: &ReadOptions) -> Result<()> {
    match options.page {
        Some(page) => Err(Error::InvalidArgument(format!(
            "{}: --page {page} reads one page of a TIFF as a 2-D image; a volume is every \
             page, one slice each",
            path.display()
        ))),
        None => Ok(()),
    }
}

/// Reads a volume from a stream that cannot seek (standard input): a
/// `.npy` as it comes (its header bounds what is read), anything else into
/// memory as [`read_image`](crate::read_image) reads it.
pub(crate) fn read_volume_stream(
    mut input: impl BufRead,
    path: &Path,
    options: &ReadOptions,
) -> Result<DecodedVolume> {
    check_no_page(path, options)?;
    // Enough bytes to recognise every format by (a PNG's signature is 8).
    let mut head = Vec::new();
    (&mut input)
        .take(16)
        .read_to_end(&mut head)
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    // A stream that ends inside the magic is a truncated .npy.
    let is_npy = head.starts_with(npy::MAGIC)
        || (!head.is_empty() && head.len() < npy::MAGIC.len() && npy::MAGIC.starts_with(&head));
    if !is_npy && image::guess_format(&head).is_err() {
        return Err(decode_error(
            path,
            "standard input is not a NumPy .npy array or a TIFF stack (nor a PNG or PNM image, \
             read as one slice)"
                .into(),
        ));
    }
    let input = Cursor::new(head).chain(input);
    if is_npy {
        return read_npy(input, None, path, options);
    }
    let bytes = read::read_stream_bytes(input, path, options)?;
    decode_volume_with(Cursor::new(bytes), path, options)
}

/// What a volume file holds.
enum Kind {
    Npy,
    Tiff,
    /// A PNG or PNM: one slice.
    Image,
}

/// Decodes a volume whose first byte is at position 0 of `input`.
pub(crate) fn decode_volume_with<R: BufRead + Seek>(
    mut input: R,
    path: &Path,
    options: &ReadOptions,
) -> Result<DecodedVolume> {
    check_no_page(path, options)?;
    let head = input.fill_buf().map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    // The content decides; the extension is a fallback.
    let kind = if head.starts_with(npy::MAGIC) {
        Kind::Npy
    } else {
        match image::guess_format(head).or_else(|_| ImageFormat::from_path(path)) {
            Ok(ImageFormat::Tiff) => Kind::Tiff,
            Ok(ImageFormat::Png | ImageFormat::Pnm) => Kind::Image,
            _ if extension.as_deref() == Some("npy") => Kind::Npy,
            _ => {
                return Err(decode_error(
                    path,
                    "not a NumPy .npy array or a TIFF stack (nor a PNG or PNM image, read as \
                     one slice)"
                        .into(),
                ));
            }
        }
    };
    match kind {
        Kind::Npy => {
            // The file's length: a truncated array is refused before room
            // for what its header declares is allocated.
            let length = input
                .seek(SeekFrom::End(0))
                .and_then(|length| input.seek(SeekFrom::Start(0)).map(|_| length))
                .map_err(|source| Error::Io {
                    path: path.to_path_buf(),
                    source,
                })?;
            read_npy(input, Some(length), path, options)
        }
        Kind::Tiff => read_tiff_stack(input, path, options),
        Kind::Image => {
            let page = read::decode_image(input, path, options)?;
            let (width, height) = (page.image.width() as usize, page.image.height() as usize);
            let mut binarizer = Binarizer::new(options.binarization);
            binarizer
                .add_image(&page.image, page.pbm)
                .map_err(|message| invalid(path, message))?;
            drop(page);
            finish(binarizer, (width, height, 1), path)
        }
    }
}

/// [`Error::Decode`] for `path`.
pub(crate) fn decode_error(path: &Path, message: String) -> Error {
    Error::Decode {
        path: path.to_path_buf(),
        message,
    }
}

/// [`Error::InvalidArgument`] for `path`: options the file cannot take.
fn invalid(path: &Path, message: String) -> Error {
    Error::InvalidArgument(format!("{}: {message}", path.display()))
}

/// The volume of a [`Binarizer`]'s pages.
fn finish(
    binarizer: Binarizer,
    (width, height, depth): (usize, usize, usize),
    path: &Path,
) -> Result<DecodedVolume> {
    let binarized = binarizer.finish();
    let volume = BinaryVolumeBuf::from_voxels(binarized.pixels, width, height, depth)
        .map_err(|e| decode_error(path, e.to_string()))?;
    Ok(DecodedVolume {
        volume,
        gray_levels: binarized.gray_levels,
        threshold: binarized.threshold,
        translucent: binarized.translucent,
    })
}

/// Refuses a size past the labels' space or past the limit.
pub(crate) fn check_voxels(
    (width, height, depth): (usize, usize, usize),
    path: &Path,
    options: &ReadOptions,
) -> Result<()> {
    check_volume_size(width, height, depth).map_err(|e| decode_error(path, e.to_string()))?;
    // A volume without voxels may have other sides that multiply past any
    // count (a .npy of shape (0, 2^40, 2^40)): its rows and slices would
    // overflow the arithmetic of every reader of it, or take forever to
    // walk through.
    let sides = [width, height, depth].iter().fold(1u128, |product, &side| {
        product.saturating_mul(side.max(1) as u128)
    });
    if sides > u128::from(MAX_PIXELS) {
        return Err(decode_error(
            path,
            format!(
                "a {width}x{height}x{depth} volume: it has no voxels, but its sides other than \
                 0 multiply to {sides}, more than the {MAX_PIXELS} voxels of 32-bit labels"
            ),
        ));
    }
    // Fits, and so does every partial product: each is at most `sides`.
    let voxels = (width * height * depth) as u64;
    if voxels > options.max_pixels {
        return Err(decode_error(
            path,
            format!(
                "too large to read: {width}x{height}x{depth} is {voxels} voxels, over the limit \
                 of {} (set by --max-pixels, which guards memory: reading and labelling take 5 \
                 bytes a voxel or more); --max-pixels {voxels} reads it",
                options.max_pixels
            ),
        ));
    }
    Ok(())
}

/// Reads every page of a TIFF as a slice.
fn read_tiff_stack<R: BufRead + Seek>(
    mut input: R,
    path: &Path,
    options: &ReadOptions,
) -> Result<DecodedVolume> {
    let io_error = |e| decode_error(path, describe("TIFF", ImageError::IoError(e)));
    // A page holds a voxel at least: past `max_pixels` pages, the volume is
    // too large whatever their size.
    let max_pages = options.max_pixels.clamp(1, MAX_SLICES);
    let chain = pages::chain(&mut input, max_pages as usize)
        .map_err(io_error)?
        .map_err(|message| decode_error(path, message))?;
    if let Some(chain) = &chain
        && chain.more()
    {
        return Err(decode_error(
            path,
            if max_pages == options.max_pixels {
                format!(
                    "too large to read: the TIFF has more than {max_pages} pages, so more \
                     voxels than the limit of {max_pages} (set by --max-pixels, which guards \
                     memory)"
                )
            } else {
                format!("a TIFF of more than {MAX_SLICES} pages, more than a volume read has")
            },
        ));
    }
    // A header that the walk does not understand is one page, whose decoder
    // says what is wrong with it.
    let depth = chain.as_ref().map_or(1, pages::Chain::count);
    let mut binarizer = Binarizer::new(options.binarization);
    let mut size = None;
    for page in 0..depth {
        let on_page = |message: String| match depth {
            1 => message,
            _ => format!("page {page} of {depth}: {message}"),
        };
        let header = match &chain {
            Some(chain) => Some(
                chain
                    .header_for(&mut input, page)
                    .map_err(io_error)?
                    .map_err(|m| decode_error(path, on_page(m)))?,
            ),
            None => None,
        };
        let decoder = read::open_page(&mut input, header, ImageFormat::Tiff)
            .map_err(|m| decode_error(path, on_page(m)))?;
        let (width, height) = decoder.dimensions();
        match size {
            None => {
                let size = (width as usize, height as usize, depth);
                check_voxels(size, path, options)?;
                binarizer.reserve(size.0 * size.1 * depth);
            }
            Some((first_width, first_height)) if (first_width, first_height) != (width, height) => {
                return Err(decode_error(
                    path,
                    format!(
                        "page {page} is {width}x{height} but page 0 is \
                         {first_width}x{first_height}: the pages of a volume must all be one \
                         size"
                    ),
                ));
            }
            Some(_) => {}
        }
        size = Some((width, height));
        let image =
            read::decode_page(decoder, "TIFF").map_err(|m| decode_error(path, on_page(m)))?;
        binarizer
            .add_image(&image, false)
            .map_err(|m| invalid(path, on_page(m)))?;
    }
    let (width, height) = size.unwrap_or_default();
    finish(binarizer, (width as usize, height as usize, depth), path)
}

/// A threshold rule that takes any type: the `.npy` types other than
/// `bool`, `uint8` and `uint16` (which are binarized as gray images).
#[derive(Clone, Copy)]
pub(crate) enum Rule {
    Nonzero,
    Above(u32),
}

/// An element type of a `.npy` array.
pub(crate) trait Element: Copy {
    /// Bytes an element.
    const SIZE: usize;
    /// The element of `bytes` (`SIZE` of them).
    fn read(bytes: &[u8], big_endian: bool) -> Self;
    /// The element is foreground under `rule`.
    fn foreground(self, rule: Rule) -> bool;
    /// A key equal for equal values and different for different ones (NaNs
    /// aside), to count distinct values.
    fn key(self) -> u64;
}

macro_rules! integer_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const SIZE: usize = size_of::<$t>();
            fn read(bytes: &[u8], big_endian: bool) -> Self {
                let mut array = [0u8; size_of::<$t>()];
                array.copy_from_slice(bytes);
                if big_endian { <$t>::from_be_bytes(array) } else { <$t>::from_le_bytes(array) }
            }
            fn foreground(self, rule: Rule) -> bool {
                match rule {
                    Rule::Nonzero => self != 0,
                    Rule::Above(t) => i128::from(self) > i128::from(t),
                }
            }
            fn key(self) -> u64 {
                // Two's complement: one type's values stay distinct.
                i128::from(self) as u64
            }
        }
    )*};
}

macro_rules! float_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const SIZE: usize = size_of::<$t>();
            fn read(bytes: &[u8], big_endian: bool) -> Self {
                let mut array = [0u8; size_of::<$t>()];
                array.copy_from_slice(bytes);
                if big_endian { <$t>::from_be_bytes(array) } else { <$t>::from_le_bytes(array) }
            }
            fn foreground(self, rule: Rule) -> bool {
                match rule {
                    // NaN is not 0: foreground, as numpy's `astype(bool)`.
                    Rule::Nonzero => self != 0.0,
                    Rule::Above(t) => f64::from(self) > f64::from(t),
                }
            }
            fn key(self) -> u64 {
                // -0.0 is 0.0.
                if self == 0.0 { 0 } else { f64::from(self).to_bits() }
            }
        }
    )*};
}

integer_element!(u8, i8, u16, i16, u32, i32, u64, i64);
float_element!(f32, f64);

/// The sides of a `.npy` volume and the order of its elements.
#[derive(Clone, Copy)]
pub(crate) struct Layout {
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) depth: usize,
    pub(crate) fortran_order: bool,
}

impl Layout {
    pub(crate) fn count(&self) -> usize {
        self.width * self.height * self.depth
    }
}

/// The position in C order (x fastest) of each element of a `.npy` array,
/// in the order the file holds them: the same for C order; z fastest, then
/// y, then x for Fortran order.
struct FileOrder {
    layout: Layout,
    next: usize,
    x: usize,
    y: usize,
    z: usize,
}

impl FileOrder {
    fn new(layout: Layout) -> Self {
        Self {
            layout,
            next: 0,
            x: 0,
            y: 0,
            z: 0,
        }
    }

    fn advance(&mut self) -> usize {
        let Layout {
            width,
            height,
            depth,
            fortran_order,
        } = self.layout;
        if !fortran_order {
            self.next += 1;
            return self.next - 1;
        }
        let at = (self.z * height + self.y) * width + self.x;
        self.z += 1;
        if self.z == depth {
            self.z = 0;
            self.y += 1;
            if self.y == height {
                self.y = 0;
                self.x += 1;
            }
        }
        at
    }
}

/// Reads the `layout.count()` elements of a `.npy` array's data and gives
/// each, with its position in C order, to `store`.
fn read_elements<T: Element>(
    input: &mut impl Read,
    layout: Layout,
    big_endian: bool,
    mut store: impl FnMut(usize, T),
) -> std::io::Result<()> {
    let mut order = FileOrder::new(layout);
    let mut left = layout.count();
    let mut buffer = vec![0u8; CHUNK.min(left * T::SIZE)];
    while left > 0 {
        let n = left.min(CHUNK / T::SIZE);
        let bytes = &mut buffer[..n * T::SIZE];
        input.read_exact(bytes)?;
        for element in bytes.chunks_exact(T::SIZE) {
            store(order.advance(), T::read(element, big_endian));
        }
        left -= n;
    }
    Ok(())
}

/// Reads the elements of a `.npy` array into C order, as they are.
pub(crate) fn read_values<T: Element + Default>(
    input: &mut impl Read,
    layout: Layout,
    big_endian: bool,
) -> std::io::Result<Vec<T>> {
    let mut values = vec![T::default(); layout.count()];
    read_elements(input, layout, big_endian, |at, value: T| values[at] = value)?;
    Ok(values)
}

/// Binarizes the elements of a `.npy` array by `rule` as they are read:
/// the voxels in C order, and the distinct values counted up to 3.
fn decide<T: Element>(
    input: &mut impl Read,
    layout: Layout,
    big_endian: bool,
    rule: Rule,
) -> std::io::Result<(Vec<u8>, usize)> {
    let mut voxels = vec![0u8; layout.count()];
    let mut levels: Vec<u64> = Vec::with_capacity(3);
    read_elements(input, layout, big_endian, |at, value: T| {
        if levels.len() < 3 && !levels.contains(&value.key()) {
            levels.push(value.key());
        }
        voxels[at] = u8::from(value.foreground(rule));
    })?;
    Ok((voxels, levels.len()))
}

/// Reads a `.npy` array as a volume from the start of `input`, whose
/// `length` in bytes is known when it can seek.
fn read_npy(
    mut input: impl Read,
    length: Option<u64>,
    path: &Path,
    options: &ReadOptions,
) -> Result<DecodedVolume> {
    let truncated = |what: String| {
        move |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => decode_error(
                path,
                format!("the .npy {what} ends early (a truncated file)"),
            ),
            _ => Error::Io {
                path: path.to_path_buf(),
                source: e,
            },
        }
    };
    let header = npy::read_header(&mut input)
        .map_err(truncated("header".into()))?
        .map_err(|message| decode_error(path, message))?;
    let shape = header
        .shape
        .iter()
        .map(|&n| usize::try_from(n).unwrap_or(usize::MAX))
        .collect::<Vec<_>>();
    let written = || {
        let dims: Vec<String> = header.shape.iter().map(u64::to_string).collect();
        match dims.len() {
            1 => format!("({},)", dims[0]),
            _ => format!("({})", dims.join(", ")),
        }
    };
    let (depth, height, width) = match shape[..] {
        [height, width] => (1, height, width),
        [depth, height, width] => (depth, height, width),
        _ => {
            return Err(decode_error(
                path,
                format!(
                    "a .npy array of shape {}: a volume is a 3-D array (depth, height, width), \
                     or a 2-D one (height, width) of depth 1",
                    written()
                ),
            ));
        }
    };
    check_voxels((width, height, depth), path, options)?;
    let dtype = header.dtype;
    let binarization = options.binarization;
    if binarization.channel == Channel::Alpha {
        return Err(invalid(
            path,
            format!(
                "--alpha: a .npy array has no alpha channel (it holds {} values); without \
                 --alpha, every nonzero voxel is foreground",
                dtype.name()
            ),
        ));
    }
    let gray = matches!(dtype, Dtype::Bool | Dtype::U8 | Dtype::U16);
    let rule = match binarization.threshold {
        Threshold::Above(t) => {
            if let Some((min, max)) = dtype.range()
                && u64::from(t) >= max
            {
                return Err(invalid(
                    path,
                    format!(
                        "threshold {t} leaves no foreground: {} values run from {min} to {max}",
                        dtype.name()
                    ),
                ));
            }
            Rule::Above(t)
        }
        Threshold::Otsu if !gray => {
            return Err(invalid(
                path,
                format!(
                    "--otsu needs 8- or 16-bit unsigned values (a bool, uint8 or uint16 array), \
                     and this .npy holds {} values: binarize it with --threshold T, or in numpy",
                    dtype.name()
                ),
            ));
        }
        Threshold::Otsu | Threshold::Nonzero => Rule::Nonzero,
    };
    let layout = Layout {
        width,
        height,
        depth,
        fortran_order: header.fortran_order,
    };
    let sides = (width, height, depth);
    let data = truncated(format!(
        "data of shape {} ({} bytes of {})",
        written(),
        layout.count().saturating_mul(dtype.size()),
        dtype.name()
    ));
    let needed = (layout.count() as u64).saturating_mul(dtype.size() as u64);
    if let Some(length) = length
        && length.saturating_sub(header.data_offset) < needed
    {
        return Err(data(std::io::ErrorKind::UnexpectedEof.into()));
    }
    let big = header.big_endian;
    if gray {
        let values = format!("{} values", dtype.name());
        let gray = match dtype {
            Dtype::U16 => Gray::Sixteen(read_values::<u16>(&mut input, layout, big).map_err(data)?),
            _ => {
                let mut bytes = if header.fortran_order {
                    read_values::<u8>(&mut input, layout, big).map_err(data)?
                } else {
                    // C order: the bytes are the values, in place.
                    let mut bytes = vec![0u8; layout.count()];
                    input.read_exact(&mut bytes).map_err(data)?;
                    bytes
                };
                if dtype == Dtype::Bool {
                    // numpy reads any nonzero byte as True.
                    for b in &mut bytes {
                        *b = u8::from(*b != 0);
                    }
                }
                Gray::Eight(Cow::Owned(bytes))
            }
        };
        let mut binarizer = Binarizer::new(binarization);
        binarizer.reserve(layout.count());
        binarizer
            .add_gray(gray, &values)
            .map_err(|message| invalid(path, message))?;
        return finish(binarizer, sides, path);
    }
    let (mut voxels, gray_levels) = match dtype {
        Dtype::I8 => decide::<i8>(&mut input, layout, big, rule),
        Dtype::I16 => decide::<i16>(&mut input, layout, big, rule),
        Dtype::U32 => decide::<u32>(&mut input, layout, big, rule),
        Dtype::I32 => decide::<i32>(&mut input, layout, big, rule),
        Dtype::U64 => decide::<u64>(&mut input, layout, big, rule),
        Dtype::I64 => decide::<i64>(&mut input, layout, big, rule),
        Dtype::F32 => decide::<f32>(&mut input, layout, big, rule),
        // The gray types are read above.
        Dtype::F64 | Dtype::Bool | Dtype::U8 | Dtype::U16 => {
            decide::<f64>(&mut input, layout, big, rule)
        }
    }
    .map_err(data)?;
    if binarization.invert {
        for v in &mut voxels {
            *v ^= 1;
        }
    }
    let volume = BinaryVolumeBuf::from_voxels(voxels, width, height, depth)
        .map_err(|e| decode_error(path, e.to_string()))?;
    Ok(DecodedVolume {
        volume,
        gray_levels,
        threshold: match rule {
            Rule::Above(t) => Some(t),
            Rule::Nonzero => None,
        },
        translucent: false,
    })
}

/// How a volume is written; [`VolumeFormat::of`] chooses by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VolumeFormat {
    /// `.tif` / `.tiff`: one page a slice, page z the slice z, as ImageJ /
    /// Fiji and tifffile read a stack (labels: 32-bit unsigned gray; binary
    /// volumes: 8-bit gray, foreground 255). A stack past 4 GiB is a
    /// BigTIFF, which tifffile and Fiji's Bio-Formats read.
    Tiff,
    /// `.npy`: NumPy's format 1.0, an array of shape (depth, height, width)
    /// in C order, so that `numpy.load(path)[z, y, x]` is voxel (x, y, z)
    /// (labels: little-endian `uint32`; binary volumes: `uint8`, 0 or 1).
    Npy,
}

impl VolumeFormat {
    /// The format a file's extension (any case) names.
    ///
    /// # Errors
    /// [`Error::Decode`] naming the accepted extensions, for any other
    /// (and saying that a PNG or PNM holds one 2-D image).
    pub fn of(path: &Path) -> Result<Self> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("tif" | "tiff") => Ok(VolumeFormat::Tiff),
            Some("npy") => Ok(VolumeFormat::Npy),
            Some(ext @ ("png" | "pgm" | "pbm" | "ppm" | "pam")) => Err(decode_error(
                path,
                format!(
                    "a .{ext} holds one 2-D image, not a volume: write a volume as .tif / .tiff \
                     (one page a slice) or .npy (a 3-D NumPy array)"
                ),
            )),
            _ => Err(decode_error(
                path,
                "volumes are written as .tif / .tiff (one page a slice) or .npy (a 3-D NumPy \
                 array); name the file with one of those extensions"
                    .into(),
            )),
        }
    }

    /// Writes `labels` in this format to `out`; `path` names it in errors.
    ///
    /// # Errors
    /// [`Error::Io`] when writing fails; [`Error::Decode`] when the format
    /// cannot hold the volume (a TIFF refuses a volume without voxels).
    pub fn write_labels(
        self,
        labels: &LabelVolume,
        out: &mut (impl Write + Seek),
        path: &Path,
    ) -> Result<()> {
        let sides = (labels.width(), labels.height(), labels.depth());
        match self {
            VolumeFormat::Npy => write_npy(out, "<u4", sides, |out| {
                for label in labels.labels() {
                    out.write_all(&label.to_le_bytes())?;
                }
                Ok(())
            })
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            }),
            VolumeFormat::Tiff => write_tiff_stack::<Gray32>(out, sides, labels.labels(), path),
        }
    }

    /// Writes a binary `volume` in this format to `out`; `path` names it in
    /// errors.
    ///
    /// # Errors
    /// As [`VolumeFormat::write_labels`].
    pub fn write_volume(
        self,
        volume: &BinaryVolumeBuf,
        out: &mut (impl Write + Seek),
        path: &Path,
    ) -> Result<()> {
        let sides = (volume.width(), volume.height(), volume.depth());
        match self {
            VolumeFormat::Npy => write_npy(out, "|u1", sides, |out| out.write_all(volume.voxels()))
                .map_err(|source| Error::Io {
                    path: path.to_path_buf(),
                    source,
                }),
            VolumeFormat::Tiff => {
                // Foreground 255, as 2-D images are written: visible in a
                // viewer, and nonzero to every reader.
                let gray: Vec<u8> = volume.voxels().iter().map(|&v| v * 255).collect();
                write_tiff_stack::<Gray8>(out, sides, &gray, path)
            }
        }
    }
}

/// Writes the labels to `path` in the format its extension names
/// ([`VolumeFormat::of`]).
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("ccl-io-volume-labels-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let labels = ccl_core::LabelVolume::new(2, 1, 2, vec![1, 0, 2, 2])?;
/// ccl_io::save_volume_labels(&labels, &dir.join("labels.npy"))?; // shape (2, 1, 2)
/// ccl_io::save_volume_labels(&labels, &dir.join("labels.tif"))?; // 2 pages of 2x1
/// assert!(ccl_io::save_volume_labels(&labels, &dir.join("labels.png")).is_err());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`VolumeFormat::of`] and [`VolumeFormat::write_labels`];
/// [`Error::Io`] when the file cannot be created.
pub fn save_volume_labels(labels: &LabelVolume, path: &Path) -> Result<()> {
    let format = VolumeFormat::of(path)?;
    save_with(path, |out| format.write_labels(labels, out, path))
}

/// Writes a binary volume to `path` in the format its extension names
/// ([`VolumeFormat::of`]): a `.npy` of `uint8` 0 and 1, or a TIFF stack of
/// 8-bit pages, foreground 255. [`load_volume`] reads either back.
///
/// # Errors
/// As [`save_volume_labels`].
pub fn save_volume(volume: &BinaryVolumeBuf, path: &Path) -> Result<()> {
    let format = VolumeFormat::of(path)?;
    save_with(path, |out| format.write_volume(volume, out, path))
}

/// Creates `path` and writes it through a buffer.
fn save_with(path: &Path, write: impl FnOnce(&mut BufWriter<File>) -> Result<()>) -> Result<()> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::create(path).map_err(io_error)?;
    let mut out = BufWriter::new(file);
    write(&mut out)?;
    out.flush().map_err(io_error)
}

/// A `.npy` of shape (depth, height, width) and `descr`, its data written
/// by `data`.
fn write_npy<W: Write>(
    out: &mut W,
    descr: &str,
    (width, height, depth): (usize, usize, usize),
    data: impl FnOnce(&mut W) -> std::io::Result<()>,
) -> std::io::Result<()> {
    npy::write_header(out, descr, &[depth, height, width])?;
    data(out)
}

/// A TIFF stack of the volume's slices, BigTIFF when a classic TIFF's
/// 32-bit offsets cannot address it.
fn write_tiff_stack<C: ColorType>(
    out: &mut (impl Write + Seek),
    (width, height, depth): (usize, usize, usize),
    samples: &[C::Inner],
    path: &Path,
) -> Result<()>
where
    [C::Inner]: TiffValue,
{
    if samples.is_empty() {
        return Err(decode_error(
            path,
            format!(
                "a {width}x{height}x{depth} volume has no voxels, and a TIFF no empty pages: \
                 write it as .npy"
            ),
        ));
    }
    // Both fit: the labels' space bounds the voxels below 2^32, and a side
    // of a volume with voxels is at most that.
    let side = |n: usize| u32::try_from(n).map_err(|_| format!("a side of {n} voxels"));
    let sides = side(width)
        .and_then(|w| Ok((w, side(height)?)))
        .map_err(|m| decode_error(path, m))?;
    let bytes = std::mem::size_of_val(samples) as u64;
    write_tiff_pages::<C>(out, sides, samples, needs_big_tiff(bytes, depth as u64))
        .map_err(|m| decode_error(path, format!("cannot encode as TIFF: {m}")))
}

/// Whether a stack of `pages` pages of `bytes` bytes of samples in all
/// needs BigTIFF: a classic TIFF's offsets address 4 GiB. Each page adds a
/// directory (some 200 bytes) and 8 bytes of strip offset and count for
/// every strip of about 1 MB (the `tiff` encoder's).
fn needs_big_tiff(bytes: u64, pages: u64) -> bool {
    let overhead = pages
        .saturating_mul(1024)
        .saturating_add(bytes / (1 << 16))
        .saturating_add(1 << 20);
    bytes.saturating_add(overhead) > u64::from(u32::MAX)
}

/// Writes `samples` as pages of `width` × `height` (`samples` holds a whole
/// number of them, at least one), classic TIFF or BigTIFF.
pub(crate) fn write_tiff_pages<C: ColorType>(
    out: &mut (impl Write + Seek),
    (width, height): (u32, u32),
    samples: &[C::Inner],
    big: bool,
) -> std::result::Result<(), String>
where
    [C::Inner]: TiffValue,
{
    fn pages<W: Write + Seek, K: TiffKind, C: ColorType>(
        mut encoder: TiffEncoder<W, K>,
        (width, height): (u32, u32),
        samples: &[C::Inner],
    ) -> tiff::TiffResult<()>
    where
        [C::Inner]: TiffValue,
    {
        let page = (width as usize * height as usize).max(1);
        for slice in samples.chunks(page) {
            encoder.write_image::<C>(width, height, slice)?;
        }
        Ok(())
    }
    let written = if big {
        TiffEncoder::new_big(out)
            .and_then(|encoder| pages::<_, _, C>(encoder, (width, height), samples))
    } else {
        TiffEncoder::new(out)
            .and_then(|encoder| pages::<_, _, C>(encoder, (width, height), samples))
    };
    written.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{TempDir, tiff_stack};
    use crate::{Binarization, save_image};
    use ccl_core::BinaryImageBuf;

    /// A `.npy` built by hand (not by [`npy::write_header`]): `dict` padded
    /// as numpy pads it, then `data`.
    fn npy_bytes(descr: &str, fortran_order: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let order = if fortran_order { "True" } else { "False" };
        let dict = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, }}");
        let padded = (10 + dict.len() + 1).next_multiple_of(64) - 10;
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend((padded as u16).to_le_bytes());
        bytes.extend(format!("{dict:<width$}\n", width = padded - 1).bytes());
        bytes.extend(data);
        bytes
    }

    fn decode(bytes: &[u8], name: &str, options: &ReadOptions) -> Result<DecodedVolume> {
        decode_volume_with(Cursor::new(bytes), Path::new(name), options)
    }

    fn with(threshold: Threshold, invert: bool) -> ReadOptions {
        ReadOptions {
            binarization: Binarization {
                threshold,
                invert,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// A volume of scattered voxels.
    fn scattered(width: usize, height: usize, depth: usize) -> BinaryVolumeBuf {
        BinaryVolumeBuf::from_fn(width, height, depth, |x, y, z| {
            (x * 7 + y * 13 + z * 5 + x * y * z) % 3 == 0
        })
        .unwrap()
    }

    #[test]
    fn binary_volumes_round_trip_in_both_formats() {
        let dir = TempDir::new("volume-round-trip");
        for (w, h, d) in [
            (5, 4, 3),
            (7, 3, 1),
            (1, 1, 9),
            (9, 1, 1),
            (1, 9, 1),
            (1, 1, 1),
        ] {
            let volume = scattered(w, h, d);
            for ext in ["npy", "tif", "TIFF"] {
                let path = dir.0.join(format!("v-{w}-{h}-{d}.{ext}"));
                save_volume(&volume, &path).unwrap();
                assert_eq!(load_volume(&path).unwrap(), volume, "{w}x{h}x{d}.{ext}");
            }
        }
        // An all-foreground and an all-background volume.
        for volume in [
            BinaryVolumeBuf::from_fn(3, 2, 2, |_, _, _| true).unwrap(),
            BinaryVolumeBuf::new(3, 2, 2).unwrap(),
        ] {
            for ext in ["npy", "tif"] {
                let path = dir.0.join(format!("flat.{ext}"));
                save_volume(&volume, &path).unwrap();
                assert_eq!(load_volume(&path).unwrap(), volume, "{ext}");
            }
        }
        // Volumes without voxels: a .npy holds them, a TIFF cannot.
        for (w, h, d) in [(0, 4, 3), (4, 0, 3), (4, 3, 0), (0, 0, 0)] {
            let volume = BinaryVolumeBuf::new(w, h, d).unwrap();
            let path = dir.0.join("empty.npy");
            save_volume(&volume, &path).unwrap();
            let read = load_volume(&path).unwrap();
            assert_eq!(read, volume, "{w}x{h}x{d}");
            let error = save_volume(&volume, &dir.0.join("empty.tif")).unwrap_err();
            assert!(
                matches!(error, Error::Decode { .. })
                    && error.to_string().contains("write it as .npy"),
                "{error}"
            );
        }
    }

    #[test]
    fn written_binary_volumes_are_what_numpy_and_tiff_readers_expect() {
        let dir = TempDir::new("volume-bytes");
        let volume = scattered(3, 2, 4);
        let path = dir.0.join("v.npy");
        save_volume(&volume, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let header = npy::read_header(&mut &bytes[..]).unwrap().unwrap();
        assert_eq!((header.dtype, header.shape), (Dtype::U8, vec![4, 2, 3]));
        assert_eq!(&bytes[bytes.len() - 24..], volume.voxels());
        let path = dir.0.join("v.tif");
        save_volume(&volume, &path).unwrap();
        let mut decoder = tiff::decoder::Decoder::new(File::open(&path).unwrap()).unwrap();
        for z in 0..4 {
            assert_eq!(decoder.dimensions().unwrap(), (3, 2));
            match decoder.read_image().unwrap() {
                tiff::decoder::DecodingResult::U8(data) => {
                    let slice: Vec<u8> = volume.voxels()[z * 6..][..6]
                        .iter()
                        .map(|&v| v * 255)
                        .collect();
                    assert_eq!(data, slice, "page {z}");
                }
                _ => panic!("not 8-bit"),
            }
            assert_eq!(decoder.more_images(), z < 3);
            if z < 3 {
                decoder.next_image().unwrap();
            }
        }
    }

    #[test]
    fn label_volumes_are_written_as_numpy_arrays_and_tiff_stacks() {
        let dir = TempDir::new("volume-labels");
        for (w, h, d) in [(3, 2, 4), (4, 3, 1), (1, 1, 5)] {
            let labels: Vec<u32> = (0..w * h * d)
                .map(|i| (i as u32 * 70_001) % 5 * 70_000)
                .collect();
            let labels = LabelVolume::new(w, h, d, labels).unwrap();
            let path = dir.0.join("l.npy");
            save_volume_labels(&labels, &path).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
            assert_eq!((10 + header_len) % 64, 0);
            let text = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
            assert!(
                text.contains(&format!("'shape': ({d}, {h}, {w})")),
                "{text}"
            );
            assert!(text.contains("'descr': '<u4'"), "{text}");
            let data: Vec<u32> = bytes[10 + header_len..]
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(data, labels.labels());

            let path = dir.0.join("l.tiff");
            save_volume_labels(&labels, &path).unwrap();
            let mut decoder = tiff::decoder::Decoder::new(File::open(&path).unwrap()).unwrap();
            let mut pages = Vec::new();
            loop {
                assert_eq!(decoder.dimensions().unwrap(), (w as u32, h as u32));
                match decoder.read_image().unwrap() {
                    tiff::decoder::DecodingResult::U32(data) => pages.extend(data),
                    _ => panic!("not 32-bit"),
                }
                if !decoder.more_images() {
                    break;
                }
                decoder.next_image().unwrap();
            }
            assert_eq!(pages, labels.labels(), "{w}x{h}x{d}");
        }
        let empty = LabelVolume::new(2, 0, 3, Vec::new()).unwrap();
        save_volume_labels(&empty, &dir.0.join("e.npy")).unwrap();
        let error = save_volume_labels(&empty, &dir.0.join("e.tif")).unwrap_err();
        assert!(error.to_string().contains("no voxels"), "{error}");
        let one = LabelVolume::new(1, 1, 1, vec![1]).unwrap();
        let error = save_volume_labels(&one, &dir.0.join("l.png")).unwrap_err();
        assert!(error.to_string().contains("one 2-D image"), "{error}");
        let error = save_volume_labels(&one, &dir.0.join("l.raw")).unwrap_err();
        assert!(error.to_string().contains(".tif / .tiff"), "{error}");
        let error = save_volume(&scattered(1, 1, 1), &dir.0.join("v.pbm")).unwrap_err();
        assert!(error.to_string().contains("one 2-D image"), "{error}");
        let error = save_volume_labels(&one, &dir.0.join("no-such-dir/l.npy")).unwrap_err();
        assert!(matches!(error, Error::Io { .. }), "{error}");
    }

    #[test]
    fn stacks_past_four_gib_are_big_tiff_and_read_back() {
        assert!(!needs_big_tiff(1 << 30, 1024));
        assert!(needs_big_tiff(u64::from(u32::MAX) - 1000, 1));
        assert!(needs_big_tiff(4 << 30, 1));
        let volume = scattered(3, 2, 3);
        let gray: Vec<u8> = volume.voxels().iter().map(|&v| v * 255).collect();
        let mut out = Cursor::new(Vec::new());
        write_tiff_pages::<Gray8>(&mut out, (3, 2), &gray, true).unwrap();
        let bytes = out.into_inner();
        assert_eq!(&bytes[..4], b"II+\0");
        let decoded = decode(&bytes, "big.tif", &ReadOptions::default()).unwrap();
        assert_eq!(decoded.volume, volume);
    }

    /// The bytes of `values` as the `.npy` type `code` (`u2`, `f4`).
    fn encode_values(code: &str, big_endian: bool, values: &[f64]) -> Vec<u8> {
        macro_rules! bytes {
            ($t:ty) => {
                values
                    .iter()
                    .flat_map(|&v| {
                        let v = v as $t;
                        if big_endian {
                            v.to_be_bytes().to_vec()
                        } else {
                            v.to_le_bytes().to_vec()
                        }
                    })
                    .collect()
            };
        }
        match code {
            "b1" | "u1" => bytes!(u8),
            "i1" => bytes!(i8),
            "u2" => bytes!(u16),
            "i2" => bytes!(i16),
            "u4" => bytes!(u32),
            "i4" => bytes!(i32),
            "u8" => bytes!(u64),
            "i8" => bytes!(i64),
            "f4" => bytes!(f32),
            _ => bytes!(f64),
        }
    }

    #[test]
    fn npy_arrays_of_every_type_and_byte_order_are_read() {
        let (nan, max64) = (f64::NAN, u64::MAX as f64);
        let cases: [(&str, [f64; 6]); 11] = [
            ("b1", [0.0, 1.0, 2.0, 0.0, 1.0, 0.0]),
            ("u1", [0.0, 1.0, 2.0, 255.0, 0.0, 7.0]),
            ("i1", [0.0, -1.0, 2.0, 127.0, -128.0, 1.0]),
            ("u2", [0.0, 1.0, 300.0, 65535.0, 0.0, 2.0]),
            ("i2", [0.0, -300.0, 2.0, 32767.0, -32768.0, 1.0]),
            ("u4", [0.0, 1.0, 70000.0, 4294967295.0, 0.0, 2.0]),
            ("i4", [0.0, -1.0, 2.0, 2147483647.0, -2147483648.0, 1.0]),
            ("u8", [0.0, 1.0, 2.0, max64, 9007199254740992.0, 0.0]),
            (
                "i8",
                [0.0, -1.0, 2.0, i64::MIN as f64, i64::MAX as f64, 1.0],
            ),
            ("f4", [0.0, -0.0, 0.5, 2.5, nan, -3.0]),
            ("f8", [0.0, -0.0, 0.5, 1e300, nan, -3.0]),
        ];
        for (code, values) in cases {
            let orders: &[char] = if matches!(code, "b1" | "u1" | "i1") {
                &['<', '>', '|']
            } else {
                &['<', '>']
            };
            for &order in orders {
                let descr = format!("{order}{code}");
                let data = encode_values(code, order == '>', &values);
                let bytes = npy_bytes(&descr, false, "(2, 1, 3)", &data);
                let name = format!("{descr}.npy");
                let decoded = decode(&bytes, &name, &ReadOptions::default())
                    .unwrap_or_else(|e| panic!("{descr}: {e}"));
                let volume = &decoded.volume;
                assert_eq!((volume.width(), volume.height(), volume.depth()), (3, 1, 2));
                let nonzero: Vec<u8> = values.iter().map(|&v| u8::from(v != 0.0)).collect();
                assert_eq!(volume.voxels(), nonzero, "{descr}");
                let levels = if code == "b1" { 2 } else { 3 };
                assert_eq!(decoded.gray_levels, levels, "{descr}");
                assert_eq!(decoded.threshold, None);
                let inverted = decode(&bytes, &name, &with(Threshold::Nonzero, true)).unwrap();
                let flipped: Vec<u8> = nonzero.iter().map(|&v| v ^ 1).collect();
                assert_eq!(inverted.volume.voxels(), flipped, "{descr}");
                if code != "b1" {
                    let above = decode(&bytes, &name, &with(Threshold::Above(1), false)).unwrap();
                    let expected: Vec<u8> = values.iter().map(|&v| u8::from(v > 1.0)).collect();
                    assert_eq!(above.volume.voxels(), expected, "{descr}");
                    assert_eq!(above.threshold, Some(1));
                }
            }
        }
    }

    #[test]
    fn fortran_order_is_read_as_numpy_reads_it() {
        let (w, h, d) = (4, 3, 2);
        let value = |x: usize, y: usize, z: usize| ((z * 7 + y * 3 + x) % 4) as f64;
        let mut c_order = Vec::new();
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    c_order.push(value(x, y, z));
                }
            }
        }
        // Fortran order: the first index (z) fastest.
        let mut f_order = Vec::new();
        for x in 0..w {
            for y in 0..h {
                for z in 0..d {
                    f_order.push(value(x, y, z));
                }
            }
        }
        for code in ["u1", "b1", "u2", "i4", "f8"] {
            let descr = format!("<{code}");
            let c = npy_bytes(
                &descr,
                false,
                "(2, 3, 4)",
                &encode_values(code, false, &c_order),
            );
            let f = npy_bytes(
                &descr,
                true,
                "(2, 3, 4)",
                &encode_values(code, false, &f_order),
            );
            for options in [ReadOptions::default(), with(Threshold::Above(1), false)] {
                if code == "b1" && options != ReadOptions::default() {
                    continue;
                }
                let c = decode(&c, "c.npy", &options).unwrap();
                let f = decode(&f, "f.npy", &options).unwrap();
                assert_eq!(c, f, "{code}");
                let expected = BinaryVolumeBuf::from_fn(w, h, d, |x, y, z| {
                    match options.binarization.threshold {
                        Threshold::Above(t) => value(x, y, z) > f64::from(t),
                        _ => value(x, y, z) != 0.0,
                    }
                })
                .unwrap();
                assert_eq!(c.volume, expected, "{code}");
            }
        }
        // A 2-D array in Fortran order: the row index fastest.
        let f = npy_bytes("|u1", true, "(2, 3)", &[1, 0, 0, 0, 1, 1]);
        let decoded = decode(&f, "f.npy", &ReadOptions::default()).unwrap();
        assert_eq!(decoded.volume.voxels(), &[1, 0, 1, 0, 0, 1]);
    }

    #[test]
    fn two_dimensional_arrays_and_images_are_volumes_of_one_slice() {
        let npy = npy_bytes(
            "<u2",
            false,
            "(2, 3)",
            &encode_values("u2", false, &[0.0, 5.0, 0.0, 9.0, 0.0, 0.0]),
        );
        let decoded = decode(&npy, "flat.npy", &ReadOptions::default()).unwrap();
        let volume = &decoded.volume;
        assert_eq!((volume.width(), volume.height(), volume.depth()), (3, 2, 1));
        assert_eq!(volume.voxels(), &[0, 1, 0, 1, 0, 0]);
        // A TIFF of one page.
        let decoded = decode(&tiff_stack(1), "one.tif", &ReadOptions::default()).unwrap();
        assert_eq!(
            decoded.volume,
            BinaryVolumeBuf::from_fn(3, 2, 1, |_, _, _| true).unwrap()
        );
        // PNG and PBM (ink is foreground), read as read_image reads them.
        let dir = TempDir::new("volume-images");
        let image = BinaryImageBuf::from_fn(5, 3, |x, y| (x + y) % 2 == 0).unwrap();
        for ext in ["png", "pbm", "pgm"] {
            let path = dir.0.join(format!("i.{ext}"));
            save_image(&image, &path).unwrap();
            let volume = load_volume(&path).unwrap();
            assert_eq!((volume.width(), volume.height(), volume.depth()), (5, 3, 1));
            assert_eq!(volume.voxels(), image.pixels(), "{ext}");
        }
    }

    #[test]
    fn tiff_stacks_are_binarized_by_one_threshold_for_every_page() {
        // Three 3x2 pages of 1, 2 and 3.
        let stack = tiff_stack(3);
        let page = |v: u8| [v; 6];
        let decoded = decode(&stack, "s.tif", &ReadOptions::default()).unwrap();
        assert_eq!(
            decoded.volume.voxels(),
            [page(1), page(1), page(1)].concat()
        );
        assert_eq!((decoded.gray_levels, decoded.volume.depth()), (3, 3));
        let above = decode(&stack, "s.tif", &with(Threshold::Above(1), false)).unwrap();
        assert_eq!(above.volume.voxels(), [page(0), page(1), page(1)].concat());
        // Otsu's threshold of the whole volume (each page alone has one
        // value, which would make every page foreground).
        let otsu = decode(&stack, "s.tif", &with(Threshold::Otsu, false)).unwrap();
        assert_eq!(otsu.threshold, Some(1));
        assert_eq!(otsu.volume.voxels(), [page(0), page(1), page(1)].concat());
        let inverted = decode(&stack, "s.tif", &with(Threshold::Otsu, true)).unwrap();
        assert_eq!(
            inverted.volume.voxels(),
            [page(1), page(0), page(0)].concat()
        );
        let error = decode(&stack, "s.tif", &with(Threshold::Above(255), false)).unwrap_err();
        assert!(matches!(error, Error::InvalidArgument(_)), "{error}");
        assert!(
            error.to_string().contains("page 0 of 3: threshold 255"),
            "{error}"
        );
    }

    /// A TIFF of 8- or 16-bit gray pages of the sizes given, page i filled
    /// with i + 1.
    fn tiff_pages(pages: &[(u32, u32, bool)]) -> Vec<u8> {
        use tiff::encoder::colortype::Gray16;
        let mut out = Cursor::new(Vec::new());
        let mut encoder = TiffEncoder::new(&mut out).unwrap();
        for (i, &(w, h, sixteen)) in pages.iter().enumerate() {
            let n = (w * h) as usize;
            if sixteen {
                encoder
                    .write_image::<Gray16>(w, h, &vec![i as u16 + 1; n])
                    .unwrap();
            } else {
                encoder
                    .write_image::<Gray8>(w, h, &vec![i as u8 + 1; n])
                    .unwrap();
            }
        }
        out.into_inner()
    }

    #[test]
    fn pages_of_different_sizes_or_depths_are_refused_naming_the_page() {
        let bytes = tiff_pages(&[(3, 2, false), (3, 2, false), (4, 2, false)]);
        let error = decode(&bytes, "odd.tif", &ReadOptions::default()).unwrap_err();
        assert!(matches!(error, Error::Decode { .. }), "{error}");
        assert!(
            error
                .to_string()
                .contains("page 2 is 4x2 but page 0 is 3x2"),
            "{error}"
        );
        let bytes = tiff_pages(&[(3, 2, false), (2, 3, false)]);
        let error = decode(&bytes, "odd.tif", &ReadOptions::default()).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("page 1 is 2x3 but page 0 is 3x2"),
            "{error}"
        );
        // Bit depths may differ under the nonzero rule, not under a threshold.
        let bytes = tiff_pages(&[(3, 2, false), (3, 2, true)]);
        let decoded = decode(&bytes, "mixed.tif", &ReadOptions::default()).unwrap();
        assert_eq!(decoded.volume.voxels(), &[1; 12]);
        let error = decode(&bytes, "mixed.tif", &with(Threshold::Above(1), false)).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("page 1 of 2: its gray values run from 0 to 65535"),
            "{error}"
        );
    }

    #[test]
    fn sizes_past_the_limit_are_refused_from_the_header_before_allocating() {
        let limit = |max_pixels| ReadOptions {
            max_pixels,
            ..Default::default()
        };
        // A .npy that declares 2 * 10^9 voxels and holds none.
        let bomb = npy_bytes("|u1", false, "(2000, 1000, 1000)", &[]);
        let (result, largest) =
            crate::fuzz::largest_allocation(|| decode(&bomb, "bomb.npy", &ReadOptions::default()));
        let error = result.unwrap_err().to_string();
        for needle in [
            "bomb.npy",
            "1000x1000x2000",
            "2000000000 voxels",
            "1073741824",
            "--max-pixels 2000000000",
        ] {
            assert!(error.contains(needle), "{needle}: {error}");
        }
        assert!(largest < 1 << 20, "{largest} bytes at once");
        // Within the limit, but a file that holds less than it declares:
        // refused from its length, before room for it is allocated.
        let (result, largest) = crate::fuzz::largest_allocation(|| {
            decode(
                &npy_bytes("<f8", false, "(100, 1000, 1000)", &[0; 64]),
                "short.npy",
                &limit(1 << 30),
            )
        });
        let error = result.unwrap_err().to_string();
        assert!(
            error.contains("(800000000 bytes of float64) ends early"),
            "{error}"
        );
        assert!(largest < 1 << 20, "{largest} bytes at once");
        // Past the labels' space, whatever the limit.
        let bomb = npy_bytes("<f8", false, "(4096, 4096, 4096)", &[]);
        let error = decode(&bomb, "bomb.npy", &limit(u64::MAX)).unwrap_err();
        assert!(error.to_string().contains("volume too large"), "{error}");
        let bomb = npy_bytes("<f8", false, "(18446744073709551615, 2, 2)", &[]);
        let error = decode(&bomb, "bomb.npy", &limit(u64::MAX)).unwrap_err();
        assert!(error.to_string().contains("volume too large"), "{error}");
        // A TIFF stack: its first page's size times its pages.
        let stack = tiff_stack(3);
        let error = decode(&stack, "s.tif", &limit(17)).unwrap_err();
        assert!(error.to_string().contains("3x2x3 is 18 voxels"), "{error}");
        decode(&stack, "s.tif", &limit(18)).unwrap();
        // More pages than the limit allows voxels: refused while counting.
        let error = decode(&stack, "s.tif", &limit(2)).unwrap_err();
        assert!(error.to_string().contains("more than 2 pages"), "{error}");
    }

    // Crashes the mutation test (`fuzz.rs`) found, one test each.

    #[test]
    fn a_zero_side_beside_huge_ones_is_refused_not_an_overflow() {
        // Found as "npy-u8 mutated by [shape number at 61..62 = \"0\";
        // shape number at 67..68 = \"18446744073709551615\"]": no voxels,
        // so within every limit, but width × height overflowed.
        let options = ReadOptions::default();
        for shape in [
            "(0, 18446744073709551615, 5)",
            "(0, 4294967296, 4294967296)",
            "(5, 0, 4294967297)",
        ] {
            let bytes = npy_bytes("|u1", false, shape, &[]);
            let error = decode(&bytes, "z.npy", &options).unwrap_err().to_string();
            assert!(
                error.contains("it has no voxels, but its sides other than 0"),
                "{shape}: {error}"
            );
        }
        // Empty volumes whose other sides fit are read.
        let bytes = npy_bytes("|u1", false, "(0, 65536, 65535)", &[]);
        let volume = decode(&bytes, "z.npy", &options).unwrap().volume;
        assert_eq!(
            (volume.width(), volume.height(), volume.depth()),
            (65535, 65536, 0)
        );
    }

    #[test]
    fn truncated_files_are_errors_not_panics() {
        let data = encode_values("u2", true, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        let npy = npy_bytes(">u2", false, "(2, 1, 3)", &data);
        let whole = decode(&npy, "t.npy", &ReadOptions::default()).unwrap();
        let data_at = npy.len() - data.len();
        for cut in 0..npy.len() {
            let error = decode(&npy[..cut], "t.npy", &ReadOptions::default())
                .expect_err(&format!("cut at {cut}"));
            let text = error.to_string();
            if cut >= data_at {
                assert!(
                    text.contains("data of shape (2, 1, 3) (12 bytes of uint16) ends early"),
                    "{text}"
                );
            } else {
                assert!(text.contains("header ends early"), "{cut}: {text}");
            }
            // Standard input cannot seek: the data ends early as it is read.
            let error = read_volume_stream(
                Cursor::new(&npy[..cut]),
                Path::new("-"),
                &ReadOptions::default(),
            )
            .expect_err(&format!("cut at {cut}"));
            let needle = if cut == 0 {
                "standard input is not"
            } else {
                "ends early"
            };
            assert!(error.to_string().contains(needle), "{cut}: {error}");
        }
        // Bytes after the data are ignored, as numpy ignores them.
        let longer = [&npy[..], b"extra"].concat();
        assert_eq!(
            decode(&longer, "t.npy", &ReadOptions::default()).unwrap(),
            whole
        );
        let stack = tiff_stack(3);
        let whole = decode(&stack, "t.tif", &ReadOptions::default()).unwrap();
        for cut in 0..stack.len() {
            if let Ok(decoded) = decode(&stack[..cut], "t.tif", &ReadOptions::default()) {
                assert_eq!(decoded, whole, "cut at {cut}");
            }
        }
    }

    #[test]
    fn what_is_not_a_volume_is_refused_clearly() {
        let options = ReadOptions::default();
        for (bytes, name, needle) in [
            (
                b"hello".to_vec(),
                "v.dat",
                "not a NumPy .npy array or a TIFF stack",
            ),
            (b"hello".to_vec(), "v.npy", "not a NumPy .npy file"),
            (
                npy_bytes("<u1", false, "(5,)", &[0; 5]),
                "v.npy",
                "shape (5,): a volume is a 3-D array",
            ),
            (npy_bytes("<u1", false, "()", &[0]), "v.npy", "shape ()"),
            (
                npy_bytes("<u1", false, "(1, 1, 1, 1)", &[0]),
                "v.npy",
                "shape (1, 1, 1, 1)",
            ),
            (
                npy_bytes("<c8", false, "(1, 1)", &[0; 8]),
                "v.npy",
                "dtype '<c8'",
            ),
        ] {
            let error = decode(&bytes, name, &options).unwrap_err();
            assert!(matches!(error, Error::Decode { .. }), "{error}");
            assert!(error.to_string().contains(needle), "{needle}: {error}");
        }
        let dir = TempDir::new("volume-missing");
        let error = load_volume(&dir.0.join("missing.npy")).unwrap_err();
        assert!(matches!(error, Error::Io { .. }), "{error}");
        let error = load_volume(&dir.0).unwrap_err();
        assert!(matches!(error, Error::Io { .. }), "{error}");
    }

    #[test]
    fn rules_a_volume_cannot_take_are_refused() {
        let u8s = npy_bytes("|u1", false, "(1, 1, 2)", &[0, 9]);
        let f32s = npy_bytes(
            "<f4",
            false,
            "(1, 2)",
            &encode_values("f4", false, &[0.0, 0.5]),
        );
        let refused = |bytes: &[u8], options: ReadOptions, needle: &str| {
            let error = decode(bytes, "v.npy", &options).unwrap_err();
            assert!(matches!(error, Error::InvalidArgument(_)), "{error}");
            assert!(error.to_string().contains(needle), "{needle}: {error}");
        };
        let page = ReadOptions {
            page: Some(0),
            ..Default::default()
        };
        refused(&u8s, page, "--page 0 reads one page");
        let error = decode(&tiff_stack(2), "s.tif", &page).unwrap_err();
        assert!(
            error.to_string().contains("a volume is every page"),
            "{error}"
        );
        let alpha = ReadOptions {
            binarization: Binarization {
                channel: Channel::Alpha,
                ..Default::default()
            },
            ..Default::default()
        };
        refused(
            &u8s,
            alpha,
            "a .npy array has no alpha channel (it holds uint8 values)",
        );
        refused(
            &f32s,
            with(Threshold::Otsu, false),
            "this .npy holds float32 values",
        );
        refused(
            &u8s,
            with(Threshold::Above(255), false),
            "uint8 values run from 0 to 255",
        );
        let bools = npy_bytes("|b1", false, "(1, 2)", &[0, 1]);
        refused(
            &bools,
            with(Threshold::Above(1), false),
            "bool values run from 0 to 1",
        );
        let i8s = npy_bytes("|i1", false, "(1, 2)", &[0, 1]);
        refused(
            &i8s,
            with(Threshold::Above(127), false),
            "int8 values run from -128 to 127",
        );
        let u32s = npy_bytes("<u4", false, "(1, 1)", &[0; 4]);
        refused(
            &u32s,
            with(Threshold::Above(u32::MAX), false),
            "uint32 values",
        );
        let u64s = npy_bytes("<u8", false, "(1, 1)", &u64::MAX.to_le_bytes());
        let above = decode(&u64s, "v.npy", &with(Threshold::Above(u32::MAX), false)).unwrap();
        assert_eq!(above.volume.voxels(), &[1]);
        // An empty array still refuses what its type cannot take.
        let empty = npy_bytes("|u1", false, "(0, 4, 4)", &[]);
        refused(&empty, with(Threshold::Above(300), false), "uint8 values");
        let empty = decode(&empty, "e.npy", &with(Threshold::Otsu, false)).unwrap();
        assert_eq!((empty.volume.depth(), empty.threshold), (0, Some(0)));
    }

    #[test]
    fn otsu_splits_an_npy_volume_of_two_modes() {
        // Dark background near 20, bright objects near 200, 16-bit.
        let values: Vec<f64> = (0..60)
            .map(|i| {
                if i % 4 == 0 {
                    200.0 + (i % 3) as f64
                } else {
                    20.0 + (i % 5) as f64
                }
            })
            .collect();
        let npy = npy_bytes(
            "<u2",
            false,
            "(3, 4, 5)",
            &encode_values("u2", false, &values),
        );
        let decoded = decode(&npy, "o.npy", &with(Threshold::Otsu, false)).unwrap();
        let t = decoded.threshold.unwrap();
        assert!((24..200).contains(&t), "{t}");
        let expected: Vec<u8> = values.iter().map(|&v| u8::from(v >= 200.0)).collect();
        assert_eq!(decoded.volume.voxels(), expected);
    }

    /// A reader that gives one byte a call: standard input from a slow
    /// pipe.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some((&first, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            match buf.first_mut() {
                Some(b) => {
                    *b = first;
                    self.0 = rest;
                    Ok(1)
                }
                None => Ok(0),
            }
        }
    }

    #[test]
    fn standard_input_holds_any_volume_format() {
        let stdin = Path::new("-");
        let volume = scattered(3, 4, 2);
        let options = ReadOptions::default();
        for format in [VolumeFormat::Npy, VolumeFormat::Tiff] {
            let mut bytes = Cursor::new(Vec::new());
            format.write_volume(&volume, &mut bytes, stdin).unwrap();
            let bytes = bytes.into_inner();
            let read = read_volume_stream(
                BufReader::with_capacity(1, Trickle(&bytes)),
                stdin,
                &options,
            );
            assert_eq!(read.unwrap().volume, volume, "{format:?}");
        }
        let dir = TempDir::new("volume-stdin");
        let image = BinaryImageBuf::from_fn(4, 2, |x, _| x > 1).unwrap();
        save_image(&image, &dir.0.join("i.png")).unwrap();
        let png = std::fs::read(dir.0.join("i.png")).unwrap();
        let read = read_volume_stream(BufReader::with_capacity(1, Trickle(&png)), stdin, &options);
        assert_eq!(read.unwrap().volume.voxels(), image.pixels());
        let error = read_volume_stream(Cursor::new(b"hello"), stdin, &options).unwrap_err();
        assert!(
            error.to_string().contains("standard input is not a NumPy"),
            "{error}"
        );
        let error = read_volume_stream(Cursor::new(b"\x93NUMPY\x01"), stdin, &options).unwrap_err();
        assert!(error.to_string().contains("header ends early"), "{error}");
    }
}
