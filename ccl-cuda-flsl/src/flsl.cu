// FLSL: full-line segment labeling and analysis, after Lemaitre, Hennequin &
// Lacassagne, "Taming voting algorithms on GPUs for an efficient connected
// component analysis algorithm" (ICASSP 2021). Algorithm numbers below are
// that paper's.
//
// The nodes of the union-find forest are runs (segments of foreground of one
// row), not pixels. The image is first packed into bits (the shared bit
// front end, ccl_cuda::backend::BitImage). One warp walks a whole row
// (Algorithm 1), a lane per word of 32 pixels: its edges come from
// __funnelshift_l with the previous word, and the rank of an edge among the
// row's runs is the runs before the word (a warp scan of popcounts) plus
// __popc(edges below it). A run's slot is y * capacity + its rank in the
// row (capacity = the most runs a row can hold), so slots are in raster
// order of the runs' first pixels and the smallest slot of a component is
// its first run: the forest keeps the contract of ccl_device.cuh over slots.
//
// The same walk ranks the runs of the row above, which gives, for each run,
// the range of runs above it that it touches (the run table's job of the
// paper's ER array, without storing a rank per pixel): the run links to the
// first, and the union kernel merges it with the others. Features are then
// per run: area, bounding box, and Σx in closed form.

#define NO_RANK 0xffffffffu
// `extra` of a run linked to no run above: a root when the unions begin.
#define UNLINKED 0xffffffffu

// The run table of an image (flsl.rs RunTableArgs).
struct FlslRuns {
    uint2* runs;     // first and last column of each run, by slot
    u32* parent;     // the forest over slots (1-based parents, ccl_device.cuh)
    u32* extra;      // runs above touched beyond the first (or UNLINKED; a class map's run: the
                     // first of them, flsl/classes.cu); later each run's label
    u32* count;      // runs per row
    u32* word_runs;  // runs of row y begun before word w, at y * row_words + w
    u32 capacity;    // slots per row
    u32 row_words;   // words per row: width / 32 + 1 (the last one closes a run at the edge)
    u32 rows;        // rows of the image (of all slices)
    u32 group_rows;  // rows per block of the per-run kernels (1 to 32; flsl_group_runs)
    CclDivisor capacity_divisor;  // capacity, as the per-run kernels divide slots by it
};

// The row of slot `slot` (and, in *x, its index in the row).
__device__ __forceinline__ u32 flsl_slot_row(FlslRuns t, u32 slot, u32* x) {
    const u32 row = ccl_divide(t.capacity_divisor, slot);
    *x = slot - row * t.capacity;
    return row;
}

// The band (or group) row of index i among `rows` (<= 32) rows whose
// first indices are `row_start` (nondecreasing, from 0): the last row that
// begins at or before i.
__device__ __forceinline__ u32 flsl_row_of(const u32* row_start, u32 rows, u32 i) {
    u32 r = 0;
#pragma unroll
    for (u32 step = 16; step; step >>= 1)
        if (r + step < rows && row_start[r + step] <= i) r += step;
    return r;
}

// The grid of the per-run kernels (flsl.rs's `run_grid`): a block per group
// of t.group_rows consecutive rows, about 8192 pixels (one row of a wide
// image, 16 rows of 512), and a thread per run of the group, its runs
// taken in order across its rows. A warp per row left most lanes idle on
// a batch's or a volume's short rows: on 256 images of 512^2 at g = 16,
// 10 %, `flsl_number_runs` took 36 us, 19 in groups of 16 rows (ncu,
// H200). A group of one row (a wide image) is the row's loop alone, with
// no count scan or barrier. Calls visit(y, j) for run j of row y; every
// thread of the block must call it (it may wait on the block).
template <typename Visit> __device__ __forceinline__ void flsl_group_runs(FlslRuns t, Visit visit) {
    if (t.group_rows == 1) {
        const u32 y = blockIdx.x, runs = t.count[y];
        for (u32 j = threadIdx.x; j < runs; j += blockDim.x) visit(y, j);
        return;
    }
    __shared__ u32 row_start[33];
    const u32 y0 = blockIdx.x * t.group_rows, rows = min(t.group_rows, t.rows - y0);
    if (threadIdx.x < 32) {
        const u32 lane = threadIdx.x;
        const u32 inclusive = ccl_warp_inclusive_scan(lane < rows ? t.count[y0 + lane] : 0);
        if (lane == 0) row_start[0] = 0;
        row_start[lane + 1] = inclusive;
    }
    __syncthreads();
    const u32 total = row_start[rows];
    for (u32 i = threadIdx.x; i < total; i += blockDim.x) {
        const u32 r = flsl_row_of(row_start, rows, i);
        visit(y0 + r, i - row_start[r]);
    }
}

// `first` of a run that begins at bit q of a word (column s = 32 w + q):
// the runs of the row above begun at or before column s (s - 1 with
// 8-connectivity), less the one holding column s (s - 1) if there is one.
// `up` is the word above, `up_left` its pixels shifted by one (bit q is
// column s - 1, from the previous word for q = 0), `up_starts` the starts
// of the runs above in this word and `above_before` those begun before it.
template <bool Eight>
__device__ __forceinline__ int first_above(u32 above_before, u32 up, u32 up_left, u32 up_starts, int q) {
    const u32 below = (1u << q) - 1u, at_or_below = below | (1u << q);
    const u32 begun = above_before + __popc(up_starts & (Eight ? below : at_or_below));
    const bool touching = ((Eight ? up_left : up) >> q) & 1u;
    return (int)begun - (touching ? 1 : 0);
}

// Algorithm 1: the runs of one row, on the bit image, by a segment of Seg
// lanes: a warp, or half a warp for rows of at most 16 words (two rows a
// warp); blockDim 32 x RUN_WARPS. For a run from column s to e, the runs
// of the row above it touches are a range of ranks [first, last] (empty
// when first > last): runs of the row above begun up to column e (e + 1
// with 8-connectivity) and not ended before column s (s - 1).
//
// A lane owns a word of 32 pixels per iteration (word w = Seg i + its lane
// in the segment): the previous word comes from the lane below
// (__shfl_up_sync within the segment; its first lane takes the last word
// of the previous iteration), run starts and ends are shifts of the word
// against it (bit p of `left` is pixel p - 1), and the runs (and runs
// above) begun before each word are the carry of the previous iterations
// plus the segment's exclusive scan of the lanes' popcounts. Each lane
// then writes the record of every run that ends in its word (an end at
// bit p: pixel p is the first background after the run): the start is the
// last start below p in the word, or, when the run entered the word, the
// last start before the word: that of the highest lower lane of the
// segment whose word has a start (a ballot), else the carry of the last
// start of the previous iterations. With `nodes`, each run that is a root
// (not linked to a run above) gets its own features as its OTF record.
//
// The records go out through shared memory: the runs that end in one
// iteration have consecutive ranks (a row's k-th end closes its k-th run),
// so each lane puts its records in its row's stage at rank - (ends before
// the iteration), and the segment then stores the stage to the run table,
// consecutive lanes on consecutive slots. Stored straight from the lanes'
// loops, each store put 32 runs ~7 slots apart into 32 sectors: at 8192^2,
// g = 1, 30 % this kernel took 490 us of a 990 us call (ncu, H200). An
// iteration with more ends than the stage holds (up to 16 a word, in stripes
// of single pixels) stores them straight.
//
// The row_words = width / 32 + 1 words cover column `width`, the first past
// the edge, so that a run touching the right edge ends in them. Where the
// width is not a multiple of 32, that column is a 0 bit of the bit image's
// last word. Where it is, the last word is wholly past the edge: the loop
// stops before it (rows of 512 pixels would take a second iteration for
// it, 8192 a ninth), and the segment's first lane then writes its count of
// runs before it and closes the run still open at the edge, if any. Lanes
// past the loop's words see empty words.
//
// A volume is labeled as the image of its rows, slice after slice
// (ccl_cuda::backend::Slices): with slice_height > 0, the first row of each
// band of band_height rows of a slice has no row above (the first row of a
// slice follows the last of the slice before), and the bands and slices are
// joined by flsl_band_joins ("Slices in bands" below). A batch of images is
// labeled the same way in an image's connectivity, with bands as tall as its
// slices (the images), never joined.
//
// RUN_WARPS warps a block (flsl.rs's constant), and a stage of
// FLSL_STAGED_RUNS records a warp (half each for two rows): 24 KiB a
// block, which leaves nine blocks on an SM. At 50 %, g = 1 an iteration of
// a warp ends 256 runs on average; a 512-pixel row ends at most 256.
#define FLSL_STAGED_RUNS 384

// A run's record in the stage: its columns, then its parent and `extra`.
struct FlslStagedRun {
    uint2 columns;
    uint2 links;
};

