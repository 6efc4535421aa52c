#!/usr/bin/env python3
"""Writes Tests/Fixtures/corpus/: small files with the defects and layouts found on public test corpora
(issue 37), each made here from scratch or from a committed fixture, never copied from a corpus.

Run from anywhere:  python3 scripts/make-corpus-fixtures.py   (Pillow 13.0.0, as scripts/make-fixtures.py)

Deterministic: no timestamps, no randomness; re-running rewrites the same bytes. What each file is, and what
Tessera must make of it, is in Tests/Fixtures/corpus/README.md (written here too).

TIFFs are written byte by byte (little-endian, uncompressed strips); PNGs and GIFs are rewritten from
Tests/Fixtures/png-rgb-8.png and gif-single.gif; the CMYK inks are Pillow's decode of
Tests/Fixtures/colour/cmyk-noprofile.jpg, so that the same inks exist as a JPEG and as TIFFs.
"""

from __future__ import annotations

import io
import struct
import sys
import zlib
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "Tests" / "Fixtures"
OUT = FIXTURES / "corpus"

README = """# Corpus fixtures

Made by `scripts/make-corpus-fixtures.py` (do not edit by hand): small files with the defects and layouts
found when Tessera was run over public test corpora (Pillow's `Tests/images`, PngSuite), each rebuilt
from scratch or from a committed fixture. The tests that use them say what each must decode to.

* `cmyk-8.tif`, `cmyk-16le.tif`: the CMYK inks of `colour/cmyk-noprofile.jpg` (Pillow's decode, 0 = no
  ink) as an untagged TIFF, 8-bit, and 16-bit little-endian (each ink × 257), uncompressed; the second is
  laid out as Pillow's `tiff_strip_cmyk_16l_jpeg.tif` is (which, despite its name, is not compressed).
  Both must give the JPEG's colours: one SWOP profile for untagged CMYK whatever the container.
* `cmyk-16-jpeg.tif`: the 16-bit CMYK layout with Compression 7 (JPEG) and a JPEG in its strip: JPEG holds
  8-bit samples only, so this is refused as unsupported.
* `gray32-uint.tif`, `gray32-int.tif`: 16×16 32-bit gray (SampleFormat 1 and 2), pixel `g = 16·y + x`
  stored so that the high byte of the range is `g` (`g · 0x01010101`; signed: `g` in the top 8 of the
  31 value bits, and the most negative value where `g` is 0).
* `lab16-cielab.tif`, `lab16-icclab.tif`, `lab8-icclab.tif`: 16×12 sRGB colours (`r = 17x`, `g = 23y`,
  `b = (7x + 13y) mod 256`) turned into CIELab (D50, Bradford from D65) in floating point and stored as
  16-bit CIELab (Photometric 8: L 0–65535, a and b signed, 1/256 a unit), 16-bit ICCLab (Photometric 9:
  a and b offset by 32768) and 8-bit ICCLab (offset by 128). Each must decode to those sRGB colours.
* `gray16-gamma25.png`: 64×32 16-bit gray with gAMA 2.5 (as PngSuite's `g25n0g16.png`): pixel `i` (row
  by row) holds `i` for the first 1,024 (the darkest values, where a curve sampled coarsely goes wrong),
  then `(i − 1024) · 64 + 63`.
* `png-filter-damaged.png`: `png-rgb-8.png` re-encoded with row 30's filter type set to 16 (there are
  five), its IDAT chunk's length 600 bytes short of its zlib stream (whose rest then stands where the CRC
  and the next chunk should), and no IEND: the defects of Pillow's `broken_data_stream.png`.
* `png-idat-crc.png`: `png-rgb-8.png` with its IDAT CRC wrong and its data intact.
* `png-trailing-junk.png`: `png-rgb-8.png` without its IEND, followed by 64 bytes that are no chunk.
* `gif-lzw9.gif`, `gif-lzw11.gif`: the pixels of `gif-single.gif` (the second tiled 2 × 2) re-encoded with
  an LZW minimum code size of 9 and 11, as Pillow's `issue_2811.gif` has it: giflib refuses more than 8;
  browsers, libnsgif and Pillow read them. The 11's 12-bit table fills and is cleared along the way.
* `gif-cut.gif`: `gif-single.gif` (interlaced) cut inside its image data, where 40 % of its LZW bytes have
  been read.
"""


def fail(message: str) -> None:
    sys.exit(f"make-corpus-fixtures: {message}")


def check(condition: bool, message: str) -> None:
    if not condition:
        fail(message)


# ---------------------------------------------------------------------------
# TIFF, byte by byte
# ---------------------------------------------------------------------------

SHORT, LONG = 3, 4


