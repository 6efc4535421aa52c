#!/usr/bin/env python3
"""Writes the map test data (issue 49) into OUT: GeoTIFFs and COGs made by GDAL's command-line
tools (Debian's gdal-bin, which the bootstrap installs) from one generated picture, so every file's
pixels are known and GDAL itself is the reference the tests compare with.

  utm.tif            3072² RGB, UTM zone 33N (EPSG:32633), 10 m pixels, DEFLATE COG, overviews
  utm-jpeg.tif       the same in YCbCr JPEG
  mercator.tif       its GoogleMapsCompatible twin (EPSG:3857, z13 pixels), DEFLATE, with GDAL's alpha band
  mercator-jpeg.tif  the same in JPEG, with an internal mask (NewSubfileType 4/5 between levels)
  geographic.tif     256×192 RGB in EPSG:4326, 0.001° pixels, DEFLATE COG
  strips.tif         the same 256×192 picture in strips, UTM 33N at 10 m, DEFLATE, no overviews
  gray-point.tif     256² gray, EPSG:32633, PixelIsPoint, nodata 0 in its corners, tiled GeoTIFF
  hostile-*.tif      64² gray pyramids (tifffile) whose GeoTIFF tags cannot be: a key directory
                     claiming more keys than it holds, a user-defined CRS, an EPSG code PROJ does
                     not know, a pixel scale of 0
  --small: only the small ones, into OUT (the committed fixtures under Tests/Fixtures/maps).
  --scene: instead, the benchmark's Sentinel-2-like scene, 10980² RGB in UTM 33N at 10 m (about
           1 GB written; `make bench` makes it once): scene-utm-jpeg.tif and scene-utm-deflate.tif
           (COGs), scene-mercator-jpeg.tif (its GoogleMapsCompatible twin, with a mask)

Usage: make-map-fixtures.py OUT [--small]
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image


def picture(width: int, height: int, detail: bool = True) -> np.ndarray:
    """Gradients plus fine, aperiodic detail (or only a coarse checker, for the committed files,
    which must stay small): a misplaced pixel or a wrong level shows."""
    y, x = np.mgrid[0:height, 0:width]
    red = (x * 255 // max(1, width - 1)).astype(np.uint8)
    green = (y * 255 // max(1, height - 1)).astype(np.uint8)
    blue = ((((x // 7 + y // 5) % 2) * 200 + (x * y) % 37 * detail) % 256).astype(np.uint8)
    return np.dstack([red, green, blue])


def gdal(*arguments: str) -> None:
    subprocess.run(["gdal_translate", "-q", *arguments], check=True)


def make_small(out: Path, scratch: Path) -> None:
    Image.fromarray(picture(256, 192, detail=False)).save(scratch / "geographic.png")
    gdal("-a_srs", "EPSG:4326", "-a_ullr", "14.8", "47.9", "15.056", "47.708", "-of", "COG", "-co", "COMPRESS=DEFLATE",
         "-co", "BLOCKSIZE=128", "-co", "PREDICTOR=2", str(scratch / "geographic.png"), str(out / "geographic.tif"))
    # The same picture as a plain GeoTIFF in strips (no overviews) in UTM 33N: decoded, not read in place.
    gdal("-a_srs", "EPSG:32633", "-a_ullr", "500000", "5300000", "502560", "5298080", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2",
         str(scratch / "geographic.png"), str(out / "strips.tif"))
    gray = picture(256, 256, detail=False)[:, :, 2].copy()
    gray[gray == 0] = 1
    gray[:16, :16] = 0
    gray[-16:, -16:] = 0
    Image.fromarray(gray).save(scratch / "gray.png")
    gdal("-a_srs", "EPSG:32633", "-a_ullr", "500000", "5300000", "502560", "5297440", "-a_nodata", "0", "-mo",
         "AREA_OR_POINT=Point", "-co", "TILED=YES", "-co", "BLOCKXSIZE=64", "-co", "BLOCKYSIZE=64", "-co", "COMPRESS=DEFLATE",
         str(scratch / "gray.png"), str(scratch / "gray.tif"))
    subprocess.run(["gdaladdo", "-q", "-r", "nearest", str(scratch / "gray.tif"), "2", "4"], check=True)
    # Overviews inside the file (gdaladdo on a GeoTIFF writes them after its first image).
    shutil.copy(scratch / "gray.tif", out / "gray-point.tif")


def geotiff(path: Path, keys: list[int], scale: tuple[float, float] = (10.0, 10.0)) -> None:
    """A 64² gray pyramid (a 32² level after it) with GeoTIFF tags: `keys` the key directory's
    shorts, `scale` the pixel scale, tied at (500000, 5300000)."""
    import tifffile
    gray = picture(64, 64, detail=False)[:, :, 0]
    extratags = [(33550, "d", 3, (scale[0], scale[1], 0.0), True), (33922, "d", 6, (0.0, 0.0, 0.0, 500000.0, 5300000.0, 0.0), True),
                 (34735, "H", len(keys), tuple(keys), True)]
    with tifffile.TiffWriter(path) as tiff:
        tiff.write(gray, tile=(16, 16), compression="zlib", extratags=extratags)
        tiff.write(gray[::2, ::2], tile=(16, 16), compression="zlib", subfiletype=1)


def make_hostile(out: Path) -> None:
    def directory(*entries: tuple[int, int]) -> list[int]:
        return [1, 1, 0, len(entries)] + [value for key, code in entries for value in (key, 0, 1, code)]
    projected = directory((1024, 1), (1025, 1), (3072, 32633))
    geotiff(out / "hostile-keys.tif", [1, 1, 0, 200, 1024, 0, 1, 1])
    geotiff(out / "hostile-user-crs.tif", directory((1024, 1), (3072, 32767)))
    geotiff(out / "hostile-unknown-epsg.tif", directory((1024, 1), (3072, 1)))
    geotiff(out / "hostile-scale.tif", projected, scale=(0.0, 0.0))


def make_large(out: Path, scratch: Path) -> None:
    Image.fromarray(picture(3072, 3072)).save(scratch / "utm.png")
    gdal("-a_srs", "EPSG:32633", "-a_ullr", "500000", "5300000", "530720", "5269280", "-of", "COG", "-co", "COMPRESS=DEFLATE",
         str(scratch / "utm.png"), str(out / "utm.tif"))
    gdal("-of", "COG", "-co", "COMPRESS=JPEG", str(out / "utm.tif"), str(out / "utm-jpeg.tif"))
    for name, compression in (("mercator.tif", "DEFLATE"), ("mercator-jpeg.tif", "JPEG")):
        gdal("-of", "COG", "-co", f"COMPRESS={compression}", "-co", "TILING_SCHEME=GoogleMapsCompatible", str(out / "utm.tif"),
             str(out / name))


def make_scene(out: Path, scratch: Path) -> None:
    """The picture as raw pixels GDAL reads through an ENVI header (no PNG of 360 MB to encode)."""
    side = 10980
    raw = scratch / "scene.bip"
    picture(side, side).tofile(raw)
    (scratch / "scene.hdr").write_text(
        f"ENVI\nsamples = {side}\nlines = {side}\nbands = 3\nheader offset = 0\ndata type = 1\ninterleave = bip\nbyte order = 0\n")
    corner = ("-a_srs", "EPSG:32633", "-a_ullr", "500000", "5300000", str(500000 + 10 * side), str(5300000 - 10 * side), "-of", "COG")
    gdal(*corner, "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2", str(raw), str(out / "scene-utm-deflate.tif"))
    gdal(*corner, "-co", "COMPRESS=JPEG", str(raw), str(out / "scene-utm-jpeg.tif"))
    gdal("-of", "COG", "-co", "COMPRESS=JPEG", "-co", "TILING_SCHEME=GoogleMapsCompatible", str(out / "scene-utm-deflate.tif"),
         str(out / "scene-mercator-jpeg.tif"))


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out) as scratch:
        if "--scene" in sys.argv:
            return make_scene(out, Path(scratch))
        make_small(out, Path(scratch))
        make_hostile(out)
        if "--small" not in sys.argv:
            make_large(out, Path(scratch))


if __name__ == "__main__":
    main()
