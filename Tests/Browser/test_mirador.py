"""The real Mirador 4.0.0 (OpenSeadragon 5.0.1 inside) against `tessera serve`, cross-origin: a page
of ours on another loopback port starts Mirador on an image's manifest (big.jpg, and an unseen
16000 × 12000 JPEG), and the home view must be drawn whole from requests that keep the image's
proportions.

A regression test: OpenSeadragon 5.0.1 takes info.json's `sizes` for its levels when there are as
many as log2(largest scale factor) (or one more), whatever sizes they are. With `sizes` stopping at
2048 px it then pairs levels with the wrong sizes and asks for regions of one level at the size of
another (`2048,2048,2048,2048/244,119` on a 16000 × 12000 image; on big.jpg, with sizes 64 × 48
to 2048 × 1536 beside scale factors to 32, `0,0,2048,2048/256,192`), and the home view shows one
small tile. The test reads what Mirador asked for from Chromium's network log and what it drew
from a screenshot; it waits on conditions, never on timings.
"""
from __future__ import annotations

import io
from urllib.parse import urlsplit

import pytest
from PIL import Image, ImageChops
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from conftest import BIG_SIZE, run_server
from mirador_support import NetworkRecorder, StaticSite, mirador_page, parse_image_request, uncovered_area

#: Seconds to wait for the view to settle: the first view of big.jpg waits for its pyramid to be
#: built by a debug server on two CI cores.
WAIT = 90
#: Seconds without any network event, with nothing in flight, after which the view counts as settled.
QUIET = 1.5
#: The share of the home view's pixels (outside Mirador's overlaid controls) that must match the
#: source scaled to the same place: one tile of a dozen drawn gives well under half.
MIN_MATCHING = 0.9
#: How far (0–255, any channel) a drawn pixel may be from the source resampled by Pillow.
TOLERANCE = 40

#: Mirador's view of its only window (from its Redux store), the OpenSeadragon canvas's box, and
#: the top of the canvas navigation bar Mirador lays over the canvas's bottom.
VIEW = """
const mirador = window.mirador;
if (!mirador) return null;
const state = mirador.store.getState();
const ids = Object.keys(state.windows);
// Mirador's error list: {items: [ids…], [id]: {id, message}}.
const errors = (state.errors?.items || []).map(id => state.errors[id]?.message || id);
const canvas = document.querySelector('.openseadragon-canvas');
const viewer = ids.length === 1 ? state.viewers[ids[0]] : null;
if (!viewer || !canvas) return {errors};
const box = canvas.getBoundingClientRect();
const nav = canvas.closest('.mirador-osd-container')?.querySelector('.mirador-canvas-nav');
return {viewer, canvas: {left: box.left, top: box.top, width: box.width, height: box.height},
        navTop: nav ? nav.getBoundingClientRect().top - box.top : null,
        dpr: window.devicePixelRatio,
        errors};
"""


#: The issue's own case: with 6 sizes (63 × 47 … 2000 × 1500) beside scale factors to 64, as many
#: sizes as OpenSeadragon has levels less one.
HUGE_SIZE = (16000, 12000)
# Our own image, over Pillow's guard against decompression bombs (178,956,970 pixels).
Image.MAX_IMAGE_PIXELS = HUGE_SIZE[0] * HUGE_SIZE[1]


@pytest.fixture(scope="module")
def huge_server(tmp_path_factory):
    """A server of one unseen 16000 × 12000 JPEG (smooth, with white lines every 1000 px)."""
    root = tmp_path_factory.mktemp("huge")
    base = Image.effect_mandelbrot((2000, 1500), (-2.2, -1.2, 1.0, 1.2), 100).convert("RGB")
    image = base.resize(HUGE_SIZE, Image.Resampling.BILINEAR)
    del base
    lines = Image.new("RGB", (HUGE_SIZE[0], 8), (255, 255, 255))
    for y in range(1000, HUGE_SIZE[1], 1000):
        image.paste(lines, (0, y))
    image.save(root / "huge.jpg", quality=85)
    del image
    yield from run_server(root, tmp_path_factory)


@pytest.fixture(params=["big.jpg", "huge.jpg"])
def subject(request, server):
    """(server, identifier, size) of the image Mirador opens: big.jpg (8192 × 6144, 6 sizes beside
    factors to 32 at the old info.json: one size more than levels) or the 16000 × 12000 one."""
    if request.param == "big.jpg":
        return server, "big.jpg", BIG_SIZE
    return request.getfixturevalue("huge_server"), "huge.jpg", HUGE_SIZE


@pytest.fixture
def mirador(tmp_path, subject):
    """Mirador's page for the subject's manifest, on its own loopback origin."""
    server, identifier, _ = subject
    page = mirador_page(tmp_path / "site", f"{server.url}/presentation/3/{identifier}/manifest")
    site = StaticSite.start(page.parent)
    yield site
    site.stop()


