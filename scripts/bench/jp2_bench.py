#!/usr/bin/env python3
"""JPEG 2000: Tessera's JP2 support side by side with its peers on the same two JP2 files of the
16000×12000 photo-like JPEG, on 127.0.0.1 only, in one run:

  Serving     `tessera serve` (IIIF 3, JP2 read in place) beside iipsrv (Debian's
              iipimage-server, which links OpenJPEG; IIIF 2; two FastCGI processes started by
              spawn-fcgi behind nginx, as serving_bench.py sets it up). Two URL sets per file:
              seeded random unaligned regions (sides 1000–6000 px) scaled to `512,` (the same
              URLs for both servers), and aligned tiles of the 3 finest levels each server's own
              info.json lists (tile size and scale factors differ: Mpx/s is printed beside req/s),
              in a seeded order. Each server gets one pass over each URL list first, 8 clients
              (timed: the "first pass", from empty caches); the main figure is wrk's rate over
              the same list after it (warm). Warm includes whatever each server keeps in the same
              memory budget (--memory-cache, default 20 MiB as in serving_bench.py): Tessera its
              memory cache (decoded levels and tiles, responses; hit rates during the wrk runs are
              printed), iipsrv its tile cache (MAX_IMAGE_CACHE_SIZE, the budget per process) and no
              responses. Peak RSS is VmHWM summed over each server's processes, from /proc.
  Cold tile   a fresh `tessera serve` (empty cache on /dev/shm) per sample, one tile timed from
              request to last byte: the tile at 0,0 of each of the 3 coarsest levels of
              tessera-defaults.jp2 beside `opj_decompress -r R` of that whole level (or of that tile's
              area when the tile is only part of its level), and one full-resolution tile in the
              middle beside `opj_decompress -d` of that area; opj_decompress with its default
              threads (OPJ_NUM_THREADS unset: decodes on one thread) and with -threads 2.
  Floor       what opj_decompress spends per unaligned region and per 256-px tile (-d -r, CPU
              seconds, less a 1x1 region's): an estimate of what any OpenJPEG server can answer (its
              PNM writer included; iipsrv has been measured above it, so it is no hard floor).
  Sweep       (not in the default parts) the photo coded six ways (tile sizes, progression,
              precincts), each served cold by both servers: how Tessera's defaults were chosen.
  Thumbnails  `tessera thumbnail --max-pixel-size 256` beside `vipsthumbnail -s 256` (JPEG q75
              both), wall time and peak RSS through GNU time (measure.py), of both JP2 files and of
              two JPEG XL files of a 6000×4500 reduction (coded from pixels; a JPEG recompressed).

Inputs: the JP2 files are made on /dev/shm (--jp2-dir) when missing, from INPUTS/photo-16000x12000.jpg
(made by serving_bench.make_photo when missing): djpeg to PPM, opj_compress twice, PPM deleted.
`tessera-defaults.jp2` is written by `tessera convert` with its defaults;
`iiif-recipe.jp2` is the common IIIF community recipe. Every answer counted is checked (status
200, a JPEG of the expected size; wrk's statuses are audited as in serving_bench.py). Runs are
interleaved and ratios are taken within one run; medians over --runs. Every process started here
is stopped by PID at the end, also on error.

    jp2_bench.py TESSERA INPUTS [--runs 3] [--duration 10] [--parts serve,cold,thumb] [--json PATH]
"""
import argparse
import http.client
import json
import math
import os
import random
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import compare, free_port, jpeg_size, run_once, say, table  # noqa: E402
from serving_bench import (DEFAULT_SERVE, IIPSRV, NGINX, PHOTO_SIZE, Sampler, Server, add_wrk_arguments,  # noqa: E402
                           fetch_info, get, make_photo, random_regions, run_wrk, start_iipsrv, tail, tile_paths,
                           wait_for_port, warm)

SHM = Path("/dev/shm")
# name → opj_compress parameters (after -i PPM -o NAME).
# "tessera-defaults.jp2" is made by `tessera convert` with its defaults instead (TESSERA_MADE).
TESSERA_MADE = "tessera-defaults.jp2"
RECIPES = {
    TESSERA_MADE: [],
    "iiif-recipe.jp2": ["-n", "7", "-c", "[256,256],[256,256],[128,128]", "-b", "64,64", "-p", "RPCL", "-SOP", "-EPH",
                        "-PLT", "-TLM", "-TP", "R", "-r", "40,20,10", "-threads", "2"],
}
ABOUT = {
    TESSERA_MADE: "Tessera's defaults: tessera convert photo.jpg OUT.jp2 (1024-px tiles, 7 resolution levels, RPCL, "
                  "64×64 code blocks, one layer at 45.5 dB)",
    "iiif-recipe.jp2": "the common IIIF community recipe",
}
COLD_FILE = TESSERA_MADE
# Encoding: the same parameters as Tessera's defaults give a 16000×12000 image, for opj_compress.
ENCODE_PARAMS = ["-t", "1024,1024", "-n", "7", "-p", "RPCL", "-b", "64,64", "-q", "45.5", "-threads", "2"]
THUMB = 256
TOOLS = {NGINX: "nginx", "wrk": "wrk", "spawn-fcgi": "spawn-fcgi", IIPSRV: "iipimage-server", "/usr/bin/time": "time",
         "djpeg": "libjpeg-turbo-progs", "opj_compress": "libopenjp2-tools", "opj_decompress": "libopenjp2-tools",
         "vipsthumbnail": "libvips-tools", "cjxl": "libjxl-tools", "cjpeg": "libjpeg-turbo-progs"}


# ---------------------------------------------------------------- inputs

