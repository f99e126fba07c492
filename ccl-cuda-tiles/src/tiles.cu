// Tiles: each block labels a tile of 32 x 16 x 16 voxels of a volume's bit
// image in shared memory, then the tiles are joined through their faces in
// global memory. After the tile-local labeling with border merging of
// O. Štava & B. Beneš, "Connected component labeling in CUDA" (GPU Computing
// Gems, Emerald Edition, 2011), here on runs of the packed bit image and in
// volumes, with 3-D tiles.
//
// A volume is the image of its rows, slice after slice (row z * height + y;
// ccl_cuda::backend::Slices). A tile is one bit word wide (32 columns),
// tile_height rows of a slice deep in y and tile_depth slices in z
// (tile_height * tile_depth = TILE_ROWS): a thread per row of the tile. Inside a tile, the union-find runs in shared
// memory over the tile's runs (a run's node is its first voxel), so that the
// links that make the long paths of a global forest never leave the chip;
// only the pairs of voxels on either side of a tile's faces are merged in
// global memory, a few percent of the voxels.
//
// The forest in global memory is a pixel forest of ccl_device.cuh: each
// tile writes every voxel's parent, the first voxel of its tile component,
// so that a tile component's first voxel is its node; the faces kernel
// merges nodes with the shared atomicMin merge. A parent is always a smaller
// index (a tile's voxels are ordered as the volume's), so each component's
// root is its first voxel in raster order, as the numbering needs.

// The backward neighbour rows of a row in each connectivity: the row dy
// rows up in the same slice (dz = 0) or in the slice before (dz = -1),
// whose voxels within `reach` columns touch (0: the same column only). The
// row itself (the voxel to the left) is a neighbour in every connectivity.
struct TileStep {
    int dy, dz, reach;
};

#define TILE_MAX_STEPS 4

// By connectivity index (tiles.rs `step_set`): 6, 18, 26, then the images'
// 4 and 8, whose slices (the images of a batch) do not touch.
__constant__ TileStep TILE_STEPS[5][TILE_MAX_STEPS] = {
    {{-1, 0, 0}, {0, -1, 0}},                               // 6
    {{-1, 0, 1}, {0, -1, 1}, {-1, -1, 0}, {1, -1, 0}},      // 18
    {{-1, 0, 1}, {0, -1, 1}, {-1, -1, 1}, {1, -1, 1}},      // 26
    {{-1, 0, 0}},                                           // 4
    {{-1, 0, 1}},                                           // 8
};
__constant__ int TILE_STEP_COUNT[5] = {2, 4, 4, 1, 1};
// The connectivity indices whose backward rows touch only in the same
// columns: their unions take a lane per touching pair.
#define TILE_SIX 0
#define TILE_FOUR 3

// How the rows of the bit image are cut into tiles (tiles.rs TileGridArgs).
struct TileGrid {
    u32 width;        // voxels per row
    u32 words;        // bit words per row: the tiles along x
    u32 height;       // rows per slice
    u32 depth;        // slices
    u32 tile_height;  // rows of a slice per tile, a power of two
    u32 height_shift; // log2(tile_height): per-voxel indices shift, not divide
    u32 tile_depth;   // slices per tile: TILE_ROWS / tile_height
    u32 depth_shift;  // log2(tile_depth)
    u32 tiles_y;      // tiles along y: ceil(height / tile_height)
};

// A word with bits s through e set.
__device__ __forceinline__ u32 bit_span(int s, int e) { return ((2u << e) - 1u) & ~((1u << s) - 1u); }

// `mask` widened by a column on each side (reach 1), within the word.
__device__ __forceinline__ u32 widen(u32 mask, int reach) { return reach ? mask | (mask << 1) | (mask >> 1) : mask; }

// The lane whose items hold `item` of a warp's items dealt out 32 at a
// time: the first whose `inclusive` count (ccl_warp_inclusive_scan of the
// lanes' counts) exceeds it, by a binary search over the lanes. Every lane
// calls, whether its item exists or not.
__device__ __forceinline__ u32 tile_holder(u32 inclusive, u32 item) {
    u32 holder = 0;
#pragma unroll
    for (u32 step = 16; step >= 1; step >>= 1)
        if (__shfl_sync(CCL_FULL_MASK, inclusive, holder + step - 1) <= item) holder += step;
    return holder;
}

