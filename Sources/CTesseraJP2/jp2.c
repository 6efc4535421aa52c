#include "CTesseraJP2.h"

#include "CTesseraLoader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static TesseraJP2 table;
static TesseraLibrary library = TESSERA_LIBRARY_INIT;

static void load(void) {
    static const char *const sonames[] = {"libopenjp2.so.7", NULL};
    static const char *const symbols[] = {TESSERA_JP2_FUNCTIONS(TESSERA_SYMBOL) NULL};
    _Static_assert(sizeof symbols / sizeof *symbols == sizeof table / sizeof(void *) + 1, "a symbol for each slot");
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install libopenjp2-7)", "libopenjp2 lacks %s");
}

const TesseraJP2 *_Nullable tessera_jp2_load(char *_Nullable message, size_t capacity) {
    return tessera_library_once(&library, load, message, capacity) ? &table : NULL;
}

// OpenJPEG's messages end with a newline; the first error is kept, without it.
static void capture_error(const char *message, void *userData) {
    TesseraJP2Decode *decode = userData;
    if (decode->errorCount++ == 0) {
        snprintf(decode->error, sizeof decode->error, "%s", message);
        size_t length = strlen(decode->error);
        while (length > 0 && (decode->error[length - 1] == '\n' || decode->error[length - 1] == ' ')) {
            decode->error[--length] = 0;
        }
    }
}

static void count_warning(const char *message, void *userData) {
    (void)message;
    ((TesseraJP2Decode *)userData)->warningCount++;
}

static void ignore(const char *message, void *userData) {
    (void)message;
    (void)userData;
}

static OPJ_SIZE_T read_bytes(void *buffer, OPJ_SIZE_T count, void *userData) {
    TesseraJP2Decode *decode = userData;
    if (decode->offset >= decode->length) return (OPJ_SIZE_T)-1;  // OpenJPEG's end of stream
    uint64_t available = decode->length - decode->offset;
    size_t wanted = count < available ? count : (size_t)available;
    ssize_t read;
    if (decode->fd >= 0) {
        do {
            read = pread(decode->fd, buffer, wanted, (off_t)decode->offset);
        } while (read < 0 && errno == EINTR);
        if (read <= 0) return (OPJ_SIZE_T)-1;
    } else {
        memcpy(buffer, decode->bytes + decode->offset, wanted);
        read = (ssize_t)wanted;
    }
    decode->offset += (uint64_t)read;
    return (OPJ_SIZE_T)read;
}

static OPJ_OFF_T skip_bytes(OPJ_OFF_T count, void *userData) {
    TesseraJP2Decode *decode = userData;
    if (count < 0 && (uint64_t)(-count) > decode->offset) return -1;
    decode->offset += (uint64_t)count;  // past the end is allowed: the next read reports the end
    return count;
}

static OPJ_BOOL seek_bytes(OPJ_OFF_T offset, void *userData) {
    TesseraJP2Decode *decode = userData;
    if (offset < 0 || (uint64_t)offset > decode->length) return OPJ_FALSE;
    decode->offset = (uint64_t)offset;
    return OPJ_TRUE;
}

int tessera_jp2_open(TesseraJP2Decode *decode, int fd, const unsigned char *_Nullable bytes, uint64_t length, int jp2, int threads) {
    memset(decode, 0, sizeof *decode);
    decode->fd = fd;
    decode->bytes = bytes;
    decode->length = length;
    if (!tessera_jp2_load(NULL, 0)) return 0;
    // OpenJPEG reads through a buffer of this many bytes: small, since a region reads a few packets.
    decode->stream = table.opj_stream_create(64 * 1024, OPJ_TRUE);
    if (!decode->stream) return 0;
    table.opj_stream_set_user_data(decode->stream, decode, NULL);
    table.opj_stream_set_user_data_length(decode->stream, length);
    table.opj_stream_set_read_function(decode->stream, read_bytes);
    table.opj_stream_set_skip_function(decode->stream, skip_bytes);
    table.opj_stream_set_seek_function(decode->stream, seek_bytes);
    decode->codec = table.opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
    if (!decode->codec) return 0;
    table.opj_set_error_handler(decode->codec, capture_error, decode);
    table.opj_set_warning_handler(decode->codec, count_warning, decode);
    table.opj_set_info_handler(decode->codec, ignore, decode);
    opj_dparameters_t parameters;
    table.opj_set_default_decoder_parameters(&parameters);
    if (!table.opj_setup_decoder(decode->codec, &parameters)) return 0;
    if (threads > 1 && table.opj_has_thread_support()) table.opj_codec_set_threads(decode->codec, threads);
    opj_image_t *image = NULL;
    if (!table.opj_read_header(decode->stream, decode->codec, &image)) {
        if (image) table.opj_image_destroy(image);
        return 0;
    }
    decode->image = image;
    return 1;
}

int tessera_jp2_decode_area(TesseraJP2Decode *decode, uint32_t reduction, int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    if (!decode->codec || !decode->stream || !decode->image) return 0;
    if (!table.opj_set_decoded_resolution_factor(decode->codec, reduction)) return 0;
    if (!table.opj_set_decode_area(decode->codec, decode->image, x0, y0, x1, y1)) return 0;
    if (!table.opj_decode(decode->codec, decode->stream, decode->image)) return 0;
    return table.opj_end_decompress(decode->codec, decode->stream) ? 1 : 0;
}

void tessera_jp2_close(TesseraJP2Decode *decode) {
    if (!tessera_jp2_load(NULL, 0)) return;
    if (decode->image) table.opj_image_destroy(decode->image);
    if (decode->codec) table.opj_destroy_codec(decode->codec);
    if (decode->stream) table.opj_stream_destroy(decode->stream);
    decode->image = NULL;
    decode->codec = NULL;
    decode->stream = NULL;
}