def make_jp2s(photo, directory, tessera=None):
    """The JP2 files in `directory` (on /dev/shm), made when missing or older than the JPEG, or when
    the parameters recorded beside them (.NAME.params) differ from RECIPES. Returns {name: note}."""
    directory.mkdir(parents=True, exist_ok=True)
    notes, ppm = {}, directory / f".{photo.stem}.ppm"
    try:
        for name, params in RECIPES.items():
            target, record = directory / name, directory / f".{name}.params"
            if name == TESSERA_MADE:
                if not (target.exists() and target.stat().st_mtime >= max(photo.stat().st_mtime, Path(tessera).stat().st_mtime)):
                    say(f"  tessera convert {photo.name} → {target} …")
                    start = time.perf_counter()
                    tmp = directory / f".tmp-{name}"
                    subprocess.run([tessera, "convert", str(photo), str(tmp)], check=True)
                    tmp.rename(target)
                    notes[name] = f"made in {time.perf_counter() - start:.0f} s"
                else:
                    notes[name] = "reused (newer than the photo and the binary)"
                continue
            recorded = record.read_text().strip() if record.exists() else None
            if (target.exists() and target.stat().st_size > 0 and target.stat().st_mtime >= photo.stat().st_mtime
                    and recorded in (None, shlex.join(params))):
                notes[name] = "reused" + ("" if recorded else " (made elsewhere; its parameters were not recorded)")
                continue
            if not ppm.exists():
                say(f"  djpeg {photo.name} → {ppm} …")
                tmp = ppm.with_name(ppm.name + ".tmp")
                with open(tmp, "wb") as out:
                    subprocess.run(["djpeg", "-pnm", str(photo)], stdout=out, check=True)
                tmp.rename(ppm)
            say(f"  opj_compress {shlex.join(params)} → {target} (a minute or two) …")
            tmp = directory / f".tmp-{name}"  # ends in .jp2: opj_compress picks the format by extension
            start = time.perf_counter()
            proc = subprocess.run(["opj_compress", "-i", str(ppm), "-o", str(tmp), *params],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if proc.returncode != 0 or not tmp.exists():
                tmp.unlink(missing_ok=True)
                sys.exit(f"opj_compress failed for {name}: {proc.stderr.strip()[-300:]}")
            tmp.rename(target)
            record.write_text(shlex.join(params) + "\n")
            notes[name] = f"made in {time.perf_counter() - start:.0f} s"
    finally:
        ppm.unlink(missing_ok=True)
        ppm.with_name(ppm.name + ".tmp").unlink(missing_ok=True)
    return notes


# ---------------------------------------------------------------- tessera serve

class TesseraServer(Server):
    """`tessera serve`, whose peak RSS (VmHWM) is read as it is stopped."""

    peak = None

    def stop(self):
        peaks = []
        for proc in self.procs:
            try:
                peaks += [int(line.split()[1]) * 1024 for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines()
                          if line.startswith("VmHWM:")]
            except OSError:
                pass
        self.peak = sum(peaks) or self.peak
        super().stop()


def start_tessera(template, tessera, root, cache, log, limit=30):
    """`tessera serve ROOT` on 127.0.0.1 with its cache at `cache`, once /health answers 200."""
    server = TesseraServer("tessera", "tessera serve")
    server.port = free_port()
    values = {"tessera": tessera, "root": str(root), "port": str(server.port), "cache": str(cache)}
    argv = shlex.split(template.format(**{k: shlex.quote(v) for k, v in values.items()}))
    proc = server.spawn(argv, log)
    deadline = time.monotonic() + limit
    if wait_for_port(server.port, [proc], limit):
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if get(server.base, "/health", timeout=5)[0] == 200:
                    return server
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.02)
    server.stop()
    raise RuntimeError(f"tessera serve did not start: {tail(log) or proc.returncode}")


def timed_get(server, path, expected, timeout=120):
    """Seconds from sending GET to reading its last byte (fresh connection, already accepted),
    and the body; raises unless it is a 200 JPEG of `expected` size (±1 px)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        conn.connect()
        start = time.perf_counter()
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        seconds = time.perf_counter() - start
    finally:
        conn.close()
    size = jpeg_size(body)
    if response.status != 200 or size is None or not close(size, expected):
        raise RuntimeError(f"{path}: status {response.status}, {len(body)} bytes, size {size}, expected {expected}")
    return seconds, body


def close(size, expected):
    return abs(size[0] - expected[0]) <= 1 and abs(size[1] - expected[1]) <= 1


# ---------------------------------------------------------------- helpers

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(value, digits=1):
    if value is None:
        return "—"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def dead(server):
    """Notes on any process of server that exited on its own (iipsrv crashes with SIGSEGV)."""
    found = []
    for proc in server.procs:
        code = proc.poll()
        if code is not None:
            how = f"signal {-code}" if code < 0 else f"exit {code}"
            what = "iipsrv.fcgi" if IIPSRV in proc.args else Path(proc.args[0]).name
            found.append(f"{what} (PID {proc.pid}) ended: {how}")
    return found


def cache_lookups(server):
    """{(tier, "hit"|"miss"): count} from tessera's /metrics (empty when it cannot be read)."""
    try:
        status, _, body = get(server.base, "/metrics", timeout=10)
    except (OSError, http.client.HTTPException):
        return {}
    counts = {}
    for labels, value in re.findall(r"^tessera_cache_lookups_total\{([^}]*)\} ([\d.e+]+)", body.decode(errors="replace"), re.M):
        fields = dict(re.findall(r'(\w+)="([^"]*)"', labels))
        counts[(fields.get("tier"), fields.get("result"))] = int(float(value))
    return counts


def expected_region_size(w, h, width=512):
    return width, max(1, round(h * width / w))


# ---------------------------------------------------------------- 1. serving

def serving(args, tessera, jp2_dir, work, report):
    """Both servers per file, one warm-up pass per URL set, then interleaved wrk runs."""
    sampler = Sampler()
    sampler.start()
    results = report["serving"] = {}
    try:
        for name in RECIPES:
            stem = Path(name).stem
            entry = results[name] = {"servers": {}, "sets": {}, "runs": [], "notes": []}
            servers = []
            try:
                if tessera:
                    cache = Path(tempfile.mkdtemp(prefix=f"serve-cache-{stem}-", dir=work))
                    try:
                        t = start_tessera(args.serve, tessera, jp2_dir, cache, work / f"serve-{stem}.log")
                        t.prefix = f"/iiif/3/{name}"
                        servers.append(t)
                        sampler.register(f"tessera:{name}", [p.pid for p in t.procs])
                    except RuntimeError as error:
                        entry["notes"].append(str(error))
                        say(f"  {name}: {error}")
                (work / stem).mkdir()
                i = start_iipsrv(work / stem, jp2_dir / name, args.iipsrv_processes, args.memory_cache)
                servers.append(i)
                sampler.register(f"iipsrv:{name}", [p.pid for p in i.procs])
                serve_one(args, name, servers, entry, work / stem)
            except (RuntimeError, OSError, http.client.HTTPException, ValueError) as error:
                entry["notes"].append(f"stopped: {type(error).__name__}: {error}")
                say(f"  {name}: stopped: {error}")
            finally:
                sampler.sample()
                for server in servers:
                    s = entry["servers"].setdefault(server.name, {})
                    s["dead"] = dead(server)
                    server.stop()
                    s["peak_rss"] = sampler.peak(f"{server.name}:{name}")
                    s["processes"] = sampler.processes(f"{server.name}:{name}")
                    s["notes"] = server.notes
    finally:
        sampler.stopping.set()
        sampler.join(2)
    print_serving(args, report)