// The unions of a tile's runs with their backward rows inside the tile
// (all rows at once: ccl_tile_merge halves the paths that grow across
// rows), a lane per run: a warp takes the runs of its 32 rows 32 at a time
// (a lane per row would leave most lanes idle, its row's runs and their
// merges many or few). Run j of the warp's runs is in the first row whose
// inclusive count exceeds j (a binary search over the lanes' counts), at
// that row's (j - runs before)-th start. For 18- and 26-connectivity, whose
// four backward rows each touch a run through a column more on either side.
__device__ __forceinline__ void tile_unions_by_run(u32* parent, const u32* row_bits, TileGrid g, int connectivity,
                                                   u32 starts) {
    const u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const u32 count = (u32)__popc(starts);
    const u32 inclusive = ccl_warp_inclusive_scan(count);
    const u32 total = __shfl_sync(CCL_FULL_MASK, inclusive, 31);
    const int steps = TILE_STEP_COUNT[connectivity];
    for (u32 base = 0; base < total; base += 32) {
        const u32 item = base + lane;
        const u32 holder = tile_holder(inclusive, item);
        const u32 before = __shfl_sync(CCL_FULL_MASK, inclusive - count, holder);
        const u32 holder_starts = __shfl_sync(CCL_FULL_MASK, starts, holder);
        if (item >= total) continue;
        const u32 rr = warp * 32 + holder, here = row_bits[rr];
        const int s = (int)__fns(holder_starts, 0, (int)(item - before + 1));
        const u32 run = bit_span(s, ccl_run_end(here, s));
        const int hy = (int)(rr & (g.tile_height - 1)), hz = (int)(rr >> g.height_shift);
        for (int k = 0; k < steps; ++k) {
            const TileStep step = TILE_STEPS[connectivity][k];
            const int ny = hy + step.dy, nz = hz + step.dz;
            // Rows outside the tile are the faces kernel's; rows of the tile
            // past the volume's edge hold no bits.
            if (ny < 0 || nz < 0 || ny >= (int)g.tile_height) continue;
            const u32 n = (u32)nz * g.tile_height + (u32)ny;
            const u32 other = row_bits[n];
            u32 touch = widen(run, step.reach) & other;
            while (touch) {
                const int b = __ffs(touch) - 1;
                ccl_tile_merge<true>(parent, rr * 32 + (u32)s, n * 32 + (u32)ccl_run_start(other, b));
                touch &= ~((2u << ccl_run_end(other, b)) - 1u);
            }
        }
    }
}

// The unions of 6- and 4-connectivity, a lane per touching pair: the
// backward rows (y - 1, and z - 1 with `slices`) touch a run only in the
// same columns, so each run
// of `word & other` is one pair of runs to merge, and a warp's pairs are
// dealt out 32 at a time as tile_unions_by_run deals out runs. One merge per
// lane keeps the lanes together; a lane per run merged one to four times
// (on the H100, 6-connectivity at g = 1: 1.22 against 1.77 ms per 512^3
// at 50 %, both with tile_flatten).
__device__ __forceinline__ void tile_unions_by_pair(u32* parent, const u32* row_bits, TileGrid g, u32 word,
                                                    bool slices) {
    const u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const u32 r = threadIdx.x, ly = r & (g.tile_height - 1), lz = r >> g.height_shift;
    // The first column of each pair with the row up (y - 1) and the row of
    // the slice before (z - 1), inside the tile.
    u32 up_pairs = 0, back_pairs = 0;
    if (ly > 0) {
        const u32 t = word & row_bits[r - 1];
        up_pairs = t & ~(t << 1);
    }
    if (slices && lz > 0) {
        const u32 t = word & row_bits[r - g.tile_height];
        back_pairs = t & ~(t << 1);
    }
    const u32 up_count = (u32)__popc(up_pairs), count = up_count + (u32)__popc(back_pairs);
    const u32 inclusive = ccl_warp_inclusive_scan(count);
    const u32 total = __shfl_sync(CCL_FULL_MASK, inclusive, 31);
    for (u32 base = 0; base < total; base += 32) {
        const u32 item = base + lane;
        const u32 holder = tile_holder(inclusive, item);
        u32 j = item - __shfl_sync(CCL_FULL_MASK, inclusive - count, holder);
        const u32 holder_up = __shfl_sync(CCL_FULL_MASK, up_pairs, holder);
        const u32 holder_up_count = __shfl_sync(CCL_FULL_MASK, up_count, holder);
        const u32 holder_back = __shfl_sync(CCL_FULL_MASK, back_pairs, holder);
        if (item >= total) continue;
        const bool up = j < holder_up_count;
        if (!up) j -= holder_up_count;
        const u32 rr = warp * 32 + holder, n = up ? rr - 1 : rr - g.tile_height;
        const int b = (int)__fns(up ? holder_up : holder_back, 0, (int)(j + 1));
        ccl_tile_merge<true>(parent, rr * 32 + (u32)ccl_run_start(row_bits[rr], b),
                             n * 32 + (u32)ccl_run_start(row_bits[n], b));
    }
}

