#include "CTesseraPDF.h"

#include "CTesseraLoader.h"

static TesseraPDF table;
static TesseraLibrary library = TESSERA_LIBRARY_INIT;

static void load(void) {
    static const char *const sonames[] = {"libpoppler-glib.so.8", NULL};  // the ABI major these prototypes describe
#define TESSERA_PDF_SYMBOL(result, function, parameters) #function,
    static const char *const symbols[] = {TESSERA_PDF_FUNCTIONS(TESSERA_PDF_SYMBOL) NULL};
#undef TESSERA_PDF_SYMBOL
    _Static_assert(sizeof symbols / sizeof *symbols == sizeof table / sizeof(void *) + 1, "a symbol for each slot");
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install libpoppler-glib8)", NULL);
}

const TesseraPDF *_Nullable tessera_pdf_load(char *_Nullable message, size_t capacity) {
    return tessera_library_once(&library, load, message, capacity) ? &table : NULL;
}
