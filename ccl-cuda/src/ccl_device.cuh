// ccl_device.cuh: the device-side helpers shared by every ccl kernel.
//
// NVRTC has no standard headers, so the runtime (ccl-cuda's compile.rs)
// prepends this file to each kernel module instead of an #include, after the
// #defines of the constants that Rust declares (CCL_ROOT_GROUP_WORDS, and the
// module's own, such as CCL_COUNT_UPDATES).
//
// The forest contract, shared by every labeler and the shared analysis back
// end (features.cu): a label image L over a width x height image, packed
// (pixel (x, y) is index i = y * width + x, whatever the input's pitch), is
// a union-find forest stored in place, 1-based: for a foreground pixel i,
// L[i] == j + 1 means "the parent of i is pixel j", j a pixel of the same
// component; following parents reaches the component's root r, which holds
// L[r] == r + 1 and is the component's first pixel in raster order (merges
// link the larger root under the smaller). Background entries are never
// read. Flat final labels (1 + the raster index of the component's first
// pixel, 0 for background) are such a forest too.

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#define CCL_FULL_MASK 0xffffffffu

// A divisor fixed for a launch (ccl_cuda::runtime::Divisor, which derives
// the multiplier and shift): n / divisor by a multiply and shifts, exact for
// every 32-bit n, where a division by a value known only at run time is a
// dozen instructions or more (per run of FLSL's last pass, three of them).
// A power of two has multiplier 0 and shifts alone.
struct CclDivisor {
    u32 divisor;
    u32 multiplier;
    u32 shift;
};

__device__ __forceinline__ u32 ccl_divide(CclDivisor d, u32 n) {
    if (d.multiplier == 0) return n >> d.shift;
    const u32 t = __umulhi(n, d.multiplier);
    return (t + ((n - t) >> 1)) >> d.shift;
}

