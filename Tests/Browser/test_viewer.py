"""Browser tests of the deep-zoom viewer, GET /view/{identifier}: what it draws against the source
image's own pixels, the level rule, the request budget, seams, deep links, accessibility and errors.

The viewer's read-only hook `window.tesseraViewer` says where the view is and whether it is fully
drawn, so tests wait on conditions instead of sleeping; every claim it makes that matters is also
checked against the canvas pixels or the browser's network log.
"""
from __future__ import annotations

import base64
import functools
import io
import math
import re
import urllib.error

import pytest
from PIL import Image, ImageChops
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.wait import WebDriverWait

from conftest import BIG_SIZE, console_errors, load_rules, network_log, wait_for_hook

#: Seconds to wait for a condition: generous, as the first view of big.jpg waits for its pyramid to
#: be built by a debug server on two CI cores.
WAIT = 90
#: JPEG tiles re-encoded by the server against Pillow's decode of the source: about 42 dB when the
#: right level is drawn pixel for pixel; one level too coarse gives about 30 dB, one pixel off 28 dB.
MIN_PSNR = 36

STATE = """
const v = window.tesseraViewer;
return v ? {ready: v.ready, complete: v.complete, inFlight: v.requestsInFlight, view: v.view,
            viewport: v.viewport, level: v.level, image: v.image, cache: v.cache, error: v.error,
            dpr: v.devicePixelRatio} : null;
"""
TILE = re.compile(r"/iiif/3/[^/]+/(\d+),(\d+),(\d+),(\d+)/(\d+),(\d+)/0/default\.jpg$")


# ---- Helpers ----------------------------------------------------------------------------------

def state(driver):
    return driver.execute_script(STATE)


def wait_for(driver, condition, message):
    """Polls the hook until `condition(state)` holds; returns that state."""
    return wait_for_hook(driver, STATE, condition, message, WAIT)


def settled(current):
    return current["ready"] and current["complete"] and current["inFlight"] == 0


def wait_settled(driver, message="the view never finished drawing"):
    return wait_for(driver, settled, message)


def open_viewer(driver, server, fragment="", identifier="big.jpg"):
    driver.get(f"{server.url}/view/{identifier}{fragment}")
    return wait_settled(driver)


def go_to(driver, fragment):
    """Changes the fragment in place (a hashchange, not a reload) and waits for the view to settle."""
    driver.execute_script("location.hash = arguments[0]", fragment)
    return wait_for(driver, lambda s: settled(s) and s["view"] and fragment_matches(s["view"], fragment),
                    f"the view never moved to {fragment}")


def fragment_matches(view, fragment):
    asked = dict(part.split("=") for part in fragment.lstrip("#").split("&"))
    return all(math.isclose(view[key], float(value), rel_tol=1e-9, abs_tol=1e-9) for key, value in asked.items())


def press(driver, *keys):
    ActionChains(driver).send_keys(*keys).perform()


def js_round(value):
    """JavaScript's Math.round (halves up), which the viewer snaps edges with."""
    return math.floor(value + 0.5)


def reduction(density, level_count, bias=0.0):
    """The level rule, written out again here so the viewer is checked against the rule, not itself."""
    coarsest = max(level_count - 1, 0)
    if not (density > 0) or not math.isfinite(density):
        return coarsest
    return int(min(max(math.floor(-math.log2(density) + bias + 1e-9), 0), coarsest))


@functools.lru_cache(maxsize=1)
def source_image(path):
    return Image.open(path).convert("RGB")


def canvas_pixels(driver) -> Image.Image:
    url = driver.execute_script("return document.getElementById('view').toDataURL('image/png')")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGBA")


def psnr(a: Image.Image, b: Image.Image) -> float:
    assert a.size == b.size
    histogram = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).histogram()
    squared = sum(count * (index % 256) ** 2 for index, count in enumerate(histogram))
    mse = squared / (a.width * a.height * 3)
    return math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)


