//! The volume sweep: every chosen variant that labels volumes on MT19937
//! random volumes (`ccl_testdata::random_volume`) over densities and
//! granularities, in 6-, 18- and 26-connectivity, timed through
//! [`TimedRun::load_volume`] and [`TimedRun::run`] as the image sweep
//! ([`crate::sweep`]) times images, each answer checked before its time is
//! kept.
//!
//! [`run`] measures, [`summary`] reduces the measurements to a table (mean
//! throughput over the densities, the slowest density, analysis against
//! labeling), [`csv`] writes them out as `volume-sweep.csv` and reads them
//! back.

pub mod csv;
pub mod summary;

use std::fmt;

use ccl_core::{
    Algorithm, Analyzer, Backend, BinaryVolume, BinaryVolumeBuf, Connectivity, LabelVolume,
    Labeler, Task, TimedRun, VolumeStats,
};

use crate::sweep::{GRANULARITIES, StageMedian, SweepError, median, stage_medians};

/// The variant every answer is checked against: `cpu-rle`, the multi-core
/// CPU labeler, which the volume conformance kit (`ccl-testkit`'s
/// `volumes`) holds equal to the reference `cpu-uf` on every volume it
/// checks. `cpu-uf` itself, a voxel-by-voxel union-find on one core, takes
/// seconds per answer at 512³ (six answers per volume), longer than the
/// timing it would check.
pub const REFERENCE: &str = "cpu-rle";

/// The densities of a volume sweep in percent: around the site-percolation
/// thresholds of the cubic lattice, 31 % for 6-connectivity, 14 % for 18
/// and 10 % for 26 (docs/benchmark.md), where labeling is slowest, and
/// spread from sparse to dense beside them.
pub const DENSITIES: [u32; 10] = [5, 10, 14, 20, 31, 40, 50, 60, 70, 80];

/// The side of a volume sweep's cubes unless told: 512³ = 134 M voxels
/// (twice the pixels of the images' 8192²), 512 MiB of labels.
pub const SIDE: usize = 512;

/// What a volume sweep measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VolumeConfig {
    /// Volume width (x) in voxels.
    pub width: usize,
    /// Volume height (y) in voxels.
    pub height: usize,
    /// Volume depth (z) in voxels.
    pub depth: usize,
    /// Densities in percent.
    pub densities: Vec<u32>,
    /// Cell sides in voxels.
    pub granularities: Vec<u32>,
    /// MT19937 seed of every volume.
    pub seed: u32,
    /// Timed runs per volume, connectivity and task, after one warm-up run.
    pub reps: usize,
    /// Labeling, analysis or both.
    pub tasks: Vec<Task>,
    /// The connectivities to measure, 6, 18 or 26 (each variant only in
    /// those it supports).
    pub connectivities: Vec<Connectivity>,
}

impl VolumeConfig {
    /// The volume sweep at `width × height × depth`: [`DENSITIES`],
    /// granularities 1, 4 and 16, the default seed, 10 repetitions, both
    /// tasks, every volume connectivity.
    pub fn new(width: usize, height: usize, depth: usize) -> Self {
        Self {
            width,
            height,
            depth,
            densities: DENSITIES.to_vec(),
            granularities: GRANULARITIES.to_vec(),
            seed: ccl_testdata::DEFAULT_SEED,
            reps: 10,
            tasks: vec![Task::Label, Task::Analyze],
            connectivities: Connectivity::VOLUME.to_vec(),
        }
    }

    /// The sweep's volumes in measuring order: granularity outer, density
    /// inner.
    pub fn sources(&self) -> Vec<VolumeSource> {
        self.granularities
            .iter()
            .flat_map(|&granularity| {
                self.densities.iter().map(move |&density| VolumeSource {
                    width: self.width,
                    height: self.height,
                    depth: self.depth,
                    density,
                    granularity,
                    seed: self.seed,
                })
            })
            .collect()
    }

