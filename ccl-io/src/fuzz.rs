//! Files from strangers: a deterministic mutation test of every reader.
//!
//! The seeds are valid files of every layout the readers take: PNG gray,
//! 16-bit, gray + alpha, RGB, RGBA, and hand-made palettes with
//! transparency, 1-, 2- and 4-bit gray and Adam7 interlacing; PGM, PBM, PPM
//! and PAM, binary and ASCII, 8- and 16-bit, with and without alpha; TIFF
//! of one and several pages in either byte order, gray, 16-bit, RGBA, in
//! strips, LZW, Deflate, PackBits, BigTIFF. Each case applies one to four
//! mutations to one seed, chosen by a xorshift generator from a fixed seed:
//! truncations, bit flips, bytes and words set to boundary values, ranges
//! deleted, repeated or inserted, and mutations that know the formats (PNM
//! header numbers; PNG's IHDR fields and chunk lengths, with the CRCs
//! mended so that the decoder believes them, and every CRC mended after
//! half the blind mutations; TIFF directory entries — tag, type, count and
//! value: sizes, bit depths, sample counts, strip offsets and counts,
//! compression — and the next-page pointers that make the page count).
//! TIFF cases are also streamed one in four: opened by
//! [`TiffBytes`](crate::TiffBytes) from a file and read in two runs of
//! planes.
//! The volume readers have seeds of their own, NumPy `.npy` arrays of every
//! type, both byte orders, C and Fortran order, 2-D and 3-D, format 1.0 and
//! 2.0 headers, mutated blindly and in their headers (shape numbers, descr,
//! order, header length and version, the length mended or not), and read
//! every other seed one case in four (the TIFF stacks as volumes of several
//! pages).
//! Each case is decoded in-process under `catch_unwind` with random options
//! (page, threshold, channel, inversion) and the limit at 2^16 pixels,
//! through the file reader and, one case in eight, the standard-input
//! reader. It must give an image (or a volume) of at most that many pixels
//! or a one-line error: never a panic, never a case that runs longer than
//! [`HANG`] (a watchdog reports it and ends the run), never an allocation
//! over [`ALLOCATION_BOUND`] (a header that claims 60000 × 60000 must be
//! refused before anything of its size is allocated).
//!
//! `CCL_FUZZ_ITERATIONS` sets the number of cases (default
//! [`DEFAULT_CASES`]), `CCL_FUZZ_SEED` the seed. A failure names its case
//! and mutations and saves the bytes in the temporary folder; each kind
//! found became a named test in `read.rs` (images) or `volume.rs`
//! (volumes). `cargo test` (without `--release`) checks integer overflow
//! in the decoders too.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use image::codecs::pnm::{PnmEncoder, PnmSubtype, SampleEncoding};
use image::{DynamicImage, ImageBuffer, ImageEncoder, ImageFormat};

use crate::read::{decode_with, read_stream};
use crate::tests::{crc32, encode, tiff_stack};
use crate::volume::{decode_volume_with, read_volume_stream};
use crate::{Binarization, Channel, DecodedVolume, ReadOptions, Threshold};

/// Cases run by default (in CI): about 0.2 s on one core of the
/// development machine.
const DEFAULT_CASES: u64 = 50_000;

/// The pixel limit of every case.
const MAX_PIXELS: u64 = 1 << 16;

/// The largest single allocation a case may make: the decoded image at 16
/// bytes a pixel (float RGBA) three times over (`decode_with`'s bound on
/// the decoders), and room for what is proportional to the file itself.
const ALLOCATION_BOUND: usize = 3 * 16 * MAX_PIXELS as usize + (4 << 20);

/// A case that runs longer is a hang.
const HANG: Duration = Duration::from_secs(10);

/// The global allocator of this test binary: the system's, noting the
/// largest allocation each thread asks for.
struct Tracking;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(size)));
}

// SAFETY: every call is forwarded to the system allocator with the same
// arguments; noting a size neither allocates nor touches the memory.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller upholds `alloc`'s contract, which is System's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from System with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: `ptr` came from System with this layout; the caller
        // upholds the rest of `realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Tracking = Tracking;

/// xorshift64* (Vigna 2016): small, fast and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`), near enough.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Values at the edges of what fields hold.
const WORDS: [u64; 14] = [
    0,
    1,
    2,
    3,
    7,
    8,
    16,
    0x7f,
    0xff,
    0xffff,
    60_000,
    65_536,
    0x7fff_ffff,
    0xffff_ffff,
];

/// One valid file.
struct Seed {
    name: &'static str,
    /// The extension its path gets (the fallback when the content is not
    /// recognised).
    extension: &'static str,
    bytes: Vec<u8>,
}

fn gradient<P: image::Pixel>(
    width: u32,
    height: u32,
    f: impl Fn(u32, u32) -> P,
) -> ImageBuffer<P, Vec<P::Subpixel>> {
    ImageBuffer::from_fn(width, height, f)
}

fn pnm(image: &DynamicImage, subtype: PnmSubtype) -> Vec<u8> {
    let mut out = Vec::new();
    PnmEncoder::new(&mut out)
        .with_subtype(subtype)
        .write_image(
            image.as_bytes(),
            image.width(),
            image.height(),
            image.color().into(),
        )
        .unwrap();
    out
}

/// A 16-bit binary PGM (the `image` encoder writes 8 bits only).
fn pgm16(image: &DynamicImage) -> Vec<u8> {
    let gray = image.to_luma16();
    let mut out = format!("P5\n{} {}\n65535\n", gray.width(), gray.height()).into_bytes();
    out.extend(gray.as_raw().iter().flat_map(|v| v.to_be_bytes()));
    out
}

/// Adler-32, zlib's checksum.
fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in bytes {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    b << 16 | a
}

/// `data` as a zlib stream of stored (uncompressed) blocks.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = if data.is_empty() {
        vec![&[]]
    } else {
        data.chunks(65535).collect()
    };
    for (i, block) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        out.extend(len.to_le_bytes());
        out.extend((!len).to_le_bytes());
        out.extend(*block);
    }
    out.extend(adler32(data).to_be_bytes());
    out
}

