#include "CTesseraShims.h"
#include <string.h>
#include <stdlib.h>

#include "guarded.h"

static void copy_message(char *destination, const char *message) {
    strncpy(destination, message ? message : "unknown libpng error", TESSERA_MESSAGE_CAPACITY - 1);
    destination[TESSERA_MESSAGE_CAPACITY - 1] = 0;
}

static void decoder_error(png_structp png, png_const_charp message) {
    TesseraPNGDecoder *decoder = png_get_error_ptr(png);
    copy_message(decoder->message, message);
    longjmp(decoder->recovery, 1);
}

static void ignore_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void decoder_warning(png_structp png, png_const_charp message) {
    TesseraPNGDecoder *decoder = png_get_error_ptr(png);
    if (message && strstr(message, "CRC") && !decoder->crcWarning[0]) {
        strncpy(decoder->crcWarning, message, TESSERA_MESSAGE_CAPACITY - 1);
        decoder->crcWarning[TESSERA_MESSAGE_CAPACITY - 1] = 0;
    }
}

// Reads from the file or the memory buffer. A short read marks the input as truncated and pads
// with zeros instead of failing at once, so the rows already in libpng's hands still come out;
// Swift checks the mark after every row and decides whether truncation is an error.
static void decoder_read(png_structp png, png_bytep destination, size_t count) {
    TesseraPNGDecoder *decoder = png_get_io_ptr(png);
    size_t copied;
    if (decoder->file) {
        copied = fread(destination, 1, count, decoder->file);
    } else {
        size_t available = decoder->length - decoder->offset;
        copied = count < available ? count : available;
        memcpy(destination, decoder->bytes + decoder->offset, copied);
        decoder->offset += copied;
    }
    if (copied < count) {
        decoder->reachedEndOfInput = 1;
        memset(destination + copied, 0, count - copied);
    }
}

int tessera_png_decoder_init(TesseraPNGDecoder *decoder) {
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, decoder, decoder_error, decoder_warning);
    if (!decoder->png) {
        copy_message(decoder->message, "out of memory");
        return -1;
    }
    GUARDED(decoder, {
        decoder->info = png_create_info_struct(decoder->png);
        if (!decoder->info) {
            png_error(decoder->png, "out of memory");
        }
        png_set_read_fn(decoder->png, decoder, decoder_read);
        // A CRC error in a critical chunk (IDAT) is warned of and the data used, as libvips and
        // browsers use it; in an ancillary chunk, the chunk is dropped with a warning (libpng's default).
        png_set_crc_action(decoder->png, PNG_CRC_WARN_USE, PNG_CRC_WARN_DISCARD);
        // Metadata Tessera reads itself (eXIf, in PNGHeader) or not at all is skipped unread: libpng
        // allocates an eXIf chunk whole at the length it claims, however large (found by
        // FuzzDecodePNG: a 128-byte file asking for 688 MB).
        static const png_byte ignored[] = "eXIf\0tEXt\0zTXt\0iTXt\0sPLT";
        png_set_keep_unknown_chunks(decoder->png, PNG_HANDLE_CHUNK_NEVER, ignored, 5);
    });
}

void tessera_png_decoder_destroy(TesseraPNGDecoder *decoder) {
    if (decoder->png) {
        png_destroy_read_struct(&decoder->png, decoder->info ? &decoder->info : NULL, NULL);
    }
}

int tessera_png_read_info(TesseraPNGDecoder *decoder) {
    GUARDED(decoder, png_read_info(decoder->png, decoder->info));
}

int tessera_png_configure(TesseraPNGDecoder *decoder, int transforms, int *passes) {
    GUARDED(decoder, {
        if (transforms & TESSERA_PNG_EXPAND) {
            png_set_expand(decoder->png);
        }
        if (transforms & TESSERA_PNG_STRIP_16) {
            png_set_strip_16(decoder->png);
        }
        *passes = (transforms & TESSERA_PNG_INTERLACE) ? png_set_interlace_handling(decoder->png) : 1;
        png_read_update_info(decoder->png, decoder->info);
    });
}

