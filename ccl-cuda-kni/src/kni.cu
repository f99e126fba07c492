// Kasagi, Nakano & Ito, "Fast image component labeling on the GPU"
// (subregion graphs, M = 32): the image is cut into M x M subregions that
// are labeled in shared memory; each local component gets a compact label;
// the pairs of compact labels that touch across subregion borders are the
// edges of a graph, listed level by level (a level-l region of 2^l M x 2^l M
// is four level-(l-1) ones, and its edges cross its two inner borders); the
// labels are propagated over each level's edges until nothing changes; a
// final look-up gives every pixel its component's label. The paper is
// 4-connectivity; 8-connectivity adds the diagonal pairs across borders.
//
// Kernels, in order (ccl-cuda-kni/src/kni.rs launches them):
//   kni_local         LOCAL: one block of 32 x KNI_TILE_WARPS threads per
//                     subregion (tile); labels in shared memory; L gets,
//                     per foreground pixel, 1 + the tile offset of its local
//                     root (its local component's first pixel), 0 for
//                     background; the local roots are flagged in the shared
//                     back end's root bits (CclRootIndex) and counted.
//   (ccl_features)    the shared back end ranks the flagged roots in raster
//                     order: a local root's rank is its compact label.
//   kni_allocate      LABELALLOCATE: T[c] = c and root_pixel[c] = the raster
//                     index of the local root of compact label c.
//   kni_edges_*       MAKEEDGE: the pairs of compact labels of adjacent
//                     foreground pixels across the vertical and horizontal
//                     tile borders, each border in the list of its level;
//                     compacted with one atomic per warp.
//   kni_propagate     LABELPROPAGATE: one round over one level's edges; T is
//                     a forest over compact labels (T[c] <= c, roots
//                     T[r] == r); each edge unites its two trees, linking
//                     the larger root under the smaller. Rounds repeat
//                     until one links nothing.
//   kni_compress      after a level: its edges' ends point at their roots.
//   kni_lookup        LOOKUP: each local root finds its component's root r
//                     in T once, and every pixel of the local component gets
//                     1 + root_pixel[r].
//
// Since compact labels follow the raster order of the local roots, and a
// component's raster-first pixel is the first pixel of its local component
// (tiles are 32-column aligned, so a tile's row-major order is the image's
// raster order restricted to the tile), the smallest compact label of a
// component is its first pixel: the labels are 1 + the raster index of the
// component's first pixel, the forest contract of ccl_device.cuh.
//
// Indices: every pixel index y * width + x is below width * height <= 2^32 - 2
// (checked by the variant layer), so 32-bit arithmetic does not overflow;
// compact labels are below (pixels + tiles) / 2 (see kni.rs) and never equal
// KNI_NONE.

static_assert(KNI_TILE == 32u, "a tile row is one warp: the masks are 32-bit words");
static_assert(KNI_TILE % KNI_TILE_WARPS == 0u, "each thread takes whole rows of its tile");

#define KNI_NONE 0xffffffffu
#define KNI_ROWS_PER_THREAD (KNI_TILE / KNI_TILE_WARPS)

// The image and tiling every kernel but kni_allocate takes (kni.rs: Geometry).
struct KniGeometry {
    u32 width;
    u32 height;
    u32 tiles_x; // ceil(width / 32): also the words per row of the root bits
    u32 tiles_y; // ceil(height / 32)
    u32 eight;   // nonzero for 8-connectivity
};

// Where each level's edges go in the edge array: `levels` (device memory,
// written by kni.rs for each call) holds, for level l (1-based) at index
// l - 1, the offset of its list (levels[l - 1]), its capacity
// (levels[KNI_MAX_LEVELS + l - 1]) and its count of edges
// (levels[2 KNI_MAX_LEVELS + l - 1], zero before the edge kernels).
#define KNI_OFFSET(levels, level) ((levels)[(level)])
#define KNI_CAPACITY(levels, level) ((levels)[KNI_MAX_LEVELS + (level)])
#define KNI_COUNT(levels, level) ((levels) + 2u * KNI_MAX_LEVELS + (level))

__device__ __forceinline__ bool kni_bit(u32 mask, u32 p) { return (mask >> p) & 1u; }

