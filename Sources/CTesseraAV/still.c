#include "CTesseraAV.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct TesseraAVStill {
    AVFrame *frame;
    const TesseraAV *av;
    // swscale's context for `rows` rows into `format`: a chunk is converted as an image of its own,
    // so the destination holds only that chunk; made again when the chunk's height changes.
    struct SwsContext *scaler;
    int scalerRows;
    enum AVPixelFormat scalerFormat;
    // What swscale writes into: its SIMD paths store whole blocks of pixels and may write past the
    // end of a row (the last row's end is the end of the caller's buffer), so it gets rows of its
    // own, padded, and they are copied out.
    unsigned char *scratch;
    size_t scratchStride;
    int scratchRows;
};

TesseraAVStill *tessera_av_still_decode(int codec, const unsigned char *bytes, size_t length, int64_t maxPixels,
                                        char *error, size_t capacity, int *truncated) {
    *truncated = 0;
    const TesseraAV *av = tessera_av_load(error, capacity);
    if (!av) return NULL;
    const AVCodec *decoder = av->avcodec_find_decoder((enum AVCodecID)codec);
    AVCodecContext *context = decoder ? av->avcodec_alloc_context3(decoder) : NULL;
    AVPacket *packet = av->av_packet_alloc();
    AVFrame *frame = av->av_frame_alloc();
    TesseraAVStill *still = NULL;
    int status = AVERROR(ENOMEM);
    if (!context || !packet || !frame || length > INT32_MAX - AV_INPUT_BUFFER_PADDING_SIZE) goto done;
    context->max_pixels = maxPixels;
    context->thread_count = 1;
    if ((status = av->avcodec_open2(context, decoder, NULL)) < 0) goto done;
    if ((status = av->av_new_packet(packet, (int)length)) < 0) goto done;
    memcpy(packet->data, bytes, length);
    if ((status = av->avcodec_send_packet(context, packet)) < 0) goto done;
    if ((status = av->avcodec_send_packet(context, NULL)) < 0) goto done;  // drain: the one frame
    if ((status = av->avcodec_receive_frame(context, frame)) < 0) goto done;
    if (!(still = calloc(1, sizeof *still))) goto done;
    still->frame = frame;
    still->av = av;
    frame = NULL;
done:
    if (!still) {
        // The image decoders answer a short file with "invalid data"; the caller knows the length
        // its header promised and tells the two apart.
        char reason[128] = "";
        if (av->av_strerror(status, reason, sizeof reason) < 0) snprintf(reason, sizeof reason, "error %d", status);
        snprintf(error, capacity, "ffmpeg's %s decoder: %s", decoder ? decoder->name : "image", reason);
        *truncated = status == AVERROR_EOF;
    }
    av->av_frame_free(&frame);
    av->av_packet_free(&packet);
    av->avcodec_free_context(&context);
    return still;
}

int tessera_av_still_width(const TesseraAVStill *still) { return still->frame->width; }
int tessera_av_still_height(const TesseraAVStill *still) { return still->frame->height; }

int tessera_av_still_has_alpha(const TesseraAVStill *still) {
    const AVFrame *frame = still->frame;
    if (frame->format == AV_PIX_FMT_PAL8) {
        // Every palette has an alpha channel in ffmpeg: what counts is whether a pixel uses an
        // entry that is not opaque (a BMP's entries all are; a TGA's 32-bit colour map may not be).
        const uint32_t *palette = (const uint32_t *)frame->data[1];
        for (int y = 0; y < frame->height; y++)
            for (int x = 0; x < frame->width; x++)
                if (palette[frame->data[0][(ptrdiff_t)y * frame->linesize[0] + x]] >> 24 != 0xFF) return 1;
        return 0;
    }
    const AVPixFmtDescriptor *descriptor = still->av->av_pix_fmt_desc_get(frame->format);
    return descriptor && (descriptor->flags & AV_PIX_FMT_FLAG_ALPHA) ? 1 : 0;
}

