//! Binary input volumes: a borrowed view ([`BinaryVolume`]) and an owned
//! buffer ([`BinaryVolumeBuf`]), the 3-D counterparts of
//! [`BinaryImage`](crate::BinaryImage) and
//! [`BinaryImageBuf`](crate::BinaryImageBuf).

use crate::{BinaryImage, Error, MAX_PIXELS, Result};

/// Checks that `width × height × depth` voxels fit the 32-bit label space
/// (at most [`MAX_PIXELS`] voxels).
///
/// ```
/// assert!(ccl_core::check_volume_size(1024, 1024, 1024).is_ok());
/// assert!(ccl_core::check_volume_size(2048, 2048, 1024).is_err());
/// ```
pub fn check_volume_size(width: usize, height: usize, depth: usize) -> Result<()> {
    let voxels = (width as u128)
        .saturating_mul(height as u128)
        .saturating_mul(depth as u128);
    if voxels > MAX_PIXELS as u128 {
        return Err(Error::VolumeTooLarge {
            width,
            height,
            depth,
            voxels,
        });
    }
    Ok(())
}

/// A borrowed binary volume of `u8` voxels, x fastest, then y, then z: any
/// nonzero byte is foreground.
///
/// Rows start `row_stride` bytes apart (`>= width`) and slices
/// `slice_stride` bytes apart (at least a slice's rows); the bytes between
/// them are never read, so a numpy or OpenCV sub-volume is a view without a
/// copy.
///
/// ```
/// use ccl_core::BinaryVolume;
/// // Two slices of 2x2, stored with one byte of padding after each row.
/// let voxels = [1, 0, 9, 0, 1, 9, 0, 0, 9, 1, 1, 9];
/// let volume = BinaryVolume::with_strides(&voxels, 2, 2, 2, 3, 6)?;
/// assert!(volume.is_foreground(1, 1, 0));
/// assert_eq!(volume.row(1, 1), &[1, 1]);
/// assert_eq!(volume.foreground_count(), 4);
/// # Ok::<(), ccl_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BinaryVolume<'a> {
    voxels: &'a [u8],
    width: usize,
    height: usize,
    depth: usize,
    row_stride: usize,
    slice_stride: usize,
}

impl<'a> BinaryVolume<'a> {
    /// A tightly packed volume (`row_stride == width`, `slice_stride ==
    /// width * height`).
    pub fn new(voxels: &'a [u8], width: usize, height: usize, depth: usize) -> Result<Self> {
        Self::with_strides(voxels, width, height, depth, width, width * height)
    }

    /// A volume whose rows start `row_stride` bytes apart and slices
    /// `slice_stride` bytes apart.
    pub fn with_strides(
        voxels: &'a [u8],
        width: usize,
        height: usize,
        depth: usize,
        row_stride: usize,
        slice_stride: usize,
    ) -> Result<Self> {
        check_volume_size(width, height, depth)?;
        if row_stride < width {
            return Err(Error::InvalidDimensions(format!(
                "row stride {row_stride} is smaller than width {width}"
            )));
        }
        let overflow = || {
            Error::InvalidDimensions(format!(
                "{depth} slices of stride {slice_stride} overflow the address space"
            ))
        };
        let slice_bytes = match height {
            0 => 0,
            _ => (height - 1)
                .checked_mul(row_stride)
                .and_then(|n| n.checked_add(width))
                .ok_or_else(overflow)?,
        };
        if depth > 1 && slice_stride < slice_bytes {
            return Err(Error::InvalidDimensions(format!(
                "slice stride {slice_stride} is smaller than a slice's {slice_bytes} bytes"
            )));
        }
        let needed = if width == 0 || height == 0 || depth == 0 {
            0
        } else {
            (depth - 1)
                .checked_mul(slice_stride)
                .and_then(|n| n.checked_add(slice_bytes))
                .ok_or_else(overflow)?
        };
        if voxels.len() < needed {
            return Err(Error::InvalidDimensions(format!(
                "a {width}x{height}x{depth} volume with strides {row_stride} and {slice_stride} needs {needed} bytes, the buffer has {}",
                voxels.len()
            )));
        }
        Ok(Self {
            voxels,
            width,
            height,
            depth,
            row_stride,
            slice_stride,
        })
    }

    /// Width (x) in voxels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height (y) in voxels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Depth (z, the number of slices) in voxels.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Bytes from the start of one row to the start of the next.
    pub fn row_stride(&self) -> usize {
        self.row_stride
    }

