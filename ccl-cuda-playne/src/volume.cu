// Playne & Hawick's direct method on volumes (IEEE TPDS 2018 treats 3-D
// alongside 2-D): one thread per voxel, a link to one backward neighbour at
// initialisation, a compression, and a union with each other backward
// neighbour that the links do not already join.
//
// The volume is the image of its rows, slice after slice (row r is row
// r % height of slice r / height; ccl_cuda::backend::Slices), so a voxel's
// index is its flat index and the forest contract of ccl_device.cuh holds.
//
// Backward neighbours: the 13 of the 26 around a voxel that come before it
// in raster order (z, then y, then x), kept where at most `differing`
// coordinates differ: 1 for 6-connectivity (3 neighbours), 2 for 18 (9), 3
// for 26 (13). Every adjacency is the backward adjacency of exactly one
// voxel, so joining each voxel with its backward neighbours labels the
// volume.

// (dx, dy, dz) of the backward neighbours, faces first (the order links
// prefer: the voxel behind is adjacent to most of the others), then edges,
// then corners; the first 3, 9 or 13 are a connectivity's.
__constant__ signed char VOLUME_BACKWARD[13][3] = {
    {0, 0, -1},  {0, -1, 0},  {-1, 0, 0},                                            // faces
    {-1, 0, -1}, {1, 0, -1},  {0, -1, -1}, {0, 1, -1}, {-1, -1, 0}, {1, -1, 0},      // edges
    {-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {1, 1, -1},                              // corners
};

// Backward neighbours per count of differing coordinates.
__device__ __forceinline__ int volume_neighbours(int differing) {
    return differing == 1 ? 3 : differing == 2 ? 9 : 13;
}

// Whether backward neighbours a and b are adjacent to each other.
__device__ __forceinline__ bool volume_adjacent(int a, int b, int differing) {
    int count = 0;
    for (int k = 0; k < 3; ++k) {
        const int d = abs(VOLUME_BACKWARD[a][k] - VOLUME_BACKWARD[b][k]);
        if (d > 1) return false;
        count += d;
    }
    return count <= differing;
}

// The foreground backward neighbours of voxel (x, y, z) as bits.
__device__ __forceinline__ u32 volume_backward(CclImage image, u32 height, int x, int y, int z,
                                               int differing) {
    const int n = volume_neighbours(differing);
    u32 bits = 0;
    for (int k = 0; k < n; ++k) {
        const int nx = x + VOLUME_BACKWARD[k][0], ny = y + VOLUME_BACKWARD[k][1],
                  nz = z + VOLUME_BACKWARD[k][2];
        if (nx < 0 || ny < 0 || nz < 0 || nx >= image.width || ny >= (int)height) continue;
        if (ccl_row(image, nz * (int)height + ny)[nx]) bits |= 1u << k;
    }
    return bits;
}

// The flat index of backward neighbour k of voxel i.
__device__ __forceinline__ u32 volume_index(u32 i, int k, u32 width, u32 height) {
    return i + (int)VOLUME_BACKWARD[k][2] * (int)(width * height) +
           (int)VOLUME_BACKWARD[k][1] * (int)width + (int)VOLUME_BACKWARD[k][0];
}

// Each foreground voxel's parent: its first foreground backward neighbour
// in the order of VOLUME_BACKWARD, or itself. Parents have smaller indices.
extern "C" __global__ void playne_volume_init(CclImage image, u32* L, u32 height, int differing) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(row, image.height) {
        if (!ccl_row(image, row)[x]) continue;
        const int y = row % (int)height, z = row / (int)height;
        const u32 i = (u32)row * image.width + x;
        const u32 bits = volume_backward(image, height, x, y, z, differing);
        const u32 parent = bits ? volume_index(i, __ffs(bits) - 1, image.width, height) : i;
        L[i] = parent + 1;
    }
}

// The unions the links leave out: a foreground backward neighbour adjacent
// to one already joined with the voxel (its link, or one merged before) is
// joined already — their adjacency is the backward adjacency of the later of
// the two, which comes before this voxel in raster order.
extern "C" __global__ void playne_volume_merge(CclImage image, u32* L, u32 height, int differing) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(row, image.height) {
        if (!ccl_row(image, row)[x]) continue;
        const int y = row % (int)height, z = row / (int)height;
        const u32 i = (u32)row * image.width + x;
        const u32 bits = volume_backward(image, height, x, y, z, differing);
        if (__popc(bits) < 2) continue;
        u32 joined = bits & (0u - bits);  // the link
        for (u32 rest = bits & (bits - 1); rest; rest &= rest - 1) {
            const int k = __ffs(rest) - 1;
            bool adjacent = false;
            for (u32 j = joined; j && !adjacent; j &= j - 1)
                adjacent = volume_adjacent(k, __ffs(j) - 1, differing);
            if (!adjacent) ccl_merge(L, i, volume_index(i, k, image.width, height));
            joined |= 1u << k;
        }
    }
}
