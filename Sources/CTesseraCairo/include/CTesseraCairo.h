#ifndef C_TESSERA_CAIRO_H
#define C_TESSERA_CAIRO_H

// cairo and the few GLib functions the vector renderers (librsvg for SVG, poppler-glib for PDF,
// see CTesseraSVG.h and CTesseraPDF.h) are called around, and cairo's text for the server's
// watermarks, reached through a table of function
// pointers filled with dlopen/dlsym on first use, as CTesseraAV does for ffmpeg: these libraries
// cost every process resident memory at start while few runs meet vector art.
//
// The libraries' own headers are not included: they need include directories only pkg-config
// knows, and a SwiftPM target that asks pkg-config for them also links what it lists, which is what
// these targets exist to avoid. So the prototypes are written out here, with opaque pointers for
// the objects Tessera only passes around and Tessera-named copies of the structs it reads. All of it
// is long-stable C ABI: GLib 2.x and cairo 1.x keep it by policy.

#include <stddef.h>
#include <stdint.h>

#include "CTesseraLoader.h"

#pragma clang assume_nonnull begin

typedef struct TesseraCairoSurface TesseraCairoSurface; // cairo_surface_t
typedef struct TesseraCairo TesseraCairo;               // cairo_t
typedef struct TesseraGBytes TesseraGBytes;             // GBytes

/// GError, as GLib lays it out.
typedef struct TesseraGError {
    uint32_t domain;
    int code;
    char *message;
} TesseraGError;

/// GLib's gboolean.
typedef int TesseraGBoolean;

/// GLogFunc; the level is a GLogLevelFlags.
typedef void (*TesseraGLogFunc)(const char *_Nullable domain, int level, const char *_Nullable message,
                                void *_Nullable userData);

/// cairo_text_extents_t: a text's ink box and advance, in user units.
typedef struct TesseraCairoTextExtents {
    double xBearing, yBearing, width, height, xAdvance, yAdvance;
} TesseraCairoTextExtents;

enum {
    TESSERA_CAIRO_FONT_SLANT_NORMAL = 0, // cairo_font_slant_t
    TESSERA_CAIRO_FONT_WEIGHT_BOLD = 1,  // cairo_font_weight_t
    TESSERA_CAIRO_FORMAT_ARGB32 = 0, // cairo_format_t: native-endian 32-bit words, premultiplied
    TESSERA_CAIRO_FORMAT_RGB24 = 1,  // the same with the top byte unused
    TESSERA_CAIRO_STATUS_SUCCESS = 0, // cairo_status_t
};

// X(library, return type, name, parameters); library indexes the sonames in cairo.c.
#define TESSERA_CAIRO_FUNCTIONS(X)                                                                 \
    X(0, TesseraGLogFunc _Nullable, g_log_set_default_handler, (TesseraGLogFunc handler, void *_Nullable userData)) \
    X(0, void, g_error_free, (TesseraGError * error))                                              \
    X(0, TesseraGBytes *_Nonnull, g_bytes_new_static, (const void *_Nullable data, size_t size))          \
    X(0, void, g_bytes_unref, (TesseraGBytes * bytes))                                             \
    X(1, void, g_object_unref, (void *object))                                                     \
    X(2, TesseraCairoSurface *_Nullable, cairo_image_surface_create, (int format, int width, int height)) \
    X(2, unsigned, cairo_surface_status, (TesseraCairoSurface * surface)) /* all statuses >= 0 */    \
    X(2, void, cairo_surface_flush, (TesseraCairoSurface * surface))                               \
    X(2, void, cairo_surface_destroy, (TesseraCairoSurface * surface))                             \
    X(2, unsigned char *_Nullable, cairo_image_surface_get_data, (TesseraCairoSurface * surface))  \
    X(2, int, cairo_image_surface_get_stride, (TesseraCairoSurface * surface))                     \
    X(2, TesseraCairo *_Nullable, cairo_create, (TesseraCairoSurface * surface))                   \
    X(2, void, cairo_destroy, (TesseraCairo * context))                                            \
    X(2, void, cairo_scale, (TesseraCairo * context, double x, double y))                          \
    X(2, void, cairo_set_source_rgb, (TesseraCairo * context, double red, double green, double blue)) \
    X(2, void, cairo_paint, (TesseraCairo * context))                                              \
    X(2, void, cairo_translate, (TesseraCairo * context, double x, double y))                      \
    X(2, void, cairo_rotate, (TesseraCairo * context, double radians))                             \
    X(2, void, cairo_set_source_rgba, (TesseraCairo * context, double red, double green, double blue, double alpha)) \
    X(2, void, cairo_select_font_face, (TesseraCairo * context, const char *family, unsigned slant, unsigned weight)) \
    X(2, void, cairo_set_font_size, (TesseraCairo * context, double size))                         \
    X(2, void, cairo_text_extents, (TesseraCairo * context, const char *text, TesseraCairoTextExtents *extents)) \
    X(2, void, cairo_move_to, (TesseraCairo * context, double x, double y))                        \
    X(2, void, cairo_text_path, (TesseraCairo * context, const char *text))                        \
    X(2, void, cairo_set_line_width, (TesseraCairo * context, double width))                       \
    X(2, void, cairo_fill_preserve, (TesseraCairo * context))                                      \
    X(2, void, cairo_stroke, (TesseraCairo * context))

// Loading also silences GLib's default log handler, through which librsvg and poppler-glib report
// what they find wrong in a document: Tessera reports problems through its errors.
#define TESSERA_CAIRO_FIELD(library, result, name, parameters) result (*_Nonnull name) parameters;
TESSERA_TABLE(TesseraCairoTable, tessera_cairo_load, TESSERA_CAIRO_FUNCTIONS(TESSERA_CAIRO_FIELD))
#undef TESSERA_CAIRO_FIELD

#pragma clang assume_nonnull end

#endif
