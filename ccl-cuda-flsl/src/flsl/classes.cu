// flsl/classes.cu: FLSL over class maps (ccl_cuda_flsl's FlslClasses,
// which ccl_cuda::backend::ClassLabeler takes for images, batches and
// volumes): neighbours are connected when they hold the same nonzero value,
// and the forest's nodes are runs of one value. Appended to flsl.cu (one
// module), whose run and pixel walks take the class map as two bit planes:
//
// - `bits`: 1 where the value is nonzero (the foreground, as a binary
//   image's bits);
// - `run_starts`: 1 where a run of one value starts (a nonzero value whose
//   left neighbour is the background, another value, or the row's edge).
//
// The run kernel ranks runs by `run_starts` and records, for each run, the
// first run above that it touches whatever its value; the union kernel then
// compares values and merges the run with those of its own value. (Linking
// each run in the run walk to a run above of its value, as a binary
// image's runs link, from two more planes of equal values above: the
// unions took 648 instead of 411 us and the packing 92 instead of 53 on an
// 8192^2 map of 4 classes, g = 4, 90 %, 8-conn.; ncu, H200. The links'
// paths then run up each component's rows, which the finds walk.) The
// slots, the root flags and the numbering are FLSL's: the smallest slot of
// a component is its first run in raster order, and each component's class
// is the value at its root run's first pixel.

// The two planes of the class map `values` (width values a row, packed,
// `words_per_row` = ceil(width / 32) words a row, `words` in all), a thread
// per word, and the runs of all rows added to `run_count`. A thread reads
// its 32 values with 16-byte loads where the row's words allow it (a
// 16-byte aligned, whole word), one at a time otherwise.
template <typename T> __device__ __forceinline__ void load_word_values(const T* p, u32 n, T (&v)[32]) {
    if (n == 32 && ((size_t)p & 15u) == 0) {
#pragma unroll
        for (u32 i = 0; i < 32 * sizeof(T) / 16; ++i) reinterpret_cast<uint4*>(v)[i] = reinterpret_cast<const uint4*>(p)[i];
    } else {
#pragma unroll
        for (u32 k = 0; k < 32; ++k) v[k] = k < n ? p[k] : T(0);
    }
}

// The two words of the planes of 32 values from p (n of them, the rest
// past the row: background), the first at column x0 of its row: the
// foreground and the run starts.
template <typename T> __device__ __forceinline__ uint2 pack_word(const T* p, u32 x0, u32 n) {
    __align__(16) T v[32];
    load_word_values(p, n, v);
    // The value left of the word (0 at the row's first word: the edge
    // starts a run as the background does).
    T previous = x0 ? p[-1] : T(0);
    u32 set = 0, starts = 0;
#pragma unroll
    for (u32 k = 0; k < 32; ++k) {
        const bool nonzero = v[k] != T(0);
        set |= (u32)nonzero << k;
        starts |= (u32)(nonzero && v[k] != previous) << k;
        previous = v[k];
    }
    return make_uint2(set, starts);
}

// Bytes, four to a register (ccl_device.cuh), as bits.cu packs a byte image:
// a run starts at a nonzero byte that differs from its left neighbour.
template <> __device__ __forceinline__ uint2 pack_word<u8>(const u8* p, u32 x0, u32 n) {
    u32 v[8];
    ccl_load_word_bytes(p, n, v);
    // Each byte's left neighbour, shifted in from the byte before.
    u32 left_byte = x0 ? p[-1] : 0u;
    u32 set = 0, starts = 0;
#pragma unroll
    for (u32 k = 0; k < 8; ++k) {
        const u32 here = v[k], left = (here << 8) | left_byte;
        left_byte = here >> 24;
        const u32 nonzero = ccl_nonzero_bytes(here);
        set |= ccl_byte_flags(nonzero) << (4 * k);
        starts |= ccl_byte_flags(nonzero & ccl_nonzero_bytes(here ^ left)) << (4 * k);
    }
    return make_uint2(set, starts);
}

