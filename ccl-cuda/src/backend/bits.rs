//! The bit front end (`bits.cu`): a byte image read once, at full
//! bandwidth, into a packed bit image, so that the kernels after it find
//! runs and segments with word operations on 32 pixels at a time instead of
//! a lane per pixel and a ballot per word.
//!
//! A variant holds a [`BitImage`] (its buffer is reused across calls),
//! calls [`BitImage::pack`] on each image and passes the returned
//! [`BitImageArgs`] to its kernels, which read it as `CclBits` with the
//! helpers of `ccl_device.cuh` (`ccl_bits_row`, `ccl_bits_word`).

use std::sync::Arc;

use ccl_core::{Error, Result};
use cudarc::driver::{CudaStream, DeviceRepr};

use super::Run;
use crate::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, linear_grid,
};

/// Threads (output words) per block of the packing kernel.
const PACK_BLOCK: u32 = 256;

/// The packing kernel, compiled once per process and device.
pub(crate) const KERNELS: KernelSource = KernelSource {
    name: "ccl_bits",
    source: include_str!("bits.cu"),
    constants: &[],
};

inventory::submit! { KERNELS }

/// `CclBits`: a packed bit image as a kernel argument. Bit `p` of word `w`
/// of row `y` (at `bits[y * words_per_row + w]`) is pixel `(32 w + p, y)`,
/// 1 = foreground; the bits of a row's last word at or past `width` are 0.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct BitImageArgs {
    /// The first word of the first row.
    pub bits: DevPtr<u32>,
    /// Words per row: `ceil(width / 32)`, no padding.
    pub words_per_row: u32,
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

// SAFETY: plain old data with C layout, matching CclBits.
unsafe impl DeviceRepr for BitImageArgs {}

/// The bit image of the last packed byte image, in a device buffer that
/// only grows, and the kernel that packs it.
pub struct BitImage {
    kernel: Kernel<(ImageArgs, DevPtr<u32>, u32, u32)>,
    words: DeviceBuffer<u32>,
}

impl BitImage {
    /// Loads the packing kernel (compiled once per process and device);
    /// nothing is allocated until the first [`pack`](Self::pack).
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(Self {
            kernel: Kernel::load(gpu, &KERNELS, "ccl_pack_bits")?,
            words: DeviceBuffer::new(),
        })
    }

    /// Words per row of the bit image of an image `width` pixels wide.
    pub fn words_per_row(width: usize) -> usize {
        width.div_ceil(32)
    }

    /// The bit image of `image` for a labeling `run`: the one a composite
    /// variant packed before it handed the image on ([`Run::packed`]), else
    /// [`pack`](Self::pack)'s.
    ///
    /// [`Run::packed`]: super::Run::packed
    pub fn pack_for(&mut self, run: &Run<'_>, image: &DeviceImage<'_>) -> Result<BitImageArgs> {
        match run.packed {
            Some(bits) => Ok(bits),
            None => self.pack(run.stream, image),
        }
    }

    /// Queues the packing of `image` (any pitch, any alignment, any nonzero
    /// byte = foreground) on `stream` and returns the bit image, valid in
    /// `stream`'s order until the next `pack`.
    pub fn pack(
        &mut self,
        stream: &Arc<CudaStream>,
        image: &DeviceImage<'_>,
    ) -> Result<BitImageArgs> {
        let words_per_row = Self::words_per_row(image.width());
        let words = words_per_row * image.height();
        // The kernel indexes words as u32; a DeviceImage has fewer than 2^32
        // pixels, so this holds for every image it accepts.
        let words_u32 = u32::try_from(words).map_err(|_| {
            Error::InvalidDimensions(format!(
                "a {}x{} image has too many bit words for 32-bit indices",
                image.width(),
                image.height()
            ))
        })?;
        let bits = DevPtr::of_mut(self.words.reserve(stream, words)?, stream);
        if words > 0 {
            // SAFETY: the buffer holds `words` words; the kernel reads the
            // image's `width` bytes of each of its rows only (DeviceImage
            // checked that they lie in its buffer).
            unsafe {
                self.kernel.launch(
                    stream,
                    linear_grid(words, PACK_BLOCK)?,
                    (image.args(stream), bits, words_per_row as u32, words_u32),
                )
            }?;
        }
        Ok(BitImageArgs {
            bits,
            words_per_row: words_per_row as u32,
            width: image.width() as u32,
            height: image.height() as u32,
        })
    }
}
