//! TIFF files read and written a run of rows or pages at a time, for
//! images and volumes larger than memory: a binary TIFF is read plane by
//! plane ([`TiffBytes`]) and a label TIFF written the same way
//! ([`TiffLabelFile`]), from several threads at once, as
//! [`NpyBytes`](crate::NpyBytes) and [`NpyLabelFile`](crate::NpyLabelFile)
//! do for `.npy`.
//!
//! A read decodes only the strips or tiles that hold the rows asked for:
//! uncompressed strips are read in place (positioned reads, no lock),
//! compressed strips that lie wholly inside the request are decoded
//! straight into it, and the strips it cuts, and tiles, are decoded whole
//! and kept in a small cache, so that the next request, which starts in
//! the same strip, does not decode it again.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use ccl_core::{Error, Result};
use tiff::decoder::{ChunkType, Decoder, Limits};
use tiff::tags::Tag;
use tiff::{ColorType, TiffError};

use crate::pages::{self, seek_position};
use crate::stream::{LabelBytes, io_error, read_at, read_exact_at, write_labels_at};
use crate::volume::{MAX_SLICES, decode_error};

/// The most bytes a strip cut by a request, or a tile, may decode to: it is
/// decoded whole into memory of its own (a strip inside the request is
/// decoded into the request's memory, whatever its size). The `tiff`
/// crate's own bound on a decoded buffer.
const MAX_DECODED_CHUNK_BYTES: usize = 256 << 20;

/// Decoded strips and tiles kept for the next requests: enough for a row
/// of 512 × 512 tiles across an image 100,000 pixels wide, so that rows
/// split between two requests are decoded once. The newest is kept
/// whatever its size.
const CHUNK_CACHE_BYTES: usize = 64 << 20;

/// Pages whose strip or tile layout is kept: a volume's workers read a few
/// pages each at a time.
const CACHED_LAYOUTS: usize = 16;

/// What a page of a [`TiffBytes`] holds a pixel in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Depth {
    /// 8-bit gray: a byte a pixel.
    Byte,
    /// 1-bit (bilevel): 8 pixels a byte, the leftmost in the high bit, each
    /// row from a fresh byte.
    Bit,
}

impl Depth {
    /// The bytes of `pixels` pixels of one row.
    fn row_bytes(self, pixels: usize) -> usize {
        match self {
            Depth::Byte => pixels,
            Depth::Bit => pixels.div_ceil(8),
        }
    }
}

/// A TIFF of 8-bit (or 1-bit) gray pages of one size, read a run of planes
/// at a time: nonzero is foreground. One page is an image of shape
/// (height, width), a plane a row; several pages are a volume of shape
/// (pages, height, width), a plane a page, as
/// [`read_volume`](crate::read_volume) reads a TIFF stack. The bytes read
/// are the decoded samples (WhiteIsZero pages inverted, as every reader
/// of ccl inverts them), 0..=255; 1-bit (bilevel) pages are unpacked to a
/// byte of 0 or 255 a pixel, the gray values ccl's in-memory reader gives
/// them, so that a threshold means the same in both.
///
/// Strips and tiles in any compression that the `tiff` crate decodes are
/// read; a request decodes only those that hold its rows. Callable from
/// several threads at once: each takes a decoder of its own (decoders are
/// kept for the next calls), and uncompressed strips are read in place
/// without one.
pub struct TiffBytes {
    path: PathBuf,
    file: Arc<File>,
    length: u64,
    shape: Vec<usize>,
    width: usize,
    height: usize,
    pages: usize,
    /// Decoders not in use; a call opens another when all are taken.
    decoders: Mutex<Vec<PageDecoder>>,
    cache: Mutex<Cache>,
}

impl std::fmt::Debug for TiffBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TiffBytes")
            .field("path", &self.path)
            .field("shape", &self.shape)
            .finish_non_exhaustive()
    }
}

