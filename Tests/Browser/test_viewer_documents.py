"""Browser tests of the viewer over many images: a document's pages (GET /view/doc.pdf), a folder's
manifest (GET /view?manifest=…), a manifest made by another tool on another origin; paging by keys,
strip, page field and fragment; two pages side by side in both reading directions; compare mode;
adjustments; downloads; and lazy thumbnails.

Every page of the generated documents is one flat colour with its number in a corner, so which
page is drawn where is read from the canvas pixels, not only from the page's own account of it.
"""
from __future__ import annotations

import base64
import contextlib
import http.server
import io
import json
import shutil
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.wait import WebDriverWait

from conftest import REPO, console_errors, free_port, network_log, run_server, wait_for_hook

WAIT = 90
#: The pages' colours, far enough apart that JPEG and PDF rendering cannot confuse two.
COLOURS = [(200, 40, 40), (40, 160, 40), (40, 40, 200), (200, 200, 40), (200, 40, 200), (40, 200, 200),
           (120, 60, 20), (250, 150, 60), (20, 90, 60), (150, 150, 250), (90, 20, 120), (230, 230, 230)]
PAGE_SIZE = (800, 1000)
BOOK_PAGES = 6

STATE = """
const v = window.tesseraViewer;
return v ? {ready: v.ready, complete: v.complete, inFlight: v.requestsInFlight, view: v.view, viewport: v.viewport,
            image: v.image, error: v.error, shown: v.shown, count: v.canvasCount, twoUp: v.twoUp,
            compare: v.compare, filter: v.filter, quality: v.quality, thumbnails: v.thumbnails} : null;
"""


def make_page(index: int) -> Image.Image:
    image = Image.new("RGB", PAGE_SIZE, COLOURS[index])
    ImageDraw.Draw(image).text((20, 10), str(index + 1), fill=(0, 0, 0), font=ImageFont.load_default(size=60))
    return image


@pytest.fixture(scope="module")
def docs_root(media_root, tmp_path_factory) -> Path:
    """doc.pdf (12 pages), book/ (6 JPEG pages with a right-to-left, paged sidecar), photos/ (100)."""
    root = tmp_path_factory.mktemp("documents")
    pages = [make_page(index) for index in range(len(COLOURS))]
    # At 72 dpi a PDF point is a pixel: the pages are served at PAGE_SIZE.
    pages[0].save(root / "doc.pdf", save_all=True, append_images=pages[1:], resolution=72)
    book = root / "book"
    book.mkdir()
    for index in range(BOOK_PAGES):
        pages[index].save(book / f"page-{index + 1:02d}.jpg", quality=92)
    (book / "_folder.iiif.json").write_text(json.dumps(
        {"label": "A book read right to left", "viewingDirection": "right-to-left", "behavior": ["paged"]}))
    shutil.copytree(media_root / "photos", root / "photos")
    return root


@pytest.fixture(scope="module")
def docs_server(docs_root, tmp_path_factory):
    yield from run_server(docs_root, tmp_path_factory)


# ---- Helpers ----------------------------------------------------------------------------------

def state(driver):
    return driver.execute_script(STATE)


def wait_for(driver, condition, message):
    """Polls the hook until `condition(state)` holds; returns that state."""
    return wait_for_hook(driver, STATE, condition, message, WAIT)


def settled(current):
    return (current["ready"] and current["complete"] and current["inFlight"] == 0
            and (current["compare"] is None or current["compare"]["complete"]))


def wait_shown(driver, pages, message=None):
    """Waits until the main view shows canvases `pages` (left to right), fully drawn."""
    return wait_for(driver, lambda s: settled(s) and s["shown"] == pages, message or f"pages {pages} never showed")


def press(driver, *keys):
    driver.switch_to.active_element.send_keys(*keys)


def canvas_image(driver, canvas_id="view") -> Image.Image:
    url = driver.execute_script(f"return document.getElementById('{canvas_id}').toDataURL('image/png')")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")


def page_at(image: Image.Image, x: float, y: float) -> int:
    """The number (from 1) of the page whose colour the pixel at fractions (x, y) of `image` is."""
    pixel = image.getpixel((int(image.width * x), int(image.height * y)))
    distances = [sum((a - b) ** 2 for a, b in zip(pixel, colour)) for colour in COLOURS]
    best = min(range(len(COLOURS)), key=distances.__getitem__)
    assert distances[best] < 40 ** 2, f"pixel {pixel} at ({x}, {y}) is no page's colour"
    return best + 1


def pages_drawn(driver, count, canvas_id="view"):
    """The pages drawn across the middle of the canvas, left to right, `count` of them side by side."""
    image = canvas_image(driver, canvas_id)
    if count == 1:
        return [page_at(image, 0.5, 0.6)]
    # A spread is centred and fitted: its halves meet at the middle of the canvas.
    return [page_at(image, 0.5 - 0.12, 0.6), page_at(image, 0.5 + 0.12, 0.6)]


def fragment(driver) -> dict:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).fragment))


