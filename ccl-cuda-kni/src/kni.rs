//! The `kni` variant: Kasagi, Nakano & Ito's subregion-graph labeling with
//! subregions of 32 × 32 pixels (`kni.cu` says what each kernel does).
//!
//! Stages: `local` (subregions labeled in shared memory, local roots
//! flagged), `allocate` (the shared back end ranks the local roots in raster
//! order: compact labels), `edges` (per-level edge lists across subregion
//! borders), `propagate (N rounds)` (per level, rounds of unions over its
//! edges until one changes nothing) and `lookup` (final labels). An image of
//! one subregion has no levels, hence no `edges` and no `propagate` stage.

use std::sync::Arc;

use ccl_core::{Connectivity, Error, Result};
use ccl_cuda::backend::RootLayout;
use ccl_cuda::backend::{ChangeFlag, DeviceVariant, Features, RootIndexArgs, Run};
use ccl_cuda::cudarc::driver::{CudaStream, CudaViewMut, DeviceRepr, LaunchConfig};
use ccl_cuda::runtime::{
    DevPtr, DeviceBuffer, DeviceImage, Gpu, ImageArgs, Kernel, KernelSource, blocks, cuda_error,
    warp_grid,
};

/// The side M of a subregion (tile). A tile row is one warp and one word of
/// the shared back end's root bits; the kernels rely on it being 32.
const TILE: u32 = 32;

/// Warps per block of the tile kernels: each thread takes `TILE / TILE_WARPS`
/// rows of its column.
const TILE_WARPS: u32 = 8;

/// The most levels a list table holds. A level l exists while
/// `2^(l-1) · 32 < max(width, height)`, and dimensions stay below 2^31, so
/// at most 26 levels are ever used.
const MAX_LEVELS: usize = 32;

/// Threads per block of the edge-list kernels (`kni_propagate`,
/// `kni_compress`).
const LIST_BLOCK: u32 = 256;

/// The most blocks of the edge-list kernels: they stride over the list,
/// whose length only the device knows, so the grid is sized from the
/// level's capacity and capped (enough to fill an H200 several times).
const LIST_MAX_BLOCKS: usize = 2048;

/// CUDA grids have at most 65535 blocks along y; taller tilings loop.
const MAX_GRID_ROWS: usize = 65_535;

const KERNELS: KernelSource = KernelSource {
    name: "kni",
    source: include_str!("kni.cu"),
    constants: &[
        ("KNI_TILE", TILE),
        ("KNI_TILE_WARPS", TILE_WARPS),
        ("KNI_MAX_LEVELS", MAX_LEVELS as u32),
    ],
};
ccl_cuda::inventory::submit! { KERNELS }

/// `KniGeometry` in `kni.cu`: the image and its tiling.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Geometry {
    width: u32,
    height: u32,
    tiles_x: u32,
    tiles_y: u32,
    eight: u32,
}

// SAFETY: plain old data with C layout, matching KniGeometry.
unsafe impl DeviceRepr for Geometry {}

/// What one image size needs: its tiling, the bound on compact labels, and
/// where each level's edges go.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Plan {
    geometry: Geometry,
    /// Entries of `T` and `root_pixel`: at least the number of local
    /// components. A tile of `a` pixels holds at most `ceil(a / 2)` of them
    /// in either connectivity: cover it with `ceil(a / 2)` dominoes (pairs
    /// along rows, the odd column's pixels paired down it, at most one
    /// pixel alone); the foreground pixels of a domino are adjacent, so each
    /// domino meets at most one local component, and each component meets
    /// one. Summed over the tiles: at most `(pixels + tiles) / 2`.
    labels: u32,
    /// Levels with edges (0 when the image is one tile).
    levels: usize,
    /// The edge list table as `kni.cu` reads it: per level, the offset of
    /// its list, then per level its capacity, then per level its edge count
    /// (zero, uploaded before the edge kernels).
    table: [u32; 3 * MAX_LEVELS],
    /// Edges of all lists.
    edges: usize,
}