/// A PNG written by hand, for the layouts the `image` encoder does not
/// write: `samples` holds one value per sample (row-major, already at
/// most `2^depth - 1`), packed at `depth` bits; `chunks` (PLTE, tRNS) go
/// before the data; `interlaced` stores the seven Adam7 passes.
pub(crate) fn png_by_hand(
    (width, height): (usize, usize),
    depth: u8,
    colour: u8,
    samples: &[u8],
    chunks: &[(&[u8; 4], Vec<u8>)],
    interlaced: bool,
) -> Vec<u8> {
    let channels = match colour {
        0 | 3 => 1,
        2 => 3,
        4 => 2,
        _ => 4,
    };
    let per_row = width * channels;
    // The rows of one pass (the whole image when not interlaced), each
    // with filter type 0 and its samples packed.
    let pass = |x0: usize, y0: usize, dx: usize, dy: usize, out: &mut Vec<u8>| {
        for y in (y0..height).step_by(dy) {
            let row: Vec<u8> = (x0..width)
                .step_by(dx)
                .flat_map(|x| &samples[y * per_row + x * channels..][..channels])
                .copied()
                .collect();
            if row.is_empty() {
                continue;
            }
            out.push(0);
            if depth == 8 {
                out.extend(&row);
            } else {
                let per_byte = 8 / usize::from(depth);
                out.extend(row.chunks(per_byte).map(|group| {
                    group.iter().enumerate().fold(0u8, |byte, (i, &v)| {
                        byte | v << (8 - usize::from(depth) * (i + 1))
                    })
                }));
            }
        }
    };
    let mut raw = Vec::new();
    if interlaced {
        for (x0, y0, dx, dy) in [
            (0, 0, 8, 8),
            (4, 0, 8, 8),
            (0, 4, 4, 8),
            (2, 0, 4, 4),
            (0, 2, 2, 4),
            (1, 0, 2, 2),
            (0, 1, 1, 2),
        ] {
            pass(x0, y0, dx, dy, &mut raw);
        }
    } else {
        pass(0, 0, 1, 1, &mut raw);
    }
    let mut ihdr = Vec::new();
    ihdr.extend((width as u32).to_be_bytes());
    ihdr.extend((height as u32).to_be_bytes());
    ihdr.extend([depth, colour, 0, 0, u8::from(interlaced)]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8; 4], data: &[u8]| {
        png.extend((data.len() as u32).to_be_bytes());
        let body = [&kind[..], data].concat();
        png.extend(&body);
        png.extend(crc32(&body).to_be_bytes());
    };
    chunk(b"IHDR", &ihdr);
    for (kind, data) in chunks {
        chunk(kind, data);
    }
    chunk(b"IDAT", &zlib_stored(&raw));
    chunk(b"IEND", &[]);
    png
}

/// A TIFF written by hand: uncompressed 8-bit gray pages of 4 × 3, page i
/// filled with i + 1, in either byte order (the `tiff` encoder writes the
/// machine's).
fn tiff_by_hand(big_endian: bool, pages: u8) -> Vec<u8> {
    let (width, height) = (4u32, 3u32);
    let u16b = |v: u16| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let u32b = |v: u32| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut out: Vec<u8> = if big_endian {
        b"MM\0*".to_vec()
    } else {
        b"II*\0".to_vec()
    };
    out.extend(u32b(8));
    for page in 0..pages {
        let entries: u16 = 9;
        let ifd_len = 2 + 12 * u32::from(entries) + 4;
        let data_at = out.len() as u32 + ifd_len;
        let next = if page + 1 == pages {
            0
        } else {
            data_at + width * height
        };
        out.extend(u16b(entries));
        let mut entry = |tag: u16, kind: u16, value: u32| {
            out.extend(u16b(tag));
            out.extend(u16b(kind));
            out.extend(u32b(1));
            if kind == 3 {
                // A SHORT sits in the first two bytes of the field.
                out.extend(u16b(value as u16));
                out.extend([0, 0]);
            } else {
                out.extend(u32b(value));
            }
        };
        entry(256, 3, width);
        entry(257, 3, height);
        entry(258, 3, 8);
        entry(259, 3, 1);
        entry(262, 3, 1);
        entry(273, 4, data_at);
        entry(277, 3, 1);
        entry(278, 3, height);
        entry(279, 4, width * height);
        out.extend(u32b(next));
        out.extend(std::iter::repeat_n(page + 1, (width * height) as usize));
    }
    out
}

/// A 40 × 30 gray TIFF of 4-row strips.
fn tiff_strips(compression: tiff::encoder::Compression) -> Vec<u8> {
    use tiff::encoder::{TiffEncoder, colortype::Gray8};
    let pixels: Vec<u8> = (0..40 * 30).map(|i| ((i * 7) % 13 * 19) as u8).collect();
    let mut out = Cursor::new(Vec::new());
    let mut encoder = TiffEncoder::new(&mut out)
        .unwrap()
        .with_compression(compression);
    let mut image = encoder.new_image::<Gray8>(40, 30).unwrap();
    image.rows_per_strip(4).unwrap();
    image.write_data(&pixels).unwrap();
    out.into_inner()
}

fn tiff_with(compression: tiff::encoder::Compression, big: bool) -> Vec<u8> {
    use tiff::encoder::{TiffEncoder, colortype::Gray8};
    let pixels: Vec<u8> = (0..11 * 9).map(|i| ((i * 37) % 251) as u8).collect();
    let mut out = Cursor::new(Vec::new());
    if big {
        TiffEncoder::new_big(&mut out)
            .unwrap()
            .with_compression(compression)
            .write_image::<Gray8>(11, 9, &pixels)
            .unwrap();
    } else {
        TiffEncoder::new(&mut out)
            .unwrap()
            .with_compression(compression)
            .write_image::<Gray8>(11, 9, &pixels)
            .unwrap();
    }
    out.into_inner()
}