// Points every run's node at its root once the unions are done, so that a
// voxel's root is one load away in the writing that follows (on the H100,
// finding it per voxel instead took 2.57 ms per 512^3 at 50 %, against
// 1.77). Other threads' finds walk the nodes meanwhile: a node's parent
// becomes its root, an ancestor as before, stored atomically as
// ccl_tile_find_halving stores its shortcuts.
__device__ __forceinline__ void tile_flatten(u32* parent, u32 r, u32 starts) {
    for (u32 m = starts; m; m &= m - 1) {
        const u32 i = r * 32 + (u32)(__ffs(m) - 1);
        atomicExch(parent + i, ccl_tile_find(parent, i));
    }
}

// Labels one tile (a block of TILE_ROWS threads, a thread per row): the
// tile's rows into shared memory, each run's node made a root, the unions
// of every row with its backward rows inside the tile, every node pointed
// at its root; then each voxel's parent (1 + the index of its tile
// component's first voxel; 0 for background) into `forest`, a warp writing
// 32 rows a row at a time (128 coalesced bytes), and, with `node_bits`
// (one bit per voxel in the bit image's layout), the first voxel of every
// tile component flagged: the candidates for the roots.
extern "C" __global__ void __launch_bounds__(TILE_ROWS)
    tiles_local(CclBits bits, TileGrid g, int connectivity, u32* forest, u32* node_bits) {
    __shared__ u32 row_bits[TILE_ROWS];
    __shared__ u32 parent[TILE_ROWS * 32];
    const u32 tx = blockIdx.x % g.words, tile_yz = blockIdx.x / g.words;
    const u32 y0 = tile_yz % g.tiles_y * g.tile_height, z0 = tile_yz / g.tiles_y * g.tile_depth;
    const u32 r = threadIdx.x, ly = r & (g.tile_height - 1), lz = r >> g.height_shift;
    const u32 y = y0 + ly, z = z0 + lz;
    const bool inside = y < g.height && z < g.depth;
    const u32 row = z * g.height + y;
    const u32 word = inside ? ccl_bits_row(bits, row)[tx] : 0u;
    const u32 starts = word & ~(word << 1);
    row_bits[r] = word;
    for (u32 m = starts; m; m &= m - 1) {
        const u32 i = r * 32 + (u32)(__ffs(m) - 1);
        parent[i] = i;
    }
    __syncthreads();
    if (connectivity == TILE_SIX || connectivity == TILE_FOUR)
        tile_unions_by_pair(parent, row_bits, g, word, connectivity == TILE_SIX);
    else
        tile_unions_by_run(parent, row_bits, g, connectivity, starts);
    __syncthreads();
    tile_flatten(parent, r, starts);
    __syncthreads();
    if (node_bits && inside) {
        u32 roots = 0;
        for (u32 m = starts; m; m &= m - 1) {
            const u32 i = r * 32 + (u32)(__ffs(m) - 1);
            if (parent[i] == i) roots |= 1u << (i & 31u);
        }
        node_bits[(size_t)row * g.words + tx] = roots;
    }
    const u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const u32 x = tx * 32 + lane;
    for (u32 k = 0; k < 32; ++k) {
        const u32 rr = warp * 32 + k;
        const u32 yy = y0 + (rr & (g.tile_height - 1)), zz = z0 + (rr >> g.height_shift);
        if (yy >= g.height || zz >= g.depth || x >= g.width) continue;
        const u32 w = row_bits[rr];
        u32 value = 0;
        if ((w >> lane) & 1u) {
            const u32 root = parent[rr * 32 + (u32)ccl_run_start(w, (int)lane)];
            const u32 root_row = root >> 5;
            const u32 root_y = y0 + (root_row & (g.tile_height - 1)), root_z = z0 + (root_row >> g.height_shift);
            value = (root_z * g.height + root_y) * g.width + tx * 32 + (root & 31u) + 1;
        }
        forest[(size_t)(zz * g.height + yy) * g.width + x] = value;
    }
}