// How many of the ascending `values[0..count)` are below `value` (its lower
// bound, a binary search): the index where `value` is or would be. The strip
// labeler finds its continued labels so (ccl-scale's renumber.cu and
// columns.cu).
__device__ __forceinline__ u32 ccl_count_below(const u32* values, u32 count, u32 value) {
    u32 low = 0, high = count;
    while (low < high) {
        const u32 middle = low + (high - low) / 2;
        if (values[middle] < value) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low;
}

// The image argument of most kernels (ccl_cuda::ImageArgs): `height` rows of
// `width` bytes, rows `pitch` bytes apart, nonzero = foreground.
struct CclImage {
    const u8* pixels;
    int pitch;
    int width;
    int height;
};

__device__ __forceinline__ const u8* ccl_row(CclImage image, int y) {
    return image.pixels + (size_t)y * image.pitch;
}

// Whether pixel (x, y) is foreground; pixels outside the image are background.
__device__ __forceinline__ bool ccl_pixel(CclImage image, int x, int y) {
    return x >= 0 && y >= 0 && x < image.width && y < image.height && ccl_row(image, y)[x] != 0;
}

// A packed bit image (ccl_cuda::backend::BitImageArgs, made by the bit
// front end, bits.cu): bit p of word w of row y is pixel (32 w + p, y), 1 =
// foreground; `words_per_row` = ceil(width / 32) words per row, no padding;
// the bits of the last word at or past `width` are 0.
struct CclBits {
    const u32* bits;
    u32 words_per_row;
    u32 width;
    u32 height;
};

__device__ __forceinline__ const u32* ccl_bits_row(CclBits bits, u32 y) {
    return bits.bits + (size_t)y * bits.words_per_row;
}

// Word w of row y (pixels 32 w .. 32 w + 31); 0 outside the image (y or w
// past the end, or negative as int: the row above the first, the word
// before the first), so that edge words need no special case.
__device__ __forceinline__ u32 ccl_bits_word(CclBits bits, int y, int w) {
    if (y < 0 || w < 0 || (u32)y >= bits.height || (u32)w >= bits.words_per_row) return 0;
    return ccl_bits_row(bits, (u32)y)[w];
}

// ------------------------------------------------- bytes, four to a register
//
// Byte maps read 32 bytes a thread, as eight u32 (the bit front end,
// bits.cu, and the class planes of flsl/classes.cu). Byte k of a u32 is the
// byte at the lower address k (CUDA is little-endian).

// 0x80 in each byte of `v` that is nonzero, 0 elsewhere: (b & 0x7f) + 0x7f
// has bit 7 set exactly when the low seven bits are not all 0 and stays
// below 0x100 (no carry into the next byte); or-ing b adds its own bit 7.
__device__ __forceinline__ u32 ccl_nonzero_bytes(u32 v) {
    return (((v & 0x7f7f7f7fu) + 0x7f7f7f7fu) | v) & 0x80808080u;
}

// Bits 7, 15, 23, 31 of `high_bits` (a mask such as ccl_nonzero_bytes's) as
// bits 0..3: h * 0x00204081 (= h (1 + 2^7 + 2^14 + 2^21)) puts bit 7 at 28,
// bit 15 at 29, bit 23 at 30 and bit 31 at 31; the other partial products
// land on distinct lower bits (7, 14, 21; 15, 22; 23) or past bit 31, so no
// carry reaches bits 28..31.
__device__ __forceinline__ u32 ccl_byte_flags(u32 high_bits) { return (high_bits * 0x00204081u) >> 28; }

// The four foreground bits of the 4 bytes of `v`.
__device__ __forceinline__ u32 ccl_nibble(u32 v) { return ccl_byte_flags(ccl_nonzero_bytes(v)); }

// The 32 bytes from p, n of them in the row (the rest read as 0), as eight
// u32: two 16-byte loads where p is 16-byte aligned and the word whole,
// eight 4-byte loads where it is 4-byte aligned, bytes otherwise. The wide
// loads never read past p's own 32 bytes.
__device__ __forceinline__ void ccl_load_word_bytes(const u8* p, u32 n, u32 (&v)[8]) {
    if (n >= 32 && ((size_t)p & 15u) == 0) {
        const uint4 a = *(const uint4*)p, b = *(const uint4*)(p + 16);
        v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
    } else if (n >= 32 && ((size_t)p & 3u) == 0) {
#pragma unroll
        for (u32 k = 0; k < 8; ++k) v[k] = ((const u32*)p)[k];
    } else {
#pragma unroll
        for (u32 k = 0; k < 8; ++k) v[k] = 0;
        for (u32 i = 0; i < n && i < 32; ++i) v[i / 4] |= (u32)p[i] << (8 * (i % 4));
    }
}

// The rows of a 2-D launch (ccl_cuda::tile_grid) this thread handles: its
// grid has at most 65535 rows of blocks, so taller images take several.
#define CCL_FOR_EACH_ROW(ROW, ROWS)                                      \
    for (int ROW = blockIdx.y * blockDim.y + threadIdx.y; ROW < (ROWS); \
         ROW += gridDim.y * blockDim.y)

// ---------------------------------------------------------------- union-find
//
// `Base` is what a stored parent adds to the parent's index: 1 for ccl's
// forests (so that 0 can mean background), 0 for forests of raw indices
// such as NPP's labels.

// Where a find loads parents from. CCL_PARENTS_L2 (ld.global.cg) bypasses
// L1, which is not coherent across multiprocessors, and always reads the
// latest parent. CCL_PARENTS_L1 (ld.global.ca) may read one that blocks on
// other multiprocessors have replaced since, and is correct all the same: a
// node once linked is never a root again, so a stale parent is a node its
// set held then, and every link that replaces a parent (the atomicMin of
// ccl_merge_linking and ccl_merge_root, or a halving store) is followed by
// the merge of the replaced parent with the same root. So a stale read is
// one made earlier, which the forest's atomics already allow; the atomics'
// returned values are current, and each retry moves to a smaller index, so
// the loops end. A stale parent costs a retry; an L1 hit spares the round
// trip to L2 of finds that pass the same roots again and again, where a
// warp or block holds the rows it unites (FLSL's unions, flsl.cu). The
// papers' variants keep L2.
enum CclParentLoads { CCL_PARENTS_L2, CCL_PARENTS_L1 };

template <CclParentLoads Loads> __device__ __forceinline__ u32 ccl_load_parent(const u32* p) {
    return Loads == CCL_PARENTS_L1 ? __ldca(p) : __ldcg(p);
}

// Root of pixel i.
template <u32 Base = 1, CclParentLoads Loads = CCL_PARENTS_L2>
__device__ __forceinline__ u32 ccl_find(const u32* L, u32 i) {
    u32 parent = ccl_load_parent<Loads>(L + i) - Base;
    while (parent != i) {
        i = parent;
        parent = ccl_load_parent<Loads>(L + i) - Base;
    }
    return i;
}

// ccl_find that halves the path it walks (each node passed points at its
// grandparent), for a caller that may store into the forest: the paths of
// a forest whose nodes are linked row after row grow with the rows. Storing
// an ancestor is safe beside the atomicMin links of ccl_merge_linking: a
// parent is always a smaller index, and a link that the store overwrites
// was followed by the merge of the old parent with the same root.
template <u32 Base = 1, CclParentLoads Loads = CCL_PARENTS_L2>
__device__ __forceinline__ u32 ccl_find_halving(u32* L, u32 i) {
    u32 parent = ccl_load_parent<Loads>(L + i) - Base;
    while (parent != i) {
        const u32 grandparent = ccl_load_parent<Loads>(L + parent) - Base;
        if (grandparent == parent) return parent;
        L[i] = grandparent + Base;
        i = grandparent;
        parent = ccl_load_parent<Loads>(L + i) - Base;
    }
    return i;
}

// Root of pixel i once the forest no longer changes (after the merge
// kernels): plain cached loads.
template <u32 Base = 1>
__device__ __forceinline__ u32 ccl_find_final(const u32* L, u32 i) {
    u32 parent = L[i] - Base;
    while (parent != i) {
        i = parent;
        parent = L[i] - Base;
    }
    return i;
}

// Joins the trees of pixels a and b (Hennequin et al., DASIP 2018, Algorithm 2;
// the atomicMin splice of Playne & Hawick). A failed atomicMin means the
// root we saw got a parent meanwhile: continue from the value it held, so no
// link is ever lost.
//
// ccl_merge_linking returns the root it linked (a root until then, whose
// link is the one that succeeded), or CCL_JOINED where a and b were in one
// tree already: each root is linked once, so a caller that keeps a flag per
// root clears exactly that one.
#define CCL_JOINED 0xffffffffu

template <u32 Base = 1, CclParentLoads Loads = CCL_PARENTS_L2>
__device__ __forceinline__ u32 ccl_merge_linking(u32* L, u32 a, u32 b) {
    while (true) {
        a = ccl_find<Base, Loads>(L, a);
        b = ccl_find<Base, Loads>(L, b);
        if (a == b) return CCL_JOINED;
        if (a > b) { u32 t = a; a = b; b = t; }
        u32 old = atomicMin(L + b, a + Base);
        if (old == b + Base) return b;
        b = old - Base;
    }
}

template <u32 Base = 1, CclParentLoads Loads = CCL_PARENTS_L2>
__device__ __forceinline__ void ccl_merge(u32* L, u32 a, u32 b) {
    ccl_merge_linking<Base, Loads>(L, a, b);
}

// ccl_merge that returns a root of the joined tree (the smaller of the two
// roots it saw), so that a caller merging one node with many starts each
// merge from there instead of walking the node's path again.
template <CclParentLoads Loads = CCL_PARENTS_L2>
__device__ __forceinline__ u32 ccl_merge_root(u32* L, u32 a, u32 b) {
    while (true) {
        a = ccl_find<1, Loads>(L, a);
        b = ccl_find<1, Loads>(L, b);
        if (a == b) return a;
        if (a > b) { u32 t = a; a = b; b = t; }
        u32 old = atomicMin(L + b, a + 1);
        if (old == b + 1) return a;
        b = old - 1;
    }
}

// ------------------------------------------------- shared-memory forests
//
// A block's forest in shared memory (the class labeler's tiles, the
// `tiles` variant): raw indices, a root is its own parent, the smaller root
// wins (atomicMin, as ccl_merge does in global memory).

// Root of node i (volatile: other threads link roots meanwhile).
__device__ __forceinline__ u32 ccl_tile_find(const volatile u32* parent, u32 i) {
    u32 p = parent[i];
    while (p != i) {
        i = p;
        p = parent[i];
    }
    return i;
}

// ccl_tile_find that halves the path it walks, for forests whose nodes all
// unite at once (their paths grow across the tile): each node passed points
// at its grandparent, by an atomicCAS that keeps the shortcut only while the
// node's parent is still the one read (safe beside the atomicMin links, as
// for ccl_find_halving).
__device__ __forceinline__ u32 ccl_tile_find_halving(volatile u32* parent, u32 i) {
    u32 p = parent[i];
    while (p != i) {
        const u32 grandparent = parent[p];
        if (grandparent == p) return p;
        atomicCAS((u32*)(parent + i), p, grandparent);
        i = grandparent;
        p = parent[i];
    }
    return i;
}

// ccl_merge in a shared-memory forest; `Halving` finds with
// ccl_tile_find_halving. Returns the root that the two classes shared or
// that the other was linked under: a node of the merged class one step or
// so from its root, where a caller merging one node with several others
// starts its next find.
template <bool Halving>
__device__ __forceinline__ u32 ccl_tile_merge(u32* parent, u32 a, u32 b) {
    while (true) {
        a = Halving ? ccl_tile_find_halving(parent, a) : ccl_tile_find(parent, a);
        b = Halving ? ccl_tile_find_halving(parent, b) : ccl_tile_find(parent, b);
        if (a == b) return a;
        if (a > b) {
            const u32 t = a;
            a = b;
            b = t;
        }
        const u32 old = atomicMin(parent + b, a);
        if (old == b) return a;
        b = old;
    }
}

// ------------------------------------------------------- segment distances

__device__ __forceinline__ bool ccl_bit(u32 mask, int p) { return (mask >> p) & 1u; }
__device__ __forceinline__ bool ccl_bit(u64 mask, int p) { return (mask >> p) & 1ull; }

// Position of the first pixel of the run of ones of `mask` that contains bit
// p, clipped to the word (0 when the run reaches bit 0). Hennequin et al.'s
// Algorithm 1 (32-bit) and Algorithm 7 (64-bit): the start distance is
// p - start.
__device__ __forceinline__ int ccl_run_start(u32 mask, int p) {
    u32 at_or_below = 0xffffffffu >> (31 - p);
    u32 zeros = ~mask & at_or_below;
    return zeros ? 32 - __clz(zeros) : 0;
}
__device__ __forceinline__ int ccl_run_start(u64 mask, int p) {
    u64 at_or_below = 0xffffffffffffffffull >> (63 - p);
    u64 zeros = ~mask & at_or_below;
    return zeros ? 64 - __clzll(zeros) : 0;
}

// Position of the last pixel of the run of ones that contains bit p, clipped
// to the word.
__device__ __forceinline__ int ccl_run_end(u32 mask, int p) {
    u32 zeros_above = ~(mask >> p);
    return zeros_above ? p + __ffs(zeros_above) - 2 : 31;
}
__device__ __forceinline__ int ccl_run_end(u64 mask, int p) {
    u64 zeros_above = ~(mask >> p);
    return zeros_above ? p + __ffsll((long long)zeros_above) - 2 : 63;
}

// ------------------------------------------------------------- warp masks

// Lanes below this one: bit l set for every lane l < this lane.
__device__ __forceinline__ u32 ccl_lanemask_lt() { return (1u << (threadIdx.x & 31u)) - 1u; }

// The word of 32 pixels a warp of a per-word kernel takes (blockDim 32 x
// warps; word w is row w / words_per_row, columns 32 (w % words_per_row)
// and on); false past the last word, so that the whole warp returns
// together and the warp intrinsics after it see every lane.
__device__ __forceinline__ bool ccl_warp_word(u64 words, u32 words_per_row, u32* y, u32* base) {
    const u64 word = (u64)blockIdx.x * blockDim.y + threadIdx.y;
    if (word >= words) return false;
    *y = (u32)(word / words_per_row);
    *base = (u32)(word % words_per_row) * 32u;
    return true;
}
//
// For kernels that give a warp one word of BITS = 32 or 64 pixels of a row:
// lane l holds the pixels at l + 32 k, and bit p of a word mask is pixel
// base + p. Pixels outside the image are background, so every warp
// intrinsic below runs with the full mask on every lane.

__device__ __forceinline__ int ccl_popc(u32 v) { return __popc(v); }
__device__ __forceinline__ int ccl_popc(u64 v) { return __popcll(v); }

// The BITS-pixel word of row y of `bits` whose first column is `base` (a
// multiple of BITS, negative for the word before the first): bit p is pixel
// base + p; 0 outside the image. A 64-pixel word is two words of the bit
// image, low half first.
__device__ __forceinline__ u32 ccl_bits_mask(CclBits bits, int y, int base, u32) {
    return ccl_bits_word(bits, y, base >> 5);
}
__device__ __forceinline__ u64 ccl_bits_mask(CclBits bits, int y, int base, u64) {
    return (u64)ccl_bits_word(bits, y, base >> 5) | (u64)ccl_bits_word(bits, y, (base >> 5) + 1) << 32;
}
template <typename Mask> __device__ __forceinline__ Mask ccl_bits_mask(CclBits bits, int y, int base) {
    return ccl_bits_mask(bits, y, base, Mask());
}

// ------------------------------------------------------- component features

// One component's features as the host reads them (ccl_cuda::DeviceStats).
// y_min needs no atomic: a component's root is its first pixel in raster
// order, so y_min is the root's row.
struct CclStats {
    u32 area;
    u32 x_min;
    u32 y_min;
    u32 x_max;
    u32 y_max;
    u32 padding;
    u64 sum_x;
    u64 sum_y;
};

// The root count's step 1 (features.cu's ccl_count_roots and the variants'
// own): `roots` roots of root word `word` (where `counted`) added to
// group_count per group of CCL_ROOT_GROUP_WORDS words. The lanes of one group
// add up and the lowest adds the sum: one atomic per group a warp reaches,
// not one per word (the whole warp calls it).
__device__ __forceinline__ void ccl_add_group_roots(u32* group_count, u64 word, bool counted, u32 roots) {
    const u64 group = counted ? word / CCL_ROOT_GROUP_WORDS : ~0ull;
    const u32 same = __match_any_sync(CCL_FULL_MASK, group);
    const u32 sum = __reduce_add_sync(same, counted ? roots : 0u);
    if (counted && sum && (threadIdx.x & 31u) == (u32)__ffs(same) - 1) atomicAdd(group_count + group, sum);
}

// Where each component's features go (ccl_cuda::features): bit b of word w
// of `bits` flags a root at row w / words_per_row, column
// 32 (w % words_per_row) + b; `offsets[w]` counts the roots of the words
// before w. A root's rank among all roots in raster order is its
// component's index in the stats array. A batch of images labeled as the
// rows of one image numbers each image apart: with `slice_rows` (the rows
// of one image; 0 for a single image or a volume) a root's label is its
// rank among the roots of its own image, from ccl_root_label. With `remap`
// (a labeling that keeps only what a clean-up keeps, ccl_cuda::backend::
// filter), ccl_root_label reads each root's label there by its rank (0
// where its component is removed), so that the variant's last pass writes
// the clean-up's labels with no pass of its own; null otherwise. With
// `largest` (one image's largest component alone: its selection key, whose
// low word is the complement of the kept rank, 0 where nothing is kept)
// the kept rank's label is 1 and every other's 0, with no table per rank;
// null otherwise.
struct CclRootIndex {
    const u32* bits;
    const u32* offsets;
    u32 words_per_row;
    u32 slice_rows;
    const u32* remap;
    const unsigned long long* largest;
    CclDivisor slice_divisor;  // slice_rows (1 without slices), to divide rows by
};

__device__ __forceinline__ u32 ccl_root_rank(CclRootIndex roots, u32 x, u32 y) {
    const u32 word = y * roots.words_per_row + x / 32;
    return roots.offsets[word] + __popc(roots.bits[word] & ((1u << (x & 31u)) - 1u));
}

// The roots ranked before the first row of the image that holds row y (0
// without slices): offsets[w] counts the roots before word w.
__device__ __forceinline__ u32 ccl_slice_base(CclRootIndex roots, u32 y) {
    if (roots.slice_rows == 0) return 0;
    return roots.offsets[(size_t)(ccl_divide(roots.slice_divisor, y) * roots.slice_rows) * roots.words_per_row];
}

// A largest=1 clean-up's selection key of a component in range: its area in
// the high word and the complement of its rank in the low word, so that the
// largest key is the largest area's, the first in raster order among equals.
// Every such key is above 0, the key of a component out of range.
__device__ __forceinline__ unsigned long long ccl_largest_key(u32 area, u32 rank) {
    return ((unsigned long long)area << 32) | (unsigned long long)(~rank);
}

// Whether `rank` is the component a largest=1 clean-up keeps, from the
// largest selection key of its image.
__device__ __forceinline__ bool ccl_is_kept_largest(unsigned long long largest_key, u32 rank) {
    return largest_key != 0 && rank == ~(u32)largest_key;
}

// The canonical label of the component whose root is at (x, y) of the root
// layout (ccl_rank_label: of the component of `rank`, whose root is in row
// y): its rank + 1, counted in the root's own image of a batch; with a
// remap, the clean-up's label of that rank; with the largest alone, 1 for
// its rank and 0 for every other.
__device__ __forceinline__ u32 ccl_rank_label(CclRootIndex roots, u32 rank, u32 y) {
    if (roots.remap != nullptr) return roots.remap[rank];
    if (roots.largest != nullptr) {
        return ccl_is_kept_largest(*roots.largest, rank) ? 1u : 0u;
    }
    return rank - ccl_slice_base(roots, y) + 1;
}

__device__ __forceinline__ u32 ccl_root_label(CclRootIndex roots, u32 x, u32 y) {
    return ccl_rank_label(roots, ccl_root_rank(roots, x, y), y);
}

// The stats array and how many entries it holds: components ranked past
// the capacity are counted but not stored (the host grows the array to the
// count it reads back and runs again).
struct CclStatsOut {
    CclStats* stats;
    u32 capacity;
};

// Adds a run of `area` pixels of row y (x_min..x_max, columns summing to
// sum_x) to the component of rank `rank`.
__device__ __forceinline__ void ccl_add_to_component(CclStatsOut out, u32 rank, u32 area, u64 sum_x,
                                                     u32 x_min, u32 x_max, u32 y) {
    if (rank >= out.capacity) return;
    CclStats* s = out.stats + rank;
    atomicAdd(&s->area, area);
    atomicAdd(&s->sum_x, sum_x);
    atomicAdd(&s->sum_y, (u64)y * area);
    atomicMin(&s->x_min, x_min);
    atomicMax(&s->x_max, x_max);
    atomicMax(&s->y_max, y);
}

// One component of a volume as the host reads it (ccl_cuda::DeviceVolumeStats).
struct CclVolumeStats {
    u32 area;
    u32 x_min;
    u32 y_min;
    u32 z_min;
    u32 x_max;
    u32 y_max;
    u32 z_max;
    u32 padding;
    u64 sum_x;
    u64 sum_y;
    u64 sum_z;
};

// The area and box of `s` as seven words in the record's order (area, the
// minima x, y, z, the maxima x, y, z): Python's bounds columns and the
// parts `tiles` puts aside.
__device__ __forceinline__ void ccl_store_volume_box(u32* w, const CclVolumeStats& s) {
    w[0] = s.area;
    w[1] = s.x_min;
    w[2] = s.y_min;
    w[3] = s.z_min;
    w[4] = s.x_max;
    w[5] = s.y_max;
    w[6] = s.z_max;
}

// A volume's stats array. The volume is given to kernels as an image of
// its rows, slice after slice: row r of that image is row r % height of
// slice r / height.
struct CclVolumeStatsOut {
    CclVolumeStats* stats;
    u32 capacity;
    u32 height;
};

// Adds a part of a component (its voxels, box and coordinate sums) to the
// component's record.
__device__ __forceinline__ void ccl_add_volume_part(CclVolumeStats* s, u32 area, u32 x_min, u32 x_max,
                                                    u32 y_min, u32 y_max, u32 z_min, u32 z_max, u64 sum_x,
                                                    u64 sum_y, u64 sum_z) {
    atomicAdd(&s->area, area);
    atomicAdd(&s->sum_x, sum_x);
    atomicAdd(&s->sum_y, sum_y);
    atomicAdd(&s->sum_z, sum_z);
    atomicMin(&s->x_min, x_min);
    atomicMax(&s->x_max, x_max);
    atomicMin(&s->y_min, y_min);
    atomicMax(&s->y_max, y_max);
    atomicMin(&s->z_min, z_min);
    atomicMax(&s->z_max, z_max);
}

// A block's part of a volume's component, in shared memory: the features
// of the voxels the block found in it, added to the component's record once
// at the block's end (ccl_volume_parts_flush). A table of them by rank
// (CCL_VOLUME_PARTS entries, an entry kept by the first rank to claim it)
// turns the many updates of a block's rows to one component (the large
// component of a volume past its percolation threshold, in every row) into
// shared-memory atomics and one global update.
struct CclVolumePart {
    u32 rank, area, x_min, x_max, y_min, y_max, z_min, z_max;
    u64 sum_x, sum_y, sum_z;
};

#define CCL_VOLUME_PARTS 256u

// Empties the table (the whole block; a __syncthreads() must follow).
__device__ __forceinline__ void ccl_volume_parts_clear(CclVolumePart* parts) {
    for (u32 i = threadIdx.y * blockDim.x + threadIdx.x; i < CCL_VOLUME_PARTS; i += blockDim.x * blockDim.y) {
        CclVolumePart empty;
        empty.rank = 0xffffffffu;
        empty.area = 0;
        empty.x_min = empty.y_min = empty.z_min = 0xffffffffu;
        empty.x_max = empty.y_max = empty.z_max = 0;
        empty.sum_x = empty.sum_y = empty.sum_z = 0;
        parts[i] = empty;
    }
}

// Adds voxels of the component of rank `rank` to its entry of the table, or,
// where another rank holds that entry, to its record at once.
__device__ __forceinline__ void ccl_volume_part_add(CclVolumePart* parts, CclVolumeStatsOut out, u32 rank,
                                                    u32 area, u32 x_min, u32 x_max, u32 y_min, u32 y_max,
                                                    u32 z_min, u32 z_max, u64 sum_x, u64 sum_y, u64 sum_z) {
    if (rank >= out.capacity) return;
    CclVolumePart* part = parts + (rank & (CCL_VOLUME_PARTS - 1));
    const u32 holder = atomicCAS(&part->rank, 0xffffffffu, rank);
    if (holder != 0xffffffffu && holder != rank) {
        ccl_add_volume_part(out.stats + rank, area, x_min, x_max, y_min, y_max, z_min, z_max, sum_x, sum_y,
                            sum_z);
        return;
    }
    atomicAdd(&part->area, area);
    atomicAdd(&part->sum_x, sum_x);
    atomicAdd(&part->sum_y, sum_y);
    atomicAdd(&part->sum_z, sum_z);
    atomicMin(&part->x_min, x_min);
    atomicMax(&part->x_max, x_max);
    atomicMin(&part->y_min, y_min);
    atomicMax(&part->y_max, y_max);
    atomicMin(&part->z_min, z_min);
    atomicMax(&part->z_max, z_max);
}

// Adds every entry of the table to its component's record (the whole block,
// after a __syncthreads()).
__device__ __forceinline__ void ccl_volume_parts_flush(const CclVolumePart* parts, CclVolumeStatsOut out) {
    for (u32 i = threadIdx.y * blockDim.x + threadIdx.x; i < CCL_VOLUME_PARTS; i += blockDim.x * blockDim.y) {
        const CclVolumePart part = parts[i];
        if (part.area == 0 || part.rank >= out.capacity) continue;
        ccl_add_volume_part(out.stats + part.rank, part.area, part.x_min, part.x_max, part.y_min, part.y_max,
                            part.z_min, part.z_max, part.sum_x, part.sum_y, part.sum_z);
    }
}

// Adds a run of `area` voxels of flattened row `row` to the component of
// rank `rank`: the volume's form of the image's ccl_add_to_component.
__device__ __forceinline__ void ccl_add_to_component(CclVolumeStatsOut out, u32 rank, u32 area,
                                                     u64 sum_x, u32 x_min, u32 x_max, u32 row) {
    if (rank >= out.capacity) return;
    const u32 y = row % out.height, z = row / out.height;
    ccl_add_volume_part(out.stats + rank, area, x_min, x_max, y, y, z, z, sum_x, (u64)y * area, (u64)z * area);
}

// ------------------------------------------------------------- block scans

// Inclusive prefix sum of `value` over the warp's lanes (every lane calls).
__device__ __forceinline__ u32 ccl_warp_inclusive_scan(u32 value) {
    const u32 lane = threadIdx.x & 31u;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        const u32 other = __shfl_up_sync(CCL_FULL_MASK, value, offset);
        if (lane >= (u32)offset) value += other;
    }
    return value;
}

