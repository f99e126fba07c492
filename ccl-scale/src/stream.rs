//! Where strips come from and where their labels go: a [`PlaneSource`]
//! hands out the pixels of any run of planes, a [`PlaneSink`] takes the
//! labels of one. Both are called from several threads at once (one per
//! worker), each time for planes no other call touches, so a file can be
//! read and written at offsets, and memory need never hold the whole image.

use std::marker::PhantomData;

use ccl_core::{Error, Result};
use rayon::prelude::*;

use crate::Shape;

/// The pixels of an image or volume, handed out plane by plane.
pub trait PlaneSource: Sync {
    /// Fills `out` with the planes from `first` on, packed (`out.len()` is
    /// a whole number of planes): nonzero is foreground.
    fn read_planes(&self, first: usize, out: &mut [u8]) -> Result<()>;

    /// The `len` bytes of the planes from `first` on, for a source that is
    /// memory: a GPU worker uploads them from there itself, without staging
    /// them in a buffer of its own, where that memory is page-locked
    /// (pinned), and calls [`read_planes`](Self::read_planes) otherwise.
    /// `None`, the default: always `read_planes`.
    fn memory(&self, first: usize, len: usize) -> Option<&[u8]> {
        let _ = (first, len);
        None
    }
}

/// Takes the labels of an image or volume, plane by plane.
pub trait PlaneSink<L: LabelWord>: Sync {
    /// Stores `labels`, the packed labels of the planes from `first` on.
    /// Every plane is written exactly once, in no particular order.
    fn write_planes(&self, first: usize, labels: &[L]) -> Result<()>;

    /// Where the `len` labels of the planes from `first` on lie, for a sink
    /// that is memory: a GPU worker copies them there itself, without
    /// staging, where that memory is page-locked (pinned), and calls
    /// [`write_planes`](Self::write_planes) otherwise. The memory must
    /// take `len` labels and be written by no one else until the labeler's
    /// call returns (each plane goes to one worker). `None`, the default:
    /// always `write_planes`.
    fn destination(&self, first: usize, len: usize) -> Option<*mut L> {
        let _ = (first, len);
        None
    }
}

/// The integer of a label image: `u32` up to `2^32 − 2` components, `u64`
/// past that.
pub trait LabelWord: Copy + Default + Send + Sync + cudarc::driver::DeviceRepr + 'static {
    /// The largest label it holds.
    const MAX: u64;
    /// Its name, as numpy spells it.
    const NAME: &'static str;
    /// `value`, which the caller checked is at most [`MAX`](Self::MAX).
    fn from_label(value: u64) -> Self;
}

impl LabelWord for u32 {
    const MAX: u64 = u32::MAX as u64;
    const NAME: &'static str = "uint32";
    fn from_label(value: u64) -> Self {
        value as u32
    }
}

impl LabelWord for u64 {
    const MAX: u64 = u64::MAX;
    const NAME: &'static str = "uint64";
    fn from_label(value: u64) -> Self {
        value
    }
}

/// An image or volume in memory, packed (x fastest, then y, then z), of
/// any size: the source of [`StripLabeler`](crate::StripLabeler)'s
/// in-memory calls.
#[derive(Clone, Copy, Debug)]
pub struct Pixels<'a> {
    pixels: &'a [u8],
    shape: Shape,
}

impl<'a> Pixels<'a> {
    /// `pixels` as `shape`; its length must be the shape's pixel count.
    pub fn new(pixels: &'a [u8], shape: Shape) -> Result<Self> {
        if pixels.len() as u64 != shape.pixels() {
            return Err(Error::InvalidDimensions(format!(
                "{shape:?} has {} pixels, the buffer {} bytes",
                shape.pixels(),
                pixels.len()
            )));
        }
        Ok(Self { pixels, shape })
    }

    /// The shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }
}

impl PlaneSource for Pixels<'_> {
    fn read_planes(&self, first: usize, out: &mut [u8]) -> Result<()> {
        let start = first * self.shape.plane_len();
        let bytes = self.pixels.get(start..start + out.len()).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "planes from {first} on, {} bytes, lie past the end of the pixels",
                out.len()
            ))
        })?;
        copy_in_parallel(bytes, out);
        Ok(())
    }

    fn memory(&self, first: usize, len: usize) -> Option<&[u8]> {
        let start = first * self.shape.plane_len();
        self.pixels.get(start..start.checked_add(len)?)
    }
}

/// Bytes past which a copy is split over threads: one core copies about
/// 9 GB/s, a GPU's link moves 55, so even a chunk of a GPU worker's
/// staging (`staging::HALF_BYTES`) copied on one thread would hold the
/// worker back.
const PARALLEL_COPY_BYTES: usize = 4 << 20;