// A segment's inclusive scan (Seg consecutive lanes, Seg a power of two).
template <u32 Seg> __device__ __forceinline__ u32 segment_inclusive_scan(u32 value, u32 segment_lane) {
#pragma unroll
    for (u32 offset = 1; offset < Seg; offset <<= 1) {
        const u32 other = __shfl_up_sync(CCL_FULL_MASK, value, offset, Seg);
        if (segment_lane >= offset) value += other;
    }
    return value;
}

// The record of a run of row y that ends at column `end` (inclusive), of
// rank `rank`, begun at column `start` with first run above `first` and
// `last` the last run above it touches (linked when first <= last): its
// columns and links, as the stage and the run table hold them. A class
// map's run (Classes) stays a root: the runs above it touches may hold
// other values, which only the union kernel compares; `extra` keeps the
// first of them (flsl/classes.cu).
template <bool Classes>
__device__ __forceinline__ FlslStagedRun run_record(u32 slot0, u32 above_slot0, u32 rank, u32 start, u32 end,
                                                    int first, int last) {
    const bool linked = first <= last;
    if (Classes) return FlslStagedRun{make_uint2(start, end), make_uint2(slot0 + rank + 1, linked ? (u32)first : UNLINKED)};
    return FlslStagedRun{make_uint2(start, end), linked ? make_uint2(above_slot0 + first + 1, (u32)(last - first))
                                                        : make_uint2(slot0 + rank + 1, UNLINKED)};
}

// A class map's run in its stage (flsl/classes.cu): its columns and the
// first run above it touches (UNLINKED: none); its parent is its own slot.
// Runs of one pixel may follow one another, so a word may end 32 runs and an
// iteration 1024: the stage holds them all, in 12 bytes a run, for
// FLSL_CLASS_RUN_WARPS warps a block (24 KiB). With a binary image's stage,
// the iterations that overflowed it stored their runs straight: 2-3 ms of a
// 3.7-6.8 ms call on 8192^2 maps of 4 classes at g = 1, 60-90 % (ncu, H200).
#define FLSL_CLASS_STAGED_RUNS 1024
struct FlslClassStagedRun {
    u32 start, end, first;
};

// The stage of a run walk: binary images' records, or class maps'.
template <bool Classes> struct FlslStage {
    typedef FlslStagedRun Run;
    static constexpr u32 warps = RUN_WARPS, runs = FLSL_STAGED_RUNS;
};
template <> struct FlslStage<true> {
    typedef FlslClassStagedRun Run;
    static constexpr u32 warps = FLSL_CLASS_RUN_WARPS, runs = FLSL_CLASS_STAGED_RUNS;
};

__device__ __forceinline__ void stage_store(FlslStagedRun* entry, FlslStagedRun record) { *entry = record; }
__device__ __forceinline__ void stage_store(FlslClassStagedRun* entry, FlslStagedRun record) {
    *entry = FlslClassStagedRun{record.columns.x, record.columns.y, record.links.y};
}
__device__ __forceinline__ FlslStagedRun stage_load(const FlslStagedRun* entry, u32) { return *entry; }
__device__ __forceinline__ FlslStagedRun stage_load(const FlslClassStagedRun* entry, u32 slot) {
    const FlslClassStagedRun run = *entry;
    return FlslStagedRun{make_uint2(run.start, run.end), make_uint2(slot + 1, run.first)};
}

// With Classes, the image is a class map's (flsl/classes.cu): `bits` its
// nonzero values and `run_starts` the first pixel of each run of one value,
// so that two runs of different values may touch in a row. Its runs then
// end where the foreground does or where the next run starts, and the runs
// above are counted by their starts alike; the rest of the walk is the same.
template <bool Eight, u32 Seg, bool Classes>
__device__ void find_runs(CclBits bits, CclBits run_starts, FlslRuns t, CclNode* nodes, u32 slice_height,
                          u32 band_height) {
    typedef FlslStage<Classes> Stage;
    __shared__ typename Stage::Run stages[Stage::warps][Stage::runs];
    constexpr u32 rows_per_warp = 32 / Seg, stage_runs = Stage::runs / rows_per_warp;
    const u32 lane = threadIdx.x, segment_lane = lane % Seg, segment = lane / Seg;
    const u32 y = (blockIdx.x * blockDim.y + threadIdx.y) * rows_per_warp + segment;
    // Past the last row a segment reads empty words and stores nothing; it
    // stays in the loop, whose shuffles take the whole warp.
    if ((blockIdx.x * blockDim.y + threadIdx.y) * rows_per_warp >= bits.height) return;
    const bool valid = y < bits.height;
    typename Stage::Run* stage = stages[threadIdx.y] + segment * stage_runs;
    // The row above, or none (-1: ccl_bits_word gives 0 words there).
    const int above = (slice_height != 0 && y % slice_height % band_height == 0) ? -1 : (int)y - 1;
    const u32 lt = ccl_lanemask_lt() >> (segment * Seg);
    const u32 segment_mask = Seg == 32 ? 0xffffffffu : (1u << Seg) - 1u;
    const u32 slot0 = y * t.capacity, above_slot0 = slot0 - t.capacity;
    // The words the loop walks: all row_words, or, where the width is a
    // multiple of 32, all but the last, which is past the edge and empty:
    // the run it would close, if any, is closed after the loop.
    const u32 loop_words = bits.width % 32 == 0 ? t.row_words - 1 : t.row_words;
    // Carried from one iteration to the next: the runs of the row and of
    // the row above begun before it, the segment's last lane's words, and
    // the last start before it with its `first`.
    u32 runs_carry = 0, above_carry = 0, previous = 0, previous_above = 0, open_start = 0;
    int open_first = 0;
    u32 ends_carry = 0;  // runs ended before the iteration: the rank of the first to end in it
    u32 here = ccl_bits_word(bits, (int)y, (int)segment_lane), up = ccl_bits_word(bits, above, (int)segment_lane);
    u32 here_starts = 0, up_starts_word = 0;
    if (Classes) {
        here_starts = ccl_bits_word(run_starts, (int)y, (int)segment_lane);
        up_starts_word = ccl_bits_word(run_starts, above, (int)segment_lane);
    }
    for (u32 w0 = 0; w0 < loop_words; w0 += Seg) {
        const u32 w = w0 + segment_lane, base = w * 32;
        // The segment's last lane in the loop's words this iteration (the
        // lanes past them see empty words: the bit image's rows end there).
        const u32 last_lane_in = min(Seg - 1, loop_words - 1 - w0);
        // The next iteration's words, loaded before this one's work.
        const u32 next_here = ccl_bits_word(bits, (int)y, (int)(w + Seg));
        const u32 next_up = ccl_bits_word(bits, above, (int)(w + Seg));
        const u32 next_here_starts = Classes ? ccl_bits_word(run_starts, (int)y, (int)(w + Seg)) : 0;
        const u32 next_up_starts = Classes ? ccl_bits_word(run_starts, above, (int)(w + Seg)) : 0;
        u32 prev = __shfl_up_sync(CCL_FULL_MASK, here, 1, Seg);
        u32 prev_up = __shfl_up_sync(CCL_FULL_MASK, up, 1, Seg);
        if (segment_lane == 0) {
            prev = previous;
            prev_up = previous_above;
        }
        const u32 left = __funnelshift_l(prev, here, 1), up_left = __funnelshift_l(prev_up, up, 1);
        // An end at bit p: pixel p is the first past the run (background,
        // or another value's run's start).
        const u32 starts = Classes ? here_starts : here & ~left;
        const u32 ends = Classes ? left & (~here | here_starts) : ~here & left;
        const u32 up_starts = Classes ? up_starts_word : up & ~up_left;
        // Both counts in one scan: a word holds at most 32 starts (16 of
        // a binary image), so each half sums to at most 32 * 32 = 1024 and
        // never carries into the other.
        const u32 counts = (u32)__popc(starts) | ((u32)__popc(up_starts) << 16);
        const u32 inclusive = segment_inclusive_scan<Seg>(counts, segment_lane);
        const u32 exclusive = inclusive - counts;
        const u32 runs_before = runs_carry + (exclusive & 0xffffu);
        const u32 above_before = above_carry + (exclusive >> 16);
        if (valid && w < loop_words) t.word_runs[y * t.row_words + w] = runs_before;
        // This word's last start and its `first` (meaningless without a start).
        const int last_start = 31 - __clz(starts);
        const u32 last_column = base + (u32)last_start;
        const int last_first = starts ? first_above<Eight>(above_before, up, up_left, up_starts, last_start) : 0;
        // The last start before this word: the highest lower lane's of the
        // segment with a start, else the previous iterations'.
        const u32 with_starts = (__ballot_sync(CCL_FULL_MASK, starts != 0) >> (segment * Seg)) & segment_mask;
        const u32 earlier = with_starts & lt;
        const int from = earlier ? 31 - __clz(earlier) : 0;
        const u32 lane_column = __shfl_sync(CCL_FULL_MASK, last_column, from, Seg);
        const int lane_first = __shfl_sync(CCL_FULL_MASK, last_first, from, Seg);
        const u32 open_column = earlier ? lane_column : open_start;
        const int open_run_first = earlier ? lane_first : open_first;
        // The runs begun up to the iteration's end, less one still open
        // past it (the last pixel of its last word), less those ended
        // before.
        const u32 total = __shfl_sync(CCL_FULL_MASK, inclusive, Seg - 1, Seg);
        const u32 last_word = __shfl_sync(CCL_FULL_MASK, here, last_lane_in, Seg);
        const u32 last_word_above = __shfl_sync(CCL_FULL_MASK, up, last_lane_in, Seg);
        const u32 iteration_ends = runs_carry + (total & 0xffffu) - (last_word >> 31) - ends_carry;
        const bool staged = iteration_ends <= stage_runs;
        // A lane just past the loop's words would see the end of a run open
        // at the edge: that run is closed after the loop.
        for (u32 pending = valid && w < loop_words ? ends : 0; pending; pending &= pending - 1) {
            const int p = __ffs(pending) - 1;
            const u32 below = (1u << p) - 1u;
            const u32 begun_here = starts & below;
            u32 start = open_column;
            int run_first = open_run_first;
            if (begun_here) {
                const int q = 31 - __clz(begun_here);
                start = base + (u32)q;
                run_first = first_above<Eight>(above_before, up, up_left, up_starts, q);
            }
            const u32 rank = runs_before + __popc(begun_here) - 1;
            // Runs above begun at or before e (e + 1), e = column base + p - 1.
            const int last = (int)(above_before + __popc(up_starts & (Eight ? below | (1u << p) : below))) - 1;
            const FlslStagedRun record =
                run_record<Classes>(slot0, above_slot0, rank, start, base + (u32)p - 1, run_first, last);
            if (staged) {
                stage_store(stage + (rank - ends_carry), record);
            } else {
                t.runs[slot0 + rank] = record.columns;
                t.parent[slot0 + rank] = record.links.x;
                t.extra[slot0 + rank] = record.links.y;
            }
            // A linked run's features go to its root in the union kernel;
            // its own record stays empty, so that nothing is counted twice.
            if (nodes)
                nodes[slot0 + rank] =
                    run_first <= last ? ccl_node_empty() : ccl_node_of_run(start, base + (u32)p - 1, y);
        }
        // The stage written (the segments of a warp may differ in whether
        // they staged, so both barriers are the whole warp's).
        __syncwarp();
        for (u32 i = segment_lane; staged && valid && i < iteration_ends; i += Seg) {
            const u32 slot = slot0 + ends_carry + i;
            const FlslStagedRun run = stage_load(stage + i, slot);
            t.runs[slot] = run.columns;
            t.parent[slot] = run.links.x;
            t.extra[slot] = run.links.y;
        }
        // The next iteration's lanes write over the stage.
        __syncwarp();
        ends_carry += iteration_ends;
        runs_carry += total & 0xffffu;
        above_carry += total >> 16;
        const int last_lane = with_starts ? 31 - __clz(with_starts) : 0;
        const u32 carried_column = __shfl_sync(CCL_FULL_MASK, last_column, last_lane, Seg);
        const int carried_first = __shfl_sync(CCL_FULL_MASK, last_first, last_lane, Seg);
        if (with_starts) {
            open_start = carried_column;
            open_first = carried_first;
        }
        previous = last_word;
        previous_above = last_word_above;
        here = next_here;
        up = next_up;
        here_starts = next_here_starts;
        up_starts_word = next_up_starts;
    }
    if (!valid || segment_lane != 0) return;
    if (loop_words < t.row_words) {
        // The word past the edge: all runs begun before it, and the run
        // still open at the edge (the last pixel set) ends at width - 1,
        // touching every run above begun up to there.
        t.word_runs[y * t.row_words + loop_words] = runs_carry;
        if (previous >> 31) {
            const u32 rank = ends_carry, end = bits.width - 1;
            const int last = (int)above_carry - 1;
            const FlslStagedRun record =
                run_record<Classes>(slot0, above_slot0, rank, open_start, end, open_first, last);
            t.runs[slot0 + rank] = record.columns;
            t.parent[slot0 + rank] = record.links.x;
            t.extra[slot0 + rank] = record.links.y;
            if (nodes) nodes[slot0 + rank] = open_first <= last ? ccl_node_empty() : ccl_node_of_run(open_start, end, y);
        }
    }
    t.count[y] = runs_carry;
}

