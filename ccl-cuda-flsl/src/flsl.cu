// FLSL: full-line segment labeling and analysis, after Lemaitre, Hennequin &
// Lacassagne, "Taming voting algorithms on GPUs for an efficient connected
// component analysis algorithm" (ICASSP 2021). Algorithm numbers below are
// that paper's.
//
// The nodes of the union-find forest are runs (segments of foreground of one
// row), not pixels. One warp walks a whole row (Algorithm 1): a word of 32
// pixels is a __ballot_sync mask, its edges come from __funnelshift_l with
// the previous word, and the rank of an edge among the row's runs is the
// runs before the word plus __popc(edges & lanemask). A run's slot is
// y * capacity + its rank in the row (capacity = the most runs a row can
// hold), so slots are in raster order of the runs' first pixels and the
// smallest slot of a component is its first run: the forest keeps the
// contract of ccl_device.cuh over slots.
//
// The same walk ranks the runs of the row above, which gives, for each run,
// the range of runs above it that it touches (the run table's job of the
// paper's ER array, without storing a rank per pixel): the run links to the
// first, and the union kernel merges it with the others. Features are then
// per run: area, bounding box, and Σx in closed form.
//
// FLSL_BATCH (words whose pixels a lane loads before using the first) is
// defined by the launcher (flsl.rs).

#define NO_RANK 0xffffffffu
// `extra` of a run linked to no run above: a root when the unions begin.
#define UNLINKED 0xffffffffu

// The run table of an image (flsl.rs RunTableArgs).
struct FlslRuns {
    uint2* runs;     // first and last column of each run, by slot
    u32* parent;     // the forest over slots (1-based parents, ccl_device.cuh)
    u32* extra;      // runs above touched beyond the first (or UNLINKED); later each run's label
    u32* count;      // runs per row
    u32* word_runs;  // runs of row y begun before word w, at y * row_words + w
    u32 capacity;    // slots per row
    u32 row_words;   // words per row: width / 32 + 1 (the last one closes a run at the edge)
};

