//! Every check a registered variant must pass, on any verification image,
//! in every connectivity and task it declares:
//!
//! - the host calls ([`Labeler`](ccl_core::Labeler),
//!   [`Analyzer`](ccl_core::Analyzer)) against the reference;
//! - the same on a strided copy (rows further apart than their width, the
//!   padding bytes nonzero) whose foreground pixels hold other values than 1;
//! - the timed path ([`TimedRun`]: load, run, fetch), on both copies, which
//!   is what every benchmark figure comes from (for a CUDA variant, its
//!   device-resident path).
//!
//! A variant whose probe says it can run here and whose constructor then
//! fails is a failure, not something skipped.

use ccl_core::{Algorithm, BinaryImage, BinaryImageBuf, Connectivity, Result, Task, TimedRun};

use crate::cases::Case;
use crate::verify::{Expected, Failure, Variant, compare_labels, compare_stats};

/// Bytes between the rows of a strided copy beyond its width.
const STRIDE_PADDING: usize = 13;
/// The value of those bytes: nonzero, so a variant that reads them would
/// take them for foreground.
const PADDING_BYTE: u8 = 0xAB;

/// The reference's answers for one image, per connectivity.
pub type Expectations = Vec<(Connectivity, Expected)>;

/// The reference's answers for `case` in both connectivities.
pub fn expectations(case: &Case) -> Result<Expectations> {
    Connectivity::PLANE
        .into_iter()
        .map(|c| Ok((c, Expected::compute(&case.image.view(), c)?)))
        .collect()
}

/// A copy of `image` with rows `width + 13` bytes apart, padding bytes
/// `0xAB`, and foreground pixels valued 1 to 255 by position; returns the
/// bytes and the stride.
pub fn strided_copy(image: &BinaryImageBuf) -> (Vec<u8>, usize) {
    let (width, height) = (image.width(), image.height());
    let stride = width + STRIDE_PADDING;
    let mut bytes = vec![PADDING_BYTE; height * stride];
    for y in 0..height {
        for x in 0..width {
            bytes[y * stride + x] = if image.get(x, y) {
                1 + ((x * 7 + y * 3) % 255) as u8
            } else {
                0
            };
        }
    }
    (bytes, stride)
}

/// One variant under test, with its tally.
pub struct Conformance {
    algorithm: &'static Algorithm,
    host: Variant,
    timed: Box<dyn TimedRun>,
    checks: usize,
    failures: Vec<String>,
}

impl Conformance {
    /// Constructs the variant's labeler, analyzer and timed form; `Err`
    /// says which constructor failed (a failure for a variant whose probe
    /// says it can run).
    pub fn new(algorithm: &'static Algorithm) -> std::result::Result<Self, String> {
        let failed = |what: &str, e: ccl_core::Error| {
            format!("{}: its {what} cannot be made: {e}", algorithm.name)
        };
        Ok(Self {
            algorithm,
            host: Variant::new(algorithm).map_err(|e| failed("labeler or analyzer", e))?,
            timed: algorithm.timed().map_err(|e| failed("timed form", e))?,
            checks: 0,
            failures: Vec::new(),
        })
    }

    /// Checks `case`, computing the reference's answers first.
    pub fn check(&mut self, case: &Case) {
        match expectations(case) {
            Ok(expected) => self.check_with(case, &expected),
            Err(e) => self
                .failures
                .push(format!("the reference failed on {}: {e}", case.source)),
        }
    }

    /// Checks `case` against the reference's answers `expected`.
    pub fn check_with(&mut self, case: &Case, expected: &[(Connectivity, Expected)]) {
        let (bytes, stride) = strided_copy(&case.image);
        let (width, height) = (case.image.width(), case.image.height());
        let strided = match BinaryImage::with_stride(&bytes, width, height, stride) {
            Ok(view) => view,
            Err(e) => {
                self.failures.push(format!("{}: {e}", case.source));
                return;
            }
        };
        for (layout, image) in [("packed", case.image.view()), ("strided", strided)] {
            let loaded = self.timed.load(&image);
            for (connectivity, expected) in expected {
                if !self.algorithm.supports(*connectivity) {
                    continue;
                }
                for task in self.host.tasks() {
                    let context = |path: &str| {
                        format!(
                            "{} on {} ({path}, {layout}), {connectivity}-connectivity {task}",
                            self.algorithm.name, case.source
                        )
                    };
                    self.checks += 2;
                    if let Err(failure) = self.host.check(task, &image, *connectivity, expected) {
                        self.failures
                            .push(format!("{}: {failure}", context("host")));
                    }
                    let timed = match &loaded {
                        Ok(_) => timed_check(self.timed.as_mut(), task, *connectivity, expected),
                        Err(e) => Err(Failure::Error(ccl_core::Error::Unavailable(format!(
                            "load failed: {e}"
                        )))),
                    };
                    if let Err(failure) = timed {
                        self.failures
                            .push(format!("{}: {failure}", context("timed")));
                    }
                }
            }
        }
    }

