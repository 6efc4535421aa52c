// Does libjxl 0.7's progressive DC give a cheaper thumbnail than a full decode? (issue 37)
//
// Build and run (Debian's libjxl-dev; a 6000x4000 JPEG XL made with `cjxl big.png big.jxl`):
//   cc -O2 scripts/bench/jxl_dc_probe.c -ljxl -ljxl_threads -o /tmp/jxl_dc_probe
//   for mode in 0 1 2 3 4; do /usr/bin/time -f "mode $mode: %e s, %U s user, %M kB" /tmp/jxl_dc_probe big.jxl $mode 16384; done
//
// Modes: 0 a full decode into a full-size RGB buffer; 1 stop at JXL_DEC_FRAME_PROGRESSION (kDC)
// and JxlDecoderFlushImage into a full-size buffer (the only way 0.7 hands the DC out: "the image
// data is still returned at full resolution, giving upscaled DC"); 2 the same flush through an
// output callback that keeps every 8th pixel of every 8th row (a 1/8 buffer); 3 stop at the event
// without flushing (what reaching the DC costs); 4 a full decode through that output callback
// (whether streaming the rows out saves the full-size buffer: in 0.7 it does not). The input is given `chunk` bytes at a time (third
// argument; default all), so decoding can stop before the AC data is read.
#include <jxl/decode.h>
#include <jxl/thread_parallel_runner.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *small;
static size_t smallWidth;

static void keep_eighth(void *opaque, size_t x, size_t y, size_t count, const void *pixels) {
    (void)opaque;
    if (y % 8) return;
    for (size_t i = 0; i < count; i++)
        if ((x + i) % 8 == 0) memcpy(small + ((y / 8) * smallWidth + (x + i) / 8) * 3, (const unsigned char *)pixels + i * 3, 3);
}

int main(int argc, char **argv) {
    if (argc < 3) return fprintf(stderr, "usage: %s FILE.jxl MODE [CHUNK]\n", argv[0]), 2;
    int mode = atoi(argv[2]);
    FILE *file = fopen(argv[1], "rb");
    if (!file) return perror(argv[1]), 1;
    fseek(file, 0, SEEK_END);
    size_t length = (size_t)ftell(file), given;
    fseek(file, 0, SEEK_SET);
    unsigned char *bytes = malloc(length), *out = NULL;
    if (fread(bytes, 1, length, file) != length) return 1;
    fclose(file);
    size_t chunk = argc > 3 ? (size_t)atol(argv[3]) : length;
    JxlDecoder *decoder = JxlDecoderCreate(NULL);
    void *runner = JxlThreadParallelRunnerCreate(NULL, 2);
    JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner);
    int progressive = mode >= 1 && mode <= 3;
    JxlDecoderSubscribeEvents(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE | (progressive ? JXL_DEC_FRAME_PROGRESSION : 0));
    if (progressive) JxlDecoderSetProgressiveDetail(decoder, kDC);
    given = chunk < length ? chunk : length;
    JxlDecoderSetInput(decoder, bytes, given);
    if (given == length) JxlDecoderCloseInput(decoder);
    JxlPixelFormat format = {3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    JxlBasicInfo info;
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_BASIC_INFO) {
            JxlDecoderGetBasicInfo(decoder, &info);
            smallWidth = (info.xsize + 7) / 8;
        } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            if (mode >= 2) {
                small = calloc(smallWidth * ((info.ysize + 7) / 8), 3);
                JxlDecoderSetImageOutCallback(decoder, &format, keep_eighth, NULL);
            } else {
                size_t size;
                JxlDecoderImageOutBufferSize(decoder, &format, &size);
                out = malloc(size);
                JxlDecoderSetImageOutBuffer(decoder, &format, out, size);
            }
        } else if (status == JXL_DEC_FRAME_PROGRESSION) {
            fprintf(stderr, "DC after %zu of %zu bytes (ratio %zu)%s\n", given, length, JxlDecoderGetIntendedDownsamplingRatio(decoder),
                    mode == 3 ? "" : JxlDecoderFlushImage(decoder) == JXL_DEC_SUCCESS ? ", flushed" : ", flush failed");
            break;
        } else if (status == JXL_DEC_NEED_MORE_INPUT) {
            size_t start = given - JxlDecoderReleaseInput(decoder);
            given = given + chunk < length ? given + chunk : length;
            JxlDecoderSetInput(decoder, bytes + start, given - start);
            if (given == length) JxlDecoderCloseInput(decoder);
        } else if (status == JXL_DEC_FULL_IMAGE || status == JXL_DEC_SUCCESS) {
            break;
        } else {
            return fprintf(stderr, "libjxl status %d\n", status), 1;
        }
    }
    JxlThreadParallelRunnerDestroy(runner);
    JxlDecoderDestroy(decoder);
    return 0;
}
