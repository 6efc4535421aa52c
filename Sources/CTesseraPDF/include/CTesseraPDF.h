#ifndef C_TESSERA_PDF_H
#define C_TESSERA_PDF_H

// poppler-glib, with the cairo and GLib functions Tessera calls around it, reached through a table
// of function pointers filled with dlopen/dlsym on first use, as CTesseraSVG does for librsvg and
// for the same reasons: poppler, cairo and GLib cost every process resident memory at start while
// few runs meet a PDF, and their headers need include directories only pkg-config knows. So the
// prototypes are written out here, with opaque pointers for the objects Tessera only passes around.
// All of it is long-stable C ABI: GLib 2.x and cairo 1.x keep it by policy; the poppler-glib
// functions here have kept theirs since 0.x (libpoppler-glib.so.8 is the ABI they describe).

#include <stddef.h>
#include <stdint.h>

#pragma clang assume_nonnull begin

typedef struct TesseraPopplerDocument TesseraPopplerDocument; // PopplerDocument, a GObject
typedef struct TesseraPopplerPage TesseraPopplerPage;         // PopplerPage, a GObject
typedef struct TesseraPDFSurface TesseraPDFSurface;           // cairo_surface_t
typedef struct TesseraPDFCairo TesseraPDFCairo;               // cairo_t

/// GError, as GLib lays it out.
typedef struct TesseraPDFError {
    uint32_t domain;
    int code;
    char *message;
} TesseraPDFError;

/// GLogFunc; the level is a GLogLevelFlags.
typedef void (*TesseraPDFLogFunc)(const char *_Nullable domain, int level, const char *_Nullable message,
                                  void *_Nullable userData);

enum {
    TESSERA_PDF_CAIRO_FORMAT_RGB24 = 1, // cairo_format_t: 32-bit words, the top byte unused
    TESSERA_PDF_CAIRO_STATUS_SUCCESS = 0,
};

// X(library, return type, name, parameters); library indexes the sonames in pdf.c.
#define TESSERA_PDF_FUNCTIONS(X)                                                                   \
    X(0, TesseraPDFLogFunc _Nullable, g_log_set_default_handler, (TesseraPDFLogFunc handler, void *_Nullable userData)) \
    X(0, void, g_error_free, (TesseraPDFError * error))                                            \
    X(1, void, g_object_unref, (void *object))                                                     \
    X(2, TesseraPDFSurface *_Nullable, cairo_image_surface_create, (int format, int width, int height)) \
    X(2, unsigned, cairo_surface_status, (TesseraPDFSurface * surface))                            \
    X(2, void, cairo_surface_flush, (TesseraPDFSurface * surface))                                 \
    X(2, void, cairo_surface_destroy, (TesseraPDFSurface * surface))                               \
    X(2, unsigned char *_Nullable, cairo_image_surface_get_data, (TesseraPDFSurface * surface))    \
    X(2, int, cairo_image_surface_get_stride, (TesseraPDFSurface * surface))                       \
    X(2, TesseraPDFCairo *_Nullable, cairo_create, (TesseraPDFSurface * surface))                  \
    X(2, void, cairo_destroy, (TesseraPDFCairo * context))                                         \
    X(2, void, cairo_scale, (TesseraPDFCairo * context, double x, double y))                       \
    X(2, void, cairo_set_source_rgb, (TesseraPDFCairo * context, double red, double green, double blue)) \
    X(2, void, cairo_paint, (TesseraPDFCairo * context))                                           \
    X(3, TesseraPopplerDocument *_Nullable, poppler_document_new_from_data,                        \
      (char *data, int length, const char *_Nullable password, TesseraPDFError *_Nullable *_Nullable error)) \
    X(3, int, poppler_document_get_n_pages, (TesseraPopplerDocument * document))                   \
    X(3, TesseraPopplerPage *_Nullable, poppler_document_get_page, (TesseraPopplerDocument * document, int index)) \
    X(3, void, poppler_page_get_size, (TesseraPopplerPage * page, double *_Nullable width, double *_Nullable height)) \
    X(3, void, poppler_page_render, (TesseraPopplerPage * page, TesseraPDFCairo *context))

typedef struct TesseraPDF {
#define TESSERA_PDF_FIELD(library, result, name, parameters) result (*_Nonnull name) parameters;
    TESSERA_PDF_FUNCTIONS(TESSERA_PDF_FIELD)
#undef TESSERA_PDF_FIELD
} TesseraPDF;

/// The loaded table, or NULL when a library or symbol is missing; then `message` (at least 256
/// bytes) names what was missing. Loads once; later calls return the same table. Thread-safe.
/// Also silences GLib's default log handler, through which poppler-glib reports syntax errors.
const TesseraPDF *_Nullable tessera_pdf_load(char *_Nullable message, size_t capacity);

#pragma clang assume_nonnull end

#endif
