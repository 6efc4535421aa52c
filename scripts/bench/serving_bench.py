#!/usr/bin/env python3
"""`tessera serve` (IIIF Image API 3) side by side with its peers, on 127.0.0.1 only:
- nginx serving the static IIIF level-0 tile tree of the same image as files;
- iipsrv (Debian `iipimage-server`), two FastCGI processes started by spawn-fcgi behind nginx,
  reading a JPEG-compressed tiled pyramidal TIFF of the same image.

Every server is started here on a free port and stopped by PID at the end, also on error. Load
is wrk (-t2 -c64 by default, bounded in time) with a Lua script that draws a random path per
request from a file, over these URL sets: every tile its own info.json lists
(aligned), 2,000 seeded random regions of 256–4096 px scaled to !512,512 (unaligned; the same
regions for Tessera and iipsrv), info.json alone, and Tessera's /health (no work: the floor its
HTTP stack sets for every route). Each server is warmed with one pass over
its aligned tiles first. Tessera is also timed cold: from start to its first tile of an image it
has never seen, beside `vips dzsave` and `tessera tile` building the whole pyramid. Peak RSS is
VmHWM summed over every process of a server (nginx master and workers; both iipsrv processes and
their nginx; tessera), sampled from /proc.

Statuses: wrk's Lua `response` hook copies every body into Lua, which costs about a third of
wrk's rate at nginx's speed on 2 cores, so by default the timed run has no hook (wrk itself still
counts 4xx/5xx and socket errors) and a short audit run right after it, same URLs and load, counts
every status with the hook (`--status-hook timed` counts in the timed run instead). A run that
answered anything but 2xx, or had socket errors, is reported as failed, never as a fast run.
Before each run the harness waits until the server is idle (its processes' CPU time stops
growing), so requests wrk abandoned at the end of one run are not charged to the next. If
`tessera serve` does not start, the peers are still measured.

    serving_bench.py TESSERA INPUTS [--duration 10] [--json PATH] [--serve TEMPLATE]
"""
import argparse
import grp
import http.client
import json
import math
import os
import pwd
import random
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from measure import free_port, jpeg_size, run_once, say

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "serving"
PHOTO = "photo-16000x12000.jpg"
PHOTO_SIZE = (16000, 12000)
# `tessera serve`'s IIIF tile size; nginx's static tree and the whole-pyramid builds use it too.
TILE = 256
IIPSRV = "/usr/lib/iipimage-server/iipsrv.fcgi"
DEFAULT_SERVE = ("{tessera} serve {root} --host 127.0.0.1 --port {port} --cache-dir {cache} "
                 "--memory-cache 20")
# nginx is in /usr/sbin, often not on an ordinary user's PATH.
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
TOOLS = {NGINX: "nginx", "wrk": "wrk", "spawn-fcgi": "spawn-fcgi", "vips": "libvips-tools",
         IIPSRV: "iipimage-server", "/usr/bin/time": "time"}


# ---------------------------------------------------------------- processes and their memory

