#!/usr/bin/env python3
"""Aperio SVS-like whole-slide images for the slide tests, written at test time (none committed).

Each is what an Aperio scanner writes, as OpenSlide's `aperio` driver reads it: one TIFF, level 0
tiled, directory 1 a stripped thumbnail, then the tiled levels 4x and 16x smaller, then a stripped
label (NewSubfileType 1) and macro (9); the first ImageDescription starts `Aperio` and carries
`AppMag` and `MPP`. Tiles are JPEG from Pillow, written as stored bytes by tifffile:

  aperio-tables.svs   abbreviated tiles (no tables) with the shared JPEGTables, YCbCr 4:2:0
  aperio-rgb.svs      complete RGB-coded tiles (Adobe APP14, transform 0), Photometric RGB
  aperio-missing.svs  as aperio-tables.svs, with some tiles of length 0 (missing: background)
  aperio-jp2k.svs     JPEG 2000 codestreams of RGB with MCT (Aperio's compression 33005)
  aperio-jp2k-ycbcr.svs  JPEG 2000 codestreams of Y, Cb, Cr samples (Aperio's compression 33003)

and their DICOM twins (Supplement 145), each a folder holding one series: one instance per level
(the same JPEG frames, complete streams), a label, an overview and a thumbnail, written with
pydicom on the attributes of OpenSlide's own `boxes_0.dcm` (`--dicom-template`), which both
OpenSlide and Tessera read:

  dicom-twin/        TILED_FULL, Basic Offset Table, no ICC profile: aperio-tables.svs's pixels
  dicom-sparse/      TILED_SPARSE, frames of aperio-missing.svs's missing tiles left out, an
                     empty Basic Offset Table, a light blue background (CIELab)
  dicom-untabled/    as dicom-twin, with an empty Basic Offset Table (frames found by their fragments)
  dicom-jp2k/        TILED_FULL, JPEG 2000 frames of RGB with MCT (YBR_ICT)
  dicom-native/      TILED_FULL, uncompressed RGB frames, Implicit VR Little Endian (no VR in
                     the headers: the reader knows its sequences by tag)

`--size 256x256` makes small ones (the fuzz harness FuzzSlide's seeds); `--size 64x48 --tile 16
--dicom-template minimal` tiny DICOM ones on no other file's attributes (FuzzDICOM's seeds).

Pixels are a made-up stain pattern computed per level (not derived from level 0), so every level
is what it stores, as a scanner's are. Usage: make-slide-fixtures.py OUTPUT_DIR [--size WxH]
"""
import argparse
import io
import os

import numpy as np
import tifffile
from PIL import Image

try:
    import pydicom
    from pydicom.encaps import encapsulate
    from pydicom.sequence import Sequence
    from pydicom.dataset import Dataset
    from pydicom.uid import generate_uid
except ImportError:  # Only the DICOM twins need it.
    pydicom = None

TILE = 256
DOWNSAMPLES = (1, 4, 16)
QUALITY = 80
SOFTWARE = "Aperio Image Library v12.0.15"
# Tiles of aperio-missing.svs left out: (level, column, row).
MISSING = {(0, 1, 1), (0, 2, 1), (1, 0, 0)}


def stain(x0, y0, width, height, downsample):
    """RGB pixels of the level `downsample` times smaller, its area at (x0, y0): a pink tissue
    field with purple nuclei over white glass, textured so that JPEG has work to do."""
    ys, xs = np.mgrid[y0 : y0 + height, x0 : x0 + width].astype(np.float64)
    fx, fy = xs * downsample, ys * downsample
    field = np.sin(fx / 1500.0) * np.cos(fy / 1100.0) + 0.5 * np.sin((fx + fy) / 700.0)
    tissue = np.clip((field - 0.05) * 6.0, 0.0, 1.0)
    nuclei = (np.sin(fx / 23.0) * np.sin(fy / 19.0) > 0.82) * tissue
    grain = ((xs.astype(np.int64) * 73856093 ^ ys.astype(np.int64) * 19349663) % 97) / 97.0 - 0.5
    pink = np.array([236.0, 170.0, 205.0])
    purple = np.array([110.0, 60.0, 150.0])
    white = np.array([247.0, 247.0, 247.0])
    rgb = white * (1 - tissue[..., None]) + pink * tissue[..., None]
    rgb = rgb * (1 - nuclei[..., None]) + purple * nuclei[..., None]
    rgb += grain[..., None] * 18.0 * tissue[..., None]
    return np.clip(rgb.round(), 0, 255).astype(np.uint8)


