//! The variant layer: a CUDA variant implements [`DeviceVariant`] (its
//! device-resident stages), and [`CudaVariant`] gives it everything else —
//! [`Labeler`], [`Analyzer`] and [`TimedRun`], the upload, the stage clock,
//! the checks against its registry entry, the shared analysis and the
//! read-back. [`register_variant!`](crate::register_variant) makes its
//! registry entry.

use std::sync::Arc;
use std::time::Instant;

use ccl_core::{
    Analyzer, BinaryImage, ComponentStats, Connectivity, Error, LabelImage, Labeler, Result,
    StageTime, Task, TimedRun, check_connectivity, not_loaded, not_run,
};
use cudarc::driver::{CudaStream, CudaView, CudaViewMut};

use super::features::{Analyzed, Features};
use super::stats::DeviceStats;
use crate::runtime::{DeviceBuffer, DeviceImage, Gpu, StageClock, cuda_error, upload_image};

/// What each device-resident call of a variant runs with.
pub struct Run<'a> {
    /// The stream every launch goes on (the one the variant was made for).
    pub stream: &'a Arc<CudaStream>,
    /// The connectivity asked for; one the registry entry declares.
    pub connectivity: Connectivity,
    /// Marks the end of each stage (records nothing when untimed).
    pub clock: &'a mut StageClock,
}

/// The device-resident work of a CUDA variant. Images given to it have at
/// least one pixel and a size [`check_size`](Self::check_size) accepted;
/// every launch goes on `run.stream`.
pub trait DeviceVariant {
    /// Refuses, before any upload, sizes the variant cannot label. By
    /// default every size a [`DeviceImage`] can have is accepted.
    fn check_size(&self, _width: usize, _height: usize) -> Result<()> {
        Ok(())
    }

    /// Labels `image` into `labels` (width × height, packed): 0 for
    /// background, one distinct nonzero label per component. A variant that
    /// analyzes through the default [`analyze`](Self::analyze) must leave a
    /// forest of the contract of `ccl_device.cuh`: flat labels 1 + the raster
    /// index of the component's first pixel do.
    fn label(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
    ) -> Result<()>;

    /// Whether [`label`](Self::label) writes flat labels, 1 + the raster
    /// index of each component's first pixel (the forest contract of
    /// `ccl_device.cuh`). Every variant of ccl does; a library peer whose
    /// labels name some other pixel of the component says `false`, and
    /// [`ArrayLabeler`](crate::interop::ArrayLabeler) then finds the first pixels
    /// itself.
    fn first_pixel_labels(&self) -> bool {
        true
    }

    /// Computes the features of `image` into `features`, with `forest`
    /// (width × height) as scratch, and returns the back end's proof that
    /// the analysis ran to its end. By default: [`label`](Self::label) into
    /// `forest`, then the shared back end ([`Features::analyze_forest`]); a
    /// variant with its own root flags or accumulation takes the steps from
    /// [`Features::begin`] on.
    fn analyze(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        features: &mut Features,
    ) -> Result<Analyzed> {
        self.label(run, image, forest)?;
        features.analyze_forest(run.stream, image, forest, run.clock)
    }
}

/// The facts of a registry entry that [`CudaVariant`] checks calls against.
#[derive(Clone, Copy, Debug)]
pub struct VariantInfo {
    /// The registry name.
    pub name: &'static str,
    /// The connectivities it declares.
    pub connectivities: &'static [Connectivity],
    /// Whether it declares analysis.
    pub analyzes: bool,
}

impl VariantInfo {
    fn check(&self, task: Task, connectivity: Connectivity) -> Result<()> {
        check_connectivity(self.name, self.connectivities, connectivity)?;
        if task == Task::Analyze && !self.analyzes {
            return Err(Error::UnsupportedTask {
                algorithm: self.name.into(),
                task,
            });
        }
        Ok(())
    }
}

