//! [`Ha`]: the host-side and device-resident entry points of every variant.

use std::sync::Arc;

use ccl_core::{
    Analyzer, BinaryImage, ComponentStats, Connectivity, LabelImage, Labeler, Result, StageTime,
    Task, TimedRun, check_connectivity,
};
use ccl_cuda::cudarc::driver::CudaViewMut;
use ccl_cuda::{DeviceImage, Gpu, LoadedImage, StageClock};

use crate::HaVariant;
use crate::pipeline::Pipeline;

/// An HA labeler / analyzer bound to the GPU, with its kernels compiled and
/// its buffers kept between calls.
pub struct Ha {
    variant: HaVariant,
    pipeline: Pipeline,
    loaded: LoadedImage,
}

impl Ha {
    /// Compiles (once per process) and loads the kernels of `variant`;
    /// [`ccl_core::Error::NoCudaDevice`] where no GPU can be used.
    pub fn new(variant: HaVariant) -> Result<Self> {
        Ok(Self {
            variant,
            pipeline: Pipeline::new(variant)?,
            loaded: LoadedImage::new(),
        })
    }

    /// The variant it runs.
    pub fn variant(&self) -> HaVariant {
        self.variant
    }

    /// The GPU it runs on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        self.pipeline.gpu()
    }

    /// Device-resident labeling: `image` and `labels` (at least width ×
    /// height) are in device memory; raw labels (1 + the raster index of each
    /// component's first pixel, 0 for background) are left there. Nothing is
    /// copied; scratch is allocated only on the first call for a size. Work is
    /// queued on [`Gpu::stream`]; `clock` marks the stages `strip`, `border`
    /// and `relabel`.
    pub fn label_device(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.pipeline.label(image, labels, clock)
    }

    /// Device-resident analysis of `image`; the features stay on the device
    /// until [`read_stats`](Self::read_stats). `clock` marks `strip`,
    /// `border`, `roots` and `features`.
    pub fn analyze_device(
        &mut self,
        image: &DeviceImage<'_>,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.pipeline.analyze(image, clock)
    }

    /// The features of the last analysis, in raster order of the components'
    /// first pixels.
    pub fn read_stats(&self) -> Result<Vec<ComponentStats>> {
        self.pipeline.read_stats()
    }

    fn check(&self, connectivity: Connectivity) -> Result<()> {
        check_connectivity(
            self.variant.name(),
            &[self.variant.connectivity()],
            connectivity,
        )
    }

    /// Runs `task` on the loaded image.
    fn run_loaded(&mut self, task: Task, clock: &mut StageClock) -> Result<()> {
        let stream = self.pipeline.gpu().stream().clone();
        match task {
            Task::Label => {
                let pipeline = &self.pipeline;
                self.loaded.label_with(&stream, |image, labels| {
                    pipeline.label(image, labels, clock)
                })
            }
            Task::Analyze => self.pipeline.analyze(&self.loaded.image()?, clock),
        }
    }
}

impl Labeler for Ha {
    fn label(&mut self, image: &BinaryImage<'_>, connectivity: Connectivity) -> Result<LabelImage> {
        self.check(connectivity)?;
        self.loaded.load(self.pipeline.gpu().stream(), image)?;
        self.run_loaded(Task::Label, &mut StageClock::disabled())?;
        self.loaded.read_labels(self.pipeline.gpu().stream())
    }
}

impl Analyzer for Ha {
    fn analyze(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<ComponentStats>> {
        self.check(connectivity)?;
        self.loaded.load(self.pipeline.gpu().stream(), image)?;
        self.run_loaded(Task::Analyze, &mut StageClock::disabled())?;
        self.read_stats()
    }
}

impl TimedRun for Ha {
    fn load(&mut self, image: &BinaryImage<'_>) -> Result<f64> {
        self.loaded.load_timed(self.pipeline.gpu(), image)
    }

    fn run(&mut self, task: Task, connectivity: Connectivity) -> Result<Vec<StageTime>> {
        self.check(connectivity)?;
        let mut clock = StageClock::start(self.pipeline.gpu().stream())?;
        self.run_loaded(task, &mut clock)?;
        clock.finish()
    }

    fn labels(&mut self) -> Result<LabelImage> {
        self.loaded.read_labels(self.pipeline.gpu().stream())
    }

    fn stats(&mut self) -> Result<Vec<ComponentStats>> {
        self.read_stats()
    }
}