class Placement:
    """The viewer's image → device-pixel mapping (viewer-geometry.js), to predict where pixels land."""

    def __init__(self, view, device_width, device_height, scale):
        c, s = {0: (1, 0), 90: (0, 1), 180: (-1, 0), 270: (0, -1)}[view["rotation"]]
        along_x = c != 0
        self.swapped = not along_x
        self.x_base = (device_width / 2 if along_x else device_height / 2) - view["x"] * scale * (c if along_x else s)
        self.x_scale = scale * (c if along_x else s)
        self.y_base = (device_height / 2 if along_x else device_width / 2) - view["y"] * scale * (c if along_x else -s)
        self.y_scale = scale * (c if along_x else -s)

    def device_rect(self, x0, y0, x1, y1):
        xs = sorted([js_round(self.x_base + x0 * self.x_scale), js_round(self.x_base + x1 * self.x_scale)])
        ys = sorted([js_round(self.y_base + y0 * self.y_scale), js_round(self.y_base + y1 * self.y_scale)])
        (left, right), (top, bottom) = (ys, xs) if self.swapped else (xs, ys)
        return left, top, right, bottom


def expected_pixel_for_pixel(source, view, width, height):
    """What a view drawn one image pixel per device pixel must show on a `width` × `height` canvas."""
    placement = Placement(view, width, height, 1)
    ox, oy = js_round(placement.x_base), js_round(placement.y_base)
    if view["rotation"] == 0:
        return source.crop((-ox, -oy, -ox + width, -oy + height))
    assert view["rotation"] == 90
    # Image x runs down the screen; image y runs right to left, row y landing in column oy − 1 − y.
    return source.crop((-ox, oy - width, -ox + height, oy)).transpose(Image.Transpose.ROTATE_270)


def assert_matches_source(driver, server, current, name="big.jpg"):
    canvas = canvas_pixels(driver)
    expected = expected_pixel_for_pixel(source_image(server.root / name), current["view"], canvas.width, canvas.height)
    quality = psnr(canvas, expected)
    assert quality > MIN_PSNR, f"canvas differs from the source at {current['view']}: PSNR {quality:.1f} dB"


def image_point_at(current, px, py):
    """The image point under screen point (px, py) of an unrotated view."""
    view, viewport = current["view"], current["viewport"]
    assert view["rotation"] == 0
    return (view["x"] + (px - viewport["width"] / 2) / view["zoom"],
            view["y"] + (py - viewport["height"] / 2) / view["zoom"])


