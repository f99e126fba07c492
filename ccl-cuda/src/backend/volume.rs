//! Volumes on the variant layer. A volume reaches a CUDA variant as the
//! image of its rows, slice after slice (row `r` of that image is row
//! `r % height` of slice `r / height`), with its [`Slices`] in
//! [`Run::slices`](super::Run::slices): the flat index of a voxel is then
//! its pixel index in that image, raster order of the image is raster
//! order of the volume (z, then y, then x), and the forest contract, the
//! root ranking and the canonical numbering of images hold unchanged. Only
//! the features differ: [`VolumeFeatures`] gathers them with z.

use std::sync::Arc;

use ccl_core::{BinaryImage, BinaryVolume, Error, Result, VolumeStats};
use cudarc::driver::{CudaStream, CudaView, DeviceRepr, ValidAsZeroBits};

use super::features::{KERNELS, WARPS_PER_BLOCK, volume_accumulation_warps};
use crate::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, ImageArgs, Kernel, StageClock, cuda_error, linear_grid,
    warp_grid,
};

/// How the rows of a flattened volume fall into slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slices {
    /// Rows per slice (the volume's height).
    pub height: usize,
    /// Slices (the volume's depth).
    pub depth: usize,
}

/// `f` on `volume` as the image of its rows: a view where its slices lie
/// one after the other (slice stride = height × row stride), else a packed
/// copy.
pub fn with_rows<T>(
    volume: &BinaryVolume<'_>,
    f: impl FnOnce(&BinaryImage<'_>) -> Result<T>,
) -> Result<T> {
    let (width, height, depth) = (volume.width(), volume.height(), volume.depth());
    let rows = height * depth;
    if depth <= 1 || volume.slice_stride() == height * volume.row_stride() {
        let image = BinaryImage::with_stride(volume.as_bytes(), width, rows, volume.row_stride())?;
        f(&image)
    } else {
        let packed = volume.to_buf();
        f(&BinaryImage::new(packed.voxels(), width, rows)?)
    }
}

/// One component of a volume in device memory; the layout of
/// `CclVolumeStats` in `ccl_device.cuh`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceVolumeStats {
    /// Number of voxels.
    pub area: u32,
    /// Smallest x.
    pub x_min: u32,
    /// Smallest y.
    pub y_min: u32,
    /// Smallest z.
    pub z_min: u32,
    /// Largest x.
    pub x_max: u32,
    /// Largest y.
    pub y_max: u32,
    /// Largest z.
    pub z_max: u32,
    /// Keeps the sums 8-byte aligned, as in C.
    pub padding: u32,
    /// Sum of x.
    pub sum_x: u64,
    /// Sum of y.
    pub sum_y: u64,
    /// Sum of z.
    pub sum_z: u64,
}

// SAFETY: plain old data with C layout.
unsafe impl DeviceRepr for DeviceVolumeStats {}
// SAFETY: all-zero bytes are a valid value of every field.
unsafe impl ValidAsZeroBits for DeviceVolumeStats {}

impl From<DeviceVolumeStats> for VolumeStats {
    fn from(s: DeviceVolumeStats) -> Self {
        VolumeStats {
            area: s.area,
            x_min: s.x_min,
            y_min: s.y_min,
            z_min: s.z_min,
            x_max: s.x_max,
            y_max: s.y_max,
            z_max: s.z_max,
            sum_x: s.sum_x,
            sum_y: s.sum_y,
            sum_z: s.sum_z,
        }
    }
}

/// `CclVolumeStatsOut`: where a volume's components' features go, for a
/// variant's own accumulation kernel ([`VolumeFeatures::output`]).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct VolumeStatsOutArgs {
    stats: DevPtr<DeviceVolumeStats>,
    capacity: u32,
    height: u32,
}

// SAFETY: a device pointer and two integers, C layout.
unsafe impl DeviceRepr for VolumeStatsOutArgs {}

/// The features of a volume's components from its canonical labels: the
/// stats array set to empty components, then one pass over the labels
/// (`features.cu`'s accumulation, with z). Buffers are kept for the next
/// volume.
pub struct VolumeFeatures {
    init: Kernel<(VolumeStatsOutArgs, u32)>,
    accumulate: Kernel<(ImageArgs, DevPtr<u32>, VolumeStatsOutArgs, u32, u32, u32)>,
    stats: DeviceBuffer<DeviceVolumeStats>,
    /// Components of the last accumulation (`None` before one).
    count: Option<usize>,
}

