#!/usr/bin/env python3
"""Writes the JPEG XL fixtures in Tests/Fixtures/jpegxl/ (deterministic: the same bytes every run).

Needs `cjxl` from Debian's libjxl-tools (0.7). The sources are the pattern of
scripts/make-jp2-fixtures.py, written here as PNM/PAM, and two committed fixtures.

* lossy.jxl           200x150 RGB, VarDCT at distance 1.0 (visually lossless).
* lossless.jxl        200x150 RGB, modular lossless (-d 0).
* gray16.jxl          61x47 16-bit grey, lossless.
* rgba.jxl            64x48 RGB + alpha, lossless.
* recompressed.jxl    jpeg-baseline.jpg recompressed losslessly (cjxl's default for JPEG input).
* animated.jxl        gif-dispose-background.gif's frames (cjxl keeps the animation).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
OUT = os.path.join(FIXTURES, "jpegxl")

spec = importlib.util.spec_from_file_location("jp2fixtures", os.path.join(ROOT, "scripts", "make-jp2-fixtures.py"))
jp2fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(jp2fixtures)


def cjxl(source: str, target: str, *options: str) -> None:
    subprocess.run(["cjxl", source, target, "--quiet", *options], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        os.remove(os.path.join(OUT, name))
    with tempfile.TemporaryDirectory() as scratch:
        def src(name: str, width: int, height: int, channels: int, maximum: int = 255) -> str:
            path = os.path.join(scratch, name)
            jp2fixtures.pnm(path, width, height, channels, maximum)
            return path

        rgb = src("rgb.ppm", 200, 150, 3)
        cjxl(rgb, os.path.join(OUT, "lossy.jxl"), "-d", "1.0", "-e", "7")
        cjxl(rgb, os.path.join(OUT, "lossless.jxl"), "-d", "0", "-e", "7")
        cjxl(src("gray16.pgm", 61, 47, 1, 65535), os.path.join(OUT, "gray16.jxl"), "-d", "0", "-e", "7")
        cjxl(src("rgba.pam", 64, 48, 4), os.path.join(OUT, "rgba.jxl"), "-d", "0", "-e", "7")
        cjxl(os.path.join(FIXTURES, "jpeg-baseline.jpg"), os.path.join(OUT, "recompressed.jxl"))
        cjxl(os.path.join(FIXTURES, "animation", "gif-dispose-background.gif"), os.path.join(OUT, "animated.jxl"), "-d", "0")
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"{len(os.listdir(OUT))} files, {total} bytes in {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
