"""Browser tests of the video trimmer, GET /trim/{identifier}: pointer drags of the handles and the
playhead against the element geometry, the WAI-ARIA keys and limits, the playhead kept inside the
selection, looping playback, the frame strip, exports probed by the library, errors, and the shared
trimming rules (Tests/Fixtures/rules/trimming.json) run through the page's own /web/trim-model.js.

The page's read-only hook `window.tesseraTrimmer` says what the slider holds, so tests wait on
conditions instead of sleeping; what it says is checked against the DOM, ARIA and the video too.
clip.mp4 is 4.0 s at 30 fps with a keyframe every second (Debian's Chromium plays its H.264).
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.wait import WebDriverWait

from conftest import REPO, console_errors, load_rules, make_driver, network_log

#: Seconds to wait for a condition: generous, for a debug server on two CI cores.
WAIT = 60
FPS = 30
FRAME = 1 / FPS
DURATION = 4.0
#: The page's default shortest selection, in seconds.
MINIMUM = 0.5
#: Continuous values from integer pointer positions: equal up to floating-point rounding.
EXACT = 1e-6

HOOK = """
const t = window.tesseraTrimmer;
return t && {ready: t.ready, lower: t.lower, upper: t.upper, playhead: t.playhead, activeThumb: t.activeThumb,
             snapping: t.snapping, strip: t.strip, playing: t.playing, videoTime: t.videoTime, errors: t.errors,
             export: t.export, minimumDuration: t.minimumDuration, maximumDuration: t.maximumDuration,
             seeking: document.getElementById('video').seeking};
"""

RECT = "const r = arguments[0].getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height};"

THUMB_IDS = {"lower": "thumb-lower", "upper": "thumb-upper", "playhead": "thumb-playhead"}


# ---- Helpers ----------------------------------------------------------------------------------

def hook(driver):
    return driver.execute_script(HOOK)


def wait_for(driver, condition, message, timeout=WAIT):
    """Polls the hook until `condition(state)` holds; returns that state."""
    def check(d):
        current = hook(d)
        return current if current and condition(current) else False
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(check, message)


def open_trimmer(driver, server, name="clip.mp4", query="", snapping=True):
    driver.get(f"{server.url}/trim/{name}{query}")
    wait_for(driver, lambda s: s["ready"], "the trimmer never became ready")
    driver.execute_script("document.getElementById('trimmer').scrollIntoView({block: 'center'})")
    if not snapping:
        driver.find_element(By.ID, "snap").click()
        wait_for(driver, lambda s: not s["snapping"], "snapping did not turn off")
    return hook(driver)


def rect(driver, element_id):
    return driver.execute_script(RECT, driver.find_element(By.ID, element_id))


class Track:
    """The time axis as the page lays it out: the strip canvas spans the track exactly, from 0 s
    at its left edge to the clip's end at its right edge (viewport CSS px)."""

    def __init__(self, driver):
        strip = rect(driver, "strip")
        control = rect(driver, "trimmer")
        self.min_x, self.max_x = strip["left"], strip["right"]
        self.y = round((control["top"] + control["bottom"]) / 2)

    def x(self, seconds):
        return self.min_x + seconds / DURATION * (self.max_x - self.min_x)

    def seconds(self, x):
        return (x - self.min_x) / (self.max_x - self.min_x) * DURATION


def value_line(driver, thumb):
    """Where the page drew a thumb's value: a start handle's right edge, an end handle's left edge,
    the playhead's centre."""
    box = rect(driver, THUMB_IDS[thumb])
    return {"lower": box["right"], "upper": box["left"], "playhead": (box["left"] + box["right"]) / 2}[thumb]


def grab_point(driver, thumb, offset):
    """A whole-pixel pointer x about `offset` px from a thumb's value line, and its exact offset."""
    line = value_line(driver, thumb)
    x = round(line + offset)
    return x, x - line