// Inclusive prefix sum of `value` over the block (blockDim.x a multiple of
// 32, at most 1024, 1-D). `warp_totals` is 32 words of shared memory. Every
// thread of the block must call it (it holds barriers).
__device__ __forceinline__ u32 ccl_block_inclusive_scan(u32 value, u32* warp_totals) {
    const u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    value = ccl_warp_inclusive_scan(value);
    if (lane == 31) warp_totals[warp] = value;
    __syncthreads();
    if (warp == 0) {
        warp_totals[lane] = ccl_warp_inclusive_scan(lane < (blockDim.x >> 5) ? warp_totals[lane] : 0);
    }
    __syncthreads();
    u32 result = value + (warp ? warp_totals[warp - 1] : 0);
    __syncthreads(); // warp_totals may be reused by the caller's next scan
    return result;
}

// Sum of a 64-bit value over the lanes of `mask` (every lane of it calls):
// __reduce_add_sync is 32-bit only, so the value goes in three parts whose
// sums cannot overflow (two 16-bit parts and the high word, whose sum stays
// below 2^32 where the total fits in 64 bits).
__device__ __forceinline__ u64 ccl_reduce_add_u64(u32 mask, u64 value) {
    const u32 low = __reduce_add_sync(mask, (u32)value & 0xffffu);
    const u32 middle = __reduce_add_sync(mask, ((u32)value) >> 16);
    const u32 high = __reduce_add_sync(mask, (u32)(value >> 32));
    return (u64)low + ((u64)middle << 16) + ((u64)high << 32);
}