// Algorithm 1: the runs of one row (one warp per row, blockDim 32 x 4). For a
// run from column s to e, the runs of the row above it touches are a range
// of ranks [first, last] (empty when first > last): runs of the row above
// begun up to column e (e + 1 with 8-connectivity) and not ended before
// column s (s - 1). Each run's record is written by the lane just past its
// end, which knows both ends: its start comes from the lane that began it,
// or from the previous word if the run crossed into this one. With `nodes`,
// each run that is a root (not linked to a run above) gets its own features
// as its OTF record.
template <bool Eight>
__device__ void find_runs(CclImage image, FlslRuns t, CclNode* nodes) {
    const u32 y = blockIdx.x * blockDim.y + threadIdx.y;
    if (y >= (u32)image.height) return;
    const u32 lane = threadIdx.x, lt = ccl_lanemask_lt(), le = lt | (1u << lane);
    const int width = image.width;
    const u8* row = ccl_row(image, y);
    const u8* above = y ? ccl_row(image, y - 1) : nullptr;
    const u32 slot0 = y * t.capacity, above_slot0 = slot0 - t.capacity;
    u32 runs_before = 0, above_before = 0, previous = 0, previous_above = 0;
    int open_first = 0;  // `first` of the run open at the end of the previous word
    u32 open_start = 0;  // and its first column
    for (u32 batch = 0; batch < t.row_words; batch += FLSL_BATCH) {
        u32 here_bits = 0, above_bits = 0;
#pragma unroll
        for (int k = 0; k < FLSL_BATCH; ++k) {
            const int x = (int)((batch + k) * 32 + lane);
            if (x < width) {
                here_bits |= (u32)(row[x] != 0) << k;
                if (above) above_bits |= (u32)(above[x] != 0) << k;
            }
        }
#pragma unroll
        for (int k = 0; k < FLSL_BATCH; ++k) {
            const u32 w = batch + k;
            if (w >= t.row_words) break;
            const u32 base = w * 32;
            const u32 here = __ballot_sync(CCL_FULL_MASK, (here_bits >> k) & 1u);
            const u32 up = __ballot_sync(CCL_FULL_MASK, (above_bits >> k) & 1u);
            // Bit p of `left` is pixel p - 1, the previous word's last for p = 0.
            const u32 left = __funnelshift_l(previous, here, 1);
            const u32 up_left = __funnelshift_l(previous_above, up, 1);
            const u32 starts = here & ~left, ends = ~here & left, up_starts = up & ~up_left;
            if (lane == 0) t.word_runs[y * t.row_words + w] = runs_before;
            int first = 0;
            if ((starts >> lane) & 1u) {
                // Runs above begun at or before s (s - 1), less the one holding
                // s (s - 1) if there is one.
                const u32 begun = above_before + __popc(up_starts & (Eight ? lt : le));
                const bool touching = ((Eight ? up_left : up) >> lane) & 1u;
                first = (int)begun - (touching ? 1 : 0);
            }
            // The first of the last run begun in this word before this lane,
            // for the lane past its end.
            const u32 earlier = starts & lt;
            const int begun_at = earlier ? 31 - __clz(earlier) : 0;
            const int first_of_run = __shfl_sync(CCL_FULL_MASK, first, begun_at);
            if ((ends >> lane) & 1u) {
                const u32 start = earlier ? base + begun_at : open_start;
                const int run_first = earlier ? first_of_run : open_first;
                const u32 slot = slot0 + runs_before + __popc(earlier) - 1;
                // Runs above begun at or before e (e + 1), e = this column - 1.
                const int last = (int)(above_before + __popc(up_starts & (Eight ? le : lt))) - 1;
                const u32 end = base + lane - 1;
                t.runs[slot] = make_uint2(start, end);
                const bool linked = run_first <= last;
                t.parent[slot] = linked ? above_slot0 + run_first + 1 : slot + 1;
                t.extra[slot] = linked ? (u32)(last - run_first) : UNLINKED;
                // A linked run's features go to its root in the union kernel;
                // its own record stays empty, so that nothing is counted twice.
                if (nodes) nodes[slot] = linked ? ccl_node_empty() : ccl_node_of_run(start, end, y);
            }
            // The run open at the word's end began at its last start, if any.
            const int last_start = starts ? 31 - __clz(starts) : 0;
            const int first_of_last = __shfl_sync(CCL_FULL_MASK, first, last_start);
            if ((here >> 31) && starts) {
                open_first = first_of_last;
                open_start = base + last_start;
            }
            runs_before += __popc(starts);
            above_before += __popc(up_starts);
            previous = here;
            previous_above = up;
        }
    }
    if (lane == 0) t.count[y] = runs_before;
}

// Unions (one block per row, a thread per run): a run linked to the first
// run above it compresses its own path, moves its features to its root
// (OTF), and merges with the other runs above it touches. Whether a run was
// linked is read from `extra`, not from its parent: a run that the run
// kernel left a root may already have been linked by another thread.
template <bool Otf>
__device__ void unite_runs(FlslRuns t, CclNode* nodes, u32* counts) {
    const u32 y = blockIdx.x, runs = t.count[y];
    for (u32 j = threadIdx.x; j < runs; j += blockDim.x) {
        const u32 slot = y * t.capacity + j;
        const u32 extra = t.extra[slot];
        if (extra == UNLINKED) continue;
        // Only this thread writes a linked run's parent.
        const u32 parent = t.parent[slot];
        // Any ancestor will do.
        t.parent[slot] = ccl_find(t.parent, parent - 1) + 1;
        if (Otf) {
            const uint2 run = t.runs[slot];
            ccl_otf_add(t.parent, nodes, counts, slot, ccl_node_of_run(run.x, run.y, y));
        }
        for (u32 k = 1; k <= extra; ++k) {
            if (Otf)
                ccl_merge_otf(t.parent, nodes, counts, slot, parent - 1 + k);
            else
                ccl_merge(t.parent, slot, parent - 1 + k);
        }
    }
}

// Analysis, step 1 (one warp per word of the root layout, words_per_row
// words of 32 slots per row): flags the root runs and counts them per group
// (the shared back end then ranks them).
__device__ void count_root_runs(FlslRuns t, u32 height, u32* root_bits, u32 words_per_row,
                                u32* group_count) {
    u32 y, first_slot;
    if (!ccl_warp_word((u64)height * words_per_row, words_per_row, &y, &first_slot)) return;
    const u32 j = first_slot + threadIdx.x, slot = y * t.capacity + j;
    const bool root = j < t.count[y] && t.parent[slot] == slot + 1;
    const u32 roots = __ballot_sync(CCL_FULL_MASK, root);
    const u32 word = y * words_per_row + first_slot / 32;
    if (threadIdx.x == 0) {
        root_bits[word] = roots;
        if (roots) atomicAdd(group_count + word / CCL_ROOT_GROUP_WORDS, (u32)__popc(roots));
    }
}

