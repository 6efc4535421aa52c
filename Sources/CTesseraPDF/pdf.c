#include "CTesseraPDF.h"

#include "CTesseraLoader.h"

static TesseraPDF table;
TESSERA_LOADER(TesseraPDF, tessera_pdf_load, &table)

static void load(void) {
    static const char *const sonames[] = {"libpoppler-glib.so.8", NULL};  // the ABI major these prototypes describe
#define TESSERA_PDF_SYMBOL(result, function, parameters) #function,
    TESSERA_SYMBOLS(table, TESSERA_PDF_FUNCTIONS(TESSERA_PDF_SYMBOL));
#undef TESSERA_PDF_SYMBOL
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install libpoppler-glib8)", NULL);
}
