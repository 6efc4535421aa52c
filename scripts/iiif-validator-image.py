#!/usr/bin/env python3
# requires: pip install iiif-validator==1.0.5 (pulls in Pillow; the repo pins pillow==13.0.0)
"""Write the IIIF validator's test image.

    python3 scripts/iiif-validator-image.py OUT [png|jpeg|JPEG_OUT]

The official validator (iiif-validator on PyPI) checks pixels against a
1000x1000 image made of 10x10 flat squares of 100x100 px. Square (x, y), x the
column and y the row, is ValidationInfo().colorInfo[x][y]: its tests crop
(x*100+13, y*100+13, ...) and compare the crop's most common colour with
colorInfo[x][y], every channel within 5 (abs(diff) < 6). The colours are
read from the installed validator itself, not copied here.

OUT's format is argv[2] if that is "png" or "jpeg"/"jpg", else taken from
OUT's extension (.jpg/.jpeg means JPEG), else PNG. Any other argv[2] is a
second path ending .jpg/.jpeg: OUT is then written as PNG and argv[2] as JPEG. PNG is lossless and the safe choice. JPEG is written at
quality 95 with 4:4:4 chroma (a square's colour then moves by at most 1), but
the server's own JPEG output moves it again (by about 3 at quality 75, 4 at 50),
and the validator tolerates 5: a JPEG source leaves less headroom.

The file written is decoded again and every square checked: exact for PNG,
within 2 for JPEG. Exits non-zero if that check fails.
"""

import contextlib
import io
import os
import sys

SIZE = 1000
SQUARE = 100


def validator_colors():
    try:
        # Importing the package runs iiif_validator/tests/baseurl_redirect.py,
        # which prints "Importing 3" to stdout; keep stdout clean.
        with contextlib.redirect_stdout(io.StringIO()):
            from iiif_validator.validator import ValidationInfo
    except ImportError as e:
        sys.exit("iiif-validator-image: cannot import iiif_validator (%s); "
                 "pip install iiif-validator==1.0.5 (it also needs libmagic1)" % e)
    colors = ValidationInfo().colorInfo
    if len(colors) != 10 or any(len(col) != 10 for col in colors):
        sys.exit("iiif-validator-image: unexpected colorInfo shape in the installed validator")
    return colors


def make_image(colors):
    from PIL import Image
    img = Image.new("RGB", (SIZE, SIZE))
    for x in range(10):          # column
        for y in range(10):      # row
            img.paste(tuple(colors[x][y]),
                      (x * SQUARE, y * SQUARE, (x + 1) * SQUARE, (y + 1) * SQUARE))
    return img


def check(path, colors, tolerance):
    """Same test as the validator's do_test_square, on every square."""
    from PIL import Image
    with Image.open(path) as img:
        if img.size != (SIZE, SIZE):
            return "size %s, expected %dx%d" % (img.size, SIZE, SIZE)
        rgb = img.convert("RGB")
    worst = 0
    for x in range(10):
        for y in range(10):
            left, top = x * SQUARE + 13, y * SQUARE + 13
            crop = rgb.crop((left, top, left + 74, top + 74))
            count, col = max(crop.getcolors(maxcolors=SQUARE * SQUARE))
            diff = max(abs(col[i] - colors[x][y][i]) for i in range(3))
            worst = max(worst, diff)
            if diff > tolerance:
                return "square %d,%d is %s, expected %s" % (x, y, col, tuple(colors[x][y]))
    return None


def write(path, fmt, img, colors):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = path + ".tmp"
    if fmt == "png":
        img.save(tmp, "PNG", optimize=True)
        tolerance = 0
    else:
        img.save(tmp, "JPEG", quality=95, subsampling=0)
        tolerance = 2
    problem = check(tmp, colors, tolerance)
    if problem:
        os.unlink(tmp)
        sys.exit("iiif-validator-image: %s: %s" % (path, problem))
    os.replace(tmp, path)
    print("wrote %s (%s, %dx%d, validator colours)" % (path, fmt.upper(), SIZE, SIZE))


def main(argv):
    if len(argv) < 2 or len(argv) > 3 or argv[1] in ("-h", "--help"):
        sys.exit("usage: %s OUT [png|jpeg|JPEG_OUT]" % os.path.basename(argv[0]))
    out = argv[1]
    jobs = []
    extra = argv[2] if len(argv) == 3 else None
    if extra is not None and extra.lower() in ("png", "jpeg", "jpg"):
        jobs.append((out, "png" if extra.lower() == "png" else "jpeg"))
    else:
        jobs.append((out, "jpeg" if out.lower().endswith((".jpg", ".jpeg")) else "png"))
        if extra is not None:
            if not extra.lower().endswith((".jpg", ".jpeg")):
                sys.exit("iiif-validator-image: argv[2] must be png, jpeg or a .jpg/.jpeg path, not %r" % extra)
            jobs = [(out, "png"), (extra, "jpeg")]

    colors = validator_colors()
    img = make_image(colors)
    for path, fmt in jobs:
        write(path, fmt, img, colors)


if __name__ == "__main__":
    main(sys.argv)
