// Platform calls the Swift overlay does not expose (Linux-only ones need _GNU_SOURCE).
#ifndef JSONAPISTREAM_CPLATFORM_H
#define JSONAPISTREAM_CPLATFORM_H

#include <stddef.h>

/// Grows (or moves) an anonymous mapping; returns NULL on failure. Linux only; elsewhere
/// always NULL, and callers copy instead.
void *jsonapi_mremap(void *old_address, size_t old_size, size_t new_size);

/// Skips the longest prefix of `p[0..<n]` made of whole 32-byte blocks that hold no byte
/// below 0x0E, no backslash and no byte of 0x80 or more, and returns its length (a multiple
/// of 32, possibly 0; always 0 without SSE2). Quotes in it flip `*in_string`; when the
/// prefix ends inside a string opened in it, `*open_quote` is set to that quote's index.
/// Reads only the bytes `p[0..<n]`.
size_t jsonapi_skip_plain(const void *p, size_t n, unsigned char *in_string,
                          size_t *open_quote);

/// The length of the longest prefix of `p[0..<n]` whose bytes a URI-reference may hold and
/// that need no closer look once its first delimiter is behind: A-Z a-z 0-9 and
/// - . _ ~ : / ? @ ! $ & ' ( ) * + , ; =  (not % # [ ], nor any byte a URI may not hold).
/// Reads only the bytes `p[0..<n]`.
size_t jsonapi_uri_plain_prefix(const void *p, size_t n);

#endif