def proc_start_time(pid):
    """The kernel's start time of pid (field 22 of /proc/PID/stat), to tell a PID from its reuse."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
        return int(text[text.rindex(")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def children_map():
    """{ppid: [pid, ...]} for every process visible in /proc."""
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(text[text.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def descendants(roots, kids=None):
    kids = children_map() if kids is None else kids
    seen, stack = [], list(roots)
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.append(pid)
        stack.extend(kids.get(pid, []))
    return seen


def memory_kib(pid):
    """(VmHWM, VmRSS) of pid in KiB, or None once it is gone."""
    try:
        fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                      if ":" in line)
        return int(fields["VmHWM"].split()[0]), int(fields["VmRSS"].split()[0])
    except (OSError, KeyError, ValueError):
        return None


class Sampler(threading.Thread):
    """Every 0.2 s, reads VmHWM and VmRSS of every process of every registered server (its
    root PIDs and all their descendants). peak() is the per-process high-water marks summed;
    peak_sum() the largest simultaneous sum of RSS seen."""

    def __init__(self):
        super().__init__(daemon=True)
        self.roots, self.hwm, self.rss_max, self.names = {}, {}, {}, {}
        self.lock, self.stopping = threading.Lock(), threading.Event()

    def register(self, server, pids):
        with self.lock:
            self.roots.setdefault(server, []).extend(pids)
        self.sample()

    def sample(self):
        kids = children_map()
        with self.lock:
            for server, roots in self.roots.items():
                total = 0
                for pid in descendants(roots, kids):
                    mem = memory_kib(pid)
                    if mem is None:
                        continue
                    key = (pid, proc_start_time(pid))
                    if key not in self.names:
                        try:
                            self.names[key] = Path(f"/proc/{pid}/comm").read_text().strip()
                        except OSError:
                            self.names[key] = "?"
                    peaks = self.hwm.setdefault(server, {})
                    peaks[key] = max(peaks.get(key, 0), mem[0])
                    total += mem[1]
                self.rss_max[server] = max(self.rss_max.get(server, 0), total)

    def run(self):
        while not self.stopping.wait(0.2):
            self.sample()

    def peak(self, server):
        with self.lock:
            return sum(self.hwm.get(server, {}).values()) * 1024

    def peak_sum(self, server):
        with self.lock:
            return self.rss_max.get(server, 0) * 1024

    def processes(self, server):
        """[{pid, name, peak_rss}] of every process of server seen."""
        with self.lock:
            return [{"pid": pid, "name": self.names.get((pid, started), "?"), "peak_rss": kib * 1024}
                    for (pid, started), kib in self.hwm.get(server, {}).items()]


class Server:
    """One server under test: its processes (stopped by PID), base URL and image prefix."""

    def __init__(self, name, label):
        self.name, self.label = name, label
        self.procs, self.port, self.prefix, self.info = [], None, None, None
        self.notes = []

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def spawn(self, argv, log, env=None):
        out = open(log, "ab")
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    env=env, start_new_session=True)
        finally:
            out.close()
        self.procs.append(proc)
        return proc

    def stop(self):
        """SIGTERM to each process this server started, SIGKILL after 5 s, then the same for any
        descendant still alive (the same PID and start time as seen before the stop)."""
        known = [(pid, proc_start_time(pid)) for pid in descendants([p.pid for p in self.procs])]
        for proc in reversed(self.procs):
            if proc.poll() is None:
                try:
                    proc.send_signal(signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in self.procs:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        own = {p.pid for p in self.procs}
        for pid, started in known:
            if pid not in own and started is not None and proc_start_time(pid) == started:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.procs = []


def stop_all(sampler, servers):
    """Takes a last memory sample, stops every server by PID, then the sampler."""
    sampler.sample()
    for server in servers:
        server.stop()
    sampler.stopping.set()
    sampler.join(2)


def cpu_ticks(pids):
    """utime + stime of pids and all their descendants, in clock ticks."""
    total = 0
    for pid in descendants(pids):
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
            fields = text[text.rindex(")") + 2:].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, ValueError, IndexError):
            pass
    return total


def wait_idle(server, limit=30.0, window=0.25):
    """Waits until the server's processes use under about 5% of a core over `window` seconds, at
    most `limit` seconds: when wrk stops, the requests it abandoned may still be running (or
    queued), and they must not be charged to the next run. Returns the seconds waited."""
    pids = [p.pid for p in server.procs]
    tick = os.sysconf("SC_CLK_TCK")
    start = time.monotonic()
    before = cpu_ticks(pids)
    while time.monotonic() - start < limit:
        time.sleep(window)
        after = cpu_ticks(pids)
        if (after - before) / tick <= 0.05 * window:
            break
        before = after
    return time.monotonic() - start


def wait_for_port(port, procs, limit):
    """True once 127.0.0.1:port accepts a connection; False if a process exits or time runs out."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in procs):
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.005)
    return False


def tail(path, lines=3):
    try:
        return " | ".join(Path(path).read_text(errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return ""


# ---------------------------------------------------------------- HTTP and IIIF URLs

def get(base, path, timeout=30):
    """(status, content type, body) of one GET, on a fresh connection."""
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        conn.close()


def tile_paths(prefix, info):
    """Every tile info.json lists, by the IIIF level-0 formulas:
    {prefix}/{x},{y},{w},{h}/{ceil(w/s)},{ceil(h/s)}/0/default.jpg."""
    width, height = info["width"], info["height"]
    paths = []
    for tiles in info.get("tiles", []):
        tw = tiles["width"]
        th = tiles.get("height", tw)
        for s in tiles.get("scaleFactors", [1]):
            for m in range(math.ceil(height / (th * s))):
                for n in range(math.ceil(width / (tw * s))):
                    x, y = n * tw * s, m * th * s
                    w, h = min(tw * s, width - x), min(th * s, height - y)
                    paths.append((f"{prefix}/{x},{y},{w},{h}/{math.ceil(w / s)},{math.ceil(h / s)}/0/default.jpg",
                                  (math.ceil(w / s), math.ceil(h / s)), s, (x, y)))
    return paths


def random_regions(count, width, height, seed, smallest=256, largest=4096, box=512):
    """count regions x,y,w,h with each side in [smallest, largest] at random positions. A region
    whose sides are both under `box` is drawn again: `!box,box` would enlarge it, which IIIF 3
    allows only with `^` (Tessera answers 400, as the official validator checks; iipsrv, a IIIF 2
    server, would upscale), so every region is a real reduction or 1:1 on both servers."""
    rng = random.Random(seed)
    regions = []
    while len(regions) < count:
        w, h = rng.randint(smallest, min(largest, width)), rng.randint(smallest, min(largest, height))
        x, y = rng.randint(0, width - w), rng.randint(0, height - h)
        if max(w, h) >= box:
            regions.append((x, y, w, h))
    return regions


def verify(server, aligned, unaligned):
    """Fetches info.json's first and last tile and one region; notes anything wrong."""
    checks = [aligned[0], aligned[-1]] if aligned else []
    for path, size, *_ in checks:
        status, ctype, body = get(server.base, path)
        got = jpeg_size(body) if status == 200 else None
        if status != 200 or got is None:
            server.notes.append(f"tile {path} answered {status} {ctype}")
        elif abs(got[0] - size[0]) > 1 or abs(got[1] - size[1]) > 1:
            server.notes.append(f"tile {path} is {got[0]}×{got[1]}, expected {size[0]}×{size[1]}")
    if unaligned:
        status, ctype, body = get(server.base, unaligned[0])
        got = jpeg_size(body) if status == 200 else None
        if status != 200 or got is None:
            server.notes.append(f"region {unaligned[0]} answered {status} {ctype}")
        elif max(got) > 512:
            server.notes.append(f"region {unaligned[0]} is {got[0]}×{got[1]}, over !512,512")


def fetch_info(server):
    status, ctype, body = get(server.base, f"{server.prefix}/info.json")
    if status != 200:
        raise RuntimeError(f"{server.prefix}/info.json answered {status}")
    info = json.loads(body)
    if (info.get("width"), info.get("height")) != PHOTO_SIZE or not info.get("tiles"):
        raise RuntimeError(f"info.json says {info.get('width')}×{info.get('height')}, tiles {info.get('tiles')}")
    return info


def warm(server, paths, concurrency, limit, headers=None):
    """One pass over paths with `concurrency` keep-alive connections, stopping after `limit` s,
    each request with `headers` (a dict). Returns (requests done, {status: count} for non-200, seconds)."""
    host, port = "127.0.0.1", server.port
    queue, lock = list(paths), threading.Lock()
    done, bad = [0], {}
    deadline = time.monotonic() + limit
    start = time.monotonic()

    def worker():
        conn = None
        while time.monotonic() < deadline:
            with lock:
                if not queue:
                    break
                path = queue.pop()
            try:
                conn = conn or http.client.HTTPConnection(host, port, timeout=30)
                conn.request("GET", path, headers=headers or {})
                response = conn.getresponse()
                response.read()
                status = response.status
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException) as error:
                status = type(error).__name__
                if conn:
                    conn.close()
                conn = None
            with lock:
                done[0] += 1
                if status != 200:
                    bad[status] = bad.get(status, 0) + 1
        if conn:
            conn.close()

    workers = [threading.Thread(target=worker) for _ in range(concurrency)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return done[0], bad, time.monotonic() - start


# ---------------------------------------------------------------- wrk

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3, "h": 3600e3}


def duration_ms(text):
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text)
    return float(match.group(1)) * UNITS[match.group(2)] if match else None


