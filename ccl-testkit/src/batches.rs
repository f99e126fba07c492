//! The conformance kit for batches: every variant that labels images labels
//! and analyzes batches of them ([`Labeler::label_batch`](ccl_core::Labeler::label_batch),
//! [`Analyzer::analyze_batch`](ccl_core::Analyzer::analyze_batch)), each image apart, as the reference labels
//! it alone. A CUDA variant that labels batches in one launch sequence is
//! held to the same answers as one that loops over the images.

use ccl_core::{Algorithm, BinaryImageBuf, BinaryVolume, Connectivity, LabelImage, Result, Task};

use crate::conformance::assert_no_failures;
use crate::verify::{Expected, compare_labels, compare_stats};

/// A batch of images of one size, and where it comes from.
pub struct BatchCase {
    /// What the batch is, for failure messages.
    pub source: String,
    /// The images, one size.
    pub images: Vec<BinaryImageBuf>,
}

impl BatchCase {
    /// The batch of `count` images made by `image` (given each index).
    fn of(
        source: String,
        count: usize,
        image: impl FnMut(usize) -> Result<BinaryImageBuf>,
    ) -> Result<Self> {
        Ok(Self {
            source,
            images: (0..count).map(image).collect::<Result<Vec<_>>>()?,
        })
    }

    /// The images as the slices of one packed volume (width, height,
    /// bytes).
    fn packed(&self) -> (usize, usize, Vec<u8>) {
        let (width, height) = self
            .images
            .first()
            .map_or((0, 0), |image| (image.width(), image.height()));
        let bytes = self
            .images
            .iter()
            .flat_map(|image| image.pixels().iter().copied())
            .collect();
        (width, height, bytes)
    }
}

/// Random batches at every density around the percolation thresholds
/// (granularities 1 and 4), of sizes that end words and blocks anywhere,
/// with an empty and a full image among them; sparse batches (3-12 %);
/// and the degenerate ones: a single image, images of one row or one
/// column, a batch without pixels.
/// The images of 2048 columns are rows that a GPU labeler's row kernels
/// take a whole warp (or more) for, where the narrower ones share a warp
/// with other rows.
pub fn batch_cases() -> impl Iterator<Item = Result<BatchCase>> {
    let sizes: [(usize, usize, usize); 8] = [
        (37, 29, 6),
        (64, 64, 8),
        (130, 33, 5),
        (1, 17, 4),
        (45, 1, 4),
        (257, 96, 3),
        (19, 23, 1),
        (2048, 40, 5),
    ];
    let random = sizes
        .into_iter()
        .enumerate()
        .map(|(k, (width, height, count))| {
            BatchCase::of(
                format!("{count} random images of {width}x{height}"),
                count,
                |i| {
                    match i {
                        // A full image beside others: a labeler that joined the
                        // images' rows would reach into its neighbours.
                        1 => BinaryImageBuf::from_fn(width, height, |_, _| true),
                        2 => BinaryImageBuf::new(width, height),
                        _ => ccl_testdata::random_image(
                            width,
                            height,
                            [10, 45, 60, 80][(i + k) % 4],
                            1 + 3 * ((i + k) % 2) as u32,
                            (100 + 17 * k + i) as u32,
                        ),
                    }
                },
            )
        });
    // Sparse batches (every image under 15 % of foreground), which a GPU
    // labeler may unite all rows at once rather than in bands of rows.
    let sparse =
        [(130, 33, 6), (2048, 24, 3)]
            .into_iter()
            .enumerate()
            .map(|(k, (width, height, count))| {
                let source = format!("{count} sparse random images of {width}x{height}");
                BatchCase::of(source, count, |i| {
                    ccl_testdata::random_image(
                        width,
                        height,
                        [3, 8, 12][(i + k) % 3],
                        1 + 3 * ((i + k) % 2) as u32,
                        (300 + 17 * k + i) as u32,
                    )
                })
            });
    let empty = [(0, 5, 3), (7, 0, 2), (4, 4, 0)].map(|(width, height, count)| {
        BatchCase::of(format!("{count} images of {width}x{height}"), count, |_| {
            BinaryImageBuf::new(width, height)
        })
    });
    random.chain(sparse).chain(empty)
}

/// One variant's batch checks, with its tally.
pub struct BatchConformance {
    algorithm: &'static Algorithm,
    checks: usize,
    failures: Vec<String>,
}

impl BatchConformance {
    /// A variant to check.
    pub fn new(algorithm: &'static Algorithm) -> Self {
        Self {
            algorithm,
            checks: 0,
            failures: Vec::new(),
        }
    }

