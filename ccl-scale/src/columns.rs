//! The features of every component merged across strips straight into
//! columns (one array per feature, as numpy and dataframes take them),
//! without the whole image's [`LargeStats`] in between: tens of millions of
//! components are gigabytes, and memory written for the first time costs
//! its page faults, so the features are written once, where they end up:
//! from the GPUs that kept a strip's features (`GpuWorker::write_columns`),
//! or from host memory on every thread of the host's pool.

use rayon::prelude::*;

use crate::merge::{LargeStats, Numbering, Scan, StripFeatures, host_features, split_into};
use crate::trace::Trace;
use ccl::Result;
use ccl_core::pages;

/// Labels of a strip per task of the fill: enough to outweigh a task's
/// cost, few enough that a strip of millions of components is spread over
/// every thread.
const LABELS_PER_TASK: u32 = 1 << 16;

/// The fewest continued labels a task of [`add_continued`] adds: 1 in unit
/// tests, so that a few joins make parts too.
const MIN_JOINS_PER_PART: usize = if cfg!(test) { 1 } else { 1 << 10 };

/// The features of every component, row `n − 1` for canonical label `n`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FeatureColumns<A> {
    /// Each component's area, of the type the caller asked for.
    pub areas: Vec<A>,
    /// Its smallest x, y, z: three per row (z is 0 in an image).
    pub mins: Vec<u32>,
    /// Its largest x, y, z (inclusive): three per row.
    pub maxs: Vec<u32>,
    /// The sums of its x, y, z coordinates: three per row.
    pub sums: Vec<u64>,
    /// Its centroid over the first `axes` axes (x, y[, z]): `axes` per
    /// row, each the exact integer sum made a float once, over the area
    /// (as numpy divides).
    pub centroids: Vec<f64>,
}

impl<A> FeatureColumns<A> {
    /// The number of components (rows).
    pub fn len(&self) -> usize {
        self.areas.len()
    }

    /// Whether there is no component.
    pub fn is_empty(&self) -> bool {
        self.areas.is_empty()
    }
}

/// Consecutive rows of the columns, borrowed: a strip's share, or a task's.
pub(crate) struct Rows<'a, A> {
    /// Their areas.
    pub(crate) areas: &'a mut [A],
    /// Their smallest x, y, z.
    pub(crate) mins: &'a mut [u32],
    /// Their largest x, y, z.
    pub(crate) maxs: &'a mut [u32],
    /// The sums of their x, y, z.
    pub(crate) sums: &'a mut [u64],
    /// Their centroids, `axes` a row.
    pub(crate) centroids: &'a mut [f64],
}

impl<'a, A: Copy> Rows<'a, A> {
    /// Writes `stats` into row `row` of these rows, its area as `area`
    /// makes it.
    fn write(&mut self, row: usize, stats: &LargeStats, axes: usize, area: fn(u64) -> A) {
        self.areas[row] = area(stats.area);
        self.mins[3 * row..3 * row + 3].copy_from_slice(&stats.min);
        self.maxs[3 * row..3 * row + 3].copy_from_slice(&stats.max);
        self.sums[3 * row..3 * row + 3].copy_from_slice(&stats.sum);
        let centroid = stats.centroid();
        self.centroids[axes * row..axes * (row + 1)].copy_from_slice(&centroid[..axes]);
    }

    /// These rows cut into consecutive parts of `lengths` rows, which cover
    /// them.
    pub(crate) fn split(
        self,
        lengths: impl IntoIterator<Item = usize> + Clone,
        axes: usize,
    ) -> Vec<Rows<'a, A>> {
        let times = |per_row: usize| lengths.clone().into_iter().map(move |rows| rows * per_row);
        split_into(self.areas, lengths.clone())
            .into_iter()
            .zip(split_into(self.mins, times(3)))
            .zip(split_into(self.maxs, times(3)))
            .zip(split_into(self.sums, times(3)))
            .zip(split_into(self.centroids, times(axes)))
            .map(|((((areas, mins), maxs), sums), centroids)| Rows {
                areas,
                mins,
                maxs,
                sums,
                centroids,
            })
            .collect()
    }
}

