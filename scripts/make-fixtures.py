#!/usr/bin/env python3
# requires: pip install pillow==13.0.0 pillow-heif==1.8.1
"""Generate Tessera's image decoding test fixtures.

Run from anywhere:  python3 scripts/make-fixtures.py

Writes into Tests/Fixtures/ (relative to the repository root):
  * the fixture files themselves,
  * reference/<fixture-file-name>.pam  -- Pillow's decode of every decodable
    raster fixture as a binary PAM (P7), pixels as stored (no EXIF rotation),
  * manifest.json and README.md.

The script is deterministic: all pseudo-random content uses fixed seeds, no
timestamps are written, and every file is (re)generated from scratch, so a
re-run reproduces byte-identical files (given the pinned library versions).

Variants that Pillow cannot write (2/4-bit grayscale PNG, 16-bit RGB/RGBA PNG,
Adam7 interlaced PNG, tiled TIFF, EXIF blocks with an IFD1 thumbnail, broken
files, the decompression bomb) are written by hand with struct + zlib.
Every file is parsed back and checked (container structure with small
hand-written parsers, pixels against the source data for lossless formats).
"""

import io
import json
import math
import random
import struct
import sys
import zlib
from pathlib import Path

import PIL
from PIL import Image, ImageDraw, ImageOps

import pillow_heif

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Tests" / "Fixtures"
REF = OUT / "reference"

EXPECTED_VERSIONS = {"pillow": "13.0.0", "pillow-heif": "1.8.1"}

MANIFEST = []  # list of manifest entries, in creation order
EXPECTED = {}  # file name -> (tupltype, width, height, bytes) for lossless fixtures
APPROX = {}  # file name -> (tupltype, width, height, bytes, max mean abs error) for lossy

# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def clamp8(v):
    v = int(round(v))
    return 0 if v < 0 else 255 if v > 255 else v


def write(name, data):
    (OUT / name).write_bytes(data)
    return data


def image_bytes(im, path_format, **kw):
    buf = io.BytesIO()
    im.save(buf, path_format, **kw)
    return buf.getvalue()


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


TUPLTYPES = {
    "GRAYSCALE": 1,
    "GRAYSCALE_ALPHA": 2,
    "RGB": 3,
    "RGB_ALPHA": 4,
}


def pam_bytes(tupltype, w, h, data):
    depth = TUPLTYPES[tupltype]
    check(len(data) == w * h * depth, "PAM data size mismatch")
    header = (
        f"P7\nWIDTH {w}\nHEIGHT {h}\nDEPTH {depth}\nMAXVAL 255\n"
        f"TUPLTYPE {tupltype}\nENDHDR\n"
    ).encode("ascii")
    return header + bytes(data)


def read_pam(data):
    end = data.index(b"ENDHDR\n") + len(b"ENDHDR\n")
    lines = data[:end].decode("ascii").split("\n")
    check(lines[0] == "P7", "PAM magic")
    fields = dict(line.split(" ", 1) for line in lines[1:] if " " in line)
    w, h, d = int(fields["WIDTH"]), int(fields["HEIGHT"]), int(fields["DEPTH"])
    check(int(fields["MAXVAL"]) == 255, "PAM maxval")
    check(TUPLTYPES[fields["TUPLTYPE"]] == d, "PAM tupltype/depth")
    body = data[end:]
    check(len(body) == w * h * d, "PAM body size")
    return fields["TUPLTYPE"], w, h, body


def mode_tupltype(mode):
    return {"L": "GRAYSCALE", "LA": "GRAYSCALE_ALPHA", "RGB": "RGB", "RGBA": "RGB_ALPHA"}[mode]


def expect_image(name, im, ignore_hidden_colour=False):
    """Record exact expected decoded pixels from a Pillow image in L/LA/RGB/RGBA.
    ignore_hidden_colour: the colour of fully transparent pixels may differ
    (encoders are free to change it), alpha and all visible pixels must match."""
    EXPECTED[name] = (mode_tupltype(im.mode), im.width, im.height, im.tobytes(), ignore_hidden_colour)


def same_pixels(tupltype, expected, actual, ignore_hidden_colour):
    if not ignore_hidden_colour:
        return expected == actual
    d = TUPLTYPES[tupltype]
    check(tupltype.endswith("ALPHA") and len(expected) == len(actual), "masked comparison")
    for i in range(0, len(expected), d):
        e, a = expected[i:i + d], actual[i:i + d]
        if e[-1] != a[-1] or (e[-1] != 0 and e != a):
            return False
    return True


def approx_image(name, im, max_mae):
    APPROX[name] = (mode_tupltype(im.mode), im.width, im.height, im.tobytes(), max_mae)


# ---------------------------------------------------------------------------
# Content generators (natural looking: smooth gradients + shapes + noise,
# deliberately without any mirror symmetry)
# ---------------------------------------------------------------------------