__device__ __forceinline__ u32 rank_of_slot(FlslRuns t, CclRootIndex roots, u32 slot) {
    return ccl_root_rank(roots, slot % t.capacity, slot / t.capacity);
}

// Analysis, step 2, the voting (one block per row, a thread per run; the
// block's runs go in rounds of blockDim.x so that every warp is whole).
// Plain: one atomic update per run. Conflict detection (Algorithm 3): the
// lanes of a warp with the same root find each other (__match_any_sync), sum
// their features (segmented reductions) and the lowest lane alone updates.
// Near the percolation threshold most runs of a row belong to one giant
// component, whose root would still get an update per warp: so the block
// also gathers, in shared memory, the updates of the row's most frequent
// component (the most frequent among 32 runs sampled across the row), and
// makes them one.
struct BlockTotal {
    u32 rank, area, x_min, x_max;
    unsigned long long sum_x;
};

template <bool Cd>
__device__ void vote(FlslRuns t, CclRootIndex roots, CclStatsOut out, u32* counts) {
    __shared__ BlockTotal block;
    const u32 y = blockIdx.x, runs = t.count[y];
    if (Cd && threadIdx.x < 32) {
        const u32 lane = threadIdx.x;
        const u32 sample = (u32)((u64)lane * runs / 32);
        const u32 rank = runs ? rank_of_slot(t, roots, ccl_find_final(t.parent, y * t.capacity + sample)) : NO_RANK;
        // The largest group of equal samples, the lowest lane on a tie.
        const u32 group = __match_any_sync(CCL_FULL_MASK, rank);
        const u32 best = __reduce_max_sync(CCL_FULL_MASK, ((u32)__popc(group) << 5) | (31 - lane));
        if (lane == 31 - (best & 31u)) {
            block.rank = rank;
            block.area = 0;
            block.x_min = 0xffffffffu;
            block.x_max = 0;
            block.sum_x = 0;
        }
    }
    if (Cd) __syncthreads();
    for (u32 round = 0; round < runs; round += blockDim.x) {
        const u32 j = round + threadIdx.x, slot = y * t.capacity + j;
        const bool valid = j < runs;
        u32 rank = NO_RANK, first = 0, last = 0;
        if (valid) {
            const uint2 run = t.runs[slot];
            first = run.x;
            last = run.y;
            rank = rank_of_slot(t, roots, ccl_find_final(t.parent, slot));
        }
        u32 area = valid ? last - first + 1 : 0;
        u64 sum_x = (u64)(first + last) * area / 2;
        bool leader = valid;
        if (Cd) {
            const u32 group = __match_any_sync(CCL_FULL_MASK, rank);
            area = __reduce_add_sync(group, area);
            sum_x = ccl_reduce_add_u64(group, sum_x);
            first = __reduce_min_sync(group, valid ? first : 0xffffffffu);
            last = __reduce_max_sync(group, last);
            leader = valid && (threadIdx.x & 31u) == (u32)__ffs(group) - 1;
            if (leader && rank == block.rank) {
                atomicAdd(&block.area, area);
                atomicAdd(&block.sum_x, (unsigned long long)sum_x);
                atomicMin(&block.x_min, first);
                atomicMax(&block.x_max, last);
                leader = false;
            }
        }
        if (leader) {
            ccl_add_to_component(out, rank, area, sum_x, first, last, y);
            CCL_COUNT_UPDATE(counts, rank);
        }
    }
    if (Cd) {
        __syncthreads();
        if (threadIdx.x == 0 && block.area) {
            ccl_add_to_component(out, block.rank, block.area, block.sum_x, block.x_min, block.x_max, y);
            CCL_COUNT_UPDATE(counts, block.rank);
        }
    }
}

// Analysis, step 2 with OTF: each root run's record is its component's
// features (one block per row, a thread per run).
__device__ void store_root_runs(FlslRuns t, const CclNode* nodes, CclRootIndex roots, CclStatsOut out) {
    const u32 y = blockIdx.x, runs = t.count[y];
    for (u32 j = threadIdx.x; j < runs; j += blockDim.x) {
        const u32 slot = y * t.capacity + j;
        if (t.parent[slot] == slot + 1) ccl_store_component(out, rank_of_slot(t, roots, slot), nodes[slot], y);
    }
}

