#include "CTesseraJXL.h"

#include "CTesseraLoader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static TesseraJXL table;
TESSERA_LOADER(TesseraJXL, tessera_jxl_load, &table)

static void load(void) {
    // The runner's library needs libjxl's: opened first.
    static const char *const sonames[] = {"libjxl.so.0.7", "libjxl_threads.so.0.7", NULL};
    TESSERA_SYMBOLS(table, TESSERA_JXL_FUNCTIONS(TESSERA_SYMBOL));
    // Every symbol is libjxl's but the runner's three, the table's last (libjxl_threads).
    enum { count = sizeof table / sizeof(void *) };
    static unsigned char from[count];
    for (int index = 0; index < count; index++) from[index] = index >= count - 3 ? 1 : 0;
    tessera_library_open(&library, sonames, RTLD_NOW, symbols, from, (void **)&table,
                         "cannot load %s (install libjxl0.7)", NULL);
}

void tessera_jxl_free(void *_Nullable pointer) { free(pointer); }

// A decoder subscribed to `events`, on `runner` if given, with all of `bytes` as its input; NULL if
// libjxl refuses any of it. The input is left open (JxlDecoderCloseInput is for box events, which
// none of these asks for): then data that ends early is JXL_DEC_NEED_MORE_INPUT, a truncated file,
// where a closed input makes it a bare JXL_DEC_ERROR, and libjxl prints "missing input".
static JxlDecoder *started_decoder(const unsigned char *bytes, size_t length, int events, void *runner) {
    JxlDecoder *decoder = table.JxlDecoderCreate(NULL);
    if (!decoder) return NULL;
    if (table.JxlDecoderSubscribeEvents(decoder, events) != JXL_DEC_SUCCESS ||
        (runner && table.JxlDecoderSetParallelRunner(decoder, table.JxlThreadParallelRunner, runner) != JXL_DEC_SUCCESS) ||
        table.JxlDecoderSetInput(decoder, bytes, length) != JXL_DEC_SUCCESS) {
        table.JxlDecoderDestroy(decoder);
        return NULL;
    }
    return decoder;
}

// A single-threaded decoder for headers only, subscribed to `events`; NULL with `error` (256 bytes)
// set when libjxl is missing or refuses the bytes.
static JxlDecoder *header_decoder(const unsigned char *bytes, size_t length, int events, char *error) {
    if (!tessera_jxl_load(error, 256)) return NULL;
    JxlDecoder *decoder = started_decoder(bytes, length, events, NULL);
    if (!decoder) snprintf(error, 256, "libjxl cannot read the headers");
    return decoder;
}

