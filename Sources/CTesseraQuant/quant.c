#include "CTesseraQuant.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static TesseraQuant table;
static const TesseraQuant *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    const char *name = "libimagequant.so.0";
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(failure, sizeof failure, "cannot load %s (install libimagequant0)", name);
        return;
    }
#define TESSERA_QUANT_RESOLVE(function)                                                  \
    if (!(*(void **)&table.function = dlsym(handle, #function))) {                       \
        snprintf(failure, sizeof failure, "libimagequant lacks %s", #function);          \
        return;                                                                          \
    }
    TESSERA_QUANT_FUNCTIONS(TESSERA_QUANT_RESOLVE)
#undef TESSERA_QUANT_RESOLVE
    loaded = &table;
}

const TesseraQuant *_Nullable tessera_quant_load(char *_Nullable message, size_t capacity) {
    pthread_once(&once, load);
    if (!loaded && message && capacity) snprintf(message, capacity, "%s", failure);
    return loaded;
}