// ------------------------------------------------------- counted updates
//
// The instrumented build of a module (compiled with CCL_COUNT_UPDATES, see
// ccl-cuda-flsl's counting) counts every atomic feature update per target in
// `counts`; the timed build compiles the counting away.

#ifdef CCL_COUNT_UPDATES
#define CCL_COUNT_UPDATE(counts, target) atomicAdd((counts) + (target), 1u)
#else
#define CCL_COUNT_UPDATE(counts, target) ((void)(counts), (void)(target))
#endif

// ------------------------------------------------ on-the-fly features (OTF)
//
// Lemaitre, Hennequin & Lacassagne, "Taming voting algorithms on GPUs for an
// efficient connected component analysis algorithm" (ICASSP 2021),
// Algorithm 2: every node of a forest has a feature record; a new node holds
// its own pixels' features, and whenever a union links root b under a, b's
// features move to a's root. A mover adds, then checks (after a fence)
// that its target is still a root; if it is not, whoever linked it may have
// taken the record before the add landed, so the mover takes the record
// again and moves it on. The link and the take are fenced the same way, so
// of a linker and an adder at least one sees the other (both fences are
// sequentially consistent): no feature stays behind at a node that is no
// longer a root. A min or max moves by exchanging in its neutral value.

// One node's features; y_min is not kept: a component's root is its first
// run or pixel, whose row is y_min.
struct CclNode {
    u32 area;
    u32 x_min;
    u32 x_max;
    u32 y_max;
    u64 sum_x;
    u64 sum_y;
};