class Mouse:
    """A mouse driven by W3C pointer actions. The button stays down between calls, so a test can
    look at the page in the middle of a drag."""

    def __init__(self, driver):
        self.driver = driver

    def _perform(self, build):
        actions = ActionBuilder(self.driver, duration=40)
        build(actions.pointer_action)
        actions.perform()

    def press(self, x, y):
        self._perform(lambda p: (p.move_to_location(round(x), round(y)), p.pointer_down()))

    def move(self, x, y):
        self._perform(lambda p: p.move_to_location(round(x), round(y)))

    def release(self, x, y):
        self._perform(lambda p: (p.move_to_location(round(x), round(y)), p.pointer_up()))

    def click(self, x, y):
        self.press(x, y)
        self.release(x, y)


FRAME_TIMES = [k / FPS for k in range(round(DURATION * FPS))] + [DURATION]


#: Seconds within which the model takes two times for the same instant (MediaTime.tolerance):
#: 29/30 + 0.5 lies a rounding step above the frame time 44/30 and still means it.
TIME_TOLERANCE = 1e-6


def first_frame_at_or_after(seconds):
    """The model's snapped lower limit: the first frame time inside the constraint."""
    return next(t for t in FRAME_TIMES if t >= seconds - TIME_TOLERANCE)


def last_frame_at_or_before(seconds):
    return [t for t in FRAME_TIMES if t <= seconds + TIME_TOLERANCE][-1]


def aria(driver, thumb):
    element = driver.find_element(By.ID, THUMB_IDS[thumb])
    return {name: element.get_attribute(f"aria-{name}") for name in ("label", "valuenow", "valuetext", "valuemin", "valuemax")} | {
        "role": element.get_attribute("role"), "tabindex": element.get_attribute("tabindex")}


def time_text(seconds):
    """Swift's TrimmingTimeFormat for times under an hour: m:ss.t, rounded to a tenth first."""
    tenths = math.floor(seconds * 10 + 0.5) if seconds > 0 else 0
    return f"{tenths // 600}:{tenths // 10 % 60:02d}.{tenths % 10}"


def press_keys(driver, thumb, *keys):
    driver.find_element(By.ID, THUMB_IDS[thumb]).send_keys(*keys)


def assert_no_console_errors(driver):
    assert console_errors(driver) == []


# ---- The page ---------------------------------------------------------------------------------

def test_page_shows_the_video_strip_labels_and_aria(driver, server):
    state = open_trimmer(driver, server)
    assert (state["lower"], state["upper"], state["playhead"]) == (0, DURATION, 0)
    assert state["minimumDuration"] == MINIMUM and state["maximumDuration"] is None and state["snapping"]
    assert driver.find_element(By.ID, "name").text == "clip.mp4"
    assert "256 × 144" in driver.find_element(By.ID, "facts").text
    assert [driver.find_element(By.ID, i).text for i in ("start-time", "length-time", "end-time")] == ["0:00.0", "0:04.0", "0:04.0"]

    start, playhead, end = aria(driver, "lower"), aria(driver, "playhead"), aria(driver, "upper")
    assert start == {"label": "Start", "valuenow": "0", "valuetext": "0:00.0", "valuemin": "0", "valuemax": "3.5", "role": "slider", "tabindex": "0"}
    assert end == {"label": "End", "valuenow": "4", "valuetext": "0:04.0", "valuemin": "0.5", "valuemax": "4", "role": "slider", "tabindex": "0"}
    assert playhead == {"label": "Playhead", "valuenow": "0", "valuetext": "0:00.0", "valuemin": "0", "valuemax": "4", "role": "slider", "tabindex": "0"}

    # Reading and tab order: start, playhead, end; then they take keys, so focus lands on them.
    sliders = driver.find_elements(By.CSS_SELECTOR, "#trimmer [role=slider]")
    assert [s.get_attribute("aria-label") for s in sliders] == ["Start", "Playhead", "End"]
    play = driver.find_element(By.ID, "play")
    assert play.tag_name == "button" and play.text == "Play"
    export = driver.find_element(By.ID, "export")
    assert export.tag_name == "button" and export.text == "Export"
    for radio in driver.find_elements(By.CSS_SELECTOR, "input[name=method]"):
        assert radio.find_element(By.XPATH, "ancestor::label").text.strip() != ""

    # The video plays from the server.
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.getElementById('video').readyState >= 2"))
    assert driver.execute_script("return document.getElementById('video').videoWidth") == 256
    assert_no_console_errors(driver)


