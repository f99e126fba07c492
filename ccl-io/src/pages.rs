//! The pages of a TIFF: its chain of image file directories (IFDs), counted
//! before anything is decoded, and a reader that presents any page as the
//! first, so that the `image` crate's TIFF decoder (which reads the first
//! page only) decodes the page that was asked for. The page's directory is
//! checked first for what the `tiff` crate would trip on.

use std::collections::HashSet;
use std::io::{self, BufRead, Read, Seek, SeekFrom};

/// The most pages counted. A chain of directories is read one directory at
/// a time, a few bytes each; the cap bounds the work a crafted file can
/// cause. Pages past it cannot be picked.
pub(crate) const MAX_PAGES: usize = 1 << 16;

/// What the chain of directories holds.
#[derive(Debug)]
pub(crate) struct Pages {
    /// The pages found, at most [`MAX_PAGES`].
    pub(crate) count: usize,
    /// Whether the chain goes on past [`MAX_PAGES`].
    pub(crate) more: bool,
    /// The first bytes of the file with the first-directory offset pointing
    /// at the chosen page; `None` when the header is not one this reader
    /// understands (the decoder then says what is wrong with it).
    pub(crate) header: Option<Vec<u8>>,
}

/// The layout of a TIFF header.
struct Layout {
    little_endian: bool,
    big_tiff: bool,
}

impl Layout {
    fn offset_bytes(&self) -> usize {
        if self.big_tiff { 8 } else { 4 }
    }

    fn uint(&self, bytes: &[u8]) -> u64 {
        let mut value = 0u64;
        for i in 0..bytes.len() {
            let b = if self.little_endian {
                bytes[bytes.len() - 1 - i]
            } else {
                bytes[i]
            };
            value = value << 8 | u64::from(b);
        }
        value
    }

    fn write_uint(&self, value: u64, out: &mut [u8]) {
        let n = out.len();
        for (i, byte) in out.iter_mut().enumerate() {
            let shift = if self.little_endian { i } else { n - 1 - i };
            *byte = (value >> (8 * shift)) as u8;
        }
    }
}

/// The chain of directories of a TIFF, as [`chain`] read it.
pub(crate) struct Chain {
    layout: Layout,
    /// The file's first bytes, up to the end of the first-directory offset.
    header: Vec<u8>,
    /// Where the first-directory offset lies in `header`.
    first_at: usize,
    /// The offset of each page's directory, in order.
    offsets: Vec<u64>,
    /// Whether the chain goes on past the pages counted.
    more: bool,
}

impl Chain {
    /// The pages counted.
    pub(crate) fn count(&self) -> usize {
        self.offsets.len()
    }

    /// Whether the chain goes on past [`Chain::count`] pages.
    pub(crate) fn more(&self) -> bool {
        self.more
    }

    /// The header that makes `page` (`< count`) the first, once its entries
    /// are checked ([`check_entries`]); `input` is left at position 0.
    pub(crate) fn header_for<R: Read + Seek>(
        &self,
        input: &mut R,
        page: usize,
    ) -> io::Result<Result<Vec<u8>, String>> {
        let mut patched = self.header.clone();
        if let Some(&offset) = self.offsets.get(page) {
            if let Err(message) = check_entries(input, &self.layout, offset)? {
                return Ok(Err(message));
            }
            self.layout
                .write_uint(offset, &mut patched[self.first_at..]);
        }
        input.seek(SeekFrom::Start(0))?;
        Ok(Ok(patched))
    }
}

/// Walks the chain of directories of the TIFF that `input` holds from its
/// position 0, and returns the header that makes `page` (0 when `None`)
/// the first.
///
/// A page is counted for every directory the chain points to, even one that
/// cannot be read (the decoder reports it if that page is read); the walk
/// stops at a null pointer, an unreadable directory or [`MAX_PAGES`]. The
/// chosen page's entries are checked ([`check_entries`]) before the decoder
/// sees them.
///
/// # Errors
/// A message when the file has no directory, when the chain loops back on
/// itself, or when the chosen directory has an entry that the decoder would
/// trip on.
pub(crate) fn walk<R: Read + Seek>(
    input: &mut R,
    page: Option<usize>,
) -> io::Result<Result<Pages, String>> {
    let chain = match chain(input, MAX_PAGES)? {
        Ok(Some(chain)) => chain,
        Ok(None) => return Ok(Ok(unknown())),
        Err(message) => return Ok(Err(message)),
    };
    let header = match chain.header_for(input, page.unwrap_or(0))? {
        Ok(header) => header,
        Err(message) => return Ok(Err(message)),
    };
    Ok(Ok(Pages {
        count: chain.count(),
        more: chain.more,
        header: Some(header),
    }))
}