def wait_fragment(driver, **expected):
    """Waits until the URL's fragment says `expected` (it is rewritten at most every 400 ms)."""
    WebDriverWait(driver, WAIT).until(
        lambda d: all(fragment(d).get(key) == value for key, value in expected.items()),
        f"the fragment never said {expected}: {driver.current_url}")


# ---- Paging ------------------------------------------------------------------------------------

def test_a_document_pages_by_keys_strip_and_field_and_its_fragment_restores_it(docs_server, driver):
    driver.get(f"{docs_server.url}/view/doc.pdf")
    # Page 1 shows first as the image it is, then the manifest makes it the first of the book.
    current = wait_for(
        driver, lambda s: settled(s) and s["shown"] == [1] and s["count"] == len(COLOURS),
        "the document's manifest never made page 1 the first of its pages")
    assert current["twoUp"], "a paged document opens as a book"
    assert pages_drawn(driver, 1) == [1]
    assert driver.find_element(By.ID, "thumb-1").get_attribute("aria-selected") == "true"

    driver.find_element(By.ID, "view").click()
    press(driver, Keys.PAGE_DOWN)
    wait_shown(driver, [2, 3])
    assert pages_drawn(driver, 2) == [2, 3], "a left-to-right book shows the even page on the left"
    press(driver, "]")
    wait_shown(driver, [4, 5])
    press(driver, Keys.PAGE_UP)
    wait_shown(driver, [2, 3])
    wait_fragment(driver, canvas="2")
    selected = [element.get_attribute("id") for element in driver.find_elements(By.CSS_SELECTOR, "#strip [aria-selected=true]")]
    assert selected == ["thumb-2", "thumb-3"]

    press(driver, "t")
    wait_shown(driver, [2])
    assert pages_drawn(driver, 1) == [2]
    wait_fragment(driver, pages="1")

    # The strip: a click, then its own keys (selection follows focus).
    driver.find_element(By.ID, "thumb-7").click()
    wait_shown(driver, [7])
    assert pages_drawn(driver, 1) == [7]
    driver.find_element(By.ID, "strip").send_keys(Keys.ARROW_RIGHT)
    wait_shown(driver, [8])
    assert driver.find_element(By.ID, "strip").get_attribute("aria-activedescendant") == "thumb-8"

    # The page field.
    field = driver.find_element(By.ID, "page-number")
    # As a person does: the number selected and typed over (clear() would commit an empty field).
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("11", Keys.ENTER)
    wait_shown(driver, [11])
    assert pages_drawn(driver, 1) == [11]
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("99", Keys.ENTER)
    assert field.get_attribute("value") == "11", "a page the document lacks is not taken"

    # A zoomed view of page 11 is a link: opened afresh it shows the same page and view.
    driver.find_element(By.ID, "view").click()
    press(driver, "+")
    before = wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] >= 0.99, "the zoom never changed")
    wait_fragment(driver, canvas="11", zoom=str(before["view"]["zoom"]).removesuffix(".0"))
    link = driver.current_url
    driver.get("about:blank")
    driver.get(link)
    after = wait_shown(driver, [11])
    assert not after["twoUp"]
    assert after["view"]["zoom"] == pytest.approx(before["view"]["zoom"])
    assert after["view"]["x"] == pytest.approx(before["view"]["x"], abs=0.01)

    press_on_view = driver.find_element(By.ID, "view")
    press_on_view.click()
    press(driver, Keys.END)
    wait_shown(driver, [12])
    press(driver, Keys.HOME)
    wait_shown(driver, [1])
    assert console_errors(driver) == []


def test_two_pages_side_by_side_follow_the_reading_direction(docs_server, driver):
    """The book folder's sidecar makes it paged and right to left: page 2 is on the right."""
    driver.get(f"{docs_server.url}/view?manifest=presentation/3/book/manifest")
    current = wait_shown(driver, [1])
    assert current["count"] == BOOK_PAGES and current["twoUp"]
    assert driver.find_element(By.ID, "name").text == "A book read right to left"
    driver.find_element(By.ID, "view").click()
    press(driver, Keys.PAGE_DOWN)
    wait_shown(driver, [3, 2])
    assert pages_drawn(driver, 2) == [3, 2]
    press(driver, Keys.PAGE_DOWN)
    wait_shown(driver, [5, 4])
    assert pages_drawn(driver, 2) == [5, 4]
    press(driver, Keys.PAGE_DOWN)
    wait_shown(driver, [6])
    assert driver.find_element(By.ID, "next").get_attribute("aria-disabled") == "true"
    assert console_errors(driver) == []


# ---- Compare -----------------------------------------------------------------------------------

