// libzstd: zstd-compressed input (InputSource detects it by its magic bytes).
#include <zstd.h>
