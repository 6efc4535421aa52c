#!/usr/bin/env python3
"""`make demo`'s look at the pages: serves generated media with `tessera serve` on 127.0.0.1 and saves
screenshots of the viewer (one image; a book of scanned pages, two side by side; two pages
compared; the gallery; the adjustments), the grid and the trimmer, taken in headless Chromium.

Usage: page-screenshots.py TESSERA_BINARY OUTPUT_DIR

The ones the documentation shows are also written to docs/screenshots as JPEG.
"""
from __future__ import annotations

import json
import random
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
from PIL import Image, ImageDraw, ImageFont  # noqa: E402
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


#: The screenshots docs/ shows (README.md, docs/pages.md), refreshed by every `make demo`.
DOCUMENTED = {"page-viewer.png", "page-book.png", "page-compare.png", "page-grid.png", "page-trimmer.png"}


def make_book(directory: Path, pages: int = 12) -> None:
    """Pages that look like a scanned book: paper, a running head, lines of word-shaped strokes,
    the page number; and a sidecar that makes the folder a paged book with a title."""
    directory.mkdir(parents=True, exist_ok=True)
    font = ImageFont.load_default(size=44)
    small = ImageFont.load_default(size=30)
    for number in range(1, pages + 1):
        rng = random.Random(number)
        page = Image.new("RGB", (1700, 2200), (238, 230, 212))
        draw = ImageDraw.Draw(page)
        draw.text((850, 120), "ON THE MAKING OF MOSAICS", fill=(90, 70, 50), font=small, anchor="mm")
        y = 260
        while y < 1980:
            x = 180
            indent = 60 if rng.random() < 0.12 else 0
            x += indent
            while x < 1460:
                word = rng.randint(40, 190)
                draw.rounded_rectangle([x, y, min(x + word, 1520), y + 26], radius=8, fill=(60, 50, 44))
                x += word + 22
            y += 56
        draw.text((850, 2080), str(number), fill=(60, 50, 44), font=font, anchor="mm")
        page.save(directory / f"page-{number:03d}.jpg", quality=88)
    (directory / "_folder.iiif.json").write_text(json.dumps(
        {"label": "On the Making of Mosaics", "behavior": ["paged"],
         "summary": "Twelve generated pages, served as a book: two side by side, the first alone."}))


def main() -> None:
    binary, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    root = out / "pages-root"
    if not (root / "big.jpg").exists():
        root.mkdir(parents=True, exist_ok=True)
        make_big_image(root / "big.jpg")
        make_photos(root / "photos")
    if not (root / "book").exists():
        make_book(root / "book")
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
                ("page-book.png", "/view?manifest=presentation/3/book/manifest#canvas=4"),
                ("page-compare.png", "/view?manifest=presentation/3/book/manifest#canvas=2&pages=1&compare=3"),
                ("page-gallery.png", "/view?manifest=presentation/3/photos/manifest"),
                ("page-adjust.png", "/view?manifest=presentation/3/book/manifest#canvas=6&pages=1"),
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
                if name == "page-gallery.png":
                    driver.execute_script("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'g', bubbles: true}))")
                    wait_until_quiet(driver)
                if name == "page-adjust.png":
                    # Faint writing made legible: the panel open, contrast up and the page inverted.
                    driver.find_element(By.ID, "adjust").click()
                    driver.execute_script("""const contrast = document.getElementById('contrast');
                        contrast.value = '160'; contrast.dispatchEvent(new Event('input', {bubbles: true}));""")
                    driver.find_element(By.ID, "invert").click()
                    wait_until_quiet(driver, quiet_seconds=0.5)
                driver.save_screenshot(str(out / name))
                print(f"{out / name}: {base}{path}")
                if name in DOCUMENTED:
                    Image.open(out / name).convert("RGB").save(repo / "docs" / "screenshots" / name.replace(".png", ".jpg"),
                                                               quality=82, optimize=True)
        finally:
            driver.quit()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)
        log.close()


if __name__ == "__main__":
    main()