def natural_rgb(w, h, seed, noise=6, variant=0):
    rng = random.Random(seed)
    ph = rng.uniform(0, math.tau)
    buf = bytearray(w * h * 3)
    for y in range(h):
        fy = y / max(1, h - 1)
        for x in range(w):
            fx = x / max(1, w - 1)
            r = 30 + 190 * fx + 18 * math.sin(6.0 * fy + ph)
            g = 20 + 160 * fy + 40 * fx * fy
            b = 200 - 120 * fx * (1 - fy) + 25 * math.cos(9.0 * fx + 4.0 * fy + variant)
            i = (y * w + x) * 3
            buf[i] = clamp8(r)
            buf[i + 1] = clamp8(g)
            buf[i + 2] = clamp8(b)
    im = Image.frombytes("RGB", (w, h), bytes(buf))
    d = ImageDraw.Draw(im)

    def P(fx, fy):
        return (int(round(fx * (w - 1))), int(round(fy * (h - 1))))

    shift = 0.08 * variant
    # big warm block in the top-left corner
    d.rectangle([P(0.05, 0.07), P(0.38, 0.36)], fill=(235, 200, 40))
    # blue ellipse lower right (moves between animation variants)
    d.ellipse([P(0.52 - shift, 0.45), P(0.90 - shift, 0.90)], fill=(40, 90, 210))
    # red triangle lower left
    d.polygon([P(0.08, 0.95), P(0.42, 0.52), P(0.50, 0.97)], fill=(200, 30, 60))
    # light diagonal stroke upper right
    d.line([P(0.58, 0.08), P(0.96, 0.32)], fill=(245, 245, 240), width=max(1, w // 40))
    if noise:
        # mostly luminance noise (same offset on all channels) plus a little
        # per-channel chroma noise, like a camera sensor
        data = bytearray(im.tobytes())
        for i in range(0, len(data), 3):
            common = rng.randint(-noise, noise)
            for c in range(3):
                data[i + c] = clamp8(data[i + c] + common + rng.randint(-2, 2))
        im = Image.frombytes("RGB", (w, h), bytes(data))
    return im


def natural_alpha(w, h):
    """Alpha plane with opaque, fully transparent and graded regions."""
    a = bytearray(w * h)
    cx, cy, r = 0.68 * w, 0.30 * h, 0.20 * min(w, h)
    for y in range(h):
        for x in range(w):
            if x < w // 4:
                v = 255
            elif (x - cx) ** 2 + (y - cy) ** 2 < r * r:
                v = 0
            else:
                fx = (x - w // 4) / max(1, w - w // 4)
                v = clamp8(255 - 200 * fx + 40 * (y / max(1, h - 1)))
            a[y * w + x] = v
    return Image.frombytes("L", (w, h), bytes(a))


def natural_rgba(w, h, seed, noise=6):
    im = natural_rgb(w, h, seed, noise)
    im.putalpha(natural_alpha(w, h))
    return im


def natural_gray(w, h, seed, noise=6):
    return natural_rgb(w, h, seed, noise).convert("L")


def upright_image():
    """The upright image U used for all orientation fixtures (48x32, RGB).

    Clearly asymmetric: big red block in the top-left corner, horizontal +
    vertical gradient background, a green bar along the bottom-left, a blue
    square on the right, a white dot near the top-right corner.
    """
    w, h = 48, 32
    buf = bytearray(w * h * 3)
    for y in range(h):
        for x in range(w):
            i = (y * w + x) * 3
            buf[i] = clamp8(60 + 3 * x)
            buf[i + 1] = clamp8(50 + 5 * y)
            buf[i + 2] = clamp8(200 - 2 * x - 2 * y)
    im = Image.frombytes("RGB", (w, h), bytes(buf))
    d = ImageDraw.Draw(im)
    d.rectangle([0, 0, 19, 13], fill=(230, 20, 20))  # top-left red block
    d.rectangle([2, 26, 27, 29], fill=(20, 200, 40))  # green bar bottom-left
    d.rectangle([34, 12, 43, 21], fill=(20, 40, 230))  # blue square right
    d.rectangle([42, 2, 45, 5], fill=(255, 255, 255))  # white dot top-right
    return im


# EXIF orientation N: display = DISPLAY[N](stored); we store INVERSE[N](U).
T = Image.Transpose
DISPLAY = {1: None, 2: T.FLIP_LEFT_RIGHT, 3: T.ROTATE_180, 4: T.FLIP_TOP_BOTTOM,
           5: T.TRANSPOSE, 6: T.ROTATE_270, 7: T.TRANSVERSE, 8: T.ROTATE_90}
INVERSE = {1: None, 2: T.FLIP_LEFT_RIGHT, 3: T.ROTATE_180, 4: T.FLIP_TOP_BOTTOM,
           5: T.TRANSPOSE, 6: T.ROTATE_90, 7: T.TRANSVERSE, 8: T.ROTATE_270}


def apply_t(im, t):
    return im.copy() if t is None else im.transpose(t)


def stored_for_orientation(u, n):
    """Stored pixels for orientation n, built straight from the EXIF definition
    of the 0th row / 0th column and cross-checked with Pillow's transposes."""
    W, H = u.size
    src = u.load()
    if n <= 4:
        sw, sh = W, H
    else:
        sw, sh = H, W
    # Where stored pixel (sx, sy) is in the upright image, by where orientation n puts row 0 and column 0.
    upright_of = {
        1: lambda sx, sy: (sx, sy),  # row0 top, col0 left
        2: lambda sx, sy: (W - 1 - sx, sy),  # row0 top, col0 right
        3: lambda sx, sy: (W - 1 - sx, H - 1 - sy),  # row0 bottom, col0 right
        4: lambda sx, sy: (sx, H - 1 - sy),  # row0 bottom, col0 left
        5: lambda sx, sy: (sy, sx),  # row0 left, col0 top
        6: lambda sx, sy: (W - 1 - sy, sx),  # row0 right, col0 top
        7: lambda sx, sy: (W - 1 - sy, H - 1 - sx),  # row0 right, col0 bottom
        8: lambda sx, sy: (sy, H - 1 - sx),  # row0 left, col0 bottom
    }[n]
    out = Image.new("RGB", (sw, sh))
    dst = out.load()
    for sy in range(sh):
        for sx in range(sw):
            dst[sx, sy] = src[upright_of(sx, sy)]
    check(out.tobytes() == apply_t(u, INVERSE[n]).tobytes(), f"inverse transform {n}")
    check(apply_t(out, DISPLAY[n]).tobytes() == u.tobytes(), f"display transform {n}")
    return out


# ---------------------------------------------------------------------------
# EXIF (hand-built TIFF structure, so byte order and IFD1 are under control)
# ---------------------------------------------------------------------------


def build_exif(orientation=None, byteorder="II", thumbnail=None, prefix=True):
    e = "<" if byteorder == "II" else ">"
    out = bytearray(b"II*\x00" if byteorder == "II" else b"MM\x00*")
    out += struct.pack(e + "I", 8)

    def short_entry(tag, value):
        return struct.pack(e + "HHI", tag, 3, 1) + struct.pack(e + "HH", value, 0)

    def long_entry(tag, value):
        return struct.pack(e + "HHII", tag, 4, 1, value)

    ifd0 = []
    if orientation is not None:
        ifd0.append(short_entry(0x0112, orientation))
    ifd0_size = 2 + 12 * len(ifd0) + 4
    ifd1_off = 8 + ifd0_size if thumbnail is not None else 0
    out += struct.pack(e + "H", len(ifd0)) + b"".join(ifd0) + struct.pack(e + "I", ifd1_off)
    if thumbnail is not None:
        n1 = 3
        thumb_off = ifd1_off + 2 + 12 * n1 + 4
        out += struct.pack(e + "H", n1)
        out += short_entry(0x0103, 6)  # Compression = old-style JPEG (thumbnail)
        out += long_entry(0x0201, thumb_off)  # JPEGInterchangeFormat
        out += long_entry(0x0202, len(thumbnail))  # JPEGInterchangeFormatLength
        out += struct.pack(e + "I", 0)
        check(len(out) == thumb_off, "exif layout")
        out += thumbnail
    return (b"Exif\x00\x00" if prefix else b"") + bytes(out)


def parse_exif_tiff(data):
    """Minimal parser: returns (byteorder, ifd0 dict, ifd1 dict). Values are first value."""
    if data.startswith(b"Exif\x00\x00"):
        data = data[6:]
    bo = data[:2].decode()
    e = "<" if bo == "II" else ">"
    check(struct.unpack(e + "H", data[2:4])[0] == 42, "exif magic")
    sizes = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8}

    def ifd(off):
        n = struct.unpack(e + "H", data[off:off + 2])[0]
        d = {}
        for i in range(n):
            tag, typ, cnt = struct.unpack(e + "HHI", data[off + 2 + 12 * i: off + 10 + 12 * i])
            field = data[off + 10 + 12 * i: off + 14 + 12 * i]
            if typ == 3:
                d[tag] = struct.unpack(e + "H", field[:2])[0]
            elif typ == 4:
                d[tag] = struct.unpack(e + "I", field)[0]
            else:
                d[tag] = (typ, cnt, sizes.get(typ, 1))
        nxt = struct.unpack(e + "I", data[off + 2 + 12 * n: off + 6 + 12 * n])[0]
        return d, nxt

    first = struct.unpack(e + "I", data[4:8])[0]
    ifd0, nxt = ifd(first)
    ifd1 = ifd(nxt)[0] if nxt else {}
    return bo, ifd0, ifd1, data


# ---------------------------------------------------------------------------
# PNG: hand-written encoder + chunk parser
# ---------------------------------------------------------------------------

PNG_SIG = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png_chunk(typ, data):
    return struct.pack(">I", len(data)) + typ + data + struct.pack(">I", zlib.crc32(typ + data) & 0xFFFFFFFF)


def pack_samples(samples, bit_depth):
    if bit_depth == 8:
        return bytes(samples)
    if bit_depth == 16:
        return struct.pack(f">{len(samples)}H", *samples)
    out = bytearray()
    per = 8 // bit_depth
    for i in range(0, len(samples), per):
        byte = 0
        group = samples[i:i + per]
        for j, s in enumerate(group):
            byte |= (s & ((1 << bit_depth) - 1)) << (8 - bit_depth * (j + 1))
        out.append(byte)
    return bytes(out)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_row(ft, row, prev, bpp):
    out = bytearray(len(row) + 1)
    out[0] = ft
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if ft == 0:
            v = x
        elif ft == 1:
            v = x - a
        elif ft == 2:
            v = x - b
        elif ft == 3:
            v = x - ((a + b) >> 1)
        else:
            v = x - paeth(a, b, c)
        out[i + 1] = v & 0xFF
    return bytes(out)


def encode_png(width, height, color_type, bit_depth, samples, palette=None, trns=None,
               interlace=False, pre_idat_chunks=()):
    """samples: flat row-major list of integer samples (channels per pixel per color type).
    Rows cycle through all five filter types so decoders' unfiltering is exercised."""
    ch = CHANNELS[color_type]
    bpp = max(1, ch * bit_depth // 8)
    raw = bytearray()

    def encode_pass(xs, ys, dx, dy, pass_index):
        pw = (width - xs + dx - 1) // dx if width > xs else 0
        ph = (height - ys + dy - 1) // dy if height > ys else 0
        if pw == 0 or ph == 0:
            return
        prev = bytes(len(pack_samples([0] * (pw * ch), bit_depth)))
        for r in range(ph):
            y = ys + r * dy
            row = []
            for c in range(pw):
                x = xs + c * dx
                base = (y * width + x) * ch
                row.extend(samples[base:base + ch])
            packed = pack_samples(row, bit_depth)
            raw.extend(filter_row((r + pass_index) % 5, packed, prev, bpp))
            prev = packed

    if interlace:
        for p, (xs, ys, dx, dy) in enumerate(ADAM7):
            encode_pass(xs, ys, dx, dy, p)
    else:
        encode_pass(0, 0, 1, 1, 0)
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 1 if interlace else 0)
    out = bytearray(PNG_SIG)
    out += png_chunk(b"IHDR", ihdr)
    for typ, data in pre_idat_chunks:
        out += png_chunk(typ, data)
    if palette is not None:
        out += png_chunk(b"PLTE", bytes(palette))
    if trns is not None:
        out += png_chunk(b"tRNS", bytes(trns))
    out += png_chunk(b"IDAT", zlib.compress(bytes(raw), 9))
    out += png_chunk(b"IEND", b"")
    return bytes(out)


def png_chunks(data):
    check(data.startswith(PNG_SIG), "PNG signature")
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        typ = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        check(crc == zlib.crc32(typ + body) & 0xFFFFFFFF, f"CRC of {typ}")
        chunks.append((typ, body, pos))
        pos += 12 + length
    return chunks


def png_info(data):
    chunks = png_chunks(data)
    check(chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND", "PNG chunk order")
    w, h, bd, ct, _, _, il = struct.unpack(">IIBBBBB", chunks[0][1])
    types = [c[0] for c in chunks]
    first_idat = types.index(b"IDAT")
    for t in (b"PLTE", b"tRNS", b"eXIf"):
        if t in types:
            check(types.index(t) < first_idat, f"{t} must precede IDAT")
    return {
        "width": w, "height": h, "bitDepth": bd, "colorType": ct, "interlace": il,
        "chunks": {t: b for t, b, _ in chunks if t != b"IDAT"},
        "types": types,
    }


# ---------------------------------------------------------------------------
# Other container parsers used for verification
# ---------------------------------------------------------------------------


def jpeg_info(data):
    check(data[:2] == b"\xff\xd8", "JPEG SOI")
    pos, info = 2, {"app": []}
    while pos < len(data):
        check(data[pos] == 0xFF, "JPEG marker sync")
        m = data[pos + 1]
        if m == 0xFF:
            pos += 1
            continue
        if m in (0xD8, 0x01) or 0xD0 <= m <= 0xD7:
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2:pos + 4])
        body = data[pos + 4:pos + 2 + length]
        if 0xE0 <= m <= 0xEF:
            info["app"].append((m, body))
        if 0xC0 <= m <= 0xCF and m not in (0xC4, 0xC8, 0xCC):
            prec, h, w, nc = struct.unpack(">BHHB", body[:6])
            comps = [(body[6 + 3 * i], body[7 + 3 * i] >> 4, body[7 + 3 * i] & 15) for i in range(nc)]
            info.update(sof=m, precision=prec, width=w, height=h, components=comps)
        if m == 0xDA:
            break
        pos += 2 + length
    return info


def riff_chunks(data):
    check(data[:4] == b"RIFF" and data[8:12] == b"WEBP", "RIFF/WEBP header")
    check(struct.unpack("<I", data[4:8])[0] + 8 == len(data), "RIFF size")
    pos, chunks = 12, []
    while pos < len(data):
        fourcc = data[pos:pos + 4]
        (size,) = struct.unpack("<I", data[pos + 4:pos + 8])
        chunks.append((fourcc, data[pos + 8:pos + 8 + size]))
        pos += 8 + size + (size & 1)
    return chunks


def gif_info(data):
    check(data[:6] in (b"GIF87a", b"GIF89a"), "GIF signature")
    w, h, packed = struct.unpack("<HHB", data[6:11])
    pos = 13
    if packed & 0x80:
        pos += 3 * (2 << (packed & 7))
    frames, gce = [], None

    def skip_sub_blocks(p):
        while data[p] != 0:
            p += data[p] + 1
        return p + 1

    while True:
        b = data[pos]
        if b == 0x3B:
            break
        if b == 0x21:
            label = data[pos + 1]
            if label == 0xF9:
                gpacked = data[pos + 3]
                gce = {"transparent": bool(gpacked & 1), "disposal": (gpacked >> 2) & 7,
                       "index": data[pos + 6]}
            pos = skip_sub_blocks(pos + 2)
        elif b == 0x2C:
            left, top, fw, fh, ipacked = struct.unpack("<HHHHB", data[pos + 1:pos + 10])
            pos += 10
            if ipacked & 0x80:
                pos += 3 * (2 << (ipacked & 7))
            pos = skip_sub_blocks(pos + 1)  # skip LZW min code size
            frames.append({"rect": (left, top, fw, fh), "interlaced": bool(ipacked & 0x40),
                           "gce": gce})
            gce = None
        else:
            raise AssertionError(f"unexpected GIF block {b:#x}")
    return {"width": w, "height": h, "frames": frames}


def tiff_info(data):
    bo = data[:2]
    e = "<" if bo == b"II" else ">"
    check(struct.unpack(e + "H", data[2:4])[0] == 42, "TIFF magic")
    (off,) = struct.unpack(e + "I", data[4:8])
    (n,) = struct.unpack(e + "H", data[off:off + 2])
    fmt = {1: "B", 2: "c", 3: "H", 4: "I", 5: "II", 7: "B", 16: "Q"}
    size = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 16: 8}
    tags = {}
    for i in range(n):
        ent = data[off + 2 + 12 * i: off + 14 + 12 * i]
        tag, typ, cnt = struct.unpack(e + "HHI", ent[:8])
        nbytes = size[typ] * cnt
        if nbytes <= 4:
            raw = ent[8:8 + nbytes]
        else:
            (voff,) = struct.unpack(e + "I", ent[8:12])
            raw = data[voff:voff + nbytes]
        if typ == 2:
            tags[tag] = raw
        elif typ == 5:
            tags[tag] = struct.unpack(e + "I" * (2 * cnt), raw)
        else:
            tags[tag] = struct.unpack(e + fmt[typ] * cnt, raw)
    return {"byteorder": bo.decode(), "tags": tags}