// ------------------------------------------------------------------ local

// LOCAL. Block (32, KNI_TILE_WARPS), grid (tiles_x, min(tiles_y, 65535)):
// block column bx is tile column bx; tile rows are walked with the grid's
// height as stride (the loop bound is the same for the whole block, so the
// barriers inside are reached by every thread). Thread (lx, w) takes column
// lx of tile rows w, w + KNI_TILE_WARPS, ...; a warp is one tile row.
//
// Label equivalence in shared memory (lab[p], p = 32 ly + lx, a forest with
// lab[p] <= p, roots lab[r] == r): it starts from horizontal runs (each pixel
// points at its run's first pixel, found from the row's ballot), so only
// vertical and diagonal neighbours are ever read (a pixel's horizontal
// neighbours are in its run, which stays one tree). Each iteration, with a
// barrier between phases so that no plain access ever meets a concurrent
// write:
//   1. read: own label l (a root, after phase 3 or the run start) and the
//      smallest label m of the foreground neighbours;
//   2. link: where m < l, atomicMin(lab[l], m) (atomics only);
//      __syncthreads_or: stop when no thread linked;
//   3a. read: each pixel's root; 3b. write: lab[p] = that root (own entry).
// Every linking iteration lowers some root's entry strictly (the first
// atomicMin on lab[l] finds lab[l] == l > m), and entries never rise, so the
// loop ends. When it ends, labels are compressed (phase 3 or the runs) and
// no neighbour holds a smaller label, so each local component holds one
// label; since entries only ever point at pixels of the same local component
// and lab[p] <= p, the component's first pixel q has lab[q] == q: that label.
extern "C" __global__ void __launch_bounds__(KNI_TILE* KNI_TILE_WARPS)
    kni_local(CclImage image, u32* L, u32* root_bits, u32* group_count, KniGeometry g) {
    __shared__ u32 lab[KNI_TILE * KNI_TILE];
    __shared__ u32 rows[KNI_TILE]; // foreground mask of each tile row
    const u32 lx = threadIdx.x, tx = blockIdx.x, x = tx * KNI_TILE + lx;
    const bool eight = g.eight != 0;
    for (u32 ty = blockIdx.y; ty < g.tiles_y; ty += gridDim.y) {
        const u32 y0 = ty * KNI_TILE;
        u32 fg = 0; // bit k: the pixel of row threadIdx.y + k * KNI_TILE_WARPS
#pragma unroll
        for (u32 k = 0; k < KNI_ROWS_PER_THREAD; ++k) {
            const u32 ly = threadIdx.y + k * KNI_TILE_WARPS, y = y0 + ly, p = ly * KNI_TILE + lx;
            const bool f = x < g.width && y < g.height && ccl_row(image, (int)y)[x] != 0;
            const u32 mask = __ballot_sync(CCL_FULL_MASK, f);
            if (lx == 0) rows[ly] = mask;
            // Background entries are never read; they hold their own index.
            lab[p] = f ? ly * KNI_TILE + (u32)ccl_run_start(mask, (int)lx) : p;
            fg |= (u32)f << k;
        }
        __syncthreads();
        u32 up[KNI_ROWS_PER_THREAD], down[KNI_ROWS_PER_THREAD];
#pragma unroll
        for (u32 k = 0; k < KNI_ROWS_PER_THREAD; ++k) {
            const u32 ly = threadIdx.y + k * KNI_TILE_WARPS;
            up[k] = ly > 0 ? rows[ly - 1] : 0u;
            down[k] = ly + 1 < KNI_TILE ? rows[ly + 1] : 0u;
        }
        while (true) {
            u32 own[KNI_ROWS_PER_THREAD], low[KNI_ROWS_PER_THREAD];
#pragma unroll
            for (u32 k = 0; k < KNI_ROWS_PER_THREAD; ++k) {
                const u32 p = (threadIdx.y + k * KNI_TILE_WARPS) * KNI_TILE + lx;
                own[k] = low[k] = 0;
                if (!kni_bit(fg, k)) continue;
                u32 m = own[k] = lab[p];
                // up[k] is 0 in the tile's first row, down[k] in its last,
                // so p - 32 and p + 32 stay inside the tile.
                if (kni_bit(up[k], lx)) m = min(m, lab[p - KNI_TILE]);
                if (kni_bit(down[k], lx)) m = min(m, lab[p + KNI_TILE]);
                if (eight) {
                    if (lx > 0 && kni_bit(up[k], lx - 1)) m = min(m, lab[p - KNI_TILE - 1]);
                    if (lx > 0 && kni_bit(down[k], lx - 1)) m = min(m, lab[p + KNI_TILE - 1]);
                    if (lx + 1 < KNI_TILE && kni_bit(up[k], lx + 1)) m = min(m, lab[p - KNI_TILE + 1]);
                    if (lx + 1 < KNI_TILE && kni_bit(down[k], lx + 1)) m = min(m, lab[p + KNI_TILE + 1]);
                }
                low[k] = m;
            }
            __syncthreads();
            bool linked = false;
#pragma unroll
            for (u32 k = 0; k < KNI_ROWS_PER_THREAD; ++k) {
                if (kni_bit(fg, k) && low[k] < own[k]) {
                    atomicMin(&lab[own[k]], low[k]);
                    linked = true;
                }
            }
            if (!__syncthreads_or(linked)) break;
            u32 root[KNI_ROWS_PER_THREAD];
#pragma unroll
            for (u32 k = 0; k < KNI_ROWS_PER_THREAD; ++k) {
                const u32 p = (threadIdx.y + k * KNI_TILE_WARPS) * KNI_TILE + lx;
                root[k] = p;
                if (!kni_bit(fg, k)) continue;
                u32 r = lab[p];
                while (lab[r] != r) r = lab[r]; // entries decrease along the chain
                root[k] = r;
            }
            __syncthreads();
#pragma unroll
            for (u32 k = 0; k < KNI_ROWS_PER_THREAD; ++k) {
                const u32 p = (threadIdx.y + k * KNI_TILE_WARPS) * KNI_TILE + lx;
                if (kni_bit(fg, k)) lab[p] = root[k];
            }
            __syncthreads();
        }
        // Output: no thread writes lab until the barrier at the end.
#pragma unroll
        for (u32 k = 0; k < KNI_ROWS_PER_THREAD; ++k) {
            const u32 ly = threadIdx.y + k * KNI_TILE_WARPS, y = y0 + ly, p = ly * KNI_TILE + lx;
            const bool f = kni_bit(fg, k);
            const u32 local_root = f ? lab[p] : 0u;
            const u32 roots = __ballot_sync(CCL_FULL_MASK, f && local_root == p);
            if (y < g.height) {
                if (x < g.width) L[y * g.width + x] = f ? local_root + 1 : 0u;
                if (lx == 0) {
                    // Word (y, tx) of the root bits: tiles are word-aligned.
                    const u32 word = y * g.tiles_x + tx;
                    root_bits[word] = roots;
                    if (roots) atomicAdd(group_count + word / CCL_ROOT_GROUP_WORDS, (u32)__popc(roots));
                }
            }
        }
        __syncthreads(); // the next tile row reuses lab and rows
    }
}

