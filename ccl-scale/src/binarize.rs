//! Gray inputs binarized as they stream: a [`PlaneSource`] hands the
//! labeler bytes whose nonzero ones are foreground, and a file of gray
//! values (a `.npy` of `uint8`, a TIFF of 8-bit pages) needs a threshold
//! first. [`Foreground`] is the rule (every nonzero byte, the bytes above a
//! threshold, above Otsu's threshold; then optionally swapped), decided
//! once for the whole input as `ccl_io`'s in-memory readers decide it, and
//! [`Binarized`] applies it to every plane as it is read, so that host
//! memory still holds only the strips in flight.
//!
//! ```
//! use ccl::io::{ByteElement, Threshold};
//! use ccl_scale::{Binarized, Foreground, Pixels, PlaneSource, Shape};
//!
//! // Dark background (10, 12), bright objects (200, 220).
//! let gray = [10, 200, 12, 220, 10, 12];
//! let shape = Shape::Image { width: 3, height: 2 };
//! let pixels = Pixels::new(&gray, shape)?;
//! let otsu = Foreground::new(&pixels, shape, ByteElement::U8, Threshold::Otsu, false)?;
//! assert_eq!(otsu.threshold(), Some(12));
//! let mut mask = [0u8; 6];
//! Binarized::new(&pixels, otsu).read_planes(0, &mut mask)?;
//! assert_eq!(mask, [0, 1, 0, 1, 0, 0]);
//! # Ok::<(), ccl::Error>(())
//! ```

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};

use ccl::io::{ByteElement, Threshold};
use ccl::{Error, Result};

use crate::{PlaneSource, Shape};

/// The most bytes Otsu's histogram pass reads at once, over all its
/// threads (or one plane, where a plane is larger): the pass reads the
/// whole input, and host memory must stay bounded whatever its size.
const HISTOGRAM_BYTES: usize = 64 << 20;

/// Which bytes of a source are foreground: a threshold rule on the values
/// the bytes hold (as [`ccl::io::Threshold`] decides it for an in-memory
/// read of the same file), then optionally swapped. [`Foreground::new`]
/// decides it, [`Binarized`] applies it as planes are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Foreground {
    /// The value foreground lies above, given or chosen by Otsu's method;
    /// `None` under the nonzero rule.
    threshold: Option<u32>,
    /// Flipped in every byte before the comparison: the sign bit for
    /// `int8`, which orders two's complement bytes as their values (−128
    /// becomes 0, 127 becomes 255), else 0.
    flip: u8,
    /// Foreground where `byte ^ flip` is above this.
    above: u8,
    /// Foreground and background swapped after the comparison.
    invert: bool,
}

impl Foreground {
    /// The rule `threshold` (then `invert`) makes of the bytes of `source`,
    /// which holds `shape`'s planes of `element` values. Under
    /// [`Threshold::Otsu`] the threshold is chosen from the histogram of
    /// every plane together ([`otsu_threshold`], one pass over `source`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a threshold at or above the values'
    /// largest (it leaves no foreground) and for Otsu's threshold of
    /// `int8` values; what `source` returns.
    pub fn new(
        source: &dyn PlaneSource,
        shape: Shape,
        element: ByteElement,
        threshold: Threshold,
        invert: bool,
    ) -> Result<Self> {
        let t = match threshold {
            // Nonzero is above 0 for every element type: a `bool` byte is
            // True where nonzero, an `int8` is 0 only as the byte 0.
            Threshold::Nonzero => {
                return Ok(Self {
                    threshold: None,
                    flip: 0,
                    above: 0,
                    invert,
                });
            }
            Threshold::Above(t) => {
                let (min, max) = element.range();
                if i64::from(t) >= i64::from(max) {
                    return Err(Error::InvalidArgument(format!(
                        "threshold {t} leaves no foreground: {} values run from {min} to {max}",
                        element.name()
                    )));
                }
                t
            }
            Threshold::Otsu => otsu_threshold(source, shape, element)?,
        };
        // `t` lies below the largest value: under 255, and under 1 (so 0,
        // and above 0 is True) for `bool`, under 127 for `int8`.
        let (flip, above) = match element {
            ByteElement::Bool | ByteElement::U8 => (0, t as u8),
            ByteElement::I8 => (0x80, (t + 0x80) as u8),
        };
        Ok(Self {
            threshold: Some(t),
            flip,
            above,
            invert,
        })
    }

    /// The value foreground lies above (given, or Otsu's choice); `None`
    /// under the nonzero rule.
    pub fn threshold(&self) -> Option<u32> {
        self.threshold
    }

    /// Foreground is every nonzero byte, as a [`PlaneSource`]'s bytes
    /// already are: the source needs no [`Binarized`] around it.
    pub fn is_nonzero(&self) -> bool {
        self.threshold.is_none() && !self.invert
    }