impl TiffBytes {
    /// Opens `path` and reads every page's directory: an error names what
    /// is not such a TIFF (another sample type, and what to convert it to;
    /// pages of different sizes; a corrupt directory).
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(io_error(path))?;
        let metadata = file.metadata().map_err(io_error(path))?;
        if metadata.is_dir() {
            return Err(io_error(path)(io::Error::other("is a directory")));
        }
        let file = Arc::new(file);
        let length = metadata.len();
        let mut input = BufReader::new(FileAt::new(&file));
        let not_read = |e| decode_error(path, describe(TiffError::IoError(e)));
        let chain = pages::chain(&mut input, MAX_SLICES as usize)
            .map_err(not_read)?
            .map_err(|message| decode_error(path, message))?
            .ok_or_else(|| decode_error(path, "not a TIFF file (no TIFF header)".into()))?;
        if chain.more() {
            return Err(decode_error(
                path,
                format!("a TIFF of more than {MAX_SLICES} pages, more than a volume read has"),
            ));
        }
        let pages = chain.count();
        let on_page = |page: usize, message: String| match pages {
            1 => decode_error(path, message),
            _ => decode_error(path, format!("page {page} of {pages}: {message}")),
        };
        // The decoder trips on some entries (pages.rs): each page's are
        // checked before it reads that page's directory.
        let check = |input: &mut BufReader<FileAt>, page: usize| {
            chain
                .header_for(input, page)
                .map_err(not_read)?
                .map_err(|message| on_page(page, message))
                .map(drop)
        };
        check(&mut input, 0)?;
        let mut decoder = PageDecoder::new(&file).map_err(|e| on_page(0, describe(e)))?;
        let mut size = None;
        for page in 0..pages {
            if page > 0 {
                check(&mut input, page)?;
                decoder
                    .decoder
                    .next_image()
                    .map_err(|e| on_page(page, describe(e)))?;
                decoder.page = page;
            }
            let (width, height) = decoder
                .decoder
                .dimensions()
                .map_err(|e| on_page(page, describe(e)))?;
            depth(&mut decoder.decoder).map_err(|message| on_page(page, message))?;
            match size {
                None => size = Some((width, height)),
                Some((first_width, first_height))
                    if (first_width, first_height) != (width, height) =>
                {
                    return Err(decode_error(
                        path,
                        format!(
                            "page {page} is {width}x{height} but page 0 is \
                             {first_width}x{first_height}: the pages of a volume must all be \
                             one size"
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        // The decoder refuses a page without pixels, and there is a page.
        let (width, height) = size.unwrap_or_default();
        let (width, height) = (width as usize, height as usize);
        let shape = match pages {
            1 => vec![height, width],
            _ => vec![pages, height, width],
        };
        Ok(Self {
            path: path.to_path_buf(),
            file,
            length,
            shape,
            width,
            height,
            pages,
            decoders: Mutex::new(vec![decoder]),
            cache: Mutex::new(Cache::default()),
        })
    }

    /// The shape: (height, width) for one page, (pages, height, width) for
    /// several.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Fills `out` with the planes from `first` on (rows of an image, pages
    /// of a volume), packed: `out.len()` is a whole number of planes.
    pub fn read_planes(&self, first: usize, out: &mut [u8]) -> Result<()> {
        let (plane_len, planes) = match self.pages {
            1 => (self.width, self.height),
            _ => (self.width * self.height, self.pages),
        };
        let count = out.len() / plane_len;
        if !out.len().is_multiple_of(plane_len)
            || first.checked_add(count).is_none_or(|end| end > planes)
        {
            return Err(Error::InvalidArgument(format!(
                "{}: {} bytes from plane {first} on are not whole planes of {plane_len} bytes \
                 among its {planes}",
                self.path.display(),
                out.len()
            )));
        }
        if self.pages == 1 {
            return self.read_rows(0, first, out);
        }
        for (page, plane) in (first..).zip(out.chunks_exact_mut(plane_len)) {
            self.read_rows(page, 0, plane)?;
        }
        Ok(())
    }

    /// Fills `out` with whole rows of `page` from `first_row` on.
    fn read_rows(&self, page: usize, first_row: usize, out: &mut [u8]) -> Result<()> {
        let layout = self.layout(page);
        let read = layout.and_then(|layout| match layout.in_place {
            true => self.read_in_place(&layout, first_row, out),
            false => self.decode_rows(page, &layout, first_row, out),
        });
        read.map_err(|message| match self.pages {
            1 => decode_error(&self.path, message),
            pages => decode_error(&self.path, format!("page {page} of {pages}: {message}")),
        })
    }

    /// The strips or tiles of `page`, from the cache or its directory.
    fn layout(&self, page: usize) -> std::result::Result<Arc<PageLayout>, String> {
        if let Some(layout) = lock(&self.cache).layout(page) {
            return Ok(layout);
        }
        let mut decoder = self.take_decoder()?;
        let layout = Arc::new(decoder.layout(page, (self.width, self.height))?);
        self.give_back(decoder);
        lock(&self.cache).keep_layout(page, &layout);
        Ok(layout)
    }

    /// Reads the rows of uncompressed strips where they lie in the file.
    fn read_in_place(
        &self,
        layout: &PageLayout,
        first_row: usize,
        out: &mut [u8],
    ) -> std::result::Result<(), String> {
        let row_bytes = layout.depth.row_bytes(self.width);
        let rows = out.len() / self.width;
        match layout.depth {
            Depth::Byte => {
                self.read_strip_rows(layout, first_row, rows, out)?;
                if layout.inverted {
                    out.iter_mut().for_each(|sample| *sample = !*sample);
                }
            }
            Depth::Bit => {
                let mut packed = vec![0u8; rows * row_bytes];
                self.read_strip_rows(layout, first_row, rows, &mut packed)?;
                if layout.inverted {
                    packed.iter_mut().for_each(|bits| *bits = !*bits);
                }
                for (packed_row, row) in packed
                    .chunks_exact(row_bytes)
                    .zip(out.chunks_exact_mut(self.width))
                {
                    unpack_bits(packed_row, row);
                }
            }
        }
        Ok(())
    }

    /// Reads `rows` rows of uncompressed strips from `first_row` on into
    /// `target` (packed rows as stored), one positioned read for every run
    /// of rows that lie back to back in the file.
    fn read_strip_rows(
        &self,
        layout: &PageLayout,
        first_row: usize,
        rows: usize,
        target: &mut [u8],
    ) -> std::result::Result<(), String> {
        let row_bytes = layout.depth.row_bytes(self.width);
        let strip_rows = layout.chunk_height;
        let end_row = first_row + rows;
        // The run being gathered: where it starts in the file and in
        // `target`, and its bytes.
        let mut run: Option<(u64, usize, usize)> = None;
        let read = |(file_at, target_at, len): (u64, usize, usize), target: &mut [u8]| {
            read_exact_at(&self.file, &mut target[target_at..target_at + len], file_at)
                .map_err(|e| describe(TiffError::IoError(e)))
        };
        for strip in first_row / strip_rows..end_row.div_ceil(strip_rows) {
            let top = strip * strip_rows;
            let (from, to) = (first_row.max(top), end_row.min(top + strip_rows));
            let file_at = layout.offsets[strip]
                .checked_add(((from - top) * row_bytes) as u64)
                .ok_or_else(|| format!("not a valid TIFF file (strip {strip} lies past 2^64)"))?;
            let target_at = (from - first_row) * row_bytes;
            let len = (to - from) * row_bytes;
            run = match run {
                Some((start, at, gathered)) if start + gathered as u64 == file_at => {
                    Some((start, at, gathered + len))
                }
                Some(done) => {
                    read(done, target)?;
                    Some((file_at, target_at, len))
                }
                None => Some((file_at, target_at, len)),
            };
        }
        run.map_or(Ok(()), |done| read(done, target))
    }

    /// Decodes the strips or tiles that hold the rows from `first_row` on
    /// and copies those rows into `out`.
    fn decode_rows(
        &self,
        page: usize,
        layout: &PageLayout,
        first_row: usize,
        out: &mut [u8],
    ) -> std::result::Result<(), String> {
        let mut decoder = None;
        let decoded = self.decode_rows_with(&mut decoder, page, layout, first_row, out);
        // A decoder that failed may be anywhere in its file: it is dropped.
        if let (Some(decoder), Ok(())) = (decoder, &decoded) {
            self.give_back(decoder);
        }
        decoded
    }

    /// [`decode_rows`](Self::decode_rows), taking a decoder into
    /// `decoder` when one is needed.
    fn decode_rows_with(
        &self,
        decoder: &mut Option<PageDecoder>,
        page: usize,
        layout: &PageLayout,
        first_row: usize,
        out: &mut [u8],
    ) -> std::result::Result<(), String> {
        let width = self.width;
        let end_row = first_row + out.len() / width;
        let chunk_rows = layout.chunk_height;
        for chunk_row in first_row / chunk_rows..end_row.div_ceil(chunk_rows) {
            let top = chunk_row * chunk_rows;
            let data_rows = chunk_rows.min(self.height - top);
            let (from, to) = (first_row.max(top), end_row.min(top + data_rows));
            for chunk_column in 0..layout.chunks_across {
                let index = chunk_row * layout.chunks_across + chunk_column;
                let left = chunk_column * layout.chunk_width;
                let data_width = layout.chunk_width.min(width - left);
                let stride = layout.depth.row_bytes(data_width);
                let region = Region {
                    chunk_rows: from - top..to - top,
                    out_row: from - first_row,
                    left,
                    width: data_width,
                    stride,
                };
                let whole = (from, to, data_width) == (top, top + data_rows, width);
                if whole && layout.depth == Depth::Byte {
                    // Its rows are the request's, as they lie in `out`.
                    let target = &mut out[(top - first_row) * width..][..data_rows * width];
                    self.decode_into(decoder, page, layout, index, target)?;
                } else if whole {
                    let mut packed = vec![0u8; stride * data_rows];
                    self.decode_into(decoder, page, layout, index, &mut packed)?;
                    region.copy(&packed, layout.depth, out, width);
                } else {
                    let bytes =
                        self.cached_chunk(decoder, page, layout, index, stride * data_rows)?;
                    region.copy(&bytes, layout.depth, out, width);
                }
            }
        }
        Ok(())
    }

    /// Chunk `index` of `page` decoded whole, from the cache or decoded
    /// (and kept); `bytes` is its decoded size.
    fn cached_chunk(
        &self,
        decoder: &mut Option<PageDecoder>,
        page: usize,
        layout: &PageLayout,
        index: usize,
        bytes: usize,
    ) -> std::result::Result<Arc<Vec<u8>>, String> {
        if let Some(chunk) = lock(&self.cache).chunk(page, index) {
            return Ok(chunk);
        }
        if bytes > MAX_DECODED_CHUNK_BYTES {
            return Err(format!(
                "{} {index} decodes to {bytes} bytes, more than the {} MiB that a strip or tile \
                 read in part may take: save it with smaller strips or tiles (tifffile: \
                 rowsperstrip=, tile=(512, 512)), or uncompressed",
                layout.chunk_name(),
                MAX_DECODED_CHUNK_BYTES >> 20
            ));
        }
        let mut chunk = vec![0u8; bytes];
        self.decode_into(decoder, page, layout, index, &mut chunk)?;
        let chunk = Arc::new(chunk);
        lock(&self.cache).keep_chunk(page, index, &chunk);
        Ok(chunk)
    }

    /// Decodes chunk `index` of `page` into `target`, its decoded size,
    /// once its compressed bytes are known to lie in the file.
    fn decode_into(
        &self,
        decoder: &mut Option<PageDecoder>,
        page: usize,
        layout: &PageLayout,
        index: usize,
        target: &mut [u8],
    ) -> std::result::Result<(), String> {
        let (offset, bytes) = (layout.offsets[index], layout.byte_counts[index]);
        if offset
            .checked_add(bytes)
            .is_none_or(|end| end > self.length)
        {
            return Err(format!(
                "{} {index} declares {bytes} bytes at {offset}, past the end of the file ({} \
                 bytes): a truncated file",
                layout.chunk_name(),
                self.length
            ));
        }
        let decoder = match decoder {
            Some(decoder) => decoder,
            None => decoder.insert(self.take_decoder()?),
        };
        decoder.at(page)?;
        let index = u32::try_from(index).map_err(|_| "more chunks than a TIFF has".to_string())?;
        decoder
            .decoder
            .read_chunk_bytes(index, target)
            .map_err(describe)
    }

    /// A decoder not in use, or a new one.
    fn take_decoder(&self) -> std::result::Result<PageDecoder, String> {
        match lock(&self.decoders).pop() {
            Some(decoder) => Ok(decoder),
            None => PageDecoder::new(&self.file).map_err(describe),
        }
    }

    fn give_back(&self, decoder: PageDecoder) {
        lock(&self.decoders).push(decoder);
    }
}

/// The lock's data, whether or not another thread panicked holding it (the
/// caches and the idle decoders are whole between calls).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where the rows of a decoded chunk go in a request.
struct Region {
    /// The chunk's rows to copy.
    chunk_rows: std::ops::Range<usize>,
    /// The request's row that the first of them goes to.
    out_row: usize,
    /// The chunk's first column in the image.
    left: usize,
    /// Its columns.
    width: usize,
    /// Its bytes a row, as decoded.
    stride: usize,
}

impl Region {
    /// Copies (or unpacks) the rows from `chunk` into `out`, whose rows are
    /// `out_width` pixels.
    fn copy(&self, chunk: &[u8], depth: Depth, out: &mut [u8], out_width: usize) {
        for (i, chunk_row) in self.chunk_rows.clone().enumerate() {
            let source = &chunk[chunk_row * self.stride..][..self.stride];
            let target = &mut out[(self.out_row + i) * out_width + self.left..][..self.width];
            match depth {
                Depth::Byte => target.copy_from_slice(source),
                Depth::Bit => unpack_bits(source, target),
            }
        }
    }
}

/// Unpacks a row of 1-bit pixels (the leftmost in the high bit) into a byte
/// of 0 or 255 each: the bit scaled to 8 bits, as the `image` crate (ccl's
/// in-memory reader) expands 1-bit gray.
fn unpack_bits(packed: &[u8], pixels: &mut [u8]) {
    for (x, pixel) in pixels.iter_mut().enumerate() {
        *pixel = u8::MAX * (packed[x / 8] >> (7 - x % 8) & 1);
    }
}

/// How a page's pixels lie in the file.
#[derive(Debug)]
struct PageLayout {
    depth: Depth,
    /// Whether the chunks are tiles (else strips).
    tiles: bool,
    /// A chunk's width (a strip's: the image's) and height (a strip's: its
    /// rows, at most the image's), in pixels.
    chunk_width: usize,
    chunk_height: usize,
    /// Chunks in a row of chunks (1 for strips).
    chunks_across: usize,
    /// Where each chunk lies in the file, and its bytes as stored.
    offsets: Vec<u64>,
    byte_counts: Vec<u64>,
    /// Uncompressed strips without a predictor: read where they lie.
    in_place: bool,
    /// WhiteIsZero: the samples as stored are inverted (the decoder inverts
    /// them itself).
    inverted: bool,
}

impl PageLayout {
    fn chunk_name(&self) -> &'static str {
        if self.tiles { "tile" } else { "strip" }
    }
}

/// The `tiff` crate's decoder over a shared file, and the page its current
/// directory is.
struct PageDecoder {
    decoder: Decoder<BufReader<FileAt>>,
    page: usize,
}

impl PageDecoder {
    /// A decoder at page 0 of `file`.
    fn new(file: &Arc<File>) -> tiff::TiffResult<Self> {
        let mut limits = Limits::default();
        // A compressed chunk is checked to lie in the file before it is
        // decoded (`decode_into`): one as large as the file may be read.
        limits.intermediate_buffer_size = usize::MAX;
        let decoder = Decoder::new(BufReader::new(FileAt::new(file)))?.with_limits(limits);
        Ok(Self { decoder, page: 0 })
    }

    /// Makes `page` the current directory.
    fn at(&mut self, page: usize) -> std::result::Result<(), String> {
        if self.page != page {
            // Should this fail, the decoder is dropped (`decode_rows`).
            self.decoder.seek_to_image(page).map_err(describe)?;
            self.page = page;
        }
        Ok(())
    }

    /// The layout of `page`, whose pages are `width` × `height`.
    fn layout(
        &mut self,
        page: usize,
        (width, height): (usize, usize),
    ) -> std::result::Result<PageLayout, String> {
        self.at(page)?;
        let decoder = &mut self.decoder;
        // Checked at open; the file may have changed since.
        let depth = depth(decoder)?;
        let dimensions = decoder.dimensions().map_err(describe)?;
        if dimensions != (width as u32, height as u32) {
            return Err(format!(
                "now {}x{}, not the {width}x{height} it was when opened",
                dimensions.0, dimensions.1
            ));
        }
        let tiles = decoder.get_chunk_type() == ChunkType::Tile;
        let (offsets_tag, counts_tag) = match tiles {
            true => (Tag::TileOffsets, Tag::TileByteCounts),
            false => (Tag::StripOffsets, Tag::StripByteCounts),
        };
        let offsets = decoder.get_tag_u64_vec(offsets_tag).map_err(describe)?;
        let byte_counts = decoder.get_tag_u64_vec(counts_tag).map_err(describe)?;
        let (chunk_width, chunk_height) = decoder.chunk_dimensions();
        // The decoder refuses both; a division by either must not be.
        if chunk_width == 0 || chunk_height == 0 {
            return Err("not a valid TIFF file (chunks without pixels)".into());
        }
        // A strip's rows may be declared past the image's (2^32 − 1 for
        // "all of them").
        let (chunk_width, chunk_height) = match tiles {
            true => (chunk_width as usize, chunk_height as usize),
            false => (width, (chunk_height as usize).min(height)),
        };
        let chunks_across = width.div_ceil(chunk_width);
        let chunks = chunks_across * height.div_ceil(chunk_height);
        if offsets.len() != chunks || byte_counts.len() != chunks {
            return Err(format!(
                "not a valid TIFF file ({} offsets and {} byte counts for {chunks} chunks)",
                offsets.len(),
                byte_counts.len()
            ));
        }
        let tag =
            |decoder: &mut Decoder<_>, tag| decoder.find_tag_unsigned::<u16>(tag).map_err(describe);
        // Compression 1 (none) and predictor 1 (none) are the defaults.
        let compression = tag(decoder, Tag::Compression)?.unwrap_or(1);
        let predictor = tag(decoder, Tag::Predictor)?.unwrap_or(1);
        let photometric = tag(decoder, Tag::PhotometricInterpretation)?;
        Ok(PageLayout {
            depth,
            tiles,
            chunk_width,
            chunk_height,
            chunks_across,
            offsets,
            byte_counts,
            in_place: !tiles && compression == 1 && predictor == 1,
            inverted: photometric == Some(0),
        })
    }
}

/// The pixels of the decoder's current page: 8-bit or 1-bit unsigned gray,
/// or a message that says what the page is and what to convert it to.
fn depth<R: Read + Seek>(decoder: &mut Decoder<R>) -> std::result::Result<Depth, String> {
    const CONVERT: &str = "streamed labeling reads 8-bit (or 1-bit) gray pages, nonzero \
                           foreground: convert it first, e.g. tifffile.imwrite(path, (image != 0)";
    let colour = decoder.colortype().map_err(|e| {
        format!("a TIFF colour type that ccl does not read ({e}); {CONVERT}.astype(numpy.uint8))")
    })?;
    let format = decoder
        .find_tag_unsigned_vec::<u16>(Tag::SampleFormat)
        .map_err(describe)?
        .and_then(|formats| formats.first().copied())
        .unwrap_or(1);
    let kind = match format {
        1 => "",
        2 => " signed",
        3 => " floating-point",
        _ => " untyped",
    };
    let (name, bits) = match colour {
        ColorType::Gray(8) if format == 1 => return Ok(Depth::Byte),
        ColorType::Gray(1) if format == 1 => return Ok(Depth::Bit),
        ColorType::Gray(bits) => {
            return Err(format!(
                "{bits}-bit{kind} gray pages; {CONVERT}.astype(numpy.uint8))"
            ));
        }
        ColorType::RGB(bits) => ("RGB", bits),
        ColorType::RGBA(bits) => ("RGBA", bits),
        ColorType::GrayA(bits) => ("gray and alpha", bits),
        ColorType::Palette(bits) => ("palette", bits),
        ColorType::CMYK(bits) => ("CMYK", bits),
        ColorType::CMYKA(bits) => ("CMYK and alpha", bits),
        ColorType::YCbCr(bits) => ("YCbCr", bits),
        ColorType::Multiband { bit_depth, .. } => ("several-sample", bit_depth),
        _ => ("non-gray", 0),
    };
    Err(format!(
        "{name} pages of {bits}-bit{kind} samples; {CONVERT}.any(axis=-1).astype(numpy.uint8))"
    ))
}

/// What the `tiff` crate's error means, in one line.
fn describe(error: TiffError) -> String {
    match error {
        TiffError::IoError(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            "the TIFF data ends early (a truncated file)".into()
        }
        TiffError::IoError(e) => format!("cannot read it: {e}"),
        TiffError::FormatError(e) => format!("not a valid TIFF file ({e})"),
        TiffError::UsageError(e) => format!("not a valid TIFF file ({e})"),
        TiffError::IntSizeError => "not a valid TIFF file (a size past this machine's)".into(),
        TiffError::UnsupportedError(e) => format!("a TIFF variant that is not supported ({e})"),
        TiffError::LimitsExceeded => "too large to decode".into(),
    }
}

/// The decoded layouts and chunks kept for the next calls, newest last.
#[derive(Default)]
struct Cache {
    layouts: VecDeque<(usize, Arc<PageLayout>)>,
    chunks: VecDeque<((usize, usize), Arc<Vec<u8>>)>,
    chunk_bytes: usize,
}

impl Cache {
    fn layout(&self, page: usize) -> Option<Arc<PageLayout>> {
        self.layouts
            .iter()
            .find(|(p, _)| *p == page)
            .map(|(_, layout)| layout.clone())
    }

    fn keep_layout(&mut self, page: usize, layout: &Arc<PageLayout>) {
        if self.layout(page).is_none() {
            if self.layouts.len() == CACHED_LAYOUTS {
                self.layouts.pop_front();
            }
            self.layouts.push_back((page, layout.clone()));
        }
    }

    fn chunk(&self, page: usize, index: usize) -> Option<Arc<Vec<u8>>> {
        self.chunks
            .iter()
            .find(|(key, _)| *key == (page, index))
            .map(|(_, chunk)| chunk.clone())
    }

    fn keep_chunk(&mut self, page: usize, index: usize, chunk: &Arc<Vec<u8>>) {
        // Another thread may have decoded it too.
        if self.chunk(page, index).is_some() {
            return;
        }
        self.chunks.push_back(((page, index), chunk.clone()));
        self.chunk_bytes += chunk.len();
        while self.chunk_bytes > CHUNK_CACHE_BYTES && self.chunks.len() > 1 {
            if let Some((_, oldest)) = self.chunks.pop_front() {
                self.chunk_bytes -= oldest.len();
            }
        }
    }
}

/// A reader of a shared file by positioned reads, each at its own
/// position: several decoders read one file handle.
struct FileAt {
    file: Arc<File>,
    position: u64,
}

impl FileAt {
    fn new(file: &Arc<File>) -> Self {
        Self {
            file: file.clone(),
            position: 0,
        }
    }
}

impl Read for FileAt {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = read_at(&self.file, buf, self.position)?;
        self.position += n as u64;
        Ok(n)
    }
}

impl Seek for FileAt {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let file = &self.file;
        self.position = seek_position(self.position, to, || Ok(file.metadata()?.len()))?;
        Ok(self.position)
    }
}

/// Bytes of labels a strip of a [`TiffLabelFile`] holds at most (whole
/// rows, one at least): readers that decode a strip at a time (the `tiff`
/// crate, libtiff) hold one in memory.
const LABEL_STRIP_BYTES: u64 = 4 << 20;

/// The entries of a label page's directory.
const LABEL_ENTRIES: u64 = 11;

/// A TIFF of `uint32` or `uint64` labels of a given shape, written at any
/// offset: created at its full length, then filled by
/// [`write_at`](Self::write_at) in any order.
///
/// One page for an image, one a slice for a volume; each page uncompressed
/// little-endian unsigned gray (BitsPerSample 32 or 64, SampleFormat 1) in
/// strips of whole rows of at most 4 MiB. Every directory comes first,
/// then the pages' samples back to back, so that label `e` (in C order) is
/// at a fixed offset plus `e` times its size. A classic TIFF while the file
/// stays under 4 GiB, a BigTIFF past that.
#[derive(Debug)]
pub struct TiffLabelFile {
    path: PathBuf,
    file: File,
    data_start: u64,
    label_bytes: usize,
    label_count: u64,
}

impl TiffLabelFile {
    /// Creates `path` for labels of `shape` ((height, width) or (depth,
    /// height, width)), `uint64` where `wide`, else `uint32`; they read as
    /// zeros until written.
    ///
    /// # Errors
    /// [`Error::InvalidDimensions`] for another number of dimensions, a
    /// shape without pixels (a TIFF has no empty pages) or a side past
    /// 2^32 − 1; [`Error::Io`] when the file cannot be written.
    pub fn create(path: &Path, shape: &[usize], wide: bool) -> Result<Self> {
        Self::create_with(path, shape, wide, LABEL_STRIP_BYTES, false)
    }

    /// [`create`](Self::create) with strips of at most `strip_bytes` (whole
    /// rows, one at least), and a BigTIFF whatever the size where
    /// `force_big`: the tests' way to the layouts of large files.
    pub(crate) fn create_with(
        path: &Path,
        shape: &[usize],
        wide: bool,
        strip_bytes: u64,
        force_big: bool,
    ) -> Result<Self> {
        let label_bytes = if wide { 8 } else { 4 };
        let layout = LabelLayout::new(shape, label_bytes, strip_bytes, force_big)?;
        let file = File::create(path).map_err(io_error(path))?;
        {
            let mut out = BufWriter::new(&file);
            layout.write_directories(&mut out).map_err(io_error(path))?;
            out.flush().map_err(io_error(path))?;
        }
        file.set_len(layout.end).map_err(io_error(path))?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
            data_start: layout.data_start,
            label_bytes: label_bytes as usize,
            label_count: layout.pages * layout.page_bytes / label_bytes,
        })
    }