// ---------------------------------------------------------- label allocate

// LABELALLOCATE, after the shared back end ranked the root bits. One warp
// per word of root bits (ccl_warp_word; blocks of 32 x 8), lane b for bit b:
// the compact label of a local root is its rank; T[c] = c (every compact
// label its own root) and root_pixel[c] = the root's raster index. Ranks are
// below the number of roots, which `capacity` (the length of T and
// root_pixel) bounds; the test keeps a stray rank from writing out of bounds.
extern "C" __global__ void __launch_bounds__(256)
    kni_allocate(CclRootIndex roots, u32 words, u32 width, u32* T, u32* root_pixel, u32 capacity) {
    u32 y, base;
    if (!ccl_warp_word(words, roots.words_per_row, &y, &base)) return;
    const u32 word = y * roots.words_per_row + base / 32u, lane = threadIdx.x;
    const u32 bits = roots.bits[word];
    if (!kni_bit(bits, lane)) return;
    const u32 c = roots.offsets[word] + __popc(bits & ccl_lanemask_lt());
    if (c >= capacity) return;
    T[c] = c;
    root_pixel[c] = y * width + base + lane;
}

// --------------------------------------------------------------- make edge

// The compact label of pixel (x, y) (inside the image), KNI_NONE for
// background: L holds 1 + the tile offset of its local root.
__device__ __forceinline__ u32 kni_compact(const u32* L, CclRootIndex roots, u32 width, u32 x, u32 y) {
    const u32 v = L[y * width + x];
    if (v == 0) return KNI_NONE;
    const u32 local = v - 1;
    return ccl_root_rank(roots, (x & ~31u) + (local & 31u), (y & ~31u) + (local >> 5));
}

