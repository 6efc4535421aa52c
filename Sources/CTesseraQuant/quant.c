#include "CTesseraQuant.h"

#include "CTesseraLoader.h"

static TesseraQuant table;
static TesseraLibrary library = TESSERA_LIBRARY_INIT;

static void load(void) {
    static const char *const sonames[] = {"libimagequant.so.0", NULL};
    static const char *const symbols[] = {TESSERA_QUANT_FUNCTIONS(TESSERA_SYMBOL) NULL};
    _Static_assert(sizeof symbols / sizeof *symbols == sizeof table / sizeof(void *) + 1, "a symbol for each slot");
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install libimagequant0)", "libimagequant lacks %s");
}

const TesseraQuant *_Nullable tessera_quant_load(char *_Nullable message, size_t capacity) {
    return tessera_library_once(&library, load, message, capacity) ? &table : NULL;
}
