// K. A. Hawick, A. Leist & D. P. Playne, "Parallel graph component
// labelling with GPUs and CUDA", Parallel Computing 36(12), 2010: the
// label-equivalence method (their kernel D), on pixels. One thread per pixel
// (tile_grid, rows walked with CCL_FOR_EACH_ROW), two arrays of width x
// height words, both 1-based as in ccl_device.cuh:
//
//   L  the labels (the caller's label buffer): 0 for background; for a
//      foreground pixel, 1 + the index of a pixel of its component.
//   R  the reference array, indexed by labels: R[l - 1] is the label that
//      label l is known to be equivalent to (R[l - 1] == l: a root).
//
// le_init      L[i] = R[i] = i + 1 for foreground, 0 for background.
// Then rounds of three kernels until le_scan sets no flag (the host loop,
// ccl_cuda::ChangeFlag):
// le_scan      every foreground pixel i with label l finds the lowest label m
//              among its foreground neighbours (4 or 8); if m < l it lowers
//              R[l - 1] to m (atomicMin) and sets the flag.
// le_analyze   every pixel whose label is its own (L[i] == i + 1: a
//              reference root) follows R from its entry to a fixed point
//              (R[r - 1] == r) and stores that in R[i].
// le_relabel   every foreground pixel sets L[i] = R[L[i] - 1].
//
// Background is told by L == 0 (le_init writes it and nothing writes it
// again), so the rounds read no pixels.
//
// Why the rounds are right (the labels below are always 1-based):
//  (a) Every label L[j] and reference R[j] of a foreground pixel j is 1 + a
//      foreground pixel of j's component, and at most j + 1. True at init;
//      le_scan lowers R[l - 1] (l - 1 in the component of i) to a
//      neighbour's label (same component); le_analyze stores the end of a
//      chain of such references; le_relabel stores a reference of L[i] - 1,
//      which is in i's component. Values only ever decrease (atomicMin; a
//      chain from R[i] only descends, and only thread i writes R[i] in
//      le_analyze; only thread i writes L[i]).
//  (b) Chains end: by (a) every value R[j] ever holds is <= j + 1, so
//      following R strictly descends until it meets an entry equal to its
//      own label. Any value read, fresh or not, is one R[j] held, so a
//      chain ends even while other threads of le_analyze shorten it.
//  (c) The loop ends: a flagged round lowers L[i] of the pixel that set the
//      flag, since R[l - 1] <= m < l after le_scan, le_analyze only lowers
//      R, and le_relabel sets L[i] = R[l - 1]. Labels are >= 1, so there
//      are finitely many flagged rounds. (The flag is set on m < l, not on
//      the atomicMin lowering R[l - 1]: R[l - 1] may already be that low
//      while L[i] still is l, and that pixel must still count as a change.)
//  (d) A round without the flag starts from labels where no foreground pixel
//      has a neighbour with a lower label: by symmetry adjacent foreground
//      pixels have equal labels, so each component C has one label c, and
//      c - 1 is in C by (a). Its first pixel r has L[r] <= r + 1 and
//      L[r] - 1 in C, i.e. >= r: c = r + 1, the forest contract's flat
//      label. That round's le_analyze and le_relabel change nothing: the
//      only root of C is r, and R[r] == r + 1 by (a).

// The lowest key (label - 1) among the foreground neighbours of pixel i at
// (x, y), 0xffffffff if none: background labels 0 wrap to 0xffffffff, above
// every real key (at most 2^32 - 3). L is not written while le_scan runs,
// so plain (cached) loads see the round's labels.
__device__ __forceinline__ u32 le_lowest_neighbour(const u32* __restrict__ L, u32 i, int x, int y,
                                                   CclImage image, bool eight) {
    const u32 width = (u32)image.width;
    const bool left = x > 0, right = x + 1 < image.width;
    const bool up = y > 0, down = y + 1 < image.height;
    u32 lowest = 0xffffffffu;
    if (left) lowest = min(lowest, L[i - 1] - 1u);
    if (right) lowest = min(lowest, L[i + 1] - 1u);
    if (up) {
        const u32 above = i - width;
        lowest = min(lowest, L[above] - 1u);
        if (eight && left) lowest = min(lowest, L[above - 1] - 1u);
        if (eight && right) lowest = min(lowest, L[above + 1] - 1u);
    }
    if (down) {
        const u32 below = i + width;
        lowest = min(lowest, L[below] - 1u);
        if (eight && left) lowest = min(lowest, L[below - 1] - 1u);
        if (eight && right) lowest = min(lowest, L[below + 1] - 1u);
    }
    return lowest;
}

// Every pixel its own label and its own reference (0 for background; R of
// background is never read, written only so that R holds no stale data).
extern "C" __global__ void le_init(CclImage image, u32* L, u32* R) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        const u32 i = (u32)y * (u32)image.width + (u32)x;
        const u32 label = ccl_row(image, y)[x] ? i + 1 : 0;
        L[i] = label;
        R[i] = label;
    }
}

// Scanning: a label with a lower neighbouring label records the lower one
// as its reference. Many pixels may lower the same R entry: atomicMin keeps
// the lowest.
extern "C" __global__ void le_scan(CclImage image, const u32* __restrict__ L, u32* R, int eight,
                                   u32* changed) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        const u32 i = (u32)y * (u32)image.width + (u32)x;
        const u32 label = L[i];
        if (label == 0) continue;
        const u32 lowest = le_lowest_neighbour(L, i, x, y, image, eight != 0);
        // lowest < label - 1 implies a foreground neighbour (0xffffffff is
        // above every key).
        if (lowest < label - 1) {
            atomicMin(R + (label - 1), lowest + 1);
            *changed = 1;
        }
    }
}

// Analysis: each reference root resolves its chain. Other threads store
// their roots' ends meanwhile; reads bypass L1 (__ldcg) to see them, which
// only shortens the walk (see (b) above for why any value read is safe).
extern "C" __global__ void le_analyze(CclImage image, const u32* __restrict__ L, u32* R) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        const u32 i = (u32)y * (u32)image.width + (u32)x;
        // Background (0) never equals i + 1.
        if (L[i] != i + 1) continue;
        // R is a 1-based forest over labels: the shared header's find
        // (uncached loads) walks it.
        const u32 first = __ldcg(R + i);
        const u32 ref = ccl_find(R, first - 1) + 1;
        if (ref != first) R[i] = ref;
    }
}

// Labeling: every label replaced by its reference. R is not written here
// and L[i] only by thread i.
extern "C" __global__ void le_relabel(CclImage image, u32* L, const u32* __restrict__ R) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        const u32 i = (u32)y * (u32)image.width + (u32)x;
        const u32 label = L[i];
        if (label == 0) continue;
        const u32 ref = R[label - 1];
        if (ref != label) L[i] = ref;
    }
}