    /// Writes `labels` from label `element` on (in C order); `T` is `u32`
    /// or `u64`, as created.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for labels of the other width or past the
    /// end; [`Error::Io`] when they cannot be written.
    pub fn write_at<T: LabelBytes>(&self, element: u64, labels: &[T]) -> Result<()> {
        if size_of::<T>() != self.label_bytes {
            return Err(Error::InvalidArgument(format!(
                "{}: a TIFF of {}-bit labels given {}-bit ones",
                self.path.display(),
                self.label_bytes * 8,
                size_of::<T>() * 8
            )));
        }
        if element
            .checked_add(labels.len() as u64)
            .is_none_or(|end| end > self.label_count)
        {
            return Err(Error::InvalidArgument(format!(
                "{}: labels {element}..+{} lie past the end of its {}",
                self.path.display(),
                labels.len(),
                self.label_count
            )));
        }
        let offset = self.data_start + element * self.label_bytes as u64;
        write_labels_at(&self.file, labels, offset).map_err(io_error(&self.path))
    }
}

/// Where everything of a [`TiffLabelFile`] lies.
#[derive(Debug)]
struct LabelLayout {
    big: bool,
    width: u32,
    height: u32,
    pages: u64,
    label_bytes: u64,
    rows_per_strip: u32,
    strips: u64,
    /// Bytes of one page's directory, its strip arrays included.
    directory_bytes: u64,
    /// Where a directory's strip arrays start in it (when they do not fit
    /// in their entries).
    arrays_in_directory: u64,
    page_bytes: u64,
    data_start: u64,
    end: u64,
}

