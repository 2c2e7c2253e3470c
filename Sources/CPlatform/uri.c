// The hot loop of the URI-reference check (SyntaxRules.isURIReference): links repeat in
// every resource, and most of their bytes need no closer look.
#include "cplatform.h"

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

size_t jsonapi_uri_plain_prefix(const void *bytes, size_t n) {
    const unsigned char *p = bytes;
    size_t i = 0;
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
