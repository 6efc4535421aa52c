#include "CTesseraLCMS.h"

#include "CTesseraLoader.h"

static TesseraLCMS table;
TESSERA_LOADER(TesseraLCMS, tessera_lcms_load, &table)

static void ignore(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    (void)code;
    (void)text;
}

static void load(void) {
    static const char *const sonames[] = {"liblcms2.so.2", NULL};
    TESSERA_SYMBOLS(table, TESSERA_LCMS_FUNCTIONS(TESSERA_SYMBOL));
    if (tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                             "cannot load %s (install liblcms2-2)", "liblcms2 lacks %s"))
        table.cmsSetLogErrorHandler(ignore);
}
