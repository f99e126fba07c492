// features.cu: the shared back end of every CUDA variant (ccl_cuda::features):
// from any forest that keeps the contract of ccl_device.cuh, the ranks of
// its roots in raster order of the components' first pixels; with them the
// canonical label image (ccl_number_forest, or a variant's own last pass
// using ccl_root_rank) and the seven features of every component.
//
// Order of an analysis: ccl_count_roots (or a variant's own root kernel
// writing the same CclRootIndex layout), ccl_scan_root_groups,
// ccl_rank_roots, then ccl_accumulate (or a variant's own feature kernel
// using ccl_root_rank and ccl_add_to_component). A labeling ranks the same
// way and ends in a last pass that writes rank + 1; the features of
// canonical labels (ccl_accumulate_labels) read the labels alone.
//
// The per-pixel kernels give each warp one word (ccl_accumulate: a span of
// words): 32 consecutive columns of one row (word w is row w /
// words_per_row, columns 32 (w % words_per_row) and on), so that a warp's
// loads and stores are contiguous. Blocks are 32 x 8 threads.

#define NO_RANK 0xffffffffu

// Step 1: flags each root (a foreground pixel that is its own parent) in
// root_bits and counts them per group of CCL_ROOT_GROUP_WORDS words
// (group_count, zeroed before). A block's warps take consecutive words and
// add their counts in shared memory first, the warps of one group together
// (a block's words lie in one group unless the group size is no multiple
// of the warps per block), so that an image of many components costs one
// global atomic per block and group, not one per word.
extern "C" __global__ void __launch_bounds__(256)
    ccl_count_roots(CclImage image, const u32* L, u32* root_bits, u32 words_per_row, u32 words,
                    u32* group_count) {
    __shared__ u32 warp_roots[32];
    u32 y, base;
    u32 count = 0;
    const bool has_word = ccl_warp_word(words, words_per_row, &y, &base);
    if (has_word) {
        const u32 x = base + threadIdx.x;
        bool root = false;
        if (x < (u32)image.width && ccl_row(image, y)[x]) {
            const u32 i = y * (u32)image.width + x;
            root = L[i] == i + 1;
        }
        const u32 roots = __ballot_sync(CCL_FULL_MASK, root);
        count = (u32)__popc(roots);
        if (threadIdx.x == 0) root_bits[y * words_per_row + base / 32] = roots;
    }
    if (threadIdx.x == 0) warp_roots[threadIdx.y] = count;
    __syncthreads();
    // The first warp: lane l holds warp l's count and word.
    if (threadIdx.y == 0) {
        const u32 lane = threadIdx.x;
        const u64 word = (u64)blockIdx.x * blockDim.y + lane;
        const bool counted = lane < blockDim.y && word < words;
        ccl_add_group_roots(group_count, word, counted, counted ? warp_roots[lane] : 0);
    }
}

// Step 1 of a variant that sets every word of root_bits itself (the
// class maps' kernels): the roots counted per group (one block of 256
// threads per group; plain stores, a group is one block's).
extern "C" __global__ void __launch_bounds__(256)
    ccl_count_root_bits(const u32* root_bits, u32 words, u32* group_count) {
    __shared__ u32 warp_roots[8];
    const u64 first = (u64)blockIdx.x * CCL_ROOT_GROUP_WORDS;
    u32 count = 0;
    for (u32 i = threadIdx.x; i < CCL_ROOT_GROUP_WORDS; i += 256) {
        const u64 w = first + i;
        if (w < words) count += (u32)__popc(root_bits[w]);
    }
    count = __reduce_add_sync(CCL_FULL_MASK, count);
    if ((threadIdx.x & 31u) == 0) warp_roots[threadIdx.x / 32] = count;
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 total = 0;
        for (int i = 0; i < 8; ++i) total += warp_roots[i];
        group_count[blockIdx.x] = total;
    }
}