/// A `.npy` written by hand: format `version` (1 or 2), the header padded
/// as numpy pads it, then `data`.
fn npy_by_hand(descr: &str, fortran_order: bool, shape: &str, version: u8, data: &[u8]) -> Vec<u8> {
    let order = if fortran_order { "True" } else { "False" };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, }}");
    let prefix = if version == 1 { 10 } else { 12 };
    let length = (prefix + dict.len() + 1).next_multiple_of(64) - prefix;
    let mut bytes = crate::npy::MAGIC.to_vec();
    bytes.extend([version, 0]);
    if version == 1 {
        bytes.extend((length as u16).to_le_bytes());
    } else {
        bytes.extend((length as u32).to_le_bytes());
    }
    bytes.extend(format!("{dict:<width$}\n", width = length - 1).bytes());
    bytes.extend(data);
    bytes
}

/// `.npy` seeds of every type the volume reader takes.
fn npy_seeds() -> Vec<Seed> {
    // Element i of a volume: a few values, zeros among them.
    let value = |i: usize| ((i * 7 + i / 5) % 6) as i64 - 1;
    macro_rules! array {
        ($t:ty, $n:expr, $big:expr) => {
            (0..$n)
                .flat_map(|i| {
                    let v = value(i) as $t;
                    if $big {
                        v.to_be_bytes().to_vec()
                    } else {
                        v.to_le_bytes().to_vec()
                    }
                })
                .collect::<Vec<u8>>()
        };
    }
    let bools: Vec<u8> = (0..30).map(|i| u8::from(value(i) > 1)).collect();
    let seed = |name, bytes| Seed {
        name,
        extension: "npy",
        bytes,
    };
    vec![
        seed(
            "npy-u8",
            npy_by_hand("|u1", false, "(3, 4, 5)", 1, &array!(u8, 60, false)),
        ),
        seed(
            "npy-u8-fortran",
            npy_by_hand("|u1", true, "(3, 4, 5)", 1, &array!(u8, 60, false)),
        ),
        seed(
            "npy-bool-2d",
            npy_by_hand("|b1", false, "(5, 6)", 1, &bools),
        ),
        seed(
            "npy-i8",
            npy_by_hand("|i1", false, "(2, 3, 5)", 1, &array!(i8, 30, false)),
        ),
        seed(
            "npy-u16-big",
            npy_by_hand(">u2", true, "(2, 3, 5)", 1, &array!(u16, 30, true)),
        ),
        seed(
            "npy-i16",
            npy_by_hand("<i2", false, "(2, 3, 5)", 1, &array!(i16, 30, false)),
        ),
        seed(
            "npy-u32",
            npy_by_hand("<u4", false, "(5, 3, 2)", 1, &array!(u32, 30, false)),
        ),
        seed(
            "npy-i32-big",
            npy_by_hand(">i4", false, "(2, 5, 3)", 1, &array!(i32, 30, true)),
        ),
        seed(
            "npy-u64",
            npy_by_hand("<u8", true, "(3, 5, 2)", 1, &array!(u64, 30, false)),
        ),
        seed(
            "npy-i64-v2",
            npy_by_hand("<i8", false, "(2, 3, 5)", 2, &array!(i64, 30, false)),
        ),
        seed(
            "npy-f32-fortran",
            npy_by_hand("<f4", true, "(2, 3, 5)", 1, &array!(f32, 30, false)),
        ),
        seed(
            "npy-f64-big-2d",
            npy_by_hand(">f8", false, "(6, 5)", 1, &array!(f64, 30, true)),
        ),
    ]
}

