#include "CTesseraSVG.h"

#include "CTesseraLoader.h"

static TesseraSVG table;
TESSERA_LOADER(TesseraSVG, tessera_svg_load, &table)

static void load(void) {
    static const char *const sonames[] = {"librsvg-2.so.2", NULL};  // the ABI major these prototypes describe
#define TESSERA_SVG_SYMBOL(result, function, parameters) #function,
    TESSERA_SYMBOLS(table, TESSERA_SVG_FUNCTIONS(TESSERA_SVG_SYMBOL));
#undef TESSERA_SVG_SYMBOL
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install librsvg)", NULL);
}
