#include "CTesseraJXL.h"

#include "CTesseraLoader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static TesseraJXL table;
static TesseraLibrary library = TESSERA_LIBRARY_INIT;

static void load(void) {
    // The runner's library needs libjxl's: opened first.
    static const char *const sonames[] = {"libjxl.so.0.7", "libjxl_threads.so.0.7", NULL};
    static const char *const symbols[] = {TESSERA_JXL_FUNCTIONS(TESSERA_SYMBOL) NULL};
    static const unsigned char from[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1};
    _Static_assert(sizeof symbols / sizeof *symbols == sizeof table / sizeof(void *) + 1, "a symbol for each slot");
    _Static_assert(sizeof from == sizeof table / sizeof(void *), "a library for each slot");
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, from, (void **)&table,
                         "cannot load %s (install libjxl0.7)", NULL);
}

const TesseraJXL *_Nullable tessera_jxl_load(char *_Nullable message, size_t capacity) {
    return tessera_library_once(&library, load, message, capacity) ? &table : NULL;
}

void tessera_jxl_free(void *_Nullable pointer) { free(pointer); }

int tessera_jxl_probe(const unsigned char *bytes, size_t length, TesseraJXLInfo *info) {
    memset(info, 0, sizeof *info);
    if (!tessera_jxl_load(info->error, sizeof info->error)) return 0;
    JxlDecoder *decoder = table.JxlDecoderCreate(NULL);
    if (!decoder) return 0;
    int ok = 0, haveInfo = 0;
    if (table.JxlDecoderSubscribeEvents(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING) != JXL_DEC_SUCCESS ||
        table.JxlDecoderSetInput(decoder, bytes, length) != JXL_DEC_SUCCESS) {
        goto done;
    }
    table.JxlDecoderCloseInput(decoder);
    for (;;) {
        JxlDecoderStatus status = table.JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo basic;
            if (table.JxlDecoderGetBasicInfo(decoder, &basic) != JXL_DEC_SUCCESS) goto done;
            int swaps = basic.orientation >= 5;
            info->width = swaps ? basic.ysize : basic.xsize;
            info->height = swaps ? basic.xsize : basic.ysize;
            info->bitsPerSample = basic.bits_per_sample;
            info->alphaBits = basic.alpha_bits;
            info->colorChannels = basic.num_color_channels;
            info->animated = basic.have_animation ? 1 : 0;
            info->orientation = basic.orientation;
            haveInfo = 1;
        } else if (status == JXL_DEC_COLOR_ENCODING) {
            JxlColorEncoding encoding;
            if (table.JxlDecoderGetColorAsEncodedProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) ==
                    JXL_DEC_SUCCESS &&
                encoding.white_point == JXL_WHITE_POINT_D65 && encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB &&
                (encoding.color_space == JXL_COLOR_SPACE_GRAY ||
                 (encoding.color_space == JXL_COLOR_SPACE_RGB && encoding.primaries == JXL_PRIMARIES_SRGB))) {
                info->isSRGB = 1;
            } else {
                size_t size = 0;
                if (table.JxlDecoderGetICCProfileSize(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &size) ==
                        JXL_DEC_SUCCESS &&
                    size > 0 && size <= (1 << 24)) {
                    info->icc = malloc(size);
                    if (info->icc &&
                        table.JxlDecoderGetColorAsICCProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, info->icc, size) ==
                            JXL_DEC_SUCCESS) {
                        info->iccLength = size;
                    } else {
                        free(info->icc);
                        info->icc = NULL;
                    }
                }
            }
            ok = haveInfo;
            goto done;
        } else if (status == JXL_DEC_NEED_MORE_INPUT) {
            info->truncated = 1;
            snprintf(info->error, sizeof info->error, "the JPEG XL headers end early");
            goto done;
        } else if (status == JXL_DEC_ERROR) {
            snprintf(info->error, sizeof info->error, "libjxl cannot read the headers");
            goto done;
        } else if (status == JXL_DEC_SUCCESS) {
            goto done;
        }
    }
done:
    if (!ok && !info->error[0]) snprintf(info->error, sizeof info->error, "libjxl cannot read the headers");
    table.JxlDecoderDestroy(decoder);
    return ok;
}

int tessera_jxl_decode(const unsigned char *bytes, size_t length, uint32_t channels, unsigned char *pixels,
                       size_t capacity, int threads, char *error, int *truncated) {
    error[0] = 0;
    *truncated = 0;
    if (!tessera_jxl_load(error, 256)) return 0;
    JxlDecoder *decoder = table.JxlDecoderCreate(NULL);
    if (!decoder) return 0;
    void *runner = threads > 1 ? table.JxlThreadParallelRunnerCreate(NULL, (size_t)threads) : NULL;
    int ok = 0;
    JxlPixelFormat format = {channels, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    if (table.JxlDecoderSubscribeEvents(decoder, JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS ||
        (runner && table.JxlDecoderSetParallelRunner(decoder, table.JxlThreadParallelRunner, runner) != JXL_DEC_SUCCESS) ||
        table.JxlDecoderSetInput(decoder, bytes, length) != JXL_DEC_SUCCESS) {
        goto done;
    }
    table.JxlDecoderCloseInput(decoder);
    for (;;) {
        JxlDecoderStatus status = table.JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t size = 0;
            if (table.JxlDecoderImageOutBufferSize(decoder, &format, &size) != JXL_DEC_SUCCESS || size != capacity) {
                snprintf(error, 256, "libjxl wants a %zu-byte image for a %zu-byte one", size, capacity);
                goto done;
            }
            if (table.JxlDecoderSetImageOutBuffer(decoder, &format, pixels, capacity) != JXL_DEC_SUCCESS) goto done;
        } else if (status == JXL_DEC_FULL_IMAGE) {
            ok = 1;  // the first frame: the rest of an animation is not read
            goto done;
        } else if (status == JXL_DEC_NEED_MORE_INPUT) {
            *truncated = 1;
            snprintf(error, 256, "the JPEG XL data ends early");
            goto done;
        } else if (status == JXL_DEC_ERROR) {
            snprintf(error, 256, "libjxl cannot decode the image");
            goto done;
        } else if (status == JXL_DEC_SUCCESS) {
            snprintf(error, 256, "the JPEG XL file has no frame");
            goto done;
        }
    }
done:
    if (!ok && !error[0]) snprintf(error, 256, "libjxl cannot decode the image");
    if (runner) table.JxlThreadParallelRunnerDestroy(runner);
    table.JxlDecoderDestroy(decoder);
    return ok;
}
