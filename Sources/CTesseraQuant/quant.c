#include "CTesseraQuant.h"

#include "CTesseraLoader.h"

static TesseraQuant table;
TESSERA_LOADER(TesseraQuant, tessera_quant_load, &table)

static void load(void) {
    static const char *const sonames[] = {"libimagequant.so.0", NULL};
    TESSERA_SYMBOLS(table, TESSERA_QUANT_FUNCTIONS(TESSERA_SYMBOL));
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install libimagequant0)", "libimagequant lacks %s");
}
