"""Browser tests of the IIIF Authorization Flow 2.0 against the viewer: `tessera serve --access`
with a degraded image (a 400-pixel substitute for the unauthorised) and a restricted one (nothing
without a login). The viewer probes, shows the substitute with the access service's heading,
opens the login window on the user's click, gets a token from the token service through an iframe
(posted to its own origin only: a page on another origin gets none), probes again and reloads the
tiles whole; logout returns it to the substitute.
"""
from __future__ import annotations

import http.server
import json
import subprocess
import threading
from pathlib import Path

import pytest
from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from conftest import REPO, console_errors, free_port, make_big_image, network_log, run_server, wait_for_hook

WAIT = 90
PASSWORD = "a long enough password"
STATE = """
const v = window.tesseraViewer;
return v ? {ready: v.ready, complete: v.complete, image: v.image, error: v.error, access: v.access,
            level: v.level, inFlight: v.requestsInFlight} : null;
"""


@pytest.fixture(scope="module")
def access_server(tmp_path_factory):
    """previews/big.jpg degraded to 400 px, staff/photo.jpg restricted to the group staff; alice is
    in staff. The policy, users and keys files sit beside the root."""
    base = tmp_path_factory.mktemp("access")
    root = base / "root"
    (root / "previews").mkdir(parents=True)
    (root / "staff").mkdir()
    make_big_image(root / "previews" / "big.jpg")
    Image.open(root / "previews" / "big.jpg").resize((800, 600)).save(root / "staff" / "photo.jpg", quality=85)
    binary = Path(REPO / ".build" / "debug" / "tessera")
    subprocess.run([str(binary), "user", "add", str(base / "users.txt"), "alice", "--group", "staff"],
                   input=PASSWORD + "\n", text=True, check=True)
    (base / "signing.keys").write_text("k1 " + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODk=" + "\n")
    (base / "policy.json").write_text(json.dumps({
        "default": "public", "users": "users.txt", "signingKeys": "signing.keys",
        "rules": [{"match": "previews/**", "access": "degraded", "maxSize": 400},
                  {"match": "staff/**", "access": "restricted", "groups": ["staff"]}],
        "texts": {"heading": "Preview only", "note": "Staff see the whole image."}}))
    yield from run_server(root, tmp_path_factory, ["--access", str(base / "policy.json")])


def state(driver):
    return driver.execute_script(STATE)


def wait_access(driver, condition, message):
    return wait_for_hook(driver, STATE, lambda s: s.get("access") and condition(s), message, WAIT)


def log_in_through_window(driver, main_window):
    """Clicks the access button, logs in in the window it opens, and returns to the viewer."""
    driver.find_element(By.ID, "access-action").click()
    WebDriverWait(driver, WAIT).until(lambda d: len(d.window_handles) == 2, "the login window opened")
    driver.switch_to.window([handle for handle in driver.window_handles if handle != main_window][0])
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.NAME, "password"))
    driver.find_element(By.NAME, "username").send_keys("alice")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    # The page closes its own window once the cookie is set.
    WebDriverWait(driver, WAIT).until(lambda d: len(d.window_handles) == 1, "the login window closed itself")
    driver.switch_to.window(main_window)


def test_substitute_then_login_then_whole_then_logout(driver, access_server):
    driver.get(access_server.url + "/view/previews%2Fbig.jpg")
    main_window = driver.current_window_handle
    before = wait_access(driver, lambda s: s["access"]["status"] == 401 and s["complete"], "the substitute is shown, with the offer")
    assert before["access"]["heading"] == "Preview only"
    assert before["access"]["action"] == "Sign in"
    assert driver.find_element(By.ID, "access").is_displayed()
    # The substitute offers no level finer than 400 px: its pyramid has fewer levels.
    substitute_levels = before["image"]["levelCount"]
    network_log(driver)

    log_in_through_window(driver, main_window)
    after = wait_access(driver, lambda s: s["access"]["status"] == 200 and s["complete"], "probed 200 and drawn again")
    assert after["access"]["action"] == "Sign out"
    assert after["image"]["levelCount"] > substitute_levels
    # Zoomed to 1:1, the finest tiles load: the cookie authorises them.
    driver.execute_script("location.hash = '#zoom=1'")
    wait_for_hook(driver, STATE, lambda s: s["complete"] and s["level"] == 0, "the finest level drawn", WAIT)
    requests = [r for r in network_log(driver) if "/iiif/3/" in r["url"]]
    # (Tiles of the ring around the view may still be on their way: no status yet.)
    bad = [r for r in requests if r["status"] not in (200, 304, None) or (r["failed"] and not r["canceled"])]
    assert requests and not bad, bad
    assert any("/full/" not in r["url"] and r["status"] == 200 for r in requests)

    driver.find_element(By.ID, "access-action").click()
    # The logout window clears the cookie and closes itself.
    WebDriverWait(driver, WAIT).until(lambda d: len(d.window_handles) == 1, "the logout window closed itself")
    driver.switch_to.window(main_window)
    wait_access(driver, lambda s: s["access"]["status"] == 401 and s["complete"], "back to the substitute after logout")
    assert state(driver)["image"]["levelCount"] == substitute_levels
    assert console_errors(driver) == []


