//! The `Labeler` / `Analyzer` traits, the timed path, and what a registered
//! algorithm declares.

use std::time::Instant;

use crate::{
    BinaryImage, BinaryImageBuf, BinaryVolume, BinaryVolumeBuf, ComponentStats, Connectivity,
    Error, LabelImage, LabelVolume, Result, VolumeStats,
};

/// Connected component labeling: a label per pixel.
pub trait Labeler {
    /// Labels every foreground pixel canonically: 0 for background, 1..=N in
    /// raster order of each component's first pixel (as
    /// [`LabelImage::canonical`] numbers any labeling).
    fn label(&mut self, image: &BinaryImage<'_>, connectivity: Connectivity) -> Result<LabelImage>;

    /// [`label`](Self::label)'s labels and their number N.
    ///
    /// The default counts them in a pass over the labels (checking that
    /// they are canonical); a variant that knows N when it is done (from
    /// its merge) overrides it and saves that pass.
    ///
    /// # Errors
    /// Those of [`label`](Self::label); [`Error::Unavailable`] where the
    /// labels are not canonical.
    fn label_with_count(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
    ) -> Result<(LabelImage, usize)> {
        let labels = self.label(image, connectivity)?;
        let count = labels
            .component_count_if_canonical()
            .ok_or_else(|| Error::Unavailable("the labeler's labels were not canonical".into()))?;
        Ok((labels, count))
    }

    /// Labels `image` into `labels`, a caller's buffer of exactly `width *
    /// height` labels (row-major, packed; whatever it held is overwritten),
    /// and returns the number of components N: the labels of
    /// [`label`](Self::label), without a new label image. A buffer reused
    /// across images allocates nothing and faults in no new pages.
    ///
    /// The default labels into a new image and copies it; a variant that
    /// can write in place overrides it.
    ///
    /// # Errors
    /// [`Error::InvalidDimensions`] when `labels` does not hold one label
    /// per pixel; otherwise those of [`label`](Self::label).
    fn label_into(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
        labels: &mut [u32],
    ) -> Result<usize> {
        check_label_buffer(image, labels)?;
        let result = self.label(image, connectivity)?;
        labels.copy_from_slice(result.labels());
        result
            .component_count_if_canonical()
            .ok_or_else(|| Error::Unavailable("the labeler's labels were not canonical".into()))
    }

    /// Labels every foreground voxel of a volume canonically: 0 for
    /// background, 1..=N in raster order (z, then y, then x) of each
    /// component's first voxel, with a 3-D connectivity (6, 18 or 26).
    ///
    /// A variant that labels volumes overrides it and lists the volumes'
    /// connectivities it implements among its registered ones; the default
    /// says that it does not.
    fn label_volume(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<LabelVolume> {
        let _ = volume;
        Err(no_volumes(connectivity))
    }

    /// Labels `volume` into `labels`, a caller's buffer of exactly one label
    /// per voxel (x fastest, packed), and returns N: the labels of
    /// [`label_volume`](Self::label_volume) without a new label volume. The
    /// default labels into a new volume and copies it.
    ///
    /// # Errors
    /// [`Error::InvalidDimensions`] when `labels` does not hold one label
    /// per voxel; otherwise those of [`label_volume`](Self::label_volume).
    fn label_volume_into(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
        labels: &mut [u32],
    ) -> Result<usize> {
        check_volume_label_buffer(volume, labels)?;
        let result = self.label_volume(volume, connectivity)?;
        labels.copy_from_slice(result.labels());
        result
            .component_count_if_canonical()
            .ok_or_else(|| Error::Unavailable("the labeler's labels were not canonical".into()))
    }

    /// Labels a batch of images of one size, given as the slices of
    /// `batch` (slice `i` is image `i`; no slice touches another), in an
    /// image's connectivity (4 or 8): each image's labels into its plane of
    /// `labels` (one label per pixel of the batch, packed, overwritten),
    /// numbered 1..=n_i in raster order of its own components' first
    /// pixels, and n_i into `counts[i]`.
    ///
    /// The default labels the images one after the other with
    /// [`label_into`](Self::label_into); a variant that labels a whole
    /// batch at once (one launch sequence on a GPU) overrides it.
    ///
    /// # Errors
    /// [`Error::InvalidDimensions`] when `labels` does not hold one label
    /// per pixel or `counts` one count per image; a volume's connectivity
    /// is refused as [`Connectivity::check_dimensions`] says; otherwise
    /// those of [`label_into`](Self::label_into).
    fn label_batch(
        &mut self,
        batch: &BinaryVolume<'_>,
        connectivity: Connectivity,
        labels: &mut [u32],
        counts: &mut [usize],
    ) -> Result<()> {
        check_batch_buffers(batch, connectivity, labels, counts)?;
        let plane = batch.width() * batch.height();
        if plane == 0 {
            counts.fill(0);
            return Ok(());
        }
        for ((z, labels), count) in labels.chunks_exact_mut(plane).enumerate().zip(counts) {
            *count = self.label_into(&batch.slice(z), connectivity, labels)?;
        }
        Ok(())
    }
}

/// Checks a batch's connectivity (an image's), its label buffer (one label
/// per pixel of every image) and its counts (one per image), as
/// [`Labeler::label_batch`] needs.
pub fn check_batch_buffers(
    batch: &BinaryVolume<'_>,
    connectivity: Connectivity,
    labels: &[u32],
    counts: &[usize],
) -> Result<()> {
    connectivity.check_dimensions(2)?;
    check_volume_label_buffer(batch, labels)?;
    if counts.len() != batch.depth() {
        return Err(Error::InvalidDimensions(format!(
            "{} counts for a batch of {} images",
            counts.len(),
            batch.depth()
        )));
    }
    Ok(())
}

/// The error of asking a variant that labels only images for a volume.
fn no_volumes(connectivity: Connectivity) -> Error {
    Error::Unavailable(format!(
        "this variant does not label volumes ({connectivity}-connectivity asked); `ccl list` shows those that do"
    ))
}

/// Checks that `labels` holds exactly one label per voxel of `volume`, as
/// [`Labeler::label_volume_into`] needs.
pub fn check_volume_label_buffer(volume: &BinaryVolume<'_>, labels: &[u32]) -> Result<()> {
    if labels.len() != volume.voxel_count() {
        return Err(Error::InvalidDimensions(format!(
            "a buffer of {} labels for a {}x{}x{} volume ({} voxels)",
            labels.len(),
            volume.width(),
            volume.height(),
            volume.depth(),
            volume.voxel_count()
        )));
    }
    Ok(())
}

/// Checks that `labels` holds exactly one label per pixel of `image`, as
/// [`Labeler::label_into`] needs.
pub fn check_label_buffer(image: &BinaryImage<'_>, labels: &[u32]) -> Result<()> {
    if labels.len() != image.pixel_count() {
        return Err(Error::InvalidDimensions(format!(
            "a buffer of {} labels for a {}x{} image ({} pixels)",
            labels.len(),
            image.width(),
            image.height(),
            image.pixel_count()
        )));
    }
    Ok(())
}

/// Connected component analysis: the features of every component.
pub trait Analyzer {
    /// One [`ComponentStats`] per component, in raster order of the
    /// components' first pixels.
    fn analyze(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<ComponentStats>>;

    /// [`analyze`](Self::analyze) into `stats`, the caller's vector,
    /// whatever it held: reused from image to image, a variant that
    /// overrides this (`cpu-rle`) writes the features into the memory the
    /// vector has, and a call costs no new allocation and no page faults
    /// until an image has more components than any before. The default
    /// moves [`analyze`](Self::analyze)'s new vector in.
    ///
    /// # Errors
    /// Those of [`analyze`](Self::analyze); `stats` is then unspecified.
    fn analyze_into(
        &mut self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
        stats: &mut Vec<ComponentStats>,
    ) -> Result<()> {
        *stats = self.analyze(image, connectivity)?;
        Ok(())
    }

    /// One [`VolumeStats`] per component of a volume, in raster order of
    /// the components' first voxels. The default says that the variant does
    /// not analyze volumes.
    fn analyze_volume(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<VolumeStats>> {
        let _ = volume;
        Err(no_volumes(connectivity))
    }

    /// [`analyze_volume`](Self::analyze_volume) into `stats`, as
    /// [`analyze_into`](Self::analyze_into) is for an image.
    ///
    /// # Errors
    /// Those of [`analyze_volume`](Self::analyze_volume).
    fn analyze_volume_into(
        &mut self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
        stats: &mut Vec<VolumeStats>,
    ) -> Result<()> {
        *stats = self.analyze_volume(volume, connectivity)?;
        Ok(())
    }

    /// The features of every image of a batch (the slices of `batch`, as
    /// [`Labeler::label_batch`] takes them), in an image's connectivity:
    /// entry `i` is what [`analyze`](Self::analyze) gives for image `i`.
    /// The default analyzes the images one after the other; a variant that
    /// analyzes a whole batch at once overrides it.
    ///
    /// # Errors
    /// A volume's connectivity, as [`Connectivity::check_dimensions`]
    /// says; otherwise those of [`analyze`](Self::analyze).
    fn analyze_batch(
        &mut self,
        batch: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<Vec<ComponentStats>>> {
        connectivity.check_dimensions(2)?;
        (0..batch.depth())
            .map(|z| {
                let image = batch.slice(z);
                if image.is_empty() {
                    Ok(Vec::new())
                } else {
                    self.analyze(&image, connectivity)
                }
            })
            .collect()
    }
}

/// What a run computes: labeling (CCL, a label per pixel) or analysis
/// (CCA, the features of every component). Prints as `label` / `analyze`,
/// the words of the CLI's commands, the sweep's `--task` and its CSV; also
/// parses from the papers' `ccl` / `cca`.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::EnumString,
    strum::Display,
    strum::EnumIter,
    strum::IntoStaticStr,
)]
#[strum(ascii_case_insensitive)]
pub enum Task {
    /// Connected component labeling (labels only).
    #[strum(to_string = "label", serialize = "ccl")]
    Label,
    /// Connected component analysis (the seven features, no label image).
    #[strum(to_string = "analyze", serialize = "cca")]
    Analyze,
}

/// Where an algorithm runs; prints and parses as `cpu` / `cuda`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, strum::Display, strum::EnumString, strum::IntoStaticStr,
)]
pub enum Backend {
    /// On the host's CPU cores.
    #[strum(to_string = "cpu")]
    Cpu,
    /// On an NVIDIA GPU through CUDA.
    #[strum(to_string = "cuda")]
    Cuda,
}

/// The duration of one named stage of a timed run.
#[derive(Clone, Debug, PartialEq)]
pub struct StageTime {
    /// Stage name, e.g. `"strip"`, `"border"`, `"features"`.
    pub stage: &'static str,
    /// Milliseconds (CUDA events on the GPU, wall clock on the CPU).
    pub ms: f64,
    /// For a stage that iterates to a fixed point, the rounds it ran (the
    /// last, unchanging one included); `None` for any other stage.
    pub rounds: Option<u32>,
}

/// The benchmarkable form of a variant: the input (an image or, for a
/// variant that labels volumes, a volume) is loaded once (for CUDA: copied
/// to device memory), then runs repeat on it with nothing copied or
/// allocated inside the timed region, and the results of the last run can be
/// fetched for checking.
pub trait TimedRun {
    /// Loads `image` for the following runs; returns the transfer time in ms
    /// (0 where nothing moves).
    fn load(&mut self, image: &BinaryImage<'_>) -> Result<f64>;

    /// Runs `task` on the loaded image and returns the time of each stage.
    fn run(&mut self, task: Task, connectivity: Connectivity) -> Result<Vec<StageTime>>;

    /// Labels of the last [`Task::Label`] run: the canonical labels the run
    /// wrote, which its time includes.
    fn labels(&mut self) -> Result<LabelImage>;

    /// Features of the last [`Task::Analyze`] run.
    fn stats(&mut self) -> Result<Vec<ComponentStats>>;

    /// Loads a volume for the following runs, in place of any image;
    /// returns the transfer time in ms. The default says that the variant
    /// does not label volumes.
    fn load_volume(&mut self, volume: &BinaryVolume<'_>) -> Result<f64> {
        let _ = volume;
        Err(no_volumes(Connectivity::Six))
    }

    /// Labels of the last [`Task::Label`] run on a loaded volume.
    fn volume_labels(&mut self) -> Result<LabelVolume> {
        Err(not_run())
    }

    /// Features of the last [`Task::Analyze`] run on a loaded volume.
    fn volume_stats(&mut self) -> Result<Vec<VolumeStats>> {
        Err(not_run())
    }
}

/// Makes a labeler (a registry entry's constructor).
pub type LabelerFactory = fn() -> Result<Box<dyn Labeler>>;
/// Makes an analyzer (a registry entry's constructor).
pub type AnalyzerFactory = fn() -> Result<Box<dyn Analyzer>>;
/// Makes the timed form of a variant (a registry entry's constructor).
pub type TimedFactory = fn() -> Result<Box<dyn TimedRun>>;

/// A registered algorithm: what it is, what it supports, how to make one.
///
/// Algorithm crates submit one per variant with
/// `ccl_core::inventory::submit! { ccl_core::Algorithm { … } }`.
pub struct Algorithm {
    /// Kebab-case name, e.g. `cpu-uf`, `ha4-64`.
    pub name: &'static str,
    /// Former names that [`find`](crate::find) still accepts.
    pub aliases: &'static [&'static str],
    /// The package that registers it (`env!("CARGO_PKG_NAME")`), so that a
    /// test can prove every algorithm crate of the workspace is linked.
    pub crate_name: &'static str,
    /// Where it runs.
    pub backend: Backend,
    /// The connectivities it implements.
    pub connectivities: &'static [Connectivity],
    /// One line: what it is and the paper it follows.
    pub summary: &'static str,
    /// Higher wins when a default is picked among available variants for a
    /// task and connectivity that no available variant is
    /// [`preferred_for`](Self::preferred_for).
    pub priority: u32,
    /// The tasks and connectivities it is the default for wherever it can
    /// run, whatever the priorities: the fastest variant for them in the
    /// committed GPU sweep. At most one variant claims each (a registry
    /// test checks); CPU variants claim none, their priorities decide.
    pub preferred_for: &'static [(Task, Connectivity)],
    /// `Ok` when it can run on this machine, else the reason it cannot.
    /// Its outcome stays the same for the process: the registry keeps the
    /// default it picked by it ([`default_algorithm`](crate::default_algorithm)).
    pub probe: fn() -> Result<()>,
    /// Makes a labeler, if the algorithm labels.
    pub labeler: Option<LabelerFactory>,
    /// Makes an analyzer, if the algorithm computes features.
    pub analyzer: Option<AnalyzerFactory>,
    /// Makes the timed form used by benchmarks.
    pub timed: TimedFactory,
}

impl Algorithm {
    /// Whether it implements `connectivity`.
    pub fn supports(&self, connectivity: Connectivity) -> bool {
        self.connectivities.contains(&connectivity)
    }