fn seeds() -> Vec<Seed> {
    use tiff::encoder::{Compression, DeflateLevel};
    let gray = DynamicImage::ImageLuma8(gradient(13, 7, |x, y| {
        image::Luma([((x * 7 + y * 13 + x * y) % 5 * 60) as u8])
    }));
    let mask = DynamicImage::ImageLuma8(gradient(13, 7, |x, y| {
        image::Luma([if (x + y) % 3 == 0 { 255 } else { 0 }])
    }));
    // PBM samples are bits.
    let bits = DynamicImage::ImageLuma8(gradient(13, 7, |x, y| {
        image::Luma([u8::from((x + y) % 3 == 0)])
    }));
    let rgb = DynamicImage::ImageRgb8(gradient(6, 5, |x, y| {
        image::Rgb([(x * 40) as u8, (y * 50) as u8, ((x + y) % 2 * 255) as u8])
    }));
    let rgba = DynamicImage::ImageRgba8(gradient(6, 5, |x, y| {
        image::Rgba([(x * 40) as u8, 9, 0, ((x * y) % 3 * 127) as u8])
    }));
    let gray16 = DynamicImage::ImageLuma16(gradient(5, 4, |x, y| {
        image::Luma([(x * 9000 + y * 3) as u16])
    }));
    let la16 = DynamicImage::ImageLumaA16(gradient(5, 4, |x, y| {
        image::LumaA([(x * 9000) as u16, (y * 20000) as u16])
    }));
    let rgb16 = DynamicImage::ImageRgb16(gradient(4, 3, |x, y| {
        image::Rgb([(x * 9000) as u16, (y * 20000) as u16, 1])
    }));
    let la = DynamicImage::ImageLumaA8(gradient(5, 4, |x, y| {
        image::LumaA([(x * 60) as u8, ((x + y) % 2 * 255) as u8])
    }));
    // Hand-made PNGs: palettes with transparency, sub-byte depths, Adam7.
    let indices: Vec<u8> = (0..9 * 5).map(|i| (i * 7 % 4) as u8).collect();
    let palette = vec![0, 0, 0, 255, 0, 0, 0, 255, 0, 9, 9, 9];
    let palette_chunks = [(b"PLTE", palette), (b"tRNS", vec![0, 255, 128])];
    let bit_samples: Vec<u8> = (0..11 * 6).map(|i| u8::from(i % 3 == 0)).collect();
    let nibbles: Vec<u8> = (0..9 * 5).map(|i| (i * 5 % 16) as u8).collect();
    let rgb_samples: Vec<u8> = (0..10 * 9 * 3).map(|i| (i * 31 % 256) as u8).collect();
    let hand = |size, depth, colour, samples: &[u8], chunks: &[(&[u8; 4], Vec<u8>)], adam7| {
        png_by_hand(size, depth, colour, samples, chunks, adam7)
    };
    let png = |image: &DynamicImage| encode(image, ImageFormat::Png);
    let tif = |image: &DynamicImage| encode(image, ImageFormat::Tiff);
    let seed = |name, extension, bytes| Seed {
        name,
        extension,
        bytes,
    };
    vec![
        seed("png-gray", "png", png(&gray)),
        seed("png-mask", "png", png(&mask)),
        seed("png-rgb", "png", png(&rgb)),
        seed("png-rgba", "png", png(&rgba)),
        seed("png-gray16", "png", png(&gray16)),
        seed("png-la16", "png", png(&la16)),
        seed("png-rgb16", "png", png(&rgb16)),
        seed("png-la8", "png", png(&la)),
        seed("png-palette", "png", hand((9, 5), 8, 3, &indices, &palette_chunks, false)),
        seed("png-palette-2bit", "png", hand((9, 5), 2, 3, &indices, &palette_chunks, false)),
        seed("png-gray-1bit", "png", hand((11, 6), 1, 0, &bit_samples, &[], false)),
        seed(
            "png-gray-4bit-trns",
            "png",
            hand((9, 5), 4, 0, &nibbles, &[(b"tRNS", vec![0, 5])], false),
        ),
        seed("png-adam7", "png", hand((10, 9), 8, 2, &rgb_samples, &[], true)),
        seed("png-adam7-1bit", "png", hand((11, 6), 1, 0, &bit_samples, &[], true)),
        seed("pgm-binary", "pgm", pnm(&gray, PnmSubtype::Graymap(SampleEncoding::Binary))),
        seed("pgm-ascii", "pgm", pnm(&gray, PnmSubtype::Graymap(SampleEncoding::Ascii))),
        seed("pgm-16", "pgm", pgm16(&gray16)),
        seed("pbm-binary", "pbm", pnm(&bits, PnmSubtype::Bitmap(SampleEncoding::Binary))),
        seed("pbm-ascii", "pbm", pnm(&bits, PnmSubtype::Bitmap(SampleEncoding::Ascii))),
        seed("ppm-binary", "ppm", pnm(&rgb, PnmSubtype::Pixmap(SampleEncoding::Binary))),
        seed("ppm-ascii", "ppm", pnm(&rgb, PnmSubtype::Pixmap(SampleEncoding::Ascii))),
        seed(
            "pam-rgba",
            "pam",
            pnm(&rgba, PnmSubtype::ArbitraryMap),
        ),
        seed("pam-gray", "pam", pnm(&gray, PnmSubtype::ArbitraryMap)),
        seed("pam-gray-alpha", "pam", pnm(&la, PnmSubtype::ArbitraryMap)),
        seed(
            "pam-bits",
            "pam",
            [
                &b"P7\nWIDTH 5\nHEIGHT 2\nDEPTH 1\nMAXVAL 1\nTUPLTYPE BLACKANDWHITE\nENDHDR\n"[..],
                &[1, 0, 0, 1, 1, 0, 1, 0, 0, 1],
            ]
            .concat(),
        ),
        seed(
            "pam-16-alpha",
            "pam",
            [
                &b"P7\nWIDTH 3\nHEIGHT 1\nDEPTH 2\nMAXVAL 65535\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n"[..],
                &[0, 0, 0, 0, 0, 1, 1, 0, 255, 255, 0, 9],
            ]
            .concat(),
        ),
        seed("tiff-gray", "tif", tif(&gray)),
        seed("tiff-big-endian-pages", "tif", tiff_by_hand(true, 3)),
        seed("tiff-little-endian-pages", "tif", tiff_by_hand(false, 2)),
        seed("tiff-strips-lzw", "tif", tiff_strips(Compression::Lzw)),
        seed("tiff-strips", "tif", tiff_strips(Compression::Uncompressed)),
        seed("tiff-pages", "tif", tiff_stack(3)),
        seed("tiff-rgba", "tif", tif(&rgba)),
        seed("tiff-gray16", "tif", tif(&gray16)),
        seed("tiff-lzw", "tif", tiff_with(Compression::Lzw, false)),
        seed(
            "tiff-deflate",
            "tif",
            tiff_with(Compression::Deflate(DeflateLevel::Fast), false),
        ),
        seed("tiff-packbits", "tif", tiff_with(Compression::Packbits, false)),
        seed("bigtiff", "tif", tiff_with(Compression::Uncompressed, true)),
    ]
    .into_iter()
    .chain(npy_seeds())
    .collect()
}

/// Where in a file a mutation lands: in the first 64 bytes (headers) half
/// the time.
fn position(rng: &mut Rng, len: usize) -> usize {
    if rng.chance(2) {
        rng.below(len.clamp(1, 64))
    } else {
        rng.below(len.max(1))
    }
}

/// `value` written as `width` bytes at `at`, either byte order.
fn put(bytes: &mut [u8], at: usize, value: u64, width: usize, little: bool) {
    for i in 0..width {
        if let Some(b) = bytes.get_mut(at + i) {
            let shift = if little { i } else { width - 1 - i };
            *b = (value >> (8 * shift)) as u8;
        }
    }
}

