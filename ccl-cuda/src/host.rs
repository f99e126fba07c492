//! The host-facing half of a CUDA variant: the image uploaded from the host
//! and the label buffer its host-side `label()` and timed runs fill.

use std::sync::Arc;
use std::time::Instant;

use ccl_core::{BinaryImage, LabelImage, Result, not_loaded, not_run};
use cudarc::driver::{CudaStream, CudaViewMut};

use crate::{DeviceBuffer, DeviceImage, Gpu, cuda_error, upload_image};

/// An uploaded image and a label buffer for it, both reused across calls.
///
/// A variant's `Labeler` / `TimedRun` implementations load the image here,
/// run their device-resident path on [`image`](Self::image) or
/// [`label_with`](Self::label_with), and read the labels back.
#[derive(Default)]
pub struct LoadedImage {
    image: DeviceBuffer<u8>,
    labels: DeviceBuffer<u32>,
    /// `(width, height, pitch)` of the image in `image`.
    geometry: Option<(usize, usize, usize)>,
    labeled: bool,
}

impl LoadedImage {
    /// Nothing loaded yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uploads `image` (rows as laid out on the host).
    pub fn load(&mut self, stream: &Arc<CudaStream>, image: &BinaryImage<'_>) -> Result<()> {
        let pitch = upload_image(stream, &mut self.image, image)?;
        self.geometry = Some((image.width(), image.height(), pitch));
        self.labeled = false;
        Ok(())
    }

    /// [`load`](Self::load), timed from an idle GPU to the end of the copy:
    /// the transfer time `TimedRun::load` reports, in ms.
    pub fn load_timed(&mut self, gpu: &Gpu, image: &BinaryImage<'_>) -> Result<f64> {
        gpu.synchronize()?;
        let start = Instant::now();
        self.load(gpu.stream(), image)?;
        gpu.synchronize()?;
        Ok(start.elapsed().as_secs_f64() * 1e3)
    }

    /// The loaded image.
    pub fn image(&self) -> Result<DeviceImage<'_>> {
        let (width, height, pitch) = self.geometry.ok_or_else(not_loaded)?;
        DeviceImage::new(self.image.get()?.as_view(), width, height, pitch)
    }

    /// Runs `label` on the loaded image and a label buffer of width × height
    /// (allocated on first use for the size); what it writes is what
    /// [`read_labels`](Self::read_labels) returns.
    pub fn label_with(
        &mut self,
        stream: &Arc<CudaStream>,
        label: impl FnOnce(&DeviceImage<'_>, &mut CudaViewMut<'_, u32>) -> Result<()>,
    ) -> Result<()> {
        let (width, height, pitch) = self.geometry.ok_or_else(not_loaded)?;
        let image = DeviceImage::new(self.image.get()?.as_view(), width, height, pitch)?;
        let pixels = width * height;
        let labels = self.labels.reserve(stream, pixels)?;
        self.labeled = false;
        label(&image, &mut labels.slice_mut(..pixels))?;
        self.labeled = true;
        Ok(())
    }

    /// Copies the labels of the last [`label_with`](Self::label_with) back.
    pub fn read_labels(&self, stream: &Arc<CudaStream>) -> Result<LabelImage> {
        let (width, height, _) = self.geometry.ok_or_else(not_loaded)?;
        if !self.labeled {
            return Err(not_run());
        }
        let pixels = width * height;
        let labels = if pixels == 0 {
            Vec::new()
        } else {
            stream
                .clone_dtoh(&self.labels.get()?.slice(..pixels))
                .map_err(cuda_error)?
        };
        LabelImage::new(width, height, labels)
    }
}
