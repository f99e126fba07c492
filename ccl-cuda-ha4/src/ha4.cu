// HA4 / HA8: direct GPU connected component labeling and analysis after
// Hennequin, Lacassagne, Cabaret & Meunier, "A new direct connected
// component labeling and analysis algorithms for GPUs" (DASIP 2018).
// Algorithm numbers below are that paper's.
//
// The image is cut into strips of 4 rows; a block of 4 warps labels a strip,
// one warp per row, walking along the row one word (32 or 64 pixels) at a
// time. Every kernel reads the bit image of ccl-cuda's front end (CclBits:
// the bytes are read once, by its packing kernel), so a word's foreground is
// one mask; segments (runs of foreground) are found with __clz / __ffs on it
// (ccl_run_start/end).
//
// Only "local starts" hold labels until the final relabeling: the first pixel
// of each segment, and bit 0 of each word that a segment enters from the
// previous word. So every segment piece inside a word finds its tree from its
// own word alone, which lets the border, relabel and feature kernels work on
// any word independently.
//
// Rows are further cut into spans of SPAN_WORDS words. The strip, relabel
// and analysis kernels give a warp a whole span: its lanes load the span's
// 32-pixel words of the bit image at once (one coalesced load, a word per
// lane), and each word reaches every lane by shuffles. A block labels one
// span of a strip as if it were an image of its own, so that blocks stay
// short; the stitch kernel joins neighbouring spans.
//
// Template parameters: Mask is u32 (HA4-32) or u64 (HA4-64, HA8: Algorithm 7,
// two pixels per lane); Eight selects 8-connectivity (HA8, the seed's
// announced future work).

// STRIP_ROWS and SPAN_WORDS are defined by the launcher (ha.rs).

#define NO_RANK 0xffffffffu

template <typename Mask> struct Word {
    static constexpr int bits = (int)sizeof(Mask) * 8;
    static constexpr int per_lane = bits / 32;
};

static_assert(SPAN_WORDS * 2 <= 32, "a span of 64-pixel words is one 32-pixel bit word per lane");

// This lane's 32-pixel word of the span of row y whose first column is
// `first`: bit word first / 32 + lane (0 for the lanes past the span's
// SPAN_WORDS * per_lane words and outside the image).
template <typename Mask>
__device__ __forceinline__ u32 span_bits(CclBits bits, int y, int first) {
    const int lane = threadIdx.x & 31;
    return lane < SPAN_WORDS * Word<Mask>::per_lane ? ccl_bits_word(bits, y, (first >> 5) + lane) : 0u;
}

// Word w of a span, in every lane, from the lanes' span_bits.
__device__ __forceinline__ u32 span_word(u32 span, int w, u32) { return __shfl_sync(CCL_FULL_MASK, span, w); }
__device__ __forceinline__ u64 span_word(u32 span, int w, u64) {
    const u32 low = __shfl_sync(CCL_FULL_MASK, span, 2 * w), high = __shfl_sync(CCL_FULL_MASK, span, 2 * w + 1);
    return (u64)low | (u64)high << 32;
}
template <typename Mask> __device__ __forceinline__ Mask span_word(u32 span, int w) {
    return span_word(span, w, Mask());
}

// Column of the local start of the segment piece holding column base + q of
// a row, where q may be -1 (the last pixel of the previous word, `previous`).
template <typename Mask>
__device__ __forceinline__ u32 local_start(Mask word, Mask previous, int base, int q) {
    return q >= 0 ? base + ccl_run_start(word, q)
                  : base - Word<Mask>::bits + ccl_run_start(previous, Word<Mask>::bits - 1);
}

// How the forest-building kernels join two trees: Unite is ccl_merge;
// UniteOnTheFly (ha-otf of ccl-cuda-flsl) also moves the linked root's
// features (OTF, ccl_merge_otf) and gives each segment its record.
struct Unite {
    u32* L;
    __device__ __forceinline__ void operator()(u32 a, u32 b) const { ccl_merge(L, a, b); }
    __device__ __forceinline__ void segment(u32, CclNode) const {}
    __device__ __forceinline__ void piece(u32, CclNode) const {}
};

