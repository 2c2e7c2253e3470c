// The hot loop of the URI-reference check (SyntaxRules.isURIReference): links repeat in
// every resource, and most of their bytes need no closer look.
#include "cplatform.h"

#include "masks.h"

// 1 for the bytes of a URI-reference that need no closer look once the first delimiter is
// behind: A-Z a-z 0-9 - . _ ~ : / ? @ ! $ & ' ( ) * + , ; =
// (0 for % # [ ], which the caller checks, and for every byte a URI-reference may not hold.)
static const unsigned char uri_plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0,
    // 0x80 and up: never in a URI-reference.
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

#if defined(JSONAPI_WIDE_BLOCKS)
// The same set by nibbles, for AVX2's `vpshufb`: byte c is plain when
// `plain_by_low[c & 15] & plain_by_high[c >> 4]` is not 0. Each high nibble from 2 to 7 (the
// rows of printable ASCII) has a bit of its own, and `plain_by_low[l]` holds the bits of the
// rows whose byte l is plain, so the answer is exact; the other rows have no bit (no byte of
// theirs is plain). `vpshufb` looks up 16 entries per 128-bit lane, so each table is there
// twice; 16-byte reads use the first half. (SyntaxRulesTests checks every byte at every place
// of runs of every length up to 100 against `uri_plain`.)
static const unsigned char plain_by_low[32] = {
    0x2E, 0x3F, 0x3E, 0x3E, 0x3F, 0x3E, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x17, 0x15, 0x17, 0x35, 0x1F,
    0x2E, 0x3F, 0x3E, 0x3E, 0x3F, 0x3E, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x17, 0x15, 0x17, 0x35, 0x1F,
};
static const unsigned char plain_by_high[32] = {
    0, 0, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0, 0, 0, 0, 0, 0, 0, 0,
};

// 32 bytes at a time (n >= 32).
JSONAPI_WIDE static size_t uri_plain_prefix_wide(const unsigned char *p, size_t n) {
    const __m256i by_low = _mm256_loadu_si256((const __m256i *)plain_by_low);
    const __m256i by_high = _mm256_loadu_si256((const __m256i *)plain_by_high);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    // Invariant: bytes p[0..<i] are plain.
    size_t i = 0;
    for (;;) {
        // The next 32 bytes, or (fewer left) the last 32, which overlap plain bytes already
        // read rather than reading past the end.
        const size_t at = i + 32 <= n ? i : n - 32;
        const __m256i v = _mm256_loadu_si256((const __m256i *)(p + at));
        const __m256i low = _mm256_shuffle_epi8(by_low, _mm256_and_si256(v, nibble));
        const __m256i high = _mm256_shuffle_epi8(by_high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
        const __m256i none = _mm256_cmpeq_epi8(_mm256_and_si256(low, high), _mm256_setzero_si256());
        const uint32_t stops = (uint32_t)_mm256_movemask_epi8(none);
        if (stops != 0) return at + (size_t)__builtin_ctz(stops);
        i = at + 32;
        if (i == n) return n;
    }
}

// 16 to 31 bytes, 16 at a time (the 128-bit half of the same instructions): the first 16,
// then the last 16, which overlap them.
JSONAPI_WIDE static size_t uri_plain_prefix_half(const unsigned char *p, size_t n) {
    const __m128i by_low = _mm_loadu_si128((const __m128i *)plain_by_low);
    const __m128i by_high = _mm_loadu_si128((const __m128i *)plain_by_high);
    const __m128i nibble = _mm_set1_epi8(0x0F);
    for (size_t at = 0;; at = n - 16) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(p + at));
        const __m128i low = _mm_shuffle_epi8(by_low, _mm_and_si128(v, nibble));
        const __m128i high = _mm_shuffle_epi8(by_high, _mm_and_si128(_mm_srli_epi16(v, 4), nibble));
        const unsigned stops = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(low, high), _mm_setzero_si128()));
        if (stops != 0) return at + (size_t)__builtin_ctz(stops);
        if (at == n - 16) return n;
    }
}
#endif

size_t jsonapi_uri_plain_prefix(const void *bytes, size_t n) {
    const unsigned char *p = bytes;
    size_t i = 0;
#if defined(JSONAPI_WIDE_BLOCKS)
    if (n >= 16 && wide_blocks_supported()) return n >= 32 ? uri_plain_prefix_wide(p, n) : uri_plain_prefix_half(p, n);
#endif
    // Eight at a time while all eight are plain (the table holds 0 or 1, so `&` is "all").
    while (i + 8 <= n) {
        unsigned all = uri_plain[p[i]] & uri_plain[p[i + 1]] & uri_plain[p[i + 2]]
            & uri_plain[p[i + 3]] & uri_plain[p[i + 4]] & uri_plain[p[i + 5]]
            & uri_plain[p[i + 6]] & uri_plain[p[i + 7]];
        if (!all) break;
        i += 8;
    }
    while (i < n && uri_plain[p[i]]) i++;
    return i;
}