impl LabelLayout {
    fn new(shape: &[usize], label_bytes: u64, strip_bytes: u64, force_big: bool) -> Result<Self> {
        let (pages, height, width) = match *shape {
            [height, width] => (1, height, width),
            [depth, height, width] => (depth, height, width),
            _ => {
                return Err(Error::InvalidDimensions(format!(
                    "labels of shape {shape:?}: an image has 2 dimensions, a volume 3"
                )));
            }
        };
        if pages == 0 || height == 0 || width == 0 {
            return Err(Error::InvalidDimensions(format!(
                "labels of shape {shape:?} have no pixels, and a TIFF no empty pages: write .npy"
            )));
        }
        let side = |n: usize| {
            u32::try_from(n).map_err(|_| {
                Error::InvalidDimensions(format!(
                    "a side of {n} pixels, past a TIFF's 2^32 - 1: write .npy"
                ))
            })
        };
        let (width, height, pages) = (side(width)?, side(height)?, pages as u64);
        let overflow = || Error::InvalidDimensions(format!("labels of shape {shape:?} overflow"));
        let row_bytes = u64::from(width) * label_bytes;
        let rows_per_strip = (strip_bytes / row_bytes).clamp(1, u64::from(height)) as u32;
        let strips = u64::from(height).div_ceil(u64::from(rows_per_strip));
        let page_bytes = row_bytes * u64::from(height);
        let data_bytes = pages.checked_mul(page_bytes).ok_or_else(overflow)?;
        let with = |big: bool| {
            let (header, count, entry, next, array_width) = if big {
                (16, 8, 20, 8, 8)
            } else {
                (8, 2, 12, 4, 4)
            };
            // A single strip's offset and byte count fit in their entries;
            // more lie after the directory, offsets then counts.
            let arrays = if strips == 1 {
                0
            } else {
                2 * strips * array_width
            };
            let arrays_in_directory = count + LABEL_ENTRIES * entry + next;
            let directory_bytes = arrays_in_directory + arrays;
            let directories = pages.checked_mul(directory_bytes)?;
            // Samples aligned for readers that map the file.
            let data_start = (header + directories).checked_next_multiple_of(16)?;
            let end = data_start.checked_add(data_bytes)?;
            Some(Self {
                big,
                width,
                height,
                pages,
                label_bytes,
                rows_per_strip,
                strips,
                directory_bytes,
                arrays_in_directory,
                page_bytes,
                data_start,
                end,
            })
        };
        let classic = with(false).ok_or_else(overflow)?;
        if !force_big && classic.end <= u64::from(u32::MAX) {
            Ok(classic)
        } else {
            with(true).ok_or_else(overflow)
        }
    }