def test_compare_moves_both_views_together_or_apart(docs_server, driver):
    driver.get(f"{docs_server.url}/view/doc.pdf#canvas=2&pages=1")
    wait_shown(driver, [2])
    driver.find_element(By.ID, "view").click()
    press(driver, "c")
    current = wait_for(driver, lambda s: settled(s) and s["compare"] and s["compare"]["ready"], "compare never opened")
    assert current["compare"]["canvas"] == 3 and current["compare"]["synced"]
    assert pages_drawn(driver, 1, "view-2") == [3]
    assert pages_drawn(driver, 1) == [2]

    # Synchronised: a zoom and a pan of the first view move the second to the same place.
    press(driver, "+")
    press(driver, Keys.ARROW_RIGHT)
    current = wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] > 0.9 and s["compare"]["view"]["zoom"] > 0.9,
                       "the views never zoomed")
    for key in ["x", "y", "zoom", "rotation"]:
        assert current["compare"]["view"][key] == pytest.approx(current["view"][key], rel=1e-6), key

    # Independent: the second stays where it is.
    driver.find_element(By.ID, "sync").click()
    assert driver.find_element(By.ID, "sync").get_attribute("aria-pressed") == "false"
    held = current["compare"]["view"]
    driver.find_element(By.ID, "view").click()
    press(driver, "-")
    current = wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] < held["zoom"], "the first view never zoomed out")
    assert current["compare"]["view"] == held
    wait_fragment(driver, sync="0", compare="3")

    # Another page to compare with, from the list.
    Select(driver.find_element(By.ID, "compare-with")).select_by_value("8")
    wait_for(driver, lambda s: settled(s) and s["compare"]["canvas"] == 9, "the compared page never changed")
    assert pages_drawn(driver, 1, "view-2") == [9]

    # The link restores the comparison, unsynchronised.
    wait_fragment(driver, compare="9", sync="0")
    link = driver.current_url
    driver.get("about:blank")
    driver.get(link)
    current = wait_for(driver, lambda s: settled(s) and s["compare"] and s["compare"]["ready"], "compare never reopened")
    assert current["compare"]["canvas"] == 9 and not current["compare"]["synced"]
    press(driver, "c")
    wait_for(driver, lambda s: s["compare"] is None, "compare never closed")
    assert driver.find_element(By.ID, "pane-2").get_attribute("hidden") is not None
    assert console_errors(driver) == []


# ---- Adjustments and downloads -----------------------------------------------------------------

def screen_pixel(element, x: float, y: float):
    """The colour on screen (CSS filters applied, as a canvas read-back is not) at fractions (x, y)."""
    image = Image.open(io.BytesIO(element.screenshot_as_png)).convert("RGB")
    return image.getpixel((int(image.width * x), int(image.height * y)))


def test_adjustments_apply_to_drawn_tiles_without_new_requests(docs_server, driver):
    driver.get(f"{docs_server.url}/view/doc.pdf#canvas=4&pages=1")
    wait_shown(driver, [4])
    view = driver.find_element(By.ID, "view")
    before = screen_pixel(view, 0.5, 0.6)
    assert max(abs(a - b) for a, b in zip(before, COLOURS[3])) < 30, before
    network_log(driver)
    driver.find_element(By.ID, "adjust").click()
    assert driver.find_element(By.ID, "adjust-panel").is_displayed()
    driver.execute_script("""const input = document.getElementById('brightness');
        input.value = '40'; input.dispatchEvent(new Event('input', {bubbles: true}));""")
    driver.find_element(By.ID, "invert").click()
    current = state(driver)
    assert current["filter"] == "brightness(40%) invert(1)"
    assert driver.execute_script("return getComputedStyle(document.getElementById('view')).filter") == "brightness(0.4) invert(1)"
    # Darkened to 40 %, then inverted: 255 − 0.4 × each channel.
    expected = tuple(255 - 0.4 * channel for channel in COLOURS[3])
    WebDriverWait(driver, WAIT).until(
        lambda d: max(abs(a - b) for a, b in zip(screen_pixel(view, 0.5, 0.6), expected)) < 30,
        f"the screen never showed the page darkened and inverted ({expected})")
    time.sleep(0.5)
    tiles = [entry for entry in network_log(driver) if "/iiif/3/" in entry["url"]]
    assert tiles == [], f"adjusting fetched: {tiles}"

    # One key resets them all.
    driver.find_element(By.ID, "view").click()
    press(driver, "x")
    assert state(driver)["filter"] == "none"
    assert driver.find_element(By.ID, "brightness").get_attribute("value") == "100"

    # The server's gray quality is new tiles, and gray ones.
    quality = Select(driver.find_element(By.ID, "quality"))
    assert {option.get_attribute("value") for option in quality.options} >= {"default", "gray", "bitonal"}
    quality.select_by_value("gray")
    wait_for(driver, lambda s: settled(s) and s["quality"] == "gray", "gray tiles never settled")
    requested = [entry["url"] for entry in network_log(driver) if "/iiif/3/" in entry["url"] and "/full/" not in entry["url"]]
    assert requested and all(url.endswith("/gray.jpg") for url in requested if "info.json" not in url)
    red, green, blue = canvas_image(driver).getpixel((640, 400))
    assert max(red, green, blue) - min(red, green, blue) <= 3, (red, green, blue)
    assert console_errors(driver) == []