    /// Bytes from the start of one slice to the start of the next.
    pub fn slice_stride(&self) -> usize {
        self.slice_stride
    }

    /// `width * height * depth`.
    pub fn voxel_count(&self) -> usize {
        self.width * self.height * self.depth
    }

    /// True when the volume has no voxels.
    pub fn is_empty(&self) -> bool {
        self.voxel_count() == 0
    }

    /// The underlying bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.voxels
    }

    /// Row `y` of slice `z` as `width` bytes.
    ///
    /// # Panics
    /// If the row lies outside the volume.
    pub fn row(&self, y: usize, z: usize) -> &'a [u8] {
        assert!(
            y < self.height && z < self.depth,
            "row ({y}, {z}) out of a {}x{}x{} volume",
            self.width,
            self.height,
            self.depth
        );
        let start = z * self.slice_stride + y * self.row_stride;
        &self.voxels[start..start + self.width]
    }

    /// Slice `z` as a 2-D image (a view, no copy).
    ///
    /// # Panics
    /// If `z >= depth`.
    pub fn slice(&self, z: usize) -> BinaryImage<'a> {
        assert!(
            z < self.depth,
            "slice {z} out of a volume of depth {}",
            self.depth
        );
        let start = z * self.slice_stride;
        let end = (start + self.slice_stride).min(self.voxels.len());
        BinaryImage::with_stride(
            &self.voxels[start..end],
            self.width,
            self.height,
            self.row_stride,
        )
        .expect("a slice of a checked volume is a valid image")
    }

    /// Whether voxel `(x, y, z)` is foreground (nonzero).
    ///
    /// # Panics
    /// If the voxel lies outside the volume.
    pub fn is_foreground(&self, x: usize, y: usize, z: usize) -> bool {
        assert!(
            x < self.width,
            "column {x} out of a volume of width {}",
            self.width
        );
        self.row(y, z)[x] != 0
    }

    /// The number of foreground voxels.
    pub fn foreground_count(&self) -> usize {
        self.rows()
            .map(|row| row.iter().filter(|&&p| p != 0).count())
            .sum()
    }

    /// Every row, z outer, y inner.
    pub fn rows(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        (0..self.depth).flat_map(move |z| (0..self.height).map(move |y| self.row(y, z)))
    }

    /// A packed copy with every foreground voxel set to 1.
    pub fn to_buf(&self) -> BinaryVolumeBuf {
        let mut voxels = Vec::with_capacity(self.voxel_count());
        for row in self.rows() {
            voxels.extend(row.iter().map(|&p| u8::from(p != 0)));
        }
        BinaryVolumeBuf {
            voxels,
            width: self.width,
            height: self.height,
            depth: self.depth,
        }
    }
}

/// An owned, packed binary volume holding 0 (background) or 1 (foreground).
///
/// ```
/// use ccl_core::BinaryVolumeBuf;
/// let volume = BinaryVolumeBuf::from_fn(3, 3, 3, |x, y, z| x == y && y == z)?;
/// assert_eq!(volume.view().foreground_count(), 3);
/// # Ok::<(), ccl_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BinaryVolumeBuf {
    voxels: Vec<u8>,
    width: usize,
    height: usize,
    depth: usize,
}

impl BinaryVolumeBuf {
    /// An all-background volume.
    pub fn new(width: usize, height: usize, depth: usize) -> Result<Self> {
        check_volume_size(width, height, depth)?;
        Ok(Self {
            voxels: vec![0; width * height * depth],
            width,
            height,
            depth,
        })
    }

    /// A volume whose voxel `(x, y, z)` is `foreground(x, y, z)`.
    pub fn from_fn(
        width: usize,
        height: usize,
        depth: usize,
        mut foreground: impl FnMut(usize, usize, usize) -> bool,
    ) -> Result<Self> {
        let mut volume = Self::new(width, height, depth)?;
        let mut i = 0;
        for z in 0..depth {
            for y in 0..height {
                for x in 0..width {
                    volume.voxels[i] = u8::from(foreground(x, y, z));
                    i += 1;
                }
            }
        }
        Ok(volume)
    }