// Unions (flsl_group_runs: a thread per run): a run linked to the first run
// above it compresses its own path, moves its features to its root (OTF),
// and merges with the other runs above it touches. Whether a run was linked
// is read from `extra`, not from its parent: a run that the run kernel left
// a root may already have been linked by another thread.
//
// The finds load parents through L1 (CCL_PARENTS_L1, ccl_device.cuh): a
// block's rows are consecutive, and each row's finds pass the roots the
// rows above it reached. On an 8192^2 image, 8-conn., flsl_unions took
// 2.20 -> 1.32 ms at g = 1, 60 %, 0.85 -> 0.53 at 90 %, 0.51 -> 0.46 at
// 30 %, within 10 % elsewhere (0.11 -> 0.12 at g = 4, 90 %), and the call
// 2.63 -> 1.59 ms at g = 1, 60 % (ncu and wall, H200,
// bench/2026-11-29-h200-warp-forest-loads). OTF's moves of features keep L2.
template <bool Otf> __device__ __forceinline__ void unite_run(FlslRuns t, CclNode* nodes, u32* counts, u32 y, u32 j) {
    constexpr CclParentLoads loads = Otf ? CCL_PARENTS_L2 : CCL_PARENTS_L1;
    const u32 slot = y * t.capacity + j;
    const u32 extra = t.extra[slot];
    if (extra == UNLINKED) return;
    // Only this thread writes a linked run's parent.
    const u32 parent = t.parent[slot];
    // Any ancestor will do.
    t.parent[slot] = ccl_find<1, loads>(t.parent, parent - 1) + 1;
    if (Otf) {
        const uint2 run = t.runs[slot];
        ccl_otf_add(t.parent, nodes, counts, slot, ccl_node_of_run(run.x, run.y, y));
    }
    for (u32 k = 1; k <= extra; ++k) {
        if (Otf)
            ccl_merge_otf(t.parent, nodes, counts, slot, parent - 1 + k);
        else
            ccl_merge<1, loads>(t.parent, slot, parent - 1 + k);
    }
}

template <bool Otf> __device__ void unite_runs(FlslRuns t, CclNode* nodes, u32* counts) {
    flsl_group_runs(t, [=](u32 y, u32 j) { unite_run<Otf>(t, nodes, counts, y, j); });
}

// Analysis, step 1: flags the root runs of each word of 32 slots of the
// rows' root layout (words_per_row words a row) and counts them per group
// (the shared back end then ranks them).
//
// A warp per row (a wide image's, whose per-run groups are of one row),
// one atomic per group the row's words reach (nearly always one):
// with an atomic per word, the many short rows of a batch on the same
// counters took it 203 us on 256 images of 512^2 (g = 1, 30 %), 66 on one
// 8192^2 image (41 then; ncu on the H200). The words past the row's runs
// are zeroed with plain stores, so that a row of few runs costs a few
// words, not its slot capacity.
__device__ void count_root_runs(FlslRuns t, u32 y, u32* root_bits, u32 words_per_row, u32* group_count) {
    const u32 lane = threadIdx.x, runs = t.count[y];
    const u32 used_words = (runs + 31) / 32;
    const size_t first_word = (size_t)y * words_per_row;
    u32* row_bits = root_bits + first_word;
    size_t group = first_word / CCL_ROOT_GROUP_WORDS;
    u32 pending = 0;  // lane 0's roots of `group` not yet added
    for (u32 w = 0; w < used_words; ++w) {
        const u32 j = w * 32 + lane, slot = y * t.capacity + j;
        const bool root = j < runs && t.parent[slot] == slot + 1;
        const u32 roots = __ballot_sync(CCL_FULL_MASK, root);
        if (lane == 0) {
            row_bits[w] = roots;
            const size_t word_group = (first_word + w) / CCL_ROOT_GROUP_WORDS;
            if (word_group != group) {
                if (pending) atomicAdd(group_count + group, pending);
                group = word_group;
                pending = 0;
            }
            pending += (u32)__popc(roots);
        }
    }
    if (lane == 0 && pending) atomicAdd(group_count + group, pending);
    for (u32 w = used_words + lane; w < words_per_row; w += 32) row_bits[w] = 0;
}