def test_download_the_view_and_the_whole_image(docs_server, driver, tmp_path):
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    driver.get(f"{docs_server.url}/view/doc.pdf#canvas=5&pages=1")
    current = wait_shown(driver, [5])
    driver.find_element(By.ID, "download").click()
    driver.find_element(By.ID, "download-view").click()
    WebDriverWait(driver, WAIT).until(lambda d: list(tmp_path.glob("*.png")) and not list(tmp_path.glob("*.crdownload")))
    [saved] = list(tmp_path.glob("*.png"))
    image = Image.open(saved).convert("RGB")
    viewport = current["viewport"]
    assert image.size == (round(viewport["width"]), round(viewport["height"]))
    assert page_at(image, 0.5, 0.6) == 5

    # The whole image at a width the input bounds by the image and the server's limits.
    width = driver.find_element(By.ID, "download-width")
    width.send_keys(Keys.CONTROL, "a")
    width.send_keys("100000", Keys.ENTER)
    href = driver.find_element(By.ID, "download-full").get_attribute("href")
    assert href.endswith(f"/full/{PAGE_SIZE[0]},/0/default.jpg"), href
    width.send_keys(Keys.CONTROL, "a")
    width.send_keys("320", Keys.ENTER)
    href = driver.find_element(By.ID, "download-full").get_attribute("href")
    with urllib.request.urlopen(href, timeout=60) as response:
        whole = Image.open(io.BytesIO(response.read()))
    assert whole.size == (320, 400)
    assert console_errors(driver) == []


# ---- Any manifest ------------------------------------------------------------------------------

class CORSHandler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def log_message(self, *arguments):
        pass


def test_a_manifest_made_by_iiif_prezi3_on_another_origin_opens(docs_server, driver, tmp_path):
    port = free_port()
    manifest_url = f"http://127.0.0.1:{port}/manifest.json"
    services = [f"{docs_server.url}/iiif/3/book%2Fpage-0{index}.jpg" for index in (1, 2)]
    static = f"{docs_server.url}/iiif/3/book%2Fpage-03.jpg/full/max/0/default.jpg"
    hostile = '<img src="x" onerror="window.injected = 1">Prezi'
    made = subprocess.run(
        [str(REPO / ".build/presentation-venv/bin/python"), str(REPO / "Tests/Browser/prezi3_manifest.py"), manifest_url, hostile,
         *services, "--static", static, str(PAGE_SIZE[0]), str(PAGE_SIZE[1])],
        capture_output=True, text=True, timeout=120, check=True)
    (tmp_path / "manifest.json").write_text(made.stdout)
    handler = lambda *arguments: CORSHandler(*arguments, directory=str(tmp_path))  # noqa: E731
    origin = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=origin.serve_forever, daemon=True)
    thread.start()
    try:
        driver.get(f"{docs_server.url}/view?manifest={urllib.parse.quote(manifest_url, safe='')}")
        current = wait_shown(driver, [1])
        assert current["count"] == 3 and not current["twoUp"]
        assert pages_drawn(driver, 1) == [1]
        # The label is text: its markup shows as characters and nothing of it runs.
        assert driver.find_element(By.ID, "name").text == hostile
        assert driver.execute_script("return document.querySelectorAll('img[src=\"x\"]').length") == 0
        assert driver.execute_script("return window.injected === undefined")
        driver.find_element(By.ID, "view").click()
        press(driver, Keys.PAGE_DOWN)
        wait_shown(driver, [2])
        assert pages_drawn(driver, 1) == [2]
        press(driver, Keys.PAGE_DOWN)
        current = wait_shown(driver, [3])
        assert current["image"]["levelCount"] == 1, "an image without a service is one whole tile"
        assert pages_drawn(driver, 1) == [3]
        assert console_errors(driver) == []
    finally:
        origin.shutdown()
        origin.server_close()


@contextlib.contextmanager
def serve_manifests(directory: Path, documents: dict):
    """`documents` (name → JSON) written to `directory` and served from another loopback origin
    with `Access-Control-Allow-Origin: *`; yields a function of a name that is the viewer's URL
    of it, and stops the server on leaving."""
    for name, document in documents.items():
        (directory / name).write_text(json.dumps(document))
    handler = lambda *arguments: CORSHandler(*arguments, directory=str(directory))  # noqa: E731
    origin = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    try:
        yield lambda viewer, name: f"{viewer}/view?manifest=" + urllib.parse.quote(
            f"http://127.0.0.1:{origin.server_port}/{name}", safe="")
    finally:
        origin.shutdown()
        origin.server_close()


def painted(canvas_id: str, width: int, height: int, body: dict) -> dict:
    """A Presentation 3 canvas `width` × `height` painted by `body`."""
    return {"id": canvas_id, "type": "Canvas", "width": width, "height": height,
            "items": [{"id": canvas_id + "/page", "type": "AnnotationPage",
                       "items": [{"id": canvas_id + "/page/a", "type": "Annotation", "motivation": "painting",
                                  "body": body, "target": canvas_id}]}]}


def manifest_of(manifest_id: str, *canvases: dict) -> dict:
    return {"@context": "http://iiif.io/api/presentation/3/context.json", "id": manifest_id, "type": "Manifest",
            "label": {"en": ["Test"]}, "items": list(canvases)}


