#ifndef C_TESSERA_SHIMS_H
#define C_TESSERA_SHIMS_H

// Tiny C wrappers around the codec calls that report errors by longjmp (libjpeg, libpng).
// Swift cannot survive a longjmp across its frames, so every such call is made here, under
// setjmp, and its failure comes back as a return code with the library's message copied into the
// wrapper. All decisions stay in Swift. (libtiff's message capture lives in CTesseraTIFF.)

#include <stddef.h>
#include <stdio.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

#define TESSERA_MESSAGE_CAPACITY 256

// MARK: - libjpeg

typedef struct TesseraJPEGDecoder {
    struct jpeg_decompress_struct info;  // first member: the error handler casts back to the wrapper
    struct jpeg_error_mgr error;
    jmp_buf recovery;
    char message[TESSERA_MESSAGE_CAPACITY];
    int reachedEndOfInput;  // libjpeg ran out of data and padded with a fake EOI
    int warningCount;
} TesseraJPEGDecoder;

int tessera_jpeg_decoder_init(TesseraJPEGDecoder *decoder);
void tessera_jpeg_decoder_destroy(TesseraJPEGDecoder *decoder);
int tessera_jpeg_source_file(TesseraJPEGDecoder *decoder, FILE *file);
int tessera_jpeg_source_memory(TesseraJPEGDecoder *decoder, const unsigned char *bytes, unsigned long length);
// A JPEG entered at a restart marker: `prefix` (the headers, copied), then `file` from its current
// position, each restart marker's number lowered by `marker_shift` (mod 8) so they run from RST0.
int tessera_jpeg_source_spliced(TesseraJPEGDecoder *decoder, const unsigned char *prefix, unsigned long prefix_length,
                                FILE *file, int marker_shift);
int tessera_jpeg_read_header(TesseraJPEGDecoder *decoder);
int tessera_jpeg_start_decompress(TesseraJPEGDecoder *decoder);
int tessera_jpeg_read_scanlines(TesseraJPEGDecoder *decoder, unsigned char **rows, unsigned int maxRows,
                                unsigned int *rowsRead);
// Between start_decompress and the first read: output columns [*xoffset, *xoffset + *width) only,
// widened by libjpeg to whole iMCUs (both values are updated to what it will output).
int tessera_jpeg_crop_scanline(TesseraJPEGDecoder *decoder, unsigned int *xoffset, unsigned int *width);
// Passes over the next `lines` output rows without producing them (entropy decoding only, where
// libjpeg-turbo can); `*skipped` is how many it passed.
int tessera_jpeg_skip_scanlines(TesseraJPEGDecoder *decoder, unsigned int lines, unsigned int *skipped);

typedef struct TesseraJPEGEncoder {
    struct jpeg_compress_struct info;
    struct jpeg_error_mgr error;
    jmp_buf recovery;
    char message[TESSERA_MESSAGE_CAPACITY];
    unsigned char *output;  // malloc'd by libjpeg's memory destination; freed by destroy
    unsigned long outputSize;
} TesseraJPEGEncoder;

int tessera_jpeg_encoder_init(TesseraJPEGEncoder *encoder);
void tessera_jpeg_encoder_destroy(TesseraJPEGEncoder *encoder);
/// Call after setting image_width, image_height, input_components and in_color_space.
int tessera_jpeg_start_compress(TesseraJPEGEncoder *encoder, int quality, int progressive);
/// Writes `profile` as APP2 ICC_PROFILE markers (split as needed); after start_compress, before any row.
int tessera_jpeg_write_icc_profile(TesseraJPEGEncoder *encoder, const unsigned char *profile, unsigned int length);
int tessera_jpeg_write_scanlines(TesseraJPEGEncoder *encoder, unsigned char **rows, unsigned int count);
int tessera_jpeg_finish_compress(TesseraJPEGEncoder *encoder);

// MARK: - libpng