// Appends this lane's edges (a_j, b) for the a_j != KNI_NONE to the list of
// `level` (0-based). Lanes are consecutive pixels along one border inside one
// tile; every lane of the warp calls it, with the same level.
//
// Deduplication, exact: a lane drops an a_j equal to another of its own, and
// an (a_j, b) equal to one of the pairs of the lane before it (compared before
// that lane dropped any of its own as repeats of the lane before it, so by
// induction over the lanes every pair the warp computes is appended by its
// first lane that computes it). Along a border inside one tile, consecutive
// pixels are mostly in the same two local components, so a border run costs
// one edge.
__device__ __forceinline__ void kni_emit(u32 lane, u32 b, u32 a0, u32 a1, u32 a2, u32 level, u32* levels,
                                         u64* edges) {
    if (b == KNI_NONE) a0 = a1 = a2 = KNI_NONE;
    if (a1 == a0) a1 = KNI_NONE;
    if (a2 == a0 || a2 == a1) a2 = KNI_NONE;
    const u32 pb = __shfl_up_sync(CCL_FULL_MASK, b, 1);
    const u32 p0 = __shfl_up_sync(CCL_FULL_MASK, a0, 1);
    const u32 p1 = __shfl_up_sync(CCL_FULL_MASK, a1, 1);
    const u32 p2 = __shfl_up_sync(CCL_FULL_MASK, a2, 1);
    if (lane > 0 && b != KNI_NONE && b == pb) {
        if (a0 != KNI_NONE && (a0 == p0 || a0 == p1 || a0 == p2)) a0 = KNI_NONE;
        if (a1 != KNI_NONE && (a1 == p0 || a1 == p1 || a1 == p2)) a1 = KNI_NONE;
        if (a2 != KNI_NONE && (a2 == p0 || a2 == p1 || a2 == p2)) a2 = KNI_NONE;
    }
    const u32 n = (u32)(a0 != KNI_NONE) + (u32)(a1 != KNI_NONE) + (u32)(a2 != KNI_NONE);
    const u32 inclusive = ccl_warp_inclusive_scan(n);
    const u32 total = __shfl_sync(CCL_FULL_MASK, inclusive, 31);
    if (total == 0) return; // the same in every lane
    u32 base = 0;
    if (lane == 31) base = atomicAdd(KNI_COUNT(levels, level), total);
    base = __shfl_sync(CCL_FULL_MASK, base, 31);
    // The capacity of a level is 3 (8-connectivity) or 1 slots per pixel of
    // its borders, each visited once, so the test never fails; it only
    // guards the array.
    const u32 capacity = KNI_CAPACITY(levels, level);
    u64* out = edges + KNI_OFFSET(levels, level);
    u32 slot = base + inclusive - n;
    const u64 hi = (u64)b << 32;
    if (a0 != KNI_NONE) { if (slot < capacity) out[slot] = hi | a0; ++slot; }
    if (a1 != KNI_NONE) { if (slot < capacity) out[slot] = hi | a1; ++slot; }
    if (a2 != KNI_NONE) { if (slot < capacity) out[slot] = hi | a2; }
}

