#define _GNU_SOURCE
#include "cplatform.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

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

// The calling thread's stack bounds, found once per thread. 0 in both: not yet looked up;
// low == high: unknown (then jsonapi_stack_room always answers yes).
static __thread uintptr_t stack_low, stack_high;

static void find_stack(void) {
    uintptr_t low = 0, high = 0;
#if defined(__APPLE__)
    pthread_t self = pthread_self();
    high = (uintptr_t)pthread_get_stackaddr_np(self);
    low = high - pthread_get_stacksize_np(self);
#elif defined(__linux__)
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *addr = NULL;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            low = (uintptr_t)addr;
            high = low + size;
        }
        pthread_attr_destroy(&attr);
    }
#endif
    if (high <= low) low = high = 1;
    stack_low = low;
    stack_high = high;
}

int jsonapi_stack_room(size_t reserve) {
    if (stack_high == 0) find_stack();
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    // Unknown bounds, or a frame outside them (a stack the lookup did not describe, such as
    // a coroutine's): no claim either way.
    if (stack_low == stack_high || here < stack_low || here >= stack_high) return 1;
    return here - stack_low >= reserve;
}

#if defined(__linux__)
#include <sched.h>
#endif
#include <unistd.h>

int jsonapi_usable_cores(void) {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void jsonapi_name_this_thread(const char *name) {
#if defined(__linux__)
    // Linux takes at most 15 bytes and a terminating NUL, and refuses longer names.
    char shortened[16];
    size_t n = strlen(name);
    if (n > 15) n = 15;
    memcpy(shortened, name, n);
    shortened[n] = 0;
    (void)pthread_setname_np(pthread_self(), shortened);
#elif defined(__APPLE__)
    (void)pthread_setname_np(name);
#else
    (void)name;
#endif
}
