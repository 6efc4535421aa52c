#!/usr/bin/env python3
"""The cold path: what the first requests for images the server has never seen cost through
`tessera serve`, beside the decode they cannot avoid (the floor) and beside what a user would
otherwise do, measured in one run.

Every measurement starts a fresh server (`--cache-dir` empty, on tmpfs when /dev/shm is writable,
so the file system's writeback falls on no one), waits for /health, then times the requests; its
peak RSS is the kernel's high-water mark (VmHWM) read before it is stopped. Every answer is checked
(status 200 and a JPEG of the expected size), so a server that answered errors cannot look fast.
Peers run as separate processes through GNU time (scripts/bench/measure.py). Medians of --runs.

  First screen  info.json and every tile a 1280×800 viewer shows of the home view at dpr 1 and 2,
                from an unseen 16000×12000 JPEG; floor: `djpeg -scale 1/8` (and vipsthumbnail);
                and of a 16000×12000 PNG; floor: one streamed decode (`vips avg`).
  Grid          100 unseen 4000×3000 JPEGs as full/!320,320, 6 clients at once; peer: vipsthumbnail
                -s 320 over the same files in two processes (one per core); tile files written.
  Deep click    one full-resolution tile at the bottom-right (and top-left) of the unseen
                16000×12000 JPEG; against `tessera tile` building its whole pyramid.
  Gigapixel     a 48000×24000 JPEG with default settings: first screen against its 1/8 decode.
  Pyramid       `tessera tile` on disk and on tmpfs (and its fsync calls, strace -c), beside
                `vips dzsave`; and `vips tiffsave --tile --pyramid`, iipsrv's step before a first tile.
"""
import argparse
import concurrent.futures
import http.client
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_inputs import jpeg  # noqa: E402
from measure import free_port, jpeg_size, run_once, say  # noqa: E402

VIEWPORT = (1280, 800)
CLIENTS = 6  # a browser's connections to one host


def scratch_root(preferred):
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return Path(tempfile.mkdtemp(prefix="tessera-cold-", dir=shm)), "tmpfs"
    preferred.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="tessera-cold-", dir=preferred)), "disk"


class Server:
    """`tessera serve ROOT` on 127.0.0.1 with an empty cache of its own; stopped by PID."""

    def __init__(self, tessera, root, scratch, extra=()):
        self.cache = Path(tempfile.mkdtemp(prefix="cache-", dir=scratch))
        self.port = free_port()
        self.log = open(self.cache.with_suffix(".log"), "wb")
        self.connections = threading.local()
        self.proc = subprocess.Popen(
            [tessera, "serve", str(root), "--host", "127.0.0.1", "--port", str(self.port), "--cache-dir", str(self.cache), *extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2):
                    break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"tessera serve did not start (see {self.log.name})")
                time.sleep(0.05)

    def get(self, path, timeout=120):
        """GET over this thread's own kept-alive connection, as a browser's six connections are."""
        connection = getattr(self.connections, "connection", None)
        if connection is None:
            connection = self.connections.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.read()
        except (http.client.HTTPException, OSError):
            connection.close()
            self.connections.connection = None
            raise

    def peak_rss(self):
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return 0

    def files(self):
        """Tile files written to its cache (pyramid descriptors and directories not counted)."""
        return sum(1 for _, _, names in os.walk(self.cache) for name in names if name.endswith((".jpg", ".jpeg")))

    def stop(self):
        peak = self.peak_rss()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.cache, ignore_errors=True)
        return peak


def fetch_all(server, requests, clients=CLIENTS):
    """GETs every (path, (w, h)) with `clients` at once; checks each answer; returns total bytes."""
    def one(item):
        path, size = item
        status, body = server.get(path)
        if status != 200 or (size and jpeg_size(body) != size):
            raise SystemExit(f"{path}: status {status}, size {jpeg_size(body)}, expected {size}")
        return len(body)
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        return sum(pool.map(one, requests))