struct UniteOnTheFly {
    u32* L;
    CclNode* nodes;
    u32* counts;
    __device__ __forceinline__ void operator()(u32 a, u32 b) const { ccl_merge_otf(L, nodes, counts, a, b); }
    // A new segment's first piece: its node's own record, stored before any
    // union can reach the node.
    __device__ __forceinline__ void segment(u32 start, CclNode n) const { nodes[start] = n; }
    // A later piece of a segment that begins at `start`.
    __device__ __forceinline__ void piece(u32 start, CclNode n) const { ccl_otf_add(L, nodes, counts, start, n); }
};

// Merges the segments of row y (word `row`, previous word `row_prev`) with
// those of row y - 1 (`above`, `above_prev`) for the word at column `base`.
// Each pair of touching segments is merged exactly once: at the leftmost
// pixel of their contact (seed Algorithms 3 and 4, 4-connectivity), or by
// the three contact rules below for 8-connectivity.
template <typename Mask, bool Eight, typename Merge>
__device__ __forceinline__ void merge_with_row_above(const Merge& merge, u32 row_index, u32 above_index, int base,
                                                     Mask row, Mask row_prev, Mask above,
                                                     Mask above_prev) {
    constexpr int bits = Word<Mask>::bits;
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int k = 0; k < Word<Mask>::per_lane; ++k) {
        const int p = lane + 32 * k;
        const bool here = ccl_bit(row, p), up = ccl_bit(above, p);
        const bool left = p ? ccl_bit(row, p - 1) : ccl_bit(row_prev, bits - 1);
        const bool up_left = p ? ccl_bit(above, p - 1) : ccl_bit(above_prev, bits - 1);
        if (!Eight) {
            if (here && up && !(left && up_left))
                merge(row_index + local_start(row, row_prev, base, p),
                      above_index + local_start(above, above_prev, base, p));
        } else {
            if (here && !left) {
                // A segment of row y starts at p: it touches the segment above
                // p - 1, or else one that starts right above p.
                const u32 start = row_index + base + p;
                if (up_left)
                    merge(start, above_index + local_start(above, above_prev, base, p - 1));
                else if (up)
                    merge(start, above_index + base + p);
            }
            if (up && !up_left && left) {
                // A segment of row y - 1 starts at p, diagonal to row y's p - 1.
                merge(row_index + local_start(row, row_prev, base, p - 1), above_index + base + p);
            }
        }
    }
}

// Seed Algorithm 3: labels one span of one strip of 4 rows per block
// (blockDim 32 x 4; block b is strip b / spans, span b % spans). Masks go
// through shared memory so that each warp can merge its row with the row
// above; three buffers let one barrier per word suffice (a warp writes
// buffer i while others may still read buffers i - 1 and i - 2). The span
// is labeled as if it were the whole image: its first column starts fresh
// segments, which the stitch kernel joins to the span on its left.
template <typename Mask, bool Eight, typename Merge>
__device__ void strip_labeling(CclBits image, const Merge& merge) {
    u32* L = merge.L;
    constexpr int bits = Word<Mask>::bits;
    const int width = (int)image.width;
    __shared__ Mask words[3][STRIP_ROWS];
    const u32 spans = (width + SPAN_WORDS * bits - 1) / (SPAN_WORDS * bits);
    const int lane = threadIdx.x, warp = threadIdx.y;
    const int y = (blockIdx.x / spans) * STRIP_ROWS + warp;
    const int first = (blockIdx.x % spans) * SPAN_WORDS * bits;
    const u32 row_index = (u32)y * (u32)width;
    // Rows past the image are all background (ccl_bits_word).
    const u32 pixels = span_bits<Mask>(image, y, first);
    Mask previous = 0;
    int open_start = 0; // column where the segment reaching the previous word's end starts
    int slot = 0;
    // The bounds are the same for every warp of the block: the barrier is uniform.
    for (int w = 0; w < SPAN_WORDS && first + w * bits < width; ++w) {
        const int base = first + w * bits;
        const Mask word = span_word<Mask>(pixels, w);
#pragma unroll
        for (int k = 0; k < Word<Mask>::per_lane; ++k) {
            const int p = lane + 32 * k;
            if (ccl_bit(word, p)) {
                const bool left = p ? ccl_bit(word, p - 1) : ccl_bit(previous, bits - 1);
                const CclNode piece = ccl_node_of_run(base + p, base + ccl_run_end(word, p), y);
                if (!left) {
                    L[row_index + base + p] = row_index + base + p + 1;
                    merge.segment(row_index + base + p, piece);
                } else if (p == 0) {
                    L[row_index + base] = row_index + open_start + 1;
                    merge.piece(row_index + open_start, piece);
                }
            }
        }
        if (ccl_bit(word, bits - 1)) {
            const int start = ccl_run_start(word, bits - 1);
            if (!(start == 0 && ccl_bit(previous, bits - 1))) open_start = base + start;
        }
        if (lane == 0) words[slot][warp] = word;
        __syncthreads();
        if (warp > 0) {
            const Mask above = words[slot][warp - 1];
            const Mask above_prev = w ? words[slot == 0 ? 2 : slot - 1][warp - 1] : 0;
            merge_with_row_above<Mask, Eight>(merge, row_index, row_index - width, base, word, previous,
                                              above, above_prev);
        }
        previous = word;
        slot = slot == 2 ? 0 : slot + 1;
    }
}

