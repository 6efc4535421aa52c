"""Browser tests: `tessera serve` on 127.0.0.1 and headless Chromium driven by Selenium.

The server is the debug build (`TESSERA_BIN` overrides it), started once per session on an
explicit loopback port over media generated here, and stopped by its PID. Chromium and
chromedriver come from Debian (scripts/bootstrap.sh); nothing but 127.0.0.1 is ever contacted.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from selenium.webdriver.support.wait import WebDriverWait

from browser_support import (  # noqa: F401 (the tests import these from here)
    BIG_SIZE, PHOTO_COUNT, PHOTO_SIZE, free_port, make_big_image, make_driver, make_photos)

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "Tests" / "Fixtures"
RULES = FIXTURES / "rules"


@dataclass
class Server:
    url: str
    root: Path
    process: subprocess.Popen

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(self.url + path, timeout=60) as response:
            return response.read()

    def json(self, path: str):
        return json.loads(self.get(path))


@pytest.fixture(scope="session")
def media_root(tmp_path_factory) -> Path:
    """ROOT for the server: big.jpg, photos/ (the grid's hundred), and clip.mp4 (4 s, 30 fps,
    keyframe every second, with audio: Tests/Fixtures/video/gop1.mp4)."""
    root = tmp_path_factory.mktemp("root")
    make_big_image(root / "big.jpg")
    make_photos(root / "photos")
    shutil.copy(FIXTURES / "video" / "gop1.mp4", root / "clip.mp4")
    shutil.copy(FIXTURES / "video" / "vp9.webm", root / "clip.webm")
    return root


def run_server(media_root, tmp_path_factory, extra=(), base_path=""):
    """`tessera serve` over `media_root` on a free loopback port until the generator is closed."""
    binary = Path(os.environ.get("TESSERA_BIN", REPO / ".build" / "debug" / "tessera"))
    port = free_port()
    cache = tmp_path_factory.mktemp("cache")
    log = open(tmp_path_factory.mktemp("log") / "serve.log", "w+")
    process = subprocess.Popen(
        [str(binary), "serve", str(media_root), "--host", "127.0.0.1", "--port", str(port), "--cache-dir", str(cache),
         *extra],
        stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}{base_path}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/health", timeout=2).read()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError("tessera serve did not start: " + log.read()[-2000:])
            time.sleep(0.1)
    yield Server(url=url, root=media_root, process=process)
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    log.close()


@pytest.fixture(scope="session")
def server(media_root, tmp_path_factory):
    yield from run_server(media_root, tmp_path_factory)


@pytest.fixture(scope="session")
def server_under_base_path(media_root, tmp_path_factory):
    """The same media with every route under /tessera (`--base-path`): `url` ends with it."""
    yield from run_server(media_root, tmp_path_factory, ["--base-path", "/tessera"], base_path="/tessera")


@pytest.fixture
def driver():
    """Headless Chromium, 1280×800 CSS px at devicePixelRatio 1, with console and network logs."""
    browser = make_driver()
    yield browser
    browser.quit()


@pytest.fixture
def driver_2x():
    """The same at devicePixelRatio 2."""
    browser = make_driver(device_scale_factor=2)
    yield browser
    browser.quit()


def wait_for_hook(driver, script: str, condition, message: str, timeout: float):
    """Polls a page's read-only hook (`script` returns its state, or null) until `condition(state)`
    holds; returns that state."""
    def check(d):
        current = d.execute_script(script)
        return current if current and condition(current) else False
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(check, message)


def console_errors(driver) -> list[str]:
    """Console errors and uncaught exceptions since the last call (the log is drained)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def network_log(driver) -> list[dict]:
    """Requests since the last call (the log is drained): url, method, status (None if it never
    answered), failed (bool), canceled (bool), bytes (encoded body bytes received)."""
    requests: dict[str, dict] = {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        method, params = message["method"], message.get("params", {})
        request_id = params.get("requestId")
        if method == "Network.requestWillBeSent":
            requests[request_id] = {"url": params["request"]["url"], "method": params["request"]["method"],
                                    "status": None, "failed": False, "canceled": False, "bytes": 0}
        elif request_id in requests:
            record = requests[request_id]
            if method == "Network.responseReceived":
                record["status"] = params["response"]["status"]
            elif method == "Network.loadingFinished":
                record["bytes"] = params.get("encodedDataLength", 0)
            elif method == "Network.loadingFailed":
                record["failed"] = True
                record["canceled"] = bool(params.get("canceled"))
    return list(requests.values())


def load_rules(name: str):
    """A rule file shared with the Swift tests (Tests/Fixtures/rules/NAME.json)."""
    return json.loads((RULES / name).read_text())
