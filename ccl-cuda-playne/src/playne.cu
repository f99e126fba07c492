// Playne & Hawick, "A new algorithm for parallel connected-component
// labelling on GPUs", IEEE TPDS 29(6), 2018: the direct method. One thread
// per pixel; the local configuration of each pixel's backward neighbours
// decides whether it needs a union at all. Stages: playne_init, a
// compression, playne_merge, a compression (the compressions are the shared
// ccl_flatten of features.cu).
//
// Backward neighbours of pixel (x, y): left (x-1, y), up (x, y-1) and, for
// 8-connectivity, up-left (x-1, y-1) and up-right (x+1, y-1). Every
// adjacency is the backward adjacency of exactly one pixel, so covering each
// pixel's backward adjacencies labels the image.

struct Backward {
    bool left, up_left, up, up_right;
};

__device__ __forceinline__ Backward playne_backward(CclImage image, int x, int y, bool eight) {
    Backward n;
    n.left = ccl_pixel(image, x - 1, y);
    n.up = ccl_pixel(image, x, y - 1);
    // up-left is read in 4-connectivity too: it decides configuration (f).
    n.up_left = ccl_pixel(image, x - 1, y - 1);
    n.up_right = eight && ccl_pixel(image, x + 1, y - 1);
    return n;
}

// Each foreground pixel's label starts as its own linear address, replaced
// by a backward neighbour's where one is foreground: the union with that
// neighbour costs nothing. Up comes first, so that the links of a solid
// region run along columns, which a compression (rows in launch order)
// shortens as it goes, rather than along rows, where the 32 lanes of a warp
// would walk one chain side by side. Parents have smaller indices, so roots stay
// at first pixels (the forest contract of ccl_device.cuh). Background
// entries are never read and are not written.
extern "C" __global__ void playne_init(CclImage image, u32* L, int eight) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        if (!ccl_row(image, y)[x]) continue;
        const u32 i = (u32)y * image.width + x, up = i - image.width;
        const Backward n = playne_backward(image, x, y, eight);
        u32 parent = i;
        if (n.up) parent = up;
        else if (eight && n.up_left) parent = up - 1;
        else if (n.left) parent = i - 1;
        else if (n.up_right) parent = up + 1;
        L[i] = parent + 1;
    }
}

// The unions the initial link does not imply.
//  4-connectivity: the link goes to `up` when it is foreground; `left` is
//    then already joined unless up-left is background (up-left, up and left
//    would otherwise be joined through their own adjacencies): the paper's
//    configuration (f), the only one that merges.
//  8-connectivity: left, up-left and up are pairwise adjacent, so a link to
//    any of them joins all three; up-right is adjacent to up only, so it
//    needs a union when up is background and the link went to up-left or
//    left.
extern "C" __global__ void playne_merge(CclImage image, u32* L, int eight) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        if (y == 0 || !ccl_row(image, y)[x]) continue;
        const u32 i = (u32)y * image.width + x, up = i - image.width;
        const Backward n = playne_backward(image, x, y, eight);
        if (!eight) {
            if (n.left && n.up && !n.up_left) ccl_merge(L, i, i - 1);
        } else if (n.up_right && !n.up && (n.left || n.up_left)) {
            ccl_merge(L, i, up + 1);
        }
    }
}