// The rows of a group of several (flsl_group_runs's: a batch's masks, a
// volume's rows, an image of at most half GROUP_PIXELS wide): a warp per
// group. It loads its rows' counts at once, a lane each, and walks the
// group's words that hold runs (of 32 slots, from a row's first), a lane
// per slot, FLSL_COUNT_AHEAD words' parents loaded before their ballots;
// each word's row is the last whose first such word is at or before it (a
// ballot over the lanes' scan). The group's words (at most
// FLSL_GROUP_ROOT_WORDS, 0 past each row's runs) go through the warp's
// shared memory and out in one pass, one atomic per group of the root
// layout they reach.
//
// ncu on the H200, 256 masks of 512^2, 4-conn., at g = 16, 30 % and at
// g = 1, 30 % (bench/2026-11-30-h200-batch-rows):
// - a warp per 32 / words_per_row rows, a lane per word, most of them
//   empty past a row's few runs: 13.3-13.6 and 26.3-26.8 us (8.6 and 13.7
//   million instructions; one 8192^2 image's warp per row, 5.9 us);
// - a lane per run, its row found by a binary search and its bit ORed
//   into shared memory: 11.3 and 61 us (38 million instructions);
// - this walk, four words ahead: 12.3 and 36 us; sixteen: 10.1-10.7 and
//   28.0-28.9 (9.3 against 13.3 at g = 16, 10 %, 8-conn.).
#define FLSL_COUNT_AHEAD 16

__device__ void count_group_roots(FlslRuns t, u32* root_bits, u32 words_per_row, u32* group_count) {
    __shared__ u32 warp_words[FLSL_COUNT_WARPS][FLSL_GROUP_ROOT_WORDS];
    const u32 lane = threadIdx.x, y0 = (blockIdx.x * blockDim.y + threadIdx.y) * t.group_rows;
    if (y0 >= t.rows) return;
    u32* words = warp_words[threadIdx.y];
    const u32 rows = min(t.group_rows, t.rows - y0), group_words = rows * words_per_row;
    for (u32 i = lane; i < group_words; i += 32) words[i] = 0;
    // Lane r: row r's runs, its words that hold them and those of the rows before.
    const u32 runs = lane < rows ? t.count[y0 + lane] : 0, used = (runs + 31) / 32;
    const u32 used_through = ccl_warp_inclusive_scan(used), used_before = used_through - used;
    const u32 total = __shfl_sync(CCL_FULL_MASK, used_through, 31);
    __syncwarp();
    for (u32 first = 0; first < total; first += FLSL_COUNT_AHEAD) {
        bool root[FLSL_COUNT_AHEAD];
        u32 place[FLSL_COUNT_AHEAD];
#pragma unroll
        for (u32 k = 0; k < FLSL_COUNT_AHEAD; ++k) {
            const u32 u = first + k;
            const u32 r = (u32)__popc(__ballot_sync(CCL_FULL_MASK, lane < rows && used_before <= u)) - 1;
            const u32 w = u - __shfl_sync(CCL_FULL_MASK, used_before, r % 32);
            const u32 row_runs = __shfl_sync(CCL_FULL_MASK, runs, r % 32);
            const u32 j = w * 32 + lane, slot = (y0 + r) * t.capacity + j;
            root[k] = u < total && j < row_runs && t.parent[slot] == slot + 1;
            place[k] = r * words_per_row + w;
        }
#pragma unroll
        for (u32 k = 0; k < FLSL_COUNT_AHEAD; ++k) {
            const u32 bits = __ballot_sync(CCL_FULL_MASK, root[k]);
            if (lane == 0 && first + k < total) words[place[k]] = bits;
        }
    }
    __syncwarp();
    const size_t first_word = (size_t)y0 * words_per_row;
    for (u32 first = 0; first < group_words; first += 32) {
        const u32 i = first + lane;
        const u32 roots = i < group_words ? words[i] : 0;
        if (i < group_words) root_bits[first_word + i] = roots;
        ccl_add_group_roots(group_count, first_word + i, i < group_words, (u32)__popc(roots));
    }
}

