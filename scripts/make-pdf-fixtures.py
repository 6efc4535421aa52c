#!/usr/bin/env python3
"""Writes the PDF fixtures of Tests/Fixtures/pdf: small vector documents whose pixels are known.

Run from anywhere:  python3 scripts/make-pdf-fixtures.py

Standard library only; the output is deterministic. Shapes only (no text: glyphs would depend on
the fonts installed), each a solid sRGB colour, so the inside of every shape renders exactly.

* two-pages.pdf: page 1 is US Letter (612×792 pt): a red rectangle over its lower-left quarter and
  a blue one over its upper-right quarter, the rest white (paper). Page 2 is 300×200 pt, green
  with a black 100×50 pt rectangle at (50, 50) from its lower-left corner.
* huge-page.pdf: one 200000×200000 pt page (40 gigapixels at 72 dpi), grey.
* truncated.pdf: two-pages.pdf cut after its first 300 bytes.
* scanned-300dpi.pdf: one 2×3-inch page (144×216 pt) filled by a 600×900 RGB image, so 300 dpi
  (a scanned page): a checkerboard of 3-px cells, white and black, with a red column every 50 px
  and a blue row every 50 px (`pattern`; PDFTests and PDFResolutionTests compute the same), Flate
  compressed.
"""

import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Tests" / "Fixtures" / "pdf"


def document(pages, image=None):
    """A PDF 1.4 file of `pages`, each (width, height, content stream), with a correct xref table.
    `image`, (width, height, Flate-compressed RGB rows): an image XObject every page may draw as /Im0."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    image_number = 3 + 2 * len(pages)
    resources = f" /Resources << /XObject << /Im0 {image_number} 0 R >> >>" if image else ""
    for i, (width, height, content) in enumerate(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}]{resources} /Contents {4 + 2 * i} 0 R >>".encode())
        objects.append(f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream")
    if image:
        width, height, data = image
        objects.append(
            f"<< /Type /XObject /Subtype /Image /Width {width} /Height {height} /ColorSpace /DeviceRGB "
            f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def rectangle(rgb, x, y, width, height):
    r, g, b = (c / 255 for c in rgb)
    return f"{r:g} {g:g} {b:g} rg {x} {y} {width} {height} re f\n".encode()


def pattern(x, y):
    """The scanned page's pixel at (x, y) from its top left: what a sharp rendering shows."""
    if x % 50 == 0:
        return (255, 0, 0)
    if y % 50 == 0:
        return (0, 0, 255)
    return (255, 255, 255) if (x // 3 + y // 3) % 2 == 0 else (0, 0, 0)


def scanned_page():
    """A 144×216 pt page whose whole area is one 600×900 image (300 dpi)."""
    rows = b"".join(bytes(c for x in range(600) for c in pattern(x, y)) for y in range(900))
    # The image's unit square scaled to the page: the image's first row is drawn at the top.
    return document([(144, 216, b"q 144 0 0 216 0 0 cm /Im0 Do Q\n")], image=(600, 900, zlib.compress(rows, 9)))


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    page1 = rectangle((255, 0, 0), 0, 0, 306, 396) + rectangle((0, 0, 255), 306, 396, 306, 396)
    page2 = rectangle((0, 255, 0), 0, 0, 300, 200) + rectangle((0, 0, 0), 50, 50, 100, 50)
    two = document([(612, 792, page1), (300, 200, page2)])
    files = {
        "two-pages.pdf": two,
        "huge-page.pdf": document([(200000, 200000, rectangle((128, 128, 128), 0, 0, 200000, 200000))]),
        "truncated.pdf": two[:300],
        "scanned-300dpi.pdf": scanned_page(),
    }
    for name, data in files.items():
        (OUT / name).write_bytes(data)
        print(f"{name:<20}{len(data):>6} bytes")


if __name__ == "__main__":
    main()