/// A [`DeviceVariant`] bound to a GPU and a stream, with the buffers its
/// host-side and timed calls reuse.
pub struct CudaVariant<V> {
    info: VariantInfo,
    gpu: Arc<Gpu>,
    stream: Arc<CudaStream>,
    variant: V,
    /// The shared analysis back end; only for variants that analyze.
    features: Option<Features>,
    /// The uploaded image and its `(width, height, pitch)`.
    image: DeviceBuffer<u8>,
    geometry: Option<(usize, usize, usize)>,
    labels: DeviceBuffer<u32>,
    forest: DeviceBuffer<u32>,
    labeled: bool,
}

impl<V: DeviceVariant> CudaVariant<V> {
    /// The variant on the default GPU's default stream; `make` compiles and
    /// loads its kernels. [`Error::NoCudaDevice`] where no GPU can be used.
    pub fn new(
        info: VariantInfo,
        make: impl FnOnce(&Arc<Gpu>, &Arc<CudaStream>) -> Result<V>,
    ) -> Result<Self> {
        let gpu = crate::runtime::default_gpu()?;
        let stream = gpu.default_stream();
        Self::on(gpu, stream, info, make)
    }

    /// The variant on `stream` of `gpu`, which all its work will use.
    pub fn on(
        gpu: Arc<Gpu>,
        stream: Arc<CudaStream>,
        info: VariantInfo,
        make: impl FnOnce(&Arc<Gpu>, &Arc<CudaStream>) -> Result<V>,
    ) -> Result<Self> {
        let variant = make(&gpu, &stream)?;
        let features = info.analyzes.then(|| Features::new(&gpu)).transpose()?;
        Ok(Self {
            info,
            gpu,
            stream,
            variant,
            features,
            image: DeviceBuffer::new(),
            geometry: None,
            labels: DeviceBuffer::new(),
            forest: DeviceBuffer::new(),
            labeled: false,
        })
    }

    /// The device-resident stages.
    pub fn variant(&self) -> &V {
        &self.variant
    }

    /// The GPU it runs on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// The stream all its work is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Device-resident labeling: `image` and `labels` (at least width ×
    /// height) are in device memory, ready in [`stream`](Self::stream)'s
    /// order; the labels are left there. Nothing is copied; scratch is
    /// allocated only on the first call for a size. `clock` marks the
    /// variant's stages.
    pub fn label_device(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.info.check(Task::Label, connectivity)?;
        self.variant.check_size(image.width(), image.height())?;
        label_on(
            &mut self.variant,
            &self.stream,
            image,
            labels,
            connectivity,
            clock,
        )
    }

    /// Device-resident analysis of `image`; the features stay on the device
    /// until [`read_stats`](Self::read_stats). Returns when the features of
    /// every component are stored (it reads back the component count, and
    /// runs again in the rare case that the stats array had to grow).
    pub fn analyze_device(
        &mut self,
        image: &DeviceImage<'_>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        self.info.check(Task::Analyze, connectivity)?;
        self.variant.check_size(image.width(), image.height())?;
        let (variant, stream) = (&mut self.variant, &self.stream);
        let (forest, features) = (
            &mut self.forest,
            self.features.as_mut().ok_or_else(not_run)?,
        );
        for _ in 0..2 {
            analyze_on(
                variant,
                stream,
                image,
                forest,
                features,
                connectivity,
                clock,
            )?;
            if features.complete(stream)? {
                return Ok(());
            }
        }
        Err(count_grew())
    }

    /// The features of the last analysis, in raster order of the
    /// components' first pixels.
    pub fn read_stats(&self) -> Result<Vec<ComponentStats>> {
        match &self.features {
            Some(features) => features.read(&self.stream),
            None => Err(Error::UnsupportedTask {
                algorithm: self.info.name.into(),
                task: Task::Analyze,
            }),
        }
    }

