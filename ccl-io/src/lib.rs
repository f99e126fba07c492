//! `ccl-io`: the files of `ccl`'s users. Binary images are read from PNG,
//! PNM (PBM / PGM / PPM / PAM), TIFF or standard input, and binarized by a
//! rule (any nonzero sample, a threshold, Otsu's threshold, inverted or
//! not); label images are written as data (a 32-bit TIFF, a NumPy `.npy`)
//! or as a colour PNG. The `ccl` facade re-exports it as `ccl::io`.
//!
//! ```
//! use ccl_core::{BinaryImageBuf, Connectivity, LabelImage};
//! use ccl_io::{Binarization, Threshold};
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
//! let rule = Binarization { threshold: Threshold::Otsu, invert: true };
//! let decoded = ccl_io::read_image(&path, rule)?;
//! assert_eq!(decoded.threshold, Some(0));
//!
//! // Labels as a NumPy array of uint32, shape (height, width).
//! let labels = LabelImage::new(2, 1, vec![1, 2])?;
//! ccl_io::save_labels(&labels, &dir.join("labels.npy"))?;
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod labels;
mod read;
mod write;

pub use labels::{LabelFormat, label_colour, save_labels};
pub use read::{Binarization, Decoded, Threshold, decode, load_image, read_image};
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
}
