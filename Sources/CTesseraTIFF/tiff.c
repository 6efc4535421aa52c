#include "CTesseraTIFF.h"

#include "CTesseraLoader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// The name libtiff is given for every file: many of its messages start with the file's name, and
// a message becomes an error a server may send, which must never hold a path. Taken out again.
static const char fileName[] = "tiff";

// The table, then the variadic functions, which are C-only and so not in it.
static struct {
    TesseraTIFF table;
    __typeof__(&TIFFGetFieldDefaulted) TIFFGetFieldDefaulted;
    __typeof__(&TIFFSetField) TIFFSetField;
    __typeof__(&TIFFGetField) TIFFGetField;
} libtiff;
TESSERA_LOADER(TesseraTIFF, tessera_tiff_load, &libtiff.table)

static void load(void) {
    // libtiff's soname has moved on its own (4.0-4.4: .so.5, 4.5 on: .so.6), not with its version;
    // .so.6 is the ABI of the 4.5 header this is built with (TIFFOpenExt and friends are 4.5's).
    static const char *const sonames[] = {"libtiff.so.6", NULL};
    TESSERA_SYMBOLS(libtiff, TESSERA_TIFF_FUNCTIONS(TESSERA_SYMBOL) "TIFFGetFieldDefaulted", "TIFFSetField", "TIFFGetField", );
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&libtiff,
                         "cannot load %s (install libtiff)", "libtiff lacks %s");
}

static int capture_error(TIFF *tiff, void *userData, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    (void)module;
    TesseraTIFFMessages *messages = userData;
    if (messages->errorCount++ == 0) {
        vsnprintf(messages->error, sizeof messages->error, format, arguments);
        size_t prefix = sizeof fileName - 1;
        if (strncmp(messages->error, fileName, prefix) == 0 && messages->error[prefix] == ':' && messages->error[prefix + 1] == ' ') {
            memmove(messages->error, messages->error + prefix + 2, strlen(messages->error + prefix + 2) + 1);
        }
    }
    return 1;  // handled: libtiff must not print it
}

static int count_warning(TIFF *tiff, void *userData, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    (void)module;
    (void)format;
    (void)arguments;
    ((TesseraTIFFMessages *)userData)->warningCount++;
    return 1;
}

static TIFFOpenOptions *capturing_options(int64_t maximumAllocation, TesseraTIFFMessages *messages) {
    memset(messages, 0, sizeof(*messages));
    if (!tessera_tiff_load(messages->error, sizeof messages->error)) {
        return NULL;
    }
    TIFFOpenOptions *options = libtiff.table.TIFFOpenOptionsAlloc();
    if (options) {
        libtiff.table.TIFFOpenOptionsSetErrorHandlerExtR(options, capture_error, messages);
        libtiff.table.TIFFOpenOptionsSetWarningHandlerExtR(options, count_warning, messages);
        libtiff.table.TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)maximumAllocation);
    }
    return options;
}