def test_keyboard_focus_is_visible_and_follows_reading_order(driver, server):
    open_trimmer(driver, server)
    driver.execute_script("document.getElementById('snap').focus()")  # the control just before the sliders
    for expected in ("Start", "Playhead", "End"):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        focused = driver.switch_to.active_element
        assert focused.get_attribute("aria-label") == expected
        style = driver.execute_script("const s = getComputedStyle(arguments[0]); return [s.outlineStyle, s.outlineWidth];", focused)
        assert style[0] != "none" and style[1] != "0px", f"no visible focus on {expected}"


def test_strip_comes_from_keyframes_first_then_fast_sized_to_the_strip(driver, server):
    state = open_trimmer(driver, server)
    state = wait_for(driver, lambda s: s["strip"]["mode"] == "fast", "the strip was never refined to fast")
    strip = rect(driver, "strip")
    assert state["strip"]["frames"] == round(strip["width"] / 56)
    assert state["strip"]["height"] == math.ceil(strip["height"])  # device pixels at devicePixelRatio 1
    sprites = [r for r in network_log(driver) if "/sprite.jpg?" in r["url"]]
    modes = [re.search(r"mode=(\w+)", r["url"]).group(1) for r in sprites]
    assert modes == ["keyframe", "fast"], modes
    assert all(r["status"] == 200 for r in sprites)
    # The canvas really shows frames: not one flat colour.
    distinct = driver.execute_script("""
        const c = document.getElementById('strip');
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const seen = new Set();
        for (let i = 0; i < data.length; i += 4 * 97) seen.add(data[i] >> 4 << 8 | data[i + 1] >> 4 << 4 | data[i + 2] >> 4);
        return seen.size;""")
    assert distinct > 3
    assert_no_console_errors(driver)


def test_strip_height_is_in_device_pixels(driver_2x, server):
    open_trimmer(driver_2x, server)
    state = wait_for(driver_2x, lambda s: s["strip"]["mode"] == "fast", "the strip was never refined to fast")
    strip = rect(driver_2x, "strip")
    assert driver_2x.execute_script("return devicePixelRatio") == 2
    assert state["strip"]["height"] == math.ceil(strip["height"] * 2)
    assert state["strip"]["frames"] == round(strip["width"] / 56)
    assert driver_2x.execute_script("return document.getElementById('strip').width") == round(strip["width"] * 2)


# ---- Dragging ---------------------------------------------------------------------------------

@pytest.mark.parametrize("thumb,grab", [("lower", -5), ("upper", 6)])
def test_handle_drag_follows_the_pointer_with_no_drift(driver, server, thumb, grab):
    """Grabbed off its value line, a handle keeps that offset; pushed past its limit it stops, and
    brought back it lines up with the pointer again exactly."""
    open_trimmer(driver, server, snapping=False)
    track = Track(driver)
    other = "upper" if thumb == "lower" else "lower"
    grab_x, offset = grab_point(driver, thumb, grab)
    mouse = Mouse(driver)
    mouse.press(grab_x, track.y)
    assert hook(driver)["activeThumb"] == thumb
    assert hook(driver)[thumb] == (0 if thumb == "lower" else DURATION), "grabbing moved the handle"

    first = round(track.x(1.3 if thumb == "lower" else 2.6) + offset)
    mouse.move(first, track.y)
    state = hook(driver)
    assert state[thumb] == pytest.approx(track.seconds(first - offset), abs=EXACT)
    assert value_line(driver, thumb) == pytest.approx(first - offset, abs=0.5)

    # Past the other handle: it stops the minimum selection away and does not push it.
    beyond = track.max_x + 80 if thumb == "lower" else track.min_x - 80
    mouse.move(beyond, track.y)
    state = hook(driver)
    limit = state[other] - MINIMUM if thumb == "lower" else state[other] + MINIMUM
    assert state[thumb] == pytest.approx(limit, abs=EXACT)
    assert state[other] == (DURATION if thumb == "lower" else 0)
    assert float(aria(driver, thumb)["valuenow"]) == pytest.approx(limit, abs=EXACT)

    back = round(track.x(0.9 if thumb == "lower" else 3.2) + offset)
    mouse.move(back, track.y)
    expected = track.seconds(back - offset)
    assert hook(driver)[thumb] == pytest.approx(expected, abs=EXACT), "drifted after the limit"
    mouse.release(back, track.y)
    state = hook(driver)
    assert state["activeThumb"] is None
    assert state[thumb] == pytest.approx(expected, abs=EXACT)
    assert value_line(driver, thumb) == pytest.approx(back - offset, abs=0.5)
    assert aria(driver, thumb)["valuetext"] == time_text(expected)

    # The strip is dimmed exactly outside the selection.
    dim = rect(driver, "dim-before" if thumb == "lower" else "dim-after")
    edge = dim["right"] if thumb == "lower" else dim["left"]
    assert edge == pytest.approx(value_line(driver, thumb), abs=0.5)
    assert_no_console_errors(driver)


