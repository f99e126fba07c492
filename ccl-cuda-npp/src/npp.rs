//! [`NppUf`]: the host-side and device-resident entry points of `npp-uf`.

use std::sync::Arc;

use ccl_core::{
    BinaryImage, ComponentStats, Connectivity, Error, LabelImage, Labeler, Result, StageTime, Task,
    TimedRun, check_connectivity,
};
use ccl_cuda::cudarc::driver::CudaViewMut;
use ccl_cuda::{DeviceImage, Gpu, LoadedImage, StageClock};

use crate::pipeline::Pipeline;

/// The registry name.
pub(crate) const NAME: &str = "npp-uf";
/// Both connectivities: `nppiNormL1` is 4, `nppiNormInf` is 8.
pub(crate) const CONNECTIVITIES: &[Connectivity] = &[Connectivity::Four, Connectivity::Eight];

/// NPP's union-find labeler bound to the GPU, with the adapter kernels
/// compiled and its buffers kept between calls. Labels only: NPP computes
/// none of ccl's features, so there is no [`ccl_core::Analyzer`].
pub struct NppUf {
    pipeline: Pipeline,
    loaded: LoadedImage,
}

impl NppUf {
    /// Opens NPP (once per process), then the GPU, and compiles the adapter
    /// kernels: [`Error::Unavailable`] naming the NPP library that is
    /// missing, or [`Error::NoCudaDevice`] where no GPU can be used.
    pub fn new() -> Result<Self> {
        Ok(Self {
            pipeline: Pipeline::new()?,
            loaded: LoadedImage::new(),
        })
    }

    /// The NPP library's `(major, minor, build)` version.
    pub fn npp_version(&self) -> (i32, i32, i32) {
        self.pipeline.npp_version()
    }

    /// The GPU it runs on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        self.pipeline.gpu()
    }

    /// Device-resident labeling: `image` and `labels` (at least width ×
    /// height, packed) are in device memory; labels (0 for background,
    /// 1 + the raster index of a pixel of the component for foreground)
    /// are left there. Nothing is copied; scratch is allocated only on the
    /// first call for a size. Work is queued on [`Gpu::stream`]; `clock`
    /// marks the stages `binarize`, `npp` (NPP's own time), `repair` and
    /// `finish`. Images of more than [`MAX_PIXELS`](crate::MAX_PIXELS)
    /// pixels are refused.
    pub fn label_device(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        check_connectivity(NAME, CONNECTIVITIES, connectivity)?;
        self.pipeline.label(image, labels, connectivity, clock)
    }

    fn load_image(&mut self, image: &BinaryImage<'_>) -> Result<()> {
        // Refused before the upload, not after it.
        crate::pipeline::check_size(image.width(), image.height())?;
        self.loaded.load(self.pipeline.gpu().stream(), image)
    }

    /// Labels the loaded image.
    fn run_loaded(&mut self, connectivity: Connectivity, clock: &mut StageClock) -> Result<()> {
        let stream = self.pipeline.gpu().stream().clone();
        let pipeline = &mut self.pipeline;
        self.loaded.label_with(&stream, |image, labels| {
            pipeline.label(image, labels, connectivity, clock)
        })
    }

    fn read_labels(&self) -> Result<LabelImage> {
        self.loaded.read_labels(self.pipeline.gpu().stream())
    }
}

/// The error for anything but labeling.
fn cannot_analyze() -> Error {
    Error::UnsupportedTask {
        algorithm: NAME.into(),
        task: "analyze".into(),
    }
}

impl Labeler for NppUf {
    fn label(&mut self, image: &BinaryImage<'_>, connectivity: Connectivity) -> Result<LabelImage> {
        check_connectivity(NAME, CONNECTIVITIES, connectivity)?;
        self.load_image(image)?;
        self.run_loaded(connectivity, &mut StageClock::disabled())?;
        self.read_labels()
    }
}

impl TimedRun for NppUf {
    fn load(&mut self, image: &BinaryImage<'_>) -> Result<f64> {
        crate::pipeline::check_size(image.width(), image.height())?;
        self.loaded.load_timed(self.pipeline.gpu(), image)
    }

    fn run(&mut self, task: Task, connectivity: Connectivity) -> Result<Vec<StageTime>> {
        if task == Task::Analyze {
            return Err(cannot_analyze());
        }
        check_connectivity(NAME, CONNECTIVITIES, connectivity)?;
        let mut clock = StageClock::start(self.pipeline.gpu().stream())?;
        self.run_loaded(connectivity, &mut clock)?;
        clock.finish()
    }

    fn labels(&mut self) -> Result<LabelImage> {
        self.read_labels()
    }

    fn stats(&mut self) -> Result<Vec<ComponentStats>> {
        Err(cannot_analyze())
    }
}