// The item (span or word) of a grid of warps (blockDim 32 x 4) over `rows`
// rows of `spans` items; false for the warps past the end.
__device__ __forceinline__ bool warp_span(u32 rows, u32 spans, u32* row, u32* span) {
    const u64 id = (u64)blockIdx.x * blockDim.y + threadIdx.y;
    if (id >= (u64)rows * spans) return false;
    *row = (u32)(id / spans);
    *span = (u32)(id % spans);
    return true;
}

// Seed Algorithm 4: merges across strip borders, one warp per word of each
// border (row 4b against row 4b - 1). Unlike the other kernels it does not
// walk a span: its time goes into merges, whose latency only many warps in
// flight hide. The previous word is read too: merges may reach into it, and
// the strip kernel has written its local starts.
template <typename Mask, bool Eight, typename Merge>
__device__ void border_merge(CclBits image, const Merge& merge) {
    constexpr int bits = Word<Mask>::bits;
    const u32 width = image.width;
    const u32 words_per_row = (width + bits - 1) / bits;
    const u32 borders = (image.height - 1) / STRIP_ROWS;
    u32 border, w;
    if (!warp_span(borders, words_per_row, &border, &w)) return;
    const int y = (border + 1) * STRIP_ROWS, base = w * bits;
    // The word before a row's first is 0 (ccl_bits_mask).
    merge_with_row_above<Mask, Eight>(merge, (u32)y * width, (u32)(y - 1) * width, base,
                                      ccl_bits_mask<Mask>(image, y, base),
                                      ccl_bits_mask<Mask>(image, y, base - bits),
                                      ccl_bits_mask<Mask>(image, y - 1, base),
                                      ccl_bits_mask<Mask>(image, y - 1, base - bits));
}

// The span of a row that a warp of the span-walking kernels (relabel,
// analysis) takes, with the lane's pixels of it loaded; false for the warps
// past the end.
template <typename Mask> struct RowSpan {
    u32 y;          // the row
    u32 span;       // the span's index in the row
    int first;      // the span's first column
    u32 row_index;  // y * width
    u32 pixels;     // span_bits of the lane
};

template <typename Mask> __device__ __forceinline__ bool warp_row_span(CclBits image, RowSpan<Mask>* s) {
    constexpr int span_columns = SPAN_WORDS * Word<Mask>::bits;
    const u32 spans = (image.width + span_columns - 1) / span_columns;
    if (!warp_span(image.height, spans, &s->y, &s->span)) return false;
    s->first = s->span * span_columns;
    s->row_index = s->y * image.width;
    s->pixels = span_bits<Mask>(image, (int)s->y, s->first);
    return true;
}

// Whether a segment piece of the word starts at p: a segment's first pixel,
// or bit 0 of a word that a segment enters.
template <typename Mask> __device__ __forceinline__ bool piece_starts(Mask word, int p) {
    return ccl_bit(word, p) && (p == 0 || !ccl_bit(word, p - 1));
}

