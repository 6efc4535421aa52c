#!/usr/bin/env python3
"""`make demo`'s look at the pages: serves generated media with `tessera serve` on 127.0.0.1 and saves
screenshots of the viewer, the grid and the trimmer taken in headless Chromium.

Usage: page-screenshots.py TESSERA_BINARY OUTPUT_DIR
"""
from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

repo = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(repo / "Tests" / "Browser"))
from browser_support import free_port, make_big_image, make_driver, make_photos  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402


def wait_until_quiet(driver, quiet_seconds: float = 1.5, limit: float = 60) -> None:
    """Until the page has made no new request for `quiet_seconds` (or `limit` passed)."""
    count, since, start = -1, time.monotonic(), time.monotonic()
    while time.monotonic() - start < limit:
        now = driver.execute_script("return performance.getEntriesByType('resource').length")
        if now != count:
            count, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_seconds:
            return
        time.sleep(0.2)


def main() -> None:
    binary, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    root = out / "pages-root"
    if not (root / "big.jpg").exists():
        root.mkdir(parents=True, exist_ok=True)
        make_big_image(root / "big.jpg")
        make_photos(root / "photos")
    shutil.copy(repo / "Tests" / "Fixtures" / "video" / "gop1.mp4", root / "clip.mp4")
    port = free_port()
    log = open(out / "pages-serve.log", "w")
    server = subprocess.Popen([str(binary), "serve", str(root), "--host", "127.0.0.1", "--port", str(port),
                               "--cache-dir", str(out / "pages-cache")], stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        driver = make_driver(1280, 800)
        try:
            shots = [
                ("page-index.png", "/"),
                ("page-viewer.png", "/view/big.jpg"),
                ("page-viewer-zoomed.png", "/view/big.jpg#x=3072&y=2560&zoom=0.8&rotation=0"),
                ("page-grid.png", "/grid?dir=photos"),
                ("page-trimmer.png", "/trim/clip.mp4"),
            ]
            for name, path in shots:
                driver.get("about:blank")
                driver.get(base + path)
                wait_until_quiet(driver)
                if path.startswith("/trim/"):
                    # A selection from 1 s to 3 s, set as a keyboard user would, to show the dimming.
                    driver.find_element(By.CSS_SELECTOR, '[role="slider"][aria-label="Start"]').send_keys(Keys.PAGE_UP)
                    driver.find_element(By.CSS_SELECTOR, '[role="slider"][aria-label="End"]').send_keys(Keys.PAGE_DOWN)
                    wait_until_quiet(driver, quiet_seconds=0.5)
                driver.save_screenshot(str(out / name))
                print(f"{out / name}: {base}{path}")
        finally:
            driver.quit()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)
        log.close()


if __name__ == "__main__":
    main()