def parse_wrk(text):
    result = {"requests_per_s": None, "p50_ms": None, "p90_ms": None, "p99_ms": None, "requests": None,
              "statuses": {}, "socket_errors": {}, "non2xx3xx": 0, "transfer_per_s": None}
    for pct, value in re.findall(r"^\s+(50|75|90|99)(?:\.0+)?%\s+(\S+)", text, re.M):
        if pct in ("50", "90", "99"):
            result[f"p{pct}_ms"] = duration_ms(value)
    if m := re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M):
        result["requests_per_s"] = float(m.group(1))
    if m := re.search(r"^Transfer/sec:\s+([\d.]+)([KMG]?B)", text, re.M):
        result["transfer_per_s"] = float(m.group(1)) * {"B": 1, "KB": 1024, "MB": 2**20, "GB": 2**30}[m.group(2)]
    if m := re.search(r"^\s+(\d+) requests in ([\d.]+\w+)", text, re.M):
        result["requests"] = int(m.group(1))
    if m := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text):
        result["socket_errors"] = dict(zip(("connect", "read", "write", "timeout"), map(int, m.groups())))
    if m := re.search(r"Non-2xx or 3xx responses: (\d+)", text):
        result["non2xx3xx"] = int(m.group(1))
    if m := re.search(r"^statuses(.*)$", text, re.M):
        result["statuses"] = {int(k): int(v) for k, v in re.findall(r"(\d+)=(\d+)", m.group(1))}
    return result


def wrk(server, url_file, args, seed, seconds, count, headers=(), sequential=False):
    """One wrk run of `seconds` once the server is idle; with count, the Lua hook counts every
    response's status; with sequential, each thread walks its share of the paths in order rather
    than drawing them at random. `headers` ("Name: value" strings) go with every request."""
    waited = wait_idle(server)
    argv = (["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{seconds}s", "--latency",
             "--timeout", f"{args.wrk_timeout}s", "-s", str(TEMPLATES / "urls.lua")]
            + [arg for header in headers for arg in ("-H", header)]
            + [server.base, "--", str(url_file), str(seed)] + (["count"] if count else []) + ([f"sequential={args.threads}"] if sequential else []))
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        result = parse_wrk("")
        result["error"] = "wrk did not finish in time"
        return result
    text = proc.stdout + proc.stderr
    result = parse_wrk(text)
    result["waited_for_idle_s"] = waited
    if proc.returncode != 0 or result["requests_per_s"] is None:
        result["error"] = f"wrk exit {proc.returncode}: {tail_text(text)}"
    return result