def home_tiles(identifier, info, dpr):
    """The tiles a viewer of VIEWPORT css px at `dpr` shows of the home view (the whole image fitted):
    the coarsest level with at least one image pixel per device pixel, every tile of it in view."""
    width, height = info["width"], info["height"]
    tile = info["tiles"][0]
    tw, th = tile["width"], tile.get("height", tile["width"])
    scale = min(VIEWPORT[0] * dpr / width, VIEWPORT[1] * dpr / height)
    shown = (width * scale, height * scale)
    factor = 1
    for s in sorted(tile["scaleFactors"]):
        if math.ceil(width / s) >= shown[0] and math.ceil(height / s) >= shown[1]:
            factor = s
    paths = []
    for m in range(math.ceil(height / (th * factor))):
        for n in range(math.ceil(width / (tw * factor))):
            x, y = n * tw * factor, m * th * factor
            w, h = min(tw * factor, width - x), min(th * factor, height - y)
            ws, hs = math.ceil(w / factor), math.ceil(h / factor)
            paths.append((f"/iiif/3/{identifier}/{x},{y},{w},{h}/{ws},{hs}/0/default.jpg", (ws, hs)))
    return factor, paths


def first_screen(server, identifier, dpr):
    """Seconds from asking info.json to the last tile of the home view; (seconds, tiles, level)."""
    start = time.perf_counter()
    status, body = server.get(f"/iiif/3/{identifier}/info.json")
    if status != 200:
        raise SystemExit(f"info.json of {identifier}: {status}")
    factor, paths = home_tiles(identifier, json.loads(body), dpr)
    fetch_all(server, paths)
    return time.perf_counter() - start, len(paths), factor


def peer(argv, runs, env=None):
    """Median seconds and peak RSS of a command, failing loudly."""
    times, peaks = [], []
    for _ in range(runs):
        seconds, peak, code, stderr = run_once(argv, env)
        if code != 0:
            raise SystemExit(f"{argv[0]} failed: {stderr[-300:]}")
        times.append(seconds)
        peaks.append(peak)
    return statistics.median(times), max(peaks)


def row(label, seconds, floor_seconds, floor_label, peak=None, goal=None, extra=""):
    ratio = seconds / floor_seconds
    verdict = "" if goal is None else ("  met" if ratio <= goal else "  NOT met")
    memory = f"  peak {peak / 1e6:.0f} MB" if peak else ""
    say(f"  {label:<46}{seconds:>8.3f} s  {ratio:>5.2f}× {floor_label}{'' if goal is None else f' (goal ≤ {goal})'}{verdict}{memory}{extra}")


