// Platform calls the Swift overlay does not expose (Linux-only ones need _GNU_SOURCE).
#ifndef JSONAPISTREAM_CPLATFORM_H
#define JSONAPISTREAM_CPLATFORM_H

#include <stddef.h>
#include <stdint.h>

/// Grows (or moves) an anonymous mapping; returns NULL on failure. Linux only; elsewhere
/// always NULL, and callers copy instead.
void *jsonapi_mremap(void *old_address, size_t old_size, size_t new_size);

/// Freed anonymous mappings kept for the next large block (Linux; elsewhere nothing is kept).
/// At most JSONAPI_KEPT_SLOTS mappings and `cap` bytes; the oldest go first. `kind` tells
/// mappings made differently apart (LargeAllocation: 1 asked for huge pages, 0 did not); a
/// mapping is only taken for its own kind. All functions are thread-safe.
#define JSONAPI_KEPT_SLOTS 8
typedef struct jsonapi_kept_mappings jsonapi_kept_mappings;
/// The process's set, which LargeAllocation uses (256 MiB unless set).
jsonapi_kept_mappings *jsonapi_kept_default(void);
/// A set of its own (tests), or NULL; `jsonapi_kept_destroy` unmaps what it keeps.
jsonapi_kept_mappings *jsonapi_kept_create(int64_t cap);
void jsonapi_kept_destroy(jsonapi_kept_mappings *k);
/// A kept mapping of `kind` of at least `size` bytes, or NULL. With `whole`: the largest,
/// its length stored there; without: the smallest, cut to `size` (a mapped size), if it is
/// no more than twice that.
void *jsonapi_kept_take(jsonapi_kept_mappings *k, size_t size, int kind, size_t *whole);
/// Keeps the mapping `p` of `size` bytes and returns 1, or returns 0 (more than the cap) and
/// the caller unmaps it.
int jsonapi_kept_keep(jsonapi_kept_mappings *k, void *p, size_t size, int kind);
/// Unmaps the oldest until at most `down_to` bytes are kept; returns the bytes unmapped.
int64_t jsonapi_kept_release(jsonapi_kept_mappings *k, int64_t down_to);
/// Sets the cap (0: keep none), unmapping what is over it.
void jsonapi_kept_set_cap(jsonapi_kept_mappings *k, int64_t cap);
void jsonapi_kept_state(jsonapi_kept_mappings *k, int64_t *bytes, int64_t *cap);

/// Processor time (seconds) the calling thread has spent reading batches as one of its
/// reader's workers (`WorkerPool`'s helper), since the thread began: the part of a reading
/// thread's time that is a worker's, which `jsonapi bench` leaves out of the reading thread's
/// share. A thread-local count, so only the thread's own reads are in it.
double jsonapi_helper_seconds(void);
/// Adds `seconds` to the calling thread's count.
void jsonapi_helper_add_seconds(double seconds);

/// Asks the processor to bring the cache line holding `p` in (for reading), without
/// waiting for it: a hint, which never faults. Used ahead of hash-table probes whose slots
/// are likely not in cache (callers pass addresses inside their own tables).
static inline void jsonapi_prefetch(const void *p) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 0, 3);
#else
    (void)p;
#endif
}

/// Names the calling thread (as `top -H` and debuggers show it; on Linux its first 15 bytes).
void jsonapi_name_this_thread(const char *name);

/// The CPU the calling thread runs on, or -1 where that is not known.
int jsonapi_current_cpu(void);

/// Called first on a new thread, with the CPU its creator ran on when it made it: when the new
/// thread runs there too and may run on another, it moves to another of its allowed CPUs
/// (its affinity is narrowed, then set back, which leaves it where it went). Linux may start a
/// new thread on its creator's CPU and leave the two to take turns there for milliseconds
/// while another CPU idles. Does nothing elsewhere, when a call fails, or with the environment
/// variable `JSONAPI_THREADS_STAY` set. Returns the CPU it moved to, or -1 when it did not
/// move. (Were the thread's affinity changed by someone else between its narrowing and its
/// restoring, a few microseconds, that change would be undone.)
int jsonapi_leave_creator_cpu(int creator_cpu);