/// A run of labels `first..end` of one strip, whose new components take
/// rows `row..row + rows` of the strip's share.
struct Task {
    first: u32,
    end: u32,
    rows: usize,
}

/// The features of `scans`' components numbered by `numbering`, as columns
/// over the first `axes` axes, each area made `A` by `area`.
///
/// A strip's new components take consecutive numbers: each strip's share of
/// the columns is its own. The shares of strips whose features are in host
/// memory are filled here, each run of a strip's labels a task of its own on
/// the pool (its rows found from how many of the strip's continued labels
/// lie below it). The shares of strips whose features stayed on a GPU go to
/// `kept` (one entry a strip, `None` for the others), which fills them and
/// returns the features of each such strip's continued labels, in their
/// order. The labels that continue a component numbered before are then
/// added to its row, one strip after another, and those rows' centroids
/// made again.
pub(crate) fn merge_columns<A, K>(
    numbering: &Numbering,
    scans: &[Scan],
    axes: usize,
    area: fn(u64) -> A,
    kept: K,
    trace: &Trace,
) -> Result<FeatureColumns<A>>
where
    A: Copy + Default + Send + Sync + Into<u64>,
    K: for<'r> FnOnce(Vec<Option<Rows<'r, A>>>) -> Result<Vec<Vec<LargeStats>>>,
{
    merge_in_tasks(numbering, scans, axes, area, (LABELS_PER_TASK, trace), kept)
}

/// [`merge_columns`] in tasks of `labels_per_task` labels of a strip.
fn merge_in_tasks<A, K>(
    numbering: &Numbering,
    scans: &[Scan],
    axes: usize,
    area: fn(u64) -> A,
    (labels_per_task, trace): (u32, &Trace),
    kept: K,
) -> Result<FeatureColumns<A>>
where
    A: Copy + Default + Send + Sync + Into<u64>,
    K: for<'r> FnOnce(Vec<Option<Rows<'r, A>>>) -> Result<Vec<Vec<LargeStats>>>,
{
    let count = numbering.count as usize;
    let news: Vec<usize> = numbering
        .strips
        .iter()
        .zip(scans)
        .map(|(renumbering, scan)| scan.count as usize - renumbering.continued.len())
        .collect();
    assert_eq!(
        news.iter().sum::<usize>(),
        count,
        "the strips' new components are the count"
    );
    let is_kept = |s: usize| matches!(scans[s].features, StripFeatures::Kept);
    let host: Vec<Option<&[LargeStats]>> = (0..scans.len())
        .map(|s| (!is_kept(s)).then(|| host_features(scans, s)).transpose())
        .collect::<Result<_>>()?;
    // Zeroed allocations are mapped, not written, until their pages are
    // faulted in, on every thread of the pool, in huge pages where they can.
    let mut columns = trace.step("columns-fault", || {
        let mut columns = FeatureColumns {
            areas: pages::zeroed(count),
            mins: pages::zeroed(3 * count),
            maxs: pages::zeroed(3 * count),
            sums: pages::zeroed(3 * count),
            centroids: pages::zeroed(axes * count),
        };
        let rows = columns.all_rows();
        fault_in(rows.areas);
        fault_in(rows.mins);
        fault_in(rows.maxs);
        fault_in(rows.sums);
        fault_in(rows.centroids);
        columns
    });
    let continued_features = {
        let shares = columns.all_rows().split(news.iter().copied(), axes);
        let mut kept_shares = Vec::with_capacity(scans.len());
        let mut host_tasks = Vec::new();
        for (s, share) in shares.into_iter().enumerate() {
            match host[s] {
                Some(stats) => {
                    let tasks = tasks(
                        &numbering.strips[s].continued,
                        scans[s].count,
                        labels_per_task,
                    );
                    let parts =
                        share.split(tasks.iter().map(|task| task.rows).collect::<Vec<_>>(), axes);
                    host_tasks.extend(
                        parts
                            .into_iter()
                            .zip(tasks)
                            .map(|(rows, task)| (s, stats, rows, task)),
                    );
                    kept_shares.push(None);
                }
                None => kept_shares.push(Some(share)),
            }
        }
        trace.step("columns-host", || {
            host_tasks
                .into_par_iter()
                .for_each(|(s, stats, mut rows, task)| {
                    let continued = &numbering.strips[s].continued;
                    let mut next_continued = continued.partition_point(|&l| l < task.first);
                    let mut row = 0;
                    for label in task.first..task.end {
                        if continued.get(next_continued) == Some(&label) {
                            next_continued += 1;
                            continue;
                        }
                        rows.write(row, &stats[label as usize - 1], axes, area);
                        row += 1;
                    }
                    assert_eq!(row, task.rows, "a run's new labels fill its rows");
                })
        });
        let from_gpus = if kept_shares.iter().any(Option::is_some) {
            trace.step("columns-gpus", || kept(kept_shares))?
        } else {
            vec![Vec::new(); scans.len()]
        };
        if from_gpus.len() != scans.len() {
            return Err(ccl::Error::Unavailable(format!(
                "the GPUs gave the continued features of {} strips, not {}",
                from_gpus.len(),
                scans.len()
            )));
        }
        from_gpus
    };
    // Every continued label's features with the row of the component it
    // continues.
    let mut joins: Vec<(usize, &LargeStats)> = Vec::new();
    for (s, (renumbering, gpu_features)) in
        numbering.strips.iter().zip(&continued_features).enumerate()
    {
        if host[s].is_none() && gpu_features.len() != renumbering.continued.len() {
            return Err(ccl::Error::Unavailable(format!(
                "strip {s} has {} continued labels but its GPU gave features for {}",
                renumbering.continued.len(),
                gpu_features.len()
            )));
        }
        let features = renumbering
            .continued
            .iter()
            .enumerate()
            .map(|(k, &label)| match host[s] {
                Some(stats) => &stats[label as usize - 1],
                None => &gpu_features[k],
            });
        let rows = renumbering
            .numbers
            .iter()
            .map(|&number| number as usize - 1);
        joins.extend(rows.zip(features));
    }
    trace.step("columns-continued", || {
        add_continued(&mut columns, joins, axes, area)
    });
    Ok(columns)
}