/// Applies one blind mutation; returns its description.
fn blind(rng: &mut Rng, bytes: &mut Vec<u8>) -> String {
    let len = bytes.len();
    match rng.below(7) {
        0 => {
            let cut = rng.below(len.max(1));
            bytes.truncate(cut);
            format!("truncate at {cut}")
        }
        1 => {
            let flips = 1 + rng.below(8);
            let mut at = Vec::new();
            for _ in 0..flips {
                let (p, bit) = (position(rng, len), rng.below(8));
                if let Some(b) = bytes.get_mut(p) {
                    *b ^= 1 << bit;
                }
                at.push(format!("{p}.{bit}"));
            }
            format!("flip bits {}", at.join(","))
        }
        2 => {
            let p = position(rng, len);
            let value = *rng.pick(&[0u8, 1, 0x7f, 0x80, 0xfe, 0xff]);
            if let Some(b) = bytes.get_mut(p) {
                *b = value;
            }
            format!("byte {p} = {value:#x}")
        }
        3 => {
            let p = position(rng, len);
            let width = *rng.pick(&[2, 4, 8]);
            let value = if rng.chance(4) {
                rng.next()
            } else {
                *rng.pick(&WORDS)
            };
            let little = rng.chance(2);
            put(bytes, p, value, width, little);
            format!("word {p} ({width} bytes, little {little}) = {value:#x}")
        }
        4 => {
            let start = rng.below(len.max(1));
            let end = (start + 1 + rng.below(64)).min(len);
            bytes.drain(start..end.max(start));
            format!("delete {start}..{end}")
        }
        5 => {
            let start = rng.below(len.max(1));
            let end = (start + 1 + rng.below(64)).min(len);
            let copy = bytes[start..end.max(start)].to_vec();
            let to = rng.below(len + 1);
            bytes.splice(to..to, copy);
            format!("repeat {start}..{end} at {to}")
        }
        _ => {
            let to = rng.below(len + 1);
            let extra: Vec<u8> = (0..1 + rng.below(16)).map(|_| rng.next() as u8).collect();
            let n = extra.len();
            bytes.splice(to..to, extra);
            format!("insert {n} random bytes at {to}")
        }
    }
}

/// Replaces one number of a PNM header with a boundary value.
fn pnm_header(rng: &mut Rng, bytes: &mut Vec<u8>) -> String {
    // The numbers of the header: the first few runs of digits after the
    // magic (PAM: after a keyword).
    let end = bytes.len().min(80);
    let mut runs = Vec::new();
    let mut i = 2;
    while i < end {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            runs.push(start..i);
            if runs.len() == 5 {
                break;
            }
        }
        i += 1;
    }
    if runs.is_empty() {
        return blind(rng, bytes);
    }
    let run = rng.pick(&runs).clone();
    let text = *rng.pick(&[
        "0",
        "1",
        "2",
        "255",
        "256",
        "65535",
        "65536",
        "60000",
        "4294967295",
        "4294967296",
        "99999999999999999999",
        "-1",
        "",
        "1e3",
    ]);
    bytes.splice(run.clone(), text.bytes());
    format!("PNM number at {}..{} = {text:?}", run.start, run.end)
}

/// The PNG chunks: (offset of the length field, data length).
fn png_chunks(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut chunks = Vec::new();
    let mut at = 8;
    while at + 12 <= bytes.len() {
        let length = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if at + 12 + length > bytes.len() {
            break;
        }
        chunks.push((at, length));
        at += 12 + length;
    }
    chunks
}

/// Rewrites every PNG chunk's CRC, so that mutated data reaches the
/// decoder rather than its checksum.
fn mend_png(bytes: &mut [u8]) {
    for (at, length) in png_chunks(bytes) {
        let crc = crc32(&bytes[at + 4..at + 8 + length]);
        bytes[at + 8 + length..at + 12 + length].copy_from_slice(&crc.to_be_bytes());
    }
}

/// Sets one IHDR field (or a chunk length) to a boundary value, CRCs
/// mended.
fn png_header(rng: &mut Rng, bytes: &mut Vec<u8>) -> String {
    if bytes.len() < 33 || &bytes[12..16] != b"IHDR" {
        return blind(rng, bytes);
    }
    let description = match rng.below(6) {
        0 | 1 => {
            let at = 16 + 4 * rng.below(2);
            let value = *rng.pick(&WORDS);
            put(bytes, at, value, 4, false);
            format!(
                "IHDR {} = {value}",
                if at == 16 { "width" } else { "height" }
            )
        }
        2 => {
            let depth = *rng.pick(&[0u8, 1, 2, 3, 4, 8, 16, 32, 255]);
            bytes[24] = depth;
            format!("IHDR bit depth = {depth}")
        }
        3 => {
            let colour = *rng.pick(&[0u8, 1, 2, 3, 4, 5, 6, 7, 255]);
            bytes[25] = colour;
            format!("IHDR colour type = {colour}")
        }
        4 => {
            let at = 26 + rng.below(3);
            let value = *rng.pick(&[0u8, 1, 2, 255]);
            bytes[at] = value;
            format!("IHDR byte {at} = {value}")
        }
        _ => {
            let chunks = png_chunks(bytes);
            if chunks.is_empty() {
                return blind(rng, bytes);
            }
            let (at, _) = *rng.pick(&chunks);
            let value = *rng.pick(&WORDS);
            put(bytes, at, value, 4, false);
            format!("chunk length at {at} = {value}")
        }
    };
    mend_png(bytes);
    description
}

/// The directory entries of a little-endian classic TIFF: (offset of the
/// entry, offset of the next-directory pointer after its directory).
fn tiff_entries(bytes: &[u8]) -> (Vec<usize>, Vec<usize>) {
    let (mut entries, mut links) = (Vec::new(), Vec::new());
    if bytes.len() < 8 || &bytes[..4] != b"II*\0" {
        return (entries, links);
    }
    let u16_at = |at: usize| {
        bytes
            .get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
    };
    let mut next = u32_at(4).unwrap_or(0);
    while next != 0 && links.len() < 8 {
        let Some(count) = u16_at(next) else { break };
        let first = next + 2;
        let link = first + 12 * count as usize;
        if link + 4 > bytes.len() {
            break;
        }
        entries.extend((0..count as usize).map(|i| first + 12 * i));
        links.push(link);
        next = u32_at(link).unwrap_or(0);
    }
    (entries, links)
}

