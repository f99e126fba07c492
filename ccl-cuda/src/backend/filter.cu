// filter.cu: the clean-up after a labeling (ccl_cuda::backend::filter), on
// canonical labels and on the device: which components to keep (ccl_core's
// Filter: area and bounding-box ranges, then the k largest), their new
// labels 1..=k per image, and the labels or the mask of what is kept.
//
// The labels are `images` images one after the other, each `depth` slices
// of `height` rows of `width` labels and numbered 1..=count on its own (a
// batch: depth 1; a volume: one image). Component r of the whole, in image
// order then label order, is label r - offsets[image] + 1 of its image.
//
// Order: ccl_scan_root_groups (features.cu) of the counts into offsets;
// ccl_filter_init; ccl_filter_measure (area per component; box and sums
// where they are read); ccl_filter_flag (range test, selection keys; on an
// analysis' records by rank, ccl_filter_flag_ranked, with no measure); for
// the k largest, rounds of ccl_filter_histogram + ccl_filter_select from
// the highest byte of the keys down (a radix select per image, which stops
// for an image once its k-th key is known; none for the largest alone,
// which ccl_filter_flag's per-image maximum gives); ccl_filter_decide; two
// ccl_scan_root_groups; then ccl_filter_number and ccl_filter_apply (none
// where the labeling's own last pass reads the renumbering as the remap of
// its root index, ccl_root_label). The largest alone of one image takes
// ccl_filter_keep_largest in place of decide, scans and number, and the
// labeling's last pass reads its key.

#define NO_RANK 0xffffffffu
#define NO_BIN 0xffffffffu

// The geometry of the labels (ccl_cuda::backend::filter::ShapeArgs).
struct CclFilterShape {
    u32 width;
    u32 height;
    u32 depth;
    u32 images;
    u64 pixels;
};

// What is kept (ccl_core::Filter): inclusive ranges, then the k largest
// (`largest`, or FILTER_ALL when every component in range is kept).
struct CclFilterRanges {
    u32 min_size;
    u32 max_size;
    u32 min_extent[3];
    u32 max_extent[3];
    u32 largest;
    u32 padding;
};

// One image's radix select of the k-th largest key: the largest key, the
// digits chosen so far, how many keys are still to be kept among those that
// match them, and once `done`, the smallest key kept.
struct CclSelection {
    u64 max_key;
    u64 prefix;
    u64 threshold;
    u32 remaining;
    u32 done;
};

// The shift of the highest nonzero byte of `key` (keys above it have none).
__device__ __forceinline__ u32 top_shift(u64 key) { return (63u - (u32)__clzll(key)) & ~7u; }

// Image of pixel p, and where in it.
__device__ __forceinline__ u32 image_of_pixel(CclFilterShape shape, u64 p, u64* within) {
    const u64 per_image = shape.pixels / shape.images;
    if (shape.images == 1) {
        *within = p;
        return 0;
    }
    const u32 image = (u32)(p / per_image);
    *within = p - (u64)image * per_image;
    return image;
}

// The stats records empty (area 0, minima at their largest), and each
// image's selection at its start.
extern "C" __global__ void __launch_bounds__(256)
    ccl_filter_init(CclVolumeStats* records, u32 total, CclSelection* selection, u32 images,
                    u32 largest) {
    const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) {
        CclVolumeStats s;
        s.area = 0;
        s.x_min = s.y_min = s.z_min = 0xffffffffu;
        s.x_max = s.y_max = s.z_max = 0;
        s.padding = 0;
        s.sum_x = s.sum_y = s.sum_z = 0;
        records[i] = s;
    }
    if (i < images) {
        CclSelection s;
        s.max_key = 0;
        s.prefix = 0;
        s.threshold = 1;
        s.remaining = largest;
        s.done = 0;
        selection[i] = s;
    }
}

