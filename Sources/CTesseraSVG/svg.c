#include "CTesseraSVG.h"

#include "CTesseraLoader.h"

static TesseraSVG table;
static TesseraLibrary library = TESSERA_LIBRARY_INIT;

static void load(void) {
    static const char *const sonames[] = {"librsvg-2.so.2", NULL};  // the ABI major these prototypes describe
#define TESSERA_SVG_SYMBOL(result, function, parameters) #function,
    static const char *const symbols[] = {TESSERA_SVG_FUNCTIONS(TESSERA_SVG_SYMBOL) NULL};
#undef TESSERA_SVG_SYMBOL
    _Static_assert(sizeof symbols / sizeof *symbols == sizeof table / sizeof(void *) + 1, "a symbol for each slot");
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install librsvg)", NULL);
}

const TesseraSVG *_Nullable tessera_svg_load(char *_Nullable message, size_t capacity) {
    return tessera_library_once(&library, load, message, capacity) ? &table : NULL;
}
