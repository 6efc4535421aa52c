#ifndef C_TESSERA_LCMS_H
#define C_TESSERA_LCMS_H

// LittleCMS 2, reached through a table of function pointers filled with dlopen/dlsym on first use,
// as CTesseraTIFF does for libtiff: only a process that meets an image with a colour profile maps
// the library. The header is lcms's own, so the prototypes cannot drift from its ABI.

#include <stddef.h>

#include "CTesseraLoader.h"
#include <lcms2.h>

#define TESSERA_LCMS_FUNCTIONS(X)                                                                  \
    X(cmsOpenProfileFromMem) X(cmsCloseProfile) X(cmsCreate_sRGBProfile) X(cmsCreateLab4Profile)  \
    X(cmsCreateGrayProfile) X(cmsBuildParametricToneCurve) X(cmsFreeToneCurve) X(cmsGetColorSpace) \
    X(cmsCreateTransform) X(cmsDeleteTransform) X(cmsDoTransform) X(cmsSetLogErrorHandler)        \
    X(cmsCreateRGBProfile) X(cmsSaveProfileToMem) X(cmsMLUalloc) X(cmsMLUsetASCII) X(cmsMLUfree)  \
    X(cmsWriteTag)

// lcms's error log is silenced on loading: a profile it refuses is reported by the caller, not printed.
TESSERA_TABLE(TesseraLCMS, tessera_lcms_load, TESSERA_LCMS_FUNCTIONS(TESSERA_SLOT))

// lcms's pixel types are function-like macros, which Swift cannot import: their values, as constants.
static const cmsUInt32Number tessera_lcms_type_rgb_8 = TYPE_RGB_8;
static const cmsUInt32Number tessera_lcms_type_rgba_8 = TYPE_RGBA_8;
static const cmsUInt32Number tessera_lcms_type_gray_8 = TYPE_GRAY_8;
static const cmsUInt32Number tessera_lcms_type_graya_8 = TYPE_GRAYA_8;
static const cmsUInt32Number tessera_lcms_type_cmyk_8 = TYPE_CMYK_8;
/// 16-bit CMYK in the machine's byte order (TIFF as libtiff delivers it).
static const cmsUInt32Number tessera_lcms_type_cmyk_16 = TYPE_CMYK_16;
static const cmsUInt32Number tessera_lcms_type_cmyk_16_reverse = TYPE_CMYK_16_REV;
/// 32-bit float RGB (linear light out of a transform, for SeparableColorTable).
static const cmsUInt32Number tessera_lcms_type_rgb_flt = TYPE_RGB_FLT;
/// 16-bit samples in the machine's byte order (TIFF as libtiff delivers it).
static const cmsUInt32Number tessera_lcms_type_rgb_16 = TYPE_RGB_16;
static const cmsUInt32Number tessera_lcms_type_rgba_16 = TYPE_RGBA_16;
static const cmsUInt32Number tessera_lcms_type_gray_16 = TYPE_GRAY_16;
static const cmsUInt32Number tessera_lcms_type_graya_16 = TYPE_GRAYA_16;
/// 16-bit samples big-endian, as PNG stores them (lcms's "swap endian" flag, on a little-endian machine).
static const cmsUInt32Number tessera_lcms_endian16_swap = ENDIAN16_SH(1);
/// The tag signature of a profile's description.
static const cmsTagSignature tessera_lcms_description_tag = cmsSigProfileDescriptionTag;
/// CIELab as ICC encodes it in 8 bits: L 0–255 for 0–100, a and b offset by 128.
static const cmsUInt32Number tessera_lcms_type_lab_8 = TYPE_Lab_8;
/// CIELab as ICC v4 encodes it in 16 bits: L 0–65535 for 0–100, a and b 0x8080 for 0, 257 a unit.
static const cmsUInt32Number tessera_lcms_type_lab_16 = TYPE_Lab_16;
/// Ink stored as 255 − ink, as Adobe writes CMYK JPEGs.
static const cmsUInt32Number tessera_lcms_type_cmyk_8_reverse = TYPE_CMYK_8_REV;


#endif
