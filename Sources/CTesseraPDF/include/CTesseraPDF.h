#ifndef C_TESSERA_PDF_H
#define C_TESSERA_PDF_H

// poppler-glib, reached through a table of function pointers filled with dlopen/dlsym on first
// use, as CTesseraSVG does for librsvg and for the same reasons (resident memory at start in every
// process, include directories only pkg-config knows); the cairo and GLib functions around it are
// CTesseraCairo's. The poppler-glib functions here have kept their ABI since the versions named
// beside them (libpoppler-glib.so.8 is the ABI they describe).

#include <stddef.h>
#include <stdint.h>
#include "CTesseraCairo.h"
#include "CTesseraLoader.h"

#pragma clang assume_nonnull begin

typedef struct TesseraPopplerDocument TesseraPopplerDocument; // PopplerDocument, a GObject
typedef struct TesseraPopplerPage TesseraPopplerPage;         // PopplerPage, a GObject

/// GList: a node of GLib's doubly linked list.
typedef struct TesseraGList {
    void *_Nullable data;
    struct TesseraGList *_Nullable next;
    struct TesseraGList *_Nullable prev;
} TesseraGList;

/// PopplerRectangle: in points, from the page's lower-left corner.
typedef struct TesseraPopplerRectangle {
    double x1, y1, x2, y2;
} TesseraPopplerRectangle;

/// PopplerImageMapping: where one image is drawn on a page (its transformed bounding box).
typedef struct TesseraPopplerImageMapping {
    TesseraPopplerRectangle area;
    int image_id;
} TesseraPopplerImageMapping;

#define TESSERA_PDF_FUNCTIONS(X)                                                                   \
    /* since 0.82 */                                                                               \
    X(TesseraPopplerDocument *_Nullable, poppler_document_new_from_bytes,                          \
      (TesseraGBytes * bytes, const char *_Nullable password, TesseraGError *_Nullable *_Nullable error)) \
    X(int, poppler_document_get_n_pages, (TesseraPopplerDocument * document))                      \
    X(TesseraPopplerPage *_Nullable, poppler_document_get_page, (TesseraPopplerDocument * document, int index)) \
    X(void, poppler_page_get_size, (TesseraPopplerPage * page, double *_Nullable width, double *_Nullable height)) \
    X(void, poppler_page_render, (TesseraPopplerPage * page, TesseraCairo *context))              \
    /* since 0.6: the page's images, placed, not decoded */                                        \
    X(TesseraGList *_Nullable, poppler_page_get_image_mapping, (TesseraPopplerPage * page))        \
    X(void, poppler_page_free_image_mapping, (TesseraGList *_Nullable list))

#define TESSERA_PDF_FIELD(result, name, parameters) result (*_Nonnull name) parameters;
TESSERA_TABLE(TesseraPDF, tessera_pdf_load, TESSERA_PDF_FUNCTIONS(TESSERA_PDF_FIELD))
#undef TESSERA_PDF_FIELD

#pragma clang assume_nonnull end

#endif
