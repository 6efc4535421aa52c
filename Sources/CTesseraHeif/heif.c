#include "CTesseraHeif.h"

#include "CTesseraLoader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static TesseraHeif table;
TESSERA_LOADER(TesseraHeif, tessera_heif_load, &table)

static void load(void) {
    char name[32];
    snprintf(name, sizeof name, "libheif.so.%d", (int)(LIBHEIF_NUMERIC_VERSION >> 24));
    const char *const sonames[] = {name, NULL};
    TESSERA_SYMBOLS(table, TESSERA_HEIF_FUNCTIONS(TESSERA_SYMBOL));
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install libheif)", "libheif lacks %s");
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
    return table.heif_context_write(context, &writer, output);
}