def test_a_restricted_image_offers_login_and_then_opens(driver, access_server):
    driver.get(access_server.url + "/view/staff%2Fphoto.jpg")
    main_window = driver.current_window_handle
    refused = wait_access(driver, lambda s: s["access"]["status"] == 401, "the offer, with no image")
    assert refused["error"] and "401" in refused["error"]
    assert refused["image"] is None
    log_in_through_window(driver, main_window)
    opened = wait_for_hook(driver, STATE, lambda s: s["ready"] and s["complete"] and s["access"] and s["access"]["status"] == 200,
                           "the image opened after the login", WAIT)
    assert opened["image"]["width"] == 800
    # The browser logs the first 401 as a failed resource; nothing else fails.
    assert all("401" in entry for entry in console_errors(driver))


class OtherOrigin(http.server.SimpleHTTPRequestHandler):
    """A page on another origin that frames the token service twice, once naming its own origin
    and once pretending to be the viewer's, plus a frame of its own that posts a message (so the
    listener is shown to work), and records every message and every frame's load."""
    target = ""

    def do_GET(self):
        if self.path == "/echo":
            body = b'<!doctype html><script>parent.postMessage({type: "echo"}, "*")</script>'
        else:
            body = f"""<!doctype html><meta charset="utf-8"><body><script>
            window.received = [];
            window.loaded = 0;
            addEventListener("message", (event) => window.received.push(event.data));
            const sources = [location.origin + "/echo"];
            for (const origin of [location.origin, "{self.target}"]) {{
              sources.push("{self.target}/auth/token?messageId=m&origin=" + encodeURIComponent(origin));
            }}
            for (const source of sources) {{
              const frame = document.createElement("iframe");
              frame.addEventListener("load", () => window.loaded++);
              frame.src = source;
              document.body.append(frame);
            }}
            </script>""".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_page_on_another_origin_gets_no_token(driver, access_server):
    # Logged in first: the browser has the access cookie for the server's host, and its own
    # origin gets a token.
    driver.get(access_server.url + "/auth/login")
    driver.find_element(By.NAME, "username").send_keys("alice")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    # The click does not wait for the form's navigation; a get issued before it lands is
    # overtaken by it (seen in CI), so wait for the signed-in page first.
    WebDriverWait(driver, WAIT).until(lambda d: "Signed in as alice" in d.page_source, "the login did not answer")
    driver.get(access_server.url + "/auth/token?messageId=own&origin=" + access_server.url)
    assert "AuthAccessToken2" in driver.page_source
    port = free_port()
    OtherOrigin.target = access_server.url
    other = http.server.ThreadingHTTPServer(("127.0.0.1", port), OtherOrigin)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        # localhost, not 127.0.0.1: another origin (and another site) than the server's.
        driver.get(f"http://localhost:{port}/")
        WebDriverWait(driver, WAIT).until(
            lambda d: d.execute_script("return window.loaded === 3 && window.received.length >= 1"),
            "every frame loaded and the page's own frame's message arrived")
        received = driver.execute_script("return window.received")
        # The token frames are refused framing there (frame-ancestors) and post only to the origin
        # they name, which the token service checks: no token reaches this page.
        assert {"type": "echo"} in received
        assert all("accessToken" not in message for message in received), received
    finally:
        other.shutdown()


def test_a_fragment_change_with_no_image_shown_throws_nothing(driver, access_server):
    # A restricted image, anonymously: the viewer has no image to move, and a link to a view of it
    # (the fragment changed by hand) must leave it as it is.
    driver.get(access_server.url + "/view/staff%2Fphoto.jpg")
    wait_access(driver, lambda s: s["access"]["status"] == 401, "the offer, with no image")
    console_errors(driver)
    for fragment in ("#x=2000&y=1500&zoom=1", "#rotation=90", "#canvas=2"):
        driver.execute_script(f"location.hash = '{fragment}'")
        # One frame and one turn of the event loop: the hashchange listener has run.
        driver.execute_async_script("const done = arguments[0]; requestAnimationFrame(() => setTimeout(done, 0));")
    assert console_errors(driver) == []
    assert state(driver)["image"] is None
