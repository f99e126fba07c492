// classes.cu: the forest of a class map (ccl_cuda::backend::ClassLabeler):
// pixels or voxels are connected when they are neighbours of the same
// nonzero value ("multilabel", as cc3d labels), so every class's components
// are found apart in one labeling. The forest keeps the contract of
// ccl_device.cuh, and the shared back end (features.cu) numbers it; the
// class of each component is read at its root (ccl_component_classes).
//
// A map is width x height x depth values of 1, 2, 4 or 8 bytes, packed, x
// fastest; values are compared as raw integers (signed or unsigned alike).
// With an image's connectivity (4, 8) its slices are the images of a batch,
// never joined; with a volume's (6, 18, 26) they are joined.
//
// Two kernels, on tiles of 32 x TILE_Y x TILE_Z values (32 x 32 x 1 for
// images, 32 x 8 x 8 for volumes), one block of 256 threads per tile:
// 1. ccl_classes_local: the tile's values into shared memory; each row of 32
//    joined into its runs of equal value by a ballot (no atomics: a pixel's
//    parent is its run's first pixel); then every other pair of equal
//    neighbours inside the tile merged in a shared union-find; the tile's
//    forest written out (each pixel's parent: its tile root, the smallest
//    index of its tile component, which is also the smallest in raster
//    order of the whole map, since a tile's index order is the map's).
// 2. ccl_classes_border: the pairs with one end outside the tile merged in
//    the global forest (ccl_merge: the larger root linked under the smaller).
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
    u32 connectivity;  // 4, 8, 6, 18 or 26
};

// The backward neighbours (before a pixel in raster order) other than its
// left one: in its own slice the row above, then the slice before.
__constant__ int BACKWARD[12][3] = {
    {-1, -1, 0}, {0, -1, 0}, {1, -1, 0},
    {-1, -1, -1}, {0, -1, -1}, {1, -1, -1},
    {-1, 0, -1}, {0, 0, -1}, {1, 0, -1},
    {-1, 1, -1}, {0, 1, -1}, {1, 1, -1},
};

// Whether the offset (dx, dy, dz) joins neighbours under `connectivity`:
// 4 and 8 stay in a slice (4: one axis; 8: the diagonals too); 6, 18 and 26
// allow up to one, two and three nonzero offsets.
__device__ __forceinline__ bool ccl_class_neighbour(u32 connectivity, int dx, int dy, int dz) {
    const int axes = (dx != 0) + (dy != 0) + (dz != 0);
    switch (connectivity) {
    case 4: return dz == 0 && axes == 1;
    case 8: return dz == 0;
    case 6: return axes == 1;
    case 18: return axes <= 2;
    default: return true;
    }
}

// A value widened for a warp shuffle (which moves 4 or 8 bytes).
template <typename T> struct Shuffled { typedef u32 type; };
template <> struct Shuffled<u64> { typedef u64 type; };

// The tile a block takes: blocks are numbered x fastest, then y, then z.
template <int TY, int TZ>
__device__ __forceinline__ void ccl_class_tile(CclClassShape s, u32* x0, u32* y0, u32* z0) {
    const u32 tiles_x = (s.width + TILE_X - 1) / TILE_X, tiles_y = (s.height + TY - 1) / TY;
    const u32 tile = blockIdx.x;
    *x0 = (tile % tiles_x) * TILE_X;
    *y0 = (tile / tiles_x % tiles_y) * TY;
    *z0 = (tile / tiles_x / tiles_y) * TZ;
}

__device__ __forceinline__ u64 ccl_class_index(CclClassShape s, u32 x, u32 y, u32 z) {
    return ((u64)z * s.height + y) * s.width + x;
}

// Root of tile pixel i in the shared forest (volatile: other threads link
// roots meanwhile).
__device__ __forceinline__ u32 ccl_tile_find(volatile u32* parent, u32 i) {
    u32 p = parent[i];
    while (p != i) {
        i = p;
        p = parent[i];
    }
    return i;
}