template <typename T>
__device__ void pack_classes(const T* values, u32 width, u32 words_per_row, u32 words, u32* foreground,
                             u32* run_starts, u32* run_count) {
    const u32 word = blockIdx.x * blockDim.x + threadIdx.x;
    u32 starts = 0;
    if (word < words) {
        const u32 y = word / words_per_row, x0 = (word - y * words_per_row) * 32;
        const uint2 planes = pack_word<T>(values + (size_t)y * width + x0, x0, min(32u, width - x0));
        foreground[word] = planes.x;
        run_starts[word] = planes.y;
        starts = planes.y;
    }
    // One atomic a block: with one a warp on the single counter the kernel
    // took 74 us on an 8192^2 map, 39 with one a block (ncu, H200).
    __shared__ u32 block_runs;
    if (threadIdx.x == 0) block_runs = 0;
    __syncthreads();
    const u32 warp_runs = __reduce_add_sync(CCL_FULL_MASK, (u32)__popc(starts));
    if ((threadIdx.x & 31u) == 0 && warp_runs) atomicAdd(&block_runs, warp_runs);
    __syncthreads();
    if (threadIdx.x == 0 && block_runs) atomicAdd(run_count, block_runs);
}

// The unions of run j of row y: a run linked to runs above (its `extra` the
// first of them, from the run kernel) merges with each of them that holds
// its value. They follow one another in the row above from that first one
// until one begins past the run's last column (past the next one with
// 8-connectivity); a run's value is the one at its first pixel. `Loads`:
// where its finds load parents from (ccl_device.cuh).
//
// Each run above costs two dependent loads before its merge, its start and
// then its value there, so the next run's start is loaded before the
// merge with this one (the runs and the map are read-only here: __ldg).
template <typename T, bool Eight, CclParentLoads Loads = CCL_PARENTS_L2>
__device__ __forceinline__ void unite_class_run(FlslRuns t, const T* values, u32 width, u32 y, u32 j) {
    const u32 slot = y * t.capacity + j;
    const u32 first = t.extra[slot];
    if (first == UNLINKED) return;
    const u32 above_slot0 = (y - 1) * t.capacity, runs_above = t.count[y - 1];
    const u32* above_starts = &t.runs[above_slot0].x;  // run k's start at above_starts[2 k]
    const uint2 run = __ldg(t.runs + slot);
    u32 start = first < runs_above ? __ldg(above_starts + 2 * first) : ~0u;
    const T value = __ldg(values + (size_t)y * width + run.x);
    const T* above_values = values + (size_t)(y - 1) * width;
    const u32 reach = run.y + (Eight ? 1u : 0u);
    u32 root = slot;
    for (u32 k = first; start <= reach; ++k) {
        const T above = __ldg(above_values + start);
        const u32 next = k + 1 < runs_above ? __ldg(above_starts + 2 * (k + 1)) : ~0u;
        if (above == value) root = ccl_merge_root<Loads>(t.parent, root, above_slot0 + k);
        start = next;
    }
}

// One image's unions: all rows at once (flsl_group_runs: a thread per run),
// parents through L1 as an image's binary unions load them (unite_run in
// flsl.cu; why a stale parent is safe: "The forest contract",
// docs/design.md): 769 -> 698 us on an 8192^2 map of 128-pixel class
// regions at g = 1, 90 %, 8-conn. (ncu, H200,
// bench/2026-11-29-h200-keep-and-class-loads).
template <typename T, bool Eight> __device__ void unite_class_runs(FlslRuns t, const T* values, u32 width) {
    flsl_group_runs(t, [=](u32 y, u32 j) { unite_class_run<T, Eight, CCL_PARENTS_L1>(t, values, width, y, j); });
}

