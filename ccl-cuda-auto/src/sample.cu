// The run sample of ccl-cuda-auto: over every `stride`-th row of a volume's
// rows, the foreground voxels and the runs (a foreground voxel whose left
// neighbour is background or outside the row), which choose its labeler.

// A warp per sampled row, 32 voxels per step: a ballot of the step's voxels,
// its runs the bits whose lower neighbour (the step before's last bit for
// bit 0) is clear. Lane 0 adds the row's two counts to `counts[0]`
// (foreground) and `counts[1]` (runs).
extern "C" __global__ void __launch_bounds__(256)
    auto_sample(CclImage image, u32 stride, u32 sampled_rows, u64* counts) {
    const u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31u;
    if (warp >= sampled_rows) return;  // a whole warp: blocks are whole warps
    const u8* row = ccl_row(image, (int)(warp * stride));
    u32 foreground = 0, runs = 0, carry = 0;
    for (int x0 = 0; x0 < image.width; x0 += 32) {
        const int x = x0 + (int)lane;
        const u32 bits = __ballot_sync(CCL_FULL_MASK, x < image.width && row[x] != 0);
        foreground += (u32)__popc(bits);
        runs += (u32)__popc(bits & ~(bits << 1 | carry));
        carry = bits >> 31;
    }
    if (lane == 0 && foreground) {
        atomicAdd(counts, (u64)foreground);
        atomicAdd(counts + 1, (u64)runs);
    }
}
