// The system's libcrypto (OpenSSL): SHA-256 for `normalize --hash`, with the processor's
// SHA extensions where it has them.
#include <openssl/sha.h>
