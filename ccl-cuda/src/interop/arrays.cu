// arrays.cu: labeling a caller's device arrays (ccl_cuda::ArrayLabeler) —
// CuPy arrays and PyTorch tensors of any element type and strides, labels
// numbered canonically (1..N in raster order of each component's first
// pixel) and features in OpenCV's layout, all without leaving the device.
//
// The per-word kernels give each warp one word of 32 columns of a row, as
// in features.cu (blocks of 32 x 8 threads).

// The foreground of a caller's array as packed bytes (1 = foreground): any
// element of 1, 2, 4 or 8 bytes at any (even negative) byte strides; an
// element is foreground when its bits under `value_mask` are not all zero
// (all bits for integers; all but the sign for floats, so -0.0 is
// background and NaN foreground, as `!= 0` says).
extern "C" __global__ void __launch_bounds__(256)
    ccl_binarize(const u8* origin, long long row_stride, long long column_stride, int width, int height,
                 u32 element_bytes, u64 value_mask, u8* out) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    CCL_FOR_EACH_ROW(y, height) {
        const u8* element = origin + (long long)y * row_stride + (long long)x * column_stride;
        u64 value;
        switch (element_bytes) {
        case 1: value = *element; break;
        case 2: value = *(const unsigned short*)element; break;
        case 4: value = *(const u32*)element; break;
        default: value = *(const u64*)element; break;
        }
        out[(size_t)y * width + x] = (value & value_mask) != 0;
    }
}

// For labels that name some pixel of each component but not always its
// first (a library peer's): first_complement[l - 1] becomes the complement
// of the smallest raster index labeled l (atomicMax of complements, so that
// a zeroed array is the neutral start). Labels must lie in 1..=pixels.
extern "C" __global__ void __launch_bounds__(256)
    ccl_first_pixels(CclImage image, const u32* labels, u32* first_complement, u32 words_per_row, u32 words) {
    u32 y, base;
    if (!ccl_warp_word(words, words_per_row, &y, &base)) return;
    const u32 x = base + threadIdx.x, width = (u32)image.width;
    const u32 label = x < width ? labels[y * width + x] : 0;
    // Lanes are consecutive columns: a group's lowest lane is its first pixel.
    const u32 group = __match_any_sync(CCL_FULL_MASK, label);
    if (label != 0 && (threadIdx.x & 31u) == (u32)(__ffs(group) - 1))
        atomicMax(first_complement + label - 1, ~(y * width + x));
}

// Rewrites such labels as first-pixel labels: 1 + the component's first
// raster index.
extern "C" __global__ void __launch_bounds__(256)
    ccl_label_first_pixels(CclImage image, u32* labels, const u32* first_complement, u32 words_per_row,
                           u32 words) {
    u32 y, base;
    if (!ccl_warp_word(words, words_per_row, &y, &base)) return;
    const u32 x = base + threadIdx.x, width = (u32)image.width;
    if (x >= width) return;
    const u32 i = y * width + x, label = labels[i];
    if (label != 0) labels[i] = ~first_complement[label - 1] + 1;
}

// First-pixel labels, ranked (ccl_rank_roots), become canonical: the rank
// of the component's first pixel + 1; background stays 0.
extern "C" __global__ void __launch_bounds__(256)
    ccl_canonical_labels(CclImage image, u32* labels, CclRootIndex roots, u32 words) {
    u32 y, base;
    if (!ccl_warp_word(words, roots.words_per_row, &y, &base)) return;
    const u32 x = base + threadIdx.x, width = (u32)image.width;
    if (x >= width) return;
    const u32 i = y * width + x, label = labels[i];
    if (label != 0) labels[i] = ccl_root_rank(roots, (label - 1) % width, (label - 1) / width) + 1;
}