/// Sets one TIFF directory field or next-page pointer to a value that
/// matters.
fn tiff_header(rng: &mut Rng, bytes: &mut Vec<u8>) -> String {
    let (entries, links) = tiff_entries(bytes);
    if entries.is_empty() {
        return blind(rng, bytes);
    }
    let len = bytes.len() as u64;
    if rng.chance(4) {
        let link = *rng.pick(&links);
        let first = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as u64;
        let random = rng.next() % len.max(1);
        let value = *rng.pick(&[
            0,
            first,
            link.saturating_sub(14) as u64,
            len,
            len - 1,
            0xffff_ffff,
            random,
        ]);
        put(bytes, link, value, 4, true);
        return format!("next-page pointer at {link} = {value}");
    }
    let entry = *rng.pick(&entries);
    let tag = u16::from_le_bytes([bytes[entry], bytes[entry + 1]]);
    match rng.below(4) {
        0 => {
            // The value or offset: sizes, depths, counts, offsets.
            let value = *rng.pick(&[
                0,
                1,
                2,
                3,
                4,
                5,
                6,
                7,
                8,
                32773,
                32946,
                16,
                32,
                64,
                0x7fff,
                0xffff,
                60_000,
                len,
                len - 1,
                0xffff_ffff,
            ]);
            let width = if rng.chance(2) { 2 } else { 4 };
            put(bytes, entry + 8, value, width, true);
            format!("tag {tag} value ({width} bytes) = {value}")
        }
        1 => {
            let count = *rng.pick(&[0u64, 1, 2, 3, 4, 1000, 0x3fff_ffff, 0xffff_ffff]);
            put(bytes, entry + 4, count, 4, true);
            format!("tag {tag} count = {count}")
        }
        2 => {
            let kind = *rng.pick(&[0u64, 1, 2, 3, 4, 5, 7, 11, 12, 13, 16, 17, 99]);
            put(bytes, entry + 2, kind, 2, true);
            format!("tag {tag} type = {kind}")
        }
        _ => {
            let new_tag = *rng.pick(&[
                256u64, 257, 258, 259, 262, 273, 277, 278, 279, 284, 317, 338, 339,
            ]);
            put(bytes, entry, new_tag, 2, true);
            format!("tag {tag} renamed {new_tag}")
        }
    }
}

/// Where `needle` first occurs in `bytes`.
fn find(bytes: &[u8], needle: &[u8]) -> Option<usize> {
    bytes.windows(needle.len()).position(|w| w == needle)
}

/// Changes one field of a `.npy` header: a number of the shape, the descr,
/// the order, the header's length or the format version. Edits of the
/// text mend the header length (three times in four) so that the parser
/// reads what was edited.
fn npy_header(rng: &mut Rng, bytes: &mut Vec<u8>) -> String {
    if bytes.len() < 12 || !bytes.starts_with(crate::npy::MAGIC) {
        return blind(rng, bytes);
    }
    let v1 = bytes[6] == 1;
    let text_at = if v1 { 10 } else { 12 };
    let description = match rng.below(5) {
        0 => {
            // A number of the shape tuple.
            let Some(open) = find(bytes, b"'shape': (").map(|at| at + 10) else {
                return blind(rng, bytes);
            };
            let mut runs = Vec::new();
            let mut i = open;
            while i < bytes.len() && bytes[i] != b')' {
                if bytes[i].is_ascii_digit() {
                    let start = i;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                    runs.push(start..i);
                } else {
                    i += 1;
                }
            }
            if runs.is_empty() {
                return blind(rng, bytes);
            }
            let run = rng.pick(&runs).clone();
            let text = *rng.pick(&[
                "0",
                "1",
                "2",
                "3",
                "65535",
                "65536",
                "4294967295",
                "4294967296",
                "18446744073709551615",
                "99999999999999999999",
                "-1",
                "",
                "1, 1",
                "2L",
            ]);
            bytes.splice(run.clone(), text.bytes());
            format!("shape number at {}..{} = {text:?}", run.start, run.end)
        }
        1 => {
            let Some(at) = find(bytes, b"'descr': '").map(|at| at + 10) else {
                return blind(rng, bytes);
            };
            let Some(end) = bytes[at..].iter().position(|&b| b == b'\'').map(|n| at + n) else {
                return blind(rng, bytes);
            };
            let descr = *rng.pick(&[
                "|u1", "|b1", "|i1", "<u2", ">i2", "<u4", ">i4", "<u8", ">i8", "<f4", ">f8", "<f2",
                "<c8", "|u2", "u1", "O", "<U3", "", "<", "=u4", "|V8",
            ]);
            bytes.splice(at..end, descr.bytes());
            format!("descr = {descr:?}")
        }
        2 => {
            let (from, to): (&[u8], &[u8]) = if find(bytes, b"False").is_some() {
                (b"False", b"True")
            } else {
                (b"True", b"False")
            };
            let Some(at) = find(bytes, from) else {
                return blind(rng, bytes);
            };
            bytes.splice(at..at + from.len(), to.iter().copied());
            format!("fortran_order = {}", String::from_utf8_lossy(to))
        }
        3 => {
            let value = *rng.pick(&WORDS);
            let width = if v1 { 2 } else { 4 };
            put(bytes, 8, value, width, true);
            return format!("header length = {value}");
        }
        _ => {
            let version = *rng.pick(&[0u8, 1, 2, 3, 4, 255]);
            bytes[6] = version;
            return format!("version = {version}");
        }
    };
    // The edited text: mend the length to end it at its newline.
    if rng.chance(4) {
        return description;
    }
    if let Some(newline) = bytes[text_at.min(bytes.len())..]
        .iter()
        .position(|&b| b == b'\n')
    {
        let length = (newline + 1) as u64;
        put(bytes, 8, length, if v1 { 2 } else { 4 }, true);
        return format!("{description}, length mended");
    }
    description
}

