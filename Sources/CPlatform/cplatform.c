#define _GNU_SOURCE
#include "cplatform.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

static _Thread_local double helper_seconds;

double jsonapi_helper_seconds(void) { return helper_seconds; }
void jsonapi_helper_add_seconds(double seconds) { helper_seconds += seconds; }

#if defined(__linux__)
#include <sys/mman.h>

void *jsonapi_mremap(void *old_address, size_t old_size, size_t new_size) {
    void *p = mremap(old_address, old_size, new_size, MREMAP_MAYMOVE);
    return p == MAP_FAILED ? NULL : p;
}

// Freed mappings kept for reuse. A large block (a graph's value store, its tables) is a
// fresh anonymous mapping, whose every page the kernel zeroes when it is first written: for
// a graph of a 128 MB document, about 136 MB. A process that builds one graph after another
// (a service, a crawl, the benchmarks) gets the last one's pages back instead, as `malloc`
// does below its own mapping threshold. Bounded: at most JSONAPI_KEPT_SLOTS mappings and
// `cap` bytes (the oldest go first); all are given back before a memory budget refuses an
// allocation (memory.c).
struct jsonapi_kept_mappings {
    pthread_mutex_t lock;
    struct {
        void *p;
        size_t size;
        int kind;
        uint64_t age;
    } slot[JSONAPI_KEPT_SLOTS];
    int64_t bytes;
    int64_t cap;
    uint64_t clock;
};

static jsonapi_kept_mappings kept_default = {.lock = PTHREAD_MUTEX_INITIALIZER, .cap = (int64_t)256 << 20};

jsonapi_kept_mappings *jsonapi_kept_default(void) { return &kept_default; }

jsonapi_kept_mappings *jsonapi_kept_create(int64_t cap) {
    jsonapi_kept_mappings *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    pthread_mutex_init(&k->lock, NULL);
    k->cap = cap < 0 ? 0 : cap;
    return k;
}

