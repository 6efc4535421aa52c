#include "CTesseraPDF.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static TesseraPDF table;
static const TesseraPDF *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    const char *name = "libpoppler-glib.so.8";  // the ABI major these prototypes describe
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(failure, sizeof failure, "cannot load %s (install libpoppler-glib8)", name);
        return;
    }
#define TESSERA_PDF_RESOLVE(result, function, parameters)                                \
    if (!(*(void **)&table.function = dlsym(handle, #function))) {                       \
        snprintf(failure, sizeof failure, "%s lacks %s", name, #function);               \
        return;                                                                          \
    }
    TESSERA_PDF_FUNCTIONS(TESSERA_PDF_RESOLVE)
#undef TESSERA_PDF_RESOLVE
    loaded = &table;
}

const TesseraPDF *_Nullable tessera_pdf_load(char *_Nullable message, size_t capacity) {
    pthread_once(&once, load);
    if (!loaded && message && capacity) snprintf(message, capacity, "%s", failure);
    return loaded;
}
