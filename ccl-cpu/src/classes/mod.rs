//! Labeling of class maps ("multilabel", as cc3d's `connected_components`):
//! two pixels or voxels are connected when they are neighbours and hold the
//! same nonzero value, so each class's components are found apart and two
//! classes never merge, however they touch.
//!
//! Run-based: each row is cut into runs (maximal spans along x of one
//! nonzero value), each run joins the runs of its value that touch it in
//! the rows before it (a union-find forest over runs), and the roots are
//! numbered in raster order. Work and memory follow the number of runs,
//! and a run's pixels are touched twice: once to find it, once to write it.
//! The runs and the pairs to join are found from bit masks, 64 values at a
//! time ([`row_masks`]); the value-by-value labeler kept here for the unit
//! tests is the reference they are held to. A map that `cpu-rle` would
//! label on rayon's pool (`worth_the_pool`, by its values) is labeled there
//! too: the rows' masks, runs and joins (into a forest of atomic parents),
//! the roots' numbering and the label rows, all on every thread. The same
//! labels either way; on the GPU machine's 16 host cores about a fifth
//! of the time the labeler took on one thread (two A/B steps, geometric
//! means 0.32 and 0.69), and under a third of cc3d's, on 2048² maps of 4
//! classes (`bench/2026-11-29-cpu-classes-pool`).
//!
//! # Which earlier rows a run meets
//!
//! A run in row `y` of slice `z` spans columns `[s, e]`. The pixels before
//! it in its own row are another value or background (runs are maximal), so
//! it only meets runs of earlier rows: row `y + dy` of slice `z + dz`, where
//! a run there spanning `[s', e']` touches it when `s' <= e + t` and
//! `e' + t >= s`, `t` being how far the neighbour offsets of that row reach
//! along x (0: `dx = 0` only, overlapping columns; 1: `|dx| <= 1`).
//!
//! | connectivity | `(dy, dz)` → `t`                                    | earlier neighbours |
//! |--------------|-----------------------------------------------------|--------------------|
//! | 4            | `(-1, 0)` → 0                                       | 1 + left           |
//! | 8            | `(-1, 0)` → 1                                       | 3 + left           |
//! | 6            | `(-1, 0)` → 0, `(0, -1)` → 0                        | 2 + left           |
//! | 18           | `(-1, 0)` → 1, `(-1, -1)` → 0, `(0, -1)` → 1, `(1, -1)` → 0 | 8 + left   |
//! | 26           | `(-1, 0)`, `(-1, -1)`, `(0, -1)`, `(1, -1)`, all → 1 | 12 + left         |
//!
//! 18 keeps the neighbours whose offsets have at most two nonzero
//! coordinates: in the plane, all 8 (`dz = 0`); in the slice before, the
//! face neighbour and its 4 edge neighbours (`dy = 0, |dx| <= 1` and
//! `|dy| = 1, dx = 0`), not the 4 corners. With the left neighbour (in
//! the same run, or of another value), each count is half of the
//! connectivity's neighbours: the other half come later in raster order
//! and meet this run when their own runs look back.

#[cfg(test)]
use ccl_core::MinRootForest as Forest;
use ccl_core::{ClassLabels, ClassMap, ClassValue, Connectivity, Error, LabelVolume, Result};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

mod row_masks;

/// One run: columns `start..=end` of one row, all of `value` (nonzero).
#[derive(Clone, Copy, Debug)]
struct Run<T> {
    // `u32`: a map has fewer than `u32::MAX` voxels, and a run of a byte
    // map then fits 12 bytes, not 24.
    start: u32,
    end: u32,
    value: T,
}

