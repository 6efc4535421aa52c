"""Whole-slide images served in place (issue 48): Aperio SVS-like files and their DICOM twins
written here by scripts/make-slide-fixtures.py and OpenSlide's own test slides, served by
`tessera serve` and checked against OpenSlide 4.0.1 (openslide-bin, through openslide-python)
as the oracle.

Regions are asked as PNG, so what is compared is what Tessera decoded and made, not a re-encode.
"""
from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import openslide
import pytest
import tifffile
from PIL import Image

from conftest import REPO, run_server, wait_for_hook

SLIDES = ("aperio-tables.svs", "aperio-rgb.svs", "aperio-missing.svs", "aperio-jp2k.svs", "aperio-jp2k-ycbcr.svs")
# A DICOM slide is named by any of its instances: the level-0 file here, a level-1 one below.
DICOM_SLIDES = ("dicom-twin/level-0.dcm", "dicom-sparse/level-0.dcm", "dicom-jp2k/level-0.dcm")
SCRIPT = REPO / "scripts" / "make-slide-fixtures.py"
# The fixtures' script, for the tiles it leaves out of aperio-missing.svs.
_spec = importlib.util.spec_from_file_location("make_slide_fixtures", SCRIPT)
fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixtures)
OPENSLIDE_FIXTURES = REPO / ".build" / "openslide-fixtures"
#: Random regions per scale factor and slide (REGIONS=200 in the environment: the issue's count).
REGION_COUNT = 24


@pytest.fixture(scope="session")
def slide_root(tmp_path_factory) -> Path:
    """The generated slides (made once per version of their script, kept under .build) and
    OpenSlide's small.svs, boxes.tiff and unreadable.svs, with a copy of a slide cut short."""
    made = REPO / ".build" / "slide-fixtures" / hashlib.sha256(SCRIPT.read_bytes()).hexdigest()[:12]
    if not (made / SLIDES[-1]).exists():
        partial = made.with_suffix(".partial")
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run(
            [sys.executable, str(SCRIPT), str(partial), "--dicom-template", str(OPENSLIDE_FIXTURES / "boxes_0.dcm")], check=True)
        partial.rename(made)
    root = tmp_path_factory.mktemp("slides")
    for name in SLIDES:
        shutil.copy(made / name, root / name)
    for name in fixtures.DICOM_VARIANTS:
        shutil.copytree(made / name, root / name)
    for name in ("small.svs", "boxes.tiff", "unreadable.svs"):
        shutil.copy(OPENSLIDE_FIXTURES / name, root / name)
    (root / "boxes").mkdir()
    for name in ("boxes_0.dcm", "boxes_1.dcm"):
        shutil.copy(OPENSLIDE_FIXTURES / name, root / "boxes" / name)
    (root / "cut.svs").write_bytes((made / SLIDES[0]).read_bytes()[: 1 << 20])
    (root / "cut").mkdir()
    (root / "cut" / "level-0.dcm").write_bytes((made / DICOM_SLIDES[0]).read_bytes()[: 1 << 18])
    return root


@pytest.fixture(scope="session")
def slide_server(slide_root, tmp_path_factory):
    yield from run_server(slide_root, tmp_path_factory)


def iiif(name: str) -> str:
    """The slide's IIIF identifier: its path under the root, slashes escaped."""
    return name.replace("/", "%2F")


def fetch(server, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(server.url + path, timeout=120) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def steps(server) -> dict[str, int]:
    """The request steps counted so far, and `reads`: the reads of a source's pixels of every kind
    (tiles and regions, whole levels)."""
    text = server.get("/metrics").decode()
    counted = {m[0]: int(float(m[1])) for m in re.findall(r'tessera_request_steps_total\{step="(\w+)"\} (\S+)', text)}
    levels = re.search(r"^tessera_source_level_decodes_total (\S+)", text, re.M)
    counted["reads"] = counted["source_read"] + int(float(levels[1]))
    return counted


def pixels(body: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(body)).convert("RGB")).astype(np.int32)


