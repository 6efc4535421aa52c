#ifndef C_TESSERA_JXL_H
#define C_TESSERA_JXL_H

// libjxl 0.7 and its thread runner, reached through a table of function pointers filled with
// dlopen/dlsym on first use (see CTesseraLoader.h), and the decode loop Swift calls.
//
// Why not linked: libjxl brings highway and brotli into every process at start, while most runs
// never see a JPEG XL file. The headers are libjxl's own, so the prototypes (`__typeof__`) cannot
// drift from the ABI they were compiled against (libjxl.so.0.7).

#include <stddef.h>

#include "CTesseraLoader.h"
#include <stdint.h>
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>

#define TESSERA_JXL_FUNCTIONS(X)                                                                     \
    X(JxlDecoderCreate) X(JxlDecoderDestroy) X(JxlDecoderSubscribeEvents) X(JxlDecoderSetInput)      \
    X(JxlDecoderCloseInput) X(JxlDecoderProcessInput) X(JxlDecoderGetBasicInfo)                      \
    X(JxlDecoderGetColorAsEncodedProfile) X(JxlDecoderGetICCProfileSize) X(JxlDecoderGetColorAsICCProfile) \
    X(JxlDecoderImageOutBufferSize) X(JxlDecoderSetImageOutBuffer) X(JxlDecoderSetParallelRunner)   \
    X(JxlDecoderGetFrameHeader)                                                                      \
    X(JxlEncoderCreate) X(JxlEncoderDestroy) X(JxlEncoderSetParallelRunner) X(JxlEncoderInitBasicInfo)     \
    X(JxlEncoderSetBasicInfo) X(JxlColorEncodingSetToSRGB) X(JxlEncoderSetColorEncoding)              \
    X(JxlEncoderSetICCProfile) X(JxlEncoderFrameSettingsCreate) X(JxlEncoderSetFrameDistance)           \
    X(JxlEncoderSetFrameLossless) X(JxlEncoderAddImageFrame) X(JxlEncoderAddJPEGFrame)                  \
    X(JxlEncoderStoreJPEGMetadata) X(JxlEncoderCloseInput) X(JxlEncoderProcessOutput)                 \
    X(JxlThreadParallelRunner) X(JxlThreadParallelRunnerCreate) X(JxlThreadParallelRunnerDestroy)

TESSERA_TABLE(TesseraJXL, tessera_jxl_load, TESSERA_JXL_FUNCTIONS(TESSERA_SLOT))

#pragma clang assume_nonnull begin

/// What the headers say, as the decode will deliver it (orientation applied by libjxl).
typedef struct TesseraJXLInfo {
    uint32_t width, height;       // after orientation
    uint32_t bitsPerSample;
    uint32_t alphaBits;           // 0: no alpha
    uint32_t colorChannels;       // 1 grey, 3 colour
    int animated;
    uint32_t orientation;         // as stored (1–8); libjxl turns the pixels upright
    int isSRGB;                   // the pixels are sRGB (or grey with sRGB's curve): no profile needed
    unsigned char *_Nullable icc; // otherwise the profile of the decoded pixels (malloc'd)
    size_t iccLength;
    char error[256];
    int truncated;                // the input ended before what was asked for
} TesseraJXLInfo;

/// Reads the headers of `length` bytes: basic info and colour encoding. Returns 1, or 0 with
/// `info->error` set. Free `info->icc` with `tessera_jxl_free`.
int tessera_jxl_probe(const unsigned char *bytes, size_t length, TesseraJXLInfo *info);

/// Decodes the first frame into `pixels` (`capacity` bytes): 8-bit samples, `channels` (1–4)
/// interleaved, in the profile the probe reported. Returns 1, or 0 with `error` (256 bytes) set.
int tessera_jxl_decode(const unsigned char *bytes, size_t length, uint32_t channels, unsigned char *pixels,
                       size_t capacity, int threads, char *error, int *truncated);

/// An animation's frames as shown (libjxl composes them: a frame of no duration is part of the
/// next): how many, each one's duration in seconds, and plays (0 forever).
typedef struct TesseraJXLTiming {
    size_t frameCount;
    double *_Nullable durations;  // frameCount of them (malloc'd; free with tessera_jxl_free)
    uint32_t loops;
    char error[256];
    int truncated;
} TesseraJXLTiming;

/// Reads every frame's header, no pixels. Returns 1, or 0 with `timing->error` set; free
/// `timing->durations` either way.
int tessera_jxl_timing(const unsigned char *bytes, size_t length, TesseraJXLTiming *timing);

/// An animation decoded frame by frame, as RGBA 8-bit canvases. Opaque.
typedef struct TesseraJXLFrames TesseraJXLFrames;

/// Starts a decode of `length` bytes (copied) on `threads` threads. NULL with `error` (256 bytes) set.
TesseraJXLFrames *_Nullable tessera_jxl_frames_open(const unsigned char *bytes, size_t length, int threads, char *error);

/// Decodes the next frame into `pixels` (`capacity` bytes: the canvas, RGBA). Returns 1 for a
/// frame, 0 after the last, -1 with `error` (256 bytes) set and `*truncated` 1 when the data ended.
int tessera_jxl_frames_next(TesseraJXLFrames *frames, unsigned char *pixels, size_t capacity, char *error, int *truncated);

void tessera_jxl_frames_close(TesseraJXLFrames *_Nullable frames);

/// Encodes `width` × `height` pixels of `channels` (1–4) 8-bit samples: losslessly, or at
/// `distance` (1.0 is about visually lossless); tagged with `icc` (`iccLength` bytes) or sRGB.
/// Returns the file's bytes (malloc'd, `*length` of them; free with `tessera_jxl_free`), or NULL
/// with `error` (256 bytes) set.
unsigned char *_Nullable tessera_jxl_encode(const unsigned char *pixels, uint32_t width, uint32_t height, uint32_t channels,
                                            int lossless, float distance, const unsigned char *_Nullable icc,
                                            size_t iccLength, int threads, size_t *length, char *error);

/// Recompresses a JPEG file losslessly: the result decodes back to the same JPEG bytes (`djxl`
/// to .jpg). Returns the bytes as `tessera_jxl_encode` does.
unsigned char *_Nullable tessera_jxl_recompress_jpeg(const unsigned char *jpeg, size_t jpegLength, int threads, size_t *length,
                                                     char *error);

void tessera_jxl_free(void *_Nullable pointer);

#pragma clang assume_nonnull end

#endif
