// The smallest CUDA variant (docs/design.md, "Adding a variant"): one
// union-find node per pixel, every pixel joined with its left and upper
// neighbours (and the upper diagonals for 8-connectivity) by the shared
// ccl_merge, which keeps each root at its component's first pixel.

// A thread per pixel, launched on ccl_cuda::tile_grid: CCL_FOR_EACH_ROW
// walks the rows past the grid's 65535 rows of blocks.

// Every foreground pixel starts as its own root (the forest contract).
extern "C" __global__ void example_init(CclImage image, u32* L) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        const u32 i = (u32)y * image.width + x;
        L[i] = ccl_row(image, y)[x] ? i + 1 : 0;
    }
}

// Joins each foreground pixel with its foreground neighbours above and left.
extern "C" __global__ void example_merge(CclImage image, u32* L, int eight) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        const u8* row = ccl_row(image, y);
        if (!row[x]) continue;
        const u32 i = (u32)y * image.width + x;
        if (x > 0 && row[x - 1]) ccl_merge(L, i, i - 1);
        if (y == 0) continue;
        const u8* above = ccl_row(image, y - 1);
        const u32 up = i - image.width;
        if (above[x]) ccl_merge(L, i, up);
        if (!eight) continue;
        if (x > 0 && above[x - 1]) ccl_merge(L, i, up - 1);
        if (x + 1 < image.width && above[x + 1]) ccl_merge(L, i, up + 1);
    }
}