class Grid:
    """An image's tile grid from its info.json, to name the tile behind a URL and predict the budget."""

    def __init__(self, info):
        self.width, self.height = info["width"], info["height"]
        tiles = info["tiles"][0]
        self.tile_width, self.tile_height = tiles["width"], tiles["height"]
        self.scales = sorted(tiles["scaleFactors"])
        self.coarsest = len(self.scales) - 1

    def tile_of(self, url):
        """(level, column, row) of a tile URL; fails unless exactly one level's grid has that tile."""
        x, y, w, h, ws, hs = map(int, TILE.search(url).groups())
        matches = []
        for level, scale in enumerate(self.scales):
            span_x, span_y = self.tile_width * scale, self.tile_height * scale
            if (x % span_x == 0 and y % span_y == 0 and w == min(span_x, self.width - x)
                    and h == min(span_y, self.height - y) and ws == math.ceil(w / scale) and hs == math.ceil(h / scale)):
                matches.append((level, x // span_x, y // span_y))
        assert len(matches) == 1, f"{url} is not one tile of the grid"
        return matches[0]

    def tiles_around(self, current, level, ring):
        """The tiles of `level` that meet the view, grown by `ring` tiles on each side."""
        view, viewport = current["view"], current["viewport"]
        quarter = view["rotation"] % 180 != 0
        half_w = (viewport["height"] if quarter else viewport["width"]) / 2 / view["zoom"]
        half_h = (viewport["width"] if quarter else viewport["height"]) / 2 / view["zoom"]
        x0, y0 = max(view["x"] - half_w, 0), max(view["y"] - half_h, 0)
        x1, y1 = min(view["x"] + half_w, self.width), min(view["y"] + half_h, self.height)
        scale = self.scales[level]
        span_x, span_y = self.tile_width * scale, self.tile_height * scale
        columns, rows = math.ceil(self.width / span_x), math.ceil(self.height / span_y)
        c0, c1 = max(math.floor(x0 / span_x) - ring, 0), min(math.ceil(x1 / span_x) - 1 + ring, columns - 1)
        r0, r1 = max(math.floor(y0 / span_y) - ring, 0), min(math.ceil(y1 / span_y) - 1 + ring, rows - 1)
        return {(level, c, r) for c in range(c0, c1 + 1) for r in range(r0, r1 + 1)}

    def whole_level(self, level):
        return self.tiles_around({"view": {"x": self.width / 2, "y": self.height / 2, "zoom": 1, "rotation": 0},
                                  "viewport": {"width": self.width, "height": self.height}}, level, 0)


def tile_requests(driver, grid):
    """The tiles requested since the last call, in order, from the browser's own network log."""
    return [grid.tile_of(entry["url"]) for entry in network_log(driver) if TILE.search(entry["url"])]


def check_step_budget(driver, grid, current, exact=False):
    """The tiles requested while reaching `current` are the view's level's visible tiles plus one ring
    (or the coarsest level, always kept), no more and no repeats; with `exact`, all of them."""
    dpr = current["dpr"]
    level = reduction(current["view"]["zoom"] * dpr, len(grid.scales))
    assert current["level"] == level, f"drew level {current['level']} at {current['view']}, dpr {dpr}; the rule says {level}"
    requested = tile_requests(driver, grid)
    allowed = grid.tiles_around(current, level, ring=1)
    for wanted_level in {tile[0] for tile in requested}:
        assert wanted_level in (level, grid.coarsest), f"requested level {wanted_level} at {current['view']}, drawing {level}"
    at_level = [tile for tile in requested if tile[0] == level and level != grid.coarsest]
    assert set(at_level) <= allowed, f"requested tiles outside the view and its ring: {sorted(set(at_level) - allowed)}"
    assert len(at_level) <= len(allowed) and len(at_level) == len(set(at_level)), "tiles requested twice"
    if exact:
        assert set(at_level) == allowed, f"tiles of the view and ring never requested: {sorted(allowed - set(at_level))}"
    assert current["cache"]["bytes"] <= current["cache"]["budget"]
    return requested


# ---- Tests ------------------------------------------------------------------------------------

def test_level_rule_cases_and_failures(server, driver):
    """levels.json through /web/level.js; a missing image's message; a failing tile keeps its
    placeholder and is retried until it loads."""
    driver.get(f"{server.url}/view/missing.jpg")
    cases = load_rules("levels.json")["cases"]
    assert len(cases) >= 20
    results = driver.execute_async_script(
        """const [cases, done] = arguments;
        import('/web/level.js').then(({reduction}) => done(cases.map(c =>
            reduction(c.zoom * c.devicePixelRatio, c.levelCount, c.bias))), e => done(String(e)));""", cases)
    assert isinstance(results, list), results
    for case, result in zip(cases, results):
        assert result == case["reduction"], f"{case}: level.js says {result}"
        assert reduction(case["zoom"] * case["devicePixelRatio"], case["levelCount"], case["bias"]) == case["reduction"]

    message = WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "message").is_displayed() and d.find_element(By.ID, "message"))
    assert message.get_attribute("role") == "alert"
    # The server's own one-line reason, whatever its wording.
    with pytest.raises(urllib.error.HTTPError) as failure:
        server.get("/iiif/3/missing.jpg/info.json")
    reason = failure.value.read().decode().strip()
    assert failure.value.code == 404 and reason
    assert message.text == f"Could not open missing.jpg: 404 {reason}"
    assert state(driver)["error"] == message.text

    # One level-0 tile fails until unblocked: it is retried while visible, a placeholder stands in.
    grid = Grid(server.json("/iiif/3/big.jpg/info.json"))
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/2560,1536,256,256/256,256/0/default.jpg"]})
    network_log(driver)
    driver.get(f"{server.url}/view/big.jpg#x=2688&y=1664&zoom=1")
    attempts = 0

    def retried(d):
        nonlocal attempts
        attempts += sum(1 for entry in network_log(d) if entry["url"].endswith("/2560,1536,256,256/256,256/0/default.jpg"))
        current = state(d)
        return attempts >= 3 and current["inFlight"] == 0 and current
    current = WebDriverWait(driver, WAIT, poll_frequency=0.1).until(retried, "the failed tile was not retried")
    assert (0, 10, 6) in grid.tiles_around(current, 0, 0) and not current["complete"]
    canvas = canvas_pixels(driver)
    hole = Placement(current["view"], canvas.width, canvas.height, 1).device_rect(2560, 1536, 2816, 1792)
    assert canvas.getchannel("A").crop(hole).getextrema() == (255, 255), "the failing tile has no placeholder"
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    wait_settled(driver, "the tile never loaded once the server answered")