def isobmff_props(data):
    """Find ispe (size) and pixi (bit depth) boxes by scanning; good enough for
    single-image HEIF/AVIF files written by libheif/libavif."""
    props = {}
    i = data.find(b"ispe")
    if i > 0:
        props["ispe"] = struct.unpack(">II", data[i + 8:i + 16])
    i = data.find(b"pixi")
    if i > 0:
        nch = data[i + 8]
        props["pixi"] = list(data[i + 9:i + 9 + nch])
    props["brand"] = data[8:12]
    props["clap"] = b"clap" in data
    props["auxC_alpha"] = b"auxiliary:alpha" in data or b"urn:mpeg:hevc:2015:auxid:1" in data
    return props


# ---------------------------------------------------------------------------
# Manifest helpers
# ---------------------------------------------------------------------------

TOLERANCE = {"jpeg": "jpeg", "png": "exact", "gif": "exact", "tiff": "exact",
             "heic": "heif", "avif": "heif", "svg": "exact"}


def add(file, fmt, width, height, *, orientation=1, has_alpha=False, bits=8, color="rgb",
        frames=1, progressive=False, reference=True, tolerance=None, error=None):
    if tolerance is None:
        tolerance = TOLERANCE.get(fmt)
    entry = {
        "file": file,
        "format": fmt,
        "width": width,
        "height": height,
        "orientation": orientation,
        "hasAlpha": has_alpha,
        "bitsPerComponent": bits,
        "colorModel": color,
        "frameCount": frames,
        "progressive": progressive,
        "reference": f"reference/{file}.pam" if reference else None,
        "tolerance": tolerance,
    }
    if error is not None:
        entry["expectedError"] = error
    MANIFEST.append(entry)
    return entry


# ---------------------------------------------------------------------------
# JPEG
# ---------------------------------------------------------------------------


def make_jpeg():
    src = natural_rgb(64, 48, seed=101)

    data = write("jpeg-baseline.jpg", image_bytes(src, "JPEG", quality=88, subsampling=2))
    info = jpeg_info(data)
    check(info["sof"] == 0xC0 and info["components"][0][1:] == (2, 2)
          and all(c[1:] == (1, 1) for c in info["components"][1:]), "baseline 4:2:0")
    add("jpeg-baseline.jpg", "jpeg", info["width"], info["height"], bits=info["precision"])
    approx_image("jpeg-baseline.jpg", src, 12)

    data = write("jpeg-progressive.jpg",
                 image_bytes(src, "JPEG", quality=88, subsampling=2, progressive=True))
    info = jpeg_info(data)
    check(info["sof"] == 0xC2, "progressive SOF2")
    add("jpeg-progressive.jpg", "jpeg", info["width"], info["height"], bits=info["precision"],
        progressive=True)
    approx_image("jpeg-progressive.jpg", src, 12)

    # Restart markers (DRI), for JPEGs entered in the middle (JPEGRestartSplice): 4:2:0 with an
    # interval per MCU row; 4:2:0 with an interval of 7 MCUs (30 a row: every 7th MCU row starts
    # one); 4:4:4 with an interval of 3 MCU rows. No reference: the tests compare windows with the
    # file's own whole decode.
    tall = natural_rgb(480, 400, seed=103)
    for name, options in [("jpeg-restart-rows.jpg", dict(subsampling=2, restart_marker_rows=1)),
                          ("jpeg-restart-blocks.jpg", dict(subsampling=2, restart_marker_blocks=7)),
                          ("jpeg-restart-444.jpg", dict(subsampling=0, restart_marker_rows=3))]:
        data = write(name, image_bytes(tall, "JPEG", quality=75, **options))
        info = jpeg_info(data)
        check(info["sof"] == 0xC0 and b"\xff\xdd" in data and b"\xff\xd7" in data, f"{name}: restart markers")
        add(name, "jpeg", info["width"], info["height"], bits=info["precision"], reference=False)

    gray = natural_gray(64, 48, seed=102)
    data = write("jpeg-grayscale.jpg", image_bytes(gray, "JPEG", quality=88))
    info = jpeg_info(data)
    check(info["sof"] == 0xC0 and len(info["components"]) == 1, "grayscale JPEG")
    add("jpeg-grayscale.jpg", "jpeg", info["width"], info["height"], color="gray")
    approx_image("jpeg-grayscale.jpg", gray, 6)

    # CMYK with a moderate black component (K = half of the under-colour).
    rgb = natural_rgb(64, 48, seed=103)
    cmyk = bytearray()
    for r, g, b in zip(*(iter(rgb.tobytes()),) * 3):
        k = (255 - max(r, g, b)) // 2
        nk = 255 - k
        cmyk += bytes(clamp8((nk - v) * 255 / nk) for v in (r, g, b)) + bytes([k])
    cmyk_im = Image.frombytes("CMYK", rgb.size, bytes(cmyk))
    data = write("jpeg-cmyk.jpg", image_bytes(cmyk_im, "JPEG", quality=92))
    info = jpeg_info(data)
    check(len(info["components"]) == 4, "CMYK JPEG has 4 components")
    check(any(m == 0xEE and body.startswith(b"Adobe") for m, body in info["app"]), "Adobe APP14")
    add("jpeg-cmyk.jpg", "jpeg", info["width"], info["height"], color="cmyk")
    approx_image("jpeg-cmyk.jpg", cmyk_im.convert("RGB"), 6)

    # Orientation series: stored = inverse transform of U, EXIF tag N.
    u = upright_image()
    write("upright-reference.png", image_bytes(u, "PNG"))
    pi = png_info((OUT / "upright-reference.png").read_bytes())
    check((pi["bitDepth"], pi["colorType"]) == (8, 2), "upright-reference.png is RGB8")
    add("upright-reference.png", "png", 48, 32)
    expect_image("upright-reference.png", u)
    for n in range(1, 9):
        stored = stored_for_orientation(u, n)
        name = f"jpeg-orientation-{n}.jpg"
        # odd N: big-endian (MM) EXIF, even N: little-endian (II) EXIF
        exif = build_exif(orientation=n, byteorder="MM" if n % 2 else "II")
        data = write(name, image_bytes(stored, "JPEG", quality=95, subsampling=0, exif=exif))
        info = jpeg_info(data)
        app1 = [b for m, b in info["app"] if m == 0xE1]
        check(len(app1) == 1 and app1[0] == exif, "orientation APP1 written verbatim")
        check(Image.open(io.BytesIO(data)).getexif().get(0x0112) == n, "Pillow sees orientation")
        # Pillow's own exif_transpose of the decoded file must give U back.
        shown = ImageOps.exif_transpose(Image.open(io.BytesIO(data)))
        check(shown.size == u.size and mean_abs_diff(shown.tobytes(), u.tobytes()) < 4,
              f"orientation {n} round trip")
        add(name, "jpeg", info["width"], info["height"], orientation=n)
        approx_image(name, stored, 4)

    # 640x480 main image with a 160x120 EXIF (IFD1) thumbnail.
    main = natural_rgb(640, 480, seed=104, noise=3)
    thumb = main.resize((160, 120), Image.Resampling.LANCZOS)
    thumb_jpeg = image_bytes(thumb, "JPEG", quality=80)
    exif = build_exif(orientation=1, byteorder="MM", thumbnail=thumb_jpeg)
    check(len(exif) < 65533, "APP1 fits")
    data = write("jpeg-exif-thumbnail.jpg", image_bytes(main, "JPEG", quality=85, exif=exif))
    info = jpeg_info(data)
    app1 = [b for m, b in info["app"] if m == 0xE1]
    check(len(app1) == 1 and app1[0] == exif, "thumbnail APP1 verbatim")
    bo, ifd0, ifd1, tiff = parse_exif_tiff(app1[0])
    check(ifd0[0x0112] == 1 and ifd1[0x0103] == 6, "IFD0/IFD1 tags")
    tdata = tiff[ifd1[0x0201]: ifd1[0x0201] + ifd1[0x0202]]
    check(tdata == thumb_jpeg and Image.open(io.BytesIO(tdata)).size == (160, 120), "thumbnail")
    from PIL import ExifTags
    pil_ifd1 = Image.open(io.BytesIO(data)).getexif().get_ifd(ExifTags.IFD.IFD1)
    check(pil_ifd1.get(0x0202) == len(thumb_jpeg), "Pillow finds IFD1 thumbnail")
    add("jpeg-exif-thumbnail.jpg", "jpeg", info["width"], info["height"])
    approx_image("jpeg-exif-thumbnail.jpg", main, 5)