def jpeg2000(pixels, ycbcr=False):
    """A raw JPEG 2000 codestream: of RGB with the codestream's own transform (MCT), as Aperio's
    33005 tiles, or (`ycbcr`) of Y, Cb, Cr samples with none, as its 33003 tiles."""
    image = Image.fromarray(pixels)
    if ycbcr:
        image = Image.frombytes("RGB", image.size, image.convert("YCbCr").tobytes())
    out = io.BytesIO()
    image.save(out, "JPEG2000", no_jp2=True, mct=0 if ycbcr else 1, quality_mode="rates", quality_layers=[12])
    return out.getvalue()


def jpeg(pixels, rgb_coded):
    out = io.BytesIO()
    if rgb_coded:
        Image.fromarray(pixels).save(out, "JPEG", quality=QUALITY, keep_rgb=True, subsampling=0)
    else:
        Image.fromarray(pixels).save(out, "JPEG", quality=QUALITY, subsampling=2)
    return out.getvalue()


def segments(stream):
    """The marker segments of a JPEG stream before its scan, as (marker, bytes), and the rest."""
    offset, found = 2, []
    while stream[offset] == 0xFF and stream[offset + 1] != 0xDA:
        length = int.from_bytes(stream[offset + 2 : offset + 4], "big")
        found.append((stream[offset + 1], stream[offset : offset + 2 + length]))
        offset += 2 + length
    return found, stream[offset:]


def abbreviate(stream):
    """(tables, tile): the quantization and Huffman tables as a JPEGTables stream, and the tile
    without them or its JFIF header, as libtiff and Aperio write tiles."""
    found, rest = segments(stream)
    tables = b"\xff\xd8" + b"".join(s for m, s in found if m in (0xDB, 0xC4)) + b"\xff\xd9"
    tile = b"\xff\xd8" + b"".join(s for m, s in found if m not in (0xDB, 0xC4, 0xE0)) + rest
    return tables, tile


