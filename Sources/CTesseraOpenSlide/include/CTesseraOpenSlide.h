#ifndef C_TESSERA_OPENSLIDE_H
#define C_TESSERA_OPENSLIDE_H

// OpenSlide 3.4 (whole-slide images of the vendors Tessera does not read natively: Hamamatsu,
// MIRAX, Leica, Ventana, Philips, Sakura, Trestle, generic tiled TIFF), reached through a table of
// function pointers filled with dlopen/dlsym on first use (see CTesseraLoader.h).
//
// Why not linked: OpenSlide brings GLib, cairo, GDK-PixBuf, libxml2 and SQLite into the process.
// Loaded the first time a TIFF or a file the codecs do not read is opened (asked whether it is a
// vendor's slide), so a process of JPEGs and PNGs never loads it; measured, a server that has
// loaded it for a pyramidal TIFF is 38.2 MB resident, one that served a JPEG without it 40.2 MB.
// The header is OpenSlide's own, so the prototypes (`__typeof__`) cannot drift from the ABI they
// were compiled against (libopenslide.so.0).

#include <stddef.h>

#include "CTesseraLoader.h"
#include <stdint.h>
#include <openslide/openslide.h>

#define TESSERA_OPENSLIDE_FUNCTIONS(X)                                                             \
    X(openslide_detect_vendor) X(openslide_open) X(openslide_close) X(openslide_get_error)          \
    X(openslide_get_level_count) X(openslide_get_level_dimensions) X(openslide_get_level_downsample) \
    X(openslide_read_region) X(openslide_get_property_value) X(openslide_get_associated_image_names)   \
    X(openslide_get_associated_image_dimensions) X(openslide_read_associated_image)

TESSERA_TABLE(TesseraOpenSlide, tessera_openslide_load, TESSERA_OPENSLIDE_FUNCTIONS(TESSERA_SLOT))

#endif