def test_one_to_one_by_keyboard_and_wheel_matches_the_source_and_drag_pans(server, driver):
    """Keyboard and wheel zoom reach 1:1 at a point and draw the source's pixels there; a drag moves
    the view by the drag distance over the zoom; double-click and a two-finger pinch zoom about their
    point; nothing fails on the network or in the console."""
    start = open_viewer(driver, server)
    assert (start["image"]["width"], start["image"]["height"]) == BIG_SIZE
    width, height = start["viewport"]["width"], start["viewport"]["height"]
    assert start["view"]["zoom"] == min(width / BIG_SIZE[0], height / BIG_SIZE[1])

    # Keyboard: pan right and down, then zoom in step by step to 100 % at the centre.
    driver.execute_script("document.getElementById('view').focus()")
    press(driver, Keys.ARROW_RIGHT, Keys.ARROW_DOWN)
    panned = wait_settled(driver)
    assert panned["view"]["x"] > start["view"]["x"] and panned["view"]["y"] > start["view"]["y"]
    current = panned
    while current["view"]["zoom"] < 1:
        before = current["view"]["zoom"]
        press(driver, "+")
        current = wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] > before, "+ did not zoom in")
        assert (current["view"]["x"], current["view"]["y"]) == (panned["view"]["x"], panned["view"]["y"]), "+ moved the centre"
    assert current["view"]["zoom"] == 1 and current["level"] == 0
    assert_matches_source(driver, server, current)

    # Wheel: back home, then zoom at a point off centre; the image point under it stays put.
    press(driver, "0")
    home = wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] == start["view"]["zoom"], "0 did not go home")
    point = (300, 200)
    anchor = image_point_at(home, *point)
    ActionChains(driver).scroll_from_origin(ScrollOrigin.from_viewport(*point), 0, -200).perform()
    current = wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] > home["view"]["zoom"], "the wheel did not zoom in")
    assert image_point_at(current, *point) == pytest.approx(anchor)

    def wheel(delta):
        before = state(driver)["view"]["zoom"]
        driver.execute_script("""document.getElementById('view').dispatchEvent(new WheelEvent('wheel',
            {deltaY: arguments[0], deltaMode: 0, clientX: arguments[1], clientY: arguments[2], bubbles: true, cancelable: true}))""",
                              delta, *point)
        return wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] != before, "a wheel event did not zoom")

    # How far one wheel pixel zooms, measured rather than assumed, then the exact delta to 100 %.
    zoom = current["view"]["zoom"]
    current = wheel(-100)
    per_pixel = math.log(current["view"]["zoom"] / zoom) / -100
    while current["view"]["zoom"] * math.exp(per_pixel * -100) < 1:
        current = wheel(-100)
    current = wheel(math.log(1 / current["view"]["zoom"]) / per_pixel)
    assert math.isclose(current["view"]["zoom"], 1, rel_tol=1e-9) and current["level"] == 0
    assert image_point_at(current, *point) == pytest.approx(anchor)
    assert_matches_source(driver, server, current)

    # Drag: the view moves by the drag over the zoom, and the picture moves with it pixel for pixel.
    before_pixels, before = canvas_pixels(driver), current
    canvas = driver.find_element(By.ID, "view")
    ActionChains(driver).move_to_element(canvas).click_and_hold().move_by_offset(-200, -150).release().perform()
    after = wait_for(driver, lambda s: settled(s) and s["view"]["x"] != before["view"]["x"], "the drag did not pan")
    zoom = before["view"]["zoom"]
    assert after["view"]["x"] - before["view"]["x"] == pytest.approx(200 / zoom)
    assert after["view"]["y"] - before["view"]["y"] == pytest.approx(150 / zoom)
    after_pixels = canvas_pixels(driver)
    w, h = after_pixels.size
    assert psnr(after_pixels.crop((0, 0, w - 200, h - 150)), before_pixels.crop((200, 150, w, h))) > 45

    # Double-click zooms in twice as far around the point, Shift+double-click back out.
    offset = (-250, -100)
    point = (after["viewport"]["width"] / 2 + offset[0], after["viewport"]["height"] / 2 + offset[1])
    anchor = image_point_at(after, *point)
    ActionChains(driver).move_to_element_with_offset(canvas, *offset).double_click().perform()
    current = wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] == 2 * zoom, "double-click did not zoom in")
    assert image_point_at(current, *point) == pytest.approx(anchor, abs=1)
    ActionChains(driver).move_to_element_with_offset(canvas, *offset).key_down(Keys.SHIFT).double_click().key_up(Keys.SHIFT).perform()
    current = wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] == zoom, "shift+double-click did not zoom out")
    assert image_point_at(current, *point) == pytest.approx(anchor, abs=1)

    # Two fingers moving apart from 100 to 200 px zoom in twice, about the point between them.
    mid = (500, 300)
    anchor = image_point_at(current, *mid)
    actions = ActionBuilder(driver)
    fingers = [actions.add_pointer_input(interaction.POINTER_TOUCH, name) for name in ("one", "two")]
    for finger, side in zip(fingers, (-1, 1)):
        finger.create_pointer_move(x=mid[0] + 50 * side, y=mid[1], duration=0)
        finger.create_pointer_down(button=0)
    for finger, side in zip(fingers, (-1, 1)):
        finger.create_pointer_move(x=mid[0] + 100 * side, y=mid[1], duration=200)
        finger.create_pointer_up(button=0)
    actions.perform()
    current = wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] != zoom, "the pinch did not zoom")
    assert current["view"]["zoom"] == pytest.approx(2 * zoom)
    assert image_point_at(current, *mid) == pytest.approx(anchor, abs=1)

    requests = network_log(driver)
    assert [r for r in requests if r["status"] is not None and r["status"] >= 400] == []
    assert [r for r in requests if r["failed"] and not r["canceled"]] == []
    assert console_errors(driver) == []


