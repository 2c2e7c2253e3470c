// The memory budget (JSONAPIStream/Platform/MemoryBudget.swift): what the process holds,
// read from /proc/self/statm, against caps derived from the process's limits; allocation
// functions for yajl that refuse past the budget or on failure; and a guarded yajl_parse
// that turns such a refusal into a status instead of the NULL dereference yajl would make
// (yajl never checks what its allocator returns).
#define _GNU_SOURCE
#include "cplatform.h"

#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>

// yajl's own header (the CYajl system library's; the final link brings libyajl).
#include <yajl/yajl_parse.h>

// Caps in bytes (0: none), the figures last read, what was reserved since, and the sticky
// overrun flag. Relaxed atomics: the figures are estimates and the flag is only ever set
// between checks (a late sighting costs one more piece of input, never a wrong result).
static _Atomic int64_t cap_virtual = 0;
static _Atomic int64_t cap_resident = 0;
static _Atomic int64_t seen_virtual = 0;
static _Atomic int64_t seen_resident = 0;
static _Atomic int64_t reserved_since = 0;
static _Atomic int overrun = 0;
static _Atomic int64_t refused_bytes = 0;
// What yajl's allocations made on this thread hold, and the most since the last reset on this
// thread: a parse's own figure, whatever other threads parse meanwhile (yajl allocates on the
// thread that runs yajl_parse; a block freed on another thread lowers that thread's count).
static __thread int64_t yajl_bytes = 0;
static __thread int64_t yajl_peak = 0;
static _Atomic int64_t progress_offset = -1;

static long page_size(void) {
    static long size = 0;
    if (size == 0) { size = sysconf(_SC_PAGESIZE); if (size <= 0) size = 4096; }
    return size;
}

#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23
#endif

void *jsonapi_calloc_written(size_t count, size_t size) {
    void *p = calloc(count, size);
    // calloc checked `count * size` for overflow.
    if (p == NULL || count * size < 64 * 1024) return p;
    const uintptr_t ps = (uintptr_t)page_size();
    const uintptr_t start = ((uintptr_t)p + ps - 1) & ~(ps - 1), end = ((uintptr_t)p + count * size) & ~(ps - 1);
    if (end <= start) return p;
#if defined(__linux__)
    if (madvise((void *)start, end - start, MADV_POPULATE_WRITE) == 0) return p;
#endif
    // Invariant: [start, end) lies in the zeroed allocation; writing a zero changes nothing
    // but the mapping (volatile, so that the compiler keeps stores it knows change no byte).
    for (uintptr_t q = start; q < end; q += ps) *(volatile unsigned char *)q = 0;
    return p;
}

int jsonapi_memory_read(int64_t *virtual_bytes, int64_t *resident_bytes) {
#if defined(__linux__)
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char text[128];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = 0;
    char *end = NULL;
    long long pages = strtoll(text, &end, 10);
    long long resident = end ? strtoll(end, NULL, 10) : 0;
    *virtual_bytes = (int64_t)pages * page_size();
    *resident_bytes = (int64_t)resident * page_size();
    return 1;
#else
    (void)virtual_bytes; (void)resident_bytes;
    return 0;
#endif
}

void jsonapi_memory_set_caps(int64_t virtual_cap, int64_t resident_cap) {
    atomic_store_explicit(&cap_virtual, virtual_cap, memory_order_relaxed);
    atomic_store_explicit(&cap_resident, resident_cap, memory_order_relaxed);
    atomic_store_explicit(&overrun, 0, memory_order_relaxed);
    atomic_store_explicit(&refused_bytes, 0, memory_order_relaxed);
    jsonapi_memory_check();
}

void jsonapi_memory_caps(int64_t *virtual_cap, int64_t *resident_cap) {
    *virtual_cap = atomic_load_explicit(&cap_virtual, memory_order_relaxed);
    *resident_cap = atomic_load_explicit(&cap_resident, memory_order_relaxed);
}

int jsonapi_memory_active(void) {
    return atomic_load_explicit(&cap_virtual, memory_order_relaxed) > 0
        || atomic_load_explicit(&cap_resident, memory_order_relaxed) > 0;
}

static int over(int64_t virtual_bytes, int64_t resident_bytes) {
    int64_t cv = atomic_load_explicit(&cap_virtual, memory_order_relaxed);
    int64_t cr = atomic_load_explicit(&cap_resident, memory_order_relaxed);
    return (cv > 0 && virtual_bytes > cv) || (cr > 0 && resident_bytes > cr);
}

int jsonapi_memory_check(void) {
    if (!jsonapi_memory_active()) return 1;
    int64_t v = 0, r = 0;
    if (!jsonapi_memory_read(&v, &r)) return !atomic_load_explicit(&overrun, memory_order_relaxed);
    // Over: the freed mappings kept for reuse (cplatform.c) are given back first, and the
    // figures read again.
    if (over(v, r) && jsonapi_kept_release(jsonapi_kept_default(), 0) > 0 && !jsonapi_memory_read(&v, &r)) {
        return !atomic_load_explicit(&overrun, memory_order_relaxed);
    }
    atomic_store_explicit(&seen_virtual, v, memory_order_relaxed);
    atomic_store_explicit(&seen_resident, r, memory_order_relaxed);
    atomic_store_explicit(&reserved_since, 0, memory_order_relaxed);
    if (over(v, r)) atomic_store_explicit(&overrun, 1, memory_order_relaxed);
    return !atomic_load_explicit(&overrun, memory_order_relaxed);
}

