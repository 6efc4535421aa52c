#!/usr/bin/env python3
"""Writes Tests/Fixtures/pages/: files of several images, for the page tests.

The TIFFs need the standard library only; the HEIF collection needs pillow-heif (1.8.1, as
scripts/make-fixtures.py). Every image is one solid 8-bit RGB colour (the TIFFs uncompressed), so
a page's pixels say which page was read.

* three-pages.tif: three pages in strips: 96×64 red, 40×30 green, 20×24 blue.
* pyramid-and-label.tif: a 64×48 tiled image (16×16 tiles, grey) with its reduced levels (32×24
  flagged NewSubfileType 1, then 16×12 not flagged but tiled alike and half the size, as some
  writers leave them), a transparency mask (NewSubfileType 4), and a 40×20 label in strips
  (yellow): two pages, the image and the label.
* two-images.heic: a HEIF collection of two top-level images, stored 64×48 red then 32×40 blue,
  the blue one primary: its pages are the primary first (blue), then the red.
"""

import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Tests" / "Fixtures" / "pages"

RED, GREEN, BLUE, GREY, YELLOW = (255, 0, 0), (0, 255, 0), (0, 0, 255), (128, 128, 128), (255, 255, 0)


def tiff(images):
    """A little-endian TIFF of `images`: (width, height, colour, subfile type, tile side or None)."""
    out = bytearray(b"II*\x00\x00\x00\x00\x00")
    first_ifd_offset_at = 4
    for width, height, colour, kind, tile in images:
        # The pixel data first (each strip or tile one solid run), then the directory.
        pieces = []
        if tile:
            for _ in range(((height + tile - 1) // tile) * ((width + tile - 1) // tile)):
                pieces.append(bytes(colour) * tile * tile)
        else:
            pieces.append(bytes(colour) * width * height)
        offsets = []
        for piece in pieces:
            offsets.append(len(out))
            out += piece
        if len(out) % 2:
            out += b"\x00"
        # Arrays of more than one value live outside the entries.
        def array(values):
            if len(values) == 1:
                return None, values[0]
            at = len(out)
            out.extend(struct.pack(f"<{len(values)}I", *values))
            return at, None
        bits_at = len(out)
        out.extend(struct.pack("<3H", 8, 8, 8))
        offsets_at, offset_value = array(offsets)
        counts_at, count_value = array([len(p) for p in pieces])
        entries = [
            (254, 4, 1, kind),
            (256, 4, 1, width),
            (257, 4, 1, height),
            (258, 3, 3, bits_at),
            (259, 3, 1, 1),
            (262, 3, 1, 2),
            (277, 3, 1, 3),
            (284, 3, 1, 1),
        ]
        if tile:
            entries += [
                (322, 4, 1, tile),
                (323, 4, 1, tile),
                (324, 4, len(offsets), offsets_at if offsets_at is not None else offset_value),
                (325, 4, len(offsets), counts_at if counts_at is not None else count_value),
            ]
        else:
            entries += [
                (273, 4, 1, offset_value),
                (278, 4, 1, height),
                (279, 4, 1, count_value),
            ]
        entries.sort()
        ifd = len(out)
        struct.pack_into("<I", out, first_ifd_offset_at, ifd)
        out += struct.pack("<H", len(entries))
        for tag, kind_of, count, value in entries:
            if kind_of == 3 and count == 1:
                out += struct.pack("<HHIHH", tag, kind_of, count, value, 0)
            else:
                out += struct.pack("<HHII", tag, kind_of, count, value)
        first_ifd_offset_at = len(out)
        out += b"\x00\x00\x00\x00"
    return bytes(out)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    files = {
        "three-pages.tif": tiff([(96, 64, RED, 0, None), (40, 30, GREEN, 0, None), (20, 24, BLUE, 0, None)]),
        "pyramid-and-label.tif": tiff([
            (64, 48, GREY, 0, 16),
            (32, 24, GREY, 1, 16),
            (16, 12, GREY, 0, 16),
            (64, 48, (255, 255, 255), 4, 16),
            (40, 20, YELLOW, 0, None),
        ]),
    }
    for name, data in files.items():
        (OUT / name).write_bytes(data)
        print(f"{name:<24}{len(data):>7} bytes")
    import pillow_heif
    from PIL import Image
    collection = pillow_heif.from_pillow(Image.new("RGB", (64, 48), RED))
    collection.add_from_pillow(Image.new("RGB", (32, 40), BLUE))
    collection.save(OUT / "two-images.heic", quality=90, primary_index=1)
    print(f"{'two-images.heic':<24}{(OUT / 'two-images.heic').stat().st_size:>7} bytes")


if __name__ == "__main__":
    main()