// MAKEEDGE across the vertical borders x = 32 k (k = 1 .. tiles_x - 1): the
// border of k belongs to level l = 1 + (trailing zeros of k), the middle
// column of the level-l regions (side S = 32 << l) that it crosses. Block
// (32, 8), grid (ceil((tiles_x - 1) / 8), min(tiles_y, 65535)): warp w of
// block column bx takes border k = 8 bx + w + 1, one tile row at a time
// (lane = row in the tile row). Lane y pairs the right pixel (x, y) with
// (x - 1, y) and, in 8-connectivity, with (x - 1, y - 1) and (x - 1, y + 1)
// where those rows are in the same level-l region: the diagonals leaving the
// region cross a horizontal border of a higher level, whose own pairs include
// them (x - 1 and x are in one region of that level, x not being a multiple
// of its side), so the edges of level l join only labels of its regions.
extern "C" __global__ void __launch_bounds__(256)
    kni_edges_vertical(const u32* __restrict__ L, KniGeometry g, CclRootIndex roots, u32* levels, u64* edges) {
    const u32 lane = threadIdx.x;
    const u32 k = blockIdx.x * blockDim.y + threadIdx.y + 1;
    if (k >= g.tiles_x) return; // the whole warp
    const u32 x = k * KNI_TILE, level = (u32)__ffs((int)k) - 1;
    const u64 region_mask = (32ull << (level + 1)) - 1; // side of a level-(level + 1) region, less 1
    for (u32 tr = blockIdx.y; tr < g.tiles_y; tr += gridDim.y) {
        const u32 y = tr * KNI_TILE + lane;
        u32 b = KNI_NONE, a0 = KNI_NONE, a1 = KNI_NONE, a2 = KNI_NONE;
        if (y < g.height) {
            b = kni_compact(L, roots, g.width, x, y);
            if (b != KNI_NONE) {
                a0 = kni_compact(L, roots, g.width, x - 1, y);
                if (g.eight) {
                    if (((u64)y & region_mask) != 0) a1 = kni_compact(L, roots, g.width, x - 1, y - 1);
                    if (y + 1 < g.height && ((u64)(y + 1) & region_mask) != 0)
                        a2 = kni_compact(L, roots, g.width, x - 1, y + 1);
                }
            }
        }
        kni_emit(lane, b, a0, a1, a2, level, levels, edges);
    }
}

// MAKEEDGE across the horizontal borders y = 32 j (j = 1 .. tiles_y - 1), of
// level 1 + (trailing zeros of j). Block (32, 8), grid (ceil(tiles_x / 8),
// min(tiles_y - 1, 65535)): warp w of block column bx takes tile column
// 8 bx + w (lane = column in the tile), one border at a time. Lane x pairs
// the lower pixel (x, y) with (x, y - 1) and, in 8-connectivity, with
// (x - 1, y - 1) and (x + 1, y - 1) where those columns are in the same
// level-l region (the others cross a vertical border of a higher level, as
// above).
extern "C" __global__ void __launch_bounds__(256)
    kni_edges_horizontal(const u32* __restrict__ L, KniGeometry g, CclRootIndex roots, u32* levels, u64* edges) {
    const u32 lane = threadIdx.x;
    const u32 tc = blockIdx.x * blockDim.y + threadIdx.y;
    if (tc >= g.tiles_x) return; // the whole warp
    const u32 x = tc * KNI_TILE + lane;
    for (u32 j = blockIdx.y + 1; j < g.tiles_y; j += gridDim.y) {
        const u32 y = j * KNI_TILE, level = (u32)__ffs((int)j) - 1;
        const u64 region_mask = (32ull << (level + 1)) - 1;
        u32 b = KNI_NONE, a0 = KNI_NONE, a1 = KNI_NONE, a2 = KNI_NONE;
        if (x < g.width) {
            b = kni_compact(L, roots, g.width, x, y);
            if (b != KNI_NONE) {
                a0 = kni_compact(L, roots, g.width, x, y - 1);
                if (g.eight) {
                    if (((u64)x & region_mask) != 0) a1 = kni_compact(L, roots, g.width, x - 1, y - 1);
                    if (x + 1 < g.width && ((u64)(x + 1) & region_mask) != 0)
                        a2 = kni_compact(L, roots, g.width, x + 1, y - 1);
                }
            }
        }
        kni_emit(lane, b, a0, a1, a2, level, levels, edges);
    }
}

// ---------------------------------------------------------- label propagate

