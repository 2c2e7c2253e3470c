// Platform calls the Swift overlay does not expose (Linux-only ones need _GNU_SOURCE).
#ifndef JSONAPISTREAM_CPLATFORM_H
#define JSONAPISTREAM_CPLATFORM_H

#include <stddef.h>

/// Grows (or moves) an anonymous mapping; returns NULL on failure. Linux only; elsewhere
/// always NULL, and callers copy instead.
void *jsonapi_mremap(void *old_address, size_t old_size, size_t new_size);

#endif