__device__ __forceinline__ u32 rank_of_slot(FlslRuns t, CclRootIndex roots, u32 slot) {
    u32 x;
    const u32 row = flsl_slot_row(t, slot, &x);
    return ccl_root_rank(roots, x, row);
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

// The rank most runs hold among 32 sampled across row y (the lowest lane's
// on a tie; NO_RANK for a row of no runs), in every lane of the calling
// warp: the large component of a dense image, whose runs fill most rows,
// and whose votes a block adds in shared memory and once to memory.
__device__ __forceinline__ u32 flsl_sampled_row_rank(FlslRuns t, CclRootIndex roots, u32 y, u32 runs) {
    const u32 lane = threadIdx.x & 31u;
    const u32 sample = (u32)((u64)lane * runs / 32);
    const u32 rank = runs ? rank_of_slot(t, roots, ccl_find_final(t.parent, y * t.capacity + sample)) : NO_RANK;
    const u32 group = __match_any_sync(CCL_FULL_MASK, rank);
    const u32 best = __reduce_max_sync(CCL_FULL_MASK, ((u32)__popc(group) << 5) | (31 - lane));
    return __shfl_sync(CCL_FULL_MASK, rank, 31 - (best & 31u));
}

// `Out` is an image's stats array (CclStatsOut) or a volume's
// (CclVolumeStatsOut: row y of the run table is a row of the volume's
// rows, which ccl_add_to_component splits into y and z). With `ranks` (a
// labeling's clean-up: the run table's `extra`), each run's rank is also
// stored there by slot, for flsl_number_voted_runs; null in an analysis.
template <bool Cd, typename Out>
__device__ void vote(FlslRuns t, CclRootIndex roots, Out out, u32* counts, u32* ranks) {
    __shared__ BlockTotal block;
    const u32 y = blockIdx.x, runs = t.count[y];
    if (Cd && threadIdx.x < 32) {
        const u32 rank = flsl_sampled_row_rank(t, roots, y, runs);
        if (threadIdx.x == 0) {
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
            if (ranks != nullptr) ranks[slot] = rank;
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

// The areas alone by rank (a labeling whose clean-up reads no more; one
// block per row, a thread per run, as `vote`). A warp adds the lengths of
// each stretch of consecutive runs with one root (a giant component's runs
// of a row mostly follow one another) with shuffles, and the stretch's
// first lane adds them to the root's area: no __match_any_sync, which cost
// this pass 5 times `flsl_number_runs`' time where most runs are
// components of their own (ncu, 8192^2, 10 %). The sampled rank of the row
// (flsl_sampled_row_rank), a dense image's giant component, is added in
// shared memory, and once to memory at the end: its stretches are short
// where small components sit between its runs, and their atomics on one
// address took a label with largest=1 to 1.32x the label's time at g = 1,
// 60 % (the label 1.57 ms), 1.10x with the row's giant component added here
// (bench/2026-11-29-h200-class-and-sparse-profile; 6-30 us more below the
// percolation threshold, for the sample's finds). `ranks` as in `vote`.
__device__ void vote_areas(FlslRuns t, CclRootIndex roots, u32* areas, u32* ranks) {
    __shared__ u32 hot_rank, hot_area;
    const u32 y = blockIdx.x, runs = t.count[y], lane = threadIdx.x & 31u;
    if (threadIdx.x < 32) {
        const u32 rank = flsl_sampled_row_rank(t, roots, y, runs);
        if (threadIdx.x == 0) {
            hot_rank = rank;
            hot_area = 0;
        }
    }
    __syncthreads();
    const u32 hot = hot_rank;
    for (u32 round = 0; round < runs; round += blockDim.x) {
        const u32 j = round + threadIdx.x, slot = y * t.capacity + j;
        const bool valid = j < runs;
        u32 rank = NO_RANK, area = 0;
        if (valid) {
            const uint2 run = t.runs[slot];
            area = run.y - run.x + 1;
            rank = rank_of_slot(t, roots, ccl_find_final(t.parent, slot));
            if (ranks != nullptr) ranks[slot] = rank;
        }
        const u32 rank_before = __shfl_up_sync(CCL_FULL_MASK, rank, 1);
        const bool first = lane == 0 || rank_before != rank;
        // The stretch ends before the next first lane (or at lane 31; for
        // lane 31 the mask below is empty: 2u << 31 is 0).
        const u32 firsts_after = __ballot_sync(CCL_FULL_MASK, first) & ~((2u << lane) - 1u);
        const u32 last = firsts_after ? (u32)__ffs(firsts_after) - 2u : 31u;
        for (u32 offset = 1; offset < 32; offset <<= 1) {
            const u32 other = __shfl_down_sync(CCL_FULL_MASK, area, offset);
            if (lane + offset <= last) area += other;
        }
        if (valid && first) atomicAdd(rank == hot ? &hot_area : areas + rank, area);
    }
    __syncthreads();
    if (threadIdx.x == 0 && hot_area) atomicAdd(areas + hot, hot_area);
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

// Labeling, step 1 (flsl_group_runs: a thread per run): each run's label in
// `extra`: canonical (Ranked: the rank of its root run in `roots` + 1), or
// raw (1 + the raster index of its component's first pixel).
template <bool Ranked>
__device__ void label_runs(FlslRuns t, u32 width, CclRootIndex roots) {
    flsl_group_runs(t, [=](u32 y, u32 j) {
        const u32 slot = y * t.capacity + j;
        const u32 root = ccl_find_final(t.parent, slot);
        u32 x;
        const u32 root_row = flsl_slot_row(t, root, &x);
        t.extra[slot] = Ranked ? ccl_root_label(roots, x, root_row) : root_row * width + t.runs[root].x + 1;
    });
}

// Labeling, step 2 (one warp per span of LABEL_SPAN_WORDS words of a row,
// or per several short rows):
// each pixel's run is the runs begun before its word plus those begun in it
// up to the pixel. Each lane loads one word of the span (its bits, the word
// before's bit 31 by a shuffle, and the runs begun before it); then the warp
// walks the span four words (128 pixels) at a time, a lane per four
// consecutive pixels, and each lane writes its four labels in one 16-byte
// store: a warp's store is 512 consecutive bytes, and a pixel costs a
// quarter of the instructions of a lane per pixel (which left this pass
// issue bound at 46 % of DRAM bandwidth). Rows that are not 16-byte
// aligned (a width that is not a multiple of 4) and a row's last partial
// group are written a label at a time. With bytes for labels (Label = u8),
// the pass writes the mask of the labeled pixels instead (1 where a pixel's
// run has a nonzero label: a clean-up's kept pixels, through a remap), four
// bytes in one 4-byte store.
template <typename Label> __device__ void store_four(Label* out, const u32 label[4]);
template <> __device__ __forceinline__ void store_four(u32* out, const u32 label[4]) {
    *(uint4*)out = make_uint4(label[0], label[1], label[2], label[3]);
}
template <> __device__ __forceinline__ void store_four(u8* out, const u32 label[4]) {
    *(uchar4*)out = make_uchar4(label[0] != 0, label[1] != 0, label[2] != 0, label[3] != 0);
}

// A lane's four pixels, shift .. shift + 3 of a word of a row (bits
// `word_mask`, its run starts `word_starts`, `word_runs` runs begun before
// it): the runs begun up to each pixel give its run, whose label `extra`
// holds by rank from 1. With KeptLargest, `extra` holds each run's
// component rank instead (the clean-up's votes), and a pixel's label is 1
// where that rank is the one `largest_key` keeps, else 0: one image's
// largest alone is written with no pass over the runs before
// (flsl_number_voted_runs, 21 us at 8192^2, 10 %, g = 1; ncu, H200).
template <typename Label, bool KeptLargest>
__device__ __forceinline__ void label_four_pixels(Label* row, const u32* extra, u32 x, u32 width, u32 shift,
                                                  u32 word_mask, u32 word_starts, u32 word_runs,
                                                  unsigned long long largest_key) {
    const bool aligned = ((size_t)row & (4u * sizeof(Label) - 1u)) == 0;
    // The runs begun up to and including pixel `shift` of the word.
    u32 run = word_runs + __popc(word_starts & ((2u << shift) - 1u));
    u32 label[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        if (i) run += (word_starts >> (shift + i)) & 1u;
        const bool foreground = (word_mask >> (shift + i)) & 1u;
        if (KeptLargest)
            label[i] = foreground && ccl_is_kept_largest(largest_key, extra[run]) ? 1u : 0u;
        else
            label[i] = foreground ? extra[run] : 0u;
    }
    if (aligned && x + 4 <= width) {
        store_four(row + x, label);
    } else {
#pragma unroll
        for (int i = 0; i < 4; ++i)
            if (x + i < width) row[x + i] = sizeof(Label) == 1 ? label[i] != 0 : label[i];
    }
}

template <typename Label, bool Classes, bool KeptLargest>
__device__ void label_row_span(CclBits bits, CclBits run_starts, FlslRuns t, Label* labels, u32 warp,
                               unsigned long long largest_key) {
    const u32 spans_per_row = (bits.words_per_row + LABEL_SPAN_WORDS - 1) / LABEL_SPAN_WORDS;
    if ((u64)warp >= (u64)bits.height * spans_per_row) return;
    const u32 y = warp / spans_per_row, lane = threadIdx.x;
    const int first_word = (int)(warp % spans_per_row) * LABEL_SPAN_WORDS;
    const u32* extra = t.extra + (size_t)y * t.capacity - 1;  // by rank from 1
    Label* row = labels + (size_t)y * bits.width;
    // This lane's four pixels of a group: bits shift .. shift + 3 of word lane / 8.
    const u32 shift = (lane & 7u) * 4u;
    for (int chunk = 0; chunk < LABEL_SPAN_WORDS; chunk += 32) {
        const int w = first_word + chunk + (int)lane;
        const u32 mask = ccl_bits_word(bits, (int)y, w);
        // Bit 31 of the word before: the previous lane's, lane 0's loaded.
        u32 before = __shfl_up_sync(CCL_FULL_MASK, mask, 1);
        if (lane == 0) before = ccl_bits_word(bits, (int)y, w - 1);
        const u32 starts =
            Classes ? ccl_bits_word(run_starts, (int)y, w) : mask & ~((mask << 1) | (before >> 31));
        const u32 runs_before = (u32)w < bits.words_per_row ? t.word_runs[y * t.row_words + (u32)w] : 0;
        const int words = min(32, (int)bits.words_per_row - (first_word + chunk));
        for (int k = 0; k < words; k += 4) {
            const int source = k + (int)(lane >> 3);
            const u32 word_mask = __shfl_sync(CCL_FULL_MASK, mask, source);
            const u32 word_starts = __shfl_sync(CCL_FULL_MASK, starts, source);
            const u32 word_runs = __shfl_sync(CCL_FULL_MASK, runs_before, source);
            if (source >= words) continue;
            const u32 x = (u32)(first_word + chunk + source) * 32u + shift;
            label_four_pixels<Label, KeptLargest>(row, extra, x, bits.width, shift, word_mask, word_starts,
                                                  word_runs, largest_key);
        }
    }
}

// Rows of at most FLSL_SHORT_LABEL_WORDS words (a batch's masks, a
// volume's rows): a warp per 32 / words_per_row rows, lane p loading word p
// of the warp's words (word p % words_per_row of its row p / words_per_row),
// then writing their labels four words at a time as a span of a long row
// does. (A warp per such row loaded half a warp of words: on 256 masks of
// 512^2, 89.8 -> 85.9 us at g = 16, 10 %, 91.2 -> 88.1 at g = 4, 10 %,
// against 80-82 for one 8192^2 image; ncu, H200.)
template <typename Label, bool Classes, bool KeptLargest>
__device__ void label_short_rows(CclBits bits, CclBits run_starts, FlslRuns t, Label* labels, u32 warp,
                                 unsigned long long largest_key) {
    const u32 words_per_row = bits.words_per_row, rows_per_warp = 32 / words_per_row;
    const u32 y0 = warp * rows_per_warp;
    if (y0 >= bits.height) return;
    const u32 lane = threadIdx.x, rows = min(rows_per_warp, bits.height - y0);
    const int words = (int)(rows * words_per_row);
    // This lane's word: word w of the warp's row r (lanes past the words: none).
    const u32 r = lane / words_per_row, w = lane - r * words_per_row, y = y0 + r;
    const bool mine = (int)lane < words;
    const u32 mask = mine ? ccl_bits_row(bits, y)[w] : 0u;
    // Bit 31 of the word before in the row: the previous lane's.
    const u32 previous = __shfl_up_sync(CCL_FULL_MASK, mask, 1);
    const u32 before = w == 0 ? 0u : previous;
    const u32 starts = Classes ? (mine ? ccl_bits_row(run_starts, y)[w] : 0u) : mask & ~((mask << 1) | (before >> 31));
    const u32 runs_before = mine ? t.word_runs[y * t.row_words + w] : 0u;
    const u32 place = r << 8 | w;  // a row's words are at most 16
    const u32 shift = (lane & 7u) * 4u;
    for (int k = 0; k < words; k += 4) {
        const int source = k + (int)(lane >> 3);
        const u32 word_mask = __shfl_sync(CCL_FULL_MASK, mask, source);
        const u32 word_starts = __shfl_sync(CCL_FULL_MASK, starts, source);
        const u32 word_runs = __shfl_sync(CCL_FULL_MASK, runs_before, source);
        const u32 word_place = __shfl_sync(CCL_FULL_MASK, place, source);
        if (source >= words) continue;
        const u32 row_y = y0 + (word_place >> 8), x = (word_place & 0xffu) * 32u + shift;
        label_four_pixels<Label, KeptLargest>(labels + (size_t)row_y * bits.width,
                                              t.extra + (size_t)row_y * t.capacity - 1, x, bits.width, shift,
                                              word_mask, word_starts, word_runs, largest_key);
    }
}

// With KeptLargest, `largest` is one image's largest selection key (see
// label_four_pixels); unread otherwise.
template <typename Label, bool Classes, bool KeptLargest = false>
__device__ void label_pixels(CclBits bits, CclBits run_starts, FlslRuns t, Label* labels,
                             const unsigned long long* largest = nullptr) {
    const u32 warp = blockIdx.x * blockDim.y + threadIdx.y;
    if (bits.words_per_row == 0) return;  // rows of no pixels
    const unsigned long long largest_key = KeptLargest ? *largest : 0;
    if (bits.words_per_row <= FLSL_SHORT_LABEL_WORDS)
        label_short_rows<Label, Classes, KeptLargest>(bits, run_starts, t, labels, warp, largest_key);
    else
        label_row_span<Label, Classes, KeptLargest>(bits, run_starts, t, labels, warp, largest_key);
}

// ------------------------------------------------------------ entry points

// Samples of the bit image for flsl_unions_go_flat: 8 words a lane, one of
// each of 256 equal strata of the image's words at a hashed offset, so that
// no row or column period of the input (a batch's images, blocks of g
// pixels) lines up with them.
#define FLAT_SAMPLE_WORDS 8

// Whether the foreground's share of the sampled pixels is under
// flat_below_percent, so that a batch's unions go all rows at once (see
// "Slices in bands" below; the whole warp calls it).
__device__ bool flsl_unions_go_flat(CclBits bits, u32 flat_below_percent) {
    if (flat_below_percent == 0) return false;
    const u64 words = (u64)bits.words_per_row * bits.height, strata = 32 * FLAT_SAMPLE_WORDS;
    const u64 stratum = words / strata;
    u32 foreground = 0, pixels = 0;
#pragma unroll
    for (u32 k = 0; k < FLAT_SAMPLE_WORDS; ++k) {
        const u64 s = k * 32 + threadIdx.x;
        if (stratum == 0 && s >= words) continue;
        const u64 offset = stratum ? (s * 0x9e3779b97f4a7c15ull >> 40) % stratum : 0;
        const u64 word = (stratum ? s * stratum : s) + offset;
        const u32 y = (u32)(word / bits.words_per_row), w = (u32)(word % bits.words_per_row);
        foreground += (u32)__popc(ccl_bits_row(bits, y)[w]);
        pixels += min(32u, bits.width - 32 * w);
    }
    foreground = __reduce_add_sync(CCL_FULL_MASK, foreground);
    pixels = __reduce_add_sync(CCL_FULL_MASK, pixels);
    return (u64)foreground * 100 < (u64)flat_below_percent * pixels;
}

// With `flat_unions` (a batch's), the first warp also stores there whether
// the batch's unions go all rows at once, for the union kernels that follow.
#define FLSL_RUN_KERNELS(NAME, EIGHT, SEG)                                                             \
    extern "C" __global__ void __launch_bounds__(32 * RUN_WARPS)                                       \
        NAME(CclBits bits, FlslRuns t, CclNode* nodes, u32 slice_height, u32 band_height,              \
             u32 flat_below_percent, u32* flat_unions) {                                               \
        if (flat_unions && blockIdx.x == 0 && threadIdx.y == 0) {                                      \
            const bool flat = flsl_unions_go_flat(bits, flat_below_percent);                           \
            if (threadIdx.x == 0) *flat_unions = flat;                                                 \
        }                                                                                              \
        find_runs<EIGHT, SEG, false>(bits, bits, t, nodes, slice_height, band_height);                 \
    }
FLSL_RUN_KERNELS(flsl_runs_c4, false, 32)
FLSL_RUN_KERNELS(flsl_runs_c8, true, 32)
// Rows of at most 16 words (512 pixels) two a warp, a row per half.
FLSL_RUN_KERNELS(flsl_runs_c4_pairs, false, 16)
FLSL_RUN_KERNELS(flsl_runs_c8_pairs, true, 16)

extern "C" __global__ void __launch_bounds__(256) flsl_unions(FlslRuns t) { unite_runs<false>(t, nullptr, nullptr); }

extern "C" __global__ void __launch_bounds__(256) flsl_unions_otf(FlslRuns t, CclNode* nodes, u32* counts) {
    unite_runs<true>(t, nodes, counts);
}

// Slices in bands: the slices of a volume and the images of a batch. Their
// rows are many and short, and the unions of an image's rows (all rows at
// once, a thread per run) would link each run to the first run above it
// through up to a slice's height of rows before the finds shorten the
// paths: on 512^3 volumes at 40-70 %, most of the labeling's time. So each
// band of band_height rows of a slice is joined by one warp, row after row
// (flsl_band_unions): the rows above are joined, their paths short, when a
// row's runs look up theirs. Each run's band root then goes into `extra`
// (free from then until the labels), and becomes its parent.
//
// The bands are then joined to the band above and, in a volume, to the
// slice before (flsl_band_joins), by their band roots, not their runs:
// above a connectivity's threshold nearly every run of a row touches runs
// of the slice before, but most of those pairs join the same two band
// components (at 80 %, one per band), so a pair is merged once per block,
// not once per touching run.
//
// A band's warp loads its rows' counts once, a lane each (band_height is at
// most 32: BAND_ROWS in flsl.rs), and points its runs at their band roots
// all rows at once: each run's find is independent of the others' once the
// unions are done. (Against a load of the count and a pass per row: 598 ->
// 475 us on a 512^3 volume at g = 1, 30 %, 6-conn.; on 256 masks of 512^2
// 315 -> 244 at g = 1, 30 %, 550 -> 507 at 60 %, 40 -> 31 at g = 16, 10 %;
// ncu, H200. The kernel is bound by the instructions it issues: finding
// each run's row with a shuffle per row of the band instead of a binary
// search took 577 us at 60 %.)
//
// A band's forest is its warp's alone until the kernel ends (its first
// row's runs are roots, every other run links within the band), and its
// finds walk the same roots of the rows above again and again: they load
// through L1 (CCL_PARENTS_L1, ccl_device.cuh), which none but the warp
// updates. On 256 masks of 512^2 the kernel took 0.82-0.94x its time at
// 30-90 % (469 -> 432 us at g = 1, 75 %, 4-conn.), the call 0.93x there
// (0.90x in 8-conn.); 512^3 volumes' 0.83-0.88x (ncu and wall, H200,
// bench/2026-11-29-h200-warp-forest-loads).
//
// How the slices are cut into bands (flsl.rs, `Bands`): every slice into
// per_slice bands of band_height rows, the last one shorter where the
// slice's height is not a multiple.
//
// A sparse batch is the exception: its components are small, the paths of
// all rows at once short, and each band's warp walking its rows one after
// another only waits. On 256 masks of 512^2 at 10 %, the unions and joins
// took 108 / 50 / 40 us in bands at g = 1 / 4 / 16 against 67 / 33 / 26 as
// one image's rows (4-conn.; 131 / 53 / 42 against 104 / 39 / 28 in
// 8-conn.), and in bands won from 20-45 % up (ncu, H200). So the run kernel
// links a batch's rows to the row above within each image, and its first
// warp decides from a sample of the bit image (flsl_unions_go_flat): under
// `flat_below_percent` of foreground, each band's warp unites its runs as
// flsl_unions does an image's, all rows at once (its first row's with the
// band above), and the joins return at once; else the band unions make
// their first rows roots again. Either way the labels are the same: the
// choice changes the time alone. (bench/2026-11-29-h200-sparse-batch-unions:
// each band kernel deciding from the sample itself took the dense cells
// 5-37 % longer, s1; flsl_unions launched for every batch, returning at
// once where dense, took 7-8 us then, s2; its blocks striding over the
// groups, 3 us, but the sparse unions 10-70 % longer, s3.)
struct FlslBands {
    u32 slice_height;  // rows of a slice
    u32 band_height;   // rows of a band (at most 32)
    u32 per_slice;     // bands of a slice
    u32 count;         // bands of all slices
    u32 joined;        // bands after the first of their slice, of all slices
};

struct FlslBand {
    u32 first, end;  // its rows
    u32 lane_runs;   // the runs of row first + lane (0 past the band)
};

__device__ __forceinline__ FlslBand flsl_band(FlslRuns t, FlslBands bands, u32 band) {
    const u32 y0 = band % bands.per_slice * bands.band_height;
    FlslBand b;
    b.first = band / bands.per_slice * bands.slice_height + y0;
    b.end = b.first + min(bands.band_height, bands.slice_height - y0);
    b.lane_runs = b.first + threadIdx.x < b.end ? t.count[b.first + threadIdx.x] : 0;
    return b;
}

// The first row of the i-th band after the first of its slice (i below
// bands.joined): the rows a batch's joins take, a warp each.
__device__ __forceinline__ u32 flsl_joined_band_row(FlslBands bands, u32 i) {
    const u32 per_slice = bands.per_slice - 1;
    return i / per_slice * bands.slice_height + (i % per_slice + 1) * bands.band_height;
}

// The runs of row `row` of the band (the whole warp calls it).
__device__ __forceinline__ u32 flsl_band_row_runs(FlslBand b, u32 row) {
    return __shfl_sync(CCL_FULL_MASK, b.lane_runs, row - b.first);
}

// Calls visit(row, j) for each run j of each row of the band after its
// first, a lane per run, row after row: a row's visits see the parents the
// rows above it left (the whole warp calls it).
template <typename Visit> __device__ __forceinline__ void flsl_band_rows_in_order(FlslBand b, Visit visit) {
    for (u32 row = b.first + 1; row < b.end; ++row) {
        const u32 runs = flsl_band_row_runs(b, row);
        for (u32 j = threadIdx.x; j < runs; j += 32) visit(row, j);
        __syncwarp();
    }
}

// Calls visit(row, j) for each run j of each row of the band, a lane per
// run, all rows at once (the whole warp calls it).
template <typename Visit> __device__ __forceinline__ void flsl_band_runs(FlslBand b, Visit visit) {
    const u32 lane = threadIdx.x, rows = b.end - b.first;
    const u32 inclusive = ccl_warp_inclusive_scan(b.lane_runs), total = __shfl_sync(CCL_FULL_MASK, inclusive, 31);
    for (u32 i = lane; i < (total + 31) / 32 * 32; i += 32) {
        // The row of run i: as many as the rows that end at or before it,
        // by a binary search over the lanes' inclusive counts.
        u32 r = 0;
#pragma unroll
        for (u32 step = 16; step; step >>= 1) {
            const u32 probe = r + step - 1;
            const u32 end = __shfl_sync(CCL_FULL_MASK, inclusive, probe);
            if (probe < rows && end <= i) r += step;
        }
        const u32 before = __shfl_sync(CCL_FULL_MASK, inclusive - b.lane_runs, r % 32);
        if (i < total) visit(b.first + r, i - before);
    }
}

extern "C" __global__ void __launch_bounds__(256)
    flsl_band_unions(FlslRuns t, FlslBands bands, const u32* flat_unions) {
    const u32 band = blockIdx.x * blockDim.y + threadIdx.y;
    if (band >= bands.count) return;
    const u32 lane = threadIdx.x;
    const FlslBand b = flsl_band(t, bands, band);
    if (flat_unions && *flat_unions) {
        flsl_band_runs(b, [&](u32 row, u32 j) { unite_run<false>(t, nullptr, nullptr, row, j); });
        return;
    }
    // The band's first row has no row above in it: its runs are roots (a
    // batch's the run kernel linked within their image, for the flat unions).
    if (flat_unions) {
        const u32 first_runs = flsl_band_row_runs(b, b.first), slot0 = b.first * t.capacity;
        for (u32 j = lane; j < first_runs; j += 32) t.parent[slot0 + j] = slot0 + j + 1;
        __syncwarp();
    }
    flsl_band_rows_in_order(b, [&](u32 row, u32 j) {
        const u32 slot = row * t.capacity + j;
        const u32 extra = t.extra[slot];
        if (extra == UNLINKED) return;
        // The first run above, from the run kernel: no other lane
        // stores into this run's parent before this one does.
        const u32 first = t.parent[slot] - 1;
        u32 root = ccl_find_halving<1, CCL_PARENTS_L1>(t.parent, first);
        t.parent[slot] = root + 1;
        for (u32 k = 1; k <= extra; ++k) root = ccl_merge_root<CCL_PARENTS_L1>(t.parent, root, first + k);
    });
    flsl_band_runs(b, [&](u32 row, u32 j) {
        const u32 slot = row * t.capacity + j;
        const u32 root = ccl_find_halving<1, CCL_PARENTS_L1>(t.parent, slot);
        t.extra[slot] = root;
        if (root != slot) t.parent[slot] = root + 1;
    });
}

// The runs of row `row` begun before column x (0 <= x <= width).
__device__ __forceinline__ u32 runs_begun_before(CclBits bits, FlslRuns t, u32 row, u32 x) {
    const u32 w = x / 32, p = x % 32;
    const u32 word = ccl_bits_word(bits, (int)row, (int)w);
    const u32 left = __funnelshift_l(ccl_bits_word(bits, (int)row, (int)w - 1), word, 1);
    const u32 starts = word & ~left;
    return t.word_runs[row * t.row_words + w] + (u32)__popc(starts & ((1u << p) - 1u));
}

__device__ __forceinline__ bool bits_pixel(CclBits bits, u32 row, int x) {
    return x >= 0 && ((ccl_bits_word(bits, (int)row, x / 32) >> (x % 32)) & 1u);
}

// The pairs of band roots a block has merged, by a hash of the pair: an
// entry is claimed with an atomic exchange, and a lane that finds its pair
// there leaves the merge to the lane that put it there. A pair evicted by
// another is merged again (a few finds), never skipped.
#define MERGED_PAIR_BITS 10
#define MERGED_PAIRS (1u << MERGED_PAIR_BITS)
#define NO_PAIR 0xffffffffffffffffull

// Merges the trees of a and b unless the block merged the pair (key, b)
// already, and returns the joined root (a where the pair was skipped). Both
// a and b then point at the joined root: a band root is merged again by its
// other pairs, and its path would otherwise grow with every band joined
// before it. `key` is what stands for a in the table: a itself, or the
// band root a grew from where the caller carries the root it reached.
__device__ __forceinline__ u32 merge_new_pair(u32* parent, unsigned long long* merged, u32 key, u32 a, u32 b) {
    const unsigned long long pair = ((unsigned long long)key << 32) | b;
    const u32 h = ((key * 0x9e3779b1u) ^ (b * 0x85ebca77u)) >> (32 - MERGED_PAIR_BITS);
    if (atomicExch(merged + h, pair) == pair) return a;
    const u32 joined = ccl_merge_root(parent, a, b);
    if (a != joined) parent[a] = joined + 1;
    if (b != joined) parent[b] = joined + 1;
    return joined;
}

// Joins band root a with the band roots of the runs of row `other` within
// `reach` columns of `run` (one that ends at column lo - 1 touches with
// reach 1 ...). Which runs of `other` those are is two counts on the bit
// image, as the run kernel counts the row above: the runs begun there
// before column x are the row's count before x's word (word_runs) plus the
// starts in the word below x. Each new pair is merged by merge_new_pair.
// `last_b` skips the repeats of one band root among touching runs.
__device__ __forceinline__ void unite_touching(CclBits bits, FlslRuns t, unsigned long long* merged, u32 a,
                                               uint2 run, u32 other, u32 reach, u32* last_b) {
    const u32 lo = run.x >= reach ? run.x - reach : 0;
    const u32 hi = min(run.y + reach, bits.width - 1);
    // Runs of `other` ending before lo: those begun before it, less the one
    // that covers lo having begun before it.
    const u32 first = runs_begun_before(bits, t, other, lo) -
                      (bits_pixel(bits, other, (int)lo) && bits_pixel(bits, other, (int)lo - 1) ? 1u : 0u);
    const u32 end = runs_begun_before(bits, t, other, hi + 1);
    for (u32 k = first; k < end; ++k) {
        const u32 b = t.extra[other * t.capacity + k];
        if (b == *last_b) continue;
        *last_b = b;
        merge_new_pair(t.parent, merged, a, a, b);
    }
}

// One warp per row, a lane per run: the first row of a band (not of its
// slice) with the last row of the band above within `band_reach` columns
// (0: 4- and 6-connectivity, 1 otherwise), and every row of a slice but the
// first with row y of the slice before within `face_reach` (negative: not
// at all, the images of a batch), rows y - 1 and y + 1 within `edge_reach`
// (negative: not at all, 6-connectivity). A volume's warps take every row;
// a batch's, only the first rows of its images' bands after the first: a
// warp for each row left 15 of 16 warps with nothing to do, and each block
// cleared its table of pairs for them (256 images of 512^2, 4-conn.: 264
// -> 102 us at g = 1, 60 %; 27 -> 9 at g = 16, 10 %; ncu, H200).
extern "C" __global__ void __launch_bounds__(256)
    flsl_band_joins(CclBits bits, FlslRuns t, FlslBands bands, u32 band_reach, int face_reach, int edge_reach,
                    const u32* flat_unions) {
    __shared__ unsigned long long merged[MERGED_PAIRS];
    // The band unions joined the bands already, all rows at once.
    if (flat_unions && *flat_unions) return;
    for (u32 i = threadIdx.y * 32 + threadIdx.x; i < MERGED_PAIRS; i += blockDim.x * blockDim.y) merged[i] = NO_PAIR;
    __syncthreads();
    const u32 warp = blockIdx.x * blockDim.y + threadIdx.y;
    if (face_reach < 0 && warp >= bands.joined) return;
    const u32 row = face_reach < 0 ? flsl_joined_band_row(bands, warp) : warp;
    if (row >= bits.height) return;
    const u32 slice_height = bands.slice_height, band_height = bands.band_height;
    const u32 y = row % slice_height;
    const bool below_band = y != 0 && y % band_height == 0, behind_slice = face_reach >= 0 && row >= slice_height;
    if (!below_band && !behind_slice) return;
    const u32 runs = t.count[row];
    for (u32 j = threadIdx.x; j < runs; j += 32) {
        const u32 slot = row * t.capacity + j;
        const uint2 run = t.runs[slot];
        const u32 a = t.extra[slot];
        u32 last_b = NO_RANK;
        if (below_band) unite_touching(bits, t, merged, a, run, row - 1, band_reach, &last_b);
        if (!behind_slice) continue;
        for (int dy = -1; dy <= 1; ++dy) {
            if (dy != 0 && (edge_reach < 0 || (dy < 0 && y == 0) || (dy > 0 && y + 1 == slice_height)))
                continue;
            const u32 reach = (u32)(dy == 0 ? face_reach : edge_reach);
            unite_touching(bits, t, merged, a, run, row - slice_height + dy, reach, &last_b);
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
    flsl_count_roots(FlslRuns t, u32 height, u32* root_bits, u32 words_per_row, u32* group_count) {
    const u32 warp = blockIdx.x * blockDim.y + threadIdx.y;
    if (warp < height) count_root_runs(t, warp, root_bits, words_per_row, group_count);
}

extern "C" __global__ void __launch_bounds__(32 * FLSL_COUNT_WARPS)
    flsl_count_group_roots(FlslRuns t, u32* root_bits, u32 words_per_row, u32* group_count) {
    count_group_roots(t, root_bits, words_per_row, group_count);
}

extern "C" __global__ void __launch_bounds__(256)
    flsl_vote(FlslRuns t, CclRootIndex roots, CclStatsOut out, u32* counts, u32* ranks) {
    vote<false, CclStatsOut>(t, roots, out, counts, ranks);
}

extern "C" __global__ void __launch_bounds__(256)
    flsl_vote_cd(FlslRuns t, CclRootIndex roots, CclStatsOut out, u32* counts, u32* ranks) {
    vote<true, CclStatsOut>(t, roots, out, counts, ranks);
}

extern "C" __global__ void __launch_bounds__(256)
    flsl_vote_areas(FlslRuns t, CclRootIndex roots, u32* areas, u32* ranks) {
    vote_areas(t, roots, areas, ranks);
}

// A volume's features, step 1 (one warp per row, a lane per run): each root
// run's own features stored as its component's record (plain stores: one
// run per record), which step 2 then completes.
extern "C" __global__ void __launch_bounds__(256)
    flsl_volume_root_records(FlslRuns t, u32 rows, CclRootIndex roots, CclVolumeStatsOut out) {
    const u32 row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= rows) return;
    const u32 y = row % out.height, z = row / out.height, runs = t.count[row];
    for (u32 j = threadIdx.x; j < runs; j += 32) {
        const u32 slot = row * t.capacity + j;
        if (t.parent[slot] != slot + 1) continue;
        const uint2 run = t.runs[slot];
        const u32 r = rank_of_slot(t, roots, slot);
        if (r >= out.capacity) continue;
        const u32 area = run.y - run.x + 1;
        CclVolumeStats s;
        s.area = area;
        s.x_min = run.x;
        s.x_max = run.y;
        s.y_min = s.y_max = y;
        s.z_min = s.z_max = z;
        s.padding = 0;
        s.sum_x = (u64)(run.x + run.y) * area / 2;
        s.sum_y = (u64)y * area;
        s.sum_z = (u64)z * area;
        out.stats[r] = s;
    }
}

// Step 2 (blocks of 8 warps, each warp VOTE_ROWS_PER_WARP rows of the
// block's 8 * VOTE_ROWS_PER_WARP, a lane per run): every other run voted
// into its component's record, the lanes of one component combined
// (__match_any_sync, FLSL-CD's conflict detection). A block's rows are
// consecutive rows of a slice, which a component crosses run after run:
// each combined vote first goes to the block's part of its component in
// shared memory (a table by rank, an entry kept by the first rank to claim
// it; a vote whose entry another rank holds goes to memory at once), and
// the parts are added once at the end. Without it, a volume of many
// components below the percolation threshold took one 10-atomic update per
// run. The component most frequent among 32 runs sampled across the
// block's first row (the large component of a dense volume, in every row)
// claims its entry first. The table is ccl_device.cuh's CclVolumePart.

extern "C" __global__ void __launch_bounds__(256)
    flsl_vote_volume(FlslRuns t, u32 rows, CclRootIndex roots, CclVolumeStatsOut out) {
    __shared__ CclVolumePart parts[CCL_VOLUME_PARTS];
    const u32 lane = threadIdx.x, warps = blockDim.y;
    const u32 first_row = blockIdx.x * warps * VOTE_ROWS_PER_WARP;
    ccl_volume_parts_clear(parts);
    __syncthreads();
    if (threadIdx.y == 0) {
        const u32 sampled = first_row < rows ? t.count[first_row] : 0;
        const u32 rank = flsl_sampled_row_rank(t, roots, first_row, sampled);
        if (lane == 0 && rank != NO_RANK) parts[rank & (CCL_VOLUME_PARTS - 1)].rank = rank;
    }
    __syncthreads();
    for (u32 k = 0; k < VOTE_ROWS_PER_WARP; ++k) {
        const u32 row = first_row + k * warps + threadIdx.y;
        if (row >= rows) break;
        const u32 y = row % out.height, z = row / out.height, runs = t.count[row];
        for (u32 round = 0; round < runs; round += 32) {
            const u32 j = round + lane, slot = row * t.capacity + j;
            bool valid = j < runs;
            u32 rank = NO_RANK, first = 0, last = 0;
            if (valid) {
                const uint2 run = t.runs[slot];
                first = run.x;
                last = run.y;
                const u32 root = ccl_find_final(t.parent, slot);
                // A root run's record is stored already.
                valid = root != slot;
                if (valid) rank = rank_of_slot(t, roots, root);
            }
            u32 area = valid ? last - first + 1 : 0;
            u64 sum_x = (u64)(first + last) * area / 2;
            const u32 group = __match_any_sync(CCL_FULL_MASK, rank);
            area = __reduce_add_sync(group, area);
            sum_x = ccl_reduce_add_u64(group, sum_x);
            first = __reduce_min_sync(group, valid ? first : 0xffffffffu);
            last = __reduce_max_sync(group, last);
            const bool leader = valid && lane == (u32)__ffs(group) - 1;
            if (!leader) continue;
            ccl_volume_part_add(parts, out, rank, area, first, last, y, y, z, z, sum_x, (u64)y * area, (u64)z * area);
        }
    }
    __syncthreads();
    ccl_volume_parts_flush(parts, out);
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

// Labeling after a clean-up's votes, step 1 (flsl_group_runs: a thread per
// run): each run's label from the rank its vote left in `extra` (the
// votes' `ranks`), through the clean-up's remap (one image's largest alone
// needs no such pass: flsl_label_largest_pixels compares the ranks). It reads
// and writes a word per run, where flsl_number_runs would find each run's
// root and look up its rank again: 41 us of a 0.48 ms label(largest=1) at
// 8192^2, 10 %, g = 1, whose 4.6 million components are mostly runs of
// their own (ncu, H200).
extern "C" __global__ void __launch_bounds__(256) flsl_number_voted_runs(FlslRuns t, CclRootIndex roots) {
    flsl_group_runs(t, [=](u32 y, u32 j) {
        const u32 slot = y * t.capacity + j;
        t.extra[slot] = ccl_rank_label(roots, t.extra[slot], y);
    });
}

extern "C" __global__ void __launch_bounds__(256) flsl_label_pixels(CclBits bits, FlslRuns t, u32* labels) {
    label_pixels<u32, false>(bits, bits, t, labels);
}

extern "C" __global__ void __launch_bounds__(256) flsl_mask_pixels(CclBits bits, FlslRuns t, u8* mask) {
    label_pixels<u8, false>(bits, bits, t, mask);
}

// The two above where the clean-up keeps one image's largest alone: `extra`
// holds each run's rank (the votes'), `largest` the image's largest key.
extern "C" __global__ void __launch_bounds__(256)
    flsl_label_largest_pixels(CclBits bits, FlslRuns t, u32* labels, const unsigned long long* largest) {
    label_pixels<u32, false, true>(bits, bits, t, labels, largest);
}

extern "C" __global__ void __launch_bounds__(256)
    flsl_mask_largest_pixels(CclBits bits, FlslRuns t, u8* mask, const unsigned long long* largest) {
    label_pixels<u8, false, true>(bits, bits, t, mask, largest);
}
