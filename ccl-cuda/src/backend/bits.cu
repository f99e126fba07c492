// bits.cu: the bit front end (ccl_cuda::backend::BitImage). Reads a byte
// image once, at full bandwidth, into a packed bit image (CclBits in
// ccl_device.cuh): bit p of word w of row y is pixel (32 w + p, y), 1 for
// any nonzero byte; words_per_row = ceil(width / 32), no padding, and the
// bits of the last word at or past `width` are 0. Later kernels read words
// of 32 pixels instead of bytes and ballots.
//
// One thread per output word, so that narrow images waste no threads and
// the stores of a warp are 32 consecutive words. A thread reads its 32
// bytes with ccl_load_word_bytes (ccl_device.cuh), the widest loads the
// row's address allows: two 16-byte loads where the word's first byte is
// 16-byte aligned (any pitch that is a multiple of 16 from an aligned base:
// every row), eight 4-byte loads where it is 4-byte aligned, bytes otherwise
// and for the last, partial word of a row. The check is per thread (the
// address of the word's first byte), so any pitch and any base are correct;
// the wide paths never read past the word's own 32 bytes, all inside the
// row.

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
    u32 v[8];
    ccl_load_word_bytes(p, left, v);
    bits[word] = ccl_word_of(v);
}