// The features of a run of row y from column first to column last.
__device__ __forceinline__ CclNode ccl_node_of_run(u32 first, u32 last, u32 y) {
    CclNode n;
    n.area = last - first + 1;
    n.x_min = first;
    n.x_max = last;
    n.y_max = y;
    n.sum_x = (u64)(first + last) * n.area / 2;
    n.sum_y = (u64)y * n.area;
    return n;
}

// The neutral record: what a node holds once its features moved away.
__device__ __forceinline__ CclNode ccl_node_empty() {
    CclNode n;
    n.area = 0;
    n.x_min = 0xffffffffu;
    n.x_max = 0;
    n.y_max = 0;
    n.sum_x = 0;
    n.sum_y = 0;
    return n;
}

__device__ __forceinline__ bool ccl_node_is_empty(CclNode n) {
    return n.area == 0 && n.sum_x == 0 && n.sum_y == 0 && n.x_min == 0xffffffffu && n.x_max == 0 &&
           n.y_max == 0;
}

// Takes a node's record, leaving the neutral record.
__device__ __forceinline__ CclNode ccl_node_take(CclNode* node) {
    CclNode n;
    n.area = atomicExch(&node->area, 0u);
    n.x_min = atomicExch(&node->x_min, 0xffffffffu);
    n.x_max = atomicExch(&node->x_max, 0u);
    n.y_max = atomicExch(&node->y_max, 0u);
    n.sum_x = atomicExch(&node->sum_x, 0ull);
    n.sum_y = atomicExch(&node->sum_y, 0ull);
    return n;
}