def test_handle_drag_snaps_to_frames(driver, server):
    open_trimmer(driver, server)
    track = Track(driver)
    grab_x, offset = grab_point(driver, "lower", -4)
    mouse = Mouse(driver)
    mouse.press(grab_x, track.y)
    target = round(track.x(1.234) + offset)
    mouse.release(target, track.y)
    lower = hook(driver)["lower"]
    continuous = track.seconds(target - offset)
    assert lower * FPS == pytest.approx(round(lower * FPS), abs=1e-9), "not on a frame"
    assert abs(lower - continuous) <= FRAME / 2 + EXACT, "not the nearest frame"


def test_playhead_drag_seeks_and_stays_inside_the_selection(driver, server):
    open_trimmer(driver, server, snapping=False)
    press_keys(driver, "lower", Keys.PAGE_UP)  # 1 s
    press_keys(driver, "upper", Keys.PAGE_DOWN)  # 3 s
    press_keys(driver, "playhead", Keys.HOME)
    track = Track(driver)
    state = hook(driver)
    assert (state["lower"], state["upper"], state["playhead"]) == (1, 3, 1)

    mouse = Mouse(driver)
    # Grabbed right of its line, inside its 44-px target (the start handle's target covers the
    # left side). At the selection's start the line is drawn just inside, right of the value.
    grab_x = round(value_line(driver, "playhead") + 16)
    offset = grab_x - track.x(1)
    mouse.press(grab_x, track.y)
    assert hook(driver)["activeThumb"] == "playhead"
    middle = round(track.x(1.6) + offset)
    mouse.move(middle, track.y)
    assert hook(driver)["playhead"] == pytest.approx(track.seconds(middle - offset), abs=EXACT)
    mouse.move(track.min_x - 50, track.y)
    assert hook(driver)["playhead"] == 1, "left the selection at its start"
    mouse.move(track.max_x + 50, track.y)
    assert hook(driver)["playhead"] == 3, "left the selection at its end"
    mouse.release(middle, track.y)
    expected = track.seconds(middle - offset)
    state = wait_for(driver, lambda s: not s["seeking"] and abs(s["videoTime"] - s["playhead"]) < 0.01,
                     "the video did not seek to the playhead")
    assert state["playhead"] == pytest.approx(expected, abs=EXACT)
    assert driver.find_element(By.ID, "current-time").text == time_text(expected)

    # A handle moved past the playhead carries it along.
    grab_x, offset = grab_point(driver, "lower", -3)
    mouse.press(grab_x, track.y)
    target = round(track.x(2.2) + offset)
    mouse.release(target, track.y)
    state = hook(driver)
    assert state["lower"] == pytest.approx(track.seconds(target - offset), abs=EXACT)
    assert state["lower"] > expected and state["playhead"] == state["lower"]
    assert_no_console_errors(driver)