def tiff(width: int, height: int, bits: int, samples: int, photometric: int, data: bytes, *,
         extra_tags=(), compression: int = 1) -> bytes:
    """A little-endian TIFF of one strip holding `data` as stored."""
    tags = [
        (256, LONG, [width]), (257, LONG, [height]), (258, SHORT, [bits] * samples), (259, SHORT, [compression]),
        (262, SHORT, [photometric]), (273, LONG, [0]), (277, SHORT, [samples]), (278, LONG, [height]),
        (279, LONG, [len(data)]), (284, SHORT, [1]), *extra_tags,
    ]
    tags.sort(key=lambda tag: tag[0])
    ifd_size = 2 + 12 * len(tags) + 4
    extra_at = 8 + ifd_size
    extra = b""
    entries = b""
    values_end = extra_at + sum(len(v) * (2 if k == SHORT else 4) for _, k, v in tags
                                if len(v) * (2 if k == SHORT else 4) > 4)
    data_at = values_end + values_end % 2
    for tag, kind, values in tags:
        if tag == 273:
            values = [data_at]
        payload = b"".join(struct.pack("<H" if kind == SHORT else "<I", v) for v in values)
        if len(payload) <= 4:
            field = payload + bytes(4 - len(payload))
        else:
            field = struct.pack("<I", extra_at + len(extra))
            extra += payload
        entries += struct.pack("<HHI", tag, kind, len(values)) + field
    head = b"II" + struct.pack("<HI", 42, 8) + struct.pack("<H", len(tags)) + entries + struct.pack("<I", 0) + extra
    head += bytes(data_at - len(head))
    check(len(head) == data_at, "TIFF layout")
    return head + data


SAMPLE_FORMAT, INK_SET = 339, 332


def cmyk_fixtures(files: dict[str, bytes]) -> None:
    jpeg = Image.open(FIXTURES / "colour" / "cmyk-noprofile.jpg")
    jpeg.load()
    check(jpeg.mode == "CMYK", "colour/cmyk-noprofile.jpg is not CMYK")
    inks = jpeg.tobytes()  # Pillow's CMYK: 0 is no ink, as TIFF stores it
    width, height = jpeg.size
    ink_set = [(INK_SET, SHORT, [1])]
    files["cmyk-8.tif"] = tiff(width, height, 8, 4, 5, inks, extra_tags=ink_set)
    wide = struct.pack(f"<{len(inks)}H", *(v * 257 for v in inks))
    files["cmyk-16le.tif"] = tiff(width, height, 16, 4, 5, wide, extra_tags=ink_set)
    files["cmyk-16-jpeg.tif"] = tiff(width, height, 16, 4, 5, (FIXTURES / "colour" / "cmyk-noprofile.jpg").read_bytes(),
                                     extra_tags=ink_set, compression=7)
    check(Image.open(io.BytesIO(files["cmyk-8.tif"])).tobytes() == inks, "Pillow's decode of cmyk-8.tif")


def gray32_fixtures(files: dict[str, bytes]) -> None:
    values = [16 * y + x for y in range(16) for x in range(16)]
    unsigned = struct.pack("<256I", *(g * 0x01010101 for g in values))
    files["gray32-uint.tif"] = tiff(16, 16, 32, 1, 1, unsigned, extra_tags=[(SAMPLE_FORMAT, SHORT, [1])])
    signed = struct.pack("<256i", *((g << 23 | g << 15 | g << 7 | g >> 1) if g else -(1 << 31) for g in values))
    files["gray32-int.tif"] = tiff(16, 16, 32, 1, 1, signed, extra_tags=[(SAMPLE_FORMAT, SHORT, [2])])
    pillow = Image.open(io.BytesIO(files["gray32-int.tif"]))
    check(pillow.mode == "I" and pillow.getpixel((1, 0)) == 1 << 23 | 1 << 15 | 1 << 7, "Pillow's decode of gray32-int.tif")


# ---------------------------------------------------------------------------
# CIELab and ICCLab
# ---------------------------------------------------------------------------

D50 = (0.9642, 1.0, 0.8249)
SRGB_TO_XYZ = ((0.4124, 0.3576, 0.1805), (0.2126, 0.7152, 0.0722), (0.0193, 0.1192, 0.9505))
BRADFORD = ((0.8951, 0.2664, -0.1614), (-0.7502, 1.7135, 0.0367), (0.0389, -0.0685, 1.0296))


def mat_vec(m, v):
    return [sum(m[r][c] * v[c] for c in range(3)) for r in range(3)]


