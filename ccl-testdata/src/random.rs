//! MT19937 density / granularity images, bit for bit as docs/benchmark.md
//! ("Random images") specifies them, so that other tools (C++
//! `std::mt19937`, NumPy's `RandomState`, the papers' own generators) regenerate
//! exactly the images this project benchmarks. The cell drawing lives here
//! once for images and volumes (`random_volume.rs`): an image is the volume
//! of depth 1.

use ccl_core::{BinaryImageBuf, Error, Result, check_size};
use rand_mt::Mt;

/// The seed the benchmark protocol uses unless told otherwise.
pub const DEFAULT_SEED: u32 = 0;

/// A `width × height` image of g×g cells, each foreground with probability
/// `density_percent` %.
///
/// The generator is MT19937 seeded with `init_genrand(seed)`. One 32-bit
/// draw `u` is taken per cell, cells in raster order (cell rows outer); a
/// cell is foreground iff `u < d · 2³² / 100` (integer arithmetic), so
/// `d = 0` draws an empty image and `d = 100` a full one. Partial cells at
/// the right and bottom edges still take one draw each. Pixel `(x, y)` takes
/// the value of cell `(x / g, y / g)`. Foreground pixels are stored as 1.
///
/// ```
/// let image = ccl_testdata::random_image(64, 48, 50, 4, 0)?;
/// assert_eq!((image.width(), image.height()), (64, 48));
/// // Same arguments, same image: runs and tools compare bit for bit.
/// assert_eq!(image, ccl_testdata::random_image(64, 48, 50, 4, 0)?);
/// # Ok::<(), ccl_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `density_percent > 100` or
/// `granularity == 0`; [`Error::ImageTooLarge`] when `width × height`
/// exceeds the 32-bit label space.
pub fn random_image(
    width: usize,
    height: usize,
    density_percent: u32,
    granularity: u32,
    seed: u32,
) -> Result<BinaryImageBuf> {
    let threshold = cell_threshold(density_percent, granularity)?;
    // Refuse before allocating, so a huge request fails instead of aborting.
    check_size(width, height)?;
    // An image is the volume of depth 1: one slab of cells, drawn in the
    // same order, so the two generators cannot drift apart.
    let mut pixels = vec![0u8; width * height];
    fill_cells(
        &mut pixels,
        [width, height, 1],
        granularity,
        threshold,
        seed,
    );
    BinaryImageBuf::from_pixels(pixels, width, height)
}

/// Checks a density and a granularity as both generators accept them, and
/// returns the draw threshold `d · 2³² / 100`: a cell is foreground iff its
/// draw is below it.
pub(crate) fn cell_threshold(density_percent: u32, granularity: u32) -> Result<u64> {
    if density_percent > 100 {
        return Err(Error::InvalidArgument(format!(
            "density {density_percent} % is outside 0..=100"
        )));
    }
    if granularity == 0 {
        return Err(Error::InvalidArgument(
            "granularity 0: cells must be at least 1x1 pixel".into(),
        ));
    }
    // d = 100 gives 2^32, above every u32: every cell is set, as specified.
    Ok(u64::from(density_percent) * (1u64 << 32) / 100)
}

