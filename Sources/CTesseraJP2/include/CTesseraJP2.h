#ifndef C_TESSERA_JP2_H
#define C_TESSERA_JP2_H

// OpenJPEG 2.5, reached through a table of function pointers filled with dlopen/dlsym on first use
// (see CTesseraLoader.h), and the wrappers Swift needs around it: message capture and a stream
// over a file descriptor or a memory buffer.
//
// Why not linked: only runs that meet a JPEG 2000 file pay for loading it. The header is
// OpenJPEG's own, so the table's prototypes (`__typeof__`) cannot drift from the ABI it was
// compiled against (libopenjp2.so.7 is the 2.x ABI).

#include <stddef.h>

#include "CTesseraLoader.h"
#include <stdint.h>
#include <openjpeg-2.5/openjpeg.h>

#define TESSERA_JP2_FUNCTIONS(X)                                                                       \
    X(opj_version) X(opj_create_decompress) X(opj_destroy_codec) X(opj_set_default_decoder_parameters) \
    X(opj_setup_decoder) X(opj_read_header) X(opj_set_decoded_resolution_factor) X(opj_set_decode_area) \
    X(opj_decode) X(opj_end_decompress) X(opj_codec_set_threads) X(opj_image_destroy)                  \
    X(opj_get_cstr_info) X(opj_destroy_cstr_info) X(opj_stream_create) X(opj_stream_destroy)          \
    X(opj_stream_set_read_function) X(opj_stream_set_skip_function) X(opj_stream_set_seek_function)    \
    X(opj_stream_set_user_data) X(opj_stream_set_user_data_length) X(opj_set_error_handler)            \
    X(opj_set_warning_handler) X(opj_set_info_handler) X(opj_has_thread_support)                     \
    X(opj_create_compress) X(opj_set_default_encoder_parameters) X(opj_setup_encoder)                  \
    X(opj_image_tile_create) X(opj_stream_create_default_file_stream) X(opj_start_compress)            \
    X(opj_write_tile) X(opj_end_compress)

TESSERA_TABLE(TesseraJP2, tessera_jp2_load, TESSERA_JP2_FUNCTIONS(TESSERA_SLOT))

#pragma clang assume_nonnull begin

/// The first error OpenJPEG reported (never printed), and how many errors and warnings it gave.
typedef struct TesseraJP2Messages {
    char error[256];
    int errorCount;
    int warningCount;
} TesseraJP2Messages;

/// One open decode: the codec, its stream, the image whose header was read, and the first error
/// OpenJPEG reported (never printed). Owned by the caller; `tessera_jp2_close` frees it.
typedef struct TesseraJP2Decode {
    opj_codec_t _Nullable codec;
    opj_stream_t _Nullable stream;
    opj_image_t *_Nullable image;
    // Where the bytes come from: a file descriptor read with pread (`fd` >= 0), else `bytes`.
    int fd;
    const unsigned char *_Nullable bytes;
    uint64_t length;
    uint64_t offset;
    TesseraJP2Messages messages;
} TesseraJP2Decode;

/// Opens a decode of `length` bytes, read from `fd` (not closed here; it must outlive the decode)
/// or, when `fd` is negative, from `bytes` (which must outlive it): makes the codec (`jp2`: boxes,
/// else a raw codestream), sets `threads` decoding threads (when OpenJPEG has thread support) and
/// reads the main header. Returns 1 on success; 0 with `decode->messages.error` set (or empty when the
/// library is missing) otherwise. Call `tessera_jp2_close` either way.
int tessera_jp2_open(TesseraJP2Decode *decode, int fd, const unsigned char *_Nullable bytes, uint64_t length, int jp2, int threads);

/// Decodes the area `x0, y0`–`x1, y1` (full-resolution grid coordinates) at 1/2^`reduction` into
/// `decode->image` (each component's `data`, `w` × `h` 32-bit samples). Once per open decode.
/// Returns 1 on success; 0 with `decode->messages.error` set otherwise.
int tessera_jp2_decode_area(TesseraJP2Decode *decode, uint32_t reduction, int32_t x0, int32_t y0, int32_t x1, int32_t y1);

/// Frees what `tessera_jp2_open` and the decode made. Safe on a decode that failed to open.
void tessera_jp2_close(TesseraJP2Decode *decode);

/// The choices of one encode (see JP2Encoder.swift for the defaults and why).
typedef struct TesseraJP2EncodeSettings {
    uint32_t width, height, components;  // components: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
    uint32_t tileWidth, tileHeight;
    uint32_t resolutions;                // decomposition levels + 1
    int lossless;                        // reversible 5/3, no rate allocation
    float psnr;                          // lossy: the quality layer's target PSNR in dB (0: none)
    int threads;
} TesseraJP2EncodeSettings;

/// One encode in progress: tiles are written in raster order with `tessera_jp2_encode_tile`.
typedef struct TesseraJP2Encode {
    opj_codec_t _Nullable codec;
    opj_stream_t _Nullable stream;
    opj_image_t *_Nullable image;
    TesseraJP2Messages messages;
} TesseraJP2Encode;

/// Starts writing a raw codestream to `path` (the JP2 boxes are written by the caller: OpenJPEG
/// 2.5.0 asserts when asked to embed an ICC profile itself). Returns 1, or 0 with `encode->messages.error` set (empty when the library is
/// missing). Call `tessera_jp2_encode_close` either way.
int tessera_jp2_encode_open(TesseraJP2Encode *encode, const char *path, const TesseraJP2EncodeSettings *settings);
/// Writes tile `index` (raster order): each component's samples, 8 bits, planar, tile width ×
/// height each (edge tiles cropped to the image). Returns 1, or 0 with `encode->messages.error` set.
int tessera_jp2_encode_tile(TesseraJP2Encode *encode, uint32_t index, unsigned char *bytes, uint32_t count);
/// Finishes the codestream (and closes the file's stream). Returns 1, or 0.
int tessera_jp2_encode_finish(TesseraJP2Encode *encode);
/// Frees what the encode made. Safe on one that failed.
void tessera_jp2_encode_close(TesseraJP2Encode *encode);

#pragma clang assume_nonnull end

#endif
