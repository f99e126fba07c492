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
// The connectivity indices (TILE_STEPS' rows).
#define TILE_SIX 0
#define TILE_EIGHTEEN 1
#define TILE_TWENTY_SIX 2
#define TILE_FOUR 3
#define TILE_EIGHT 4

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
    u32 padding;
    // n / width and n / height for any 32-bit n as __umul64hi(n, magic),
    // magic = ceil(2^64 / divisor) (tile_divide; 0 for a divisor of 1).
    u64 width_magic;
    u64 height_magic;
};

// A tile row past the volume's edge (tiles_local's row_first): no voxel's
// flat index, which is below 2^32 - the width.
#define TILE_OUTSIDE 0xffffffffu

// n / divisor by the divisor's magic (TileGrid): the high word of n * magic
// errs by less than n / 2^64 < 1 / divisor, too little to reach the next
// integer.
__device__ __forceinline__ u32 tile_divide(u32 n, u64 magic) { return magic ? (u32)__umul64hi((u64)n, magic) : n; }

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

// The bits of `runs` from each bit of `seeds` down to the first bit of its
// run of `runs` (a run's first bit is in the result when a seed lies in
// the run): prefix ORs over growing spans, each masked by where `runs`
// holds a whole span.
__device__ __forceinline__ u32 tile_fill_down(u32 seeds, u32 runs) {
    u32 filled = seeds & runs, whole = runs;
#pragma unroll
    for (int span = 1; span < 32; span <<= 1) {
        filled |= (filled >> span) & whole;
        whole &= whole >> span;
    }
    return filled;
}

// The pairs of runs that this row's runs (`word`, the tile's row r) make
// with the backward row of `step` inside the tile, one bit a pair, keyed by
// a column of this row or the next (tile_unions decodes them): where the
// two runs share columns, the first shared one; with `reach` 1, where they
// only touch diagonally, this run's first column (the other run ends the
// column before) or the column after this run's last (the other run starts
// there). Two pairs never share a key: a shared column is foreground in
// both rows, the first diagonal key in this row alone, the second in the
// other alone.
//
// Pairs that other unions imply are left out, from the bits alone:
// - a pair with the row up or down of the slice before (18 and 26): a voxel
//   whose column is foreground in its own slice's row up or down or in its
//   row of the slice before joins every voxel of that row it touches
//   through that voxel, by pairs with the same-slice and slice-before rows
//   that are never left out, all inside the tile since the diagonal row is;
// - in 6-connectivity, a pair with the slice before where a shared column
//   is the corner of a full square with the row up and the row up of the
//   slice before: the voxel there joins the pair's two runs through the row
//   up, its own pair with the slice before, and the slice before's pair
//   with its row up. Up pairs are all merged, and a pair of the row up with
//   the slice before is merged or implied the same way (in the tile's first
//   row of a slice, merged), so the pair is left out (on the H200 the tile
//   stage at 60 % went from 1.01 to 0.91 ms).
// A shared run of columns is left out when one of its columns is implied
// (tile_fill_down finds the key below it), a diagonal pair when this row's
// voxel of it is.
template <int C>
__device__ __forceinline__ u32 tile_step_pairs(const u32* row_bits, TileGrid g, u32 r, u32 word, TileStep step) {
    const int ly = (int)(r & (g.tile_height - 1)), lz = (int)(r >> g.height_shift);
    const int ny = ly + step.dy, nz = lz + step.dz;
    // Rows outside the tile are the faces kernel's; rows of the tile past
    // the volume's edge hold no bits.
    if (ny < 0 || nz < 0 || ny >= (int)g.tile_height) return 0;
    const u32 other = row_bits[(u32)nz * g.tile_height + (u32)ny];
    const u32 shared = word & other;
    u32 implied = 0;
    if (step.dy && step.dz)
        implied = row_bits[(u32)lz * g.tile_height + (u32)ny] | row_bits[(u32)nz * g.tile_height + (u32)ly];
    else if (C == TILE_SIX && step.dz && ly > 0)
        implied = row_bits[r - 1] & row_bits[r - 1 - g.tile_height];
    u32 keys = shared & ~(shared << 1) & ~tile_fill_down(shared & implied, shared);
    if (C != TILE_SIX && C != TILE_FOUR && step.reach) {
        const u32 starts = word & ~(word << 1), ends = word & ~(word >> 1);
        const u32 other_starts = other & ~(other << 1), other_ends = other & ~(other >> 1);
        keys |= starts & (other_ends << 1) & ~implied;
        keys |= (ends & (other_starts >> 1) & ~implied) << 1;
    }
    return keys;
}