def mean_abs_diff(a, b):
    check(len(a) == len(b), "length mismatch in comparison")
    return sum(abs(x - y) for x, y in zip(a, b)) / max(1, len(a))


# ---------------------------------------------------------------------------
# PNG
# ---------------------------------------------------------------------------


def png_entry(name, data, *, orientation=1, has_alpha):
    pi = png_info(data)
    ct, bd = pi["colorType"], pi["bitDepth"]
    color = {0: "gray", 4: "gray", 2: "rgb", 6: "rgb", 3: "palette"}[ct]
    add(name, "png", pi["width"], pi["height"], orientation=orientation, has_alpha=has_alpha,
        bits=bd, color=color, progressive=bool(pi["interlace"]))
    return pi


def png_fixture(name, data, kind, label, expected, *, has_alpha):
    """Writes the PNG `name`, records its header, checks its (bit depth, colour type) is `kind`
    and records the pixels it must decode to."""
    pi = png_entry(name, write(name, data), has_alpha=has_alpha)
    check((pi["bitDepth"], pi["colorType"]) == kind, label)
    expect_image(name, expected)


def png_8_and_16(kind, natural, colour_type, seed, *, has_alpha):
    """Writes png-<kind>-8.png through Pillow (content from `seed`) and png-<kind>-16.png by hand
    (content from `seed` + 1), because Pillow cannot write 16-bit RGB or RGBA. The 16-bit samples
    get a random low byte; the pixels expected are their high bytes, as the references have them."""
    im = natural(64, 48, seed=seed)
    png_fixture(f"png-{kind}-8.png", image_bytes(im, "PNG"), (8, colour_type), f"{kind} 8-bit",
                im, has_alpha=has_alpha)

    rng = random.Random(seed + 1)
    base = natural(64, 48, seed=seed + 1).tobytes()
    s16 = [(v << 8) | rng.randrange(256) for v in base]
    png_fixture(f"png-{kind}-16.png", encode_png(64, 48, colour_type, 16, s16), (16, colour_type),
                f"{kind} 16-bit", Image.frombytes(im.mode, (64, 48), bytes(base)), has_alpha=has_alpha)


def png_trns_fixture(name, im, key, colour_type, label):
    """Writes `im` (L or RGB) as an 8-bit PNG whose tRNS chunk makes the colour `key` (as Pillow
    takes it: a number for L, a tuple for RGB) transparent, and expects every pixel of that
    colour to decode with alpha 0 and every other one opaque."""
    samples = key if isinstance(key, tuple) else (key,)
    data = write(name, image_bytes(im, "PNG", transparency=key))
    pi = png_entry(name, data, has_alpha=True)
    check((pi["bitDepth"], pi["colorType"]) == (8, colour_type)
          and pi["chunks"].get(b"tRNS") == struct.pack(f">{len(samples)}H", *samples), label)
    px = im.tobytes()
    with_alpha = bytearray()
    for i in range(0, len(px), len(samples)):
        pixel = px[i:i + len(samples)]
        with_alpha += pixel + bytes([0 if tuple(pixel) == samples else 255])
    expect_image(name, Image.frombytes(im.mode + "A", im.size, bytes(with_alpha)))


def make_png():
    # --- grayscale, low bit depths (odd 61x47 size -> row padding bits) ---
    g = natural_gray(61, 47, seed=201)
    gpx = list(g.tobytes())

    bw = g.point(lambda v: 255 if v >= 128 else 0).convert("1", dither=Image.Dither.NONE)
    png_fixture("png-gray-1.png", image_bytes(bw, "PNG"), (1, 0), "gray 1-bit",
                Image.frombytes("L", g.size, bytes(255 if v >= 128 else 0 for v in gpx)), has_alpha=False)

    for bits, scale in ((2, 85), (4, 17)):
        vals = [v >> (8 - bits) for v in gpx]
        name = f"png-gray-{bits}.png"
        png_fixture(name, encode_png(61, 47, 0, bits, vals), (bits, 0), f"gray {bits}-bit",
                    Image.frombytes("L", g.size, bytes(v * scale for v in vals)), has_alpha=False)

    g8 = natural_gray(64, 48, seed=202)
    png_fixture("png-gray-8.png", image_bytes(g8, "PNG"), (8, 0), "gray 8-bit",
                g8, has_alpha=False)

    rng = random.Random(203)
    g16 = [(v << 8) | rng.randrange(256) for v in natural_gray(64, 48, seed=203).tobytes()]
    im16 = Image.frombytes("I;16", (64, 48), struct.pack(f"<{len(g16)}H", *g16))
    png_fixture("png-gray-16.png", image_bytes(im16, "PNG"), (16, 0), "gray 16-bit",
                Image.frombytes("L", (64, 48), bytes(v >> 8 for v in g16)), has_alpha=False)

    la = Image.merge("LA", (natural_gray(64, 48, seed=204), natural_alpha(64, 48)))
    png_fixture("png-gray-alpha-8.png", image_bytes(la, "PNG"), (8, 4), "gray+alpha 8-bit",
                la, has_alpha=True)

    gt = natural_gray(64, 48, seed=205)
    ImageDraw.Draw(gt).ellipse([36, 6, 58, 26], fill=77)
    png_trns_fixture("png-gray-trns.png", gt, 77, 0, "gray tRNS")

    # --- RGB / RGBA ---
    png_8_and_16("rgb", natural_rgb, 2, 206, has_alpha=False)

    rt = natural_rgb(64, 48, seed=208)
    ImageDraw.Draw(rt).ellipse([34, 4, 60, 28], fill=(255, 0, 255))
    png_trns_fixture("png-rgb-trns.png", rt, (255, 0, 255), 2, "rgb tRNS")

    png_8_and_16("rgba", natural_rgba, 6, 209, has_alpha=True)

    # --- palette 1/2/4/8 bit ---
    for bits in (1, 2, 4, 8):
        size = (61, 47) if bits < 8 else (64, 48)
        p = natural_rgb(*size, seed=211 + bits).quantize(colors=1 << bits)
        name = f"png-palette-{bits}.png"
        data = write(name, image_bytes(p, "PNG", bits=bits))
        pi = png_entry(name, data, has_alpha=False)
        check((pi["bitDepth"], pi["colorType"]) == (bits, 3), f"palette {bits}-bit")
        check(len(pi["chunks"][b"PLTE"]) <= 3 * (1 << bits), "PLTE size")
        expect_image(name, p.convert("RGB"))

    # palette + tRNS with partial alpha; tRNS shorter than PLTE (rest opaque)
    p = natural_rgb(64, 48, seed=216).quantize(colors=16)
    alphas = bytes([255, 0, 128, 64, 200, 32, 255, 96, 160, 224])
    data = write("png-palette-trns.png", image_bytes(p, "PNG", bits=4, transparency=alphas))
    pi = png_entry("png-palette-trns.png", data, has_alpha=True)
    check((pi["bitDepth"], pi["colorType"]) == (4, 3) and pi["chunks"][b"tRNS"] == alphas,
          "palette tRNS")
    pal = p.getpalette()
    out = bytearray()
    for idx in p.tobytes():
        out += bytes(pal[3 * idx:3 * idx + 3]) + bytes([alphas[idx] if idx < len(alphas) else 255])
    expect_image("png-palette-trns.png", Image.frombytes("RGBA", p.size, bytes(out)))

    # --- Adam7 interlaced (hand-written, 61x47 -> every pass partial) ---
    a_rgb = natural_rgb(61, 47, seed=217)
    data = write("png-adam7-rgb-8.png", encode_png(61, 47, 2, 8, list(a_rgb.tobytes()), interlace=True))
    pi = png_entry("png-adam7-rgb-8.png", data, has_alpha=False)
    check((pi["bitDepth"], pi["colorType"], pi["interlace"]) == (8, 2, 1), "adam7 rgb")
    expect_image("png-adam7-rgb-8.png", a_rgb)

    a_rgba = natural_rgba(61, 47, seed=218)
    data = write("png-adam7-rgba-8.png", encode_png(61, 47, 6, 8, list(a_rgba.tobytes()), interlace=True))
    pi = png_entry("png-adam7-rgba-8.png", data, has_alpha=True)
    check((pi["bitDepth"], pi["colorType"], pi["interlace"]) == (8, 6, 1), "adam7 rgba")
    expect_image("png-adam7-rgba-8.png", a_rgba)

    # --- eXIf orientation 6 ---
    stored = stored_for_orientation(upright_image(), 6)
    exif = build_exif(orientation=6, byteorder="MM")
    data = write("png-exif-orientation-6.png", image_bytes(stored, "PNG", exif=exif))
    pi = png_entry("png-exif-orientation-6.png", data, orientation=6, has_alpha=False)
    check(pi["chunks"].get(b"eXIf") == exif[6:], "eXIf chunk holds bare TIFF EXIF")
    check(Image.open(io.BytesIO(data)).getexif().get(0x0112) == 6, "Pillow sees PNG orientation")
    expect_image("png-exif-orientation-6.png", stored)