// ------------------------------------------------------------- measuring
//
// A warp walks a span of FILTER_SPAN_CHUNKS chunks of 32 consecutive labels
// of one row (FILTER_SPAN_CHUNKS * 32 columns; the last span of a row is
// shorter). A span never crosses a row, so its row, slice and image are one
// each: y and z are constants of the span, and so are the image's offset
// and count. Row `row` of the whole is row `row % height` of slice
// `row / height % depth` of image `row / (height * depth)`; its labels start
// at row * width. The FILTER_MEASURE_WARPS warps of a block take
// consecutive spans.
//
// What a part of a component costs: within a chunk, the lanes of one rank
// combine (one group); the group of lane 31 stays pending in registers while
// the next chunks continue it, so a component crossing many chunks (the
// giant component of a dense image, whose same-address atomics would
// otherwise serialize) is added once per span; at the end, the pending parts
// of the block's warps (the same giant component, mostly) combine again, so
// it is added once per block. What is added is what `measure` asks for: the
// area alone (FILTER_MEASURE_AREA: one atomic), with the bounding box
// (FILTER_MEASURE_BOX), with the coordinate sums too
// (FILTER_MEASURE_FEATURES).
//
// Invariants. The pending part is the same in every lane (it changes only
// by shuffles and votes). Every pixel of a component is in exactly one
// group of its chunk (the lanes of its rank), and each such group goes
// exactly one way:
// (a) it joins the pending part if it has the pending rank (at most one
//     group has it);
// (b) else it becomes the new pending part if it holds lane 31 and no group
//     joined (the old part, if any, is added first);
// (c) else it is added at once.
// Every pending part is added exactly once: when a new one replaces it, or
// by the block's combination after the span's last chunk. A part's fields
// are sums, minima and maxima of its groups' (and a span's y and z are
// one), so the order and the grouping of the adds change nothing: each
// record ends as the per-pixel pass left it.

// A warp's pending part at the end of its span, for the block to combine.
struct CclFilterTail {
    u32 rank;  // NO_RANK: none
    u32 area;
    u32 x_min;
    u32 x_max;
    u32 y;
    u32 z;
    u64 sum_x;
};

// Adds a part of a component (its pixels, its box, its coordinate sums) to
// the component's record, as much as `Measure` asks.
template <u32 Measure>
__device__ __forceinline__ void add_part(CclVolumeStats* s, u32 area, u32 x_min, u32 x_max,
                                         u32 y_min, u32 y_max, u32 z_min, u32 z_max, u64 sum_x,
                                         u64 sum_y, u64 sum_z) {
    if (Measure >= FILTER_MEASURE_FEATURES) {
        ccl_add_volume_part(s, area, x_min, x_max, y_min, y_max, z_min, z_max, sum_x, sum_y, sum_z);
        return;
    }
    atomicAdd(&s->area, area);
    if (Measure >= FILTER_MEASURE_BOX) {
        atomicMin(&s->x_min, x_min);
        atomicMax(&s->x_max, x_max);
        atomicMin(&s->y_min, y_min);
        atomicMax(&s->y_max, y_max);
        atomicMin(&s->z_min, z_min);
        atomicMax(&s->z_max, z_max);
    }
}

// A part of one row: `area` pixels of row y of slice z, columns x_min to
// x_max summing to sum_x.
template <u32 Measure>
__device__ __forceinline__ void add_run(CclVolumeStats* s, u32 area, u32 x_min, u32 x_max,
                                        u64 sum_x, u32 y, u32 z) {
    add_part<Measure>(s, area, x_min, x_max, y, y, z, z, sum_x, (u64)y * area, (u64)z * area);
}