// ccl_merge in the shared forest (0-based, roots are their own parents).
__device__ __forceinline__ void ccl_tile_merge(u32* parent, u32 a, u32 b) {
    while (true) {
        a = ccl_tile_find(parent, a);
        b = ccl_tile_find(parent, b);
        if (a == b) return;
        if (a > b) {
            const u32 t = a;
            a = b;
            b = t;
        }
        const u32 old = atomicMin(parent + b, a);
        if (old == b) return;
        b = old;
    }
}

// Kernel 1 (one block of 256 threads per tile). `foreground` (null: not
// wanted) gets a byte per pixel, 1 where the value is nonzero: the byte
// image the shared back end reads, for values wider than a byte.
template <typename T, int TY, int TZ>
__device__ void classes_local(const T* values, CclClassShape s, u32* forest, u8* foreground) {
    constexpr int TILE = TILE_X * TY * TZ;
    __shared__ T tile_values[TILE];
    __shared__ u32 parent[TILE];
    u32 x0, y0, z0;
    ccl_class_tile<TY, TZ>(s, &x0, &y0, &z0);
    const u32 lane = threadIdx.x & 31u;
    // TILE is a multiple of blockDim.x, so a warp's lanes take the 32
    // pixels of one tile row together (the ballot needs them all).
    for (int t = threadIdx.x; t < TILE; t += blockDim.x) {
        const u32 x = x0 + (t & 31), y = y0 + (t >> 5) % TY, z = z0 + (t >> 5) / TY;
        T v = 0;
        if (x < s.width && y < s.height && z < s.depth) {
            const u64 g = ccl_class_index(s, x, y, z);
            v = values[g];
            if (foreground) foreground[g] = v != 0;
        }
        tile_values[t] = v;
        typedef typename Shuffled<T>::type Wide;
        const T left = (T)__shfl_up_sync(CCL_FULL_MASK, (Wide)v, 1);
        const bool joins_left = lane > 0 && v != 0 && v == left;
        const u32 starts = __ballot_sync(CCL_FULL_MASK, !joins_left);
        const u32 at_or_below = starts & (0xffffffffu >> (31 - lane));
        parent[t] = (t & ~31) + (31 - __clz(at_or_below));
    }
    __syncthreads();
    for (int t = threadIdx.x; t < TILE; t += blockDim.x) {
        const T v = tile_values[t];
        if (v == 0) continue;
        const int lx = t & 31, ly = (t >> 5) % TY, lz = (t >> 5) / TY;
        const bool same_left = lx > 0 && tile_values[t - 1] == v;
        for (int k = 0; k < 12; ++k) {
            const int dx = BACKWARD[k][0], dy = BACKWARD[k][1], dz = BACKWARD[k][2];
            if (!ccl_class_neighbour(s.connectivity, dx, dy, dz)) continue;
            const int nx = lx + dx, ny = ly + dy, nz = lz + dz;
            if (nx < 0 || nx >= TILE_X || ny < 0 || ny >= TY || nz < 0) continue;
            const int n = (nz * TY + ny) * TILE_X + nx;
            if (tile_values[n] != v) continue;
            // Connected already through the left neighbour's pair.
            if (same_left && nx > 0 && tile_values[n - 1] == v) continue;
            // Connected through p + (0, dy, dz), n's horizontal neighbour.
            if (dx != 0 && ccl_class_neighbour(s.connectivity, 0, dy, dz) && tile_values[n - dx] == v) continue;
            ccl_tile_merge(parent, (u32)t, (u32)n);
        }
    }
    __syncthreads();
    for (int t = threadIdx.x; t < TILE; t += blockDim.x) {
        if (tile_values[t] == 0) continue;
        const u32 root = ccl_tile_find(parent, (u32)t);
        const u32 x = x0 + (t & 31), y = y0 + (t >> 5) % TY, z = z0 + (t >> 5) / TY;
        const u32 rx = x0 + (root & 31), ry = y0 + (root >> 5) % TY, rz = z0 + (root >> 5) / TY;
        forest[ccl_class_index(s, x, y, z)] = (u32)ccl_class_index(s, rx, ry, rz) + 1;
    }
}