def mat_inv(m):
    (a, b, c), (d, e, f), (g, h, i) = m
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return [[(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det]]


def srgb_to_lab(rgb) -> tuple[float, float, float]:
    """8-bit sRGB -> linear -> XYZ (D65) -> Bradford to D50 -> CIELab (D50 white)."""
    linear = [(v / 255) / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in rgb]
    xyz = mat_vec(SRGB_TO_XYZ, linear)
    white65 = mat_vec(SRGB_TO_XYZ, [1, 1, 1])
    source, target = mat_vec(BRADFORD, white65), mat_vec(BRADFORD, D50)
    cone = mat_vec(BRADFORD, xyz)
    adapted = mat_vec(mat_inv(BRADFORD), [cone[k] * target[k] / source[k] for k in range(3)])

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
    fx, fy, fz = (f(adapted[k] / D50[k]) for k in range(3))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def lab_fixtures(files: dict[str, bytes]) -> None:
    width, height = 16, 12
    colours = [(17 * x, 23 * y, (7 * x + 13 * y) % 256) for y in range(height) for x in range(width)]
    labs = [srgb_to_lab(c) for c in colours]

    def clamp(v, low, high):
        return min(high, max(low, round(v)))
    cielab16, icclab16, icclab8 = [], [], []
    for lightness, a, b in labs:
        l16 = clamp(lightness * 65535 / 100, 0, 65535)
        a16, b16 = clamp(a * 256, -32768, 32767), clamp(b * 256, -32768, 32767)
        cielab16 += [l16, a16 & 0xFFFF, b16 & 0xFFFF]
        icclab16 += [l16, a16 + 32768, b16 + 32768]
        icclab8 += [clamp(lightness * 255 / 100, 0, 255), clamp(a, -128, 127) + 128, clamp(b, -128, 127) + 128]
    files["lab16-cielab.tif"] = tiff(width, height, 16, 3, 8, struct.pack(f"<{len(cielab16)}H", *cielab16))
    files["lab16-icclab.tif"] = tiff(width, height, 16, 3, 9, struct.pack(f"<{len(icclab16)}H", *icclab16))
    files["lab8-icclab.tif"] = tiff(width, height, 8, 3, 9, bytes(icclab8))


# ---------------------------------------------------------------------------
# PNG
# ---------------------------------------------------------------------------

def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    chunks, at = [], 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunks.append((kind, data[at + 8:at + 8 + length]))
        at += 12 + length
    return chunks


def gray16_gamma_fixture(files: dict[str, bytes]) -> None:
    width, height = 64, 32
    values = [i if i < 1024 else (i - 1024) * 64 + 63 for i in range(width * height)]
    check(values[-1] == 65535, "the ramp ends at white")
    raw = b"".join(b"\0" + struct.pack(f">{width}H", *values[y * width:(y + 1) * width]) for y in range(height))
    files["gray16-gamma25.png"] = (
        b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 0, 0, 0, 0))
        + png_chunk(b"gAMA", struct.pack(">I", 250000)) + png_chunk(b"IDAT", zlib.compress(raw, 9))
        + png_chunk(b"IEND", b""))