/// Whether at least `reserve` bytes of the calling thread's stack are left below the caller.
/// The stack's bounds are looked up once per thread (pthread_getattr_np on Linux,
/// pthread_get_stackaddr_np on Darwin); where they are unknown, the answer is always 1.
int jsonapi_stack_room(size_t reserve);

/// Skips the longest prefix of `p[0..<n]` made of whole 32-byte blocks that hold no byte
/// below 0x0E and no byte of 0x80 or more, and no backslash followed by a quote or a backslash
/// or ending the block; returns its length (a multiple of 32, possibly 0; always 0 without
/// SSE2). Quotes in it flip `*in_string` (other backslashes escape plain bytes, which changes
/// nothing); when the prefix ends inside a string opened in it, `*open_quote` is set to that
/// quote's index. Reads only the bytes `p[0..<n]`.
///
/// Where the processor has AVX2 it reads blocks of 64 bytes first, and skips more: bytes of
/// 0x80 or more that are valid UTF-8, and backslashes inside strings (the byte after one is
/// escaped: an escaped quote does not count). A sequence or an escape may run from one block
/// into the next, but the prefix never ends inside one; a backslash outside strings ends it.
/// The bytes before `p` must not end inside a UTF-8 sequence or before an escaped byte.
size_t jsonapi_skip_plain(const void *p, size_t n, unsigned char *in_string,
                          size_t *open_quote);

/// Whether this processor has what the 64-byte readers use (AVX2, POPCNT, PCLMUL): 1 or 0.
int jsonapi_wide_blocks(void);

/// The cores this process may run on: its CPU affinity (`taskset`, a cgroup's cpuset) on
/// Linux, else the processors online; at least 1.
int jsonapi_usable_cores(void);

/// The size of a core's level 2 cache in bytes, as the system reports it (glibc's
/// `sysconf(_SC_LEVEL2_CACHE_SIZE)` on Linux, `hw.l2cachesize` on Apple's systems); 0 when
/// it does not say.
long jsonapi_l2_cache_bytes(void);

/// Where the document splitter (split.c) is in an input: what it needs to go on with the
/// next bytes, and what it counted so far.
typedef struct jsonapi_split_state {
    /// Absolute offset of the next byte to scan.
    int64_t offset;
    /// Open objects and arrays (negative after a stray closing bracket: no more cuts).
    int64_t depth;
    /// Top-level objects and arrays opened so far.
    int64_t documents;
    /// Line feeds so far, and the offset just after the last one (0 when none).
    int64_t lines;
    int64_t line_start;
    /// Inside a string; the next byte escaped by a backslash.
    unsigned char in_string;
    unsigned char escaped;
} jsonapi_split_state;

/// Scans `p[0..<n]` (its first byte at `s->offset`) for the end of a top-level object or
/// array. Returns 1 with `*cut` set to the index just after the first closing bracket that
/// ends one, where that index is above `cut_from`, and `*s` as it is after the bytes before
/// `*cut`; returns 0 with `*s` after all `n` bytes when there is none. Quotes, escapes and
/// brackets are followed as JSON has them; anything else is left to the parser, which then
/// reports the input's first error where it is. `variant` says how: 0 the fastest way this
/// processor has (blocks of 64 bytes with AVX-512, AVX2 or SSE2), 1 a byte at a time, 2 blocks
/// with SSE2, 3 blocks with AVX2 where the processor has it (SSE2 elsewhere); 1 to 3 are for
/// tests. The same answers every way.
int jsonapi_split_scan(const void *p, size_t n, size_t cut_from, jsonapi_split_state *s, size_t *cut, int variant);

