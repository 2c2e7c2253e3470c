// libpq's header, for the test that compares LibPQ's status codes with it. JSONAPILoad does
// not import this module: LibPQ loads the library at the first PostgreSQL connection and
// looks its functions up by name, so that the commands that never connect do not map it.
#include <libpq-fe.h>
