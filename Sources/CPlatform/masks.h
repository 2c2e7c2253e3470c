// 64-byte masks for the splitters (split.c, elements.c): internal to CPlatform.
#ifndef JSONAPISTREAM_MASKS_H
#define JSONAPISTREAM_MASKS_H

#include <stddef.h>
#include <stdint.h>

// How far ahead of the block being read the splitters (split.c, elements.c) and the pre-scan
// (scan.c) ask for the input (bytes). They are the first to read each byte of it, sixty-four
// at a time at a few instructions each, so they wait on memory: on an Intel Xeon VM the
// element splitter scanned a 128.5 MB document at 4.7 GB/s, and at 9.5 GB/s with each block
// asking for the line 4 KiB ahead (2 and 8 KiB gave 14.7 and 13.9 ms against 13.5 for 4 KiB,
// 1 KiB 16.9; a 15.7 MB document it read from the last-level cache went from 1.83 to 1.61 ms).
#define JSONAPI_READ_AHEAD 4096

// Asks for the cache line `JSONAPI_READ_AHEAD` bytes past p: a hint, which changes no result.
// The address may lie past the end of the bytes being read, even in no mapping: a prefetch
// never faults (x86-64's PREFETCHh, AArch64's PRFM), and the address is made as an integer,
// not by pointer arithmetic past the object. Unconditional, so that it is one instruction a
// block (a bounds check made it five: 0.28 more instructions a byte for a graph on 2
// workers, whose element splitter and pre-scan both read every byte, against 0.03 to 0.08).
__attribute__((always_inline)) static inline void read_ahead(const unsigned char *p) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch((const void *)((uintptr_t)p + JSONAPI_READ_AHEAD), 0, 3);
#else
    (void)p;
#endif
}

#if defined(__SSE2__)
#include <emmintrin.h>

// Bit i set when byte i of the 64 bytes at p equals c.
static inline uint64_t mask64(const __m128i v[4], char c) {
    const __m128i k = _mm_set1_epi8(c);
    return (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[0], k))
        | ((uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[1], k)) << 16)
        | ((uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[2], k)) << 32)
        | ((uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[3], k)) << 48);
}

// The bytes of a block of 64 escaped by a backslash (`backslashes`: bit i for byte i): the
// byte after each backslash that is not itself escaped. `*carry` says whether the block's
// first byte is escaped (the block before ended with such a backslash) and is left saying the
// same of the next block's. Backslashes are counted wherever they are; JSON has them only
// inside strings (the splitters and the pre-scan say what they do with one elsewhere).
__attribute__((always_inline)) static inline uint64_t escaped_bytes(uint64_t backslashes, unsigned char *carry) {
    uint64_t escaped = 0;
    if (*carry) {
        escaped = 1;
        backslashes &= ~(uint64_t)1;
    }
    *carry = 0;
    // Loop invariant: the lowest bit left in `backslashes` is a backslash no other escapes.
    while (backslashes != 0) {
        const unsigned k = (unsigned)__builtin_ctzll(backslashes);
        if (k == 63) {
            *carry = 1;
            break;
        }
        escaped |= (uint64_t)1 << (k + 1);
        // The escaped byte, a backslash or not, escapes nothing.
        backslashes &= ~((uint64_t)3 << k);
    }
    return escaped;
}

// Bit i set when an odd number of bits at or below i are set in x.
static inline uint64_t prefix_xor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
// The wide readers: AVX2 masks, POPCNT, and the prefix XOR as a carry-less multiplication.
// Compiled for those instructions whatever the build's target, and used only when the
// processor has them (`wide_blocks_supported`).
#define JSONAPI_WIDE_BLOCKS 1
#include <immintrin.h>

#define JSONAPI_WIDE __attribute__((target("avx2,popcnt,pclmul")))

// Bit i set when byte i of the 64 bytes in a (the first 32) and b equals c.
JSONAPI_WIDE static inline uint64_t mask64_wide(__m256i a, __m256i b, char c) {
    const __m256i k = _mm256_set1_epi8(c);
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, k))
        | ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, k)) << 32);
}

// `prefix_xor` in one instruction: x multiplied by all ones without carries.
JSONAPI_WIDE static inline uint64_t prefix_xor_wide(uint64_t x) {
    return (uint64_t)_mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0));
}

// The widest readers: AVX-512 (F and BW) compares, whose results are 64-bit masks at once
// (the wide readers make each from two AVX2 compares, two moves of their bytes' top bits, a
// shift and an OR), with the wide readers' POPCNT and carry-less multiplication.
#define JSONAPI_WIDEST __attribute__((target("avx2,avx512f,avx512bw,popcnt,pclmul")))

// Bit i set when byte i of the 64 bytes in v equals c.
JSONAPI_WIDEST static inline uint64_t mask64_widest(__m512i v, char c) {
    return (uint64_t)_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c));
}

// The widest readers this processor has what it takes for: 2 the widest (AVX-512 F and BW,
// with the wide readers' instructions), 1 the wide (AVX2, POPCNT, PCLMUL), 0 neither. Asked
// once (threads that race to ask set the same answer).
static inline int block_width(void) {
    static int known; // 0: not asked yet; otherwise the width plus one
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k == 0) {
        __builtin_cpu_init();
        const int wide = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("pclmul");
        const int widest = wide && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
        k = 1 + wide + widest;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k - 1;
}

// Whether this processor has what the wide readers use.
static inline int wide_blocks_supported(void) { return block_width() >= 1; }

// The readers a splitter's `variant` asks for (as block_width): 0 the widest this processor
// has, 3 the wide ones where it has them (tests), the narrow ones otherwise.
static inline int block_width_for(int variant) {
    return variant == 0 ? block_width() : variant == 3 && wide_blocks_supported() ? 1 : 0;
}
#endif
#endif

#endif