// Unites the trees of compact labels a and b in T (T[c] = parent, no offset):
// ccl_merge of ccl_device.cuh, which also says why no link is lost when an
// atomicMin finds that the root it saw got a parent meanwhile. Returns
// whether it wrote T.
__device__ __forceinline__ bool kni_union(u32* T, u32 a, u32 b) {
    bool linked = false;
    while (true) {
        a = ccl_find<0>(T, a);
        b = ccl_find<0>(T, b);
        if (a == b) return linked;
        if (a > b) { const u32 t = a; a = b; b = t; }
        linked = true;
        const u32 old = atomicMin(T + b, a);
        if (old == b) return true;
        b = old;
    }
}

// One round of LABELPROPAGATE over one level's edges (`count` of them, read
// on the device, at most `capacity`): every edge unites its labels' trees;
// `changed` is set if any tree was written. Grid-stride (the grid is sized
// from the capacity and capped; indices stay below the capacity < 2^31, so
// e + stride does not wrap). A round that writes nothing leaves every edge's
// ends in one tree: the level is stable.
extern "C" __global__ void __launch_bounds__(256)
    kni_propagate(const u64* edges, const u32* count, u32 capacity, u32* T, u32* changed) {
    const u32 n = min(*count, capacity);
    bool linked = false;
    for (u32 e = blockIdx.x * blockDim.x + threadIdx.x; e < n; e += gridDim.x * blockDim.x) {
        const u64 edge = edges[e];
        linked |= kni_union(T, (u32)edge, (u32)(edge >> 32));
    }
    if (linked) *changed = 1u;
}

// After a level is stable (no union runs concurrently): both ends of each of
// its edges point at their root. Stores race only with reads of finds in
// this kernel, and every value stored or read is an ancestor of its node in
// a forest that no longer changes, so every find still ends at the root.
extern "C" __global__ void __launch_bounds__(256)
    kni_compress(const u64* edges, const u32* count, u32 capacity, u32* T) {
    const u32 n = min(*count, capacity);
    for (u32 e = blockIdx.x * blockDim.x + threadIdx.x; e < n; e += gridDim.x * blockDim.x) {
        const u64 edge = edges[e];
        const u32 a = (u32)edge, b = (u32)(edge >> 32);
        T[a] = ccl_find<0>(T, a);
        T[b] = ccl_find<0>(T, b);
    }
}

// ------------------------------------------------------------------ lookup

// LOOKUP. Block and grid as kni_local. Each local root (L == its own tile
// offset + 1) finds its component's root r in T (final: no more writes) and
// stores 1 + root_pixel[r] in shared memory at its tile offset; after a
// barrier, every foreground pixel of the tile takes its local root's entry.
extern "C" __global__ void __launch_bounds__(KNI_TILE* KNI_TILE_WARPS)
    kni_lookup(u32* L, KniGeometry g, CclRootIndex roots, const u32* T, const u32* root_pixel) {
    __shared__ u32 final_label[KNI_TILE * KNI_TILE];
    const u32 lx = threadIdx.x, x = blockIdx.x * KNI_TILE + lx;
    for (u32 ty = blockIdx.y; ty < g.tiles_y; ty += gridDim.y) {
        const u32 y0 = ty * KNI_TILE;
        u32 v[KNI_ROWS_PER_THREAD];
#pragma unroll
        for (u32 k = 0; k < KNI_ROWS_PER_THREAD; ++k) {
            const u32 ly = threadIdx.y + k * KNI_TILE_WARPS, y = y0 + ly, p = ly * KNI_TILE + lx;
            v[k] = x < g.width && y < g.height ? L[y * g.width + x] : 0u;
            if (v[k] == p + 1) {
                const u32 r = ccl_find_final<0>(T, ccl_root_rank(roots, x, y));
                final_label[p] = root_pixel[r] + 1;
            }
        }
        __syncthreads();
#pragma unroll
        for (u32 k = 0; k < KNI_ROWS_PER_THREAD; ++k) {
            const u32 y = y0 + threadIdx.y + k * KNI_TILE_WARPS;
            if (v[k] != 0) L[y * g.width + x] = final_label[v[k] - 1];
        }
        __syncthreads(); // the next tile row reuses final_label
    }
}
