// The run sample of ccl-cuda-auto: over every `stride`-th row of an image's
// (a batch's, a volume's) rows, the foreground pixels and the runs (a
// foreground pixel whose left neighbour is background or outside the row),
// which choose its labeler.

// A warp per chunk of SAMPLE_CHUNK pixels of a sampled row (chunks_per_row
// to a row; auto.rs says why), 32 pixels a step: a ballot of the step's
// pixels, its runs the bits whose lower neighbour (the step before's last
// bit for bit 0, the pixel before the chunk for its first) is clear. Lane 0
// adds the chunk's two counts to `counts[0]` (foreground) and `counts[1]`
// (runs).
extern "C" __global__ void __launch_bounds__(256)
    auto_sample(CclImage image, u32 stride, u32 sampled_rows, u32 chunks_per_row, u64* counts) {
    const u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31u;
    if (warp >= sampled_rows * chunks_per_row) return;  // a whole warp: blocks are whole warps
    const u32 sampled_row = warp / chunks_per_row, chunk = warp % chunks_per_row;
    const int y = (int)(sampled_row * stride), x_begin = (int)(chunk * SAMPLE_CHUNK);
    const int x_end = min(image.width, x_begin + SAMPLE_CHUNK);
    const u8* row = ccl_row(image, y);
    u32 foreground = 0, runs = 0, carry = ccl_pixel(image, x_begin - 1, y) ? 1u : 0u;
    for (int x0 = x_begin; x0 < x_end; x0 += 32) {
        const int x = x0 + (int)lane;
        const u32 bits = __ballot_sync(CCL_FULL_MASK, x < x_end && row[x] != 0);
        foreground += (u32)__popc(bits);
        runs += (u32)__popc(bits & ~(bits << 1 | carry));
        carry = bits >> 31;
    }
    if (lane == 0 && foreground) {
        atomicAdd(counts, (u64)foreground);
        atomicAdd(counts + 1, (u64)runs);
    }
}