// One warp's walk of span `span` (none past the last: nothing pending):
// every part of a component it sees is added but the one pending at the
// end, which it returns (the same in every lane).
template <u32 Measure>
__device__ __forceinline__ CclFilterTail walk_span(const u32* labels, CclFilterShape shape,
                                                   const u32* offsets, CclVolumeStats* records,
                                                   u32 spans_per_row, u64 spans, u64 span) {
    const u32 lane = threadIdx.x;
    // The pending part: its rank, pixels, first and last column and column
    // sum, the same in every lane; y and z are the span's.
    u32 pending = NO_RANK, area_p = 0, x_min_p = 0, x_max_p = 0, y = 0, z = 0;
    u64 sum_x_p = 0;
    if (span < spans) {  // the same in every lane of the warp
        const u64 row = span / spans_per_row;
        const u32 first = (u32)(span - row * spans_per_row) * (FILTER_SPAN_CHUNKS * 32u);
        // Columns first..first + length - 1 (first < width: no sum here
        // passes 2^32).
        const u32 length = min(FILTER_SPAN_CHUNKS * 32u, shape.width - first);
        const u64 rows_per_image = (u64)shape.height * shape.depth;
        const u32 image = shape.images == 1 ? 0u : (u32)(row / rows_per_image);
        const u64 in_image = row - (u64)image * rows_per_image;
        z = (u32)(in_image / shape.height);
        y = (u32)(in_image - (u64)z * shape.height);
        const u32 image_first = offsets[image], count = offsets[image + 1] - image_first;
        // Every load of the span first, so that they are in flight together.
        const u32* in = labels + row * shape.width + first;
        u32 label[FILTER_SPAN_CHUNKS];
#pragma unroll
        for (u32 k = 0; k < FILTER_SPAN_CHUNKS; ++k) {
            const u32 at = k * 32u + lane;
            label[k] = at < length ? in[at] : 0u;
        }
#pragma unroll
        for (u32 k = 0; k < FILTER_SPAN_CHUNKS; ++k) {
            if (k * 32u >= length) break;  // the same in every lane
            const u32 base = first + k * 32u;
            // Background (0 - 1 wraps to the largest u32), a label above
            // its image's count, and a lane past the span: no component.
            const u32 rank = label[k] - 1u < count ? image_first + label[k] - 1u : NO_RANK;
            // Lanes of one rank: the whole warp within a large component
            // (a shuffle and a vote), else __match_any_sync.
            const u32 rank_0 = __shfl_sync(CCL_FULL_MASK, rank, 0);
            const u32 group = __all_sync(CCL_FULL_MASK, rank == rank_0)
                                  ? CCL_FULL_MASK
                                  : __match_any_sync(CCL_FULL_MASK, rank);
            const u32 head = __ffs(group) - 1, tail = 31 - __clz(group), area = __popc(group);
            // Lanes are consecutive columns: the group's columns are base +
            // its lanes.
            u64 sum_x = 0;
            if (Measure >= FILTER_MEASURE_FEATURES)
                sum_x = (u64)base * area + __reduce_add_sync(group, lane);
            const bool leader = rank != NO_RANK && lane == head;
            // The group that continues the pending part joins it (its
            // columns come after the part's).
            const u32 before = pending;
            const u32 continues = __ballot_sync(CCL_FULL_MASK, leader && rank == pending);
            if (continues) {
                const int from = __ffs(continues) - 1;
                area_p += __shfl_sync(CCL_FULL_MASK, area, from);
                if (Measure >= FILTER_MEASURE_BOX)
                    x_max_p = base + __shfl_sync(CCL_FULL_MASK, tail, from);
                if (Measure >= FILTER_MEASURE_FEATURES)
                    sum_x_p += __shfl_sync(CCL_FULL_MASK, sum_x, from);
            }
            // Else lane 31's group, if any, becomes the pending part (it is
            // the one the next chunk may continue), after the old one is
            // added; a pending part absent from this chunk stays while lane
            // 31 is background.
            const u32 last_rank = __shfl_sync(CCL_FULL_MASK, rank, 31);
            if (!continues && last_rank != NO_RANK) {
                if (lane == 0 && pending != NO_RANK)
                    add_run<Measure>(records + pending, area_p, x_min_p, x_max_p, sum_x_p, y, z);
                pending = last_rank;
                area_p = __shfl_sync(CCL_FULL_MASK, area, 31);
                if (Measure >= FILTER_MEASURE_BOX) {
                    x_min_p = base + __shfl_sync(CCL_FULL_MASK, head, 31);
                    x_max_p = base + 31u;
                }
                if (Measure >= FILTER_MEASURE_FEATURES)
                    sum_x_p = __shfl_sync(CCL_FULL_MASK, sum_x, 31);
            }
            // Every other group is added now.
            if (leader && rank != before && rank != pending)
                add_run<Measure>(records + rank, area, base + head, base + tail, sum_x, y, z);
        }
    }
    CclFilterTail t;
    t.rank = pending;
    t.area = area_p;
    t.x_min = x_min_p;
    t.x_max = x_max_p;
    t.y = y;
    t.z = z;
    t.sum_x = sum_x_p;
    return t;
}

