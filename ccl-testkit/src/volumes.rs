//! The conformance kit for volumes: every check a registered variant that
//! labels volumes must pass, in every volume connectivity it declares —
//! the host calls (`label_volume`, `label_volume_into` into a reused dirty
//! buffer, `analyze_volume`, `analyze_volume_into` into a reused vector of
//! stale features), the same on a strided copy (rows and slices
//! further apart than their width and height, padding nonzero, foreground
//! voxels other than 1), and the timed path — against the reference
//! `cpu-uf`.

use ccl_core::{
    Algorithm, Analyzer, BinaryVolume, BinaryVolumeBuf, Connectivity, LabelVolume, Labeler, Result,
    Task, TimedRun, VolumeStats,
};

use crate::conformance::assert_no_failures;
use crate::verify::REFERENCE;

/// A verification volume and how it was made.
#[derive(Clone, Debug)]
pub struct VolumeCase {
    /// How to make it again: `random WxHxD d=.. g=.. seed=..` or
    /// `pattern KIND WxHxD` or `edge WxHxD`.
    pub name: String,
    /// The volume.
    pub volume: BinaryVolumeBuf,
}

/// `count` random volumes of varied shapes, densities around each
/// connectivity's percolation threshold and granularities 1, 2 and 4.
pub fn random_volume_cases(count: usize) -> impl Iterator<Item = Result<VolumeCase>> {
    const SHAPES: [(usize, usize, usize); 6] = [
        (17, 9, 11),
        (64, 3, 5),
        (65, 6, 7),
        (5, 33, 9),
        (3, 4, 40),
        (130, 2, 3),
    ];
    const DENSITIES: [u32; 8] = [5, 10, 14, 20, 31, 45, 60, 85];
    (0..count).map(|i| {
        let (width, height, depth) = SHAPES[i % SHAPES.len()];
        let density = DENSITIES[(i / SHAPES.len() + i) % DENSITIES.len()];
        let granularity = [1, 1, 2, 4][i % 4];
        let seed = i as u32;
        Ok(VolumeCase {
            name: format!(
                "random {width}x{height}x{depth} d={density} g={granularity} seed={seed}"
            ),
            volume: ccl_testdata::random_volume(width, height, depth, density, granularity, seed)?,
        })
    })
}

/// Every volume pattern of `ccl-testdata` at its verification sizes.
pub fn pattern_volume_cases() -> impl Iterator<Item = Result<VolumeCase>> {
    ccl_testdata::volume_patterns().into_iter().map(|pattern| {
        Ok(VolumeCase {
            name: format!("pattern {}", pattern.name),
            volume: pattern.volume,
        })
    })
}

/// Volumes of extreme shapes: empty in each axis, a single voxel, lines
/// along each axis, a single slice, full and empty blocks.
pub fn edge_volume_cases() -> impl Iterator<Item = Result<VolumeCase>> {
    let shapes: [(usize, usize, usize, u32); 12] = [
        (0, 0, 0, 50),
        (0, 4, 4, 50),
        (4, 0, 4, 50),
        (4, 4, 0, 50),
        (1, 1, 1, 100),
        (1, 1, 70, 60),
        (70, 1, 1, 60),
        (1, 70, 1, 60),
        (9, 8, 1, 55),
        (6, 5, 4, 100),
        (6, 5, 4, 0),
        (200, 1, 2, 50),
    ];
    shapes.into_iter().map(|(width, height, depth, density)| {
        Ok(VolumeCase {
            name: format!("edge {width}x{height}x{depth} d={density}"),
            volume: ccl_testdata::random_volume(width, height, depth, density, 1, 3)?,
        })
    })
}

/// The reference's answer for one volume in one connectivity.
#[derive(Clone, Debug)]
pub struct VolumeExpected {
    /// Canonical labels.
    pub labels: LabelVolume,
    /// Features of every component, in raster order.
    pub stats: Vec<VolumeStats>,
}

impl VolumeExpected {
    /// The reference's labels and features of `volume`.
    pub fn compute(volume: &BinaryVolume<'_>, connectivity: Connectivity) -> Result<Self> {
        let reference = ccl_core::find(REFERENCE)?;
        Ok(Self {
            labels: reference.labeler()?.label_volume(volume, connectivity)?,
            stats: reference.analyzer()?.analyze_volume(volume, connectivity)?,
        })
    }
}