def wait_until_drawn(driver, recorder: NetworkRecorder, info_url: str, size: tuple[int, int]):
    """Mirador's view once it has one and the network has been quiet for `QUIET` seconds with no
    request in flight, after info.json and at least one image request."""
    def settled(d):
        recorder.update()
        view = d.execute_script(VIEW)
        urls = [r["url"] for r in recorder.requests.values()]
        if not view or "viewer" not in view or info_url not in urls:
            return False
        if not any(parse_image_request(url, size) for url in urls):
            return False
        return view if not recorder.in_flight and recorder.quiet_for() >= QUIET else False

    try:
        return WebDriverWait(driver, WAIT, poll_frequency=0.1).until(settled)
    except TimeoutException:
        recorder.update()
        view = driver.execute_script(VIEW)
        pytest.fail(f"Mirador never settled: view {view}, in flight {recorder.in_flight}, "
                    f"requests {[(r['url'], r['status']) for r in recorder.requests.values()]}")


def describe(info) -> str:
    tiles = [(t["width"], t.get("height", t["width"]), t["scaleFactors"]) for t in info.get("tiles", [])]
    return f"info.json sizes {[(s['width'], s['height']) for s in info.get('sizes', [])]}, tiles {tiles}"


def test_mirador_home_view_is_drawn_whole_from_undistorted_requests(subject, driver, mirador, tmp_path):
    server, identifier, size = subject
    assert urlsplit(mirador.url).netloc != urlsplit(server.url).netloc  # cross-origin, CORS in play
    info = server.json(f"/iiif/3/{identifier}/info.json")
    assert (info["width"], info["height"]) == size
    info_url = f"{server.url}/iiif/3/{identifier}/info.json"

    recorder = NetworkRecorder(driver)
    driver.get(mirador.url + "/index.html")
    view = wait_until_drawn(driver, recorder, info_url, size)
    shot = Image.open(io.BytesIO(driver.find_element(By.CSS_SELECTOR, ".openseadragon-canvas").screenshot_as_png))
    shot = shot.convert("RGB")
    shot.save(tmp_path / "mirador-home.png")
    assert not view["errors"], f"Mirador reported errors: {view['errors']}"
    assert view["dpr"] == 1

    records = [(record, parse_image_request(record["url"], size)) for record in recorder.requests.values()]
    images = [(record, request) for record, request in records
              if request and request.url.startswith(server.url + "/iiif/3/")]
    assert images, "Mirador asked for no image"

    # 1. Every w,h names the region's proportions, to IIIF's rounding (one output pixel a side).
    distorted = [f"{request.url} (|w·rh − h·rw| = {request.distortion()}, status {record['status']})"
                 for record, request in images if request.distortion() is not None]
    assert not distorted, (f"{len(distorted)} of {len(images)} image requests distort the aspect ratio "
                           f"({describe(info)}):\n  " + "\n  ".join(distorted[:20]))
    failed = [f"{record['url']} ({record['status']})" for record, _ in images
              if record["failed"] or (record["status"] or 0) >= 400]
    assert not failed, "image requests failed:\n  " + "\n  ".join(failed[:20])

    # The home view: the whole image, fitted in the canvas. OpenSeadragon's zoom is the canvas
    # width over the width of the view in image pixels (Mirador's canvas is the image's size).
    canvas, viewer = view["canvas"], view["viewer"]
    scale = viewer["zoom"] * canvas["width"]
    left = canvas["width"] / 2 - viewer["x"] * scale
    top = canvas["height"] / 2 - viewer["y"] * scale
    right, bottom = left + size[0] * scale, top + size[1] * scale
    assert viewer["rotation"] == 0 and not viewer["flip"]
    assert left >= -1 and top >= -1 and right <= canvas["width"] + 1 and bottom <= canvas["height"] + 1, \
        f"the home view does not show the whole image: {viewer} in {canvas}"

    # 2. The image was asked for whole at a level fine enough for that view (OpenSeadragon draws
    # levels down to half a level pixel per screen pixel): not one corner of it.
    fine = [request.region for record, request in images
            if request.scale >= scale / 2 and record["status"] == 200]
    missing = uncovered_area(fine, size)
    assert missing == 0, (f"{missing / (size[0] * size[1]):.0%} of the image was never asked for at "
                          f"{scale / 2:.4f} output pixels per image pixel or finer ({describe(info)}); asked for: "
                          + ", ".join(f"{r.region}@{r.size_text}" for _, r in images))

    # 3. …and drawn: the screenshot matches the source scaled to the same box, outside the bar
    # Mirador lays over the canvas's bottom.
    assert shot.size == (round(canvas["width"]), round(canvas["height"]))
    box = (round(left), round(top), round(right), round(bottom))
    source = Image.open(server.root / identifier)
    source.draft("RGB", (size[0] // 8, size[1] // 8))
    expected = source.convert("RGB").resize((box[2] - box[0], box[3] - box[1]), Image.Resampling.LANCZOS)
    inset = 3
    visible_bottom = min(box[3], round(view["navTop"])) if view["navTop"] is not None else box[3]
    area = (box[0] + inset, box[1] + inset, box[2] - inset, visible_bottom - inset)
    drawn = shot.crop(area)
    wanted = expected.crop((area[0] - box[0], area[1] - box[1], area[2] - box[0], area[3] - box[1]))
    r, g, b = ImageChops.difference(drawn, wanted).split()
    worst = ImageChops.lighter(ImageChops.lighter(r, g), b)
    matching = sum(worst.histogram()[:TOLERANCE + 1]) / (drawn.width * drawn.height)
    assert matching >= MIN_MATCHING, (
        f"only {matching:.0%} of the home view matches the image (screenshot: {tmp_path / 'mirador-home.png'}); "
        f"requests: " + ", ".join(f"{r.region}@{r.size_text}" for _, r in images))
