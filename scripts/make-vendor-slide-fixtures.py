#!/usr/bin/env python3
"""Whole-slide images of formats other than Aperio's and DICOM, written at test time (none committed).

  generic-thirds.tif  a plain tiled TIFF, OpenSlide's `generic-tiff` (the oracle), which Tessera reads as
                      a pyramid of whole-factor steps: levels 2304x1728, 768x576 and 256x192, each 3x
                      smaller than the one before; every directory tiled, those after the first marked
                      reduced (NewSubfileType 1), as the driver takes levels; no ImageDescription, so no
                      vendor's driver claims it.
  generic-shallow.tif the same first two levels alone: its coarsest level, 768x576, is larger than 2x2 tiles,
                      so Tessera's pyramid kind leaves it to OpenSlide's `generic-tiff` (steps of 3x are
                      not halvings a built pyramid would make).
  quarters.ome.tif    an OME-TIFF (which OpenSlide does not read): level 0, 3072x2304, in the main chain
                      with an OME-XML description whose Pixels say PhysicalSizeX="500" in nm; levels
                      768x576 and 192x144 (4x steps) in its SubIFDs, marked reduced.
  leica-like.scn      a Leica SCN-like BigTIFF, OpenSlide's `leica`: its first directory tiled, with an
                      ImageDescription of XML in the scn/2010/10/01 namespace describing a collection
                      of two brightfield images, sized and placed in nanometres. The macro image (at
                      0,0, as large as the collection) is directory 0, 512x384; the main image is
                      directories 1-3: 3840x2816 pixels of 500 nm, then 960x704 and 240x176 (focal
                      plane 0), 128 pixels in from the collection's corner. OpenSlide's levels span
                      the collection, 4096x3072, 1024x768 and 256x192, transparent around the main
                      image; its mpp (0.5) is the main image's XResolution (20000 per centimetre).

Tiles are 256x256 JPEG (YCbCr 4:2:0, complete streams from Pillow, stored as they are by tifffile)
of scripts/make-slide-fixtures.py's stain pattern, computed per level (not derived from level 0).
`--ome-seed` writes only quarters-seed.ome.tif, a 256x192 OME-TIFF of two levels (the fuzz harness
FuzzSlide's seed).
Usage: make-vendor-slide-fixtures.py OUTPUT_DIR [--ome-seed]
"""
import base64
import importlib.util
import os
import sys

import numpy as np
import tifffile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("slidefixtures", os.path.join(ROOT, "scripts", "make-slide-fixtures.py"))
slides = importlib.util.module_from_spec(spec)
spec.loader.exec_module(slides)
TILE = slides.TILE

GENERIC_SIZE, GENERIC_DOWNSAMPLES = (2304, 1728), (1, 3, 9)
OME_SIZE, OME_DOWNSAMPLES, OME_NANOMETRES = (3072, 2304), (1, 4, 16), 500
# The Leica slide, in level-0 pixels of NANOMETRES each: the main image, its margin in the collection.
NANOMETRES, MAIN, MARGIN, LEICA_DOWNSAMPLES = 500, (3840, 2816), 128, (1, 4, 16)
COLLECTION = (MAIN[0] + 2 * MARGIN, MAIN[1] + 2 * MARGIN)
MACRO = (512, 384)
LEICA_XMLNS = "http://www.leica-microsystems.com/scn/2010/10/01"


