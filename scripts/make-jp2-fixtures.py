#!/usr/bin/env python3
"""Writes the JPEG 2000 fixtures in Tests/Fixtures/jpeg2000/ (deterministic: the same bytes every run).

Needs, from Debian: `libopenjp2-tools` (opj_compress 2.5) and `openjph-tools` (ojph_compress, for HTJ2K).
No Python packages: the source images are written here as PNM/PAM from a fixed pseudo-random pattern.

What each file is for (tests: Tests/TesseraCodecsTests/JPEG2000Tests.swift):
* lossless-rgb.jp2      67x49 RGB, reversible 5/3, 4 resolutions, one tile: bit-exact against opj_decompress.
* lossy-tiled.jp2       256x192 RGB, 9/7 at 16:1, 64x64 tiles, 5 resolutions, RPCL: regions at every level.
* precincts.j2k         raw codestream, 200x150 RGB, precincts 64/32, LRCP, 3 layers, PLT and TLM markers.
* gray16.jp2            61x47 16-bit gray, lossless.
* rgba.jp2              64x48 RGB + alpha (from a PAM), lossless.
* subsampled.j2k        64x48 three components, the second and third at half size on the grid (4:2:0).
* subsampled-offset.j2k  67x49 three components all at half width on the grid, the image at (3, 1) on
                        it (as the conformance suite's e2_colr and zoo2): upsampled, as opj_decompress -upsample.
* subsampled-gray.j2k   62x49 one gray component at half width (as p1_01): every level stretched.
* tiny-tiles.j2k        12x12 RGB in 16 tiles of 3x3 (as p1_06): few tiles, however small, are read.
* lone-marker.j2k       lossless-rgb's codestream with a reserved 0xFF30 marker (no segment) in its
                        main header (as p0_02): skipped, as OpenJPEG skips it.
* icc.jp2               lossless-rgb's codestream in JP2 boxes whose colr box holds an ICC profile
                        (ghostscript's a98.icc, Adobe RGB compatible), written here box by box.
* htj2k.j2c             HTJ2K (Part 15) codestream of the same 200x150 image, by ojph_compress.
* hostile-*.j2k         valid codestreams whose SIZ is rewritten here: a 100000x100000 grid, 65536+ tiles,
                        16384 components, a box length past the end. Each must be refused with a typed error
                        before OpenJPEG allocates.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "jpeg2000")
ICC = "/usr/share/color/icc/ghostscript/a98.icc"


def pattern(width: int, height: int, channels: int, maximum: int = 255) -> bytes:
    """Gradients, a disc and noise from a fixed LCG: nothing symmetric, every channel different."""
    seed = 12345
    out = bytearray()
    sample = 2 if maximum > 255 else 1
    for y in range(height):
        for x in range(width):
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            noise = (seed >> 16) % 17 - 8
            inside = (x - width * 0.6) ** 2 + (y - height * 0.4) ** 2 < (min(width, height) * 0.3) ** 2
            values = [
                x * 255 // max(width - 1, 1),
                y * 255 // max(height - 1, 1),
                (x + y) * 255 // max(width + height - 2, 1),
                255 - x * 200 // max(width - 1, 1),
            ]
            for c in range(channels):
                v = values[c] if not inside or c == 3 else 255 - values[c]
                v = min(255, max(0, v + noise))
                if maximum > 255:
                    v = v * 257 + (x * 7 + y * 13) % 257  # low bits that matter
                    v = min(v, maximum)
                out += v.to_bytes(sample, "big")
    return bytes(out)


def pnm(path: str, width: int, height: int, channels: int, maximum: int = 255) -> None:
    data = pattern(width, height, channels, maximum)
    with open(path, "wb") as f:
        if channels == 4:
            f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL %d\nTUPLTYPE RGB_ALPHA\nENDHDR\n" % (width, height, maximum))
        else:
            f.write(b"%s\n%d %d\n%d\n" % (b"P6" if channels == 3 else b"P5", width, height, maximum))
        f.write(data)


def run(*args: str) -> None:
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def box(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", 8 + len(body)) + kind + body


def jp2_with_icc(codestream: bytes, width: int, height: int, profile: bytes) -> bytes:
    ihdr = struct.pack(">IIHBBBB", height, width, 3, 7, 7, 0, 0)
    colr = bytes([2, 0, 0]) + profile
    return (
        box(b"jP  ", b"\r\n\x87\n")
        + box(b"ftyp", b"jp2 " + struct.pack(">I", 0) + b"jp2 ")
        + box(b"jp2h", box(b"ihdr", ihdr) + box(b"colr", colr))
        + box(b"jp2c", codestream)
    )


def siz_offset(codestream: bytes) -> int:
    assert codestream[0:4] == b"\xff\x4f\xff\x51"
    return 4  # Lsiz follows SOC and the SIZ marker


def rewrite_siz(codestream: bytes, **fields: int) -> bytes:
    """Rewrites SIZ fields (Xsiz, Ysiz, XTsiz, YTsiz, Csiz) in place."""
    data = bytearray(codestream)
    base = siz_offset(codestream) + 2 + 2  # past Lsiz and Rsiz
    names = ["Xsiz", "Ysiz", "XOsiz", "YOsiz", "XTsiz", "YTsiz", "XTOsiz", "YTOsiz"]
    for name, value in fields.items():
        if name == "Csiz":
            struct.pack_into(">H", data, base + 32, value)
        else:
            struct.pack_into(">I", data, base + 4 * names.index(name), value)
    return bytes(data)


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if name != "README.md":
            os.remove(os.path.join(OUT, name))
    with tempfile.TemporaryDirectory() as scratch:
        def src(name: str, width: int, height: int, channels: int, maximum: int = 255) -> str:
            path = os.path.join(scratch, name)
            pnm(path, width, height, channels, maximum)
            return path

        def out(name: str) -> str:
            return os.path.join(OUT, name)

        rgb67 = src("rgb67.ppm", 67, 49, 3)
        run("opj_compress", "-i", rgb67, "-o", out("lossless-rgb.jp2"), "-n", "4")
        rgb256 = src("rgb256.ppm", 256, 192, 3)
        run("opj_compress", "-i", rgb256, "-o", out("lossy-tiled.jp2"), "-r", "16", "-I", "-t", "64,64", "-n", "5", "-p", "RPCL")
        rgb200 = src("rgb200.ppm", 200, 150, 3)
        run("opj_compress", "-i", rgb200, "-o", out("precincts.j2k"), "-r", "40,20,10", "-n", "4", "-c", "[64,64],[32,32]",
            "-p", "LRCP", "-PLT", "-TLM")
        gray16 = src("gray16.pgm", 61, 47, 1, 65535)
        run("opj_compress", "-i", gray16, "-o", out("gray16.jp2"), "-n", "3")
        rgba = src("rgba.pam", 64, 48, 4)
        run("opj_compress", "-i", rgba, "-o", out("rgba.jp2"), "-n", "3")
        raw = os.path.join(scratch, "yuv.raw")
        with open(raw, "wb") as f:
            f.write(pattern(64, 48, 1) + pattern(32, 24, 1)[::-1] + bytes(reversed(pattern(32, 24, 1))))
        run("opj_compress", "-i", raw, "-o", out("subsampled.j2k"), "-F", "64,48,3,8,u@1x1:2x2:2x2", "-n", "3", "-mct", "0")
        run("ojph_compress", "-i", rgb200, "-o", out("htj2k.j2c"), "-num_decomps", "3")
        planes = os.path.join(scratch, "planes.raw")
        with open(planes, "wb") as f:
            # ⌈67/2⌉×49 samples a plane, as opj_compress reads raw planes (it warns that it used fewer:
            # the grid from 3 to 70 holds 33 columns of them). Every component at half width, so
            # that opj_decompress does not take the three for YCC (it does when the first is
            # subsampled alike across and down).
            f.write(pattern(34, 49, 1) + pattern(34, 49, 1)[::-1] + bytes(reversed(pattern(34, 49, 1))))
        run("opj_compress", "-i", planes, "-o", out("subsampled-offset.j2k"), "-F", "67,49,3,8,u@2x1:2x1:2x1", "-n", "3", "-mct", "0",
            "-d", "3,1")
        half = os.path.join(scratch, "half.raw")
        with open(half, "wb") as f:
            f.write(pattern(31, 49, 1))
        run("opj_compress", "-i", half, "-o", out("subsampled-gray.j2k"), "-F", "62,49,1,8,u@2x1", "-n", "3")
        run("opj_compress", "-i", src("rgb12.ppm", 12, 12, 3), "-o", out("tiny-tiles.j2k"), "-t", "3,3", "-n", "1")
        lossless_cs = os.path.join(scratch, "lossless.j2k")
        run("opj_compress", "-i", rgb67, "-o", lossless_cs, "-n", "4")
        with open(lossless_cs, "rb") as f:
            codestream = f.read()
        with open(ICC, "rb") as f:
            profile = f.read()
        with open(out("icc.jp2"), "wb") as f:
            f.write(jp2_with_icc(codestream, 67, 49, profile))
        with open(out("lone-marker.j2k"), "wb") as f:
            # After SIZ's segment: a marker of the reserved range 0xFF30–0xFF3F, which has none.
            at = siz_offset(codestream) + struct.unpack(">H", codestream[siz_offset(codestream):siz_offset(codestream) + 2])[0]
            f.write(codestream[:at] + b"\xff\x30" + codestream[at:])
        with open(out("hostile-huge-grid.j2k"), "wb") as f:
            f.write(rewrite_siz(codestream, Xsiz=100000, Ysiz=100000, XTsiz=100000, YTsiz=100000))
        with open(out("hostile-tile-count.j2k"), "wb") as f:
            f.write(rewrite_siz(codestream, Xsiz=60000, Ysiz=60000, XTsiz=200, YTsiz=200))
        with open(out("hostile-components.j2k"), "wb") as f:
            f.write(rewrite_siz(codestream, Csiz=16384))
        with open(out("hostile-box-length.jp2"), "wb") as f:
            jp2 = bytearray(jp2_with_icc(codestream, 67, 49, profile))
            at = jp2.index(b"jp2c") - 4
            struct.pack_into(">I", jp2, at, len(jp2) * 4)
            f.write(bytes(jp2))
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"{len(os.listdir(OUT))} files, {total} bytes in {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