/// Labels a class map: 0 for background (value 0), and each component (the
/// pixels or voxels of one nonzero value connected through neighbours of
/// that value) numbered 1..=N in raster order (z, then y, then x) of its
/// first voxel, the numbering of `scipy.ndimage.label` and of cc3d's
/// multilabel output once renumbered in raster order. `classes[i]` is the
/// value of component `i + 1`.
///
/// 4 and 8 are for images (maps of depth 1); 6, 18 and 26 for volumes of
/// any depth, an image included (6 then acts as 4, 18 and 26 as 8).
///
/// ```
/// use ccl_core::{ClassMap, Connectivity};
/// use ccl_cpu::label_classes;
///
/// // Class 1 on the left, class 2 on the right, touching: two components
/// // where a binary labeling would find one; class 1's two pixels on the
/// // bottom row meet only diagonally.
/// let values: [u8; 8] = [1, 1, 2, 2,
///                        0, 0, 1, 2];
/// let map = ClassMap::image(&values, 4, 2)?;
///
/// let four = label_classes(&map, Connectivity::Four)?;
/// assert_eq!(four.labels.labels(), &[1, 1, 2, 2,
///                                    0, 0, 3, 2]);
/// assert_eq!(four.classes, [1, 2, 1]);
///
/// let eight = label_classes(&map, Connectivity::Eight)?;
/// assert_eq!(eight.labels.labels(), &[1, 1, 2, 2,
///                                     0, 0, 1, 2]);
/// assert_eq!(eight.classes, [1, 2]);
/// # Ok::<(), ccl_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for 4 or 8 on a map of depth other than 1.
pub fn label_classes<T: ClassValue>(
    map: &ClassMap<'_, T>,
    connectivity: Connectivity,
) -> Result<ClassLabels<T>> {
    let (width, height, depth) = (map.width(), map.height(), map.depth());
    check_image_connectivity(map, connectivity)?;
    if map.is_empty() {
        // Checked before any per-row work: a 0-wide map may still claim
        // more rows than could be allocated for.
        return Ok(ClassLabels {
            labels: LabelVolume::new(width, height, depth, Vec::new())?,
            classes: Vec::new(),
        });
    }
    // Memory the allocator or the OS has zeroed already, so only runs are
    // written: measured faster than writing every label, background
    // included, in one sweep. Advised for huge pages before its first
    // write, as `cpu-rle`'s labels are: a page fault per 4 KiB of a fresh
    // label image cost more than the writes.
    let mut labels = ccl_core::pages::zeroed::<u32>(map.values().len());
    let classes = label_map_into::<T, true>(map, connectivity, &mut labels);
    Ok(ClassLabels {
        labels: LabelVolume::new(width, height, depth, labels)?,
        classes,
    })
}

/// [`label_classes`] into the caller's `labels` (one per value of the map,
/// in its order; every one is written, background too), so that nothing
/// is allocated for them: a numpy caller's array, or one buffer reused
/// from map to map. Returns the classes, `classes[i]` the value of
/// component `i + 1`.
///
/// ```
/// use ccl_core::{ClassMap, Connectivity};
/// use ccl_cpu::label_classes_into;
///
/// let values: [u8; 4] = [1, 2, 0, 2];
/// let mut labels = [9; 4]; // any contents: all are overwritten
/// let map = ClassMap::image(&values, 4, 1)?;
/// let classes = label_classes_into(&map, Connectivity::Four, &mut labels)?;
/// assert_eq!((labels, classes), ([1, 2, 0, 3], vec![1, 2, 2]));
/// # Ok::<(), ccl_core::Error>(())
/// ```
///
/// # Errors
/// As [`label_classes`]; [`Error::InvalidDimensions`] where `labels` does
/// not hold one label per value.
pub fn label_classes_into<T: ClassValue>(
    map: &ClassMap<'_, T>,
    connectivity: Connectivity,
    labels: &mut [u32],
) -> Result<Vec<T>> {
    check_image_connectivity(map, connectivity)?;
    if labels.len() != map.values().len() {
        return Err(Error::InvalidDimensions(format!(
            "{} labels for a class map of {} values",
            labels.len(),
            map.values().len()
        )));
    }
    if map.is_empty() {
        return Ok(Vec::new());
    }
    Ok(label_map_into::<T, false>(map, connectivity, labels))
}

/// An error for an image's connectivity (4, 8) on a map of depth other
/// than 1 (`ccl_core::check_connectivity` checks a variant's list instead).
fn check_image_connectivity<T: ClassValue>(
    map: &ClassMap<'_, T>,
    connectivity: Connectivity,
) -> Result<()> {
    let depth = map.depth();
    if connectivity.dimensions() == 2 && depth != 1 {
        return Err(Error::InvalidArgument(format!(
            "{connectivity}-connectivity is an image's, but this class map is a volume of depth \
             {depth}; label volumes with 6, 18 or 26"
        )));
    }
    Ok(())
}