typedef struct TesseraPNGDecoder {
    png_structp png;
    png_infop info;
    jmp_buf recovery;
    char message[TESSERA_MESSAGE_CAPACITY];
    FILE *file;                  // either a file...
    const unsigned char *bytes;  // ...or a memory buffer the caller keeps alive
    size_t length;
    size_t offset;
    int reachedEndOfInput;
    // The first CRC error libpng warned of and read past (a critical chunk's data, IDAT's, is used
    // all the same, as libpng-based tools and browsers use it; zlib's checksum still guards it).
    char crcWarning[TESSERA_MESSAGE_CAPACITY];
} TesseraPNGDecoder;

enum {
    TESSERA_PNG_EXPAND = 1,         // palette to RGB, gray < 8 bits to 8, tRNS to alpha
    TESSERA_PNG_STRIP_16 = 2,       // keep the high byte of 16-bit samples
    TESSERA_PNG_INTERLACE = 4,      // let libpng deinterlace Adam7 (rows then need every pass)
};

int tessera_png_decoder_init(TesseraPNGDecoder *decoder);
void tessera_png_decoder_destroy(TesseraPNGDecoder *decoder);
int tessera_png_read_info(TesseraPNGDecoder *decoder);
/// Applies TESSERA_PNG_* transforms, updates the info, and reports the number of interlace passes.
int tessera_png_configure(TesseraPNGDecoder *decoder, int transforms, int *passes);
int tessera_png_read_row(TesseraPNGDecoder *decoder, unsigned char *row);

typedef struct TesseraPNGEncoder {
    png_structp png;
    png_infop info;
    jmp_buf recovery;
    char message[TESSERA_MESSAGE_CAPACITY];
    unsigned char *output;  // malloc'd; freed by destroy
    size_t outputSize;
    size_t outputCapacity;
} TesseraPNGEncoder;

int tessera_png_encoder_init(TesseraPNGEncoder *encoder);
void tessera_png_encoder_destroy(TesseraPNGEncoder *encoder);
int tessera_png_write_header(TesseraPNGEncoder *encoder, unsigned int width, unsigned int height, int colorType,
                             int compressionLevel, const unsigned char *profile, unsigned int profileLength);
/// The header of an indexed PNG of `bitDepth` (1, 2, 4 or 8) bits per pixel: `paletteCount` RGB
/// triplets, and `alphaCount` alpha values for the first entries (tRNS; 0 for none). Rows are then
/// written one index per byte; libpng packs them to the bit depth.
int tessera_png_write_palette_header(TesseraPNGEncoder *encoder, unsigned int width, unsigned int height, int bitDepth,
                                     const unsigned char *palette, int paletteCount, const unsigned char *alpha,
                                     int alphaCount, int compressionLevel, const unsigned char *profile,
                                     unsigned int profileLength);
int tessera_png_write_row(TesseraPNGEncoder *encoder, const unsigned char *row);
int tessera_png_finish(TesseraPNGEncoder *encoder);

// MARK: - Reading through callbacks

// A read-only `FILE` whose reads and seeks call back into Swift (glibc's fopencookie, which
// Swift's Glibc module does not show), so libjpeg and libpng can stream a source kept elsewhere.
// `read` returns the bytes copied (0 at the end, -1 on failure); `seek` moves to `*offset` from
// `whence` and stores the new position there; `close` is called once, by fclose.
typedef long (*tessera_reader_read)(void *cookie, char *buffer, size_t size);
typedef int (*tessera_reader_seek)(void *cookie, long long *offset, int whence);
typedef int (*tessera_reader_close)(void *cookie);
FILE *tessera_open_reader(void *cookie, tessera_reader_read read, tessera_reader_seek seek, tessera_reader_close close);

// glibc's syncfs (hidden from Swift like fopencookie): waits for every write of the file system
// `descriptor` is on, so a pyramid of thousands of files is made durable with one call.
int tessera_sync_file_system(int descriptor);

#endif