/// Random options: page, threshold, channel, inversion; for a volume,
/// mostly no page (a volume refuses one).
fn options(rng: &mut Rng, volume: bool) -> ReadOptions {
    let threshold = match rng.below(4) {
        0 => Threshold::Above(rng.below(300) as u32),
        1 => Threshold::Otsu,
        _ => Threshold::Nonzero,
    };
    let channel = if rng.chance(4) {
        Channel::Alpha
    } else {
        Channel::Colour
    };
    ReadOptions {
        binarization: Binarization {
            threshold,
            invert: rng.chance(2),
            channel,
        },
        // Mostly the page a file of one page allows: a page past the last
        // is refused before the pixels are decoded.
        page: match rng.below(8) {
            0 => Some(0),
            1 if !volume => Some(1 + rng.below(3)),
            _ => None,
        },
        max_pixels: MAX_PIXELS,
    }
}

/// What a reader gives: its pixels must be what its size says, 0 or 1.
trait Outcome {
    fn verify(&self) -> Result<(), String>;
}

impl Outcome for crate::Decoded {
    fn verify(&self) -> Result<(), String> {
        let image = &self.image;
        let pixels = image.width() as u64 * image.height() as u64;
        if pixels > MAX_PIXELS || image.pixels().len() as u64 != pixels {
            return Err(format!("an image of {}x{}", image.width(), image.height()));
        }
        if image.pixels().iter().any(|&p| p > 1) {
            return Err("pixels other than 0 and 1".into());
        }
        Ok(())
    }
}

impl Outcome for DecodedVolume {
    fn verify(&self) -> Result<(), String> {
        let volume = &self.volume;
        let (width, height, depth) = (volume.width(), volume.height(), volume.depth());
        let voxels = (width as u128) * (height as u128) * (depth as u128);
        if voxels > u128::from(MAX_PIXELS) || volume.voxels().len() as u128 != voxels {
            return Err(format!("a volume of {width}x{height}x{depth}"));
        }
        if volume.voxels().iter().any(|&p| p > 1) {
            return Err("voxels other than 0 and 1".into());
        }
        Ok(())
    }
}

/// What one decode gave, or what was wrong with it.
fn check<T: Outcome>(
    result: std::thread::Result<ccl_core::Result<T>>,
    largest: usize,
    elapsed: Duration,
) -> Result<(), String> {
    if elapsed > HANG {
        return Err(format!("took {elapsed:?}"));
    }
    if largest > ALLOCATION_BOUND {
        return Err(format!("allocated {largest} bytes at once"));
    }
    match result {
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panicked: {message}"))
        }
        Ok(Ok(decoded)) => decoded.verify(),
        Ok(Err(error)) => {
            let message = error.to_string();
            if message.is_empty() || message.contains('\n') {
                return Err(format!("an error that is not one line: {message:?}"));
            }
            Ok(())
        }
    }
}

/// What `f` returns, and the largest single allocation it made.
pub(crate) fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|largest| largest.set(0));
    let value = f();
    (value, LARGEST.with(Cell::get))
}

/// One decode, timed and with its largest allocation: whether it gave an
/// image, or what was wrong with it.
fn run(bytes: &[u8], path: &Path, options: &ReadOptions, stdin: bool) -> Result<bool, String> {
    timed(|| {
        if stdin {
            read_stream(Cursor::new(bytes), Path::new("-"), options)
        } else {
            decode_with(Cursor::new(bytes), path, options)
        }
    })
}

/// [`run`] for the volume readers.
fn run_volume(
    bytes: &[u8],
    path: &Path,
    options: &ReadOptions,
    stdin: bool,
) -> Result<bool, String> {
    timed(|| {
        if stdin {
            read_volume_stream(Cursor::new(bytes), Path::new("-"), options)
        } else {
            decode_volume_with(Cursor::new(bytes), path, options)
        }
    })
}

/// What [`TiffBytes`](crate::TiffBytes) read of a file: every plane, when
/// its shape is within the limit, and the pixels its shape has.
struct Streamed {
    read: Vec<u8>,
    pixels: u64,
}

impl Outcome for Streamed {
    fn verify(&self) -> Result<(), String> {
        let expected = if self.pixels <= MAX_PIXELS {
            self.pixels
        } else {
            0
        };
        if self.read.len() as u64 != expected {
            return Err(format!(
                "read {} of {} pixels",
                self.read.len(),
                self.pixels
            ));
        }
        Ok(())
    }
}

/// [`run`] for the streaming reader, the bytes written to `path`: it opens
/// the file and, when its shape is within the limit, reads its first half
/// of planes and then the rest (from inside strips, where they split one).
fn run_streamed(bytes: &[u8], path: &Path) -> Result<bool, String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    timed(|| {
        let tiff = crate::TiffBytes::open(path)?;
        let shape = tiff.shape().to_vec();
        let pixels = shape
            .iter()
            .fold(1u64, |n, &side| n.saturating_mul(side as u64));
        let mut read = Vec::new();
        if pixels <= MAX_PIXELS {
            let plane_len: usize = shape[1..].iter().product();
            let half = shape[0] / 2;
            read = vec![0u8; pixels as usize];
            let (first, rest) = read.split_at_mut(half * plane_len);
            tiff.read_planes(0, first)?;
            tiff.read_planes(half, rest)?;
        }
        Ok(Streamed { read, pixels })
    })
}

/// Runs one decode under `catch_unwind`, timed and with its largest
/// allocation: whether it gave an image, or what was wrong with it.
fn timed<T: Outcome>(decode: impl FnOnce() -> ccl_core::Result<T>) -> Result<bool, String> {
    LARGEST.with(|largest| largest.set(0));
    let start = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(decode));
    let largest = LARGEST.with(Cell::get);
    let decoded = matches!(result, Ok(Ok(_)));
    check(result, largest, start.elapsed()).map(|()| decoded)
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={text} is not a number")),
        Err(_) => default,
    }
}

