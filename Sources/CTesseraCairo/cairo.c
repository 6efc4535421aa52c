#include "CTesseraCairo.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static TesseraCairoTable table;
static const TesseraCairoTable *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void ignore(const char *domain, int level, const char *message, void *userData) {
    (void)domain, (void)level, (void)message, (void)userData;
}

static void load(void) {
    // The ABI majors these prototypes describe.
    const char *names[] = {"libglib-2.0.so.0", "libgobject-2.0.so.0", "libcairo.so.2"};
    enum { count = sizeof names / sizeof names[0] };
    void *handles[count];
    for (int i = 0; i < count; i++) {
        handles[i] = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            snprintf(failure, sizeof failure, "cannot load %s (install libcairo2)", names[i]);
            return;
        }
    }
#define TESSERA_CAIRO_RESOLVE(library, result, name, parameters)                         \
    if (!(*(void **)&table.name = dlsym(handles[library], #name))) {                     \
        snprintf(failure, sizeof failure, "%s lacks %s", names[library], #name);         \
        return;                                                                          \
    }
    TESSERA_CAIRO_FUNCTIONS(TESSERA_CAIRO_RESOLVE)
#undef TESSERA_CAIRO_RESOLVE
    table.g_log_set_default_handler(ignore, NULL);
    loaded = &table;
}

const TesseraCairoTable *_Nullable tessera_cairo_load(char *_Nullable message, size_t capacity) {
    pthread_once(&once, load);
    if (!loaded && message && capacity) snprintf(message, capacity, "%s", failure);
    return loaded;
}