// Kernel 2 (one block of 256 threads per tile): the tile's pixels whose
// backward neighbours may lie outside it (first column, last column for
// dx = +1, first row, last row for dy = +1, first slice) merge with those of their value in the
// global forest, skipping the pairs the rules above connect already.
template <typename T, int TY, int TZ>
__device__ void classes_border(const T* values, CclClassShape s, u32* forest) {
    constexpr int TILE = TILE_X * TY * TZ;
    u32 x0, y0, z0;
    ccl_class_tile<TY, TZ>(s, &x0, &y0, &z0);
    for (int t = threadIdx.x; t < TILE; t += blockDim.x) {
        const int lx = t & 31, ly = (t >> 5) % TY, lz = (t >> 5) / TY;
        // In a volume, a pixel of the tile's last row has neighbours of
        // the row below in the slice before (dy = +1, dz = -1).
        const bool last_row = TZ > 1 && ly == TY - 1;
        if (lx != 0 && lx != TILE_X - 1 && ly != 0 && !last_row && lz != 0) continue;
        const u32 x = x0 + lx, y = y0 + ly, z = z0 + lz;
        if (x >= s.width || y >= s.height || z >= s.depth) continue;
        const u64 g = ccl_class_index(s, x, y, z);
        const T v = values[g];
        if (v == 0) continue;
        const bool same_left = x > 0 && values[g - 1] == v;
        // The left neighbour, outside the tile only in its first column.
        if (lx == 0 && same_left) ccl_merge(forest, (u32)g, (u32)g - 1);
        for (int k = 0; k < 12; ++k) {
            const int dx = BACKWARD[k][0], dy = BACKWARD[k][1], dz = BACKWARD[k][2];
            if (!ccl_class_neighbour(s.connectivity, dx, dy, dz)) continue;
            const int tx = lx + dx, ty = ly + dy, tz = lz + dz;
            if (tx >= 0 && tx < TILE_X && ty >= 0 && ty < TY && tz >= 0) continue;  // the tile's own pair
            const long long nx = (long long)x + dx, ny = (long long)y + dy, nz = (long long)z + dz;
            if (nx < 0 || nx >= s.width || ny < 0 || ny >= s.height || nz < 0) continue;
            const u64 n = ccl_class_index(s, (u32)nx, (u32)ny, (u32)nz);
            if (values[n] != v) continue;
            if (same_left && nx > 0 && values[n - 1] == v) continue;
            if (dx != 0 && ccl_class_neighbour(s.connectivity, 0, dy, dz) && values[n - dx] == v) continue;
            ccl_merge(forest, (u32)g, (u32)n);
        }
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

#define CCL_CLASS_KERNELS(SUFFIX, T)                                                                 \
    extern "C" __global__ void __launch_bounds__(256)                                              \
        ccl_classes_local_image_##SUFFIX(const T* values, CclClassShape s, u32* forest, u8* fg) {  \
        classes_local<T, 32, 1>(values, s, forest, fg);                                             \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256)                                              \
        ccl_classes_local_volume_##SUFFIX(const T* values, CclClassShape s, u32* forest, u8* fg) { \
        classes_local<T, 8, 8>(values, s, forest, fg);                                              \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256)                                              \
        ccl_classes_border_image_##SUFFIX(const T* values, CclClassShape s, u32* forest) {          \
        classes_border<T, 32, 1>(values, s, forest);                                                \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256)                                              \
        ccl_classes_border_volume_##SUFFIX(const T* values, CclClassShape s, u32* forest) {         \
        classes_border<T, 8, 8>(values, s, forest);                                                 \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256) ccl_component_classes_##SUFFIX(              \
        CclRootIndex roots, u32 words, u32 width, const T* values, T* classes) {                   \
        component_classes<T>(roots, words, width, values, classes);                                 \
    }

CCL_CLASS_KERNELS(1, u8)
CCL_CLASS_KERNELS(2, unsigned short)
CCL_CLASS_KERNELS(4, u32)
CCL_CLASS_KERNELS(8, u64)
