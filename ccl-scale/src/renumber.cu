// renumber.cu: a strip's canonical labels (1..=count, its own raster
// order) become the whole image's numbers (ccl_scale::Renumbering): label l
// is either one of the `continued` labels (ascending), whose numbers are
// given, or new, numbered first_new + (l - 1) - (continued labels below l).

// The number of every label of the strip: table[l - 1] for l in 1..=count.
extern "C" __global__ void __launch_bounds__(256)
    ccl_renumber_table(const u32* continued, const u64* numbers, u32 continued_count, u32 count,
                       u64 first_new, u64* table) {
    const u32 index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= count) return;
    const u32 label = index + 1;
    const u32 low = ccl_count_below(continued, continued_count, label);
    table[index] = (low < continued_count && continued[low] == label) ? numbers[low]
                                                                       : first_new + index - low;
}

// The strip's final labels: 0 stays 0, l becomes table[l - 1], as 64-bit
// labels (ccl_renumber_u64) or 32-bit ones (ccl_renumber_u32).
template <typename Label>
__device__ __forceinline__ void ccl_renumber(const u32* labels, u32 pixels, const u64* table, Label* out) {
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < pixels; i += gridDim.x * blockDim.x) {
        const u32 label = labels[i];
        out[i] = label ? (Label)table[label - 1] : (Label)0;
    }
}

extern "C" __global__ void __launch_bounds__(256)
    ccl_renumber_u32(const u32* labels, u32 pixels, const u64* table, u32* out) {
    ccl_renumber(labels, pixels, table, out);
}

extern "C" __global__ void __launch_bounds__(256)
    ccl_renumber_u64(const u32* labels, u32 pixels, const u64* table, u64* out) {
    ccl_renumber(labels, pixels, table, out);
}
