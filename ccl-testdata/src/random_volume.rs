//! MT19937 density / granularity volumes, bit for bit as docs/benchmark.md
//! ("Random volumes") specifies them: the random images' rule with cubic
//! cells, so that NumPy's `RandomState` or C++ `std::mt19937` regenerate
//! exactly the volumes this project benchmarks.

use ccl_core::{BinaryVolumeBuf, Result, check_volume_size};

use crate::random::{cell_threshold, fill_cells};

/// A `width × height × depth` volume of g×g×g cells, each foreground with
/// probability `density_percent` %.
///
/// The rule of [`random_image`](crate::random_image) in 3-D: MT19937 seeded
/// with `init_genrand(seed)`, one 32-bit draw `u` per cell, cells in raster
/// order (cell slabs outermost, then cell rows, then cells along x); a cell
/// is foreground iff `u < d · 2³² / 100` (integer arithmetic). Partial cells
/// at the right, bottom and back borders still take one draw each. Voxel
/// `(x, y, z)` takes the value of cell `(x / g, y / g, z / g)`; foreground
/// voxels are stored as 1. A volume of depth 1 holds the same bytes as the
/// image of the same arguments.
///
/// ```
/// let volume = ccl_testdata::random_volume(32, 24, 16, 31, 2, 0)?;
/// assert_eq!((volume.width(), volume.height(), volume.depth()), (32, 24, 16));
/// // Same arguments, same volume: runs and tools compare bit for bit.
/// assert_eq!(volume, ccl_testdata::random_volume(32, 24, 16, 31, 2, 0)?);
/// // Depth 1 is the 2-D image.
/// let slice = ccl_testdata::random_volume(40, 30, 1, 60, 4, 7)?;
/// assert_eq!(slice.voxels(), ccl_testdata::random_image(40, 30, 60, 4, 7)?.pixels());
/// # Ok::<(), ccl_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`](ccl_core::Error::InvalidArgument) when
/// `density_percent > 100` or `granularity == 0`;
/// [`Error::VolumeTooLarge`](ccl_core::Error::VolumeTooLarge) when
/// `width × height × depth` exceeds the 32-bit label space.
pub fn random_volume(
    width: usize,
    height: usize,
    depth: usize,
    density_percent: u32,
    granularity: u32,
    seed: u32,
) -> Result<BinaryVolumeBuf> {
    let threshold = cell_threshold(density_percent, granularity)?;
    // Refuse before allocating, so a huge request fails instead of aborting.
    check_volume_size(width, height, depth)?;
    let mut voxels = vec![0u8; width * height * depth];
    fill_cells(
        &mut voxels,
        [width, height, depth],
        granularity,
        threshold,
        seed,
    );
    BinaryVolumeBuf::from_voxels(voxels, width, height, depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccl_core::Error;

    /// FNV-1a over the packed voxels, as the Python snippet below computes it.
    fn fnv1a(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    /// The golden values of the tests below come from NumPy's MT19937
    /// (`np.random.RandomState(seed)` seeds with `init_genrand`, and
    /// `randint` over the whole 32-bit range returns the raw
    /// `genrand_int32` outputs), independent of `rand_mt` and of this
    /// crate's cell loop. The same snippet at depth 1 reproduces the 2-D
    /// goldens of `random.rs`:
    ///
    /// ```python
    /// import numpy as np
    ///
    /// def random_volume(w, h, d, density, g, seed):
    ///     cw, ch, cd = -(-w // g), -(-h // g), -(-d // g)
    ///     u = np.random.RandomState(seed).randint(
    ///         0, 2**32, size=cd * ch * cw, dtype=np.uint32)
    ///     cells = (u.astype(np.uint64) < density * 2**32 // 100).reshape(cd, ch, cw)
    ///     v = cells.repeat(g, 0).repeat(g, 1).repeat(g, 2)[:d, :h, :w]
    ///     return v.astype(np.uint8).ravel()  # z outermost, then y, then x
    ///
    /// def fnv1a(data):
    ///     h = 0xcbf29ce484222325
    ///     for b in data.tobytes():
    ///         h = ((h ^ b) * 0x100000001b3) % 2**64
    ///     return h
    ///
    /// v = random_volume(50, 41, 30, 31, 4, 5)
    /// print(int(v.sum()), hex(fnv1a(v)))  # 18768 0xf61a5523f4c8d8a5
    /// ```
    #[test]
    fn golden_4x3x2_density_50_granularity_1_seed_0() {
        let volume = random_volume(4, 3, 2, 50, 1, 0).unwrap();
        #[rustfmt::skip]
        let expected = [
            // z = 0: the first 12 draws, the 2-D golden 8x4's first row and a half.
            0, 0, 0, 0,
            0, 0, 0, 0,
            1, 0, 0, 1,
            // z = 1
            1, 1, 0, 1,
            0, 1, 1, 1,
            0, 0, 0, 1,
        ];
        assert_eq!(volume.voxels(), &expected);
    }

    #[test]
    fn golden_partial_cells_in_every_axis_5x4x3_granularity_2_seed_6() {
        // 3x2x2 cells: the last cell along x is 1 wide, along z 1 deep (the
        // y cells are whole). Cells drawn, slab by slab: 0 0 1 / 1 0 1 and
        // 1 1 1 / 0 0 1 (the 2-D golden's first six draws, then six more).
        let volume = random_volume(5, 4, 3, 50, 2, 6).unwrap();
        #[rustfmt::skip]
        let expected = [
            // z = 0
            0, 0, 0, 0, 1,
            0, 0, 0, 0, 1,
            1, 1, 0, 0, 1,
            1, 1, 0, 0, 1,
            // z = 1: the same cells
            0, 0, 0, 0, 1,
            0, 0, 0, 0, 1,
            1, 1, 0, 0, 1,
            1, 1, 0, 0, 1,
            // z = 2: the partial slab of cells
            1, 1, 1, 1, 1,
            1, 1, 1, 1, 1,
            0, 0, 0, 0, 1,
            0, 0, 0, 0, 1,
        ];
        assert_eq!(volume.voxels(), &expected);
    }

    #[test]
    fn golden_digests_past_the_first_state_refill() {
        // 13x11x8 = 1144 cells (past MT19937's 624-word refill), partial in
        // every axis (50 = 12·4 + 2, 41 = 10·4 + 1, 30 = 7·4 + 2).
        let volume = random_volume(50, 41, 30, 31, 4, 5).unwrap();
        assert_eq!(volume.view().foreground_count(), 18768);
        assert_eq!(fnv1a(volume.voxels()), 0xf61a_5523_f4c8_d8a5);
        // 231 000 draws, one per voxel.
        let volume = random_volume(100, 70, 33, 14, 1, 7).unwrap();
        assert_eq!(volume.view().foreground_count(), 32298);
        assert_eq!(fnv1a(volume.voxels()), 0x8bdd_7939_cd37_5c0d);
        // 10x11x13 = 1430 cells, partial in every axis (29, 31 and 37 are
        // not multiples of 3).
        let volume = random_volume(29, 31, 37, 10, 3, 2024).unwrap();
        assert_eq!(volume.view().foreground_count(), 2970);
        assert_eq!(fnv1a(volume.voxels()), 0xc75b_b2bf_580f_8c69);
    }

    #[test]
    fn depth_1_is_the_image() {
        for (w, h, d, g, seed) in [(8, 5, 50, 3, 6), (130, 70, 60, 4, 123), (33, 1, 9, 1, 2)] {
            let volume = random_volume(w, h, 1, d, g, seed).unwrap();
            let image = crate::random_image(w, h, d, g, seed).unwrap();
            assert_eq!(volume.voxels(), image.pixels(), "{w}x{h} d={d} g={g}");
        }
    }

    #[test]
    fn density_0_is_empty_and_100_is_full() {
        for g in [1, 3, 16] {
            let empty = random_volume(13, 7, 5, 0, g, 9).unwrap();
            assert!(empty.voxels().iter().all(|&p| p == 0));
            let full = random_volume(13, 7, 5, 100, g, 9).unwrap();
            assert!(full.voxels().iter().all(|&p| p == 1));
        }
    }

    #[test]
    fn cells_are_uniform_and_density_is_close() {
        let g = 3;
        let volume = random_volume(31, 20, 17, 40, g, 3).unwrap();
        let g = g as usize;
        for z in 0..volume.depth() {
            for y in 0..volume.height() {
                for x in 0..volume.width() {
                    let corner = volume.get(x / g * g, y / g * g, z / g * g);
                    assert_eq!(volume.get(x, y, z), corner, "({x}, {y}, {z})");
                }
            }
        }
        let volume = random_volume(64, 64, 64, 31, 1, 3).unwrap();
        let fraction = volume.view().foreground_count() as f64 / 64f64.powi(3);
        assert!((fraction - 0.31).abs() < 0.01, "{fraction}");
    }

    #[test]
    fn degenerate_sizes_are_valid() {
        for (w, h, d) in [
            (0, 0, 0),
            (0, 5, 5),
            (5, 0, 5),
            (5, 5, 0),
            (1, 1, 1),
            (1, 1, 9),
        ] {
            let volume = random_volume(w, h, d, 50, 2, 0).unwrap();
            assert_eq!((volume.width(), volume.height(), volume.depth()), (w, h, d));
        }
        // Granularity larger than the volume: a single cell.
        let volume = random_volume(5, 3, 2, 100, 1000, 0).unwrap();
        assert_eq!(volume.view().foreground_count(), 30);
    }

    #[test]
    fn bad_arguments_are_errors_not_panics() {
        let err = random_volume(8, 8, 8, 101, 1, 0).unwrap_err();
        assert!(
            matches!(err, Error::InvalidArgument(_)) && err.to_string().contains("density 101"),
            "{err}"
        );
        let err = random_volume(8, 8, 8, 50, 0, 0).unwrap_err();
        assert!(
            matches!(err, Error::InvalidArgument(_)) && err.to_string().contains("granularity 0"),
            "{err}"
        );
        let err = random_volume(2048, 2048, 1024, 50, 1, 0).unwrap_err();
        assert!(matches!(err, Error::VolumeTooLarge { .. }), "{err}");
        assert!(random_volume(usize::MAX, usize::MAX, 2, 50, 1, 0).is_err());
    }
}
