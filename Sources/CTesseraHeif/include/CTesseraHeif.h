#ifndef C_TESSERA_HEIF_H
#define C_TESSERA_HEIF_H

// libheif, reached through a table of function pointers that is filled with dlopen/dlsym on first
// use rather than by the linker, as CTesseraAV does for ffmpeg.
//
// Why: libheif brings its codecs (libde265, x265, aom, dav1d, ...) into every `tessera` process at
// start, about 4.8 MB of resident memory measured, while most runs never see a HEIC or AVIF file.
// Loaded on demand, only those runs pay for it. The header is libheif's
// own, so the table's prototypes (`__typeof__`) cannot drift from the ABI it was compiled
// against, and the soname is derived from the header's major version for the same reason.

#include <libheif/heif.h>
#include <stddef.h>

#include "CTesseraLoader.h"

#define TESSERA_HEIF_FUNCTIONS(X)                                                                  \
    X(heif_context_alloc) X(heif_context_free) X(heif_context_read_from_file)                      \
    X(heif_context_read_from_memory_without_copy) X(heif_context_get_primary_image_handle)         \
    X(heif_context_get_number_of_top_level_images) X(heif_image_handle_release)                    \
    X(heif_context_get_list_of_top_level_image_IDs) X(heif_context_get_primary_image_ID)           \
    X(heif_context_get_image_handle)                                                               \
    X(heif_image_handle_get_width) X(heif_image_handle_get_height)                                 \
    X(heif_image_handle_has_alpha_channel) X(heif_image_handle_get_luma_bits_per_pixel)            \
    X(heif_image_handle_get_number_of_thumbnails) X(heif_image_handle_get_list_of_thumbnail_IDs)   \
    X(heif_image_handle_get_thumbnail) X(heif_decode_image) X(heif_image_release)                  \
    X(heif_image_get_width) X(heif_image_get_height) X(heif_image_get_plane_readonly)              \
    X(heif_image_handle_get_raw_color_profile_size) X(heif_image_handle_get_raw_color_profile)     \
    X(heif_image_handle_get_nclx_color_profile) X(heif_nclx_color_profile_free)                    \
    X(heif_context_get_encoder_for_format) X(heif_encoder_release) X(heif_encoder_set_lossy_quality) \
    X(heif_encoder_set_parameter_integer) X(heif_encoder_set_parameter_string) X(heif_image_create) \
    X(heif_image_add_plane) X(heif_image_get_plane) X(heif_image_set_raw_color_profile)            \
    X(heif_encoding_options_alloc) X(heif_encoding_options_free) X(heif_context_encode_image)      \
    X(heif_context_write)

TESSERA_TABLE(TesseraHeif, tessera_heif_load, TESSERA_HEIF_FUNCTIONS(TESSERA_SLOT))

#pragma clang assume_nonnull begin

/// Bytes libheif wrote (malloc'd; the caller frees `bytes`).
typedef struct TesseraHeifOutput {
    unsigned char *_Nullable bytes;
    size_t size;
} TesseraHeifOutput;

/// Writes the context's file into `output` through `heif_context_write` (whose writer is a C
/// callback). The table must be loaded.
struct heif_error tessera_heif_write_to_memory(struct heif_context *context, TesseraHeifOutput *output);

#pragma clang assume_nonnull end

#endif
