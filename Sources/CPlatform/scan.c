// The vector part of StructuralScanner: skips runs of "plain" input 64 bytes at a time with
// AVX2 where the processor has it (valid UTF-8 and escapes in strings included), else 32 at a
// time with SSE2 (ASCII without escaped quotes or backslashes only).
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
// UTF-8 checked 32 bytes at a time: the lookup-table method of Keiser and Lemire
// ("Validating UTF-8 in less than one instruction per byte", 2021). Each byte is classified
// with the byte before it by three table lookups on nibbles (the first byte's high and low
// nibbles, the second byte's high nibble), whose AND has a bit set for each way the pair can
// be wrong; where a byte must be the third or fourth of a sequence (two or three bytes after
// a lead of three or four), the pair "continuation after continuation" is required instead
// of refused.
enum {
    U8_TOO_SHORT = 1 << 0,  // a lead, then no continuation
    U8_TOO_LONG = 1 << 1,   // ASCII, then a continuation
    U8_OVERLONG_3 = 1 << 2, // E0 80..9F
    U8_TOO_LARGE = 1 << 3,  // F4 90..BF, F5..FF then a continuation
    U8_SURROGATE = 1 << 4,  // ED A0..BF
    U8_OVERLONG_2 = 1 << 5, // C0 or C1, then a continuation
    U8_TOO_LARGE_1000 = 1 << 6, // F5..FF 80..8F
    U8_OVERLONG_4 = 1 << 6,     // F0 80..8F
    U8_TWO_CONTS = 1 << 7,      // a continuation after a continuation
    U8_CARRY = U8_TOO_SHORT | U8_TOO_LONG | U8_TWO_CONTS,
};

// The 32 bytes of the pair (prev, cur) shifted by k bytes: the last k of prev, then cur's first 32 - k.
#define U8_PREV(cur, prev, k) _mm256_alignr_epi8((cur), _mm256_permute2x128_si256((prev), (cur), 0x21), 16 - (k))

// The three tables (the same 16 entries in each 16-byte lane).
static const uint8_t utf8_first_high[16] = {
    // 0___: ASCII first.
    U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG, U8_TOO_LONG,
    // 10__: a continuation first.
    U8_TWO_CONTS, U8_TWO_CONTS, U8_TWO_CONTS, U8_TWO_CONTS,
    // 1100, 1101: a lead of two; 1110: of three; 1111: of four (or more).
    U8_TOO_SHORT | U8_OVERLONG_2, U8_TOO_SHORT, U8_TOO_SHORT | U8_OVERLONG_3 | U8_SURROGATE,
    U8_TOO_SHORT | U8_TOO_LARGE | U8_TOO_LARGE_1000 | U8_OVERLONG_4};
#define U8_LARGE (U8_CARRY | U8_TOO_LARGE | U8_TOO_LARGE_1000)
static const uint8_t utf8_first_low[16] = {
    U8_CARRY | U8_OVERLONG_3 | U8_OVERLONG_2 | U8_OVERLONG_4, // _0: C0, E0, F0
    U8_CARRY | U8_OVERLONG_2,                                 // _1: C1
    U8_CARRY, U8_CARRY,                                       // _2, _3
    U8_CARRY | U8_TOO_LARGE,                                  // _4: F4
    U8_LARGE, U8_LARGE, U8_LARGE, U8_LARGE, U8_LARGE, U8_LARGE, U8_LARGE, U8_LARGE, // _5 to _C: F5 to FC
    U8_LARGE | U8_SURROGATE,                                  // _D: ED, FD
    U8_LARGE, U8_LARGE};                                      // _E, _F
#undef U8_LARGE
static const uint8_t utf8_second_high[16] = {
    // 0___: ASCII second.
    U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT,
    // 1000, 1001, 101_: a continuation second.
    U8_TOO_LONG | U8_OVERLONG_2 | U8_TWO_CONTS | U8_OVERLONG_3 | U8_TOO_LARGE_1000 | U8_OVERLONG_4,
    U8_TOO_LONG | U8_OVERLONG_2 | U8_TWO_CONTS | U8_OVERLONG_3 | U8_TOO_LARGE,
    U8_TOO_LONG | U8_OVERLONG_2 | U8_TWO_CONTS | U8_SURROGATE | U8_TOO_LARGE,
    U8_TOO_LONG | U8_OVERLONG_2 | U8_TWO_CONTS | U8_SURROGATE | U8_TOO_LARGE,
    // 11__: a lead second.
    U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT, U8_TOO_SHORT};

JSONAPI_WIDE static inline __m256i utf8_table(const uint8_t t[16]) {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
}

// The UTF-8 errors of the 32 bytes `cur` (after `prev`): a byte other than zero where a
// sequence that reaches that byte is wrong (one that runs past `cur` is the next call's, or
// `utf8_ends_open`'s).
JSONAPI_WIDE static inline __m256i utf8_errors(__m256i cur, __m256i prev) {
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i prev1 = U8_PREV(cur, prev, 1);
    // The nibbles: a 16-bit shift moves bits across bytes, the mask drops them.
    const __m256i cases = _mm256_and_si256(
        _mm256_and_si256(_mm256_shuffle_epi8(utf8_table(utf8_first_high), _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nibble)),
                         _mm256_shuffle_epi8(utf8_table(utf8_first_low), _mm256_and_si256(prev1, nibble))),
        _mm256_shuffle_epi8(utf8_table(utf8_second_high), _mm256_and_si256(_mm256_srli_epi16(cur, 4), nibble)));
    // Bytes two after a lead of three or four bytes, or three after a lead of four, must be
    // continuations: bit 7 set where so (unsigned saturating subtraction keeps it only there).
    const __m256i third = _mm256_subs_epu8(U8_PREV(cur, prev, 2), _mm256_set1_epi8((char)(0xE0 - 0x80)));
    const __m256i fourth = _mm256_subs_epu8(U8_PREV(cur, prev, 3), _mm256_set1_epi8((char)(0xF0 - 0x80)));
    const __m256i must23 = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    return _mm256_xor_si256(must23, cases);
}

