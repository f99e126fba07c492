// Block-based labeling, 8-connectivity: S. Allegretti, F. Bolelli & C. Grana,
// "Optimized block-based algorithms to label connected components on GPUs",
// IEEE TPDS 31(2), 2020 — BKE (Komura equivalence on blocks) and BUF
// (union-find on blocks). One thread per 2x2 block: the foreground pixels of
// a block are always 8-connected, so the block is one node of the forest.
//
// The node of a block is its first foreground pixel in raster order, its
// key: the smallest key of a component is then the component's first pixel,
// and linking larger keys under smaller ones leaves the forest of
// ccl_device.cuh (the shared back end reads it as it is). The block's other
// foreground pixels point at the key.
//
// The neighbourhood a block reads is 3 rows x 4 columns, bit 4 r + c for the
// pixel (x0 - 1 + c, y0 - 1 + r), (x0, y0) the block's top-left pixel:
//
//     0  1  2  3      row y0 - 1: the blocks above
//     4 [5  6] 7      rows y0, y0 + 1: the left block, this block
//     8 [9 10]11
//
// (bits 7 and 11 belong to the right block and are not read.)
//
// Every kernel reads the bit image of ccl-cuda's front end (CclBits), so a
// row of the neighbourhood is a shift of one or two of its words, not four
// byte loads.

#define BIT(r, c) (1u << (4 * (r) + (c)))

struct Block {
    int x0, y0;
    u32 window; // the neighbourhood above
    u32 key;    // the first foreground pixel (valid when window & BLOCK_PIXELS)
};

#define BLOCK_PIXELS (BIT(1, 1) | BIT(1, 2) | BIT(2, 1) | BIT(2, 2))

__device__ __forceinline__ u32 block_index(CclBits image, int x, int y) {
    return (u32)y * image.width + x;
}

// Pixels x0 - 1 .. x0 + 2 of row y (x0 even), bit c for pixel x0 - 1 + c; 0
// outside the image. They lie in the word of x0, plus the last bit of the
// word before when x0 starts a word, or the first of the word after when
// x0 + 2 does.
__device__ __forceinline__ u32 window_row(CclBits image, int x0, int y) {
    const int w = x0 >> 5, offset = x0 & 31;
    const u32 here = ccl_bits_word(image, y, w);
    const u32 before = offset == 0 ? ccl_bits_word(image, y, w - 1) >> 31 : 0u;
    const u32 after = offset == 30 ? ccl_bits_word(image, y, w + 1) : 0u;
    // Bit k is pixel 32 w - 1 + k.
    const u64 wide = (u64)after << 33 | (u64)here << 1 | before;
    return (u32)(wide >> offset) & 0xfu;
}

__device__ __forceinline__ Block block_at(CclBits image, int bx, int by) {
    Block b;
    b.x0 = 2 * bx;
    b.y0 = 2 * by;
    b.window = window_row(image, b.x0, b.y0 - 1) | (window_row(image, b.x0, b.y0) & 0x7u) << 4 |
               (window_row(image, b.x0, b.y0 + 1) & 0x7u) << 8;
    // Raster order within the block: (0, 0), (1, 0), (0, 1), (1, 1).
    const int first = (b.window & BIT(1, 1)) ? 0 : (b.window & BIT(1, 2)) ? 1 : (b.window & BIT(2, 1)) ? 2 : 3;
    b.key = block_index(image, b.x0 + (first & 1), b.y0 + (first >> 1));
    return b;
}

#define NO_BLOCK 0xffffffffu

// The backward neighbour blocks this block must be joined with, each as one
// of its foreground pixels next to this block (its forest entry leads to
// its key); NO_BLOCK where no union is needed.
//
// A neighbour needs no union of its own when it is joined, through an
// adjacency between the two neighbours' pixels in row y0 - 1 or column
// x0 - 1, with a neighbour that gets one: that adjacency belongs to an
// earlier block, whose own unions (by induction in raster order) join them.
// Up always gets its union; up-left and up-right are joined with up when
// their pixel next to up's is foreground; left with up or up-left through
// (x0 - 1, y0).
struct Neighbours {
    u32 up, up_left, up_right, left;
};

__device__ __forceinline__ Neighbours block_neighbours(CclBits image, Block b) {
    const u32 w = b.window;
    const bool a = w & BIT(1, 1), top = w & (BIT(1, 1) | BIT(1, 2));
    const bool up = top && (w & (BIT(0, 1) | BIT(0, 2)));
    const bool up_left = a && (w & BIT(0, 0));
    const bool up_right = (w & BIT(1, 2)) && (w & BIT(0, 3));
    const bool left = (w & (BIT(1, 1) | BIT(2, 1))) && (w & (BIT(1, 0) | BIT(2, 0)));
    // (x0 - 1, y0) touches up's (x0, y0 - 1) and up-left's (x0 - 1, y0 - 1).
    const bool left_joined =
        (w & BIT(1, 0)) && ((up && (w & BIT(0, 1))) || (up_left && (w & BIT(0, 0))));
    Neighbours n;
    n.up = !up ? NO_BLOCK : block_index(image, (w & BIT(0, 1)) ? b.x0 : b.x0 + 1, b.y0 - 1);
    n.up_left = up_left && !(w & BIT(0, 1)) ? block_index(image, b.x0 - 1, b.y0 - 1) : NO_BLOCK;
    n.up_right = up_right && !(w & BIT(0, 2)) ? block_index(image, b.x0 + 2, b.y0 - 1) : NO_BLOCK;
    n.left = left && !left_joined
                 ? block_index(image, b.x0 - 1, (w & BIT(1, 0)) ? b.y0 : b.y0 + 1)
                 : NO_BLOCK;
    return n;
}

