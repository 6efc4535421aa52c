"""The grid (`/grid?dir=photos`): a hundred 1200×900 photos, each requested downsampled to its cell."""
from __future__ import annotations

import re
import time
import urllib.request

import pytest
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PHOTO_COUNT, PHOTO_SIZE, console_errors, network_log

IMAGE_REQUEST = re.compile(r"/iiif/3/photos%2Fphoto-(\d{3})\.jpg/full/!(\d+),(\d+)/0/default\.jpg$")


def wait_for(driver, condition, timeout=60):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d))


def grid_stats(driver) -> dict:
    return driver.execute_script("return {...window.tesseraGrid.stats, cellSize: window.tesseraGrid.cellSize}")


def image_requests(entries) -> list[tuple[int, int, int, dict]]:
    """(photo index, w, h, entry) of every IIIF image request in a network log."""
    found = []
    for entry in entries:
        match = IMAGE_REQUEST.search(entry["url"])
        if match:
            found.append((int(match[1]), int(match[2]), int(match[3]), entry))
    return found


def near_viewport(driver) -> tuple[set[int], set[int]]:
    """Indices of the cells within one screen of the viewport, and of those inside it."""
    rects = driver.execute_script("""
        return [...document.querySelectorAll('#grid figure')].map(f => {
            const r = f.getBoundingClientRect(); return [r.top, r.bottom]; });""")
    height = driver.execute_script("return innerHeight")
    near = {i for i, (top, bottom) in enumerate(rects) if bottom > -height and top < 2 * height}
    inside = {i for i, (top, bottom) in enumerate(rects) if bottom > 0 and top < height}
    return near, inside


def settle(driver):
    """Waits until no image load is under way and none has started for a while."""
    previous = None
    for _ in range(600):
        stats = grid_stats(driver)
        state = (stats["requests"], stats["pending"])
        if state == previous and stats["pending"] == 0:
            return stats
        previous = state
        time.sleep(0.3)
    raise AssertionError(f"the grid did not settle: {grid_stats(driver)}")


@pytest.mark.parametrize("dpr_fixture", ["driver", "driver_2x"])
def test_requests_are_the_cell_size_at_screen_density_and_never_larger(server, dpr_fixture, request):
    driver = request.getfixturevalue(dpr_fixture)
    driver.get(server.url + "/grid?dir=photos")
    wait_for(driver, lambda d: grid_stats(d)["loaded"] >= 10)
    stats = settle(driver)
    dpr = driver.execute_script("return devicePixelRatio")
    side = round(stats["cellSize"] * dpr)
    requests = image_requests(network_log(driver))
    assert requests, "no image was requested"
    for index, width, height, _ in requests:
        assert (width, height) == (side, side), f"photo {index} asked for {width}×{height}, the cell is {side}×{side} px"
    # What arrived fits the cell: 4:3 photos are side × 3/4 side.
    natural = driver.execute_script(
        "return [...document.querySelectorAll('#grid img')].filter(i => i.naturalWidth).map(i => [i.naturalWidth, i.naturalHeight])")
    assert len(natural) == stats["loaded"]
    for width, height in natural:
        assert width <= side and height <= side
        assert (width, height) == (side, round(side * PHOTO_SIZE[1] / PHOTO_SIZE[0]))

    # A larger cell asks again, at the new size and no larger.
    driver.execute_script("""
        const slider = document.getElementById('cell-size');
        slider.value = 240; slider.dispatchEvent(new Event('input'));""")
    bigger = round(240 * dpr)
    wait_for(driver, lambda d: any(w == bigger for _, w, _, _ in image_requests(network_log(d))) or
             d.execute_script(f"return [...document.querySelectorAll('#grid img')].some(i => i.naturalWidth === {bigger})"))
    settle(driver)
    for index, width, height, _ in image_requests(network_log(driver)):
        assert (width, height) == (bigger, bigger), f"photo {index}: {width}×{height}"
    assert console_errors(driver) == []


def test_only_cells_near_the_viewport_load_and_scrolling_loads_more(server, driver):
    driver.get(server.url + "/grid?dir=photos")
    wait_for(driver, lambda d: grid_stats(d)["loaded"] > 0)
    settle(driver)
    near, inside = near_viewport(driver)
    requested = {index for index, *_ in image_requests(network_log(driver))}
    assert inside <= requested, f"visible cells not requested: {sorted(inside - requested)}"
    assert requested <= near, f"cells more than a screen away were requested: {sorted(requested - near)}"
    assert len(requested) < PHOTO_COUNT, "everything was requested before scrolling"
    alts = driver.execute_script("return [...document.querySelectorAll('#grid img')].map(i => i.alt)")
    assert alts == [f"photo-{i:03d}.jpg" for i in range(PHOTO_COUNT)]

    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    wait_for(driver, lambda d: d.execute_script(
        "return document.querySelector('#grid figure:last-child img').naturalWidth > 0"))
    settle(driver)
    later = {index for index, *_ in image_requests(network_log(driver))}
    assert PHOTO_COUNT - 1 in later and not later <= requested
    near_bottom, _ = near_viewport(driver)
    assert later <= near_bottom | requested


def test_requests_for_cells_scrolled_away_are_cancelled(server, driver):
    # Slow responses (a second of latency each) keep loads pending while the page scrolls away.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1})
    driver.get(server.url + "/grid?dir=photos")
    wait_for(driver, lambda d: grid_stats(d)["requests"] > 0)
    first = set(driver.execute_script(
        "return [...document.querySelectorAll('#grid figure')].slice(0, 6).map((_, i) => i)"))
    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    wait_for(driver, lambda d: grid_stats(d)["cancelled"] > 0)
    cancelled = {index for index, _, _, entry in image_requests(network_log(driver)) if entry["canceled"]}
    assert cancelled & first, "the top cells' requests were not cancelled"
    # Coming back loads them again.
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    driver.execute_script("window.scrollTo(0, 0)")
    wait_for(driver, lambda d: d.execute_script("return document.querySelector('#grid img').naturalWidth > 0"))


def test_the_panel_adds_up_the_responses(server, driver):
    driver.get(server.url + "/grid?dir=photos")
    wait_for(driver, lambda d: grid_stats(d)["loaded"] >= 10)
    stats = settle(driver)
    requests = image_requests(network_log(driver))
    completed = [entry for *_, entry in requests if entry["status"] == 200 and not entry["failed"]]
    assert len(completed) == stats["loaded"]
    body_bytes = 0
    for entry in completed:
        with urllib.request.urlopen(entry["url"], timeout=30) as response:
            body_bytes += len(response.read())
    assert stats["transferredBytes"] == body_bytes
    natural = driver.execute_script(
        "return [...document.querySelectorAll('#grid img')].filter(i => i.naturalWidth).map(i => i.naturalWidth * i.naturalHeight * 4)")
    assert stats["decodedBytes"] == sum(natural)
    assert stats["fullBytes"] == stats["loaded"] * PHOTO_SIZE[0] * PHOTO_SIZE[1] * 4
    panel = {key: driver.find_element("id", key).text for key in ["loaded", "transferred", "decoded", "full"]}
    assert panel["loaded"] == f"{stats['loaded']} of {PHOTO_COUNT}"
    expected = driver.execute_script("""
        return import('/web/format.js').then(f => [arguments[0], arguments[1], arguments[2]].map(f.formatBytes));""",
                                     stats["transferredBytes"], stats["decodedBytes"], stats["fullBytes"])
    assert [panel["transferred"], panel["decoded"], panel["full"]] == expected
    assert console_errors(driver) == []