// The global merge of nodes a and b, its finds halving their paths: the
// nodes of a large component are merged again and again across the faces
// (at 70 %, by nearly every word), and would walk ever longer chains.
__device__ __forceinline__ void tiles_merge(u32* forest, u32 a, u32 b) {
    while (true) {
        a = ccl_find_halving(forest, a);
        b = ccl_find_halving(forest, b);
        if (a == b) return;
        if (a > b) {
            const u32 t = a;
            a = b;
            b = t;
        }
        const u32 old = atomicMin(forest + b, a + 1);
        if (old == b + 1) return;
        b = old - 1;
    }
}

// The pair a thread has merged last, per backward row: the runs of a word
// mostly join the same two tile components.
struct FacePair {
    u32 a, b;
};

// Merges voxels a and b (both foreground) by their parents, unless these
// are the `last` pair.
__device__ __forceinline__ void tiles_join(u32* forest, u32 a, u32 b, FacePair* last) {
    const u32 pa = __ldcg(forest + a), pb = __ldcg(forest + b);
    if (pa == last->a && pb == last->b) return;
    last->a = pa;
    last->b = pb;
    tiles_merge(forest, pa - 1, pb - 1);
}

// Joins the tiles (a thread per word of a row): for each backward row in
// another tile (a face), every voxel of this word with the voxels of that
// row it touches; for a backward row in the same tile, only the pairs that
// cross the word's edge (the voxel before the word's first column, after
// its last), which belong to the tiles beside it.
//
// A pair across the word's edge is skipped, from the bits alone, where
// other pairs join it already: the pair of this row (a = the word's first
// voxel, b = the one before) where the row above crosses the edge too (a
// and b each touch the voxel above, and the row above's pair is joined or
// skipped the same way: the first row of a streak joins it), and a
// diagonal pair (a, b' = b's column in a backward row) where b or a's
// column in that row is foreground (a joins b' through it: same-column
// pairs are a tile's or a face's, the edge pairs of the two rows joined or
// skipped as said). The x edges of a large component are crossed by nearly
// every row: most pairs are skipped without reading the forest.
extern "C" __global__ void __launch_bounds__(256) tiles_faces(CclBits bits, TileGrid g, int connectivity, u32* forest) {
    const u64 index = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= (u64)g.height * g.depth * g.words) return;
    const u32 row = (u32)(index / g.words), w = (u32)(index % g.words);
    const u32* here_row = ccl_bits_row(bits, row);
    const u32 word = here_row[w];
    if (!word) return;
    const u32 y = row % g.height, z = row / g.height;
    const u32 first = row * g.width + w * 32;  // the word's first voxel
    // The voxels beside the word's edges in this row (0 past the row's ends).
    const bool left = w > 0 && (here_row[w - 1] >> 31), right = w + 1 < g.words && (here_row[w + 1] & 1u);
    FacePair last = {0u, 0u};
    if ((word & 1u) && left) {
        // The run through the word's left edge, unless the row above crosses
        // it too.
        const u32* up = y > 0 ? here_row - g.words : nullptr;
        if (!(up && (up[w] & 1u) && (up[w - 1] >> 31))) tiles_join(forest, first, first - 1, &last);
    }
    for (int k = 0; k < TILE_STEP_COUNT[connectivity]; ++k) {
        const TileStep step = TILE_STEPS[connectivity][k];
        const int ny = (int)y + step.dy, nz = (int)z + step.dz;
        if (ny < 0 || nz < 0 || ny >= (int)g.height) continue;
        const u32 other_row = (u32)nz * g.height + (u32)ny;
        const u32* other_bits = ccl_bits_row(bits, other_row);
        const u32 other = other_bits[w];
        const u32 other_first = other_row * g.width + w * 32;
        last.a = last.b = 0;
        if (step.reach) {
            if ((word & 1u) && w > 0 && (other_bits[w - 1] >> 31) && !left && !(other & 1u))
                tiles_join(forest, first, other_first - 1, &last);
            if ((word >> 31) && w + 1 < g.words && (other_bits[w + 1] & 1u) && !right && !(other >> 31))
                tiles_join(forest, first + 31, other_first + 32, &last);
        }
        const bool same_tile = (u32)ny >> g.height_shift == y >> g.height_shift &&
                               (u32)nz >> g.depth_shift == z >> g.depth_shift;
        if (same_tile || !other) continue;
        for (u32 starts = word & ~(word << 1); starts; starts &= starts - 1) {
            const int s = __ffs(starts) - 1;
            u32 touch = widen(bit_span(s, ccl_run_end(word, s)), step.reach) & other;
            while (touch) {
                const int b = __ffs(touch) - 1;
                tiles_join(forest, first + (u32)s, other_first + (u32)b, &last);
                touch &= ~((2u << ccl_run_end(other, b)) - 1u);
            }
        }
    }
}

