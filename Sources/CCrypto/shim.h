// The system's libcrypto (OpenSSL): SHA-256 for `normalize --hash` and the loader's content
// hashes, with the processor's SHA extensions where it has them.
#include <openssl/sha.h>
#include <openssl/evp.h>