def serve_one(args, name, servers, entry, work):
    regions = random_regions(args.unaligned, *PHOTO_SIZE, seed=args.seed, smallest=1000, largest=6000, box=512)
    sets = {}  # (set, server) → [(path, (w, h))]
    for server in servers:
        server.info = fetch_info(server)
        t = server.info["tiles"][0]
        scales = sorted(t.get("scaleFactors", [1]))[:3]
        tiles = [(path, size) for path, size, s, _ in tile_paths(server.prefix, server.info) if s in scales]
        random.Random(args.seed).shuffle(tiles)
        tiles = tiles[:args.aligned]
        sets[("unaligned", server.name)] = [(f"{server.prefix}/{x},{y},{w},{h}/512,/0/default.jpg",
                                             expected_region_size(w, h)) for x, y, w, h in regions]
        sets[("aligned", server.name)] = tiles
        entry["servers"][server.name] = {
            "prefix": server.prefix, "tile_size": [t["width"], t.get("height", t["width"])],
            "scale_factors": t.get("scaleFactors"), "aligned_scales": scales,
            "sizes": [[s["width"], s["height"]] for s in server.info.get("sizes", [])],
            "first_pass": {}, "bodies": {}}
    files = {}
    for (set_name, server_name), urls in sets.items():
        path = work / f"urls-{server_name}-{set_name}.txt"
        path.write_text("\n".join(u for u, _ in urls) + "\n")
        files[(set_name, server_name)] = path
        entry["sets"].setdefault(set_name, {})[server_name] = {
            "urls": len(urls), "pixels_per_url": statistics.mean(w * h for _, (w, h) in urls)}

    # Set by set, so what one set leaves in a cache is what its own runs find: one pass over the
    # list, each server alone (the first-pass rate, from empty caches), a few answers checked, then
    # the wrk runs over the same list, the servers' order alternating from run to run.
    for set_name in ("unaligned", "aligned"):
        for server in servers:
            urls = [u for u, _ in sets[(set_name, server.name)]]
            done, bad, seconds = warm(server, urls[::-1], args.connections, args.warm_limit)  # warm() pops from the end
            first = {"requests": done, "of": len(urls), "seconds": seconds, "requests_per_s": done / seconds if seconds else None,
                     "non200": {str(k): v for k, v in bad.items()}}
            entry["servers"][server.name]["first_pass"][set_name] = first
            say(f"  {name} {set_name:<9} first pass {server.name:<7} {done}/{len(urls)} in {seconds:.1f} s"
                + (f"  non-200: {bad}" if bad else ""))
            if bad:
                server.notes.append(f"{set_name} first pass answered non-200: {bad}")
            if done < len(urls):
                server.notes.append(f"{set_name} first pass stopped after {args.warm_limit} s at {done}/{len(urls)}")
            server.notes.extend(n for n in dead(server) if n not in server.notes)

        # Did they really do the work: a few answers checked, their sizes kept to compare.
        for server in servers:
            bodies = []
            for path, size in sets[(set_name, server.name)][:args.check]:
                try:
                    status, ctype, body = get(server.base, path, timeout=60)
                except (OSError, http.client.HTTPException) as error:
                    server.notes.append(f"{path}: {type(error).__name__}")
                    continue
                got = jpeg_size(body) if status == 200 else None
                if status != 200 or got is None or not close(got, size):
                    server.notes.append(f"{path} answered {status} {ctype}, {len(body)} bytes, {got} (expected {size})")
                else:
                    bodies.append(len(body))
            entry["servers"][server.name]["bodies"][set_name] = bodies

        for run in range(args.runs):
            for server in (servers if run % 2 == 0 else servers[::-1]):
                before = cache_lookups(server) if server.name == "tessera" else None
                result = run_wrk(server, files[(set_name, server.name)], args, args.seed + run)
                if before is not None:
                    after, total = cache_lookups(server), entry["servers"]["tessera"].setdefault("cache", {}).setdefault(set_name, {})
                    for key, value in after.items():
                        total["/".join(key)] = total.get("/".join(key), 0) + value - before.get(key, 0)
                gone = dead(server)
                if gone and "error" not in result:
                    result["error"] = "; ".join(gone)
                result.update({"set": set_name, "server": server.name, "run": run})
                entry["runs"].append(result)
                say(f"  {name} {set_name:<9} run {run + 1} {server.name:<7} {fmt(result['requests_per_s'])} req/s  "
                    f"p50 {fmt(result['p50_ms'], 1)} ms  p99 {fmt(result['p99_ms'], 1)} ms  {result.get('error') or 'ok'}")

    if servers and servers[0].name == "tessera":
        try:
            status, _, body = get(servers[0].base, "/metrics")
            builds = re.search(rb"^tessera_pyramid_builds_total (\d+)", body, re.M)
            if status == 200 and builds and int(builds.group(1)):
                servers[0].notes.append(f"{int(builds.group(1))} pyramid builds (none expected: JP2 is read in place)")
        except (OSError, http.client.HTTPException):
            pass

    # After the measurements: the smallest size each info.json lists, asked for whole (iipsrv 1.1
    # lists levels finer codestreams do not have, and its process may die on them).
    for server in servers:
        sizes = sorted(server.info.get("sizes", []), key=lambda z: z["width"])
        if not sizes:
            continue
        w, h = sizes[0]["width"], sizes[0]["height"]
        path = f"{server.prefix}/full/{w},{h}/0/default.jpg"
        try:
            status, ctype, body = get(server.base, path, timeout=60)
            got = jpeg_size(body) if status == 200 else None
            outcome = f"{status} {ctype}, {len(body)} bytes" + (f", {got[0]}×{got[1]}" if got else "")
        except (OSError, http.client.HTTPException) as error:
            status, outcome = None, type(error).__name__
        time.sleep(0.2)
        gone = [d for d in dead(server) if d not in server.notes]
        entry["servers"][server.name]["smallest_size_probe"] = {"path": path, "status": status, "outcome": outcome, "dead": gone}
        if status != 200 or gone:
            server.notes.append(f"after the runs, its smallest listed size {path} answered {outcome}"
                                + (f"; {'; '.join(gone)}" if gone else ""))