// The unions of a tile's runs with their backward rows inside the tile
// (all rows at once: ccl_tile_merge halves the paths that grow across
// rows), a lane per pair of runs to merge (tile_step_pairs): a warp deals
// its 32 rows' pairs out 32 at a time, pair j to the first row whose
// inclusive count exceeds j (a binary search over the lanes' counts). One
// merge per lane keeps the lanes together where a lane per run merged one
// to a dozen times: on the H100, 6-connectivity at g = 1, 1.22 against
// 1.77 ms per 512^3 at 50 %, both with tile_flatten; on the H200, 18- and
// 26-connectivity at g = 1, 31-70 %, 0.67-0.71 of the time a lane per run
// took (18 at 50 %: 2.45 against 3.68 ms).
template <int C>
__device__ __forceinline__ void tile_unions(u32* parent, const u32* row_bits, TileGrid g, u32 word) {
    // TILE_STEP_COUNT[C], and whether the steps reach a column aside.
    constexpr int steps = C == TILE_SIX ? 2 : C == TILE_FOUR || C == TILE_EIGHT ? 1 : 4;
    constexpr bool reaching = C != TILE_SIX && C != TILE_FOUR;
    const u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, r = threadIdx.x;
    // Each step's row as an offset from this one's, held in registers: a
    // load from TILE_STEPS by the pair's step took the tile stage 2 %
    // longer in 6-connectivity and 6 % in 18 (H200, g = 1, 50 %).
    u32 pairs[steps], count = 0;
    int offsets[steps];
#pragma unroll
    for (int k = 0; k < steps; ++k) {
        const TileStep step = TILE_STEPS[C][k];
        pairs[k] = tile_step_pairs<C>(row_bits, g, r, word, step);
        count += (u32)__popc(pairs[k]);
        offsets[k] = step.dz * (int)g.tile_height + step.dy;
    }
    const u32 inclusive = ccl_warp_inclusive_scan(count);
    const u32 total = __shfl_sync(CCL_FULL_MASK, inclusive, 31);
    for (u32 base = 0; base < total; base += 32) {
        const u32 item = base + lane;
        const u32 holder = tile_holder(inclusive, item);
        u32 j = item - __shfl_sync(CCL_FULL_MASK, inclusive - count, holder);
        u32 holder_pairs[steps];
#pragma unroll
        for (int k = 0; k < steps; ++k) holder_pairs[k] = __shfl_sync(CCL_FULL_MASK, pairs[k], holder);
        if (item < total) {
            // The pair's step: the first whose pairs, counted on from the
            // steps before, exceed j.
            u32 mask = holder_pairs[0];
            int offset = offsets[0];
            bool found = j < (u32)__popc(mask);
#pragma unroll
            for (int k = 1; k < steps; ++k) {
                if (!found) {
                    j -= (u32)__popc(mask);
                    mask = holder_pairs[k];
                    offset = offsets[k];
                    found = j < (u32)__popc(mask);
                }
            }
            const u32 rr = warp * 32 + holder, n = rr + (u32)offset;
            const int key = (int)__fns(mask, 0, (int)(j + 1));
            const u32 here = row_bits[rr], other = row_bits[n];
            // tile_step_pairs' keys: a column of both rows, of this row
            // alone (the other's run ends before it), or of the other alone
            // (this run ends before it); without reach, always of both.
            const int x = !reaching || ccl_bit(here, key) ? key : key - 1;
            const int nx = !reaching || ccl_bit(other, key) ? key : key - 1;
            ccl_tile_merge<true>(parent, rr * 32 + (u32)ccl_run_start(here, x),
                                 n * 32 + (u32)ccl_run_start(other, nx));
        }
        // The merges diverge: the lanes meet again before the next round's
        // shuffles, which otherwise ran a few lanes at a time through the
        // compiler's divergent path (ncu, 6-connectivity at 60 %: 21 % fewer
        // instructions in tiles_local with this, 1.30 -> 1.01 ms).
        __syncwarp();
    }
}

// Calls visit(bit) for each set bit of `mask`, this thread's row of a tile,
// from bit `lane` up and around: the lanes of a warp, a row each, then
// touch a row-major table of the tile's voxels in different banks at each
// step, where from bit 0 up they would all start near a row's first
// columns and wait on the same banks.
template <typename Visit>
__device__ __forceinline__ void tile_for_each_bit(u32 mask, Visit visit) {
    const u32 lane = threadIdx.x & 31u;
    for (u32 m = __funnelshift_r(mask, mask, lane); m; m &= m - 1) visit(((u32)__ffs(m) - 1u + lane) & 31u);
}

