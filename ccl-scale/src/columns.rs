//! The features of every component merged across strips straight into
//! columns (one array per feature, as numpy and dataframes take them),
//! without the whole image's [`LargeStats`] in between: tens of millions of
//! components are gigabytes, and memory written for the first time costs
//! its page faults, so the features are written once, where they end up,
//! on every thread of the host's pool.

use rayon::prelude::*;

use crate::merge::{LargeStats, Numbering, Scan, check_features, split_into};
use ccl::Result;
use ccl_core::pages;

/// Labels of a strip per task of the fill: enough to outweigh a task's
/// cost, few enough that a strip of millions of components is spread over
/// every thread.
const LABELS_PER_TASK: u32 = 1 << 16;

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

/// One row of the columns, borrowed: a task's share of each column.
struct Rows<'a, A> {
    areas: &'a mut [A],
    mins: &'a mut [u32],
    maxs: &'a mut [u32],
    sums: &'a mut [u64],
    centroids: &'a mut [f64],
}

impl<A: Copy> Rows<'_, A> {
    /// Writes `stats` into row `row` of this share, its area as `area`
    /// makes it.
    fn write(&mut self, row: usize, stats: &LargeStats, axes: usize, area: fn(u64) -> A) {
        self.areas[row] = area(stats.area);
        self.mins[3 * row..3 * row + 3].copy_from_slice(&stats.min);
        self.maxs[3 * row..3 * row + 3].copy_from_slice(&stats.max);
        self.sums[3 * row..3 * row + 3].copy_from_slice(&stats.sum);
        let centroid = stats.centroid();
        self.centroids[axes * row..axes * (row + 1)].copy_from_slice(&centroid[..axes]);
    }
}

/// A run of labels `first..end` of one strip, whose new components take
/// rows `row..row + rows`.
struct Task {
    strip: usize,
    first: u32,
    end: u32,
    rows: usize,
}

/// The features of `scans`' components numbered by `numbering`, as columns
/// over the first `axes` axes, each area made `A` by `area`.
///
/// A strip's new components take consecutive numbers, so each run of a
/// strip's labels fills consecutive rows, found from how many of the
/// strip's continued labels lie below it: every run is a task of its own on
/// the pool. The labels that continue a component numbered before are then
/// added to its row, one strip after another, and those rows' centroids
/// made again.
pub(crate) fn merge_columns<A: Copy + Default + Send + Sync + Into<u64>>(
    numbering: &Numbering,
    scans: &[Scan],
    axes: usize,
    area: fn(u64) -> A,
) -> Result<FeatureColumns<A>> {
    merge_in_tasks(numbering, scans, axes, area, LABELS_PER_TASK)
}

/// [`merge_columns`] in tasks of `labels_per_task` labels of a strip.
fn merge_in_tasks<A: Copy + Default + Send + Sync + Into<u64>>(
    numbering: &Numbering,
    scans: &[Scan],
    axes: usize,
    area: fn(u64) -> A,
    labels_per_task: u32,
) -> Result<FeatureColumns<A>> {
    check_features(scans)?;
    let count = numbering.count as usize;
    let tasks: Vec<Task> = numbering
        .strips
        .iter()
        .zip(scans)
        .enumerate()
        .flat_map(|(strip, (renumbering, scan))| {
            let continued = &renumbering.continued;
            let below = move |label: u32| continued.partition_point(|&l| l < label);
            (1..=scan.count)
                .step_by(labels_per_task as usize)
                .map(move |first| {
                    let end = first.saturating_add(labels_per_task).min(scan.count + 1);
                    let rows = (end - first) as usize - (below(end) - below(first));
                    Task {
                        strip,
                        first,
                        end,
                        rows,
                    }
                })
        })
        .collect();
    assert_eq!(
        tasks.iter().map(|task| task.rows).sum::<usize>(),
        count,
        "the strips' new components are the count"
    );
    // Zeroed allocations are mapped, not written, until the fill below
    // touches them (on the pool's threads), in huge pages where it can.
    let mut columns = FeatureColumns {
        areas: pages::zeroed(count),
        mins: pages::zeroed(3 * count),
        maxs: pages::zeroed(3 * count),
        sums: pages::zeroed(3 * count),
        centroids: pages::zeroed(axes * count),
    };
    let lengths = || tasks.iter().map(|task| task.rows);
    let times = |per_row: usize| lengths().map(move |rows| rows * per_row);
    let shares = split_into(&mut columns.areas, lengths())
        .into_iter()
        .zip(split_into(&mut columns.mins, times(3)))
        .zip(split_into(&mut columns.maxs, times(3)))
        .zip(split_into(&mut columns.sums, times(3)))
        .zip(split_into(&mut columns.centroids, times(axes)))
        .map(|((((areas, mins), maxs), sums), centroids)| Rows {
            areas,
            mins,
            maxs,
            sums,
            centroids,
        });
    let filled: Vec<(Rows<'_, A>, &Task)> = shares.zip(&tasks).collect();
    filled.into_par_iter().for_each(|(mut rows, task)| {
        let continued = &numbering.strips[task.strip].continued;
        let stats = &scans[task.strip].stats;
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
    });
    for (renumbering, scan) in numbering.strips.iter().zip(scans) {
        for (&label, &number) in renumbering.continued.iter().zip(&renumbering.numbers) {
            let row = number as usize - 1;
            let mut merged = columns.row(row);
            merged.merge(&scan.stats[label as usize - 1]);
            let mut rows = Rows {
                areas: &mut columns.areas,
                mins: &mut columns.mins,
                maxs: &mut columns.maxs,
                sums: &mut columns.sums,
                centroids: &mut columns.centroids,
            };
            rows.write(row, &merged, axes, area);
        }
    }
    Ok(columns)
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

impl<A: Copy + Into<u64>> FeatureColumns<A> {
    /// Row `row` as [`LargeStats`].
    fn row(&self, row: usize) -> LargeStats {
        let three = |column: &[u32]| [column[3 * row], column[3 * row + 1], column[3 * row + 2]];
        LargeStats {
            area: self.areas[row].into(),
            min: three(&self.mins),
            max: three(&self.maxs),
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
                stats: features(count as usize),
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
        for axes in [2, 3] {
            let expected = FeatureColumns::of_stats(&merged, axes, |a| a);
            for labels_per_task in [1, 2, 3, 7, LABELS_PER_TASK] {
                let columns =
                    merge_in_tasks(&numbering, &scans, axes, |a| a, labels_per_task).unwrap();
                assert_eq!(columns, expected, "{axes} axes, tasks of {labels_per_task}");
            }
        }
        let narrow = merge_columns(&numbering, &scans, 2, |a| a as u32).unwrap();
        assert_eq!(narrow, FeatureColumns::of_stats(&merged, 2, |a| a as u32));
    }
}
