//! [`Tiles`]: the `tiles` variant, launching the kernels of `tiles.cu`.

use std::sync::Arc;

use ccl_core::{Connectivity, Error, Result};
use ccl_cuda::backend::{
    BitImage, BitImageArgs, DeviceVariant, Features, Numbered, RootIndexArgs, RootLayout,
    RootTargets, Run, Slices, VolumeFeatures, VolumeStatsOutArgs,
};
use ccl_cuda::cudarc::driver::{CudaViewMut, DeviceRepr, LaunchConfig};
use ccl_cuda::runtime::{DevPtr, DeviceImage, Gpu, Kernel, KernelSource, linear_grid};

/// Rows of a tile: the threads of a block of the tile kernel, one per row
/// (a tile is 32 columns wide, one bit word).
const TILE_ROWS: u32 = 256;
/// Rows of a volume's slice per tile: tiles of 32 × 16 × 16 voxels, whose
/// faces across y and z are each a sixteenth of the rows. An image's tiles
/// are 32 × 256 pixels (fewer rows, and several images of a batch, for
/// images of fewer rows).
const TILE_HEIGHT: usize = 16;
/// Threads per block of the per-word and per-voxel kernels.
const BLOCK: u32 = 256;
/// Parts of components a tile gathers in shared memory at once in the
/// feature kernel (24 bytes each, beside 8 KB of keys of runs): a tile of a
/// random volume has a few hundred keys (tile components, or roots) at
/// most densities; a tile of more gathers its runs again for each 512 (a
/// window of 1024 was slower at every density of an H200 A/B run, 5-60 %).
const TILE_PARTS: u32 = 512;
/// The same in the second feature kernel, for a tile gathered again (its
/// parts without roots did not fit its share of the scratch), beside that
/// kernel's table by rank.
const TILE_REGATHER_PARTS: u32 = 256;
/// Tiles whose parts put aside a warp of the second feature kernel adds,
/// one after the other, into its block's table by rank.
const TILE_ADD_TILES_PER_WARP: u32 = 4;

const KERNELS: KernelSource = KernelSource {
    name: "tiles",
    source: include_str!("tiles.cu"),
    constants: &[
        ("TILE_ROWS", TILE_ROWS),
        ("TILE_PARTS", TILE_PARTS),
        ("TILE_REGATHER_PARTS", TILE_REGATHER_PARTS),
        ("TILE_ADD_TILES_PER_WARP", TILE_ADD_TILES_PER_WARP),
    ],
};
ccl_cuda::inventory::submit! { KERNELS }

/// How the rows are cut into tiles (`TileGrid` of `tiles.cu`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TileGridArgs {
    width: u32,
    words: u32,
    height: u32,
    depth: u32,
    tile_height: u32,
    height_shift: u32,
    tile_depth: u32,
    depth_shift: u32,
    tiles_y: u32,
    padding: u32,
    /// `tile_divide`'s magic for the width and for the height.
    width_magic: u64,
    height_magic: u64,
}

// SAFETY: plain old data with C layout, matching TileGrid.
unsafe impl DeviceRepr for TileGridArgs {}

impl TileGridArgs {
    /// The tiles of `rows`: a volume's or a batch's, sliced as `slices`,
    /// or one image (`None`).
    fn of(rows: &DeviceImage<'_>, slices: Option<Slices>, planar: bool) -> Result<Self> {
        match slices {
            Some(slices) => Self::new(rows.width(), slices.height, slices.depth, planar),
            None => Self::new(rows.width(), rows.height(), 1, planar),
        }
    }