def test_deep_link_restores_the_view_and_follows_the_fragment(server, driver):
    """A link with a view opens that view (hook and pixels, rotated); changing the fragment moves it,
    with placeholders in the very next frame; the fragment follows the view and reopens it."""
    current = open_viewer(driver, server, "#x=3000.5&y=2000&zoom=1&rotation=90")
    assert current["view"] == {"x": 3000.5, "y": 2000, "zoom": 1, "rotation": 90}
    assert_matches_source(driver, server, current)

    # A new fragment: the first frame after it already covers the view (coarser tiles stand in).
    first_frame = driver.execute_async_script("""
        const done = arguments[0];
        addEventListener('hashchange', () => requestAnimationFrame(() => {
            const canvas = document.getElementById('view');
            const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            let bare = 0;
            for (let i = 3; i < data.length; i += 4) if (data[i] < 255) bare++;
            done({bare, view: window.tesseraViewer.view});
        }), {once: true});
        location.hash = '#x=6500.25&y=4500&zoom=1&rotation=0';""")
    assert first_frame["view"] == {"x": 6500.25, "y": 4500, "zoom": 1, "rotation": 0}
    assert first_frame["bare"] == 0, "the frame after a jump showed background where the image is"
    current = wait_settled(driver)
    assert_matches_source(driver, server, current)

    # The fragment follows a drag, and opening that URL afresh shows the same view.
    ActionChains(driver).move_to_element(driver.find_element(By.ID, "view")).click_and_hold().move_by_offset(120, 80).release().perform()
    dragged = wait_for(driver, lambda s: settled(s) and s["view"]["x"] != 6500.25, "the drag did not pan")

    def fragment_shows_view(d):
        asked = dict(part.split("=") for part in d.execute_script("return location.hash").lstrip("#").split("&"))
        return (set(asked) == {"x", "y", "zoom", "rotation"} and float(asked["zoom"]) == 1 and float(asked["rotation"]) == 0
                and all(abs(float(asked[key]) - dragged["view"][key]) <= 0.005 for key in ("x", "y")))
    WebDriverWait(driver, WAIT).until(fragment_shows_view, "the fragment never followed the drag")
    link = driver.current_url
    driver.get("about:blank")
    reopened = open_viewer(driver, server, "#" + link.split("#", 1)[1])
    assert reopened["view"]["x"] == pytest.approx(round(dragged["view"]["x"], 2))
    assert reopened["view"]["y"] == pytest.approx(round(dragged["view"]["y"], 2))
    assert (reopened["view"]["zoom"], reopened["view"]["rotation"]) == (1, 0)

    # A press on the navigator's centre centres the view on the image's.
    ActionChains(driver).move_to_element(driver.find_element(By.ID, "navigator")).click().perform()
    centred = wait_for(driver, lambda s: settled(s) and s["view"]["x"] != reopened["view"]["x"], "the navigator did nothing")
    per_navigator_pixel = BIG_SIZE[0] / driver.find_element(By.ID, "navigator").size["width"]
    assert abs(centred["view"]["x"] - BIG_SIZE[0] / 2) <= per_navigator_pixel
    assert abs(centred["view"]["y"] - BIG_SIZE[1] / 2) <= per_navigator_pixel
    assert console_errors(driver) == []


