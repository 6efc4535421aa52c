#!/usr/bin/env python3
"""Writes the colour-management fixtures in Tests/Fixtures/colour/ (deterministic, no timestamps).

Run it with the Python that has Pillow 13.0.0 (its wheel bundles LittleCMS 2.19), e.g.

    .build/browser-venv/bin/python scripts/make-colour-fixtures.py

It needs, from Debian (bootstrap installs the first two for the Swift side too):

    apt-get install -y --no-install-recommends colord-data libgs-common liblcms2-2

* colord-data:  /usr/share/color/icc/colord/AdobeRGB1998.icc  (embedded in adobe-rgb.png)
* libgs-common: /usr/share/color/icc/ghostscript/rommrgb.icc    (ProPhoto / ROMM RGB; prophoto-16.tif, prophoto.webp)
                /usr/share/color/icc/ghostscript/a98.icc        (Adobe RGB (1998) compatible; rgba16-associated.tif)
                /usr/share/color/icc/ghostscript/ps_cmyk.icc    (embedded in cmyk-profile.jpg)
                /usr/share/color/icc/ghostscript/default_cmyk.icc (NOT embedded: the standard CMYK profile that
                both the references and Tessera use for CMYK without a profile; "Artifex CMYK SWOP Profile")
* liblcms2-2:   /usr/lib/x86_64-linux-gnu/liblcms2.so.2, called through ctypes for the 16-bit references, because
                Pillow has no 16-bit RGB mode (it reduces 16-bit TIFF samples to 8 bits while decoding).

Two profiles are built here with struct, byte by byte: a Display P3 profile (ICC v4.3 matrix/TRC: P3 primaries,
D65 white adapted to the D50 PCS with Bradford in a 'chad' tag, the sRGB tone curve as a 'para' type-3 curve, MD5
profile ID) because no Debian package ships one, and a "Gray Gamma 2.2" profile (ICC v2.1, one 'curv' gamma
2.2 entry, like Photoshop's) because ghostscript's gray profiles use the sRGB curve.

HEIF and AVIF: p3-nclx.heic (pillow-heif 1.8.1, `pip install pillow-heif==1.8.1`) states Display P3 in an nclx
box; adobe-rgb.avif (Pillow's own AVIF) embeds a profile. Colour stated in numbers rather than a profile (PNG
gAMA/cHRM, PNG cICP, HEIF nclx) has references computed here in floating point or through an equivalent profile.

Every reference is the fixture's pixels, as Pillow decodes them, converted to sRGB by LittleCMS with perceptual
intent and black-point compensation: ImageCms.buildTransform(src, ImageCms.createProfile("sRGB"), inMode, "RGB",
renderingIntent=Intent.PERCEPTUAL, flags=Flags.BLACKPOINTCOMPENSATION). 16-bit fixtures are transformed from
their 16-bit samples (TYPE_RGB_16 -> TYPE_RGB_8, same intent and flags, system lcms through ctypes).

Size: the whole of Tests/Fixtures is capped at 4 MiB by scripts/make-fixtures.py (which counts this directory
too), so this script keeps the directory small and prints its total.
"""

from __future__ import annotations

import colorsys
import ctypes
import ctypes.util
import hashlib
import io
import json
import math
import shutil
import struct
import sys
import zlib
from pathlib import Path

from PIL import Image, ImageCms, features

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Tests" / "Fixtures" / "colour"
REF = OUT / "reference"

W, H = 64, 48

GS = Path("/usr/share/color/icc/ghostscript")
COLORD = Path("/usr/share/color/icc/colord")
ADOBE_RGB_ICC = COLORD / "AdobeRGB1998.icc"
PROPHOTO_ICC = GS / "rommrgb.icc"
A98_ICC = GS / "a98.icc"
EMBEDDED_CMYK_ICC = GS / "ps_cmyk.icc"
DEFAULT_CMYK_ICC = GS / "default_cmyk.icc"

INTENT = ImageCms.Intent.PERCEPTUAL
FLAGS = ImageCms.Flags.BLACKPOINTCOMPENSATION
SRGB = ImageCms.createProfile("sRGB")

# Fixed header date of the profiles built here (no timestamps: re-running gives the same bytes).
PROFILE_DATE = (2026, 11, 23, 0, 0, 0)


def fail(message: str) -> None:
    sys.exit(f"make-colour-fixtures: {message}")


def check(condition: bool, message: str) -> None:
    if not condition:
        fail(message)


# ---------------------------------------------------------------------------
# ICC profiles built by hand
# ---------------------------------------------------------------------------

D50 = (0.9642, 1.0, 0.8249)  # the ICC PCS illuminant


def s15f16(value: float) -> bytes:
    return struct.pack(">i", round(value * 65536))


def xyz_tag(xyz) -> bytes:
    return b"XYZ \0\0\0\0" + b"".join(s15f16(v) for v in xyz)


def mluc_tag(text: str) -> bytes:
    utf16 = text.encode("utf-16-be")
    return b"mluc\0\0\0\0" + struct.pack(">II2s2sII", 1, 12, b"en", b"US", len(utf16), 28) + utf16


def desc_v2_tag(text: str) -> bytes:
    ascii_ = text.encode("ascii") + b"\0"
    # textDescriptionType: ASCII, then empty Unicode and ScriptCode parts (67-byte Macintosh description).
    unicode_part = struct.pack(">II", 0, 0)
    scriptcode_part = b"\0\0" + b"\0" + bytes(67)
    return b"desc\0\0\0\0" + struct.pack(">I", len(ascii_)) + ascii_ + unicode_part + scriptcode_part


def text_v2_tag(text: str) -> bytes:
    return b"text\0\0\0\0" + text.encode("ascii") + b"\0"


def pad4(data: bytes) -> bytes:
    return data + bytes(-len(data) % 4)