def make_inputs(inputs):
    inputs.mkdir(parents=True, exist_ok=True)
    view = inputs / "view-16000x12000.jpg"
    if not view.exists():
        jpeg(view, 16000, 12000, seed=7)
    png = inputs / "cold" / "view-16000x12000.png"
    png.parent.mkdir(exist_ok=True)
    if not png.exists():
        subprocess.run(["vips", "copy", str(view), f"{png}[compression=6]"], check=True)
    giga = inputs / "cold" / "giga-48000x24000.jpg"
    if not giga.exists():
        say("  making a 48000×24000 JPEG (once)…")
        jpeg(giga, 48000, 24000, seed=11)
    grid = inputs / "cold-grid"
    grid.mkdir(exist_ok=True)
    for index in range(100):
        path = grid / f"photo-{index:03}.jpg"
        if not path.exists():
            jpeg(path, 4000, 3000, seed=100 + index)
    (inputs / "cold" / "view.jpg").unlink(missing_ok=True)
    os.link(view, inputs / "cold" / "view.jpg")
    # The same JPEG with a restart marker at every MCU row (a lossless rewrite): enterable at any row.
    restarts = inputs / "cold" / "view-restarts.jpg"
    if not restarts.exists():
        with open(restarts, "wb") as out:
            subprocess.run(["jpegtran", "-restart", "1", "-copy", "all", str(view)], stdout=out, check=True)
    return inputs / "cold", grid


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tessera")
    parser.add_argument("inputs")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json")
    parser.add_argument("--parts", default="first,grid,pyramid", help="comma-separated: first, grid, pyramid (with the deep click)")
    args = parser.parse_args()
    tessera = os.path.realpath(args.tessera)
    root, grid = make_inputs(Path(args.inputs))
    scratch, kind = scratch_root(Path("bench-out"))
    results = {}
    say(f"\nCold path (tessera serve from an empty cache on {kind}; {args.runs} runs, medians; 2 cores)")
    try:
        view = str(root / "view.jpg")
        # Floors, each timed right before the server in every run (interleaved: load on the shared
        # machine falls on both alike).
        djpeg8 = ["sh", "-c", f"djpeg -scale 1/8 {view} >/dev/null"]
        # What a home view at dpr 2 needs is 4000×3000 of it: no 1/8 decode has those pixels.
        djpeg4 = ["sh", "-c", f"djpeg -scale 1/4 {view} >/dev/null"]
        png_decode = ["vips", "avg", str(root / "view-16000x12000.png")]
        giga8 = ["sh", "-c", f"djpeg -scale 1/8 {root / 'giga-48000x24000.jpg'} >/dev/null"]

        def measured(identifier, dpr, floors):
            times, peaks, floor_times = [], [], [[] for _ in floors]
            for _ in range(args.runs):
                for index, floor in enumerate(floors):
                    floor_times[index].append(peer(floor, 1)[0])
                server = Server(tessera, root, scratch)
                try:
                    seconds, tiles, factor = first_screen(server, identifier, dpr)
                finally:
                    peaks.append(server.stop())
                times.append(seconds)
            return statistics.median(times), max(peaks), tiles, factor, [statistics.median(t) for t in floor_times]

        parts = set(args.parts.split(","))
        if "first" in parts:
            vthumb, _ = peer(["vipsthumbnail", "-s", "1024", "-o", str(scratch / "thumb-%s.jpg"), view], args.runs)
            say(f"First screen (info.json + every home-view tile, 6 clients; vipsthumbnail -s 1024 of the JPEG: {vthumb:.3f} s):")
        for dpr in (1, 2) if "first" in parts else ():
            seconds, peak, tiles, factor, (floor8, floor4) = measured("view.jpg", dpr, [djpeg8, djpeg4])
            row(f"16000×12000 JPEG, dpr {dpr} ({tiles} tiles at 1/{factor})", seconds, floor8, f"djpeg 1/8 ({floor8:.3f} s)", peak, 1.5,
                f"; {seconds / floor4:.2f}× djpeg 1/4 ({floor4:.3f} s)" if factor == 4 else "")
            results[f"first_screen_jpeg_dpr{dpr}"] = {"seconds": seconds, "ratio": seconds / floor8, "ratio_quarter": seconds / floor4, "peak": peak}
        for dpr in (1, 2) if "first" in parts else ():
            seconds, peak, tiles, factor, (floor,) = measured("view-16000x12000.png", dpr, [png_decode])
            row(f"16000×12000 PNG, dpr {dpr} ({tiles} tiles at 1/{factor})", seconds, floor, f"vips avg ({floor:.3f} s)", peak, 1.2)
            results[f"first_screen_png_dpr{dpr}"] = {"seconds": seconds, "ratio": seconds / floor, "peak": peak}
        for dpr in (1, 2) if "first" in parts else ():
            seconds, peak, tiles, factor, (floor,) = measured("giga-48000x24000.jpg", dpr, [giga8])
            row(f"48000×24000 JPEG, defaults, dpr {dpr} ({tiles} tiles at 1/{factor})", seconds, floor, f"its 1/8 ({floor:.3f} s)", peak, 1.5)
            results[f"first_screen_giga_dpr{dpr}"] = {"seconds": seconds, "ratio": seconds / floor, "peak": peak}

        # Grid of unseen photos.
        if "grid" in parts:
            grid_bench(args, tessera, grid, scratch, results)
        if "pyramid" in parts:
            pyramid_bench(args, tessera, view, root, scratch, results)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