def tiles(x0, y0, width, height, downsample):
    """JPEG tiles, row by row, of width x height pixels at (x0, y0) of the level `downsample` times smaller."""
    for row in range(-(-height // TILE)):
        for column in range(-(-width // TILE)):
            yield slides.jpeg(slides.stain(x0 + column * TILE, y0 + row * TILE, TILE, TILE, downsample), False)


def write_tiled(tif, size, x0, y0, downsample, **tags):
    tif.write(
        tiles(x0, y0, *size, downsample), shape=(size[1], size[0], 3), dtype=np.uint8, tile=(TILE, TILE),
        compression="jpeg", photometric="ycbcr", subsampling=(2, 2), metadata=None, software=False, **tags)


def write_generic(path, downsamples=GENERIC_DOWNSAMPLES):
    with tifffile.TiffWriter(path) as tif:
        for level, downsample in enumerate(downsamples):
            size = (GENERIC_SIZE[0] // downsample, GENERIC_SIZE[1] // downsample)
            write_tiled(tif, size, 0, 0, downsample, subfiletype=1 if level else 0)


def ome_description(width, height):
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<OME xmlns="http://www.openmicroscopy.org/Schemas/OME/2016-06" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://www.openmicroscopy.org/Schemas/OME/2016-06 '
        'http://www.openmicroscopy.org/Schemas/OME/2016-06/ome.xsd" Creator="make-vendor-slide-fixtures.py">'
        '<Image ID="Image:0" Name="quarters"><Pixels ID="Pixels:0" DimensionOrder="XYCZT" Type="uint8" '
        f'SizeX="{width}" SizeY="{height}" SizeC="3" SizeZ="1" SizeT="1" Interleaved="true" '
        f'PhysicalSizeX="{OME_NANOMETRES}" PhysicalSizeXUnit="nm" PhysicalSizeY="{OME_NANOMETRES}" PhysicalSizeYUnit="nm">'
        '<Channel ID="Channel:0:0" SamplesPerPixel="3"><LightPath/></Channel>'
        '<TiffData IFD="0" PlaneCount="1"/></Pixels></Image></OME>')


def write_ome(path, full_size=OME_SIZE, downsamples=OME_DOWNSAMPLES):
    with tifffile.TiffWriter(path) as tif:
        for level, downsample in enumerate(downsamples):
            size = (full_size[0] // downsample, full_size[1] // downsample)
            tags = dict(subfiletype=1) if level else dict(description=ome_description(*full_size), subifds=len(downsamples) - 1)
            write_tiled(tif, size, 0, 0, downsample, **tags)


def leica_image(name, offset, size, dimensions, objective=None):
    """An <image> of the collection: its view's offset and size in pixels of level 0, and its
    dimensions as (width, height, directory, extra attributes)."""
    (x, y), (width, height) = (v * NANOMETRES for v in offset), (v * NANOMETRES for v in size)
    dimension_elements = "".join(
        f'<dimension sizeX="{w}" sizeY="{h}" r="{r}" ifd="{ifd}"{extra}/>' for r, (w, h, ifd, extra) in enumerate(dimensions))
    objective_element = f"<objectiveSettings><objective>{objective}</objective></objectiveSettings>" if objective else ""
    return (
        f'<image name="{name}"><creationDate>2026-01-01T00:00:00.00Z</creationDate>'
        '<device model="Leica SCN400;Leica SCN" version="1.5.1;1.5.1"/>'
        f'<pixels sizeX="{dimensions[0][0]}" sizeY="{dimensions[0][1]}">{dimension_elements}</pixels>'
        f'<view sizeX="{width}" sizeY="{height}" offsetX="{x}" offsetY="{y}" spacingZ="0"/>'
        f"<scanSettings>{objective_element}<illuminationSettings><numericalAperture>0.4</numericalAperture>"
        "<illuminationSource>brightfield</illuminationSource></illuminationSettings></scanSettings></image>")


def leica_description():
    macro = leica_image("macro", (0, 0), COLLECTION, [(*MACRO, 0, "")])
    levels = [(MAIN[0] // d, MAIN[1] // d, ifd, ' z="0"') for ifd, d in enumerate(LEICA_DOWNSAMPLES, start=1)]
    main = leica_image("main", (MARGIN, MARGIN), MAIN, levels, objective=20)
    barcode = base64.b64encode(b"TESSERA").decode()
    return (
        f'<?xml version="1.0" encoding="utf-8"?><scn xmlns="{LEICA_XMLNS}">'
        f'<collection name="tessera" uuid="00000000-0000-0000-0000-000000000000" '
        f'sizeX="{COLLECTION[0] * NANOMETRES}" sizeY="{COLLECTION[1] * NANOMETRES}">'
        f"<barcode>{barcode}</barcode>{macro}{main}</collection></scn>")


def resolution(downsample):
    """TIFF resolution tags of a level `downsample` times smaller than level 0: pixels per centimetre."""
    per_centimetre = 10_000_000 // (NANOMETRES * downsample)
    return dict(resolution=(per_centimetre, per_centimetre), resolutionunit="CENTIMETER")


def write_leica(path):
    macro_downsample = COLLECTION[0] // MACRO[0]
    with tifffile.TiffWriter(path, bigtiff=True) as tif:
        write_tiled(tif, MACRO, 0, 0, macro_downsample, description=leica_description(), **resolution(macro_downsample))
        for downsample in LEICA_DOWNSAMPLES:
            size = (MAIN[0] // downsample, MAIN[1] // downsample)
            write_tiled(tif, size, MARGIN // downsample, MARGIN // downsample, downsample, **resolution(downsample))


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--ome-seed"]):
        sys.exit(__doc__.strip().splitlines()[-1])
    os.makedirs(sys.argv[1], exist_ok=True)
    if sys.argv[2:]:
        write_ome(os.path.join(sys.argv[1], "quarters-seed.ome.tif"), (256, 192), (1, 4))
        return
    write_generic(os.path.join(sys.argv[1], "generic-thirds.tif"))
    write_generic(os.path.join(sys.argv[1], "generic-shallow.tif"), GENERIC_DOWNSAMPLES[:2])
    write_ome(os.path.join(sys.argv[1], "quarters.ome.tif"))
    write_leica(os.path.join(sys.argv[1], "leica-like.scn"))


if __name__ == "__main__":
    main()
