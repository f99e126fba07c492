// npp.cu: the kernels that adapt NPP's nppiLabelMarkersUF_8u32u to ccl's
// contract (docs/design.md, "Semantics"). Order: npp_binarize, NPP, npp_repair,
// npp_first_pixels, npp_finish; the shared back end then numbers the labels.
//
// What NPP does (checked on an H200 with NPP 13.0.1 and 13.2.0):
// - It labels every connected region of EQUAL pixel values, background
//   included, so two touching foreground pixels of different nonzero values
//   would be two regions: npp_binarize maps the input to 0 / 255 first, into
//   a packed scratch image (NPP's row step is then the width).
// - Its labels form a flat union-find forest R in raster indices: R[i] is
//   the index of a pixel of the same region whose own label is itself
//   (R[R[i]] == R[i]), so labels lie below width * height and one of them
//   may be 0.
// - It over-segments: some touching pixels of one component get different
//   labels, a few percent of the components of a 512 x 384 random image,
//   a different number each run (compute-sanitizer racecheck reports
//   shared-memory races in NPP's labelMarkersUF4WayLocalMergeBlock). It was
//   never seen to join two components. npp_repair therefore joins, in R,
//   the trees of every pair of touching foreground pixels whose labels
//   differ.
// - Its roots are some pixel of each region, not always the first:
//   npp_first_pixels finds each tree's first pixel, and npp_finish writes
//   1 + that pixel's index for each foreground pixel (below width * height
//   <= the launcher's limit, so never 0 and never wrapping) and 0 for
//   background: flat labels, a forest of the contract of ccl_device.cuh.

// R holds raw parent indices, so the shared union-find (ccl_device.cuh)
// runs with Base 0: ccl_merge<0>, ccl_find_final<0>.

// image (rows `pitch` bytes apart) -> binary (packed, width bytes a row):
// 255 for any nonzero byte, else 0. Grid: x over columns, y strides rows
// (gridDim.y is capped at 65535 by the launcher).
extern "C" __global__ void npp_binarize(CclImage image, u8* binary) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    for (int y = blockIdx.y; y < image.height; y += gridDim.y)
        binary[(u64)y * image.width + x] = ccl_row(image, y)[x] ? 255 : 0;
}

// Joins the trees of each foreground pixel and its foreground neighbours
// to the right and below (and below-left / below-right for `eight`) where
// NPP's labels differ. Equal labels need nothing: a non-root label never
// changes and roots only join, so pixels seen sharing a parent stay in one
// tree. Same grid as npp_binarize.
extern "C" __global__ void npp_repair(const u8* binary, u32* R, int width, int height, int eight) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    for (int y = blockIdx.y; y < height; y += gridDim.y) {
        const u32 i = (u32)y * (u32)width + (u32)x;
        if (!binary[i]) continue;
        const u32 label = R[i];
        if (x + 1 < width && binary[i + 1] && R[i + 1] != label) ccl_merge<0>(R, i, i + 1);
        if (y + 1 >= height) continue;
        const u32 below = i + (u32)width;
        if (binary[below] && R[below] != label) ccl_merge<0>(R, i, below);
        if (!eight) continue;
        if (x > 0 && binary[below - 1] && R[below - 1] != label) ccl_merge<0>(R, i, below - 1);
        if (x + 1 < width && binary[below + 1] && R[below + 1] != label) ccl_merge<0>(R, i, below + 1);
    }
}

// The first pixel of each tree of R: first_complement[root] becomes the
// complement of the smallest index in the tree (atomicMax of complements,
// so that a zeroed array is the neutral start). One thread per pixel; the
// lanes of a warp with one root (consecutive pixels) send one atomic, from
// the lowest of them.
extern "C" __global__ void npp_first_pixels(const u8* binary, const u32* R, u32* first_complement,
                                            u64 pixels) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    const bool foreground = i < pixels && binary[i];
    const u32 root = foreground ? ccl_find_final<0>(R, (u32)i) : 0xffffffffu;
    const u32 group = __match_any_sync(CCL_FULL_MASK, root);
    if (foreground && (threadIdx.x & 31u) == (u32)(__ffs(group) - 1))
        atomicMax(first_complement + root, ~(u32)i);
}

// R -> flat labels: 0 for background, 1 + the tree's first pixel for
// foreground. One thread per pixel.
extern "C" __global__ void npp_finish(const u8* binary, const u32* R, const u32* first_complement,
                                      u32* labels, u64 pixels) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pixels) return;
    labels[i] = binary[i] ? ~first_complement[ccl_find_final<0>(R, (u32)i)] + 1 : 0;
}