// A batch's unions in bands, as flsl_band_unions joins a binary batch's
// (flsl.cu, "Slices in bands", FlslBand): a warp per band of band_height
// rows of an image, row after row, so that the finds of a row walk the
// short paths the rows above it left; then each run of the band points at
// its band root.
// The runs of a band's first row are left to unite_class_band_rows.
template <typename T, bool Eight>
__device__ void unite_class_bands(FlslRuns t, const T* values, u32 width, FlslBands bands) {
    const u32 band = blockIdx.x * blockDim.y + threadIdx.y;
    if (band >= bands.count) return;
    const FlslBand b = flsl_band(t, bands, band);
    flsl_band_rows_in_order(b, [&](u32 row, u32 j) {
        unite_class_run<T, Eight, CCL_PARENTS_L1>(t, values, width, row, j);
    });
    // `extra` stays: the joins read the first run above of a band's first row.
    flsl_band_runs(b, [&](u32 row, u32 j) {
        const u32 slot = row * t.capacity + j;
        const u32 root = ccl_find_halving<1, CCL_PARENTS_L1>(t.parent, slot);
        if (root != slot) t.parent[slot] = root + 1;
    });
}

// Then the first row of each band after an image's first, with the band
// above's last row: a warp per such row, a lane per run, whose finds take
// a step or two to the band roots.
template <typename T, bool Eight>
__device__ void unite_class_band_rows(FlslRuns t, const T* values, u32 width, FlslBands bands) {
    const u32 warp = blockIdx.x * blockDim.y + threadIdx.y;
    if (warp >= bands.joined) return;
    const u32 row = flsl_joined_band_row(bands, warp);
    const u32 runs = t.count[row];
    for (u32 j = threadIdx.x; j < runs; j += 32) unite_class_run<T, Eight>(t, values, width, row, j);
}

// The runs of row `row` begun before column x (0 <= x <= width): the run
// walk's count before x's word (word_runs) and the starts below x in it.
__device__ __forceinline__ u32 class_runs_begun_before(CclBits run_starts, FlslRuns t, u32 row, u32 x) {
    const u32 w = x / 32, p = x % 32;
    const u32 starts = ccl_bits_word(run_starts, (int)row, (int)w);
    return t.word_runs[row * t.row_words + w] + (u32)__popc(starts & ((1u << p) - 1u));
}

// Merges `root` (an ancestor of a run of `value` spanning columns `run`)
// with the runs of row `other` of its value within `reach` columns of it,
// and returns the root it reached. Which runs of `other` touch is two
// counts on the start plane, as the binary joins count (unite_touching in
// flsl.cu): those begun before hi + 1, less those ended before lo. A run
// points at its band root (the band unions left it there, and the merges
// store into band roots alone), so `last` skips the repeats of one band's
// runs, which a merge would find joined already. Each new pair of the
// run's band root and an ancestor is merged by merge_new_pair (flsl.cu), as
// the binary joins merge theirs: the rows of a band in one slice meet the
// same band roots in the slice before, row after row.
template <typename T>
__device__ __forceinline__ u32 unite_class_touching(CclBits bits, CclBits run_starts, FlslRuns t, const T* values,
                                                    u32 width, unsigned long long* merged, u32 band_root, u32 root,
                                                    uint2 run, T value, u32 other, u32 reach, u32* last) {
    const u32 lo = run.x >= reach ? run.x - reach : 0;
    const u32 hi = min(run.y + reach, width - 1);
    const bool lo_inside_run = bits_pixel(bits, other, (int)lo) && !bits_pixel(run_starts, other, (int)lo);
    const u32 first = class_runs_begun_before(run_starts, t, other, lo) - (lo_inside_run ? 1u : 0u);
    const u32 end = class_runs_begun_before(run_starts, t, other, hi + 1);
    const u32 slot0 = other * t.capacity;
    const T* other_values = values + (size_t)other * width;
    for (u32 k = first; k < end; ++k) {
        if (other_values[t.runs[slot0 + k].x] != value) continue;
        const u32 ancestor = __ldcg(t.parent + slot0 + k) - 1;
        if (ancestor == *last) continue;
        *last = ancestor;
        root = merge_new_pair(t.parent, merged, band_root, root, ancestor);
    }
    return root;
}

