// The vector part of StructuralScanner: skips runs of "plain" input 64 bytes at a time with
// AVX2 where the processor has it, else 32 at a time with SSE2.
#include "cplatform.h"
#include <stdint.h>

#include "masks.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__SSE2__)
// Bit i of each mask is set when byte i of the 32 bytes at p is (special) a byte below 0x0E
// or of 0x80 or more; (quotes) a quotation mark; (backslashes) a backslash.
static inline void masks32(const unsigned char *p, uint32_t *special, uint32_t *quotes,
                           uint32_t *backslashes) {
    const __m128i lim = _mm_set1_epi8(0x0E), bs = _mm_set1_epi8(0x5C), q = _mm_set1_epi8(0x22);
    __m128i a = _mm_loadu_si128((const __m128i *)p);
    __m128i b = _mm_loadu_si128((const __m128i *)(p + 16));
    // Signed compare: bytes of 0x80 and more are negative, so they are "below 0x0E" too.
    *special = (uint32_t)_mm_movemask_epi8(_mm_cmplt_epi8(a, lim))
        | ((uint32_t)_mm_movemask_epi8(_mm_cmplt_epi8(b, lim)) << 16);
    *quotes = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, q))
        | ((uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, q)) << 16);
    *backslashes = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, bs))
        | ((uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, bs)) << 16);
}

#if defined(JSONAPI_WIDE_BLOCKS)
// The same skip 64 bytes at a time with AVX2, where the processor has it (about half the
// instructions per byte of the 32-byte loop). It stops at the first block of 64 that needs a
// closer look; the 32-byte loop then takes what it can of that block.
JSONAPI_WIDE static size_t skip_plain_wide(const unsigned char *p, size_t n, unsigned char *inside,
                                           size_t *open_quote) {
    const __m256i lim = _mm256_set1_epi8(0x0E);
    size_t i = 0;
    unsigned char in = *inside;
    while (i + 64 <= n) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(p + i + 32));
        // Signed compare: bytes of 0x80 and more are negative, so they are "below 0x0E" too.
        uint64_t special = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(lim, a))
            | ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(lim, b)) << 32);
        if (special != 0) break;
        uint64_t quotes = mask64_wide(a, b, 0x22);
        uint64_t backslashes = mask64_wide(a, b, 0x5C);
        // As below: a backslash before a quote or a backslash, or at the block's end, stops.
        if (backslashes != 0 && ((backslashes >> 63) != 0 || ((backslashes << 1) & (quotes | backslashes)) != 0))
            break;
        if (quotes != 0) {
            in ^= (unsigned char)(__builtin_popcountll(quotes) & 1);
            if (in) *open_quote = i + 63 - (size_t)__builtin_clzll(quotes);
        }
        i += 64;
    }
    *inside = in;
    return i;
}
#endif

size_t jsonapi_skip_plain(const void *bytes, size_t n, unsigned char *in_string,
                          size_t *open_quote) {
    const unsigned char *p = bytes;
    size_t i = 0;
    unsigned char inside = *in_string;
#if defined(JSONAPI_WIDE_BLOCKS)
    if (n >= 64 && wide_blocks_supported()) i = skip_plain_wide(p, n, &inside, open_quote);
#endif
    while (i + 32 <= n) {
        uint32_t special, quotes, backslashes;
        masks32(p + i, &special, &quotes, &backslashes);
        if (special != 0) break;
        // A backslash matters only when what follows it is a quote or a backslash (escaped
        // or not, that changes which quotes count), or lies beyond this block. Otherwise it
        // escapes a plain byte, and the quotes here are all real (escaped slashes in links).
        if (backslashes != 0 && ((backslashes >> 31) != 0 || ((backslashes << 1) & (quotes | backslashes)) != 0))
            break;
        if (quotes != 0) {
            inside ^= (unsigned char)(__builtin_popcount(quotes) & 1);
            // Ending inside a string: the block's last quote opened it.
            if (inside) *open_quote = i + 31 - (size_t)__builtin_clz(quotes);
        }
        i += 32;
    }
    *in_string = inside;
    return i;
}
#else
// Without SSE2 nothing is skipped here: the caller's eight-bytes-at-a-time loop does it all.
size_t jsonapi_skip_plain(const void *p, size_t n, unsigned char *in_string,
                          size_t *open_quote) {
    (void)p; (void)n; (void)in_string; (void)open_quote;
    return 0;
}
#endif
