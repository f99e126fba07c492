//! The benchmark sweep of docs/benchmark.md: every chosen variant on MT19937
//! images over densities and granularities, timed through
//! [`Algorithm::timed`], each result checked against the reference before
//! its time is kept.
//!
//! [`run`] measures, [`summary`] reduces the measurements to the protocol's
//! summary figures, [`csv`] writes them out and reads them back, [`plot`]
//! draws them.

pub mod csv;
pub mod plot;
pub mod summary;

use std::path::{Path, PathBuf};

use ccl_core::{
    Algorithm, Backend, BinaryImage, BinaryImageBuf, Connectivity, StageTime, Task, TimedRun,
};

use ccl_testkit::cases::Source;
use ccl_testkit::verify::{Expected, Mismatch, compare_labels, compare_stats};

/// The densities of a sweep: 0, 5, …, 100 %.
pub const DENSITIES: [u32; 21] = {
    let mut densities = [0; 21];
    let mut i = 0;
    while i < densities.len() {
        densities[i] = 5 * i as u32;
        i += 1;
    }
    densities
};

/// The granularities of a sweep.
pub const GRANULARITIES: [u32; 3] = [1, 4, 16];

/// What a sweep measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Image width in pixels.
    pub width: usize,
    /// Image height in pixels.
    pub height: usize,
    /// Densities in percent.
    pub densities: Vec<u32>,
    /// Cell sides in pixels.
    pub granularities: Vec<u32>,
    /// MT19937 seed of every image.
    pub seed: u32,
    /// Timed runs per image, after one warm-up run.
    pub reps: usize,
    /// Labeling, analysis or both.
    pub tasks: Vec<Task>,
    /// The connectivities to measure (each variant only in those it supports).
    pub connectivities: Vec<Connectivity>,
    /// Structured patterns (`ccl_testdata::pattern_kinds`) to measure
    /// instead of the random images: each kind at each side of `sides`, as
    /// Kasagi et al. time spirals and Hilbert curves. Empty: the random
    /// images of `width`, `height`, `densities`, `granularities` and `seed`.
    pub patterns: Vec<&'static str>,
    /// The square sides of the pattern images.
    pub sides: Vec<usize>,
}

impl Config {
    /// The protocol's sweep at `width × height`: every density and
    /// granularity, seed 0, 10 repetitions, both tasks and connectivities.
    pub fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            densities: DENSITIES.to_vec(),
            granularities: GRANULARITIES.to_vec(),
            seed: ccl_testdata::DEFAULT_SEED,
            reps: 10,
            tasks: vec![Task::Label, Task::Analyze],
            connectivities: Connectivity::PLANE.to_vec(),
            patterns: Vec::new(),
            sides: Vec::new(),
        }
    }
}

impl Config {
    /// The sweep's images in measuring order: the random ones granularity
    /// outer, density inner; or each pattern (outer) at each side.
    pub fn sources(&self) -> Vec<Source> {
        if self.patterns.is_empty() {
            self.granularities
                .iter()
                .flat_map(|&granularity| {
                    self.densities.iter().map(move |&density| Source::Random {
                        width: self.width,
                        height: self.height,
                        density,
                        granularity,
                        seed: self.seed,
                    })
                })
                .collect()
        } else {
            self.patterns
                .iter()
                .flat_map(|&kind| {
                    self.sides.iter().map(move |&side| Source::Pattern {
                        kind,
                        width: side,
                        height: side,
                    })
                })
                .collect()
        }
    }
}

/// The timing of one variant, connectivity and task on one image.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Variant name.
    pub variant: String,
    /// Where it ran.
    pub backend: Backend,
    /// Connectivity.
    pub connectivity: Connectivity,
    /// Labeling or analysis.
    pub task: Task,
    /// Image width.
    pub width: usize,
    /// Image height.
    pub height: usize,
    /// Granularity of a random image; 0 for a pattern.
    pub granularity: u32,
    /// Density of a random image in percent; 0 for a pattern.
    pub density: u32,
    /// The pattern kind of a pattern image; `None` for a random one.
    pub pattern: Option<String>,
    /// Number of timed runs.
    pub reps: usize,
    /// Median time of a run (the sum of its stages) in ms.
    pub median_ms: f64,
    /// Fastest run in ms.
    pub min_ms: f64,
    /// Time to load the image (host to device for CUDA) in ms.
    pub transfer_ms: f64,
    /// Median time of each stage, in the variant's stage order.
    pub stages: Vec<StageMedian>,
}