    /// `Ok` when the sweep can run: volume connectivities only, at least one
    /// timed run, a size within the 32-bit label space.
    fn check(&self) -> ccl_core::Result<()> {
        for connectivity in &self.connectivities {
            connectivity.check_dimensions(3)?;
        }
        if self.reps == 0 {
            return Err(ccl_core::Error::InvalidArgument(
                "a sweep needs at least one timed run per volume".into(),
            ));
        }
        ccl_core::check_volume_size(self.width, self.height, self.depth)
    }
}

impl Default for VolumeConfig {
    /// The protocol's volume sweep: 512×512×512 ([`SIDE`]).
    fn default() -> Self {
        Self::new(SIDE, SIDE, SIDE)
    }
}

/// One random volume of a sweep: the arguments of
/// `ccl_testdata::random_volume`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VolumeSource {
    /// Width (x) in voxels.
    pub width: usize,
    /// Height (y) in voxels.
    pub height: usize,
    /// Depth (z) in voxels.
    pub depth: usize,
    /// Density in percent.
    pub density: u32,
    /// Cell side in voxels.
    pub granularity: u32,
    /// MT19937 seed.
    pub seed: u32,
}

impl VolumeSource {
    /// The volume (MT19937, bit for bit as docs/benchmark.md specifies).
    pub fn volume(&self) -> ccl_core::Result<BinaryVolumeBuf> {
        ccl_testdata::random_volume(
            self.width,
            self.height,
            self.depth,
            self.density,
            self.granularity,
            self.seed,
        )
    }
}

impl fmt::Display for VolumeSource {
    /// `random volume WxHxD d=.. g=.. seed=..`: what `ccl gen` and
    /// `random_volume` need to make it again.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "random volume {}x{}x{} d={} g={} seed={}",
            self.width, self.height, self.depth, self.density, self.granularity, self.seed
        )
    }
}

/// The timing of one variant, connectivity and task on one volume.
#[derive(Clone, Debug, PartialEq)]
pub struct VolumeMeasurement {
    /// Variant name.
    pub variant: String,
    /// Where it ran.
    pub backend: Backend,
    /// Connectivity: 6, 18 or 26.
    pub connectivity: Connectivity,
    /// Labeling or analysis.
    pub task: Task,
    /// Volume width (x).
    pub width: usize,
    /// Volume height (y).
    pub height: usize,
    /// Volume depth (z).
    pub depth: usize,
    /// Cell side of the random volume.
    pub granularity: u32,
    /// Density of the random volume in percent.
    pub density: u32,
    /// Number of timed runs.
    pub reps: usize,
    /// Median time of a run (the sum of its stages) in ms.
    pub median_ms: f64,
    /// Fastest run in ms.
    pub min_ms: f64,
    /// Time to load the volume (host to device for CUDA) in ms.
    pub transfer_ms: f64,
    /// Median time of each stage, in the variant's stage order.
    pub stages: Vec<StageMedian>,
}

impl VolumeMeasurement {
    /// `width × height × depth`.
    pub fn voxels(&self) -> usize {
        self.width * self.height * self.depth
    }

    /// Throughput of the median run in gigavoxels per second.
    pub fn gvox_per_s(&self) -> f64 {
        self.voxels() as f64 / (self.median_ms * 1e-3) / 1e9
    }
}