/// Reads the chain of directories of the TIFF that `input` holds from its
/// position 0, up to `max_pages` of them (counted as [`walk`] counts);
/// `None` when the header is not one this reader understands.
///
/// # Errors
/// A message when the file has no directory, or when the chain loops back
/// on itself.
pub(crate) fn chain<R: Read + Seek>(
    input: &mut R,
    max_pages: usize,
) -> io::Result<Result<Option<Chain>, String>> {
    input.seek(SeekFrom::Start(0))?;
    let mut header = [0u8; 16];
    let read = read_up_to(input, &mut header)?;
    let header = &header[..read];
    let little_endian = match header.get(..2) {
        Some(b"II") => true,
        Some(b"MM") => false,
        _ => return Ok(Ok(None)),
    };
    let mut layout = Layout {
        little_endian,
        big_tiff: false,
    };
    let magic = header.get(2..4).map(|m| layout.uint(m));
    let first_at = match magic {
        Some(42) => 4,
        Some(43) => {
            layout.big_tiff = true;
            8
        }
        _ => return Ok(Ok(None)),
    };
    let width = layout.offset_bytes();
    let Some(first) = header
        .get(first_at..first_at + width)
        .map(|b| layout.uint(b))
    else {
        return Ok(Ok(None));
    };
    if first == 0 {
        return Ok(Err(
            "not a valid TIFF file (it has no image directory)".into()
        ));
    }
    let mut seen = HashSet::new();
    let (mut offsets, mut more) = (Vec::new(), false);
    let mut next = first;
    while next != 0 {
        if offsets.len() == max_pages {
            more = true;
            break;
        }
        if !seen.insert(next) {
            return Ok(Err(
                "not a valid TIFF file (its pages link back in a cycle)".into(),
            ));
        }
        offsets.push(next);
        match next_directory(input, &layout, next)? {
            Some(after) => next = after,
            None => break,
        }
    }
    Ok(Ok(Some(Chain {
        header: header[..first_at + width].to_vec(),
        layout,
        first_at,
        offsets,
        more,
    })))
}

fn unknown() -> Pages {
    Pages {
        count: 1,
        more: false,
        header: None,
    }
}

/// The offset of the directory after the one at `offset`, `None` when the
/// directory cannot be read (past the end of the file, a count that
/// overflows).
fn next_directory<R: Read + Seek>(
    input: &mut R,
    layout: &Layout,
    offset: u64,
) -> io::Result<Option<u64>> {
    let (count_bytes, entry_bytes) = if layout.big_tiff { (8, 20) } else { (2, 12) };
    if input.seek(SeekFrom::Start(offset)).is_err() {
        return Ok(None);
    }
    let mut buffer = [0u8; 8];
    if read_up_to(input, &mut buffer[..count_bytes])? < count_bytes {
        return Ok(None);
    }
    let entries = layout.uint(&buffer[..count_bytes]);
    let Some(skip) = entries
        .checked_mul(entry_bytes)
        .and_then(|n| i64::try_from(n).ok())
    else {
        return Ok(None);
    };
    if input.seek(SeekFrom::Current(skip)).is_err() {
        return Ok(None);
    }
    let width = layout.offset_bytes();
    if read_up_to(input, &mut buffer[..width])? < width {
        return Ok(None);
    }
    Ok(Some(layout.uint(&buffer[..width])))
}

/// The tags that describe the image (size, samples, strips and tiles,
/// compression, colour map): an entry of one of them without values, or
/// with values that are not whole numbers (text, fractions), is refused
/// (the `tiff` crate 0.10 indexes the first SampleFormat value without
/// checking that there is one, and reads text as no values).
const IMAGE_TAGS: [u64; 17] = [
    256, 257, 258, 259, 262, 273, 277, 278, 279, 284, 317, 320, 322, 323, 324, 325, 339,
];

