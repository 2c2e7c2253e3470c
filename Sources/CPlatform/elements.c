// The element splitter of the parallel reader: finds where the elements of a document's
// top-level `data` and `included` arrays begin and end, so that one large document can be
// parsed by separate workers, a range of whole elements each. Inside an element, 64 bytes at
// a time (SSE2, or AVX2 or AVX-512 when the processor has it); elsewhere (and without SSE2) a
// byte at a time; the same answers every way on JSON.
#include "cplatform.h"
#include <stdint.h>

#include "masks.h"

static const char data_name[4] = {'d', 'a', 't', 'a'};
static const char included_name[8] = {'i', 'n', 'c', 'l', 'u', 'd', 'e', 'd'};
static const char atomic_word[6] = {'a', 't', 'o', 'm', 'i', 'c'};

static inline int is_white(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

#if defined(__SSE2__)
// Blocks of 64 bytes inside an element of the array being split (where most bytes are), as
// bit masks: one bit per byte. Three ways to make the masks, the same answers: SSE2 (every
// x86-64 processor), AVX2 with POPCNT and PCLMUL, and AVX-512 (F, BW) with those, when the
// processor has them (chosen once, at the first scan). Elsewhere a byte at a time.

// What the masks of a block say (`inside`: the bytes within strings; `opens`, `closes`: `{[`
// and `}]` outside strings): scanned at once up to the closing bracket that brings the depth
// back to the array's (a place to cut, or what else follows it, is for the byte path),
// unless `,{` or `,[` follows it at once and the place after that comma is not past `cut_at`
// (absolute): then the comma is counted and the scan goes on. Returns how many bytes it
// scanned (64 when no such bracket is among them), with `*s` as it is after them (the escape
// carry aside, which the caller sets). `p` is the block, `at` its first byte's offset.
__attribute__((always_inline)) static inline size_t block_scan(jsonapi_element_state *s, const unsigned char *p, uint64_t inside, uint64_t opens,
                                uint64_t closes, uint64_t lines, int64_t at, int64_t cut_at) {
    const int64_t closing = __builtin_popcountll(closes);
    size_t scanned = 64;
    if (s->depth - closing >= 3) {
        // The depth cannot come back to the array's in these bytes.
        s->depth += __builtin_popcountll(opens) - closing;
        s->in_string = (unsigned char)(inside >> 63);
    } else {
        // Bracket by bracket, up to the one that closes the element.
        int64_t depth = s->depth;
        uint64_t m = opens | closes;
        while (m != 0) {
            const unsigned k = (unsigned)__builtin_ctzll(m);
            m &= m - 1;
            if ((opens >> k) & 1) {
                depth += 1;
            } else if (depth == 3) {
                // The element closes. When a comma and the next element's bracket follow it
                // at once, and a cut is not wanted after that comma yet (its place is not past
                // `cut_at`), the comma is counted here and the blocks go on: the bracket is the
                // next in `m`.
                if (k + 2 < 64 && p[k + 1] == ',' && (p[k + 2] | 0x20) == '{' && at + (int64_t)k + 2 <= cut_at) {
                    s->elements += 1;
                    depth = 2;
                    continue;
                }
                scanned = k;
                break;
            } else {
                depth -= 1;
            }
        }
        s->depth = depth;
        // Byte `scanned` is a bracket outside strings, so no string is open before it.
        s->in_string = scanned == 64 ? (unsigned char)(inside >> 63) : 0;
        if (scanned < 64) lines &= ((uint64_t)1 << scanned) - 1;
    }
    if (lines != 0) {
        s->lines += __builtin_popcountll(lines);
        s->line_start = at + (int64_t)(63 - __builtin_clzll(lines)) + 1;
    }
    return scanned;
}

// The block at p (its first byte at absolute offset `at`), masks made with SSE2.
__attribute__((always_inline)) static inline size_t block_sse2(jsonapi_element_state *s, const unsigned char *p, int64_t at, int64_t cut_at) {
    __m128i v[4], l[4];
    const __m128i lower = _mm_set1_epi8(0x20);
    for (int k = 0; k < 4; k++) {
        v[k] = _mm_loadu_si128((const __m128i *)(p + 16 * k));
        // `{` and `[` differ only in bit 0x20, as do `}` and `]`.
        l[k] = _mm_or_si128(v[k], lower);
    }
    unsigned char carry = s->escaped;
    const uint64_t escaped = escaped_bytes(mask64(v, '\\'), &carry);
    const uint64_t quotes = mask64(v, '"') & ~escaped;
    // A byte is inside a string when an odd number of quotes come before it (counting the
    // string the block starts in).
    const uint64_t inside = prefix_xor(quotes) ^ (s->in_string ? ~(uint64_t)0 : 0);
    const size_t scanned = block_scan(s, p, inside, mask64(l, '{') & ~inside, mask64(l, '}') & ~inside, mask64(v, '\n'), at, cut_at);
    // A cut short block ends at a bracket outside strings: no escape is pending there.
    s->escaped = scanned == 64 ? carry : 0;
    return scanned;
}

#if defined(JSONAPI_WIDE_BLOCKS)
// The block at p, masks made with AVX2; the prefix XOR is a carry-less multiplication by
// all ones.
JSONAPI_WIDE __attribute__((always_inline)) static inline size_t block_wide(jsonapi_element_state *s, const unsigned char *p, int64_t at,
                                                                           int64_t cut_at) {
    const __m256i a = _mm256_loadu_si256((const __m256i *)p), b = _mm256_loadu_si256((const __m256i *)(p + 32));
    const __m256i lower = _mm256_set1_epi8(0x20);
    const __m256i la = _mm256_or_si256(a, lower), lb = _mm256_or_si256(b, lower);
    unsigned char carry = s->escaped;
    const uint64_t escaped = escaped_bytes(mask64_wide(a, b, '\\'), &carry);
    const uint64_t quotes = mask64_wide(a, b, '"') & ~escaped;
    const uint64_t inside = prefix_xor_wide(quotes) ^ (s->in_string ? ~(uint64_t)0 : 0);
    const size_t scanned =
        block_scan(s, p, inside, mask64_wide(la, lb, '{') & ~inside, mask64_wide(la, lb, '}') & ~inside, mask64_wide(a, b, '\n'), at, cut_at);
    s->escaped = scanned == 64 ? carry : 0;
    return scanned;
}

// The block at p, masks made with AVX-512: one load and one compare per mask.
JSONAPI_WIDEST __attribute__((always_inline)) static inline size_t block_widest(jsonapi_element_state *s, const unsigned char *p, int64_t at,
                                                                               int64_t cut_at) {
    const __m512i v = _mm512_loadu_si512((const void *)p);
    const __m512i l = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    unsigned char carry = s->escaped;
    const uint64_t escaped = escaped_bytes(mask64_widest(v, '\\'), &carry);
    const uint64_t quotes = mask64_widest(v, '"') & ~escaped;
    const uint64_t inside = prefix_xor_wide(quotes) ^ (s->in_string ? ~(uint64_t)0 : 0);
    const size_t scanned =
        block_scan(s, p, inside, mask64_widest(l, '{') & ~inside, mask64_widest(l, '}') & ~inside, mask64_widest(v, '\n'), at, cut_at);
    s->escaped = scanned == 64 ? carry : 0;
    return scanned;
}
#endif

// Whole blocks, one after the other, from p while the n bytes there hold another whole
// block, until one is cut short at the bracket that closes an element (see `block_scan` for
// the elements it goes past; `cut_at` as there). Returns the bytes
// scanned. The state is a local copy while it runs (the bytes read are `char`, which may alias
// anything, so through `s` every block would store it all back), so it stays in registers,
// and the masks' constants are loaded once per call rather than once per block.
#define BLOCK_LOOP(block)                                                          \
    jsonapi_element_state st = *s;                                                 \
    size_t i = 0;                                                                  \
    while (i + 64 <= n) {                                                          \
        read_ahead(p + i);                                                         \
        const size_t scanned = block(&st, p + i, at + (int64_t)i, cut_at);         \
        i += scanned;                                                              \
        if (scanned < 64) break;                                                   \
    }                                                                              \
    *s = st;                                                                       \
    return i;

static size_t skip_inside_element_sse2(jsonapi_element_state *s, const unsigned char *p, size_t n, int64_t at, int64_t cut_at) {
    BLOCK_LOOP(block_sse2)
}

#if defined(JSONAPI_WIDE_BLOCKS)
JSONAPI_WIDE static size_t skip_inside_element_wide(jsonapi_element_state *s, const unsigned char *p, size_t n, int64_t at,
                                                    int64_t cut_at) {
    BLOCK_LOOP(block_wide)
}

JSONAPI_WIDEST static size_t skip_inside_element_widest(jsonapi_element_state *s, const unsigned char *p, size_t n, int64_t at,
                                                        int64_t cut_at) {
    BLOCK_LOOP(block_widest)
}
#endif
#undef BLOCK_LOOP

// One way of reading blocks (NULL: none, a byte at a time).
typedef size_t (*block_skipper)(jsonapi_element_state *, const unsigned char *, size_t, int64_t, int64_t);
#endif

int jsonapi_element_scan(const void *bytes, size_t n, size_t cut_from, jsonapi_element_state *s, size_t *cut, int variant) {
    const unsigned char *p = bytes;
    const int64_t base = s->offset;
    // Invariant: bytes p[0..<i] are scanned; s holds the state after them (offset aside).
    size_t i = 0;
#if !defined(__SSE2__)
    (void)variant;
#else
    block_skipper skip = variant == 1 ? NULL : skip_inside_element_sse2;
#if defined(JSONAPI_WIDE_BLOCKS)
    const int width = block_width_for(variant);
    if (width == 2) skip = skip_inside_element_widest;
    else if (width == 1) skip = skip_inside_element_wide;
#endif
#endif
    while (i < n) {
#if defined(__SSE2__)
        // Inside an element (where most bytes are), whole blocks when they can be.
        if (skip && s->splitting && s->depth >= 3 && i + 64 <= n) {
            // Then (cut short, or fewer than 64 bytes left) the bytes that follow, one at a time.
            i += skip(s, p + i, n - i, base + (int64_t)i, base + (int64_t)cut_from);
        }
        // From the bracket that closes an element: its comma, white space and the next
        // element's opening bracket, then blocks again.
        const int back_to_blocks = skip != NULL;
#else
        const int back_to_blocks = 0;
#endif
        // Then up to 64 bytes, one at a time.
        const size_t stop = n - i > 64 ? i + 64 : n;
        for (; i < stop; i++) {
            const unsigned char c = p[i];
            if (c == '\n') {
                s->lines += 1;
                s->line_start = base + (int64_t)i + 1;
            }
            if (!s->splitting) {
                // A document's own bytes: does its top level say `atomic` (jsonapi.ext)?
                unsigned char m = s->atomic_matched;
                m = c == (unsigned char)atomic_word[m] ? (unsigned char)(m + 1) : (unsigned char)(c == 'a');
                if (m == sizeof atomic_word) {
                    s->keep_whole = 1;
                    m = 0;
                }
                s->atomic_matched = m;
            }
            if (s->escaped) {
                s->escaped = 0;
                // `\u` may spell anything, `atomic` too; an escaped name is never `data`.
                if (c == 'u' && !s->splitting) s->keep_whole = 1;
                s->name_candidates = 0;
                continue;
            }
            if (s->in_string) {
                if (c == '"') {
                    s->in_string = 0;
                    if (s->depth == 1) {
                        // A member name, when a colon follows.
                        const unsigned char k = s->name_length, cand = s->name_candidates;
                        s->named = (cand & 1) && k == sizeof data_name ? 1 : (cand & 2) && k == sizeof included_name ? 2 : 0;
                    }
                } else if (c == '\\') {
                    s->escaped = 1;
                } else if (s->depth == 1 && s->name_candidates != 0) {
                    const unsigned char k = s->name_length;
                    unsigned char cand = s->name_candidates;
                    if (!(k < sizeof data_name && c == (unsigned char)data_name[k])) cand &= (unsigned char)~1u;
                    if (!(k < sizeof included_name && c == (unsigned char)included_name[k])) cand &= (unsigned char)~2u;
                    s->name_candidates = cand;
                    s->name_length = (unsigned char)(k + 1);
                }
                continue;
            }
            if (s->splitting) {
                // Inside the array being split (depth 2) or one of its elements (deeper).
                if (is_white(c)) continue;
                if (c == '"') {
                    s->in_string = 1;
                } else if ((c | 0x20) == '{') {
                    s->depth += 1;
                    if (back_to_blocks && s->depth == 3) {
                        s->nonblank = 1;
                        i++;
                        break;
                    }
                } else if ((c | 0x20) == '}') {
                    // A `}` in place of the array's `]` is not JSON: the range that holds it fails
                    // there, and the array goes on to the input's end (what follows is never read).
                    if (s->depth == 2 && c == '}') {
                        s->nonblank = 1;
                        continue;
                    }
                    s->depth -= 1;
                    if (s->depth == 1) {
                        s->splitting = 0;
                        s->atomic_matched = 0;
                        *cut = i;
                        s->offset = base + (int64_t)i + 1;
                        return JSONAPI_ELEMENTS_CLOSE;
                    }
                } else if (c == ',' && s->depth == 2) {
                    s->elements += 1;
                    // A place to cut only after an element: not after the `[` or another comma
                    // (`[,`, `1,,2`), so that the range holding such a comma ends past it and
                    // its parser meets the second comma as one parser does (cut at it, the
                    // range ended in a comma, and its parser met the `]` that closes it).
                    const unsigned char after_element = s->nonblank;
                    s->nonblank = 0;
                    if (i + 1 > cut_from && after_element) {
                        *cut = i + 1;
                        s->offset = base + (int64_t)*cut;
                        return JSONAPI_ELEMENTS_NEXT;
                    }
                    continue;
                }
                s->nonblank = 1;
                continue;
            }
            // A document's own bytes, outside strings.
            if (is_white(c)) continue;
            if (c == '"') {
                s->in_string = 1;
                s->name_candidates = 3;
                s->name_length = 0;
                s->named = 0;
            } else if (c == ':') {
                s->named = s->depth == 1 && (s->named == 1 || s->named == 2) ? (unsigned char)(s->named | 4) : 0;
            } else if ((c | 0x20) == '{') {
                if (s->depth == 0) {
                    s->documents += 1;
                    s->keep_whole = 0;
                    s->atomic_matched = 0;
                }
                if (c == '[' && s->depth == 1 && (s->named & 4) && !s->keep_whole) {
                    s->depth = 2;
                    s->splitting = s->named & 3;
                    s->named = 0;
                    s->elements = 0;
                    s->nonblank = 0;
                    *cut = i + 1;
                    s->offset = base + (int64_t)*cut;
                    return JSONAPI_ELEMENTS_OPEN;
                }
                s->depth += 1;
                s->named = 0;
            } else if ((c | 0x20) == '}') {
                s->depth -= 1;
                s->named = 0;
            } else {
                s->named = 0;
            }
        }
    }
    s->offset = base + (int64_t)n;
    return JSONAPI_ELEMENTS_NONE;
}
