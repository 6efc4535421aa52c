#include "CTesseraPROJ.h"

#include "CTesseraLoader.h"

static TesseraPROJ table;
TESSERA_LOADER(TesseraPROJ, tessera_proj_load, &table)

static void load(void) {
    static const char *const sonames[] = {"libproj.so.25", NULL};
    TESSERA_SYMBOLS(table, TESSERA_PROJ_FUNCTIONS(TESSERA_SYMBOL));
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install libproj25)", "PROJ lacks %s");
}