// A volume's joins after its band unions (unite_class_bands), a warp per
// row, a lane per run: the first row of each band after its slice's first
// with the band above (the runs above the run kernel found, as a batch's
// band joins), and every row of a slice after the first with the slice
// before: its row y within `face_reach` columns, rows y - 1 and y + 1
// within `edge_reach` (negative: not at all, 6-connectivity), merging with
// each run there of its own value.
template <typename T, bool Eight>
__device__ void unite_class_volume_rows(CclBits bits, CclBits run_starts, FlslRuns t, const T* values, u32 width,
                                        FlslBands bands, int face_reach, int edge_reach) {
    __shared__ unsigned long long merged[MERGED_PAIRS];
    for (u32 i = threadIdx.y * 32 + threadIdx.x; i < MERGED_PAIRS; i += blockDim.x * blockDim.y) merged[i] = NO_PAIR;
    __syncthreads();
    const u32 row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= t.rows) return;
    const u32 slice_height = bands.slice_height, y = row % slice_height;
    const bool below_band = y != 0 && y % bands.band_height == 0, behind_slice = row >= slice_height;
    if (!below_band && !behind_slice) return;
    const u32 runs = t.count[row];
    for (u32 j = threadIdx.x; j < runs; j += 32) {
        if (below_band) unite_class_run<T, Eight>(t, values, width, row, j);
        if (!behind_slice) continue;
        const u32 slot = row * t.capacity + j;
        const uint2 run = t.runs[slot];
        const T value = values[(size_t)row * width + run.x];
        // The run's band root (its parent, or itself where it is one).
        const u32 band_root = __ldcg(t.parent + slot) - 1;
        u32 root = band_root, last = NO_RANK;
        for (int dy = -1; dy <= 1; ++dy) {
            if (dy != 0 && (edge_reach < 0 || (dy < 0 && y == 0) || (dy > 0 && y + 1 == slice_height))) continue;
            const u32 reach = (u32)(dy == 0 ? face_reach : edge_reach);
            root = unite_class_touching<T>(bits, run_starts, t, values, width, merged, band_root, root, run,
                                           value, row - slice_height + dy, reach, &last);
        }
    }
}

// Labeling, step 1, with the classes (flsl_group_runs: a thread per run):
// each run's canonical label in `extra`, as FLSL's label_runs<true> writes
// it, and each root run's value at its first pixel into `classes` by its
// component's rank (every rank of the map, a batch's too), which
// write_classes copies out once the caller has a place for them. A pass of
// its own, a thread per run that looked its root's rank up again, took 200
// of the 1511 us of an 8192^2 map at g = 1, 60 % (ncu, H200).
template <typename T>
__device__ void number_class_runs(FlslRuns t, CclRootIndex roots, u32 width, const T* values, T* classes) {
    flsl_group_runs(t, [=](u32 y, u32 j) {
        const u32 slot = y * t.capacity + j;
        const u32 root = ccl_find_final(t.parent, slot);
        u32 x;
        const u32 root_row = flsl_slot_row(t, root, &x);
        const u32 rank = ccl_root_rank(roots, x, root_row);
        t.extra[slot] = ccl_rank_label(roots, rank, root_row);
        if (root == slot) classes[rank] = values[(size_t)y * width + t.runs[slot].x];
    });
}

// ------------------------------------------------------------ entry points

#define FLSL_CLASS_RUN_KERNELS(NAME, EIGHT, SEG)                                                       \
    extern "C" __global__ void __launch_bounds__(32 * FLSL_CLASS_RUN_WARPS)                            \
        NAME(CclBits bits, CclBits run_starts, FlslRuns t, u32 slice_height) {                          \
        find_runs<EIGHT, SEG, true>(bits, run_starts, t, nullptr, slice_height, slice_height);        \
    }
