"""The pages under a base path (`tessera serve --base-path /tessera`), as behind a proxy or mounted
in another app: every page finds its files and the server's routes through its `<base>`, works as
at the root, and asks for nothing outside the path.
"""
from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from conftest import console_errors, network_log

WAIT = 90


def outside(server, entries) -> list[str]:
    """URLs of requests that left the base path (data: and blob: URLs are not requests to the server)."""
    return [e["url"] for e in entries
            if not e["url"].startswith(("data:", "blob:")) and not e["url"].startswith(server.url + "/")]


def failed(entries) -> list[str]:
    return [f'{e["url"]} {e["status"]}' for e in entries if e["failed"] and not e["canceled"]
            or (e["status"] or 200) >= 400]


def test_listing_leads_to_viewer_grid_and_trimmer_under_the_base_path(server_under_base_path, driver):
    server = server_under_base_path
    driver.get(server.url + "/")
    links = WebDriverWait(driver, WAIT).until(
        lambda d: {a.text: a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "#entries a")} or False)
    assert links["big.jpg"] == server.url + "/view/big.jpg"
    assert links["clip.mp4"] == server.url + "/trim/clip.mp4"
    assert links["photos"] == server.url + "/?dir=photos"
    assert driver.find_element(By.ID, "grid-link").get_attribute("href") == server.url + "/grid"

    # The viewer, reached by its link: it draws the image, and its fragment stays on its own path.
    driver.get(links["big.jpg"])
    state = WebDriverWait(driver, WAIT, poll_frequency=0.05).until(
        lambda d: (s := d.execute_script("const v = window.tesseraViewer; return v && {ready: v.ready, "
                                         "complete: v.complete, error: v.error, inFlight: v.requestsInFlight};"))
        and s["ready"] and s["complete"] and s["inFlight"] == 0 and s)
    assert state["error"] is None
    driver.find_element(By.ID, "zoom-in").click()
    WebDriverWait(driver, WAIT).until(lambda d: "#" in d.current_url)
    assert driver.current_url.startswith(server.url + "/view/big.jpg#"), driver.current_url

    # The grid of a folder.
    driver.get(server.url + "/grid?dir=photos")
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return window.tesseraGrid && window.tesseraGrid.stats.loaded > 0"))

    # The trimmer: the video's info, its frame strip.
    driver.get(links["clip.mp4"])
    trimmer = WebDriverWait(driver, WAIT).until(
        lambda d: (t := d.execute_script("const t = window.tesseraTrimmer; return t && {ready: t.ready, errors: t.errors};"))
        and t["ready"] and t)
    assert trimmer["errors"] == []

    entries = network_log(driver)
    assert outside(server, entries) == []
    assert failed(entries) == []
    assert console_errors(driver) == []