    /// The features of the last [`analyze_device`](Self::analyze_device)
    /// where they lie on the device; `None` when it found no component.
    pub fn device_stats(&self) -> Result<Option<CudaView<'_, DeviceStats>>> {
        match &self.features {
            Some(features) => features.device_stats(&self.stream),
            None => Err(Error::UnsupportedTask {
                algorithm: self.info.name.into(),
                task: Task::Analyze,
            }),
        }
    }

    fn load_image(&mut self, image: &BinaryImage<'_>) -> Result<()> {
        // Refused before the upload, not after it.
        self.variant.check_size(image.width(), image.height())?;
        let pitch = upload_image(&self.stream, &mut self.image, image)?;
        self.geometry = Some((image.width(), image.height(), pitch));
        self.labeled = false;
        Ok(())
    }

    /// Runs `task` once on the uploaded image.
    fn run_loaded(
        &mut self,
        task: Task,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        let (width, height, pitch) = self.geometry.ok_or_else(not_loaded)?;
        let image = DeviceImage::new(self.image.get()?.as_view(), width, height, pitch)?;
        let pixels = width * height;
        match task {
            Task::Label => {
                self.labeled = false;
                let labels = self.labels.reserve(&self.stream, pixels)?;
                label_on(
                    &mut self.variant,
                    &self.stream,
                    &image,
                    &mut labels.slice_mut(..pixels),
                    connectivity,
                    clock,
                )?;
                self.labeled = true;
            }
            Task::Analyze => {
                analyze_on(
                    &mut self.variant,
                    &self.stream,
                    &image,
                    &mut self.forest,
                    self.features.as_mut().ok_or_else(not_run)?,
                    connectivity,
                    clock,
                )?;
            }
        }
        Ok(())
    }

    /// Runs `task` on the uploaded image until its result is whole (an
    /// analysis that outgrew the stats array runs once more).
    fn run_whole(
        &mut self,
        task: Task,
        connectivity: Connectivity,
        timed: bool,
    ) -> Result<Vec<StageTime>> {
        self.info.check(task, connectivity)?;
        for _ in 0..2 {
            let mut clock = if timed {
                StageClock::start(&self.stream)?
            } else {
                StageClock::disabled()
            };
            self.run_loaded(task, connectivity, &mut clock)?;
            let stages = clock.finish()?;
            let complete = match (task, self.features.as_mut()) {
                (Task::Analyze, Some(features)) => features.complete(&self.stream)?,
                _ => true,
            };
            if complete {
                return Ok(stages);
            }
        }
        Err(count_grew())
    }

    fn read_labels(&self) -> Result<LabelImage> {
        let (width, height, _) = self.geometry.ok_or_else(not_loaded)?;
        if !self.labeled {
            return Err(not_run());
        }
        let pixels = width * height;
        let labels = if pixels == 0 {
            Vec::new()
        } else {
            self.stream
                .clone_dtoh(&self.labels.get()?.slice(..pixels))
                .map_err(cuda_error)?
        };
        LabelImage::new(width, height, labels)
    }
}

/// Labels a device image, or writes nothing for one without pixels.
fn label_on<V: DeviceVariant>(
    variant: &mut V,
    stream: &Arc<CudaStream>,
    image: &DeviceImage<'_>,
    labels: &mut CudaViewMut<'_, u32>,
    connectivity: Connectivity,
    clock: &mut StageClock,
) -> Result<()> {
    crate::backend::check_forest(labels.len(), image)?;
    if image.is_empty() {
        return Ok(());
    }
    let mut run = Run {
        stream,
        connectivity,
        clock,
    };
    variant.label(&mut run, image, labels)
}