/// The labels of a map with values into `labels` (one per value; with
/// `ZEROED` all 0 already, and background is skipped) and its classes.
fn label_map_into<T: ClassValue, const ZEROED: bool>(
    map: &ClassMap<'_, T>,
    connectivity: Connectivity,
    labels: &mut [u32],
) -> Vec<T> {
    let (width, height, depth) = (map.width(), map.height(), map.depth());
    let values = map.values();
    // On rayon's pool where `cpu-rle` would label a binary image of as
    // many pixels there.
    let parallel = crate::rle::worth_the_pool(values.len());
    let pairs = row_pairs(height, depth, connectivity);
    let (runs, row_starts, parents) = row_masks::label_map(values, width, pairs, parallel);
    write_labels::<T, ZEROED>(parents, &runs, &row_starts, labels, width, parallel)
}

/// The runs of every row, where each row's runs begin, and the forest over
/// the runs with every touching pair of one value joined: each run joins
/// the runs of its value that touch it in the rows before it (the module's
/// table), row after row, value by value: the reference of the unit tests.
#[cfg(test)]
fn label_runs<T: ClassValue>(
    values: &[T],
    width: usize,
    height: usize,
    depth: usize,
    connectivity: Connectivity,
) -> (Vec<Run<T>>, Vec<usize>, Forest) {
    let (runs, row_starts) = find_runs(values, width);
    let mut forest = Forest::new(runs.len());
    let rows = |row: usize| row_starts[row]..row_starts[row + 1];
    for (row, earlier, reach) in row_pairs(height, depth, connectivity) {
        join_rows(&runs, rows(row), rows(earlier), reach, &mut forest);
    }
    (runs, row_starts, forest)
}

/// Every row of a map and each earlier row it meets, as `(row, earlier,
/// reach)`: rows counted over the whole map (`z * height + y`), in raster
/// order of the first, from the connectivity's table ([`earlier_rows`]).
fn row_pairs(
    height: usize,
    depth: usize,
    connectivity: Connectivity,
) -> impl Iterator<Item = (usize, usize, u32)> {
    let earlier = earlier_rows(connectivity);
    (0..depth).flat_map(move |z| {
        (0..height).flat_map(move |y| {
            earlier.iter().filter_map(move |&(dy, dz, reach)| {
                let (ny, nz) = (y.checked_add_signed(dy)?, z.checked_add_signed(dz)?);
                (ny < height).then_some((z * height + y, nz * height + ny, reach))
            })
        })
    })
}

/// The earlier rows a run meets, as `(dy, dz, reach)`: row `y + dy` of
/// slice `z + dz` (every such row comes before the run's in raster order,
/// `dy = 1` included, being in the slice before), and how far along x the
/// neighbour offsets into it reach. The table of the module's docs.
fn earlier_rows(connectivity: Connectivity) -> &'static [(isize, isize, u32)] {
    match connectivity {
        Connectivity::Four => &[(-1, 0, 0)],
        Connectivity::Eight => &[(-1, 0, 1)],
        Connectivity::Six => &[(-1, 0, 0), (0, -1, 0)],
        Connectivity::Eighteen => &[(-1, 0, 1), (-1, -1, 0), (0, -1, 1), (1, -1, 0)],
        Connectivity::TwentySix => &[(-1, 0, 1), (-1, -1, 1), (0, -1, 1), (1, -1, 1)],
    }
}

/// The runs of every row in raster order, and where each row's runs begin:
/// row `r`'s are `runs[row_starts[r]..row_starts[r + 1]]`.
#[cfg(test)]
fn find_runs<T: ClassValue>(values: &[T], width: usize) -> (Vec<Run<T>>, Vec<usize>) {
    let mut runs = Vec::new();
    let mut row_starts = Vec::with_capacity(values.len() / width + 1);
    row_starts.push(0);
    for row in values.chunks_exact(width) {
        let mut x = 0;
        while x < width {
            let value = row[x];
            if value == T::BACKGROUND {
                x += 1;
                continue;
            }
            let start = x;
            while x + 1 < width && row[x + 1] == value {
                x += 1;
            }
            runs.push(Run {
                start: start as u32,
                end: x as u32,
                value,
            });
            x += 1;
        }
        row_starts.push(runs.len());
    }
    (runs, row_starts)
}

