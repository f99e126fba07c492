// The smallest CUDA variant (docs/design.md, "Adding a variant"): one
// union-find node per pixel, every pixel joined with its left and upper
// neighbours (and the upper diagonals for 8-connectivity) by the shared
// ccl_merge, which keeps each root at its component's first pixel.

// Every foreground pixel starts as its own root (the forest contract).
extern "C" __global__ void example_init(CclImage image, u32* L) {
    const u32 x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= (u32)image.width) return;
    const u32 i = y * image.width + x;
    L[i] = ccl_row(image, y)[x] ? i + 1 : 0;
}

// Joins each foreground pixel with its foreground neighbours above and left.
extern "C" __global__ void example_merge(CclImage image, u32* L, int eight) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= image.width || !ccl_row(image, y)[x]) return;
    const u32 i = (u32)y * image.width + x;
    const u8* row = ccl_row(image, y);
    if (x > 0 && row[x - 1]) ccl_merge(L, i, i - 1);
    if (y == 0) return;
    const u8* above = ccl_row(image, y - 1);
    const u32 up = i - image.width;
    if (above[x]) ccl_merge(L, i, up);
    if (!eight) return;
    if (x > 0 && above[x - 1]) ccl_merge(L, i, up - 1);
    if (x + 1 < image.width && above[x + 1]) ccl_merge(L, i, up + 1);
}
