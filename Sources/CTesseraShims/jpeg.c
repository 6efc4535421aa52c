#include "CTesseraShims.h"
#include <string.h>
#include <stdlib.h>

#include "guarded.h"

static void decoder_error_exit(j_common_ptr common) {
    TesseraJPEGDecoder *decoder = (TesseraJPEGDecoder *)common;
    common->err->format_message(common, decoder->message);
    longjmp(decoder->recovery, 1);
}

static void decoder_emit_message(j_common_ptr common, int level) {
    if (level >= 0) {
        return;  // trace messages
    }
    TesseraJPEGDecoder *decoder = (TesseraJPEGDecoder *)common;
    if (common->err->msg_code == JWRN_JPEG_EOF) {
        decoder->reachedEndOfInput = 1;
    }
    if (decoder->warningCount++ == 0) {
        common->err->format_message(common, decoder->message);
    }
}

static void silent_output_message(j_common_ptr common) { (void)common; }

int tessera_jpeg_decoder_init(TesseraJPEGDecoder *decoder) {
    memset(decoder, 0, sizeof(*decoder));
    decoder->info.err = jpeg_std_error(&decoder->error);
    decoder->error.error_exit = decoder_error_exit;
    decoder->error.emit_message = decoder_emit_message;
    decoder->error.output_message = silent_output_message;
    GUARDED(decoder, jpeg_create_decompress(&decoder->info));
}

void tessera_jpeg_decoder_destroy(TesseraJPEGDecoder *decoder) {
    jpeg_destroy_decompress(&decoder->info);
}

int tessera_jpeg_source_file(TesseraJPEGDecoder *decoder, FILE *file) {
    GUARDED(decoder, jpeg_stdio_src(&decoder->info, file));
}

int tessera_jpeg_source_memory(TesseraJPEGDecoder *decoder, const unsigned char *bytes, unsigned long length) {
    GUARDED(decoder, jpeg_mem_src(&decoder->info, bytes, length));
}

// The source manager of tessera_jpeg_source_spliced, allocated in the decoder's permanent pool
// (as jpeg_stdio_src allocates its own).
typedef struct {
    struct jpeg_source_mgr pub;
    JOCTET *prefix;
    size_t prefix_length;
    int prefix_served;
    FILE *file;
    JOCTET *buffer;
    int marker_shift;
    int last_was_ff;  // the previous chunk ended in 0xFF: its marker byte starts this one
} SplicedSource;

enum { SPLICED_BUFFER_SIZE = 65536 };

static void spliced_init(j_decompress_ptr info) { (void)info; }

static boolean spliced_fill(j_decompress_ptr info) {
    SplicedSource *source = (SplicedSource *)info->src;
    if (!source->prefix_served) {
        source->prefix_served = 1;
        source->pub.next_input_byte = source->prefix;
        source->pub.bytes_in_buffer = source->prefix_length;
        return TRUE;
    }
    size_t count = fread(source->buffer, 1, SPLICED_BUFFER_SIZE, source->file);
    if (count == 0) {
        // As libjpeg's own sources: a warning, and a fake end of image.
        WARNMS(info, JWRN_JPEG_EOF);
        source->buffer[0] = 0xFF;
        source->buffer[1] = JPEG_EOI;
        count = 2;
    } else {
        for (size_t index = 0; index < count; index++) {
            JOCTET byte = source->buffer[index];
            if (source->last_was_ff && byte >= 0xD0 && byte <= 0xD7) {
                source->buffer[index] = (JOCTET)(0xD0 + ((byte - 0xD0 - source->marker_shift) & 7));
            }
            source->last_was_ff = byte == 0xFF;
        }
    }
    source->pub.next_input_byte = source->buffer;
    source->pub.bytes_in_buffer = count;
    return TRUE;
}

static void spliced_skip(j_decompress_ptr info, long count) {
    struct jpeg_source_mgr *source = info->src;
    while (count > (long)source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)source->fill_input_buffer(info);
    }
    if (count > 0) {
        source->next_input_byte += count;
        source->bytes_in_buffer -= (size_t)count;
    }
}

static void spliced_term(j_decompress_ptr info) { (void)info; }