// Flags the roots among the nodes (a thread per word of `root_bits`, which
// holds the node bits of tiles_local and gets the root bits), counts them
// per group of CCL_ROOT_GROUP_WORDS words (`group_count`, zeroed before),
// and points every other node at its root, so that a voxel's root is two
// loads away: its node, the node's parent.
extern "C" __global__ void __launch_bounds__(256)
    tiles_roots(TileGrid g, u32* forest, u32* root_bits, u32 root_words, u32* group_count) {
    const u32 index = blockIdx.x * blockDim.x + threadIdx.x;
    u32 roots = 0;
    if (index < root_words) {
        const u32 nodes = root_bits[index];
        const u32 first = index / g.words * g.width + index % g.words * 32;
        for (u32 m = nodes; m; m &= m - 1) {
            const int s = __ffs(m) - 1;
            const u32 node = first + (u32)s;
            if (forest[node] == node + 1)
                roots |= 1u << s;
            else
                forest[node] = ccl_find(forest, node) + 1;
        }
        if (roots != nodes) root_bits[index] = roots;
    }
    // A warp's 32 words lie in one group (groups are whole warps of words).
    const u32 count = __reduce_add_sync(CCL_FULL_MASK, (u32)__popc(roots));
    if ((threadIdx.x & 31u) == 0 && count) atomicAdd(group_count + (index / CCL_ROOT_GROUP_WORDS), count);
}

// The canonical label of a voxel whose forest entry is `parent` (after
// tiles_roots): 0 for background, else its root's rank + 1.
__device__ __forceinline__ u32 tile_label(const u32* forest, u32 width, CclRootIndex roots, u32 parent) {
    if (!parent) return 0;
    const u32 root = forest[parent - 1] - 1;
    return ccl_root_label(roots, root % width, root / width);
}

// Each voxel's canonical label from the forest into `labels` (a thread per
// four voxels of the flat volume, 16-byte loads and stores where both
// buffers are aligned to them: `vectors`, else one voxel at a time). Runs
// of one component share a parent: a thread reuses its last label.
extern "C" __global__ void __launch_bounds__(256)
    tiles_number(const u32* forest, u32 width, CclRootIndex roots, u32* labels, u64 voxels, int vectors) {
    const u64 quad = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    const u64 first = quad * 4;
    if (first >= voxels) return;
    u32 last_parent = 0, last_label = 0;
    if (vectors && first + 4 <= voxels) {
        const uint4 parents = *(const uint4*)(forest + first);
        const u32 p[4] = {parents.x, parents.y, parents.z, parents.w};
        u32 out[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            if (p[i] != last_parent) {
                last_parent = p[i];
                last_label = tile_label(forest, width, roots, p[i]);
            }
            out[i] = p[i] ? last_label : 0u;
        }
        *(uint4*)(labels + first) = make_uint4(out[0], out[1], out[2], out[3]);
        return;
    }
    for (u64 v = first; v < first + 4 && v < voxels; ++v) {
        const u32 p = forest[v];
        if (p != last_parent) {
            last_parent = p;
            last_label = tile_label(forest, width, roots, p);
        }
        labels[v] = p ? last_label : 0u;
    }
}