/// Fills packed `[width, height, depth]` voxels (x fastest, then y, then z)
/// with g×g×g cells, one MT19937 draw per cell in raster order (z outer,
/// then y, then x), partial cells at the far borders drawn like whole ones.
/// The 2-D image is the call with depth 1.
///
/// `voxels` must hold exactly `width · height · depth` bytes.
pub(crate) fn fill_cells(
    voxels: &mut [u8],
    [width, height, depth]: [usize; 3],
    granularity: u32,
    threshold: u64,
    seed: u32,
) {
    debug_assert_eq!(voxels.len(), width * height * depth);
    let g = granularity as usize;
    let slice = width * height;
    let mut rng = Mt::new(seed);
    let mut cells = vec![0u8; width.div_ceil(g)];

    // One cell row at a time: draw its cells, expand them into the first
    // voxel row of the band (g bytes per cell, no division per voxel), then
    // copy that row to the band's other rows; once a slab's bands are drawn,
    // copy its first slice to the slab's other slices. 8192² at g = 1 is
    // dominated by the 67 M draws themselves.
    let mut draw = |cells: &mut [u8]| {
        for cell in cells {
            *cell = u8::from(u64::from(rng.next_u32()) < threshold);
        }
    };
    for slab_front in (0..depth).step_by(g) {
        let slab = slab_front * slice;
        for band_top in (0..height).step_by(g) {
            let first = slab + band_top * width;
            let row = &mut voxels[first..first + width];
            if g == 1 {
                // Cells are voxels: draw straight into the volume.
                draw(row);
                continue;
            }
            draw(&mut cells);
            for (chunk, &cell) in row.chunks_mut(g).zip(&cells) {
                chunk.fill(cell);
            }
            let band_bottom = (band_top + g).min(height);
            for y in band_top + 1..band_bottom {
                voxels.copy_within(first..first + width, slab + y * width);
            }
        }
        let slab_back = (slab_front + g).min(depth);
        for z in slab_front + 1..slab_back {
            voxels.copy_within(slab..slab + slice, z * slice);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The golden values below come from an independent Python
    /// implementation of MT19937 (`init_genrand` and the reference
    /// `genrand_int32`, checked against the C++ standard's 10000th output
    /// 4123659995 for seed 5489) and of the docs/benchmark.md rule.
    fn fnv1a(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    #[test]
    fn mt19937_is_the_standard_generator() {
        let mut rng = Mt::new(5489);
        assert_eq!(rng.next_u32(), 3_499_211_612);
        let mut rng = Mt::new(5489);
        let ten_thousandth = (0..10_000).map(|_| rng.next_u32()).last();
        assert_eq!(ten_thousandth, Some(4_123_659_995));
        let mut rng = Mt::new(0);
        assert_eq!(rng.next_u32(), 2_357_136_044);
    }

    #[test]
    fn golden_8x4_density_50_granularity_1_seed_0() {
        let image = random_image(8, 4, 50, 1, 0).unwrap();
        #[rustfmt::skip]
        let expected = [
            0, 0, 0, 0, 0, 0, 0, 0,
            1, 0, 0, 1, 1, 1, 0, 1,
            0, 1, 1, 1, 0, 0, 0, 1,
            0, 1, 0, 0, 1, 1, 1, 0,
        ];
        assert_eq!(image.pixels(), &expected);
    }

    #[test]
    fn golden_partial_cells_8x5_granularity_3_seed_6() {
        // 3x2 cells; the right column of cells is 2 wide and the bottom row
        // of cells 2 high. Cells drawn: 0 0 1 / 1 0 1.
        let image = random_image(8, 5, 50, 3, 6).unwrap();
        #[rustfmt::skip]
        let expected = [
            0, 0, 0, 0, 0, 0, 1, 1,
            0, 0, 0, 0, 0, 0, 1, 1,
            0, 0, 0, 0, 0, 0, 1, 1,
            1, 1, 1, 0, 0, 0, 1, 1,
            1, 1, 1, 0, 0, 0, 1, 1,
        ];
        assert_eq!(image.pixels(), &expected);
    }

    #[test]
    fn golden_7x7_density_30_granularity_2_seed_42() {
        let image = random_image(7, 7, 30, 2, 42).unwrap();
        #[rustfmt::skip]
        let expected = [
            0, 0, 0, 0, 0, 0, 1,
            0, 0, 0, 0, 0, 0, 1,
            0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0,
            1, 1, 0, 0, 1, 1, 1,
            1, 1, 0, 0, 1, 1, 1,
            1, 1, 0, 0, 0, 0, 0,
        ];
        assert_eq!(image.pixels(), &expected);
    }

    #[test]
    fn golden_digests_past_the_first_state_refill() {
        // 10 000 and 594 draws: the first crosses MT19937's 624-word refill.
        let image = random_image(100, 100, 37, 1, 7).unwrap();
        assert_eq!(image.view().foreground_count(), 3712);
        assert_eq!(fnv1a(image.pixels()), 0xc9b0_b6d4_9e33_41d9);
        let image = random_image(130, 70, 60, 4, 123).unwrap();
        assert_eq!(image.view().foreground_count(), 5804);
        assert_eq!(fnv1a(image.pixels()), 0x67bb_3dec_8e11_a741);
    }

    #[test]
    fn density_0_is_empty_and_100_is_full() {
        for g in [1, 3, 16] {
            let empty = random_image(33, 17, 0, g, 9).unwrap();
            assert!(empty.pixels().iter().all(|&p| p == 0));
            let full = random_image(33, 17, 100, g, 9).unwrap();
            assert!(full.pixels().iter().all(|&p| p == 1));
        }
    }

    #[test]
    fn cells_are_uniform_and_density_is_close() {
        let g = 5;
        let image = random_image(203, 101, 40, g, 3).unwrap();
        for y in 0..image.height() {
            for x in 0..image.width() {
                let corner = image.get(x / g as usize * g as usize, y / g as usize * g as usize);
                assert_eq!(image.get(x, y), corner, "({x}, {y})");
            }
        }
        let image = random_image(512, 512, 40, 1, 3).unwrap();
        let fraction = image.view().foreground_count() as f64 / (512.0 * 512.0);
        assert!((fraction - 0.40).abs() < 0.01, "{fraction}");
    }

    #[test]
    fn degenerate_sizes_are_valid() {
        for (w, h) in [(0, 0), (0, 5), (5, 0), (1, 1)] {
            let image = random_image(w, h, 50, 2, 0).unwrap();
            assert_eq!((image.width(), image.height()), (w, h));
        }
        // Granularity larger than the image: a single cell.
        let image = random_image(5, 3, 100, 1000, 0).unwrap();
        assert_eq!(image.view().foreground_count(), 15);
    }

    #[test]
    fn bad_arguments_are_errors_not_panics() {
        let err = random_image(8, 8, 101, 1, 0).unwrap_err();
        assert!(err.to_string().contains("density 101"), "{err}");
        let err = random_image(8, 8, 50, 0, 0).unwrap_err();
        assert!(err.to_string().contains("granularity 0"), "{err}");
        let err = random_image(1 << 16, 1 << 16, 50, 1, 0).unwrap_err();
        assert!(matches!(err, Error::ImageTooLarge { .. }), "{err}");
        assert!(random_image(usize::MAX, 2, 50, 1, 0).is_err());
    }
}