int tessera_tiff_set_tiled_image(TIFF *tiff, const TesseraTIFFTiledImage *image) {
    int alpha = image->samples == 2 || image->samples == 4;
    int colour = image->samples >= 3;
    int jpeg = image->compression == COMPRESSION_JPEG;
    int ok = libtiff.TIFFSetField(tiff, TIFFTAG_SUBFILETYPE, image->subfileType) &&
             libtiff.TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, image->width) &&
             libtiff.TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, image->height) &&
             libtiff.TIFFSetField(tiff, TIFFTAG_TILEWIDTH, image->tileSide) &&
             libtiff.TIFFSetField(tiff, TIFFTAG_TILELENGTH, image->tileSide) &&
             libtiff.TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, 8) &&
             libtiff.TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, image->samples) &&
             libtiff.TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
             libtiff.TIFFSetField(tiff, TIFFTAG_ORIENTATION, image->orientation) &&
             libtiff.TIFFSetField(tiff, TIFFTAG_COMPRESSION, image->compression);
    if (ok && alpha) {
        uint16_t kind = EXTRASAMPLE_UNASSALPHA;
        ok = libtiff.TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, 1, &kind);
    }
    if (ok && jpeg) {
        // Colour is stored as YCbCr 4:2:0, libjpeg converting the RGB it is given.
        ok = libtiff.TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, colour ? PHOTOMETRIC_YCBCR : PHOTOMETRIC_MINISBLACK) &&
             libtiff.TIFFSetField(tiff, TIFFTAG_JPEGQUALITY, image->jpegQuality) &&
             (!colour || (libtiff.TIFFSetField(tiff, TIFFTAG_YCBCRSUBSAMPLING, 2, 2) &&
                          libtiff.TIFFSetField(tiff, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB)));
    } else if (ok) {
        ok = libtiff.TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, colour ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK) &&
             libtiff.TIFFSetField(tiff, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    }
    if (ok && image->subIFDCount > 0) {
        // Placeholders: libtiff fills them in as it writes the SubIFDs that follow.
        uint64_t offsets[64] = {0};
        ok = image->subIFDCount <= 64 && libtiff.TIFFSetField(tiff, TIFFTAG_SUBIFD, image->subIFDCount, offsets);
    }
    if (ok && image->description) {
        ok = libtiff.TIFFSetField(tiff, TIFFTAG_IMAGEDESCRIPTION, image->description);
    }
    if (ok && image->iccProfile && image->iccProfileLength > 0) {
        ok = libtiff.TIFFSetField(tiff, TIFFTAG_ICCPROFILE, image->iccProfileLength, image->iccProfile);
    }
    if (ok) {
        ok = libtiff.TIFFSetField(tiff, TIFFTAG_SOFTWARE, "Tessera");
    }
    return ok;
}

// Opened here and handed over by descriptor, so that libtiff never learns the path (TIFFClose
// closes the descriptor; a failed open leaves it to us, as TIFFOpen does).
static TIFF *open_path(const char *path, int flags, const char *mode, int64_t maximumAllocation, TesseraTIFFMessages *messages) {
    TIFFOpenOptions *options = capturing_options(maximumAllocation, messages);
    if (!options) {
        return NULL;
    }
    int fd = open(path, flags | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(messages->error, sizeof messages->error, "cannot open the file: %s", strerror(errno));
        messages->errorCount++;
        libtiff.table.TIFFOpenOptionsFree(options);
        return NULL;
    }
    TIFF *tiff = libtiff.table.TIFFFdOpenExt(fd, fileName, mode, options);
    libtiff.table.TIFFOpenOptionsFree(options);
    if (!tiff) close(fd);
    return tiff;
}

TIFF *tessera_tiff_open_file(const char *path, int64_t maximumAllocation, TesseraTIFFMessages *messages) {
    return open_path(path, O_RDONLY, "rm", maximumAllocation, messages);
}

TIFF *tessera_tiff_create_file(const char *path, int big, TesseraTIFFMessages *messages) {
    return open_path(path, O_RDWR | O_CREAT | O_TRUNC, big ? "w8" : "w", INT64_MAX / 2, messages);
}

typedef struct MemoryStream {
    const unsigned char *bytes;
    toff_t length;
    toff_t offset;
} MemoryStream;

static tmsize_t memory_read(thandle_t handle, void *destination, tmsize_t count) {
    MemoryStream *stream = handle;
    if (count < 0 || stream->offset >= stream->length) {
        return 0;
    }
    toff_t available = stream->length - stream->offset;
    tmsize_t copied = (toff_t)count < available ? count : (tmsize_t)available;
    memcpy(destination, stream->bytes + stream->offset, (size_t)copied);
    stream->offset += (toff_t)copied;
    return copied;
}

static tmsize_t memory_write(thandle_t handle, void *source, tmsize_t count) {
    (void)handle;
    (void)source;
    (void)count;
    return -1;
}

static toff_t memory_seek(thandle_t handle, toff_t offset, int whence) {
    MemoryStream *stream = handle;
    toff_t base = whence == SEEK_CUR ? stream->offset : whence == SEEK_END ? stream->length : 0;
    stream->offset = base + offset;
    return stream->offset;
}

static int memory_close(thandle_t handle) {
    libtiff.table._TIFFfree(handle);
    return 0;
}

static toff_t memory_size(thandle_t handle) { return ((MemoryStream *)handle)->length; }

static int memory_map(thandle_t handle, void **base, toff_t *size) {
    MemoryStream *stream = handle;
    *base = (void *)stream->bytes;
    *size = stream->length;
    return 1;
}