# ---------------------------------------------------------------------------
# GIF
# ---------------------------------------------------------------------------


def palette_rgb(p):
    return p.convert("RGB")


def make_gif():
    p = natural_rgb(64, 48, seed=301).quantize(colors=256)
    data = write("gif-single.gif", image_bytes(p, "GIF"))
    gi = gif_info(data)
    check(len(gi["frames"]) == 1 and not any(f["gce"] and f["gce"]["transparent"] for f in gi["frames"]),
          "single GIF")
    add("gif-single.gif", "gif", gi["width"], gi["height"], color="palette",
        progressive=gi["frames"][0]["interlaced"])
    expect_image("gif-single.gif", palette_rgb(p))

    # transparency: index 255 is a reserved magenta entry used by a drawn circle
    p = natural_rgb(64, 48, seed=302).quantize(colors=255)
    pal = p.getpalette()[:255 * 3]
    pal += [0] * (255 * 3 - len(pal)) + [255, 0, 255]
    p.putpalette(pal)
    ImageDraw.Draw(p).ellipse([36, 6, 58, 28], fill=255)
    data = write("gif-transparent.gif", image_bytes(p, "GIF", transparency=255))
    gi = gif_info(data)
    check(len(gi["frames"]) == 1 and gi["frames"][0]["gce"]["transparent"], "transparent GIF")
    add("gif-transparent.gif", "gif", gi["width"], gi["height"], has_alpha=True, color="palette",
        progressive=gi["frames"][0]["interlaced"])
    src = p.convert("RGB").tobytes()
    idx = p.tobytes()
    out = bytearray()
    for i, ix in enumerate(idx):
        out += src[3 * i:3 * i + 3] + bytes([0 if ix == 255 else 255])
    EXPECTED["gif-transparent.gif"] = ("RGB_ALPHA", 64, 48, bytes(out), False)

    frames = [natural_rgb(64, 48, seed=303 + i, variant=i).quantize(colors=256) for i in range(3)]
    data = write("gif-animated.gif", image_bytes(
        frames[0], "GIF", save_all=True, append_images=frames[1:], duration=[100, 150, 200],
        loop=0, disposal=1, optimize=False))
    gi = gif_info(data)
    check(len(gi["frames"]) == 3, "3 GIF frames")
    for f in gi["frames"]:
        check(f["rect"] == (0, 0, 64, 48), "every GIF frame covers the full logical screen")
        check(not (f["gce"] and f["gce"]["transparent"]), "no transparency in animated GIF")
    add("gif-animated.gif", "gif", gi["width"], gi["height"], color="palette", frames=3,
        progressive=gi["frames"][0]["interlaced"])
    expect_image("gif-animated.gif", palette_rgb(frames[0]))


# ---------------------------------------------------------------------------
# WebP
# ---------------------------------------------------------------------------


def webp_kind(data):
    chunks = riff_chunks(data)
    ids = [c[0] for c in chunks]
    lossless = b"VP8L" in ids or any(c[0] == b"ANMF" and c[1][16:20] == b"VP8L" for c in chunks)
    return ids, lossless, chunks


def make_webp():
    src = natural_rgb(64, 48, seed=401)
    data = write("webp-lossy.webp", image_bytes(src, "WEBP", quality=85, method=6))
    ids, lossless, _ = webp_kind(data)
    check(ids == [b"VP8 "], f"simple lossy WebP {ids}")
    add("webp-lossy.webp", "webp", 64, 48, tolerance="jpeg")
    approx_image("webp-lossy.webp", src, 11)

    src = natural_rgb(64, 48, seed=402)
    data = write("webp-lossless.webp", image_bytes(src, "WEBP", lossless=True, quality=100, method=6))
    ids, lossless, _ = webp_kind(data)
    check(ids == [b"VP8L"], f"simple lossless WebP {ids}")
    add("webp-lossless.webp", "webp", 64, 48, tolerance="exact")
    expect_image("webp-lossless.webp", src)

    src = natural_rgba(64, 48, seed=403)
    data = write("webp-lossy-alpha.webp", image_bytes(src, "WEBP", quality=85, method=6))
    ids, lossless, _ = webp_kind(data)
    check(ids == [b"VP8X", b"ALPH", b"VP8 "], f"lossy+alpha WebP {ids}")
    add("webp-lossy-alpha.webp", "webp", 64, 48, has_alpha=True, tolerance="jpeg")
    approx_image("webp-lossy-alpha.webp", src, 10)

    frames = [natural_rgba(64, 48, seed=404 + i) for i in range(3)]
    for i, f in enumerate(frames):  # move a shape so frames really differ
        ImageDraw.Draw(f).rectangle([4 + 16 * i, 30, 14 + 16 * i, 44], fill=(255, 255, 255, 255))
    data = write("webp-animated.webp", image_bytes(
        frames[0], "WEBP", save_all=True, append_images=frames[1:], duration=[100, 150, 200],
        loop=0, lossless=True, quality=100, method=6, exact=True))
    ids, lossless, chunks = webp_kind(data)
    check(ids.count(b"ANMF") == 3 and b"ANIM" in ids and lossless, f"animated WebP {ids}")
    add("webp-animated.webp", "webp", 64, 48, has_alpha=True, frames=3, tolerance="exact")
    # WebPAnimEncoder has no "exact" option: colour under alpha 0 is not kept
    expect_image("webp-animated.webp", frames[0], ignore_hidden_colour=True)

    stored = stored_for_orientation(upright_image(), 6)
    exif = build_exif(orientation=6, byteorder="II")
    data = write("webp-exif-orientation-6.webp", image_bytes(stored, "WEBP", quality=90, exif=exif))
    ids, lossless, chunks = webp_kind(data)
    check(ids == [b"VP8X", b"VP8 ", b"EXIF"], f"WebP with EXIF {ids}")
    check(dict(chunks)[b"EXIF"] == exif[6:], "WebP EXIF chunk holds bare TIFF EXIF")
    check(Image.open(io.BytesIO(data)).getexif().get(0x0112) == 6, "Pillow sees WebP orientation")
    add("webp-exif-orientation-6.webp", "webp", 32, 48, orientation=6, tolerance="jpeg")
    approx_image("webp-exif-orientation-6.webp", stored, 8)


# ---------------------------------------------------------------------------
# HEIF / AVIF
# ---------------------------------------------------------------------------


def heif_fixture(name, src, max_mae, **save_options):
    """Writes `src` (RGB or RGBA) as HEIC or AVIF, by the name's extension, checks the container
    states its brand, the size uncropped (ispe, no clap), 8 bits a channel (pixi) and an alpha
    plane (auxC) exactly when `src` has alpha, and records it as lossy, within a mean absolute
    error of `max_mae`."""
    kind = Path(name).suffix[1:]
    has_alpha = src.mode == "RGBA"
    data = write(name, image_bytes(src, {"heic": "HEIF", "avif": "AVIF"}[kind], **save_options))
    pr = isobmff_props(data)
    check(pr["brand"] == kind.encode() and pr["ispe"] == src.size and pr["pixi"] == [8, 8, 8]
          and not pr["clap"] and pr["auxC_alpha"] == has_alpha, f"{name} {pr}")
    add(name, kind, *src.size, has_alpha=has_alpha)
    approx_image(name, src, max_mae)