    /// The tiles of `depth` slices of `width` × `height`: 16 rows by 16
    /// slices of a volume, or, `planar` (slices that do not touch: an
    /// image, a batch's images), 256 rows of one; fewer rows and more
    /// slices for slices of fewer rows.
    fn new(width: usize, height: usize, depth: usize, planar: bool) -> Result<Self> {
        let most_rows = if planar {
            TILE_ROWS as usize
        } else {
            TILE_HEIGHT
        };
        let tile_height = height.next_power_of_two().min(most_rows);
        let tile_depth = TILE_ROWS as usize / tile_height;
        let words = width.div_ceil(32);
        let tiles_y = height.div_ceil(tile_height);
        let tiles = words as u64 * tiles_y as u64 * depth.div_ceil(tile_depth) as u64;
        let voxels = width as u64 * height as u64 * depth as u64;
        // Voxel indices + 1 are the forest's parents, and the tiles a grid's
        // blocks along x.
        if voxels >= u32::MAX as u64 || tiles > i32::MAX as u64 {
            return Err(Error::InvalidDimensions(format!(
                "{depth} slices of {width}x{height} are too many voxels for the tiles' 32-bit indices"
            )));
        }
        let narrow = |n: usize| n as u32;
        Ok(Self {
            width: narrow(width),
            words: narrow(words),
            height: narrow(height),
            depth: narrow(depth),
            tile_height: narrow(tile_height),
            height_shift: tile_height.trailing_zeros(),
            tile_depth: narrow(tile_depth),
            depth_shift: tile_depth.trailing_zeros(),
            tiles_y: narrow(tiles_y),
            padding: 0,
            width_magic: division_magic(narrow(width)),
            height_magic: division_magic(narrow(height)),
        })
    }

    fn tiles(&self) -> usize {
        self.words as usize
            * self.tiles_y as usize
            * (self.depth as usize).div_ceil(self.tile_depth as usize)
    }

    fn words_in_all(&self) -> usize {
        self.words as usize * self.height as usize * self.depth as usize
    }
}

/// `tile_divide`'s magic for `divisor`: ceil(2^64 / divisor), whose product
/// with any 32-bit n has n / divisor as its high word; 0 for 1 (and 0).
fn division_magic(divisor: u32) -> u64 {
    if divisor <= 1 {
        0
    } else {
        ((1u128 << 64).div_ceil(divisor as u128)) as u64
    }
}

/// The index of `connectivity`'s backward rows in `TILE_STEPS` of `tiles.cu`.
fn step_set(connectivity: Connectivity) -> i32 {
    match connectivity {
        Connectivity::Six => 0,
        Connectivity::Eighteen => 1,
        Connectivity::TwentySix => 2,
        Connectivity::Four => 3,
        Connectivity::Eight => 4,
    }
}

/// The kernels; each field declares a kernel's arguments.
struct Kernels {
    local: Kernel<(BitImageArgs, TileGridArgs, i32, DevPtr<u32>, DevPtr<u32>)>,
    faces: Kernel<(BitImageArgs, TileGridArgs, i32, DevPtr<u32>)>,
    roots: Kernel<(TileGridArgs, DevPtr<u32>, DevPtr<u32>, u32, DevPtr<u32>)>,
    number: Kernel<(DevPtr<u32>, u32, RootIndexArgs, DevPtr<u32>, u64, i32)>,
    features: Kernel<TileFeatureArgs>,
    add_parts: Kernel<(u32, VolumeStatsOutArgs, DevPtr<u32>, u32)>,
    regather_parts: Kernel<TileFeatureArgs>,
}

/// The arguments of the feature kernels that gather a tile: the bits, the
/// tiles, the rooted forest, the root index, the records, and the scratch
/// with each tile's share of it in words.
type TileFeatureArgs = (
    BitImageArgs,
    TileGridArgs,
    DevPtr<u32>,
    RootIndexArgs,
    VolumeStatsOutArgs,
    DevPtr<u32>,
    u32,
);

/// The device-resident stages of `tiles`: `bits` (the volume's rows
/// packed), `tiles` (each tile labeled in shared memory), `faces` (the
/// tiles joined), then its own root flags and ranking (`roots`) and last
/// pass (`labels`).
pub struct Tiles {
    kernels: Kernels,
    /// The volume's rows as bits, which the tile and face kernels read.
    bits: BitImage,
}

impl Tiles {
    /// Compiles (once per process and device) and loads the kernels.
    pub fn new(gpu: &Arc<Gpu>) -> Result<Self> {
        Ok(Self {
            kernels: Kernels {
                local: Kernel::load(gpu, &KERNELS, "tiles_local")?,
                faces: Kernel::load(gpu, &KERNELS, "tiles_faces")?,
                roots: Kernel::load(gpu, &KERNELS, "tiles_roots")?,
                number: Kernel::load(gpu, &KERNELS, "tiles_number")?,
                features: Kernel::load(gpu, &KERNELS, "tiles_features")?,
                add_parts: Kernel::load(gpu, &KERNELS, "tiles_add_parts")?,
                regather_parts: Kernel::load(gpu, &KERNELS, "tiles_regather_parts")?,
            },
            bits: BitImage::new(gpu)?,
        })
    }