/// Where the element splitter (elements.c) is in an input of large documents: what it needs
/// to go on with the next bytes, and what it counted so far.
typedef struct jsonapi_element_state {
    /// Absolute offset of the next byte to scan.
    int64_t offset;
    /// Open objects and arrays.
    int64_t depth;
    /// Top-level objects and arrays opened so far.
    int64_t documents;
    /// Line feeds so far, and the offset just after the last one (0 when none).
    int64_t lines;
    int64_t line_start;
    /// Commas between the elements of the array being split, so far.
    int64_t elements;
    /// Inside a string; the next byte escaped by a backslash.
    unsigned char in_string;
    unsigned char escaped;
    /// Inside the top-level `data` (1) or `included` (2) array of a document, 0 elsewhere.
    unsigned char splitting;
    /// Whether a byte other than white space came since the last comma (or cut) in that array:
    /// an element, after which a comma is a place to cut.
    unsigned char nonblank;
    /// The member name being read at depth 1: candidates left (1 data, 2 included) and bytes.
    unsigned char name_candidates;
    unsigned char name_length;
    /// The name whose value comes next at depth 1 (after its colon): 1 data, 2 included.
    unsigned char named;
    /// The document's bytes outside the split arrays hold `atomic` or a `\u` escape (which
    /// its `jsonapi` member may use to apply Atomic Operations): its arrays are not split.
    unsigned char keep_whole;
    unsigned char atomic_matched;
} jsonapi_element_state;

/// What `jsonapi_element_scan` stopped at.
enum {
    /// Every byte was scanned.
    JSONAPI_ELEMENTS_NONE = 0,
    /// A document's `data` or `included` array opened: `*cut` is just after its `[`.
    JSONAPI_ELEMENTS_OPEN = 1,
    /// A comma between two elements of that array, at or after `cut_from`, with a byte other
    /// than white space since the last cut: `*cut` is just after the comma.
    JSONAPI_ELEMENTS_NEXT = 2,
    /// The array closes: `*cut` is the index of its `]`.
    JSONAPI_ELEMENTS_CLOSE = 3,
};

/// Scans `p[0..<n]` (its first byte at `s->offset`) for the places where the elements of a
/// document's top-level `data` and `included` arrays may be cut apart. Returns one of the
/// `JSONAPI_ELEMENTS_` values, with `*cut` and `*s` as they are at that place (`*s` after all
/// `n` bytes for `JSONAPI_ELEMENTS_NONE`). Quotes, escapes and brackets are followed as JSON
/// has them; on input that is not JSON the places found are still places to cut, and the
/// parser of the piece that holds the first error reports it. `variant` as for
/// `jsonapi_split_scan` (the same answers on JSON).
int jsonapi_element_scan(const void *p, size_t n, size_t cut_from, jsonapi_element_state *s, size_t *cut, int variant);

/// The length of the longest prefix of `p[0..<n]` whose bytes a URI-reference may hold and
/// that need no closer look once its first delimiter is behind: A-Z a-z 0-9 and
/// - . _ ~ : / ? @ ! $ & ' ( ) * + , ; =  (not % # [ ], nor any byte a URI may not hold).
/// Reads only the bytes `p[0..<n]`.
size_t jsonapi_uri_plain_prefix(const void *p, size_t n);

/// Makes SIGINT, SIGTERM and SIGHUP write their number (one byte) to `fd` instead of ending
/// the process (SA_RESTART), and unblocks them in the calling thread; returns 0, or -1 with
/// errno set. The handler does nothing else.
int jsonapi_forward_signals(int fd);

/// Unblocks SIGINT, SIGTERM and SIGHUP in the calling thread (and so in the threads it
/// starts from now on); returns 0, or -1. A parent may hand a blocked mask down through
/// exec (a test runner's worker thread does, as may other launchers): the process would
/// then not stop on `kill`, `timeout` or Ctrl-C while it waits, say on a FIFO's open.
int jsonapi_unblock_stop_signals(void);