/// Joins each run of `current` with the runs of `earlier` (an earlier row)
/// of its value that it touches, `reach` columns apart at most.
///
/// Both rows' runs are sorted by column, so one pointer into `earlier`
/// moves forward only: a run that ends before the current run's reach ends
/// before every later current run's, too.
#[cfg(test)]
fn join_rows<T: ClassValue>(
    runs: &[Run<T>],
    current: std::ops::Range<usize>,
    earlier: std::ops::Range<usize>,
    reach: u32,
    forest: &mut Forest,
) {
    let mut first = earlier.start;
    for i in current {
        let run = runs[i];
        while first < earlier.end && runs[first].end + reach < run.start {
            first += 1;
        }
        for (j, other) in runs[first..earlier.end].iter().enumerate() {
            if other.start > run.end + reach {
                break;
            }
            if other.value == run.value {
                forest.union(i as u32, (first + j) as u32);
            }
        }
    }
}

/// The labels of a map into `labels` (one per value, `width` a row; with
/// `ZEROED` all 0 already, and only runs are written, else background
/// too), and the class of every label, from the runs' forest (`parents`:
/// each run's parent): roots are their component's first run (union keeps
/// the smaller index), so numbering them as they are met in raster order
/// numbers components by their first voxel. A non-root's parent comes
/// before it, so by the time a run is met its parent's entry already holds
/// the parent's label, which is the run's: one pass, no `find`, and the
/// forest's own memory becomes the runs' labels. On one thread each row's
/// pixels are written as its runs are numbered; with `parallel` the runs
/// are numbered first ([`number_on_pool`]) and the rows written, both on
/// rayon's pool.
fn write_labels<T: ClassValue, const ZEROED: bool>(
    parents: Vec<u32>,
    runs: &[Run<T>],
    row_starts: &[usize],
    labels: &mut [u32],
    width: usize,
    parallel: bool,
) -> Vec<T> {
    if parallel {
        let (run_labels, classes) = number_on_pool(&parents, runs);
        labels
            .par_chunks_exact_mut(width.max(1))
            .zip(row_starts.par_windows(2))
            .with_min_len(row_masks::MIN_POOL_ROWS)
            .for_each(|(row_labels, row_runs)| {
                let row_runs = row_runs[0]..row_runs[1];
                fill_row::<T, ZEROED>(row_labels, &runs[row_runs.clone()], &run_labels[row_runs]);
            });
        return classes;
    }
    let mut run_labels = parents;
    let mut classes = Vec::new();
    let rows = labels
        .chunks_exact_mut(width.max(1))
        .zip(row_starts.windows(2));
    for (row_labels, row_runs) in rows {
        let row_runs = row_runs[0]..row_runs[1];
        number_in_order(&mut run_labels, runs, row_runs.clone(), &mut classes);
        fill_row::<T, ZEROED>(row_labels, &runs[row_runs.clone()], &run_labels[row_runs]);
    }
    classes
}

/// Numbers the runs `indices` in order (a forest's parents in
/// `run_labels`, every run before them numbered already): a root takes
/// the next label and its class goes to `classes`; any other run its
/// parent's label, set before it since a parent comes first.
fn number_in_order<T: ClassValue>(
    run_labels: &mut [u32],
    runs: &[Run<T>],
    indices: std::ops::Range<usize>,
    classes: &mut Vec<T>,
) {
    for i in indices {
        let parent = run_labels[i] as usize;
        run_labels[i] = if parent == i {
            classes.push(runs[i].value);
            // At most one component per voxel, and a map has at most
            // `MAX_PIXELS` (< u32::MAX) voxels: the count fits.
            classes.len() as u32
        } else {
            run_labels[parent]
        };
    }
}

/// `items` cut into consecutive parts of `lengths` (which sum to at most
/// its length), each its own mutable slice: a part per row or chunk that
/// the pool's threads fill at once.
fn split_by_lengths<T>(items: &mut [T], lengths: impl IntoIterator<Item = usize>) -> Vec<&mut [T]> {
    let mut rest = items;
    lengths
        .into_iter()
        .map(|length| {
            let (part, after) = std::mem::take(&mut rest).split_at_mut(length);
            rest = after;
            part
        })
        .collect()
}