// Labeling, step 1 (one block per row, a thread per run): each run's label
// in `extra`: canonical (Ranked: the rank of its root run in `roots` + 1),
// or raw (1 + the raster index of its component's first pixel).
template <bool Ranked>
__device__ void label_runs(FlslRuns t, u32 width, CclRootIndex roots) {
    const u32 y = blockIdx.x, runs = t.count[y];
    for (u32 j = threadIdx.x; j < runs; j += blockDim.x) {
        const u32 slot = y * t.capacity + j;
        const u32 root = ccl_find_final(t.parent, slot);
        t.extra[slot] = Ranked ? rank_of_slot(t, roots, root) + 1 : (root / t.capacity) * width + t.runs[root].x + 1;
    }
}

// Labeling, step 2 (one warp per word of 32 pixels): each pixel's run is
// the runs begun before its word plus those begun in it up to the pixel.
__device__ void label_pixels(CclImage image, FlslRuns t, u32* labels) {
    const u32 words_per_row = (image.width + 31) / 32;
    u32 y, base;
    if (!ccl_warp_word((u64)image.height * words_per_row, words_per_row, &y, &base)) return;
    const u32 x = base + threadIdx.x;
    const u8* row = ccl_row(image, y);
    const bool here = x < (u32)image.width && row[x];
    const u32 mask = __ballot_sync(CCL_FULL_MASK, here);
    const bool left_of_word = base > 0 && row[base - 1];
    const u32 starts = mask & ~((mask << 1) | (u32)left_of_word);
    if (x >= (u32)image.width) return;
    const u32 rank = t.word_runs[y * t.row_words + base / 32] +
                     __popc(starts & (ccl_lanemask_lt() | (1u << threadIdx.x)));
    labels[y * (u32)image.width + x] = here ? t.extra[y * t.capacity + rank - 1] : 0;
}

// ------------------------------------------------------------ entry points

#define FLSL_RUN_KERNELS(NAME, EIGHT)                                                                    \
    extern "C" __global__ void __launch_bounds__(128) NAME(CclImage image, FlslRuns t, CclNode* nodes) { \
        find_runs<EIGHT>(image, t, nodes);                                                               \
    }
FLSL_RUN_KERNELS(flsl_runs_c4, false)
FLSL_RUN_KERNELS(flsl_runs_c8, true)

extern "C" __global__ void __launch_bounds__(256) flsl_unions(FlslRuns t) { unite_runs<false>(t, nullptr, nullptr); }

extern "C" __global__ void __launch_bounds__(256) flsl_unions_otf(FlslRuns t, CclNode* nodes, u32* counts) {
    unite_runs<true>(t, nodes, counts);
}

extern "C" __global__ void __launch_bounds__(256)
    flsl_count_roots(FlslRuns t, u32 height, u32* root_bits, u32 words_per_row, u32* group_count) {
    count_root_runs(t, height, root_bits, words_per_row, group_count);
}

extern "C" __global__ void __launch_bounds__(256)
    flsl_vote(FlslRuns t, CclRootIndex roots, CclStatsOut out, u32* counts) {
    vote<false>(t, roots, out, counts);
}

extern "C" __global__ void __launch_bounds__(256)
    flsl_vote_cd(FlslRuns t, CclRootIndex roots, CclStatsOut out, u32* counts) {
    vote<true>(t, roots, out, counts);
}

extern "C" __global__ void __launch_bounds__(256)
    flsl_store_roots(FlslRuns t, const CclNode* nodes, CclRootIndex roots, CclStatsOut out) {
    store_root_runs(t, nodes, roots, out);
}

extern "C" __global__ void __launch_bounds__(256) flsl_label_runs(FlslRuns t, u32 width) {
    const CclRootIndex none = {nullptr, nullptr, 0};
    label_runs<false>(t, width, none);
}

extern "C" __global__ void __launch_bounds__(256) flsl_number_runs(FlslRuns t, CclRootIndex roots) {
    label_runs<true>(t, 0, roots);
}

extern "C" __global__ void __launch_bounds__(256) flsl_label_pixels(CclImage image, FlslRuns t, u32* labels) {
    label_pixels(image, t, labels);
}