/// A copy of `volume` with rows `width + 5` bytes apart and slices a row
/// further apart than their rows, the padding `0xAB`, foreground voxels
/// valued 1 to 255 by position; returns the bytes and the two strides.
pub fn strided_volume(volume: &BinaryVolumeBuf) -> (Vec<u8>, usize, usize) {
    let (width, height, depth) = (volume.width(), volume.height(), volume.depth());
    let row_stride = width + 5;
    let slice_stride = row_stride * (height + 1);
    let mut bytes = vec![0xAB; slice_stride * depth];
    for z in 0..depth {
        for y in 0..height {
            for x in 0..width {
                bytes[z * slice_stride + y * row_stride + x] = if volume.get(x, y, z) {
                    1 + ((x * 7 + y * 3 + z * 5) % 255) as u8
                } else {
                    0
                };
            }
        }
    }
    (bytes, row_stride, slice_stride)
}

/// Where two label volumes first differ as partitions, in words.
fn compare_labels(expected: &LabelVolume, actual: &LabelVolume) -> std::result::Result<(), String> {
    let size = |v: &LabelVolume| (v.width(), v.height(), v.depth());
    if size(expected) != size(actual) {
        return Err(format!(
            "labels of size {:?}, expected {:?}",
            size(actual),
            size(expected)
        ));
    }
    let canonical = actual.canonical();
    match expected.first_difference(actual) {
        None => Ok(()),
        Some((x, y, z)) => Err(format!(
            "labels differ first at voxel ({x}, {y}, {z}): expected {}, got {} (canonical)",
            expected.get(x, y, z),
            canonical.get(x, y, z)
        )),
    }
}

/// Where two feature lists first differ, in words.
fn compare_stats(
    expected: &[VolumeStats],
    actual: &[VolumeStats],
) -> std::result::Result<(), String> {
    let n = expected.len().max(actual.len());
    for i in 0..n {
        if expected.get(i) != actual.get(i) {
            return Err(format!(
                "features of component {} differ: expected {:?}, got {:?} ({} components expected, {} given)",
                i + 1,
                expected.get(i),
                actual.get(i),
                expected.len(),
                actual.len()
            ));
        }
    }
    Ok(())
}

/// One variant under test on volumes, with its tally.
pub struct VolumeConformance {
    algorithm: &'static Algorithm,
    labeler: Option<Box<dyn Labeler>>,
    analyzer: Option<Box<dyn Analyzer>>,
    timed: Box<dyn TimedRun>,
    /// The caller's buffer of `label_volume_into`, reused across volumes.
    buffer: Vec<u32>,
    /// The caller's vector of `analyze_volume_into`, reused so too.
    stats: Vec<VolumeStats>,
    checks: usize,
    failures: Vec<String>,
}

impl VolumeConformance {
    /// Constructs the variant's labeler, analyzer and timed form.
    pub fn new(algorithm: &'static Algorithm) -> std::result::Result<Self, String> {
        let failed = |what: &str, e: ccl_core::Error| {
            format!("{}: its {what} cannot be made: {e}", algorithm.name)
        };
        Ok(Self {
            algorithm,
            labeler: (algorithm.performs(Task::Label))
                .then(|| algorithm.labeler())
                .transpose()
                .map_err(|e| failed("labeler", e))?,
            analyzer: (algorithm.performs(Task::Analyze))
                .then(|| algorithm.analyzer())
                .transpose()
                .map_err(|e| failed("analyzer", e))?,
            timed: algorithm.timed().map_err(|e| failed("timed form", e))?,
            buffer: Vec::new(),
            stats: Vec::new(),
            checks: 0,
            failures: Vec::new(),
        })
    }

    /// The volume connectivities the variant declares.
    pub fn connectivities(&self) -> Vec<Connectivity> {
        Connectivity::VOLUME
            .into_iter()
            .filter(|&c| self.algorithm.supports(c))
            .collect()
    }

