#ifndef C_TESSERA_DEFLATE_H
#define C_TESSERA_DEFLATE_H

// libdeflate (a faster DEFLATE than zlib's, the one libtiff already uses), reached through a table
// of function pointers filled with dlopen/dlsym on first use, as CTesseraLCMS does for LittleCMS:
// only a process that writes a fast PNG (a map tile) maps it. The header is libdeflate's own, so
// the prototypes cannot drift from its ABI (libdeflate 1.x is libdeflate.so.0).

#include <stddef.h>

#include "CTesseraLoader.h"
#include <libdeflate.h>

#define TESSERA_DEFLATE_FUNCTIONS(X)                                                               \
    X(libdeflate_alloc_compressor) X(libdeflate_free_compressor) X(libdeflate_zlib_compress)       \
    X(libdeflate_zlib_compress_bound) X(libdeflate_crc32)

TESSERA_TABLE(TesseraDeflate, tessera_deflate_load, TESSERA_DEFLATE_FUNCTIONS(TESSERA_SLOT))

#endif