/// The runs' labels and the components' classes of the forest `parents`
/// over `runs`, as [`write_labels`]' pass on one thread numbers them, on
/// rayon's pool, in chunks of runs: the roots counted per chunk, then
/// ranked (their labels, and their classes in place) from each chunk's
/// offset, then every other run given its root's label. A run whose parent
/// is in its own chunk takes the parent's label, set before it (a parent
/// comes first); one whose parent is in an earlier chunk walks to the
/// root, whose label is set already.
fn number_on_pool<T: ClassValue>(parents: &[u32], runs: &[Run<T>]) -> (Vec<u32>, Vec<T>) {
    const MIN_CHUNK_RUNS: usize = 1 << 14;
    let chunk = parents
        .len()
        .div_ceil(4 * rayon::current_num_threads())
        .max(MIN_CHUNK_RUNS);
    let is_root = |start: usize, part: &[u32], k: usize| part[k] as usize == start + k;
    let counts: Vec<usize> = parents
        .par_chunks(chunk)
        .enumerate()
        .map(|(c, part)| {
            (0..part.len())
                .filter(|&k| is_root(c * chunk, part, k))
                .count()
        })
        .collect();
    let mut offsets = Vec::with_capacity(counts.len());
    let mut total = 0;
    for &count in &counts {
        offsets.push(total);
        total += count;
    }
    let mut classes = vec![T::BACKGROUND; total];
    let class_parts = split_by_lengths(&mut classes, counts.iter().copied());
    // Atomic, so that a run may read a root's label in another chunk while
    // that chunk's runs are written (relaxed: the roots' labels are all
    // stored before the pass that reads them begins).
    let labels: Vec<AtomicU32> = (0..parents.len())
        .into_par_iter()
        .map(|_| AtomicU32::new(0))
        .collect();
    labels
        .par_chunks(chunk)
        .zip(parents.par_chunks(chunk))
        .zip(class_parts)
        .enumerate()
        .for_each(|(c, ((out, part), classes))| {
            let start = c * chunk;
            // At most one component per voxel, and a map has at most
            // `MAX_PIXELS` (< u32::MAX) voxels: the count fits.
            let mut rank = offsets[c] as u32;
            let mut classes = classes.iter_mut();
            for k in (0..part.len()).filter(|&k| is_root(start, part, k)) {
                rank += 1;
                out[k].store(rank, Ordering::Relaxed);
                *classes.next().expect("a class for each root") = runs[start + k].value;
            }
        });
    labels
        .par_chunks(chunk)
        .zip(parents.par_chunks(chunk))
        .enumerate()
        .for_each(|(c, (out, part))| {
            let start = c * chunk;
            for (k, &parent) in part.iter().enumerate() {
                let parent = parent as usize;
                if parent == start + k {
                    continue;
                }
                let label = if parent >= start {
                    out[parent - start].load(Ordering::Relaxed)
                } else {
                    let mut root = parent;
                    while parents[root] as usize != root {
                        root = parents[root] as usize;
                    }
                    labels[root].load(Ordering::Relaxed)
                };
                out[k].store(label, Ordering::Relaxed);
            }
        });
    let labels = labels.into_iter().map(AtomicU32::into_inner).collect();
    (labels, classes)
}