int jsonapi_memory_reserve(int64_t n) {
    if (n <= 0 || !jsonapi_memory_active()) return 1;
    // A large request reads the real figures first: what grew without asking (a thread's
    // stack and malloc arena, Swift arrays) is then counted too. Large requests are rare
    // (buffers grow geometrically), so this costs one small read now and then.
    if (n >= ((int64_t)1 << 20)) jsonapi_memory_check();
    int64_t since = atomic_fetch_add_explicit(&reserved_since, n, memory_order_relaxed) + n;
    int64_t v = atomic_load_explicit(&seen_virtual, memory_order_relaxed) + since;
    int64_t r = atomic_load_explicit(&seen_resident, memory_order_relaxed) + since;
    if (!over(v, r)) return 1;
    // The estimate says no: read the real figures before refusing (which gives back the
    // freed mappings kept for reuse, should they be what is over).
    jsonapi_memory_check();
    since = atomic_fetch_add_explicit(&reserved_since, n, memory_order_relaxed) + n;
    v = atomic_load_explicit(&seen_virtual, memory_order_relaxed) + since;
    r = atomic_load_explicit(&seen_resident, memory_order_relaxed) + since;
    if (!over(v, r)) return 1;
    atomic_store_explicit(&refused_bytes, n, memory_order_relaxed);
    atomic_store_explicit(&overrun, 1, memory_order_relaxed);
    return 0;
}

int64_t jsonapi_memory_refused(void) { return atomic_load_explicit(&refused_bytes, memory_order_relaxed); }

int jsonapi_memory_overrun(void) { return atomic_load_explicit(&overrun, memory_order_relaxed); }
void jsonapi_memory_clear_overrun(void) {
    atomic_store_explicit(&overrun, 0, memory_order_relaxed);
    atomic_store_explicit(&refused_bytes, 0, memory_order_relaxed);
}
void jsonapi_memory_seen(int64_t *virtual_bytes, int64_t *resident_bytes) {
    *virtual_bytes = atomic_load_explicit(&seen_virtual, memory_order_relaxed);
    *resident_bytes = atomic_load_explicit(&seen_resident, memory_order_relaxed);
}

void jsonapi_memory_set_progress(int64_t offset) {
    atomic_store_explicit(&progress_offset, offset, memory_order_relaxed);
}
int64_t jsonapi_memory_progress(void) {
    return atomic_load_explicit(&progress_offset, memory_order_relaxed);
}

// MARK: - yajl's allocator

// Each block carries its size in a 16-byte header (yajl's free does not say it), so that
// what yajl holds is known exactly. The header keeps the block 16-byte aligned.
#define HEADER 16

// The guard of the yajl_parse call running on this thread (NULL outside one).
static __thread jmp_buf *guard = NULL;

// Large requests (a string's unescaped copy, a buffer for a token split across reads) ask
// the budget first; small ones (the handle, the nesting stack's steps) only fail when
// malloc does.
#define ASK_BUDGET_FROM ((size_t)1 << 20)

static void refuse(void) {
    atomic_store_explicit(&overrun, 1, memory_order_relaxed);
    // Invariant: between the guard's setjmp and this call there are only yajl's frames
    // (yajl calls its allocator from yajl_parse, never from inside a callback into Swift),
    // so nothing is skipped that needed unwinding. yajl's buffers keep their old block when
    // a realloc does not return, so the handle can still be freed (and is never used again).
    if (guard) longjmp(*guard, 1);
}

static void account(int64_t delta) {
    yajl_bytes += delta;
    if (yajl_bytes > yajl_peak) yajl_peak = yajl_bytes;
}

void *jsonapi_yajl_malloc(void *ctx, size_t n) {
    (void)ctx;
    if (n >= ASK_BUDGET_FROM && !jsonapi_memory_reserve((int64_t)n)) { refuse(); return NULL; }
    unsigned char *p = malloc(n + HEADER);
    if (!p) { refuse(); return NULL; }
    memcpy(p, &n, sizeof n);
    account((int64_t)n);
    return p + HEADER;
}

void *jsonapi_yajl_realloc(void *ctx, void *q, size_t n) {
    if (!q) return jsonapi_yajl_malloc(ctx, n);
    unsigned char *p = (unsigned char *)q - HEADER;
    size_t old;
    memcpy(&old, p, sizeof old);
    if (n > old && n >= ASK_BUDGET_FROM && !jsonapi_memory_reserve((int64_t)(n - old))) { refuse(); return NULL; }
    unsigned char *r = realloc(p, n + HEADER);
    if (!r) { refuse(); return NULL; }
    memcpy(r, &n, sizeof n);
    account((int64_t)n - (int64_t)old);
    return r + HEADER;
}

void jsonapi_yajl_free(void *ctx, void *q) {
    (void)ctx;
    if (!q) return;
    unsigned char *p = (unsigned char *)q - HEADER;
    size_t old;
    memcpy(&old, p, sizeof old);
    account(-(int64_t)old);
    free(p);
}

int64_t jsonapi_yajl_peak_bytes(void) { return yajl_peak; }
void jsonapi_yajl_reset_peak(void) { yajl_peak = yajl_bytes; }

int jsonapi_yajl_parse_guarded(struct yajl_handle_t *hand, const unsigned char *text, size_t len, int complete) {
    jmp_buf here;
    jmp_buf *outer = guard;
    if (setjmp(here)) {
        guard = outer;
        return -1;
    }
    guard = &here;
    int status = (int)(complete ? yajl_complete_parse(hand) : yajl_parse(hand, text, len));
    guard = outer;
    return status;
}

int jsonapi_malloc_arenas_for_limits(void) {
#if defined(__GLIBC__)
    // Each arena beyond the first reserves 64 MiB of address space (little of it resident):
    // it counts only against an address-space limit. Without one, threads keep their own
    // arenas and do not queue for one lock on every allocation.
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur == RLIM_INFINITY) return 0;
    mallopt(M_ARENA_MAX, 1);
    return 1;
#else
    return 0;
#endif
}