/// Ends the process by `sig` with its default action (so the parent sees the signal), or
/// with exit status 128 + `sig` should the signal not end it.
void jsonapi_die_of_signal(int sig);

/// yajl's parser (`yajl_handle`), opaque here.
struct yajl_handle_t;

// MARK: - The memory budget (memory.c)

/// The process's address space and resident set in bytes, from /proc/self/statm; 0 where
/// that cannot be read (not Linux).
int jsonapi_memory_read(int64_t *virtual_bytes, int64_t *resident_bytes);
/// Sets the caps (0: none) and clears the overrun flag.
void jsonapi_memory_set_caps(int64_t virtual_cap, int64_t resident_cap);
/// The caps set (0: none).
void jsonapi_memory_caps(int64_t *virtual_cap, int64_t *resident_cap);
/// Whether any cap is set.
int jsonapi_memory_active(void);
/// Reads the figures again; 0 when a cap is passed (the overrun flag is then set).
int jsonapi_memory_check(void);
/// Whether `n` more bytes fit, by the figures last read plus what was reserved since (read
/// again before saying no); counts them when they do, sets the overrun flag when not.
int jsonapi_memory_reserve(int64_t n);
/// The sticky flag: a cap was passed, or an allocation was refused or failed.
int jsonapi_memory_overrun(void);
void jsonapi_memory_clear_overrun(void);
/// The size of the last request the budget refused (0: none since the flag was cleared).
int64_t jsonapi_memory_refused(void);
/// The figures last read.
void jsonapi_memory_seen(int64_t *virtual_bytes, int64_t *resident_bytes);
/// The input offset the parser last handed to yajl (-1: none), for an out-of-memory report.
void jsonapi_memory_set_progress(int64_t offset);
int64_t jsonapi_memory_progress(void);

/// `count * size` zeroed bytes from `calloc` (NULL when it fails; `free` them), whose pages
/// are already mapped for writing. A large `calloc` comes as fresh pages of the system, which
/// a read first maps to the shared zero page; the first write to each then faults again to
/// copy it, and on a process with other threads running that fault flushes their processors'
/// address caches (an interrupt to each). A hash table is read (probed) before it is written,
/// so every page of a new one paid both faults. Here the pages are populated for writing at
/// once (`madvise(MADV_POPULATE_WRITE)`, Linux 5.14), or else written one by one.
void *jsonapi_calloc_written(size_t count, size_t size);

/// glibc, under an address-space limit (`ulimit -v`, `RLIMIT_AS`): one malloc arena for every
/// thread, since each thread's own arena reserves 64 MiB of address space, which the limit
/// counts. Without such a limit (or elsewhere) nothing: threads keep their own arenas, and
/// allocate without queueing for one lock. Returns 1 when it limited the arenas. Call before
/// starting threads.
int jsonapi_malloc_arenas_for_limits(void);

/// yajl's allocation functions (`yajl_alloc_funcs`): requests of 1 MiB or more ask the
/// budget first; a refused or failed allocation inside ``jsonapi_yajl_parse_guarded`` ends
/// that call (it returns -1) instead of handing yajl the NULL it would write through.
void *jsonapi_yajl_malloc(void *ctx, size_t n);
void *jsonapi_yajl_realloc(void *ctx, void *p, size_t n);
void jsonapi_yajl_free(void *ctx, void *p);
/// The most bytes yajl's allocations on this thread held at once since the last reset on this
/// thread (every handle parsing on it; other threads' parses do not count).
int64_t jsonapi_yajl_peak_bytes(void);
void jsonapi_yajl_reset_peak(void);
/// `yajl_parse(hand, text, len)` (or `yajl_complete_parse(hand)` when `complete`), returning
/// its status, or -1 when yajl's allocator refused or failed (the handle must then only be
/// freed).
int jsonapi_yajl_parse_guarded(struct yajl_handle_t *hand, const unsigned char *text, size_t len,
                               int complete);

