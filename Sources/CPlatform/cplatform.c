#define _GNU_SOURCE
#include "cplatform.h"

#if defined(__linux__)
#include <sys/mman.h>

void *jsonapi_mremap(void *old_address, size_t old_size, size_t new_size) {
    void *p = mremap(old_address, old_size, new_size, MREMAP_MAYMOVE);
    return p == MAP_FAILED ? NULL : p;
}
#else
void *jsonapi_mremap(void *old_address, size_t old_size, size_t new_size) {
    (void)old_address; (void)old_size; (void)new_size;
    return NULL;
}
#endif