def make_heif():
    pillow_heif.register_heif_opener()
    # 64x64: libheif/x265 codes 64x48 as 64x64 plus a 'clap' crop; keep these plain.
    heif_fixture("heic-basic.heic", natural_rgb(64, 64, seed=501), 8, quality=90)
    heif_fixture("heic-alpha.heic", natural_rgba(64, 64, seed=502), 10, quality=90)

    # 4:4:4 so the reference does not hinge on chroma upsampling, which libavif (Pillow) and
    # libheif do differently; what the comparison then checks is matrix, range and channel order.
    avif_options = {"quality": 90, "speed": 6, "subsampling": "4:4:4"}
    heif_fixture("avif-basic.avif", natural_rgb(64, 48, seed=503), 8, **avif_options)
    heif_fixture("avif-alpha.avif", natural_rgba(64, 48, seed=504), 10, **avif_options)


# ---------------------------------------------------------------------------
# TIFF
# ---------------------------------------------------------------------------


def tiff_entry(name, data, *, orientation=1, has_alpha=False):
    ti = tiff_info(data)
    t = ti["tags"]
    photometric = t[262][0]
    color = {0: "gray", 1: "gray", 2: "rgb", 3: "palette", 5: "cmyk"}[photometric]
    add(name, "tiff", t[256][0], t[257][0], orientation=orientation, has_alpha=has_alpha,
        bits=t[258][0], color=color)
    return ti


def make_tiff():
    src = natural_rgb(61, 47, seed=601)
    data = write("tiff-rgb-strips.tif", image_bytes(src, "TIFF", compression=None, tiffinfo={278: 8}))
    t = tiff_entry("tiff-rgb-strips.tif", data)["tags"]
    check(t[259] == (1,) and t[262] == (2,) and t[258] == (8, 8, 8) and len(t[273]) == 6,
          "uncompressed RGB, 6 strips of 8 rows (last one partial)")
    expect_image("tiff-rgb-strips.tif", src)

    src = natural_rgb(64, 48, seed=602)
    data = write("tiff-rgb-lzw.tif", image_bytes(src, "TIFF", compression="tiff_lzw"))
    t = tiff_entry("tiff-rgb-lzw.tif", data)["tags"]
    check(t[259] == (5,) and t[262] == (2,), "LZW RGB")
    expect_image("tiff-rgb-lzw.tif", src)

    src = natural_rgba(64, 48, seed=603)
    data = write("tiff-rgba-deflate.tif", image_bytes(src, "TIFF", compression="tiff_adobe_deflate"))
    t = tiff_entry("tiff-rgba-deflate.tif", data, has_alpha=True)["tags"]
    check(t[259] == (8,) and t[277] == (4,) and t[338] == (2,), "deflate RGBA, unassociated alpha")
    expect_image("tiff-rgba-deflate.tif", src)

    g = natural_gray(64, 48, seed=604)
    data = write("tiff-gray-8.tif", image_bytes(g, "TIFF", compression=None))
    t = tiff_entry("tiff-gray-8.tif", data)["tags"]
    check(t[262] == (1,) and t[258] == (8,), "gray 8 TIFF")
    expect_image("tiff-gray-8.tif", g)

    rng = random.Random(605)
    g16 = [(v << 8) | rng.randrange(256) for v in natural_gray(64, 48, seed=605).tobytes()]
    im16 = Image.frombytes("I;16", (64, 48), struct.pack(f"<{len(g16)}H", *g16))
    data = write("tiff-gray-16.tif", image_bytes(im16, "TIFF", compression=None))
    t = tiff_entry("tiff-gray-16.tif", data)["tags"]
    check(t[262] == (1,) and t[258] == (16,), "gray 16 TIFF")
    expect_image("tiff-gray-16.tif", Image.frombytes("L", (64, 48), bytes(v >> 8 for v in g16)))

    src = natural_rgb(61, 47, seed=606)
    data = write("tiff-rgb-tiled.tif", tiled_tiff(src, 16))
    t = tiff_entry("tiff-rgb-tiled.tif", data)["tags"]
    check(t[322] == (16,) and t[323] == (16,) and len(t[324]) == 12, "tiled TIFF 4x3 tiles")
    expect_image("tiff-rgb-tiled.tif", src)

    stored = stored_for_orientation(upright_image(), 6)
    data = write("tiff-orientation-6.tif", image_bytes(stored, "TIFF", compression=None, tiffinfo={274: 6}))
    t = tiff_entry("tiff-orientation-6.tif", data, orientation=6)["tags"]
    check(t[274] == (6,), "TIFF orientation 6")
    expect_image("tiff-orientation-6.tif", stored)


def tiled_tiff(im, tile):
    """Big-endian, uncompressed, chunky RGB, tiled. Edge tiles are stored full
    size; the area outside the image is padded with magenta (255, 0, 255)."""
    w, h = im.size
    px = im.tobytes()
    tx, ty = (w + tile - 1) // tile, (h + tile - 1) // tile
    tiles = []
    for j in range(ty):
        for i in range(tx):
            t = bytearray()
            for y in range(j * tile, (j + 1) * tile):
                for x in range(i * tile, (i + 1) * tile):
                    if x < w and y < h:
                        o = (y * w + x) * 3
                        t += px[o:o + 3]
                    else:
                        t += b"\xff\x00\xff"
            tiles.append(bytes(t))
    n = len(tiles)
    e = ">"
    entries = []  # (tag, type, count, payload bytes)
    entries.append((256, 3, 1, struct.pack(e + "H", w)))
    entries.append((257, 3, 1, struct.pack(e + "H", h)))
    entries.append((258, 3, 3, struct.pack(e + "HHH", 8, 8, 8)))
    entries.append((259, 3, 1, struct.pack(e + "H", 1)))
    entries.append((262, 3, 1, struct.pack(e + "H", 2)))
    entries.append((277, 3, 1, struct.pack(e + "H", 3)))
    entries.append((282, 5, 1, struct.pack(e + "II", 72, 1)))
    entries.append((283, 5, 1, struct.pack(e + "II", 72, 1)))
    entries.append((284, 3, 1, struct.pack(e + "H", 1)))
    entries.append((296, 3, 1, struct.pack(e + "H", 2)))
    entries.append((322, 3, 1, struct.pack(e + "H", tile)))
    entries.append((323, 3, 1, struct.pack(e + "H", tile)))
    entries.append((324, 4, n, None))  # filled below
    entries.append((325, 4, n, struct.pack(e + f"{n}I", *(len(t) for t in tiles))))
    ifd_off = 8
    ifd_size = 2 + 12 * len(entries) + 4
    extra_off = ifd_off + ifd_size
    # lay out out-of-line values
    extra_len = sum(len(p) if p is not None else 4 * c for _, _, c, p in entries
                    if (p is None or len(p) > 4))
    data_off = extra_off + extra_len
    data_off += data_off & 1
    offsets, pos = [], data_off
    for t in tiles:
        offsets.append(pos)
        pos += len(t)
    entries[12] = (324, 4, n, struct.pack(e + f"{n}I", *offsets))
    ifd = bytearray(struct.pack(e + "H", len(entries)))
    extra = bytearray()
    for tag, typ, cnt, payload in entries:
        if len(payload) <= 4:
            ifd += struct.pack(e + "HHI", tag, typ, cnt) + payload.ljust(4, b"\x00")
        else:
            ifd += struct.pack(e + "HHII", tag, typ, cnt, extra_off + len(extra))
            extra += payload
    ifd += struct.pack(e + "I", 0)
    out = bytearray(b"MM\x00*" + struct.pack(e + "I", ifd_off)) + ifd + extra
    out += b"\x00" * (data_off - len(out))
    for t in tiles:
        out += t
    return bytes(out)


# ---------------------------------------------------------------------------
# SVG
# ---------------------------------------------------------------------------

SVG_SIZE = """<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" viewBox="0 0 120 80">
  <rect x="0" y="0" width="60" height="80" fill="#ff0000"/>
  <rect x="60" y="0" width="60" height="80" fill="#0000ff"/>
</svg>
"""

SVG_VIEWBOX = """<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 90 60">
  <rect x="0" y="0" width="90" height="30" fill="#00ff00"/>
</svg>
"""


def make_svg():
    write("svg-size.svg", SVG_SIZE.encode("utf-8"))
    add("svg-size.svg", "svg", 120, 80, has_alpha=True, reference=False)
    write("svg-viewbox.svg", SVG_VIEWBOX.encode("utf-8"))
    add("svg-viewbox.svg", "svg", 90, 60, has_alpha=True, reference=False)


# ---------------------------------------------------------------------------
# Broken files + decompression bomb
# ---------------------------------------------------------------------------

SIGNATURES = [b"\xff\xd8", PNG_SIG[:4], b"GIF8", b"RIFF", b"II*\x00", b"MM\x00*", b"BM",
              b"<?xml", b"<svg", b"\x00\x00\x01\x00", b"\x00\x00\x00", b"8BPS", b"\xff\x0a",
              b"\x00\x00\x00\x0cjP"]


def pillow_fails(data):
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
    except Exception:  # noqa: BLE001 - any failure is what we want
        return True
    return False