def run_wrk(server, url_file, args, seed, headers=()):
    """The timed run, and where statuses are counted: in it (--status-hook timed) or in a short
    audit run right after it with the same URLs and load (--status-hook audit, the default, so the
    Lua hook's cost does not cap the timed run). Any non-2xx answer, socket error or 4xx/5xx
    counted by wrk itself in either run marks the result as failed."""
    result = wrk(server, url_file, args, seed, args.duration, count=args.status_hook == "timed", headers=headers)
    counted = result
    if args.status_hook == "audit" and "error" not in result:
        audit = wrk(server, url_file, args, seed + 1000, args.audit_duration, count=True, headers=headers)
        result["audit"] = {k: audit.get(k) for k in ("requests", "statuses", "socket_errors", "non2xx3xx",
                                                     "requests_per_s", "p50_ms", "p99_ms", "waited_for_idle_s")}
        if "error" in audit:
            result["error"] = "status audit: " + audit["error"]
        counted = audit
    statuses = counted["statuses"]
    answered = sum(statuses.values())
    bad = sum(n for status, n in statuses.items() if not 200 <= status < 300)
    result["statuses"], result["non2xx"] = statuses, bad
    problems = []
    if result["non2xx3xx"]:
        problems.append(f"{result['non2xx3xx']} 4xx/5xx of {result['requests']} in the timed run")
    for name, run in [("timed run", result)] + ([("audit", counted)] if counted is not result else []):
        errors = ", ".join(f"{k} {v}" for k, v in run["socket_errors"].items() if v)
        if errors:
            problems.append(f"socket errors in the {name}: {errors}")
    if bad:
        others = ", ".join(f"{n}×{s}" for s, n in sorted(statuses.items()) if not 200 <= s < 300)
        problems.append(f"non-2xx {bad}/{answered} counted ({others})")
    elif answered == 0 and "error" not in result:
        problems.append("no response counted")
    if problems and "error" not in result:
        result["error"] = "; ".join(problems)
    return result


def tail_text(text, lines=2):
    return " | ".join(text.strip().splitlines()[-lines:])


# ---------------------------------------------------------------- inputs

def make_photo(inputs):
    path = Path(inputs) / PHOTO
    if not path.exists():
        sys.path.insert(0, str(HERE))
        from make_inputs import jpeg
        say(f"generating {path} …")
        tmp = path.with_name(".tmp-" + PHOTO)
        jpeg(tmp, *PHOTO_SIZE, seed=8)
        tmp.rename(path)
    return path


def stale(target, source):
    return not target.exists() or target.stat().st_mtime < source.stat().st_mtime


def make_static(tessera, photo, out):
    """The static IIIF tree at out/static/NAME: `tessera tile --layout iiif` (tiles of TILE), or
    `vips dzsave --layout iiif3` with the same tile size when there is no tessera binary. Made
    again when the JPEG or the tessera binary is newer than it."""
    info = out / "static" / photo.stem / "info.json"
    maker = ("tessera tile" if tessera else "vips dzsave") + f" --tile-size {TILE}"
    marker = out / "static" / ".made-by"
    fresh = not stale(info, photo) and not (tessera and stale(info, Path(tessera)))
    if fresh and marker.exists() and marker.read_text() == maker:
        return maker
    shutil.rmtree(out / "static", ignore_errors=True)
    (out / "static").mkdir(parents=True)
    if tessera:
        argv = [tessera, "tile", str(photo), "--layout", "iiif", "--tile-size", str(TILE), "--output", str(out / "static")]
    else:
        argv = ["vips", "dzsave", str(photo), str(out / "static" / photo.stem), "--layout", "iiif3",
                "--tile-size", str(TILE), "--overlap", "0", "--suffix", ".jpg[Q=75]"]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    marker.write_text(maker)
    return maker


def make_tiff(photo, out, tile):
    """A JPEG-compressed, tiled, pyramidal TIFF, what iipsrv reads."""
    tif = out / "tiff" / f"{photo.stem}.tif"
    if stale(tif, photo):
        tif.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["vips", "tiffsave", str(photo), str(tif), "--tile", "--pyramid",
                        "--compression", "jpeg", "--Q", "75", "--tile-width", str(tile),
                        "--tile-height", str(tile)], check=True)
    return tif


# ---------------------------------------------------------------- the servers

def nginx_conf(directory, server_block):
    user = ""
    if os.geteuid() == 0:  # workers would otherwise drop to nobody; run them as whoever runs this
        user = f"user {pwd.getpwuid(os.getuid()).pw_name} {grp.getgrgid(os.getgid()).gr_name};"
    text = (TEMPLATES / "nginx-common.conf").read_text()
    text = text.replace("@DIR@", str(directory)).replace("@USER@", user).replace("@SERVER@", server_block)
    (directory / "nginx.conf").write_text(text)
    return [NGINX, "-p", str(directory), "-c", str(directory / "nginx.conf"), "-e", str(directory / "error.log")]


def spawn_nginx(server, directory, template, what, replacements):
    """nginx on a free port for `server`, its server block from TEMPLATES/`template` with @PORT@
    and `replacements` filled in; raises (after stopping `server`) when it does not listen."""
    server.port = free_port()
    block = (TEMPLATES / template).read_text().replace("@PORT@", str(server.port))
    for key, value in replacements.items():
        block = block.replace(key, value)
    proc = server.spawn(nginx_conf(directory, block), directory / "stdout.log")
    if not wait_for_port(server.port, [proc], 10):
        server.stop()
        raise RuntimeError(f"{what} did not start: {tail(directory / 'error.log')}")

def start_nginx_static(work, static_root, name):
    server = Server("nginx", "nginx (files)")
    directory = work / "nginx-static"
    directory.mkdir()
    spawn_nginx(server, directory, "nginx-static.conf", "nginx", {"@ROOT@": str(static_root)})
    server.prefix = f"/{name}"
    return server


