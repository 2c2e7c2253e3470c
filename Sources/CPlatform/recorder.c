// The parsing side of the pipeline, in C: yajl's callbacks append events to the tape
// (the format is EventTape.swift's; TapeReplayer reads it). What is rare calls back into
// Swift (TapeRecorder, which owns the tape's storage): an escaped string that needs the full
// check, growing the tape, handing a full block over.
#include "cplatform.h"
#include <stdint.h>
#include <string.h>
#ifdef DEBUG
#include <assert.h>
#endif

// yajl's own header (the CYajl system library's; the final link brings libyajl).
#include <yajl/yajl_parse.h>

// TapeKind's raw values (EventTape.swift; a test compares the two).
enum {
    kStartObject = JSONAPI_TAPE_START_OBJECT, kEndObject = JSONAPI_TAPE_END_OBJECT,
    kStartArray = JSONAPI_TAPE_START_ARRAY, kEndArray = JSONAPI_TAPE_END_ARRAY,
    kKey = JSONAPI_TAPE_KEY, kEscapedKey = JSONAPI_TAPE_ESCAPED_KEY, kString = JSONAPI_TAPE_STRING,
    kEscapedString = JSONAPI_TAPE_ESCAPED_STRING, kNumber = JSONAPI_TAPE_NUMBER,
    kTrue = JSONAPI_TAPE_TRUE, kFalse = JSONAPI_TAPE_FALSE, kNull = JSONAPI_TAPE_NULL
};

// The absolute offset just past the token being reported, from yajl's byte count.
static inline int64_t token_end(const jsonapi_recorder *r) {
    return r->completing ? r->input_end : r->feeding_base + (int64_t)yajl_get_bytes_consumed(r->yajl);
}

// A block that reached its limit goes to the building thread (0: it stopped; yajl cancels).
static inline int after_event(jsonapi_recorder *r) {
    if (r->count >= r->limit) return r->hand_over(r->owner);
    return 1;
}

static inline int record_simple(void *ctx, unsigned char kind) {
    jsonapi_recorder *r = ctx;
    int64_t end = token_end(r);
    if (r->count + 9 > r->capacity && !r->reserve(r->owner, 9)) return 0;
    unsigned char *p = r->base + r->count;
    p[0] = kind;
    memcpy(p + 1, &end, 8);
    r->count += 9;
    return after_event(r);
}

#if defined(__has_builtin)
#if __has_builtin(__builtin_memcpy_inline)
#define JSONAPI_MEMCPY_INLINE 1
#endif
#endif

// Sixteen bytes, inline (a call to memcpy costs more than the copy).
static inline void copy16(unsigned char *dst, const unsigned char *src) {
#ifdef JSONAPI_MEMCPY_INLINE
    __builtin_memcpy_inline(dst, src, 16);
#else
    memcpy(dst, src, 16);
#endif
}

static inline void write_header(unsigned char *p, unsigned char kind, size_t n, int64_t end) {
    uint32_t length = (uint32_t)n;
    p[0] = kind;
    memcpy(p + 1, &end, 8);
    memcpy(p + 9, &length, 4);
}

// Longer texts, texts near the end of the buffer, and a tape that must grow: out of line, so
// that the common path below calls nothing and saves no registers.
__attribute__((noinline))
static int record_bytes_slowly(jsonapi_recorder *r, unsigned char kind, const unsigned char *s,
                               size_t n, int64_t end) {
    if (r->count + 13 + n > r->capacity && !r->reserve(r->owner, 13 + n)) return 0;
    unsigned char *p = r->base + r->count;
    write_header(p, kind, n, end);
    if (n > 0) memcpy(p + 13, s, n);
    r->count += 13 + n;
    return after_event(r);
}

// `readable_end`: how far bytes may be read from `s` (the source buffer's end; `s + n` when
// the text is somewhere else). Texts of up to 16 bytes are copied as 16 bytes at once (the
// copy's tail is overwritten by the next event).
static inline int record_bytes(jsonapi_recorder *r, unsigned char kind, const unsigned char *s,
                               size_t n, int64_t end, const unsigned char *readable_end) {
    if (n > 16 || (size_t)(readable_end - s) < 16 || r->count + 13 + 16 > r->capacity)
        return record_bytes_slowly(r, kind, s, n, end);
    unsigned char *p = r->base + r->count;
    write_header(p, kind, n, end);
    // Invariant: [s, s + 16) is readable (checked above) and p + 13 has 16 bytes of room.
    copy16(p + 13, s);
    r->count += 13 + n;
    return after_event(r);
}

// The end of a token whose text lies in the source buffer, from where that text ends
// (`closing` is 1 for a string's closing quote, 0 for a number): what yajl's count says,
// without asking it. Debug builds (the test suite) check that both agree.
static inline int64_t end_after(const jsonapi_recorder *r, const unsigned char *s, size_t n, int closing) {
    int64_t end = r->feeding_base + (int64_t)(s + n - r->source_start) + closing;
#ifdef DEBUG
    assert(end == token_end(r));
#endif
    return end;
}

