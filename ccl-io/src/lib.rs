//! `ccl-io`: the files of `ccl`'s users. Binary images are read from PNG,
//! PNM (PBM / PGM / PPM / PAM), TIFF or standard input, and binarized by a
//! rule (any nonzero sample, a threshold, Otsu's threshold, inverted or
//! not, of the colour channels or of the alpha channel), one page of a
//! TIFF at a time, and no larger than a pixel limit checked from the header
//! ([`ReadOptions`]); label images are written as data (a 32-bit TIFF, a
//! NumPy `.npy`) or as a colour PNG. Volumes (3-D) are read from a NumPy
//! `.npy` array or a TIFF stack by the same rules and limit
//! ([`read_volume`]), and binary and label volumes are written as either
//! ([`save_volume`], [`save_volume_labels`]). The `ccl` facade re-exports
//! it as `ccl::io`.
//!
//! ```
//! use ccl_core::{BinaryImageBuf, Connectivity, LabelImage};
//! use ccl_io::{Binarization, ReadOptions, Threshold};
//!
//! # let dir = std::env::temp_dir().join(format!("ccl-io-crate-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! // A mask written and read back: any nonzero pixel is foreground.
//! let mask = BinaryImageBuf::from_fn(8, 4, |x, y| x < 3 || y == 3)?;
//! let path = dir.join("mask.png");
//! ccl_io::save_image(&mask, &path)?;
//! assert_eq!(ccl_io::load_image(&path)?, mask);
//!
//! // Gray images are binarized by a rule: here, dark objects on a light
//! // background (foreground at or below Otsu's threshold).
//! let binarization = Binarization { threshold: Threshold::Otsu, invert: true, ..Default::default() };
//! let decoded = ccl_io::read_image(&path, &ReadOptions { binarization, ..Default::default() })?;
//! assert_eq!(decoded.threshold, Some(0));
//!
//! // Labels as a NumPy array of uint32, shape (height, width).
//! let labels = LabelImage::new(2, 1, vec![1, 2])?;
//! ccl_io::save_labels(&labels, &dir.join("labels.npy"))?;
//!
//! // A volume as a TIFF stack, one page a slice, and back.
//! let volume = ccl_core::BinaryVolumeBuf::from_fn(4, 4, 3, |x, y, z| x == y || z == 1)?;
//! ccl_io::save_volume(&volume, &dir.join("volume.tif"))?;
//! assert_eq!(ccl_io::load_volume(&dir.join("volume.tif"))?, volume);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod binarize;
mod classes;
#[cfg(test)]
mod fuzz;
mod labels;
mod npy;
mod pages;
mod read;
mod stream;
mod tiff_stream;
mod volume;
mod write;

pub use binarize::{Binarization, Channel, Threshold, otsu_threshold};
pub use classes::{ClassMapFile, ClassValues, read_class_map};
pub use labels::{LabelFormat, label_colour, save_labels};
pub use read::{DEFAULT_MAX_PIXELS, Decoded, ReadOptions, decode, load_image, read_image};
pub use stream::{ByteElement, LabelBytes, NpyBytes, NpyLabelFile};
pub use tiff_stream::{TiffBytes, TiffLabelFile};
pub use volume::{
    DecodedVolume, VolumeFormat, load_volume, read_volume, save_volume, save_volume_labels,
};
pub use write::save_image;

#[cfg(test)]
mod tests {
    use ccl_core::BinaryImageBuf;

    /// A folder for one test's files, removed when dropped.
    pub(crate) struct TempDir(pub(crate) std::path::PathBuf);

    impl TempDir {
        pub(crate) fn new(tag: &str) -> Self {
            let dir = std::env::temp_dir().join(format!(
                "ccl-io-{tag}-{}-{:?}",
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

    /// A 13×7 image (PBM rows end in a partial byte) of scattered pixels.
    pub(crate) fn sample() -> BinaryImageBuf {
        BinaryImageBuf::from_fn(13, 7, |x, y| (x * 7 + y * 13 + x * y) % 5 < 2).unwrap()
    }

    /// A TIFF of `pages` 3×2 8-bit gray pages, page i filled with i + 1.
    pub(crate) fn tiff_stack(pages: u8) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut encoder = tiff::encoder::TiffEncoder::new(&mut out).unwrap();
        for page in 0..pages {
            encoder
                .write_image::<tiff::encoder::colortype::Gray8>(3, 2, &[page + 1; 6])
                .unwrap();
        }
        out.into_inner()
    }

    /// The offset of the entry for `tag` in the first directory of a
    /// little-endian TIFF.
    pub(crate) fn tiff_entry(bytes: &[u8], tag: u16) -> usize {
        let ifd = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
        let count = u16::from_le_bytes([bytes[ifd], bytes[ifd + 1]]) as usize;
        (0..count)
            .map(|i| ifd + 2 + 12 * i)
            .find(|&at| u16::from_le_bytes([bytes[at], bytes[at + 1]]) == tag)
            .unwrap_or_else(|| panic!("no tag {tag}"))
    }

    /// An image encoded by the `image` crate in `format`.
    pub(crate) fn encode(image: &image::DynamicImage, format: image::ImageFormat) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        image.write_to(&mut out, format).unwrap();
        out.into_inner()
    }

    /// CRC-32 (ISO-HDLC, as PNG chunks use).
    pub(crate) fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in bytes {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    crc >> 1 ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    /// A PNG signature and a valid IHDR chunk declaring `width` × `height`
    /// 8-bit gray, and nothing else: all a decoder needs to learn the size.
    pub(crate) fn png_header(width: u32, height: u32) -> Vec<u8> {
        let mut chunk = b"IHDR".to_vec();
        chunk.extend(width.to_be_bytes());
        chunk.extend(height.to_be_bytes());
        chunk.extend([8, 0, 0, 0, 0]);
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(13u32.to_be_bytes());
        png.extend(&chunk);
        png.extend(crc32(&chunk).to_be_bytes());
        png
    }
}