/// Analyzes a device image once, with `forest` grown to its size.
fn analyze_on<V: DeviceVariant>(
    variant: &mut V,
    stream: &Arc<CudaStream>,
    image: &DeviceImage<'_>,
    forest: &mut DeviceBuffer<u32>,
    features: &mut Features,
    connectivity: Connectivity,
    clock: &mut StageClock,
) -> Result<Analyzed> {
    if image.is_empty() {
        return Ok(features.begin_empty());
    }
    let pixels = image.pixel_count();
    let forest = forest.reserve(stream, pixels)?;
    let mut run = Run {
        stream,
        connectivity,
        clock,
    };
    variant.analyze(&mut run, image, &mut forest.slice_mut(..pixels), features)
}

/// The error of an analysis that outgrew its stats array twice: its
/// component count changed between two runs on one image.
fn count_grew() -> Error {
    Error::Cuda("the component count grew between two runs on one image".into())
}

impl<V: DeviceVariant> Labeler for CudaVariant<V> {
    fn label(&mut self, image: &BinaryImage<'_>, connectivity: Connectivity) -> Result<LabelImage> {
        self.info.check(Task::Label, connectivity)?;
        self.load_image(image)?;
        self.run_whole(Task::Label, connectivity, false)?;
        self.read_labels()
    }
}

impl<V: DeviceVariant> Analyzer for CudaVariant<V> {
    fn analyze(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<ComponentStats>> {
        self.info.check(Task::Analyze, connectivity)?;
        self.load_image(image)?;
        self.run_whole(Task::Analyze, connectivity, false)?;
        self.read_stats()
    }
}

impl<V: DeviceVariant> TimedRun for CudaVariant<V> {
    /// Uploads the image, timed from an idle stream to the end of the copy.
    fn load(&mut self, image: &BinaryImage<'_>) -> Result<f64> {
        self.stream.synchronize().map_err(cuda_error)?;
        let start = Instant::now();
        self.load_image(image)?;
        self.stream.synchronize().map_err(cuda_error)?;
        Ok(start.elapsed().as_secs_f64() * 1e3)
    }

    fn run(&mut self, task: Task, connectivity: Connectivity) -> Result<Vec<StageTime>> {
        self.run_whole(task, connectivity, true)
    }

    fn labels(&mut self) -> Result<LabelImage> {
        self.read_labels()
    }

    fn stats(&mut self) -> Result<Vec<ComponentStats>> {
        self.read_stats()
    }
}

/// A CUDA variant of any type, bound to a GPU and a stream: what a caller
/// that picks variants by name ([`variant_on`](crate::backend::variant_on)) and
/// brings its own device memory ([`ArrayLabeler`](crate::interop::ArrayLabeler))
/// needs of one. Every [`CudaVariant`] is one.
pub trait DynVariant: Send {
    /// Its registry facts.
    fn info(&self) -> VariantInfo;

    /// The GPU it runs on.
    fn gpu(&self) -> &Arc<Gpu>;

    /// The stream all its work is queued on.
    fn stream(&self) -> &Arc<CudaStream>;

    /// [`DeviceVariant::first_pixel_labels`].
    fn first_pixel_labels(&self) -> bool;

