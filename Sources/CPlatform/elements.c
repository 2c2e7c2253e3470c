// The element splitter of the parallel reader: finds where the elements of a document's
// top-level `data` and `included` arrays begin and end, so that one large document can be
// parsed by separate workers, a range of whole elements each. A byte at a time.
#include "cplatform.h"
#include <stdint.h>

static const char data_name[4] = {'d', 'a', 't', 'a'};
static const char included_name[8] = {'i', 'n', 'c', 'l', 'u', 'd', 'e', 'd'};
static const char atomic_word[6] = {'a', 't', 'o', 'm', 'i', 'c'};

static inline int is_white(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

int jsonapi_element_scan(const void *bytes, size_t n, size_t cut_from, jsonapi_element_state *s,
                         size_t *cut) {
    const unsigned char *p = bytes;
    const int64_t base = s->offset;
    // Invariant: bytes p[0..<i] are scanned; s holds the state after them (offset aside).
    for (size_t i = 0; i < n; i++) {
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
                if (i + 1 > cut_from && s->nonblank) {
                    s->nonblank = 0;
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
    s->offset = base + (int64_t)n;
    return JSONAPI_ELEMENTS_NONE;
}
