#include "CTesseraSVG.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static TesseraSVG table;
static const TesseraSVG *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void ignore(const char *domain, int level, const char *message, void *userData) {
    (void)domain, (void)level, (void)message, (void)userData;
}

static void load(void) {
    // Dependencies first (librsvg needs all three); the ABI majors these prototypes describe.
    const char *names[] = {"libglib-2.0.so.0", "libgobject-2.0.so.0", "libcairo.so.2", "librsvg-2.so.2"};
    enum { count = sizeof names / sizeof names[0] };
    void *handles[count];
    for (int i = 0; i < count; i++) {
        handles[i] = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            snprintf(failure, sizeof failure, "cannot load %s (install librsvg)", names[i]);
            return;
        }
    }
#define TESSERA_SVG_RESOLVE(library, result, name, parameters)                           \
    if (!(*(void **)&table.name = dlsym(handles[library], #name))) {                     \
        snprintf(failure, sizeof failure, "%s lacks %s", names[library], #name);         \
        return;                                                                          \
    }
    TESSERA_SVG_FUNCTIONS(TESSERA_SVG_RESOLVE)
#undef TESSERA_SVG_RESOLVE
    // GLib would print librsvg's warnings on stderr; Tessera reports problems through its errors.
    table.g_log_set_default_handler(ignore, NULL);
    loaded = &table;
}

const TesseraSVG *_Nullable tessera_svg_load(char *_Nullable message, size_t capacity) {
    pthread_once(&once, load);
    if (!loaded && message && capacity) snprintf(message, capacity, "%s", failure);
    return loaded;
}
