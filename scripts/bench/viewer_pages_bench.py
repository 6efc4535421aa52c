#!/usr/bin/env python3
"""The viewer over many images, in headless Chromium against `tessera serve` on 127.0.0.1:

  First page   /view/{doc}.pdf of a 2,000-page PDF never seen by the server, until page 1 is sharp
               (every tile of its level drawn, nothing in flight); beside the same page alone (a
               one-page PDF of it) and a JPEG of its size, each also unseen: the time a single
               image takes in the same viewer and server.
  Next page    from a sharp page 1 of the document, Page Down until the next spread (pages 2 and
               3: the document is `paged`) is sharp; then pages never shown before (a page the
               server has not rendered, on a warm server), and a spread shown before (revisited).
  Gallery      a 10,000-image folder's manifest opened, the gallery shown and scrolled to the
               middle: how many of the 10,000 thumbnails the browser asked for.

The viewer's own read-only hook (window.tesseraViewer) says when the view is fully drawn ("sharp":
every tile of the level the view needs drawn; what it prefetches for the neighbouring pages may
still be loading); it is polled from the page's clock (performance.now(), from navigation start), so the times are the
browser's. Every page is checked drawn (complete, nothing in flight) and every thumbnail request
answered 200. Medians over --runs; each run opens files the server has not seen (copies with new
names) on one server process. Run with the browser tests' venv (selenium):

    .build/browser-venv/bin/python scripts/bench/viewer_pages_bench.py TESSERA [--runs 3] [--json PATH]
"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "Tests" / "Browser"))
from measure import free_port, say, work_arguments  # noqa: E402
from browser_support import make_driver  # noqa: E402
from presentation_bench import make_folder, make_pdf  # noqa: E402

PAGES = 2000
FILES = 10_000
#: Pages shown, beyond the first spread, as "never shown before" (each a fresh spread).
FRESH_SPREADS = 3

STATE = """const v = window.tesseraViewer; return v ? [v.ready && v.complete && !v.error,
    v.shown, v.error, performance.now(), v.thumbnails, v.canvasCount] : [false, [], null, performance.now(), null, 0];"""


def start_server(tessera, root, work):
    port = free_port()
    cache = work / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    log = open(work / "serve.log", "w")
    process = subprocess.Popen([tessera, "serve", str(root), "--host", "127.0.0.1", "--port", str(port),
                                "--cache-dir", str(cache)], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/health", timeout=2).read()
            return process, url
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("tessera serve did not start: " + (work / "serve.log").read_text()[-2000:])
            time.sleep(0.1)


def wait_drawn(driver, shown=None, limit=120):
    """The page clock (ms) when the view is fully drawn (showing `shown`, if given)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        done, current, error, now, _, _ = driver.execute_script(STATE)
        if error:
            raise SystemExit(f"the viewer says: {error}")
        if done and (shown is None or current == shown):
            return now
        time.sleep(0.01)
    raise SystemExit(f"the view never finished drawing {shown}")


def first_look(driver, url, shown):
    driver.get("about:blank")
    driver.get(url)
    return wait_drawn(driver, shown) / 1000