def damaged_png_fixtures(files: dict[str, bytes]) -> None:
    source = (FIXTURES / "png-rgb-8.png").read_bytes()
    chunks = png_chunks(source)
    header = dict(chunks)[b"IHDR"]
    width, height, depth, colour_type = struct.unpack(">IIBB", header[:10])
    check((depth, colour_type) == (8, 2), "png-rgb-8.png is 8-bit RGB")
    raw = bytearray(zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT")))
    stride = 1 + width * 3
    check(len(raw) == stride * height, "png-rgb-8.png inflates to its rows")
    signature_and_header = source[:8] + png_chunk(b"IHDR", header)

    damaged = bytearray(raw)
    damaged[30 * stride] = 16  # no such filter type
    stream = zlib.compress(bytes(damaged), 9)
    short = len(stream) - 600
    files["png-filter-damaged.png"] = (
        signature_and_header + struct.pack(">I", short) + b"IDAT" + stream)  # no CRC of its own, no IEND
    check(zlib.decompress(stream) == bytes(damaged), "the damaged stream inflates whole")

    idat = png_chunk(b"IDAT", zlib.compress(bytes(raw), 9))
    files["png-idat-crc.png"] = signature_and_header + idat[:-4] + bytes(b ^ 0xFF for b in idat[-4:]) + png_chunk(b"IEND", b"")
    files["png-trailing-junk.png"] = signature_and_header + idat + b"\xff\xff\xff\xff" + bytes(range(60))
    for name in ("png-idat-crc.png", "png-trailing-junk.png"):
        image = Image.open(io.BytesIO(files[name]))
        check(image.size == (width, height), f"{name} keeps its header")


# ---------------------------------------------------------------------------
# GIF
# ---------------------------------------------------------------------------

def gif_fixture(files: dict[str, bytes]) -> None:
    source = (FIXTURES / "gif-single.gif").read_bytes()
    flags = source[10]
    at = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    while source[at] == 0x21:  # extensions: label, then sub-blocks
        at += 2
        while source[at]:
            at += source[at] + 1
        at += 1
    check(source[at] == 0x2C, "gif-single.gif has an image descriptor")
    image_flags = source[at + 9]
    check(image_flags & 0x40 != 0, "gif-single.gif is interlaced")
    at += 10 + (3 << ((image_flags & 7) + 1) if image_flags & 0x80 else 0) + 1  # descriptor, table, code size
    start, total = at, 0
    while source[at]:
        total += source[at]
        at += source[at] + 1
    # Cut where 40 % of the LZW bytes have been read, inside a sub-block.
    cut, read = start, 0
    while read + source[cut] < total * 2 // 5:
        read += source[cut]
        cut += source[cut] + 1
    files["gif-cut.gif"] = source[:cut + 1 + (total * 2 // 5 - read)]


def lzw_gif(frame_width: int, frame_height: int, indices: bytes, palette: bytes, code_size: int) -> bytes:
    """A GIF89a of one non-interlaced frame whose LZW data starts at `code_size` (9-11 are what giflib refuses:
    the codes then start at 10-12 bits), encoded as GIFENCOD does it: a clear first and whenever the table is
    full, the code width growing as the next entry needs it."""
    clear, end = 1 << code_size, (1 << code_size) + 1
    accumulator, bit_count, out = 0, 0, bytearray()

    def emit(code: int, bits: int) -> None:
        nonlocal accumulator, bit_count
        accumulator |= code << bit_count
        bit_count += bits
        while bit_count >= 8:
            out.append(accumulator & 0xFF)
            accumulator >>= 8
            bit_count -= 8

    def reset():
        return {bytes([i]): i for i in range(256)}, code_size + 1, clear + 2
    table, bits, next_code = reset()
    emit(clear, bits)
    string = b""
    for index in indices:
        extended = string + bytes([index])
        if extended in table:
            string = extended
            continue
        emit(table[string], bits)
        if next_code >= 1 << bits and bits < 12:
            bits += 1
        if next_code < 4096:
            table[extended] = next_code
            next_code += 1
        else:
            emit(clear, bits)
            table, bits, next_code = reset()
        string = bytes([index])
    emit(table[string], bits)
    emit(end, bits)
    if bit_count:
        out.append(accumulator & 0xFF)
    blocks = b"".join(bytes([len(out[i:i + 255])]) + out[i:i + 255] for i in range(0, len(out), 255)) + b"\0"
    check(len(palette) == 768, "a 256-colour table")
    screen = struct.pack("<HHBBB", frame_width, frame_height, 0xF7, 0, 0)
    descriptor = b"," + struct.pack("<HHHHB", 0, 0, frame_width, frame_height, 0)
    return b"GIF89a" + screen + palette + descriptor + bytes([code_size]) + blocks + b";"


def wide_code_gif_fixtures(files: dict[str, bytes]) -> None:
    image = Image.open(FIXTURES / "gif-single.gif")
    image.load()
    check(image.mode == "P", "gif-single.gif is a palette image")
    width, height = image.size
    palette = bytes(image.getpalette()[:768]).ljust(768, b"\0")
    indices = image.tobytes()
    files["gif-lzw9.gif"] = lzw_gif(width, height, indices, palette, 9)
    # Tiled 2 x 2, so that the 12-bit table fills and is cleared along the way.
    tiled = b"".join(indices[y % height * width:(y % height + 1) * width] * 2 for y in range(2 * height))
    files["gif-lzw11.gif"] = lzw_gif(2 * width, 2 * height, tiled, palette, 11)
    for name, expected in (("gif-lzw9.gif", indices), ("gif-lzw11.gif", tiled)):
        check(Image.open(io.BytesIO(files[name])).tobytes() == expected, f"Pillow's decode of {name}")


def main() -> None:
    check(Image.__version__ == "13.0.0", f"Pillow 13.0.0 expected, found {Image.__version__}")
    files: dict[str, bytes] = {}
    cmyk_fixtures(files)
    gray32_fixtures(files)
    lab_fixtures(files)
    gray16_gamma_fixture(files)
    damaged_png_fixtures(files)
    gif_fixture(files)
    wide_code_gif_fixtures(files)
    OUT.mkdir(parents=True, exist_ok=True)
    for stale in OUT.iterdir():
        stale.unlink()
    for name, data in sorted(files.items()):
        (OUT / name).write_bytes(data)
        print(f"{len(data):8d}  {name}")
    (OUT / "README.md").write_text(README)
    total = sum(p.stat().st_size for p in OUT.iterdir())
    check(total < 256 * 1024, f"corpus fixtures too large: {total}")
    print(f"{len(files)} fixtures, {total} bytes")


if __name__ == "__main__":
    main()