impl Plan {
    fn new(width: usize, height: usize, eight: bool) -> Result<Self> {
        let too_large = |what: &str| {
            Error::InvalidDimensions(format!(
                "a {width}x{height} image has too many {what} for kni's 32-bit indices"
            ))
        };
        let tiles_x = width.div_ceil(TILE as usize);
        let tiles_y = height.div_ceil(TILE as usize);
        let tiles = tiles_x as u64 * tiles_y as u64;
        let pixels = width as u64 * height as u64;
        let labels = (pixels + tiles).div_ceil(2);
        let u32_of = |value: u64, what: &str| u32::try_from(value).map_err(|_| too_large(what));
        let geometry = Geometry {
            width: u32_of(width as u64, "columns")?,
            height: u32_of(height as u64, "rows")?,
            tiles_x: u32_of(tiles_x as u64, "tiles")?,
            tiles_y: u32_of(tiles_y as u64, "tiles")?,
            eight: u32::from(eight),
        };
        // Level l exists while 2^(l-1) · 32 < max(width, height); its
        // borders are the tile borders 32 k with k = odd · 2^(l-1), which
        // exist (k = 2^(l-1) < tiles along the longer side) exactly then.
        let longest = width.max(height) as u64;
        let mut levels = 0usize;
        while (u64::from(TILE) << levels) < longest {
            levels += 1;
        }
        if levels > MAX_LEVELS {
            return Err(too_large("levels"));
        }
        // One slot per border pixel and pair direction: the pixel across,
        // and in 8-connectivity the two diagonal ones.
        let slots: u64 = if eight { 3 } else { 1 };
        let mut table = [0u32; 3 * MAX_LEVELS];
        let mut total = 0u64;
        for level in 1..=levels {
            let vertical = borders_of_level(tiles_x as u64, level);
            let horizontal = borders_of_level(tiles_y as u64, level);
            let capacity = slots * (vertical * height as u64 + horizontal * width as u64);
            table[level - 1] = u32_of(total, "border pixels")?;
            table[MAX_LEVELS + level - 1] = u32_of(capacity, "border pixels")?;
            total += capacity;
        }
        // Offsets, capacities and the grid-stride indices of the list
        // kernels stay below 2^31 (in fact below 3 · 2 · pixels / 32).
        if total >= 1 << 31 {
            return Err(too_large("border pixels"));
        }
        Ok(Self {
            geometry,
            labels: u32_of(labels, "local components")?,
            levels,
            table,
            edges: total as usize,
        })
    }

    /// The edge capacity of level `level` (1-based).
    fn capacity(&self, level: usize) -> u32 {
        self.table[MAX_LEVELS + level - 1]
    }

    /// The offset of the list of level `level` (1-based).
    fn offset(&self, level: usize) -> u32 {
        self.table[level - 1]
    }

    /// The grid of the tile kernels: a block per tile, tile rows past 65535
    /// walked by the kernels.
    fn tile_grid(&self) -> Result<LaunchConfig> {
        let rows = (self.geometry.tiles_y as usize).clamp(1, MAX_GRID_ROWS);
        Ok(LaunchConfig {
            grid_dim: (blocks(self.geometry.tiles_x as usize, 1)?, rows as u32, 1),
            block_dim: (TILE, TILE_WARPS, 1),
            shared_mem_bytes: 0,
        })
    }
}

/// How many of the tile borders `k = 1 .. tiles - 1` belong to `level`
/// (1-based), i.e. have `level - 1` trailing zeros: the multiples of
/// `2^(level-1)` less those of `2^level`.
fn borders_of_level(tiles: u64, level: usize) -> u64 {
    let borders = tiles.saturating_sub(1);
    (borders >> (level - 1)) - (borders >> level)
}

/// A list kernel's grid: one thread per edge slot of a list of `capacity`,
/// capped at [`LIST_MAX_BLOCKS`] (the kernels stride).
fn list_grid(capacity: u32) -> Result<LaunchConfig> {
    let count = blocks(capacity as usize, LIST_BLOCK as usize)?;
    Ok(LaunchConfig {
        grid_dim: (count.clamp(1, LIST_MAX_BLOCKS as u32), 1, 1),
        block_dim: (LIST_BLOCK, 1, 1),
        shared_mem_bytes: 0,
    })
}