// Step 2 (one block of 1024 threads): exclusive prefix sum of the group
// counts, and the number of components.
extern "C" __global__ void __launch_bounds__(1024)
    ccl_scan_root_groups(const u32* group_count, u32* group_offset, u32* components, u32 groups) {
    __shared__ u32 warp_totals[32];
    u32 carry = 0;
    for (u32 first = 0; first < groups; first += blockDim.x) {
        const u32 i = first + threadIdx.x;
        const u32 count = i < groups ? group_count[i] : 0;
        const u32 inclusive = ccl_block_inclusive_scan(count, warp_totals);
        if (i < groups) group_offset[i] = carry + inclusive - count;
        // The last thread's inclusive sum is the tile's total.
        if (threadIdx.x == blockDim.x - 1) warp_totals[0] = inclusive;
        __syncthreads();
        carry += warp_totals[0];
        __syncthreads();
    }
    if (threadIdx.x == 0) *components = carry;
}

// Step 3 (one block of CCL_ROOT_GROUP_WORDS threads per group): the rank
// of each word's first root among all roots in raster order (word_offset),
// and the initial features of every component that fits the output. A warp
// initialises the components of its 32 words one word at a time, so that
// each store of the warp covers consecutive ranks (a thread looping over
// its own word's roots would scatter every store).
extern "C" __global__ void __launch_bounds__(CCL_ROOT_GROUP_WORDS)
    ccl_rank_roots(const u32* root_bits, const u32* group_offset, u32* word_offset, CclStatsOut out,
                   u32 words, u32 words_per_row) {
    __shared__ u32 warp_totals[32];
    const u32 word = blockIdx.x * CCL_ROOT_GROUP_WORDS + threadIdx.x, lane = threadIdx.x & 31u;
    const u32 roots = word < words ? root_bits[word] : 0;
    const u32 count = __popc(roots);
    const u32 inclusive = ccl_block_inclusive_scan(count, warp_totals);
    const u32 rank = group_offset[blockIdx.x] + inclusive - count;
    if (word < words) word_offset[word] = rank;
    const u32 first_word = word - lane;
    for (u32 k = 0; k < 32; ++k) {
        const u32 bits = __shfl_sync(CCL_FULL_MASK, roots, k);
        const u32 first_rank = __shfl_sync(CCL_FULL_MASK, rank, k);
        if (!((bits >> lane) & 1u)) continue;
        const u32 r = first_rank + __popc(bits & ((1u << lane) - 1u));
        if (r >= out.capacity) continue;
        CclStats s;
        s.area = 0;
        s.x_min = 0xffffffffu;
        s.y_min = (first_word + k) / words_per_row;
        s.x_max = 0;
        s.y_max = 0;
        s.padding = 0;
        s.sum_x = 0;
        s.sum_y = 0;
        out.stats[r] = s;
    }
}

