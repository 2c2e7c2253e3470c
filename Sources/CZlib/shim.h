// zlib: gzip-compressed input (InputSource detects it by its magic bytes).
#include <zlib.h>