    /// The checks made so far (each task, connectivity, layout and path).
    pub fn checks(&self) -> usize {
        self.checks
    }

    /// Every failure so far, one line each.
    pub fn failures(&self) -> &[String] {
        &self.failures
    }
}

/// One timed run of `task` on the loaded image, its stage times sane (a
/// stage at least, unless the image has no pixel) and its answer the
/// reference's.
/// Panics listing every failure of a registry-wide run (one line each), so
/// that the calling test fails; the kits of images, batches and volumes
/// share it.
pub(crate) fn assert_no_failures<'a>(failures: impl IntoIterator<Item = &'a String>) {
    let failures: Vec<&str> = failures.into_iter().map(String::as_str).collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn timed_check(
    timed: &mut dyn TimedRun,
    task: Task,
    connectivity: Connectivity,
    expected: &Expected,
) -> std::result::Result<(), Failure> {
    let stages = timed.run(task, connectivity)?;
    let pixels = expected.labels.width() * expected.labels.height();
    if (stages.is_empty() && pixels > 0) || stages.iter().any(|s| s.ms.is_nan() || s.ms < 0.0) {
        return Err(Failure::Error(ccl_core::Error::Unavailable(format!(
            "the run reported stage times {stages:?}"
        ))));
    }
    match task {
        Task::Label => compare_labels(&expected.labels, &timed.labels()?)?,
        Task::Analyze => compare_stats(&expected.stats, &timed.stats()?)?,
    }
    Ok(())
}

/// Runs the kit for every registered variant that can run here (see
/// [`policy::testable_variants`](crate::policy::testable_variants)) on
/// `cases`, the reference computed once per image.
///
/// # Panics
/// Listing every failure, so that the calling test fails.
pub fn check_registry(cases: impl IntoIterator<Item = Result<Case>>) {
    let mut kits: Vec<Conformance> = crate::policy::testable_variants()
        .into_iter()
        .map(|algorithm| Conformance::new(algorithm).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    assert!(!kits.is_empty(), "no variant can run here");
    let mut images = 0;
    for case in cases {
        let case = case.expect("the verification images can be made");
        let expected = expectations(&case).expect("the reference labels any valid image");
        for kit in &mut kits {
            kit.check_with(&case, &expected);
        }
        images += 1;
    }
    assert!(images > 0, "no image to check");
    assert_no_failures(kits.iter().flat_map(|k| &k.failures));
    for kit in &kits {
        println!(
            "{}: {} checks on {images} images",
            kit.algorithm.name, kit.checks
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::Source;

    static WRONG: Algorithm = crate::wrong::MERGE_ALL;

    fn case(image: BinaryImageBuf) -> Case {
        Case {
            source: Source::Pattern {
                kind: "test",
                width: image.width(),
                height: image.height(),
            },
            image,
        }
    }

    #[test]
    fn a_wrong_variant_fails_on_every_path() {
        let two = BinaryImageBuf::from_fn(4, 2, |x, _| x != 1).unwrap();
        let mut kit = Conformance::new(&WRONG).unwrap();
        kit.check(&case(two));
        let failures = kit.failures().join("\n");
        for path in [
            "host, packed",
            "host, strided",
            "timed, packed",
            "timed, strided",
        ] {
            assert!(
                failures.contains(path),
                "no `{path}` failure in:\n{failures}"
            );
        }
    }

    #[test]
    fn strided_copies_keep_the_image_and_pad_with_nonzero_bytes() {
        let image = BinaryImageBuf::from_fn(3, 2, |x, y| x == y).unwrap();
        let (bytes, stride) = strided_copy(&image);
        let view = BinaryImage::with_stride(&bytes, 3, 2, stride).unwrap();
        assert_eq!(view.to_buf(), image);
        assert!(bytes[3..stride].iter().all(|&b| b == PADDING_BYTE));
    }
}