// Whether the last 32 bytes of a block, b, end inside a UTF-8 sequence: the last byte a lead,
// the one before it a lead of three or four, or the one before that a lead of four.
JSONAPI_WIDE static inline int utf8_ends_open(__m256i b) {
    static const uint8_t last_bytes[32] = {
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0 - 1, 0xE0 - 1, 0xC0 - 1};
    const __m256i open = _mm256_subs_epu8(b, _mm256_loadu_si256((const __m256i *)last_bytes));
    return !_mm256_testz_si256(open, open);
}

// Where a 64-byte skip is: the bytes skipped, whether they end inside a string, and the last
// block with quotes among them (its offset, SIZE_MAX when none, and its unescaped quotes).
typedef struct {
    size_t end;
    size_t quotes_at;
    uint64_t last_quotes;
    unsigned char in;
} plain_skip;

// The same skip 64 bytes at a time with AVX2, where the processor has it (about half the
// instructions per byte of the 32-byte loop). Bytes of 0x80 and more are skipped too when
// they are valid UTF-8 (text in other scripts than Latin's does not go byte by byte), and
// escapes of every kind inside strings (escaped quotes do not count): a sequence or an escape
// may run from one block into the next, but the skip never ends inside one. It stops at the
// first block of 64 that needs a closer look; the 32-byte loop then takes what it can of
// that block.
JSONAPI_WIDE static size_t skip_plain_wide(const unsigned char *p, size_t n, unsigned char *inside,
                                           size_t *open_quote) {
    const __m256i lim = _mm256_set1_epi8(0x0E);
    plain_skip at = {0, SIZE_MAX, 0, *inside};
    // Whether the bytes skipped so far end inside a UTF-8 sequence (`open`) or before a byte a
    // backslash escapes (`carry`); while either does (`pending`), `whole` is where they last
    // ended between sequences and escapes. A skip that stops while pending goes back there.
    unsigned char open = 0, carry = 0, pending = 0;
    plain_skip whole = at;
    while (at.end + 64 <= n) {
        const size_t i = at.end;
        read_ahead(p + i);
        const __m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(p + i + 32));
        // Signed compare: bytes of 0x80 and more are negative, so they are "below 0x0E" too.
        const uint64_t special = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(lim, a))
            | ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(lim, b)) << 32);
        uint64_t quotes = mask64_wide(a, b, 0x22);
        const uint64_t backslashes = mask64_wide(a, b, 0x5C);
        if ((special | backslashes) != 0 || pending) {
            if (special != 0 || open) {
                // Bytes below 0x0E (line feeds, form feeds...) stop; bytes of 0x80 and more
                // when they are not valid UTF-8 (with the 32 bytes before them: a sequence may
                // begin there; before the first block, none is open).
                const uint64_t non_ascii = (uint64_t)(uint32_t)_mm256_movemask_epi8(a) | ((uint64_t)(uint32_t)_mm256_movemask_epi8(b) << 32);
                if ((special & ~non_ascii) != 0) break;
                const __m256i prev = i == 0 ? _mm256_setzero_si256() : _mm256_loadu_si256((const __m256i *)(p + i - 32));
                const __m256i errors = _mm256_or_si256(utf8_errors(a, prev), utf8_errors(b, a));
                if (!_mm256_testz_si256(errors, errors)) break;
                open = non_ascii != 0 && utf8_ends_open(b);
            }
            if (backslashes != 0 || carry) {
                // Escaped quotes are not quotes. A backslash escapes only inside a string (the
                // scalar path passes over one elsewhere, which is not JSON): one outside stops.
                unsigned char c = carry;
                const uint64_t escaped = escaped_bytes(backslashes, &c);
                quotes &= ~escaped;
                const uint64_t inside_strings = prefix_xor_wide(quotes) ^ (at.in ? ~(uint64_t)0 : 0);
                if ((backslashes & ~escaped & ~inside_strings) != 0) break;
                carry = c;
            }
            if (!pending) whole = at;
            pending = open | carry;
        }
        if (quotes != 0) {
            at.in ^= (unsigned char)(__builtin_popcountll(quotes) & 1);
            at.quotes_at = i;
            at.last_quotes = quotes;
        }
        at.end = i + 64;
    }
    if (!pending) whole = at;
    // Invariant: bytes p[0..<whole.end] end between UTF-8 sequences and escapes, and whole.in
    // is the string state after them; a string open there was opened by the last quote among
    // them, in the block at whole.quotes_at (when it is one of them).
    if (whole.in && whole.quotes_at != SIZE_MAX) *open_quote = whole.quotes_at + 63 - (size_t)__builtin_clzll(whole.last_quotes);
    *inside = whole.in;
    return whole.end;
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

int jsonapi_wide_blocks(void) {
#if defined(JSONAPI_WIDE_BLOCKS)
    return wide_blocks_supported();
#else
    return 0;
#endif
}
