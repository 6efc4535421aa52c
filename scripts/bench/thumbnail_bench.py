#!/usr/bin/env python3
"""`tessera thumbnail` against vipsthumbnail, Pillow (draft + thumbnail) and ImageMagick
(-define jpeg:size + -thumbnail), with libjpeg-turbo's own 1/8 decode as the floor for JPEG.
All make a 512-pixel JPEG at quality 75."""
import sys
import tempfile
from pathlib import Path

from measure import compare, table

SIZE = 512
PILLOW = """
import sys
from PIL import Image
Image.MAX_IMAGE_PIXELS = None
try:
    import pillow_heif
    pillow_heif.register_heif_opener()
except ImportError:
    pass
im = Image.open(sys.argv[1])
im.draft("RGB", (int(sys.argv[3]), int(sys.argv[3])))
im.thumbnail((int(sys.argv[3]), int(sys.argv[3])), Image.LANCZOS)
im.convert("RGB").save(sys.argv[2], quality=75)
"""


def main(tessera, inputs):
    out = Path(tempfile.mkdtemp(prefix="tessera-bench-"))
    pillow = out / "pillow_thumbnail.py"
    pillow.write_text(PILLOW)
    # A small JPEG first: what a process costs before the image does (issue 12 asks ≤ 15 MB).
    small = Path(__file__).resolve().parents[2] / "Tests/Fixtures/jpeg-exif-thumbnail.jpg"
    table(f"{small.name} (640×480) → 128 px: the cost of a process", compare([
        ("tessera", [tessera, "thumbnail", str(small), "--max-pixel-size", "128", "--output", str(out / "small.jpg")]),
        ("vipsthumbnail", ["vipsthumbnail", str(small), "--size", "128", "-o", str(out / "small-vips.jpg")]),
        ("pillow (draft + thumbnail)", [sys.executable, str(pillow), str(small), str(out / "small-pillow.jpg"), "128"]),
        ("djpeg -scale 1/4 (floor)", ["djpeg", "-scale", "1/4", "-outfile", "/dev/null", str(small)]),
    ]))
    names = ["photo-6000x4000.jpg", "huge-20000x20000.jpg", "png-8000x8000.png",
             "photo-6000x4000.webp", "photo-6000x4000.heic"]
    print(f"Thumbnails to {SIZE} px (JPEG q75): median of 5 interleaved runs, peak RSS per process")
    for name in names:
        source = str(Path(inputs) / name)
        cases = [
            ("tessera", [tessera, "thumbnail", source, "--max-pixel-size", str(SIZE),
                         "--output", str(out / "tessera.jpg"), "--quality", "75"]),
            ("vipsthumbnail", ["vipsthumbnail", source, "--size", str(SIZE), "-o", str(out / "vips.jpg") + "[Q=75]"]),
            ("pillow (draft + thumbnail)", [sys.executable, str(pillow), source, str(out / "pillow.jpg"), str(SIZE)]),
            ("imagemagick (jpeg:size + -thumbnail)", ["convert", "-define", f"jpeg:size={2 * SIZE}x{2 * SIZE}", source,
                                                     "-thumbnail", f"{SIZE}x{SIZE}", "-quality", "75",
                                                     str(out / "magick.jpg")]),
        ]
        if name.endswith(".jpg"):
            cases.append(("djpeg -scale 1/8 (floor)", ["djpeg", "-scale", "1/8", "-outfile", "/dev/null", source]))
        table(name, compare(cases))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
