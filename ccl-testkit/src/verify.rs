//! Checking a variant against the reference, `cpu-uf`: labels compare as
//! partitions (raw label values are each algorithm's own), features with `==`.

use std::fmt;

use ccl_core::{
    Algorithm, Analyzer, BinaryImage, ComponentStats, Connectivity, LabelImage, Labeler, Task,
};
use ccl_cpu::UnionFind;

/// The name of the reference variant every other one is checked against.
pub const REFERENCE: &str = "cpu-uf";

/// What the reference computes for one image and connectivity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// Canonical labels.
    pub labels: LabelImage,
    /// Features, in canonical order.
    pub stats: Vec<ComponentStats>,
}

impl Expected {
    /// Runs the reference on `image`.
    ///
    /// The features come from [`ComponentStats::from_labels`] rather than
    /// from the reference's own analyzer, so that `cpu-uf`'s analysis is
    /// itself checked against an independent computation.
    pub fn compute(image: &BinaryImage<'_>, connectivity: Connectivity) -> ccl_core::Result<Self> {
        let labels = UnionFind.label(image, connectivity)?.canonical();
        let stats = ComponentStats::from_labels(&labels);
        Ok(Self { labels, stats })
    }

    /// The number of components.
    pub fn components(&self) -> usize {
        self.stats.len()
    }
}

/// How a variant's result differs from the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The label image does not have the input's size.
    LabelSize {
        /// `(width, height)` of the input.
        expected: (usize, usize),
        /// `(width, height)` of the variant's labels.
        actual: (usize, usize),
    },
    /// The partitions differ; the first differing pixel in raster order.
    Labels {
        /// Column of the pixel.
        x: usize,
        /// Row of the pixel.
        y: usize,
        /// The reference's canonical label there.
        expected: u32,
        /// The variant's label there.
        actual: u32,
    },
    /// [`Labeler::label_into`] returned another number of components.
    Count {
        /// The reference's number of components.
        expected: usize,
        /// The number `label_into` returned.
        actual: usize,
    },
    /// The features differ; the first differing component (canonical label
    /// `component`), `None` where one side has fewer components.
    Stats {
        /// Canonical label of the component.
        component: usize,
        /// The reference's features of it.
        expected: Option<ComponentStats>,
        /// The variant's features of it.
        actual: Option<ComponentStats>,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::LabelSize { expected, actual } => write!(
                f,
                "labels are {}x{}, the image is {}x{}",
                actual.0, actual.1, expected.0, expected.1
            ),
            Mismatch::Labels {
                x,
                y,
                expected,
                actual,
            } => write!(
                f,
                "first differing pixel ({x}, {y}): label {actual}, expected the canonical {expected}"
            ),
            Mismatch::Count { expected, actual } => write!(
                f,
                "label_into returned {actual} components, the image has {expected}"
            ),
            Mismatch::Stats {
                component,
                expected,
                actual,
            } => write!(
                f,
                "first differing component {component}: {}, expected {}",
                describe(actual),
                describe(expected)
            ),
        }
    }
}

fn describe(stats: &Option<ComponentStats>) -> String {
    match stats {
        Some(s) => format!(
            "area {} box ({}, {})-({}, {}) sums ({}, {})",
            s.area, s.x_min, s.y_min, s.x_max, s.y_max, s.sum_x, s.sum_y
        ),
        None => "no such component".into(),
    }
}

/// Compares labels: `Ok` when `actual` is the canonical labeling of the
/// partition `expected` gives (0 for background, 1..=N in raster order of
/// each component's first pixel), as every [`ccl_core::Labeler`] returns.
pub fn compare_labels(expected: &LabelImage, actual: &LabelImage) -> Result<(), Mismatch> {
    let size = |l: &LabelImage| (l.width(), l.height());
    if size(expected) != size(actual) {
        return Err(Mismatch::LabelSize {
            expected: size(expected),
            actual: size(actual),
        });
    }
    // The reference's labels are canonical already; its canonical form is
    // computed once all the same, so that only `actual` is held to it.
    let expected = expected.canonical();
    match expected
        .labels()
        .iter()
        .zip(actual.labels())
        .position(|(e, a)| e != a)
    {
        None => Ok(()),
        Some(i) => {
            let (x, y) = (i % expected.width(), i / expected.width());
            Err(Mismatch::Labels {
                x,
                y,
                expected: expected.get(x, y),
                actual: actual.get(x, y),
            })
        }
    }
}