    /// Whether `name` is its name or one of its aliases.
    pub fn is_called(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }

    /// Whether it performs `task`.
    pub fn performs(&self, task: Task) -> bool {
        match task {
            Task::Label => self.labeler.is_some(),
            Task::Analyze => self.analyzer.is_some(),
        }
    }

    /// `Ok` when it implements `connectivity`, else an error naming those it does.
    pub fn check_connectivity(&self, connectivity: Connectivity) -> Result<()> {
        check_connectivity(self.name, self.connectivities, connectivity)
    }

    /// `Ok` when it performs `task`, else an error saying it does not.
    pub fn check_task(&self, task: Task) -> Result<()> {
        if self.performs(task) {
            Ok(())
        } else {
            Err(Error::UnsupportedTask {
                algorithm: self.name.to_string(),
                task,
            })
        }
    }

    /// A new labeler.
    pub fn labeler(&self) -> Result<Box<dyn Labeler>> {
        self.check_task(Task::Label)?;
        (self.labeler.expect("checked by check_task"))()
    }

    /// A new analyzer.
    pub fn analyzer(&self) -> Result<Box<dyn Analyzer>> {
        self.check_task(Task::Analyze)?;
        (self.analyzer.expect("checked by check_task"))()
    }

    /// A new timed form for benchmarks.
    pub fn timed(&self) -> Result<Box<dyn TimedRun>> {
        (self.timed)()
    }