int tessera_jxl_probe(const unsigned char *bytes, size_t length, TesseraJXLInfo *info) {
    memset(info, 0, sizeof *info);
    JxlDecoder *decoder = header_decoder(bytes, length, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING, info->error);
    if (!decoder) return 0;
    int ok = 0, haveInfo = 0;
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
    void *runner = threads > 1 ? table.JxlThreadParallelRunnerCreate(NULL, (size_t)threads) : NULL;
    JxlDecoder *decoder = started_decoder(bytes, length, JXL_DEC_FULL_IMAGE, runner);
    if (!decoder) {
        if (runner) table.JxlThreadParallelRunnerDestroy(runner);
        snprintf(error, 256, "libjxl cannot decode the image");
        return 0;
    }
    int ok = 0;
    JxlPixelFormat format = {channels, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
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

int tessera_jxl_timing(const unsigned char *bytes, size_t length, TesseraJXLTiming *timing) {
    memset(timing, 0, sizeof *timing);
    // Frame headers only: libjxl passes over each frame's data by its table of contents.
    JxlDecoder *decoder = header_decoder(bytes, length, JXL_DEC_BASIC_INFO | JXL_DEC_FRAME, timing->error);
    if (!decoder) return 0;
    int ok = 0;
    size_t capacity = 0;
    double secondsPerTick = 0;
    for (;;) {
        JxlDecoderStatus status = table.JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo basic;
            if (table.JxlDecoderGetBasicInfo(decoder, &basic) != JXL_DEC_SUCCESS) break;
            if (basic.have_animation && basic.animation.tps_numerator > 0)
                secondsPerTick = (double)basic.animation.tps_denominator / basic.animation.tps_numerator;
            timing->loops = basic.have_animation ? basic.animation.num_loops : 1;
        } else if (status == JXL_DEC_FRAME) {
            JxlFrameHeader header;
            if (table.JxlDecoderGetFrameHeader(decoder, &header) != JXL_DEC_SUCCESS) break;
            if (timing->frameCount == capacity) {
                capacity = capacity ? capacity * 2 : 16;
                double *grown = realloc(timing->durations, capacity * sizeof *grown);
                if (!grown) break;
                timing->durations = grown;
            }
            timing->durations[timing->frameCount++] = header.duration * secondsPerTick;
        } else if (status == JXL_DEC_SUCCESS) {
            ok = timing->frameCount > 0;
            break;
        } else if (status == JXL_DEC_NEED_MORE_INPUT) {
            timing->truncated = 1;
            snprintf(timing->error, sizeof timing->error, "the JPEG XL data ends in frame %zu", timing->frameCount + 1);
            break;
        } else if (status == JXL_DEC_ERROR) {
            snprintf(timing->error, sizeof timing->error, "libjxl cannot read frame %zu's header", timing->frameCount + 1);
            break;
        }
    }
    if (!ok && !timing->error[0]) snprintf(timing->error, sizeof timing->error, "libjxl cannot read the frames");
    table.JxlDecoderDestroy(decoder);
    return ok;
}

struct TesseraJXLFrames {
    JxlDecoder *decoder;
    void *runner;
    unsigned char *bytes;  // the file, copied: libjxl reads it as frames are asked for
};

TesseraJXLFrames *_Nullable tessera_jxl_frames_open(const unsigned char *bytes, size_t length, int threads, char *error) {
    error[0] = 0;
    if (!tessera_jxl_load(error, 256)) return NULL;
    TesseraJXLFrames *frames = calloc(1, sizeof *frames);
    if (!frames || !(frames->bytes = malloc(length ? length : 1))) {
        free(frames);
        snprintf(error, 256, "no memory for the JPEG XL file");
        return NULL;
    }
    memcpy(frames->bytes, bytes, length);
    frames->runner = threads > 1 ? table.JxlThreadParallelRunnerCreate(NULL, (size_t)threads) : NULL;
    // Coalesced (libjxl's default): each FULL_IMAGE is a displayed frame, the whole canvas.
    frames->decoder = started_decoder(frames->bytes, length, JXL_DEC_FULL_IMAGE, frames->runner);
    if (!frames->decoder) {
        snprintf(error, 256, "libjxl cannot decode the animation");
        tessera_jxl_frames_close(frames);
        return NULL;
    }
    return frames;
}

int tessera_jxl_frames_next(TesseraJXLFrames *frames, unsigned char *pixels, size_t capacity, char *error, int *truncated) {
    error[0] = 0;
    *truncated = 0;
    JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    for (;;) {
        JxlDecoderStatus status = table.JxlDecoderProcessInput(frames->decoder);
        if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t size = 0;
            if (table.JxlDecoderImageOutBufferSize(frames->decoder, &format, &size) != JXL_DEC_SUCCESS || size != capacity ||
                table.JxlDecoderSetImageOutBuffer(frames->decoder, &format, pixels, capacity) != JXL_DEC_SUCCESS) {
                snprintf(error, 256, "libjxl wants a %zu-byte frame for a %zu-byte one", size, capacity);
                return -1;
            }
        } else if (status == JXL_DEC_FULL_IMAGE) {
            return 1;
        } else if (status == JXL_DEC_SUCCESS) {
            return 0;
        } else if (status == JXL_DEC_NEED_MORE_INPUT) {
            *truncated = 1;
            snprintf(error, 256, "the JPEG XL data ends early");
            return -1;
        } else if (status == JXL_DEC_ERROR) {
            snprintf(error, 256, "libjxl cannot decode the frame");
            return -1;
        }
    }
}

void tessera_jxl_frames_close(TesseraJXLFrames *_Nullable frames) {
    if (!frames) return;
    if (frames->decoder) table.JxlDecoderDestroy(frames->decoder);
    if (frames->runner) table.JxlThreadParallelRunnerDestroy(frames->runner);
    free(frames->bytes);
    free(frames);
}

// Runs the encoder to the end, growing the output as it asks. NULL on failure.
static unsigned char *encoded_output(JxlEncoder *encoder, size_t *length, char *error) {
    size_t capacity = 1 << 16, used = 0;
    unsigned char *output = malloc(capacity);
    if (!output) return NULL;
    for (;;) {
        uint8_t *next = output + used;
        size_t available = capacity - used;
        JxlEncoderStatus status = table.JxlEncoderProcessOutput(encoder, &next, &available);
        used = (size_t)(next - output);
        if (status == JXL_ENC_SUCCESS) break;
        if (status != JXL_ENC_NEED_MORE_OUTPUT) {
            snprintf(error, 256, "libjxl cannot encode the image");
            free(output);
            return NULL;
        }
        capacity *= 2;
        unsigned char *grown = realloc(output, capacity);
        if (!grown) {
            free(output);
            return NULL;
        }
        output = grown;
    }
    *length = used;
    return output;
}

// Starts an encode: libjxl loaded, an encoder, and a runner of `threads` threads attached to it when
// there are more than one. NULL, with `error` set, when any of it fails.
static JxlEncoder *start(int threads, void **runner, char *error) {
    error[0] = 0;
    *runner = NULL;
    if (!tessera_jxl_load(error, 256)) return NULL;
    JxlEncoder *encoder = table.JxlEncoderCreate(NULL);
    if (!encoder) {
        snprintf(error, 256, "libjxl cannot make an encoder");
        return NULL;
    }
    if (threads > 1) *runner = table.JxlThreadParallelRunnerCreate(NULL, (size_t)threads);
    if (*runner && table.JxlEncoderSetParallelRunner(encoder, table.JxlThreadParallelRunner, *runner) != JXL_ENC_SUCCESS) {
        snprintf(error, 256, "libjxl cannot encode on %d threads", threads);
        table.JxlThreadParallelRunnerDestroy(*runner);
        table.JxlEncoderDestroy(encoder);
        *runner = NULL;
        return NULL;
    }
    return encoder;
}