void jsonapi_kept_destroy(jsonapi_kept_mappings *k) {
    jsonapi_kept_release(k, 0);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

// Takes the oldest mapping out of the set into out[*n] (for the caller to unmap once the
// lock is released). Called with the lock held, with at least one mapping kept.
static void take_oldest(jsonapi_kept_mappings *k, void **out, size_t *outSize, int *n) {
    int oldest = -1;
    for (int i = 0; i < JSONAPI_KEPT_SLOTS; i++) {
        if (k->slot[i].p && (oldest < 0 || k->slot[i].age < k->slot[oldest].age)) oldest = i;
    }
    out[*n] = k->slot[oldest].p;
    outSize[(*n)++] = k->slot[oldest].size;
    k->bytes -= (int64_t)k->slot[oldest].size;
    k->slot[oldest].p = NULL;
}

void *jsonapi_kept_take(jsonapi_kept_mappings *k, size_t size, int kind, size_t *whole) {
    pthread_mutex_lock(&k->lock);
    // Whole: the largest (a block that grows, as a value store does, takes all the room it
    // may grow into); else the smallest that fits, its tail unmapped, unless it is more than
    // twice as large (a block of a set size, as a worker's piece is, leaves a large mapping
    // to the block that will grow into it).
    int best = -1;
    for (int i = 0; i < JSONAPI_KEPT_SLOTS; i++) {
        if (!k->slot[i].p || k->slot[i].kind != kind || k->slot[i].size < size) continue;
        if (best < 0 || (whole ? k->slot[i].size > k->slot[best].size : k->slot[i].size < k->slot[best].size)) best = i;
    }
    if (best >= 0 && !whole && k->slot[best].size / 2 > size) best = -1;
    if (best < 0) {
        pthread_mutex_unlock(&k->lock);
        return NULL;
    }
    char *p = k->slot[best].p;
    size_t had = k->slot[best].size;
    k->slot[best].p = NULL;
    k->bytes -= (int64_t)had;
    pthread_mutex_unlock(&k->lock);
    if (whole) {
        *whole = had;
    } else if (had > size) {
        // Both are mapped sizes (whole pages; whole huge pages for a mapping that asked for
        // them): the tail is unmapped whole.
        munmap(p + size, had - size);
    }
    return p;
}

int jsonapi_kept_keep(jsonapi_kept_mappings *k, void *p, size_t size, int kind) {
    void *out[JSONAPI_KEPT_SLOTS];
    size_t outSize[JSONAPI_KEPT_SLOTS];
    int n = 0, keptIt = 0;
    pthread_mutex_lock(&k->lock);
    if ((int64_t)size <= k->cap) {
        // The oldest go until this one fits, in bytes and in slots. (With every slot empty
        // nothing is kept, and `size` is within the cap: the loop ends before it runs out.)
        for (;;) {
            int empty = -1;
            for (int i = 0; i < JSONAPI_KEPT_SLOTS; i++) {
                if (!k->slot[i].p) empty = i;
            }
            if (empty >= 0 && k->bytes + (int64_t)size <= k->cap) {
                k->slot[empty].p = p;
                k->slot[empty].size = size;
                k->slot[empty].kind = kind;
                k->slot[empty].age = ++k->clock;
                k->bytes += (int64_t)size;
                keptIt = 1;
                break;
            }
            take_oldest(k, out, outSize, &n);
        }
    }
    pthread_mutex_unlock(&k->lock);
    for (int i = 0; i < n; i++) munmap(out[i], outSize[i]);
    return keptIt;
}

int64_t jsonapi_kept_release(jsonapi_kept_mappings *k, int64_t down_to) {
    void *out[JSONAPI_KEPT_SLOTS];
    size_t outSize[JSONAPI_KEPT_SLOTS];
    int n = 0;
    int64_t freed = 0;
    pthread_mutex_lock(&k->lock);
    while (k->bytes > down_to) take_oldest(k, out, outSize, &n);
    pthread_mutex_unlock(&k->lock);
    for (int i = 0; i < n; i++) {
        munmap(out[i], outSize[i]);
        freed += (int64_t)outSize[i];
    }
    return freed;
}

void jsonapi_kept_set_cap(jsonapi_kept_mappings *k, int64_t cap) {
    pthread_mutex_lock(&k->lock);
    k->cap = cap < 0 ? 0 : cap;
    pthread_mutex_unlock(&k->lock);
    jsonapi_kept_release(k, cap < 0 ? 0 : cap);
}

void jsonapi_kept_state(jsonapi_kept_mappings *k, int64_t *bytes, int64_t *cap) {
    pthread_mutex_lock(&k->lock);
    *bytes = k->bytes;
    *cap = k->cap;
    pthread_mutex_unlock(&k->lock);
}

#else
void *jsonapi_mremap(void *old_address, size_t old_size, size_t new_size) {
    (void)old_address; (void)old_size; (void)new_size;
    return NULL;
}

// Elsewhere blocks are not mapped (LargeAllocation uses malloc): nothing is kept.
struct jsonapi_kept_mappings {
    int64_t cap;
};
static jsonapi_kept_mappings kept_default;
jsonapi_kept_mappings *jsonapi_kept_default(void) { return &kept_default; }
jsonapi_kept_mappings *jsonapi_kept_create(int64_t cap) {
    jsonapi_kept_mappings *k = calloc(1, sizeof *k);
    if (k) k->cap = cap;
    return k;
}
void jsonapi_kept_destroy(jsonapi_kept_mappings *k) { free(k); }
void *jsonapi_kept_take(jsonapi_kept_mappings *k, size_t size, int kind, size_t *whole) { (void)k; (void)size; (void)kind; (void)whole; return NULL; }
int jsonapi_kept_keep(jsonapi_kept_mappings *k, void *p, size_t size, int kind) { (void)k; (void)p; (void)size; (void)kind; return 0; }
int64_t jsonapi_kept_release(jsonapi_kept_mappings *k, int64_t down_to) { (void)k; (void)down_to; return 0; }
void jsonapi_kept_set_cap(jsonapi_kept_mappings *k, int64_t cap) { k->cap = cap; }
void jsonapi_kept_state(jsonapi_kept_mappings *k, int64_t *bytes, int64_t *cap) { *bytes = 0; *cap = k->cap; }
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
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

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

long jsonapi_l2_cache_bytes(void) {
#if defined(_SC_LEVEL2_CACHE_SIZE)
    long n = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return n > 0 ? n : 0;
#elif defined(__APPLE__)
    int64_t n = 0;
    size_t size = sizeof n;
    return sysctlbyname("hw.l2cachesize", &n, &size, NULL, 0) == 0 && n > 0 ? (long)n : 0;
#else
    return 0;
#endif
}

int jsonapi_current_cpu(void) {
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

int jsonapi_leave_creator_cpu(int creator_cpu) {
#if defined(__linux__)
    // JSONAPI_THREADS_STAY set: new threads start where the system puts them (to measure
    // what the move gives: docs/performance.md).
    if (creator_cpu < 0 || getenv("JSONAPI_THREADS_STAY") != NULL) return -1;
    if (sched_getcpu() != creator_cpu) return -1;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
    if (creator_cpu >= CPU_SETSIZE || !CPU_ISSET(creator_cpu, &allowed) || CPU_COUNT(&allowed) < 2) return -1;
    cpu_set_t others = allowed;
    CPU_CLR(creator_cpu, &others);
    if (sched_setaffinity(0, sizeof others, &others) != 0) return -1;
    // (Not on `creator_cpu` now: the kernel moved the thread before the call returned.)
    int moved_to = sched_getcpu();
    (void)sched_setaffinity(0, sizeof allowed, &allowed);
    return moved_to;
#else
    (void)creator_cpu;
    return -1;
#endif
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