def quadrants(path: Path, size: tuple[int, int]):
    """An image of four flat quadrants, COLOURS 0–3 left to right, top to bottom."""
    image = Image.new("RGB", size, COLOURS[0])
    w, h = size[0] // 2, size[1] // 2
    for index, (x, y) in enumerate([(0, 0), (w, 0), (0, h), (w, h)]):
        image.paste(COLOURS[index], (x, y, x + w, y + h))
    image.save(path)


def quadrants_source(root: Path, server) -> dict:
    """quadrants.png (800 × 600) in `root`, as a manifest's Image body with its image service."""
    quadrants(root / "quadrants.png", (800, 600))
    service = f"{server.url}/iiif/3/quadrants.png"
    return {"id": service + "/full/max/0/default.jpg", "type": "Image", "format": "image/jpeg", "width": 800, "height": 600,
            "service": [{"id": service, "type": "ImageService3", "profile": "level2"}]}


def colour_at(image: Image.Image, x: float, y: float) -> int:
    """Which of COLOURS (by index) the pixel at fractions (x, y) of `image` is, or -1."""
    pixel = image.getpixel((int(image.width * x), int(image.height * y)))
    distances = [sum((a - b) ** 2 for a, b in zip(pixel, colour)) for colour in COLOURS]
    best = min(range(len(COLOURS)), key=distances.__getitem__)
    return best if distances[best] < 40 ** 2 else -1


def test_a_plain_portrait_image_is_drawn_once_at_its_aspect(docs_root, docs_server, driver, tmp_path):
    # No image service: the body is the whole file (cookbook 0001), taller than wide.
    quadrants(docs_root / "portrait.png", (600, 900))
    image_url = f"{docs_server.url}/files/portrait.png"
    body = {"id": image_url, "type": "Image", "format": "image/png", "width": 600, "height": 900}
    manifest = manifest_of("https://example.org/portrait", painted("https://example.org/portrait/c1", 600, 900, body))
    with serve_manifests(tmp_path, {"manifest.json": manifest}) as viewer_url:
        network_log(driver)
        driver.get(viewer_url(docs_server.url, "manifest.json"))
        current = wait_shown(driver, [1])
        assert current["image"] == {"width": 600, "height": 900, "levelCount": 1, "tileWidth": 600, "tileHeight": 900}
        fetched = [entry for entry in network_log(driver) if entry["url"] == image_url]
        assert len(fetched) == 1, fetched
        # Fitted in 1280×800: 533 px tall, centred; its four quadrants where they belong.
        drawn = canvas_image(driver)
        left, right = 0.5 - 0.5 * 533.3 * 600 / 900 / drawn.width, 0.5 + 0.5 * 533.3 * 600 / 900 / drawn.width
        quarter = (right - left) / 4
        assert [colour_at(drawn, left + quarter, 0.25), colour_at(drawn, right - quarter, 0.25),
                colour_at(drawn, left + quarter, 0.75), colour_at(drawn, right - quarter, 0.75)] == [0, 1, 2, 3]
        assert console_errors(driver) == []


def test_a_specific_resource_with_an_image_api_selector_is_drawn(docs_root, docs_server, driver, tmp_path):
    source = quadrants_source(docs_root, docs_server)
    region = {"type": "SpecificResource", "source": source, "selector": {"type": "ImageApiSelector", "region": "400,300,400,300"}}
    turned = {"type": "SpecificResource", "source": source, "selector": {"type": "ImageApiSelector", "rotation": "90"}}
    with serve_manifests(tmp_path, {
        "region.json": manifest_of("https://example.org/region", painted("https://example.org/region/c1", 400, 300, region)),
        "rotation.json": manifest_of("https://example.org/rotation", painted("https://example.org/rotation/c1", 600, 800, turned)),
    }) as viewer_url:
        network_log(driver)
        driver.get(viewer_url(docs_server.url, "region.json"))
        current = wait_shown(driver, [1])
        # The canvas is the bottom-right quadrant alone, asked for where it is in the image.
        assert (current["image"]["width"], current["image"]["height"]) == (400, 300)
        drawn = canvas_image(driver)
        assert {colour_at(drawn, x, y) for x in (0.4, 0.5, 0.6) for y in (0.3, 0.5, 0.7)} == {3}
        tiles = [entry["url"] for entry in network_log(driver) if "/iiif/3/quadrants.png/" in entry["url"] and "info.json" not in entry["url"]]
        regions = [[int(n) for n in urllib.parse.urlsplit(url).path.split("/")[4].split(",")] for url in tiles]
        assert regions and all(x >= 400 and y >= 300 and x + w <= 800 and y + h <= 600 for x, y, w, h in regions), tiles
        driver.get(viewer_url(docs_server.url, "rotation.json"))
        current = wait_shown(driver, [1])
        assert current["view"]["rotation"] == 90
        # Turned a quarter clockwise: the bottom-left quadrant (2) is at the top left.
        drawn = canvas_image(driver)
        assert [colour_at(drawn, 0.5 - 0.1, 0.3), colour_at(drawn, 0.5 + 0.1, 0.3),
                colour_at(drawn, 0.5 - 0.1, 0.7), colour_at(drawn, 0.5 + 0.1, 0.7)] == [2, 0, 3, 1]
        assert console_errors(driver) == []


