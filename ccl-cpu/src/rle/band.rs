//! Stage 3: one band of rows, labeled on its own. Each row's runs are
//! joined with the runs of the row above that they touch, through a
//! union-find forest of provisional labels; with analysis, the features of
//! each class are kept at its root, run by run (Light Speed Labeling's
//! per-run features: area, Σx in closed form, Σy, bounding box). Where the
//! runs of the row above are all one class, as nearly every row's are in a
//! dense image, a run that touches any of them joins that class with one
//! find (see [`IndexedRow::join`]), as a volume's runs do.

use std::ops::Range;

use ccl_core::{BinaryImage, ComponentStats, Connectivity};

use super::bits::row_to_bits;
use super::forest::{Forest, IndexedRow, NO_LABEL};
use super::merge::{BandForest, Border};
use super::runs::{Run, extract_runs, reach};

/// A row is labeled in one pass ([`IndexedRow::join`] per run) rather than
/// two ([`IndexedRow::label_below`]) after a row in which fewer than one
/// run in this many touched nothing above: at g = 1 about one run in 9
/// touches nothing at 70 % in 4-connectivity, one in 100 in 8.
const NEARLY_ALL: usize = 32;

/// As [`NEARLY_ALL`], for analysis, whose first pass also computes and
/// writes the features of every run (those of a run that touches are
/// written again where the next run that touches nothing goes): two passes
/// paid only where a quarter of the runs or more touch nothing (2048², g =
/// 1: 0.78-0.93x at 30 % in 4-connectivity and 10-30 % in 8, where a
/// third to three quarters do; 1.12x at 70 % in 4, where one in 9 does).
const NEARLY_ALL_MEASURED: usize = 4;

/// A band's result, and the buffers that the next image labeled by the
/// same labeler reuses (so that a labeler kept between calls allocates
/// nothing new for its bands).
#[derive(Default)]
pub(super) struct Band {
    /// The band's rows.
    pub rows: Range<usize>,
    /// The local root of each provisional label (flattened forest). Roots
    /// are the first label of their class in raster order, since a label is
    /// made for a run only where nothing above touches it.
    pub parent: Vec<u32>,
    /// With analysis: the features of each class at its root (stale
    /// elsewhere). Empty for labeling.
    pub stats: Vec<ComponentStats>,
    /// For labeling: the provisional label of every run of the band, row
    /// after row, left to right. Empty for analysis.
    pub run_labels: Vec<u32>,
    /// For labeling: row `i` of the band has runs
    /// `run_labels[row_starts[i]..row_starts[i + 1]]`.
    pub row_starts: Vec<usize>,
    /// For labeling: whether row `i` of the band has the mask of row
    /// `i - 1` (never the first row), and so its runs and their final
    /// labels: each run lies under its copy and joins its class. Empty for
    /// analysis.
    pub same_as_above: Vec<bool>,
    /// The runs of the band's first row, to join with the band above.
    pub first_row: Vec<Run>,
    /// The runs of the band's last row, to join with the band below.
    pub last_row: Vec<Run>,
    /// Scratch: the row above and this row.
    above: IndexedRow,
    current: IndexedRow,
    /// Scratch: the runs of a row that touch the row above, with the range
    /// of those they touch ([`IndexedRow::label_below`]).
    touching: Vec<(u32, u32, u32)>,
    /// Scratch: a row's bit mask, and the row above's.
    words: Vec<u64>,
    above_words: Vec<u64>,
}

impl Band {
    /// The bands' forests and the rows facing each other across their
    /// borders (the last row of a band and the first of the next), for
    /// [`super::merge::join`].
    pub(super) fn join_parts(
        bands: &[Band],
        connectivity: Connectivity,
    ) -> (Vec<BandForest<'_, ComponentStats>>, Vec<Vec<Border<'_>>>) {
        let forests = bands
            .iter()
            .map(|band| BandForest {
                parent: &band.parent,
                stats: &band.stats,
            })
            .collect();
        let borders = bands
            .windows(2)
            .map(|pair| {
                vec![Border {
                    upper: &pair[0].last_row,
                    lower: &pair[1].first_row,
                    reach: reach(connectivity),
                }]
            })
            .collect();
        (forests, borders)
    }

    /// The provisional labels of the runs of row `y` of the image (labeling
    /// only).
    pub(super) fn labels_of_row(&self, y: usize) -> &[u32] {
        let i = y - self.rows.start;
        &self.run_labels[self.row_starts[i]..self.row_starts[i + 1]]
    }

    /// Whether row `y` of the image, a row of this band, has the mask of
    /// the band's row before it (labeling only).
    pub(super) fn same_as_above(&self, y: usize) -> bool {
        self.same_as_above[y - self.rows.start]
    }