    /// Checks `case` in every image connectivity and task the variant has.
    pub fn check(&mut self, case: &BatchCase) {
        let (width, height, bytes) = case.packed();
        let batch = match BinaryVolume::new(&bytes, width, height, case.images.len()) {
            Ok(batch) => batch,
            Err(e) => {
                self.failures.push(format!("{}: {e}", case.source));
                return;
            }
        };
        for connectivity in Connectivity::PLANE {
            if !self.algorithm.supports(connectivity) {
                continue;
            }
            let expected = match case
                .images
                .iter()
                .map(|image| Expected::compute(&image.view(), connectivity))
                .collect::<Result<Vec<_>>>()
            {
                Ok(expected) => expected,
                Err(e) => {
                    self.failures
                        .push(format!("the reference failed on {}: {e}", case.source));
                    return;
                }
            };
            let context = |task: Task| {
                format!(
                    "{} on {}, {connectivity}-connectivity {task} (batch)",
                    self.algorithm.name, case.source
                )
            };
            if self.algorithm.performs(Task::Label) {
                self.checks += 1;
                if let Err(e) = self.check_labels(&batch, connectivity, &expected) {
                    self.failures.push(format!("{}: {e}", context(Task::Label)));
                }
            }
            if self.algorithm.performs(Task::Analyze) {
                self.checks += 1;
                if let Err(e) = self.check_stats(&batch, connectivity, &expected) {
                    self.failures
                        .push(format!("{}: {e}", context(Task::Analyze)));
                }
            }
        }
    }

    fn check_labels(
        &self,
        batch: &BinaryVolume<'_>,
        connectivity: Connectivity,
        expected: &[Expected],
    ) -> std::result::Result<(), String> {
        let (width, height) = (batch.width(), batch.height());
        let plane = width * height;
        // Labels and counts poisoned: every one must be written.
        let mut labels = vec![u32::MAX; batch.voxel_count()];
        let mut counts = vec![usize::MAX; batch.depth()];
        self.algorithm
            .labeler()
            .and_then(|mut l| l.label_batch(batch, connectivity, &mut labels, &mut counts))
            .map_err(|e| e.to_string())?;
        for (i, expected) in expected.iter().enumerate() {
            if counts[i] != expected.components() {
                return Err(format!(
                    "image {i}: {} components counted, {} expected",
                    counts[i],
                    expected.components()
                ));
            }
            let actual = labels
                .get(i * plane..(i + 1) * plane)
                .unwrap_or_default()
                .to_vec();
            let actual = LabelImage::new(width, height, actual).map_err(|e| e.to_string())?;
            compare_labels(&expected.labels, &actual).map_err(|m| format!("image {i}: {m}"))?;
        }
        Ok(())
    }

    fn check_stats(
        &self,
        batch: &BinaryVolume<'_>,
        connectivity: Connectivity,
        expected: &[Expected],
    ) -> std::result::Result<(), String> {
        let images = self
            .algorithm
            .analyzer()
            .and_then(|mut a| a.analyze_batch(batch, connectivity))
            .map_err(|e| e.to_string())?;
        if images.len() != expected.len() {
            return Err(format!(
                "features of {} images, {} expected",
                images.len(),
                expected.len()
            ));
        }
        for (i, (expected, actual)) in expected.iter().zip(&images).enumerate() {
            compare_stats(&expected.stats, actual).map_err(|m| format!("image {i}: {m}"))?;
        }
        Ok(())
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

/// Runs the batch kit for every registered variant that can run here and
/// labels images; returns the names of those checked.
///
/// # Panics
/// Listing every failure, so that the calling test fails.
pub fn check_registry_batches(
    cases: impl IntoIterator<Item = Result<BatchCase>>,
) -> Vec<&'static str> {
    let mut kits: Vec<BatchConformance> = crate::policy::testable_variants()
        .into_iter()
        .filter(|a| Connectivity::PLANE.iter().any(|&c| a.supports(c)))
        .map(BatchConformance::new)
        .collect();
    assert!(!kits.is_empty(), "no variant labels images here");
    for case in cases {
        let case = case.expect("the batches can be made");
        for kit in &mut kits {
            kit.check(&case);
        }
    }
    assert_no_failures(kits.iter().flat_map(|k| &k.failures));
    for kit in &kits {
        println!("{}: {} batch checks", kit.algorithm.name, kit.checks);
    }
    kits.iter().map(|k| k.algorithm.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    static WRONG: Algorithm = crate::wrong::MERGE_ALL;

    #[test]
    fn a_wrong_variant_fails_the_batch_checks() {
        let two = BinaryImageBuf::from_fn(4, 2, |x, _| x != 1).unwrap();
        let case = BatchCase {
            source: "two columns".into(),
            images: vec![two.clone(), two],
        };
        let mut kit = BatchConformance::new(&WRONG);
        kit.check(&case);
        let failures = kit.failures().join("\n");
        for task in ["label (batch)", "analyze (batch)"] {
            assert!(
                failures.contains(task),
                "no `{task}` failure in:\n{failures}"
            );
        }
    }

    #[test]
    fn every_batch_case_can_be_made() {
        let cases: Vec<BatchCase> = batch_cases().collect::<Result<_>>().unwrap();
        assert!(cases.iter().any(|c| c.images.is_empty()));
        assert!(cases.iter().any(|c| c.images.len() == 1));
    }
}