def test_a_press_on_the_track_moves_the_playhead_there(driver, server):
    open_trimmer(driver, server, snapping=False)
    track = Track(driver)
    x = track.x(2.5)
    Mouse(driver).click(x, track.y)
    state = wait_for(driver, lambda s: not s["seeking"] and abs(s["videoTime"] - s["playhead"]) < 0.01,
                     "the video did not seek to the pressed time")
    assert state["playhead"] == pytest.approx(track.seconds(round(x)), abs=EXACT)
    assert_no_console_errors(driver)


def test_a_trim_handle_wins_over_the_playhead_parked_on_it(driver, server):
    open_trimmer(driver, server, snapping=False)
    press_keys(driver, "upper", Keys.PAGE_DOWN)  # 3 s
    press_keys(driver, "playhead", Keys.END)  # 3 s, on the end handle
    track = Track(driver)
    assert hook(driver)["playhead"] == 3
    playhead = rect(driver, "thumb-playhead")
    on_playhead = round((playhead["left"] + playhead["right"]) / 2)
    assert playhead["left"] <= on_playhead <= playhead["right"]
    mouse = Mouse(driver)
    mouse.press(on_playhead, track.y)
    assert hook(driver)["activeThumb"] == "upper"
    offset = on_playhead - track.x(3)
    target = round(track.x(2) + offset)
    mouse.release(target, track.y)
    state = hook(driver)
    assert state["upper"] == pytest.approx(track.seconds(target - offset), abs=EXACT)
    assert state["playhead"] == state["upper"], "the playhead was not carried inside the selection"


def test_hit_targets_are_44_px_wide(driver, server):
    """A 16-px handle is grabbed 13 px beyond its drawing on either side, the 4-px playhead 20 px
    beside its line."""
    open_trimmer(driver, server)
    press_keys(driver, "playhead", Keys.PAGE_UP, Keys.PAGE_UP)  # 2 s, clear of both handles
    track = Track(driver)
    mouse = Mouse(driver)
    presses = []
    for thumb in ("lower", "upper"):
        box = rect(driver, THUMB_IDS[thumb])
        assert box["width"] == 16
        presses += [(thumb, math.ceil(box["left"] - 13)), (thumb, math.floor(box["right"] + 13))]
    line = value_line(driver, "playhead")
    presses += [("playhead", math.ceil(line - 20)), ("playhead", math.floor(line + 20))]
    for thumb, x in presses:
        mouse.press(x, track.y)
        assert hook(driver)["activeThumb"] == thumb, f"{thumb} not grabbed at {x}"
        mouse.release(x, track.y)
        assert hook(driver)["activeThumb"] is None


# ---- Keys -------------------------------------------------------------------------------------

