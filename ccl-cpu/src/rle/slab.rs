//! Stage 3 for volumes: one slab of slices, labeled on its own. A run of
//! row `(y, z)` joins the runs that it touches in the rows before it: row
//! `y - 1` of its slice and rows `y - 1`, `y`, `y + 1` of the slice before,
//! each within the columns the connectivity allows (see [`Neighbours`]).

use std::ops::Range;

use ccl_core::{BinaryVolume, Connectivity, VolumeStats};

use super::bits::row_to_bits;
use super::forest::{Forest, IndexedRow, NO_LABEL};
use super::merge::{BandForest, Border};
use super::runs::{Run, extract_runs};

/// Which rows before a run's row it may touch, and how many columns apart.
#[derive(Clone, Copy, Debug)]
pub(super) struct Neighbours {
    /// Row `y - 1` of the same slice and row `y` of the slice before: voxels
    /// of these rows are one coordinate away already, so a run touches a run
    /// a column beyond its ends unless only faces count (6).
    pub face_reach: u32,
    /// Rows `y ± 1` of the slice before, two coordinates away: they touch
    /// at all only in 18- and 26-connectivity, and beyond a run's ends only
    /// in 26 (`None` in 6).
    pub edge_reach: Option<u32>,
}

impl Neighbours {
    /// The neighbours of a volume's `connectivity` (6, 18 or 26).
    pub(super) fn of(connectivity: Connectivity) -> Self {
        match connectivity {
            Connectivity::Six => Self {
                face_reach: 0,
                edge_reach: None,
            },
            Connectivity::Eighteen => Self {
                face_reach: 1,
                edge_reach: Some(0),
            },
            _ => Self {
                face_reach: 1,
                edge_reach: Some(1),
            },
        }
    }

    /// The rows of the slice before that face row `y` of a slice, with
    /// their reach: `(y', reach)`, in raster order.
    fn in_slice_before(self, y: usize, height: usize) -> impl Iterator<Item = (usize, u32)> {
        let edge = self.edge_reach;
        let above = edge.filter(|_| y > 0).map(|reach| (y - 1, reach));
        let below = edge.filter(|_| y + 1 < height).map(|reach| (y + 1, reach));
        above.into_iter().chain([(y, self.face_reach)]).chain(below)
    }
}

/// A slab's result, and the buffers that the next volume reuses.
#[derive(Default)]
pub(super) struct Slab {
    /// The slab's slices.
    pub slices: Range<usize>,
    /// The local root of each provisional label (flattened forest).
    pub parent: Vec<u32>,
    /// With analysis: the features of each class at its root.
    pub stats: Vec<VolumeStats>,
    /// For labeling: the provisional label of every run of the slab, row
    /// after row (z outer), left to right. Empty for analysis.
    pub run_labels: Vec<u32>,
    /// For labeling: row `i` of the slab (slice-major) has runs
    /// `run_labels[row_starts[i]..row_starts[i + 1]]`.
    pub row_starts: Vec<usize>,
    /// The runs of each row of the slab's first slice.
    first_slice: Vec<Vec<Run>>,
    /// The runs of each row of the slab's last slice.
    last_slice: Vec<Vec<Run>>,
    /// Scratch: the rows of the slice before and of this slice.
    before: Vec<IndexedRow>,
    current: Vec<IndexedRow>,
    /// Scratch: a row's bit mask.
    words: Vec<u64>,
    /// Scratch: the bit masks of this slice's rows and of the slice
    /// before's, row after row.
    slice_words: Vec<u64>,
    before_words: Vec<u64>,
}

impl Slab {
    /// The provisional labels of the runs of the slab's `i`-th row.
    pub(super) fn labels_of_row(&self, i: usize) -> &[u32] {
        &self.run_labels[self.row_starts[i]..self.row_starts[i + 1]]
    }

    /// The slabs' forests and the rows facing each other across their
    /// borders, for [`super::merge::join`].
    pub(super) fn join_parts(
        slabs: &[Slab],
        neighbours: Neighbours,
    ) -> (Vec<BandForest<'_, VolumeStats>>, Vec<Vec<Border<'_>>>) {
        let forests = slabs
            .iter()
            .map(|slab| BandForest {
                parent: &slab.parent,
                stats: &slab.stats,
            })
            .collect();
        let borders = slabs
            .windows(2)
            .map(|pair| {
                let (upper, lower) = (&pair[0].last_slice, &pair[1].first_slice);
                let mut rows = Vec::new();
                for (y, row) in lower.iter().enumerate() {
                    for (facing, reach) in neighbours.in_slice_before(y, lower.len()) {
                        rows.push(Border {
                            upper: &upper[facing],
                            lower: row,
                            reach,
                        });
                    }
                }
                rows
            })
            .collect();
        (forests, borders)
    }