/// Compares features with `==`, component by component in canonical order.
pub fn compare_stats(
    expected: &[ComponentStats],
    actual: &[ComponentStats],
) -> Result<(), Mismatch> {
    let count = expected.len().max(actual.len());
    match (0..count).find(|&i| expected.get(i) != actual.get(i)) {
        None => Ok(()),
        Some(i) => Err(Mismatch::Stats {
            component: i + 1,
            expected: expected.get(i).copied(),
            actual: actual.get(i).copied(),
        }),
    }
}

/// Why a check did not pass: the variant failed to run, or it answered wrong.
#[derive(Debug)]
pub enum Failure {
    /// The variant returned an error on a valid input.
    Error(ccl_core::Error),
    /// The variant's answer differs from the reference's.
    Mismatch(Mismatch),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Error(e) => write!(f, "error: {e}"),
            Failure::Mismatch(m) => m.fmt(f),
        }
    }
}

impl From<Mismatch> for Failure {
    fn from(mismatch: Mismatch) -> Self {
        Failure::Mismatch(mismatch)
    }
}

impl From<ccl_core::Error> for Failure {
    fn from(error: ccl_core::Error) -> Self {
        Failure::Error(error)
    }
}

/// A variant made ready for checking: one labeler and one analyzer (where
/// it performs those tasks), reused across images as a caller would.
pub struct Variant {
    algorithm: &'static Algorithm,
    labeler: Option<Box<dyn Labeler>>,
    analyzer: Option<Box<dyn Analyzer>>,
    /// The caller's buffer of [`Labeler::label_into`], reused from image
    /// to image whatever their sizes.
    buffer: Vec<u32>,
    /// The caller's vector of [`Analyzer::analyze_into`], reused so too.
    stats: Vec<ComponentStats>,
}

impl Variant {
    /// Constructs the labeler and analyzer of `algorithm`.
    pub fn new(algorithm: &'static Algorithm) -> ccl_core::Result<Self> {
        let labeler = algorithm
            .performs(Task::Label)
            .then(|| algorithm.labeler())
            .transpose()?;
        let analyzer = algorithm
            .performs(Task::Analyze)
            .then(|| algorithm.analyzer())
            .transpose()?;
        Ok(Self {
            algorithm,
            labeler,
            analyzer,
            buffer: Vec::new(),
            stats: Vec::new(),
        })
    }

