#include "CTesseraAV.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define SONAME(library, major) "lib" #library ".so." AV_STRINGIFY(major)

static TesseraAV table;
static const TesseraAV *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // Dependencies first, so each later library finds its own already in the process.
    const char *names[] = {
        SONAME(avutil, LIBAVUTIL_VERSION_MAJOR), SONAME(swscale, LIBSWSCALE_VERSION_MAJOR),
        SONAME(avcodec, LIBAVCODEC_VERSION_MAJOR), SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR)};
    enum { count = sizeof names / sizeof names[0] };
    void *handles[count];
    for (int i = 0; i < count; i++) {
        // Lazy binding: libavcodec and its ~60 dependencies export thousands of functions, and
        // resolving them all up front costs more than decoding a keyframe.
        handles[i] = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
        if (!handles[i]) {
            snprintf(failure, sizeof failure, "cannot load %s (install ffmpeg's libraries)", names[i]);
            return;
        }
    }
#define TESSERA_AV_RESOLVE(name)                                                         \
    for (int i = 0; i < count && !table.name; i++) *(void **)&table.name = dlsym(handles[i], #name); \
    if (!table.name) {                                                                   \
        snprintf(failure, sizeof failure, "ffmpeg's libraries lack %s", #name);          \
        return;                                                                          \
    }
    TESSERA_AV_FUNCTIONS(TESSERA_AV_RESOLVE)
#undef TESSERA_AV_RESOLVE
    // libav logs to stderr by default; Tessera reports errors itself, and nothing may print.
    table.av_log_set_level(AV_LOG_QUIET);
    loaded = &table;
}

const TesseraAV *_Nullable tessera_av_load(char *_Nullable message, size_t capacity) {
    pthread_once(&once, load);
    if (!loaded && message && capacity) snprintf(message, capacity, "%s", failure);
    return loaded;
}