/// An edge kernel: labels, geometry, root index, the list table, the lists.
type EdgeKernel = Kernel<(
    DevPtr<u32>,
    Geometry,
    RootIndexArgs,
    DevPtr<u32>,
    DevPtr<u64>,
)>;

/// Kasagi, Nakano & Ito's labeling: its kernels, the shared back end that
/// ranks local roots into compact labels, and the buffers reused across
/// calls (the label table `T`, the pixel of each compact label, the edge
/// lists and their table).
pub struct Kni {
    local: Kernel<(ImageArgs, DevPtr<u32>, DevPtr<u32>, DevPtr<u32>, Geometry)>,
    allocate: Kernel<(RootIndexArgs, u32, u32, DevPtr<u32>, DevPtr<u32>, u32)>,
    edges_vertical: EdgeKernel,
    edges_horizontal: EdgeKernel,
    propagate: Kernel<(DevPtr<u64>, DevPtr<u32>, u32, DevPtr<u32>, DevPtr<u32>)>,
    compress: Kernel<(DevPtr<u64>, DevPtr<u32>, u32, DevPtr<u32>)>,
    lookup: Kernel<(
        DevPtr<u32>,
        Geometry,
        RootIndexArgs,
        DevPtr<u32>,
        DevPtr<u32>,
    )>,
    /// Ranks the local roots (this variant's own instance: the variant
    /// layer's analysis uses its own on the final labels).
    features: Features,
    changed: ChangeFlag,
    /// `T`: the forest over compact labels.
    table: DeviceBuffer<u32>,
    /// The raster index of each compact label's local root.
    root_pixel: DeviceBuffer<u32>,
    /// Every level's edge list, one after the other; an edge is
    /// `(b << 32) | a`, compact labels a and b.
    edges: DeviceBuffer<u64>,
    /// [`Plan::table`] on the device.
    lists: DeviceBuffer<u32>,
}

impl Kni {
    /// Compiles (once per process and device) and loads the kernels, on
    /// `stream`, which every call will use.
    pub fn new(gpu: &Arc<Gpu>, stream: &Arc<CudaStream>) -> Result<Self> {
        Ok(Self {
            local: Kernel::load(gpu, &KERNELS, "kni_local")?,
            allocate: Kernel::load(gpu, &KERNELS, "kni_allocate")?,
            edges_vertical: Kernel::load(gpu, &KERNELS, "kni_edges_vertical")?,
            edges_horizontal: Kernel::load(gpu, &KERNELS, "kni_edges_horizontal")?,
            propagate: Kernel::load(gpu, &KERNELS, "kni_propagate")?,
            compress: Kernel::load(gpu, &KERNELS, "kni_compress")?,
            lookup: Kernel::load(gpu, &KERNELS, "kni_lookup")?,
            features: Features::new(gpu)?,
            changed: ChangeFlag::new(stream)?,
            table: DeviceBuffer::new(),
            root_pixel: DeviceBuffer::new(),
            edges: DeviceBuffer::new(),
            lists: DeviceBuffer::new(),
        })
    }