// Writes `value` to the block's foreground pixels.
__device__ __forceinline__ void block_write(CclBits image, u32* L, Block b, u32 value) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int x = b.x0 + (k & 1), y = b.y0 + (k >> 1);
        if (x >= (int)image.width || y >= (int)image.height) continue;
        if (b.window & BIT(1 + (k >> 1), 1 + (k & 1))) L[block_index(image, x, y)] = value;
    }
}

// Writes `value` to the block's foreground pixels and 0 to the others: a
// row's two labels in one 8-byte store where they are 8-byte aligned (an
// even width from an aligned buffer: every row), else one at a time.
__device__ __forceinline__ void block_store(CclBits image, u32* out, Block b, u32 value) {
    const bool pair = b.x0 + 1 < (int)image.width;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int y = b.y0 + r;
        if (y >= (int)image.height) break;
        const u32 left = (b.window & BIT(1 + r, 1)) ? value : 0u;
        const u32 right = (b.window & BIT(1 + r, 2)) ? value : 0u;
        u32* p = out + block_index(image, b.x0, y);
        if (pair && ((size_t)p & 7u) == 0) {
            *(uint2*)p = make_uint2(left, right);
        } else {
            p[0] = left;
            if (pair) p[1] = right;
        }
    }
}

// The 2x2 blocks of this thread (ccl_cuda::tile_grid over blocks).
#define FOR_EACH_BLOCK(BX, BY)                              \
    const int BX = blockIdx.x * blockDim.x + threadIdx.x;   \
    if (2 * BX >= (int)image.width) return;                 \
    CCL_FOR_EACH_ROW(BY, ((int)image.height + 1) / 2)

// BUF init: every block's pixels point at its key, a root.
extern "C" __global__ void buf_init(CclBits image, u32* L) {
    FOR_EACH_BLOCK(bx, by) {
        const Block b = block_at(image, bx, by);
        if (b.window & BLOCK_PIXELS) block_write(image, L, b, b.key + 1);
    }
}

// Unions of the block's key with every neighbour block that needs one but
// `skip` (the one a BKE link already joined; NO_BLOCK for BUF).
__device__ __forceinline__ void block_unions(u32* L, Block b, Neighbours n, u32 skip) {
    const u32 all[4] = {n.up_left, n.up, n.up_right, n.left};
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if (all[k] != NO_BLOCK && all[k] != skip) ccl_merge(L, b.key, all[k]);
}

// BUF merge: a union with every backward neighbour block that needs one.
extern "C" __global__ void buf_merge(CclBits image, u32* L) {
    FOR_EACH_BLOCK(bx, by) {
        const Block b = block_at(image, bx, by);
        if (b.window & BLOCK_PIXELS) block_unions(L, b, block_neighbours(image, b), NO_BLOCK);
    }
}

// BKE's link: the first neighbour that needs a union (up, up-left,
// up-right, then left, as KE8), through its pixel next to the block. Links go to smaller indices only, so a left neighbour whose
// adjacent pixel comes after the key (the key in the top row, the left
// neighbour's pixel in the bottom row) is left to the reduction.
__device__ __forceinline__ u32 bke_link(Block b, Neighbours n) {
    if (n.up != NO_BLOCK) return n.up;
    if (n.up_left != NO_BLOCK) return n.up_left;
    if (n.up_right != NO_BLOCK) return n.up_right;
    if (n.left < b.key) return n.left;
    return NO_BLOCK;
}

// BKE init: the block's pixels point at its key, the key at its link.
extern "C" __global__ void bke_init(CclBits image, u32* L) {
    FOR_EACH_BLOCK(bx, by) {
        const Block b = block_at(image, bx, by);
        if (!(b.window & BLOCK_PIXELS)) continue;
        const u32 link = bke_link(b, block_neighbours(image, b));
        block_write(image, L, b, b.key + 1);
        if (link != NO_BLOCK) L[b.key] = link + 1;
    }
}

// BKE compression: each key points at its root.
extern "C" __global__ void bke_compress(CclBits image, u32* L) {
    FOR_EACH_BLOCK(bx, by) {
        const Block b = block_at(image, bx, by);
        if (b.window & BLOCK_PIXELS) L[b.key] = ccl_find_final(L, b.key) + 1;
    }
}

// BKE reduction: a union with every neighbour that needs one but the link.
extern "C" __global__ void bke_reduce(CclBits image, u32* L) {
    FOR_EACH_BLOCK(bx, by) {
        const Block b = block_at(image, bx, by);
        if (!(b.window & BLOCK_PIXELS)) continue;
        const Neighbours n = block_neighbours(image, b);
        block_unions(L, b, n, bke_link(b, n));
    }
}

// The finish of both: each block's root, ranked in `roots` (the shared
// back end flagged the roots of the forest), expanded to its four pixels
// (background 0) in `labels`, another buffer: the canonical labels.
extern "C" __global__ void block_number(CclBits image, const u32* __restrict__ L, CclRootIndex roots,
                                        u32* labels) {
    const u32 width = (u32)image.width;
    FOR_EACH_BLOCK(bx, by) {
        const Block b = block_at(image, bx, by);
        u32 label = 0;
        if (b.window & BLOCK_PIXELS) {
            const u32 root = ccl_find_final(L, b.key);
            label = ccl_root_label(roots, root % width, root / width);
        }
        block_store(image, labels, b, label);
    }
}
