// The document splitter of the parallel reader: finds where top-level values end, so that
// whole documents can be parsed by separate workers. 64 bytes at a time (SSE2, or AVX2 or
// AVX-512 when the processor has it), a byte at a time elsewhere; the same answers every way.
#include "cplatform.h"
#include <stdint.h>

#include "masks.h"

// A byte outside strings: a quote opens one, brackets change the depth. Returns 1 when it
// closes a top-level value. (A backslash outside a string is not JSON; the parser reports it.)
__attribute__((always_inline)) static inline int split_outside_string(jsonapi_split_state *s, unsigned char c) {
    if (c == '"') {
        s->in_string = 1;
    } else if ((c | 0x20) == '{') {
        if (s->depth == 0) s->documents += 1;
        s->depth += 1;
    } else if ((c | 0x20) == '}') {
        s->depth -= 1;
        return s->depth == 0;
    }
    return 0;
}

// One byte of the scalar path. Returns 1 when the byte closes a top-level value.
static inline int split_byte(jsonapi_split_state *s, unsigned char c) {
    if (s->escaped) {
        s->escaped = 0;
        return 0;
    }
    if (s->in_string) {
        if (c == '"') s->in_string = 0;
        else if (c == '\\') s->escaped = 1;
        return 0;
    }
    return split_outside_string(s, c);
}

#if defined(__SSE2__)
// The cut just after byte k of the block at i, which closed a top-level value (outside any
// string): the line feeds of the block before it are counted, and the state is the cut's.
__attribute__((always_inline)) static inline int cut_after(jsonapi_split_state *s, int64_t base, size_t i, unsigned k, uint64_t lines,
                            size_t *cut) {
    uint64_t before = k == 63 ? lines : lines & ((2ull << k) - 1);
    if (before != 0) {
        s->lines += __builtin_popcountll(before);
        s->line_start = base + (int64_t)(i + 63 - (size_t)__builtin_clzll(before)) + 1;
    }
    s->in_string = 0;
    *cut = i + k + 1;
    s->offset = base + (int64_t)*cut;
    return 1;
}

#endif

#if defined(__SSE2__)
// One block of 64 bytes at p + i, from its masks (`xored`: the prefix XOR of `quotes`).
// Returns 1 with `*cut` set when a top-level value closes in it at or after `cut_from`;
// otherwise 0, with `*s` as it is after the block. Always inlined: into the AVX2 reader it
// is compiled with POPCNT.
__attribute__((always_inline)) static inline int split_block(jsonapi_split_state *s, const unsigned char *p, int64_t base, size_t i, size_t cut_from,
                              size_t *cut, uint64_t quotes, uint64_t backslashes, uint64_t lines, uint64_t opens,
                              uint64_t closes, uint64_t xored) {
    if (backslashes == 0 && !s->escaped) {
        // No escapes: a byte is inside a string when an odd number of quotes come before it
        // (counting the string the block starts in).
        uint64_t inside = xored ^ (s->in_string ? ~(uint64_t)0 : 0);
        opens &= ~inside;
        closes &= ~inside;
        s->in_string = (unsigned char)(inside >> 63);
        int64_t closing = __builtin_popcountll(closes);
        if (s->depth > closing) {
            // The depth cannot come back to 0 in this block: no document ends or begins.
            s->depth += __builtin_popcountll(opens) - closing;
        } else {
            // Bracket by bracket.
            uint64_t m = opens | closes;
            while (m != 0) {
                unsigned k = (unsigned)__builtin_ctzll(m);
                m &= m - 1;
                if ((opens >> k) & 1) {
                    if (s->depth == 0) s->documents += 1;
                    s->depth += 1;
                    continue;
                }
                s->depth -= 1;
                if (s->depth == 0 && i + k + 1 > cut_from) return cut_after(s, base, i, k, lines, cut);
            }
        }
    } else {
        // Escapes: byte by byte through the quotes, backslashes and brackets.
        uint64_t m = quotes | backslashes | opens | closes;
        if (s->escaped) {
            s->escaped = 0;
            m &= ~1ull;
        }
        while (m != 0) {
            unsigned k = (unsigned)__builtin_ctzll(m);
            m &= m - 1;
            unsigned char c = p[i + k];
            if (s->in_string) {
                if (c == '"') {
                    s->in_string = 0;
                } else if (c == '\\') {
                    // The next byte is escaped, whatever it is.
                    if (k == 63) s->escaped = 1;
                    else m &= ~(1ull << (k + 1));
                }
                continue;
            }
            if (split_outside_string(s, c) && i + k + 1 > cut_from) return cut_after(s, base, i, k, lines, cut);
        }
    }
    if (lines != 0) {
        s->lines += __builtin_popcountll(lines);
        s->line_start = base + (int64_t)(i + 63 - (size_t)__builtin_clzll(lines)) + 1;
    }
    return 0;
}

// The masks of a block of 64 bytes (bit i for byte i): quotes, backslashes, line feeds, `{[`
// and `}]` (`{` and `[` differ only in bit 0x20, as do `}` and `]`), and the prefix XOR of
// the quotes.
typedef struct {
    uint64_t quotes, backslashes, lines, opens, closes, xored;
} split_masks;