impl VolumeFeatures {
    /// Loads the kernels (compiled once per process and device).
    pub fn new(gpu: &Arc<Gpu>) -> Result<Self> {
        Ok(Self {
            init: Kernel::load(gpu, &KERNELS, "ccl_init_volume_stats")?,
            accumulate: Kernel::load(gpu, &KERNELS, "ccl_accumulate_volume_labels")?,
            stats: DeviceBuffer::new(),
            count: None,
        })
    }

    /// The stats array of `count` components, set to empty ones (area 0,
    /// minima at their largest), for a variant that accumulates the
    /// features itself (one `ccl_add_to_component` of `ccl_device.cuh` per
    /// part of a component); [`read`](Self::read) then gives them.
    pub fn output(
        &mut self,
        stream: &Arc<CudaStream>,
        slices: Slices,
        count: usize,
    ) -> Result<VolumeStatsOutArgs> {
        let out = self.output_for_roots(stream, slices, count)?;
        if count > 0 {
            // SAFETY: the stats array holds `count` entries, the capacity.
            unsafe {
                self.init
                    .launch(stream, linear_grid(count, 256)?, (out, out.capacity))?
            };
        }
        Ok(out)
    }

    /// The stats array of `count` components, not initialised: for a
    /// variant that stores each component's first record itself (one per
    /// root: every entry) before it adds the others.
    pub fn output_for_roots(
        &mut self,
        stream: &Arc<CudaStream>,
        slices: Slices,
        count: usize,
    ) -> Result<VolumeStatsOutArgs> {
        let capacity = u32::try_from(count).map_err(|_| {
            Error::InvalidDimensions(format!("{count} components exceed 32-bit ranks"))
        })?;
        let height = u32::try_from(slices.height)
            .map_err(|_| Error::InvalidDimensions("a volume taller than 2^32 rows".into()))?;
        self.count = Some(count);
        let stats = self.stats.reserve(stream, count.max(1))?;
        Ok(VolumeStatsOutArgs {
            stats: DevPtr::of_mut(stats, stream),
            capacity,
            height,
        })
    }

    /// Gathers the features of the `count` components of `labels`, the
    /// canonical labels of the volume whose rows are `image`, sliced as
    /// `slices`. Stage `features`.
    pub fn accumulate(
        &mut self,
        stream: &Arc<CudaStream>,
        image: &DeviceImage<'_>,
        labels: &CudaView<'_, u32>,
        slices: Slices,
        count: usize,
        clock: &mut StageClock,
    ) -> Result<()> {
        super::check_forest(labels.len(), image)?;
        if slices.height * slices.depth != image.height() {
            return Err(Error::InvalidDimensions(format!(
                "{} slices of {} rows are not the {} rows of the image",
                slices.depth,
                slices.height,
                image.height()
            )));
        }
        let out = self.output(stream, slices, count)?;
        if count > 0 {
            let (words_per_row, spans_per_row, warps) = volume_accumulation_warps(image)?;
            // SAFETY: the stats array holds `count` entries, the capacity
            // given; `labels` holds a canonical label (at most `count`) per
            // pixel of `image` (checked); one warp per span of rows.
            unsafe {
                self.accumulate.launch(
                    stream,
                    warp_grid(warps as usize, WARPS_PER_BLOCK)?,
                    (
                        image.args(stream),
                        DevPtr::of(labels, stream),
                        out,
                        words_per_row,
                        spans_per_row,
                        warps,
                    ),
                )?;
            }
        }
        clock.mark("features")
    }

    /// The features of the last accumulation where they lie on the device,
    /// in raster order of the components' first voxels; `None` when it found
    /// no component.
    pub fn device(&self) -> Result<Option<CudaView<'_, DeviceVolumeStats>>> {
        let count = self.count.ok_or_else(ccl_core::not_run)?;
        if count == 0 {
            return Ok(None);
        }
        Ok(Some(self.stats.get()?.slice(..count)))
    }

    /// The features of the last accumulation, in raster order of the
    /// components' first voxels.
    pub fn read(&self, stream: &Arc<CudaStream>) -> Result<Vec<VolumeStats>> {
        let count = self.count.ok_or_else(ccl_core::not_run)?;
        if count == 0 {
            return Ok(Vec::new());
        }
        let stats = stream
            .clone_dtoh(&self.stats.get()?.slice(..count))
            .map_err(cuda_error)?;
        Ok(stats.into_iter().map(VolumeStats::from).collect())
    }
}