def test_a_book_opens_at_its_start_keeps_foldouts_and_missing_pages_and_turns_by_its_stylesheet(docs_root, docs_server, driver, tmp_path):
    source = quadrants_source(docs_root, docs_server)
    canvases = [painted(f"https://example.org/book/c{n}", 800, 600, source) for n in range(1, 6)]
    # Canvas 1 turned by a stylesheet (cookbook 0040's CSS way), canvas 3 a foldout (0035).
    canvases[0]["items"][0]["items"][0]["stylesheet"] = {"type": "CssStylesheet", "value": ".turned { transform: rotate(90deg) translateY(-100px); }"}
    canvases[0]["items"][0]["items"][0]["body"] = {"type": "SpecificResource", "styleClass": "turned", "source": source}
    canvases[2]["behavior"] = ["non-paged"]
    # A page whose image is missing (cookbook 0283): a canvas with nothing on it keeps its place.
    canvases.append({"id": "https://example.org/book/c6", "type": "Canvas", "label": {"en": ["missing"]}, "width": 800, "height": 600, "items": []})
    book = {**manifest_of("https://example.org/book", *canvases), "behavior": ["paged"],
            "start": {"id": "https://example.org/book/c2", "type": "Canvas"}}
    with serve_manifests(tmp_path, {"book.json": book}) as viewer_url:
        driver.get(viewer_url(docs_server.url, "book.json"))
        current = wait_shown(driver, [2])
        assert current["twoUp"] and current["count"] == 6
        driver.find_element(By.ID, "view").click()
        press(driver, Keys.PAGE_DOWN)
        wait_shown(driver, [3], "the foldout was not shown by itself")
        press(driver, Keys.PAGE_DOWN)
        wait_shown(driver, [4, 5], "the pages after the foldout were not paired afresh")
        press(driver, Keys.END)
        WebDriverWait(driver, WAIT).until(lambda d: state(d)["shown"] == [6], "the missing page was not shown")
        assert driver.execute_script("return window.tesseraViewer.media") == {"kind": "blank"}
        assert "nothing is painted" in driver.find_element(By.CSS_SELECTOR, ".media.blank").text
        press(driver, Keys.HOME)
        current = wait_shown(driver, [1])
        assert current["view"]["rotation"] == 90
        assert console_errors(driver) == []


def test_a_collection_is_listed_and_browsed_into(docs_server, driver):
    driver.get(f"{docs_server.url}/view?manifest=presentation/3/collection")
    listed = WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return window.tesseraViewer?.collection"), "the collection was never listed")
    kinds = {item["label"]: item["type"] for item in listed["items"]}
    links = {item["label"]: item["href"] for item in listed["items"]}
    assert kinds.get("book") == "Collection" and kinds.get("photos") == "Collection", kinds
    assert kinds.get("doc.pdf") == "Manifest", kinds
    assert state(driver)["error"] is None
    # Into the book's collection, then to its manifest (a link each, as a reader clicks them).
    driver.find_element(By.CSS_SELECTOR, f'#collection-items a[href="{links["book"]}"]').click()
    inner = WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("const c = window.tesseraViewer?.collection; return c && c.items.length ? c : null"),
        "the book's collection was never listed")
    assert [item["type"] for item in inner["items"]].count("Manifest") >= 1
    document = next(item for item in listed["items"] if item["label"] == "doc.pdf")
    driver.get(document["href"])
    current = wait_shown(driver, [1])
    assert current["count"] == len(COLOURS)
    assert console_errors(driver) == []


def test_a_manifest_that_is_not_one_is_said_plainly(docs_server, driver):
    info = urllib.parse.quote("iiif/3/book%2Fpage-01.jpg/info.json", safe="")
    driver.get(f"{docs_server.url}/view?manifest={info}")
    current = wait_for(driver, lambda s: s["error"], "no error was shown")
    assert current["error"].startswith("Could not open the manifest: it is not a manifest this viewer reads")
    driver.get(f"{docs_server.url}/view?manifest=presentation/3/nothing-here/manifest")
    current = wait_for(driver, lambda s: s["error"], "no error was shown")
    assert "404" in current["error"]


# ---- Lazy thumbnails ---------------------------------------------------------------------------

def list_settled(driver, name="strip"):
    """The thumbnails (from 1) the strip or the gallery asked for, once every one asked for has
    loaded and no more are being asked for (they load a few at a time)."""
    def loaded(d):
        asked = state(d)["thumbnails"][name]
        pending = d.execute_script(f"return [...document.querySelectorAll('#{name} img[src]')].filter((i) => !i.complete).length")
        return asked if asked and pending == 0 else False
    first = WebDriverWait(driver, WAIT).until(loaded, f"the {name}'s thumbnails never loaded")
    # Loaded ones free their slots for more: settled when a poll later asks for no more.
    while True:
        time.sleep(0.5)
        again = WebDriverWait(driver, WAIT).until(loaded, f"the {name}'s thumbnails never loaded")
        if again == first:
            return again
        first = again