// The block's combination (one warp): lane i < FILTER_MEASURE_WARPS takes
// warp i's pending part; the lanes of one rank combine (their rows may
// differ where the block's spans cross a row's end) and their first lane
// adds the whole.
template <u32 Measure>
__device__ __forceinline__ void add_tails(const CclFilterTail* tails, CclVolumeStats* records) {
    const u32 lane = threadIdx.x;
    CclFilterTail t = {NO_RANK, 0, 0, 0, 0, 0, 0};
    if (lane < FILTER_MEASURE_WARPS) t = tails[lane];
    const u32 group = __match_any_sync(CCL_FULL_MASK, t.rank);
    if (t.rank == NO_RANK) return;  // its own group: no lane of another waits on it
    const u32 area = __reduce_add_sync(group, t.area);
    u32 x_min = 0, x_max = 0, y_min = 0, y_max = 0, z_min = 0, z_max = 0;
    if (Measure >= FILTER_MEASURE_BOX) {
        x_min = __reduce_min_sync(group, t.x_min);
        x_max = __reduce_max_sync(group, t.x_max);
        y_min = __reduce_min_sync(group, t.y);
        y_max = __reduce_max_sync(group, t.y);
        z_min = __reduce_min_sync(group, t.z);
        z_max = __reduce_max_sync(group, t.z);
    }
    u64 sum_x = 0, sum_y = 0, sum_z = 0;
    if (Measure >= FILTER_MEASURE_FEATURES) {
        sum_x = ccl_reduce_add_u64(group, t.sum_x);
        sum_y = ccl_reduce_add_u64(group, (u64)t.y * t.area);
        sum_z = ccl_reduce_add_u64(group, (u64)t.z * t.area);
    }
    if (lane == (u32)(__ffs(group) - 1))
        add_part<Measure>(records + t.rank, area, x_min, x_max, y_min, y_max, z_min, z_max, sum_x,
                          sum_y, sum_z);
}

// The block's rounds: FILTER_MEASURE_WARPS consecutive spans each (one
// round but where the grid is capped at CUDA's limit of blocks). The whole
// block takes every round (the bound is the block's), so every warp reaches
// both barriers, those past the last span with nothing pending.
template <u32 Measure>
__device__ __forceinline__ void measure_spans(const u32* labels, CclFilterShape shape,
                                              const u32* offsets, CclVolumeStats* records,
                                              u32 spans_per_row, u64 spans, CclFilterTail* tails) {
    const u64 stride = (u64)gridDim.x * FILTER_MEASURE_WARPS;
    for (u64 first = (u64)blockIdx.x * FILTER_MEASURE_WARPS; first < spans; first += stride) {
        const CclFilterTail t = walk_span<Measure>(labels, shape, offsets, records, spans_per_row,
                                                   spans, first + threadIdx.y);
        if (threadIdx.x == 0) tails[threadIdx.y] = t;
        __syncthreads();
        if (threadIdx.y == 0) add_tails<Measure>(tails, records);
        __syncthreads();  // the tails are read before the next round writes them
    }
}