    /// Checks `case` against the reference's answers `expected` (one per
    /// connectivity the variant declares, as [`Self::connectivities`]).
    pub fn check_with(&mut self, case: &VolumeCase, expected: &[(Connectivity, VolumeExpected)]) {
        let (bytes, row_stride, slice_stride) = strided_volume(&case.volume);
        let v = &case.volume;
        let strided = match BinaryVolume::with_strides(
            &bytes,
            v.width(),
            v.height(),
            v.depth(),
            row_stride,
            slice_stride,
        ) {
            Ok(view) => view,
            Err(e) => {
                self.failures.push(format!("{}: {e}", case.name));
                return;
            }
        };
        for (layout, volume) in [("packed", v.view()), ("strided", strided)] {
            let loaded = self.timed.load_volume(&volume);
            for (connectivity, expected) in expected {
                if !self.algorithm.supports(*connectivity) {
                    continue;
                }
                let context = |path: &str, task: Task| {
                    format!(
                        "{} on {} ({path}, {layout}), {connectivity}-connectivity {task}",
                        self.algorithm.name, case.name
                    )
                };
                for task in [Task::Label, Task::Analyze] {
                    if !self.algorithm.performs(task) {
                        continue;
                    }
                    self.checks += 2;
                    if let Err(e) = self.host(task, &volume, *connectivity, expected) {
                        self.failures
                            .push(format!("{}: {e}", context("host", task)));
                    }
                    let timed = match &loaded {
                        Ok(_) => self.timed_check(task, *connectivity, expected),
                        Err(e) => Err(format!("load failed: {e}")),
                    };
                    if let Err(e) = timed {
                        self.failures
                            .push(format!("{}: {e}", context("timed", task)));
                    }
                }
            }
        }
    }

    /// The host calls of `task`; labeling twice, the second time into the
    /// reused buffer filled with `u32::MAX` so that a voxel left unwritten
    /// shows.
    fn host(
        &mut self,
        task: Task,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
        expected: &VolumeExpected,
    ) -> std::result::Result<(), String> {
        let error = |e: ccl_core::Error| e.to_string();
        match (task, &mut self.labeler, &mut self.analyzer) {
            (Task::Label, Some(labeler), _) => {
                compare_labels(
                    &expected.labels,
                    &labeler.label_volume(volume, connectivity).map_err(error)?,
                )?;
                self.buffer.clear();
                self.buffer.resize(volume.voxel_count(), u32::MAX);
                let count = labeler
                    .label_volume_into(volume, connectivity, &mut self.buffer)
                    .map_err(error)?;
                let into = LabelVolume::new(
                    volume.width(),
                    volume.height(),
                    volume.depth(),
                    std::mem::take(&mut self.buffer),
                )
                .map_err(error)?;
                let result = compare_labels(&expected.labels, &into);
                self.buffer = into.into_labels();
                result?;
                let components = expected.stats.len();
                if count != components {
                    return Err(format!(
                        "label_volume_into counted {count} components, expected {components}"
                    ));
                }
                Ok(())
            }
            (Task::Analyze, _, Some(analyzer)) => {
                compare_stats(
                    &expected.stats,
                    &analyzer
                        .analyze_volume(volume, connectivity)
                        .map_err(error)?,
                )?;
                // Into the vector of the volume before, with one stale
                // entry more, as a caller reusing it passes it.
                self.stats.push(VolumeStats::run(7, 7, 7, 7));
                analyzer
                    .analyze_volume_into(volume, connectivity, &mut self.stats)
                    .map_err(error)?;
                compare_stats(&expected.stats, &self.stats)
                    .map_err(|e| format!("analyze_volume_into: {e}"))
            }
            _ => self.algorithm.check_task(task).map_err(error),
        }
    }

    /// One timed run of `task` on the loaded volume and its answer.
    fn timed_check(
        &mut self,
        task: Task,
        connectivity: Connectivity,
        expected: &VolumeExpected,
    ) -> std::result::Result<(), String> {
        let error = |e: ccl_core::Error| e.to_string();
        let stages = self.timed.run(task, connectivity).map_err(error)?;
        if stages.iter().any(|s| s.ms.is_nan() || s.ms < 0.0) {
            return Err(format!("the run reported stage times {stages:?}"));
        }
        match task {
            Task::Label => compare_labels(
                &expected.labels,
                &self.timed.volume_labels().map_err(error)?,
            ),
            Task::Analyze => {
                compare_stats(&expected.stats, &self.timed.volume_stats().map_err(error)?)
            }
        }
    }

    /// The checks made so far.
    pub fn checks(&self) -> usize {
        self.checks
    }

    /// Every failure so far, one line each.
    pub fn failures(&self) -> &[String] {
        &self.failures
    }
}