FLSL_CLASS_RUN_KERNELS(flsl_class_runs_c4, false, 32)
FLSL_CLASS_RUN_KERNELS(flsl_class_runs_c8, true, 32)
FLSL_CLASS_RUN_KERNELS(flsl_class_runs_c4_pairs, false, 16)
FLSL_CLASS_RUN_KERNELS(flsl_class_runs_c8_pairs, true, 16)

extern "C" __global__ void __launch_bounds__(256)
    flsl_class_label_pixels(CclBits bits, CclBits run_starts, FlslRuns t, u32* labels) {
    label_pixels<u32, true>(bits, run_starts, t, labels);
}

// A batch's band kernels of one connectivity and value size.
#define FLSL_CLASS_BAND_KERNELS(SUFFIX, T, EIGHT)                                                      \
    extern "C" __global__ void __launch_bounds__(256)                                                  \
        flsl_class_band_unions_##SUFFIX(FlslRuns t, const T* values, u32 width, FlslBands bands) {     \
        unite_class_bands<T, EIGHT>(t, values, width, bands);                                          \
    }                                                                                                  \
    extern "C" __global__ void __launch_bounds__(256)                                                  \
        flsl_class_band_joins_##SUFFIX(FlslRuns t, const T* values, u32 width, FlslBands bands) {      \
        unite_class_band_rows<T, EIGHT>(t, values, width, bands);                                      \
    }

// A volume's joins of one in-plane connectivity and value size (c4: 6,
// c8: 18 and 26, whose reaches the host passes).
#define FLSL_CLASS_VOLUME_KERNELS(SUFFIX, T, EIGHT)                                                    \
    extern "C" __global__ void __launch_bounds__(256) flsl_class_volume_joins_##SUFFIX(                \
        CclBits bits, CclBits run_starts, FlslRuns t, const T* values, u32 width, FlslBands bands,     \
        int face_reach, int edge_reach) {                                                              \
        unite_class_volume_rows<T, EIGHT>(bits, run_starts, t, values, width, bands, face_reach,       \
                                          edge_reach);                                                 \
    }

// The kernels of one value size (flsl_class_unions_c8_2: 8-connectivity,
// 2-byte values).
#define FLSL_CLASS_KERNELS(SUFFIX, T)                                                                  \
    extern "C" __global__ void __launch_bounds__(256) flsl_pack_classes_##SUFFIX(                      \
        const T* values, u32 width, u32 words_per_row, u32 words, u32* foreground, u32* run_starts,    \
        u32* run_count) {                                                                              \
        pack_classes<T>(values, width, words_per_row, words, foreground, run_starts, run_count);       \
    }                                                                                                  \
    extern "C" __global__ void __launch_bounds__(256)                                                  \
        flsl_class_unions_c4_##SUFFIX(FlslRuns t, const T* values, u32 width) {                        \
        unite_class_runs<T, false>(t, values, width);                                                  \
    }                                                                                                  \
    extern "C" __global__ void __launch_bounds__(256)                                                  \
        flsl_class_unions_c8_##SUFFIX(FlslRuns t, const T* values, u32 width) {                        \
        unite_class_runs<T, true>(t, values, width);                                                   \
    }                                                                                                  \
    FLSL_CLASS_BAND_KERNELS(c4_##SUFFIX, T, false)                                                     \
    FLSL_CLASS_BAND_KERNELS(c8_##SUFFIX, T, true)                                                      \
    FLSL_CLASS_VOLUME_KERNELS(c4_##SUFFIX, T, false)                                                   \
    FLSL_CLASS_VOLUME_KERNELS(c8_##SUFFIX, T, true)                                                    \
    extern "C" __global__ void __launch_bounds__(256) flsl_number_class_runs_##SUFFIX(                 \
        FlslRuns t, CclRootIndex roots, u32 width, const T* values, T* classes) {                      \
        number_class_runs<T>(t, roots, width, values, classes);                                        \
    }

FLSL_CLASS_KERNELS(1, u8)
FLSL_CLASS_KERNELS(2, unsigned short)
FLSL_CLASS_KERNELS(4, u32)
FLSL_CLASS_KERNELS(8, u64)