def start_iipsrv(work, tif, processes, cache_mb=None):
    """iipsrv serving `tif`'s folder as `processes` FastCGI processes behind nginx; `cache_mb` sets its
    tile cache (MAX_IMAGE_CACHE_SIZE, per process; iipsrv's default is 10)."""
    server = Server("iipsrv", f"iipsrv ×{processes}")
    directory = work / "nginx-iipsrv"
    directory.mkdir()
    env = dict(os.environ, FILESYSTEM_PREFIX=str(tif.parent) + "/", VERBOSITY="0", JPEG_QUALITY="75",
               ALLOW_UPSCALING="0", LOGFILE=str(directory / "iipsrv.log"))
    if cache_mb is not None:
        env["MAX_IMAGE_CACHE_SIZE"] = str(cache_mb)
    ports = []
    for _ in range(processes):
        port = free_port()
        # -n: spawn-fcgi binds the socket and execs iipsrv in its own process (the PID we hold).
        server.spawn(["spawn-fcgi", "-n", "-a", "127.0.0.1", "-p", str(port), "--", IIPSRV],
                     directory / f"spawn-fcgi-{port}.log", env)
        ports.append(port)
    for port, proc in zip(ports, server.procs):
        if not wait_for_port(port, [proc], 10):
            server.stop()
            raise RuntimeError(f"iipsrv on port {port} did not start: {tail(directory / f'spawn-fcgi-{port}.log')}")
    spawn_nginx(server, directory, "nginx-iipsrv.conf", "nginx for iipsrv",
                {"@UPSTREAMS@": "\n".join(f"        server 127.0.0.1:{p};" for p in ports)})
    server.prefix = f"/iiif/{tif.name}"
    return server


def start_tessera_cold(work, template, tessera, root, sampler):
    """Starts `tessera serve` with an empty cache and times a viewer's first look at the image:
    start → listening → info.json → one full-resolution tile at the centre of the image.
    Returns (server or None, cold timings)."""
    server = Server("tessera", "tessera")
    cache = work / "tessera-cache"
    cache.mkdir()
    server.port = free_port()
    values = {"tessera": tessera, "root": str(root), "port": str(server.port), "cache": str(cache)}
    argv = shlex.split(template.format(**{k: shlex.quote(v) for k, v in values.items()}))
    log = work / "tessera-serve.log"
    start = time.perf_counter()
    try:
        proc = server.spawn(argv, log)
    except OSError as error:
        return None, {"error": str(error)}
    sampler.register("tessera", [proc.pid])
    if not wait_for_port(server.port, [proc], 30):
        why = tail(log) or (f"exit {proc.returncode}" if proc.poll() is not None else "not listening after 30 s")
        server.stop()
        return None, {"error": why}
    listening = time.perf_counter() - start
    server.prefix = f"/iiif/3/{PHOTO}"
    try:
        server.info = fetch_info(server)
    except (OSError, http.client.HTTPException, ValueError, RuntimeError) as error:
        server.stop()
        return None, {"error": f"info.json: {error}"}
    info_done = time.perf_counter() - start
    tiles = [t for t in tile_paths(server.prefix, server.info) if t[2] == 1]
    cx, cy = PHOTO_SIZE[0] // 2, PHOTO_SIZE[1] // 2
    path, size, _, _ = min(tiles, key=lambda t: abs(t[3][0] + t[1][0] / 2 - cx) + abs(t[3][1] + t[1][1] / 2 - cy))
    status, ctype, body = get(server.base, path, timeout=120)
    first_tile = time.perf_counter() - start
    cold = {"listening_s": listening, "info_json_s": info_done, "first_tile_s": first_tile,
            "first_tile_path": path, "first_tile_status": status}
    if status != 200 or jpeg_size(body) is None:
        cold["error"] = f"first tile answered {status} {ctype}"
    return server, cold


# ---------------------------------------------------------------- report

def fmt(value, digits=1):
    if value is None:
        return "—"
    if value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def ratio(a, b):
    return a / b if a is not None and b else None