    /// The header's bytes: byte order, version, the first directory's
    /// offset.
    fn header(&self) -> Vec<u8> {
        let first = self.directory_at(0);
        match self.big {
            true => [&b"II+\0\x08\0\0\0"[..], &first.to_le_bytes()].concat(),
            false => [&b"II*\0"[..], &(first as u32).to_le_bytes()].concat(),
        }
    }

    fn directory_at(&self, page: u64) -> u64 {
        let header = if self.big { 16 } else { 8 };
        header + page * self.directory_bytes
    }

    /// Writes the header and every page's directory.
    fn write_directories(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.header())?;
        let mut directory = Vec::with_capacity(self.directory_bytes as usize);
        for page in 0..self.pages {
            directory.clear();
            self.directory(page, &mut directory);
            out.write_all(&directory)?;
        }
        Ok(())
    }

    /// Page `page`'s directory: its entries in ascending tag order, the next
    /// directory's offset, then its strips' offsets and byte counts (when
    /// they do not fit in their entries).
    fn directory(&self, page: u64, out: &mut Vec<u8>) {
        const SHORT: u16 = 3;
        const LONG: u16 = 4;
        const LONG8: u16 = 16;
        let big = self.big;
        // Offsets and byte counts: LONG in a classic TIFF, LONG8 in a
        // BigTIFF.
        let (array_type, array_width) = if big { (LONG8, 8) } else { (LONG, 4) };
        let push_uint = |out: &mut Vec<u8>, value: u64, width: usize| {
            out.extend_from_slice(&value.to_le_bytes()[..width]);
        };
        let value_width = if big { 8 } else { 4 };
        let single = self.strips == 1;
        let arrays_at = self.directory_at(page) + self.arrays_in_directory;
        let page_start = self.data_start + page * self.page_bytes;
        let row_bytes = u64::from(self.width) * self.label_bytes;
        let strip_offset =
            |strip: u64| page_start + strip * u64::from(self.rows_per_strip) * row_bytes;
        let strip_bytes = |strip: u64| {
            let first_row = strip * u64::from(self.rows_per_strip);
            let rows = u64::from(self.rows_per_strip).min(u64::from(self.height) - first_row);
            rows * row_bytes
        };
        // (tag, type, count, value or offset of the values)
        let entries: [(u16, u16, u64, u64); LABEL_ENTRIES as usize] = [
            (256, LONG, 1, u64::from(self.width)),
            (257, LONG, 1, u64::from(self.height)),
            (258, SHORT, 1, self.label_bytes * 8),
            // Compression: none.
            (259, SHORT, 1, 1),
            // PhotometricInterpretation: BlackIsZero.
            (262, SHORT, 1, 1),
            (
                273,
                array_type,
                self.strips,
                if single { strip_offset(0) } else { arrays_at },
            ),
            // SamplesPerPixel.
            (277, SHORT, 1, 1),
            (278, LONG, 1, u64::from(self.rows_per_strip)),
            (
                279,
                array_type,
                self.strips,
                if single {
                    strip_bytes(0)
                } else {
                    arrays_at + self.strips * array_width as u64
                },
            ),
            // PlanarConfiguration: chunky.
            (284, SHORT, 1, 1),
            // SampleFormat: unsigned integer.
            (339, SHORT, 1, 1),
        ];
        push_uint(out, LABEL_ENTRIES, if big { 8 } else { 2 });
        for (tag, kind, count, value) in entries {
            out.extend_from_slice(&tag.to_le_bytes());
            out.extend_from_slice(&kind.to_le_bytes());
            push_uint(out, count, value_width);
            // A value that fits lies in the field's first bytes, the rest
            // zero.
            let width = match kind {
                SHORT => 2,
                LONG => 4,
                _ => 8,
            };
            let mut field = [0u8; 8];
            field[..width].copy_from_slice(&value.to_le_bytes()[..width]);
            out.extend_from_slice(&field[..value_width]);
        }
        let next = if page + 1 == self.pages {
            0
        } else {
            self.directory_at(page + 1)
        };
        push_uint(out, next, value_width);
        if !single {
            for strip in 0..self.strips {
                push_uint(out, strip_offset(strip), array_width);
            }
            for strip in 0..self.strips {
                push_uint(out, strip_bytes(strip), array_width);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::TempDir;
    use tiff::decoder::DecodingResult;
    use tiff::encoder::colortype::{Gray8, Gray16, RGB8};
    use tiff::encoder::{Compression, DeflateLevel, Predictor, TiffEncoder};

    /// Bytes of every value, zeros among them: `seed` picks which.
    fn samples(len: usize, seed: usize) -> Vec<u8> {
        (0..len)
            .map(|i| match (i * 7 + seed) % 5 {
                0 | 1 => 0,
                _ => ((i * 37 + seed * 11) % 255 + 1) as u8,
            })
            .collect()
    }

    /// A TIFF of 8-bit pages of `width` × `height` holding `pixels`, in
    /// `compression`, `rows_per_strip` rows a strip.
    fn gray_tiff(
        (width, height): (u32, u32),
        pixels: &[u8],
        compression: Compression,
        predictor: Predictor,
        rows_per_strip: u32,
    ) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut encoder = TiffEncoder::new(&mut out)
            .unwrap()
            .with_compression(compression)
            .with_predictor(predictor);
        for page in pixels.chunks((width * height) as usize) {
            let mut image = encoder.new_image::<Gray8>(width, height).unwrap();
            image.rows_per_strip(rows_per_strip).unwrap();
            image.write_data(page).unwrap();
        }
        out.into_inner()
    }

    /// A tiled TIFF, uncompressed, of 1-bit pixels where `bilevel` (then
    /// `pixels` holds 0 or 1), else of 8-bit; `photometric` 0 for
    /// WhiteIsZero.
    fn tiled_tiff(
        (width, height): (u32, u32),
        tile: (u32, u32),
        pixels: &[u8],
        bilevel: bool,
        photometric: u16,
    ) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut encoder = TiffEncoder::new(&mut out).unwrap();
        let mut directory = encoder.image_directory().unwrap();
        let (across, down) = (width.div_ceil(tile.0), height.div_ceil(tile.1));
        let row_bytes = if bilevel { tile.0.div_ceil(8) } else { tile.0 } as usize;
        let (mut offsets, mut counts) = (Vec::new(), Vec::new());
        for ty in 0..down {
            for tx in 0..across {
                let mut bytes = vec![0u8; row_bytes * tile.1 as usize];
                for y in 0..tile.1 {
                    for x in 0..tile.0 {
                        let (ix, iy) = (tx * tile.0 + x, ty * tile.1 + y);
                        if ix >= width || iy >= height {
                            continue;
                        }
                        let value = pixels[(iy * width + ix) as usize];
                        let row = &mut bytes[y as usize * row_bytes..][..row_bytes];
                        if bilevel {
                            row[x as usize / 8] |= value << (7 - x % 8);
                        } else {
                            row[x as usize] = value;
                        }
                    }
                }
                offsets.push(directory.write_data(&bytes[..]).unwrap() as u32);
                counts.push(bytes.len() as u32);
            }
        }
        directory.write_tag(Tag::ImageWidth, width).unwrap();
        directory.write_tag(Tag::ImageLength, height).unwrap();
        let bits: u16 = if bilevel { 1 } else { 8 };
        directory.write_tag(Tag::BitsPerSample, bits).unwrap();
        directory.write_tag(Tag::Compression, 1u16).unwrap();
        directory
            .write_tag(Tag::PhotometricInterpretation, photometric)
            .unwrap();
        directory.write_tag(Tag::SamplesPerPixel, 1u16).unwrap();
        directory.write_tag(Tag::TileWidth, tile.0).unwrap();
        directory.write_tag(Tag::TileLength, tile.1).unwrap();
        directory.write_tag(Tag::TileOffsets, &offsets[..]).unwrap();
        directory
            .write_tag(Tag::TileByteCounts, &counts[..])
            .unwrap();
        directory.finish().unwrap();
        out.into_inner()
    }

    /// A 1-bit TIFF in uncompressed strips of `rows_per_strip` rows.
    fn bilevel_strips(
        (width, height): (u32, u32),
        pixels: &[u8],
        rows_per_strip: u32,
        photometric: u16,
    ) -> Vec<u8> {
        let row_bytes = width.div_ceil(8) as usize;
        let mut out = std::io::Cursor::new(Vec::new());
        let mut encoder = TiffEncoder::new(&mut out).unwrap();
        let mut directory = encoder.image_directory().unwrap();
        let (mut offsets, mut counts) = (Vec::new(), Vec::new());
        for rows in pixels.chunks((width * rows_per_strip) as usize) {
            let mut bytes = vec![0u8; rows.len() / width as usize * row_bytes];
            for (y, row) in rows.chunks(width as usize).enumerate() {
                for (x, &value) in row.iter().enumerate() {
                    bytes[y * row_bytes + x / 8] |= value << (7 - x % 8);
                }
            }
            offsets.push(directory.write_data(&bytes[..]).unwrap() as u32);
            counts.push(bytes.len() as u32);
        }
        directory.write_tag(Tag::ImageWidth, width).unwrap();
        directory.write_tag(Tag::ImageLength, height).unwrap();
        directory.write_tag(Tag::BitsPerSample, 1u16).unwrap();
        directory.write_tag(Tag::Compression, 1u16).unwrap();
        directory
            .write_tag(Tag::PhotometricInterpretation, photometric)
            .unwrap();
        directory
            .write_tag(Tag::StripOffsets, &offsets[..])
            .unwrap();
        directory.write_tag(Tag::SamplesPerPixel, 1u16).unwrap();
        directory
            .write_tag(Tag::RowsPerStrip, rows_per_strip)
            .unwrap();
        directory
            .write_tag(Tag::StripByteCounts, &counts[..])
            .unwrap();
        directory.finish().unwrap();
        out.into_inner()
    }

    /// Reads `rows` (a range of planes) and checks them against `expected`
    /// (the whole image or volume, packed).
    fn check_planes(
        bytes: &TiffBytes,
        planes: std::ops::Range<usize>,
        expected: &[u8],
        case: &str,
    ) {
        let plane_len: usize = bytes.shape()[1..].iter().product();
        let mut out = vec![0xAAu8; planes.len() * plane_len];
        bytes.read_planes(planes.start, &mut out).unwrap();
        assert!(
            out == expected[planes.start * plane_len..planes.end * plane_len],
            "{case}: planes {planes:?}"
        );
    }

    /// Runs of rows that split strips, and the whole image, from 2 threads
    /// at once (each its own runs, in its own order).
    fn check_runs(bytes: &TiffBytes, expected: &[u8], case: &str) {
        let planes = bytes.shape()[0];
        let cuts = [0, 1, 3, 4, 10, 11, 12, 25, planes.min(40), planes];
        let runs: Vec<_> = cuts
            .windows(2)
            .filter(|w| w[0] < w[1] && w[1] <= planes)
            .map(|w| w[0]..w[1])
            .collect();
        std::thread::scope(|scope| {
            for thread in 0..2 {
                let runs = runs.clone();
                scope.spawn(move || {
                    for round in 0..3 {
                        for i in 0..runs.len() {
                            let run = runs[(i * (thread + 2) + round) % runs.len()].clone();
                            check_planes(bytes, run, expected, case);
                        }
                    }
                });
            }
        });
        check_planes(bytes, 0..planes, expected, case);
    }

    #[test]
    fn strips_of_every_compression_read_at_any_rows() {
        let dir = TempDir::new("tiff-stream-strips");
        let (width, height) = (37u32, 53u32);
        let pixels = samples((width * height) as usize, 1);
        let compressions = [
            (Compression::Uncompressed, Predictor::None, "uncompressed"),
            (Compression::Lzw, Predictor::None, "LZW"),
            (Compression::Lzw, Predictor::Horizontal, "LZW + predictor"),
            (
                Compression::Deflate(DeflateLevel::Fast),
                Predictor::None,
                "Deflate",
            ),
            (Compression::Packbits, Predictor::None, "PackBits"),
        ];
        for (compression, predictor, name) in compressions {
            for rows_per_strip in [1, 5, 53, 1000] {
                let path = dir.0.join("strips.tif");
                let tiff = gray_tiff(
                    (width, height),
                    &pixels,
                    compression,
                    predictor,
                    rows_per_strip,
                );
                std::fs::write(&path, tiff).unwrap();
                let bytes = TiffBytes::open(&path).unwrap();
                assert_eq!(bytes.shape(), [53, 37]);
                check_runs(
                    &bytes,
                    &pixels,
                    &format!("{name}, {rows_per_strip} rows a strip"),
                );
            }
        }
    }

    #[test]
    fn a_strip_split_between_requests_is_decoded_once() {
        let dir = TempDir::new("tiff-stream-cache");
        let path = dir.0.join("split.tif");
        let pixels = samples(20 * 10, 7);
        let tiff = gray_tiff((20, 10), &pixels, Compression::Lzw, Predictor::None, 5);
        std::fs::write(&path, tiff).unwrap();
        let bytes = TiffBytes::open(&path).unwrap();
        check_planes(&bytes, 0..3, &pixels, "rows 0..3");
        let decoded = lock(&bytes.cache).chunk(0, 0).unwrap();
        check_planes(&bytes, 3..5, &pixels, "rows 3..5");
        assert!(Arc::ptr_eq(
            &decoded,
            &lock(&bytes.cache).chunk(0, 0).unwrap()
        ));
        // A strip that the request holds whole is decoded into it.
        check_planes(&bytes, 5..10, &pixels, "rows 5..10");
        assert!(lock(&bytes.cache).chunk(0, 1).is_none());
    }

    #[test]
    fn volumes_read_page_by_page_and_several_at_once() {
        let dir = TempDir::new("tiff-stream-volume");
        let (width, height, depth) = (19u32, 7u32, 45usize);
        let pixels = samples((width * height) as usize * depth, 2);
        for (compression, name) in [
            (Compression::Uncompressed, "uncompressed"),
            (Compression::Lzw, "LZW"),
        ] {
            let path = dir.0.join("volume.tif");
            let tiff = gray_tiff((width, height), &pixels, compression, Predictor::None, 3);
            std::fs::write(&path, tiff).unwrap();
            let bytes = TiffBytes::open(&path).unwrap();
            assert_eq!(bytes.shape(), [45, 7, 19]);
            check_runs(&bytes, &pixels, name);
            // As ccl's in-memory reader reads it.
            let volume = crate::load_volume(&path).unwrap();
            let foreground: Vec<u8> = pixels.iter().map(|&p| u8::from(p != 0)).collect();
            assert_eq!(volume.voxels(), foreground, "{name}");
        }
    }

    #[test]
    fn tiles_and_bilevel_pages_read_as_the_in_memory_reader_reads_them() {
        let dir = TempDir::new("tiff-stream-tiles");
        let (width, height) = (45u32, 38u32);
        let gray = samples((width * height) as usize, 3);
        let bits: Vec<u8> = gray.iter().map(|&p| u8::from(p % 3 == 0)).collect();
        let cases = [
            (
                "gray tiles",
                tiled_tiff((width, height), (16, 16), &gray, false, 1),
                gray.clone(),
            ),
            (
                "bilevel tiles",
                tiled_tiff((width, height), (16, 16), &bits, true, 1),
                bits.iter().map(|&b| b * 255).collect(),
            ),
            (
                "bilevel WhiteIsZero tiles",
                tiled_tiff((width, height), (32, 16), &bits, true, 0),
                bits.iter().map(|&b| (1 - b) * 255).collect(),
            ),
            (
                "bilevel strips",
                bilevel_strips((width, height), &bits, 3, 1),
                bits.iter().map(|&b| b * 255).collect(),
            ),
            (
                "bilevel WhiteIsZero strips",
                bilevel_strips((width, height), &bits, 38, 0),
                bits.iter().map(|&b| (1 - b) * 255).collect(),
            ),
        ];
        for (name, tiff, expected) in cases {
            let path = dir.0.join("tiles.tif");
            std::fs::write(&path, tiff).unwrap();
            let bytes = TiffBytes::open(&path).unwrap();
            assert_eq!(bytes.shape(), [38, 45], "{name}");
            check_runs(&bytes, &expected, name);
            let image = crate::load_image(&path).unwrap();
            let foreground: Vec<u8> = expected.iter().map(|&p| u8::from(p != 0)).collect();
            assert_eq!(image.pixels(), foreground, "{name}");
            // The gray values the in-memory reader thresholds: 1-bit pages
            // expanded to 0 / 255, so that a threshold means the same.
            let gray = image::open(&path).unwrap().into_luma8().into_raw();
            assert!(gray == expected, "{name}: not the in-memory gray values");
        }
        // A WhiteIsZero 8-bit page reads inverted, as the decoder gives it.
        let mut tiff = gray_tiff(
            (width, height),
            &gray,
            Compression::Uncompressed,
            Predictor::None,
            4,
        );
        let entry = crate::tests::tiff_entry(&tiff, 262);
        tiff[entry + 8] = 0;
        let path = dir.0.join("white.tif");
        std::fs::write(&path, tiff).unwrap();
        let inverted: Vec<u8> = gray.iter().map(|&p| !p).collect();
        check_runs(
            &TiffBytes::open(&path).unwrap(),
            &inverted,
            "WhiteIsZero strips",
        );
    }

    #[test]
    fn other_tiffs_are_refused_with_what_to_do() {
        let dir = TempDir::new("tiff-stream-refused");
        let path = dir.0.join("bad.tif");
        let error = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            TiffBytes::open(&path).unwrap_err().to_string()
        };
        let mut out = std::io::Cursor::new(Vec::new());
        TiffEncoder::new(&mut out)
            .unwrap()
            .write_image::<Gray16>(4, 3, &[7u16; 12])
            .unwrap();
        let message = error(&out.into_inner());
        assert!(
            message.contains("16-bit gray") && message.contains("uint8"),
            "{message}"
        );
        let mut out = std::io::Cursor::new(Vec::new());
        TiffEncoder::new(&mut out)
            .unwrap()
            .write_image::<RGB8>(4, 3, &[7u8; 36])
            .unwrap();
        let message = error(&out.into_inner());
        assert!(
            message.contains("RGB pages") && message.contains("any(axis=-1)"),
            "{message}"
        );
        // Pages of two sizes.
        let mut out = std::io::Cursor::new(Vec::new());
        let mut encoder = TiffEncoder::new(&mut out).unwrap();
        encoder.write_image::<Gray8>(4, 3, &[1u8; 12]).unwrap();
        encoder.write_image::<Gray8>(3, 4, &[1u8; 12]).unwrap();
        let message = error(&out.into_inner());
        assert!(
            message.contains("page 1 is 3x4 but page 0 is 4x3"),
            "{message}"
        );
        assert!(error(b"not a tiff at all").contains("not a TIFF file"));
        // Labels are not masks.
        let labels = dir.0.join("labels.tif");
        TiffLabelFile::create(&labels, &[2, 3], false).unwrap();
        let message = TiffBytes::open(&labels).unwrap_err().to_string();
        assert!(message.contains("32-bit gray"), "{message}");
        // A file cut short: in its directory, or in its strips (found when
        // they are read).
        for compression in [Compression::Uncompressed, Compression::Lzw] {
            let pixels = samples(40 * 30, 4);
            let whole = gray_tiff((40, 30), &pixels, compression, Predictor::None, 4);
            for cut in [whole.len() / 2, whole.len() - 1, 100, 9] {
                std::fs::write(&path, &whole[..cut]).unwrap();
                let read = TiffBytes::open(&path).and_then(|bytes| {
                    let mut out = vec![0u8; 40 * 30];
                    bytes.read_planes(0, &mut out)
                });
                let message = read.unwrap_err().to_string();
                assert!(!message.contains('\n'), "{message}");
            }
        }
        // Planes past the end, or not whole.
        let pixels = samples(12, 5);
        std::fs::write(
            &path,
            gray_tiff((4, 3), &pixels, Compression::Lzw, Predictor::None, 2),
        )
        .unwrap();
        let bytes = TiffBytes::open(&path).unwrap();
        assert!(bytes.read_planes(2, &mut [0u8; 8]).is_err());
        assert!(bytes.read_planes(0, &mut [0u8; 6]).is_err());
        assert!(bytes.read_planes(usize::MAX, &mut [0u8; 4]).is_err());
    }

    /// The pages of a label TIFF as the `tiff` crate decodes them: each
    /// page's size, and every label.
    fn decode_labels(path: &Path) -> (Vec<(u32, u32)>, Vec<u64>) {
        let mut decoder = Decoder::new(File::open(path).unwrap()).unwrap();
        let (mut sizes, mut labels) = (Vec::new(), Vec::new());
        loop {
            sizes.push(decoder.dimensions().unwrap());
            match decoder.read_image().unwrap() {
                DecodingResult::U32(page) => labels.extend(page.into_iter().map(u64::from)),
                DecodingResult::U64(page) => labels.extend(page),
                _ => panic!("not unsigned 32- or 64-bit labels"),
            }
            if !decoder.more_images() {
                return (sizes, labels);
            }
            decoder.next_image().unwrap();
        }
    }

    /// The tags of the first directory of a little-endian TIFF, in order.
    fn first_tags(bytes: &[u8]) -> Vec<u16> {
        let word = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        if word(2) == 43 {
            let ifd = u64::from_le_bytes(bytes[8..16].try_into().unwrap()) as usize;
            let count = u64::from_le_bytes(bytes[ifd..ifd + 8].try_into().unwrap()) as usize;
            (0..count).map(|i| word(ifd + 8 + 20 * i)).collect()
        } else {
            let ifd = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
            (0..word(ifd) as usize)
                .map(|i| word(ifd + 2 + 12 * i))
                .collect()
        }
    }

    #[test]
    fn label_files_written_out_of_order_decode_as_written() {
        let dir = TempDir::new("tiff-stream-labels");
        let path = dir.0.join("labels.tif");
        for shape in [&[5usize, 7][..], &[3, 5, 7], &[1, 1]] {
            let count: usize = shape.iter().product();
            let values: Vec<u64> = (0..count as u64)
                .map(|i| i * 2654435761 % 1000 + 1)
                .collect();
            // Strips of 2 rows, of one row, and one strip a page.
            for strip_bytes in [2 * 7 * 8, 1, LABEL_STRIP_BYTES] {
                for (wide, big) in [(false, false), (true, false), (false, true), (true, true)] {
                    let case = format!("{shape:?} wide {wide} big {big} strips of {strip_bytes}");
                    let file =
                        TiffLabelFile::create_with(&path, shape, wide, strip_bytes, big).unwrap();
                    // Out of order, in runs that cut rows and pages.
                    let runs = [(count / 2, count), (0, 1), (1, count / 2)];
                    for (from, to) in runs.into_iter().filter(|(from, to)| from < to) {
                        if wide {
                            file.write_at(from as u64, &values[from..to]).unwrap();
                        } else {
                            let narrow: Vec<u32> =
                                values[from..to].iter().map(|&v| v as u32).collect();
                            file.write_at(from as u64, &narrow).unwrap();
                        }
                    }
                    drop(file);
                    let (sizes, labels) = decode_labels(&path);
                    let (width, height) =
                        (shape[shape.len() - 1] as u32, shape[shape.len() - 2] as u32);
                    let pages = if shape.len() == 3 { shape[0] } else { 1 };
                    assert_eq!(sizes, vec![(width, height); pages], "{case}");
                    assert_eq!(labels, values, "{case}");
                    let bytes = std::fs::read(&path).unwrap();
                    assert_eq!(&bytes[..4], if big { b"II+\0" } else { b"II*\0" }, "{case}");
                    assert_eq!(
                        first_tags(&bytes),
                        [256, 257, 258, 259, 262, 273, 277, 278, 279, 284, 339],
                        "{case}"
                    );
                }
            }
        }
        // From 2 threads at once, a page each.
        let file = TiffLabelFile::create_with(&path, &[2, 40, 30], false, 1000, false).unwrap();
        std::thread::scope(|scope| {
            for page in 0..2u32 {
                let file = &file;
                scope.spawn(move || {
                    for row in (0..40u64).rev() {
                        let labels = vec![page * 100 + row as u32; 30];
                        file.write_at((u64::from(page) * 40 + row) * 30, &labels)
                            .unwrap();
                    }
                });
            }
        });
        drop(file);
        let (_, labels) = decode_labels(&path);
        assert!(
            labels
                .iter()
                .enumerate()
                .all(|(i, &l)| l == (i as u64 / 1200) * 100 + i as u64 % 1200 / 30)
        );
    }

    /// Mutated tiled, bilevel and compressed TIFFs (bytes set, flipped,
    /// cut) open and read, or fail with a one-line error: never a panic,
    /// never an allocation past a few times the image.
    #[test]
    fn mutated_files_read_or_fail_cleanly() {
        let dir = TempDir::new("tiff-stream-mutated");
        let path = dir.0.join("mutated.tif");
        let (width, height) = (45u32, 38u32);
        let gray = samples((width * height) as usize, 6);
        let bits: Vec<u8> = gray.iter().map(|&p| u8::from(p % 3 == 0)).collect();
        let seeds = [
            tiled_tiff((width, height), (16, 16), &gray, false, 1),
            tiled_tiff((width, height), (32, 16), &bits, true, 0),
            bilevel_strips((width, height), &bits, 5, 1),
            gray_tiff(
                (width, height),
                &gray,
                Compression::Lzw,
                Predictor::Horizontal,
                4,
            ),
            gray_tiff(
                (15, 6),
                &gray[..15 * 6 * 3],
                Compression::Uncompressed,
                Predictor::None,
                4,
            ),
        ];
        let mut numbers = ccl_testdata::Xorshift64::new(0x2545_F491_4F6C_DD1D);
        let mut next = move |below: usize| numbers.below(below as u64) as usize;
        for case in 0..10_000 {
            let mut bytes = seeds[case % seeds.len()].clone();
            for _ in 0..1 + next(3) {
                // The directories and the arrays they point to are within
                // the first and last few hundred bytes.
                let at = match next(3) {
                    0 => next(bytes.len().min(64)),
                    1 => bytes.len() - 1 - next(bytes.len().min(400)),
                    _ => next(bytes.len()),
                };
                match next(4) {
                    0 => bytes[at] ^= 1 << next(8),
                    1 => bytes[at] = [0, 1, 0x7f, 0x80, 0xff][next(5)],
                    2 => bytes.truncate(at.max(1)),
                    _ => bytes[at] = next(256) as u8,
                }
            }
            std::fs::write(&path, &bytes).unwrap();
            let read = || {
                let tiff = TiffBytes::open(&path)?;
                let planes = tiff.shape()[0];
                let plane_len: usize = tiff.shape()[1..].iter().product();
                if planes * plane_len > 1 << 16 {
                    return Ok(());
                }
                let mut out = vec![0u8; planes * plane_len];
                let split = planes / 3;
                let (first, rest) = out.split_at_mut(split * plane_len);
                tiff.read_planes(split, rest)?;
                tiff.read_planes(0, first)
            };
            let (outcome, largest) = crate::fuzz::largest_allocation(|| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(read))
            });
            match outcome {
                Err(_) => panic!("case {case} panicked (bytes: {bytes:?})"),
                Ok(Err(error)) => {
                    let message = error.to_string();
                    assert!(!message.contains('\n'), "case {case}: {message}");
                }
                Ok(Ok(())) => {}
            }
            assert!(largest < 4 << 20, "case {case} allocated {largest} bytes");
        }
    }

    #[test]
    fn label_files_refuse_what_they_cannot_hold() {
        let dir = TempDir::new("tiff-stream-label-errors");
        let path = dir.0.join("labels.tif");
        assert!(TiffLabelFile::create(&path, &[0, 4], false).is_err());
        assert!(TiffLabelFile::create(&path, &[4], false).is_err());
        assert!(TiffLabelFile::create(&path, &[1 << 33, 1], false).is_err());
        let file = TiffLabelFile::create(&path, &[2, 3], false).unwrap();
        assert!(file.write_at(0, &[1u64]).is_err());
        assert!(file.write_at(5, &[1u32, 2]).is_err());
        file.write_at(5, &[1u32]).unwrap();
        // Past 4 GiB the file is a BigTIFF (its data is sparse until
        // written).
        let layout = LabelLayout::new(&[1 << 16, 1 << 14], 4, LABEL_STRIP_BYTES, false).unwrap();
        assert!(layout.big && layout.end > 1 << 32, "{layout:?}");
        let layout = LabelLayout::new(&[1 << 15, 1 << 14], 4, LABEL_STRIP_BYTES, false).unwrap();
        assert!(!layout.big, "{layout:?}");
    }
}