    /// The registry entry.
    pub fn algorithm(&self) -> &'static Algorithm {
        self.algorithm
    }

    /// The tasks it performs, labeling first.
    pub fn tasks(&self) -> Vec<Task> {
        [Task::Label, Task::Analyze]
            .into_iter()
            .filter(|&t| self.algorithm.performs(t))
            .collect()
    }

    /// Runs `task` on `image` and compares the result with `expected`;
    /// labeling is checked twice, labels and N, through
    /// [`Labeler::label_with_count`] (whose labels are
    /// [`Labeler::label`]'s) and through [`Labeler::label_into`] into the
    /// reused buffer, filled with `u32::MAX` first so that a label left
    /// unwritten shows; analysis twice, through [`Analyzer::analyze`] and
    /// through [`Analyzer::analyze_into`] into the reused vector, which
    /// holds the last image's features and one stale entry more.
    pub fn check(
        &mut self,
        task: Task,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
        expected: &Expected,
    ) -> Result<(), Failure> {
        // Without a labeler or analyzer for `task`, `check_task` reports
        // that the variant does not perform it.
        match (task, &mut self.labeler, &mut self.analyzer) {
            (Task::Label, Some(labeler), _) => {
                let expect_count = |count: usize| {
                    if count == expected.components() {
                        Ok(())
                    } else {
                        Err(Mismatch::Count {
                            expected: expected.components(),
                            actual: count,
                        })
                    }
                };
                let (labels, count) = match labeler.label_with_count(image, connectivity) {
                    Ok(result) => result,
                    Err(error) => {
                        // Where N could not be told (labels that are not
                        // canonical), the labels say where they went wrong.
                        compare_labels(&expected.labels, &labeler.label(image, connectivity)?)?;
                        return Err(error.into());
                    }
                };
                compare_labels(&expected.labels, &labels)?;
                expect_count(count)?;
                let mut buffer = std::mem::take(&mut self.buffer);
                buffer.clear();
                buffer.resize(image.pixel_count(), u32::MAX);
                let count = labeler.label_into(image, connectivity, &mut buffer)?;
                let into = LabelImage::new(image.width(), image.height(), buffer)?;
                let labels_match = compare_labels(&expected.labels, &into);
                self.buffer = into.into_labels();
                labels_match?;
                expect_count(count)?;
            }
            (Task::Analyze, _, Some(analyzer)) => {
                compare_stats(&expected.stats, &analyzer.analyze(image, connectivity)?)?;
                // Into the vector of the image before, with one stale entry
                // more, as a caller reusing it passes it.
                self.stats.push(ComponentStats::pixel(7, 7));
                analyzer.analyze_into(image, connectivity, &mut self.stats)?;
                compare_stats(&expected.stats, &self.stats)?;
            }
            _ => self.algorithm.check_task(task)?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wrong::MERGE_ALL;
    use ccl_core::BinaryImageBuf;

    static WRONG: Algorithm = MERGE_ALL;

    /// Two pixels, diagonal: one component with 8-connectivity, two with 4.
    fn diagonal() -> BinaryImageBuf {
        BinaryImageBuf::from_fn(3, 2, |x, y| (x, y) == (0, 0) || (x, y) == (1, 1)).unwrap()
    }

    #[test]
    fn a_wrong_labeling_names_the_first_differing_pixel() {
        let image = diagonal();
        let mut variant = Variant::new(&WRONG).unwrap();
        let expected = Expected::compute(&image.view(), Connectivity::Four).unwrap();
        let failure = variant
            .check(Task::Label, &image.view(), Connectivity::Four, &expected)
            .unwrap_err();
        assert!(
            matches!(
                failure,
                Failure::Mismatch(Mismatch::Labels {
                    x: 1,
                    y: 1,
                    expected: 2,
                    actual: 1
                })
            ),
            "{failure}"
        );
        // Right where the answer happens to be right.
        let expected = Expected::compute(&image.view(), Connectivity::Eight).unwrap();
        for task in variant.tasks() {
            assert!(
                variant
                    .check(task, &image.view(), Connectivity::Eight, &expected)
                    .is_ok()
            );
        }
    }

    #[test]
    fn wrong_features_name_the_first_differing_component() {
        let image = diagonal();
        let mut variant = Variant::new(&WRONG).unwrap();
        let expected = Expected::compute(&image.view(), Connectivity::Four).unwrap();
        let failure = variant
            .check(Task::Analyze, &image.view(), Connectivity::Four, &expected)
            .unwrap_err();
        let Failure::Mismatch(Mismatch::Stats {
            component,
            expected,
            actual,
        }) = failure
        else {
            panic!("expected a feature mismatch, got {failure}");
        };
        assert_eq!(component, 1);
        assert_eq!(expected, Some(ComponentStats::pixel(0, 0)));
        assert_eq!(actual.map(|s| s.area), Some(2));
    }

    #[test]
    fn missing_components_and_sizes_are_mismatches() {
        let one = [ComponentStats::pixel(0, 0)];
        assert_eq!(
            compare_stats(&one, &[]),
            Err(Mismatch::Stats {
                component: 1,
                expected: Some(one[0]),
                actual: None
            })
        );
        let small = LabelImage::new(1, 1, vec![1]).unwrap();
        let large = LabelImage::new(2, 1, vec![1, 1]).unwrap();
        assert_eq!(
            compare_labels(&small, &large),
            Err(Mismatch::LabelSize {
                expected: (1, 1),
                actual: (2, 1)
            })
        );
    }
}