    /// [`CudaVariant::label_device`].
    fn label_device(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()>;

    /// [`CudaVariant::analyze_device`].
    fn analyze_device(
        &mut self,
        image: &DeviceImage<'_>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()>;

    /// [`CudaVariant::device_stats`].
    fn device_stats(&self) -> Result<Option<CudaView<'_, DeviceStats>>>;
}

impl<V: DeviceVariant + Send> DynVariant for CudaVariant<V> {
    fn info(&self) -> VariantInfo {
        self.info
    }

    fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    fn first_pixel_labels(&self) -> bool {
        self.variant.first_pixel_labels()
    }

    fn label_device(
        &mut self,
        image: &DeviceImage<'_>,
        labels: &mut CudaViewMut<'_, u32>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        CudaVariant::label_device(self, image, labels, connectivity, clock)
    }

    fn analyze_device(
        &mut self,
        image: &DeviceImage<'_>,
        connectivity: Connectivity,
        clock: &mut StageClock,
    ) -> Result<()> {
        CudaVariant::analyze_device(self, image, connectivity, clock)
    }

    fn device_stats(&self) -> Result<Option<CudaView<'_, DeviceStats>>> {
        CudaVariant::device_stats(self)
    }
}

/// Registers a CUDA variant: its registry entry, whose constructors make a
/// [`CudaVariant`] on the default GPU with `new(gpu, stream)`, and its
/// [`DeviceRegistration`](crate::backend::DeviceRegistration), which makes one on a
/// caller's GPU and stream.
///
/// ```ignore
/// ccl_cuda::register_variant! {
///     name: "ha4-32",
///     aliases: &[],                      // optional: former names
///     connectivities: &[Connectivity::Four],
///     analyzes: true,                    // false: labels only
///     summary: "HA4, … (Hennequin et al., DASIP 2018)",
///     priority: 60,
///     preferred_for: &[(Task::Label, Connectivity::Four)], // optional
///     probe: my_probe,                   // optional: default ccl_cuda::runtime::probe
///     new: |gpu, _stream| Ha::new(gpu, HaVariant::Ha4W32),
/// }
/// ```
#[macro_export]
macro_rules! register_variant {
    (
        name: $name:expr,
        $(aliases: $aliases:expr,)?
        connectivities: $connectivities:expr,
        analyzes: $analyzes:expr,
        summary: $summary:expr,
        priority: $priority:expr,
        $(preferred_for: $preferred_for:expr,)?
        $(probe: $probe:expr,)?
        new: $new:expr $(,)?
    ) => {
        const _: () = {
            use $crate::ccl_core as core;
            const REGISTERED: $crate::backend::VariantInfo = $crate::backend::VariantInfo {
                name: $name,
                connectivities: $connectivities,
                analyzes: $analyzes,
            };
            fn make() -> core::Result<
                ::std::boxed::Box<$crate::backend::CudaVariant<impl $crate::backend::DeviceVariant + 'static>>,
            > {
                Ok(::std::boxed::Box::new($crate::backend::CudaVariant::new(REGISTERED, $new)?))
            }
            fn make_on(
                gpu: ::std::sync::Arc<$crate::runtime::Gpu>,
                stream: ::std::sync::Arc<$crate::cudarc::driver::CudaStream>,
            ) -> core::Result<::std::boxed::Box<dyn $crate::backend::DynVariant>> {
                ($crate::register_variant!(@probe $($probe)?))()?;
                Ok(::std::boxed::Box::new($crate::backend::CudaVariant::on(gpu, stream, REGISTERED, $new)?))
            }
            $crate::inventory::submit! {
                $crate::backend::DeviceRegistration { name: $name, make: make_on }
            }
            $crate::inventory::submit! {
                core::Algorithm {
                    name: $name,
                    aliases: $crate::register_variant!(@aliases $($aliases)?),
                    crate_name: env!("CARGO_PKG_NAME"),
                    backend: core::Backend::Cuda,
                    connectivities: $connectivities,
                    summary: $summary,
                    priority: $priority,
                    preferred_for: $crate::register_variant!(@preferred_for $($preferred_for)?),
                    probe: $crate::register_variant!(@probe $($probe)?),
                    labeler: Some(|| Ok(make()? as ::std::boxed::Box<dyn core::Labeler>)),
                    analyzer: if $analyzes {
                        Some(|| Ok(make()? as ::std::boxed::Box<dyn core::Analyzer>))
                    } else {
                        None
                    },
                    timed: || Ok(make()? as ::std::boxed::Box<dyn core::TimedRun>),
                }
            }
        };
    };
    (@aliases) => { &[] };
    (@aliases $aliases:expr) => { $aliases };
    (@preferred_for) => { &[] };
    (@preferred_for $preferred_for:expr) => { $preferred_for };
    (@probe) => { $crate::runtime::probe };
    (@probe $probe:expr) => { $probe };
}
