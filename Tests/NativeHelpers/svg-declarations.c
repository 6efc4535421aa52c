// Compiled (never linked) by SVGDeclarationTests: checks that the prototypes and structs that
// CTesseraSVG.h writes out by hand match librsvg's, cairo's and GLib's own headers, which that
// target cannot include (see its header). A mismatch here would be memory corruption at run time.
#include <librsvg/rsvg.h>
#include <stddef.h>

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
_Static_assert(TESSERA_CAIRO_STATUS_SUCCESS == CAIRO_STATUS_SUCCESS, "cairo_status_t");

// From here on the Tessera names stand for the real types, so each function-pointer type the
// table declares can be compared with the real function's type.
#define TesseraRsvgHandle RsvgHandle
#define TesseraCairoSurface cairo_surface_t
#define TesseraCairo cairo_t
#define TesseraGError GError
#define TesseraRsvgRectangle RsvgRectangle
#define TesseraRsvgLength RsvgLength
#define TesseraGBoolean gboolean
#define TesseraGLogFunc GLogFunc

#define SAME_PROTOTYPE(library, result, name, parameters)                                          \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), result (*)parameters),          \
                   #name " is declared differently from its library's header");
TESSERA_SVG_FUNCTIONS(SAME_PROTOTYPE)
