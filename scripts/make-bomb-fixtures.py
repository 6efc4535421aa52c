#!/usr/bin/env python3
"""Writes the decompression bombs of Tests/Fixtures/bombs (issue 16): small files whose headers or
compressed streams claim far more pixels than they carry, one or more per format.

Run from anywhere:  python3 scripts/make-bomb-fixtures.py

Standard library only. Two bombs are existing fixtures with their headers rewritten (the JPEG's
SOF, the HEIC's `ispe`); the others are written byte by byte. The output is deterministic.
`bomb-40000.png` (made by make-fixtures.py) is the PNG bomb: a 40000×40000 header and 1.6 GB of
zeros deflated 1067-fold. Headers that claim gigapixels over a few bytes of data (PNG, TIFF, GIF,
WebP) are made by Tests/TesseraCLITests/HostileHeaderTests.swift itself.
"""

import struct
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "Tests" / "Fixtures"
OUT = FIXTURES / "bombs"


def check(condition, what):
    if not condition:
        raise SystemExit(f"make-bomb-fixtures: {what}")


# --- JPEG and HEIC: real files, headers rewritten ---------------------------------------------


def jpeg_with_size(width, height):
    """jpeg-baseline.jpg with its SOF0 claiming width × height: the scan ends after 64×48 pixels."""
    data = bytearray((FIXTURES / "jpeg-baseline.jpg").read_bytes())
    sof = data.find(b"\xff\xc0")
    check(sof > 0, "jpeg-baseline.jpg has no SOF0")
    struct.pack_into(">HH", data, sof + 5, height, width)
    return bytes(data)


def heic_with_size(width, height):
    """heic-basic.heic with every `ispe` (image spatial extent) property claiming width × height."""
    data = bytearray((FIXTURES / "heic-basic.heic").read_bytes())
    found = 0
    position = data.find(b"ispe")
    while position > 0:
        struct.pack_into(">II", data, position + 8, width, height)  # after version/flags
        found += 1
        position = data.find(b"ispe", position + 4)
    check(found > 0, "heic-basic.heic has no ispe")
    return bytes(data)


# --- GIF -------------------------------------------------------------------------------------


def gif_header(width, height):
    screen = struct.pack("<6sHHBBB", b"GIF89a", width, height, 0x80, 0, 0)  # 2-entry global table
    palette = b"\x00\x00\x00\xff\xff\xff"
    netscape = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"  # loop forever
    return screen + palette + netscape


def gif_frame(x, y, width, height, data, minimum_code_size, delay=0):
    control = struct.pack("<BBBBHBB", 0x21, 0xF9, 4, 0, delay, 0, 0)
    descriptor = struct.pack("<BHHHHB", 0x2C, x, y, width, height, 0)
    blocks = b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255))
    return control + descriptor + bytes([minimum_code_size]) + blocks + b"\x00"


# One pixel of colour 0 with a 2-bit minimum code size: clear (4), 0, end (5) in 3-bit codes.
ONE_PIXEL_LZW = bytes([0x44, 0x01])


def gif_many_frames(count, canvas):
    frames = b"".join(
        gif_frame((i * 7) % canvas, (i * 13) % canvas, 1, 1, ONE_PIXEL_LZW, 2) for i in range(count))
    return gif_header(canvas, canvas) + frames + b"\x3b"


# --- WebP ------------------------------------------------------------------------------------