    /// MAKEEDGE and LABELPROPAGATE (images of more than one tile): returns
    /// the number of propagation rounds.
    fn propagate_levels(
        &mut self,
        run: &mut Run<'_>,
        plan: &Plan,
        forest: DevPtr<u32>,
        roots: RootIndexArgs,
        table: DevPtr<u32>,
    ) -> Result<u32> {
        let stream = run.stream;
        let geometry = plan.geometry;
        let lists = DevPtr::of_mut(self.lists.reserve(stream, 3 * MAX_LEVELS)?, stream);
        let edges = DevPtr::of_mut(self.edges.reserve(stream, plan.edges)?, stream);
        let warps = TILE_WARPS as usize;
        let arguments = (forest, geometry, roots, lists, edges);
        // SAFETY (both edge kernels): `forest` holds width * height labels
        // (checked by the variant layer), read at pixels inside the image;
        // `roots` covers the image (the shared back end's layout of it);
        // `lists` holds the 3 · MAX_LEVELS words of the plan's table
        // (uploaded before the local kernel); `edges` holds `plan.edges`
        // slots, and each level writes only below its offset + capacity.
        if geometry.tiles_x > 1 {
            let config = LaunchConfig {
                grid_dim: (
                    blocks(geometry.tiles_x as usize - 1, warps)?,
                    (geometry.tiles_y as usize).clamp(1, MAX_GRID_ROWS) as u32,
                    1,
                ),
                block_dim: (32, TILE_WARPS, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: see above.
            unsafe { self.edges_vertical.launch(stream, config, arguments)? };
        }
        if geometry.tiles_y > 1 {
            let config = LaunchConfig {
                grid_dim: (
                    blocks(geometry.tiles_x as usize, warps)?,
                    (geometry.tiles_y as usize - 1).clamp(1, MAX_GRID_ROWS) as u32,
                    1,
                ),
                block_dim: (32, TILE_WARPS, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: see above.
            unsafe { self.edges_horizontal.launch(stream, config, arguments)? };
        }
        run.clock.mark("edges")?;
        let mut rounds = 0u32;
        let (propagate, compress) = (&self.propagate, &self.compress);
        for level in 1..=plan.levels {
            let capacity = plan.capacity(level);
            if capacity == 0 {
                continue;
            }
            let list = DevPtr::<u64>::from_address(
                edges.address() + u64::from(plan.offset(level)) * size_of::<u64>() as u64,
            );
            let count = DevPtr::<u32>::from_address(
                lists.address() + ((2 * MAX_LEVELS + level - 1) * size_of::<u32>()) as u64,
            );
            let config = list_grid(capacity)?;
            rounds = rounds.saturating_add(self.changed.until_stable(stream, |changed| {
                // SAFETY: `list` is this level's part of `edges` (capacity
                // slots) and `count` its count in `lists`; the kernel reads
                // at most min(count, capacity) edges, whose labels are
                // compact labels below `plan.labels`, the length of `T`
                // (`table`); `changed` is the flag's word, alive for the
                // round.
                unsafe { propagate.launch(stream, config, (list, count, capacity, table, changed)) }
            })?);
            // SAFETY: as for the propagation.
            unsafe { compress.launch(stream, config, (list, count, capacity, table))? };
        }
        Ok(rounds)
    }
}

impl DeviceVariant for Kni {
    fn check_size(&self, width: usize, height: usize) -> Result<()> {
        // Every size the variant layer accepts fits (the plan's checks
        // cannot fail below 2^32 pixels); checked here so that a size that
        // did not would be refused before the upload.
        Plan::new(width, height, true).map(|_| ())
    }

    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let stream = run.stream;
        let plan = Plan::new(
            image.width(),
            image.height(),
            run.connectivity == Connectivity::Eight,
        )?;
        let geometry = plan.geometry;
        let tiles = plan.tile_grid()?;
        if plan.levels > 0 {
            // Uploaded first: a copy from pageable memory may wait for the
            // stream, which is then still idle.
            let lists = self.lists.reserve(stream, 3 * MAX_LEVELS)?;
            stream
                .memcpy_htod(&plan.table[..], &mut lists.slice_mut(..3 * MAX_LEVELS))
                .map_err(cuda_error)?;
        }
        let layout = RootLayout::of(image);
        let words = u32::try_from(layout.words())
            .map_err(|_| Error::InvalidDimensions("too many root words for kni".into()))?;
        let flagging = self.features.begin(stream, layout)?;
        let targets = flagging.targets();
        let forest = DevPtr::of_mut(forest, stream);
        // SAFETY: `forest` holds width * height labels (checked by the
        // variant layer), written at pixels inside the image; `begin`
        // reserved a root word per 32 columns of each row (tile rows are
        // words: tiles_x = words per row) and a count per group, zeroed.
        unsafe {
            self.local.launch(
                stream,
                tiles,
                (
                    image.args(stream),
                    forest,
                    targets.bits,
                    targets.group_count,
                    geometry,
                ),
            )?
        };
        run.clock.mark("local")?;

        // The ranks are the compact labels; no features are wanted.
        let ranks = flagging.flagged().rank_only()?;
        let roots = ranks.index();
        let labels_u32 = plan.labels;
        let table = DevPtr::of_mut(self.table.reserve(stream, labels_u32 as usize)?, stream);
        let root_pixel = DevPtr::of_mut(
            self.root_pixel.reserve(stream, labels_u32 as usize)?,
            stream,
        );
        // SAFETY: one warp per root word of the layout `begin` reserved;
        // `table` and `root_pixel` hold `plan.labels` entries, more than
        // there are local roots (the bound of `Plan::labels`), and the
        // kernel writes only ranks below that.
        unsafe {
            self.allocate.launch(
                stream,
                warp_grid(layout.words(), TILE_WARPS)?,
                (roots, words, geometry.width, table, root_pixel, labels_u32),
            )?
        };
        run.clock.mark("allocate")?;

        if plan.levels > 0 {
            let rounds = self.propagate_levels(run, &plan, forest, roots, table)?;
            run.clock.mark_rounds("propagate", rounds)?;
        }

        // SAFETY: as for the local kernel; `table` and `root_pixel` were
        // written by the allocation for every compact label, and `T` only
        // ever holds compact labels.
        unsafe {
            self.lookup
                .launch(stream, tiles, (forest, geometry, roots, table, root_pixel))?
        };
        run.clock.mark("lookup")
    }
}

ccl_cuda::register_variant! {
    name: "kni",
    connectivities: &[Connectivity::Four, Connectivity::Eight],
    analyzes: true,
    summary: "subregion-graph labeling: 32x32 subregions in shared memory, per-level border edges, label propagation (Kasagi, Nakano & Ito, \"Fast image component labeling on the GPU\")",
    priority: 10,
    new: Kni::new,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_tile_has_no_levels() {
        for (width, height) in [(1, 1), (32, 32), (32, 1), (7, 32)] {
            let plan = Plan::new(width, height, true).unwrap();
            assert_eq!(plan.levels, 0, "{width}x{height}");
            assert_eq!(plan.edges, 0);
        }
    }

    #[test]
    fn levels_cover_every_tile_border_once() {
        for (width, height) in [
            (33, 1),
            (64, 64),
            (65, 3),
            (1000, 10),
            (4096, 777),
            (1, 5000),
        ] {
            for eight in [false, true] {
                let plan = Plan::new(width, height, eight).unwrap();
                let tiles_x = width.div_ceil(32);
                let tiles_y = height.div_ceil(32);
                let slots = if eight { 3 } else { 1 };
                let borders = (tiles_x - 1) * height + (tiles_y - 1) * width;
                assert_eq!(plan.edges, slots * borders, "{width}x{height}");
                let mut offset = 0;
                for level in 1..=plan.levels {
                    assert_eq!(plan.offset(level) as usize, offset);
                    assert!(plan.capacity(level) > 0, "{width}x{height} level {level}");
                    offset += plan.capacity(level) as usize;
                }
                assert_eq!(offset, plan.edges);
                // The deepest level's side covers the image.
                assert!(32 << plan.levels >= width.max(height));
                assert!(32 << (plan.levels - 1) < width.max(height));
            }
        }
    }

    #[test]
    fn the_largest_images_fit() {
        for (width, height) in [
            (i32::MAX as usize - 1024, 2),
            (2, i32::MAX as usize - 1024),
            (65_536, 65_535),
            (33, 130_150_524),
        ] {
            let plan = Plan::new(width, height, true).unwrap();
            assert!(plan.levels <= 26);
            assert!(plan.edges < 1 << 31);
            assert!(u64::from(plan.labels) >= (width * height).div_ceil(2) as u64);
        }
    }
}
