#include <sqlite3.h>

// sqlite3_config is variadic, which Swift cannot call: the settings the loader makes, before
// SQLite's first use in the process. Memory statistics off: they take a global mutex on every
// allocation. Returns SQLITE_MISUSE (and changes nothing) once SQLite is in use.
static inline int jsonapi_sqlite_configure(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