def build_profile(version: int, device_class: bytes, colour_space: bytes, tags: list[tuple[bytes, bytes]]) -> bytes:
    """An ICC profile: 128-byte header, tag table, tag data (4-aligned; identical data shared).

    v4 profiles get their MD5 profile ID (ICC.1:2010 7.2.18); v2 leave it zero."""
    count = len(tags)
    offset = 128 + 4 + 12 * count
    table = struct.pack(">I", count)
    data = b""
    placed: dict[bytes, int] = {}
    for signature, body in tags:
        if body not in placed:
            placed[body] = offset + len(data)
            data += pad4(body)
        table += struct.pack(">4sII", signature, placed[body], len(body))
    size = offset + len(data)
    header = struct.pack(">I4sI4s4s4s", size, b"\0\0\0\0", version, device_class, colour_space, b"XYZ ")
    header += struct.pack(">6H", *PROFILE_DATE) + b"acsp" + bytes(4) + struct.pack(">I", 0)
    header += bytes(8) + bytes(8) + struct.pack(">I", 0) + b"".join(s15f16(v) for v in D50) + bytes(4)
    header += bytes(16) + bytes(28)
    check(len(header) == 128, "ICC header length")
    profile = bytearray(header + table + data)
    if version >= 0x04000000:
        profile[84:100] = hashlib.md5(bytes(profile)).digest()  # flags, intent and ID are already zero
    return bytes(profile)


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mat_vec(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def mat_inv(m):
    a, b, c = m[0]
    d, e, f = m[1]
    g, h, i = m[2]
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return [
        [(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
        [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
        [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det],
    ]


def xy_to_xyz(x: float, y: float) -> list[float]:
    return [x / y, 1.0, (1 - x - y) / y]


BRADFORD = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]


def bradford(source_white, target_white):
    s = mat_vec(BRADFORD, source_white)
    t = mat_vec(BRADFORD, target_white)
    scale = [[t[0] / s[0], 0, 0], [0, t[1] / s[1], 0], [0, 0, t[2] / s[2]]]
    return mat_mul(mat_inv(BRADFORD), mat_mul(scale, BRADFORD))


def display_p3_profile() -> bytes:
    """Display P3: DCI-P3 primaries, D65 white, sRGB transfer curve (as Apple's 'Display P3')."""
    primaries = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
    white = xy_to_xyz(0.3127, 0.3290)
    columns = [xy_to_xyz(*p) for p in primaries]
    m = [[columns[j][i] for j in range(3)] for i in range(3)]
    scale = mat_vec(mat_inv(m), white)
    rgb_to_xyz = [[m[i][j] * scale[j] for j in range(3)] for i in range(3)]
    chad = bradford(white, D50)
    adapted = mat_mul(chad, rgb_to_xyz)
    para = b"para\0\0\0\0" + struct.pack(">HH", 3, 0) + b"".join(
        s15f16(v) for v in (2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045))
    sf32 = b"sf32\0\0\0\0" + b"".join(s15f16(chad[i][j]) for i in range(3) for j in range(3))
    return build_profile(0x04300000, b"mntr", b"RGB ", [
        (b"desc", mluc_tag("Display P3 (Tessera test profile)")),
        (b"cprt", mluc_tag("No copyright, use freely")),
        (b"wtpt", xyz_tag(D50)),
        (b"chad", sf32),
        (b"rXYZ", xyz_tag([adapted[i][0] for i in range(3)])),
        (b"gXYZ", xyz_tag([adapted[i][1] for i in range(3)])),
        (b"bXYZ", xyz_tag([adapted[i][2] for i in range(3)])),
        (b"rTRC", para),
        (b"gTRC", para),
        (b"bTRC", para),
    ])


def gray_gamma22_profile() -> bytes:
    curv = b"curv\0\0\0\0" + struct.pack(">IH", 1, 0x0233) + b"\0\0"  # u8Fixed8 2.2 (= 2.19921875)
    return build_profile(0x02100000, b"mntr", b"GRAY", [
        (b"desc", desc_v2_tag("Gray Gamma 2.2 (Tessera test profile)")),
        (b"cprt", text_v2_tag("No copyright, use freely")),
        (b"wtpt", xyz_tag(D50)),
        (b"kTRC", curv),
    ])


def lut_rgb_profile() -> bytes:
    """An RGB display profile that is a lookup table, not a matrix/TRC: A2B0 as a lut16Type (ICC v2, 'mft2')
    to PCS Lab, 17 points a side, identity input and output curves. The table is sRGB turned a little towards
    warm hues as it lightens (hue rotated by up to 25 degrees with L*), so no sum of per-channel curves can
    describe it: the case where Tessera's separable tables must refuse and LittleCMS convert."""
    points = 17
    srgb_to_xyz = [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
    d65 = mat_vec(srgb_to_xyz, [1, 1, 1])
    adapt = bradford(d65, D50)

    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    def lab(rgb):
        xyz = mat_vec(adapt, mat_vec(srgb_to_xyz, [linear(c) for c in rgb]))
        fx, fy, fz = (f(v / w) for v, w in zip(xyz, D50))
        lightness, a, b = 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)
        turn = math.radians(25) * lightness / 100
        return lightness, a * math.cos(turn) - b * math.sin(turn), a * math.sin(turn) + b * math.cos(turn)

    def u16(value):
        return struct.pack(">H", max(0, min(0xFFFF, round(value))))
    clut = b""
    for r in range(points):
        for g in range(points):
            for b in range(points):
                lightness, a, bb = lab([r / (points - 1), g / (points - 1), b / (points - 1)])
                clut += u16(lightness / 100 * 0xFF00) + u16((a + 128) * 256) + u16((bb + 128) * 256)
    identity = b"".join(s15f16(v) for v in (1, 0, 0, 0, 1, 0, 0, 0, 1))
    curves = struct.pack(">HH", 0, 0xFFFF) * 3
    mft2 = b"mft2\0\0\0\0" + struct.pack(">BBBB", 3, 3, points, 0) + identity + struct.pack(">HH", 2, 2)
    mft2 += curves + clut + curves
    profile = bytearray(build_profile(0x02100000, b"mntr", b"RGB ", [
        (b"desc", desc_v2_tag("Warm LUT RGB (Tessera test profile)")),
        (b"cprt", text_v2_tag("No copyright, use freely")),
        (b"wtpt", xyz_tag(D50)),
        (b"A2B0", mft2),
    ]))
    profile[20:24] = b"Lab "  # the PCS of the table
    return bytes(profile)


def huge_tagcount_profile(base: bytes) -> bytes:
    """The first 128 bytes of a real profile, a tag count of 0xFFFFFFF0, and three real-looking entries."""
    entries = base[132:132 + 36]
    profile = bytearray(base[:128] + struct.pack(">I", 0xFFFFFFF0) + entries + bytes(32))
    profile[0:4] = struct.pack(">I", len(profile))
    profile[84:100] = bytes(16)
    return bytes(profile)


# ---------------------------------------------------------------------------
# Pixel content: saturated colours, smooth gradients, primaries, near-white/black, skin tones
# ---------------------------------------------------------------------------

SKIN = [(255, 224, 196), (241, 194, 125), (224, 172, 105), (198, 134, 66), (141, 85, 36), (92, 51, 23)]


def lerp_colours(stops, t):
    t = min(max(t, 0.0), 1.0) * (len(stops) - 1)
    i = min(int(t), len(stops) - 2)
    f = t - i
    return tuple(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f for c in range(len(stops[0])))


def rgb_design(x: int, y: int) -> tuple[float, float, float]:
    """RGB in 0..1 (encoded values of whatever space the fixture declares), 64x48 bands of 8 rows:
    0-7 patches R G B C M Y white black; 8-23 hue sweep, full saturation, value 1 -> 0.55 downwards;
    24-31 gray ramp 0..1; 32-39 near-black (left) and near-white (right) ramps; 40-47 skin tones, shaded."""
    u = x / (W - 1)
    if y < 8:
        return [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 1, 1), (1, 0, 1), (1, 1, 0), (1, 1, 1), (0, 0, 0)][x // 8]
    if y < 24:
        value = 1.0 - 0.45 * (y - 8) / 15
        saturation = 1.0 if y < 16 else 0.6 + 0.4 * (23 - y) / 7
        return colorsys.hsv_to_rgb(u, saturation, value)
    if y < 32:
        return (u, u, u)
    if y < 40:
        if x < 32:
            v = (x + 32 * ((y - 32) % 2)) / 63 * 0.1
        else:
            v = 0.9 + (x - 32 + 32 * ((y - 32) % 2)) / 63 * 0.1
        return (v, v * 0.98 + 0.01 * (y % 3) / 2, v)
    shade = 1.0 - 0.05 * (y - 40)
    r, g, b = lerp_colours(SKIN, u)
    return (r / 255 * shade, g / 255 * shade, b / 255 * shade)


def rgb8_image() -> Image.Image:
    data = bytearray()
    for y in range(H):
        for x in range(W):
            data += bytes(round(c * 255) for c in rgb_design(x, y))
    return Image.frombytes("RGB", (W, H), bytes(data))


def rgb16_samples() -> list[tuple[int, int, int]]:
    return [tuple(round(c * 65535) for c in rgb_design(x, y)) for y in range(H) for x in range(W)]


def gray8_image() -> Image.Image:
    """0-15 ramp 0..255 across, two rows per step of a finer ramp; 16-31 shadows 0..48 (where gamma 2.2 and
    the sRGB curve differ most); 32-39 mid ramp 64..192; 40-47 highlights 224..255."""
    data = bytearray()
    for y in range(H):
        for x in range(W):
            u = x / (W - 1)
            if y < 16:
                v = u * 255 + (y % 4) * 0.5
            elif y < 32:
                v = (u + (y - 16) / 16 / 63) * 48
            elif y < 40:
                v = 64 + u * 128
            else:
                v = 224 + u * 31 * (0.5 + (y - 40) / 14)
            data.append(min(255, round(v)))
    return Image.frombytes("L", (W, H), bytes(data))


def cmyk8_image() -> Image.Image:
    """Ink amounts (0 = no ink, Pillow's CMYK): 0-7 patches C M Y K, C+M, M+Y, C+Y, rich black 400%;
    8-15 single-ink ramps C/M then Y/K (4 rows each); 16-23 hue sweep of two-ink overprints;
    24-31 CMY neutral ramp (top) and K ramp with 40% CMY under it (bottom); 32-39 skin tones;
    40-47 near-white (up to 6% ink) left and near-black (K 90-100% + CMY) right."""
    data = bytearray()
    for y in range(H):
        for x in range(W):
            u = x / (W - 1)
            if y < 8:
                c = [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (1, 1, 0, 0), (0, 1, 1, 0),
                     (1, 0, 1, 0), (1, 1, 1, 1)][x // 8]
            elif y < 16:
                k = (y - 8) // 2
                c = [0.0] * 4
                c[k] = u
            elif y < 24:
                # C -> M -> Y -> C around the hue circle, two inks at a time, 50% -> 100% deep downwards
                h = u * 3
                i = min(int(h), 2)
                f = h - i
                c = [0.0] * 4
                c[i] = 1 - f
                c[(i + 1) % 3] = f
                depth = 0.5 + 0.5 * (y - 16) / 7
                c = [v * depth for v in c[:3]] + [0.0]
            elif y < 28:
                c = (u, u * 0.9, u * 0.9, 0)
            elif y < 32:
                c = (0.4, 0.4, 0.4, u)
            elif y < 40:
                t = u
                c = (0.03 + 0.15 * t, 0.2 + 0.35 * t, 0.25 + 0.4 * t, 0.3 * t * t + 0.02 * (y - 32))
            elif x < 32:
                c = (u * 0.12, u * 0.08, u * 0.1, 0.01 * (y - 40) / 7)
            else:
                c = (0.6 * u, 0.5 * u, 0.5 * u, 0.9 + 0.1 * (y - 40) / 7)
            data += bytes(min(255, round(v * 255)) for v in c)
    return Image.frombytes("CMYK", (W, H), bytes(data))


SKIN_LAB = [(80, 8, 17), (72, 13, 22), (62, 16, 26), (50, 18, 30), (38, 15, 22), (25, 10, 14)]


def lab8_values() -> list[tuple[float, float, float]]:
    """CIELab (D50), 0-7 patches white, black, and the Lab of red, green, blue, cyan, magenta, yellow;
    8-23 hue circle at chroma 50, L 30 -> 80 downwards; 24-31 neutral L ramp 0..100;
    32-39 a sweep -128..127 at L 50 (4 rows) and b sweep (4 rows) — far outside sRGB, so clipping shows;
    40-47 skin tones across, near-black L 0-6 and near-white L 94-100 in the last two rows."""
    values = []
    for y in range(H):
        for x in range(W):
            u = x / (W - 1)
            if y < 8:
                lab = [(100, 0, 0), (0, 0, 0), (54, 81, 70), (88, -79, 81), (30, 68, -112), (91, -51, -15),
                       (60, 94, -61), (97, -22, 94)][x // 8]
            elif y < 24:
                angle = u * 2 * math.pi
                lab = (30 + 50 * (y - 8) / 15, 50 * math.cos(angle), 50 * math.sin(angle))
            elif y < 32:
                lab = (u * 100, 0, 0)
            elif y < 36:
                lab = (50, -128 + u * 255, 0)
            elif y < 40:
                lab = (50, 0, -128 + u * 255)
            elif y < 46:
                skin = lerp_colours(SKIN_LAB, u)
                lab = (skin[0] - (y - 40) * 0.8, skin[1], skin[2])
            elif y == 46:
                lab = (u * 6, 0.3 * (u - 0.5), -0.5 * u)
            else:
                lab = (94 + u * 6, 0.5 * (0.5 - u), 1.5 * (1 - u))
            values.append(lab)
    return values


def lab_bytes(values) -> bytes:
    """Pillow's mode "LAB" bytes: L 0..255 for 0..100, a and b with 128 added."""
    data = bytearray()
    for lab_ in values:
        data.append(min(255, max(0, round(lab_[0] * 255 / 100))))
        data += bytes(min(255, max(0, round(v) + 128)) for v in lab_[1:])
    return bytes(data)


def rgba16_samples() -> list[tuple[int, int, int, int]]:
    """Straight 16-bit colour (rgb_design) with alpha: opaque patches in rows 0-7, below them alpha rises
    from 0 (column 0) to 1 (column 63) — columns 1-3 have alpha under 5%, where premultiplied colour
    keeps few levels at 8 bits — and rows 24-31 (the gray ramp) run alpha the other way."""
    samples = []
    for y in range(H):
        for x in range(W):
            r, g, b = (round(c * 65535) for c in rgb_design(x, y))
            if y < 8:
                a = 65535
            elif 24 <= y < 32:
                a = round(65535 * (W - 1 - x) / (W - 1))
            else:
                a = round(65535 * x / (W - 1))
            samples.append((r, g, b, a))
    return samples


def premultiply16(samples):
    return [(round(r * a / 65535), round(g * a / 65535), round(b * a / 65535), a) for r, g, b, a in samples]


def unpremultiply16(samples):
    out = []
    for r, g, b, a in samples:
        if a == 0:
            out.append((0, 0, 0, 0))
        else:
            out.append(tuple(min(65535, round(c * 65535 / a)) for c in (r, g, b)) + (a,))
    return out


# ---------------------------------------------------------------------------
# Containers
# ---------------------------------------------------------------------------

def jpeg_segments(data: bytes) -> list[tuple[int, int, int]]:
    """(marker, start, end) of each segment before SOS."""
    check(data[:2] == b"\xff\xd8", "not a JPEG")
    out = []
    pos = 2
    while True:
        check(data[pos] == 0xFF, "JPEG marker expected")
        marker = data[pos + 1]
        length = struct.unpack(">H", data[pos + 2:pos + 4])[0]
        out.append((marker, pos, pos + 2 + length))
        if marker == 0xDA:
            return out
        pos += 2 + length


def jpeg_with_app2(base: bytes, chunks: list[bytes]) -> bytes:
    """`base` (no ICC) with one APP2 ICC_PROFILE segment per chunk after APP0/APP14, numbered 1..n of n."""
    segments = jpeg_segments(base)
    check(not any(m == 0xE2 for m, _, _ in segments), "base JPEG already has APP2")
    insert_at = 2
    for marker, _, end in segments:
        if marker in (0xE0, 0xEE):
            insert_at = end
        else:
            break
    total = len(chunks)
    app2 = b""
    for index, chunk in enumerate(chunks, start=1):
        payload = b"ICC_PROFILE\0" + bytes([index, total]) + chunk
        check(len(payload) + 2 <= 0xFFFF, "APP2 too long")
        app2 += b"\xff\xe2" + struct.pack(">H", len(payload) + 2) + payload
    return base[:insert_at] + app2 + base[insert_at:]


def jpeg_icc(data: bytes) -> bytes | None:
    """Reassembles the APP2 ICC_PROFILE chunks in sequence order (None if there are none)."""
    chunks = {}
    for marker, start, end in jpeg_segments(data):
        body = data[start + 4:end]
        if marker == 0xE2 and body.startswith(b"ICC_PROFILE\0"):
            chunks[body[12]] = body[14:]
    return b"".join(chunks[k] for k in sorted(chunks)) if chunks else None


def jpeg_bytes(image: Image.Image, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=95, subsampling=0, **options)
    return buffer.getvalue()


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG")
    out, pos = [], 8
    while pos < len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        out.append((data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]))
        pos += 12 + length
    return out


def png_bytes(image: Image.Image, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=9, **options)
    return buffer.getvalue()


def png_insert_after_ihdr(data: bytes, chunk: bytes) -> bytes:
    ihdr_end = 8 + 12 + struct.unpack(">I", data[8:12])[0]
    return data[:ihdr_end] + chunk + data[ihdr_end:]


def png_icc(data: bytes) -> bytes | None:
    for kind, body in png_chunks(data):
        if kind == b"iCCP":
            name_end = body.index(b"\0")
            check(body[name_end + 1] == 0, "iCCP compression method")
            return zlib.decompress(body[name_end + 2:])
    return None


def riff_chunk(kind: bytes, body: bytes) -> bytes:
    return kind + struct.pack("<I", len(body)) + body + (b"\0" if len(body) % 2 else b"")


def webp_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    check(data[:4] == b"RIFF" and data[8:12] == b"WEBP", "not a WebP")
    check(struct.unpack("<I", data[4:8])[0] == len(data) - 8, "RIFF size")
    out, pos = [], 12
    while pos < len(data):
        kind, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        out.append((kind, data[pos + 8:pos + 8 + size]))
        pos += 8 + size + (size & 1)
    return out


def webp_lossless_with_iccp(image: Image.Image, icc: bytes) -> bytes:
    """Extended-format lossless WebP: VP8X (ICC flag), ICCP, then the VP8L chunk libwebp wrote."""
    buffer = io.BytesIO()
    image.save(buffer, "WEBP", lossless=True, quality=100, method=6, exact=True)
    chunks = webp_chunks(buffer.getvalue())
    check([k for k, _ in chunks] == [b"VP8L"], f"Pillow wrote {[k for k, _ in chunks]}, expected a bare VP8L")
    vp8l = chunks[0][1]
    flags = 0x20 | (0x10 if image.mode == "RGBA" else 0)
    vp8x = struct.pack("<I", flags) + (image.width - 1).to_bytes(3, "little") + (image.height - 1).to_bytes(3, "little")
    body = b"WEBP" + riff_chunk(b"VP8X", vp8x) + riff_chunk(b"ICCP", icc) + riff_chunk(b"VP8L", vp8l)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def webp_icc(data: bytes) -> bytes | None:
    for kind, body in webp_chunks(data):
        if kind == b"ICCP":
            return body
    return None


TIFF_SHORT, TIFF_LONG, TIFF_RATIONAL, TIFF_UNDEFINED = 3, 4, 5, 7


def tiff_bytes(width, height, bits, photometric, values: list[int], *, order: str, rows_per_strip: int,
               extra_samples=None, icc: bytes | None = None, white_point=None, deflate=False) -> bytes:
    """A chunky TIFF in strips of `values` (samples, row after row; 8 or 16 bits, all the same width).
    Uncompressed, or with `deflate` Adobe Deflate (8) after the horizontal predictor (2), as Photoshop
    and Lightroom save 16-bit TIFFs with ZIP compression."""
    samples = len(bits)
    row_samples = width * samples
    sample_format = order + ("H" if bits[0] == 16 else "B")
    modulus = 1 << bits[0]
    strips = []
    for first in range(0, height, rows_per_strip):
        strip = b""
        for row in range(first, min(height, first + rows_per_strip)):
            line = values[row * row_samples:(row + 1) * row_samples]
            if deflate:
                line = line[:samples] + [(line[i] - line[i - samples]) % modulus for i in range(samples, row_samples)]
            strip += struct.pack(f"{order}{row_samples}{sample_format[1]}", *line)
        strips.append(zlib.compress(strip, 9) if deflate else strip)
    tags = [
        (256, TIFF_LONG, [width]),
        (257, TIFF_LONG, [height]),
        (258, TIFF_SHORT, list(bits)),
        (259, TIFF_SHORT, [8 if deflate else 1]),
        (262, TIFF_SHORT, [photometric]),
        (273, TIFF_LONG, [0] * len(strips)),  # strip offsets, filled in below
        (277, TIFF_SHORT, [samples]),
        (278, TIFF_LONG, [rows_per_strip]),
        (279, TIFF_LONG, [len(s) for s in strips]),
        (282, TIFF_RATIONAL, [(72, 1)]),
        (283, TIFF_RATIONAL, [(72, 1)]),
        (284, TIFF_SHORT, [1]),
        (296, TIFF_SHORT, [2]),
    ]
    if deflate:
        tags.append((317, TIFF_SHORT, [2]))
    if white_point is not None:
        tags.append((318, TIFF_RATIONAL, white_point))
    if extra_samples is not None:
        tags.append((338, TIFF_SHORT, list(extra_samples)))
    tags.append((339, TIFF_SHORT, [1] * samples))
    if icc is not None:
        tags.append((34675, TIFF_UNDEFINED, icc))
    tags.sort(key=lambda t: t[0])

    def encode(kind, values) -> bytes:
        if kind == TIFF_SHORT:
            return b"".join(struct.pack(order + "H", v) for v in values)
        if kind == TIFF_LONG:
            return b"".join(struct.pack(order + "I", v) for v in values)
        if kind == TIFF_RATIONAL:
            return b"".join(struct.pack(order + "II", n, d) for n, d in values)
        return bytes(values)

    def layout(strip_offsets):
        ifd_size = 2 + 12 * len(tags) + 4
        extra_at = 8 + ifd_size
        extra = b""
        entries = b""
        for tag, kind, values in tags:
            if tag == 273:
                values = strip_offsets
            payload = encode(kind, values)
            count = len(values)
            if len(payload) <= 4:
                field = payload + bytes(4 - len(payload))
            else:
                extra += bytes(len(extra) % 2)
                field = struct.pack(order + "I", extra_at + len(extra))
                extra += payload
            entries += struct.pack(order + "HHI", tag, kind, count) + field
        extra += bytes(len(extra) % 2)
        head = (b"II" if order == "<" else b"MM") + struct.pack(order + "HI", 42, 8)
        return head + struct.pack(order + "H", len(tags)) + entries + struct.pack(order + "I", 0) + extra

    provisional = layout([0] * len(strips))
    offsets, at = [], len(provisional)
    for s in strips:
        offsets.append(at)
        at += len(s)
    header = layout(offsets)
    check(len(header) == len(provisional), "TIFF layout moved")
    return header + b"".join(strips)


def tiff_icc(data: bytes) -> bytes | None:
    order = "<" if data[:2] == b"II" else ">"
    ifd = struct.unpack(order + "I", data[4:8])[0]
    count = struct.unpack(order + "H", data[ifd:ifd + 2])[0]
    for i in range(count):
        tag, kind, n, value = struct.unpack(order + "HHII", data[ifd + 2 + 12 * i:ifd + 14 + 12 * i])
        if tag == 34675:
            return data[value:value + n]
    return None


# ---------------------------------------------------------------------------
# Colour transforms
# ---------------------------------------------------------------------------

def open_profile(data: bytes):
    return ImageCms.ImageCmsProfile(io.BytesIO(data))


def description(data: bytes | None) -> str | None:
    if not data:
        return None
    try:
        return ImageCms.getProfileDescription(open_profile(data)).rstrip("\n")
    except (ImageCms.PyCMSError, OSError):
        return None


def usable(data: bytes | None) -> bool:
    """Whether lcms (Pillow's) opens the profile and builds a transform from it to sRGB."""
    if not data:
        return False
    try:
        profile = open_profile(data)
        mode = {"RGB ": "RGB", "GRAY": "L", "CMYK": "CMYK"}[data[16:20].decode("latin-1")]
        ImageCms.buildTransform(profile, SRGB, mode, "RGB", renderingIntent=INTENT, flags=FLAGS)
        return True
    except (ImageCms.PyCMSError, OSError, KeyError, ValueError):
        return False


def to_srgb(image: Image.Image, profile) -> Image.Image:
    transform = ImageCms.buildTransform(profile, SRGB, image.mode, "RGB", renderingIntent=INTENT, flags=FLAGS)
    return ImageCms.applyTransform(image, transform)


class SystemLCMS:
    """The few lcms2 calls the 16-bit references need, from Debian's liblcms2-2."""

    TYPE_RGB_8 = (4 << 16) | (3 << 3) | 1  # COLORSPACE_SH(PT_RGB) | CHANNELS_SH(3) | BYTES_SH(1)
    TYPE_RGB_16 = (4 << 16) | (3 << 3) | 2  # native-endian 16-bit

    def __init__(self, path="/usr/lib/x86_64-linux-gnu/liblcms2.so.2"):
        if not Path(path).exists():
            path = ctypes.util.find_library("lcms2") or fail("liblcms2.so.2 not found: apt-get install liblcms2-2")
        lib = ctypes.CDLL(path)
        lib.cmsGetEncodedCMMversion.restype = ctypes.c_int
        lib.cmsOpenProfileFromMem.restype = ctypes.c_void_p
        lib.cmsOpenProfileFromMem.argtypes = [ctypes.c_char_p, ctypes.c_uint32]
        lib.cmsCreate_sRGBProfile.restype = ctypes.c_void_p
        lib.cmsCreateTransform.restype = ctypes.c_void_p
        lib.cmsCreateTransform.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint32,
                                           ctypes.c_uint32, ctypes.c_uint32]
        lib.cmsDoTransform.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32]
        lib.cmsDeleteTransform.argtypes = [ctypes.c_void_p]
        lib.cmsCloseProfile.argtypes = [ctypes.c_void_p]
        self.lib = lib
        self.version = lib.cmsGetEncodedCMMversion()

    def rgb16_to_srgb8(self, icc: bytes, samples: list[tuple[int, int, int]]) -> bytes:
        lib = self.lib
        source = lib.cmsOpenProfileFromMem(icc, len(icc))
        target = lib.cmsCreate_sRGBProfile()
        check(bool(source) and bool(target), "lcms could not open the profiles")
        transform = lib.cmsCreateTransform(source, self.TYPE_RGB_16, target, self.TYPE_RGB_8, int(INTENT), int(FLAGS))
        check(bool(transform), "lcms could not build the 16-bit transform")
        flat = (ctypes.c_uint16 * (3 * len(samples)))(*[v for s in samples for v in s])
        out = (ctypes.c_uint8 * (3 * len(samples)))()
        lib.cmsDoTransform(transform, flat, out, len(samples))
        lib.cmsDeleteTransform(transform)
        lib.cmsCloseProfile(source)
        lib.cmsCloseProfile(target)
        return bytes(out)


# ---------------------------------------------------------------------------
# CIEDE2000 (the same definitions as Tests/TesseraCodecsTests/ColourDifference.swift)
# ---------------------------------------------------------------------------

def srgb8_to_lab(rgb) -> tuple[float, float, float]:
    """sRGB (IEC 61966-2-1 curve and matrix) -> XYZ -> CIELab relative to the matrix's own D65 white."""
    def linear(v):
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(v) for v in rgb)
    x = 0.4124 * r + 0.3576 * g + 0.1805 * b
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = 0.0193 * r + 0.1192 * g + 0.9505 * b
    white = (0.4124 + 0.3576 + 0.1805, 1.0, 0.0193 + 0.1192 + 0.9505)

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
    fx, fy, fz = f(x / white[0]), f(y / white[1]), f(z / white[2])
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def ciede2000(lab1, lab2) -> float:
    """Sharma, Wu & Dalal (2005), equations 2-22, kL = kC = kH = 1."""
    L1, a1, b1 = lab1
    L2, a2, b2 = lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)

    def hue(b, ap):
        if b == 0 and ap == 0:
            return 0.0
        h = math.degrees(math.atan2(b, ap))
        return h + 360 if h < 0 else h
    h1p, h2p = hue(b1, a1p), hue(b2, a2p)
    dLp = L2 - L1
    dCp = c2p - c1p
    if c1p * c2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    elif h2p - h1p > 180:
        dhp = h2p - h1p - 360
    else:
        dhp = h2p - h1p + 360
    dHp = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dhp / 2))
    Lbar = (L1 + L2) / 2
    Cbar = (c1p + c2p) / 2
    if c1p * c2p == 0:
        hbar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbar = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        hbar = (h1p + h2p + 360) / 2
    else:
        hbar = (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbar - 30)) + 0.24 * math.cos(math.radians(2 * hbar))
         + 0.32 * math.cos(math.radians(3 * hbar + 6)) - 0.20 * math.cos(math.radians(4 * hbar - 63)))
    dtheta = 30 * math.exp(-(((hbar - 275) / 25) ** 2))
    rc = 2 * math.sqrt(Cbar ** 7 / (Cbar ** 7 + 25.0 ** 7))
    sl = 1 + 0.015 * (Lbar - 50) ** 2 / math.sqrt(20 + (Lbar - 50) ** 2)
    sc = 1 + 0.045 * Cbar
    sh = 1 + 0.015 * Cbar * t
    rt = -math.sin(math.radians(2 * dtheta)) * rc
    return math.sqrt((dLp / sl) ** 2 + (dCp / sc) ** 2 + (dHp / sh) ** 2 + rt * (dCp / sc) * (dHp / sh))


