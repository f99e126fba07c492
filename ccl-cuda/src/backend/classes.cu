// classes.cu: the forest of a class map (ccl_cuda::backend::ClassLabeler):
// pixels or voxels are connected when they are neighbours of the same
// nonzero value ("multilabel", as cc3d labels), so every class's components
// are found apart in one labeling. The forest keeps the contract of
// ccl_device.cuh; the kernels flag its roots in the shared back end's root
// layout (features.cu), which numbers it; the class of each component is
// read at its root (ccl_component_classes).
//
// A map is width x height x depth values of 1, 2, 4 or 8 bytes, packed, x
// fastest; values are compared as raw integers (signed or unsigned alike).
// With an image's connectivity (4, 8) its slices are the images of a batch,
// never joined; with a volume's (6, 18, 26) they are joined.
//
// Two kernels per connectivity (a template argument: the neighbour offsets
// and the rules below are constants), on tiles of 32 x TILE_Y x TILE_Z
// values (32 x 32 x 1 for images, 32 x 8 x 8 for volumes):
// 1. ccl_classes_local (one block of 256 threads per tile): the tile's
//    values into shared memory; each row of 32 joined into its runs of
//    equal value by a ballot (no atomics: a pixel's parent is its run's
//    first pixel); then every other pair of equal neighbours inside the
//    tile merged in a shared union-find; the tile's forest written out (each pixel's parent: its tile root, the smallest
//    index of its tile component, which is also the smallest in raster
//    order of the whole map, since a tile's index order is the map's).
// 2. ccl_classes_border: the pairs with one end outside the tile merged in
//    the global forest (ccl_merge: the larger root linked under the smaller),
//    a thread per pixel of the tile's edges.
//
// Most pairs need no merge: a pair (p, n) whose n is not p's left neighbour
// W is already connected when p's W and n's left neighbour are of p's value
// (p ~ W by W's pair, W ~ n - x by W's pair of the same offset, n - x ~ n by
// n's pair to its left), and a diagonal pair (p, n) with n = p + (±1, dy,
// dz) is when p + (0, dy, dz) is of p's value and a neighbour under the
// connectivity (the middle one is n's horizontal neighbour). Each rule rests
// on pairs of pixels further left or of the same pixel with dx = 0, so the
// skipped pairs never rest on each other in a circle.

#define TILE_X 32

// The geometry of a class map (ccl_cuda::backend::classes::ClassShapeArgs).
struct CclClassShape {
    u32 width;
    u32 height;        // rows of one slice (of one image of a batch)
    u32 depth;         // slices (images of a batch)
};

// The backward neighbours (before a pixel in raster order) other than its
// left one, k = 0..11: in its own slice the row above (k < 3), then the 3 x 3
// of the slice before. Kernels unroll their loops over k and take the
// connectivity as a template argument, so each offset and each test below
// is a constant and the offsets a connectivity lacks cost nothing.
__device__ constexpr int ccl_backward_dx(int k) { return k < 3 ? k - 1 : (k - 3) % 3 - 1; }
__device__ constexpr int ccl_backward_dy(int k) { return k < 3 ? -1 : (k - 3) / 3 - 1; }
__device__ constexpr int ccl_backward_dz(int k) { return k < 3 ? 0 : -1; }

// Whether the offset (dx, dy, dz) joins neighbours under `connectivity`:
// 4 and 8 stay in a slice (4: one axis; 8: the diagonals too); 6, 18 and 26
// allow up to one, two and three nonzero offsets.
__device__ constexpr bool ccl_class_neighbour(int connectivity, int dx, int dy, int dz) {
    return connectivity == 4    ? dz == 0 && (dx != 0) + (dy != 0) == 1
           : connectivity == 8  ? dz == 0
           : connectivity == 6  ? (dx != 0) + (dy != 0) + (dz != 0) == 1
           : connectivity == 18 ? (dx != 0) + (dy != 0) + (dz != 0) <= 2
                                : true;
}

