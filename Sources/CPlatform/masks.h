// 64-byte masks for the splitters (split.c, elements.c): internal to CPlatform.
#ifndef JSONAPISTREAM_MASKS_H
#define JSONAPISTREAM_MASKS_H

#include <stdint.h>

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
#endif

#endif