def thumbnail_requests(driver):
    return [entry for entry in network_log(driver) if "/full/" in entry["url"] and "photo-" in entry["url"]]


def test_only_thumbnails_near_the_visible_part_are_requested(docs_server, driver):
    driver.get(f"{docs_server.url}/view?manifest=presentation/3/photos/manifest")
    current = wait_shown(driver, [1])
    count = current["count"]
    assert count == 100
    asked = list_settled(driver)
    assert 1 in asked and len(asked) < count / 2, f"the strip asked for {len(asked)} of {count}"
    assert asked == list(range(1, len(asked) + 1)), "the strip asked for thumbnails out of its order"
    # Each asked once, and answered.
    requests = thumbnail_requests(driver)
    assert len(requests) == len(asked) and all(entry["status"] == 200 for entry in requests)

    # Scrolled to its end, the strip asks for the last ones, not for those it skipped over.
    driver.execute_script("const strip = document.getElementById('strip'); strip.scrollLeft = strip.scrollWidth;")
    WebDriverWait(driver, WAIT).until(lambda d: count in state(d)["thumbnails"]["strip"])
    asked = list_settled(driver)
    assert len(asked) < count * 0.75, f"scrolling to the end asked for {len(asked)} of {count}"

    # The gallery: a grid of all, lazy the same way, opened by key and left by Escape.
    driver.find_element(By.ID, "view").click()
    press(driver, "g")
    gallery = driver.find_element(By.ID, "gallery")
    assert gallery.is_displayed() and gallery.get_attribute("role") == "listbox"
    asked = list_settled(driver, "gallery")
    assert 1 in asked and len(asked) < count / 2, f"the gallery asked for {len(asked)} of {count}"
    # Keys move through the grid; Enter opens the page and closes the gallery.
    gallery.send_keys(Keys.ARROW_DOWN, Keys.ARROW_RIGHT)
    active = gallery.get_attribute("aria-activedescendant")
    columns = driver.execute_script("""const items = [...document.querySelectorAll('#gallery .thumb')];
        return items.filter((item) => item.offsetTop === items[0].offsetTop).length;""")
    assert active == f"gallery-{columns + 2}"
    gallery.send_keys(Keys.ENTER)
    wait_shown(driver, [columns + 2])
    assert not gallery.is_displayed()
    assert console_errors(driver) == []


# ---- Published as static files ----------------------------------------------------------------

def served_path(root: Path, url: str, base: str) -> Path:
    assert url.startswith(base + "/"), url
    return root / urllib.parse.unquote(url[len(base) + 1:])


