#include "CTesseraSVG.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static TesseraSVG table;
static const TesseraSVG *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    const char *name = "librsvg-2.so.2";  // the ABI major these prototypes describe
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(failure, sizeof failure, "cannot load %s (install librsvg)", name);
        return;
    }
#define TESSERA_SVG_RESOLVE(result, function, parameters)                                \
    if (!(*(void **)&table.function = dlsym(handle, #function))) {                       \
        snprintf(failure, sizeof failure, "%s lacks %s", name, #function);               \
        return;                                                                          \
    }
    TESSERA_SVG_FUNCTIONS(TESSERA_SVG_RESOLVE)
#undef TESSERA_SVG_RESOLVE
    loaded = &table;
}

const TesseraSVG *_Nullable tessera_svg_load(char *_Nullable message, size_t capacity) {
    pthread_once(&once, load);
    if (!loaded && message && capacity) snprintf(message, capacity, "%s", failure);
    return loaded;
}