def grid_bench(args, tessera, grid, scratch, results):
    """100 unseen photos as grid cells, beside vipsthumbnail over the same files."""
    if True:
        photos = sorted(p.name for p in grid.glob("photo-*.jpg"))
        out = scratch / "vips-grid"
        out.mkdir(exist_ok=True)
        halves = [photos[0::2], photos[1::2]]
        script = " & ".join(f"(cd {grid} && vipsthumbnail -s 320 -o {out}/%s.jpg {' '.join(h)})" for h in halves) + " & wait"
        vgrid, vpeak = peer(["sh", "-c", script], args.runs)
        times, peaks, files = [], [], []
        for _ in range(args.runs):
            server = Server(tessera, grid, scratch)
            try:
                start = time.perf_counter()
                fetch_all(server, [(f"/iiif/3/{name}/full/!320,320/0/default.jpg", (320, 240)) for name in photos])
                times.append(time.perf_counter() - start)
                files.append(server.files())
            finally:
                peaks.append(server.stop())
        say("Grid (100 unseen 4000×3000 JPEGs as full/!320,320, 6 clients):")
        seconds = statistics.median(times)
        row("tessera serve", seconds, vgrid, "vipsthumbnail ×2", max(peaks), 1.0, f"  tile files {max(files)}")
        say(f"  {'vipsthumbnail -s 320, two processes':<46}{vgrid:>8.3f} s  peak {vpeak / 1e6:.0f} MB (one process)")
        results["grid"] = {"seconds": seconds, "ratio": seconds / vgrid, "peak": max(peaks), "tile_files": max(files)}


