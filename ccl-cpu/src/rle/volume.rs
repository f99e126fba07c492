//! Volumes through the same stages: slabs of slices labeled in parallel
//! ([`super::slab`]), their forests joined across the slab borders
//! ([`super::merge`]), and labels written run by run ([`super::write`]).

use std::ops::Range;

use ccl_core::{BinaryVolume, Connectivity, VolumeStats};

use super::merge::JoinBuffers;
use super::slab::{Neighbours, Slab};
use super::{map_bands, merge, write};

/// Writes the canonical labels of `volume` into `labels` (one per voxel),
/// labeled in slabs of `slices` with `scratch`'s buffers, and returns the
/// number of components. With `ZEROED` the caller's `labels` are all 0 and
/// background is skipped; else every label is written. With `parallel`,
/// the whole call runs on a pool worker ([`super::in_pool`]).
pub(super) fn label_in_slabs<const ZEROED: bool>(
    volume: &BinaryVolume<'_>,
    connectivity: Connectivity,
    slices: &[Range<usize>],
    parallel: bool,
    scratch: &mut Vec<Slab>,
    join_buffers: &mut JoinBuffers,
    labels: &mut [u32],
) -> usize {
    super::in_pool(parallel, || {
        let neighbours = Neighbours::of(connectivity);
        let slabs = label_slabs::<false>(volume, neighbours, slices, parallel, scratch);
        let (forests, borders) = Slab::join_parts(slabs, neighbours);
        let joined =
            merge::join::<false, _>(&forests, &borders, parallel, join_buffers, &mut Vec::new());
        let (width, height) = (volume.width(), volume.height());
        let stream = write::streams(width, labels);
        let bounds: Vec<usize> = std::iter::once(0)
            .chain(slices.iter().map(|slices| slices.end * height * width))
            .collect();
        map_bands(
            parallel,
            merge::split(labels, &bounds)
                .into_iter()
                .zip(slabs)
                .enumerate()
                .collect(),
            |(s, (out, slab))| {
                let mut writer = write::RowWriter::new(width, stream);
                let rows = slab
                    .slices
                    .clone()
                    .flat_map(|z| (0..height).map(move |y| (y, z)));
                for (i, (row, (y, z))) in out.chunks_exact_mut(width.max(1)).zip(rows).enumerate() {
                    let finals = slab.labels_of_row(i).iter();
                    writer.write::<ZEROED>(
                        volume.row(y, z),
                        finals.map(|&label| joined.final_label(s, label)),
                        row,
                    );
                }
            },
        );
        joined.count
    })
}

/// The features of every component of `volume`, in raster order, analyzed
/// in slabs of `slices`, into `stats` (replacing what it held); with
/// `parallel`, on a pool worker ([`super::in_pool`]).
pub(super) fn analyze_in_slabs(
    volume: &BinaryVolume<'_>,
    connectivity: Connectivity,
    slices: &[Range<usize>],
    parallel: bool,
    scratch: &mut Vec<Slab>,
    join_buffers: &mut JoinBuffers,
    stats: &mut Vec<VolumeStats>,
) {
    super::in_pool(parallel, || {
        let neighbours = Neighbours::of(connectivity);
        let slabs = label_slabs::<true>(volume, neighbours, slices, parallel, scratch);
        let (forests, borders) = Slab::join_parts(slabs, neighbours);
        merge::join::<true, _>(&forests, &borders, parallel, join_buffers, stats);
    });
}

/// Each slab of `slices` labeled on its own, into `scratch`'s buffers.
fn label_slabs<'a, const MEASURE: bool>(
    volume: &BinaryVolume<'_>,
    neighbours: Neighbours,
    slices: &[Range<usize>],
    parallel: bool,
    scratch: &'a mut Vec<Slab>,
) -> &'a [Slab] {
    scratch.resize_with(slices.len(), Slab::default);
    map_bands(
        parallel,
        scratch.iter_mut().zip(slices.iter().cloned()).collect(),
        |(slab, slices)| slab.label::<MEASURE>(volume, slices, neighbours),
    );
    scratch
}

#[cfg(test)]
mod tests {
    use ccl_core::{Analyzer, BinaryVolumeBuf, LabelVolume, Labeler};

    use super::*;
    use crate::UnionFind;
    use crate::rle::even_bands;

    /// A volume whose voxels are foreground with `density` percent, from a
    /// small xorshift (the test needs variety, not the benchmark spec).
    fn volume(
        width: usize,
        height: usize,
        depth: usize,
        density: u32,
        seed: u32,
    ) -> BinaryVolumeBuf {
        let mut numbers = ccl_testdata::Xorshift32::new(seed);
        BinaryVolumeBuf::from_fn(width, height, depth, |_, _, _| numbers.below(100) < density)
            .unwrap()
    }

    #[test]
    fn any_slab_cut_gives_the_reference() {
        let shapes = [
            (7, 5, 9),
            (70, 3, 6),
            (1, 1, 12),
            (12, 1, 5),
            (1, 9, 4),
            (65, 4, 3),
        ];
        // One set of merge tables throughout, as a labeler keeps them.
        let mut join_buffers = JoinBuffers::default();
        for (i, &(width, height, depth)) in shapes.iter().enumerate() {
            for density in [10, 30, 55, 80] {
                let buf = volume(width, height, depth, density, 7 + i as u32 * 31 + density);
                let context = format!("{width}x{height}x{depth}, d = {density}");
                assert_every_cut_gives_the_reference(&buf.view(), &mut join_buffers, &context);
            }
        }
    }