// Ends an encode: when `ready` (its frame added), closes the input and collects the output; then
// frees the encoder and its runner. The output, or NULL with `error` set (to `failure` when
// nothing more precise was said).
static unsigned char *finish(JxlEncoder *encoder, void *runner, int ready, size_t *length, char *error, const char *failure) {
    unsigned char *output = NULL;
    if (ready) {
        table.JxlEncoderCloseInput(encoder);
        output = encoded_output(encoder, length, error);
    }
    if (!output && !error[0]) snprintf(error, 256, "%s", failure);
    if (runner) table.JxlThreadParallelRunnerDestroy(runner);
    table.JxlEncoderDestroy(encoder);
    return output;
}

unsigned char *_Nullable tessera_jxl_encode(const unsigned char *pixels, uint32_t width, uint32_t height, uint32_t channels,
                                            int lossless, float distance, const unsigned char *_Nullable icc,
                                            size_t iccLength, int threads, size_t *length, char *error) {
    void *runner;
    JxlEncoder *encoder = start(threads, &runner, error);
    if (!encoder) return NULL;
    int ready = 0;
    JxlBasicInfo info;
    table.JxlEncoderInitBasicInfo(&info);
    info.xsize = width;
    info.ysize = height;
    info.bits_per_sample = 8;
    info.num_color_channels = channels >= 3 ? 3 : 1;
    info.alpha_bits = (channels == 2 || channels == 4) ? 8 : 0;
    info.num_extra_channels = info.alpha_bits ? 1 : 0;
    // Lossless keeps the samples as they are; lossy lets libjxl use its XYB colour space.
    info.uses_original_profile = lossless ? JXL_TRUE : JXL_FALSE;
    JxlPixelFormat format = {channels, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    if (table.JxlEncoderSetBasicInfo(encoder, &info) != JXL_ENC_SUCCESS) {
        snprintf(error, 256, "libjxl refuses a %ux%u image of %u channels", width, height, channels);
        goto done;
    }
    if (icc && iccLength > 0) {
        if (table.JxlEncoderSetICCProfile(encoder, icc, iccLength) != JXL_ENC_SUCCESS) {
            snprintf(error, 256, "libjxl refuses the colour profile");
            goto done;
        }
    } else {
        JxlColorEncoding encoding;
        table.JxlColorEncodingSetToSRGB(&encoding, info.num_color_channels == 1 ? JXL_TRUE : JXL_FALSE);
        if (table.JxlEncoderSetColorEncoding(encoder, &encoding) != JXL_ENC_SUCCESS) goto done;
    }
    JxlEncoderFrameSettings *settings = table.JxlEncoderFrameSettingsCreate(encoder, NULL);
    if (!settings) goto done;
    if (lossless) {
        if (table.JxlEncoderSetFrameDistance(settings, 0) != JXL_ENC_SUCCESS ||
            table.JxlEncoderSetFrameLossless(settings, JXL_TRUE) != JXL_ENC_SUCCESS) {
            goto done;
        }
    } else if (table.JxlEncoderSetFrameDistance(settings, distance) != JXL_ENC_SUCCESS) {
        snprintf(error, 256, "libjxl refuses distance %.2f", distance);
        goto done;
    }
    if (table.JxlEncoderAddImageFrame(settings, &format, pixels, (size_t)width * height * channels) != JXL_ENC_SUCCESS) {
        snprintf(error, 256, "libjxl cannot take the image");
        goto done;
    }
    ready = 1;
done:
    return finish(encoder, runner, ready, length, error, "libjxl cannot encode the image");
}

unsigned char *_Nullable tessera_jxl_recompress_jpeg(const unsigned char *jpeg, size_t jpegLength, int threads, size_t *length,
                                                     char *error) {
    void *runner;
    JxlEncoder *encoder = start(threads, &runner, error);
    if (!encoder) return NULL;
    int ready = 0;
    JxlEncoderFrameSettings *settings = table.JxlEncoderFrameSettingsCreate(encoder, NULL);
    if (!settings || table.JxlEncoderStoreJPEGMetadata(encoder, JXL_TRUE) != JXL_ENC_SUCCESS) {
        goto done;
    }
    if (table.JxlEncoderAddJPEGFrame(settings, jpeg, jpegLength) != JXL_ENC_SUCCESS) {
        snprintf(error, 256, "libjxl cannot recompress this JPEG");
        goto done;
    }
    ready = 1;
done:
    return finish(encoder, runner, ready, length, error, "libjxl cannot recompress the JPEG");
}