def test_keys_step_a_frame_or_a_second_and_reach_the_limits(driver, server):
    open_trimmer(driver, server)
    press_keys(driver, "lower", Keys.ARROW_RIGHT)
    assert hook(driver)["lower"] == pytest.approx(FRAME, abs=1e-12)
    press_keys(driver, "lower", Keys.PAGE_UP)
    assert hook(driver)["lower"] == pytest.approx(1 + FRAME, abs=1e-12)
    press_keys(driver, "lower", Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    assert hook(driver)["lower"] == pytest.approx(1 - FRAME, abs=1e-12)
    assert aria(driver, "lower")["valuetext"] == "0:01.0"

    press_keys(driver, "upper", Keys.PAGE_DOWN, Keys.ARROW_DOWN)
    upper = hook(driver)["upper"]
    assert upper == pytest.approx(3 - FRAME, abs=1e-12)
    # Limits follow the other handle, the minimum selection apart.
    lower = hook(driver)["lower"]
    assert float(aria(driver, "lower")["valuemax"]) == last_frame_at_or_before(upper - MINIMUM)
    assert float(aria(driver, "upper")["valuemin"]) == first_frame_at_or_after(lower + MINIMUM)
    assert float(aria(driver, "upper")["valuemax"]) == DURATION
    assert (float(aria(driver, "playhead")["valuemin"]), float(aria(driver, "playhead")["valuemax"])) == (hook(driver)["lower"], upper)

    press_keys(driver, "lower", Keys.END)
    lower = hook(driver)["lower"]
    assert lower == last_frame_at_or_before(upper - MINIMUM)
    assert float(aria(driver, "upper")["valuemin"]) == first_frame_at_or_after(lower + MINIMUM)
    press_keys(driver, "upper", Keys.HOME, Keys.ARROW_LEFT)
    assert hook(driver)["upper"] == first_frame_at_or_after(lower + MINIMUM), "the end handle went below its limit"
    press_keys(driver, "lower", Keys.HOME)
    assert hook(driver)["lower"] == 0
    press_keys(driver, "upper", Keys.END)
    assert hook(driver)["upper"] == DURATION
    press_keys(driver, "playhead", Keys.END)
    assert hook(driver)["playhead"] == DURATION
    press_keys(driver, "upper", Keys.PAGE_DOWN)
    state = hook(driver)
    assert state["upper"] == pytest.approx(3, abs=1e-12) and state["playhead"] == state["upper"], "playhead not carried"
    assert aria(driver, "playhead")["valuetext"] == "0:03.0"
    assert_no_console_errors(driver)


def test_arrows_step_a_frame_without_snapping_too(driver, server):
    open_trimmer(driver, server, snapping=False)
    press_keys(driver, "playhead", Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    assert hook(driver)["playhead"] == pytest.approx(3 * FRAME, abs=1e-12)
    press_keys(driver, "playhead", Keys.PAGE_UP)
    assert hook(driver)["playhead"] == pytest.approx(1 + 3 * FRAME, abs=1e-12)


def test_minimum_and_maximum_from_the_address(driver, server):
    state = open_trimmer(driver, server, query="?min=1&max=2")
    assert (state["minimumDuration"], state["maximumDuration"]) == (1, 2)
    assert (state["lower"], state["upper"]) == (0, 2), "the end starts as far as the maximum allows"
    track = Track(driver)
    mouse = Mouse(driver)
    line = value_line(driver, "upper")
    mouse.press(line + 2, track.y)
    mouse.release(track.max_x + 40, track.y)
    assert hook(driver)["upper"] == 2
    press_keys(driver, "lower", Keys.PAGE_UP, Keys.PAGE_UP)  # to 1 s, the minimum before the end
    assert hook(driver)["lower"] == 1
    assert (aria(driver, "lower")["valuemin"], aria(driver, "lower")["valuemax"]) == ("0", "1")
    assert (aria(driver, "upper")["valuemin"], aria(driver, "upper")["valuemax"]) == ("2", "3")
    assert_no_console_errors(driver)


def test_bad_limits_in_the_address_are_reported_and_ignored(driver, server):
    state = open_trimmer(driver, server, query="?min=soon&max=0.2")
    assert state["minimumDuration"] == MINIMUM and state["maximumDuration"] is None
    alert = driver.find_element(By.ID, "error")
    assert alert.is_displayed() and alert.get_attribute("role") == "alert"
    assert "?min=soon" in alert.text and "?max=0.2" in alert.text


# ---- Playback ---------------------------------------------------------------------------------

def test_playback_loops_inside_the_selection_and_the_playhead_follows(driver, server):
    open_trimmer(driver, server)
    press_keys(driver, "lower", Keys.PAGE_UP)  # 1 s
    press_keys(driver, "upper", Keys.PAGE_DOWN, Keys.PAGE_DOWN)  # 2 s
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.getElementById('video').readyState >= 2"))
    driver.find_element(By.ID, "play").click()
    wait_for(driver, lambda s: s["playing"], "playback did not start")
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "play").text == "Pause", "the button still says Play")
    # Watch every animation frame until playback has wrapped from the end back to the start.
    seen = driver.execute_async_script("""
        const done = arguments[0];
        const t = window.tesseraTrimmer, video = document.getElementById('video');
        const samples = [];
        const step = () => {
            samples.push([t.playhead, video.currentTime]);
            const wrapped = samples.some(([p], i) => i > 0 && samples[i - 1][0] - p > 0.5);
            if (wrapped && samples[samples.length - 1][0] > 1.2) done(samples);
            else requestAnimationFrame(step);
        };
        requestAnimationFrame(step);""")
    playheads = [p for p, _ in seen]
    assert min(playheads) >= 1 and max(playheads) <= 2, "the playhead left the selection"
    assert max(playheads) > 1.8, "the playhead did not follow playback to the selection's end"
    wrap = next(i for i in range(1, len(seen)) if seen[i - 1][0] - seen[i][0] > 0.5)
    assert any(time < 1.5 for _, time in seen[wrap:]), "the video itself did not jump back to the start"
    driver.find_element(By.ID, "play").click()
    state = wait_for(driver, lambda s: not s["playing"], "playback did not pause")
    assert 1 <= state["playhead"] <= 2
    # `paused` turns at once; the label follows the 'pause' event, a task later.
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "play").text == "Play", "the button still says Pause")
    assert_no_console_errors(driver)