/// Refuses a directory with an entry that declares more values than the
/// file has bytes (the decoder would reserve room for them all before
/// reading one: up to 256 MiB for a file of a few hundred bytes), an image
/// tag without whole-number values, or (in a BigTIFF) an entry of an
/// unknown type.
fn check_entries<R: Read + Seek>(
    input: &mut R,
    layout: &Layout,
    offset: u64,
) -> io::Result<Result<(), String>> {
    let length = input.seek(SeekFrom::End(0))?;
    let (count_bytes, entry_bytes) = if layout.big_tiff { (8, 20) } else { (2, 12) };
    if input.seek(SeekFrom::Start(offset)).is_err() {
        return Ok(Ok(()));
    }
    let mut buffer = [0u8; 20];
    if read_up_to(input, &mut buffer[..count_bytes])? < count_bytes {
        return Ok(Ok(()));
    }
    // The decoder reads the entries and says what is wrong with a short
    // directory.
    let entries = layout.uint(&buffer[..count_bytes]).min(1 << 16);
    for _ in 0..entries {
        if read_up_to(input, &mut buffer[..entry_bytes])? < entry_bytes {
            break;
        }
        let tag = layout.uint(&buffer[..2]);
        let kind = layout.uint(&buffer[2..4]);
        let size = match kind {
            1 | 2 | 6 | 7 => 1,
            3 | 8 => 2,
            4 | 9 | 11 | 13 => 4,
            5 | 10 | 12 | 16 | 17 | 18 => 8,
            // The `tiff` crate 0.10 skips 8 bytes after the type of an entry
            // it does not know, the rest of a classic entry but not of a
            // BigTIFF one: it would read the entries after it misaligned.
            _ if layout.big_tiff => {
                return Ok(Err(format!(
                    "not a valid TIFF file (tag {tag} has values of unknown type {kind})"
                )));
            }
            // A classic entry of an unknown type is skipped, as the
            // specification says.
            _ => continue,
        };
        if IMAGE_TAGS.contains(&tag) && !matches!(kind, 1 | 3 | 4 | 16) {
            return Ok(Err(format!(
                "not a valid TIFF file (tag {tag} has values of type {kind}, not whole numbers)"
            )));
        }
        let count = if layout.big_tiff {
            layout.uint(&buffer[4..12])
        } else {
            layout.uint(&buffer[4..8])
        };
        if count == 0 && IMAGE_TAGS.contains(&tag) {
            return Ok(Err(format!(
                "not a valid TIFF file (tag {tag} has no values)"
            )));
        }
        if count.saturating_mul(size) > length.max(layout.offset_bytes() as u64) {
            return Ok(Err(format!(
                "not a valid TIFF file (tag {tag} declares {count} values, more than the file \
                 has bytes)"
            )));
        }
    }
    Ok(Ok(()))
}

/// Reads until `buffer` is full or the input ends; the bytes read.
fn read_up_to(input: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match input.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// A reader whose first bytes are `header` instead of the input's own (the
/// rest is the input's): a TIFF whose first-directory offset points at
/// another page.
pub(crate) struct Repointed<R> {
    inner: R,
    header: Vec<u8>,
    /// The position this reader is at.
    position: u64,
    /// Whether `inner` is at `position` too (it is not moved while reading
    /// the header).
    synced: bool,
}

impl<R: BufRead + Seek> Repointed<R> {
    /// Reads `inner` from its start with its first bytes replaced by
    /// `header`.
    pub(crate) fn new(inner: R, header: Vec<u8>) -> Self {
        Self {
            inner,
            header,
            position: 0,
            synced: false,
        }
    }

    fn in_header(&self) -> Option<usize> {
        usize::try_from(self.position)
            .ok()
            .filter(|&p| p < self.header.len())
    }

    fn sync(&mut self) -> io::Result<()> {
        if !self.synced {
            self.inner.seek(SeekFrom::Start(self.position))?;
            self.synced = true;
        }
        Ok(())
    }
}

impl<R: BufRead + Seek> Read for Repointed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(start) = self.in_header() {
            let n = buf.len().min(self.header.len() - start);
            buf[..n].copy_from_slice(&self.header[start..start + n]);
            self.position += n as u64;
            self.synced = false;
            return Ok(n);
        }
        self.sync()?;
        let n = self.inner.read(buf)?;
        self.position += n as u64;
        Ok(n)
    }
}