def add_wrk_arguments(parser, *, connections, wrk_timeout, connections_help="wrk connections"):
    """The options that wrk() and run_wrk() read from their `args`, with the load and timeout the
    calling bench picks."""
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run (default 10)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--connections", type=int, default=connections,
                        help=f"{connections_help} (default {connections})")
    parser.add_argument("--wrk-timeout", type=int, default=wrk_timeout,
                        help=f"seconds before wrk counts a request as timed out, an error (default {wrk_timeout})")
    parser.add_argument("--status-hook", choices=("audit", "timed"), default="audit",
                        help="count every status with wrk's Lua response hook in a short audit run after "
                             "each timed run (default), or in the timed run itself (slower wrk)")
    parser.add_argument("--audit-duration", type=int, default=2, help="seconds of each status audit (default 2)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tessera", help="the tessera binary (its absence skips `tessera serve`)")
    parser.add_argument("inputs", help="bench-out/inputs; the 16000×12000 JPEG is made there if missing")
    add_wrk_arguments(parser, connections=64, wrk_timeout=5)
    parser.add_argument("--runs", type=int, default=1,
                        help="wrk runs per server and URL set, interleaved; the median is reported (default 1)")
    parser.add_argument("--unaligned", type=int, default=2000, help="random regions (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random regions and orders")
    parser.add_argument("--warm-limit", type=int, default=120, help="seconds at most for each warming pass")
    parser.add_argument("--warm-concurrency", type=int, default=4)
    parser.add_argument("--iipsrv-processes", type=int, default=2)
    parser.add_argument("--tiff-tile", type=int, default=256, help="tile size of iipsrv's TIFF (default 256)")
    parser.add_argument("--serve", default=os.environ.get("TESSERA_SERVE", DEFAULT_SERVE),
                        help="command line template to start tessera serve, with {tessera} {root} {port} "
                             "{cache} (default: $TESSERA_SERVE or '%(default)s')")
    parser.add_argument("--out", help="where the static tree and TIFF go (default: INPUTS/../serving)")
    parser.add_argument("--json", help="write every number measured to this file")
    args = parser.parse_args()

    missing = sorted({pkg for tool, pkg in TOOLS.items() if not shutil.which(tool) and not os.access(tool, os.X_OK)})
    if missing:
        sys.exit("serving_bench: missing tools; apt-get install " + " ".join(missing))

    tessera = str(Path(args.tessera).resolve()) if Path(args.tessera).is_file() else None
    inputs = Path(args.inputs)
    photo = make_photo(inputs)
    out = Path(args.out) if args.out else inputs.resolve().parent / "serving"
    out.mkdir(parents=True, exist_ok=True)
    static_maker = make_static(tessera, photo, out)
    tif = make_tiff(photo, out, args.tiff_tile)

    load = os.getloadavg()
    report = {"config": {k: v for k, v in vars(args).items() if k != "json"}, "image": str(photo),
              "load_average_at_start": load, "cpus": os.cpu_count(),
              "static_tree_made_by": static_maker, "tiff": str(tif), "servers": {}, "runs": [], "cold": {}}
    if not static_maker.startswith("tessera tile"):
        say(f"note: no tessera binary at {args.tessera}; the static tree was made by vips dzsave --layout iiif3")

    # Whole-pyramid builds of the same JPEG, while the machine is quiet: what a cold server competes with.
    scratch = Path(tempfile.mkdtemp(prefix="tessera-serving-bench-build-"))
    try:
        builds = {"vips dzsave": ["vips", "dzsave", str(photo), str(scratch / "vips" / photo.stem),
                                  "--layout", "iiif3", "--tile-size", str(TILE), "--overlap", "0",
                                  "--suffix", ".jpg[Q=75]"]}
        (scratch / "vips").mkdir()
        if tessera:
            builds["tessera tile"] = [tessera, "tile", str(photo), "--layout", "iiif", "--tile-size", str(TILE),
                                      "--output", str(scratch / "tessera")]
        for name, argv in builds.items():
            seconds, peak, code, stderr = run_once(argv)
            report["cold"][name] = {"seconds": seconds, "peak_rss": peak,
                                    "error": (stderr.splitlines() or [f"exit {code}"])[-1] if code else None}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    work = Path(tempfile.mkdtemp(prefix="tessera-serving-bench-"))
    sampler = Sampler()
    sampler.start()
    servers = []
    try:
        # Tessera first, with an empty cache: its cold start is timed before anything else runs.
        if tessera:
            server, cold = start_tessera_cold(work, args.serve, tessera, inputs.resolve(), sampler)
            report["cold"]["tessera serve"] = cold
            if server:
                servers.append(server)
                if "error" in cold:
                    server.notes.append(cold["error"])
            else:
                say(f"tessera serve: not available ({cold.get('error', '')[:200]})")
        else:
            say("tessera serve: not available (no tessera binary)")

        nginx = start_nginx_static(work, out / "static", photo.stem)
        servers.append(nginx)
        sampler.register("nginx", [p.pid for p in nginx.procs])
        iipsrv = start_iipsrv(work, tif, args.iipsrv_processes)
        servers.append(iipsrv)
        sampler.register("iipsrv", [p.pid for p in iipsrv.procs])

        regions = random_regions(args.unaligned, *PHOTO_SIZE, seed=args.seed)
        rng = random.Random(args.seed)
        sets = {}  # (set, server) -> url file
        for server in servers:
            if server.info is None:
                server.info = fetch_info(server)
            tiles = tile_paths(server.prefix, server.info)
            aligned = [t[0] for t in tiles]
            unaligned = ([f"{server.prefix}/{x},{y},{w},{h}/!512,512/0/default.jpg" for x, y, w, h in regions]
                         if server.name != "nginx" else [])
            verify(server, tiles, unaligned)
            t = server.info["tiles"][0]
            entry = report["servers"].setdefault(server.name, {})
            entry.update({"label": server.label, "prefix": server.prefix, "tiles": len(aligned),
                          "tile_size": [t["width"], t.get("height", t["width"])],
                          "scale_factors": t.get("scaleFactors")})
            shuffled = aligned[:]
            rng.shuffle(shuffled)
            # /health does no work: Tessera's HTTP stack alone, the most any of its routes can reach.
            floor = ["/health"] if server.name == "tessera" else []
            for name, paths in (("aligned", shuffled), ("unaligned", unaligned), ("info.json", [f"{server.prefix}/info.json"]),
                                ("floor", floor)):
                if paths:
                    path = work / f"urls-{server.name}-{name}.txt"
                    path.write_text("\n".join(paths) + "\n")
                    sets[(name, server.name)] = path
            done, bad, seconds = warm(server, shuffled, args.warm_concurrency, args.warm_limit)
            if server.name == "tessera":
                # Tiles are answered from the source until the pyramid, built in the background
                # since the image was zoomed into, is there: the warm runs measure the pyramid.
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    status, _, body = get(server.base, "/metrics")
                    if status == 200 and b"tessera_pyramid_builds_total 1" in body:
                        break
                    time.sleep(0.2)
                else:
                    server.notes.append("the pyramid was not built within 120 s of warming")
            entry["warm"] = {"requests": done, "of": len(shuffled), "seconds": seconds,
                             "non200": {str(k): v for k, v in bad.items()}}
            say(f"warmed {server.label}: {done}/{len(shuffled)} tiles in {seconds:.1f} s"
                + (f", non-200: {bad}" if bad else ""))
            if done < len(shuffled):
                server.notes.append(f"warming stopped after {args.warm_limit} s at {done}/{len(shuffled)} tiles")
            if bad:
                server.notes.append(f"warming answered non-200: {bad}")

        results = {}
        order = [s for s in ("tessera", "nginx", "iipsrv") if any(x.name == s for x in servers)]
        by_name = {s.name: s for s in servers}
        for set_name in ("aligned", "unaligned", "info.json", "floor"):
            for run in range(args.runs):
                for name in order:
                    if (set_name, name) not in sets:
                        continue
                    result = run_wrk(by_name[name], sets[(set_name, name)], args, args.seed + run)
                    result.update({"set": set_name, "server": name, "run": run})
                    report["runs"].append(result)
                    results.setdefault((set_name, name), []).append(result)
                    state = result.get("error") or "ok"
                    say(f"  {set_name:<10} {name:<8} {fmt(result['requests_per_s'])} req/s  "
                        f"p50 {fmt(result['p50_ms'], 2)} ms  p99 {fmt(result['p99_ms'], 2)} ms  {state}")
        for server in servers:
            report["servers"][server.name].update({
                "peak_rss": sampler.peak(server.name), "peak_rss_simultaneous": sampler.peak_sum(server.name),
                "processes": sampler.processes(server.name), "notes": server.notes})
    finally:
        stop_all(sampler, servers)
        for server in servers:
            report["servers"].setdefault(server.name, {})["notes"] = server.notes
        shutil.rmtree(work, ignore_errors=True)

    summary = summarise(report, results)
    report["summary"] = summary
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=str) + "\n")
    print_table(report, summary, args)