// The 8-bit layout of `channels` samples, and the same at 16 bits, big- and little-endian (PNM and
// PAM with a MAXVAL above 255 decode to either).
static const enum AVPixelFormat layouts[4][3] = {
    {AV_PIX_FMT_GRAY8, AV_PIX_FMT_GRAY16BE, AV_PIX_FMT_GRAY16LE},
    {AV_PIX_FMT_YA8, AV_PIX_FMT_YA16BE, AV_PIX_FMT_YA16LE},
    {AV_PIX_FMT_RGB24, AV_PIX_FMT_RGB48BE, AV_PIX_FMT_RGB48LE},
    {AV_PIX_FMT_RGBA, AV_PIX_FMT_RGBA64BE, AV_PIX_FMT_RGBA64LE},
};

int tessera_av_still_rows(TesseraAVStill *still, int first, int count, int channels, unsigned char *pixels, size_t stride,
                          char *error, size_t capacity) {
    const AVFrame *frame = still->frame;
    if (channels < 1 || channels > 4 || first < 0 || count < 1 || first + count > frame->height) {
        snprintf(error, capacity, "rows %d..<%d of %d", first, first + count, frame->height);
        return 0;
    }
    size_t rowBytes = (size_t)frame->width * (size_t)channels;
    const enum AVPixelFormat *layout = layouts[channels - 1];
    if (frame->format == layout[0] || frame->format == layout[1] || frame->format == layout[2]) {
        // Already the layout wanted, or the same at 16 bits: copied, or reduced to the high byte
        // (as Tessera reduces every 16-bit format; swscale would dither).
        size_t high = frame->format == layout[2] ? 1 : 0;
        for (int row = 0; row < count; row++) {
            const unsigned char *source = frame->data[0] + (ptrdiff_t)(first + row) * frame->linesize[0];
            unsigned char *target = pixels + (size_t)row * stride;
            if (frame->format == layout[0]) memcpy(target, source, rowBytes);
            else for (size_t index = 0; index < rowBytes; index++) target[index] = source[2 * index + high];
        }
        return 1;
    }
    enum AVPixelFormat format = layout[0];
    if (!still->scaler || still->scalerRows != count || still->scalerFormat != format) {
        still->av->sws_freeContext(still->scaler);
        still->scaler = still->av->sws_getContext(frame->width, count, frame->format, frame->width, count, format,
                                                  SWS_POINT | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
        still->scalerRows = count;
        still->scalerFormat = format;
        if (!still->scaler) {
            snprintf(error, capacity, "swscale cannot convert %d-bit pixels of format %d", channels * 8, frame->format);
            return 0;
        }
    }
    if (still->scratchRows < count) {
        free(still->scratch);
        still->scratchStride = (rowBytes + 63) / 64 * 64 + 64;
        still->scratch = aligned_alloc(64, still->scratchStride * (size_t)(count + 1));
        still->scratchRows = still->scratch ? count : 0;
        if (!still->scratch) {
            snprintf(error, capacity, "no memory for %d rows of %zu bytes", count, rowBytes);
            return 0;
        }
    }
    const uint8_t *sources[4] = {frame->data[0] + (ptrdiff_t)first * frame->linesize[0], frame->data[1],
                                 frame->data[2], frame->data[3]};
    uint8_t *targets[4] = {still->scratch, NULL, NULL, NULL};
    int targetStrides[4] = {(int)still->scratchStride, 0, 0, 0};
    if (still->av->sws_scale(still->scaler, sources, frame->linesize, 0, count, targets, targetStrides) != count) {
        snprintf(error, capacity, "swscale converted too few rows");
        return 0;
    }
    for (int row = 0; row < count; row++)
        memcpy(pixels + (size_t)row * stride, still->scratch + (size_t)row * still->scratchStride, rowBytes);
    return 1;
}

void tessera_av_still_free(TesseraAVStill *still) {
    if (!still) return;
    still->av->sws_freeContext(still->scaler);
    still->av->av_frame_free(&still->frame);
    free(still->scratch);
    free(still);
}
