#ifndef C_TESSERA_AV_H
#define C_TESSERA_AV_H

// ffmpeg's libraries (libavformat, libavcodec, libavutil, libswscale), reached through a table of
// function pointers that is filled with dlopen/dlsym on first use rather than by the linker.
//
// Why: linking libavcodec pulls in ~60 shared libraries (x264, x265, dav1d, vpx, ...) and costs
// every `tessera` process about 28 MB of resident memory at start, measured, even when it only
// makes an image thumbnail. Loaded on demand, only video work pays for it. The headers give the
// exact prototypes (`__typeof__`), so the table cannot drift from the ABI it was compiled against,
// and the sonames are derived from the headers' major versions for the same reason.
//
// Also here: the handful of libav macros Swift cannot import (AVERROR(e), AVERROR_EOF).

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include "CTesseraLoader.h"

#define TESSERA_AV_FUNCTIONS(X)                                                                    \
    X(avformat_open_input) X(avformat_find_stream_info) X(avformat_close_input)                    \
    X(av_find_best_stream) X(av_read_frame) X(av_seek_frame) X(avformat_index_get_entries_count)   \
    X(avformat_index_get_entry) X(av_stream_get_side_data) X(av_stream_new_side_data)              \
    X(avformat_alloc_output_context2) X(avformat_new_stream) X(avformat_free_context)              \
    X(avformat_query_codec)                                                                        \
    X(avio_open) X(avio_closep) X(avformat_write_header) X(av_interleaved_write_frame)             \
    X(av_write_trailer) X(avcodec_find_decoder) X(avcodec_find_encoder)                            \
    X(avcodec_find_encoder_by_name) X(avcodec_alloc_context3) X(avcodec_free_context)              \
    X(avcodec_parameters_to_context) X(avcodec_parameters_from_context)                            \
    X(avcodec_parameters_copy) X(avcodec_open2) X(avcodec_send_packet) X(avcodec_receive_frame)    \
    X(avcodec_send_frame) X(avcodec_receive_packet) X(avcodec_flush_buffers) X(avcodec_get_name)   \
    X(av_packet_alloc) X(av_packet_clone) X(av_packet_free) X(av_packet_unref)                     \
    X(av_packet_rescale_ts) X(av_frame_alloc) X(av_frame_free) X(av_frame_unref)                   \
    X(av_frame_move_ref) X(av_display_rotation_get) X(av_strerror) X(av_log_set_level)             \
    X(av_rescale_q) X(av_guess_frame_rate) X(av_opt_set)            \
    X(av_frame_get_buffer) X(sws_getContext) X(sws_scale) X(sws_freeContext)                      \
    X(av_new_packet) X(av_pix_fmt_desc_get)

TESSERA_TABLE(TesseraAV, tessera_av_load, TESSERA_AV_FUNCTIONS(TESSERA_SLOT))

#pragma clang assume_nonnull begin

/// One still image decoded by ffmpeg's image decoders (bmp, pnm/pam, targa): the frame as the
/// decoder left it, converted row by row on demand. Opaque; free with `tessera_av_still_free`.
typedef struct TesseraAVStill TesseraAVStill;

/// Decodes `length` bytes as one image of `codec` (an `AVCodecID`) on the calling thread. The
/// decoder refuses to allocate a frame of more than `maxPixels` pixels (`AVCodecContext.max_pixels`),
/// whatever its header says. Returns the image, or NULL with `error` (`capacity` bytes) set and
/// `*truncated` 1 when the data ended early.
TesseraAVStill *_Nullable tessera_av_still_decode(int codec, const unsigned char *bytes, size_t length, int64_t maxPixels,
                                                  char *error, size_t capacity, int *truncated);

/// The decoded frame's width and height in pixels, and whether its pixel format carries alpha
/// (a 32-bit BMP whose alpha bytes are all 0 comes out without).
int tessera_av_still_width(const TesseraAVStill *still);
int tessera_av_still_height(const TesseraAVStill *still);
int tessera_av_still_has_alpha(const TesseraAVStill *still);

/// Writes rows `first` ..< `first + count` as `channels` (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA)
/// 8-bit samples into `pixels`, `stride` bytes a row: 16-bit samples by their high byte, anything
/// else through swscale (palettes looked up, 5- and 6-bit samples widened, alpha 255 where the
/// frame has none). Returns 1, or 0 with `error` set when no conversion exists.
int tessera_av_still_rows(TesseraAVStill *still, int first, int count, int channels, unsigned char *pixels, size_t stride,
                          char *error, size_t capacity);

void tessera_av_still_free(TesseraAVStill *_Nullable still);

#pragma clang assume_nonnull end

static inline int tessera_averror(int posixError) { return AVERROR(posixError); }
static inline int tessera_averror_eof(void) { return AVERROR_EOF; }
static inline int tessera_averror_invalid_data(void) { return AVERROR_INVALIDDATA; }
static inline int64_t tessera_av_nopts_value(void) { return AV_NOPTS_VALUE; }

#endif