    /// Replaces every byte of `bytes` by 1 where it is foreground, else 0.
    pub fn binarize(&self, bytes: &mut [u8]) {
        let Self {
            flip,
            above,
            invert,
            ..
        } = *self;
        // Branch-free, so that it vectorizes: a strip is many megabytes.
        for byte in bytes {
            *byte = u8::from(((*byte ^ flip) > above) != invert);
        }
    }
}

/// A [`PlaneSource`] whose bytes are binarized by a [`Foreground`] rule as
/// they are read: 1 foreground, 0 background.
pub struct Binarized<'a> {
    source: &'a dyn PlaneSource,
    foreground: Foreground,
}

impl<'a> Binarized<'a> {
    /// `source` read through `foreground`.
    pub fn new(source: &'a dyn PlaneSource, foreground: Foreground) -> Self {
        Self { source, foreground }
    }
}

impl PlaneSource for Binarized<'_> {
    fn read_planes(&self, first: usize, out: &mut [u8]) -> Result<()> {
        self.source.read_planes(first, out)?;
        self.foreground.binarize(out);
        Ok(())
    }
}

/// Otsu's threshold of the values of `source` (`shape`'s planes of
/// `element` values), chosen from the histogram of every plane together,
/// as [`ccl::io::otsu_threshold`] chooses it for an in-memory read: the
/// planes are read in runs of at most 64 MiB in all (or one plane, where a
/// plane is larger), counted on every host thread.
///
/// # Errors
/// [`Error::InvalidArgument`] for `int8` values (in-memory reads refuse
/// Otsu's threshold of signed values too); what `source` returns.
pub fn otsu_threshold(source: &dyn PlaneSource, shape: Shape, element: ByteElement) -> Result<u32> {
    if element == ByteElement::I8 {
        return Err(Error::InvalidArgument(
            "Otsu's threshold needs unsigned values (a bool or uint8 array), and these are int8 \
             values: binarize them with a threshold (--threshold T), or in numpy"
                .into(),
        ));
    }
    let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let mut histogram = histogram(source, shape, HISTOGRAM_BYTES, threads)?;
    if element == ByteElement::Bool {
        // numpy reads any nonzero byte as True, the value 1.
        histogram[1] = histogram[1..].iter().sum();
        histogram[2..].fill(0);
    }
    Ok(ccl::io::otsu_threshold(&histogram))
}

/// How many bytes of each value `source`'s planes hold, read in runs of
/// whole planes on up to `threads` threads, at most `budget` bytes at once
/// in all (or one plane, where a plane is larger).
fn histogram(
    source: &dyn PlaneSource,
    shape: Shape,
    budget: usize,
    threads: usize,
) -> Result<[u64; 256]> {
    let (plane_len, planes) = (shape.plane_len(), shape.planes());
    if plane_len == 0 || planes == 0 {
        return Ok([0; 256]);
    }
    // A source reads whole planes: where few fit in the budget, fewer
    // threads read them, one plane at a time at the least.
    let threads = threads.clamp(1, (budget / plane_len).max(1)).min(planes);
    let run = (budget / threads / plane_len).clamp(1, planes);
    let runs = planes.div_ceil(run);
    let next = AtomicUsize::new(0);
    let count_runs = || -> Result<[u64; 256]> {
        let mut counts = [0u64; 256];
        let mut buffer = vec![0u8; run * plane_len];
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= runs {
                return Ok(counts);
            }
            let first = index * run;
            let bytes = &mut buffer[..run.min(planes - first) * plane_len];
            if let Err(error) = source.read_planes(first, bytes) {
                // The other threads stop at their next run.
                next.store(runs, Ordering::Relaxed);
                return Err(error);
            }
            count(bytes, &mut counts);
        }
    };
    std::thread::scope(|scope| {
        let counters: Vec<_> = (0..threads).map(|_| scope.spawn(count_runs)).collect();
        let mut histogram = [0u64; 256];
        for counter in counters {
            let counts = counter
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            for (total, n) in histogram.iter_mut().zip(counts) {
                *total += n;
            }
        }
        Ok(histogram)
    })
}

