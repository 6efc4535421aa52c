#!/usr/bin/env python3
"""Writes the BMP, ICO/CUR, PNM/PAM and TGA fixtures in Tests/Fixtures/stills/ with Pillow.

Deterministic: the same bytes every run. Each file has a reference, `reference/<file>.pam`
(binary P7, MAXVAL 255): Pillow's decode of it, or for what Pillow does not read or reads
otherwise than browsers do, the source pixels the file was written from (written so, as
`manifest.json`'s `reference` says: `pillow` or `source`). 16-bit samples are reduced to their
high byte. Sizes are odd so that BMP's 4-byte row padding and PBM's bit packing matter.

Run from the repository root:
    python3 scripts/make-still-fixtures.py
"""
import io
import json
import shutil
from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path("Tests/Fixtures/stills")
REF = OUT / "reference"
SIZE = (37, 23)
TUPLTYPES = {"L": ("GRAYSCALE", 1), "LA": ("GRAYSCALE_ALPHA", 2), "RGB": ("RGB", 3), "RGBA": ("RGB_ALPHA", 4)}


def rgba():
    """Gradients, a translucent ellipse and a transparent corner: nothing symmetric."""
    image = Image.new("RGBA", SIZE)
    for y in range(SIZE[1]):
        for x in range(SIZE[0]):
            image.putpixel((x, y), (x * 7 % 256, y * 11 % 256, (x * y) % 256, 255))
    draw = ImageDraw.Draw(image)
    draw.ellipse([5, 3, 25, 19], fill=(240, 60, 20, 140))
    draw.rectangle([0, 0, 6, 4], fill=(0, 0, 0, 0))
    return image


def pam(image):
    tupltype, depth = TUPLTYPES[image.mode]
    header = f"P7\nWIDTH {image.width}\nHEIGHT {image.height}\nDEPTH {depth}\nMAXVAL 255\nTUPLTYPE {tupltype}\nENDHDR\n"
    return header.encode("ascii") + image.tobytes()


