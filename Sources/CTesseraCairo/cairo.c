#include "CTesseraCairo.h"

#include "CTesseraLoader.h"

static TesseraCairoTable table;
TESSERA_LOADER(TesseraCairoTable, tessera_cairo_load, &table)

static void ignore(const char *domain, int level, const char *message, void *userData) {
    (void)domain, (void)level, (void)message, (void)userData;
}

static void load(void) {
    // The ABI majors these prototypes describe.
    static const char *const sonames[] = {"libglib-2.0.so.0", "libgobject-2.0.so.0", "libcairo.so.2", NULL};
#define TESSERA_CAIRO_SYMBOL(library, result, name, parameters) #name,
#define TESSERA_CAIRO_LIBRARY(library, result, name, parameters) library,
    TESSERA_SYMBOLS(table, TESSERA_CAIRO_FUNCTIONS(TESSERA_CAIRO_SYMBOL));
    static const unsigned char from[] = {TESSERA_CAIRO_FUNCTIONS(TESSERA_CAIRO_LIBRARY)};
#undef TESSERA_CAIRO_SYMBOL
#undef TESSERA_CAIRO_LIBRARY
    if (tessera_library_open(&library, sonames, RTLD_NOW, symbols, from, (void **)&table,
                             "cannot load %s (install libcairo2)", NULL))
        table.g_log_set_default_handler(ignore, NULL);
}