/// Adds how many bytes of each value `bytes` holds to `counts`. Four
/// tables take the bytes in turn, so that a run of one value (a mask's
/// background) does not wait on one counter's increments.
fn count(bytes: &[u8], counts: &mut [u64; 256]) {
    let mut tables = [[0u64; 256]; 4];
    let mut quads = bytes.chunks_exact(4);
    for quad in &mut quads {
        for (table, &byte) in tables.iter_mut().zip(quad) {
            table[usize::from(byte)] += 1;
        }
    }
    for &byte in quads.remainder() {
        tables[0][usize::from(byte)] += 1;
    }
    for table in tables {
        for (total, n) in counts.iter_mut().zip(table) {
            *total += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::Pixels;

    const ELEMENTS: [ByteElement; 3] = [ByteElement::Bool, ByteElement::U8, ByteElement::I8];

    /// Every byte, as a 16x16 image.
    fn every_byte() -> (Vec<u8>, Shape) {
        let shape = Shape::Image {
            width: 16,
            height: 16,
        };
        ((0..=255).collect(), shape)
    }

    /// The value numpy reads from a byte of `element`.
    fn value(element: ByteElement, byte: u8) -> i64 {
        match element {
            ByteElement::Bool => i64::from(byte != 0),
            ByteElement::U8 => i64::from(byte),
            ByteElement::I8 => i64::from(byte as i8),
        }
    }

    /// Every byte read through `foreground`.
    fn binarized(bytes: &[u8], shape: Shape, foreground: Foreground) -> Vec<u8> {
        let pixels = Pixels::new(bytes, shape).unwrap();
        let mut out = vec![0xAA; bytes.len()];
        Binarized::new(&pixels, foreground)
            .read_planes(0, &mut out)
            .unwrap();
        out
    }

    #[test]
    fn every_byte_is_foreground_where_its_value_is_above_the_threshold() {
        let (bytes, shape) = every_byte();
        let pixels = Pixels::new(&bytes, shape).unwrap();
        for element in ELEMENTS {
            let max = element.range().1 as u32;
            let rules = [Threshold::Nonzero, Threshold::Above(0), Threshold::Above(1)]
                .into_iter()
                .chain([Threshold::Above(max / 2), Threshold::Above(max - 1)]);
            for threshold in rules {
                if matches!(threshold, Threshold::Above(t) if t >= max) {
                    continue;
                }
                for invert in [false, true] {
                    let case = format!("{element:?} {threshold:?} invert {invert}");
                    let foreground =
                        Foreground::new(&pixels, shape, element, threshold, invert).unwrap();
                    let expected: Vec<u8> = bytes
                        .iter()
                        .map(|&byte| {
                            let v = value(element, byte);
                            let on = match threshold {
                                Threshold::Above(t) => v > i64::from(t),
                                _ => v != 0,
                            };
                            u8::from(on != invert)
                        })
                        .collect();
                    assert_eq!(binarized(&bytes, shape, foreground), expected, "{case}");
                    assert_eq!(
                        foreground.is_nonzero(),
                        threshold == Threshold::Nonzero && !invert,
                        "{case}"
                    );
                    let given = match threshold {
                        Threshold::Above(t) => Some(t),
                        _ => None,
                    };
                    assert_eq!(foreground.threshold(), given, "{case}");
                }
            }
        }
    }

    #[test]
    fn thresholds_that_leave_no_foreground_and_signed_otsu_are_refused() {
        let (bytes, shape) = every_byte();
        let pixels = Pixels::new(&bytes, shape).unwrap();
        for (element, t, range) in [
            (ByteElement::Bool, 1, "bool values run from 0 to 1"),
            (ByteElement::U8, 255, "uint8 values run from 0 to 255"),
            (ByteElement::U8, 300, "uint8 values run from 0 to 255"),
            (ByteElement::I8, 127, "int8 values run from -128 to 127"),
        ] {
            let error = Foreground::new(&pixels, shape, element, Threshold::Above(t), false)
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(&format!("threshold {t} leaves no foreground: {range}")),
                "{error}"
            );
        }
        let error = Foreground::new(&pixels, shape, ByteElement::I8, Threshold::Otsu, true)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("int8") && error.contains("--threshold"),
            "{error}"
        );
    }

    /// Two noisy modes of gray values, in a volume of 7 slices of 13x5.
    fn two_modes() -> (Vec<u8>, Shape) {
        let shape = Shape::Volume {
            width: 13,
            height: 5,
            depth: 7,
        };
        let mut numbers = ccl_testdata::Xorshift32::new(0x9E37_79B9);
        let bytes = (0..shape.pixels())
            .map(|i| {
                let noise = numbers.below(40) as u8;
                if i % 3 == 0 { 170 + noise } else { 20 + noise }
            })
            .collect();
        (bytes, shape)
    }

    #[test]
    fn otsu_of_a_streamed_source_is_ccl_io_s_of_its_histogram() {
        let (bytes, shape) = two_modes();
        let mut histogram = [0u64; 256];
        for &b in &bytes {
            histogram[usize::from(b)] += 1;
        }
        let expected = ccl::io::otsu_threshold(&histogram);
        assert!((59..170).contains(&expected), "{expected}");
        let pixels = Pixels::new(&bytes, shape).unwrap();
        assert_eq!(
            otsu_threshold(&pixels, shape, ByteElement::U8).unwrap(),
            expected
        );
        let foreground =
            Foreground::new(&pixels, shape, ByteElement::U8, Threshold::Otsu, false).unwrap();
        assert_eq!(foreground.threshold(), Some(expected));
        let mask: Vec<u8> = bytes
            .iter()
            .map(|&b| u8::from(u32::from(b) > expected))
            .collect();
        assert_eq!(binarized(&bytes, shape, foreground), mask);
        // A bool array's bytes are its values 0 and 1, whatever nonzero
        // byte numpy stored for True.
        let bools: Vec<u8> = bytes
            .iter()
            .map(|&b| [0, 1, 2, 255][b as usize % 4])
            .collect();
        let ones = bools.iter().filter(|&&b| b != 0).count() as u64;
        let folded = [bools.len() as u64 - ones, ones];
        assert_eq!(
            otsu_threshold(
                &Pixels::new(&bools, shape).unwrap(),
                shape,
                ByteElement::Bool
            )
            .unwrap(),
            ccl::io::otsu_threshold(&folded)
        );
        // An empty input: 0, as ccl_io chooses for an empty histogram.
        let empty = Shape::Volume {
            width: 4,
            height: 3,
            depth: 0,
        };
        let nothing = Pixels::new(&[], empty).unwrap();
        assert_eq!(otsu_threshold(&nothing, empty, ByteElement::U8).unwrap(), 0);
    }

    /// A source that records the runs of planes read from it.
    struct Recording<'a> {
        pixels: Pixels<'a>,
        plane_len: usize,
        reads: Mutex<Vec<(usize, usize)>>,
        /// A plane whose read fails.
        broken: Option<usize>,
    }

    impl PlaneSource for Recording<'_> {
        fn read_planes(&self, first: usize, out: &mut [u8]) -> Result<()> {
            let planes = out.len() / self.plane_len;
            if self
                .broken
                .is_some_and(|b| (first..first + planes).contains(&b))
            {
                return Err(Error::InvalidArgument("a broken plane".into()));
            }
            self.reads.lock().unwrap().push((first, planes));
            self.pixels.read_planes(first, out)
        }
    }

    #[test]
    fn histograms_read_every_plane_once_in_runs_within_the_budget() {
        let (bytes, shape) = two_modes();
        let (plane_len, planes) = (shape.plane_len(), shape.planes());
        let mut expected = [0u64; 256];
        count(&bytes, &mut expected);
        assert_eq!(expected.iter().sum::<u64>(), bytes.len() as u64);
        // Budgets under a plane, of one plane, between planes, of all but
        // one, of every plane and past it; one thread and several.
        let budgets = [1, plane_len, plane_len + 1, 3 * plane_len - 1];
        let budgets = budgets
            .into_iter()
            .chain([(planes - 1) * plane_len, bytes.len(), 1 << 20]);
        for budget in budgets {
            for threads in [1, 2, 3, 8] {
                let case = format!("budget {budget}, {threads} threads");
                let source = Recording {
                    pixels: Pixels::new(&bytes, shape).unwrap(),
                    plane_len,
                    reads: Mutex::new(Vec::new()),
                    broken: None,
                };
                assert_eq!(
                    histogram(&source, shape, budget, threads).unwrap(),
                    expected,
                    "{case}"
                );
                let mut reads = source.reads.into_inner().unwrap();
                reads.sort_unstable();
                let mut next = 0;
                for &(first, count) in &reads {
                    assert_eq!(first, next, "{case}: {reads:?}");
                    assert!(count >= 1, "{case}: {reads:?}");
                    next = first + count;
                }
                assert_eq!(next, planes, "{case}: {reads:?}");
                // Each reading thread holds a buffer of its largest run, and
                // no more threads read than runs of a plane fit the budget
                // (one, where none does): held at once, the budget or a
                // plane.
                let largest = reads.iter().map(|&(_, n)| n).max().unwrap();
                let readers = threads.min((budget / plane_len).max(1));
                assert!(
                    readers * largest * plane_len <= budget.max(plane_len),
                    "{case}: {reads:?}"
                );
            }
        }
    }

    #[test]
    fn a_failed_read_fails_the_histogram() {
        let (bytes, shape) = two_modes();
        for threads in [1, 3] {
            let source = Recording {
                pixels: Pixels::new(&bytes, shape).unwrap(),
                plane_len: shape.plane_len(),
                reads: Mutex::new(Vec::new()),
                broken: Some(5),
            };
            let error = histogram(&source, shape, shape.plane_len() * 2, threads).unwrap_err();
            assert!(error.to_string().contains("a broken plane"), "{error}");
        }
    }
}