/// Measures every variant of `variants` that declares one of `config`'s
/// connectivities, as `config` says: one volume at a time in the order of
/// [`VolumeConfig::sources`]; on each, every variant loads the volume once
/// (its transfer time), then for each connectivity and task it supports
/// runs once to warm up and `reps` times timed; the last run's answer is
/// checked against [`REFERENCE`]'s, computed once per volume, connectivity
/// and task, before the times are kept. `on_volume` is told of each volume
/// before it is made (for progress), and `on_rows` gets each volume's
/// measurements, in variant order, once they are checked (to save them as
/// the sweep goes: [`csv::VolumeCsvWriter`]); an error from it ends the
/// sweep.
///
/// Everything runs in turn on this thread, nothing beside a timing: unlike
/// the image sweep's reference, `cpu-rle` is fast enough not to need
/// hiding, it needs every core itself, and a 512³ volume's labels take
/// 512 MiB, of which only one reference's are held at a time.
///
/// # Errors
/// A connectivity that is not a volume's, no timed run, a volume too large
/// for 32-bit labels; then the first failure or wrong answer, naming
/// variant, volume, connectivity and task.
pub fn run(
    config: &VolumeConfig,
    variants: &[&'static Algorithm],
    mut on_volume: impl FnMut(&VolumeSource),
    mut on_rows: impl FnMut(&[VolumeMeasurement]) -> Result<(), SweepError>,
) -> Result<Vec<VolumeMeasurement>, SweepError> {
    config.check()?;
    // A variant that labels only images, or only in connectivities not
    // asked for, is not loaded at all.
    let variants: Vec<&'static Algorithm> = variants
        .iter()
        .copied()
        .filter(|v| config.connectivities.iter().any(|&c| v.supports(c)))
        .collect();
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
    let mut reference = Reference::new(&config.tasks)?;
    let mut measurements = Vec::new();
    for source in config.sources() {
        on_volume(&source);
        let volume = source.volume()?;
        let view = volume.view();
        let name = source.to_string();
        let mut transfers = Vec::with_capacity(runners.len());
        for (variant, runner) in variants.iter().zip(&mut runners) {
            let transfer_ms = runner
                .load_volume(&view)
                .map_err(|source| SweepError::Load {
                    variant: variant.name,
                    image: name.clone(),
                    source,
                })?;
            transfers.push(transfer_ms);
        }
        // Connectivity and task outer, variants inner: one reference answer
        // is alive at a time. The rows are put in variant order after.
        let mut rows: Vec<(usize, VolumeMeasurement)> = Vec::new();
        for &connectivity in &config.connectivities {
            for &task in &config.tasks {
                let measured = |v: &&Algorithm| v.supports(connectivity) && v.performs(task);
                if !variants.iter().any(measured) {
                    continue;
                }
                let expected = reference.answer(&view, &name, task, connectivity)?;
                for (i, (variant, runner)) in variants.iter().zip(&mut runners).enumerate() {
                    if !measured(variant) {
                        continue;
                    }
                    let bench = Bench {
                        algorithm: variant,
                        volume: &name,
                        task,
                        connectivity,
                    };
                    let (timing, answer) = bench.measure(runner.as_mut(), config.reps)?;
                    if let Some(difference) = answer.difference(&expected) {
                        return Err(SweepError::WrongVolumeAnswer {
                            variant: variant.name,
                            volume: name,
                            connectivity,
                            task,
                            difference,
                        });
                    }
                    rows.push((
                        i,
                        VolumeMeasurement {
                            variant: variant.name.to_string(),
                            backend: variant.backend,
                            connectivity,
                            task,
                            width: source.width,
                            height: source.height,
                            depth: source.depth,
                            granularity: source.granularity,
                            density: source.density,
                            reps: config.reps,
                            median_ms: timing.median_ms,
                            min_ms: timing.min_ms,
                            transfer_ms: transfers[i],
                            stages: timing.stages,
                        },
                    ));
                }
            }
        }
        // Stable: each variant's rows stay in connectivity, task order.
        rows.sort_by_key(|&(i, _)| i);
        let kept = measurements.len();
        measurements.extend(rows.into_iter().map(|(_, m)| m));
        on_rows(&measurements[kept..])?;
    }
    Ok(measurements)
}

/// [`REFERENCE`]'s labeler and analyzer, made once for the sweep (each
/// only where a task of the sweep needs it).
struct Reference {
    labeler: Option<Box<dyn Labeler>>,
    analyzer: Option<Box<dyn Analyzer>>,
}

impl Reference {
    fn new(tasks: &[Task]) -> Result<Self, SweepError> {
        // Through the facade, which links every algorithm crate and so
        // registers the reference.
        let algorithm = ccl::find(REFERENCE)?;
        Ok(Self {
            labeler: tasks
                .contains(&Task::Label)
                .then(|| algorithm.labeler())
                .transpose()?,
            analyzer: tasks
                .contains(&Task::Analyze)
                .then(|| algorithm.analyzer())
                .transpose()?,
        })
    }

    /// The reference's answer of `task` on `volume` (described as `name`).
    fn answer(
        &mut self,
        volume: &BinaryVolume<'_>,
        name: &str,
        task: Task,
        connectivity: Connectivity,
    ) -> Result<Answer, SweepError> {
        let failed = |source| SweepError::Run {
            variant: REFERENCE,
            image: name.to_string(),
            connectivity,
            task,
            source,
        };
        let unmade = || failed(ccl_core::Error::Unavailable(format!("no {task} made")));
        match task {
            Task::Label => {
                let labeler = self.labeler.as_mut().ok_or_else(unmade)?;
                let labels = labeler.label_volume(volume, connectivity).map_err(failed)?;
                // Canonical whatever the variant: the answers are compared
                // exactly.
                Ok(Answer::Labels(labels.into_canonical()))
            }
            Task::Analyze => {
                let analyzer = self.analyzer.as_mut().ok_or_else(unmade)?;
                let stats = analyzer
                    .analyze_volume(volume, connectivity)
                    .map_err(failed)?;
                Ok(Answer::Stats(stats))
            }
        }
    }
}

/// One variant, task and connectivity on one volume.
struct Bench<'a> {
    algorithm: &'static Algorithm,
    /// The volume's description for error messages.
    volume: &'a str,
    task: Task,
    connectivity: Connectivity,
}