# ---- Export -----------------------------------------------------------------------------------

def probe(path: Path) -> dict:
    binary = os.environ.get("TESSERA_BIN", str(REPO / ".build" / "debug" / "tessera"))
    output = subprocess.run([binary, "info", "--json", str(path)], check=True, capture_output=True, text=True).stdout
    return json.loads(output)


def shown_seconds(driver, element_id):
    minutes, seconds = driver.find_element(By.ID, element_id).text.split(":")
    return int(minutes) * 60 + float(seconds)


@pytest.mark.parametrize("method", ["copy", "exact"])
def test_export_gives_a_clip_as_long_as_the_page_says(driver, server, method):
    open_trimmer(driver, server)
    press_keys(driver, "lower", *[Keys.ARROW_RIGHT] * 15)  # 0.5 s
    press_keys(driver, "upper", *[Keys.ARROW_LEFT] * 15)  # 3.5 s
    state = hook(driver)
    assert (state["lower"], state["upper"]) == (pytest.approx(0.5, abs=1e-12), pytest.approx(3.5, abs=1e-12))
    driver.find_element(By.CSS_SELECTOR, f"input[name=method][value={method}]").click()
    driver.find_element(By.ID, "export").click()
    state = wait_for(driver, lambda s: s["export"] and s["export"]["state"] in ("done", "failed"), "the export never finished")
    assert state["export"]["state"] == "done", state["export"]
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "result").is_displayed())
    assert not driver.find_element(By.ID, "progress").is_displayed()

    requested = shown_seconds(driver, "requested-start"), shown_seconds(driver, "requested-end")
    exported = shown_seconds(driver, "exported-start"), shown_seconds(driver, "exported-end")
    assert requested == (0.5, 3.5)
    if method == "copy":
        # A stream copy starts at the keyframe at or before the start: clip.mp4 has one at 0 s.
        assert exported[0] == 0
        assert "earlier" in driver.find_element(By.ID, "result-note").text
    else:
        assert exported[0] == pytest.approx(0.5, abs=FRAME / 2)

    link = driver.find_element(By.ID, "download")
    href = link.get_attribute("href")
    assert re.search(r"/jobs/[0-9a-f]{32}/result$", href) and link.get_attribute("download") is not None
    with tempfile.TemporaryDirectory() as directory:
        clip = Path(directory) / "clip.mp4"
        with urllib.request.urlopen(href, timeout=60) as response, open(clip, "wb") as file:
            shutil.copyfileobj(response, file)
        info = probe(clip)
    assert info["duration"] == pytest.approx(exported[1] - exported[0], abs=FRAME)
    assert info["frameCount"] == pytest.approx((exported[1] - exported[0]) * FPS, abs=1)
    assert_no_console_errors(driver)


# ---- Errors -----------------------------------------------------------------------------------

def test_a_missing_video_is_reported_in_the_page(driver, server):
    driver.get(f"{server.url}/trim/no-such-clip.mp4")
    alert = driver.find_element(By.ID, "error")
    WebDriverWait(driver, WAIT).until(lambda d: alert.is_displayed())
    assert "cannot be opened" in alert.text and "no-such-clip.mp4" in alert.text
    assert driver.find_element(By.ID, "export").get_attribute("disabled") is not None
    # The failed info.json is the only error: the page itself threw nothing.
    errors = console_errors(driver)
    assert errors and all("info.json" in e and "404" in e for e in errors), errors