/// The kinds of tape events (the first byte of each), as Swift's `TapeKind` numbers them
/// (EventTape.swift); `TapeKindTests` checks that the two agree.
enum {
    JSONAPI_TAPE_START_OBJECT = 0, JSONAPI_TAPE_END_OBJECT = 1, JSONAPI_TAPE_START_ARRAY = 2,
    JSONAPI_TAPE_END_ARRAY = 3, JSONAPI_TAPE_KEY = 4, JSONAPI_TAPE_ESCAPED_KEY = 5,
    JSONAPI_TAPE_STRING = 6, JSONAPI_TAPE_ESCAPED_STRING = 7, JSONAPI_TAPE_NUMBER = 8,
    JSONAPI_TAPE_TRUE = 9, JSONAPI_TAPE_FALSE = 10, JSONAPI_TAPE_NULL = 11, JSONAPI_TAPE_NEWLINES = 12
};

/// What the tape recorder's yajl callbacks (below) read and write; yajl's context pointer.
/// The Swift `TapeRecorder` owns the tape's storage and lends it here: `base`, `count` and
/// `capacity` describe it between the recorder's own Swift accesses.
typedef struct jsonapi_recorder {
    unsigned char *base;
    size_t count;
    size_t capacity;
    /// Bytes of events after which the block is handed over (`hand_over`).
    size_t limit;
    /// The buffer inside `yajl_parse`, and its first byte's absolute offset.
    const unsigned char *source_start;
    const unsigned char *source_end;
    long long feeding_base;
    /// Inside `yajl_complete_parse`: every token ends at `input_end`.
    int completing;
    long long input_end;
    struct yajl_handle_t *yajl;
    /// The longest string token, in source bytes between the quotes (`Limits.maxStringBytes`).
    size_t max_string_bytes;
    /// The Swift recorder, for the calls below. Each returns 0 to stop yajl (cancel).
    void *owner;
    /// A string (`is_key` 0) or member name (1) not in the source buffer (yajl unescaped
    /// it) that needs a closer look: a `\u` escape, over the length limit, or unusual.
    int (*escaped)(void *owner, int is_key, const unsigned char *bytes, size_t count);
    /// Make room for `need` more bytes (updates `base` and `capacity`).
    int (*reserve)(void *owner, size_t need);
    /// The block is full: hand it over (updates `base`, `count` and `capacity`).
    int (*hand_over)(void *owner);
} jsonapi_recorder;

/// yajl callbacks; `ctx` is a `jsonapi_recorder *`.
int jsonapi_record_null(void *ctx);
int jsonapi_record_boolean(void *ctx, int value);
int jsonapi_record_number(void *ctx, const char *text, size_t count);
int jsonapi_record_string(void *ctx, const unsigned char *bytes, size_t count);
int jsonapi_record_start_map(void *ctx);
int jsonapi_record_key(void *ctx, const unsigned char *bytes, size_t count);
int jsonapi_record_end_map(void *ctx);
int jsonapi_record_start_array(void *ctx);
int jsonapi_record_end_array(void *ctx);
/// Records an escaped string (`is_key` 0) or member name (1), its unescaped text
/// `bytes[0..<count]`, whose token starts at absolute offset `start`. 0: yajl must stop.
int jsonapi_record_escaped_event(jsonapi_recorder *r, int is_key, const unsigned char *bytes,
                                 size_t count, long long start);
/// Where the string token whose closing quote is at `end - 1` opens: the nearest earlier quote
/// that no odd run of backslashes escapes; -1 when there is none. `end` is at least 1.
ptrdiff_t jsonapi_string_token_start(const void *bytes, size_t end);
/// Whether `bytes[0..<count]` (a string token) holds a `\u` escape.
int jsonapi_has_unicode_escape(const void *bytes, size_t count);
/// The absolute offset just past the token being reported (yajl's count, or the input's end
/// while completing).
long long jsonapi_recorder_token_end(const jsonapi_recorder *r);

#endif