/// The times of the checked runs of one task.
struct Timing {
    median_ms: f64,
    min_ms: f64,
    stages: Vec<StageMedian>,
}

impl Bench<'_> {
    /// One warm-up run and `reps` timed runs on the loaded volume; returns
    /// their times and the last run's answer, which the caller checks
    /// before keeping the times.
    fn measure(
        &self,
        runner: &mut dyn TimedRun,
        reps: usize,
    ) -> Result<(Timing, Answer), SweepError> {
        let (task, connectivity) = (self.task, self.connectivity);
        let failed = |source| SweepError::Run {
            variant: self.algorithm.name,
            image: self.volume.to_string(),
            connectivity,
            task,
            source,
        };
        runner.run(task, connectivity).map_err(failed)?;
        let runs = (0..reps)
            .map(|_| runner.run(task, connectivity))
            .collect::<ccl_core::Result<Vec<_>>>()
            .map_err(failed)?;
        let answer = match task {
            Task::Label => Answer::Labels(runner.volume_labels().map_err(failed)?),
            Task::Analyze => Answer::Stats(runner.volume_stats().map_err(failed)?),
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

/// What a run produced: canonical labels or the features of every
/// component.
enum Answer {
    Labels(LabelVolume),
    Stats(Vec<VolumeStats>),
}

impl Answer {
    /// How `self` differs from the reference's `expected`, in words; `None`
    /// when they are equal. Labels are compared exactly: every variant
    /// returns canonical labels, so a right partition numbered otherwise is
    /// a wrong answer too.
    fn difference(&self, expected: &Answer) -> Option<String> {
        match (expected, self) {
            (Answer::Labels(expected), Answer::Labels(actual)) => {
                label_difference(expected, actual)
            }
            (Answer::Stats(expected), Answer::Stats(actual)) => stats_difference(expected, actual),
            _ => Some("the answer is of another task than the reference's".into()),
        }
    }
}

/// Where `actual` first differs from the canonical `expected`, in words.
fn label_difference(expected: &LabelVolume, actual: &LabelVolume) -> Option<String> {
    let size = |v: &LabelVolume| (v.width(), v.height(), v.depth());
    if size(expected) != size(actual) {
        let (w, h, d) = size(actual);
        let (ew, eh, ed) = size(expected);
        return Some(format!(
            "labels of a {w}x{h}x{d} volume, expected {ew}x{eh}x{ed}"
        ));
    }
    let index = expected
        .labels()
        .iter()
        .zip(actual.labels())
        .position(|(e, a)| e != a)?;
    let (w, h) = (expected.width(), expected.height());
    let (x, y, z) = (index % w, index / w % h, index / (w * h));
    let grouping = if expected.same_partition(actual) {
        "the same components, not numbered canonically"
    } else {
        "other components"
    };
    Some(format!(
        "labels differ first at voxel ({x}, {y}, {z}): expected {}, got {} ({grouping})",
        expected.labels()[index],
        actual.labels()[index]
    ))
}

/// Where `actual` first differs from `expected`, in words.
fn stats_difference(expected: &[VolumeStats], actual: &[VolumeStats]) -> Option<String> {
    let i = (0..expected.len().max(actual.len())).find(|&i| expected.get(i) != actual.get(i))?;
    Some(format!(
        "features of component {} differ: expected {:?}, got {:?} ({} components expected, {} given)",
        i + 1,
        expected.get(i),
        actual.get(i),
        expected.len(),
        actual.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccl_core::{BinaryImage, ComponentStats, HostTimedRun, LabelImage};

    #[test]
    fn densities_hold_the_percolation_thresholds() {
        for c in Connectivity::VOLUME {
            let threshold = crate::sweep::summary::percolation_density(c);
            assert!(DENSITIES.contains(&threshold), "{c}: {threshold}");
        }
        assert!(DENSITIES.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn volumes_go_granularity_outer_density_inner() {
        let config = VolumeConfig {
            densities: vec![10, 31],
            granularities: vec![1, 4],
            ..VolumeConfig::new(8, 6, 4)
        };
        let order: Vec<(u32, u32)> = config
            .sources()
            .iter()
            .map(|s| (s.granularity, s.density))
            .collect();
        assert_eq!(order, [(1, 10), (1, 31), (4, 10), (4, 31)]);
        assert_eq!(
            config.sources()[1].to_string(),
            "random volume 8x6x4 d=31 g=1 seed=0"
        );
        assert_eq!(VolumeConfig::default().width, SIDE);
    }

    #[test]
    fn every_supported_combination_is_measured_and_checked() {
        let variants = [
            ccl::find("cpu-uf").unwrap(),
            ccl::find(REFERENCE).unwrap(),
            // Labels images only: skipped, not an error.
            &IMAGES_ONLY,
        ];
        let config = VolumeConfig {
            densities: vec![14, 60],
            granularities: vec![2],
            reps: 2,
            ..VolumeConfig::new(13, 9, 7)
        };
        let (mut volumes, mut saved) = (Vec::new(), Vec::new());
        let measurements = run(
            &config,
            &variants,
            |source| volumes.push(*source),
            |rows| {
                // A volume's rows at a time: 2 variants × 3 connectivities
                // × 2 tasks, variant by variant.
                assert_eq!(rows.len(), 12);
                assert!(rows[..6].iter().all(|m| m.variant == "cpu-uf"));
                saved.extend_from_slice(rows);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(volumes, config.sources());
        assert_eq!(saved, measurements);
        assert_eq!(measurements.len(), 24);
        assert!(measurements.iter().all(|m| {
            m.min_ms <= m.median_ms
                && m.stages.len() == 1
                && m.voxels() == 13 * 9 * 7
                && m.reps == 2
                && m.gvox_per_s() > 0.0
        }));
        let first: Vec<(Connectivity, Task)> = measurements[..6]
            .iter()
            .map(|m| (m.connectivity, m.task))
            .collect();
        assert_eq!(
            first[..2],
            [
                (Connectivity::Six, Task::Label),
                (Connectivity::Six, Task::Analyze)
            ]
        );
    }

    #[test]
    fn image_connectivities_and_no_runs_are_refused_before_anything_runs() {
        let reference = ccl::find(REFERENCE).unwrap();
        let mut told = 0;
        for config in [
            VolumeConfig {
                connectivities: vec![Connectivity::Eight],
                ..VolumeConfig::new(4, 4, 4)
            },
            VolumeConfig {
                reps: 0,
                ..VolumeConfig::new(4, 4, 4)
            },
            VolumeConfig::new(2048, 2048, 1024),
        ] {
            let error = run(&config, &[reference], |_| told += 1, |_| Ok(())).unwrap_err();
            assert!(matches!(error, SweepError::Setup(_)), "{error}");
        }
        assert_eq!(told, 0);
    }

    /// Puts every foreground voxel in one component and finds no feature:
    /// wrong on any volume with two or more components.
    struct MergeAll;

    impl Labeler for MergeAll {
        fn label(&mut self, _: &BinaryImage<'_>, c: Connectivity) -> ccl_core::Result<LabelImage> {
            Err(ccl_core::Error::Unavailable(format!("no images ({c})")))
        }

        fn label_volume(
            &mut self,
            volume: &BinaryVolume<'_>,
            _: Connectivity,
        ) -> ccl_core::Result<LabelVolume> {
            let labels = volume
                .to_buf()
                .voxels()
                .iter()
                .map(|&v| u32::from(v))
                .collect();
            LabelVolume::new(volume.width(), volume.height(), volume.depth(), labels)
        }
    }

    impl Analyzer for MergeAll {
        fn analyze(
            &mut self,
            _: &BinaryImage<'_>,
            c: Connectivity,
        ) -> ccl_core::Result<Vec<ComponentStats>> {
            Err(ccl_core::Error::Unavailable(format!("no images ({c})")))
        }

        fn analyze_volume(
            &mut self,
            _: &BinaryVolume<'_>,
            _: Connectivity,
        ) -> ccl_core::Result<Vec<VolumeStats>> {
            Ok(Vec::new())
        }
    }

    static MERGE_ALL: Algorithm = Algorithm {
        name: "merge-all-volumes",
        connectivities: &Connectivity::VOLUME,
        labeler: Some(|| Ok(Box::new(MergeAll))),
        analyzer: Some(|| Ok(Box::new(MergeAll))),
        timed: || Ok(Box::new(HostTimedRun::new(MergeAll))),
        ..ccl_testkit::wrong::MERGE_ALL
    };

    static IMAGES_ONLY: Algorithm = ccl_testkit::wrong::MERGE_ALL;

    #[test]
    fn a_wrong_answer_stops_the_sweep_naming_variant_volume_connectivity_and_task() {
        let config = VolumeConfig {
            densities: vec![0, 50],
            granularities: vec![2],
            reps: 1,
            ..VolumeConfig::new(12, 10, 8)
        };
        let mut saved = 0;
        // The empty volume at d=0 is right even for MERGE_ALL; d=50 is not.
        let error = run(
            &config,
            &[&MERGE_ALL],
            |_| {},
            |rows| {
                saved += rows.len();
                Ok(())
            },
        )
        .unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(error, SweepError::WrongVolumeAnswer { .. }),
            "{message}"
        );
        assert!(
            message.starts_with(
                "merge-all-volumes gave a wrong answer on random volume 12x10x8 d=50 g=2 seed=0, 6-connectivity label (labels differ first at voxel"
            ),
            "{message}"
        );
        assert_eq!(saved, 6);
        let analyze_only = VolumeConfig {
            tasks: vec![Task::Analyze],
            connectivities: vec![Connectivity::TwentySix],
            ..config
        };
        let message = run(&analyze_only, &[&MERGE_ALL], |_| {}, |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("26-connectivity analyze (features of component 1 differ"),
            "{message}"
        );
    }

    #[test]
    fn labels_must_be_canonical_not_only_the_same_partition() {
        let expected = LabelVolume::new(2, 1, 2, vec![1, 0, 2, 1]).unwrap();
        let renumbered = LabelVolume::new(2, 1, 2, vec![2, 0, 1, 2]).unwrap();
        let message = label_difference(&expected, &renumbered).unwrap();
        assert_eq!(
            message,
            "labels differ first at voxel (0, 0, 0): expected 1, got 2 (the same components, not numbered canonically)"
        );
        let merged = LabelVolume::new(2, 1, 2, vec![1, 0, 1, 1]).unwrap();
        assert!(
            label_difference(&expected, &merged)
                .unwrap()
                .contains("(0, 0, 1)")
        );
        assert_eq!(label_difference(&expected, &expected.clone()), None);
        let small = LabelVolume::new(1, 1, 2, vec![1, 2]).unwrap();
        assert!(
            label_difference(&expected, &small)
                .unwrap()
                .contains("1x1x2")
        );
    }
}
