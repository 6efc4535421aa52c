#include "CTesseraAV.h"

#include "CTesseraLoader.h"

#define SONAME(library, major) "lib" #library ".so." AV_STRINGIFY(major)

static TesseraAV table;
TESSERA_LOADER(TesseraAV, tessera_av_load, &table)

static void load(void) {
    // Dependencies first, so each later library finds its own already in the process.
    static const char *const sonames[] = {
        SONAME(avutil, LIBAVUTIL_VERSION_MAJOR), SONAME(swscale, LIBSWSCALE_VERSION_MAJOR),
        SONAME(avcodec, LIBAVCODEC_VERSION_MAJOR), SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR), NULL};
    TESSERA_SYMBOLS(table, TESSERA_AV_FUNCTIONS(TESSERA_SYMBOL));
    // Lazy binding: libavcodec and its ~60 dependencies export thousands of functions, and
    // resolving them all up front costs more than decoding a keyframe.
    if (tessera_library_open(&library, sonames, RTLD_LAZY, symbols, NULL, (void **)&table,
                             "cannot load %s (install ffmpeg's libraries)", "ffmpeg's libraries lack %s"))
        // libav logs to stderr by default; Tessera reports errors itself, and nothing may print.
        table.av_log_set_level(AV_LOG_QUIET);
}