def reference(slide: openslide.OpenSlide, factor: int, x: int, y: int, width: int, height: int) -> np.ndarray:
    """The region (full-resolution pixels, multiples of `factor`) at 1/`factor`, as OpenSlide
    reads the native level at most that fine, composited on white, then halved 2×2 (rounding half
    up) down to the factor: how a pyramid's levels between stored ones are made."""
    level = max(i for i, d in enumerate(slide.level_downsamples) if round(d) <= factor)
    downsample = round(slide.level_downsamples[level])
    rgba = np.asarray(slide.read_region((x, y), level, (width // downsample, height // downsample))).astype(np.int32)
    alpha = rgba[..., 3:4]
    rgb = (rgba[..., :3] * alpha + 255 * (255 - alpha) + 127) // 255
    for _ in range((factor // downsample).bit_length() - 1):
        rgb = (rgb[0::2, 0::2] + rgb[1::2, 0::2] + rgb[0::2, 1::2] + rgb[1::2, 1::2] + 2) >> 2
    return rgb


def missing_mask(factor: int, x: int, y: int, width: int, height: int) -> np.ndarray:
    """Where the region at 1/`factor` shows tiles aperio-missing.svs lacks in the stored level it
    is made from: those are background (white) there, the same stored pixels as
    aperio-tables.svs everywhere else. (OpenSlide paints a missing tile from the finer levels,
    and leaves a gap transparent: so the oracle for this slide is the slide without gaps.)"""
    level = max(i for i, d in enumerate(fixtures.DOWNSAMPLES) if d <= factor)
    side = fixtures.TILE * fixtures.DOWNSAMPLES[level]  # full-resolution pixels per stored tile
    ys, xs = np.mgrid[y : y + height : factor, x : x + width : factor]
    mask = np.zeros(xs.shape, bool)
    for missing_level, column, row in fixtures.MISSING:
        if missing_level == level:
            mask |= (xs // side == column) & (ys // side == row)
    return mask


def psnr(ours: np.ndarray, theirs: np.ndarray) -> float:
    error = np.mean((ours - theirs) ** 2)
    return float("inf") if error == 0 else 10 * np.log10(255**2 / error)


@pytest.mark.parametrize(
    "name", SLIDES + DICOM_SLIDES + ("dicom-twin/level-1.dcm", "dicom-untabled/level-0.dcm", "small.svs", "boxes/boxes_0.dcm"))
def test_info_has_the_slides_size_stored_tiles_and_every_stored_downsample(slide_server, slide_root, name):
    # OpenSlide opens a DICOM slide by any of its files too.
    slide = openslide.OpenSlide(slide_root / name)
    info = slide_server.json(f"/iiif/3/{iiif(name)}/info.json")
    assert (info["width"], info["height"]) == slide.dimensions
    if name in ("small.svs", "boxes/boxes_0.dcm"):
        return  # 16×16: a small image, answered whole from one decode whatever its tiles
    tiles = info["tiles"][0]
    assert (tiles["width"], tiles["height"]) == (int(slide.properties["openslide.level[0].tile-width"]),) * 2
    stored = {round(d) for d in slide.level_downsamples}
    assert stored <= set(tiles["scaleFactors"])
    # The powers of two between the stored ones too: 2 and 8 for levels 1, 4, 16.
    assert set(range(max(stored).bit_length())) <= {f.bit_length() - 1 for f in tiles["scaleFactors"]}


@pytest.mark.parametrize("name", SLIDES + DICOM_SLIDES + ("small.svs", "boxes.tiff", "boxes/boxes_0.dcm"))
def test_info_gives_the_scanners_scale_and_no_other(slide_server, slide_root, name):
    slide = openslide.OpenSlide(slide_root / name)
    info = slide_server.json(f"/iiif/3/{iiif(name)}/info.json")
    services = [s for s in info.get("service", []) if "physdim" in s.get("profile", "")]
    if slide.properties["openslide.vendor"] not in ("aperio", "dicom"):
        # boxes.tiff: OpenSlide's 352.78 µm/px is the file's 72 dpi, not a microscope's scale.
        assert services == []
        return
    expected = {
        "@context": "http://iiif.io/api/annex/services/physdim/1/context.json",
        "@id": info["id"] + "#physdim", "@type": "PhysicalDimensions",
        "profile": "http://iiif.io/api/annex/services/physdim",
        "physicalScale": pytest.approx(float(slide.properties["openslide.mpp-x"]) / 1000, rel=1e-9),
        "physicalUnits": "mm"}
    assert services == [expected]
    # The slide's canvas carries it too, as its image service's; a manifest both checkers take.
    manifest = slide_server.get(f"/presentation/3/{iiif(name)}/manifest")
    canvas = json.loads(manifest)["items"][0]
    assert canvas["service"] == [expected]
    checked = subprocess.run([str(REPO / ".build/presentation-venv/bin/python"), str(REPO / "scripts/check-presentation.py"), "-"],
                             input=manifest, capture_output=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.fixture(scope="session")
def labels_server(slide_root, tmp_path_factory):
    """A server asked to serve slides' labels, macro photos and thumbnails."""
    yield from run_server(slide_root, tmp_path_factory, extra=("--slide-associated-images",))


@pytest.mark.parametrize("name", (SLIDES[0], "dicom-twin/level-0.dcm", "small.svs", "boxes/boxes_0.dcm"))
def test_associated_images_are_served_and_shown_only_when_asked(slide_server, labels_server, slide_root, name):
    slide = openslide.OpenSlide(slide_root / name)
    associated = slide.associated_images
    # Off by default: no canvas, no pixels, no info.json (a label carries a patient's name).
    manifest = slide_server.json(f"/presentation/3/{iiif(name)}/manifest")
    assert len(manifest["items"]) == 1
    for image in list(associated) + ["nothing"]:
        for path in (f"/iiif/3/{iiif(name)};{image}/info.json", f"/iiif/3/{iiif(name)};{image}/full/max/0/default.png"):
            status, body = fetch(slide_server, path)
            assert status == 404 and str(slide_root).encode() not in body, path
    # Asked for: a canvas after the slide's for each, whose image is OpenSlide's.
    text = labels_server.get(f"/presentation/3/{iiif(name)}/manifest")
    manifest = json.loads(text)
    canvases = {c["label"]["none"][0]: c for c in manifest["items"][1:]}
    assert sorted(canvases) == sorted(associated) and len(manifest["items"]) == 1 + len(associated)
    for image, pixels_expected in associated.items():
        canvas = canvases[image]
        assert (canvas["width"], canvas["height"]) == pixels_expected.size
        service = canvas["items"][0]["items"][0]["body"]["service"][0]["id"]
        assert service.endswith(f"/iiif/3/{iiif(name)};{image}")
        status, body = fetch(labels_server, service[len(labels_server.url):] + "/full/max/0/default.png")
        assert status == 200, body[:200]
        theirs = np.asarray(pixels_expected.convert("RGB")).astype(np.int32)
        ours = pixels(body)
        assert ours.shape == theirs.shape and psnr(ours, theirs) >= 40, image
    status, _ = fetch(labels_server, f"/iiif/3/{iiif(name)};nothing/info.json")
    assert status == 404
    checked = subprocess.run([str(REPO / ".build/presentation-venv/bin/python"), str(REPO / "scripts/check-presentation.py"), "-"],
                             input=text, capture_output=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def sparse_background() -> np.ndarray:
    """dicom-sparse's background, its CIELab (D50, as DICOM codes it) in sRGB by LittleCMS through
    Pillow: another implementation than Tessera's."""
    from PIL import ImageCms
    lab = fixtures.SPARSE_BACKGROUND_LAB
    pixel = Image.new("LAB", (1, 1), (round(lab[0] / 65535 * 255), round(lab[1] / 65535 * 255), round(lab[2] / 65535 * 255)))
    transform = ImageCms.buildTransform(ImageCms.createProfile("LAB", 5000), ImageCms.createProfile("sRGB"), "LAB", "RGB")
    return np.array(ImageCms.applyTransform(pixel, transform).getpixel((0, 0)), np.int32)


# Slides with gaps, and what OpenSlide reads for them without: the oracle everywhere but the gaps.
WHOLE_TWIN = {"aperio-missing.svs": SLIDES[0], "dicom-sparse/level-0.dcm": DICOM_SLIDES[0]}


def regions(name: str, width: int, height: int, factor: int, chooser: random.Random):
    """Random regions of the slide at `factor`: sides and corners on the factor's grid, up to
    384 px answered."""
    for _ in range(int(os.environ.get("REGIONS", REGION_COUNT))):
        w = factor * chooser.randrange(8, 384, 2)
        h = factor * chooser.randrange(8, 384, 2)
        w, h = min(w, width // factor // 2 * 2 * factor), min(h, height // factor // 2 * 2 * factor)
        x = factor * chooser.randrange(0, (width - w) // factor + 1)
        y = factor * chooser.randrange(0, (height - h) // factor + 1)
        yield x, y, w, h


@pytest.mark.parametrize("name", SLIDES + DICOM_SLIDES)
def test_random_regions_at_every_scale_factor_equal_openslides(slide_server, slide_root, name):
    slide = openslide.OpenSlide(slide_root / WHOLE_TWIN.get(name, name))
    width, height = slide.dimensions
    chooser = random.Random(name)
    for factor in (1, 2, 4, 8, 16, 32):
        worst = float("inf")
        for x, y, w, h in regions(name, width, height, factor, chooser):
            status, body = fetch(slide_server, f"/iiif/3/{iiif(name)}/{x},{y},{w},{h}/{w // factor},{h // factor}/0/default.png")
            assert status == 200, body[:200]
            ours, theirs = pixels(body), reference(slide, factor, x, y, w, h)
            gaps = missing_mask(factor, x, y, w, h) if name in WHOLE_TWIN else np.zeros(theirs.shape[:2], bool)
            theirs[gaps] = 255 if name.endswith(".svs") else sparse_background()
            assert ours.shape == theirs.shape, (factor, x, y, w, h)
            if round(max(d for d in slide.level_downsamples if round(d) <= factor)) == factor:
                # A stored level: the same JPEG tiles decoded by the same libjpeg-turbo (JPEG 2000's
                # by two builds of OpenJPEG, whose irreversible transform rounds alike); a DICOM
                # gap within 1 of the background as Pillow's 8-bit Lab gives it.
                assert np.array_equal(ours[~gaps], theirs[~gaps]), (factor, x, y, w, h, int(np.abs(ours - theirs).max()))
                assert int(np.abs(ours[gaps] - theirs[gaps]).max(initial=0)) <= (0 if name.endswith(".svs") else 1), (factor, x, y, w, h)
            worst = min(worst, psnr(ours, theirs))
        assert worst >= 40, (factor, worst)


def test_uncompressed_implicit_vr_dicom_is_read_as_stored(slide_server, slide_root):
    # OpenSlide reads no Implicit VR Little Endian file: the oracle is the script's own pixels.
    name = "dicom-native/level-0.dcm"
    width, height = openslide.OpenSlide(slide_root / DICOM_SLIDES[0]).dimensions
    chooser = random.Random(name)
    for factor in fixtures.DOWNSAMPLES:
        for x, y, w, h in regions(name, width, height, factor, chooser):
            status, body = fetch(slide_server, f"/iiif/3/{iiif(name)}/{x},{y},{w},{h}/{w // factor},{h // factor}/0/default.png")
            assert status == 200, body[:200]
            expected = fixtures.stain(x // factor, y // factor, w // factor, h // factor, factor).astype(np.int32)
            assert np.array_equal(pixels(body), expected), (factor, x, y, w, h)


def test_the_svs_and_its_dicom_twin_give_the_same_png_bytes_for_every_region(slide_server, slide_root):
    width, height = openslide.OpenSlide(slide_root / SLIDES[0]).dimensions
    chooser = random.Random("twins")
    for factor in (1, 2, 4, 8, 16, 32):
        for x, y, w, h in regions("twins", width, height, factor, chooser):
            request = f"{x},{y},{w},{h}/{w // factor},{h // factor}/0/default.png"
            svs = fetch(slide_server, f"/iiif/3/{SLIDES[0]}/{request}")
            # With its offset table, and without (frames found by walking the fragments).
            for twin in (DICOM_SLIDES[0], "dicom-untabled/level-0.dcm"):
                dicom = fetch(slide_server, f"/iiif/3/{iiif(twin)}/{request}")
                assert svs[0] == dicom[0] == 200, request
                assert svs[1] == dicom[1], (twin, request)


def stored_tile(path: Path, level_directory: int, column: int, row: int) -> bytes:
    """Tile (column, row) of a directory as a complete JPEG: the shared tables spliced in."""
    with tifffile.TiffFile(path) as tif:
        page = tif.pages[level_directory]
        across = -(-page.imagewidth // page.tilewidth)
        index = row * across + column
        tif.filehandle.seek(page.dataoffsets[index])
        tile = tif.filehandle.read(page.databytecounts[index])
        tables = page.jpegtables
    return tile if tables is None else b"\xff\xd8" + tables[2:-2] + tile[2:]


def passed_through(server, name: str, factor: int, column: int, row: int, deep_zoom_top: int | None = None) -> bytes:
    """Tile (column, row) of the stored level `factor` as an IIIF client asks it (256 px, JPEG), or
    a Deep Zoom client whose top level is `deep_zoom_top`, checked to be answered by pass-through:
    counted so, with no pixel read."""
    before = steps(server)
    side = 256 * factor
    if deep_zoom_top is None:
        path = f"/iiif/3/{iiif(name)}/{column * side},{row * side},{side},{side}/256,256/0/default.jpg"
    else:
        path = f"/dzi/{iiif(name)}_files/{deep_zoom_top - (factor.bit_length() - 1)}/{column}_{row}.jpeg"
    status, body = fetch(server, path)
    assert status == 200, path
    after = steps(server)
    assert after["stored_tile_passthrough"] == before["stored_tile_passthrough"] + 1
    assert after["reads"] == before["reads"], "a pass-through read pixels"
    return body


@pytest.mark.parametrize("name", SLIDES[:2])
def test_aligned_interior_tiles_at_stored_levels_are_the_stored_bytes(slide_server, slide_root, name):
    slide = openslide.OpenSlide(slide_root / name)
    # Stored levels 1, 4, 16 are directories 0, 2, 3 (directory 1 is the thumbnail).
    for factor, directory, column, row in ((1, 0, 5, 3), (4, 2, 2, 1), (16, 3, 1, 1)):
        side = 256 * factor
        body = passed_through(slide_server, name, factor, column, row)
        assert body == stored_tile(slide_root / name, directory, column, row), factor
        level = [round(d) for d in slide.level_downsamples].index(factor)
        theirs = np.asarray(slide.read_region((column * side, row * side), level, (256, 256)).convert("RGB")).astype(np.int32)
        assert np.array_equal(pixels(body), theirs)


def dicom_frame(path: Path, index: int) -> bytes:
    """Frame `index` of a DICOM instance, as pydicom takes it out of the encapsulated pixel data."""
    from pydicom import dcmread
    from pydicom.encaps import generate_frames
    dataset = dcmread(path)
    return list(generate_frames(dataset.PixelData, number_of_frames=dataset.NumberOfFrames))[index]


def test_aligned_interior_dicom_tiles_are_the_stored_frames(slide_server, slide_root):
    name = DICOM_SLIDES[0]
    slide = openslide.OpenSlide(slide_root / name)
    for factor, level, column, row in ((1, 0, 5, 3), (4, 1, 2, 1), (16, 2, 1, 1)):
        body = passed_through(slide_server, name, factor, column, row)
        across = -(-slide.level_dimensions[level][0] // 256)
        assert body == dicom_frame(slide_root / "dicom-twin" / f"level-{level}.dcm", row * across + column), factor


def test_sparse_dicom_gaps_are_the_slides_background_never_black(slide_server, slide_root):
    # dicom-sparse stores no frame for tiles (1, 1) and (2, 1) of level 0 and (0, 0) of level 1.
    background = sparse_background()
    for region, size in (("256,256,512,256", "512,256"), ("0,0,1024,1024", "256,256")):
        status, body = fetch(slide_server, f"/iiif/3/{iiif(DICOM_SLIDES[1])}/{region}/{size}/0/default.png")
        assert status == 200
        assert int(np.abs(pixels(body) - background).max()) <= 1, (region, pixels(body)[0, 0])


def test_deep_zoom_tiles_of_stored_levels_are_the_stored_bytes(slide_server, slide_root):
    # A slide's Deep Zoom tiling is its stored tiles with no overlap, so its tiles at stored levels
    # are stored tiles: the same bytes as IIIF's, and no pixel read.
    name = SLIDES[0]
    descriptor = slide_server.get(f"/dzi/{name}.dzi").decode()
    assert 'Overlap="0"' in descriptor and 'TileSize="256"' in descriptor
    top = (max(openslide.OpenSlide(slide_root / name).dimensions) - 1).bit_length()
    for factor, directory, column, row in ((1, 0, 5, 3), (4, 2, 2, 1)):
        body = passed_through(slide_server, name, factor, column, row, deep_zoom_top=top)
        assert body == stored_tile(slide_root / name, directory, column, row), factor


def test_tiles_that_are_not_as_stored_are_decoded(slide_server, slide_root):
    name = SLIDES[0]
    cases = (
        "512,512,256,256/256,256/0/default.png",  # another format
        "768,512,256,256/256,256/90/default.jpg",  # turned
        "1024,512,256,256/256,256/0/gray.jpg",  # another quality
        "2048,1024,1024,1024/512,512/0/default.jpg",  # factor 2: made from level 0
        "0,8192,4096,1024/256,64/0/default.jpg",  # level 2's bottom row: stored padded, answered cut
    )
    for case in cases:
        before = steps(slide_server)
        status, body = fetch(slide_server, f"/iiif/3/{name}/{case}")
        assert status == 200, case
        after = steps(slide_server)
        assert after["stored_tile_passthrough"] == before["stored_tile_passthrough"], case
        answered = Image.open(io.BytesIO(body))
        assert answered.size == tuple(int(v) for v in case.split("/")[1].split(",")), case
        assert answered.format == ("PNG" if case.endswith("png") else "JPEG"), case


def test_jpeg_2000_tiles_are_decoded_not_passed_through(slide_server, slide_root):
    before = steps(slide_server)
    status, body = fetch(slide_server, "/iiif/3/aperio-jp2k.svs/2560,1280,256,256/256,256/0/default.jpg")
    assert status == 200 and jpeg_dimensions(body) == (256, 256)
    after = steps(slide_server)
    assert after["stored_tile_passthrough"] == before["stored_tile_passthrough"]
    assert after["reads"] > before["reads"]


def jpeg_dimensions(body: bytes) -> tuple[int, int]:
    image = Image.open(io.BytesIO(body))
    assert image.format == "JPEG"
    return image.size


def test_missing_tiles_are_white_never_black(slide_server, slide_root):
    # aperio-missing.svs lacks tiles (1, 1) and (2, 1) of level 0 and (0, 0) of level 1.
    for region, size in (("256,256,512,256", "512,256"), ("0,0,1024,1024", "256,256")):
        status, body = fetch(slide_server, f"/iiif/3/aperio-missing.svs/{region}/{size}/0/default.png")
        assert status == 200
        assert (pixels(body) == 255).all(), region
    status, body = fetch(slide_server, "/iiif/3/aperio-missing.svs/0,0,2048,1024/512,256/0/default.png")
    assert status == 200 and pixels(body).min(axis=2).max() == 255 and pixels(body).max(axis=2).min() > 0


@pytest.mark.parametrize("name", ("unreadable.svs", "cut.svs", "cut/level-0.dcm"))
def test_broken_slides_are_refused_with_a_short_error_and_the_server_goes_on(slide_server, slide_root, name):
    status, info = fetch(slide_server, f"/iiif/3/{iiif(name)}/info.json")
    if status == 200:
        status, body = fetch(slide_server, f"/iiif/3/{iiif(name)}/full/!256,256/0/default.jpg")
    else:
        body = info
    assert 400 <= status < 600 and len(body) < 512, (status, body[:200])
    assert str(slide_root).encode() not in body and b"/tmp" not in body
    assert fetch(slide_server, "/iiif/3/aperio-tables.svs/0,0,256,256/256,256/0/default.jpg")[0] == 200


def tessera_binary() -> str:
    return os.environ.get("TESSERA_BIN", str(REPO / ".build" / "debug" / "tessera"))


@pytest.mark.parametrize("name", (SLIDES[0], "dicom-twin/level-1.dcm", "small.svs"))
def test_tessera_info_lists_the_associated_images_openslide_lists(slide_root, name):
    run = subprocess.run([tessera_binary(), "info", "--json", str(slide_root / name)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    listed = {image["name"]: (image["width"], image["height"]) for image in json.loads(run.stdout)["source"]["associatedImages"]}
    assert listed == {key: image.size for key, image in openslide.OpenSlide(slide_root / name).associated_images.items()}


def test_tessera_thumbnail_reads_slides_from_their_own_levels(slide_root, tmp_path):
    binary = tessera_binary()
    made = {}
    for name, side in ((SLIDES[0], 256), ("dicom-twin/level-1.dcm", 256), ("aperio-missing.svs", 1024)):
        output = tmp_path / (name.replace("/", "-") + ".png")
        run = subprocess.run([binary, "thumbnail", str(slide_root / name), "--max-pixel-size", str(side), "--output", str(output)],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        made[name] = pixels(output.read_bytes())
        assert made[name].shape == (side * 3 // 4, side, 3), name
    # The twins are the same pixels; OpenSlide's own thumbnail (another filter) is close.
    assert np.array_equal(made[SLIDES[0]], made["dicom-twin/level-1.dcm"])
    theirs = np.asarray(openslide.OpenSlide(slide_root / SLIDES[0]).get_thumbnail((256, 256)).convert("RGB")).astype(np.int32)
    assert theirs.shape == made[SLIDES[0]].shape and psnr(made[SLIDES[0]], theirs) >= 30
    # At 1024 px the level read is made from level 1 (4×), whose tile (0, 0) is missing: white there
    # (that tile is the top-left 1024 full-resolution pixels: 85 of these).
    assert (made["aperio-missing.svs"][:80, :80] >= 250).all()


def test_tessera_convert_writes_a_slide_as_an_ome_tiff_pyramid_that_keeps_its_pixels_and_scale(slide_root, tmp_path):
    output = tmp_path / "converted.ome.tif"
    run = subprocess.run([tessera_binary(), "convert", str(slide_root / SLIDES[0]), str(output), "--lossless"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    slide = openslide.OpenSlide(slide_root / SLIDES[0])
    with tifffile.TiffFile(output) as tif:
        assert tif.is_ome and len(tif.pages) == 1  # the reduced levels are SubIFDs
        pixels_element = re.search(r"<Pixels [^>]*>", tif.pages[0].description)[0]
        assert 'PhysicalSizeX="0.25"' in pixels_element and 'PhysicalSizeXUnit="µm"' in pixels_element
        levels = tif.series[0].levels
        width, height = slide.dimensions
        sizes = [(width, height)]
        while max(sizes[-1]) > 256:
            sizes.append(((sizes[-1][0] + 1) // 2, (sizes[-1][1] + 1) // 2))
        assert [(level.shape[1], level.shape[0]) for level in levels] == sizes
        # Lossless: the stored levels (1, 4, 16) are OpenSlide's pixels, those between them halvings.
        chooser = random.Random("convert")
        for factor in (1, 2, 4, 8, 16):
            level = levels[factor.bit_length() - 1].asarray()
            for x, y, w, h in list(regions(SLIDES[0], width, height, factor, chooser))[:4]:
                ours = level[y // factor : (y + h) // factor, x // factor : (x + w) // factor].astype(np.int32)
                assert np.array_equal(ours, reference(slide, factor, x, y, w, h)), (factor, x, y, w, h)
    info = subprocess.run([tessera_binary(), "info", "--json", str(output)], capture_output=True, text=True, timeout=60)
    source = json.loads(info.stdout)["source"]
    assert source["kind"] == "ome-tiff" and source["micronsPerPixel"] == 0.25


def test_tessera_tile_builds_a_pyramid_from_a_slides_own_levels(slide_root, tmp_path):
    for name, pyramid in ((SLIDES[0], "svs"), ("dicom-twin/level-1.dcm", "dicom")):
        run = subprocess.run([tessera_binary(), "tile", str(slide_root / name), "--output", str(tmp_path), "--name", pyramid,
                              "--layout", "iiif", "--tile-size", "256", "--format", "png"], capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
    slide = openslide.OpenSlide(slide_root / SLIDES[0])
    info = json.loads((tmp_path / "svs" / "info.json").read_text())
    assert (info["width"], info["height"]) == slide.dimensions
    # Tiles at stored levels are OpenSlide's pixels; between them, halvings; the twins' are the same files.
    for factor, column, row in ((1, 5, 3), (2, 3, 2), (4, 2, 1), (16, 1, 1)):
        side = 256 * factor
        region = f"{column * side},{row * side},{side},{side}"
        tile = tmp_path / "svs" / region / "256,256" / "0" / "default.png"
        assert np.array_equal(pixels(tile.read_bytes()), reference(slide, factor, column * side, row * side, side, side)), factor
        assert tile.read_bytes() == (tmp_path / "dicom" / region / "256,256" / "0" / "default.png").read_bytes(), factor


def test_a_folder_lists_a_dicom_slide_once_and_slides_the_probe_refuses(slide_server, slide_root):
    listing = slide_server.json("/api/assets?dir=dicom-twin")
    # Six instances, one slide: named by its first level, the others neither listed nor skipped.
    assert [(e["name"], e["kind"], e["width"], e["height"]) for e in listing["entries"]] == [("level-0.dcm", "image", 12288, 9216)]
    assert listing["skipped"] == 0
    root = {e["name"]: e for e in slide_server.json("/api/assets")["entries"]}
    # A slide with missing tiles, which the codecs' probe refuses, is listed with its kind's header.
    assert root["aperio-missing.svs"]["kind"] == "image" and "error" not in root["aperio-missing.svs"]
    manifest = slide_server.json("/presentation/3/dicom-twin/manifest")
    assert [c["width"] for c in manifest["items"]] == [12288]


VENDOR_SCRIPT = REPO / "scripts" / "make-vendor-slide-fixtures.py"
VENDOR_SLIDES = ("generic-thirds.tif", "generic-shallow.tif", "leica-like.scn")
# Who reads each: the pyramid kind the whole-factor pyramid down to 2x2 tiles, OpenSlide the rest.
VENDOR_KINDS = {"generic-thirds.tif": "tiff-pyramid", "generic-shallow.tif": "openslide", "leica-like.scn": "openslide"}
OME_SLIDE = "quarters.ome.tif"


@pytest.fixture(scope="session")
def vendor_server(tmp_path_factory):
    """Slides Tessera reads through OpenSlide (Debian's 3.4.1, loaded on first use), written once
    per version of their script; the oracle is OpenSlide 4.0.1."""
    # Its pixels come from the other script's pattern: a change to either makes them again.
    made = REPO / ".build" / "slide-fixtures" / ("vendor-" + hashlib.sha256(VENDOR_SCRIPT.read_bytes() + SCRIPT.read_bytes()).hexdigest()[:12])
    if not (made / OME_SLIDE).exists():
        partial = made.with_suffix(".partial")
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run([sys.executable, str(VENDOR_SCRIPT), str(partial)], check=True)
        partial.rename(made)
    root = tmp_path_factory.mktemp("vendor-slides")
    for name in VENDOR_SLIDES + (OME_SLIDE,):
        shutil.copy(made / name, root / name)
    yield from run_server(root, tmp_path_factory)


def composited(slide: openslide.OpenSlide, level: int, x: int, y: int, width: int, height: int) -> np.ndarray:
    """OpenSlide's pixels of a level, premultiplied ARGB made RGB on the slide's background."""
    background = np.array([int(slide.properties.get("openslide.background-color", "FFFFFF")[i:i + 2], 16) for i in (0, 2, 4)])
    rgba = np.asarray(slide.read_region((x, y), level, (width, height))).astype(np.int32)
    alpha = rgba[..., 3:4]
    return (rgba[..., :3] * alpha + background * (255 - alpha) + 127) // 255


@pytest.mark.parametrize("name", VENDOR_SLIDES)
def test_vendor_slides_are_read_at_their_stored_levels_as_openslide_reads_them(vendor_server, name):
    slide = openslide.OpenSlide(vendor_server.root / name)
    run = subprocess.run([tessera_binary(), "info", "--json", str(vendor_server.root / name)], capture_output=True, text=True, timeout=60)
    assert json.loads(run.stdout)["source"]["kind"] == VENDOR_KINDS[name]
    info = vendor_server.json(f"/iiif/3/{name}/info.json")
    assert (info["width"], info["height"]) == slide.dimensions
    services = [s for s in info.get("service", []) if "physdim" in s.get("profile", "")]
    if slide.properties["openslide.vendor"] == "generic-tiff":
        assert services == []  # a print resolution is not a microscope's scale
    else:
        assert services and services[0]["physicalScale"] == pytest.approx(float(slide.properties["openslide.mpp-x"]) / 1000, rel=1e-6)
    chooser = random.Random(name)
    for level, downsample in enumerate(slide.level_downsamples):
        factor = round(downsample)
        if factor & (factor - 1):
            continue  # a 3× level: IIIF's factors are powers of two, made from it by resampling
        width, height = slide.dimensions
        for x, y, w, h in regions(name, width, height, factor, chooser):
            status, body = fetch(vendor_server, f"/iiif/3/{name}/{x},{y},{w},{h}/{w // factor},{h // factor}/0/default.png")
            assert status == 200, body[:200]
            assert np.array_equal(pixels(body), composited(slide, level, x, y, w // factor, h // factor)), (factor, x, y, w, h)
    # A factor no stored level has is made from the finer one: 2 from level 0.
    x, y, w, h = next(regions(name, *slide.dimensions, 2, chooser))
    status, body = fetch(vendor_server, f"/iiif/3/{name}/{x},{y},{w},{h}/{w // 2},{h // 2}/0/default.png")
    full = composited(slide, 0, x, y, w, h)
    halved = (full[0::2, 0::2] + full[1::2, 0::2] + full[0::2, 1::2] + full[1::2, 1::2] + 2) >> 2
    assert status == 200 and psnr(pixels(body), halved) >= 40


def test_an_ome_tiffs_subifd_levels_are_read_in_place_with_the_microscopes_scale(vendor_server):
    """OME-TIFF (which OpenSlide does not read): tifffile's reading of its SubIFD levels is the oracle."""
    path = vendor_server.root / OME_SLIDE
    with tifffile.TiffFile(path) as tif:
        levels = [level.asarray().astype(np.int32) for level in tif.series[0].levels]
        # Tile (1, 1) of the 4x level as stored: a complete JPEG stream in the first SubIFD.
        page = tif.series[0].levels[1].keyframe
        index = 1 * -(-page.imagewidth // page.tilewidth) + 1
        tif.filehandle.seek(page.dataoffsets[index])
        stored = tif.filehandle.read(page.databytecounts[index])
    info = vendor_server.json(f"/iiif/3/{OME_SLIDE}/info.json")
    assert (info["width"], info["height"]) == (levels[0].shape[1], levels[0].shape[0])
    assert info["tiles"] == [{"width": 256, "height": 256, "scaleFactors": [1, 2, 4, 8, 16]}]
    physdim = [s for s in info["service"] if "physdim" in s.get("profile", "")]
    # PhysicalSizeX 500 nm: 0.5 µm per pixel, 0.0005 mm.
    assert physdim and physdim[0]["physicalScale"] == pytest.approx(0.0005) and physdim[0]["physicalUnits"] == "mm"
    chooser = random.Random(OME_SLIDE)
    for level, factor in enumerate((1, 4, 16)):
        for x, y, w, h in regions(OME_SLIDE, info["width"], info["height"], factor, chooser):
            status, body = fetch(vendor_server, f"/iiif/3/{OME_SLIDE}/{x},{y},{w},{h}/{w // factor},{h // factor}/0/default.png")
            assert status == 200, body[:200]
            expected = levels[level][y // factor : (y + h) // factor, x // factor : (x + w) // factor]
            assert np.array_equal(pixels(body), expected), (factor, x, y, w, h)
    assert passed_through(vendor_server, OME_SLIDE, 4, 1, 1) == stored


SCALE_STATE = """
const v = window.tesseraViewer;
return v ? {ready: v.ready, complete: v.complete, view: v.view, scale: v.scale} : null;
"""


def drawn_scale_bar(driver, element_id="scale"):
    """The bar as the page draws it: its line's width in CSS pixels, and its label's length in µm
    and magnification, read from the DOM (not the hook)."""
    width, text, hidden = driver.execute_script(
        "const bar = document.getElementById(arguments[0]);"
        "return [bar.querySelector('.scale-line').getBoundingClientRect().width, bar.textContent, bar.hidden];", element_id)
    match = re.fullmatch(r"\s*([\d.]+) (µm|mm) · ([\d.]+)×\s*", text)
    assert match and not hidden, text
    microns = float(match[1]) * (1000 if match[2] == "mm" else 1)
    return width, microns, float(match[3])


def test_the_viewer_draws_a_scale_bar_from_the_slides_own_scale(slide_server, slide_root, driver, tmp_path):
    micrometres = float(openslide.OpenSlide(slide_root / SLIDES[0]).properties["openslide.mpp-x"])
    for zoom in (1, 0.125):
        driver.get(f"{slide_server.url}/view/{SLIDES[0]}#x=6144&y=4608&zoom={zoom}&rotation=0")
        wait_for_hook(driver, SCALE_STATE, lambda s: s["ready"] and s["complete"] and s["view"]["zoom"] == zoom and s["scale"]["main"],
                      f"no scale bar at zoom {zoom}", 90)
        width, microns, magnification = drawn_scale_bar(driver)
        # The bar is as long on screen as its label says: CSS px × µm per image px ÷ CSS px per image px.
        assert abs(width * micrometres / zoom - microns) / microns < 0.01, (zoom, width, microns)
        assert 60 <= width <= 160
        # 10 µm per CSS pixel is 1×: a 0.25 µm/px scan at 100 % is 40×.
        assert magnification == pytest.approx(10 * zoom / micrometres, rel=0.01)
        driver.save_screenshot(str(tmp_path / f"scale-{zoom}.png"))
    # No scale in the metadata (boxes.tiff's 72 dpi is none): no bar.
    driver.get(f"{slide_server.url}/view/boxes.tiff")
    wait_for_hook(driver, SCALE_STATE, lambda s: s["ready"] and s["complete"], "boxes.tiff never drew", 90)
    assert driver.execute_script("return [document.getElementById('scale').hidden, window.tesseraViewer.scale.main]") == [True, None]