/// Adds each of `joins`' features to its row, and makes those rows'
/// centroids again. Sorted by row and cut where the row changes, the joins
/// are added in parts of consecutive rows on the pool: a volume's strips
/// continue components on every border, and their rows lie all over
/// columns of gigabytes, a cache miss or more each.
/// Each row's joins are added by one task, in any order: sums, minima and
/// maxima of integers do not depend on it.
fn add_continued<A: Copy + Send + Sync + Into<u64>>(
    columns: &mut FeatureColumns<A>,
    mut joins: Vec<(usize, &LargeStats)>,
    axes: usize,
    area: fn(u64) -> A,
) {
    if joins.is_empty() {
        return;
    }
    joins.par_sort_unstable_by_key(|&(row, _)| row);
    // Parts of about `per_part` joins, each ending where its last row does.
    let per_part = joins
        .len()
        .div_ceil(4 * rayon::current_num_threads())
        .max(MIN_JOINS_PER_PART);
    let mut ends = Vec::new();
    let mut end = 0;
    while end < joins.len() {
        end = (end + per_part).min(joins.len());
        while end < joins.len() && joins[end].0 == joins[end - 1].0 {
            end += 1;
        }
        ends.push(end);
    }
    // Rows before the first part's, then each part's rows: from its first
    // join's row to the next part's (the last part's to the end).
    let mut lengths = vec![joins[0].0];
    let mut start = 0;
    for &end in &ends {
        let next = joins.get(end).map_or(columns.len(), |&(row, _)| row);
        lengths.push(next - joins[start].0);
        start = end;
    }
    let mut parts = columns.all_rows().split(lengths, axes).into_iter().skip(1);
    let mut tasks = Vec::with_capacity(ends.len());
    let mut start = 0;
    for &end in &ends {
        let rows = parts.next().expect("a part of rows for each part of joins");
        tasks.push((rows, &joins[start..end]));
        start = end;
    }
    tasks.into_par_iter().for_each(|(mut rows, joins)| {
        let base = joins[0].0;
        for &(row, features) in joins {
            let mut merged = rows.row(row - base);
            merged.merge(features);
            rows.write(row - base, &merged, axes, area);
        }
    });
}