    /// Rows whose runs are all of one class ([`super::super::slab`]'s
    /// shortcut): a run must still join such a row's class where it differs
    /// from its own (here only through the diagonal corners of 26-
    /// connectivity), and a row of runs of several classes must not be
    /// taken for one class.
    #[test]
    fn rows_of_one_class_join_as_their_runs() {
        let mut join_buffers = JoinBuffers::default();
        // Slice 0: rows 0 and 2 are one run each, two classes; slice 1:
        // a run of row 1 meets both at the corners of its ends only.
        let corners = BinaryVolumeBuf::from_fn(10, 3, 2, |x, y, z| match (y, z) {
            (0, 0) => x < 4,
            (2, 0) => x >= 6,
            (1, 1) => (4..6).contains(&x),
            _ => false,
        })
        .unwrap();
        let counts: Vec<usize> = Connectivity::VOLUME
            .iter()
            .map(|&c| {
                UnionFind
                    .label_volume(&corners.view(), c)
                    .unwrap()
                    .component_count()
            })
            .collect();
        assert_eq!(counts, [3, 3, 1], "6, 18, 26");
        assert_every_cut_gives_the_reference(&corners.view(), &mut join_buffers, "corners");
        // Slice 0: one row of two runs, two classes; slice 1: a run under
        // the second only.
        let two_classes = BinaryVolumeBuf::from_fn(6, 1, 2, |x, _, z| match z {
            0 => !(2..4).contains(&x),
            _ => x == 5,
        })
        .unwrap();
        assert_every_cut_gives_the_reference(&two_classes.view(), &mut join_buffers, "two classes");
        // Dense volumes, where most rows are one class, in cells of several
        // sides, so that runs are long and short.
        for (i, granularity) in [1, 2, 3].into_iter().enumerate() {
            for density in [60, 75, 88, 96] {
                let seed = 11 + i as u32 * 7 + density;
                let cells = volume(70 / granularity + 1, 9, 12 / granularity + 1, density, seed);
                let buf = BinaryVolumeBuf::from_fn(70, 9 * granularity, 12, |x, y, z| {
                    cells.get(x / granularity, y / granularity, z / granularity)
                })
                .unwrap();
                let context = format!("dense, g = {granularity}, d = {density}");
                assert_every_cut_gives_the_reference(&buf.view(), &mut join_buffers, &context);
            }
        }
    }

    /// `volume` labeled and analyzed in every connectivity, in slabs of
    /// every count, on the pool and not: the reference's answers.
    fn assert_every_cut_gives_the_reference(
        volume: &BinaryVolume<'_>,
        join_buffers: &mut JoinBuffers,
        context: &str,
    ) {
        let depth = volume.depth();
        for connectivity in Connectivity::VOLUME {
            let expected = UnionFind.label_volume(volume, connectivity).unwrap();
            let stats = UnionFind.analyze_volume(volume, connectivity).unwrap();
            for count in 1..=depth {
                let slices = even_bands(depth, count);
                for parallel in [false, true] {
                    let mut scratch = Vec::new();
                    // A dirty buffer: every voxel must be written.
                    let mut labels = vec![u32::MAX; volume.voxel_count()];
                    let n = label_in_slabs::<false>(
                        volume,
                        connectivity,
                        &slices,
                        parallel,
                        &mut scratch,
                        join_buffers,
                        &mut labels,
                    );
                    let context = format!("{context}, {connectivity}, {count} slabs");
                    assert_eq!(labels, expected.labels(), "{context}");
                    assert_eq!(n, expected.component_count(), "{context}");
                    // Into a vector of stale features, longer than needed.
                    let mut measured =
                        vec![stats.first().copied().unwrap_or_default(); 2 * stats.len() + 3];
                    analyze_in_slabs(
                        volume,
                        connectivity,
                        &slices,
                        parallel,
                        &mut scratch,
                        join_buffers,
                        &mut measured,
                    );
                    assert_eq!(measured, stats, "{context}");
                }
            }
        }
    }

    #[test]
    fn the_labeler_checks_its_arguments() {
        let buf = volume(4, 3, 2, 50, 3);
        let mut labeler = crate::RunLabeler::parallel();
        assert!(
            labeler
                .label_volume(&buf.view(), Connectivity::Four)
                .is_err()
        );
        assert!(
            labeler
                .label_volume_into(&buf.view(), Connectivity::Six, &mut [0; 23])
                .is_err()
        );
        let labels: LabelVolume = labeler
            .label_volume(&buf.view(), Connectivity::Six)
            .unwrap();
        assert!(
            labels.same_partition(
                &UnionFind
                    .label_volume(&buf.view(), Connectivity::Six)
                    .unwrap()
            )
        );
        let image = ccl_core::BinaryImage::new(&[1, 1], 2, 1).unwrap();
        assert!(labeler.label(&image, Connectivity::TwentySix).is_err());
        assert!(labeler.analyze(&image, Connectivity::Six).is_err());
        for (w, h, d) in [(0, 3, 3), (3, 0, 3), (3, 3, 0)] {
            let empty = ccl_core::BinaryVolume::new(&[], w, h, d).unwrap();
            for connectivity in Connectivity::VOLUME {
                assert!(
                    labeler
                        .label_volume(&empty, connectivity)
                        .unwrap()
                        .labels()
                        .is_empty()
                );
                assert_eq!(
                    labeler
                        .label_volume_into(&empty, connectivity, &mut [])
                        .unwrap(),
                    0
                );
                assert!(
                    labeler
                        .analyze_volume(&empty, connectivity)
                        .unwrap()
                        .is_empty()
                );
            }
        }
    }
}
