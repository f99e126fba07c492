// bits.cu: the bit front end (ccl_cuda::backend::BitImage). Reads a byte
// image once, at full bandwidth, into a packed bit image (CclBits in
// ccl_device.cuh): bit p of word w of row y is pixel (32 w + p, y), 1 for
// any nonzero byte; words_per_row = ceil(width / 32), no padding, and the
// bits of the last word at or past `width` are 0. Later kernels read words
// of 32 pixels instead of bytes and ballots.
//
// One thread per output word, so that narrow images waste no threads and
// the stores of a warp are 32 consecutive words. A thread reads its 32
// bytes with the widest loads the row's address allows: two 16-byte loads
// where the word's first byte is 16-byte aligned (any pitch that is a
// multiple of 16 from an aligned base: every row), eight 4-byte loads where
// it is 4-byte aligned, bytes otherwise and for the last, partial word of a
// row. The check is per thread (the address of the word's first byte), so
// any pitch and any base are correct; the wide paths never read past the
// word's own 32 bytes, all inside the row.

// 0x80 in each byte of `v` that is nonzero, 0 elsewhere: (b & 0x7f) + 0x7f
// has bit 7 set exactly when the low seven bits are not all 0 and stays
// below 0x100 (no carry into the next byte); or-ing b adds its own bit 7.
__device__ __forceinline__ u32 ccl_nonzero_bytes(u32 v) {
    return (((v & 0x7f7f7f7fu) + 0x7f7f7f7fu) | v) & 0x80808080u;
}

// The four foreground bits of the 4 bytes of `v` (byte k, the pixel at the
// lower address k, gives bit k: CUDA is little-endian). With h the bits 7,
// 15, 23, 31 of ccl_nonzero_bytes, h * 0x00204081 (= h (1 + 2^7 + 2^14 +
// 2^21)) puts bit 7 at 28, bit 15 at 29, bit 23 at 30 and bit 31 at 31; the
// other partial products land on distinct lower bits (7, 14, 21; 15, 22;
// 23) or past bit 31, so no carry reaches bits 28..31.
__device__ __forceinline__ u32 ccl_nibble(u32 v) { return (ccl_nonzero_bytes(v) * 0x00204081u) >> 28; }

// The 32 bits of 8 consecutive 4-byte groups.
__device__ __forceinline__ u32 ccl_word_of(const u32 (&v)[8]) {
    u32 word = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) word |= ccl_nibble(v[k]) << (4 * k);
    return word;
}

// Packs `image` into `bits` (words_per_row words per row, height rows;
// `words` = their product, below 2^32: the image has fewer than 2^32
// pixels). Linear grid, a thread per word.
extern "C" __global__ void __launch_bounds__(256)
    ccl_pack_bits(CclImage image, u32* bits, u32 words_per_row, u32 words) {
    const u32 word = blockIdx.x * blockDim.x + threadIdx.x;
    if (word >= words) return;
    const u32 y = word / words_per_row, w = word - y * words_per_row;
    const u32 x0 = w * 32;
    const u8* p = ccl_row(image, (int)y) + x0;
    const u32 left = (u32)image.width - x0;  // pixels of the row from x0 on: at least 1
    u32 result = 0;
    if (left >= 32 && ((size_t)p & 15u) == 0) {
        const uint4 a = *(const uint4*)p, b = *(const uint4*)(p + 16);
        const u32 v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
        result = ccl_word_of(v);
    } else if (left >= 32 && ((size_t)p & 3u) == 0) {
        u32 v[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = ((const u32*)p)[k];
        result = ccl_word_of(v);
    } else {
        const u32 n = left < 32 ? left : 32;
        for (u32 k = 0; k < n; ++k) result |= (u32)(p[k] != 0) << k;
    }
    bits[word] = result;
}