/// Writes a zero into every page of `values`, on every thread of the pool:
/// the first write to a page maps it, and a thread copying a strip's rows
/// from the staging would wait for its pages one at a time.
fn fault_in<T: Default + Send>(values: &mut [T]) {
    let per_page = (4096 / size_of::<T>()).max(1);
    values.par_chunks_mut(per_page << 8).for_each(|part| {
        for value in part.iter_mut().step_by(per_page) {
            *value = T::default();
        }
    });
}

/// A strip's labels `1..=count` in runs of `labels_per_task`, each with the
/// rows its new labels take (`continued` ascending).
fn tasks(continued: &[u32], count: u32, labels_per_task: u32) -> Vec<Task> {
    let below = |label: u32| continued.partition_point(|&l| l < label);
    (1..=count)
        .step_by(labels_per_task as usize)
        .map(|first| {
            let end = first.saturating_add(labels_per_task).min(count + 1);
            let rows = (end - first) as usize - (below(end) - below(first));
            Task { first, end, rows }
        })
        .collect()
}

impl<A> FeatureColumns<A> {
    /// Every row, borrowed.
    fn all_rows(&mut self) -> Rows<'_, A> {
        Rows {
            areas: &mut self.areas,
            mins: &mut self.mins,
            maxs: &mut self.maxs,
            sums: &mut self.sums,
            centroids: &mut self.centroids,
        }
    }
}

impl<A> FeatureColumns<A> {
    /// The columns of `stats` (row `i` its entry `i`) over the first `axes`
    /// axes, each area made `A` by `area`: for features already merged, such
    /// as [`StripLabeler::analyze`](crate::StripLabeler::analyze) returns.
    pub fn of_stats(stats: &[LargeStats], axes: usize, area: fn(u64) -> A) -> Self {
        Self {
            areas: stats.iter().map(|s| area(s.area)).collect(),
            mins: stats.iter().flat_map(|s| s.min).collect(),
            maxs: stats.iter().flat_map(|s| s.max).collect(),
            sums: stats.iter().flat_map(|s| s.sum).collect(),
            centroids: stats
                .iter()
                .flat_map(|s| s.centroid()[..axes].to_vec())
                .collect(),
        }
    }
}