    /// Labels `rows` of `image` into this band; with `MEASURE`, also the
    /// features of every class, and no run labels are kept.
    pub(super) fn label<const MEASURE: bool>(
        &mut self,
        image: &BinaryImage<'_>,
        rows: Range<usize>,
        connectivity: Connectivity,
    ) {
        #[cfg(target_arch = "x86_64")]
        if x86_64_v3() {
            // SAFETY: the CPU has every feature `label_v3` enables.
            unsafe { self.label_v3::<MEASURE>(image, rows, connectivity) };
            return;
        }
        self.label_any_cpu::<MEASURE>(image, rows, connectivity);
    }

    /// [`Self::label`] compiled for x86-64-v3 CPUs (2013 on): the same code,
    /// inlined, with hardware popcount and bit scans (the baseline target
    /// makes `count_ones` a dozen instructions).
    ///
    /// # Safety
    /// The CPU must have AVX2, BMI1, BMI2, LZCNT and POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn label_v3<const MEASURE: bool>(
        &mut self,
        image: &BinaryImage<'_>,
        rows: Range<usize>,
        connectivity: Connectivity,
    ) {
        self.label_any_cpu::<MEASURE>(image, rows, connectivity);
    }

    /// The labeling itself; always inlined, so that it is compiled for the
    /// features of its caller.
    #[inline(always)]
    fn label_any_cpu<const MEASURE: bool>(
        &mut self,
        image: &BinaryImage<'_>,
        rows: Range<usize>,
        connectivity: Connectivity,
    ) {
        let width = image.width();
        self.words.resize(width.div_ceil(64), 0);
        let reach = reach(connectivity);
        let mut forest = Forest::<MEASURE, ComponentStats> {
            parent: std::mem::take(&mut self.parent),
            stats: std::mem::take(&mut self.stats),
        };
        forest.parent.clear();
        forest.stats.clear();
        self.run_labels.clear();
        self.row_starts.clear();
        self.row_starts.push(0);
        self.same_as_above.clear();
        // The band's first row is joined with a row of no runs.
        self.above.runs.clear();
        self.above.one_class = NO_LABEL;
        self.above_words.clear();
        self.above_words.resize(self.words.len(), 0);
        self.above.index.build(&self.above_words);
        let mut nearly_all_touch = false;
        for y in rows.clone() {
            row_to_bits(image.row(y), &mut self.words);
            if self.words == self.above_words {
                // The row above again, the only row a run meets: its runs
                // take their copies' classes, and its runs and index serve
                // as this row's.
                forest.label_as_copies(&mut self.above.runs, y as u32);
                self.above.find_one_label();
                if !MEASURE {
                    self.run_labels
                        .extend(self.above.runs.iter().map(|run| run.label));
                    self.row_starts.push(self.run_labels.len());
                    self.same_as_above.push(y != rows.start);
                }
                if y == rows.start {
                    self.first_row.clone_from(&self.above.runs);
                }
                continue;
            }
            let row = &mut self.current;
            row.runs.clear();
            extract_runs(&self.words, width, &mut row.runs);
            let labels_before = forest.parent.len();
            if self.above.one_class == NO_LABEL && !nearly_all_touch {
                self.above.label_below(
                    &mut forest,
                    &mut row.runs,
                    reach,
                    y as u32,
                    &mut self.touching,
                );
            } else {
                for run in row.runs.iter_mut() {
                    let label = self.above.join(&mut forest, NO_LABEL, run, reach);
                    run.label = forest.label_run(run, label, y as u32);
                }
            }
            // Where nearly every run touches the row above (a dense image),
            // the branch on it is predicted, and the next row is labeled in
            // one pass: the two passes' list cost up to 15 % of the band
            // stage there (2048², g = 1, 70 %, 8-connectivity).
            let nearly_all = if MEASURE {
                NEARLY_ALL_MEASURED
            } else {
                NEARLY_ALL
            };
            nearly_all_touch = (forest.parent.len() - labels_before) * nearly_all < row.runs.len();
            row.index.build(&self.words);
            row.find_one_label();
            if !MEASURE {
                self.run_labels.extend(row.runs.iter().map(|run| run.label));
                self.row_starts.push(self.run_labels.len());
                self.same_as_above.push(false);
            }
            if y == rows.start {
                self.first_row.clone_from(&row.runs);
            }
            std::mem::swap(&mut self.above, &mut self.current);
            std::mem::swap(&mut self.above_words, &mut self.words);
        }
        self.last_row.clone_from(&self.above.runs);
        forest.flatten();
        self.rows = rows;
        self.parent = forest.parent;
        self.stats = forest.stats;
    }
}

/// Whether this CPU runs [`Band::label_v3`] (checked once; std caches it).
#[cfg(target_arch = "x86_64")]
pub(super) fn x86_64_v3() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
}