def level_tiles(size, downsample, level, rgb_coded, tabled, missing, jp2k=None):
    width, height = size[0] // downsample, size[1] // downsample
    tables, tiles = None, []
    for row in range(-(-height // TILE)):
        for column in range(-(-width // TILE)):
            if (level, column, row) in missing:
                tiles.append(b"")
                continue
            pixels = stain(column * TILE, row * TILE, TILE, TILE, downsample)
            if jp2k:
                tiles.append(jpeg2000(pixels, ycbcr=jp2k == 33003))
                continue
            stream = jpeg(pixels, rgb_coded)
            if tabled:
                tables, stream = abbreviate(stream)
            tiles.append(stream)
    return (width, height), tables, tiles


def write_slide(path, size, rgb_coded=False, tabled=True, missing=frozenset(), jp2k=None):
    header = f"{SOFTWARE} \r\n{size[0]}x{size[1]} [0,0 {size[0]}x{size[1]}] ({TILE}x{TILE}) JPEG/{'RGB' if rgb_coded else 'YCC'} Q={QUALITY}"
    fields = "|AppMag = 40|StripeWidth = 1000|ScanScope ID = TESSERA|MPP = 0.2500|Left = 20.0|Top = 18.5"
    # tifffile tags JPEG as YCbCr unless told the tiles are coded in RGB.
    photometric, subsampling = ("rgb", (1, 1)) if rgb_coded else ("ycbcr", (2, 2))
    codedspace = {"outcolorspace": "rgb" if rgb_coded else "ycbcr"}
    with tifffile.TiffWriter(path, bigtiff=False) as tif:

        def tiled(level, downsample, description):
            level_size, tables, tiles = level_tiles(size, downsample, level, rgb_coded, tabled, missing, jp2k)
            coding = (dict(compression=jp2k, photometric="rgb") if jp2k else dict(
                compression="jpeg", compressionargs=codedspace, photometric=photometric, subsampling=subsampling, jpegtables=tables))
            tif.write(
                iter(tiles), shape=(level_size[1], level_size[0], 3), dtype=np.uint8, tile=(TILE, TILE), **coding,
                description=description, metadata=None, software=False)
            return level_size

        def stripped(pixels, description, subfiletype=0):
            tif.write(pixels, photometric="rgb", description=description, subfiletype=subfiletype, metadata=None, software=False)

        tiled(0, 1, header + fields)
        thumbnail = stain(0, 0, size[0] // 64, size[1] // 64, 64)
        stripped(thumbnail, f"{SOFTWARE} \r\n{size[0]}x{size[1]} -> {thumbnail.shape[1]}x{thumbnail.shape[0]} - " + fields)
        for level, downsample in enumerate(DOWNSAMPLES[1:], start=1):
            w, h = size[0] // downsample, size[1] // downsample
            tiled(level, downsample, f"{header} -> {w}x{h} - " + fields)
        side = max(8, min(300, size[0] // 16))
        label = np.full((side, side, 3), 200, np.uint8)
        label[side // 3 : 2 * side // 3, side // 6 : 5 * side // 6] = (30, 30, 30)
        stripped(label, f"{SOFTWARE} \r\nlabel {side}x{side}", subfiletype=1)
        macro_width, macro_height = max(8, min(800, size[0] // 8)), max(8, min(300, size[1] // 16))
        macro = stain(0, 0, macro_width, macro_height, max(1, size[0] // macro_width))
        stripped(macro, f"{SOFTWARE} \r\nmacro {macro_width}x{macro_height}", subfiletype=9)


# The sparse twin's background: CIELab as DICOM codes it, L* 96, a* -2, b* -8 (a light blue-grey).
SPARSE_BACKGROUND_LAB = (round(96 / 100 * 65535), round((-2 + 128) / 255 * 65535), round((-8 + 128) / 255 * 65535))


def dicom_frames(size, downsample, level, missing, coding):
    """Level `level`'s frames as complete streams (or raw pixels), with each one's (column, row);
    missing tiles left out."""
    width, height = size[0] // downsample, size[1] // downsample
    frames = []
    for row in range(-(-height // TILE)):
        for column in range(-(-width // TILE)):
            if (level, column, row) in missing:
                continue
            pixels = stain(column * TILE, row * TILE, TILE, TILE, downsample)
            encode = {"jpeg": lambda p: jpeg(p, False), "jp2k": jpeg2000, "native": lambda p: p.tobytes()}[coding]
            frames.append(((column, row), encode(pixels)))
    return (width, height), frames


# Per frame coding: transfer syntax, photometric interpretation, lossy compression method.
CODINGS = {
    "jpeg": ("1.2.840.10008.1.2.4.50", "YBR_FULL_422", "ISO_10918_1"),
    "jp2k": ("1.2.840.10008.1.2.4.91", "YBR_ICT", "ISO_15444_1"),
    "native": ("1.2.840.10008.1.2", "RGB", None),
}


def write_dicom_instance(
        path, template, series, flavor, size, frames, sparse=False, coding="jpeg", background=None, spacing=0.00025, offset_table=True):
    ds = template.copy()
    ds.file_meta = template.file_meta.copy()
    instance = generate_uid()
    ds.SOPInstanceUID = ds.file_meta.MediaStorageSOPInstanceUID = instance
    syntax, photometric, method = CODINGS[coding]
    ds.file_meta.TransferSyntaxUID = syntax
    ds.SeriesInstanceUID = series["series"]
    ds.StudyInstanceUID = series["study"]
    ds.FrameOfReferenceUID = series["frame"]
    ds.PyramidUID = series["pyramid"]
    ds.ImageType = ["ORIGINAL" if flavor == "VOLUME" else "DERIVED", "PRIMARY", flavor, "NONE" if flavor == "VOLUME" else "RESAMPLED"]
    ds.SharedFunctionalGroupsSequence[0].WholeSlideMicroscopyImageFrameTypeSequence[0].FrameType = ds.ImageType
    ds.SharedFunctionalGroupsSequence[0].PixelMeasuresSequence[0].PixelSpacing = [f"{spacing:.8f}", f"{spacing:.8f}"]
    ds.TotalPixelMatrixColumns, ds.TotalPixelMatrixRows = size
    # A level's frames are its tiles; an associated image is one frame of its own size.
    ds.Columns, ds.Rows = (TILE, TILE) if flavor == "VOLUME" else size
    ds.ImagedVolumeWidth, ds.ImagedVolumeHeight = size[0] * spacing, size[1] * spacing
    ds.NumberOfFrames = len(frames)
    ds.PhotometricInterpretation = photometric
    if method:
        ds.LossyImageCompressionMethod = method
    else:
        ds.LossyImageCompression = "00"
        for name in ("LossyImageCompressionMethod", "LossyImageCompressionRatio"):
            if name in ds:
                delattr(ds, name)
    for path_item in ds.OpticalPathSequence:
        # OpenSlide leaves colour as stored; so do the twins, so both compare with the SVS as stored.
        if "ICCProfile" in path_item:
            del path_item.ICCProfile
    if background is not None:
        ds.RecommendedAbsentPixelCIELabValue = list(background)
    if sparse:
        ds.DimensionOrganizationType = "TILED_SPARSE"
        positions = []
        for (column, row), _ in frames:
            item, position = Dataset(), Dataset()
            position.ColumnPositionInTotalImagePixelMatrix = column * TILE + 1
            position.RowPositionInTotalImagePixelMatrix = row * TILE + 1
            position.XOffsetInSlideCoordinateSystem = f"{column * TILE * spacing:.6f}"
            position.YOffsetInSlideCoordinateSystem = f"{row * TILE * spacing:.6f}"
            position.ZOffsetInSlideCoordinateSystem = "0"
            item.PlanePositionSlideSequence = Sequence([position])
            positions.append(item)
        ds.PerFrameFunctionalGroupsSequence = Sequence(positions)
    else:
        ds.DimensionOrganizationType = "TILED_FULL"
        if "PerFrameFunctionalGroupsSequence" in ds:
            del ds.PerFrameFunctionalGroupsSequence
    if coding == "native":
        ds.PixelData = b"".join(frame for _, frame in frames)
        ds["PixelData"].VR = "OB"
    else:
        ds.PixelData = encapsulate([frame for _, frame in frames], has_bot=offset_table and not sparse)
        ds["PixelData"].VR = "OB"
        ds["PixelData"].is_undefined_length = True
    ds.save_as(path, enforce_file_format=True)


def minimal_template():
    """The attributes Tessera's reader looks at and little else, with no value from anyone's file:
    what the committed fuzz seeds are written on (OpenSlide wants more, so the tests' twins use
    its `boxes_0.dcm`)."""
    from pydicom.dataset import FileMetaDataset
    ds = Dataset()
    ds.file_meta = FileMetaDataset()
    ds.file_meta.MediaStorageSOPClassUID = ds.SOPClassUID = "1.2.840.10008.5.1.4.1.1.77.1.6"
    ds.Modality = "SM"
    ds.SamplesPerPixel, ds.PlanarConfiguration, ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 3, 0, 8, 8, 7, 0
    shared, measures, frame_type = Dataset(), Dataset(), Dataset()
    measures.PixelSpacing = ["0.00025", "0.00025"]
    frame_type.FrameType = ["ORIGINAL", "PRIMARY", "VOLUME", "NONE"]
    shared.PixelMeasuresSequence = Sequence([measures])
    shared.WholeSlideMicroscopyImageFrameTypeSequence = Sequence([frame_type])
    ds.SharedFunctionalGroupsSequence = Sequence([shared])
    optical_path = Dataset()
    optical_path.OpticalPathIdentifier = "1"
    optical_path.ObjectiveLensPower = "40"
    ds.OpticalPathSequence = Sequence([optical_path])
    return ds


def write_dicom_slide(folder, size, template_path, sparse=False, coding="jpeg", offset_table=True):
    if pydicom is None:
        raise SystemExit("make-slide-fixtures.py: the DICOM twins need pydicom")
    template = pydicom.dcmread(template_path) if template_path != "minimal" else minimal_template()
    os.makedirs(folder, exist_ok=True)
    series = {key: generate_uid() for key in ("series", "study", "frame", "pyramid")}
    missing = MISSING if sparse else frozenset()
    background = SPARSE_BACKGROUND_LAB if sparse else None
    for level, downsample in enumerate(DOWNSAMPLES):
        level_size, frames = dicom_frames(size, downsample, level, missing, coding)
        write_dicom_instance(
            os.path.join(folder, f"level-{level}.dcm"), template, series, "VOLUME", level_size, frames, sparse=sparse, coding=coding,
            background=background, spacing=0.00025 * downsample, offset_table=offset_table)
    # The associated images: one frame each, of their own size.
    thumbnail_size = (max(1, size[0] // 64), max(1, size[1] // 64))
    for name, flavor, frame_size in (("thumbnail", "THUMBNAIL", thumbnail_size), ("label", "LABEL", (64, 64)), ("overview", "OVERVIEW", (128, 64))):
        pixels = stain(0, 0, frame_size[0], frame_size[1], max(1, size[0] // frame_size[0]))
        write_dicom_instance(os.path.join(folder, f"{name}.dcm"), template, series, flavor, frame_size, [((0, 0), jpeg(pixels, False))])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output")
    parser.add_argument("--size", default="12288x9216", help="level 0's width x height, in pixels")
    parser.add_argument("--only", choices=list(VARIANTS) + list(DICOM_VARIANTS), help="write this one slide alone")
    parser.add_argument("--tile", type=int, default=TILE, help="the tiles' side, in pixels")
    parser.add_argument(
        "--dicom-template", help="OpenSlide's boxes_0.dcm: write the DICOM twins on its attributes ('minimal': on only the few Tessera reads)")
    arguments = parser.parse_args()
    globals()["TILE"] = arguments.tile
    size = tuple(int(v) for v in arguments.size.lower().split("x"))
    os.makedirs(arguments.output, exist_ok=True)
    for name, options in VARIANTS.items():
        if arguments.only in (None, name):
            write_slide(os.path.join(arguments.output, name), size, **options)
    for name, options in DICOM_VARIANTS.items():
        if arguments.dicom_template and arguments.only in (None, name):
            write_dicom_slide(os.path.join(arguments.output, name), size, arguments.dicom_template, **options)


# File name → how write_slide makes it.
VARIANTS = {
    "aperio-tables.svs": dict(),
    "aperio-rgb.svs": dict(rgb_coded=True, tabled=False),
    "aperio-missing.svs": dict(missing=MISSING),
    "aperio-jp2k.svs": dict(jp2k=33005),
    "aperio-jp2k-ycbcr.svs": dict(jp2k=33003),
}

# Folder name → how write_dicom_slide makes it.
DICOM_VARIANTS = {
    "dicom-twin": dict(),
    "dicom-sparse": dict(sparse=True),
    "dicom-untabled": dict(offset_table=False),
    "dicom-jp2k": dict(coding="jp2k"),
    "dicom-native": dict(coding="native"),
}


if __name__ == "__main__":
    main()