# Sharma, Wu & Dalal (2005), Table 1: L1 a1 b1, L2 a2 b2, ΔE00; shared with the Swift tests.
SHARMA = [tuple(pair) for pair in json.loads((ROOT / "Tests" / "Fixtures" / "rules" / "ciede2000-sharma.json").read_text())["pairs"]]


def colour_difference(a: Image.Image, b: Image.Image) -> dict:
    """Mean and 99th percentile (nearest rank) of ΔE00 over the pixels; with alpha, only pixels where
    either image has alpha > 0 (alpha itself is not part of ΔE)."""
    check(a.size == b.size, "sizes differ")
    pa, pb = a.convert("RGBA").tobytes(), b.convert("RGBA").tobytes()
    cache: dict[tuple, tuple] = {}

    def lab(rgb):
        if rgb not in cache:
            cache[rgb] = srgb8_to_lab(rgb)
        return cache[rgb]
    values = []
    for i in range(0, len(pa), 4):
        if pa[i + 3] == 0 and pb[i + 3] == 0:
            continue
        values.append(ciede2000(lab(tuple(pa[i:i + 3])), lab(tuple(pb[i:i + 3]))))
    values.sort()
    p99 = values[max(0, math.ceil(0.99 * len(values)) - 1)]
    return {"mean": round(sum(values) / len(values), 3), "p99": round(p99, 3)}