class BitWriter:
    """VP8L's bit order: least significant bit first."""

    def __init__(self):
        self.value, self.count = 0, 0

    def write(self, value, bits):
        self.value |= value << self.count
        self.count += bits

    def bytes(self):
        return self.value.to_bytes((self.count + 7) // 8, "little")


def vp8l(width, height):
    """A lossless bitstream of one opaque black colour: every prefix code has a single symbol, so each
    pixel takes zero bits and any size fits in a few bytes."""
    bits = BitWriter()
    bits.write(0x2F, 8)  # signature
    bits.write(width - 1, 14)
    bits.write(height - 1, 14)
    bits.write(0, 1)  # alpha unused
    bits.write(0, 3)  # version
    bits.write(0, 1)  # no transform
    bits.write(0, 1)  # no colour cache
    bits.write(0, 1)  # one prefix-code group for the whole image
    for symbol in (0, 0, 0, 255, 0):  # green, red, blue, alpha, distance
        bits.write(1, 1)  # simple code
        bits.write(0, 1)  # one symbol
        if symbol < 2:
            bits.write(0, 1)  # 1-bit symbol
            bits.write(symbol, 1)
        else:
            bits.write(1, 1)  # 8-bit symbol
            bits.write(symbol, 8)
    return chunk(b"VP8L", bits.bytes())


def chunk(fourcc, payload):
    return fourcc + struct.pack("<I", len(payload)) + payload + (b"\x00" if len(payload) % 2 else b"")


def riff(chunks):
    body = b"WEBP" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def uint24(value):
    return struct.pack("<I", value)[:3]


def vp8x(width, height, animated):
    flags = 0x02 if animated else 0
    return chunk(b"VP8X", bytes([flags, 0, 0, 0]) + uint24(width - 1) + uint24(height - 1))


def webp_animated_canvas(width, height):
    """An animation on a width × height canvas whose two frames are one pixel each, in opposite corners."""
    animation = chunk(b"ANIM", struct.pack("<IH", 0, 0))
    frames = [
        chunk(b"ANMF", uint24(x // 2) + uint24(y // 2) + uint24(0) + uint24(0) + uint24(100) + b"\x00" + vp8l(1, 1))
        for x, y in ((0, 0), (width - 2, height - 2))
    ]
    return riff([vp8x(width, height, True), animation] + frames)


# --- TIFF ------------------------------------------------------------------------------------


def tiff_single_strip(width, height, strip):
    """A little-endian baseline TIFF of 8-bit gray in one deflate-compressed strip."""
    entries = [
        (256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 8),  # Adobe deflate
        (262, 3, 1), (273, 4, 0), (277, 3, 1), (278, 4, height), (279, 4, len(strip)), (284, 3, 1),
    ]
    directory_offset = 8
    strip_offset = directory_offset + 2 + 12 * len(entries) + 4
    directory = struct.pack("<H", len(entries))
    for tag, kind, value in entries:
        value = strip_offset if tag == 273 else value
        packed = struct.pack("<HH", value, 0) if kind == 3 else struct.pack("<I", value)
        directory += struct.pack("<HHI", tag, kind, 1) + packed
    directory += struct.pack("<I", 0)
    return b"II*\x00" + struct.pack("<I", directory_offset) + directory + strip


def zeros_deflated(byte_count):
    compressor = zlib.compressobj(9)
    row = bytes(1 << 20)
    pieces = [compressor.compress(row) for _ in range(byte_count >> 20)]
    pieces.append(compressor.compress(bytes(byte_count & ((1 << 20) - 1))))
    pieces.append(compressor.flush())
    return b"".join(pieces)


# --- SVG -------------------------------------------------------------------------------------

SVG_GIGAPIXEL = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000" viewBox="0 0 100 100">'
    '<rect width="100" height="100" fill="#2a6"/><circle cx="50" cy="50" r="30" fill="#fc3"/></svg>\n'
).encode()


def main():
    OUT.mkdir(exist_ok=True)
    bombs = {
        "gigapixel-65000.jpg": jpeg_with_size(65000, 65000),
        "gigapixel-60000.heic": heic_with_size(60000, 60000),
        "gigapixel-100000.svg": SVG_GIGAPIXEL,
        "deflate-10000.tif": tiff_single_strip(10000, 10000, zeros_deflated(10000 * 10000)),
        "lossless-16384.webp": riff([vp8l(16384, 16384)]),
        "frames-4000.gif": gif_many_frames(4000, 2048),
        "animated-canvas-60000.webp": webp_animated_canvas(60000, 60000),
    }
    for name, data in bombs.items():
        (OUT / name).write_bytes(data)
    tiff = (OUT / "deflate-10000.tif").read_bytes()
    ratio = 10000 * 10000 / len(tiff)
    check(ratio > 1000, f"deflate-10000.tif expands only {ratio:.0f}-fold")
    for name in sorted(bombs):
        print(f"{name:<28}{(OUT / name).stat().st_size:>8} bytes")


if __name__ == "__main__":
    main()