int tessera_jpeg_source_spliced(TesseraJPEGDecoder *decoder, const unsigned char *prefix, unsigned long prefix_length,
                                FILE *file, int marker_shift) {
    GUARDED(decoder, {
        j_common_ptr common = (j_common_ptr)&decoder->info;
        SplicedSource *source = (SplicedSource *)(*common->mem->alloc_small)(common, JPOOL_PERMANENT, sizeof(SplicedSource));
        memset(source, 0, sizeof(*source));
        source->prefix = (JOCTET *)(*common->mem->alloc_large)(common, JPOOL_PERMANENT, prefix_length);
        memcpy(source->prefix, prefix, prefix_length);
        source->prefix_length = prefix_length;
        source->buffer = (JOCTET *)(*common->mem->alloc_large)(common, JPOOL_PERMANENT, SPLICED_BUFFER_SIZE);
        source->file = file;
        source->marker_shift = marker_shift & 7;
        source->pub.init_source = spliced_init;
        source->pub.fill_input_buffer = spliced_fill;
        source->pub.skip_input_data = spliced_skip;
        source->pub.resync_to_restart = jpeg_resync_to_restart;
        source->pub.term_source = spliced_term;
        decoder->info.src = &source->pub;
    });
}

int tessera_jpeg_read_header(TesseraJPEGDecoder *decoder) {
    GUARDED(decoder, jpeg_read_header(&decoder->info, TRUE));
}

int tessera_jpeg_start_decompress(TesseraJPEGDecoder *decoder) {
    GUARDED(decoder, jpeg_start_decompress(&decoder->info));
}

int tessera_jpeg_read_scanlines(TesseraJPEGDecoder *decoder, unsigned char **rows, unsigned int maxRows,
                                unsigned int *rowsRead) {
    GUARDED(decoder, *rowsRead = jpeg_read_scanlines(&decoder->info, rows, maxRows));
}

int tessera_jpeg_crop_scanline(TesseraJPEGDecoder *decoder, unsigned int *xoffset, unsigned int *width) {
    JDIMENSION x = *xoffset, w = *width;
    GUARDED(decoder, (jpeg_crop_scanline(&decoder->info, &x, &w), *xoffset = x, *width = w));
}

int tessera_jpeg_skip_scanlines(TesseraJPEGDecoder *decoder, unsigned int lines, unsigned int *skipped) {
    GUARDED(decoder, *skipped = jpeg_skip_scanlines(&decoder->info, lines));
}

static void encoder_error_exit(j_common_ptr common) {
    TesseraJPEGEncoder *encoder = (TesseraJPEGEncoder *)common;
    common->err->format_message(common, encoder->message);
    longjmp(encoder->recovery, 1);
}

int tessera_jpeg_encoder_init(TesseraJPEGEncoder *encoder) {
    memset(encoder, 0, sizeof(*encoder));
    encoder->info.err = jpeg_std_error(&encoder->error);
    encoder->error.error_exit = encoder_error_exit;
    encoder->error.output_message = silent_output_message;
    GUARDED(encoder, jpeg_create_compress(&encoder->info));
}

void tessera_jpeg_encoder_destroy(TesseraJPEGEncoder *encoder) {
    jpeg_destroy_compress(&encoder->info);
    free(encoder->output);
    encoder->output = NULL;
}

int tessera_jpeg_start_compress(TesseraJPEGEncoder *encoder, int quality, int progressive) {
    GUARDED(encoder, {
        jpeg_set_defaults(&encoder->info);
        jpeg_set_quality(&encoder->info, quality, TRUE);
        if (progressive) {
            jpeg_simple_progression(&encoder->info);
        }
        jpeg_mem_dest(&encoder->info, &encoder->output, &encoder->outputSize);
        jpeg_start_compress(&encoder->info, TRUE);
    });
}

int tessera_jpeg_write_icc_profile(TesseraJPEGEncoder *encoder, const unsigned char *profile, unsigned int length) {
    GUARDED(encoder, jpeg_write_icc_profile(&encoder->info, profile, length));
}

int tessera_jpeg_write_scanlines(TesseraJPEGEncoder *encoder, unsigned char **rows, unsigned int count) {
    GUARDED(encoder, jpeg_write_scanlines(&encoder->info, rows, count));
}

int tessera_jpeg_finish_compress(TesseraJPEGEncoder *encoder) {
    GUARDED(encoder, jpeg_finish_compress(&encoder->info));
}