// The features of the background (every pixel that is not foreground),
// OpenCV's row 0, added into `background` (zeroed before). To start from
// zeros, x_min and y_min are kept as complements (atomicMax of ~x). Each
// warp walks words with a grid stride and adds its sums once.
extern "C" __global__ void __launch_bounds__(256)
    ccl_background(CclImage image, u32 words_per_row, u32 words, CclStats* background) {
    const u32 lane = threadIdx.x, width = (u32)image.width;
    u32 area = 0, x_min_c = 0, y_min_c = 0, x_max = 0, y_max = 0;
    u64 sum_x = 0, sum_y = 0;
    for (u64 word = (u64)blockIdx.x * blockDim.y + threadIdx.y; word < words;
         word += (u64)gridDim.x * blockDim.y) {
        const u32 y = (u32)(word / words_per_row), x = (u32)(word % words_per_row) * 32u + lane;
        if (x < width && !ccl_row(image, y)[x]) {
            area += 1;
            sum_x += x;
            sum_y += y;
            x_min_c = max(x_min_c, ~x);
            y_min_c = max(y_min_c, ~y);
            x_max = max(x_max, x);
            y_max = max(y_max, y);
        }
    }
    area = __reduce_add_sync(CCL_FULL_MASK, area);
    sum_x = ccl_reduce_add_u64(CCL_FULL_MASK, sum_x);
    sum_y = ccl_reduce_add_u64(CCL_FULL_MASK, sum_y);
    x_min_c = __reduce_max_sync(CCL_FULL_MASK, x_min_c);
    y_min_c = __reduce_max_sync(CCL_FULL_MASK, y_min_c);
    x_max = __reduce_max_sync(CCL_FULL_MASK, x_max);
    y_max = __reduce_max_sync(CCL_FULL_MASK, y_max);
    if (lane == 0 && area != 0) {
        atomicAdd(&background->area, area);
        atomicAdd(&background->sum_x, sum_x);
        atomicAdd(&background->sum_y, sum_y);
        atomicMax(&background->x_min, x_min_c);
        atomicMax(&background->y_min, y_min_c);
        atomicMax(&background->x_max, x_max);
        atomicMax(&background->y_max, y_max);
    }
}

// The centroid coordinate of a component: sum / area, NaN for no pixels.
__device__ __forceinline__ double ccl_centroid(u64 sum, u32 area) {
    return area ? (double)sum / (double)area : __longlong_as_double(0x7ff8000000000000ll);
}

// OpenCV's connectedComponentsWithStats layout, rows 0..=count: row 0 the
// background (from ccl_background), row r component r. `stats` holds
// (count + 1) x 5 int32 (left, top, width, height, area), `centroids`
// (count + 1) x 2 float64 (x, y). A background without pixels is OpenCV's
// row for it (NO_BACKGROUND_*, from ccl_core::opencv::NO_BACKGROUND_STATS)
// with a NaN centroid.
extern "C" __global__ void __launch_bounds__(256)
    ccl_opencv_stats(const CclStats* components, u32 count, const CclStats* background, int* stats,
                     double* centroids) {
    const u32 row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row > count) return;
    CclStats s;
    if (row == 0) {
        s = *background;
        s.x_min = ~s.x_min;
        s.y_min = ~s.y_min;
    } else {
        s = components[row - 1];
    }
    int* out = stats + (size_t)row * 5;
    if (s.area == 0) {
        out[0] = (int)NO_BACKGROUND_LEFT;
        out[1] = (int)NO_BACKGROUND_TOP;
        out[2] = (int)NO_BACKGROUND_WIDTH;
        out[3] = (int)NO_BACKGROUND_HEIGHT;
        out[4] = (int)NO_BACKGROUND_AREA;
    } else {
        out[0] = (int)s.x_min;
        out[1] = (int)s.y_min;
        out[2] = (int)(s.x_max - s.x_min + 1);
        out[3] = (int)(s.y_max - s.y_min + 1);
        out[4] = (int)s.area;
    }
    centroids[(size_t)row * 2] = ccl_centroid(s.sum_x, s.area);
    centroids[(size_t)row * 2 + 1] = ccl_centroid(s.sum_y, s.area);
}

// The seven features as columns: `bounds` count x 5 uint32 (area, x_min,
// y_min, x_max, y_max), `sums` count x 2 uint64 (sum_x, sum_y), `centroids`
// count x 2 float64 (x, y).
extern "C" __global__ void __launch_bounds__(256)
    ccl_feature_columns(const CclStats* components, u32 count, u32* bounds, u64* sums, double* centroids) {
    const u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= count) return;
    const CclStats s = components[c];
    u32* b = bounds + (size_t)c * 5;
    b[0] = s.area;
    b[1] = s.x_min;
    b[2] = s.y_min;
    b[3] = s.x_max;
    b[4] = s.y_max;
    sums[(size_t)c * 2] = s.sum_x;
    sums[(size_t)c * 2 + 1] = s.sum_y;
    centroids[(size_t)c * 2] = ccl_centroid(s.sum_x, s.area);
    centroids[(size_t)c * 2 + 1] = ccl_centroid(s.sum_y, s.area);
}