// Joins each span to the span on its left, one thread per row and span
// border at column c: pixels (y, c - 1) and (y, c), and for 8-connectivity
// the diagonals to row y - 1 that cross the border. Column c starts a word,
// so a foreground pixel there is a local start; column c - 1 ends the word
// before, whose mask gives the local start of its last segment piece.
template <typename Mask, bool Eight, typename Merge>
__device__ void stitch_spans(CclBits image, const Merge& merge) {
    constexpr int bits = Word<Mask>::bits, span_columns = SPAN_WORDS * bits;
    const u32 width = image.width;
    const u32 borders = (width - 1) / span_columns; // span borders per row
    const u64 id = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (u64)borders * image.height) return;
    const int y = (int)(id / borders);
    const int c = (id % borders + 1) * span_columns;
    const Mask row = ccl_bits_mask<Mask>(image, y, c), row_left = ccl_bits_mask<Mask>(image, y, c - bits);
    const u32 row_index = (u32)y * width;
    const bool here = ccl_bit(row, 0), left = ccl_bit(row_left, bits - 1);
    // The local start of the piece that ends at c - 1 (when `left`).
    const u32 left_start = row_index + c - bits + ccl_run_start(row_left, bits - 1);
    if (here && left) merge(left_start, row_index + c);
    if (Eight && y > 0) {
        const Mask above = ccl_bits_mask<Mask>(image, y - 1, c);
        const Mask above_left = ccl_bits_mask<Mask>(image, y - 1, c - bits);
        const u32 above_index = row_index - width;
        if (here && ccl_bit(above_left, bits - 1))
            merge(row_index + c, above_index + c - bits + ccl_run_start(above_left, bits - 1));
        if (left && ccl_bit(above, 0)) merge(left_start, above_index + c);
    }
}

// Seed Algorithm 5: every pixel takes its root's label; background gets 0.
// Only local starts walk the forest; the other lanes take the label from the
// lane holding their local start with a shuffle. Raw labels (Ranked false)
// are root + 1, written over the forest itself (`out` == L): safe, as finds
// only visit local starts, and those are rewritten with their root's label,
// which is still a valid parent. Canonical labels (Ranked true) are the
// root's rank + 1 from `roots`, written to `out`, another buffer (a rank is
// not a parent).
template <typename Mask, bool Ranked>
__device__ void relabel(CclBits image, const u32* L, u32* out, CclRootIndex roots) {
    constexpr int bits = Word<Mask>::bits, per_lane = Word<Mask>::per_lane;
    const int width = (int)image.width;
    RowSpan<Mask> s;
    if (!warp_row_span(image, &s)) return;
    const int lane = threadIdx.x;
    for (int w = 0; w < SPAN_WORDS && s.first + w * bits < width; ++w) {
        const int base = s.first + w * bits;
        const Mask word = span_word<Mask>(s.pixels, w);
        u32 root_label[per_lane];
#pragma unroll
        for (int k = 0; k < per_lane; ++k) {
            const int p = lane + 32 * k;
            root_label[k] = 0;
            if (piece_starts(word, p)) {
                const u32 root = ccl_find_final(L, s.row_index + base + p);
                root_label[k] = Ranked ? ccl_root_label(roots, root % (u32)width, root / (u32)width) : root + 1;
            }
        }
#pragma unroll
        for (int k = 0; k < per_lane; ++k) {
            const int p = lane + 32 * k;
            const int start = ccl_run_start(word, p);
            u32 label = 0;
#pragma unroll
            for (int j = 0; j < per_lane; ++j) {
                const u32 candidate = __shfl_sync(CCL_FULL_MASK, root_label[j], start & 31);
                if (j == (start >> 5)) label = candidate;
            }
            if (base + p < width) out[s.row_index + base + p] = ccl_bit(word, p) ? label : 0;
        }
    }
}

// Analysis, step 1: flags the roots (local starts that are their own
// parent) of each word in `root_bits`, in the shared CclRootIndex layout (a
// 64-pixel word is two 32-bit words, low half first), and counts them per
// group of CCL_ROOT_GROUP_WORDS 32-bit words (`group_count`, zeroed before).
template <typename Mask>
__device__ void count_roots(CclBits image, const u32* L, Mask* root_bits, u32* group_count) {
    constexpr int bits = Word<Mask>::bits, per_lane = Word<Mask>::per_lane;
    const int width = (int)image.width;
    const u32 words_per_row = (width + bits - 1) / bits;
    RowSpan<Mask> s;
    if (!warp_row_span(image, &s)) return;
    const int lane = threadIdx.x;
    for (int w = 0; w < SPAN_WORDS && s.first + w * bits < width; ++w) {
        const int base = s.first + w * bits;
        const Mask word = span_word<Mask>(s.pixels, w);
        Mask roots = 0;
#pragma unroll
        for (int k = 0; k < per_lane; ++k) {
            const int p = lane + 32 * k;
            const u32 index = s.row_index + base + p;
            const bool root = piece_starts(word, p) && L[index] == index + 1;
            roots |= (Mask)__ballot_sync(CCL_FULL_MASK, root) << (32 * k);
        }
        const u64 word_index = (u64)s.y * words_per_row + s.span * SPAN_WORDS + w;
        if (lane == 0) {
            root_bits[word_index] = roots;
            if (roots)
                atomicAdd(group_count + word_index * per_lane / CCL_ROOT_GROUP_WORDS, (u32)ccl_popc(roots));
        }
    }
}

