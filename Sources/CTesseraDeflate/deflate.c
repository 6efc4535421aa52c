#include "CTesseraDeflate.h"

#include "CTesseraLoader.h"

static TesseraDeflate table;
TESSERA_LOADER(TesseraDeflate, tessera_deflate_load, &table)

static void load(void) {
    static const char *const sonames[] = {"libdeflate.so.0", NULL};
    TESSERA_SYMBOLS(table, TESSERA_DEFLATE_FUNCTIONS(TESSERA_SYMBOL));
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install libdeflate0)", "libdeflate lacks %s");
}