    /// Labels `slices` of `volume` into this slab; with `MEASURE`, also the
    /// features of every class, and no run labels are kept.
    pub(super) fn label<const MEASURE: bool>(
        &mut self,
        volume: &BinaryVolume<'_>,
        slices: Range<usize>,
        neighbours: Neighbours,
    ) {
        #[cfg(target_arch = "x86_64")]
        if super::band::x86_64_v3() {
            // SAFETY: the CPU has every feature `label_v3` enables.
            unsafe { self.label_v3::<MEASURE>(volume, slices, neighbours) };
            return;
        }
        self.label_any_cpu::<MEASURE>(volume, slices, neighbours);
    }

    /// [`Self::label`] compiled for x86-64-v3 CPUs, as
    /// [`super::band::Band`]'s.
    ///
    /// # Safety
    /// The CPU must have AVX2, BMI1, BMI2, LZCNT and POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn label_v3<const MEASURE: bool>(
        &mut self,
        volume: &BinaryVolume<'_>,
        slices: Range<usize>,
        neighbours: Neighbours,
    ) {
        self.label_any_cpu::<MEASURE>(volume, slices, neighbours);
    }

    #[inline(always)]
    fn label_any_cpu<const MEASURE: bool>(
        &mut self,
        volume: &BinaryVolume<'_>,
        slices: Range<usize>,
        neighbours: Neighbours,
    ) {
        let (width, height) = (volume.width(), volume.height());
        let row_words = width.div_ceil(64);
        self.words.resize(row_words, 0);
        self.slice_words.resize(height * row_words, 0);
        self.before_words.resize(height * row_words, 0);
        let mut forest = Forest::<MEASURE, VolumeStats> {
            parent: std::mem::take(&mut self.parent),
            stats: std::mem::take(&mut self.stats),
        };
        forest.parent.clear();
        forest.stats.clear();
        self.run_labels.clear();
        self.row_starts.clear();
        self.row_starts.push(0);
        for rows in [&mut self.before, &mut self.current] {
            rows.resize_with(height, IndexedRow::default);
        }
        for z in slices.clone() {
            let first = z == slices.start;
            // The first rows of the slice that have the masks of their rows
            // in the slice before (all of them where the slice repeats it)
            // take their runs' classes from the same runs there
            // (`Forest::label_as_copies`): every run they could touch in
            // the rows above them or in the slice before's other rows
            // touches those runs the same way in the slice before, where
            // their classes were joined already.
            let mut repeated = 0;
            while !first && repeated < height {
                let y = repeated;
                let mask = y * row_words..(y + 1) * row_words;
                row_to_bits(volume.row(y, z), &mut self.slice_words[mask.clone()]);
                if self.slice_words[mask.clone()] != self.before_words[mask.clone()] {
                    break;
                }
                let row = &mut self.current[y];
                row.runs.clone_from(&self.before[y].runs);
                forest.label_as_copies(&mut row.runs, (y as u32, z as u32));
                row.index.build(&self.slice_words[mask]);
                row.find_one_class(&mut forest);
                if !MEASURE {
                    self.run_labels.extend(row.runs.iter().map(|run| run.label));
                    self.row_starts.push(self.run_labels.len());
                }
                repeated += 1;
            }
            for y in repeated..height {
                row_to_bits(volume.row(y, z), &mut self.words);
                let (done, rest) = self.current.split_at_mut(y);
                let row = &mut rest[0];
                row.runs.clear();
                extract_runs(&self.words, width, &mut row.runs);
                let at = (y as u32, z as u32);
                for run in row.runs.iter_mut() {
                    let mut label = NO_LABEL;
                    if !first {
                        for (facing, reach) in neighbours.in_slice_before(y, height) {
                            label = self.before[facing].join(&mut forest, label, run, reach);
                        }
                    }
                    if let Some(above) = done.last() {
                        label = above.join(&mut forest, label, run, neighbours.face_reach);
                    }
                    run.label = forest.label_run(run, label, at);
                }
                row.index.build(&self.words);
                row.find_one_class(&mut forest);
                if !MEASURE {
                    self.run_labels.extend(row.runs.iter().map(|run| run.label));
                    self.row_starts.push(self.run_labels.len());
                }
                // Kept for the next slice's comparison.
                self.slice_words[y * row_words..(y + 1) * row_words].copy_from_slice(&self.words);
            }
            if first {
                copy_runs(&self.current, &mut self.first_slice);
            }
            std::mem::swap(&mut self.before, &mut self.current);
            std::mem::swap(&mut self.before_words, &mut self.slice_words);
            // The slice's later rows may have linked a row's class under
            // another root, or joined the classes of a row of several: the
            // next slice's runs carry the roots of now.
            for row in &mut self.before {
                if row.one_class == NO_LABEL {
                    row.find_one_class(&mut forest);
                } else {
                    row.one_class = forest.find(row.one_class);
                }
            }
        }
        copy_runs(&self.before, &mut self.last_slice);
        forest.flatten();
        self.slices = slices;
        self.parent = forest.parent;
        self.stats = forest.stats;
    }
}

/// The runs of every row of `rows` into `into`, reusing its vectors.
fn copy_runs(rows: &[IndexedRow], into: &mut Vec<Vec<Run>>) {
    into.resize_with(rows.len(), Vec::new);
    for (row, copy) in rows.iter().zip(into.iter_mut()) {
        copy.clone_from(&row.runs);
    }
}