def pyramid_bench(args, tessera, view, root, scratch, results):
    """The whole pyramid, on tmpfs and on disk, with its syncs; the peers' conversions; the deep click against it."""
    if True:
        disk = Path("bench-out") / "cold-disk"
        disk.mkdir(parents=True, exist_ok=True)

        def writes(where, name, command):
            """Median seconds and peak RSS of `command(target)`, each run into a new directory: the
            outputs are deleted only after every run, since deleting thousands of files on a disk
            with online discard slows whoever writes next (../shared/reference.md)."""
            times, peaks = [], []
            for run in range(args.runs):
                target = where / f"{name}-{run}"
                seconds, peak, code, stderr = run_once(command(target))
                if code != 0:
                    raise SystemExit(f"{name} failed: {stderr[-300:]}")
                times.append(seconds)
                peaks.append(peak)
            return statistics.median(times), max(peaks)

        def tile_cmd(target):
            return [tessera, "tile", view, "--output", str(target)]

        def iiif_cmd(target):
            return [tessera, "tile", view, "--layout", "iiif", "--tile-size", "256", "--output", str(target)]

        def dz_cmd(target):
            target.mkdir(parents=True, exist_ok=True)
            return ["vips", "dzsave", view, str(target / "out")]

        tile_shm, tile_peak = writes(scratch, "tile", tile_cmd)
        tile_disk, _ = writes(disk, "tile", tile_cmd)
        iiif_shm, _ = writes(scratch, "iiif", iiif_cmd)
        iiif_disk, _ = writes(disk, "iiif", iiif_cmd)
        dz_shm, _ = writes(scratch, "dz", dz_cmd)
        dz_disk, _ = writes(disk, "dz", dz_cmd)
        shutil.rmtree(disk, ignore_errors=True)
        tiff, _ = peer(["sh", "-c", f"vips tiffsave {view} {scratch}/pyramid.tif --tile --pyramid --compression jpeg --tile-width 256 --tile-height 256"], args.runs)
        trace = subprocess.run(["strace", "-f", "-c", "-e", "trace=fsync,fdatasync,syncfs,sync_file_range", "-o", str(scratch / "strace.txt"),
                                tessera, "tile", view, "--layout", "iiif", "--tile-size", "256", "--output", str(scratch / "traced")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        syncs = 0
        for line in (scratch / "strace.txt").read_text().splitlines():
            parts = line.split()
            # "% time, seconds, usecs/call, calls, [errors,] syscall"
            if len(parts) >= 5 and parts[-1] in ("fsync", "fdatasync", "syncfs", "sync_file_range"):
                syncs += int(parts[3])
        say("Whole pyramid of the 16000×12000 JPEG (what a cold first tile waited for before):")
        say(f"  tessera tile (Deep Zoom, as dzsave): tmpfs {tile_shm:.3f} s, disk {tile_disk:.3f} s ({tile_disk / tile_shm:.2f}×, "
            f"goal ≤ 1.3), peak {tile_peak / 1e6:.0f} MB")
        say(f"  tessera tile --layout iiif (256, the server's; 3 directories a tile): tmpfs {iiif_shm:.3f} s, disk {iiif_disk:.3f} s "
            f"({iiif_disk / iiif_shm:.2f}×); sync calls {syncs if trace.returncode == 0 else 'strace failed'} "
            "(the server's cache builds make one syncfs)")
        say(f"  vips dzsave:              tmpfs {dz_shm:.3f} s, disk {dz_disk:.3f} s ({dz_disk / dz_shm:.2f}×)")
        say(f"  vips tiffsave --pyramid (iipsrv's conversion before its first tile): {tiff:.3f} s")
        results["pyramid"] = {"tmpfs": tile_shm, "disk": tile_disk, "iiif_tmpfs": iiif_shm, "iiif_disk": iiif_disk, "syncs": syncs, "dzsave_tmpfs": dz_shm,
                              "dzsave_disk": dz_disk, "tiffsave": tiff}

        # What reaching the bottom of the JPEG costs its own library: a whole decode, and djpeg -crop
        # (jpeg_skip_scanlines over the rows above, jpeg_crop_scanline to the columns), as Tessera
        # reads a JPEG without restart markers.
        full, _ = peer(["sh", "-c", f"djpeg {view} >/dev/null"], args.runs)
        crop, _ = peer(["sh", "-c", f"djpeg -crop 128x224+15872+11776 {view} >/dev/null"], args.runs)
        say(f"Deep first click (one full-resolution tile of the unseen 16000×12000 JPEG; its bottom-right corner costs "
            f"djpeg -crop {crop:.3f} s, {crop / full:.2f}× a whole djpeg {full:.3f} s; with restart markers it costs neither):")
        results["deep_floor"] = {"djpeg": full, "djpeg_crop": crop}
        for label, path, goal in (("bottom-right", "/iiif/3/view.jpg/15872,11776,128,224/128,224/0/default.jpg", 0.5),
                                  ("top-left", "/iiif/3/view.jpg/0,0,256,256/256,256/0/default.jpg", 0.1),
                                  ("bottom-right, restart markers", "/iiif/3/view-restarts.jpg/15872,11776,128,224/128,224/0/default.jpg", 0.1)):
            times = []
            for _ in range(args.runs):
                server = Server(tessera, root, scratch)
                try:
                    start = time.perf_counter()
                    size = tuple(int(v) for v in path.split("/")[5].split(","))
                    fetch_all(server, [(path, size)], clients=1)
                    times.append(time.perf_counter() - start)
                finally:
                    server.stop()
            seconds = statistics.median(times)
            row(label, seconds, tile_shm, "tessera tile", None, goal)
            results[f"deep_{label}"] = {"seconds": seconds, "ratio": seconds / tile_shm, "ratio_djpeg_crop": seconds / crop}


if __name__ == "__main__":
    main()