def make_broken():
    base = (OUT / "jpeg-baseline.jpg").read_bytes()
    cut = base[: int(len(base) * 0.6)]
    write("broken-truncated.jpg", cut)
    info = jpeg_info(cut)
    check(b"\xff\xd9" not in cut[-2:], "truncated JPEG lacks EOI")
    check(0 < cut.find(b"\xff\xda") < len(cut) - 200, "truncated JPEG is cut inside the scan data")
    add("broken-truncated.jpg", "jpeg", info["width"], info["height"], reference=False,
        error="truncated")

    png = (OUT / "png-rgb-8.png").read_bytes()
    idat = [c for c in png_chunks(png) if c[0] == b"IDAT"]
    check(len(idat) == 1, "single IDAT in png-rgb-8.png")
    start = idat[0][2] + 8
    cut = png[: start + len(idat[0][1]) // 2]
    write("broken-truncated.png", cut)
    check(pillow_fails(cut), "truncated PNG must fail")
    add("broken-truncated.png", "png", 64, 48, reference=False, error="truncated")

    write("broken-empty.png", b"")
    add("broken-empty.png", None, None, None, has_alpha=False, bits=None, color=None, frames=None,
        reference=False, error="empty")

    rng = random.Random(701)
    while True:
        blob = bytes(rng.randrange(256) for _ in range(512))
        if not any(blob.startswith(s) for s in SIGNATURES) and blob[4:8] != b"ftyp" \
                and blob[0] not in (0x00, 0x3C, 0xFF, 0x89) and pillow_fails(blob):
            break
    write("broken-random.jpg", blob)
    add("broken-random.jpg", None, None, None, bits=None, color=None, frames=None,
        reference=False, error="unknownFormat")

    # valid structure and CRCs, but the deflate stream declares the reserved
    # block type 3, so inflation fails right away.
    src = natural_rgb(64, 48, seed=702)
    good = encode_png(64, 48, 2, 8, list(src.tobytes()))
    chunks = png_chunks(good)
    out = bytearray(PNG_SIG)
    for typ, body, _ in chunks:
        if typ == b"IDAT":
            z = bytearray(body)
            z[2] |= 0b110  # BTYPE = 11 (reserved) in the first block header
            body = bytes(z)
            try:
                zlib.decompress(body)
                raise AssertionError("corrupted zlib stream still inflates")
            except zlib.error:
                pass
        out += png_chunk(typ, body)
    write("broken-corrupt-idat.png", bytes(out))
    png_chunks(bytes(out))  # CRCs verified
    check(pillow_fails(bytes(out)), "corrupt IDAT must fail")
    add("broken-corrupt-idat.png", "png", 64, 48, reference=False, error="corrupt")

    # GIF89a + logical screen descriptor (32x32, 2-entry global colour table) +
    # garbage that never contains a block introducer (',', '!', ';').
    rng = random.Random(703)
    lsd = struct.pack("<HHBBB", 32, 32, 0xF0, 0, 0) + bytes([0, 0, 0, 255, 255, 255])
    garbage = bytes(b for b in (rng.randrange(256) for _ in range(400))
                    if b not in (0x21, 0x2C, 0x3B))[:256]
    blob = b"GIF89a" + lsd + garbage
    write("broken-garbage.gif", blob)
    check(pillow_fails(blob), "garbage GIF must fail")
    add("broken-garbage.gif", "gif", 32, 32, color="palette", reference=False, error="corrupt")

    make_bomb()


def make_bomb(size=40000):
    """8-bit grayscale size x size PNG of zeros, compressed row by row."""
    path = OUT / "bomb-40000.png"
    comp = zlib.compressobj(9)
    row = bytes(size + 1)  # filter byte 0 + zero samples
    with open(path, "wb") as f:
        f.write(PNG_SIG)
        f.write(png_chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 0, 0, 0, 0)))
        pending = bytearray()

        def flush(final=False):
            while len(pending) >= (1 << 18) or (final and pending):
                piece = bytes(pending[: 1 << 18])
                del pending[: 1 << 18]
                f.write(png_chunk(b"IDAT", piece))

        for _ in range(size):
            pending += comp.compress(row)
            flush()
        pending += comp.flush()
        flush(final=True)
        f.write(png_chunk(b"IEND", b""))
    # structural check without inflating 1.6 GB
    data = path.read_bytes()
    pi = png_info(data)
    check((pi["width"], pi["height"], pi["bitDepth"], pi["colorType"]) == (size, size, 8, 0), "bomb")
    add("bomb-40000.png", "png", size, size, color="gray", reference=False, error="tooLarge")


# ---------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------


def high_byte_gray(im):
    check(im.mode in ("I;16", "I;16B", "I;16L", "I"), f"16-bit gray mode {im.mode}")
    vals = list(im.get_flattened_data())
    check(max(vals) <= 0xFFFF and min(vals) >= 0, "16-bit range")
    return bytes(v >> 8 for v in vals)


def decode_reference(path, fmt):
    """Pillow decode following the reference rules. Returns (tupltype, w, h, bytes)."""
    im = Image.open(path)
    im.seek(0)
    tiff_orientation = im.tag_v2.get(0x0112, 1) if fmt == "tiff" else 1
    im.load()
    if tiff_orientation != 1:
        # Pillow 13 applies the TIFF Orientation tag while loading
        # (TiffImageFile.load_end -> exif_transpose); the references hold the
        # pixels as stored, so undo it.
        im = apply_t(im, INVERSE[tiff_orientation])
    mode, w, h = im.mode, im.width, im.height
    trns = im.info.get("transparency")
    if fmt == "jpeg":
        if mode == "L":
            return "GRAYSCALE", w, h, im.tobytes()
        check(mode in ("RGB", "CMYK"), f"JPEG mode {mode}")
        return "RGB", w, h, im.convert("RGB").tobytes()
    if fmt == "png":
        if mode == "1":
            check(trns is None, "1-bit tRNS unsupported here")
            return "GRAYSCALE", w, h, im.convert("L").tobytes()
        if mode in ("I;16", "I;16B", "I"):
            check(trns is None, "16-bit gray tRNS unsupported here")
            return "GRAYSCALE", w, h, high_byte_gray(im)
        if mode == "L":
            if trns is None:
                return "GRAYSCALE", w, h, im.tobytes()
            check(isinstance(trns, int), "gray tRNS is a single value")
            return "GRAYSCALE_ALPHA", w, h, b"".join(
                bytes((v, 0 if v == trns else 255)) for v in im.tobytes())
        if mode == "LA":
            return "GRAYSCALE_ALPHA", w, h, im.tobytes()
        if mode == "RGB":
            if trns is None:
                return "RGB", w, h, im.tobytes()
            check(isinstance(trns, tuple) and len(trns) == 3, "RGB tRNS is a triple")
            px = im.tobytes()
            out = bytearray()
            for i in range(0, len(px), 3):
                out += px[i:i + 3] + bytes([0 if tuple(px[i:i + 3]) == trns else 255])
            via_pillow = im.convert("RGBA").tobytes()
            check(via_pillow == bytes(out), "manual RGB tRNS matches Pillow")
            return "RGB_ALPHA", w, h, bytes(out)
        if mode == "RGBA":
            return "RGB_ALPHA", w, h, im.tobytes()
        if mode == "P":
            if trns is None:
                return "RGB", w, h, im.convert("RGB").tobytes()
            return "RGB_ALPHA", w, h, im.convert("RGBA").tobytes()
        raise AssertionError(f"unhandled PNG mode {mode}")
    if fmt == "gif":
        check(mode in ("P", "L", "RGB", "RGBA"), f"GIF mode {mode}")
        if mode == "RGBA" or trns is not None:
            return "RGB_ALPHA", w, h, im.convert("RGBA").tobytes()
        return "RGB", w, h, im.convert("RGB").tobytes()
    if fmt == "webp":
        if getattr(im, "n_frames", 1) > 1:
            return "RGB_ALPHA", w, h, im.convert("RGBA").tobytes()
        check(mode in ("RGB", "RGBA"), f"WebP mode {mode}")
        return mode_tupltype(mode), w, h, im.tobytes()
    if fmt in ("heic", "avif"):
        check(mode in ("RGB", "RGBA"), f"{fmt} mode {mode}")
        return mode_tupltype(mode), w, h, im.tobytes()
    if fmt == "tiff":
        if mode in ("I;16", "I;16B", "I;16L"):
            return "GRAYSCALE", w, h, high_byte_gray(im)
        check(mode in ("L", "RGB", "RGBA"), f"TIFF mode {mode}")  # "RGBa" would be premultiplied
        return mode_tupltype(mode), w, h, im.tobytes()
    raise AssertionError(f"no reference rule for {fmt}")


def make_references():
    for entry in MANIFEST:
        if not entry["reference"]:
            continue
        name = entry["file"]
        tt, w, h, px = decode_reference(OUT / name, entry["format"])
        check((w, h) == (entry["width"], entry["height"]), f"{name}: size")
        check(tt.endswith("ALPHA") == entry["hasAlpha"], f"{name}: alpha {tt}")
        check((tt.startswith("GRAYSCALE")) == (entry["colorModel"] == "gray"), f"{name}: gray {tt}")
        if name in EXPECTED:
            ett, ew, eh, epx, ignore_hidden = EXPECTED[name]
            check((ett, ew, eh) == (tt, w, h), f"{name}: expected {ett} {ew}x{eh}, got {tt} {w}x{h}")
            check(same_pixels(tt, epx, px, ignore_hidden), f"{name}: decoded pixels differ from the source")
        elif name in APPROX:
            ett, ew, eh, epx, max_mae = APPROX[name]
            check((ett, ew, eh) == (tt, w, h), f"{name}: expected {ett} {ew}x{eh}, got {tt} {w}x{h}")
            mae = mean_abs_diff(epx, px)
            check(mae <= max_mae, f"{name}: lossy error {mae:.2f} > {max_mae}")
        else:
            raise AssertionError(f"{name}: no expectation recorded")
        (REF / f"{name}.pam").write_bytes(pam_bytes(tt, w, h, px))


# ---------------------------------------------------------------------------
# README / manifest / verification
# ---------------------------------------------------------------------------