/// Runs the volume kit for every registered variant that can run here and
/// declares a volume connectivity, on `cases`, the reference computed once
/// per volume and connectivity; returns the names of the variants checked.
///
/// # Panics
/// Listing every failure, so that the calling test fails.
pub fn check_registry_volumes(
    cases: impl IntoIterator<Item = Result<VolumeCase>>,
) -> Vec<&'static str> {
    let mut kits: Vec<VolumeConformance> = crate::policy::testable_variants()
        .into_iter()
        .filter(|a| Connectivity::VOLUME.iter().any(|&c| a.supports(c)))
        .map(|algorithm| VolumeConformance::new(algorithm).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    assert!(!kits.is_empty(), "no variant labels volumes here");
    let mut volumes = 0;
    for case in cases {
        let case = case.expect("the verification volumes can be made");
        let expected: Vec<(Connectivity, VolumeExpected)> = Connectivity::VOLUME
            .into_iter()
            .map(|c| {
                (
                    c,
                    VolumeExpected::compute(&case.volume.view(), c)
                        .expect("the reference labels any valid volume"),
                )
            })
            .collect();
        for kit in &mut kits {
            kit.check_with(&case, &expected);
        }
        volumes += 1;
    }
    assert!(volumes > 0, "no volume to check");
    assert_no_failures(kits.iter().flat_map(|k| &k.failures));
    for kit in &kits {
        println!(
            "{}: {} volume checks on {volumes} volumes",
            kit.algorithm.name, kit.checks
        );
    }
    kits.iter().map(|k| k.algorithm.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Labels every voxel of a volume as one component: wrong wherever
    /// there are two.
    struct MergeAll;

    impl Labeler for MergeAll {
        fn label(
            &mut self,
            _: &ccl_core::BinaryImage<'_>,
            c: Connectivity,
        ) -> Result<ccl_core::LabelImage> {
            Err(ccl_core::Error::Unavailable(format!(
                "images are not checked here ({c})"
            )))
        }

        fn label_volume(
            &mut self,
            volume: &BinaryVolume<'_>,
            _: Connectivity,
        ) -> Result<LabelVolume> {
            let labels = volume
                .to_buf()
                .voxels()
                .iter()
                .map(|&v| u32::from(v))
                .collect();
            LabelVolume::new(volume.width(), volume.height(), volume.depth(), labels)
        }
    }

    #[test]
    fn a_wrong_volume_labeling_names_the_first_differing_voxel() {
        // (0, 0, 0) and (1, 1, 1) share only a corner: two components in 6.
        let volume = BinaryVolumeBuf::from_fn(2, 2, 2, |x, y, z| x == y && y == z).unwrap();
        let expected = VolumeExpected::compute(&volume.view(), Connectivity::Six).unwrap();
        let wrong = MergeAll
            .label_volume(&volume.view(), Connectivity::Six)
            .unwrap();
        let message = compare_labels(&expected.labels, &wrong).unwrap_err();
        assert!(message.contains("(1, 1, 1)"), "{message}");
        let right = VolumeExpected::compute(&volume.view(), Connectivity::TwentySix).unwrap();
        assert!(compare_labels(&right.labels, &wrong).is_ok());
        assert!(compare_stats(&expected.stats, &right.stats).is_err());
    }

    #[test]
    fn strided_volumes_keep_the_volume_and_pad_with_nonzero_bytes() {
        let volume = BinaryVolumeBuf::from_fn(3, 2, 2, |x, y, z| (x + y + z) % 2 == 0).unwrap();
        let (bytes, row, slice) = strided_volume(&volume);
        let view = BinaryVolume::with_strides(&bytes, 3, 2, 2, row, slice).unwrap();
        assert_eq!(view.to_buf(), volume);
        assert_eq!(bytes[3], 0xAB);
    }

    #[test]
    fn the_reference_passes_its_own_kit() {
        let reference = ccl_core::find(REFERENCE).unwrap();
        let mut kit = VolumeConformance::new(reference).unwrap();
        for case in random_volume_cases(6).chain(edge_volume_cases()) {
            let case = case.unwrap();
            let expected: Vec<_> = kit
                .connectivities()
                .into_iter()
                .map(|c| (c, VolumeExpected::compute(&case.volume.view(), c).unwrap()))
                .collect();
            kit.check_with(&case, &expected);
        }
        assert_eq!(kit.failures(), &[] as &[String]);
        assert!(kit.checks() > 0);
    }
}