__attribute__((always_inline)) static inline split_masks split_masks_sse2(const unsigned char *p) {
    __m128i v[4], l[4];
    for (int k = 0; k < 4; k++) {
        v[k] = _mm_loadu_si128((const __m128i *)(p + 16 * k));
        l[k] = _mm_or_si128(v[k], _mm_set1_epi8(0x20));
    }
    const uint64_t quotes = mask64(v, '"');
    return (split_masks){quotes, mask64(v, '\\'), mask64(v, '\n'), mask64(l, '{'), mask64(l, '}'), prefix_xor(quotes)};
}

// The whole blocks of p[0..<n], masks made by `masks` (a function of the block's address).
// Returns the bytes scanned (a multiple of 64, or up to the cut when `*found`). The state is
// a local copy while the blocks are read: the bytes are `char`, which may alias anything, so
// through the caller's pointer every block would store it all back.
#define SPLIT_BLOCKS(masks)                                                                                             \
    jsonapi_split_state local = *state, *s = &local;                                                                   \
    const int64_t base = s->offset;                                                                                    \
    size_t i = 0;                                                                                                      \
    /* Invariant: bytes p[0..<i] are scanned; s holds the state after them. */                                         \
    while (i + 64 <= n) {                                                                                              \
        read_ahead(p + i);                                                                                             \
        const split_masks m = masks(p + i);                                                                            \
        if (split_block(s, p, base, i, cut_from, cut, m.quotes, m.backslashes, m.lines, m.opens, m.closes, m.xored)) { \
            *state = local;                                                                                            \
            *found = 1;                                                                                                \
            return *cut;                                                                                               \
        }                                                                                                              \
        i += 64;                                                                                                       \
    }                                                                                                                  \
    *state = local;                                                                                                    \
    return i;

static size_t split_blocks_sse2(const unsigned char *p, size_t n, size_t cut_from, jsonapi_split_state *state, size_t *cut,
                                int *found) {
    SPLIT_BLOCKS(split_masks_sse2)
}

#if defined(JSONAPI_WIDE_BLOCKS)
// AVX2 masks, and a carry-less multiplication for the prefix XOR.
JSONAPI_WIDE __attribute__((always_inline)) static inline split_masks split_masks_wide(const unsigned char *p) {
    const __m256i a = _mm256_loadu_si256((const __m256i *)p), b = _mm256_loadu_si256((const __m256i *)(p + 32));
    const __m256i lower = _mm256_set1_epi8(0x20);
    const __m256i la = _mm256_or_si256(a, lower), lb = _mm256_or_si256(b, lower);
    const uint64_t quotes = mask64_wide(a, b, '"');
    return (split_masks){quotes,
                         mask64_wide(a, b, '\\'),
                         mask64_wide(a, b, '\n'),
                         mask64_wide(la, lb, '{'),
                         mask64_wide(la, lb, '}'),
                         prefix_xor_wide(quotes)};
}

JSONAPI_WIDE static size_t split_blocks_wide(const unsigned char *p, size_t n, size_t cut_from, jsonapi_split_state *state,
                                             size_t *cut, int *found) {
    SPLIT_BLOCKS(split_masks_wide)
}

// AVX-512 masks: one load and one compare each.
JSONAPI_WIDEST __attribute__((always_inline)) static inline split_masks split_masks_widest(const unsigned char *p) {
    const __m512i v = _mm512_loadu_si512((const void *)p);
    const __m512i l = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    const uint64_t quotes = mask64_widest(v, '"');
    return (split_masks){quotes,
                         mask64_widest(v, '\\'),
                         mask64_widest(v, '\n'),
                         mask64_widest(l, '{'),
                         mask64_widest(l, '}'),
                         prefix_xor_wide(quotes)};
}

JSONAPI_WIDEST static size_t split_blocks_widest(const unsigned char *p, size_t n, size_t cut_from, jsonapi_split_state *state,
                                                 size_t *cut, int *found) {
    SPLIT_BLOCKS(split_masks_widest)
}
#endif
#undef SPLIT_BLOCKS
#endif

int jsonapi_split_scan(const void *bytes, size_t n, size_t cut_from, jsonapi_split_state *s, size_t *cut, int variant) {
    const unsigned char *p = bytes;
    size_t i = 0;
#if defined(__SSE2__)
    if (variant != 1) {
        int found = 0, width = 0;
#if defined(JSONAPI_WIDE_BLOCKS)
        width = block_width_for(variant);
        if (width == 2) i = split_blocks_widest(p, n, cut_from, s, cut, &found);
        else if (width == 1) i = split_blocks_wide(p, n, cut_from, s, cut, &found);
#endif
        if (width == 0) i = split_blocks_sse2(p, n, cut_from, s, cut, &found);
        if (found) return 1;
    }
#else
    (void)variant;
#endif
    const int64_t base = s->offset;
    for (; i < n; i++) {
        unsigned char c = p[i];
        if (c == '\n') {
            s->lines += 1;
            s->line_start = base + (int64_t)i + 1;
        }
        if (split_byte(s, c) && i + 1 > cut_from) {
            *cut = i + 1;
            s->offset = base + (int64_t)*cut;
            return 1;
        }
    }
    s->offset = base + (int64_t)n;
    return 0;
}