def summarise(report, results):
    """{set: {server: {rps, p50, p99, error, bytes_per_response}}}: medians over runs; any failed
    run marks the cell failed."""
    summary = {}
    for (set_name, name), runs in results.items():
        errors = [r["error"] for r in runs if r.get("error")]
        cell = {"error": errors[0] if errors else None}
        for key in ("requests_per_s", "p50_ms", "p99_ms"):
            values = [r[key] for r in runs if r[key] is not None]
            cell[key] = statistics.median(values) if values else None
        transfer = [r["transfer_per_s"] / r["requests_per_s"] for r in runs
                    if r["transfer_per_s"] and r["requests_per_s"]]
        cell["bytes_per_response"] = statistics.median(transfer) if transfer else None
        cell["requests"] = sum(r["requests"] or 0 for r in runs)
        summary.setdefault(set_name, {})[name] = cell
    goals = {}

    def good(set_name, name, key):
        cell = summary.get(set_name, {}).get(name)
        return None if not cell or cell["error"] else cell[key]

    def goal(label, value, bound, higher_is_better=True, inclusive=False):
        if value is None or bound is None:
            met = None
        elif higher_is_better:
            met = value >= bound
        else:
            met = value <= bound if inclusive else value < bound
        goals[label] = {"value": value, "bound": bound, "met": met}

    goal("aligned ≥ 0.5× nginx", ratio(good("aligned", "tessera", "requests_per_s"),
                                       good("aligned", "nginx", "requests_per_s")), 0.5)
    goal("aligned ≥ 5× iipsrv", ratio(good("aligned", "tessera", "requests_per_s"),
                                      good("aligned", "iipsrv", "requests_per_s")), 5)
    goal("unaligned ≥ 2× iipsrv", ratio(good("unaligned", "tessera", "requests_per_s"),
                                        good("unaligned", "iipsrv", "requests_per_s")), 2)
    goal("info.json ≥ 1× iipsrv", ratio(good("info.json", "tessera", "requests_per_s"),
                                        good("info.json", "iipsrv", "requests_per_s")), 1)
    for set_name in ("aligned", "unaligned", "info.json"):
        goal(f"{set_name} p99 < iipsrv", good(set_name, "tessera", "p99_ms"), good(set_name, "iipsrv", "p99_ms"),
             higher_is_better=False)
    servers = report["servers"]
    goal("peak RSS ≤ iipsrv", servers.get("tessera", {}).get("peak_rss"),
         servers.get("iipsrv", {}).get("peak_rss"), higher_is_better=False, inclusive=True)
    return {"sets": summary, "goals": goals}