/// The median time of one named stage over a measurement's runs.
#[derive(Clone, Debug, PartialEq)]
pub struct StageMedian {
    /// Stage name, as the variant's [`StageTime`]s give it.
    pub stage: String,
    /// Median over the runs, in ms.
    pub ms: f64,
    /// For a stage that iterates to a fixed point, its rounds (the most
    /// of any run: the same image takes the same rounds, whatever the
    /// scheduling, for every iterative variant of ccl).
    pub rounds: Option<u32>,
}

impl Measurement {
    /// Throughput of the median run in gigapixels per second.
    pub fn gpx_per_s(&self) -> f64 {
        (self.width * self.height) as f64 / (self.median_ms * 1e-3) / 1e9
    }
}

/// Why a sweep stopped; also why saving, reading back or drawing a
/// sweep's results, or [`crate::updates`]' counts, failed.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// Making an image or a variant, or running the reference, failed.
    #[error(transparent)]
    Setup(#[from] ccl_core::Error),
    /// A variant's timed form could not be made.
    #[error("{variant} could not be set up for timing: {source}")]
    Create {
        /// Variant name.
        variant: &'static str,
        /// What the variant reported.
        source: ccl_core::Error,
    },
    /// A variant could not load an image.
    #[error("{variant} could not load {image}: {source}")]
    Load {
        /// Variant name.
        variant: &'static str,
        /// The image, as [`Source`] describes it.
        image: String,
        /// What the variant reported.
        source: ccl_core::Error,
    },
    /// A variant failed on an image.
    #[error("{variant} failed on {image}, {connectivity}-connectivity {task}: {source}")]
    Run {
        /// Variant name.
        variant: &'static str,
        /// The image, as [`Source`] describes it.
        image: String,
        /// Connectivity.
        connectivity: Connectivity,
        /// Labeling or analysis.
        task: Task,
        /// What the variant reported.
        source: ccl_core::Error,
    },
    /// A variant's answer differs from the reference's: its time is not kept.
    #[error(
        "{variant} gave a wrong answer on {image}, {connectivity}-connectivity {task} ({mismatch}); its time is not reported"
    )]
    WrongAnswer {
        /// Variant name.
        variant: &'static str,
        /// The image, as [`Source`] describes it.
        image: String,
        /// Connectivity.
        connectivity: Connectivity,
        /// Labeling or analysis.
        task: Task,
        /// How the answer differs (boxed: it is large and rare).
        mismatch: Box<Mismatch>,
    },
    /// A variant's answer on a volume differs from the reference's
    /// ([`crate::volume_sweep::REFERENCE`]): its time is not kept.
    #[error(
        "{variant} gave a wrong answer on {volume}, {connectivity}-connectivity {task} ({difference}); its time is not reported"
    )]
    WrongVolumeAnswer {
        /// Variant name.
        variant: &'static str,
        /// The volume, as [`crate::volume_sweep::VolumeSource`] describes it.
        volume: String,
        /// Connectivity.
        connectivity: Connectivity,
        /// Labeling or analysis.
        task: Task,
        /// How the answer differs, in words.
        difference: String,
    },
    /// Writing the results, or reading saved ones, failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A saved sweep (or update count) is not CSV as [`csv::to_csv`] (or
    /// [`crate::updates::to_csv`]) writes it.
    #[error("{}: {source}", path.display())]
    Csv {
        /// The file read.
        path: PathBuf,
        /// Where and how it differs.
        source: csv::CsvError,
    },
    /// Writing a plot as PNG failed.
    #[error("{}: {message}", path.display())]
    Plot {
        /// The plot's file.
        path: PathBuf,
        /// What the image encoder reported.
        message: String,
    },
}

impl SweepError {
    /// A closure that wraps an I/O error on `path`, for `map_err`.
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SweepError {
        let path = path.to_path_buf();
        move |source| SweepError::Io { path, source }
    }
}