/// Bytes per task of a large copy: on the H200 machine (16 cores) 8
/// threads copy 55 GB/s, 16 85 GB/s (bench/2026-11-25-h200-scale/host-copy.txt),
/// so a large copy is cut into tasks for the host's pool, which the
/// copies of every worker share (eight threads of its own per copy put 64
/// threads on the 32 cores of the two-GPU machine with eight workers).
const COPY_TASK_BYTES: usize = 2 << 20;

/// `destination.copy_from_slice(source)`, in tasks on the host's pool when
/// large.
fn copy_in_parallel<T: Copy + Send + Sync>(source: &[T], destination: &mut [T]) {
    if std::mem::size_of_val(source) < PARALLEL_COPY_BYTES {
        destination.copy_from_slice(source);
        return;
    }
    let chunk = (COPY_TASK_BYTES / size_of::<T>().max(1)).max(1);
    destination
        .par_chunks_mut(chunk)
        .zip(source.par_chunks(chunk))
        .for_each(|(to, from)| to.copy_from_slice(from));
}

/// A label image in memory that several workers fill at once, each its own
/// planes: the sink of [`StripLabeler::label_pixels`](crate::StripLabeler::label_pixels).
pub struct Labels<'a, L> {
    start: *mut L,
    len: usize,
    plane_len: usize,
    _borrow: PhantomData<&'a mut [L]>,
}

// SAFETY: `Labels` is a `&mut [L]` that hands out disjoint ranges to
// threads: `write_planes` writes only the planes it is given, and the
// strip driver gives each plane to exactly one call.
unsafe impl<L: Send> Sync for Labels<'_, L> {}
// SAFETY: as above; it owns nothing but the borrow.
unsafe impl<L: Send> Send for Labels<'_, L> {}

impl<'a, L: LabelWord> Labels<'a, L> {
    /// The labels of `shape` written into `labels` (one per pixel, packed);
    /// an error where the lengths differ.
    pub fn new(labels: &'a mut [L], shape: Shape) -> Result<Self> {
        if labels.len() as u64 != shape.pixels() {
            return Err(Error::InvalidDimensions(format!(
                "{shape:?} has {} pixels, the label buffer {}",
                shape.pixels(),
                labels.len()
            )));
        }
        Ok(Self {
            start: labels.as_mut_ptr(),
            len: labels.len(),
            plane_len: shape.plane_len(),
            _borrow: PhantomData,
        })
    }
}

impl<L: LabelWord> PlaneSink<L> for Labels<'_, L> {
    fn destination(&self, first: usize, len: usize) -> Option<*mut L> {
        let offset = first * self.plane_len;
        // SAFETY: in bounds (checked), so the pointer stays in the borrow.
        (offset.checked_add(len)? <= self.len).then(|| unsafe { self.start.add(offset) })
    }

    fn write_planes(&self, first: usize, labels: &[L]) -> Result<()> {
        let offset = first * self.plane_len;
        if offset
            .checked_add(labels.len())
            .is_none_or(|end| end > self.len)
        {
            return Err(Error::InvalidArgument(format!(
                "labels {offset}..+{} lie past the end of a buffer of {}",
                labels.len(),
                self.len
            )));
        }
        // SAFETY: in bounds (checked above), and no other call writes these
        // elements (each plane goes to one call), so for this call they are
        // a slice of their own.
        let destination =
            unsafe { std::slice::from_raw_parts_mut(self.start.add(offset), labels.len()) };
        copy_in_parallel(labels, destination);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_read_whole_planes_and_refuse_past_the_end() {
        let data: Vec<u8> = (0..12).collect();
        let shape = Shape::Image {
            width: 4,
            height: 3,
        };
        let pixels = Pixels::new(&data, shape).unwrap();
        let mut out = [0u8; 8];
        pixels.read_planes(1, &mut out).unwrap();
        assert_eq!(out, [4, 5, 6, 7, 8, 9, 10, 11]);
        assert!(pixels.read_planes(2, &mut out).is_err());
        assert!(Pixels::new(&data[..11], shape).is_err());
    }

    #[test]
    fn large_copies_split_over_threads_copy_everything() {
        let source: Vec<u32> = (0..(PARALLEL_COPY_BYTES / 4 + 13) as u32).collect();
        let mut destination = vec![0u32; source.len()];
        copy_in_parallel(&source, &mut destination);
        assert_eq!(destination, source);
    }

    #[test]
    fn labels_take_disjoint_planes_and_refuse_past_the_end() {
        let mut buffer = vec![0u64; 6];
        let shape = Shape::Image {
            width: 3,
            height: 2,
        };
        let sink = Labels::new(&mut buffer, shape).unwrap();
        sink.write_planes(1, &[7, 8, 9]).unwrap();
        assert!(sink.write_planes(1, &[1, 2, 3, 4]).is_err());
        assert_eq!(buffer, [0, 0, 0, 7, 8, 9]);
        assert!(Labels::new(&mut [0u32; 5], shape).is_err());
    }
}
