#include "CTesseraJP2.h"

#include "CTesseraLoader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static TesseraJP2 table;
TESSERA_LOADER(TesseraJP2, tessera_jp2_load, &table)

static void load(void) {
    static const char *const sonames[] = {"libopenjp2.so.7", NULL};
    TESSERA_SYMBOLS(table, TESSERA_JP2_FUNCTIONS(TESSERA_SYMBOL));
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, NULL, (void **)&table,
                         "cannot load %s (install libopenjp2-7)", "libopenjp2 lacks %s");
}

// OpenJPEG's messages end with a newline; the first error is kept, without it.
static void capture_error(const char *message, void *userData) {
    TesseraJP2Messages *messages = userData;
    if (messages->errorCount++ == 0) {
        snprintf(messages->error, sizeof messages->error, "%s", message);
        size_t length = strlen(messages->error);
        while (length > 0 && (messages->error[length - 1] == '\n' || messages->error[length - 1] == ' ')) {
            messages->error[--length] = 0;
        }
    }
}

static void count_warning(const char *message, void *userData) {
    (void)message;
    ((TesseraJP2Messages *)userData)->warningCount++;
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
    table.opj_set_error_handler(decode->codec, capture_error, &decode->messages);
    table.opj_set_warning_handler(decode->codec, count_warning, &decode->messages);
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

// Frees what a decode or an encode holds (any part may be missing) and clears it. The stream goes
// first: destroying it closes an encode's file, and nothing else uses it.
static void release(opj_stream_t *stream, opj_codec_t *codec, opj_image_t **image) {
    if (!tessera_jp2_load(NULL, 0)) return;
    if (*stream) table.opj_stream_destroy(*stream);
    if (*codec) table.opj_destroy_codec(*codec);
    if (*image) table.opj_image_destroy(*image);
    *stream = NULL;
    *codec = NULL;
    *image = NULL;
}

void tessera_jp2_close(TesseraJP2Decode *decode) { release(&decode->stream, &decode->codec, &decode->image); }

int tessera_jp2_encode_open(TesseraJP2Encode *encode, const char *path, const TesseraJP2EncodeSettings *settings) {
    memset(encode, 0, sizeof *encode);
    if (!tessera_jp2_load(NULL, 0)) return 0;
    if (settings->components < 1 || settings->components > 4) {
        snprintf(encode->messages.error, sizeof encode->messages.error, "%u components", settings->components);
        return 0;
    }
    opj_cparameters_t parameters;
    table.opj_set_default_encoder_parameters(&parameters);
    parameters.tile_size_on = OPJ_TRUE;
    parameters.cp_tdx = (int)settings->tileWidth;
    parameters.cp_tdy = (int)settings->tileHeight;
    parameters.numresolution = (int)settings->resolutions;
    parameters.prog_order = OPJ_RPCL;
    parameters.cblockw_init = 64;
    parameters.cblockh_init = 64;
    parameters.tcp_numlayers = 1;
    if (settings->lossless) {
        parameters.irreversible = 0;
        parameters.tcp_rates[0] = 0;
        parameters.cp_disto_alloc = 1;
    } else {
        parameters.irreversible = 1;
        parameters.tcp_distoratio[0] = settings->psnr;
        parameters.cp_fixed_quality = 1;
    }
    // The colour transform decorrelates RGB: much smaller files for the same quality.
    parameters.tcp_mct = settings->components >= 3 ? 1 : 0;
    opj_image_cmptparm_t components[4];
    memset(components, 0, sizeof components);
    for (uint32_t index = 0; index < settings->components; index++) {
        components[index].dx = 1;
        components[index].dy = 1;
        components[index].w = settings->width;
        components[index].h = settings->height;
        components[index].prec = 8;
        components[index].sgnd = 0;
    }
    OPJ_COLOR_SPACE space = settings->components >= 3 ? OPJ_CLRSPC_SRGB : OPJ_CLRSPC_GRAY;
    encode->image = table.opj_image_tile_create(settings->components, components, space);
    if (!encode->image) return 0;
    encode->image->x0 = 0;
    encode->image->y0 = 0;
    encode->image->x1 = settings->width;
    encode->image->y1 = settings->height;
    if (settings->components == 2 || settings->components == 4) encode->image->comps[settings->components - 1].alpha = 1;
    encode->codec = table.opj_create_compress(OPJ_CODEC_J2K);
    if (!encode->codec) return 0;
    table.opj_set_error_handler(encode->codec, capture_error, &encode->messages);
    table.opj_set_warning_handler(encode->codec, count_warning, &encode->messages);
    table.opj_set_info_handler(encode->codec, ignore, encode);
    if (!table.opj_setup_encoder(encode->codec, &parameters, encode->image)) return 0;
    if (settings->threads > 1 && table.opj_has_thread_support()) table.opj_codec_set_threads(encode->codec, settings->threads);
    encode->stream = table.opj_stream_create_default_file_stream(path, OPJ_FALSE);
    if (!encode->stream) {
        snprintf(encode->messages.error, sizeof encode->messages.error, "cannot create the output file");
        return 0;
    }
    return table.opj_start_compress(encode->codec, encode->image, encode->stream) ? 1 : 0;
}

int tessera_jp2_encode_tile(TesseraJP2Encode *encode, uint32_t index, unsigned char *bytes, uint32_t count) {
    if (!encode->codec || !encode->stream) return 0;
    return table.opj_write_tile(encode->codec, index, bytes, count, encode->stream) ? 1 : 0;
}

int tessera_jp2_encode_finish(TesseraJP2Encode *encode) {
    if (!encode->codec || !encode->stream) return 0;
    int finished = table.opj_end_compress(encode->codec, encode->stream) ? 1 : 0;
    // Destroying the stream closes the file: its bytes are all written once this returns.
    table.opj_stream_destroy(encode->stream);
    encode->stream = NULL;
    return finished;
}

void tessera_jp2_encode_close(TesseraJP2Encode *encode) { release(&encode->stream, &encode->codec, &encode->image); }
