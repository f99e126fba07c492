//! Binary input images: a borrowed view ([`BinaryImage`]) and an owned buffer
//! ([`BinaryImageBuf`]).

use crate::{Error, Result};

/// The largest pixel count an image may have: labels are `u32`, and
/// `u32::MAX` is kept free so that `1 + raster index` never overflows.
pub const MAX_PIXELS: u64 = u32::MAX as u64 - 1;

/// Checks that `width × height` pixels fit the 32-bit label space.
///
/// ```
/// assert!(ccl_core::check_size(65_535, 65_535).is_ok());
/// assert!(ccl_core::check_size(65_536, 65_536).is_err());
/// ```
pub fn check_size(width: usize, height: usize) -> Result<()> {
    let pixels = width as u128 * height as u128;
    if pixels > MAX_PIXELS as u128 {
        return Err(Error::ImageTooLarge {
            width,
            height,
            pixels,
        });
    }
    Ok(())
}

/// A borrowed, row-major binary image of `u8` pixels: any nonzero byte is
/// foreground.
///
/// Rows start `stride` bytes apart (`stride >= width`); the bytes between
/// `width` and `stride` are never read, and the last row may end right after
/// its `width` pixels, as in an OpenCV region of interest.
///
/// ```
/// use ccl_core::BinaryImage;
/// let pixels = [1, 0, 1, 9, 0, 0, 0, 1, 1, 1];
/// let image = BinaryImage::with_stride(&pixels, 3, 2, 7)?; // rows: 1 0 1 / 1 1 1
/// assert!(image.is_foreground(0, 1));
/// assert_eq!(image.row(1), &[1, 1, 1]);
/// # Ok::<(), ccl_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BinaryImage<'a> {
    pixels: &'a [u8],
    width: usize,
    height: usize,
    stride: usize,
}

impl<'a> BinaryImage<'a> {
    /// A tightly packed image (`stride == width`).
    pub fn new(pixels: &'a [u8], width: usize, height: usize) -> Result<Self> {
        Self::with_stride(pixels, width, height, width)
    }

    /// An image whose rows start `stride` bytes apart.
    pub fn with_stride(
        pixels: &'a [u8],
        width: usize,
        height: usize,
        stride: usize,
    ) -> Result<Self> {
        check_size(width, height)?;
        if stride < width {
            return Err(Error::InvalidDimensions(format!(
                "stride {stride} is smaller than width {width}"
            )));
        }
        let needed = if height == 0 || width == 0 {
            0
        } else {
            (height - 1)
                .checked_mul(stride)
                .and_then(|n| n.checked_add(width))
                .ok_or_else(|| {
                    Error::InvalidDimensions(format!(
                        "{height} rows of stride {stride} overflow the address space"
                    ))
                })?
        };
        if pixels.len() < needed {
            return Err(Error::InvalidDimensions(format!(
                "a {width}x{height} image with stride {stride} needs {needed} bytes, the buffer has {}",
                pixels.len()
            )));
        }
        Ok(Self {
            pixels,
            width,
            height,
            stride,
        })
    }

    /// Width in pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Bytes from the start of one row to the start of the next.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// `width * height`.
    pub fn pixel_count(&self) -> usize {
        self.width * self.height
    }

    /// True when the image has no pixels (width or height is 0).
    pub fn is_empty(&self) -> bool {
        self.pixel_count() == 0
    }

    /// The underlying bytes, `stride` per row (the last row may be shorter).
    pub fn as_bytes(&self) -> &'a [u8] {
        self.pixels
    }

    /// Row `y` as `width` bytes.
    ///
    /// # Panics
    /// If `y >= height`.
    pub fn row(&self, y: usize) -> &'a [u8] {
        assert!(
            y < self.height,
            "row {y} out of an image of height {}",
            self.height
        );
        &self.pixels[y * self.stride..y * self.stride + self.width]
    }

    /// Whether pixel `(x, y)` is foreground (nonzero).
    ///
    /// # Panics
    /// If the pixel lies outside the image.
    pub fn is_foreground(&self, x: usize, y: usize) -> bool {
        assert!(
            x < self.width,
            "column {x} out of an image of width {}",
            self.width
        );
        self.row(y)[x] != 0
    }

    /// The number of foreground pixels.
    pub fn foreground_count(&self) -> usize {
        (0..self.height)
            .map(|y| self.row(y).iter().filter(|&&p| p != 0).count())
            .sum()
    }

    /// A packed copy with every foreground pixel set to 1.
    pub fn to_buf(&self) -> BinaryImageBuf {
        let mut pixels = Vec::with_capacity(self.pixel_count());
        for y in 0..self.height {
            pixels.extend(self.row(y).iter().map(|&p| u8::from(p != 0)));
        }
        BinaryImageBuf {
            pixels,
            width: self.width,
            height: self.height,
        }
    }
}