def test_tessera_manifest_publishes_a_collection_a_static_host_serves(docs_root, docs_server, driver, tmp_path):
    """`tessera manifest` writes the documents and level-0 tiles; every URL in them is a file of
    the output; iiif-prezi3 loads every document; a plain static server (Python's, with CORS) then
    serves it to the viewer, which pages the book right to left and the PDF's pages."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    out = tmp_path / "published"
    binary = Path(docs_server.process.args[0])
    made = subprocess.run([str(binary), "manifest", str(docs_root / "book"), str(docs_root / "doc.pdf"), "--base-url", base,
                           "--output", str(out), "--tile-size", "256", "--json"], capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    summary = json.loads(made.stdout)
    assert summary["pyramids"] == BOOK_PAGES + len(COLOURS)
    assert summary["tiles"] > 0 and summary["tileBytes"] > 0 and summary["videos"] == 0

    documents = sorted(out.rglob("*.json"))
    documents = [path for path in documents if path.name in ("manifest.json", "collection.json")]
    top = json.loads((out / "collection.json").read_text())
    assert [item["id"] for item in top["items"]] == [f"{base}/book/collection.json", f"{base}/doc.pdf/manifest.json"]
    # Every service, painted image and thumbnail a manifest names is a file of the output.
    for path in documents:
        document = json.loads(path.read_text())
        assert document["id"] == f"{base}/{path.relative_to(out).as_posix()}", path
        if document["type"] != "Manifest":
            continue
        for canvas in document["items"]:
            body = canvas["items"][0]["items"][0]["body"]
            service = body["service"][0]
            assert service["profile"] == "level0"
            info = json.loads((served_path(out, service["id"], base) / "info.json").read_text())
            assert info["id"] == service["id"] and info["profile"] == "level0"
            assert (info["width"], info["height"]) == (canvas["width"], canvas["height"])
            assert served_path(out, body["id"], base).is_file(), body["id"]
            for thumbnail in canvas["thumbnail"]:
                assert served_path(out, thumbnail["id"], base).is_file(), thumbnail["id"]
    book = json.loads((out / "book" / "manifest.json").read_text())
    assert book["viewingDirection"] == "right-to-left" and len(book["items"]) == BOOK_PAGES
    pdf = json.loads((out / "doc.pdf" / "manifest.json").read_text())
    assert len(pdf["items"]) == len(COLOURS) and "rendering" not in pdf, "originals are not published"

    checked = subprocess.run([str(REPO / ".build/presentation-venv/bin/python"), str(REPO / "scripts/check-presentation.py"),
                              *map(str, documents)], capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("ok ") == len(documents)

    handler = lambda *arguments: CORSHandler(*arguments, directory=str(out))  # noqa: E731
    host = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=host.serve_forever, daemon=True).start()
    try:
        driver.get(f"{docs_server.url}/view?manifest={urllib.parse.quote(base + '/book/manifest.json', safe='')}")
        wait_shown(driver, [1])
        driver.find_element(By.ID, "view").click()
        press(driver, Keys.PAGE_DOWN)
        wait_shown(driver, [3, 2])
        assert pages_drawn(driver, 2) == [3, 2]
        driver.get(f"{docs_server.url}/view?manifest={urllib.parse.quote(base + '/doc.pdf/manifest.json', safe='')}#canvas=5&pages=1")
        wait_shown(driver, [5])
        assert pages_drawn(driver, 1) == [5]
        driver.find_element(By.ID, "view").click()
        press(driver, "+")
        wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] >= 0.99, "the static tiles never drew at 100 %")
        assert pages_drawn(driver, 1) == [5]
        assert console_errors(driver) == []
    finally:
        host.shutdown()
        host.server_close()


# ---- The manifest reader under hostile input ---------------------------------------------------

FUZZ = """
const done = arguments[arguments.length - 1];
(async () => {
  const { readManifest, ManifestError } = await import(new URL("web/viewer-manifest.js", document.baseURI).href);
  const seeds = await Promise.all(arguments[0].map(async (url) => (await fetch(url)).json()));
  // A small seeded generator (mulberry32), so a failure is the same on every run.
  let state = arguments[1];
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (list) => list[Math.floor(random() * list.length)];
  const nasty = () => pick([null, undefined, 0, -1, 1e308, NaN, "", "javascript:alert(1)", "data:text/html,<b>",
    "<img src=x onerror=alert(1)>", "x".repeat(5000), [], {}, [[[]]], {type: "Canvas"}, {type: "Choice", items: []},
    {id: "//evil.example/x", type: "ImageService3"}, true, "ImageService2", "painting", {"@id": 5}]);
  const mutate = (value, depth) => {
    if (depth > 14 || random() < 0.015) return nasty();
    if (Array.isArray(value)) {
      const copy = value.map((item) => mutate(item, depth + 1));
      if (random() < 0.1) copy.push(nasty());
      if (random() < 0.1) copy.reverse();
      return copy;
    }
    if (value && typeof value === "object") {
      const copy = {};
      for (const [key, member] of Object.entries(value)) {
        if (random() < 0.02) continue;
        copy[random() < 0.01 ? pick(["items", "body", "service", "label", "id", "type"]) : key] = mutate(member, depth + 1);
      }
      return copy;
    }
    return random() < 0.02 ? nasty() : value;
  };
  const failures = [];
  let read = 0, refused = 0;
  for (let i = 0; i < arguments[2]; i++) {
    const seed = seeds[i % seeds.length];
    const input = mutate(seed, 0);
    try {
      const result = readManifest(input, "http://127.0.0.1/manifest.json");
      read++;
      for (const canvas of result.canvases) {
        const urls = [canvas.service, canvas.image, canvas.thumbnail, canvas.media?.url].filter((url) => url !== null && url !== undefined);
        if (urls.some((url) => !/^https?:\\/\\//.test(url))) failures.push(`a URL that is not http(s): ${JSON.stringify(urls)}`);
        if (typeof canvas.label !== "string") failures.push(`a label that is not text: ${typeof canvas.label}`);
        // An image, a video or a sound, or a canvas that paints nothing (shown blank, at its size).
        const shown = canvas.service || canvas.image || canvas.media || (canvas.blank && canvas.width > 0 && canvas.height > 0);
        if (!shown) failures.push("a canvas with nothing to show");
      }
      if (typeof result.label !== "string") failures.push("a manifest label that is not text");
    } catch (error) {
      if (error instanceof ManifestError) refused++;
      else failures.push(`${error?.name}: ${error?.message}`);
    }
    if (failures.length >= 5) break;
  }
  done({ read, refused, failures });
})().catch((error) => done({ read: 0, refused: 0, failures: [String(error)] }));
"""


def test_the_manifest_reader_survives_mutated_manifests(docs_server, driver):
    """A fuzz harness for the viewer's manifest reader (viewer-manifest.js): 4,000 seeded mutations
    of real manifests (Tessera's document, folder and collection) with hostile values spliced in.
    Each is read or refused with a ManifestError, never anything else, and what is read has only
    http(s) URLs, text labels and something to show on every canvas."""
    driver.get(f"{docs_server.url}/view/doc.pdf")
    wait_shown(driver, [1])
    seeds = [f"{docs_server.url}/presentation/3/{path}" for path in ("doc.pdf/manifest", "book/manifest", "photos/manifest")]
    driver.set_script_timeout(300)
    result = driver.execute_async_script(FUZZ, seeds, 20261126, 4000)
    assert result["failures"] == [], result
    assert result["read"] > 100 and result["refused"] > 100, result