// Each labeled pixel adds itself to its component, as much as `measure`
// asks (FILTER_MEASURE_AREA, _BOX or _FEATURES); a label above its image's
// count is not a component and is ignored. One warp per span of a row
// (`spans_per_row` per row, `spans` in all), in blocks of 32 x
// FILTER_MEASURE_WARPS threads.
extern "C" __global__ void __launch_bounds__(32 * FILTER_MEASURE_WARPS)
    ccl_filter_measure(const u32* labels, CclFilterShape shape, const u32* offsets,
                       CclVolumeStats* records, u32 spans_per_row, u64 spans, u32 measure) {
    __shared__ CclFilterTail tails[FILTER_MEASURE_WARPS];
    // One walk per measure, each with only its own atomics and reductions.
    if (measure >= FILTER_MEASURE_FEATURES)
        measure_spans<FILTER_MEASURE_FEATURES>(labels, shape, offsets, records, spans_per_row,
                                               spans, tails);
    else if (measure == FILTER_MEASURE_BOX)
        measure_spans<FILTER_MEASURE_BOX>(labels, shape, offsets, records, spans_per_row, spans,
                                          tails);
    else
        measure_spans<FILTER_MEASURE_AREA>(labels, shape, offsets, records, spans_per_row, spans,
                                           tails);
}

// A record's extent along x, y and z: a volume's (CclVolumeStats, what the
// measuring pass gathers) or an image's (CclStats, an analysis' by rank,
// one slice deep).
__device__ __forceinline__ void filter_extent(const CclVolumeStats& s, u32 extent[3]) {
    extent[0] = s.x_max - s.x_min + 1;
    extent[1] = s.y_max - s.y_min + 1;
    extent[2] = s.z_max - s.z_min + 1;
}
__device__ __forceinline__ void filter_extent(const CclStats& s, u32 extent[3]) {
    extent[0] = s.x_max - s.x_min + 1;
    extent[1] = s.y_max - s.y_min + 1;
    extent[2] = 1;
}

// A component's area alone, where the filter reads no extent (its extent
// ranges let every extent pass, 1 included).
struct CclArea {
    u32 area;
};
__device__ __forceinline__ void filter_extent(const CclArea&, u32 extent[3]) {
    extent[0] = extent[1] = extent[2] = 1;
}

// The image of each component (the last image whose offset is at most r),
// whether it lies in the ranges, and its selection key: area in the high
// word, the complement of its label in the low word (larger areas first,
// then the first label), 0 where it is out of range. With a selection, each
// image's largest key. The grid strides over the components (FLAG_BLOCKS
// blocks at most, filter.rs): one image's largest key is one atomic per
// block, and a block per 256 components queued their atomics on that one
// address (8192^2 at g = 1, 10 %: 4.6 million components, 18 K blocks, 29.5
// us for 18 MB of areas; ncu, H200).
//
// Where one image's largest key alone is wanted (no keys written), a
// thread takes FLAG_UNROLL grid strides at once and loads their records
// together: a load a stride waited on each in turn (21.9 us for the 18 MB
// of areas above, with 1024 blocks).
#define FLAG_UNROLL 4

// The selection key of a component of rank `rank` in its image (`s` its
// record), 0 where it is out of the ranges.
template <typename Record>
__device__ __forceinline__ u64 filter_key(const Record& s, CclFilterRanges ranges, u32 rank) {
    u32 extent[3];
    filter_extent(s, extent);
    bool in_range = s.area >= ranges.min_size && s.area <= ranges.max_size && ranges.largest != 0;
    for (int axis = 0; axis < 3; ++axis)
        in_range = in_range && extent[axis] >= ranges.min_extent[axis] && extent[axis] <= ranges.max_extent[axis];
    return in_range ? ccl_largest_key(s.area, rank) : 0;
}