/// An owned, packed binary image holding 0 (background) or 1 (foreground).
///
/// ```
/// use ccl_core::BinaryImageBuf;
/// let image = BinaryImageBuf::from_fn(4, 2, |x, y| x == y)?;
/// assert_eq!(image.view().foreground_count(), 2);
/// # Ok::<(), ccl_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BinaryImageBuf {
    pixels: Vec<u8>,
    width: usize,
    height: usize,
}

impl BinaryImageBuf {
    /// An all-background image.
    pub fn new(width: usize, height: usize) -> Result<Self> {
        check_size(width, height)?;
        Ok(Self {
            pixels: vec![0; width * height],
            width,
            height,
        })
    }

    /// An image whose pixel `(x, y)` is `foreground(x, y)`.
    pub fn from_fn(
        width: usize,
        height: usize,
        mut foreground: impl FnMut(usize, usize) -> bool,
    ) -> Result<Self> {
        let mut image = Self::new(width, height)?;
        for y in 0..height {
            for x in 0..width {
                image.pixels[y * width + x] = u8::from(foreground(x, y));
            }
        }
        Ok(image)
    }

    /// Takes packed pixels; any nonzero byte is foreground and stored as 1.
    pub fn from_pixels(mut pixels: Vec<u8>, width: usize, height: usize) -> Result<Self> {
        BinaryImage::new(&pixels, width, height)?;
        pixels.truncate(width * height);
        for p in &mut pixels {
            *p = u8::from(*p != 0);
        }
        Ok(Self {
            pixels,
            width,
            height,
        })
    }

    /// The borrowed view that every algorithm takes.
    pub fn view(&self) -> BinaryImage<'_> {
        BinaryImage {
            pixels: &self.pixels,
            width: self.width,
            height: self.height,
            stride: self.width,
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The packed pixels, 0 or 1.
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// Sets pixel `(x, y)`.
    ///
    /// # Panics
    /// If the pixel lies outside the image.
    pub fn set(&mut self, x: usize, y: usize, foreground: bool) {
        assert!(
            x < self.width && y < self.height,
            "pixel ({x}, {y}) outside the image"
        );
        self.pixels[y * self.width + x] = u8::from(foreground);
    }

    /// Whether pixel `(x, y)` is foreground.
    ///
    /// # Panics
    /// If the pixel lies outside the image.
    pub fn get(&self, x: usize, y: usize) -> bool {
        self.view().is_foreground(x, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stride_must_cover_width() {
        assert!(BinaryImage::with_stride(&[0; 8], 4, 2, 3).is_err());
    }

    #[test]
    fn buffer_must_cover_every_row() {
        assert!(BinaryImage::new(&[0; 7], 4, 2).is_err());
        // The last row needs only `width` bytes, not a full stride.
        assert!(BinaryImage::with_stride(&[0; 9], 4, 2, 5).is_ok());
    }

    #[test]
    fn empty_images_are_valid() {
        for (w, h) in [(0, 0), (0, 5), (5, 0)] {
            let image = BinaryImage::new(&[], w, h).unwrap();
            assert!(image.is_empty());
            assert_eq!(image.foreground_count(), 0);
        }
    }

    #[test]
    fn too_many_pixels_is_refused_not_truncated() {
        let err = BinaryImage::new(&[], 1 << 16, 1 << 16).unwrap_err();
        assert!(matches!(err, Error::ImageTooLarge { .. }), "{err}");
        assert!(check_size(usize::MAX, usize::MAX).is_err());
        assert!(check_size(MAX_PIXELS as usize, 1).is_ok());
        assert!(check_size(MAX_PIXELS as usize + 1, 1).is_err());
    }

    #[test]
    fn to_buf_normalises_to_zero_and_one() {
        let image = BinaryImage::with_stride(&[0, 7, 255, 3, 0, 200], 2, 2, 3).unwrap();
        assert_eq!(image.to_buf().pixels(), &[0, 1, 1, 0]);
    }
}
