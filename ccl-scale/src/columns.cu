// columns.cu: a strip's features, kept on its GPU since its scan, become
// rows of the whole input's feature columns (ccl_scale::FeatureColumns).
// The strip's new components take consecutive rows (ccl_scale::Renumbering:
// label l, not continued, is row (l - 1) - (continued labels below l) of the
// strip's share), written here in the columns' own layout, so that the host
// only copies them out; the records of its continued labels are gathered
// apart, for the host to add to the rows of the components they continue.

// One chunk of a strip's labels: indices (label - 1) first..first + count.
struct CclColumnsChunk {
    u32 first;
    u32 count;
    // The chunk's first row in the strip's share: the new labels before it.
    u32 row_base;
    u32 continued_count;
    // The planes before the strip, added to y (an image) or z (a volume).
    u32 offset;
    // Centroid coordinates a row: 2 (x, y) or 3 (x, y, z).
    u32 axes;
};

// The chunk's rows of each column, on the device.
struct CclColumnsOut {
    u64* areas;      // one a row
    u32* mins;       // x, y, z a row
    u32* maxs;       // x, y, z a row
    u64* sums;       // x, y, z a row
    double* centroids;  // `axes` a row
};

// A record in the whole input's coordinates (ccl_scale::LargeStats).
struct CclWideStats {
    u64 area;
    u32 min[3];
    u32 max[3];
    u64 sum[3];
};

__device__ __forceinline__ CclWideStats ccl_widen(const CclStats& s, u32 rows) {
    const u64 area = s.area;
    return {area,
            {s.x_min, s.y_min + rows, 0},
            {s.x_max, s.y_max + rows, 0},
            {s.sum_x, s.sum_y + (u64)rows * area, 0}};
}

__device__ __forceinline__ CclWideStats ccl_widen(const CclVolumeStats& s, u32 slices) {
    const u64 area = s.area;
    return {area,
            {s.x_min, s.y_min, s.z_min + slices},
            {s.x_max, s.y_max, s.z_max + slices},
            {s.sum_x, s.sum_y, s.sum_z + (u64)slices * area}};
}

template <typename Record>
__device__ __forceinline__ void ccl_strip_columns(const Record* records, const u32* continued,
                                                  CclColumnsChunk chunk, CclColumnsOut out,
                                                  Record* gathered) {
    const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= chunk.count) return;
    const u32 index = chunk.first + i;
    const u32 label = index + 1;
    const u32 low = ccl_count_below(continued, chunk.continued_count, label);
    const Record record = records[index];
    if (low < chunk.continued_count && continued[low] == label) {
        gathered[low] = record;
        return;
    }
    const u32 row = index - low - chunk.row_base;
    const CclWideStats wide = ccl_widen(record, chunk.offset);
    out.areas[row] = wide.area;
    for (int axis = 0; axis < 3; ++axis) {
        out.mins[3 * (size_t)row + axis] = wide.min[axis];
        out.maxs[3 * (size_t)row + axis] = wide.max[axis];
        out.sums[3 * (size_t)row + axis] = wide.sum[axis];
    }
    // As the host divides: the exact sum made a double once, over the area.
    for (u32 axis = 0; axis < chunk.axes; ++axis) {
        out.centroids[(size_t)chunk.axes * row + axis] = (double)wide.sum[axis] / (double)wide.area;
    }
}

extern "C" __global__ void __launch_bounds__(256)
    ccl_strip_columns_image(const CclStats* records, const u32* continued, CclColumnsChunk chunk,
                            CclColumnsOut out, CclStats* gathered) {
    ccl_strip_columns(records, continued, chunk, out, gathered);
}

extern "C" __global__ void __launch_bounds__(256)
    ccl_strip_columns_volume(const CclVolumeStats* records, const u32* continued,
                             CclColumnsChunk chunk, CclColumnsOut out, CclVolumeStats* gathered) {
    ccl_strip_columns(records, continued, chunk, out, gathered);
}