template <typename Record>
__device__ void filter_flag(const Record* records, u32 total, const u32* offsets, u32 images,
                            CclFilterRanges ranges, u64* keys, u32* image_of, CclSelection* selection) {
    const u32 lane = threadIdx.x & 31u;
    const bool selects = ranges.largest != FILTER_ALL;
    u64 best = 0;  // one image: the largest key this thread saw
    const u32 stride = gridDim.x * blockDim.x;
    const bool largest_alone = keys == nullptr && images == 1;
    if (largest_alone) {
        for (u32 r0 = blockIdx.x * blockDim.x + threadIdx.x; r0 < total; r0 += FLAG_UNROLL * stride) {
            Record s[FLAG_UNROLL];
#pragma unroll
            for (u32 k = 0; k < FLAG_UNROLL; ++k)
                if (r0 + k * stride < total) s[k] = records[r0 + k * stride];
#pragma unroll
            for (u32 k = 0; k < FLAG_UNROLL; ++k) {
                const u64 key = r0 + k * stride < total ? filter_key(s[k], ranges, r0 + k * stride) : 0;
                best = key > best ? key : best;
            }
        }
    }
    // The bounds are the block's, so every lane takes every round.
    for (u32 base = blockIdx.x * blockDim.x; !largest_alone && base < total; base += stride) {
        const u32 r = base + threadIdx.x;
        u32 image = 0;
        u64 key = 0;
        if (r < total) {
            u32 low = 0, high = images;  // offsets[low] <= r < offsets[high]
            while (high - low > 1) {
                const u32 middle = (low + high) / 2;
                if (offsets[middle] <= r) low = middle; else high = middle;
            }
            image = low;
            key = filter_key(records[r], ranges, r - offsets[image]);
            // No keys (null) where the largest key alone is wanted: it is
            // the block maxima below, and keeps its rank in the low word.
            if (keys != nullptr) {
                keys[r] = key;
                image_of[r] = image;
            }
        }
        if (!selects) continue;
        if (images == 1) {
            best = key > best ? key : best;
            continue;
        }
        // The warp's largest key per image: one atomic where the warp's
        // components are of one image (the usual case), else one per
        // component.
        const u32 first_image = __shfl_sync(CCL_FULL_MASK, image, 0);
        if (__all_sync(CCL_FULL_MASK, r >= total || image == first_image)) {
            u64 warp_best = key;
            for (int offset = 16; offset > 0; offset >>= 1) {
                const u64 other = __shfl_down_sync(CCL_FULL_MASK, warp_best, offset);
                warp_best = other > warp_best ? other : warp_best;
            }
            if (lane == 0 && warp_best != 0) atomicMax(&selection[first_image].max_key, warp_best);
        } else if (key != 0) {
            atomicMax(&selection[image].max_key, key);
        }
    }
    if (!selects || images != 1) return;
    // One image: the block's largest key, one atomic per block.
    __shared__ u64 warp_best[32];
    for (int offset = 16; offset > 0; offset >>= 1) {
        const u64 other = __shfl_down_sync(CCL_FULL_MASK, best, offset);
        best = other > best ? other : best;
    }
    if (lane == 0) warp_best[threadIdx.x / 32u] = best;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (u32 w = 1; w < blockDim.x / 32u; ++w) best = warp_best[w] > best ? warp_best[w] : best;
        if (best != 0) atomicMax(&selection[0].max_key, best);
    }
}

// ccl_filter_flag on the measured records.
extern "C" __global__ void __launch_bounds__(256)
    ccl_filter_flag(const CclVolumeStats* records, u32 total, const u32* offsets, u32 images,
                    CclFilterRanges ranges, u64* keys, u32* image_of, CclSelection* selection) {
    filter_flag(records, total, offsets, images, ranges, keys, image_of, selection);
}

// ccl_filter_flag on an image's analysis by rank (the records of a labeling
// that keeps what the filter keeps, RootsFlagged::number_filtered_with).
extern "C" __global__ void __launch_bounds__(256)
    ccl_filter_flag_ranked(const CclStats* records, u32 total, const u32* offsets, u32 images,
                           CclFilterRanges ranges, u64* keys, u32* image_of, CclSelection* selection) {
    filter_flag(records, total, offsets, images, ranges, keys, image_of, selection);
}