def print_table(report, summary, args):
    sets, goals, servers = summary["sets"], summary["goals"], report["servers"]
    names = ["tessera", "nginx", "iipsrv"]
    labels = {n: servers.get(n, {}).get("label", n) for n in names}
    say(f"\nServing: {PHOTO} on 127.0.0.1, wrk -t{args.threads} -c{args.connections} -d{args.duration}s, "
        f"warm{'' if args.runs == 1 else f', median of {args.runs} interleaved runs'}; "
        f"load average {report['load_average_at_start'][0]:.2f} on {report['cpus']} cores at start")
    head = f"  {'':<22}{'':<8}" + "".join(f"{labels[n]:>15}" for n in names) + f"{'× nginx':>10}{'× iipsrv':>10}  goal"
    say(head)

    def cell(set_name, name, key, digits):
        c = sets.get(set_name, {}).get(name)
        if c is None:
            return "n/a" if name == "nginx" and set_name == "unaligned" else "—"
        if c["error"]:
            return "FAILED"
        return fmt(c[key], digits)

    def verdict(label):
        g = goals.get(label)
        if not g or g["met"] is None:
            return f"{label}: —"
        return f"{label}: {'met' if g['met'] else 'NOT met'}"

    rows = [("aligned tiles", "aligned"), ("unaligned regions", "unaligned"), ("info.json", "info.json")]
    for title, set_name in rows:
        for key, unit, digits in (("requests_per_s", "req/s", 0), ("p50_ms", "p50 ms", 2), ("p99_ms", "p99 ms", 2)):
            values = {n: (sets.get(set_name, {}).get(n) or {}) for n in names}
            ok = {n: (v.get(key) if v and not v.get("error") else None) for n, v in values.items()}
            line = f"  {title if key == 'requests_per_s' else '':<22}{unit:<8}"
            line += "".join(f"{cell(set_name, n, key, digits):>15}" for n in names)
            line += f"{fmt(ratio(ok['tessera'], ok['nginx']), 2):>10}{fmt(ratio(ok['tessera'], ok['iipsrv']), 2):>10}"
            if key == "requests_per_s":
                line += "  " + "; ".join(verdict(g) for g in goals if g.startswith(set_name) and "p99" not in g)
            elif key == "p99_ms":
                line += "  " + verdict(f"{set_name} p99 < iipsrv")
            say(line)
    floor = sets.get("floor", {}).get("tessera")
    if floor:
        nginx = (sets.get("aligned", {}).get("nginx") or {})
        share = ratio(None if floor["error"] else floor["requests_per_s"], None if nginx.get("error") else nginx.get("requests_per_s"))
        say(f"  {'HTTP floor (/health)':<22}{'req/s':<8}{cell('floor', 'tessera', 'requests_per_s', 0):>15}{'':>30}"
            f"{fmt(share, 2):>10}{'':>10}  the most any tessera route can reach, × nginx's aligned rate")
    cold = report["cold"]
    serve = cold.get("tessera serve", {})
    parts = []
    if "first_tile_s" in serve:
        parts.append(f"tessera serve: first tile {serve['first_tile_s']:.2f} s after start "
                     f"(listening {serve['listening_s']:.2f} s, info.json {serve['info_json_s']:.2f} s)")
    else:
        parts.append("tessera serve: not available")
    for name in ("vips dzsave", "tessera tile"):
        if name in cold:
            c = cold[name]
            parts.append(f"{name} whole pyramid {c['seconds']:.2f} s, {c['peak_rss'] / 1e6:.0f} MB"
                         if not c["error"] else f"{name} failed: {c['error']}")
    say(f"  {'cold first tile':<30}" + "; ".join(parts))
    rss = {n: servers.get(n, {}).get("peak_rss") for n in names}
    line = f"  {'peak RSS':<22}{'MB':<8}" + "".join(
        f"{fmt(rss[n] / 1e6 if rss[n] else None):>15}" for n in names)
    line += f"{fmt(ratio(rss['tessera'], rss['nginx']), 2):>10}{fmt(ratio(rss['tessera'], rss['iipsrv']), 2):>10}"
    say(line + "  " + verdict("peak RSS ≤ iipsrv"))

    say("  notes:")
    for n in names:
        s = servers.get(n)
        if not s or "tiles" not in s:
            continue
        aligned = sets.get("aligned", {}).get(n) or {}
        unaligned = sets.get("unaligned", {}).get(n) or {}
        bits = [f"{s['tiles']} tiles of {s['tile_size'][0]}×{s['tile_size'][1]}",
                f"scale factors {s.get('scale_factors')}"]
        if aligned.get("bytes_per_response"):
            bits.append(f"{aligned['bytes_per_response'] / 1024:.1f} KiB per tile")
        if unaligned.get("requests"):
            bits.append(f"{unaligned['requests'] / args.unaligned:.1f} requests per distinct region")
        if s.get("peak_rss"):
            each = " + ".join(f"{p['name']} {p['peak_rss'] / 1e6:.1f}"
                              for p in sorted(s["processes"], key=lambda p: -p["peak_rss"]))
            bits.append(f"peak RSS {each} = {s['peak_rss'] / 1e6:.1f} MB "
                        f"(largest simultaneous sum {s['peak_rss_simultaneous'] / 1e6:.1f} MB)")
        say(f"    {labels[n]}: " + ", ".join(bits))
        for set_name in ("aligned", "unaligned", "info.json"):
            c = sets.get(set_name, {}).get(n)
            if c and c["error"]:
                say(f"      {set_name} FAILED: {c['error']}")
        for note in s.get("notes", []):
            say(f"      {note}")


if __name__ == "__main__":
    main()