def summarise_serving(entry):
    """{set: {server: cell}, set: {"ratio": median of per-run ratios}}."""
    out = {}
    for set_name in ("unaligned", "aligned"):
        cells = {}
        for server_name in ("tessera", "iipsrv"):
            runs = [r for r in entry["runs"] if r["set"] == set_name and r["server"] == server_name]
            if not runs:
                continue
            errors = [r["error"] for r in runs if r.get("error")]
            ppu = entry["sets"][set_name][server_name]["pixels_per_url"]
            rps = median(r["requests_per_s"] for r in runs if not r.get("error"))
            per_response = median(r["transfer_per_s"] / r["requests_per_s"] for r in runs
                                  if r.get("transfer_per_s") and r.get("requests_per_s"))
            cells[server_name] = {"requests_per_s": rps, "mpx_per_s": rps * ppu / 1e6 if rps else None,
                                  "p50_ms": median(r["p50_ms"] for r in runs), "p99_ms": median(r["p99_ms"] for r in runs),
                                  "bytes_per_response_wrk": per_response, "error": errors[0] if errors else None}
        by_run = {}
        for r in entry["runs"]:
            if r["set"] == set_name and not r.get("error") and r["requests_per_s"]:
                by_run.setdefault(r["run"], {})[r["server"]] = r["requests_per_s"]
        ratios = [v["tessera"] / v["iipsrv"] for v in by_run.values() if "tessera" in v and "iipsrv" in v]
        ppu = {s: entry["sets"][set_name][s]["pixels_per_url"] for s in cells}
        cells["ratio"] = median(ratios)
        cells["mpx_ratio"] = (cells["ratio"] * ppu["tessera"] / ppu["iipsrv"]
                              if cells["ratio"] and "tessera" in ppu and "iipsrv" in ppu else None)
        out[set_name] = cells
    return out


def print_serving(args, report):
    say(f"\nServing JP2 (warm: after one pass over each URL list; wrk -t{args.threads} -c{args.connections} "
        f"-d{args.duration}s, median of {args.runs} interleaved runs; × = tessera ÷ iipsrv, the median of per-run ratios, "
        f"higher is better for tessera); tessera serve as "
        f"'{args.serve}'; iipsrv ×{args.iipsrv_processes} (FastCGI, OpenJPEG, MAX_IMAGE_CACHE_SIZE={args.memory_cache}) behind nginx, "
        "JPEG q75 both")
    say(f"  {'file':<17}{'set':<11}{'tessera req/s':>14}{'iipsrv req/s':>14}{'×':>7}{'tessera Mpx/s':>15}"
        f"{'iipsrv Mpx/s':>14}{'×':>7}   first pass req/s, tessera / iipsrv")
    for name, entry in report["serving"].items():
        summary = entry["summary"] = summarise_serving(entry)
        for set_name in ("unaligned", "aligned"):
            cells = summary[set_name]
            t, i = cells.get("tessera", {}), cells.get("iipsrv", {})

            def show(cell, key, digits=1):
                return "FAILED" if cell.get("error") else fmt(cell.get(key), digits)
            first = [entry["servers"].get(s, {}).get("first_pass", {}).get(set_name, {}).get("requests_per_s")
                     for s in ("tessera", "iipsrv")]
            ppu = [entry["sets"].get(set_name, {}).get(s, {}).get("pixels_per_url") for s in ("tessera", "iipsrv")]
            first_mpx = ratio(ratio(first[0], first[1]), ratio(ppu[1], ppu[0]))
            say(f"  {name if set_name == 'unaligned' else '':<17}{set_name:<11}{show(t, 'requests_per_s'):>14}"
                f"{show(i, 'requests_per_s'):>14}{fmt(cells['ratio'], 2):>7}{show(t, 'mpx_per_s'):>15}"
                f"{show(i, 'mpx_per_s'):>14}{fmt(cells['mpx_ratio'], 2):>7}   {fmt(first[0])} / {fmt(first[1])} "
                f"(× {fmt(ratio(*first), 2)}; in Mpx/s × {fmt(first_mpx, 2)})")
        servers = entry["servers"]
        peaks = [servers.get(s, {}).get("peak_rss") for s in ("tessera", "iipsrv")]
        say(f"  {'':<17}{'peak RSS MB':<11}{fmt(peaks[0] / 1e6 if peaks[0] else None):>14}"
            f"{fmt(peaks[1] / 1e6 if peaks[1] else None):>14}{fmt(ratio(*peaks), 2):>7}")
    say("  notes:")
    for name, entry in report["serving"].items():
        say(f"    {name} ({ABOUT[name]}):")
        for note in entry["notes"]:
            say(f"      {note}")
        for server_name, s in entry["servers"].items():
            if "tile_size" not in s or server_name not in entry["sets"].get("aligned", {}):
                continue
            sets = entry["sets"]
            bits = [f"tiles {s['tile_size'][0]}×{s['tile_size'][1]}, scale factors {s['scale_factors']} "
                    f"(aligned set: {sets['aligned'][server_name]['urls']} tiles at {s['aligned_scales']}, "
                    f"{sets['aligned'][server_name]['pixels_per_url'] / 1e6:.2f} Mpx each on average)",
                    f"sizes {' '.join(f'{w}×{h}' for w, h in s['sizes'])}"]
            for set_name in ("unaligned", "aligned"):
                bodies = s["bodies"].get(set_name) or []
                wrk_bytes = entry["summary"][set_name].get(server_name, {}).get("bytes_per_response_wrk")
                if bodies and wrk_bytes and wrk_bytes < 0.5 * median(bodies):
                    s.setdefault("notes", []).append(f"{set_name}: wrk moved {wrk_bytes / 1024:.1f} KiB per response, "
                                                     f"under half the {median(bodies) / 1024:.1f} KiB checked: errors?")
                if bodies or wrk_bytes:
                    bits.append(f"{set_name} bodies checked: {len(bodies)} ok, median {fmt(median(bodies) / 1024 if bodies else None)} KiB"
                                f" (wrk: {fmt(wrk_bytes / 1024 if wrk_bytes else None)} KiB per response with headers)")
            for set_name, counts in s.get("cache", {}).items():
                shares = []
                for tier in ("response", "decoded"):
                    hit, miss = counts.get(f"{tier}/hit", 0), counts.get(f"{tier}/miss", 0)
                    if hit + miss:
                        shares.append(f"{tier} {100 * hit / (hit + miss):.0f}% of {hit + miss:,}")
                if shares:
                    bits.append(f"{set_name} wrk runs hit its memory cache: " + ", ".join(shares))
            if s.get("processes"):
                bits.append("peak RSS " + " + ".join(f"{p['name']} {p['peak_rss'] / 1e6:.1f}" for p in
                                                     sorted(s["processes"], key=lambda p: -p["peak_rss"])) + " MB")
            say(f"      {server_name}: " + "; ".join(bits))
            for set_name in ("unaligned", "aligned"):
                cell = entry["summary"][set_name].get(server_name, {})
                if cell.get("error"):
                    say(f"        {set_name} FAILED: {cell['error']}")
            for note in s.get("notes", []) + [d for d in s.get("dead", []) if not any(d in n for n in s.get("notes", []))]:
                say(f"        {note}")
        t_bodies = entry["servers"].get("tessera", {}).get("bodies", {}).get("unaligned")
        i_bodies = entry["servers"].get("iipsrv", {}).get("bodies", {}).get("unaligned")
        if t_bodies and i_bodies and len(t_bodies) == len(i_bodies):
            say(f"      same unaligned URLs, body size tessera / iipsrv: median {statistics.median(a / b for a, b in zip(t_bodies, i_bodies)):.2f}")