    /// Takes packed voxels (x fastest, then y, then z); any nonzero byte is
    /// foreground and stored as 1.
    pub fn from_voxels(
        mut voxels: Vec<u8>,
        width: usize,
        height: usize,
        depth: usize,
    ) -> Result<Self> {
        BinaryVolume::new(&voxels, width, height, depth)?;
        voxels.truncate(width * height * depth);
        for p in &mut voxels {
            *p = u8::from(*p != 0);
        }
        Ok(Self {
            voxels,
            width,
            height,
            depth,
        })
    }

    /// The borrowed view that every algorithm takes.
    pub fn view(&self) -> BinaryVolume<'_> {
        BinaryVolume {
            voxels: &self.voxels,
            width: self.width,
            height: self.height,
            depth: self.depth,
            row_stride: self.width,
            slice_stride: self.width * self.height,
        }
    }

    /// Width (x) in voxels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height (y) in voxels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Depth (z) in voxels.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The packed voxels, 0 or 1.
    pub fn voxels(&self) -> &[u8] {
        &self.voxels
    }

    /// Sets voxel `(x, y, z)`.
    ///
    /// # Panics
    /// If the voxel lies outside the volume.
    pub fn set(&mut self, x: usize, y: usize, z: usize, foreground: bool) {
        let index = self.index(x, y, z);
        self.voxels[index] = u8::from(foreground);
    }

    /// Whether voxel `(x, y, z)` is foreground.
    ///
    /// # Panics
    /// If the voxel lies outside the volume.
    pub fn get(&self, x: usize, y: usize, z: usize) -> bool {
        self.voxels[self.index(x, y, z)] != 0
    }

    fn index(&self, x: usize, y: usize, z: usize) -> usize {
        assert!(
            x < self.width && y < self.height && z < self.depth,
            "voxel ({x}, {y}, {z}) outside the {}x{}x{} volume",
            self.width,
            self.height,
            self.depth
        );
        (z * self.height + y) * self.width + x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_must_cover_rows_and_slices() {
        assert!(BinaryVolume::with_strides(&[0; 64], 4, 2, 2, 3, 8).is_err());
        assert!(BinaryVolume::with_strides(&[0; 64], 4, 2, 2, 4, 7).is_err());
        // The last slice needs only its rows, the last row only `width` bytes.
        assert!(BinaryVolume::with_strides(&[0; 18], 4, 2, 2, 5, 9).is_ok());
        assert!(BinaryVolume::with_strides(&[0; 17], 4, 2, 2, 5, 9).is_err());
    }

    #[test]
    fn empty_volumes_are_valid() {
        for (w, h, d) in [(0, 0, 0), (0, 5, 5), (5, 0, 5), (5, 5, 0)] {
            let volume = BinaryVolume::new(&[], w, h, d).unwrap();
            assert!(volume.is_empty());
            assert_eq!(volume.foreground_count(), 0);
            assert_eq!(volume.to_buf().voxels().len(), 0);
        }
    }

    #[test]
    fn too_many_voxels_is_refused_not_truncated() {
        let err = BinaryVolume::new(&[], 2048, 2048, 1024).unwrap_err();
        assert!(matches!(err, Error::VolumeTooLarge { .. }), "{err}");
        assert!(check_volume_size(usize::MAX, usize::MAX, usize::MAX).is_err());
        assert!(check_volume_size(MAX_PIXELS as usize, 1, 1).is_ok());
        assert!(check_volume_size(MAX_PIXELS as usize + 1, 1, 1).is_err());
    }

    #[test]
    fn slices_and_copies_skip_the_padding() {
        let voxels = [0, 7, 5, 255, 0, 5, 5, 5, 3, 0, 5, 0, 0, 1];
        let volume = BinaryVolume::with_strides(&voxels, 2, 2, 2, 3, 8).unwrap();
        // Slice 0: rows at bytes 0 and 3; slice 1: rows at bytes 8 and 11.
        assert_eq!(volume.to_buf().voxels(), &[0, 1, 1, 0, 1, 0, 0, 0]);
        let slice = volume.slice(1);
        assert_eq!((slice.width(), slice.height(), slice.stride()), (2, 2, 3));
        assert_eq!(slice.row(0), &[3, 0]);
        let buf = BinaryVolumeBuf::from_voxels(vec![0, 9, 0, 0, 0, 0, 0, 4], 2, 2, 2).unwrap();
        assert!(buf.get(1, 0, 0) && buf.get(1, 1, 1) && !buf.get(0, 1, 1));
    }
}