def test_view_and_controls_are_named_and_zoom_is_announced(server, driver):
    """The view is a focusable, labelled application; every control is a named button; zoom changes
    reach the live region; focus is visible; the zoom stops at its limits."""
    current = open_viewer(driver, server)
    view = driver.find_element(By.ID, "view")
    assert view.aria_role == "application"
    assert view.get_attribute("tabindex") == "0"
    assert view.get_attribute("aria-roledescription")
    assert "big.jpg" in view.accessible_name

    named = {}
    for button in driver.find_elements(By.CSS_SELECTOR, ".controls button"):
        assert button.tag_name == "button" and button.aria_role == "button"
        assert button.accessible_name, button.get_attribute("outerHTML")
        named[button.accessible_name.lower()] = button
    for wanted in ["zoom in", "zoom out", "fit", "rotate", "full screen"]:
        assert any(wanted in name for name in named), f"no button named like {wanted!r}: {list(named)}"

    live = driver.find_element(By.CSS_SELECTOR, "[aria-live=polite]")
    assert live.get_attribute("textContent") == ""

    def announced(zoom):
        def check(d):
            match = re.fullmatch(r"Zoom ([\d.]+)%.*", live.get_attribute("textContent"))
            return match and math.isclose(float(match.group(1)), zoom * 100, rel_tol=0.01)
        WebDriverWait(driver, WAIT).until(check, f"zoom {zoom} never announced")

    def outline(element):
        return driver.execute_script("const s = getComputedStyle(arguments[0]); return [s.outlineStyle, s.outlineWidth]", element)

    # Tab reaches the view first, with a visible focus ring; + zooms and is announced.
    press(driver, Keys.TAB)
    assert driver.switch_to.active_element == view
    style, width = outline(view)
    assert style != "none" and width != "0px"
    press(driver, "+")
    current = wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] > current["view"]["zoom"], "+ did not zoom")
    announced(current["view"]["zoom"])

    # The next Tab reaches the zoom-in button, also with a visible ring; Enter presses it.
    press(driver, Keys.TAB)
    zoom_in = named["zoom in"]
    assert driver.switch_to.active_element == zoom_in
    style, width = outline(zoom_in)
    assert style != "none" and width != "0px"
    press(driver, Keys.ENTER)
    current = wait_for(driver, lambda s: settled(s) and s["view"]["zoom"] > current["view"]["zoom"], "Enter on zoom in did nothing")
    announced(current["view"]["zoom"])

    # The rotate button turns the view a quarter, and says so.
    next(b for name, b in named.items() if "rotate" in name).click()
    wait_for(driver, lambda s: s["view"]["rotation"] == 90, "rotate did nothing")
    WebDriverWait(driver, WAIT).until(lambda d: "90°" in live.get_attribute("textContent"), "rotation never announced")

    # The full-screen button is a toggle that says whether it is on; F leaves again.
    full_screen = next(b for name, b in named.items() if "full screen" in name)
    full_screen.click()
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.fullscreenElement !== null"), "no full screen")
    WebDriverWait(driver, WAIT).until(lambda d: full_screen.get_attribute("aria-pressed") == "true", "the button does not say full screen")
    press(driver, "f")
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.fullscreenElement === null"), "F did not leave full screen")
    # The button follows `fullscreenchange`, which may come a moment after fullscreenElement clears.
    WebDriverWait(driver, WAIT).until(lambda d: full_screen.get_attribute("aria-pressed") == "false", "the button still says full screen")

    # Zoom stops at 400 % and at half the fitted zoom (of the image turned a quarter), and the
    # buttons say so.
    fit = min(current["viewport"]["height"] / BIG_SIZE[0], current["viewport"]["width"] / BIG_SIZE[1])
    for key, limit, button in [("+", 4, zoom_in), ("-", fit / 2, named["zoom out"])]:
        for _ in range(10):
            press(driver, key)
        wait_for(driver, lambda s: settled(s) and math.isclose(s["view"]["zoom"], limit, rel_tol=1e-9), f"zoom never stopped at {limit}")
        assert button.get_attribute("aria-disabled") == "true"
    assert console_errors(driver) == []


