// Compiled (never linked) by VectorDeclarationTests: checks that the prototypes and structs that
// CTesseraCairo.h, CTesseraSVG.h and CTesseraPDF.h write out by hand match cairo's, GLib's,
// librsvg's and poppler-glib's own headers, which those targets cannot include (see
// CTesseraCairo.h). A mismatch here would be memory corruption at run time.
#include <librsvg/rsvg.h>
#include <poppler.h>
#include <stddef.h>

#include "CTesseraCairo.h"
#include "CTesseraPDF.h"
#include "CTesseraSVG.h"

#define SAME_LAYOUT(ours, theirs, field)                                                           \
    _Static_assert(offsetof(ours, field) == offsetof(theirs, field), #ours "." #field);            \
    _Static_assert(sizeof(((ours *)0)->field) == sizeof(((theirs *)0)->field), #ours "." #field)

_Static_assert(sizeof(TesseraGError) == sizeof(GError), "GError");
SAME_LAYOUT(TesseraGError, GError, domain);
SAME_LAYOUT(TesseraGError, GError, code);
SAME_LAYOUT(TesseraGError, GError, message);
_Static_assert(sizeof(TesseraRsvgRectangle) == sizeof(RsvgRectangle), "RsvgRectangle");
SAME_LAYOUT(TesseraRsvgRectangle, RsvgRectangle, x);
SAME_LAYOUT(TesseraRsvgRectangle, RsvgRectangle, y);
SAME_LAYOUT(TesseraRsvgRectangle, RsvgRectangle, width);
SAME_LAYOUT(TesseraRsvgRectangle, RsvgRectangle, height);
_Static_assert(sizeof(TesseraRsvgLength) == sizeof(RsvgLength), "RsvgLength");
SAME_LAYOUT(TesseraRsvgLength, RsvgLength, length);
SAME_LAYOUT(TesseraRsvgLength, RsvgLength, unit);
_Static_assert(sizeof(TesseraGBoolean) == sizeof(gboolean), "gboolean");
_Static_assert(TESSERA_CAIRO_FORMAT_ARGB32 == CAIRO_FORMAT_ARGB32, "cairo_format_t");
_Static_assert(TESSERA_CAIRO_FORMAT_RGB24 == CAIRO_FORMAT_RGB24, "cairo_format_t");
_Static_assert(TESSERA_CAIRO_STATUS_SUCCESS == CAIRO_STATUS_SUCCESS, "cairo_status_t");
_Static_assert(TESSERA_CAIRO_FONT_SLANT_NORMAL == CAIRO_FONT_SLANT_NORMAL, "cairo_font_slant_t");
_Static_assert(TESSERA_CAIRO_FONT_WEIGHT_BOLD == CAIRO_FONT_WEIGHT_BOLD, "cairo_font_weight_t");
_Static_assert(sizeof(TesseraCairoTextExtents) == sizeof(cairo_text_extents_t), "cairo_text_extents_t");
_Static_assert(offsetof(TesseraCairoTextExtents, xBearing) == offsetof(cairo_text_extents_t, x_bearing), "x_bearing");
_Static_assert(offsetof(TesseraCairoTextExtents, yBearing) == offsetof(cairo_text_extents_t, y_bearing), "y_bearing");
_Static_assert(offsetof(TesseraCairoTextExtents, width) == offsetof(cairo_text_extents_t, width), "width");
_Static_assert(offsetof(TesseraCairoTextExtents, height) == offsetof(cairo_text_extents_t, height), "height");
_Static_assert(offsetof(TesseraCairoTextExtents, xAdvance) == offsetof(cairo_text_extents_t, x_advance), "x_advance");
_Static_assert(offsetof(TesseraCairoTextExtents, yAdvance) == offsetof(cairo_text_extents_t, y_advance), "y_advance");
_Static_assert(sizeof(TesseraGList) == sizeof(GList), "GList");
SAME_LAYOUT(TesseraGList, GList, data);
SAME_LAYOUT(TesseraGList, GList, next);
SAME_LAYOUT(TesseraGList, GList, prev);
_Static_assert(sizeof(TesseraPopplerRectangle) == sizeof(PopplerRectangle), "PopplerRectangle");
SAME_LAYOUT(TesseraPopplerRectangle, PopplerRectangle, x1);
SAME_LAYOUT(TesseraPopplerRectangle, PopplerRectangle, y1);
SAME_LAYOUT(TesseraPopplerRectangle, PopplerRectangle, x2);
SAME_LAYOUT(TesseraPopplerRectangle, PopplerRectangle, y2);
_Static_assert(sizeof(TesseraPopplerImageMapping) == sizeof(PopplerImageMapping), "PopplerImageMapping");
SAME_LAYOUT(TesseraPopplerImageMapping, PopplerImageMapping, area);
SAME_LAYOUT(TesseraPopplerImageMapping, PopplerImageMapping, image_id);
// PDFDecoder tells an encrypted document by this code.
_Static_assert(POPPLER_ERROR_ENCRYPTED == 1, "PopplerError");

// From here on the Tessera names stand for the real types, so each function-pointer type the
// tables declare can be compared with the real function's type.
#define TesseraRsvgHandle RsvgHandle
#define TesseraPopplerDocument PopplerDocument
#define TesseraPopplerPage PopplerPage
#define TesseraGList GList
#define TesseraCairoSurface cairo_surface_t
#define TesseraCairo cairo_t
#define TesseraGBytes GBytes
#define TesseraGError GError
#define TesseraRsvgRectangle RsvgRectangle
#define TesseraRsvgLength RsvgLength
#define TesseraGBoolean gboolean
#define TesseraGLogFunc GLogFunc
#define TesseraCairoTextExtents cairo_text_extents_t

#define SAME_PROTOTYPE(result, name, parameters)                                                   \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), result (*)parameters),          \
                   #name " is declared differently from its library's header");
#define SAME_PROTOTYPE_IN(library, result, name, parameters) SAME_PROTOTYPE(result, name, parameters)
TESSERA_CAIRO_FUNCTIONS(SAME_PROTOTYPE_IN)
TESSERA_SVG_FUNCTIONS(SAME_PROTOTYPE)
TESSERA_PDF_FUNCTIONS(SAME_PROTOTYPE)