def test_a_failed_export_is_reported_in_the_page(driver, server):
    doomed = server.root / "doomed.mp4"
    shutil.copy(server.root / "clip.mp4", doomed)
    open_trimmer(driver, server, name="doomed.mp4")
    doomed.unlink()
    driver.find_element(By.ID, "export").click()
    status = driver.find_element(By.ID, "export-status")
    WebDriverWait(driver, WAIT).until(lambda d: "error" in status.get_attribute("class"))
    assert "refused" in status.text
    assert not driver.find_element(By.ID, "result").is_displayed()
    assert driver.find_element(By.ID, "export").is_enabled(), "Export stays usable after a failure"


# ---- The shared rules, through the page's own module ---------------------------------------------

RULES = load_rules("trimming.json")

RUN_RULES = """
const [rules, done] = arguments;
import('/web/trim-model.js').then((M) => {
  const results = rules.sequences.map((sequence) => {
    const m = sequence.model;
    const frameTimes = m.framesPerSecond != null ? M.TrimmingSliderModel.frameTimes(m.duration, m.framesPerSecond) : (m.frameTimes ?? null);
    const slider = new M.TrimmingSlider(
      new M.TrimmingSliderModel({duration: m.duration, minimumDuration: m.minimumDuration ?? 0, maximumDuration: m.maximumDuration ?? null,
                                 frameTimes, lower: m.lower ?? 0, upper: m.upper ?? null, playhead: m.playhead ?? null}),
      new M.TrimmingSliderGeometry(rules.geometries[sequence.geometry]));
    const state = () => ({lower: slider.model.lower, upper: slider.model.upper, playhead: slider.model.playhead, activeThumb: slider.activeThumb});
    const initial = state();
    const steps = sequence.steps.map((step) => {
      let events = [];
      const extra = {};
      switch (step.do) {
        case 'touchBegan': events = slider.touchBegan(step.x); break;
        case 'touchMoved': events = slider.touchMoved(step.x); break;
        case 'touchEnded': events = slider.touchEnded(step.x); break;
        case 'touchCancelled': events = slider.touchCancelled(); break;
        case 'setValue': events = slider.setValue(step.seconds, step.thumb); break;
        case 'setSelection': events = slider.setSelection(step.lower, step.upper); break;
        case 'perform': events = slider.perform(step.action, step.thumb); break;
        case 'resize': slider.geometry = new M.TrimmingSliderGeometry({...slider.geometry, width: step.width}); break;
        case 'hitTest': { const hit = slider.hitTest(step.x); extra.hit = hit === null ? 'none' : hit.track ? 'track' : hit.thumb; break; }
        case 'accessibility': extra.elements = slider.accessibilityElements.map((e) => ({...e})); break;
        default: throw new Error('unknown step ' + step.do);
      }
      return {...state(), events, ...extra};
    });
    return {initial, steps};
  });
  done(results);
}).catch((error) => done({error: String(error.stack || error)}));
"""


@pytest.fixture(scope="module")
def rule_results(server):
    """Every sequence run once through /web/trim-model.js in a page of the server."""
    browser = make_driver()
    try:
        browser.get(f"{server.url}/trim/clip.mp4")
        results = browser.execute_async_script(RUN_RULES, RULES)
        assert console_errors(browser) == []
    finally:
        browser.quit()
    assert isinstance(results, list), results
    return results


@pytest.mark.parametrize("index", range(len(RULES["sequences"])), ids=[s["name"] for s in RULES["sequences"]])
def test_shared_rules_hold_in_the_page(rule_results, index):
    sequence = RULES["sequences"][index]
    actual = rule_results[index]
    assert actual["initial"] == sequence["initial"]
    for number, (step, got) in enumerate(zip(sequence["steps"], actual["steps"], strict=True), start=1):
        assert got == step["expect"], f"step {number} ({step['do']})"