def assert_seamless(driver, grid, current, label):
    """Every device pixel the image covers is fully painted, each visible tile's four edges included,
    and nothing outside it is: a gap between tiles would show the page through."""
    view, level = current["view"], current["level"]
    canvas = canvas_pixels(driver)
    scale = view["zoom"] * current["dpr"]
    placement = Placement(view, canvas.width, canvas.height, scale)
    span_x, span_y = grid.tile_width * grid.scales[level], grid.tile_height * grid.scales[level]
    # The check means something only if boundaries fall between device pixels.
    assert abs(span_x * scale - round(span_x * scale)) > 0.05, f"tile span {span_x * scale} px is whole at {label}"
    left, top, right, bottom = placement.device_rect(0, 0, grid.width, grid.height)
    box = (max(left, 0), max(top, 0), min(right, canvas.width), min(bottom, canvas.height))
    assert box != (0, 0, canvas.width, canvas.height), f"the image edge is not in view at {label}"
    alpha = canvas.getchannel("A")
    for _, column, row in grid.tiles_around(current, level, 0):
        l, t, r, b = placement.device_rect(column * span_x, row * span_y, min((column + 1) * span_x, grid.width),
                                           min((row + 1) * span_y, grid.height))
        for edge in [(l, t, l + 1, b), (r - 1, t, r, b), (l, t, r, t + 1), (l, b - 1, r, b)]:
            clipped = (max(edge[0], 0), max(edge[1], 0), min(edge[2], canvas.width), min(edge[3], canvas.height))
            if clipped[0] < clipped[2] and clipped[1] < clipped[3]:
                assert alpha.crop(clipped).getextrema()[0] == 255, f"seam at tile {column},{row} at {label}"
    assert alpha.crop(box).getextrema() == (255, 255), f"unpainted pixels inside the image at {label}"
    outside = alpha.copy()
    outside.paste(0, box)
    assert outside.getextrema() == (0, 0), f"paint outside the image at {label}"


def test_no_seams_at_fractional_zooms_rotations_and_partial_tiles(server, driver):
    """No gaps between tiles at zooms that put tile boundaries between device pixels, straight and
    rotated; then the same, and pixel-for-pixel agreement, for an image in a subdirectory whose
    right and bottom tiles are partial (and at coarse levels a fraction of a pixel)."""
    grid = Grid(server.json("/iiif/3/big.jpg/info.json"))
    open_viewer(driver, server)
    for fragment in ["#x=1000&y=800&zoom=0.37&rotation=0", "#x=300.3&y=250.7&zoom=1.63&rotation=0",
                     "#x=1000&y=800&zoom=0.37&rotation=90", "#x=7900.6&y=5900.2&zoom=1.63&rotation=270"]:
        assert_seamless(driver, grid, go_to(driver, fragment), fragment)

    identifier = "photos%2Fphoto-007.jpg"
    grid = Grid(server.json(f"/iiif/3/{identifier}/info.json"))
    network_log(driver)
    current = open_viewer(driver, server, "#x=600&y=450&zoom=0.2&rotation=180", identifier)
    assert "photos/photo-007.jpg" in driver.find_element(By.ID, "view").accessible_name
    assert_seamless(driver, grid, current, "the photo at 20 %")
    current = go_to(driver, "#x=610.5&y=450&zoom=1&rotation=0")
    assert_matches_source(driver, server, current, "photos/photo-007.jpg")
    current = go_to(driver, "#x=600&y=450&zoom=0.63&rotation=90")
    assert_seamless(driver, grid, current, "the photo at 63 %")
    # Every URL asked for is a tile of the grid (partial sizes rounded up, as IIIF says).
    assert all(grid.tile_of(entry["url"]) for entry in network_log(driver) if "/iiif/3/photos" in entry["url"] and "info.json" not in entry["url"])
    assert console_errors(driver) == []