// A tile's rows and slices under a connectivity: 32 x 32 pixels of an image,
// 32 x 8 x 8 voxels of a volume.
template <int CONN> struct ClassTile {
    static constexpr int Y = CONN == 4 || CONN == 8 ? 32 : 8;
    static constexpr int Z = CONN == 4 || CONN == 8 ? 1 : 8;
};

// A value widened for a warp shuffle (which moves 4 or 8 bytes).
template <typename T> struct Shuffled { typedef u32 type; };
template <> struct Shuffled<u64> { typedef u64 type; };

// The first pixel of a tile: tiles are numbered x fastest, then y, then z.
template <int TY, int TZ>
__device__ __forceinline__ void ccl_class_tile(CclClassShape s, u32 tile, u32* x0, u32* y0, u32* z0) {
    const u32 tiles_x = (s.width + TILE_X - 1) / TILE_X, tiles_y = (s.height + TY - 1) / TY;
    *x0 = (tile % tiles_x) * TILE_X;
    *y0 = (tile / tiles_x % tiles_y) * TY;
    *z0 = (tile / tiles_x / tiles_y) * TZ;
}

__device__ __forceinline__ u64 ccl_class_index(CclClassShape s, u32 x, u32 y, u32 z) {
    return ((u64)z * s.height + y) * s.width + x;
}

// Whether the pair of p (of value v) and its backward neighbour n = p +
// (dx, dy, dz) (of value v) needs no merge, by the rules at the top of this
// file: `lefts` says that p's and n's left neighbours are of v, `across`
// that p + (0, dy, dz), n's horizontal neighbour, is (read only where dx
// is not 0: the callers guard the reads the same way).
template <int CONN>
__device__ __forceinline__ bool ccl_class_pair_implied(int dx, int dy, int dz, bool lefts, bool across) {
    return lefts || (dx != 0 && ccl_class_neighbour(CONN, 0, dy, dz) && across);
}

// The threads of a block of the local kernel (and of the volumes' border
// kernel), which the launch and __launch_bounds__ give.
#define CLASS_BLOCK 256

__device__ __forceinline__ u32 ccl_class_words_per_row(CclClassShape s) { return (s.width + 31) / 32; }