    /// The pixel forest of `rows` in `forest`: each tile labeled in shared
    /// memory (with `node_bits`, the first voxel of each tile component
    /// flagged there), then the faces joined. Returns the tiles' grid and
    /// the bit image.
    fn build_forest(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        forest: DevPtr<u32>,
        node_bits: DevPtr<u32>,
    ) -> Result<(TileGridArgs, BitImageArgs)> {
        let stream = run.stream;
        let steps = step_set(run.connectivity);
        let planar = run.connectivity.dimensions() == 2;
        let grid = TileGridArgs::of(rows, run.slices, planar)?;
        let bits = self.bits.pack_for(run, rows)?;
        run.clock.mark("bits")?;
        let tiles = LaunchConfig {
            grid_dim: (grid.tiles() as u32, 1, 1),
            block_dim: (TILE_ROWS, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: a block per tile (the grid covers every word of every
        // row); each thread reads its row's word of the bit image and writes
        // the parents of its tile's voxels inside the volume (width × height
        // entries of `forest`, checked by the variant layer) and, where
        // `node_bits` is not null, its row's word of a bit per voxel.
        unsafe {
            self.kernels
                .local
                .launch(stream, tiles, (bits, grid, steps, forest, node_bits))
        }?;
        run.clock.mark("tiles")?;
        // SAFETY: a thread per word of every row; the merges follow parents
        // of voxels inside the volume, which the tile kernel wrote.
        unsafe {
            self.kernels.faces.launch(
                stream,
                linear_grid(grid.words_in_all(), BLOCK)?,
                (bits, grid, steps, forest),
            )
        }?;
        run.clock.mark("faces")?;
        Ok((grid, bits))
    }

    /// The forest of `rows` in `forest` with the roots among the nodes
    /// flagged in `targets` (which held the node bits) and counted, every
    /// other node pointed at its root.
    fn rooted_forest(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        forest: DevPtr<u32>,
        targets: RootTargets,
    ) -> Result<(TileGridArgs, BitImageArgs)> {
        let (grid, bits) = self.build_forest(run, rows, forest, targets.bits)?;
        let words = grid.words_in_all();
        // SAFETY: a thread per word of the root bits (the layout's words,
        // which the tile kernel set to the node bits); the nodes are voxels
        // of the forest; a count per group of words (reserved by `begin`).
        unsafe {
            self.kernels.roots.launch(
                run.stream,
                linear_grid(words, BLOCK)?,
                (
                    grid,
                    forest,
                    targets.bits,
                    words as u32,
                    targets.group_count,
                ),
            )
        }?;
        Ok((grid, bits))
    }
}

impl DeviceVariant for Tiles {
    fn check_size(&self, width: usize, height: usize) -> Result<()> {
        TileGridArgs::new(width, height, 1, true).map(|_| ())
    }

    /// A batch's images are slices that no step joins (`TILE_STEPS`' 4
    /// and 8 look at the row above in the same slice only).
    fn labels_batches(&self) -> bool {
        true
    }

    fn forest(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let forest = DevPtr::of_mut(forest, run.stream);
        self.build_forest(run, rows, forest, DevPtr::null())
            .map(|_| ())
    }

    /// The forest in `forest` with the first voxel of every tile component
    /// flagged in the root bits; the roots among them flagged and ranked
    /// (stage `roots`); then each voxel's root's rank + 1 (stage `labels`).
    fn label(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
    ) -> Result<Numbered> {
        let stream = run.stream.clone();
        let layout = RootLayout::of(rows);
        let flagging = numbering.begin(&stream, layout)?;
        let targets = flagging.targets();
        let forest_at = DevPtr::of_mut(forest, &stream);
        let (grid, _) = self.rooted_forest(run, rows, forest_at, targets)?;
        let voxels = rows.pixel_count();
        let labels_at = DevPtr::of_mut(labels, &stream);
        // 16-byte loads and stores where both buffers allow them.
        let vectors = (forest_at.address() | labels_at.address()) % 16 == 0;
        flagging.flagged().number_with(run.clock, |index, stream| {
            // SAFETY: a thread per four voxels of the width × height
            // entries of `forest` and `labels` (different buffers, as
            // large: the variant layer's contract), 16-byte accesses only
            // where both are aligned to them; the root index covers the
            // layout of the rows.
            unsafe {
                self.kernels.number.launch(
                    stream,
                    linear_grid(voxels.div_ceil(4), BLOCK)?,
                    (
                        forest_at,
                        grid.width,
                        index,
                        labels_at,
                        voxels as u64,
                        vectors as i32,
                    ),
                )
            }
        })
    }

    /// The forest and its roots as [`label`](DeviceVariant::label) makes
    /// them, ranked (stage `roots`); then the features from the tiles, with
    /// no label pass (stage `features`): each tile's runs gathered in shared
    /// memory, a part per tile component (or root); the part that holds a
    /// component's root stores its record, the others are put aside in
    /// `labels` (each tile's share) and added after every root's store (a
    /// tile whose parts overflow its share is gathered again for them).
    fn analyze_volume(
        &mut self,
        run: &mut Run<'_>,
        rows: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
        labels: &mut CudaViewMut<'_, u32>,
        numbering: &mut Features,
        features: &mut VolumeFeatures,
    ) -> Result<()> {
        let slices = run.volume_slices()?;
        let stream = run.stream.clone();
        let flagging = numbering.begin(&stream, RootLayout::of(rows))?;
        let targets = flagging.targets();
        let forest_at = DevPtr::of_mut(forest, &stream);
        let (grid, bits) = self.rooted_forest(run, rows, forest_at, targets)?;
        let index = flagging.flagged().rank_only()?.index();
        run.clock.mark("roots")?;
        // The stats array is sized by the count, read back (a
        // synchronisation, as in `flsl`'s analysis). Every record is stored
        // by its root's part before the other parts are added.
        let count = numbering.component_count(&stream)?;
        let output = features.output_for_roots(&stream, slices, count)?;
        if count > 0 {
            // Each tile's share of the scratch: at least one word (its
            // count), as every tile holds a voxel of the volume.
            let tiles = grid.tiles();
            let share = u32::try_from((rows.pixel_count() / tiles).min(labels.len() / tiles))
                .map_err(|_| Error::InvalidDimensions("a tile's share of the scratch".into()))?;
            let config = LaunchConfig {
                grid_dim: (tiles as u32, 1, 1),
                block_dim: (TILE_ROWS, 1, 1),
                shared_mem_bytes: 0,
            };
            let args = (
                bits,
                grid,
                forest_at,
                index,
                output,
                DevPtr::of_mut(labels, &stream),
                share,
            );
            // SAFETY: a block per tile as in `build_forest`, reading the
            // bits and the forest of voxels inside the volume; the root index
            // covers the rows' layout; ranks are below the count, the
            // records' capacity; tile t writes words t × share to (t + 1) ×
            // share of `labels`, which holds a word per voxel (tiles × share
            // at most).
            unsafe { self.kernels.features.launch(&stream, config, args) }?;
            let warps_per_block = (TILE_ROWS / 32) as usize;
            // SAFETY: a warp per tile reads the words of `labels` the first
            // pass wrote for it (tiles × share at most); ranks at or past
            // the capacity are not stored.
            unsafe {
                self.kernels.add_parts.launch(
                    &stream,
                    LaunchConfig {
                        grid_dim: (
                            tiles.div_ceil(warps_per_block * TILE_ADD_TILES_PER_WARP as usize)
                                as u32,
                            1,
                            1,
                        ),
                        block_dim: (TILE_ROWS, 1, 1),
                        shared_mem_bytes: 0,
                    },
                    (tiles as u32, output, args.5, share),
                )
            }?;
            // SAFETY: the blocks, bits, forest, index and records of the
            // first pass; tile t reads word t × share of `labels`.
            unsafe { self.kernels.regather_parts.launch(&stream, config, args) }?;
        }
        run.clock.mark("features")
    }
}

ccl_cuda::register_variant! {
    name: "tiles",
    connectivities: &[
        Connectivity::Four,
        Connectivity::Eight,
        Connectivity::Six,
        Connectivity::Eighteen,
        Connectivity::TwentySix,
    ],
    analyzes: true,
    summary: "tile-local union-find over runs in shared memory, tiles of 32x16x16 voxels or 32x256 pixels joined through their faces (after Stava & Benes, GPU Computing Gems 2011)",
    priority: 50,
    new: |gpu, _| Tiles::new(gpu),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_cover_volumes() {
        // 512^3: tiles of 32 x 16 x 16 voxels.
        let volume = TileGridArgs::new(512, 512, 512, false).unwrap();
        assert_eq!((volume.tile_height, volume.tile_depth), (16, 16));
        assert_eq!((volume.height_shift, volume.depth_shift), (4, 4));
        assert_eq!(volume.tiles(), 16 * 32 * 32);
        assert_eq!(volume.words_in_all(), 16 * 512 * 512);
        // Slices of 5 rows: tiles of 8 rows by 32 slices.
        let thin = TileGridArgs::new(33, 5, 70, false).unwrap();
        assert_eq!((thin.words, thin.tile_height, thin.tile_depth), (2, 8, 32));
        assert_eq!(thin.tiles(), 2 * 3);
        // A row of voxels: one row by 256 slices.
        let needle = TileGridArgs::new(1, 1, 1000, false).unwrap();
        assert_eq!(
            (needle.tile_height, needle.tile_depth, needle.tiles()),
            (1, 256, 4)
        );
        // An image: tiles of 32 x 256 pixels, the last 8 rows short.
        let image = TileGridArgs::new(8192, 8200, 1, true).unwrap();
        assert_eq!((image.tile_height, image.tile_depth), (256, 1));
        assert_eq!(image.tiles(), 256 * 33);
        // A batch of 100 images of 64 x 64: 4 images a tile.
        let batch = TileGridArgs::new(64, 64, 100, true).unwrap();
        assert_eq!((batch.tile_height, batch.tile_depth), (64, 4));
        assert_eq!(batch.tiles(), 2 * 25);
        for grid in [volume, thin, needle, image, batch] {
            assert_eq!(grid.tile_height * grid.tile_depth, TILE_ROWS);
            assert_eq!(1 << grid.height_shift, grid.tile_height);
            assert_eq!(1 << grid.depth_shift, grid.tile_depth);
        }
    }

    /// `tile_divide` of `tiles.cu`, on the host.
    fn tile_divide(n: u32, magic: u64) -> u32 {
        if magic == 0 {
            n
        } else {
            ((n as u128 * magic as u128) >> 64) as u32
        }
    }

    #[test]
    fn division_magics_divide_every_32_bit_index_exactly() {
        let mut numbers = ccl_testdata::Xorshift64::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || numbers.next_u64();
        let mut divisors: Vec<u32> = vec![1, 2, 3, 5, 7, 33, 100, 511, 512, 513, 1000, 8191];
        divisors.extend([u32::MAX, u32::MAX - 1, 1 << 31, (1 << 31) + 1, 65537]);
        divisors.extend((0..200).map(|_| (next() as u32).max(1)));
        divisors.extend((0..200).map(|_| (next() % 5000) as u32 + 1));
        for d in divisors {
            let magic = division_magic(d);
            let mut numerators = vec![0, 1, d - 1, d, d.wrapping_add(1), u32::MAX, u32::MAX - 1];
            numerators.extend((1..64u32).map(|k| d.wrapping_mul(k)));
            numerators.extend((1..64u32).map(|k| d.wrapping_mul(k).wrapping_sub(1)));
            numerators.extend((0..500).map(|_| next() as u32));
            for n in numerators {
                assert_eq!(tile_divide(n, magic), n / d, "{n} / {d}");
            }
        }
    }

    #[test]
    fn every_connectivity_has_its_steps() {
        let sets: Vec<i32> = Connectivity::PLANE
            .into_iter()
            .chain(Connectivity::VOLUME)
            .map(step_set)
            .collect();
        let mut distinct = sets.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct, [0, 1, 2, 3, 4], "{sets:?}");
    }

    #[test]
    fn volumes_past_32_bit_indices_are_refused() {
        assert!(TileGridArgs::new(2048, 2048, 1024, false).is_err());
        assert!(TileGridArgs::new(2048, 2048, 1023, false).is_ok());
        assert!(TileGridArgs::new(65536, 65536, 1, true).is_err());
    }
}
