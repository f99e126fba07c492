// arrays.cu: labeling a caller's device arrays (ccl_cuda::ArrayLabeler) —
// CuPy arrays and PyTorch tensors of any element type and strides, read as
// foreground bytes; the features of the canonical labels (features.cu)
// written in OpenCV's layout or as columns, all without leaving the device.

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

// The centroid coordinate of a component: sum / area, NaN for no pixels.
__device__ __forceinline__ double ccl_centroid(u64 sum, u32 area) {
    return area ? (double)sum / (double)area : __longlong_as_double(0x7ff8000000000000ll);
}

// OpenCV's connectedComponentsWithStats layout, rows 0..=count: row 0 the
// background (ccl_accumulate_labels gathers it beside the components:
// minima as complements), row r component r. `stats` holds
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

// A volume's ten features as columns: `bounds` count x 7 uint32 (area,
// x_min, y_min, z_min, x_max, y_max, z_max), `sums` count x 3 uint64 (sum_x,
// sum_y, sum_z), `centroids` count x 3 float64 (x, y, z).
extern "C" __global__ void __launch_bounds__(256)
    ccl_volume_feature_columns(const CclVolumeStats* components, u32 count, u32* bounds, u64* sums,
                               double* centroids) {
    const u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= count) return;
    const CclVolumeStats s = components[c];
    ccl_store_volume_box(bounds + (size_t)c * 7, s);
    sums[(size_t)c * 3] = s.sum_x;
    sums[(size_t)c * 3 + 1] = s.sum_y;
    sums[(size_t)c * 3 + 2] = s.sum_z;
    centroids[(size_t)c * 3] = ccl_centroid(s.sum_x, s.area);
    centroids[(size_t)c * 3 + 1] = ccl_centroid(s.sum_y, s.area);
    centroids[(size_t)c * 3 + 2] = ccl_centroid(s.sum_z, s.area);
}