def icon_with_mask(rgb, alpha):
    """An ICO of one 24-bit BMP entry: colours and an AND mask (1 where alpha is 0), rows bottom-up."""
    width, height = rgb.size
    colour_row, mask_row = (width * 3 + 3) // 4 * 4, (width + 31) // 32 * 4
    colours, mask = bytearray(), bytearray()
    for y in reversed(range(height)):
        row = b"".join(bytes(reversed(rgb.getpixel((x, y)))) for x in range(width))
        colours += row + bytes(colour_row - len(row))
        bits = bytearray(mask_row)
        for x in range(width):
            if alpha.getpixel((x, y)) == 0:
                bits[x // 8] |= 0x80 >> (x % 8)
        mask += bits
    dib = (40).to_bytes(4, "little") + width.to_bytes(4, "little") + (2 * height).to_bytes(4, "little")
    dib += (1).to_bytes(2, "little") + (24).to_bytes(2, "little") + bytes(24)
    entry = dib + colours + mask
    directory = bytes([0, 0, 1, 0, 1, 0, width, height, 0, 0, 1, 0, 24, 0]) + len(entry).to_bytes(4, "little") + (22).to_bytes(4, "little")
    return directory + entry


def decoded(data):
    """Pillow's decode, in a mode a PAM reference holds."""
    image = Image.open(io.BytesIO(data))
    image.load()
    if image.mode == "I;16B" or image.mode == "I;16" or image.mode == "I":
        return Image.frombytes("L", image.size, bytes(image.getpixel((x, y)) >> 8 for y in range(image.height) for x in range(image.width)))
    if image.mode == "1":
        return image.convert("L")
    if image.mode == "P":
        return image.convert("RGBA" if "transparency" in image.info else "RGB")
    return image


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    REF.mkdir(parents=True)
    source = rgba()
    rgb, gray = source.convert("RGB"), source.convert("L")
    palette = rgb.quantize(colors=40, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    files = {}

    def save(name, image, format, reference="pillow", **options):
        buffer = io.BytesIO()
        image.save(buffer, format, **options)
        files[name] = (buffer.getvalue(), reference)

    save("bmp-rgb24.bmp", rgb, "BMP")
    save("bmp-pal8.bmp", palette, "BMP")
    save("bmp-gray.bmp", gray, "BMP")
    save("bmp-1bit.bmp", gray.convert("1", dither=Image.Dither.NONE), "BMP")
    # 32 bits in BI_RGB: Pillow ignores the fourth byte, browsers and ffmpeg read it as alpha.
    save("bmp-rgba32.bmp", source, "BMP", reference=source)
    # Icons: BMP entries (an AND mask for 24 bits, alpha for 32) and PNG ones; the largest is read.
    save("ico-bmp32.ico", source, "ICO", sizes=[(16, 16), SIZE], bitmap_format="bmp")
    # Pillow writes a 24-bit entry's AND mask unpadded (5 bytes a row here, not 8) and reads it back
    # misaligned; a mask too short for the image is no mask: opaque, as the source is.
    save("ico-bmp24.ico", rgb, "ICO", reference=rgb.convert("RGBA"), sizes=[SIZE], bitmap_format="bmp")
    # A 24-bit entry with its AND mask as the format has it (rows padded to 4 bytes): the source's
    # transparent corner masked out.
    masked = rgb.convert("RGBA")
    masked.putalpha(source.getchannel("A").point(lambda a: 0 if a == 0 else 255))
    files["ico-bmp24-mask.ico"] = (icon_with_mask(rgb, masked.getchannel("A")), "pillow")
    save("ico-png.ico", source, "ICO", sizes=[(16, 16), SIZE])
    # A cursor is an icon with type 2 (and a hot spot where an icon has planes and bit count).
    cursor = bytearray(files["ico-bmp32.ico"][0])
    cursor[2] = 2
    files["cur-bmp32.cur"] = (bytes(cursor), source)
    save("pbm.pbm", gray.convert("1", dither=Image.Dither.NONE), "PPM")
    save("pgm.pgm", gray, "PPM")
    samples = [(v << 8) | (255 - v) for v in gray.tobytes()]
    save("pgm16.pgm", Image.frombytes("I;16", SIZE, b"".join(v.to_bytes(2, "little") for v in samples)), "PPM")
    save("ppm.ppm", rgb, "PPM")
    # Plain (ASCII) PPM and PAM, which Pillow does not write: from the source pixels.
    plain = f"P3\n# a comment\n{SIZE[0]} {SIZE[1]}\n255\n" + "\n".join(" ".join(map(str, rgb.getpixel((x, y)))) for y in range(SIZE[1]) for x in range(SIZE[0])) + "\n"
    files["ppm-plain.ppm"] = (plain.encode("ascii"), rgb)
    files["pam-rgba.pam"] = (pam(source), source)
    files["pam-gray-alpha.pam"] = (pam(source.convert("LA")), source.convert("LA"))
    save("tga-rgb.tga", rgb, "TGA")
    save("tga-rgba-rle.tga", source, "TGA", compression="tga_rle")
    save("tga-gray-top.tga", gray, "TGA", orientation=1)
    save("tga-pal8-rle.tga", palette, "TGA", compression="tga_rle")
    # Without the version 2 footer (most TGA files in the wild): sniffed from the header.
    files["tga-rgb-nofooter.tga"] = (files["tga-rgb.tga"][0][:-26], "pillow")
    manifest = []
    for name, (data, reference) in sorted(files.items()):
        (OUT / name).write_bytes(data)
        image = decoded(data) if reference == "pillow" else reference
        (REF / f"{name}.pam").write_bytes(pam(image))
        manifest.append({"file": name, "width": image.width, "height": image.height, "mode": image.mode,
                         "reference": "pillow" if reference == "pillow" else "source"})
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    total = sum(len(data) for data, _ in files.values())
    print(f"{len(files)} files, {total} bytes in {OUT}")


if __name__ == "__main__":
    main()