// Kernel 1 (one block of CLASS_BLOCK threads per tile). `foreground` (null:
// not wanted) gets a byte per pixel, 1 where the value is nonzero: the byte
// image the shared back end reads, for values wider than a byte.
// `root_bits` gets the tile roots: the shared back end's root layout (a bit
// per pixel, ceil(width / 32) words per row of the map's rows), whose words
// are the tiles' rows; the border kernel clears the bit of each tile root
// it links, which leaves the roots of the whole forest.
template <typename T, int CONN>
__device__ void classes_local(const T* values, CclClassShape s, u32* forest, u8* foreground, u32* root_bits) {
    constexpr int TY = ClassTile<CONN>::Y, TZ = ClassTile<CONN>::Z, TILE = TILE_X * TY * TZ;
    constexpr int PER_THREAD = TILE / CLASS_BLOCK;
    __shared__ T tile_values[TILE];
    __shared__ u32 parent[TILE];
    u32 x0, y0, z0;
    ccl_class_tile<TY, TZ>(s, blockIdx.x, &x0, &y0, &z0);
    const u32 lane = threadIdx.x & 31u;
    // TILE is a multiple of the block, so a warp's lanes take the 32 pixels
    // of one tile row together (the ballots need them all). A thread's
    // values are all loaded before any is used, so that their loads wait
    // together.
    T v[PER_THREAD];
#pragma unroll
    for (int i = 0; i < PER_THREAD; ++i) {
        const int t = threadIdx.x + i * CLASS_BLOCK;
        const u32 x = x0 + (t & 31), y = y0 + (t >> 5) % TY, z = z0 + (t >> 5) / TY;
        v[i] = x < s.width && y < s.height && z < s.depth ? values[ccl_class_index(s, x, y, z)] : (T)0;
    }
#pragma unroll
    for (int i = 0; i < PER_THREAD; ++i) {
        const int t = threadIdx.x + i * CLASS_BLOCK;
        const u32 x = x0 + (t & 31), y = y0 + (t >> 5) % TY, z = z0 + (t >> 5) / TY;
        if (foreground && x < s.width && y < s.height && z < s.depth)
            foreground[ccl_class_index(s, x, y, z)] = v[i] != 0;
        tile_values[t] = v[i];
        typedef typename Shuffled<T>::type Wide;
        const T left = (T)__shfl_up_sync(CCL_FULL_MASK, (Wide)v[i], 1);
        const bool joins_left = lane > 0 && v[i] != 0 && v[i] == left;
        const u32 starts = __ballot_sync(CCL_FULL_MASK, !joins_left);
        const u32 at_or_below = starts & (0xffffffffu >> (31 - lane));
        parent[t] = (t & ~31) + (31 - __clz(at_or_below));
    }
    __syncthreads();
    // Each iteration ends in __syncwarp: the merges diverge, and without a
    // point of reconvergence the lanes drift apart and run the rest of the
    // loop a few at a time (ncu counted 3x the instructions).
    for (int t = threadIdx.x; t < TILE; t += CLASS_BLOCK) {
        const T v = tile_values[t];
        if (v != 0) {
            const int lx = t & 31, ly = (t >> 5) % TY, lz = (t >> 5) / TY;
            const bool same_left = lx > 0 && tile_values[t - 1] == v;
#pragma unroll
            for (int k = 0; k < 12; ++k) {
                const int dx = ccl_backward_dx(k), dy = ccl_backward_dy(k), dz = ccl_backward_dz(k);
                if (!ccl_class_neighbour(CONN, dx, dy, dz)) continue;
                const int nx = lx + dx, ny = ly + dy, nz = lz + dz;
                if (nx < 0 || nx >= TILE_X || ny < 0 || ny >= TY || nz < 0) continue;
                const int n = (nz * TY + ny) * TILE_X + nx;
                if (tile_values[n] != v) continue;
                if (ccl_class_pair_implied<CONN>(dx, dy, dz, same_left && nx > 0 && tile_values[n - 1] == v,
                                                 dx != 0 && tile_values[n - dx] == v))
                    continue;
                ccl_tile_merge<false>(parent, (u32)t, (u32)n);
            }
        }
        __syncwarp();
    }
    __syncthreads();
    const u32 words_per_row = ccl_class_words_per_row(s);
    for (int t = threadIdx.x; t < TILE; t += CLASS_BLOCK) {
        const u32 x = x0 + (t & 31), y = y0 + (t >> 5) % TY, z = z0 + (t >> 5) / TY;
        const bool on = tile_values[t] != 0;
        u32 root = 0;
        if (on) {
            root = ccl_tile_find(parent, (u32)t);
            const u32 rx = x0 + (root & 31), ry = y0 + (root >> 5) % TY, rz = z0 + (root >> 5) / TY;
            forest[ccl_class_index(s, x, y, z)] = (u32)ccl_class_index(s, rx, ry, rz) + 1;
        }
        const u32 roots = __ballot_sync(CCL_FULL_MASK, on && root == (u32)t);
        if (lane == 0 && y < s.height && z < s.depth)
            root_bits[((u64)z * s.height + y) * words_per_row + x0 / 32] = roots;
    }
}

// Merges pixels g and n in the global forest; a tile root linked by it
// loses its root bit.
__device__ __forceinline__ void ccl_class_merge(CclClassShape s, u32* forest, u32* root_bits, u32 g, u32 n) {
    const u32 linked = ccl_merge_linking(forest, g, n);
    if (linked == CCL_JOINED) return;
    const u32 row = linked / s.width, x = linked % s.width;
    atomicAnd(root_bits + (u64)row * ccl_class_words_per_row(s) + x / 32, ~(1u << (x & 31u)));
}