int tessera_png_read_row(TesseraPNGDecoder *decoder, unsigned char *row) {
    GUARDED(decoder, png_read_row(decoder->png, row, NULL));
}

static void encoder_error(png_structp png, png_const_charp message) {
    TesseraPNGEncoder *encoder = png_get_error_ptr(png);
    copy_message(encoder->message, message);
    longjmp(encoder->recovery, 1);
}

static void encoder_write(png_structp png, png_bytep bytes, size_t count) {
    TesseraPNGEncoder *encoder = png_get_io_ptr(png);
    if (encoder->outputSize + count > encoder->outputCapacity) {
        size_t capacity = encoder->outputCapacity ? encoder->outputCapacity : 65536;
        while (capacity < encoder->outputSize + count) {
            capacity *= 2;
        }
        unsigned char *grown = realloc(encoder->output, capacity);
        if (!grown) {
            png_error(png, "out of memory");
        }
        encoder->output = grown;
        encoder->outputCapacity = capacity;
    }
    memcpy(encoder->output + encoder->outputSize, bytes, count);
    encoder->outputSize += count;
}

static void encoder_flush(png_structp png) { (void)png; }

int tessera_png_encoder_init(TesseraPNGEncoder *encoder) {
    memset(encoder, 0, sizeof(*encoder));
    encoder->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, encoder, encoder_error, ignore_warning);
    if (!encoder->png) {
        copy_message(encoder->message, "out of memory");
        return -1;
    }
    GUARDED(encoder, {
        encoder->info = png_create_info_struct(encoder->png);
        if (!encoder->info) {
            png_error(encoder->png, "out of memory");
        }
        png_set_write_fn(encoder->png, encoder, encoder_write, encoder_flush);
    });
}

void tessera_png_encoder_destroy(TesseraPNGEncoder *encoder) {
    if (encoder->png) {
        png_destroy_write_struct(&encoder->png, encoder->info ? &encoder->info : NULL);
    }
    free(encoder->output);
    encoder->output = NULL;
}

int tessera_png_write_header(TesseraPNGEncoder *encoder, unsigned int width, unsigned int height, int colorType,
                             int compressionLevel, const unsigned char *profile, unsigned int profileLength) {
    GUARDED(encoder, {
        png_set_IHDR(encoder->png, encoder->info, width, height, 8, colorType, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_set_compression_level(encoder->png, compressionLevel);
        // Asked to be fast (levels 1 and 2): the Sub filter alone rather than libpng's trial of all
        // five on every row, which costs more than the deflate at those levels.
        if (compressionLevel > 0 && compressionLevel <= 2) png_set_filter(encoder->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
        if (profile && profileLength) {
            png_set_iCCP(encoder->png, encoder->info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, profile, profileLength);
        }
        png_write_info(encoder->png, encoder->info);
    });
}

int tessera_png_write_palette_header(TesseraPNGEncoder *encoder, unsigned int width, unsigned int height, int bitDepth,
                                     const unsigned char *palette, int paletteCount, const unsigned char *alpha,
                                     int alphaCount, int compressionLevel, const unsigned char *profile,
                                     unsigned int profileLength) {
    GUARDED(encoder, {
        png_set_IHDR(encoder->png, encoder->info, width, height, bitDepth, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_set_PLTE(encoder->png, encoder->info, (png_const_colorp)palette, paletteCount);
        if (alphaCount > 0) png_set_tRNS(encoder->png, encoder->info, alpha, alphaCount, NULL);
        png_set_compression_level(encoder->png, compressionLevel);
        if (profile && profileLength) {
            png_set_iCCP(encoder->png, encoder->info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, profile, profileLength);
        }
        png_write_info(encoder->png, encoder->info);
        if (bitDepth < 8) png_set_packing(encoder->png);
    });
}

int tessera_png_write_row(TesseraPNGEncoder *encoder, const unsigned char *row) {
    GUARDED(encoder, png_write_row(encoder->png, row));
}

int tessera_png_finish(TesseraPNGEncoder *encoder) {
    GUARDED(encoder, png_write_end(encoder->png, NULL));
}
