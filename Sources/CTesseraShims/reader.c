#define _GNU_SOURCE
#include "CTesseraShims.h"

#include <sys/types.h>
#include <unistd.h>

FILE *tessera_open_reader(void *cookie, tessera_reader_read read, tessera_reader_seek seek, tessera_reader_close close) {
    cookie_io_functions_t functions = {
        .read = (cookie_read_function_t *)read,
        .write = NULL,
        .seek = (cookie_seek_function_t *)seek,
        .close = (cookie_close_function_t *)close,
    };
    return fopencookie(cookie, "rb", functions);
}

int tessera_sync_file_system(int descriptor) { return syncfs(descriptor); }