// Kernel 2's work for one pixel (lx, ly, lz) of the tile at (x0, y0, z0):
// its pairs with neighbours outside the tile merged in the global forest,
// skipping those the rules connect already.
template <typename T, int CONN>
__device__ __forceinline__ void class_border_pixel(const T* values, CclClassShape s, u32* forest, u32* root_bits,
                                                   u32 x0, u32 y0, u32 z0, int lx, int ly, int lz) {
    constexpr int TY = ClassTile<CONN>::Y;
    const u32 x = x0 + lx, y = y0 + ly, z = z0 + lz;
    if (x >= s.width || y >= s.height || z >= s.depth) return;
    const u64 g = ccl_class_index(s, x, y, z);
    const T v = values[g];
    if (v == 0) return;
    const bool same_left = x > 0 && values[g - 1] == v;
    // The left neighbour, outside the tile only in its first column.
    if (lx == 0 && same_left) ccl_class_merge(s, forest, root_bits, (u32)g, (u32)g - 1);
#pragma unroll
    for (int k = 0; k < 12; ++k) {
        const int dx = ccl_backward_dx(k), dy = ccl_backward_dy(k), dz = ccl_backward_dz(k);
        if (!ccl_class_neighbour(CONN, dx, dy, dz)) continue;
        const int tx = lx + dx, ty = ly + dy, tz = lz + dz;
        if (tx >= 0 && tx < TILE_X && ty >= 0 && ty < TY && tz >= 0) continue;  // the tile's own pair
        const long long nx = (long long)x + dx, ny = (long long)y + dy, nz = (long long)z + dz;
        if (nx < 0 || nx >= s.width || ny < 0 || ny >= s.height || nz < 0) continue;
        const u64 n = ccl_class_index(s, (u32)nx, (u32)ny, (u32)nz);
        if (values[n] != v) continue;
        if (ccl_class_pair_implied<CONN>(dx, dy, dz, same_left && nx > 0 && values[n - 1] == v,
                                         dx != 0 && values[n - dx] == v))
            continue;
        ccl_class_merge(s, forest, root_bits, (u32)g, (u32)n);
    }
}

// Kernel 2 for images (a warp per tile edge, 8 warps a block): the pixels
// whose backward neighbours may lie outside their tile are its first row,
// its first column and, with 8-connectivity (dx = +1 above), its last
// column; a warp takes one of those edges, a lane a pixel, so that no
// thread waits on the tile's inner pixels.
template <typename T, int CONN>
__device__ void classes_border_image(const T* values, CclClassShape s, u32* forest, u32* root_bits) {
    constexpr int EDGES = CONN == 8 ? 3 : 2;
    const u32 tiles = ((s.width + TILE_X - 1) / TILE_X) * ((s.height + 31) / 32) * s.depth;
    const u64 warp = (u64)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (warp >= (u64)tiles * EDGES) return;
    const u32 tile = (u32)(warp / EDGES), edge = (u32)(warp % EDGES), lane = threadIdx.x & 31u;
    // The first row takes the corners; the columns start at their second row.
    if (edge != 0 && lane == 0) return;
    u32 x0, y0, z0;
    ccl_class_tile<32, 1>(s, tile, &x0, &y0, &z0);
    const int lx = edge == 0 ? (int)lane : edge == 1 ? 0 : TILE_X - 1;
    const int ly = edge == 0 ? 0 : (int)lane;
    class_border_pixel<T, CONN>(values, s, forest, root_bits, x0, y0, z0, lx, ly, 0);
}

