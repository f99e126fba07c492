// Komura equivalence, one thread per pixel:
//  ke4: Y. Komura, "GPU-based cluster-labeling algorithm without the use of
//       conventional iteration: application to the Swendsen-Wang multi-cluster
//       spin flip algorithm", Comput. Phys. Commun. 194, 2015;
//  ke8: S. Allegretti, F. Bolelli, M. Cancilla & C. Grana, "Optimizing GPU-based
//       connected components labeling algorithms", IEEE IPAS 2018.
// Stages: init (a link to one backward neighbour), compression, reduction
// (unions with the backward neighbours the link does not join), compression.
// The compressions are the shared flatten (ccl_flatten of features.cu).

// Each foreground pixel links to its first foreground backward neighbour:
// up, then left (4-connectivity: the smaller index first); up, up-left,
// up-right, then left (8-connectivity). A pixel without one is a root. Parents have smaller
// indices, so roots stay at first pixels (the forest contract).
extern "C" __global__ void ke_init(CclImage image, u32* L, int eight) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        if (!ccl_row(image, y)[x]) continue;
        const u32 i = (u32)y * image.width + x, up = i - image.width;
        u32 parent = i;
        if (!eight) {
            if (ccl_pixel(image, x, y - 1)) parent = up;
            else if (ccl_pixel(image, x - 1, y)) parent = i - 1;
        } else if (ccl_pixel(image, x, y - 1)) {
            parent = up;
        } else if (ccl_pixel(image, x - 1, y - 1)) {
            parent = up - 1;
        } else if (ccl_pixel(image, x + 1, y - 1)) {
            parent = up + 1;
        } else if (ccl_pixel(image, x - 1, y)) {
            parent = i - 1;
        }
        L[i] = parent + 1;
    }
}

// The unions the initial link leaves out.
//  ke4: left, when the link went to up.
//  ke8: left and up-right, where foreground and not the link, as the paper
//       does. Some of these are redundant (left is joined with up and up-left
//       through its own adjacencies; up-right with up): Playne's
//       configuration tests (ccl-cuda-playne) skip exactly those.
extern "C" __global__ void ke_reduce(CclImage image, u32* L, int eight) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        if (y == 0 || !ccl_row(image, y)[x]) continue;
        const u32 i = (u32)y * image.width + x, up = i - image.width;
        const bool left = ccl_pixel(image, x - 1, y), above = ccl_pixel(image, x, y - 1);
        if (!eight) {
            if (left && above) ccl_merge(L, i, i - 1);
            continue;
        }
        const bool up_left = ccl_pixel(image, x - 1, y - 1);
        const bool up_right = ccl_pixel(image, x + 1, y - 1);
        // The link is to up, up-left, up-right or left, the first foreground.
        if (left && (above || up_left || up_right)) ccl_merge(L, i, i - 1);
        if (up_right && (above || up_left)) ccl_merge(L, i, up + 1);
    }
}
