#ifndef C_TESSERA_TIFF_H
#define C_TESSERA_TIFF_H

// libtiff, reached through a table of function pointers that is filled with dlopen/dlsym on first
// use rather than by the linker, as CTesseraAV does for ffmpeg; and the few wrappers Swift needs
// around it (message capture, an in-memory reader, the variadic tag getter).
//
// Why: libtiff brings its codecs (zstd, lzma, LERC, JBIG, libdeflate) into every `tessera` process
// at start, about 2.5 MB of resident memory measured, while most runs never see a TIFF file.
// Loaded on demand, only those runs pay for it. The header is libtiff's own, so the table's
// prototypes (`__typeof__`) cannot drift from the ABI it was compiled against. The soname's number
// is not in the header (libtiff 4.5 is libtiff.so.6): see tiff.c.

#include <stddef.h>

#include "CTesseraLoader.h"
#include <stdint.h>
#include <tiffio.h>

#define TESSERA_TIFF_FUNCTIONS(X)                                                                  \
    X(TIFFFdOpenExt) X(TIFFClientOpenExt) X(TIFFClose) X(TIFFOpenOptionsAlloc) X(TIFFOpenOptionsFree) \
    X(TIFFOpenOptionsSetErrorHandlerExtR) X(TIFFOpenOptionsSetWarningHandlerExtR)                  \
    X(TIFFOpenOptionsSetMaxSingleMemAlloc) X(_TIFFmalloc) X(_TIFFfree) X(TIFFIsTiled)              \
    X(TIFFNumberOfDirectories) X(TIFFTileSize64) X(TIFFStripSize64) X(TIFFVStripSize64)            \
    X(TIFFNumberOfTiles) X(TIFFNumberOfStrips) X(TIFFGetStrileOffset) X(TIFFGetStrileByteCount)    \
    X(TIFFComputeTile) X(TIFFComputeStrip) X(TIFFReadEncodedTile) X(TIFFReadEncodedStrip)          \
    X(TIFFScanlineSize64) X(TIFFReadScanline)                                                      \
    X(TIFFRGBAImageOK) X(TIFFRGBAImageBegin) X(TIFFRGBAImageGet) X(TIFFRGBAImageEnd)                \
    X(TIFFSetDirectory) X(TIFFReadDirectory) X(TIFFReadRGBATileExt) X(TIFFReadRawTile)               \
    X(TIFFSetSubDirectory) X(TIFFWriteEncodedTile) X(TIFFWriteDirectory) X(TIFFFindField)            \
    X(TIFFFieldDataType) X(TIFFFieldPassCount) X(TIFFFieldReadCount) X(TIFFCurrentDirOffset)

TESSERA_TABLE(TesseraTIFF, tessera_tiff_load, TESSERA_TIFF_FUNCTIONS(TESSERA_SLOT))

#pragma clang assume_nonnull begin

typedef struct TesseraTIFFMessages {
    char error[256];
    int errorCount;
    int warningCount;
} TesseraTIFFMessages;

/// Opens a TIFF for reading with its errors and warnings captured in `messages` (never printed).
/// libtiff refuses, with an error, any one allocation of its own over `maximumAllocation` bytes
/// (strips it buffers, tag arrays), so a hostile file cannot make it ask for more.
/// NULL when it cannot be opened, or when libtiff is not loaded (see `tessera_tiff_load`).
TIFF *_Nullable tessera_tiff_open_file(const char *path, int64_t maximumAllocation, TesseraTIFFMessages *messages);
/// Same, over a memory buffer that must outlive the returned handle.
TIFF *_Nullable tessera_tiff_open_memory(const unsigned char *bytes, size_t length, int64_t maximumAllocation,
                                         TesseraTIFFMessages *messages);

/// Creates (or truncates) the file at `path` and opens it for writing, BigTIFF when `big`, with
/// libtiff's messages captured in `messages`. NULL when it cannot be created.
TIFF *_Nullable tessera_tiff_create_file(const char *path, int big, TesseraTIFFMessages *messages);

/// The tags of one tiled image a writer sets before its tiles (`tessera_tiff_set_tiled_image`).
typedef struct TesseraTIFFTiledImage {
    uint32_t width, height, tileSide;
    /// 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA (alpha unassociated).
    uint16_t samples;
    /// 7 JPEG (RGB written as YCbCr 4:2:0, libjpeg converting) or 8 Deflate (horizontal predictor).
    uint16_t compression;
    int jpegQuality;
    /// NewSubfileType: 0 full resolution, 1 a reduced level.
    uint32_t subfileType;
    /// Orientation (1-8).
    uint16_t orientation;
    /// SubIFDs to follow this image (its reduced levels), 0 for none: libtiff writes the next
    /// `subIFDCount` directories as them.
    uint16_t subIFDCount;
    const char *_Nullable description;
    const void *_Nullable iccProfile;
    uint32_t iccProfileLength;
} TesseraTIFFTiledImage;

/// Sets the tags of the directory being written. Returns 1 when every tag was taken.
int tessera_tiff_set_tiled_image(TIFF *tiff, const TesseraTIFFTiledImage *image);

/// TIFFGetFieldDefaulted for one integer-valued tag (libtiff's variadic getter cannot be called from Swift).
/// Returns 1 when the tag is present or has a default.
int tessera_tiff_get_uint32(TIFF *tiff, uint32_t tag, uint32_t *value);
int tessera_tiff_get_uint16(TIFF *tiff, uint32_t tag, uint16_t *value);
/// Asks the JPEG codec for RGB rather than YCbCr (libjpeg upsamples and converts), for a directory
/// with JPEG compression and YCbCr photometric. Returns 1 when set. Must be called again after
/// changing directory.
int tessera_tiff_decode_jpeg_as_rgb(TIFF *tiff);
/// The count of extra samples (alpha and others) and the kind of the first one.
int tessera_tiff_get_extra_samples(TIFF *tiff, uint16_t *count, uint16_t *firstKind);
/// The current directory's value of a tag of counted bytes (the ICC profile, 34675; JPEGTables,
/// 347), owned by libtiff until the directory changes. Returns 1 when there is one.
int tessera_tiff_get_bytes(TIFF *tiff, uint32_t tag, uint32_t *length, const void *_Nullable *_Nonnull bytes);
/// The current directory's value of an ASCII tag (ImageDescription, 270), NUL-terminated, owned
/// by libtiff until the directory changes. Returns 1 when there is one.
int tessera_tiff_get_string(TIFF *tiff, uint32_t tag, const char *_Nullable *_Nonnull text);
/// The current directory's SubIFDs (tag 330: OME-TIFF's and `vips tiffsave --subifd`'s reduced
/// levels), as file offsets owned by libtiff until the directory changes. Returns 1 when there are any.
int tessera_tiff_get_subifds(TIFF *tiff, uint16_t *count, const uint64_t *_Nullable *_Nonnull offsets);
/// The current directory's value of a tag libtiff may not know (GeoTIFF's 33550, 33922, 34264,
/// 34735-34737, GDAL's 42113: read as anonymous fields), as `count` values of libtiff's
/// `TIFFDataType` `dataType` (3 SHORT, 12 DOUBLE, 2 ASCII…), owned by libtiff until the directory
/// changes. Returns 1 when there is one.
int tessera_tiff_get_array(TIFF *tiff, uint32_t tag, uint32_t *count, const void *_Nullable *_Nonnull values, int *dataType);

#pragma clang assume_nonnull end

#endif