// Whether yajl reports the text where it lies in the buffer being parsed (not in its own
// buffer, where it puts unescaped strings and tokens it had to gather).
static inline int in_source(const jsonapi_recorder *r, const unsigned char *s, size_t n) {
    return s != NULL && ((s >= r->source_start && s < r->source_end) || (n == 0 && s == r->source_end));
}

// Escaped strings and names. yajl reports them unescaped, from its own buffer; the event also
// carries where the token starts in the source. yajl has accepted the token's escapes and the
// pre-scan its bytes, so what needs a second reading (in Swift, LexicalScanner) is a token with
// a \u escape (an unpaired surrogate, J03) or one longer than the limit; so is anything
// unusual (completing, a token not ending where yajl's count says). Swift's
// `LexicalScanner.checkEscapedString` draws the same line.

ptrdiff_t jsonapi_string_token_start(const void *bytes, size_t end) {
    const unsigned char *src = bytes;
    size_t i = end - 1;
    while (i > 0) {
        i--;
        if (src[i] != '"') continue;
        size_t backslashes = 0;
        while (backslashes < i && src[i - 1 - backslashes] == '\\') backslashes++;
        if ((backslashes & 1) == 0) return (ptrdiff_t)i;
    }
    return -1;
}

int jsonapi_has_unicode_escape(const void *bytes, size_t n) {
    const unsigned char *p = bytes;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '\\') continue;
        if (i + 1 < n && p[i + 1] == 'u') return 1;
        i++;
    }
    return 0;
}

int jsonapi_record_escaped_event(jsonapi_recorder *r, int is_key, const unsigned char *s, size_t n,
                                 long long start) {
    int64_t token_end_offset = token_end(r);
    if (r->count + 21 + n > r->capacity && !r->reserve(r->owner, 21 + n)) return 0;
    unsigned char *p = r->base + r->count;
    int64_t start64 = start;
    write_header(p, is_key ? kEscapedKey : kEscapedString, n, token_end_offset);
    if (n > 0) memcpy(p + 13, s, n);
    memcpy(p + 13 + n, &start64, 8);
    r->count += 21 + n;
    return after_event(r);
}

__attribute__((noinline))
static int record_escaped(jsonapi_recorder *r, int is_key, const unsigned char *s, size_t n) {
    if (r->completing) return r->escaped(r->owner, is_key, s, n);
    const unsigned char *src = r->source_start;
    size_t end = yajl_get_bytes_consumed(r->yajl);
    size_t available = (size_t)(r->source_end - src);
    if (end > available) end = available;
    if (end < 2 || src[end - 1] != '"') return r->escaped(r->owner, is_key, s, n);
    ptrdiff_t first = jsonapi_string_token_start(src, end);
    if (first < 0) return r->escaped(r->owner, is_key, s, n);
    size_t length = end - (size_t)first;
    if (length - 2 > r->max_string_bytes || jsonapi_has_unicode_escape(src + first, length))
        return r->escaped(r->owner, is_key, s, n);
    return jsonapi_record_escaped_event(r, is_key, s, n, r->feeding_base + (long long)first);
}

int jsonapi_record_null(void *ctx) { return record_simple(ctx, kNull); }
int jsonapi_record_boolean(void *ctx, int value) { return record_simple(ctx, value ? kTrue : kFalse); }
int jsonapi_record_start_map(void *ctx) { return record_simple(ctx, kStartObject); }
int jsonapi_record_end_map(void *ctx) { return record_simple(ctx, kEndObject); }
int jsonapi_record_start_array(void *ctx) { return record_simple(ctx, kStartArray); }
int jsonapi_record_end_array(void *ctx) { return record_simple(ctx, kEndArray); }

int jsonapi_record_number(void *ctx, const char *text, size_t n) {
    jsonapi_recorder *r = ctx;
    const unsigned char *s = (const unsigned char *)text;
    // While completing, a number at the end of the input may be in yajl's own buffer.
    if (!r->completing && in_source(r, s, n))
        return record_bytes(r, kNumber, s, n, end_after(r, s, n, 0), r->source_end);
    return record_bytes(r, kNumber, s, n, token_end(r), s + n);
}

// A string in the source ends with its closing quote, one byte after its text.
int jsonapi_record_string(void *ctx, const unsigned char *s, size_t n) {
    jsonapi_recorder *r = ctx;
    if (in_source(r, s, n))
        return record_bytes(r, kString, s, n, end_after(r, s, n, 1), r->source_end);
    return record_escaped(r, 0, s, n);
}

int jsonapi_record_key(void *ctx, const unsigned char *s, size_t n) {
    jsonapi_recorder *r = ctx;
    if (in_source(r, s, n))
        return record_bytes(r, kKey, s, n, end_after(r, s, n, 1), r->source_end);
    return record_escaped(r, 1, s, n);
}

long long jsonapi_recorder_token_end(const jsonapi_recorder *r) { return token_end(r); }
