// L. Cabaret, L. Lacassagne & D. Etiemble, "Distanceless label
// propagation: an efficient direct connected component labeling algorithm
// for GPUs", IPTA 2017. Classic label propagation moves a label one pixel
// per iteration, so its iterations grow with the components' geodesic
// diameters; DLP uses labels as addresses: a pixel lowers not only its own
// label but the label stored at each label it sees, i.e. at that label's
// representative pixel, so a low label reaches every pixel that points at
// the representative at once, whatever the distance. What follows is our
// reading of the paper, in the 1-based forest of ccl_device.cuh (label l
// names pixel l - 1; 0 is background). One thread per pixel (tile_grid,
// rows walked with CCL_FOR_EACH_ROW):
//
// dlp_init       L[i] = i + 1 for foreground, 0 for background.
// Then rounds of two kernels until dlp_propagate sets no flag (the host
// loop, ccl_cuda::ChangeFlag):
// dlp_propagate  every foreground pixel p reads the labels a_q of q in N[p]
//                (p and its foreground 4- or 8-neighbours), m = min a_q,
//                and lowers to m, with atomicMin, its own label L[p] and
//                the label L[a_q - 1] at every a_q > m; it sets the flag
//                when one of these atomicMin lowered a value.
// dlp_jump       pointer jumping: every foreground pixel follows its labels
//                (l = L[l - 1]) to the end of the chain (L[l - 1] == l) and
//                stores it in L[p].
//
// Background is told by L == 0: dlp_init writes it, and no kernel writes a
// background entry afterwards (every atomicMin targets p or a_q - 1, both
// foreground by (a) below), so the rounds read no pixels.
//
// Why it converges to the exact labels (first pixel in raster order + 1):
//  (a) For every foreground pixel j, every value L[j] ever holds is 1 + a
//      foreground pixel of j's component, and at most j + 1. True at init;
//      dlp_propagate's atomicMin stores m (a label of N[p], all in p's
//      component) at p or at a_q - 1 (in p's component by (a)); the min of
//      two values that keep (a) keeps it. dlp_jump stores the end of a chain
//      of labels, which stays in the component.
//  (b) Labels only decrease: atomicMin, and in dlp_jump only thread p writes
//      L[p], with the end of a chain that starts at L[p] and descends. The
//      chain ends: by (a) each step reads L[l - 1] <= l, so it strictly
//      descends until L[l - 1] == l; any value read, fresh or not, is one
//      the entry held, so this holds while other threads shorten chains.
//  (c) The loop ends: a flagged round strictly lowers some label (the flag
//      is set only on an atomicMin that returned more than m), labels are
//      >= 1, and no round raises one: finitely many flagged rounds.
//  (d) A round without the flag writes nothing in dlp_propagate (an
//      atomicMin that lowers nothing stores nothing), so every thread read
//      the same labels L0 that the round started with, and for each p,
//      L0[p] <= m, i.e. no neighbour of p has a lower label. By symmetry
//      adjacent foreground pixels have equal labels: each component C has
//      one label c, c - 1 in C by (a). Its first pixel r has L0[r] <= r + 1
//      and L0[r] - 1 in C, i.e. >= r: c = r + 1, the flat label of the
//      forest contract, and dlp_jump of that round changes nothing
//      (L[c - 1] == c).

// The representatives' updates are what makes the propagation distanceless;
// the own-label update alone (with dlp_jump) would be plain propagation
// with pointer jumping. Neither is needed for (d), only for speed.

// Every pixel its own label, 0 for background.
extern "C" __global__ void dlp_init(CclImage image, u32* L) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        const u32 i = (u32)y * (u32)image.width + (u32)x;
        L[i] = ccl_row(image, y)[x] ? i + 1 : 0;
    }
}

// The labels of the closed neighbourhood N[p] of p = (x, y): at most 9
// (8-connectivity), 0 for background and outside the image.
#define DLP_NEIGHBOURHOOD 9

// dlp_propagate: see the header. The labels are read with plain loads while
// other threads lower them with atomics: a value from L1 may be older than
// L2's, i.e. higher (labels only decrease), which is still a valid label by
// (a) and only costs speed; in a round that changes nothing there are no
// writes, so every load sees the round's labels (d).
extern "C" __global__ void dlp_propagate(CclImage image, u32* L, int eight, u32* changed) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    const u32 width = (u32)image.width;
    CCL_FOR_EACH_ROW(y, image.height) {
        const u32 i = (u32)y * width + (u32)x;
        const u32 own = L[i];
        if (own == 0) continue;
        const bool left = x > 0, right = x + 1 < image.width;
        const bool up = y > 0, down = y + 1 < image.height;
        u32 a[DLP_NEIGHBOURHOOD];
#pragma unroll
        for (int k = 0; k < DLP_NEIGHBOURHOOD; ++k) a[k] = 0;
        a[0] = own;
        if (left) a[1] = L[i - 1];
        if (right) a[2] = L[i + 1];
        if (up) {
            const u32 above = i - width;
            a[3] = L[above];
            if (eight && left) a[4] = L[above - 1];
            if (eight && right) a[5] = L[above + 1];
        }
        if (down) {
            const u32 below = i + width;
            a[6] = L[below];
            if (eight && left) a[7] = L[below - 1];
            if (eight && right) a[8] = L[below + 1];
        }
        // The least label: background 0 wraps to 0xffffffff, above every
        // real label - 1 (at most 2^32 - 3); a[0] is foreground, so m >= 1.
        u32 key = own - 1u;
#pragma unroll
        for (int k = 1; k < DLP_NEIGHBOURHOOD; ++k) key = min(key, a[k] - 1u);
        const u32 m = key + 1u;
        bool lowered = false;
        if (own > m) lowered |= atomicMin(L + i, m) > m;
        // The label at each label's representative; a[k] == 0 (background)
        // is never > m. Repeated labels repeat a harmless atomicMin, which
        // returns <= m the second time.
#pragma unroll
        for (int k = 0; k < DLP_NEIGHBOURHOOD; ++k)
            if (a[k] > m) lowered |= atomicMin(L + (a[k] - 1), m) > m;
        if (lowered) *changed = 1;
    }
}

// dlp_jump: see the header. Chains are read past L1 (__ldcg): other threads
// store their chains' ends meanwhile, and a fresher value only shortens the
// walk. L[i] is written by thread i only.
extern "C" __global__ void dlp_jump(CclImage image, u32* L) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= image.width) return;
    CCL_FOR_EACH_ROW(y, image.height) {
        const u32 i = (u32)y * (u32)image.width + (u32)x;
        const u32 own = L[i];
        if (own == 0) continue;
        // L is a 1-based forest: the shared header's find (uncached loads)
        // walks it to the end of the chain.
        const u32 label = ccl_find(L, own - 1) + 1;
        if (label != own) L[i] = label;
    }
}