def wait_pages(driver, count, limit=120):
    """The page clock (ms) when the viewer knows the document's `count` pages (its strip is there)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        state = driver.execute_script(STATE)
        if state[5] == count:
            return state[3]
        time.sleep(0.01)
    raise SystemExit(f"the viewer never listed {count} pages")


def page_down(driver, shown):
    start = driver.execute_script("""document.getElementById('view').focus();
        document.getElementById('view').dispatchEvent(new KeyboardEvent('keydown', {key: 'PageDown', bubbles: true}));
        return performance.now();""")
    return (wait_drawn(driver, shown) - start) / 1000


def thumbnail_requests(driver):
    """(answered 200, other) among the thumbnail requests since the last call."""
    ok = other = 0
    responses = {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.responseReceived":
            response = message["params"]["response"]
            if "/full/" in response["url"]:
                responses[message["params"]["requestId"]] = response["status"]
    for status in responses.values():
        ok, other = (ok + 1, other) if status == 200 else (ok, other + 1)
    return ok, other


def main():
    args, root = work_arguments(__doc__, "/dev/shm/tessera-viewer-pages")
    work, root = Path(args.work), Path(root)
    source = work / "pages-2000.pdf"
    if not source.exists():
        make_pdf(source, PAGES)
    single = work / "page-1.pdf"
    if not single.exists():
        make_pdf(single, 1)
    from PIL import Image
    make_folder(root / "folder", FILES)
    # Each run's files are new to the server: copies under new names (a new inode and key).
    for run in range(args.runs):
        shutil.copy(source, root / f"doc-{run}.pdf")
        shutil.copy(single, root / f"single-{run}.pdf")
        Image.new("RGB", (612, 792), (run * 40 % 256, 100, 200)).save(root / f"single-{run}.jpg", quality=90)

    process, url = start_server(args.tessera, root, work)
    driver = make_driver()
    results = {}
    try:
        # Warm the server process and the browser (their first request of all), not the files.
        first_look(driver, f"{url}/view/folder%2Fphoto-00000.jpg", [1])
        firsts = {"document page 1": [], "same page alone (PDF)": [], "JPEG of its size": []}
        nexts, fresh, revisit, listed = [], [], [], []
        for run in range(args.runs):
            firsts["same page alone (PDF)"].append(first_look(driver, f"{url}/view/single-{run}.pdf", [1]))
            firsts["JPEG of its size"].append(first_look(driver, f"{url}/view/single-{run}.jpg", [1]))
            firsts["document page 1"].append(first_look(driver, f"{url}/view/doc-{run}.pdf", [1]))
            # The page list comes once page 1 is sharp; paging waits for it as a reader would.
            listed.append(wait_pages(driver, PAGES) / 1000)
            nexts.append(page_down(driver, [2, 3]))
            for spread in range(FRESH_SPREADS):
                first = 4 + 2 * spread
                fresh.append(page_down(driver, [first, first + 1]))
            # Back to the first spread shown after page 1, then forward again: pages seen before.
            driver.execute_script("location.hash = '#canvas=2'")
            wait_drawn(driver, [2, 3])
            revisit.append(page_down(driver, [4, 5]))
        single_time = statistics.median(firsts["same page alone (PDF)"])
        for name, times in firsts.items():
            results[name] = statistics.median(times)
        results["pages listed"] = statistics.median(listed)
        results["next spread (pages 2–3)"] = statistics.median(nexts)
        results["a spread never shown"] = statistics.median(fresh)
        results["a spread shown before"] = statistics.median(revisit)
        say(f"\nViewer over a 2,000-page PDF (headless Chromium 1280×800, medians of {args.runs}; files unseen by the server)")
        for name in firsts:
            ratio = results[name] / single_time
            say(f"  {name:<28} sharp after {results[name]:.3f} s ({ratio:.2f}× the page alone)")
        say(f"  the {PAGES:,} pages listed (strip) after {results['pages listed']:.3f} s")
        for name in ["next spread (pages 2–3)", "a spread never shown", "a spread shown before"]:
            say(f"  Page Down → {name:<26} sharp after {results[name]:.3f} s")

        # The gallery of a 10,000-image folder.
        driver.get_log("performance")
        start = time.perf_counter()
        driver.get("about:blank")
        driver.get(f"{url}/view?manifest=presentation/3/folder/manifest")
        wait_drawn(driver, [1])
        opened = time.perf_counter() - start
        driver.execute_script("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'g', bubbles: true}))")
        time.sleep(2)
        driver.execute_script("const g = document.getElementById('gallery'); g.scrollTop = g.scrollHeight / 2;")
        time.sleep(2)
        thumbnails = driver.execute_script(STATE)[4]
        ok, failed = thumbnail_requests(driver)
        asked = len(set(thumbnails["strip"]) | set(thumbnails["gallery"]))
        if failed:
            raise SystemExit(f"{failed} thumbnail requests failed")
        results["gallery"] = {"opened_s": opened, "thumbnails_asked": asked, "answered_200": ok, "files": FILES}
        say(f"  Gallery of {FILES:,} images: manifest opened and page 1 drawn in {opened:.2f} s; the strip and the gallery "
            f"(opened, scrolled to the middle) asked for {asked} thumbnails ({ok} answered 200) of {FILES:,}")
    finally:
        driver.quit()
        os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