// Points every run's node at its root once the unions are done, so that a
// voxel's root is one load away in the writing that follows (on the H100,
// finding it per voxel instead took 2.57 ms per 512^3 at 50 %, against
// 1.77). Other threads' finds walk the nodes meanwhile: a node's parent
// becomes its root, an ancestor as before, stored atomically as
// ccl_tile_find_halving stores its shortcuts.
__device__ __forceinline__ void tile_flatten(u32* parent, u32 r, u32 starts) {
    tile_for_each_bit(starts, [&](u32 bit) {
        const u32 i = r * 32 + bit;
        atomicExch(parent + i, ccl_tile_find(parent, i));
    });
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
    // The flat index of each row's first voxel in the tile (TILE_OUTSIDE
    // for rows past the volume's edge): a root's index and a row's place in
    // the forest are one load away in the writing below.
    __shared__ u32 row_first[TILE_ROWS];
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
    row_first[r] = inside ? row * g.width + tx * 32u : TILE_OUTSIDE;
    tile_for_each_bit(starts, [&](u32 bit) { parent[r * 32 + bit] = r * 32 + bit; });
    __syncthreads();
    switch (connectivity) {
        case TILE_SIX: tile_unions<TILE_SIX>(parent, row_bits, g, word); break;
        case TILE_EIGHTEEN: tile_unions<TILE_EIGHTEEN>(parent, row_bits, g, word); break;
        case TILE_TWENTY_SIX: tile_unions<TILE_TWENTY_SIX>(parent, row_bits, g, word); break;
        case TILE_FOUR: tile_unions<TILE_FOUR>(parent, row_bits, g, word); break;
        default: tile_unions<TILE_EIGHT>(parent, row_bits, g, word); break;
    }
    __syncthreads();
    tile_flatten(parent, r, starts);
    __syncthreads();
    if (node_bits && inside) {
        u32 roots = 0;
        tile_for_each_bit(starts, [&](u32 bit) {
            if (parent[r * 32 + bit] == r * 32 + bit) roots |= 1u << bit;
        });
        node_bits[(size_t)row * g.words + tx] = roots;
    }
    const u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (tx * 32 + lane >= g.width) return;
    for (u32 k = 0; k < 32; ++k) {
        const u32 rr = warp * 32 + k, first = row_first[rr];
        if (first == TILE_OUTSIDE) continue;
        const u32 w = row_bits[rr];
        u32 value = 0;
        if ((w >> lane) & 1u) {
            const u32 root = parent[rr * 32 + (u32)ccl_run_start(w, (int)lane)];
            value = row_first[root >> 5] + (root & 31u) + 1;
        }
        forest[(size_t)first + lane] = value;
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

// ------------------------------------------------------------- features
//
// A volume's features from its tiles, with no label pass. Each tile's runs
// are keyed (tile_part_key) and gathered in shared memory into a part per
// key; a component's part that holds its root stores the component's whole
// record at once, with no atomics (a small component is one part: the
// record of most components at low densities is this one store), and the
// others are added to the records after every root's store: put aside in
// the tile's share of a scratch buffer by tiles_features, then added by
// tiles_add_parts, a warp per tile, its parts of one component together
// (the large component of a dense volume has parts in every tile); a tile
// whose parts overflow its share is gathered again by tiles_regather_parts.

// The tile-local index (row of the tile * 32 + column in the word) of
// voxel `v` (a flat index) of the tile whose first voxel is at (x0, y0,
// z0), or TILE_NO_KEY where `v` lies outside that tile.
#define TILE_NO_KEY 0xffffffffu
__device__ __forceinline__ u32 tile_local_index(TileGrid g, u32 x0, u32 y0, u32 z0, u32 v) {
    const u32 row = tile_divide(v, g.width_magic), x = v - row * g.width;
    const u32 z = tile_divide(row, g.height_magic), y = row - z * g.height;
    if (x - x0 >= 32u || y - y0 >= g.tile_height || z - z0 >= g.tile_depth) return TILE_NO_KEY;
    return (((z - z0) << g.height_shift) | (y - y0)) * 32u + (x - x0);
}

// The part of the tile that the run starting at voxel `v` (tile-local index
// `own`) adds to, keyed by a voxel of the tile: its component's root where
// that lies in the tile, else its tile component's first voxel (its node:
// after tiles_roots, a non-node voxel's parent is its node and a node's
// parent its root). A key is the first voxel, in raster order, of the
// voxels keyed to it, or of a part of their component before them: its z is
// their part's least. A component's root keys exactly one part.
__device__ __forceinline__ u32 tile_part_key(const u32* forest, TileGrid g, u32 x0, u32 y0, u32 z0, u32 v,
                                             u32 own) {
    const u32 node = forest[v] - 1;
    const u32 node_key = tile_local_index(g, x0, y0, z0, node);
    if (node_key == TILE_NO_KEY) return own;  // v is a node whose root is elsewhere
    const u32 root_key = tile_local_index(g, x0, y0, z0, forest[node] - 1);
    return root_key == TILE_NO_KEY ? node_key : root_key;
}

// The flat index of the voxel at tile-local index `key`.
__device__ __forceinline__ u32 tile_key_voxel(TileGrid g, u32 x0, u32 y0, u32 z0, u32 key) {
    const u32 r = key >> 5;
    const u32 y = y0 + (r & (g.tile_height - 1)), z = z0 + (r >> g.height_shift);
    return (z * g.height + y) * g.width + x0 + (key & 31u);
}

// The runs of a warp's 32 rows of a tile (a row per lane, `word` its
// bits), dealt out a lane each, 32 at a time (tile_dealt_run): the lanes
// stay busy however the runs fall in the rows. As tile_unions deals
// pairs.
struct TileRunDeal {
    u32 starts, count, inclusive, total;
};

__device__ __forceinline__ TileRunDeal tile_deal_runs(u32 word) {
    TileRunDeal deal;
    deal.starts = word & ~(word << 1);
    deal.count = (u32)__popc(deal.starts);
    deal.inclusive = ccl_warp_inclusive_scan(deal.count);
    deal.total = __shfl_sync(CCL_FULL_MASK, deal.inclusive, 31);
    return deal;
}

// A lane's run of a deal: its row of the tile, that row's bits and first
// voxel's flat index, its first and last columns; `valid` false past the
// warp's runs.
struct TileRun {
    bool valid;
    u32 row, word, row_first, start, end;
};

// Run `base + lane` of the deal (every lane calls). `row_first` is the flat
// index of the lane's row's first voxel in the tile.
__device__ __forceinline__ TileRun tile_dealt_run(const TileRunDeal& deal, u32 word, u32 row_first, u32 base) {
    const u32 lane = threadIdx.x & 31u;
    const u32 item = base + lane;
    const u32 holder = tile_holder(deal.inclusive, item);
    const u32 before = __shfl_sync(CCL_FULL_MASK, deal.inclusive - deal.count, holder);
    const u32 holder_starts = __shfl_sync(CCL_FULL_MASK, deal.starts, holder);
    TileRun run;
    run.word = __shfl_sync(CCL_FULL_MASK, word, holder);
    run.row_first = __shfl_sync(CCL_FULL_MASK, row_first, holder);
    run.row = (threadIdx.x & ~31u) + holder;
    run.valid = item < deal.total;
    run.start = run.valid ? (u32)__fns(holder_starts, 0, (int)(item - before + 1)) : 0u;
    run.end = run.valid ? (u32)ccl_run_end(run.word, (int)run.start) : 0u;
    return run;
}

// The most runs of a warp's 32 rows of a tile (16 a word): a run's key is
// kept at its slot of the warp's deal (tile_run_slot), 8 KB a tile.
#define TILE_RUNS_PER_WARP 512u

// Where the key of run `base + lane` of a warp's deal is kept.
__device__ __forceinline__ u32 tile_run_slot(u32 base) {
    return (threadIdx.x >> 5) * TILE_RUNS_PER_WARP + base + (threadIdx.x & 31u);
}

// A tile and its keys (after tile_scan_keys): a bit per key voxel in each
// row of the tile, the keys of the rows before, the keys in all, and the
// key of each run at its slot of the deal.
struct TileKeys {
    u32 x0, y0, z0;
    u32* bits;
    u32* base;
    u32 total;
    u16* run_keys;
};

// The parts of the keys ranked in [window, window + Parts) in shared
// memory, 24 bytes each, packed so that a run adds to its part with six
// atomics: its voxels and the sum of their local columns in one word
// (TILE_AREA_SHIFT), its columns as a mask, its local rows (tile_rows_add),
// its last local slice (the first is its key's), and the sums of its local
// rows and slices.
template <u32 Parts>
struct TilePartTable {
    u32 area_sum_x[Parts], x_mask[Parts], y_rows[Parts], z_hi[Parts], sum_y[Parts], sum_z[Parts];
};

// A part's area (at most 8192 = 2^13, a tile's voxels) lies above this bit
// of its packed word, the sum of its local columns (at most 8192 * 31 <
// 2^18) below it.
#define TILE_AREA_SHIFT 18u

// The most lanes of a round, holding runs (or parts put aside) of one part
// (a group of __match_any_sync), that add each on its own; a larger group
// (the large component of a dense tile) is reduced over its lanes and
// added once. The compiler runs the reductions once per distinct group,
// and a few lanes on one word of memory serialize less than that.
#define TILE_CROWDED 4

__device__ __forceinline__ bool tile_crowded(u32 group) { return __popc(group) > TILE_CROWDED; }

// A part's local rows in one word: a mask of them where a tile is at most
// 32 rows of a slice deep (a volume's, and images of up to 32 rows several
// to a tile), else their last (an image's tile of 64 to 256 rows: the
// first is its key's, as an image's part lies in one slice, like its
// component). A run's word for its local row `ly`:
__device__ __forceinline__ u32 tile_rows_of(TileGrid g, u32 ly) { return g.tile_height <= 32u ? 1u << ly : ly; }

// The word of tile_rows_of of the lanes of `group` (every lane of it calls).
__device__ __forceinline__ u32 tile_rows_join(TileGrid g, u32 group, u32 rows) {
    return g.tile_height <= 32u ? __reduce_or_sync(group, rows) : __reduce_max_sync(group, rows);
}

// Adds a run's (or a group's) word of tile_rows_of to its part's.
__device__ __forceinline__ void tile_rows_add(TileGrid g, u32* rows, u32 more) {
    if (g.tile_height <= 32u)
        atomicOr(rows, more);
    else
        atomicMax(rows, more);
}

// The tile of this block: its first voxel, its keys flagged and counted.
// Every thread of the block calls (barriers inside).
__device__ __forceinline__ TileKeys tile_scan_keys(const u32* forest, TileGrid g, u32 word, u32 row_first,
                                                    u32* key_bits, u32* key_base, u32* warp_totals,
                                                    u16* run_keys) {
    const u32 tx = blockIdx.x % g.words, tile_yz = blockIdx.x / g.words;
    TileKeys keys;
    keys.x0 = tx * 32u;
    keys.y0 = tile_yz % g.tiles_y * g.tile_height;
    keys.z0 = tile_yz / g.tiles_y * g.tile_depth;
    keys.bits = key_bits;
    keys.base = key_base;
    keys.run_keys = run_keys;
    const u32 r = threadIdx.x;
    key_bits[r] = 0;
    __syncthreads();
    const TileRunDeal deal = tile_deal_runs(word);
    for (u32 base = 0; base < deal.total; base += 32) {
        const TileRun run = tile_dealt_run(deal, word, row_first, base);
        if (run.valid) {
            const u32 key = tile_part_key(forest, g, keys.x0, keys.y0, keys.z0, run.row_first + run.start,
                                          run.row * 32u + run.start);
            run_keys[tile_run_slot(base)] = (u16)key;
            atomicOr(key_bits + (key >> 5), 1u << (key & 31u));
        }
        __syncwarp();  // as in tile_unions
    }
    __syncthreads();
    const u32 count = (u32)__popc(key_bits[r]);
    const u32 inclusive = ccl_block_inclusive_scan(count, warp_totals);
    key_base[r] = inclusive - count;
    if (r == TILE_ROWS - 1) warp_totals[0] = inclusive;
    __syncthreads();
    keys.total = warp_totals[0];
    __syncthreads();
    return keys;
}

// The rank among the tile's keys of `key`.
__device__ __forceinline__ u32 tile_key_rank(const TileKeys& keys, u32 key) {
    const u32 row = key >> 5;
    return keys.base[row] + (u32)__popc(keys.bits[row] & ((1u << (key & 31u)) - 1u));
}

// The key of rank `rank`: in the last row whose keys before are at most it.
__device__ __forceinline__ u32 tile_key_of_rank(const TileKeys& keys, u32 rank) {
    u32 row = 0;
#pragma unroll
    for (u32 step = TILE_ROWS / 2; step >= 1; step >>= 1)
        if (keys.base[row + step] <= rank) row += step;
    return row * 32u + (u32)__fns(keys.bits[row], 0, (int)(rank - keys.base[row] + 1));
}

// Gathers the tile's runs (this thread's row's bits in `word`, its first
// voxel's flat index in `row_first`) into the parts of the keys ranked in
// [window, window + Parts), a lane per run, the lanes of a warp with one
// key added together (a lane alone, the common case at low densities, adds
// without the warp's reductions). Every thread of the block calls; the
// table must be cleared before and a barrier follow.
template <u32 Parts>
__device__ __forceinline__ void tile_gather(TileGrid g, const TileKeys& keys, u32 word, u32 row_first, u32 window,
                                            TilePartTable<Parts>* table) {
    const u32 lane = threadIdx.x & 31u;
    const TileRunDeal deal = tile_deal_runs(word);
    for (u32 base = 0; base < deal.total; base += 32) {
        const TileRun run = tile_dealt_run(deal, word, row_first, base);
        const u32 part = run.valid ? tile_key_rank(keys, keys.run_keys[tile_run_slot(base)]) - window : TILE_NO_KEY;
        const bool mine = part < Parts;
        const u32 group = __match_any_sync(CCL_FULL_MASK, mine ? part : TILE_NO_KEY);
        if (mine) {
            const u32 ly = run.row & (g.tile_height - 1), lz = run.row >> g.height_shift;
            const u32 area = run.end - run.start + 1;
            u32 area_sum_x = area << TILE_AREA_SHIFT | (run.start + run.end) * area / 2;
            u32 x_mask = bit_span((int)run.start, (int)run.end), y_rows = tile_rows_of(g, ly), z_hi = lz;
            u32 sum_y = area * ly, sum_z = area * lz;
            const bool crowded = tile_crowded(group);
            if (crowded) {
                area_sum_x = __reduce_add_sync(group, area_sum_x);
                x_mask = __reduce_or_sync(group, x_mask);
                y_rows = tile_rows_join(g, group, y_rows);
                z_hi = __reduce_max_sync(group, z_hi);
                sum_y = __reduce_add_sync(group, sum_y);
                sum_z = __reduce_add_sync(group, sum_z);
            }
            if (!crowded || lane == (u32)(__ffs(group) - 1)) {
                atomicAdd(table->area_sum_x + part, area_sum_x);
                atomicOr(table->x_mask + part, x_mask);
                tile_rows_add(g, table->y_rows + part, y_rows);
                atomicMax(table->z_hi + part, z_hi);
                atomicAdd(table->sum_y + part, sum_y);
                atomicAdd(table->sum_z + part, sum_z);
            }
        }
        __syncwarp();  // as in tile_unions
    }
}

// Empties the table (every thread calls; a barrier must follow).
template <u32 Parts>
__device__ __forceinline__ void tile_clear(TilePartTable<Parts>* table) {
    for (u32 i = threadIdx.x; i < Parts; i += TILE_ROWS) {
        table->area_sum_x[i] = table->x_mask[i] = table->y_rows[i] = table->z_hi[i] = 0;
        table->sum_y[i] = table->sum_z[i] = 0;
    }
}

// Part `i` of the table, of the key `key`, as a component's record in the
// volume's coordinates.
template <u32 Parts>
__device__ __forceinline__ CclVolumeStats tile_part_record(const TilePartTable<Parts>* table, TileGrid g,
                                                           const TileKeys& keys, u32 i, u32 key) {
    CclVolumeStats s;
    const u32 area_sum_x = table->area_sum_x[i], x_mask = table->x_mask[i], y_rows = table->y_rows[i];
    const u32 area = area_sum_x >> TILE_AREA_SHIFT;
    s.area = area;
    s.x_min = keys.x0 + (u32)(__ffs(x_mask) - 1);
    s.x_max = keys.x0 + 31u - (u32)__clz(x_mask);
    const bool row_mask = g.tile_height <= 32u;
    s.y_min = keys.y0 + (row_mask ? (u32)(__ffs(y_rows) - 1) : (key >> 5) & (g.tile_height - 1));
    s.y_max = keys.y0 + (row_mask ? 31u - (u32)__clz(y_rows) : y_rows);
    s.z_min = keys.z0 + ((key >> 5) >> g.height_shift);
    s.z_max = keys.z0 + table->z_hi[i];
    s.padding = 0;
    s.sum_x = (u64)(area_sum_x & ((1u << TILE_AREA_SHIFT) - 1u)) + (u64)area * keys.x0;
    s.sum_y = (u64)table->sum_y[i] + (u64)area * keys.y0;
    s.sum_z = (u64)table->sum_z[i] + (u64)area * keys.z0;
    return s;
}

// This thread's row of the block's tile (tile-local row threadIdx.x): its
// bits (0 past the volume's edge) and its first voxel's flat index.
struct TileRow {
    u32 word, first;
};

__device__ __forceinline__ TileRow tile_row(CclBits bits, TileGrid g) {
    const u32 r = threadIdx.x;
    const u32 tx = blockIdx.x % g.words, tile_yz = blockIdx.x / g.words;
    const u32 y = tile_yz % g.tiles_y * g.tile_height + (r & (g.tile_height - 1));
    const u32 z = tile_yz / g.tiles_y * g.tile_depth + (r >> g.height_shift);
    const u32 row = z * g.height + y;
    TileRow here;
    here.word = y < g.height && z < g.depth ? ccl_bits_row(bits, row)[tx] : 0u;
    here.first = row * g.width + tx * 32u;
    return here;
}

// Gathers the tile's parts Parts at a time (the keys ranked in each window)
// and calls visit(i, key) for part i of the table, of key `key`, a thread
// per part. Every thread of the block calls (barriers inside).
template <u32 Parts, typename Visit>
__device__ __forceinline__ void tile_for_each_part(TileGrid g, const TileKeys& keys, TileRow here,
                                                   TilePartTable<Parts>* table, Visit visit) {
    for (u32 window = 0; window < keys.total; window += Parts) {
        tile_clear(table);
        __syncthreads();
        tile_gather(g, keys, here.word, here.first, window, table);
        __syncthreads();
        for (u32 i = threadIdx.x; i < Parts && window + i < keys.total; i += TILE_ROWS)
            visit(i, tile_key_of_rank(keys, window + i));
        __syncthreads();
    }
}

// The words of a part put aside: its rank, then its record's fields but the
// padding (sums as two words, low first).
#define TILE_PENDING_WORDS 14u
// A tile's count of parts put aside when they did not fit its share of
// the scratch: tiles_add_parts gathers the tile again.
#define TILE_OVERFLOW 0xffffffffu

// The root and rank of the part keyed by the voxel `voxel`.
__device__ __forceinline__ u32 tile_part_rank(const u32* forest, TileGrid g, CclRootIndex roots, u32 voxel,
                                              u32* root) {
    *root = forest[voxel] - 1;
    return ccl_root_rank(roots, *root % g.width, *root / g.width);
}

// The first pass of a volume's features (a block per tile, a thread per
// row, after tiles_roots and the ranking): each root's part stored as its
// component's record (in the records' stats array, not initialised), every
// other part put aside in the tile's `share` words of `pending` (at least
// one: a count, then TILE_PENDING_WORDS words per part), or, past them, the
// tile marked TILE_OVERFLOW.
// Eight blocks an SM (32 registers a thread): the kernel waits on its
// loads and barriers, and a quarter more warps hide more of that than the
// registers past 32 save (H200, 6-connectivity, g = 1: 3-5 % less time in
// the features at 20-40 %, level at 14 %).
extern "C" __global__ void __launch_bounds__(TILE_ROWS, 8)
    tiles_features(CclBits bits, TileGrid g, const u32* __restrict__ forest, CclRootIndex roots,
                   CclVolumeStatsOut out, u32* pending, u32 share) {
    __shared__ u32 key_bits[TILE_ROWS], key_base[TILE_ROWS], warp_totals[32];
    __shared__ u16 run_keys[TILE_ROWS / 32 * TILE_RUNS_PER_WARP];
    __shared__ TilePartTable<TILE_PARTS> table;
    __shared__ u32 put_aside;
    const u32 r = threadIdx.x;
    const TileRow here = tile_row(bits, g);
    if (r == 0) put_aside = 0;
    const TileKeys keys = tile_scan_keys(forest, g, here.word, here.first, key_bits, key_base, warp_totals, run_keys);
    u32* mine = pending + (size_t)blockIdx.x * share;
    const u32 room = (share - 1) / TILE_PENDING_WORDS;
    tile_for_each_part(g, keys, here, &table, [&](u32 i, u32 key) {
        const u32 voxel = tile_key_voxel(g, keys.x0, keys.y0, keys.z0, key);
        u32 root;
        const u32 rank = tile_part_rank(forest, g, roots, voxel, &root);
        if (rank >= out.capacity) return;
        const CclVolumeStats s = tile_part_record(&table, g, keys, i, key);
        if (root == voxel) {
            out.stats[rank] = s;
            return;
        }
        const u32 slot = atomicAdd(&put_aside, 1u);
        if (slot >= room) return;
        u32* w = mine + 1 + slot * TILE_PENDING_WORDS;
        w[0] = rank;
        ccl_store_volume_box(w + 1, s);
        w[8] = (u32)s.sum_x;
        w[9] = (u32)(s.sum_x >> 32);
        w[10] = (u32)s.sum_y;
        w[11] = (u32)(s.sum_y >> 32);
        w[12] = (u32)s.sum_z;
        w[13] = (u32)(s.sum_z >> 32);
    });
    if (r == 0) mine[0] = put_aside > room ? TILE_OVERFLOW : put_aside;
}

// The second pass of a volume's features (after tiles_features; a warp per
// TILE_ADD_TILES_PER_WARP tiles, one after the other): the parts each tile
// put aside added to their records through the block's table by rank
// (ccl_volume_part_add), the lanes of a crowded rank reduced first. Past
// the percolation threshold the large component has parts in nearly every
// tile: the table turns the block's parts of it into shared-memory atomics
// and one update of its record (H200, 6-connectivity, g = 1, 40 %: 0.61 ms
// with an update per part, 0.14 ms so). A tile that overflowed its share
// is left to tiles_regather_parts.
extern "C" __global__ void __launch_bounds__(TILE_ROWS)
    tiles_add_parts(u32 tiles, CclVolumeStatsOut out, const u32* __restrict__ pending, u32 share) {
    __shared__ CclVolumePart parts[CCL_VOLUME_PARTS];
    ccl_volume_parts_clear(parts);
    __syncthreads();
    const u32 lane = threadIdx.x & 31u;
    const u32 first = (blockIdx.x * (TILE_ROWS / 32u) + (threadIdx.x >> 5)) * TILE_ADD_TILES_PER_WARP;
    for (u32 tile = first; tile < first + TILE_ADD_TILES_PER_WARP && tile < tiles; ++tile) {
        const u32* mine = pending + (size_t)tile * share;
        const u32 count = mine[0];
        if (count == TILE_OVERFLOW) continue;
        for (u32 base = 0; base < count; base += 32) {
            const u32 i = base + lane;
            const bool valid = i < count;
            const u32* w = mine + 1 + i * TILE_PENDING_WORDS;
            const u32 rank = valid ? w[0] : TILE_NO_KEY;
            const bool adds = valid && rank < out.capacity;
            const u32 group = __match_any_sync(CCL_FULL_MASK, adds ? rank : TILE_NO_KEY);
            if (adds) {
                u32 area = w[1], x_min = w[2], y_min = w[3], z_min = w[4], x_max = w[5], y_max = w[6], z_max = w[7];
                u64 sum_x = (u64)w[8] | (u64)w[9] << 32, sum_y = (u64)w[10] | (u64)w[11] << 32,
                    sum_z = (u64)w[12] | (u64)w[13] << 32;
                const bool crowded = tile_crowded(group);
                if (crowded) {
                    area = __reduce_add_sync(group, area);
                    x_min = __reduce_min_sync(group, x_min);
                    y_min = __reduce_min_sync(group, y_min);
                    z_min = __reduce_min_sync(group, z_min);
                    x_max = __reduce_max_sync(group, x_max);
                    y_max = __reduce_max_sync(group, y_max);
                    z_max = __reduce_max_sync(group, z_max);
                    sum_x = ccl_reduce_add_u64(group, sum_x);
                    sum_y = ccl_reduce_add_u64(group, sum_y);
                    sum_z = ccl_reduce_add_u64(group, sum_z);
                }
                if (!crowded || lane == (u32)(__ffs(group) - 1))
                    ccl_volume_part_add(parts, out, rank, area, x_min, x_max, y_min, y_max, z_min, z_max, sum_x,
                                        sum_y, sum_z);
            }
            __syncwarp();  // as in tile_unions
        }
    }
    __syncthreads();
    ccl_volume_parts_flush(parts, out);
}

// The second pass for the tiles that overflowed their share (a block per
// tile; the others return at once): the tile gathered again, its parts
// without their root (whose records tiles_features stored) added to their
// records through the block's table by rank.
extern "C" __global__ void __launch_bounds__(TILE_ROWS)
    tiles_regather_parts(CclBits bits, TileGrid g, const u32* __restrict__ forest, CclRootIndex roots,
                         CclVolumeStatsOut out, const u32* __restrict__ pending, u32 share) {
    __shared__ CclVolumePart parts[CCL_VOLUME_PARTS];
    __shared__ u32 key_bits[TILE_ROWS], key_base[TILE_ROWS], warp_totals[32];
    __shared__ u16 run_keys[TILE_ROWS / 32 * TILE_RUNS_PER_WARP];
    __shared__ TilePartTable<TILE_REGATHER_PARTS> table;
    if (pending[(size_t)blockIdx.x * share] != TILE_OVERFLOW) return;
    ccl_volume_parts_clear(parts);
    const TileRow here = tile_row(bits, g);
    const TileKeys keys = tile_scan_keys(forest, g, here.word, here.first, key_bits, key_base, warp_totals, run_keys);
    tile_for_each_part(g, keys, here, &table, [&](u32 i, u32 key) {
        const u32 voxel = tile_key_voxel(g, keys.x0, keys.y0, keys.z0, key);
        u32 root;
        const u32 rank = tile_part_rank(forest, g, roots, voxel, &root);
        if (root == voxel) return;  // stored by tiles_features
        const CclVolumeStats s = tile_part_record(&table, g, keys, i, key);
        ccl_volume_part_add(parts, out, rank, s.area, s.x_min, s.x_max, s.y_min, s.y_max, s.z_min, s.z_max, s.sum_x,
                            s.sum_y, s.sum_z);
    });
    ccl_volume_parts_flush(parts, out);  // tile_for_each_part ends at a barrier
}
