#ifndef C_TESSERA_SVG_H
#define C_TESSERA_SVG_H

// librsvg, with the few cairo and GLib functions Tessera calls around it, reached through a table
// of function pointers that is filled with dlopen/dlsym on first use rather than by the linker, as
// CTesseraAV does for ffmpeg.
//
// Why: librsvg-2 pulls in cairo, pango, GLib/GObject/GIO, gdk-pixbuf, libxml2 and more; linking it
// alone costs every `tessera` process about 10 MB of resident memory at start, measured, while most
// runs never see an SVG file. Loaded on demand, only those runs pay for it.
//
// Unlike CTesseraAV and CTesseraHeif, this header does not include the libraries' own headers:
// <librsvg/rsvg.h> needs GLib's and cairo's include directories, which only pkg-config knows, and a
// SwiftPM target that asks pkg-config for them also links what pkg-config lists, which is what
// this target exists to avoid. So the prototypes are written out here, with opaque pointers for
// the objects Tessera only passes around and Tessera-named copies of the three small structs it
// reads. All of it is long-stable C ABI: GLib 2.x and cairo 1.x keep it by policy, and librsvg's
// functions here have kept theirs since the versions named beside them (2.52 is the oldest
// librsvg this supports; an older one fails to load with a message naming the missing function).

#include <stddef.h>
#include <stdint.h>

#pragma clang assume_nonnull begin

typedef struct TesseraRsvgHandle TesseraRsvgHandle;     // RsvgHandle, a GObject
typedef struct TesseraCairoSurface TesseraCairoSurface; // cairo_surface_t
typedef struct TesseraCairo TesseraCairo;               // cairo_t

/// GError, as GLib lays it out.
typedef struct TesseraGError {
    uint32_t domain;
    int code;
    char *message;
} TesseraGError;

/// RsvgRectangle.
typedef struct TesseraRsvgRectangle {
    double x, y, width, height;
} TesseraRsvgRectangle;

/// RsvgLength; `unit` is an RsvgUnit.
typedef struct TesseraRsvgLength {
    double length;
    int unit;
} TesseraRsvgLength;

/// GLib's gboolean.
typedef int TesseraGBoolean;

/// GLogFunc; the level is a GLogLevelFlags.
typedef void (*TesseraGLogFunc)(const char *_Nullable domain, int level, const char *_Nullable message,
                                void *_Nullable userData);

enum {
    TESSERA_CAIRO_FORMAT_ARGB32 = 0, // cairo_format_t
    TESSERA_CAIRO_STATUS_SUCCESS = 0, // cairo_status_t
};

// X(library, return type, name, parameters); library indexes the sonames in svg.c.
#define TESSERA_SVG_FUNCTIONS(X)                                                                   \
    X(0, TesseraGLogFunc _Nullable, g_log_set_default_handler, (TesseraGLogFunc handler, void *_Nullable userData)) \
    X(0, void, g_error_free, (TesseraGError * error))                                              \
    X(1, void, g_object_unref, (void *object))                                                     \
    X(2, TesseraCairoSurface *_Nullable, cairo_image_surface_create, (int format, int width, int height)) \
    X(2, unsigned, cairo_surface_status, (TesseraCairoSurface * surface)) /* all statuses >= 0 */    \
    X(2, void, cairo_surface_flush, (TesseraCairoSurface * surface))                               \
    X(2, void, cairo_surface_destroy, (TesseraCairoSurface * surface))                             \
    X(2, unsigned char *_Nullable, cairo_image_surface_get_data, (TesseraCairoSurface * surface))  \
    X(2, int, cairo_image_surface_get_stride, (TesseraCairoSurface * surface))                     \
    X(2, TesseraCairo *_Nullable, cairo_create, (TesseraCairoSurface * surface))                   \
    X(2, void, cairo_destroy, (TesseraCairo * context))                                            \
    /* since 2.14 */                                                                               \
    X(3, TesseraRsvgHandle *_Nullable, rsvg_handle_new_from_data,                                  \
      (const uint8_t *_Nullable data, size_t length, TesseraGError *_Nullable *_Nullable error))   \
    /* since 2.46 */                                                                               \
    X(3, void, rsvg_handle_get_intrinsic_dimensions,                                               \
      (TesseraRsvgHandle * handle, TesseraGBoolean *hasWidth, TesseraRsvgLength *width,            \
       TesseraGBoolean *hasHeight, TesseraRsvgLength *height, TesseraGBoolean *hasViewBox,         \
       TesseraRsvgRectangle *viewBox))                                                             \
    X(3, TesseraGBoolean, rsvg_handle_render_document,                                             \
      (TesseraRsvgHandle * handle, TesseraCairo *context, const TesseraRsvgRectangle *viewport,    \
       TesseraGError *_Nullable *_Nullable error))                                                 \
    /* since 2.52 */                                                                               \
    X(3, TesseraGBoolean, rsvg_handle_get_intrinsic_size_in_pixels,                                \
      (TesseraRsvgHandle * handle, double *width, double *height))

typedef struct TesseraSVG {
#define TESSERA_SVG_FIELD(library, result, name, parameters) result (*_Nonnull name) parameters;
    TESSERA_SVG_FUNCTIONS(TESSERA_SVG_FIELD)
#undef TESSERA_SVG_FIELD
} TesseraSVG;

/// The loaded table, or NULL when a library or symbol is missing; then `message` (at least 256
/// bytes) names what was missing. Loads once; later calls return the same table. Thread-safe.
/// Also silences GLib's default log handler, which would print librsvg's warnings on stderr.
const TesseraSVG *_Nullable tessera_svg_load(char *_Nullable message, size_t capacity);

#pragma clang assume_nonnull end

#endif
