//! The union-find forest of provisional labels that a band (rows of an
//! image) or a slab (slices of a volume) labels its runs into, and, with
//! analysis, the features of each class at its root; and the rows whose
//! runs later runs join into it.

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
    fn join(&mut self, label: u32, touching: &[Run]) -> u32 {
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
    fn join_class(&mut self, label: u32, member: u32) -> u32 {
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

    /// Labels `runs`, copies of the runs of a row with the same mask
    /// (labeled with their labels there), at `at`: each run lies under its
    /// copy and touches no other run of that row (a run that reached
    /// another diagonally would reach into it in this row too), so it joins
    /// its copy's class and nothing else there. The caller says why no
    /// other row it meets needs joining.
    #[inline(always)]
    pub(super) fn label_as_copies(&mut self, runs: &mut [Run], at: F::Row) {
        for run in runs {
            // The copy's label was a root when given, and may not be now.
            let root = self.find(run.label);
            run.label = self.label_run(run, root, at);
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

/// The runs of one row, where they start and end as masks, and, where
/// every run of the row is known to be in one class, a label of it.
pub(super) struct IndexedRow {
    /// The row's runs, left to right.
    pub runs: Vec<Run>,
    /// Where the row's runs start and end.
    pub index: RunIndex,
    /// A label whose class holds every run of the row (its root when it
    /// was found), or [`NO_LABEL`] where that is not known (or the row has
    /// no runs). Classes only ever merge, so it stays true once set; the
    /// label may stop being a root, which costs a `find`, never a wrong
    /// answer.
    pub one_class: u32,
}

impl Default for IndexedRow {
    fn default() -> Self {
        Self {
            runs: Vec::new(),
            index: RunIndex::default(),
            one_class: NO_LABEL,
        }
    }
}

impl IndexedRow {
    /// Joins `label` (a root, or [`NO_LABEL`]) with the classes of the runs
    /// of this row that `run` touches within `reach` columns; returns the
    /// root of the joined class ([`NO_LABEL`] when both are empty).
    ///
    /// Where the whole row is one class, every run of the row that `run`
    /// touches is of that class, so joining them all is joining that class
    /// once, if `run` touches any: none of the row's runs need be looked
    /// at. Where `label` is that class's label already (a root equal to
    /// [`IndexedRow::one_class`] is that class: as nearly every run's is in
    /// a dense volume, where one class spans it), nothing is joined whether
    /// `run` touches the row or not, so not even the row's index is read.
    /// (In an image a run meets one row, the row above, so `label` is
    /// always [`NO_LABEL`] there: what it saves is the touching runs' finds
    /// and unions, and the branch on how many there are.)
    #[inline(always)]
    pub(super) fn join<const MEASURE: bool, F: RunFeatures>(
        &self,
        forest: &mut Forest<MEASURE, F>,
        label: u32,
        run: &Run,
        reach: u32,
    ) -> u32 {
        if self.one_class == NO_LABEL {
            let touching = self.index.touching(run.start, run.end, reach);
            return forest.join(label, &self.runs[touching]);
        }
        if self.one_class == label || self.index.touching(run.start, run.end, reach).is_empty() {
            return label;
        }
        forest.join_class(label, self.one_class)
    }

    /// Labels `runs`, the runs of the row below in an image (this row the
    /// only one they meet), where this row's runs are not known to be one
    /// class, in two passes; with `MEASURE`, adds each run's features to
    /// its class. Whether a run touches any run here is a coin toss per run
    /// at g = 1, and a branch on it mispredicted about every other run at
    /// 30 % (a fifth of the band's profile). The first pass takes no
    /// branch: each run's touching runs are found, a run that touches none
    /// is given the next new label (its parent, and its features, written
    /// unconditionally: where the run touches, the next such run writes
    /// those entries again), and a run that touches is listed in `touching`
    /// with its range. The second joins the listed runs' classes, left to
    /// right, and adds their features. New labels stay in raster order, one
    /// per run that touches nothing, as [`Forest::label_run`] makes them,
    /// and stay roots: no union of the row reaches them.
    #[inline(always)]
    pub(super) fn label_below<const MEASURE: bool, F: RunFeatures>(
        &self,
        forest: &mut Forest<MEASURE, F>,
        runs: &mut [Run],
        reach: u32,
        at: F::Row,
        touching: &mut Vec<(u32, u32, u32)>,
    ) {
        debug_assert!(self.one_class == NO_LABEL);
        let base = forest.parent.len();
        debug_assert!(!MEASURE || forest.stats.len() == base);
        forest.parent.reserve(runs.len() + 1);
        if MEASURE {
            forest.stats.reserve(runs.len() + 1);
        }
        touching.clear();
        touching.reserve(runs.len());
        let parents = forest.parent.spare_capacity_mut();
        let features = forest.stats.spare_capacity_mut();
        let listed = touching.spare_capacity_mut();
        let (mut fresh, mut count) = (0usize, 0usize);
        for (j, run) in runs.iter_mut().enumerate() {
            let range = self.index.touching(run.start, run.end, reach);
            let touches = range.start < range.end;
            let label = (base + fresh) as u32;
            run.label = label;
            parents[fresh].write(label);
            if MEASURE {
                features[fresh].write(F::of_run(run.start, run.end - 1, at));
            }
            fresh += usize::from(!touches);
            listed[count].write((j as u32, range.start as u32, range.end as u32));
            count += usize::from(touches);
        }
        // SAFETY: entries base..base + fresh of the parents (and, with
        // MEASURE, of the features, which held `base` entries as the parents
        // did) and 0..count of the list were written above (each new label's
        // entries last by its own run; each listed run's entry by it).
        unsafe {
            forest.parent.set_len(base + fresh);
            if MEASURE {
                forest.stats.set_len(base + fresh);
            }
            touching.set_len(count);
        }
        for &(j, first, end) in touching.iter() {
            let joined = forest.join(NO_LABEL, &self.runs[first as usize..end as usize]);
            let run = &mut runs[j as usize];
            run.label = forest.label_run(run, joined, at);
        }
    }

    /// Sets [`Self::one_class`] to the label of the row's runs where they
    /// all have the same label (without a `find`, so a row whose runs are
    /// one class under several labels is not seen as one). A row's runs
    /// are labeled with the roots of their classes at the time, and a run
    /// that links a class under another root is labeled with that root: so
    /// once the row's last run is labeled, a label that every run has is
    /// still a root. Images check their rows so rather than by
    /// [`Self::find_one_class`]: a row is read once, by the row below,
    /// and where it is not one class (nearly every row at 30-70 %) the
    /// finds cost more than the few rows of one class they would add save.
    pub(super) fn find_one_label(&mut self) {
        self.one_class = match self.runs.split_first() {
            Some((first, rest)) if rest.iter().all(|run| run.label == first.label) => first.label,
            _ => NO_LABEL,
        };
    }

    /// Sets [`Self::one_class`] from the classes of the row's runs: their
    /// root where all have the same one.
    pub(super) fn find_one_class<const MEASURE: bool, F: RunFeatures>(
        &mut self,
        forest: &mut Forest<MEASURE, F>,
    ) {
        let Some((first, rest)) = self.runs.split_first() else {
            self.one_class = NO_LABEL;
            return;
        };
        let root = forest.find(first.label);
        // Runs labeled alike are one class without a `find`.
        let one_class = rest
            .iter()
            .all(|run| run.label == first.label || forest.find(run.label) == root);
        self.one_class = if one_class { root } else { NO_LABEL };
    }
}