/// The case being decoded, for the watchdog's report.
static CURRENT: Mutex<String> = Mutex::new(String::new());

#[test]
fn mutated_files_decode_or_fail_cleanly() {
    let cases = env_number("CCL_FUZZ_ITERATIONS", DEFAULT_CASES);
    let seed = env_number("CCL_FUZZ_SEED", 0x5EED_0CC1);
    let seeds = seeds();
    let streamed_path =
        std::env::temp_dir().join(format!("ccl-fuzz-streamed-{}.tif", std::process::id()));
    // Every seed decodes as it is; the TIFF stacks as volumes too, of as
    // many slices as they have pages.
    for s in &seeds {
        let path = Path::new("seed").with_extension(s.extension);
        if s.extension == "npy" || s.name.ends_with("pages") {
            let decoded = decode_volume_with(Cursor::new(&s.bytes), &path, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{} as a volume: {e}", s.name));
            assert!(decoded.volume.voxels().contains(&1), "{}", s.name);
            assert_eq!(
                decoded.volume.depth() > 1,
                !s.name.ends_with("2d"),
                "{}",
                s.name
            );
            if s.extension == "npy" {
                continue;
            }
        }
        let options = ReadOptions {
            page: s.name.ends_with("pages").then_some(1),
            ..Default::default()
        };
        let decoded = decode_with(Cursor::new(&s.bytes), &path, &options)
            .unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(decoded.pages > 1, options.page.is_some(), "{}", s.name);
        // The 8-bit gray TIFFs stream; the others are refused cleanly.
        if s.extension == "tif" {
            let streamed = run_streamed(&s.bytes, &streamed_path);
            let gray = !(s.name.contains("rgba") || s.name.contains("16"));
            assert_eq!(streamed, Ok(gray), "{} streamed", s.name);
        }
    }
    // A case stuck for HANG is reported with its mutations, and the run
    // ends: a hang cannot be caught.
    let started = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let clock = Instant::now();
    let mut failures = Vec::new();
    let mut images = 0;
    let mut kinds = std::collections::HashSet::new();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let at = started.load(Ordering::Relaxed);
                let now = clock.elapsed().as_millis() as u64;
                if at != 0 && now.saturating_sub(at) > 2 * HANG.as_millis() as u64 {
                    eprintln!("hang: {}", CURRENT.lock().unwrap());
                    std::process::exit(101);
                }
            }
        });
        // Ends the watchdog however the loop ends (a bug of this test that
        // panics included).
        struct Done<'a>(&'a AtomicBool);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Relaxed);
            }
        }
        let _done = Done(&done);
        // splitmix64 of the seed: nearby seeds start far apart, never at 0.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let mut rng = Rng((z ^ (z >> 31)) | 1);
        for case in 0..cases {
            let s = &seeds[rng.below(seeds.len())];
            let mut bytes = s.bytes.clone();
            let mut steps = Vec::new();
            // One mutation in half the cases, up to four in the others.
            let count = if rng.chance(2) { 1 } else { 2 + rng.below(3) };
            for _ in 0..count {
                let step = match (s.extension, rng.chance(2)) {
                    ("png", true) => png_header(&mut rng, &mut bytes),
                    ("tif", true) => tiff_header(&mut rng, &mut bytes),
                    ("pgm" | "pbm" | "ppm" | "pam", true) => pnm_header(&mut rng, &mut bytes),
                    ("npy", true) => npy_header(&mut rng, &mut bytes),
                    _ => blind(&mut rng, &mut bytes),
                };
                steps.push(step);
            }
            if s.extension == "png" && rng.chance(2) {
                mend_png(&mut bytes);
                steps.push("CRCs mended".into());
            }
            // The .npy seeds are volumes; every other seed is read as a
            // volume one case in four.
            let volume = s.extension == "npy" || rng.chance(4);
            let options = options(&mut rng, volume);
            let stdin = rng.chance(8);
            let extension = if rng.chance(8) { "png" } else { s.extension };
            let path = Path::new("case").with_extension(extension);
            let description = format!(
                "seed {seed:#x} case {case}: {} mutated by [{}], read{} {} with {options:?}",
                s.name,
                steps.join("; "),
                if volume { " as a volume" } else { "" },
                if stdin {
                    "from standard input".to_string()
                } else {
                    format!("as case.{extension}")
                }
            );
            *CURRENT.lock().unwrap() = description.clone();
            started.store(clock.elapsed().as_millis().max(1) as u64, Ordering::Relaxed);
            let mut outcome = if volume {
                run_volume(&bytes, &path, &options, stdin)
            } else {
                run(&bytes, &path, &options, stdin)
            };
            // A TIFF is streamed too one case in four (chosen by the case's
            // number, so that the other readers' cases stay those of the
            // seed without it).
            if s.extension == "tif" && case % 4 == 0 && outcome.is_ok() {
                *CURRENT.lock().unwrap() = format!("{description}, then streamed");
                if let Err(what) = run_streamed(&bytes, &streamed_path) {
                    outcome = Err(format!("streamed: {what}"));
                }
            }
            started.store(0, Ordering::Relaxed);
            images += usize::from(outcome == Ok(true));
            if let Err(what) = outcome {
                // One report per kind of failure (numbers aside).
                let kind: String = what.chars().filter(|c| !c.is_ascii_digit()).collect();
                if !kinds.insert(kind) {
                    continue;
                }
                let file =
                    std::env::temp_dir().join(format!("ccl-fuzz-{seed:x}-{case}.{extension}"));
                let _ = std::fs::write(&file, &bytes);
                failures.push(format!(
                    "{description}: {what} (bytes in {})",
                    file.display()
                ));
                if failures.len() == 20 {
                    break;
                }
            }
        }
    });
    let _ = std::fs::remove_file(&streamed_path);
    let elapsed = clock.elapsed();
    eprintln!(
        "{cases} mutated files in {elapsed:.1?}: {images} decoded to an image, {} failures",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