impl<A: Copy + Into<u64>> Rows<'_, A> {
    /// Row `row` of these rows as [`LargeStats`].
    fn row(&self, row: usize) -> LargeStats {
        let three = |column: &[u32]| [column[3 * row], column[3 * row + 1], column[3 * row + 2]];
        LargeStats {
            area: self.areas[row].into(),
            min: three(self.mins),
            max: three(self.maxs),
            sum: [
                self.sums[3 * row],
                self.sums[3 * row + 1],
                self.sums[3 * row + 2],
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::{Renumbering, merge_stats};

    /// Three strips whose components continue across the borders, a
    /// component continued twice (numbers 2 and 6), merged in tasks of
    /// every size from one label: the rows of the merged [`LargeStats`].
    #[test]
    fn columns_hold_the_merged_features_in_tasks_of_any_size() {
        let mut numbers = ccl_testdata::Xorshift32::new(0x9e37_79b9);
        let mut next = move || numbers.below(1000);
        let mut features = |count: usize| -> Vec<LargeStats> {
            (0..count)
                .map(|_| {
                    let (x, y, z) = (next(), next(), next());
                    let area = 1 + next() as u64;
                    LargeStats {
                        area,
                        min: [x, y, z],
                        max: [x + next(), y + next(), z + next()],
                        sum: [x as u64 * area, y as u64 * area + 7, z as u64 * area],
                    }
                })
                .collect()
        };
        let scans: Vec<Scan> = [5, 6, 4]
            .into_iter()
            .map(|count| Scan {
                count,
                first_plane_labels: 0,
                features: StripFeatures::Host(features(count as usize)),
            })
            .collect();
        // Strip 1's labels 1 and 4 continue numbers 2 and 5, strip 2's
        // labels 1, 2 and 3 numbers 6, 2 and 9.
        let renumbering = |first_new, continued: &[u32], numbers: &[u64]| Renumbering {
            first_new,
            continued: continued.to_vec(),
            numbers: numbers.to_vec(),
        };
        let numbering = Numbering {
            strips: vec![
                renumbering(1, &[], &[]),
                renumbering(6, &[1, 4], &[2, 5]),
                renumbering(10, &[1, 2, 3], &[6, 2, 9]),
            ],
            count: 10,
        };
        let merged = merge_stats(&numbering, &scans).unwrap();
        let trace = Trace::from_env();
        let no_gpu = |_: Vec<Option<Rows<'_, u64>>>| -> Result<Vec<Vec<LargeStats>>> {
            panic!("no strip's features are on a GPU")
        };
        for axes in [2, 3] {
            let expected = FeatureColumns::of_stats(&merged, axes, |a| a);
            for labels_per_task in [1, 2, 3, 7, LABELS_PER_TASK] {
                let columns = merge_in_tasks(
                    &numbering,
                    &scans,
                    axes,
                    |a| a,
                    (labels_per_task, &trace),
                    no_gpu,
                )
                .unwrap();
                assert_eq!(columns, expected, "{axes} axes, tasks of {labels_per_task}");
            }
            // Strips 1 and 2 kept on a "GPU" that fills their shares and
            // gives their continued labels' features, as a GPU worker does.
            let mut kept_scans = scans.clone();
            let mut aside = Vec::new();
            for scan in &mut kept_scans[1..] {
                match std::mem::replace(&mut scan.features, StripFeatures::Kept) {
                    StripFeatures::Host(stats) => aside.push(stats),
                    _ => unreachable!("host features above"),
                }
            }
            let gpu = |shares: Vec<Option<Rows<'_, u64>>>| {
                assert!(shares[0].is_none(), "strip 0's features are on the host");
                let mut continued = vec![Vec::new()];
                for ((mut share, stats), renumbering) in shares
                    .into_iter()
                    .skip(1)
                    .zip(&aside)
                    .zip(&numbering.strips[1..])
                {
                    let share = share.as_mut().expect("a kept strip's share");
                    let new =
                        (1..=stats.len() as u32).filter(|l| !renumbering.continued.contains(l));
                    for (row, label) in new.enumerate() {
                        share.write(row, &stats[label as usize - 1], axes, |a| a);
                    }
                    let theirs = renumbering.continued.iter();
                    continued.push(theirs.map(|&l| stats[l as usize - 1]).collect());
                }
                Ok(continued)
            };
            let columns =
                merge_in_tasks(&numbering, &kept_scans, axes, |a| a, (2, &trace), gpu).unwrap();
            assert_eq!(columns, expected, "{axes} axes, two strips kept");
            // A GPU that gives too few continued features is an error.
            let short = |shares: Vec<Option<Rows<'_, u64>>>| Ok(vec![Vec::new(); shares.len()]);
            let error = merge_in_tasks(&numbering, &kept_scans, axes, |a| a, (2, &trace), short)
                .unwrap_err();
            assert!(error.to_string().contains("strip 1"), "{error}");
        }
        let narrow = merge_columns(
            &numbering,
            &scans,
            2,
            |a| a as u32,
            |_| unreachable!(),
            &trace,
        )
        .unwrap();
        assert_eq!(narrow, FeatureColumns::of_stats(&merged, 2, |a| a as u32));
    }
}
