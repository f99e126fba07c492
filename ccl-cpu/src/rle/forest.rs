//! The union-find forest of provisional labels that a band (rows of an
//! image) or a slab (slices of a volume) labels its runs into, and, with
//! analysis, the features of each class at its root.

use ccl_core::{ComponentStats, VolumeStats};

use super::runs::{Run, RunIndex};

/// A label no run has: "nothing before touches this run yet".
pub(super) const NO_LABEL: u32 = u32::MAX;

/// The features a forest keeps per class: an image's or a volume's.
pub(super) trait RunFeatures: Copy + Default + Send + Sync {
    /// Where a run lies besides its columns: `y` in an image, `(y, z)` in
    /// a volume.
    type Row: Copy;

    /// The features of the run of pixels `start..=end` of `row`.
    fn of_run(start: u32, end: u32, row: Self::Row) -> Self;

    /// Adds the features of another part of the same component.
    fn merge(&mut self, other: &Self);
}

impl RunFeatures for ComponentStats {
    type Row = u32;

    #[inline(always)]
    fn of_run(start: u32, end: u32, y: u32) -> Self {
        let mut stats = ComponentStats::default();
        stats.add_run(start, end, y);
        stats
    }

    #[inline(always)]
    fn merge(&mut self, other: &Self) {
        ComponentStats::merge(self, other);
    }
}

impl RunFeatures for VolumeStats {
    type Row = (u32, u32);

    #[inline(always)]
    fn of_run(start: u32, end: u32, (y, z): (u32, u32)) -> Self {
        VolumeStats::run(start, end, y, z)
    }

    #[inline(always)]
    fn merge(&mut self, other: &Self) {
        VolumeStats::merge(self, other);
    }
}

/// The union-find forest of provisional labels: `parent[l] <= l`, so a
/// root is the first label of its class (labels are made in raster order),
/// and flattening is one pass in label order. With `MEASURE`, `stats[l]`
/// holds the features of root `l`'s class (stale elsewhere).
#[derive(Default)]
pub(super) struct Forest<const MEASURE: bool, F> {
    pub parent: Vec<u32>,
    pub stats: Vec<F>,
}

impl<const MEASURE: bool, F: RunFeatures> Forest<MEASURE, F> {
    /// Labels the runs of `row` (at `at`) from the labels of the runs of
    /// `above` (indexed by `index`) that touch them within `reach` columns
    /// (0: shared columns only; 1: diagonals too), merging the classes that
    /// a run joins.
    #[inline(always)]
    pub(super) fn connect_row(
        &mut self,
        above: &[Run],
        index: &RunIndex,
        row: &mut [Run],
        reach: u32,
        at: F::Row,
    ) {
        for run in row.iter_mut() {
            let label = self.join(NO_LABEL, &above[index.touching(run.start, run.end, reach)]);
            run.label = self.label_run(run, label, at);
        }
    }

    /// Joins `label` (a root, or [`NO_LABEL`]) with the classes of the runs
    /// `touching`; returns the root of the joined class ([`NO_LABEL`] when
    /// both are empty).
    ///
    /// With few data-dependent branches: at g = 1 how many runs touch a
    /// run (0 to 3) is a coin toss, and a loop over them mispredicted about
    /// once per run. The first and the last touching runs are joined
    /// unconditionally (with one touching run, a class with itself), and
    /// those between them in a loop that is almost never entered.
    #[inline(always)]
    pub(super) fn join(&mut self, label: u32, touching: &[Run]) -> u32 {
        let (Some(first), Some(last)) = (touching.first(), touching.last()) else {
            return label;
        };
        let (first, last) = (self.find(first.label), self.find(last.label));
        let mut joined = self.union(first, last);
        // None (1 > len - 1) unless three or more touch.
        for other in touching.get(1..touching.len() - 1).unwrap_or_default() {
            let root = self.find(other.label);
            joined = self.union(joined, root);
        }
        if label == NO_LABEL {
            joined
        } else {
            // The unions above may have linked `label` under another root.
            let label = self.find(label);
            self.union(label, joined)
        }
    }

    /// Joins `label` (a root, or [`NO_LABEL`]) with the class of `member`
    /// (any label of it); returns the root of the joined class.
    #[inline(always)]
    pub(super) fn join_class(&mut self, label: u32, member: u32) -> u32 {
        let root = self.find(member);
        if label == NO_LABEL {
            root
        } else {
            // `find` halves paths below roots only: `label` is still a root.
            self.union(label, root)
        }
    }

    /// The label of `run` at `at`, whose joined class has root `label`:
    /// a new class where that is [`NO_LABEL`]; with `MEASURE`, the run's
    /// features added to its class.
    #[inline(always)]
    pub(super) fn label_run(&mut self, run: &Run, label: u32, at: F::Row) -> u32 {
        if label == NO_LABEL {
            let label = self.parent.len() as u32;
            self.parent.push(label);
            if MEASURE {
                self.stats.push(F::of_run(run.start, run.end - 1, at));
            }
            label
        } else {
            if MEASURE {
                self.stats[label as usize].merge(&F::of_run(run.start, run.end - 1, at));
            }
            label
        }
    }

    /// The root of `label`'s class, halving the path on the way.
    #[inline(always)]
    pub(super) fn find(&mut self, mut label: u32) -> u32 {
        loop {
            let parent = self.parent[label as usize];
            if parent == label {
                return label;
            }
            let grandparent = self.parent[parent as usize];
            self.parent[label as usize] = grandparent;
            label = grandparent;
        }
    }

    /// Merges the classes of roots `a` and `b` under the smaller; returns
    /// it. Labeling links without a branch (a root linked to itself stays a
    /// root); analysis moves the features only between two classes.
    #[inline(always)]
    fn union(&mut self, a: u32, b: u32) -> u32 {
        let (low, high) = (a.min(b), a.max(b));
        if MEASURE {
            if a == b {
                return a;
            }
            let moved = self.stats[high as usize];
            self.stats[low as usize].merge(&moved);
        }
        self.parent[high as usize] = low;
        low
    }

    /// Points every label straight at its root: parents come before their
    /// children, so one pass in label order sees each parent final.
    pub(super) fn flatten(&mut self) {
        for label in 0..self.parent.len() {
            let parent = self.parent[label] as usize;
            self.parent[label] = self.parent[parent];
        }
    }
}