// Analysis, step 2 (seed Algorithm 6; the ranking between the steps is the
// shared back end's): each segment piece adds its area,
// coordinate sums (phi(n) = n(n + 1) / 2 through the run's first and last
// column) and extent to its component. Two reductions keep atomics off the
// hot roots: lanes of a word with the same component combine first
// (__match_any_sync, __reduce_*_sync), and each warp walks a span of a
// row keeping one component's sums in registers while it recurs.
template <typename Mask>
__device__ void features(CclBits image, const u32* L, CclRootIndex roots, CclStatsOut out) {
    constexpr int bits = Word<Mask>::bits, per_lane = Word<Mask>::per_lane;
    const int width = (int)image.width;
    RowSpan<Mask> s;
    if (!warp_row_span(image, &s)) return;
    const int lane = threadIdx.x;
    const u32 y = s.y;
    u32 pending = NO_RANK, pending_area = 0, pending_x_min = 0, pending_x_max = 0;
    u64 pending_sum_x = 0;
    for (int w = 0; w < SPAN_WORDS && s.first + w * bits < width; ++w) {
        const int base = s.first + w * bits;
        const Mask word = span_word<Mask>(s.pixels, w);
#pragma unroll
        for (int k = 0; k < per_lane; ++k) {
            const int p = lane + 32 * k;
            const bool starts = piece_starts(word, p);
            u32 rank = NO_RANK, area = 0, sum = 0, first = 0, last = 0;
            if (starts) {
                const u32 root = ccl_find_final(L, s.row_index + base + p);
                const u32 root_y = root / width, root_x = root - root_y * width;
                rank = ccl_root_rank(roots, root_x, root_y);
                first = p;
                last = ccl_run_end(word, p);
                area = last - first + 1;
                sum = (first + last) * area / 2;
            }
            const u32 group = __match_any_sync(CCL_FULL_MASK, rank);
            if (starts) {
                area = __reduce_add_sync(group, area);
                sum = __reduce_add_sync(group, sum);
                first = __reduce_min_sync(group, first);
                last = __reduce_max_sync(group, last);
            }
            const u64 sum_x = (u64)base * area + sum;
            const bool leader = starts && __ffs(group) - 1 == lane;
            // Fold the pending component's group into the registers.
            const bool folded = leader && rank == pending;
            const u32 joins = __ballot_sync(CCL_FULL_MASK, folded);
            const int joiner = joins ? __ffs(joins) - 1 : 0;
            const u32 j_area = __shfl_sync(CCL_FULL_MASK, area, joiner);
            const u64 j_sum = __shfl_sync(CCL_FULL_MASK, sum_x, joiner);
            const u32 j_last = __shfl_sync(CCL_FULL_MASK, last, joiner);
            if (joins) {
                pending_area += j_area;
                pending_sum_x += j_sum;
                pending_x_max = base + j_last;
            }
            // A pending component absent from this word gives way to the one at
            // the word's right end; one that is present stays (near the
            // percolation threshold the giant component is in almost every
            // word, and swapping it out would flush it every time).
            const u32 starters = __ballot_sync(CCL_FULL_MASK, starts);
            const int rightmost = starters ? 31 - __clz(starters) : 0;
            const u32 r_rank = __shfl_sync(CCL_FULL_MASK, rank, rightmost);
            const u32 r_area = __shfl_sync(CCL_FULL_MASK, area, rightmost);
            const u64 r_sum = __shfl_sync(CCL_FULL_MASK, sum_x, rightmost);
            const u32 r_first = __shfl_sync(CCL_FULL_MASK, first, rightmost);
            const u32 r_last = __shfl_sync(CCL_FULL_MASK, last, rightmost);
            if (starters && !joins && r_rank != pending) {
                if (pending != NO_RANK && lane == 0)
                    ccl_add_to_component(out, pending, pending_area, pending_sum_x, pending_x_min,
                                         pending_x_max, y);
                pending = r_rank;
                pending_area = r_area;
                pending_sum_x = r_sum;
                pending_x_min = base + r_first;
                pending_x_max = base + r_last;
            }
            if (leader && !folded && rank != pending)
                ccl_add_to_component(out, rank, area, sum_x, base + first, base + last, y);
        }
    }
    if (pending != NO_RANK && lane == 0)
        ccl_add_to_component(out, pending, pending_area, pending_sum_x, pending_x_min, pending_x_max, y);
}

