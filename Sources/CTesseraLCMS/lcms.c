#include "CTesseraLCMS.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static TesseraLCMS table;
static const TesseraLCMS *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void ignore(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    (void)code;
    (void)text;
}

static void load(void) {
    const char *name = "liblcms2.so.2";
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(failure, sizeof failure, "cannot load %s (install liblcms2-2)", name);
        return;
    }
#define TESSERA_LCMS_RESOLVE(function)                                                   \
    if (!(*(void **)&table.function = dlsym(handle, #function))) {                       \
        snprintf(failure, sizeof failure, "liblcms2 lacks %s", #function);               \
        return;                                                                          \
    }
    TESSERA_LCMS_FUNCTIONS(TESSERA_LCMS_RESOLVE)
#undef TESSERA_LCMS_RESOLVE
    table.cmsSetLogErrorHandler(ignore);
    loaded = &table;
}

const TesseraLCMS *_Nullable tessera_lcms_load(char *_Nullable message, size_t capacity) {
    pthread_once(&once, load);
    if (!loaded && message && capacity) snprintf(message, capacity, "%s", failure);
    return loaded;
}