impl<R: BufRead + Seek> BufRead for Repointed<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let Some(start) = self.in_header() {
            return Ok(&self.header[start..]);
        }
        self.sync()?;
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        if self.in_header().is_some() {
            self.synced = false;
        } else {
            self.inner.consume(amount);
        }
        self.position += amount as u64;
    }
}

impl<R: BufRead + Seek> Seek for Repointed<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let inner = &mut self.inner;
        self.position = seek_position(self.position, to, || inner.seek(SeekFrom::End(0)))?;
        self.synced = false;
        Ok(self.position)
    }
}

/// Where a seek `to` from `position` lands, `end` giving the length for
/// [`SeekFrom::End`]: for readers that keep their own position.
pub(crate) fn seek_position(
    position: u64,
    to: SeekFrom,
    end: impl FnOnce() -> io::Result<u64>,
) -> io::Result<u64> {
    let invalid = || io::Error::new(io::ErrorKind::InvalidInput, "seek before the start");
    match to {
        SeekFrom::Start(n) => Ok(n),
        SeekFrom::Current(d) => position.checked_add_signed(d).ok_or_else(invalid),
        SeekFrom::End(d) => end()?.checked_add_signed(d).ok_or_else(invalid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::tiff_stack as stack;
    use std::io::Cursor;

    #[test]
    fn pages_are_counted_and_any_can_come_first() {
        let bytes = stack(3);
        let pages = walk(&mut Cursor::new(&bytes), None).unwrap().unwrap();
        assert_eq!((pages.count, pages.more), (3, false));
        for page in 0..3u8 {
            let pages = walk(&mut Cursor::new(&bytes), Some(page.into()))
                .unwrap()
                .unwrap();
            let reader = Repointed::new(Cursor::new(&bytes), pages.header.unwrap());
            let decoder = image::codecs::tiff::TiffDecoder::new(reader).unwrap();
            let image = image::DynamicImage::from_decoder(decoder).unwrap();
            assert_eq!(image.to_luma8().into_raw(), vec![page + 1; 6]);
        }
    }

    #[test]
    fn a_cycle_of_pages_is_refused() {
        let mut bytes = stack(2);
        // Point the second page's next-directory offset back at the first.
        let first = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
        let entries = u16::from_le_bytes([bytes[first], bytes[first + 1]]) as usize;
        let link = first + 2 + 12 * entries;
        let second = u32::from_le_bytes(bytes[link..link + 4].try_into().unwrap()) as usize;
        let entries = u16::from_le_bytes([bytes[second], bytes[second + 1]]) as usize;
        let link = second + 2 + 12 * entries;
        bytes[link..link + 4].copy_from_slice(&(first as u32).to_le_bytes());
        let error = walk(&mut Cursor::new(&bytes), None).unwrap().unwrap_err();
        assert!(error.contains("cycle"), "{error}");
    }

    #[test]
    fn the_repointed_reader_reads_seeks_and_buffers_like_the_file() {
        let bytes: Vec<u8> = (0..100).collect();
        let mut reader = Repointed::new(Cursor::new(&bytes), vec![9, 9, 9, 9]);
        let mut all = Vec::new();
        reader.read_to_end(&mut all).unwrap();
        assert_eq!(&all[..6], &[9, 9, 9, 9, 4, 5]);
        assert_eq!(all.len(), 100);
        reader.seek(SeekFrom::Start(2)).unwrap();
        assert_eq!(reader.fill_buf().unwrap(), &[9, 9]);
        reader.consume(1);
        let mut two = [0; 2];
        reader.read_exact(&mut two).unwrap();
        assert_eq!(two, [9, 4]);
        assert_eq!(reader.seek(SeekFrom::Current(-1)).unwrap(), 4);
        assert_eq!(reader.seek(SeekFrom::End(-1)).unwrap(), 99);
        reader.read_exact(&mut two[..1]).unwrap();
        assert_eq!(two[0], 99);
        assert!(reader.seek(SeekFrom::Current(-200)).is_err());
    }
}
