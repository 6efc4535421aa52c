#ifndef C_TESSERA_SVG_H
#define C_TESSERA_SVG_H

// librsvg, reached through a table of function pointers that is filled with dlopen/dlsym on first
// use rather than by the linker, as CTesseraAV does for ffmpeg; the cairo and GLib functions
// around it are CTesseraCairo's.
//
// Why: librsvg-2 pulls in cairo, pango, GLib/GObject/GIO, gdk-pixbuf, libxml2 and more; linking it
// alone costs every `tessera` process about 10 MB of resident memory at start, measured, while most
// runs never see an SVG file. Loaded on demand, only those runs pay for it.
//
// As in CTesseraCairo.h, the prototypes are written out rather than taken from <librsvg/rsvg.h>
// (which needs GLib's and cairo's include directories), with opaque pointers for the objects
// Tessera only passes around and Tessera-named copies of the small structs it reads. librsvg's
// functions here have kept their ABI since the versions named beside them (2.52 is the oldest
// librsvg this supports; an older one fails to load with a message naming the missing function).

#include <stddef.h>
#include <stdint.h>
#include "CTesseraCairo.h"
#include "CTesseraLoader.h"

#pragma clang assume_nonnull begin

typedef struct TesseraRsvgHandle TesseraRsvgHandle; // RsvgHandle, a GObject

/// RsvgRectangle.
typedef struct TesseraRsvgRectangle {
    double x, y, width, height;
} TesseraRsvgRectangle;

/// RsvgLength; `unit` is an RsvgUnit.
typedef struct TesseraRsvgLength {
    double length;
    int unit;
} TesseraRsvgLength;

#define TESSERA_SVG_FUNCTIONS(X)                                                                   \
    /* since 2.14 */                                                                               \
    X(TesseraRsvgHandle *_Nullable, rsvg_handle_new_from_data,                                     \
      (const uint8_t *_Nullable data, size_t length, TesseraGError *_Nullable *_Nullable error))   \
    X(void, rsvg_handle_set_dpi, (TesseraRsvgHandle * handle, double dpi))                         \
    /* since 2.46 */                                                                               \
    X(void, rsvg_handle_get_intrinsic_dimensions,                                                  \
      (TesseraRsvgHandle * handle, TesseraGBoolean *hasWidth, TesseraRsvgLength *width,            \
       TesseraGBoolean *hasHeight, TesseraRsvgLength *height, TesseraGBoolean *hasViewBox,         \
       TesseraRsvgRectangle *viewBox))                                                             \
    X(TesseraGBoolean, rsvg_handle_render_document,                                                \
      (TesseraRsvgHandle * handle, TesseraCairo *context, const TesseraRsvgRectangle *viewport,    \
       TesseraGError *_Nullable *_Nullable error))                                                 \
    /* since 2.52 */                                                                               \
    X(TesseraGBoolean, rsvg_handle_get_intrinsic_size_in_pixels,                                   \
      (TesseraRsvgHandle * handle, double *width, double *height))

#define TESSERA_SVG_FIELD(result, name, parameters) result (*_Nonnull name) parameters;
TESSERA_TABLE(TesseraSVG, tessera_svg_load, TESSERA_SVG_FUNCTIONS(TESSERA_SVG_FIELD))
#undef TESSERA_SVG_FIELD

#pragma clang assume_nonnull end

#endif