// ------------------------------------------------------------ entry points
//
// Every kernel takes the bit image of the variant's image (CclBits).

#define HA_LABEL_KERNELS(NAME, MASK, EIGHT)                                                              \
    extern "C" __global__ void __launch_bounds__(128) NAME##_strip(CclBits image, u32* L) {             \
        strip_labeling<MASK, EIGHT>(image, Unite{L});                                                    \
    }                                                                                                    \
    extern "C" __global__ void __launch_bounds__(128) NAME##_border(CclBits image, u32* L) {            \
        border_merge<MASK, EIGHT>(image, Unite{L});                                                      \
    }                                                                                                    \
    extern "C" __global__ void __launch_bounds__(128) NAME##_stitch(CclBits image, u32* L) {            \
        stitch_spans<MASK, EIGHT>(image, Unite{L});                                                      \
    }

// The same kernels moving features on the fly (ha-otf of ccl-cuda-flsl):
// `nodes` holds a record per pixel, `counts` the instrumented build's update
// counts (null otherwise).
#define HA_OTF_KERNELS(NAME, MASK, EIGHT)                                                                \
    extern "C" __global__ void __launch_bounds__(128)                                                   \
        NAME##_otf_strip(CclBits image, u32* L, CclNode* nodes, u32* counts) {                          \
        strip_labeling<MASK, EIGHT>(image, UniteOnTheFly{L, nodes, counts});                             \
    }                                                                                                    \
    extern "C" __global__ void __launch_bounds__(128)                                                   \
        NAME##_otf_border(CclBits image, u32* L, CclNode* nodes, u32* counts) {                         \
        border_merge<MASK, EIGHT>(image, UniteOnTheFly{L, nodes, counts});                               \
    }                                                                                                    \
    extern "C" __global__ void __launch_bounds__(128)                                                   \
        NAME##_otf_stitch(CclBits image, u32* L, CclNode* nodes, u32* counts) {                         \
        stitch_spans<MASK, EIGHT>(image, UniteOnTheFly{L, nodes, counts});                               \
    }

#define HA_WORD_KERNELS(NAME, MASK)                                                                      \
    extern "C" __global__ void __launch_bounds__(128) NAME##_relabel(CclBits image, u32* L) {           \
        const CclRootIndex none = {nullptr, nullptr, 0};                                                 \
        relabel<MASK, false>(image, L, L, none);                                                         \
    }                                                                                                    \
    extern "C" __global__ void __launch_bounds__(128)                                                   \
        NAME##_number(CclBits image, const u32* L, CclRootIndex roots, u32* labels) {                   \
        relabel<MASK, true>(image, L, labels, roots);                                                    \
    }                                                                                                    \
    extern "C" __global__ void __launch_bounds__(128)                                                   \
        NAME##_count_roots(CclBits image, const u32* L, u32* root_bits, u32* group_count) {             \
        count_roots<MASK>(image, L, (MASK*)root_bits, group_count);                                      \
    }                                                                                                    \
    extern "C" __global__ void __launch_bounds__(128)                                                   \
        NAME##_features(CclBits image, const u32* L, CclRootIndex roots, CclStatsOut out) {             \
        features<MASK>(image, L, roots, out);                                                            \
    }

HA_LABEL_KERNELS(ha_w32_c4, u32, false)
HA_LABEL_KERNELS(ha_w64_c4, u64, false)
HA_LABEL_KERNELS(ha_w32_c8, u32, true)
HA_LABEL_KERNELS(ha_w64_c8, u64, true)
HA_OTF_KERNELS(ha_w32_c4, u32, false)
HA_OTF_KERNELS(ha_w32_c8, u32, true)
HA_WORD_KERNELS(ha_w32, u32)
HA_WORD_KERNELS(ha_w64, u64)