// Kernel 2 for volumes (one block of 256 threads per tile): the tile's
// voxels whose backward neighbours may lie outside it (first column, last
// column for dx = +1, first row, last row for dy = +1 in the slice before,
// first slice); a third or more of a 32 x 8 x 8 tile, so the block walks
// them all.
template <typename T, int CONN>
__device__ void classes_border_volume(const T* values, CclClassShape s, u32* forest, u32* root_bits) {
    constexpr int TY = ClassTile<CONN>::Y, TZ = ClassTile<CONN>::Z, TILE = TILE_X * TY * TZ;
    u32 x0, y0, z0;
    ccl_class_tile<TY, TZ>(s, blockIdx.x, &x0, &y0, &z0);
    // As in the local kernel, each iteration ends in __syncwarp, so that
    // lanes whose merges diverged run the next voxels together again.
    for (int t = threadIdx.x; t < TILE; t += CLASS_BLOCK) {
        const int lx = t & 31, ly = (t >> 5) % TY, lz = (t >> 5) / TY;
        if (lx == 0 || lx == TILE_X - 1 || ly == 0 || ly == TY - 1 || lz == 0)
            class_border_pixel<T, CONN>(values, s, forest, root_bits, x0, y0, z0, lx, ly, lz);
        __syncwarp();
    }
}

// After the shared back end ranked the roots (`roots`, over the map's rows:
// row r is row r % height of slice r / height): the class of each
// component, the value at its root, into `classes` by rank. A thread per
// root word.
template <typename T>
__device__ void component_classes(CclRootIndex roots, u32 words, u32 width, const T* values, T* classes) {
    const u32 w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= words) return;
    u32 bits = roots.bits[w];
    if (!bits) return;
    const u64 row = w / roots.words_per_row;
    const u32 x0 = (w % roots.words_per_row) * 32;
    u32 rank = roots.offsets[w];
    for (; bits; bits &= bits - 1) classes[rank++] = values[row * width + x0 + (u32)(__ffs(bits) - 1)];
}

// The kernels of one value type: per connectivity, the local and the border
// kernel (ccl_classes_local_c8_1: 8-connectivity, 1-byte values), and the
// classes of the components.
#define CCL_CLASS_CONNECTIVITY_KERNELS(SUFFIX, T, CONN, BORDER)                                        \
    extern "C" __global__ void __launch_bounds__(CLASS_BLOCK) ccl_classes_local_c##CONN##_##SUFFIX(      \
        const T* values, CclClassShape s, u32* forest, u8* fg, u32* root_bits) {                       \
        classes_local<T, CONN>(values, s, forest, fg, root_bits);                                       \
    }                                                                                                  \
    extern "C" __global__ void __launch_bounds__(CLASS_BLOCK) ccl_classes_border_c##CONN##_##SUFFIX(     \
        const T* values, CclClassShape s, u32* forest, u32* root_bits) {                               \
        BORDER<T, CONN>(values, s, forest, root_bits);                                                  \
    }

#define CCL_CLASS_KERNELS(SUFFIX, T)                                                                   \
    CCL_CLASS_CONNECTIVITY_KERNELS(SUFFIX, T, 4, classes_border_image)                                 \
    CCL_CLASS_CONNECTIVITY_KERNELS(SUFFIX, T, 8, classes_border_image)                                 \
    CCL_CLASS_CONNECTIVITY_KERNELS(SUFFIX, T, 6, classes_border_volume)                                \
    CCL_CLASS_CONNECTIVITY_KERNELS(SUFFIX, T, 18, classes_border_volume)                               \
    CCL_CLASS_CONNECTIVITY_KERNELS(SUFFIX, T, 26, classes_border_volume)                               \
    extern "C" __global__ void __launch_bounds__(256) ccl_component_classes_##SUFFIX(                  \
        CclRootIndex roots, u32 words, u32 width, const T* values, T* classes) {                       \
        component_classes<T>(roots, words, width, values, classes);                                     \
    }

CCL_CLASS_KERNELS(1, u8)
CCL_CLASS_KERNELS(2, unsigned short)
CCL_CLASS_KERNELS(4, u32)
CCL_CLASS_KERNELS(8, u64)