    /// `Ok` when it can run here.
    pub fn probe(&self) -> Result<()> {
        (self.probe)()
    }
}

impl std::fmt::Debug for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Algorithm")
            .field("name", &self.name)
            .field("backend", &self.backend)
            .field("connectivities", &self.connectivities)
            .finish_non_exhaustive()
    }
}

/// `Ok` when `connectivity` is one of `supported`, else
/// [`Error::UnsupportedConnectivity`] naming `algorithm` and the supported ones.
pub fn check_connectivity(
    algorithm: &str,
    supported: &[Connectivity],
    connectivity: Connectivity,
) -> Result<()> {
    if supported.contains(&connectivity) {
        return Ok(());
    }
    Err(Error::UnsupportedConnectivity {
        algorithm: algorithm.to_string(),
        requested: connectivity,
        supported: supported
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// The timed form of a host-side algorithm: keeps a copy of the image (or
/// volume) and times [`Labeler::label_into`] / [`Analyzer::analyze_into`]
/// (or their volume forms) by wall clock, as one stage named `"total"`.
/// Labels and features go into buffers kept from run to run, as a caller
/// who reuses them (`ccl::Variant::label_into` and `analyze_into`,
/// Python's `out=`) gets them: the time is the labeling's, not the page
/// faults of a new label image's or feature vector's first writes.
pub struct HostTimedRun<T> {
    algorithm: T,
    input: Option<HostInput>,
    /// What the last run gave (`labels`, `stats` or `volume_stats`), or
    /// `None` before a run or after a failed one.
    last: Option<Output>,
    /// The labels of the last labeling run.
    labels: Vec<u32>,
    /// The features of the last image analysis.
    stats: Vec<ComponentStats>,
    /// The features of the last volume analysis.
    volume_stats: Vec<VolumeStats>,
}

/// Which of a [`HostTimedRun`]'s buffers holds the last run's results.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Output {
    Labels,
    Stats,
    VolumeStats,
}

/// What a [`HostTimedRun`] runs on.
enum HostInput {
    Image(BinaryImageBuf),
    Volume(BinaryVolumeBuf),
}

impl<T: Labeler + Analyzer> HostTimedRun<T> {
    /// Wraps an algorithm that both labels and analyzes.
    pub fn new(algorithm: T) -> Self {
        Self {
            algorithm,
            input: None,
            last: None,
            labels: Vec::new(),
            stats: Vec::new(),
            volume_stats: Vec::new(),
        }
    }
}

impl<T: Labeler + Analyzer> TimedRun for HostTimedRun<T> {
    fn load(&mut self, image: &BinaryImage<'_>) -> Result<f64> {
        self.input = Some(HostInput::Image(image.to_buf()));
        self.last = None;
        Ok(0.0)
    }

    fn run(&mut self, task: Task, connectivity: Connectivity) -> Result<Vec<StageTime>> {
        // The labels are sized before the clock starts; the buffers keep
        // their memory from run to run.
        self.last = None;
        let input = self.input.as_ref().ok_or_else(not_loaded)?;
        let voxels = match input {
            HostInput::Image(image) => image.width() * image.height(),
            HostInput::Volume(volume) => volume.voxels().len(),
        };
        self.labels.resize(voxels, 0);
        let start = Instant::now();
        let output = match (input, task) {
            (HostInput::Image(image), Task::Label) => {
                self.algorithm
                    .label_into(&image.view(), connectivity, &mut self.labels)?;
                Output::Labels
            }
            (HostInput::Image(image), Task::Analyze) => {
                self.algorithm
                    .analyze_into(&image.view(), connectivity, &mut self.stats)?;
                Output::Stats
            }
            (HostInput::Volume(volume), Task::Label) => {
                self.algorithm
                    .label_volume_into(&volume.view(), connectivity, &mut self.labels)?;
                Output::Labels
            }
            (HostInput::Volume(volume), Task::Analyze) => {
                self.algorithm.analyze_volume_into(
                    &volume.view(),
                    connectivity,
                    &mut self.volume_stats,
                )?;
                Output::VolumeStats
            }
        };
        let ms = start.elapsed().as_secs_f64() * 1e3;
        self.last = Some(output);
        Ok(vec![StageTime {
            stage: "total",
            ms,
            rounds: None,
        }])
    }

    fn labels(&mut self) -> Result<LabelImage> {
        match &self.input {
            Some(HostInput::Image(image)) if self.last == Some(Output::Labels) => {
                LabelImage::new(image.width(), image.height(), self.labels.clone())
            }
            Some(_) => Err(not_run()),
            None => Err(not_loaded()),
        }
    }

    fn stats(&mut self) -> Result<Vec<ComponentStats>> {
        match self.last {
            Some(Output::Stats) => Ok(self.stats.clone()),
            _ => Err(not_run()),
        }
    }

    fn load_volume(&mut self, volume: &BinaryVolume<'_>) -> Result<f64> {
        self.input = Some(HostInput::Volume(volume.to_buf()));
        self.last = None;
        Ok(0.0)
    }

    fn volume_labels(&mut self) -> Result<LabelVolume> {
        match &self.input {
            Some(HostInput::Volume(volume)) if self.last == Some(Output::Labels) => {
                LabelVolume::new(
                    volume.width(),
                    volume.height(),
                    volume.depth(),
                    self.labels.clone(),
                )
            }
            Some(_) => Err(not_run()),
            None => Err(not_loaded()),
        }
    }

    fn volume_stats(&mut self) -> Result<Vec<VolumeStats>> {
        match self.last {
            Some(Output::VolumeStats) => Ok(self.volume_stats.clone()),
            _ => Err(not_run()),
        }
    }
}

/// The error of running before [`TimedRun::load`].
pub fn not_loaded() -> Error {
    Error::Unavailable("no image loaded: call TimedRun::load first".into())
}

/// The error of fetching results before a run of that task.
pub fn not_run() -> Error {
    Error::Unavailable("no results yet: run the task before fetching its results".into())
}
