#include "CTesseraHeif.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static TesseraHeif table;
static const TesseraHeif *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    char name[32];
    snprintf(name, sizeof name, "libheif.so.%d", (int)(LIBHEIF_NUMERIC_VERSION >> 24));
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(failure, sizeof failure, "cannot load %s (install libheif)", name);
        return;
    }
#define TESSERA_HEIF_RESOLVE(name)                                                       \
    if (!(*(void **)&table.name = dlsym(handle, #name))) {                               \
        snprintf(failure, sizeof failure, "libheif lacks %s", #name);                    \
        return;                                                                          \
    }
    TESSERA_HEIF_FUNCTIONS(TESSERA_HEIF_RESOLVE)
#undef TESSERA_HEIF_RESOLVE
    loaded = &table;
}

const TesseraHeif *_Nullable tessera_heif_load(char *_Nullable message, size_t capacity) {
    pthread_once(&once, load);
    if (!loaded && message && capacity) snprintf(message, capacity, "%s", failure);
    return loaded;
}

static struct heif_error append(struct heif_context *context, const void *data, size_t size, void *userdata) {
    (void)context;
    TesseraHeifOutput *output = userdata;
    unsigned char *grown = realloc(output->bytes, output->size + size);
    if (!grown) return (struct heif_error){heif_error_Encoding_error, heif_suberror_Unspecified, "out of memory"};
    memcpy(grown + output->size, data, size);
    output->bytes = grown;
    output->size += size;
    return (struct heif_error){heif_error_Ok, heif_suberror_Unspecified, "ok"};
}

struct heif_error tessera_heif_write_to_memory(struct heif_context *context, TesseraHeifOutput *output) {
    struct heif_writer writer = {1, append};
    return loaded->heif_context_write(context, &writer, output);
}