README = """# Tessera test fixtures

Generated by `scripts/make-fixtures.py` -- do not edit by hand. Regenerate with

    python3 scripts/make-fixtures.py

(requires `pip install pillow==13.0.0 pillow-heif==1.8.1`; the output is
deterministic, re-running reproduces the same bytes).

* `manifest.json` -- one entry per fixture: `file`, `format`, `width`/`height`
  (as stored), `orientation` (EXIF, 1 if none), `hasAlpha` (of the expected
  decode), `bitsPerComponent` and `colorModel` (as stored), `frameCount`,
  `progressive` (JPEG progressive / PNG Adam7), `reference`, `tolerance`
  (`exact` | `jpeg` | `heif`) and, for broken files, `expectedError`
  (`truncated` | `corrupt` | `unknownFormat` | `empty` | `tooLarge`).
  `format`, size, `bitsPerComponent`, `colorModel` and `frameCount` are null
  where the file has no recognisable format (`broken-empty.png`,
  `broken-random.jpg`); `tolerance` is null for those too.
* `reference/<file>.pam` -- Pillow's decode of each raster fixture as binary
  PAM (P7, MAXVAL 255): pixels as stored (EXIF orientation NOT applied),
  GRAYSCALE / GRAYSCALE_ALPHA / RGB / RGB_ALPHA; low-bit gray scaled to 0-255,
  16-bit samples reduced to their high byte, CMYK via Pillow's naive
  `convert("RGB")`, palette expanded, tRNS turned into alpha (straight alpha).
  The first frame for animations.
* Images are small (mostly 64x48; 61x47 where partial rows/tiles/passes
  matter) with gradients, shapes and noise; nothing is mirror-symmetric.

The script deletes and rewrites every file directly in this directory and in
`reference/`; do not put hand-made files here.

Notes
* `jpeg-orientation-N.jpg`: the upright image `upright-reference.png` (48x32)
  stored as the inverse of EXIF orientation N (so N=5..8 are 32x48). Applying
  orientation N to the stored pixels gives the upright image back. Odd N use a
  big-endian (MM) EXIF block, even N little-endian (II). Quality 95, 4:4:4.
  `png-exif-orientation-6.png`, `webp-exif-orientation-6.webp` and
  `tiff-orientation-6.tif` store the same upright image for orientation 6.
* `jpeg-exif-thumbnail.jpg`: 640x480 with a 160x120 JPEG thumbnail in IFD1
  (JPEGInterchangeFormat/-Length), big-endian EXIF.
* `jpeg-cmyk.jpg`: Adobe APP14, inverted CMYK as Pillow writes it, with a
  moderate K channel; the reference uses Pillow's un-managed conversion
  R = (255-C)(255-K)/255.
* `jpeg-restart-rows.jpg`, `jpeg-restart-blocks.jpg`, `jpeg-restart-444.jpg`:
  480x400 baseline JPEGs with restart markers (an interval per MCU row; of
  7 MCUs; of 3 MCU rows at 4:4:4), for decoding from the middle. No
  reference: windows are compared with the file's own whole decode.
* Hand-written PNGs (`png-gray-2/4`, `png-rgb-16`, `png-rgba-16`,
  `png-adam7-*`, `broken-corrupt-idat`) cycle through all five row filter
  types. 16-bit samples have a random low byte.
* `png-palette-trns.png`: 16-entry palette, tRNS with only 10 entries
  (partial alphas; the remaining entries are opaque).
* `tiff-rgb-strips.tif`: 61x47, 8 rows per strip (last strip partial).
  `tiff-rgb-tiled.tif`: big-endian, 61x47 in 16x16 tiles; the padding of the
  edge tiles is magenta and must not show up in the decode.
* GIFs: `bitsPerComponent` is 8 (palette entries). All frames of
  `gif-animated.gif` cover the full logical screen; no transparency.
* `webp-animated.webp` is lossless (tolerance exact) and has alpha. libwebp's
  animation encoder does not keep the colour of fully transparent pixels, so
  compare colour only where alpha > 0 (sensible for every alpha fixture; a
  premultiplying decoder cannot reproduce hidden colours anyway).
* `heic-*.heic` are 64x64: x265 codes 64x48 as 64x64 plus a `clap` crop, and
  the basic fixtures should not depend on that. `avif-*` are 64x48, no `clap`.
* Pillow 13 applies the TIFF Orientation tag while loading; the script undoes
  that for `tiff-orientation-6.tif` so its reference holds the stored pixels.
* SVGs have no reference: `svg-size.svg` is 120x80, left half #ff0000, right
  half #0000ff; `svg-viewbox.svg` has only viewBox="0 0 90 60" (size in the
  manifest is the viewBox size), top half #00ff00, bottom half transparent.
* Broken: `broken-truncated.jpg` (first 60 % of `jpeg-baseline.jpg`),
  `broken-truncated.png` (`png-rgb-8.png` cut in the middle of IDAT),
  `broken-empty.png` (0 bytes), `broken-random.jpg` (512 random bytes, no
  known signature), `broken-corrupt-idat.png` (valid chunks/CRCs, deflate
  block type 3 = invalid), `broken-garbage.gif` (GIF89a + 32x32 screen
  descriptor + garbage), `bomb-40000.png` (40000x40000 8-bit gray zeros,
  1.6 GB when inflated; must be rejected as too large, not decoded).
"""


def verify():
    entries = json.loads((OUT / "manifest.json").read_text())
    names = set()
    for e in entries:
        p = OUT / e["file"]
        check(p.is_file(), f"missing {e['file']}")
        check(e["file"] not in names, f"duplicate {e['file']}")
        names.add(e["file"])
        if e["reference"]:
            tt, w, h, _ = read_pam((OUT / e["reference"]).read_bytes())
            check((w, h) == (e["width"], e["height"]), f"reference size of {e['file']}")
            check(tt.endswith("ALPHA") == e["hasAlpha"], f"reference alpha of {e['file']}")
    on_disk = {p.name for p in OUT.iterdir() if p.is_file()} - {"manifest.json", "README.md"}
    check(on_disk == names, f"unlisted files: {on_disk - names}")
    refs = {p.name for p in REF.iterdir()}
    check(refs == {Path(e["reference"]).name for e in entries if e["reference"]}, "stray references")
    # This script's files and references only: the subdirectories have their own generators
    # (video, PDF, colour, bombs, resampling and fuzz fixtures).
    total = sum((OUT / e["file"]).stat().st_size + ((OUT / e["reference"]).stat().st_size if e["reference"] else 0)
                for e in entries)
    check(total < 4 * 1024 * 1024, f"fixtures too large: {total}")
    print(f"{len(entries)} fixtures, {len(refs)} references, {total} bytes total")


# ---------------------------------------------------------------------------
# Thumbnail references: Pillow's Lanczos resize of the full decode
# ---------------------------------------------------------------------------

LANCZOS = OUT / "lanczos"

# (fixture, width, height): what Tessera's thumbnailer must approach (~30 dB PSNR).
LANCZOS_CASES = [
    ("jpeg-exif-thumbnail.jpg", 100, 75),
    ("jpeg-exif-thumbnail.jpg", 203, 152),
    ("photo-400x300.png", 100, 75),
    ("photo-400x300.png", 37, 28),
    ("photo-alpha-400x300.png", 100, 75),
]


def make_thumbnail_sources():
    """Larger photo-like PNGs, so that shrinking by big factors has detail to lose."""
    write("photo-400x300.png", image_bytes(natural_rgb(400, 300, seed=901), "PNG"))
    add("photo-400x300.png", "png", 400, 300, reference=False)
    write("photo-alpha-400x300.png", image_bytes(natural_rgba(400, 300, seed=902), "PNG"))
    add("photo-alpha-400x300.png", "png", 400, 300, has_alpha=True, reference=False)


def make_lanczos_references():
    LANCZOS.mkdir(exist_ok=True)
    for name, w, h in LANCZOS_CASES:
        with Image.open(OUT / name) as im:
            mode = "RGBA" if im.mode in ("RGBA", "LA", "PA") else "RGB"
            # Pillow premultiplies alpha for the resize itself (RGBa), as Tessera does.
            resized = im.convert(mode).resize((w, h), Image.LANCZOS, reducing_gap=None)
        tupltype = "RGB_ALPHA" if mode == "RGBA" else "RGB"
        stem = Path(name).stem
        (LANCZOS / f"{stem}-{w}x{h}.pam").write_bytes(pam_bytes(tupltype, w, h, resized.tobytes()))


def main():
    if PIL.__version__ != EXPECTED_VERSIONS["pillow"] or \
            pillow_heif.__version__ != EXPECTED_VERSIONS["pillow-heif"]:
        print(f"warning: expected Pillow {EXPECTED_VERSIONS['pillow']} / pillow-heif "
              f"{EXPECTED_VERSIONS['pillow-heif']}, found {PIL.__version__} / "
              f"{pillow_heif.__version__}; output may differ", file=sys.stderr)
    OUT.mkdir(parents=True, exist_ok=True)
    REF.mkdir(exist_ok=True)
    LANCZOS.mkdir(exist_ok=True)
    for p in list(REF.iterdir()) + list(LANCZOS.iterdir()) + [p for p in OUT.iterdir() if p.is_file()]:
        p.unlink()

    make_jpeg()
    make_png()
    make_gif()
    make_webp()
    make_heif()
    make_tiff()
    make_svg()
    make_broken()
    make_thumbnail_sources()
    make_references()
    make_lanczos_references()

    (OUT / "manifest.json").write_text(json.dumps(MANIFEST, indent=2) + "\n")
    (OUT / "README.md").write_text(README)
    verify()


if __name__ == "__main__":
    main()
