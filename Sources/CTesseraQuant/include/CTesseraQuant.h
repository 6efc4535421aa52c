#ifndef C_TESSERA_QUANT_H
#define C_TESSERA_QUANT_H

// libimagequant (pngquant's library), reached through a table of function pointers filled with
// dlopen/dlsym on first use, as CTesseraLCMS does for LittleCMS: only a process that writes a
// palette PNG maps it. The header is libimagequant's own, so the prototypes cannot drift from its ABI.

#include <stddef.h>

#include "CTesseraLoader.h"
#include <libimagequant.h>

#define TESSERA_QUANT_FUNCTIONS(X)                                                                 \
    X(liq_attr_create) X(liq_attr_destroy) X(liq_set_max_colors) X(liq_set_speed)                 \
    X(liq_image_create_rgba) X(liq_image_destroy) X(liq_image_quantize) X(liq_set_dithering_level) \
    X(liq_write_remapped_image) X(liq_get_palette) X(liq_result_destroy)

TESSERA_TABLE(TesseraQuant, tessera_quant_load, TESSERA_QUANT_FUNCTIONS(TESSERA_SLOT))

#endif