def test_requests_stay_within_view_and_ring_and_memory_within_budget(server, driver):
    """At device pixel ratio 1, through zooms, pans, a wheel, jumps and rotation: the level drawn is
    the rule's, only its visible tiles and one ring are requested (plus the coarsest level), each
    once; a fresh area gets exactly those; a long tour stays inside the byte budget."""
    grid = Grid(server.json("/iiif/3/big.jpg/info.json"))
    current = open_viewer(driver, server)
    requested = check_step_budget(driver, grid, current, exact=True)
    assert requested[0] == (grid.coarsest, 0, 0), "the whole-image level was not fetched first"

    driver.execute_script("document.getElementById('view').focus()")
    steps = [lambda: press(driver, "+"), lambda: press(driver, "+"), lambda: press(driver, "+"),
             lambda: press(driver, Keys.ARROW_RIGHT), lambda: press(driver, Keys.ARROW_DOWN),
             lambda: driver.execute_script("""document.getElementById('view').dispatchEvent(new WheelEvent('wheel',
                 {deltaY: -80, clientX: 200, clientY: 150, bubbles: true, cancelable: true}))"""),
             lambda: press(driver, "r"), lambda: press(driver, "-"), lambda: press(driver, "-")]
    for step in steps:
        before = current["view"]
        step()
        current = wait_for(driver, lambda s: settled(s) and s["view"] != before, "the step did not change the view")
        check_step_budget(driver, grid, current)
    # A jump to an area never shown: exactly its visible tiles and ring.
    current = go_to(driver, "#x=7000&y=1200&zoom=1.63&rotation=0")
    check_step_budget(driver, grid, current, exact=True)

    # Loads the view leaves are cancelled: with slow answers, jump on while the first jump's tiles load.
    slow = {"offline": False, "latency": 500, "downloadThroughput": -1, "uploadThroughput": -1}
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", slow)
    driver.execute_script("location.hash = '#x=1500&y=5000&zoom=1&rotation=0'")
    wait_for(driver, lambda s: s["view"]["x"] == 1500 and s["inFlight"] > 0, "the jump started no loads")
    driver.execute_script("location.hash = '#x=6000&y=3500&zoom=0.5&rotation=0'")
    wait_for(driver, lambda s: s["view"]["x"] == 6000 and s["inFlight"] > 0, "the second jump started no loads")
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {**slow, "latency": 0})
    current = wait_settled(driver)
    kept = grid.tiles_around(current, current["level"], ring=1)
    left = [entry for entry in network_log(driver) if TILE.search(entry["url"]) and grid.tile_of(entry["url"]) not in kept]
    assert left and all(entry["canceled"] for entry in left), "loads of tiles the view left were not cancelled"

    # A tour at 1:1 over far more tiles than the budget holds.
    levels = {}
    for y in [700, 2300, 3900, 5500]:
        for x in [900, 4100, 7300]:
            current = go_to(driver, f"#x={x}&y={y}&zoom=1&rotation=0")
            check_step_budget(driver, grid, current)
            levels[(x, y)] = current["level"]
    assert set(levels.values()) == {0}
    assert current["cache"]["evictions"] > 0, "the tour never needed to evict: it proves nothing"
    assert current["cache"]["bytes"] <= current["cache"]["budget"]
    assert console_errors(driver) == []


def test_level_and_pixels_at_device_pixel_ratio_2(server, driver_2x):
    """At device pixel ratio 2 the canvas has twice the pixels, the rule picks one level finer than at
    1 for the same zoom, and at 50 % level 0 is drawn pixel for pixel."""
    driver = driver_2x
    grid = Grid(server.json("/iiif/3/big.jpg/info.json"))
    current = open_viewer(driver, server, "#x=4096&y=3072&zoom=0.25")
    assert current["dpr"] == 2
    size = driver.execute_script("const c = document.getElementById('view'); return [c.width, c.height, c.clientWidth, c.clientHeight]")
    assert size[:2] == [2 * size[2], 2 * size[3]]
    assert current["level"] == 1 and reduction(0.25, len(grid.scales)) == 2
    check_step_budget(driver, grid, current, exact=True)
    current = go_to(driver, "#x=5000.5&y=2500.25&zoom=0.5&rotation=0")
    assert current["level"] == 0
    check_step_budget(driver, grid, current, exact=True)
    assert_matches_source(driver, server, current)
    assert console_errors(driver) == []


def test_a_video_manifest_plays_in_the_viewer(server, driver):
    # Tessera's own manifest of clip.mp4 (4 s): a canvas a Video paints, played where the image
    # view would be, from the server's video route.
    driver.get(server.url + "/view?manifest=presentation/3/clip.mp4/manifest")
    media = WebDriverWait(driver, WAIT).until(
        lambda d: (m := d.execute_script("return window.tesseraViewer?.media")) and m["readyState"] >= 1 and m,
        "the video never loaded its metadata")
    assert media["kind"] == "video" and "clip.mp4" in media["url"]
    assert abs(media["duration"] - 4) < 0.2
    assert driver.find_element(By.ID, "view").is_displayed() is False
    assert driver.execute_script("return window.tesseraViewer.error") is None
    # It plays: time moves (muted, as a page may start a video itself).
    driver.execute_script("const v = document.querySelector('video.media'); v.muted = true; v.play();")
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return window.tesseraViewer.media.currentTime") > 0.5, "the video never played")
    assert console_errors(driver) == []
