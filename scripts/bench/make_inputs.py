#!/usr/bin/env python3
"""Generates the large benchmark inputs (never committed): photo-like content made of smooth
colour fields at several scales, edges and sensor-like noise, so codecs work as they do on photos.

Rows are produced in bands and streamed into cjpeg, so even the 20000×20000 JPEG is made
without holding the image. Existing files are kept: delete bench-out/inputs to regenerate."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image

Image.MAX_IMAGE_PIXELS = None
BAND = 256


def band(width, y0, rows, seed):
    """Rows y0..y0+rows of a width×? photo-like RGB image, deterministic for (seed, y)."""
    y = np.arange(y0, y0 + rows, dtype=np.float32)[:, None]
    x = np.arange(width, dtype=np.float32)[None, :]
    s = 1.0 / 1000.0
    channels = []
    for c, phase in enumerate((0.0, 2.1, 4.2)):
        v = (128
             + 55 * np.sin(x * s * 1.3 + y * s * 0.7 + phase + seed)
             + 35 * np.sin(x * s * 7.1 - y * s * 5.3 + phase * 1.7)
             + 18 * np.sin(x * s * 41.0 + y * s * 37.0 + phase * 0.3)
             + 10 * np.sign(np.sin(x * s * 90.0 + phase) * np.sin(y * s * 70.0)))  # hard edges
        channels.append(v)
    rgb = np.stack(channels, axis=-1)
    rng = np.random.default_rng(seed * 1_000_003 + y0)
    rgb += rng.normal(0, 5, size=rgb.shape).astype(np.float32)
    return np.clip(rgb, 0, 255).astype(np.uint8)


def jpeg(path, width, height, seed, quality=85):
    """Streams PPM bands into cjpeg: memory stays at one band."""
    with open(path, "wb") as out:
        proc = subprocess.Popen(["cjpeg", "-quality", str(quality)], stdin=subprocess.PIPE, stdout=out)
        proc.stdin.write(f"P6\n{width} {height}\n255\n".encode())
        for y0 in range(0, height, BAND):
            proc.stdin.write(band(width, y0, min(BAND, height - y0), seed).tobytes())
        proc.stdin.close()
        if proc.wait() != 0:
            sys.exit(f"cjpeg failed for {path}")


def whole(width, height, seed):
    return np.concatenate([band(width, y0, min(BAND, height - y0), seed) for y0 in range(0, height, BAND)])


def main(directory):
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    made = []

    def need(name):
        path = out / name
        if path.exists():
            return None
        made.append(name)
        return path

    if p := need("photo-6000x4000.jpg"):
        jpeg(p, 6000, 4000, seed=1)
    if p := need("huge-20000x20000.jpg"):
        jpeg(p, 20000, 20000, seed=2)
    if p := need("wide-60000x4000.jpg"):
        jpeg(p, 60000, 4000, seed=4)
    if p := need("tall-4000x60000.jpg"):
        jpeg(p, 4000, 60000, seed=5)
    if p := need("view-16000x12000.jpg"):
        jpeg(p, 16000, 12000, seed=7)
    if p := need("png-8000x8000.png"):
        Image.fromarray(whole(8000, 8000, seed=3)).save(p, compress_level=6)
    source = out / "source-6000x4000.png"
    if not (out / "photo-6000x4000.webp").exists() or not (out / "photo-6000x4000.heic").exists():
        Image.fromarray(whole(6000, 4000, seed=6)).save(source, compress_level=1)
    if p := need("photo-6000x4000.webp"):
        subprocess.run(["cwebp", "-quiet", "-q", "80", str(source), "-o", str(p)], check=True)
    if p := need("photo-6000x4000.heic"):
        subprocess.run(["heif-enc", "-q", "60", str(source), "-o", str(p)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if source.exists():
        source.unlink()
    if made:
        print("generated: " + ", ".join(made), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench-out/inputs")