# ---------------------------------------------------------------------------
# The fixtures
# ---------------------------------------------------------------------------

def read(path: Path) -> bytes:
    check(path.is_file(), f"{path} is missing: apt-get install -y --no-install-recommends colord-data libgs-common")
    return path.read_bytes()


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def main() -> None:
    check(Image.__version__ == "13.0.0", f"Pillow 13.0.0 expected, found {Image.__version__}")
    lcms_version = features.version("littlecms2")
    check(lcms_version == "2.19", f"Pillow's LittleCMS 2.19 expected, found {lcms_version}")
    for l1, a1, b1, l2, a2, b2, expected in SHARMA:
        check(abs(ciede2000((l1, a1, b1), (l2, a2, b2)) - expected) < 1e-4, f"CIEDE2000 pair {l1, a1, b1}")
        check(abs(ciede2000((l2, a2, b2), (l1, a1, b1)) - expected) < 1e-4, f"CIEDE2000 pair {l2, a2, b2} reversed")
    lcms = SystemLCMS()
    try:
        import pillow_heif
    except ImportError:
        fail("pillow-heif is missing: pip install pillow-heif==1.8.1 (into the Python running this script)")
    check(pillow_heif.__version__ == "1.8.1", f"pillow-heif 1.8.1 expected, found {pillow_heif.__version__}")
    pillow_heif.register_heif_opener()

    p3 = display_p3_profile()
    gray22 = gray_gamma22_profile()
    adobe = read(ADOBE_RGB_ICC)
    prophoto = read(PROPHOTO_ICC)
    a98 = read(A98_ICC)
    embedded_cmyk = read(EMBEDDED_CMYK_ICC)
    default_cmyk = read(DEFAULT_CMYK_ICC)

    # Everything here is generated except README.md (hand-written): start from an empty directory.
    if REF.exists():
        shutil.rmtree(REF)
    REF.mkdir(parents=True)
    for stale in OUT.iterdir():
        if stale.is_file() and stale.name != "README.md":
            stale.unlink()

    files: dict[str, bytes] = {}
    references: dict[str, Image.Image] = {}
    entries = []
    made: list[tuple[str, str, str | None]] = []  # printed at the end; README.md says the same in prose

    def assumed_without_file(description):
        """An assumed profile that is no file (lcms built-in, or colour stated in numbers): only described."""
        return {"description": description, "path": None, "bytes": None, "sha256": None}

    srgb_assumed = assumed_without_file("sRGB (lcms built-in, cmsCreate_sRGBProfile)")
    cmyk_assumed = {"description": description(default_cmyk), "path": str(DEFAULT_CMYK_ICC),
                    "bytes": len(default_cmyk), "sha256": hashlib.sha256(default_cmyk).hexdigest()}
    lab_assumed = assumed_without_file("CIELab D50 (lcms built-in, cmsCreateLab2Profile(NULL))")

    def add(name, data, *, fmt, colour_space, profile, hostile=False, reference=None, bits=8, alpha=None,
            profile_source=None, how_made, reference_made=None, bugs=None, assumed=None):
        files[name] = data
        entry = {
            "file": name,
            "format": fmt,
            "width": W,
            "height": H,
            "bitsPerSample": bits,
            "colourSpace": colour_space,
            "alpha": alpha,
            # lcms's description of the embedded profile (Pillow's trailing newline removed; trailing spaces
            # are the profile's own), null where there is none or it is unusable.
            "profileDescription": None if hostile else description(profile),
            "profileBytes": None if profile is None else len(profile),
            "profileSHA256": None if profile is None else hashlib.sha256(profile).hexdigest(),
            "profileSource": profile_source,
            "hostile": hostile,
            # The profile the pixels are taken to be in when the file has no usable one (else null).
            "assumedProfile": assumed,
            "reference": None,
            "bugDeltaE": bugs or {},
        }
        made.append((name, how_made, reference_made))
        if reference is not None:
            entry["reference"] = f"reference/{name}.png"
            references[name] = reference
        entries.append(entry)

    def bug_table(reference, **variants):
        return {name: colour_difference(image, reference) for name, image in variants.items()}

    def add_embedded(name, data, *, fmt, profile, profile_source, how_made, reference_made):
        """An 8-bit RGB fixture with an embedded profile, its reference Pillow's decode through that profile."""
        pixels = decoded(data).convert("RGB")
        reference = to_srgb(pixels, open_profile(profile))
        add(name, data, fmt=fmt, colour_space="RGB", profile=profile, reference=reference,
            profile_source=profile_source, bugs=bug_table(reference, profileIgnored=pixels), how_made=how_made,
            reference_made=reference_made)

    def add_p3_by_numbers(name, data, *, fmt, ignored_bug, how_made, reference_made):
        """An 8-bit RGB fixture that states Display P3 in numbers (PNG cICP, HEIF nclx) rather than in a profile,
        its reference the decode through the script's Display P3 profile (the same primaries, white and curve);
        `ignored_bug` names the bug of taking the pixels as sRGB."""
        pixels = decoded(data).convert("RGB")
        reference = to_srgb(pixels, open_profile(p3))
        add(name, data, fmt=fmt, colour_space="RGB", profile=None, reference=reference,
            assumed=assumed_without_file("Display P3, sRGB curve (H.273 primaries 12, transfer 13)"),
            bugs=bug_table(reference, **{ignored_bug: pixels}), how_made=how_made, reference_made=reference_made)

    # --- RGB 8-bit, one base JPEG shared by p3.jpg, p3-multichunk.jpg and the hostile JPEGs ---
    rgb = rgb8_image()
    base_jpeg = jpeg_bytes(rgb)
    rgb_jpeg_pixels = decoded(base_jpeg).convert("RGB")

    p3_reference = to_srgb(rgb_jpeg_pixels, open_profile(p3))
    p3_bugs = bug_table(p3_reference, profileIgnored=rgb_jpeg_pixels)
    p3_jpeg = jpeg_with_app2(base_jpeg, [p3])
    add("p3.jpg", p3_jpeg, fmt="jpeg", colour_space="RGB", profile=p3, reference=p3_reference,
        profile_source="built by the script (Display P3, ICC v4.3)", bugs=p3_bugs,
        how_made="Pillow JPEG q95 4:4:4 of the RGB test image, one APP2 ICC_PROFILE segment (1 of 1)",
        reference_made="ImageCms 8-bit: Display P3 -> sRGB")
    thirds = [p3[: len(p3) // 3], p3[len(p3) // 3: 2 * len(p3) // 3 + 5], p3[2 * len(p3) // 3 + 5:]]
    add("p3-multichunk.jpg", jpeg_with_app2(base_jpeg, thirds), fmt="jpeg", colour_space="RGB", profile=p3,
        reference=p3_reference, profile_source="built by the script (Display P3, ICC v4.3)",
        bugs=dict(p3_bugs, firstChunkOnly=p3_bugs["profileIgnored"]),
        how_made=f"same JPEG data as p3.jpg; the same profile split over three APP2 segments "
                 f"(sequence 1..3 of 3, {', '.join(str(len(c)) for c in thirds)} bytes)",
        reference_made="ImageCms 8-bit: Display P3 -> sRGB (identical to p3.jpg's)")

    # --- Adobe RGB PNG (colord's v4 profile, zlib-compressed in iCCP) ---
    add_embedded("adobe-rgb.png", png_bytes(rgb, icc_profile=adobe), fmt="png", profile=adobe,
                 profile_source=str(ADOBE_RGB_ICC), how_made="Pillow PNG, 8-bit RGB, iCCP chunk (zlib)",
                 reference_made="ImageCms 8-bit: Adobe RGB (1998) -> sRGB")

    # --- A lookup-table RGB profile (not matrix/TRC), PNG ---
    lut_rgb = lut_rgb_profile()
    add_embedded("lut-rgb.png", png_bytes(rgb, icc_profile=lut_rgb), fmt="png", profile=lut_rgb,
                 profile_source="built by the script (A2B0 lut16Type to Lab, ICC v2.1)",
                 how_made="Pillow PNG, 8-bit RGB, iCCP chunk (zlib)",
                 reference_made="ImageCms 8-bit: Warm LUT RGB -> sRGB")

    # --- ProPhoto 16-bit TIFF, big-endian ---
    rgb16 = rgb16_samples()
    prophoto_tif = tiff_bytes(W, H, (16, 16, 16), 2, [v for s in rgb16 for v in s], order=">", rows_per_strip=20,
                              icc=prophoto, deflate=True)
    prophoto_tif_pixels = decoded(prophoto_tif)
    check(prophoto_tif_pixels.mode == "RGB", f"Pillow decodes prophoto-16.tif as {prophoto_tif_pixels.mode}")
    check(prophoto_tif_pixels.tobytes() == bytes(v >> 8 for s in rgb16 for v in s),
          "Pillow's decode of prophoto-16.tif is not the high bytes of the samples written")
    prophoto16_reference = Image.frombytes("RGB", (W, H), lcms.rgb16_to_srgb8(prophoto, rgb16))
    low_bytes = Image.frombytes("RGB", (W, H), bytes(v & 0xFF for s in rgb16 for v in s))
    prophoto_8bit_path = to_srgb(prophoto_tif_pixels, open_profile(prophoto))
    add("prophoto-16.tif", prophoto_tif, fmt="tiff", colour_space="RGB", profile=prophoto, bits=16,
        reference=prophoto16_reference, profile_source=str(PROPHOTO_ICC),
        bugs=bug_table(prophoto16_reference, profileIgnored=prophoto_tif_pixels,
                       highBytesThen8BitTransform=prophoto_8bit_path,
                       byteOrderIgnored=to_srgb(low_bytes, open_profile(prophoto))),
        how_made="hand-written big-endian (MM) TIFF, 3 x 16-bit RGB, Adobe Deflate after the horizontal predictor, "
                 "20 rows per strip (20+20+8), ICC profile in tag 34675",
        reference_made="lcms2 through ctypes (Debian liblcms2-2): the 16-bit samples, TYPE_RGB_16 -> "
                       "TYPE_RGB_8, ProPhoto -> lcms built-in sRGB, perceptual + BPC")

    # --- ProPhoto lossless WebP ---
    prophoto_webp = webp_lossless_with_iccp(rgb, prophoto)
    webp_pixels = decoded(prophoto_webp).convert("RGB")
    check(webp_pixels.tobytes() == rgb.tobytes(), "lossless WebP is not lossless")
    webp_reference = to_srgb(webp_pixels, open_profile(prophoto))
    add("prophoto.webp", prophoto_webp, fmt="webp", colour_space="RGB", profile=prophoto, reference=webp_reference,
        profile_source=str(PROPHOTO_ICC), bugs=bug_table(webp_reference, profileIgnored=webp_pixels),
        how_made="libwebp lossless (via Pillow) VP8L chunk, wrapped by hand as RIFF: VP8X (ICC flag 0x20), "
                 "ICCP, VP8L",
        reference_made="ImageCms 8-bit: ProPhoto -> sRGB")

    # --- Gray gamma 2.2 JPEG ---
    gray = gray8_image()
    gray_jpeg = jpeg_with_app2(jpeg_bytes(gray), [gray22])
    gray_pixels = decoded(gray_jpeg)
    check(gray_pixels.mode == "L", "gray JPEG decodes as L")
    gray_reference = to_srgb(gray_pixels, open_profile(gray22))
    add("gray-gamma22.jpg", gray_jpeg, fmt="jpeg", colour_space="GRAY", profile=gray22, reference=gray_reference,
        profile_source="built by the script (Gray Gamma 2.2, ICC v2.1)",
        bugs=bug_table(gray_reference, profileIgnored=gray_pixels.convert("RGB"),
                       linearGray=to_srgb(gray_pixels, open_profile(gray_linear_profile()))),
        how_made="Pillow JPEG q95, one component, one APP2 ICC_PROFILE segment",
        reference_made="ImageCms 8-bit: Gray Gamma 2.2 (L) -> sRGB (RGB)")

    # --- CMYK JPEGs (Adobe APP14; Pillow stores inverted CMYK as Photoshop does) ---
    cmyk = cmyk8_image()
    cmyk_profile_jpeg = jpeg_bytes(cmyk, icc_profile=embedded_cmyk)
    cmyk_noprofile_jpeg = jpeg_bytes(cmyk)
    check(jpeg_icc(cmyk_noprofile_jpeg) is None, "cmyk-noprofile.jpg has a profile")
    check_adobe_inverted(cmyk_noprofile_jpeg)
    cmyk_pixels = decoded(cmyk_profile_jpeg)
    check(cmyk_pixels.mode == "CMYK", "CMYK JPEG decodes as CMYK")
    check(decoded(cmyk_noprofile_jpeg).tobytes() == cmyk_pixels.tobytes(), "CMYK JPEGs decode differently")
    cmyk_reference = to_srgb(cmyk_pixels, open_profile(embedded_cmyk))
    cmyk_default_reference = to_srgb(cmyk_pixels, open_profile(default_cmyk))
    naive = cmyk_pixels.convert("RGB")
    not_inverted = Image.frombytes("CMYK", (W, H), bytes(255 - v for v in cmyk_pixels.tobytes()))
    add("cmyk-profile.jpg", cmyk_profile_jpeg, fmt="jpeg", colour_space="CMYK", profile=embedded_cmyk,
        reference=cmyk_reference, profile_source=str(EMBEDDED_CMYK_ICC),
        bugs=bug_table(cmyk_reference, defaultProfileInsteadOfEmbedded=cmyk_default_reference,
                       unmanagedConversion=naive,
                       adobeInversionIgnored=to_srgb(not_inverted, open_profile(embedded_cmyk))),
        how_made="Pillow JPEG q95 of CMYK ink amounts: Adobe APP14 (transform 0, no YCCK), samples stored "
                 "inverted (255 = no ink) as Photoshop writes them, APP2 ICC_PROFILE after APP14",
        reference_made="ImageCms 8-bit: the embedded ps_cmyk.icc (CMYK) -> sRGB")
    add("cmyk-noprofile.jpg", cmyk_noprofile_jpeg, fmt="jpeg", colour_space="CMYK", profile=None,
        reference=cmyk_default_reference, assumed=cmyk_assumed,
        bugs=bug_table(cmyk_default_reference, unmanagedConversion=naive,
                       adobeInversionIgnored=to_srgb(not_inverted, open_profile(default_cmyk))),
        how_made="the same CMYK JPEG as cmyk-profile.jpg without the APP2 segment",
        reference_made=f"ImageCms 8-bit: the default CMYK profile {DEFAULT_CMYK_ICC} "
                       f"({description(default_cmyk)}) -> sRGB")

    # --- CIELab TIFF (Photometric 8, signed a/b), D50 white point tag ---
    lab = lab_bytes(lab8_values())
    lab_file_bytes = bytes(v if i % 3 == 0 else v ^ 0x80 for i, v in enumerate(lab))  # offset -> signed bytes
    lab_tif = tiff_bytes(W, H, (8, 8, 8), 8, list(lab_file_bytes), order="<", rows_per_strip=16,
                         white_point=[(3457, 10000), (3585, 10000)], deflate=True)
    lab_pixels = decoded(lab_tif)
    # Pillow keeps mode "LAB" in memory with a and b offset by 128 (what lcms's TYPE_Lab_8 wants); its "LAB"
    # raw packer and unpacker convert from and to the signed bytes of a Photometric 8 TIFF.
    check(lab_pixels.mode == "LAB" and lab_pixels.tobytes() == lab_file_bytes, "Pillow's decode of lab.tif")
    check(lab_pixels.getpixel((8, 0)) == tuple(lab[3 * 8:3 * 8 + 3]), "Pillow's LAB is not offset by 128 in memory")
    lab_reference = to_srgb(lab_pixels, ImageCms.createProfile("LAB"))
    misread = Image.frombytes("LAB", (W, H), lab)  # in memory: the stored signed bytes taken as offset ones
    add("lab.tif", lab_tif, fmt="tiff", colour_space="Lab", profile=None, reference=lab_reference, assumed=lab_assumed,
        bugs=bug_table(lab_reference, abSignedReadAsUnsigned=to_srgb(misread, ImageCms.createProfile("LAB")),
                       noChromaticAdaptation=lab_to_srgb_unadapted(lab_pixels)),
        how_made="hand-written little-endian TIFF, Photometric 8 (CIELab): L 0..255 = 0..100, a and b signed "
                 "bytes; WhitePoint tag D50 (0.3457, 0.3585); Adobe Deflate after the horizontal predictor, "
                 "16 rows per strip",
        reference_made='ImageCms 8-bit: ImageCms.createProfile("LAB") (lcms built-in Lab, D50) -> sRGB')

    # --- 16-bit RGBA TIFF with associated alpha ---
    straight = rgba16_samples()
    premultiplied = premultiply16(straight)
    rgba_tif = tiff_bytes(W, H, (16, 16, 16, 16), 2, [v for s in premultiplied for v in s],
                          order="<", rows_per_strip=12, extra_samples=[1], icc=a98)
    rgba_pixels = decoded(rgba_tif)
    check(rgba_pixels.mode == "RGBA", f"Pillow decodes rgba16-associated.tif as {rgba_pixels.mode}")
    unpremultiplied = unpremultiply16(premultiplied)
    colour8 = lcms.rgb16_to_srgb8(a98, [s[:3] for s in unpremultiplied])
    rgba_reference_bytes = bytearray()
    for i, s in enumerate(unpremultiplied):
        alpha8 = (s[3] * 255 + 32767) // 65535
        check((alpha8 == 0) == (s[3] == 0), "alpha under 1/255 that is not zero")
        rgba_reference_bytes += (colour8[3 * i:3 * i + 3] if alpha8 else b"\0\0\0") + bytes([alpha8])
    rgba_reference = Image.frombytes("RGBA", (W, H), bytes(rgba_reference_bytes))
    a98_profile = open_profile(a98)
    premultiplied8 = Image.frombytes("RGBA", (W, H), bytes(
        v for s in premultiplied for v in ((s[0] * 255 + 32767) // 65535, (s[1] * 255 + 32767) // 65535,
                                           (s[2] * 255 + 32767) // 65535, (s[3] * 255 + 32767) // 65535)))
    transform_then_divide = to_srgb(premultiplied8.convert("RGB"), a98_profile).convert("RGBA")
    transform_then_divide.putalpha(premultiplied8.getchannel("A"))
    transform_then_divide = Image.frombytes("RGBa", (W, H), transform_then_divide.tobytes()).convert("RGBA")
    with_alpha = lambda rgb_image: Image.merge("RGBA", (*rgb_image.split(), rgba_reference.getchannel("A")))
    add("rgba16-associated.tif", rgba_tif, fmt="tiff", colour_space="RGB", profile=a98, bits=16,
        alpha="associated", reference=rgba_reference, profile_source=str(A98_ICC),
        bugs=bug_table(rgba_reference,
                       notUnpremultiplied=with_alpha(to_srgb(premultiplied8.convert("RGB"), a98_profile)),
                       unpremultipliedAt8Bits=with_alpha(to_srgb(rgba_pixels.convert("RGB"), a98_profile)),
                       transformedBeforeUnpremultiplying=transform_then_divide,
                       profileIgnored=with_alpha(rgba_pixels.convert("RGB"))),
        how_made="hand-written little-endian TIFF, 4 x 16-bit, ExtraSamples = 1 (associated alpha), colour "
                 "premultiplied at 16 bits (round(c * a / 65535)), uncompressed, 12 rows per strip, "
                 "Adobe-RGB-compatible profile in tag 34675",
        reference_made="un-premultiplied at 16 bits (round(c * 65535 / a), 0 where a = 0), then lcms2 through "
                       "ctypes TYPE_RGB_16 -> TYPE_RGB_8 (a98.icc -> sRGB, perceptual + BPC); alpha "
                       "round(a / 257); colour 0 where alpha is 0; RGBA PNG")

    # --- sRGB chunk only ---
    srgb_png = png_insert_after_ihdr(png_bytes(rgb), png_chunk(b"sRGB", b"\0"))
    srgb_pixels = decoded(srgb_png).convert("RGB")
    add("srgb-tagged.png", srgb_png, fmt="png", colour_space="RGB", profile=None, reference=srgb_pixels,
        assumed=srgb_assumed,
        how_made="Pillow PNG, 8-bit RGB, an sRGB chunk (perceptual) inserted after IHDR; no iCCP, gAMA or cHRM",
        reference_made="the decoded pixels unchanged")

    # --- 16-bit PNG with a profile: converted at 16 bits, like prophoto-16.tif ---
    prophoto_png = png16_rgb(W, H, rgb16, icc=prophoto)
    prophoto_png_pixels = decoded(prophoto_png)
    check(prophoto_png_pixels.tobytes() == prophoto_tif_pixels.tobytes(),
          "Pillow's decode of prophoto-16.png is not the high bytes of the samples written")
    add("prophoto-16.png", prophoto_png, fmt="png", colour_space="RGB", profile=prophoto, bits=16,
        reference=prophoto16_reference, profile_source=str(PROPHOTO_ICC),
        bugs=bug_table(prophoto16_reference, profileIgnored=prophoto_png_pixels,
                       highBytesThen8BitTransform=prophoto_8bit_path),
        how_made="hand-written PNG, 16-bit RGB (big-endian samples, as PNG stores them), the same samples as "
                 "prophoto-16.tif, iCCP (zlib) with ROMM RGB, filter 0, one IDAT",
        reference_made="identical to prophoto-16.tif's (lcms2 TYPE_RGB_16 -> TYPE_RGB_8 from the 16-bit samples)")

    # --- Colour stated in numbers, no profile: PNG gAMA + cHRM, PNG cICP, HEIF nclx ---
    rgb_png = png_bytes(rgb)
    rgb_pixels = decoded(rgb_png).convert("RGB")
    adobe_primaries = ((0.3127, 0.3290), (0.64, 0.33), (0.21, 0.71), (0.15, 0.06))
    chrm = png_chunk(b"cHRM", b"".join(struct.pack(">II", round(x * 100000), round(y * 100000))
                                       for x, y in adobe_primaries))
    gamma_png = png_insert_after_ihdr(png_insert_after_ihdr(rgb_png, chrm), png_chunk(b"gAMA", struct.pack(">I", 55556)))
    gamma_reference = rgb_by_numbers(rgb_pixels, adobe_primaries, lambda v: v ** (100000 / 55556))
    add("gamma18-chrm.png", gamma_png, fmt="png", colour_space="RGB", profile=None, reference=gamma_reference,
        assumed=assumed_without_file("PNG gAMA 0.55556 cHRM"),
        bugs=bug_table(gamma_reference, chunksIgnored=rgb_pixels,
                       gammaOnly=rgb_by_numbers(rgb_pixels, SRGB_PRIMARIES, lambda v: v ** (100000 / 55556)),
                       gammaNotInverted=rgb_by_numbers(rgb_pixels, adobe_primaries, lambda v: v ** 0.55556)),
        how_made="Pillow PNG, 8-bit RGB, then gAMA 55556 (decoding exponent 1/0.55556 = 1.8) and cHRM with "
                 "Adobe RGB (1998) primaries and D65 white inserted after IHDR; no iCCP, no sRGB",
        reference_made="computed here in floating point, not by lcms: stored^1.8 -> XYZ by the cHRM primaries -> "
                       "linear sRGB (the sRGB matrix; both whites D65) -> the sRGB curve, rounded")
    cicp_png = png_insert_after_ihdr(png_insert_after_ihdr(rgb_png, png_chunk(b"sRGB", b"\0")),
                                     png_chunk(b"cICP", bytes([12, 13, 0, 1])))
    add_p3_by_numbers(
        "p3-cicp.png", cicp_png, fmt="png", ignored_bug="cicpIgnored",
        how_made="Pillow PNG, 8-bit RGB, then cICP (12, 13, 0, 1: Display P3 primaries, sRGB transfer, RGB, full "
                 "range) and an sRGB chunk, which cICP overrides (PNG 3rd edition), inserted after IHDR",
        reference_made="ImageCms 8-bit: the script's Display P3 profile (the same primaries, white and curve) -> sRGB")
    srgb_wins = png_insert_after_ihdr(png_insert_after_ihdr(rgb_png, png_chunk(b"gAMA", struct.pack(">I", 100000))),
                                      png_chunk(b"sRGB", b"\0"))
    add("srgb-over-gamma.png", srgb_wins, fmt="png", colour_space="RGB", profile=None, reference=rgb_pixels,
        assumed=srgb_assumed,
        bugs=bug_table(rgb_pixels, gammaApplied=rgb_by_numbers(rgb_pixels, SRGB_PRIMARIES, lambda v: v)),
        how_made="Pillow PNG, 8-bit RGB, with an sRGB chunk and a gAMA of 100000 (linear), which the sRGB chunk "
                 "overrides (PNG: sRGB wins over gAMA and cHRM)",
        reference_made="the decoded pixels unchanged")
    nclx_heic = heic_bytes(rgb, nclx_profile={"color_primaries": 12, "transfer_characteristics": 13,
                                               "matrix_coefficients": 6, "full_range_flag": 1})
    add_p3_by_numbers(
        "p3-nclx.heic", nclx_heic, fmt="heif", ignored_bug="nclxIgnored",
        how_made="pillow-heif 1.8.1 HEIC (x265, quality 95, 4:4:4) of the RGB test image with an nclx colr box: "
                 "primaries 12 (Display P3), transfer 13 (sRGB), matrix 6 (BT.601), full range; no ICC",
        reference_made="pillow-heif's decode, then ImageCms 8-bit: the script's Display P3 profile -> sRGB")
    add_embedded("adobe-rgb.avif", avif_bytes(rgb, icc_profile=adobe), fmt="heif", profile=adobe,
                 profile_source=str(ADOBE_RGB_ICC),
                 how_made="Pillow 13 AVIF (libavif, quality 95, 4:4:4) of the RGB test image with an ICC colr box "
                          "(Adobe RGB)",
                 reference_made="Pillow's decode, then ImageCms 8-bit: Adobe RGB (1998) -> sRGB")

    # --- Hostile: the profile is unusable, the pixels are fine (expected: treat as sRGB) ---
    hostile_made = "the decoded pixels unchanged: a profile that cannot be used is ignored and the pixels taken as sRGB"
    add("hostile-zero-length.jpg", jpeg_with_app2(base_jpeg, [b""]), fmt="jpeg", colour_space="RGB",
        profile=b"", hostile=True, assumed=srgb_assumed, reference=rgb_jpeg_pixels, reference_made=hostile_made,
        how_made="the JPEG of p3.jpg with one APP2 ICC_PROFILE segment (1 of 1) carrying no profile bytes")
    huge = huge_tagcount_profile(p3)
    add("hostile-huge-tagcount.jpg", jpeg_with_app2(base_jpeg, [huge]), fmt="jpeg", colour_space="RGB",
        profile=huge, hostile=True, assumed=srgb_assumed, reference=rgb_jpeg_pixels, reference_made=hostile_made,
        how_made=f"the JPEG of p3.jpg with a {len(huge)}-byte profile: the Display P3 header (size field "
                 f"correct) whose tag count is 0xFFFFFFF0, followed by 3 tag entries")
    bad_signature = bytearray(p3)
    bad_signature[36:40] = b"xxxx"
    bad_signature = bytes(bad_signature)
    bad_png = png_bytes(rgb, icc_profile=bad_signature)
    add("hostile-bad-signature.png", bad_png, fmt="png", colour_space="RGB", profile=bad_signature, hostile=True,
        assumed=srgb_assumed,
        reference=decoded(bad_png).convert("RGB"), reference_made=hostile_made,
        how_made="the RGB image as PNG with an iCCP holding the Display P3 profile with 'acsp' (bytes 36-39) "
                 "replaced by 'xxxx'")
    half = p3[: len(p3) // 2]
    truncated_webp = webp_lossless_with_iccp(rgb, half)
    add("hostile-truncated.webp", truncated_webp, fmt="webp", colour_space="RGB", profile=half, hostile=True,
        assumed=srgb_assumed,
        reference=decoded(truncated_webp).convert("RGB"), reference_made=hostile_made,
        how_made=f"lossless WebP like prophoto.webp whose ICCP chunk holds the first {len(half)} of the "
                 f"{len(p3)} bytes of the Display P3 profile (its header still claims {len(p3)})")

    # --- Check what was made, then write ---
    extractors = {"jpeg": jpeg_icc, "png": png_icc, "webp": webp_icc, "tiff": tiff_icc,
                  "heif": lambda data: decoded(data).info.get("icc_profile") or None}
    for entry in entries:
        data = files[entry["file"]]
        embedded = extractors[entry["format"]](data)
        if entry["profileSHA256"] is None:
            check(embedded is None, f"{entry['file']} carries a profile")
        else:
            check(embedded is not None and hashlib.sha256(embedded).hexdigest() == entry["profileSHA256"],
                  f"{entry['file']}: the embedded profile is not the one recorded")
        image = decoded(data)
        check(image.size == (W, H), f"{entry['file']} size")
        if not entry["hostile"] and entry["profileSHA256"] is not None:
            check(entry["profileDescription"] is not None, f"lcms cannot open the profile of {entry['file']}")
        if entry["hostile"]:
            check(not usable(embedded), f"lcms can use the hostile profile of {entry['file']}")
        elif embedded is not None:
            check(usable(embedded), f"lcms cannot use the profile of {entry['file']}")
    check(decoded(files["p3-multichunk.jpg"]).info.get("icc_profile") == p3, "Pillow does not reassemble the chunks")
    check(decoded(files["p3-multichunk.jpg"]).tobytes() == decoded(p3_jpeg).tobytes(), "p3 JPEGs decode differently")

    for name, data in files.items():
        (OUT / name).write_bytes(data)
    for name, image in references.items():
        check(image.mode in ("RGB", "RGBA"), f"reference of {name} is {image.mode}")
        # A bare copy of the pixels: applyTransform's output carries lcms's sRGB profile (with today's date)
        # in info["icc_profile"], which PNG would embed.
        (REF / f"{name}.png").write_bytes(png_bytes(Image.frombytes(image.mode, image.size, image.tobytes())))
    # One fixture per line: the directory counts against the 4 MiB that scripts/make-fixtures.py allows.
    lines = ",\n".join("  " + json.dumps(entry, ensure_ascii=False) for entry in entries)
    (OUT / "manifest.json").write_text("[\n" + lines + "\n]\n")

    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    for p in sorted(OUT.rglob("*")):
        if p.is_file():
            print(f"{p.stat().st_size:8d}  {p.relative_to(OUT)}")
    print(f"{len(entries)} fixtures, {len(references)} references, {total} bytes total "
          f"(system lcms {lcms.version}, Pillow lcms {features.version('littlecms2')})")
    for (name, how, reference_how), entry in zip(made, entries):
        print(f"{name}\n  made: {how}\n  reference: {reference_how}\n  bugs (ΔE00 against the reference): "
              f"{json.dumps(entry['bugDeltaE'])}")


def lab_to_srgb_unadapted(image: Image.Image) -> Image.Image:
    """A decoder's mistake, for the bug table: Lab (D50) -> XYZ (D50), then the D65 sRGB matrix with no
    chromatic adaptation (white comes out yellowish)."""
    inverse = mat_inv([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])

    def finv(t):
        return t ** 3 if t > 6 / 29 else 3 * (6 / 29) ** 2 * (t - 4 / 29)

    def encode(c):
        c = min(max(c, 0.0), 1.0)
        return round(255 * (12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055))
    out = bytearray()
    for y in range(image.height):
        for x in range(image.width):
            L8, a8, b8 = image.getpixel((x, y))
            fy = (L8 * 100 / 255 + 16) / 116
            xyz = [D50[0] * finv(fy + (a8 - 128) / 500), D50[1] * finv(fy), D50[2] * finv(fy - (b8 - 128) / 200)]
            out += bytes(encode(c) for c in mat_vec(inverse, xyz))
    return Image.frombytes("RGB", image.size, bytes(out))


def gray_linear_profile() -> bytes:
    """A gamma-1.0 gray profile, only to measure how far a decoder that treats gray as linear is off."""
    curv = b"curv\0\0\0\0" + struct.pack(">I", 0)
    return build_profile(0x02100000, b"mntr", b"GRAY", [
        (b"desc", desc_v2_tag("Linear gray")), (b"wtpt", xyz_tag(D50)), (b"kTRC", curv)])


SRGB_PRIMARIES = ((0.3127, 0.3290), (0.64, 0.33), (0.30, 0.60), (0.15, 0.06))


def rgb_to_xyz_matrix(primaries):
    """The RGB -> XYZ matrix of white and primaries ((x, y) each): columns scaled so that RGB 1,1,1 is the white."""
    white, *rgb = primaries
    columns = [xy_to_xyz(x, y) for x, y in rgb]
    m = [[columns[c][r] for c in range(3)] for r in range(3)]
    scale = mat_vec(mat_inv(m), xy_to_xyz(*white))
    return [[m[r][c] * scale[c] for c in range(3)] for r in range(3)]


def rgb_by_numbers(image: Image.Image, primaries, linearise) -> Image.Image:
    """8-bit RGB in the space of `primaries` (D65 white, as sRGB's) whose curve is `linearise`, converted to 8-bit
    sRGB in floating point: the independent reference for colour a file states in numbers."""
    check(primaries[0] == SRGB_PRIMARIES[0], "only D65 whites here: no chromatic adaptation is done")
    to_srgb_linear = mat_mul(mat_inv(rgb_to_xyz_matrix(SRGB_PRIMARIES)), rgb_to_xyz_matrix(primaries))

    def encode(v):
        v = min(1.0, max(0.0, v))
        return round(255 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055))
    out = bytearray()
    data = image.convert("RGB").tobytes()
    for i in range(0, len(data), 3):
        linear = [linearise(v / 255) for v in data[i:i + 3]]
        out += bytes(encode(v) for v in mat_vec(to_srgb_linear, linear))
    return Image.frombytes("RGB", image.size, bytes(out))


def png16_rgb(width: int, height: int, samples, *, icc: bytes) -> bytes:
    """A 16-bit RGB PNG of `samples` (row after row), big-endian, filter 0, with `icc` in iCCP."""
    raw = bytearray()
    for y in range(height):
        raw += b"\0" + b"".join(struct.pack(">HHH", *s) for s in samples[y * width:(y + 1) * width])
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 0))
            + png_chunk(b"iCCP", b"ROMM RGB\0\0" + zlib.compress(icc, 9))
            + png_chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + png_chunk(b"IEND", b""))


def heic_bytes(image: Image.Image, **options) -> bytes:
    import pillow_heif
    buffer = io.BytesIO()
    pillow_heif.from_pillow(image).save(buffer, quality=95, chroma=444, **options)
    return buffer.getvalue()


def avif_bytes(image: Image.Image, **options) -> bytes:
    check(features.check("avif"), "this Pillow has no AVIF support")
    buffer = io.BytesIO()
    # 4:4:4: with subsampled chroma the result would depend on each decoder's chroma upsampling
    # (libheif 1.15's and libavif's differ by up to 140 levels at this image's sharp colour edges).
    image.save(buffer, "AVIF", quality=95, subsampling="4:4:4", **options)
    return buffer.getvalue()


def check_adobe_inverted(data: bytes) -> None:
    """Pillow writes an Adobe APP14 segment (transform 0: plain CMYK, no YCCK) and inverted samples."""
    app14 = [data[s + 4:e] for m, s, e in jpeg_segments(data) if m == 0xEE]
    check(len(app14) == 1 and app14[0][:5] == b"Adobe", "no Adobe APP14 in the CMYK JPEG")
    check(app14[0][11] == 0, f"APP14 transform is {app14[0][11]}, expected 0 (CMYK)")
    # Decode the stored samples without Pillow's inversion: a white (no ink) area must be stored as 255.
    white = Image.new("CMYK", (16, 16), (0, 0, 0, 0))
    image = Image.open(io.BytesIO(jpeg_bytes(white)))
    image.tile = [(image.tile[0][0], image.tile[0][1], image.tile[0][2], ("CMYK", ""))]
    image.load()
    check(set(image.tobytes()) == {255}, "Pillow does not store no-ink as 255")


if __name__ == "__main__":
    main()