# ---------------------------------------------------------------- 2. cold tiles

# ---------------------------------------------------------------- 1b. the decode floor

def decode_floor(args, jp2_dir, work, report):
    """What OpenJPEG alone spends per unaligned region of the serving part: `opj_decompress -d
    REGION -r R` (one thread) of each of the first --floor-regions regions, at the resolution level
    both servers decode it at (the coarsest whose pixels still cover the 512-px output), in CPU
    seconds from the kernel, less what the same command spends on a 1×1 region of the coarsest
    level (process start, main and tile-part headers, writing a file). The inverse, times the
    cores, estimates the most requests a second a server decoding each region with OpenJPEG could
    answer. Only an estimate: the tool's own output (a byte-by-byte PNM writer) is in it, and
    iipsrv has been measured above it (docs/benchmarks.md, JPEG 2000)."""
    regions = random_regions(args.unaligned, *PHOTO_SIZE, seed=args.seed, smallest=1000, largest=6000, box=512)
    regions = regions[:args.floor_regions]
    out = work / "floor.ppm"
    cores = os.cpu_count() or 1
    report["floor"] = {}
    say(f"\nDecode floor of the unaligned regions ({len(regions)} of the serving part's, → 512 px; opj_decompress "
        f"-threads 1 per region, CPU seconds from rusage, less a 1×1 region's; median of {args.runs} per region)")
    for name in RECIPES:
        source = str(jp2_dir / name)
        levels = 7  # both files' resolution levels (RECIPES' -n 7, Tessera's default for this size)

        def cpu(extra):
            samples = []
            for _ in range(args.runs):
                before = os.times()
                subprocess.run(["opj_decompress", "-quiet", "-i", source, "-o", str(out), *extra], env=opj_env(),
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                after = os.times()
                samples.append((after.children_user - before.children_user) + (after.children_system - before.children_system))
                out.unlink(missing_ok=True)
            return statistics.median(samples)

        base = cpu(["-r", str(levels - 1), "-d", "0,0,1,1"])
        per_region, pixels = [], []
        for x, y, w, h in regions:
            ow, oh = expected_region_size(w, h)
            density = max(ow / w, oh / h)
            r = min(levels - 1, max(0, math.floor(-math.log2(density) + 1e-9)))
            per_region.append(max(cpu(["-r", str(r), "-d", f"{x},{y},{x + w},{y + h}"]) - base, 0.0))
            pixels.append(math.ceil(w / 2 ** r) * math.ceil(h / 2 ** r))
        mean = statistics.mean(per_region)
        ceiling = cores / mean if mean else None
        entry = report["floor"][name] = {"regions": len(regions), "baseline_cpu_s": base, "mean_cpu_s": mean,
                                         "median_cpu_s": statistics.median(per_region), "mean_level_pixels": statistics.mean(pixels),
                                         "ceiling_requests_per_s": ceiling, "cores": cores}
        served = report.get("serving", {}).get(name, {})
        iipsrv = summarise_serving(served).get("unaligned", {}).get("iipsrv", {}).get("requests_per_s") if served else None
        line = (f"  {name:<22} mean {mean * 1000:.0f} ms CPU a region (median {entry['median_cpu_s'] * 1000:.0f}; baseline "
                f"{base * 1000:.0f} ms; {entry['mean_level_pixels'] / 1e6:.2f} Mpx decoded a region): at most "
                f"{fmt(ceiling)} req/s on {cores} cores")
        if iipsrv:
            entry["iipsrv_requests_per_s"] = iipsrv
            line += f"; iipsrv served {iipsrv:.1f}, so 2× iipsrv ({2 * iipsrv:.1f}) is {2 * iipsrv / ceiling:.2f}× the ceiling"
        say(line)
        # The same for aligned 256-px tiles of the 3 finest levels (iipsrv's tiles of either file):
        # what OpenJPEG alone spends on one, so what 5× iipsrv's tile rate asks of any server.
        rng = random.Random(args.seed + 11)
        tile_cpu = []
        for _ in range(args.floor_regions):
            scale = rng.choice([1, 2, 4])
            side = 256 * scale
            column, row = rng.randrange(math.ceil(PHOTO_SIZE[0] / side)), rng.randrange(math.ceil(PHOTO_SIZE[1] / side))
            x, y = column * side, row * side
            area = f"{x},{y},{min(x + side, PHOTO_SIZE[0])},{min(y + side, PHOTO_SIZE[1])}"
            tile_cpu.append(max(cpu(["-r", str(int(math.log2(scale))), "-d", area]) - base, 0.0))
        tile_mean = statistics.mean(tile_cpu)
        tile_ceiling = cores / tile_mean if tile_mean else None
        entry.update({"tile_mean_cpu_s": tile_mean, "tile_ceiling_requests_per_s": tile_ceiling})
        line = (f"  {'':<22} aligned 256-px tiles of the 3 finest levels: mean {tile_mean * 1000:.0f} ms CPU a tile: at most "
                f"{fmt(tile_ceiling)} tiles/s on {cores} cores")
        tiles = summarise_serving(served).get("aligned", {}).get("iipsrv", {}).get("requests_per_s") if served else None
        if tiles and tile_ceiling:
            entry["iipsrv_tiles_per_s"] = tiles
            line += f"; iipsrv served {tiles:.1f}, so 5× iipsrv ({5 * tiles:.1f}) is {5 * tiles / tile_ceiling:.2f}× the ceiling"
        say(line)


def opj_env():
    env = dict(os.environ)
    env.pop("OPJ_NUM_THREADS", None)
    return env


def cold(args, tessera, jp2_dir, work, report):
    source = jp2_dir / COLD_FILE
    # Tile size and scale factors, from a server that is then discarded.
    cache = Path(tempfile.mkdtemp(prefix="cold-info-", dir=work))
    server = start_tessera(args.serve, tessera, jp2_dir, cache, work / "cold-info.log")
    try:
        server.prefix = f"/iiif/3/{COLD_FILE}"
        info = fetch_info(server)
    finally:
        server.stop()
        shutil.rmtree(cache, ignore_errors=True)
    t = info["tiles"][0]
    tw, th = t["width"], t.get("height", t["width"])
    width, height = info["width"], info["height"]
    scales = sorted(t["scaleFactors"])
    cases = []  # (label, path, expected size, opj arguments)
    for s in scales[-3:][::-1]:
        w, h = min(tw * s, width), min(th * s, height)
        r = int(math.log2(s))
        # A tile that is the whole level is compared with the whole level's decode; a tile that is
        # part of it, with the decode of that part (-d is in full-resolution coordinates).
        whole = (w, h) == (width, height)
        opj = ["-r", str(r)] + ([] if whole else ["-d", f"0,0,{w},{h}"])
        cases.append((f"tile 0,0 at scale {s} ({math.ceil(w / s)}×{math.ceil(h / s)} of level "
                      f"{math.ceil(width / s)}×{math.ceil(height / s)})",
                      f"/iiif/3/{COLD_FILE}/0,0,{w},{h}/{math.ceil(w / s)},{math.ceil(h / s)}/0/default.jpg",
                      (math.ceil(w / s), math.ceil(h / s)), opj, " ".join(opj) + (" (whole level)" if whole else " (that tile)")))
    column, row = (width // 2) // tw, (height // 2) // th
    x, y = column * tw, row * th
    w, h = min(tw, width - x), min(th, height - y)
    cases.append((f"full-resolution tile {x},{y},{w},{h} (middle)", f"/iiif/3/{COLD_FILE}/{x},{y},{w},{h}/{w},{h}/0/default.jpg",
                  (w, h), ["-d", f"{x},{y},{x + w},{y + h}"], f"-d {x},{y},{x + w},{y + h}"))
    out = work / "opj-out.ppm"
    samples = {label: {"tessera": [], "tessera_rss": [], "opj": [], "opj_rss": [], "opj2": [], "opj2_rss": []}
               for label, *_ in cases}
    errors = {}
    for run in range(args.runs):
        for label, path, size, opj_args, _ in cases:
            if label in errors:
                continue
            sample = samples[label]
            for key, extra in (("opj", []), ("opj2", ["-threads", "2"])):
                seconds, peak, code, stderr = run_once(["opj_decompress", "-quiet", "-i", str(source), "-o", str(out),
                                                        *opj_args, *extra], opj_env())
                if code != 0:
                    errors[label] = f"opj_decompress {' '.join(opj_args + extra)}: {(stderr.splitlines() or [f'exit {code}'])[-1]}"
                    break
                sample[key].append(seconds)
                sample[f"{key}_rss"].append(peak)
                out.unlink(missing_ok=True)
            if label in errors:
                continue
            cache = Path(tempfile.mkdtemp(prefix="cold-cache-", dir=work))
            server = None
            try:
                server = start_tessera(args.serve, tessera, jp2_dir, cache, work / "cold.log")
                seconds, _ = timed_get(server, path, size)
                sample["tessera"].append(seconds)
            except (RuntimeError, OSError, http.client.HTTPException) as error:
                errors[label] = f"tessera: {error}"
            finally:
                if server:
                    server.stop()
                    sample["tessera_rss"].append(server.peak)
                shutil.rmtree(cache, ignore_errors=True)
    rows = report["cold"] = {"file": COLD_FILE, "tile_size": [tw, th], "scale_factors": scales, "rows": {}}
    for label, path, size, opj_args, opj_label in cases:
        s = samples[label]
        ratios = [a / b for a, b in zip(s["tessera"], s["opj"])]
        ratios2 = [a / b for a, b in zip(s["tessera"], s["opj2"])]
        rows["rows"][label] = {"path": path, "opj": opj_label, "tessera_s": median(s["tessera"]), "opj_s": median(s["opj"]),
                               "opj_threads2_s": median(s["opj2"]), "ratio": median(ratios), "ratio_threads2": median(ratios2),
                               "tessera_peak_rss": max(filter(None, s["tessera_rss"]), default=None), "opj_peak_rss": max(s["opj_rss"], default=None),
                               "opj_threads2_peak_rss": max(s["opj2_rss"], default=None), "error": errors.get(label),
                               "samples": s}
    say(f"\nCold first tile of {COLD_FILE} (a fresh tessera serve per sample, empty cache on /dev/shm, timed from request "
        f"to last byte; opj_decompress to PPM on /dev/shm through GNU time, its default threads: 1 (OPJ_NUM_THREADS unset); "
        f"median of {args.runs} interleaved runs; × = tessera ÷ opj_decompress, the median of per-run ratios, lower is "
        f"better for tessera; tessera's tiles {tw}×{th}, scale factors {scales})")
    say(f"  {'request':<50}{'tessera s':>10}{'opj s':>8}{'×':>6}{'opj -threads 2':>16}{'×':>6}"
        f"{'peak MB t / opj / opj2':>26}   opj_decompress")
    for label, row in rows["rows"].items():
        if row["error"]:
            say(f"  {label:<50}FAILED: {row['error'][:200]}")
            continue
        peaks = "/".join(fmt(row[k] / 1e6 if row[k] else None, 0) for k in ("tessera_peak_rss", "opj_peak_rss", "opj_threads2_peak_rss"))
        say(f"  {label:<50}{fmt(row['tessera_s'], 3):>10}{fmt(row['opj_s'], 3):>8}{fmt(row['ratio'], 2):>6}"
            f"{fmt(row['opj_threads2_s'], 3):>16}{fmt(row['ratio_threads2'], 2):>6}{peaks:>26}   {row['opj']}")


# ---------------------------------------------------------------- 2b. the layout sweep

# How Tessera's defaults were chosen: the same photo coded several ways (opj_compress, one layer at
# Tessera's default 45.5 dB, 7 resolution levels, 64×64 code blocks, two threads), each file served
# cold by a fresh `tessera serve` and a fresh iipsrv, their first pass over the same random
# unaligned regions and over their own aligned tiles timed. name → what differs.
SWEEP_COMMON = ["-n", "7", "-b", "64,64", "-q", "45.5", "-threads", "2"]
SWEEP = {
    "sweep-t1024-rpcl.jp2": ["-t", "1024,1024", "-p", "RPCL"],
    "sweep-t512-rpcl.jp2": ["-t", "512,512", "-p", "RPCL"],
    "sweep-t256-rpcl.jp2": ["-t", "256,256", "-p", "RPCL"],
    "sweep-t1024-lrcp.jp2": ["-t", "1024,1024", "-p", "LRCP"],
    "sweep-t1024-p256-rpcl.jp2": ["-t", "1024,1024", "-c", "[256,256]", "-p", "RPCL"],
    "sweep-untiled-p256-rpcl-plt.jp2": ["-c", "[256,256]", "-p", "RPCL", "-PLT", "-TLM"],
}


def sweep(args, tessera, photo, jp2_dir, work, report):
    """Each layout of SWEEP served cold by both servers: regions → 512 px and aligned tiles."""
    saved = dict(RECIPES)
    RECIPES.clear()
    RECIPES.update({name: params + SWEEP_COMMON for name, params in SWEEP.items()})
    try:
        notes = make_jp2s(photo, jp2_dir)
    finally:
        RECIPES.clear()
        RECIPES.update(saved)
    regions = random_regions(args.sweep_urls, *PHOTO_SIZE, seed=args.seed + 7, smallest=1000, largest=6000, box=512)
    rows = report["sweep"] = {}
    say(f"\nLayouts, served cold ({args.sweep_urls} random unaligned regions → 512 px, and {args.sweep_urls} random aligned tiles of "
        f"each server's own 3 finest levels; first pass from empty caches, {args.connections} clients; a fresh server of each "
        f"kind per file; opj_compress {shlex.join(SWEEP_COMMON)} plus what the name says)")
    say(f"  {'file':<34}{'MB':>6}{'regions req/s t / iip':>24}{'×':>6}{'tiles Mpx/s t / iip':>22}{'×':>6}   tiles t / iip")
    for name in SWEEP:
        row = rows[name] = {"params": SWEEP[name] + SWEEP_COMMON, "bytes": (jp2_dir / name).stat().st_size, "made": notes.get(name)}
        servers = []
        try:
            cache = Path(tempfile.mkdtemp(prefix="sweep-cache-", dir=work))
            t = start_tessera(args.serve, tessera, jp2_dir, cache, work / f"sweep-{name}.log")
            t.prefix = f"/iiif/3/{name}"
            servers.append(t)
            directory = work / f"sweep-{Path(name).stem}"
            directory.mkdir(exist_ok=True)
            servers.append(start_iipsrv(directory, jp2_dir / name, args.iipsrv_processes, args.memory_cache))
            for server in servers:
                info = fetch_info(server)
                tiles = info["tiles"][0]
                scales = sorted(tiles.get("scaleFactors", [1]))[:3]
                aligned = [(path, size) for path, size, scale, _ in tile_paths(server.prefix, info) if scale in scales]
                random.Random(args.seed + 7).shuffle(aligned)
                aligned = aligned[:args.sweep_urls]
                cell = row.setdefault(server.name, {"tile": [tiles["width"], tiles.get("height", tiles["width"])]})
                for set_name, urls in (("regions", [f"{server.prefix}/{x},{y},{w},{h}/512,/0/default.jpg" for x, y, w, h in regions]),
                                       ("tiles", [path for path, _ in aligned])):
                    done, bad, seconds = warm(server, urls[::-1], args.connections, args.warm_limit)
                    cell[set_name] = {"requests_per_s": done / seconds if seconds and not bad and done == len(urls) else None,
                                      "done": done, "of": len(urls), "non200": {str(k): v for k, v in bad.items()}}
                    if set_name == "tiles":
                        cell["tile_pixels"] = statistics.mean(w * h for _, (w, h) in aligned)
                    if bad or done < len(urls):
                        row.setdefault("notes", []).append(f"{server.name} {set_name}: {done}/{len(urls)}, non-200 {bad}")
        except (RuntimeError, OSError, http.client.HTTPException, ValueError) as error:
            row.setdefault("notes", []).append(f"stopped: {type(error).__name__}: {error}")
        finally:
            for server in servers:
                server.stop()
        t, i = row.get("tessera", {}), row.get("iipsrv", {})
        regions_t, regions_i = t.get("regions", {}).get("requests_per_s"), i.get("regions", {}).get("requests_per_s")
        mpx = [c.get("tiles", {}).get("requests_per_s") and c["tiles"]["requests_per_s"] * c["tile_pixels"] / 1e6 for c in (t, i)]
        row["regions_ratio"], row["tiles_mpx"], row["tiles_mpx_ratio"] = ratio(regions_t, regions_i), mpx, ratio(*mpx)
        tiles = " / ".join(f"{c['tile'][0]}" if c.get("tile") else "—" for c in (t, i))
        say(f"  {name:<34}{row['bytes'] / 1e6:>6.1f}{fmt(regions_t) + ' / ' + fmt(regions_i):>24}{fmt(row['regions_ratio'], 2):>6}"
            f"{fmt(mpx[0]) + ' / ' + fmt(mpx[1]):>22}{fmt(row['tiles_mpx_ratio'], 2):>6}   {tiles}")
        for note in row.get("notes", []):
            say(f"      {note}")


# ---------------------------------------------------------------- 3. thumbnails

def make_jxls(photo, directory):
    """Two JPEG XL files of a 6000×4500 reduction of the photo (a camera's size; cjxl on the whole
    16000×12000 would take minutes and gigabytes): coded from pixels at distance 1 (cjxl's default
    quality) and the JPEG recompressed losslessly (what `cjxl` does to a JPEG by default, and what
    most JXL files on the web are). Made when missing. Returns {name: about}."""
    made = {"photo-d1.jxl": "6000×4500 coded from pixels, cjxl -d 1 -e 7",
            "photo-recompressed.jxl": "6000×4500 JPEG recompressed losslessly by cjxl"}
    jpeg, ppm = directory / ".photo-6000.jpg", directory / ".photo-6000.ppm"
    try:
        for name, about in made.items():
            if (directory / name).exists() and (directory / name).stat().st_mtime >= photo.stat().st_mtime:
                continue
            if not ppm.exists():
                with open(ppm, "wb") as out:
                    subprocess.run(["djpeg", "-scale", "3/8", "-pnm", str(photo)], stdout=out, check=True)
            if name == "photo-d1.jxl":
                command = ["cjxl", str(ppm), str(directory / name), "-d", "1", "-e", "7", "--num_threads", "2", "--quiet"]
            else:
                subprocess.run(["cjpeg", "-quality", "90", "-outfile", str(jpeg), str(ppm)], check=True)
                command = ["cjxl", str(jpeg), str(directory / name), "--lossless_jpeg=1", "--num_threads", "2", "--quiet"]
            say(f"  {shlex.join(command)} …")
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        jpeg.unlink(missing_ok=True)
        ppm.unlink(missing_ok=True)
    return made


def thumbnails(args, tessera, photo, jp2_dir, work, report):
    say(f"\nThumbnails of the JP2 and JXL files to {THUMB} px (JPEG q75 both; median of {args.runs} interleaved runs, "
        "peak RSS per process through GNU time; × tessera = the tool ÷ tessera)")
    report["thumbnails"] = {}
    about = dict(ABOUT) | make_jxls(photo, jp2_dir)
    for name in list(RECIPES) + [n for n in about if n.endswith(".jxl")]:
        source = str(jp2_dir / name)
        outputs = {"tessera": work / "thumb-tessera.jpg", "vipsthumbnail": work / "thumb-vips.jpg"}
        cases = [("tessera", [tessera, "thumbnail", source, "--max-pixel-size", str(THUMB), "--output",
                              str(outputs["tessera"]), "--quality", "75"]),
                 ("vipsthumbnail", ["vipsthumbnail", source, "-s", str(THUMB), "-o", f"{outputs['vipsthumbnail']}[Q=75]"])]
        results = compare(cases, runs=args.runs)
        table(f"{name} ({about[name]})", results)
        checks = {}
        for tool, path in outputs.items():
            body = path.read_bytes() if path.exists() else b""
            checks[tool] = {"size": jpeg_size(body), "bytes": len(body)}
            path.unlink(missing_ok=True)
        say("  outputs: " + "; ".join(f"{tool} {c['size'][0]}×{c['size'][1]} {c['bytes'] / 1024:.1f} KiB" if c["size"]
                                      else f"{tool} NO JPEG" for tool, c in checks.items()))
        report["thumbnails"][name] = {"results": {k: {"seconds": v[0], "peak_rss": v[1], "error": v[2]}
                                                  for k, v in results.items()}, "outputs": checks}


def encoding(args, tessera, photo, work, report):
    """A 16000×12000 TIFF (uncompressed, on /dev/shm) to JP2: `tessera convert` with its defaults
    beside `opj_compress` with the same parameters, two threads each."""
    tiff = work / "photo.tif"
    subprocess.run(["vips", "copy", str(photo), str(tiff)], check=True)
    outputs = {"tessera": work / "encoded-tessera.jp2", "opj_compress": work / "encoded-opj.jp2"}
    say(f"\nEncoding {tiff.name} ({tiff.stat().st_size / 1e6:.0f} MB TIFF) to JP2 (median of {args.runs}; peak RSS; "
        f"opj_compress {shlex.join(ENCODE_PARAMS)})")
    cases = [("tessera", [tessera, "convert", str(tiff), str(outputs["tessera"])]),
             ("opj_compress", ["opj_compress", "-i", str(tiff), "-o", str(outputs["opj_compress"]), *ENCODE_PARAMS])]
    results = compare(cases, runs=args.runs)
    table("TIFF → JP2", results)
    sizes = {tool: path.stat().st_size if path.exists() else 0 for tool, path in outputs.items()}
    say("  outputs: " + "; ".join(f"{tool} {size / 1e6:.1f} MB" for tool, size in sizes.items()))
    report["encode"] = {"results": {k: {"seconds": v[0], "peak_rss": v[1], "error": v[2]} for k, v in results.items()},
                        "bytes": sizes, "opj_compress": ENCODE_PARAMS}
    for path in [tiff, *outputs.values()]:
        path.unlink(missing_ok=True)


# ---------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tessera", help="the tessera release binary")
    parser.add_argument("inputs", help="bench-out/inputs; photo-16000x12000.jpg is made there if missing")
    parser.add_argument("--jp2-dir", default="/dev/shm/jp2bench", help="where the JP2 files are kept or made, on /dev/shm")
    parser.add_argument("--runs", type=int, default=3, help="runs of everything, interleaved; medians (default 3)")
    parser.add_argument("--parts", default="serve,floor,cold,thumb,encode",
                        help="comma-separated: serve, floor, cold, sweep, thumb, encode (sweep is not in the default: "
                             "about 15 minutes, run when the defaults are reconsidered)")
    parser.add_argument("--sweep-urls", type=int, default=60, help="regions and tiles per server and file in the sweep (default 60)")
    parser.add_argument("--floor-regions", type=int, default=40, help="unaligned regions the decode floor is measured on (default 40)")
    add_wrk_arguments(parser, connections=8, wrk_timeout=30, connections_help="wrk connections, and the first pass's")
    parser.add_argument("--unaligned", type=int, default=300, help="random regions per file (default 300)")
    parser.add_argument("--aligned", type=int, default=300, help="at most this many tiles per server and file (default 300)")
    parser.add_argument("--check", type=int, default=5, help="answers of each set checked and sized per server (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warm-limit", type=int, default=300, help="seconds at most for each first pass (default 300)")
    parser.add_argument("--iipsrv-processes", type=int, default=2)
    parser.add_argument("--serve", default=os.environ.get("TESSERA_SERVE", DEFAULT_SERVE),
                        help="command line template of tessera serve, with {tessera} {root} {port} {cache} "
                             "(default: $TESSERA_SERVE or serving_bench.py's: '%(default)s')")
    parser.add_argument("--memory-cache", type=int, default=20,
                        help="MiB of memory cache for each server: tessera serve's --memory-cache (replacing the template's) "
                             "and iipsrv's MAX_IMAGE_CACHE_SIZE (default 20)")
    parser.add_argument("--json", help="write every number measured to this file")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    args.serve = re.sub(r"\s*--memory-cache[ =]\S+", "", args.serve) + f" --memory-cache {args.memory_cache}"

    missing = sorted({pkg for tool, pkg in TOOLS.items() if not shutil.which(tool) and not os.access(tool, os.X_OK)})
    if missing:
        sys.exit("jp2_bench: missing tools; apt-get install " + " ".join(missing))
    tessera = str(Path(args.tessera).resolve())
    if not os.access(tessera, os.X_OK):
        sys.exit(f"jp2_bench: no tessera binary at {args.tessera}")
    jp2_dir = Path(args.jp2_dir).resolve()
    if not SHM.is_dir() or not os.access(SHM, os.W_OK) or SHM.resolve() not in jp2_dir.parents:
        sys.exit(f"jp2_bench: the JP2 files and caches go on /dev/shm, not {jp2_dir}")
    # SIGTERM ends the run through the finally blocks, which stop every server by PID.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    say(f"\nJPEG 2000 ({PHOTO_SIZE[0]}×{PHOTO_SIZE[1]} photo-like JPEG → JP2 on {jp2_dir}; load average "
        f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores at start)")
    photo = make_photo(Path(args.inputs)).resolve()
    made = make_jp2s(photo, jp2_dir, tessera)
    report = {"config": {k: v for k, v in vars(args).items() if k != "json"}, "photo": str(photo), "jp2": {},
              "load_average_at_start": os.getloadavg(), "cpus": os.cpu_count()}
    for name, params in RECIPES.items():
        report["jp2"][name] = {"opj_compress": params, "bytes": (jp2_dir / name).stat().st_size, "note": made[name]}
        say(f"  {name}: {ABOUT[name]}: {('opj_compress ' + shlex.join(params)) if params else 'tessera convert'}; "
            f"{(jp2_dir / name).stat().st_size / 1e6:.1f} MB; {made[name]}")

    work = Path(tempfile.mkdtemp(prefix="tessera-jp2-bench-", dir=SHM))
    try:
        if "serve" in parts:
            serving(args, tessera, jp2_dir, work, report)
        if "floor" in parts:
            decode_floor(args, jp2_dir, work, report)
        if "cold" in parts:
            cold(args, tessera, jp2_dir, work, report)
        if "sweep" in parts:
            sweep(args, tessera, photo, jp2_dir, work, report)
        if "thumb" in parts:
            thumbnails(args, tessera, photo, jp2_dir, work, report)
        if "encode" in parts:
            encoding(args, tessera, photo, work, report)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(report, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
