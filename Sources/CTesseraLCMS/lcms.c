#include "CTesseraLCMS.h"

#include "CTesseraLoader.h"

static TesseraLCMS table;
static TesseraLibrary library = TESSERA_LIBRARY_INIT;

static void ignore(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    (void)code;
    (void)text;
}

static void load(void) {
    static const char *const sonames[] = {"liblcms2.so.2", NULL};
    static const char *const symbols[] = {TESSERA_LCMS_FUNCTIONS(TESSERA_SYMBOL) NULL};
    _Static_assert(sizeof symbols / sizeof *symbols == sizeof table / sizeof(void *) + 1, "a symbol for each slot");
    if (tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                             "cannot load %s (install liblcms2-2)", "liblcms2 lacks %s"))
        table.cmsSetLogErrorHandler(ignore);
}

const TesseraLCMS *_Nullable tessera_lcms_load(char *_Nullable message, size_t capacity) {
    return tessera_library_once(&library, load, message, capacity) ? &table : NULL;
}
