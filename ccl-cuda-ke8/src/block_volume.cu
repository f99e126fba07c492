// BUF on volumes (Allegretti, Bolelli & Grana, IEEE TPDS 2020, whose 3-D
// BUF takes 2x2x2 blocks): one thread per block of 2x2x2 voxels, one
// union-find node per block. In 26-connectivity every two voxels of a block
// are adjacent, so a block's foreground voxels are one node; in 6 or 18
// the opposite corners of a block are not adjacent, which is why this
// variant is 26-connectivity only.
//
// The volume is the image of its rows, slice after slice (row r is row
// r % height of slice r / height; ccl_cuda::backend::Slices). A block's key
// is its first foreground voxel in raster order (z, then y, then x): the
// smallest flat index of the block, so that the smallest key of a
// component is its first voxel and the forest contract of ccl_device.cuh
// holds. Stages: init (each block's mask, its voxels pointing at its key),
// merge (a union with each backward neighbour block they touch),
// compress (each key pointing at its root); the shared finish numbers the
// forest.

// Bit (lz * 4 + ly * 2 + lx) of a block's mask is its voxel (lx, ly, lz):
// bit order is raster order, so the lowest set bit is the key.
#define BLOCK_VOXEL(lx, ly, lz) (1u << ((lz) * 4 + (ly) * 2 + (lx)))

struct VolumeBlocks {
    u32 width, height, depth;  // in blocks
    u32 volume_height;         // in voxels (rows per slice)
};

__device__ __forceinline__ bool block_voxel(CclImage rows, u32 volume_height, int x, int y, int z) {
    return x < rows.width && y < (int)volume_height && (u32)z * volume_height < (u32)rows.height &&
           ccl_row(rows, z * (int)volume_height + y)[x];
}

// The flat index of voxel bit b of block (bx, by, bz).
__device__ __forceinline__ u32 block_voxel_index(CclImage rows, u32 volume_height, int bx, int by,
                                                 int bz, int b) {
    const u32 x = 2 * bx + (b & 1), y = 2 * by + ((b >> 1) & 1), z = 2 * bz + (b >> 2);
    return (z * volume_height + y) * (u32)rows.width + x;
}

// The blocks a thread of a tile_grid over (width, height * depth) blocks
// takes, walking rows of blocks as CCL_FOR_EACH_ROW does.
#define FOR_EACH_VOLUME_BLOCK(blocks, bx, by, bz)                               \
    const int bx = blockIdx.x * blockDim.x + threadIdx.x;                       \
    if (bx >= (int)blocks.width) return;                                        \
    CCL_FOR_EACH_ROW(block_row_, (int)(blocks.height * blocks.depth))           \
    for (int by = block_row_ % (int)blocks.height, bz = block_row_ / (int)blocks.height, \
             once_ = 1; once_; once_ = 0)

// Init: the block's mask, and every foreground voxel of it pointing at the
// block's key (the key at itself: a root).
extern "C" __global__ void buf_volume_init(CclImage rows, u32* L, u8* masks, VolumeBlocks blocks) {
    FOR_EACH_VOLUME_BLOCK(blocks, bx, by, bz) {
        u32 mask = 0;
#pragma unroll
        for (int b = 0; b < 8; ++b)
            if (block_voxel(rows, blocks.volume_height, 2 * bx + (b & 1), 2 * by + ((b >> 1) & 1),
                            2 * bz + (b >> 2)))
                mask |= 1u << b;
        masks[((u32)bz * blocks.height + by) * blocks.width + bx] = (u8)mask;
        if (!mask) continue;
        const u32 key = block_voxel_index(rows, blocks.volume_height, bx, by, bz, __ffs(mask) - 1);
        for (u32 m = mask; m; m &= m - 1)
            L[block_voxel_index(rows, blocks.volume_height, bx, by, bz, __ffs(m) - 1)] = key + 1;
    }
}

// The voxels of a block on its side towards offset d (-1, 0, 1) along one
// axis: 0 = low half, 1 = high half, both for 0.
__device__ __forceinline__ u32 block_side(int dx, int dy, int dz) {
    u32 side = 0xffu;
#pragma unroll
    for (int b = 0; b < 8; ++b) {
        const int lx = b & 1, ly = (b >> 1) & 1, lz = b >> 2;
        if ((dx < 0 && lx != 0) || (dx > 0 && lx != 1) || (dy < 0 && ly != 0) ||
            (dy > 0 && ly != 1) || (dz < 0 && lz != 0) || (dz > 0 && lz != 1))
            side &= ~(1u << b);
    }
    return side;
}

// (dx, dy, dz) of the 13 backward neighbour blocks.
__constant__ signed char BLOCK_BACKWARD[13][3] = {
    {0, 0, -1},   {0, -1, 0},   {-1, 0, 0},   {-1, 0, -1}, {1, 0, -1},
    {0, -1, -1},  {0, 1, -1},   {-1, -1, 0},  {1, -1, 0},  {-1, -1, -1},
    {1, -1, -1},  {-1, 1, -1},  {1, 1, -1},
};

// Merge: a union of the block's key with each backward neighbour block
// that has a foreground voxel next to one of this block's. Voxels of two
// blocks that face each other are all 26-adjacent (their coordinates differ
// by at most one along every axis), so a face, edge or corner touches iff
// both sides of it hold a foreground voxel.
extern "C" __global__ void buf_volume_merge(CclImage rows, u32* L, const u8* masks,
                                            VolumeBlocks blocks) {
    FOR_EACH_VOLUME_BLOCK(blocks, bx, by, bz) {
        const u32 mask = masks[((u32)bz * blocks.height + by) * blocks.width + bx];
        if (!mask) continue;
        const u32 key = block_voxel_index(rows, blocks.volume_height, bx, by, bz, __ffs(mask) - 1);
        for (int k = 0; k < 13; ++k) {
            const int dx = BLOCK_BACKWARD[k][0], dy = BLOCK_BACKWARD[k][1], dz = BLOCK_BACKWARD[k][2];
            const int nx = bx + dx, ny = by + dy, nz = bz + dz;
            if (nx < 0 || ny < 0 || nz < 0 || nx >= (int)blocks.width || ny >= (int)blocks.height)
                continue;
            if (!(mask & block_side(dx, dy, dz))) continue;
            const u32 other = masks[((u32)nz * blocks.height + ny) * blocks.width + nx];
            if (!(other & block_side(-dx, -dy, -dz))) continue;
            ccl_merge(L, key,
                      block_voxel_index(rows, blocks.volume_height, nx, ny, nz, __ffs(other) - 1));
        }
    }
}

// Compress: each key straight at its root, so that the shared finish finds
// every voxel's root in two steps.
extern "C" __global__ void buf_volume_compress(CclImage rows, u32* L, const u8* masks,
                                               VolumeBlocks blocks) {
    FOR_EACH_VOLUME_BLOCK(blocks, bx, by, bz) {
        const u32 mask = masks[((u32)bz * blocks.height + by) * blocks.width + bx];
        if (!mask) continue;
        const u32 key = block_voxel_index(rows, blocks.volume_height, bx, by, bz, __ffs(mask) - 1);
        L[key] = ccl_find(L, key) + 1;
    }
}