// ccl_filter_flag on the areas alone by rank, where no extent is read.
extern "C" __global__ void __launch_bounds__(256)
    ccl_filter_flag_areas(const CclArea* areas, u32 total, const u32* offsets, u32 images,
                          CclFilterRanges ranges, u64* keys, u32* image_of, CclSelection* selection) {
    filter_flag(areas, total, offsets, images, ranges, keys, image_of, selection);
}

// One round of the radix select: per image, how many of its candidate keys
// (those matching the digits chosen above `shift`) have each value of the
// byte at `shift`. A block takes FILTER_ITEMS consecutive keys; where they
// are all of one image, it counts in shared memory. Lanes of a warp with
// the same bin add together.
extern "C" __global__ void __launch_bounds__(256)
    ccl_filter_histogram(const u64* keys, const u32* image_of, u32 total,
                         const CclSelection* selection, u32* histogram, u32 shift) {
    __shared__ u32 local[256];
    const u32 first = blockIdx.x * FILTER_ITEMS;
    if (first >= total) return;
    const u32 last = min(first + FILTER_ITEMS, total) - 1;
    const u32 block_image = image_of[first];
    const bool one_image = image_of[last] == block_image;
    if (one_image) {
        const CclSelection s = selection[block_image];
        if (s.done || s.max_key == 0 || shift > top_shift(s.max_key)) return;  // the whole block
    }
    local[threadIdx.x] = 0;
    __syncthreads();
    for (u32 base = first; base <= last; base += blockDim.x) {
        const u32 i = base + threadIdx.x;
        u32 bin = NO_BIN;
        const u64 key = i <= last ? keys[i] : 0;
        if (key != 0) {
            const u32 image = one_image ? block_image : image_of[i];
            const CclSelection s = selection[image];
            const bool candidate = !s.done && shift <= top_shift(s.max_key) &&
                                   (shift == 56 || (key >> (shift + 8)) == (s.prefix >> (shift + 8)));
            if (candidate) bin = (one_image ? 0 : image * 256u) + (u32)((key >> shift) & 255u);
        }
        const u32 group = __match_any_sync(CCL_FULL_MASK, bin);
        if (bin != NO_BIN && (threadIdx.x & 31u) == (u32)(__ffs(group) - 1)) {
            if (one_image) atomicAdd(&local[bin], (u32)__popc(group));
            else atomicAdd(&histogram[bin], (u32)__popc(group));
        }
    }
    __syncthreads();
    const u32 count = local[threadIdx.x];
    if (one_image && count) atomicAdd(&histogram[block_image * 256u + threadIdx.x], count);
}

// One round's choice (one thread per image): the byte at `shift` of the k-th
// largest key, from the image's histogram. The image is done once every
// candidate of the chosen byte is kept: then its smallest kept key is the
// prefix (lower bytes zero). Fewer candidates than k: all are kept.
extern "C" __global__ void __launch_bounds__(256)
    ccl_filter_select(const u32* histogram, CclSelection* selection, u32 images, u32 shift) {
    const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= images) return;
    CclSelection s = selection[i];
    if (s.done) return;
    if (s.max_key == 0) {  // no candidate: nothing is kept
        s.done = 1;
        s.threshold = 1;
        selection[i] = s;
        return;
    }
    if (shift > top_shift(s.max_key)) return;
    const u32* bins = histogram + (size_t)i * 256u;
    u32 above = 0;
    for (int digit = 255; digit >= 0; --digit) {
        const u32 count = bins[digit];
        if (above + count >= s.remaining) {
            s.remaining -= above;
            s.prefix |= (u64)digit << shift;
            if (count == s.remaining) {
                s.done = 1;
                s.threshold = s.prefix;
            }
            selection[i] = s;
            return;
        }
        above += count;
    }
    s.done = 1;
    s.threshold = 1;
    selection[i] = s;
}

