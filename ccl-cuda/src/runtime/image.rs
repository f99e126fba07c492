//! Binary images as they live on the device.

use std::sync::Arc;

use ccl_core::{BinaryImage, Error, Result, check_size};
use cudarc::driver::{CudaStream, CudaView};

use super::buffer::DeviceBuffer;
use super::device::cuda_error;
use super::launch::{DevPtr, ImageArgs};

/// A binary image in device memory: `height` rows of `width` bytes, rows
/// `pitch` bytes apart, nonzero = foreground. Kernels take the dimensions as
/// `int`, so each must stay below 2^31.
pub struct DeviceImage<'a> {
    pixels: CudaView<'a, u8>,
    width: usize,
    height: usize,
    pitch: usize,
}

impl<'a> DeviceImage<'a> {
    /// Checks the dimensions against the buffer and the label range.
    pub fn new(
        pixels: CudaView<'a, u8>,
        width: usize,
        height: usize,
        pitch: usize,
    ) -> Result<Self> {
        check_size(width, height)?;
        // Kernels index columns as `int`, reaching up to two words past the width.
        let limit = i32::MAX as usize - 1024;
        if width > limit || height > limit || pitch > limit {
            return Err(Error::InvalidDimensions(format!(
                "CUDA kernels take dimensions up to {limit}; got width {width}, height {height}, pitch {pitch}"
            )));
        }
        if pitch < width {
            return Err(Error::InvalidDimensions(format!(
                "pitch {pitch} is smaller than width {width}"
            )));
        }
        let needed = if width == 0 || height == 0 {
            0
        } else {
            (height - 1) * pitch + width
        };
        if pixels.len() < needed {
            return Err(Error::InvalidDimensions(format!(
                "a {width}x{height} image with pitch {pitch} needs {needed} device bytes, the buffer has {}",
                pixels.len()
            )));
        }
        Ok(Self {
            pixels,
            width,
            height,
            pitch,
        })
    }

    /// The device bytes.
    pub fn pixels(&self) -> &CudaView<'a, u8> {
        &self.pixels
    }

    /// Width in pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Bytes between row starts.
    pub fn pitch(&self) -> usize {
        self.pitch
    }

    /// `width * height`.
    pub fn pixel_count(&self) -> usize {
        self.width * self.height
    }

    /// True when the image has no pixels.
    pub fn is_empty(&self) -> bool {
        self.pixel_count() == 0
    }

    /// The `count` rows from row `first` on, as an image of their own (an
    /// image of a batch labeled as the rows of one).
    pub fn rows(&self, first: usize, count: usize) -> Result<DeviceImage<'_>> {
        if first.checked_add(count).is_none_or(|end| end > self.height) {
            return Err(Error::InvalidDimensions(format!(
                "rows {first}..{first}+{count} of an image of {} rows",
                self.height
            )));
        }
        if count == 0 || self.width == 0 {
            return DeviceImage::new(self.pixels.slice(0..0), self.width, count, self.pitch);
        }
        DeviceImage::new(
            self.pixels.slice(first * self.pitch..),
            self.width,
            count,
            self.pitch,
        )
    }

    /// The image as the kernels' `CclImage` argument.
    pub fn args(&self, stream: &CudaStream) -> ImageArgs {
        // The dimensions fit an `int`: checked in `new`.
        ImageArgs {
            pixels: DevPtr::of(&self.pixels, stream),
            pitch: self.pitch as i32,
            width: self.width as i32,
            height: self.height as i32,
        }
    }
}

/// Copies `image` into `buffer` as it is laid out on the host (rows `stride`
/// bytes apart) and returns the device pitch. Nothing is allocated when the
/// buffer is already large enough.
pub fn upload_image(
    stream: &Arc<CudaStream>,
    buffer: &mut DeviceBuffer<u8>,
    image: &BinaryImage<'_>,
) -> Result<usize> {
    let bytes = if image.is_empty() {
        &[][..]
    } else {
        &image.as_bytes()[..(image.height() - 1) * image.stride() + image.width()]
    };
    let device = buffer.reserve(stream, bytes.len())?;
    if !bytes.is_empty() {
        stream
            .memcpy_htod(bytes, &mut device.slice_mut(..bytes.len()))
            .map_err(cuda_error)?;
    }
    Ok(image.stride())
}
