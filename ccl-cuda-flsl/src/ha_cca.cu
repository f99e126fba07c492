// ha_cca.cu: the analyses that ccl-cuda-flsl runs on HA's forest (the strip
// labeling and border merge of ccl-cuda-ha4, 32-pixel words): the naive
// reference, conflict detection, and the store of the on-the-fly records
// (whose moves happen in ha4.cu's kernels). After Lemaitre, Hennequin &
// Lacassagne (ICASSP 2021); algorithm numbers are that paper's.

// The reference point of the paper: one atomic update per foreground pixel
// (from flat labels, one thread per pixel on ccl_cuda::tile_grid).
extern "C" __global__ void __launch_bounds__(256)
    naive_vote(CclImage image, const u32* labels, CclRootIndex roots, CclStatsOut out, u32* counts) {
    const u32 x = blockIdx.x * blockDim.x + threadIdx.x, width = (u32)image.width;
    if (x >= width) return;
    CCL_FOR_EACH_ROW(row, image.height) {
        const u32 y = (u32)row;
        if (!ccl_row(image, y)[x]) continue;
        const u32 root = labels[y * width + x] - 1;
        const u32 rank = ccl_root_rank(roots, root % width, root / width);
        ccl_add_to_component(out, rank, 1, x, x, x, y);
        CCL_COUNT_UPDATE(counts, rank);
    }
}

// Algorithm 3 on HA's segments (one warp per word): each segment piece of
// the word (a run's first pixel, or bit 0 of a word that a run enters) finds
// its root; the lanes of one root meet (__match_any_sync), sum their pieces'
// features and the lowest lane alone updates the component.
extern "C" __global__ void __launch_bounds__(256)
    ha_vote_cd(CclImage image, const u32* L, CclRootIndex roots, CclStatsOut out, u32* counts) {
    const u32 width = (u32)image.width, words_per_row = (width + 31) / 32;
    u32 y, base;
    if (!ccl_warp_word((u64)words_per_row * image.height, words_per_row, &y, &base)) return;
    const u32 lane = threadIdx.x, x = base + lane;
    const u8* row = ccl_row(image, y);
    const u32 word = __ballot_sync(CCL_FULL_MASK, x < width && row[x]);
    const bool starts = ((word >> lane) & 1u) && (lane == 0 || !((word >> (lane - 1)) & 1u));
    u32 rank = 0xffffffffu, first = 0, last = 0;
    if (starts) {
        const u32 root = ccl_find_final(L, y * width + x);
        rank = ccl_root_rank(roots, root % width, root / width);
        first = x;
        last = base + ccl_run_end(word, lane);
    }
    const u32 group = __match_any_sync(CCL_FULL_MASK, rank);
    const u32 area = __reduce_add_sync(group, starts ? last - first + 1 : 0);
    const u64 sum_x = ccl_reduce_add_u64(group, starts ? (u64)(first + last) * (last - first + 1) / 2 : 0);
    first = __reduce_min_sync(group, starts ? first : 0xffffffffu);
    last = __reduce_max_sync(group, last);
    if (starts && lane == (u32)__ffs(group) - 1) {
        ccl_add_to_component(out, rank, area, sum_x, first, last, y);
        CCL_COUNT_UPDATE(counts, rank);
    }
}

// OTF's last step (one warp per root word): each root pixel's record is its
// component's features.
extern "C" __global__ void __launch_bounds__(256)
    ha_store_roots(CclImage image, const CclNode* nodes, CclRootIndex roots, CclStatsOut out) {
    const u32 width = (u32)image.width;
    u32 y, base;
    if (!ccl_warp_word((u64)roots.words_per_row * image.height, roots.words_per_row, &y, &base)) return;
    const u32 lane = threadIdx.x, word = y * roots.words_per_row + base / 32;
    const u32 bits = roots.bits[word];
    if (!((bits >> lane) & 1u)) return;
    const u32 rank = roots.offsets[word] + __popc(bits & ccl_lanemask_lt());
    ccl_store_component(out, rank, nodes[y * width + base + lane], y);
}