static void memory_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle;
    (void)base;
    (void)size;
}

TIFF *tessera_tiff_open_memory(const unsigned char *bytes, size_t length, int64_t maximumAllocation,
                               TesseraTIFFMessages *messages) {
    TIFFOpenOptions *options = capturing_options(maximumAllocation, messages);
    if (!options) {
        return NULL;
    }
    MemoryStream *stream = libtiff.table._TIFFmalloc(sizeof(MemoryStream));
    if (!stream) {
        libtiff.table.TIFFOpenOptionsFree(options);
        return NULL;
    }
    stream->bytes = bytes;
    stream->length = length;
    stream->offset = 0;
    TIFF *tiff = libtiff.table.TIFFClientOpenExt("memory", "rm", stream, memory_read, memory_write, memory_seek,
                                                 memory_close, memory_size, memory_map, memory_unmap, options);
    libtiff.table.TIFFOpenOptionsFree(options);
    if (!tiff) {
        libtiff.table._TIFFfree(stream);  // libtiff does not call close when opening fails
    }
    return tiff;
}

int tessera_tiff_get_uint32(TIFF *tiff, uint32_t tag, uint32_t *value) {
    return libtiff.TIFFGetFieldDefaulted(tiff, tag, value);
}

int tessera_tiff_get_uint16(TIFF *tiff, uint32_t tag, uint16_t *value) {
    return libtiff.TIFFGetFieldDefaulted(tiff, tag, value);
}

int tessera_tiff_decode_jpeg_as_rgb(TIFF *tiff) {
    return libtiff.TIFFSetField(tiff, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
}

int tessera_tiff_get_extra_samples(TIFF *tiff, uint16_t *count, uint16_t *firstKind) {
    uint16_t *kinds = NULL;
    *count = 0;
    *firstKind = 0;
    if (!libtiff.TIFFGetFieldDefaulted(tiff, TIFFTAG_EXTRASAMPLES, count, &kinds)) {
        return 0;
    }
    if (*count > 0 && kinds) {
        *firstKind = kinds[0];
    }
    return 1;
}

int tessera_tiff_get_bytes(TIFF *tiff, uint32_t tag, uint32_t *length, const void **bytes) {
    *length = 0;
    *bytes = NULL;
    return libtiff.TIFFGetFieldDefaulted(tiff, tag, length, bytes) && *bytes && *length > 0;
}

int tessera_tiff_get_subifds(TIFF *tiff, uint16_t *count, const uint64_t **offsets) {
    uint64_t *found = NULL;
    *count = 0;
    *offsets = NULL;
    if (!libtiff.TIFFGetField(tiff, TIFFTAG_SUBIFD, count, &found) || !found || *count == 0) {
        *count = 0;
        return 0;
    }
    *offsets = found;
    return 1;
}

int tessera_tiff_get_string(TIFF *tiff, uint32_t tag, const char **text) {
    *text = NULL;
    return libtiff.TIFFGetFieldDefaulted(tiff, tag, text) && *text;
}

int tessera_tiff_get_array(TIFF *tiff, uint32_t tag, uint32_t *count, const void **values, int *dataType) {
    *count = 0;
    *values = NULL;
    *dataType = 0;
    const TIFFField *field = libtiff.table.TIFFFindField(tiff, tag, TIFF_ANY);
    // Only counted fields: an anonymous one always is (its count a uint32), a known one with a
    // variable count says so (a uint16 then, unless TIFF_VARIABLE2).
    if (!field || !libtiff.table.TIFFFieldPassCount(field)) return 0;
    void *found = NULL;
    if (libtiff.table.TIFFFieldReadCount(field) == TIFF_VARIABLE2) {
        uint32_t wide = 0;
        if (!libtiff.TIFFGetField(tiff, tag, &wide, &found)) return 0;
        *count = wide;
    } else {
        uint16_t narrow = 0;
        if (!libtiff.TIFFGetField(tiff, tag, &narrow, &found)) return 0;
        *count = narrow;
    }
    if (!found || *count == 0) {
        *count = 0;
        return 0;
    }
    *values = found;
    *dataType = (int)libtiff.table.TIFFFieldDataType(field);
    return 1;
}