__device__ __forceinline__ void ccl_node_add(CclNode* node, CclNode n) {
    atomicAdd(&node->area, n.area);
    atomicMin(&node->x_min, n.x_min);
    atomicMax(&node->x_max, n.x_max);
    atomicMax(&node->y_max, n.y_max);
    atomicAdd(&node->sum_x, n.sum_x);
    atomicAdd(&node->sum_y, n.sum_y);
}

// Adds `n` to the features of the root of `target`, and keeps moving what
// it finds there while that root turns out to have been linked.
__device__ __forceinline__ void ccl_otf_add(u32* L, CclNode* nodes, u32* counts, u32 target, CclNode n) {
    while (!ccl_node_is_empty(n)) {
        const u32 root = ccl_find(L, target);
        ccl_node_add(nodes + root, n);
        CCL_COUNT_UPDATE(counts, root);
        __threadfence();
        if (__ldcg(L + root) == root + 1) return;
        n = ccl_node_take(nodes + root);
        target = root;
    }
}

// ccl_merge that moves the features of the root it links (Algorithm 2).
__device__ __forceinline__ void ccl_merge_otf(u32* L, CclNode* nodes, u32* counts, u32 a, u32 b) {
    while (true) {
        a = ccl_find(L, a);
        b = ccl_find(L, b);
        if (a == b) return;
        if (a > b) { u32 t = a; a = b; b = t; }
        const u32 old = atomicMin(L + b, a + 1);
        if (old == b + 1) {
            __threadfence();
            ccl_otf_add(L, nodes, counts, a, ccl_node_take(nodes + b));
            return;
        }
        b = old - 1;
    }
}

// Stores the features gathered at a root (of row y_min) as the component
// of rank `rank` (plain stores: each component has one root).
__device__ __forceinline__ void ccl_store_component(CclStatsOut out, u32 rank, CclNode n, u32 y_min) {
    if (rank >= out.capacity) return;
    CclStats s;
    s.area = n.area;
    s.x_min = n.x_min;
    s.y_min = y_min;
    s.x_max = n.x_max;
    s.y_max = n.y_max;
    s.padding = 0;
    s.sum_x = n.sum_x;
    s.sum_y = n.sum_y;
    out.stats[rank] = s;
}