/// A row's labels: each of its runs filled with its label (`run_labels`,
/// one per run), and with `ZEROED` nothing else, else background 0 too.
fn fill_row<T: ClassValue, const ZEROED: bool>(
    row_labels: &mut [u32],
    runs: &[Run<T>],
    run_labels: &[u32],
) {
    // The first pixel of the row not written yet.
    let mut unwritten = 0;
    for (run, &label) in runs.iter().zip(run_labels) {
        let (start, end) = (run.start as usize, run.end as usize);
        if !ZEROED {
            row_labels[unwritten..start].fill(0);
        }
        row_labels[start..=end].fill(label);
        unwritten = end + 1;
    }
    if !ZEROED {
        row_labels[unwritten..].fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_rows_hold_half_of_each_connectivity() {
        // Each row reaching `t` columns holds `1 + 2t` neighbours; with the
        // left one (in the run itself) that is half of the connectivity.
        for c in Connectivity::PLANE.into_iter().chain(Connectivity::VOLUME) {
            let count: usize = earlier_rows(c)
                .iter()
                .map(|&(_, _, t)| 1 + 2 * t as usize)
                .sum();
            assert_eq!((count + 1) * 2, c.neighbours() as usize, "{c}");
        }
    }

    /// The pool's numbering over a forest of many chunks, whose parents
    /// lie anywhere before their runs (in their chunk or in an earlier
    /// one, some paths long), equals the one-thread pass.
    #[test]
    fn numbering_on_the_pool_equals_the_one_thread_pass() {
        let mut numbers = ccl_testdata::Xorshift32::new(0x5eed_0044);
        let count = 200_000u32;
        let parents: Vec<u32> = (0..count)
            .map(|i| {
                if i == 0 || numbers.below(4) == 0 {
                    i
                } else {
                    numbers.below(i)
                }
            })
            .collect();
        let runs: Vec<Run<u16>> = (0..count)
            .map(|i| Run {
                start: 0,
                end: 0,
                value: (i % 7 + 1) as u16,
            })
            .collect();
        let mut expected = parents.clone();
        let mut classes = Vec::new();
        number_in_order(&mut expected, &runs, 0..runs.len(), &mut classes);
        assert_eq!(number_on_pool(&parents, &runs), (expected, classes));
    }

    #[test]
    fn runs_split_where_the_value_changes() {
        let values: [i16; 7] = [0, 3, 3, -3, 0, 0, 3];
        let (runs, row_starts) = find_runs(&values, 7);
        let spans: Vec<_> = runs.iter().map(|r| (r.start, r.end, r.value)).collect();
        assert_eq!(spans, [(1, 2, 3), (3, 3, -3), (6, 6, 3)]);
        assert_eq!(row_starts, [0, 3]);
    }

    /// The images' masks find the runs and components that the runs'
    /// value-by-value joins find, on widths around the 64-value words.
    #[test]
    fn image_masks_equal_the_run_joins() {
        let mut numbers = ccl_testdata::Xorshift32::new(0x5eed_0042);
        for width in [1, 2, 3, 63, 64, 65, 127, 128, 130, 200] {
            for height in [1, 2, 17] {
                for (density, classes, granularity) in
                    [(30, 4, 1), (60, 2, 1), (90, 4, 2), (75, 1, 3)]
                {
                    let cells: Vec<u8> = (0..width * height)
                        .map(|_| {
                            if numbers.below(100) < density {
                                1 + numbers.below(classes) as u8
                            } else {
                                0
                            }
                        })
                        .collect();
                    let values: Vec<u8> = (0..width * height)
                        .map(|i| {
                            let (x, y) = (i % width / granularity, i / width / granularity);
                            cells[y * width + x]
                        })
                        .collect();
                    let case = format!("{width}x{height}, {density} %");
                    masks_equal_joins(&values, width, height, &Connectivity::PLANE, &case);
                    // Wider values, negative ones among them.
                    let wide: Vec<i32> = values.iter().map(|&v| -70_000 * i32::from(v)).collect();
                    masks_equal_joins(&wide, width, height, &Connectivity::PLANE, &case);
                }
            }
        }
    }

    /// The same on volumes, in 6, 18 and 26.
    #[test]
    fn volume_masks_equal_the_run_joins() {
        let mut numbers = ccl_testdata::Xorshift32::new(0x5eed_0043);
        for (width, height, depth) in [(1, 1, 5), (3, 4, 5), (65, 3, 4), (64, 9, 7), (130, 5, 3)] {
            for (density, classes) in [(30, 4), (60, 2), (90, 4), (75, 1)] {
                let values: Vec<u8> = (0..width * height * depth)
                    .map(|_| {
                        if numbers.below(100) < density {
                            1 + numbers.below(classes) as u8
                        } else {
                            0
                        }
                    })
                    .collect();
                let case = format!("{width}x{height}x{depth}, {density} %");
                masks_equal_joins(&values, width, height, &Connectivity::VOLUME, &case);
                let wide: Vec<i32> = values.iter().map(|&v| -70_000 * i32::from(v)).collect();
                masks_equal_joins(&wide, width, height, &Connectivity::VOLUME, &case);
            }
        }
    }

    fn masks_equal_joins<T: ClassValue>(
        values: &[T],
        width: usize,
        height: usize,
        connectivities: &[Connectivity],
        case: &str,
    ) {
        let depth = values.len() / (width * height);
        for &connectivity in connectivities {
            let (expected_runs, expected_starts, expected_forest) =
                label_runs(values, width, height, depth, connectivity);
            let mut expected_labels = vec![u32::MAX; values.len()];
            let expected_classes = write_labels::<T, false>(
                expected_forest.into_parents(),
                &expected_runs,
                &expected_starts,
                &mut expected_labels,
                width,
                false,
            );
            let spans = |runs: &[Run<T>]| -> Vec<(u32, u32, T)> {
                runs.iter().map(|r| (r.start, r.end, r.value)).collect()
            };
            // On this thread and on the pool, whatever the map's size.
            for parallel in [false, true] {
                let pairs = row_pairs(height, depth, connectivity);
                let (runs, starts, parents) = row_masks::label_map(values, width, pairs, parallel);
                let case = format!(
                    "{case}, {connectivity}, {}, parallel {parallel}",
                    std::any::type_name::<T>()
                );
                assert_eq!(spans(&runs), spans(&expected_runs), "{case}");
                assert_eq!(starts, expected_starts, "{case}");
                // The masks' forest written over zeroed labels (background
                // skipped) and over dirty ones, the reference's over dirty ones
                // (every label written).
                let mut labels = vec![0; values.len()];
                let classes = write_labels::<T, true>(
                    parents.clone(),
                    &runs,
                    &starts,
                    &mut labels,
                    width,
                    parallel,
                );
                let mut dirty = vec![7; values.len()];
                let dirty_classes =
                    write_labels::<T, false>(parents, &runs, &starts, &mut dirty, width, parallel);
                assert_eq!(
                    (&labels, &classes),
                    (&expected_labels, &expected_classes),
                    "{case}"
                );
                assert_eq!((dirty, dirty_classes), (labels, classes), "{case}");
            }
        }
    }

    /// Into the caller's buffer: one dirty buffer reused across maps of
    /// several shapes, values and connectivities holds what a new labeling
    /// gives; a buffer of another length is refused.
    #[test]
    fn labels_into_a_reused_buffer_equal_new_labels() {
        let mut numbers = ccl_testdata::Xorshift32::new(0x0dd_ba11);
        let mut buffer: Vec<u32> = Vec::new();
        for (width, height, depth) in [(70, 9, 1), (3, 40, 1), (130, 33, 1), (17, 6, 5), (1, 1, 1)]
        {
            for density in [10, 55, 95] {
                let values: Vec<u16> = (0..width * height * depth)
                    .map(|_| {
                        if numbers.below(100) < density {
                            1 + numbers.below(3) as u16
                        } else {
                            0
                        }
                    })
                    .collect();
                let map = ClassMap::new(&values, width, height, depth).unwrap();
                let connectivities: &[Connectivity] = if depth == 1 {
                    &[
                        Connectivity::Four,
                        Connectivity::Eight,
                        Connectivity::TwentySix,
                    ]
                } else {
                    &Connectivity::VOLUME
                };
                for &connectivity in connectivities {
                    let expected = label_classes(&map, connectivity).unwrap();
                    // Stale labels of the map before, then garbage.
                    buffer.resize(values.len(), u32::MAX);
                    let classes = label_classes_into(&map, connectivity, &mut buffer).unwrap();
                    let case = format!("{width}x{height}x{depth}, {density} %, {connectivity}");
                    assert_eq!(buffer, expected.labels.labels(), "{case}");
                    assert_eq!(classes, expected.classes, "{case}");
                }
            }
        }
        let values = [1u8, 0, 2];
        let map = ClassMap::image(&values, 3, 1).unwrap();
        let error = label_classes_into(&map, Connectivity::Four, &mut [0; 4]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("4 labels for a class map of 3 values"),
            "{error}"
        );
        let volume = ClassMap::new(&values, 1, 1, 3).unwrap();
        assert!(label_classes_into(&volume, Connectivity::Four, &mut [0; 3]).is_err());
    }

    #[test]
    fn an_empty_map_has_no_components() {
        for (w, h, d) in [(0, 0, 1), (0, 5, 3), (4, 0, 2), (3, 3, 0)] {
            let map = ClassMap::<u8>::new(&[], w, h, d).unwrap();
            let labels = label_classes(&map, Connectivity::TwentySix).unwrap();
            assert_eq!(labels.component_count(), 0);
            assert!(labels.labels.labels().is_empty());
            let classes = label_classes_into(&map, Connectivity::TwentySix, &mut []).unwrap();
            assert!(classes.is_empty());
        }
    }
}
