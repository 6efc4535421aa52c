#include "CTesseraOpenSlide.h"

static TesseraOpenSlide table;
TESSERA_LOADER(TesseraOpenSlide, tessera_openslide_load, &table)

static void load(void) {
    static const char *const sonames[] = {"libopenslide.so.0", NULL};
    TESSERA_SYMBOLS(table, TESSERA_OPENSLIDE_FUNCTIONS(TESSERA_SYMBOL));
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install libopenslide0)", NULL);
}