// Step 4: each foreground pixel adds itself to its component. A warp takes
// ACCUMULATE_SPAN_WORDS consecutive words of one row. Within a word, the
// lanes of one component combine (__match_any_sync); across words, one
// component stays pending in registers while the next words continue it. A
// component that crosses many words (the large components of dense images,
// whose same-address atomics would otherwise serialize) costs one atomic per
// feature per span instead of per word.
//
// Labels: a forest whose roots are ranked in `roots` (Canonical false; the
// image says which pixels are foreground), or canonical labels (Canonical
// true: 0 is background, the rank is the label - 1, and the image is not
// read). With canonical labels, `background` (null: not wanted) gathers the
// background's features in the same pass: OpenCV's row 0. To start from
// zeros, its x_min and y_min are kept as complements (atomicMax of ~x).
template <bool Canonical>
__device__ void accumulate(CclImage image, const u32* L, CclRootIndex roots, CclStatsOut out,
                           CclStats* background, u32 words_per_row, u32 spans_per_row, u32 spans) {
    const u64 span = (u64)blockIdx.x * blockDim.y + threadIdx.y;
    if (span >= spans) return;
    const u32 y = (u32)(span / spans_per_row), lane = threadIdx.x, width = (u32)image.width;
    const u32 first_word = (u32)(span % spans_per_row) * ACCUMULATE_SPAN_WORDS;
    const u32 end_word = min(first_word + ACCUMULATE_SPAN_WORDS, words_per_row);
    const u8* row = ccl_row(image, y);
    const u32* labels = L + (size_t)y * width;
    // The pending component and what it has gathered, the same in every lane.
    u32 pending = NO_RANK, area_p = 0, x_min_p = 0, x_max_p = 0;
    u64 sum_x_p = 0;
    // This lane's background pixels.
    u32 bg_area = 0, bg_x_min_c = 0, bg_x_max = 0;
    u64 bg_sum_x = 0;
    for (u32 word = first_word; word < end_word; ++word) {
        const u32 base = word * 32u, x = base + lane;
        u32 rank = NO_RANK;
        if (x < width) {
            if (Canonical) {
                rank = labels[x] - 1;  // background: 0 - 1 == NO_RANK
            } else if (row[x]) {
                const u32 root = ccl_find_final(L, y * width + x);
                rank = ccl_root_rank(roots, root % width, root / width);
            }
            if (Canonical && background != nullptr && rank == NO_RANK) {
                bg_area += 1;
                bg_sum_x += x;
                bg_x_min_c = max(bg_x_min_c, ~x);
                bg_x_max = x;
            }
        }
        const bool foreground = rank != NO_RANK;
        // Lanes are consecutive columns: a group's first and last lanes are
        // its extent, and the sum of its lanes its columns less the base.
        const u32 group = __match_any_sync(CCL_FULL_MASK, rank);
        const u32 first = __ffs(group) - 1, last = 31 - __clz(group), area = __popc(group);
        const u64 sum_x = (u64)base * area + __reduce_add_sync(group, lane);
        const bool leader = foreground && lane == first;
        // The group that continues the pending component joins it.
        const u32 before = pending;
        const u32 continues = __ballot_sync(CCL_FULL_MASK, leader && rank == pending);
        if (continues) {
            const int from = __ffs(continues) - 1;
            area_p += __shfl_sync(CCL_FULL_MASK, area, from);
            sum_x_p += __shfl_sync(CCL_FULL_MASK, sum_x, from);
            x_max_p = base + __shfl_sync(CCL_FULL_MASK, last, from);
        }
        // A pending component absent from this word gives way to the last
        // lane's (a large component stays pending while small ones pass).
        const u32 last_rank = __shfl_sync(CCL_FULL_MASK, rank, 31);
        if (!continues && last_rank != NO_RANK) {
            if (lane == 0 && pending != NO_RANK)
                ccl_add_to_component(out, pending, area_p, sum_x_p, x_min_p, x_max_p, y);
            const int from = __shfl_sync(CCL_FULL_MASK, first, 31);
            pending = last_rank;
            area_p = __shfl_sync(CCL_FULL_MASK, area, from);
            sum_x_p = __shfl_sync(CCL_FULL_MASK, sum_x, from);
            x_min_p = base + from;
            x_max_p = base + __shfl_sync(CCL_FULL_MASK, last, from);
        }
        // Every other group goes out now.
        if (leader && rank != before && rank != pending)
            ccl_add_to_component(out, rank, area, sum_x, base + first, base + last, y);
    }
    if (lane == 0 && pending != NO_RANK)
        ccl_add_to_component(out, pending, area_p, sum_x_p, x_min_p, x_max_p, y);
    if (Canonical && background != nullptr) {
        const u32 area = __reduce_add_sync(CCL_FULL_MASK, bg_area);
        if (area == 0) return;
        const u64 sum_x = ccl_reduce_add_u64(CCL_FULL_MASK, bg_sum_x);
        const u32 x_min_c = __reduce_max_sync(CCL_FULL_MASK, bg_x_min_c);
        const u32 x_max = __reduce_max_sync(CCL_FULL_MASK, bg_x_max);
        if (lane == 0) {
            atomicAdd(&background->area, area);
            atomicAdd(&background->sum_x, sum_x);
            atomicAdd(&background->sum_y, (u64)y * area);
            atomicMax(&background->x_min, x_min_c);
            atomicMax(&background->y_min, ~y);
            atomicMax(&background->x_max, x_max);
            atomicMax(&background->y_max, y);
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
    ccl_accumulate(CclImage image, const u32* L, CclRootIndex roots, CclStatsOut out, u32 words_per_row,
                   u32 spans_per_row, u32 spans) {
    accumulate<false>(image, L, roots, out, nullptr, words_per_row, spans_per_row, spans);
}

// Step 4 over canonical labels (1 + the rank), with the background's
// features where `background` is not null (zeroed before).
extern "C" __global__ void __launch_bounds__(256)
    ccl_accumulate_labels(CclImage image, const u32* labels, CclStatsOut out, CclStats* background,
                          u32 words_per_row, u32 spans_per_row, u32 spans) {
    const CclRootIndex none = {nullptr, nullptr, 0};
    accumulate<true>(image, labels, none, out, background, words_per_row, spans_per_row, spans);
}

// A volume's features: its stats array set to empty components (area 0,
// minima at their largest), then the accumulation over its canonical
// labels, the volume given as the image of its rows.
extern "C" __global__ void __launch_bounds__(256)
    ccl_init_volume_stats(CclVolumeStatsOut out, u32 count) {
    const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= min(count, out.capacity)) return;
    CclVolumeStats s;
    s.area = 0;
    s.x_min = s.y_min = s.z_min = 0xffffffffu;
    s.x_max = s.y_max = s.z_max = 0;
    s.padding = 0;
    s.sum_x = s.sum_y = s.sum_z = 0;
    out.stats[i] = s;
}

// A volume's step 4 over its canonical labels (1 + the rank), the volume
// given as the image of its rows: a warp takes the span of
// ACCUMULATE_SPAN_WORDS words at one place in each of
// ACCUMULATE_VOLUME_ROWS consecutive rows, and its pending component gathers
// across the rows as across the words (its box and sums over them); what it
// flushes, and every other group, goes to the block's table of parts
// (ccl_volume_part_add), added to the records at the block's end. At and
// near the percolation threshold one component holds most voxels: flushed
// to its record once per row and span, it took a quarter million atomic
// updates of each feature per 512^3 volume (2.5 to 13.8 ms on the H200).
extern "C" __global__ void __launch_bounds__(256)
    ccl_accumulate_volume_labels(CclImage image, const u32* labels, CclVolumeStatsOut out,
                                 u32 words_per_row, u32 spans_per_row, u32 warps) {
    __shared__ CclVolumePart parts[CCL_VOLUME_PARTS];
    ccl_volume_parts_clear(parts);
    __syncthreads();
    const u32 warp = blockIdx.x * blockDim.y + threadIdx.y;
    const u32 lane = threadIdx.x, width = (u32)image.width;
    const u32 first_word = warp % spans_per_row * ACCUMULATE_SPAN_WORDS;
    const u32 end_word = min(first_word + ACCUMULATE_SPAN_WORDS, words_per_row);
    // A warp past the last one takes no rows but meets the block at its end.
    const u32 first_row = warp < warps ? warp / spans_per_row * ACCUMULATE_VOLUME_ROWS : 0u;
    const u32 end_row = warp < warps ? min(first_row + ACCUMULATE_VOLUME_ROWS, (u32)image.height) : 0u;
    // The pending component and what it has gathered, the same in every lane.
    u32 pending = NO_RANK, area_p = 0, x_min_p = 0, x_max_p = 0, y_min_p = 0, y_max_p = 0, z_min_p = 0,
        z_max_p = 0;
    u64 sum_x_p = 0, sum_y_p = 0, sum_z_p = 0;
    for (u32 row = first_row; row < end_row; ++row) {
        const u32 y = row % out.height, z = row / out.height;
        const u32* row_labels = labels + (size_t)row * width;
        for (u32 word = first_word; word < end_word; ++word) {
            const u32 base = word * 32u, x = base + lane;
            const u32 rank = x < width ? row_labels[x] - 1 : NO_RANK;  // background: 0 - 1
            const bool foreground = rank != NO_RANK;
            const u32 group = __match_any_sync(CCL_FULL_MASK, rank);
            const u32 first = __ffs(group) - 1, last = 31 - __clz(group), area = __popc(group);
            const u64 sum_x = (u64)base * area + __reduce_add_sync(group, lane);
            const bool leader = foreground && lane == first;
            // The group that continues the pending component joins it.
            const u32 before = pending;
            const u32 continues = __ballot_sync(CCL_FULL_MASK, leader && rank == pending);
            if (continues) {
                const int from = __ffs(continues) - 1;
                const u32 joined = __shfl_sync(CCL_FULL_MASK, area, from);
                area_p += joined;
                sum_x_p += __shfl_sync(CCL_FULL_MASK, sum_x, from);
                sum_y_p += (u64)y * joined;
                sum_z_p += (u64)z * joined;
                x_min_p = min(x_min_p, base + from);
                x_max_p = max(x_max_p, base + __shfl_sync(CCL_FULL_MASK, last, from));
                y_min_p = min(y_min_p, y);
                y_max_p = max(y_max_p, y);
                z_min_p = min(z_min_p, z);
                z_max_p = max(z_max_p, z);
            }
            // A pending component absent from this word gives way to the
            // last lane's (a large component stays pending while small ones
            // pass).
            const u32 last_rank = __shfl_sync(CCL_FULL_MASK, rank, 31);
            if (!continues && last_rank != NO_RANK) {
                if (lane == 0 && pending != NO_RANK)
                    ccl_volume_part_add(parts, out, pending, area_p, x_min_p, x_max_p, y_min_p, y_max_p, z_min_p,
                                        z_max_p, sum_x_p, sum_y_p, sum_z_p);
                const int from = __shfl_sync(CCL_FULL_MASK, first, 31);
                pending = last_rank;
                area_p = __shfl_sync(CCL_FULL_MASK, area, from);
                sum_x_p = __shfl_sync(CCL_FULL_MASK, sum_x, from);
                sum_y_p = (u64)y * area_p;
                sum_z_p = (u64)z * area_p;
                x_min_p = base + from;
                x_max_p = base + __shfl_sync(CCL_FULL_MASK, last, from);
                y_min_p = y_max_p = y;
                z_min_p = z_max_p = z;
            }
            // Every other group goes out now.
            if (leader && rank != before && rank != pending)
                ccl_volume_part_add(parts, out, rank, area, base + first, base + last, y, y, z, z, sum_x,
                                    (u64)y * area, (u64)z * area);
        }
    }
    if (lane == 0 && pending != NO_RANK)
        ccl_volume_part_add(parts, out, pending, area_p, x_min_p, x_max_p, y_min_p, y_max_p, z_min_p, z_max_p,
                            sum_x_p, sum_y_p, sum_z_p);
    __syncthreads();
    ccl_volume_parts_flush(parts, out);
}

// The canonical labels of a forest whose roots are ranked in `roots`: 0 for
// background, the rank of the pixel's root + 1 for foreground. `forest` and
// `labels` must be different buffers: a label written in place would be a
// rank, not a parent, and break the finds of other pixels.
extern "C" __global__ void __launch_bounds__(256)
    ccl_number_forest(CclImage image, const u32* __restrict__ forest, CclRootIndex roots, u32* labels,
                      u32 words) {
    u32 y, base;
    if (!ccl_warp_word(words, roots.words_per_row, &y, &base)) return;
    const u32 x = base + threadIdx.x, width = (u32)image.width;
    if (x >= width) return;
    u32 label = 0;
    if (ccl_row(image, y)[x]) {
        const u32 root = ccl_find_final(forest, y * width + x);
        label = ccl_root_label(roots, root % width, root / width);
    }
    labels[(size_t)y * width + x] = label;
}

// The label image of a forest: 0 for background, root + 1 for foreground.
// `forest` and `labels` may be the same buffer: a pixel rewritten with its
// root's label still points at an ancestor, so concurrent finds still end at
// the root.
extern "C" __global__ void __launch_bounds__(256)
    ccl_flatten(CclImage image, const u32* forest, u32* labels, u32 words_per_row, u32 words) {
    u32 y, base;
    if (!ccl_warp_word(words, words_per_row, &y, &base)) return;
    const u32 x = base + threadIdx.x, width = (u32)image.width;
    if (x >= width) return;
    const u32 i = y * width + x;
    labels[i] = ccl_row(image, y)[x] ? ccl_find_final(forest, i) + 1 : 0;
}

// After the ranking of a batch's labeling (roots.slice_rows rows per
// image): the components of each image, the roots ranked before the next
// image's first row less those before its own (one thread per image).
extern "C" __global__ void __launch_bounds__(256)
    ccl_slice_counts(CclRootIndex roots, const u32* components, u32 images, u32* counts) {
    const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= images) return;
    const u32 begin = ccl_slice_base(roots, i * roots.slice_rows);
    const u32 end = i + 1 < images ? ccl_slice_base(roots, (i + 1) * roots.slice_rows) : *components;
    counts[i] = end - begin;
}
