#include "CTesseraHeif.h"

#include "CTesseraLoader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static TesseraHeif table;
static TesseraLibrary library = TESSERA_LIBRARY_INIT;

static void load(void) {
    char name[32];
    snprintf(name, sizeof name, "libheif.so.%d", (int)(LIBHEIF_NUMERIC_VERSION >> 24));
    const char *const sonames[] = {name, NULL};
    static const char *const symbols[] = {TESSERA_HEIF_FUNCTIONS(TESSERA_SYMBOL) NULL};
    _Static_assert(sizeof symbols / sizeof *symbols == sizeof table / sizeof(void *) + 1, "a symbol for each slot");
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install libheif)", "libheif lacks %s");
}

const TesseraHeif *_Nullable tessera_heif_load(char *_Nullable message, size_t capacity) {
    return tessera_library_once(&library, load, message, capacity) ? &table : NULL;
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