// Whether each component is kept (its key at least its image's smallest
// kept key: any key in range without a selection, the radix select's
// threshold, or for the largest alone the largest key, unique as keys hold
// the label), into `renumbering`; the kept per block of 1024 and per image
// (zeroed before), for the scans that number them.
extern "C" __global__ void __launch_bounds__(1024)
    ccl_filter_decide(const u64* keys, const u32* image_of, u32 total,
                      const CclSelection* selection, u32 selects, u32* renumbering,
                      u32* block_kept, u32* kept_per_image) {
    const u32 r = blockIdx.x * blockDim.x + threadIdx.x;
    bool kept = false;
    u32 image = 0;
    if (r < total) {
        const u64 key = keys[r];
        image = image_of[r];
        const u64 smallest = selects == FILTER_SELECT_RADIX     ? selection[image].threshold
                             : selects == FILTER_SELECT_LARGEST ? selection[image].max_key
                                                                : 1;
        kept = key != 0 && key >= smallest;
        renumbering[r] = kept;
    }
    const u32 in_block = __syncthreads_count(kept);
    if (threadIdx.x == 0) block_kept[blockIdx.x] = in_block;
    const u32 group = __match_any_sync(CCL_FULL_MASK, kept ? image : NO_BIN);
    if (kept && (threadIdx.x & 31u) == (u32)(__ffs(group) - 1))
        atomicAdd(&kept_per_image[image], (u32)__popc(group));
}

// The largest alone of one image (FILTER_SELECT_LARGEST, images == 1), in
// place of ccl_filter_decide, the scans and ccl_filter_number: its kept
// count and bases (one thread). No label per component is written: the
// labeling's last pass reads the largest key itself (CclRootIndex's
// `largest`).
extern "C" __global__ void __launch_bounds__(32)
    ccl_filter_keep_largest(const CclSelection* selection, u32* kept_per_image, u32* image_base) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const u32 kept = selection[0].max_key != 0;
    kept_per_image[0] = kept;
    image_base[0] = 0;
    image_base[1] = kept;
}

// The new label of each component: its rank among the kept of all images
// (block_offset: kept before its block) less the kept of the images before
// its own, + 1; 0 where it is removed. With `kept_records`, the records of
// the kept components, compacted in that order.
extern "C" __global__ void __launch_bounds__(1024)
    ccl_filter_number(u32* renumbering, u32 total, const u32* image_of, const u32* block_offset,
                      const u32* image_base, const CclVolumeStats* records,
                      CclVolumeStats* kept_records) {
    __shared__ u32 warp_totals[32];
    const u32 r = blockIdx.x * blockDim.x + threadIdx.x;
    const u32 kept = r < total ? renumbering[r] : 0;
    const u32 inclusive = ccl_block_inclusive_scan(kept, warp_totals);
    if (r >= total) return;
    const u32 rank = block_offset[blockIdx.x] + inclusive - kept;
    renumbering[r] = kept ? rank - image_base[image_of[r]] + 1 : 0;
    if (kept && kept_records != nullptr) kept_records[rank] = records[r];
}

// Each pixel's new label (in place), or, with `mask`, whether its component
// is kept (the labels are left as they are): from the renumbering, or where
// that is null (one image's largest alone, ccl_filter_keep_largest) from
// the largest key, whose low word is the complement of the kept rank.
extern "C" __global__ void __launch_bounds__(256)
    ccl_filter_apply(u32* labels, CclFilterShape shape, const u32* offsets, const u32* renumbering,
                     const u64* largest, u8* mask) {
    const u64 p = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= shape.pixels) return;
    const u32 label = labels[p];
    u32 kept = 0;
    if (label != 0) {
        u64 within;
        const u32 image = image_of_pixel(shape, p, &within);
        if (label <= offsets[image + 1] - offsets[image]) {
            const u32 r = offsets[image] + label - 1;
            if (renumbering != nullptr) {
                kept = renumbering[r];
            } else {
                kept = ccl_is_kept_largest(*largest, r);
            }
        }
    }
    if (mask != nullptr) mask[p] = kept != 0;
    else if (label != 0) labels[p] = kept;
}