/// Measures every variant of `variants` as `config` says, one image at a
/// time in the order of [`Config::sources`], variants in the order given.
/// `on_image` is told of each image before it is measured (for progress),
/// and `on_rows` gets each image's measurements once its answers are
/// checked (to save them as the sweep goes: [`csv::CsvWriter`]); an error
/// from it ends the sweep.
///
/// # Errors
/// The first failure or wrong answer, naming variant and image.
pub fn run(
    config: &Config,
    variants: &[&'static Algorithm],
    mut on_image: impl FnMut(&Source),
    mut on_rows: impl FnMut(&[Measurement]) -> Result<(), SweepError>,
) -> Result<Vec<Measurement>, SweepError> {
    // One timed form per variant for the whole sweep: scratch buffers and
    // compiled kernels are reused, as in any long-running caller.
    let mut runners = variants
        .iter()
        .map(|v| {
            v.timed().map_err(|source| SweepError::Create {
                variant: v.name,
                source,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let images = config.sources();
    let mut measurements = Vec::new();
    // The reference is slow at benchmark sizes: the next image and its
    // reference are prepared, and answers checked, on other cores while this
    // image is timed; but not while a CPU variant is timed, which needs
    // every core for itself.
    let in_background = variants.iter().all(|v| v.backend != Backend::Cpu);
    std::thread::scope(|scope| -> Result<(), SweepError> {
        let prepare_in_background = |source: &Source| {
            let source = source.clone();
            scope.spawn(move || prepare(config, &source))
        };
        let mut next = images.first().map(prepare_in_background);
        for (i, source) in images.iter().enumerate() {
            let (image, expected) = next
                .take()
                .unwrap_or_else(|| prepare_in_background(&images[i]))
                .join()
                .map_err(|_| SweepError::Setup(reference_panicked()))??;
            if in_background {
                next = images.get(i + 1).map(prepare_in_background);
            }
            on_image(source);
            let (width, height) = (image.width(), image.height());
            let kept = measurements.len();
            // Answers are checked on other cores while the next runs are timed;
            // every check ends before the image's times are kept.
            let checked = std::thread::scope(|checks| -> Result<(), SweepError> {
                let mut pending = Vec::new();
                for (&algorithm, runner) in variants.iter().zip(&mut runners) {
                    let mut bench = Bench {
                        algorithm,
                        runner: runner.as_mut(),
                        image: source.to_string(),
                        reps: config.reps,
                    };
                    let transfer_ms = bench.load(&image.view())?;
                    for (connectivity, expected) in &expected {
                        for &task in &config.tasks {
                            if !algorithm.supports(*connectivity) || !algorithm.performs(task) {
                                continue;
                            }
                            let (timing, answer) = bench.measure(task, *connectivity)?;
                            let (name, image, connectivity) =
                                (algorithm.name, source.to_string(), *connectivity);
                            let wrong = move |mismatch| SweepError::WrongAnswer {
                                variant: name,
                                image,
                                connectivity,
                                task,
                                mismatch: Box::new(mismatch),
                            };
                            let check = checks.spawn(move || answer.check(expected).map_err(wrong));
                            if in_background {
                                pending.push(check);
                            } else {
                                check
                                    .join()
                                    .map_err(|_| SweepError::Setup(reference_panicked()))??;
                            }
                            let (granularity, density, pattern) = match *source {
                                Source::Random {
                                    granularity,
                                    density,
                                    ..
                                } => (granularity, density, None),
                                Source::Pattern { kind, .. } => (0, 0, Some(kind.to_string())),
                                Source::Real { name } => (0, 0, Some(name.to_string())),
                            };
                            measurements.push(Measurement {
                                variant: algorithm.name.to_string(),
                                backend: algorithm.backend,
                                connectivity,
                                task,
                                width,
                                height,
                                granularity,
                                density,
                                pattern,
                                reps: config.reps,
                                median_ms: timing.median_ms,
                                min_ms: timing.min_ms,
                                transfer_ms,
                                stages: timing.stages,
                            });
                        }
                    }
                }
                for check in pending {
                    check
                        .join()
                        .map_err(|_| SweepError::Setup(reference_panicked()))??;
                }
                Ok(())
            });
            checked?;
            on_rows(&measurements[kept..])?;
        }
        Ok(())
    })?;
    Ok(measurements)
}

/// The image of `source`, and the reference's answer for each
/// connectivity, the connectivities computed in parallel.
fn prepare(
    config: &Config,
    source: &Source,
) -> ccl_core::Result<(BinaryImageBuf, Vec<(Connectivity, Expected)>)> {
    let image = source.image()?;
    let view = image.view();
    let expected = std::thread::scope(|scope| {
        let workers: Vec<_> = config
            .connectivities
            .iter()
            .map(|&c| scope.spawn(move || Expected::compute(&view, c).map(|e| (c, e))))
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().map_err(|_| reference_panicked())?)
            .collect::<ccl_core::Result<Vec<_>>>()
    })?;
    Ok((image, expected))
}

fn reference_panicked() -> ccl_core::Error {
    ccl_core::Error::Unavailable("the reference labeler panicked".into())
}

/// One variant on one image.
struct Bench<'a> {
    algorithm: &'static Algorithm,
    runner: &'a mut dyn TimedRun,
    /// The image's description for error messages.
    image: String,
    reps: usize,
}

/// The times of the checked runs of one task.
struct Timing {
    median_ms: f64,
    min_ms: f64,
    stages: Vec<StageMedian>,
}

impl Bench<'_> {
    /// Loads the image for the runs that follow; returns the transfer time.
    fn load(&mut self, image: &BinaryImage<'_>) -> Result<f64, SweepError> {
        self.runner.load(image).map_err(|source| SweepError::Load {
            variant: self.algorithm.name,
            image: self.image.clone(),
            source,
        })
    }

    /// One warm-up run and `reps` timed runs; returns their times and the
    /// last run's answer, which the caller checks before keeping the times.
    fn measure(
        &mut self,
        task: Task,
        connectivity: Connectivity,
    ) -> Result<(Timing, Answer), SweepError> {
        let failed = |source| SweepError::Run {
            variant: self.algorithm.name,
            image: self.image.clone(),
            connectivity,
            task,
            source,
        };
        self.runner.run(task, connectivity).map_err(failed)?;
        let runs = (0..self.reps)
            .map(|_| self.runner.run(task, connectivity))
            .collect::<ccl_core::Result<Vec<_>>>()
            .map_err(failed)?;
        let answer = match task {
            Task::Label => Answer::Labels(self.runner.labels().map_err(failed)?),
            Task::Analyze => Answer::Stats(self.runner.stats().map_err(failed)?),
        };
        let totals: Vec<f64> = runs
            .iter()
            .map(|stages| stages.iter().map(|s| s.ms).sum())
            .collect();
        let timing = Timing {
            median_ms: median(totals.clone()),
            min_ms: totals.iter().copied().fold(f64::INFINITY, f64::min),
            stages: stage_medians(&runs),
        };
        Ok((timing, answer))
    }
}

/// What a timed run produced, to be checked against the reference.
enum Answer {
    Labels(ccl_core::LabelImage),
    Stats(Vec<ccl_core::ComponentStats>),
}

impl Answer {
    fn check(&self, expected: &Expected) -> Result<(), Mismatch> {
        match self {
            Answer::Labels(labels) => compare_labels(&expected.labels, labels),
            Answer::Stats(stats) => compare_stats(&expected.stats, stats),
        }
    }
}

/// The median of each stage over runs, in the first run's stage order.
pub(crate) fn stage_medians(runs: &[Vec<StageTime>]) -> Vec<StageMedian> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    first
        .iter()
        .map(|stage| {
            let times = || {
                runs.iter()
                    .flat_map(|run| run.iter().filter(|s| s.stage == stage.stage))
            };
            StageMedian {
                stage: stage.stage.to_string(),
                ms: median(times().map(|s| s.ms).collect()),
                rounds: times().filter_map(|s| s.rounds).max(),
            }
        })
        .collect()
}

/// The median; the mean of the middle two for an even count; NaN for none.
pub(crate) fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// Stage medians of `(name, ms)` pairs, none iterating: the tests' way to
/// make a measurement's stages.
#[cfg(test)]
pub(crate) fn stages_of(pairs: &[(&str, f64)]) -> Vec<StageMedian> {
    pairs
        .iter()
        .map(|&(stage, ms)| StageMedian {
            stage: stage.to_string(),
            ms,
            rounds: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn densities_follow_the_protocol() {
        assert_eq!(DENSITIES.first(), Some(&0));
        assert_eq!(DENSITIES.last(), Some(&100));
        assert!(DENSITIES.windows(2).all(|w| w[1] - w[0] == 5));
    }

    #[test]
    fn a_wrong_answer_stops_the_sweep_naming_variant_and_image() {
        static WRONG: Algorithm = ccl_testkit::wrong::MERGE_ALL;
        let config = Config {
            densities: vec![0, 50],
            granularities: vec![4],
            reps: 1,
            ..Config::new(32, 32)
        };
        // The empty image at d=0 is right even for MERGE_ALL; d=50 is not.
        let error = run(&config, &[&WRONG], |_| {}, |_| Ok(())).unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, SweepError::WrongAnswer { .. }), "{message}");
        assert!(
            message.contains("merge-all") && message.contains("32x32 d=50 g=4 seed=0"),
            "{message}"
        );
    }

    #[test]
    fn every_supported_combination_is_measured() {
        let reference = ccl::find(ccl_testkit::verify::REFERENCE).unwrap();
        let config = Config {
            densities: vec![0, 60],
            reps: 2,
            ..Config::new(40, 24)
        };
        let (mut images, mut saved) = (0, Vec::new());
        let measurements = run(
            &config,
            &[reference],
            |_| images += 1,
            |rows| {
                // An image's rows at a time: both connectivities and tasks.
                assert_eq!(rows.len(), 4);
                saved.extend_from_slice(rows);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(images, 2 * GRANULARITIES.len());
        assert_eq!(saved, measurements);
        assert_eq!(measurements.len(), 2 * GRANULARITIES.len() * 2 * 2);
        assert!(
            measurements
                .iter()
                .all(|m| m.min_ms <= m.median_ms && m.stages.len() == 1)
        );
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(Vec::new()).is_nan());
    }
}
