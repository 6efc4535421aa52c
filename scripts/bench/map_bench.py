#!/usr/bin/env python3
"""Maps: `tessera serve` beside TiTiler 2.4 (titiler.application under uvicorn, 2 workers: FastAPI +
rio-tiler + rasterio's GDAL), on 127.0.0.1 only, in one run, on a Sentinel-2-like scene made once
into INPUTS/maps by scripts/make-map-fixtures.py --scene (10980² RGB, UTM 33N, 10 m):

  Warped      scene-utm-jpeg.tif (a JPEG COG in UTM): Web Mercator tiles of its three deepest zooms
              (z12–z14) that show it,
              seeded order, PNG (level 2 for Tessera's, GDAL's default 6 for TiTiler's), nearest
              (both servers' default). First pass: 8 keep-alive clients
              over tiles never asked before, from a fresh server, for at most --first-pass seconds
              (tiles/s, every status checked); warm: wrk drawing at random from the tiles the first
              pass asked (--warm-tiles of them, 300: what a view and its neighbours hold; req/s,
              statuses audited as in serving_bench.py).
  Aligned     scene-mercator-jpeg.tif (its GoogleMapsCompatible twin with a mask) as JPEG, the same:
              Tessera passes the stored tiles of its native zoom through and makes the others;
              TiTiler decodes, warps and encodes each.
  Pass-through  the aligned scene's interior tiles at its native zoom as JPEG: Tessera answers
              them with the stored tiles (the stored_tile_passthrough counter must grow by as many
              as were asked, so no pixel was decoded) beside nginx serving those same bytes as
              files (req/s, wrk).
  Memory      peak RSS: Tessera's process beside the largest TiTiler worker.
  Soak        (--soak SECONDS, 300 by default, 0 to skip) random tiles z10–z15 of the warped scene
              from wrk for SECONDS: Tessera's RSS at the end over its RSS after a 30-s warm-up.

    map_bench.py TESSERA INPUTS [--runs 3] [--duration 10] [--first-pass 30] [--soak 300] [--json PATH]
"""
import argparse
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import free_port, jpeg_size, say  # noqa: E402
import slide_bench  # noqa: E402
from serving_bench import (Sampler, Server, add_wrk_arguments, get, memory_kib, start_nginx_static,  # noqa: E402
                           stop_all, wait_for_port, warm, wrk)

ROOT = Path(__file__).resolve().parents[2]
TITILER = ROOT / ".build" / "map-bench-venv" / "bin" / "uvicorn"
HALF = 20037508.342789244
WARPED, ALIGNED = "scene-utm-jpeg.tif", "scene-mercator-jpeg.tif"


def make_scene(inputs):
    folder = Path(inputs) / "maps"
    if not (folder / ALIGNED).exists():
        say("making the Sentinel-2-like scene (once)…")
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(ROOT / ".build" / "browser-venv" / "bin" / "python"), str(ROOT / "scripts" / "make-map-fixtures.py"),
                        str(folder), "--scene"], check=True)
    return folder


def tiles(bounds, zooms, inset=1e-9):
    """(z, x, y) of every tile of `zooms` inside bounds (west, south, east, north, degrees)."""
    west, south, east, north = bounds
    def tile(lon, lat, z):
        n = 1 << z
        y = (1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n
        return int((lon + 180) / 360 * n), int(y)
    found = []
    for z in zooms:
        (x0, y0), (x1, y1) = tile(west + inset, north - inset, z), tile(east - inset, south + inset, z)
        found += [(z, x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
    return found


def start_tessera(tessera, root, work, sampler):
    server = slide_bench.start_tessera(tessera, root, work, sampler)
    server.path = lambda name, z, x, y, ext="png": f"/maps/{name}/{z}/{x}/{y}.{ext}"
    return server


def start_titiler(root, work, sampler):
    server = Server("titiler", "TiTiler 2.4 (uvicorn, 2 workers)")
    server.port = free_port()
    proc = server.spawn([str(TITILER), "titiler.application.main:app", "--host", "127.0.0.1", "--port", str(server.port), "--workers", "2",
                         "--no-access-log", "--log-level", "warning"], Path(work) / "titiler.log")
    if not wait_for_port(server.port, [proc], 60):
        raise RuntimeError("TiTiler did not start")
    sampler.register(server.name, [proc.pid])
    server.path = lambda name, z, x, y, ext="png": f"/cog/tiles/WebMercatorQuad/{z}/{x}/{y}.{ext}?url={root}/{name}"
    return server


def checked_first_pass(server, paths, limit):
    """Tiles per second over `paths` never asked before (8 clients, at most `limit` seconds), the
    first three checked by hand to be 256-px PNGs or JPEGs."""
    for path in paths[:3]:
        status, kind, body = get(server.base, path, timeout=120)
        size = (int.from_bytes(body[16:20], "big"),) * 2 if body.startswith(b"\x89PNG") else jpeg_size(body)
        if status != 200 or size != (256, 256):
            raise RuntimeError(f"{server.name}: {path} answered {status} {kind} {body[:60]!r}")
    done, bad, seconds = warm(server, paths[3:], 8, limit)
    if bad:
        raise RuntimeError(f"{server.name} first pass: {bad}")
    return {"tiles": done, "seconds": seconds, "tiles_per_s": done / seconds}


def passthroughs(server):
    metrics = get(server.base, "/metrics")[2].decode()
    return int(float(re.search(r'tessera_request_steps_total\{step="stored_tile_passthrough"\} (\S+)', metrics).group(1)))


def bounds_of(server, name):
    return json.loads(get(server.base, f"/maps/{name}/tilejson.json")[2])["bounds"]


def one_run(args, root, work, seed):
    work.mkdir(parents=True, exist_ok=True)
    sampler = Sampler()
    sampler.start()
    servers = []
    try:
        tessera, titiler = start_tessera(args.tessera, root, work, sampler), start_titiler(root, work, sampler)
        servers += [tessera, titiler]
        result = {}
        for label, name, ext in (("warped", WARPED, "png"), ("aligned", ALIGNED, "jpg")):
            # Tiles both serve: TiTiler's bounds are the raster's corners, Tessera's its bowed edges;
            # the map's three deepest zooms (its own pixels' and two of its overviews').
            theirs = json.loads(get(titiler.base, f"/cog/WebMercatorQuad/tilejson.json?url={root}/{name}")[2])["bounds"]
            document = json.loads(get(tessera.base, f"/maps/{name}/tilejson.json")[2])
            ours, zooms = document["bounds"], range(document["maxzoom"] - 2, document["maxzoom"] + 1)
            # Inset by a tile of the deepest zoom: the last tiles along an edge are a matter of rounding.
            inset = 360 / (1 << max(zooms))
            places = tiles([max(ours[0], theirs[0]), max(ours[1], theirs[1]), min(ours[2], theirs[2]), min(ours[3], theirs[3])], zooms, inset)
            random.Random(seed).shuffle(places)
            result[label] = {}
            passed_before = passthroughs(tessera)
            for server in (tessera, titiler):
                paths = [server.path(name, *place, ext) for place in places]
                first = checked_first_pass(server, paths, args.first_pass)
                asked = paths[:3 + first["tiles"]]
                # Warm: a view's worth of tiles (--warm-tiles), all within the response cache.
                result[label][server.name] = {**first, "warm_per_s": slide_bench.wrk_rate(server, asked[:args.warm_tiles], args, work, seed)}
            # The first pass's tiles at the map's own zoom that were its stored tiles (no decode).
            native = sum(1 for place in places[:3 + result[label]["tessera"]["tiles"]] if place[0] == zooms[-1])
            result[label]["tessera"]["native_tiles"], result[label]["tessera"]["passed_through"] = native, passthroughs(tessera) - passed_before
            say(f"  {label}: first pass {result[label]['tessera']['tiles_per_s']:.0f} vs {result[label]['titiler']['tiles_per_s']:.1f} tiles/s, "
                f"warm {result[label]['tessera']['warm_per_s']:.0f} vs {result[label]['titiler']['warm_per_s']:.1f} req/s")
        result["passthrough"] = passthrough_run(args, tessera, sampler, servers, work, seed)
        result["memory"] = {"tessera": sampler.peak("tessera"),
                            "titiler_worker": max(p["peak_rss"] for p in sampler.processes("titiler"))}
        return result
    finally:
        stop_all(sampler, servers)


def passthrough_run(args, tessera, sampler, servers, work, seed):
    """The aligned scene's whole interior tiles at its native zoom, as JPEG: Tessera warm beside nginx
    serving the same bytes as files."""
    document = json.loads(get(tessera.base, f"/maps/{ALIGNED}/tilejson.json")[2])
    places = tiles(document["bounds"], (document["maxzoom"],))
    random.Random(seed).shuffle(places)
    before, static, kept = passthroughs(tessera), Path(work) / "static", []
    for z, x, y in places[:600]:
        status, _, body = get(tessera.base, tessera.path(ALIGNED, z, x, y, "jpg"))
        if status != 200:
            raise RuntimeError(f"pass-through tile {z}/{x}/{y}: {status}")
        target = static / f"{z}/{x}/{y}.jpg"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        kept.append((z, x, y))
    passed = passthroughs(tessera) - before
    nginx = start_nginx_static(work, static, "nginx")
    servers.append(nginx)
    sampler.register(nginx.name, [p.pid for p in nginx.procs])
    # Only tiles that were passed through (the scene's masked edges are made, not stored).
    tessera_rate = slide_bench.wrk_rate(tessera, [tessera.path(ALIGNED, *place, "jpg") for place in kept], args, work, seed)
    nginx_rate = slide_bench.wrk_rate(nginx, [f"/{z}/{x}/{y}.jpg" for z, x, y in kept], args, work, seed)
    return {"tiles": len(kept), "passed_through": passed, "tessera_per_s": tessera_rate, "nginx_per_s": nginx_rate}


def soak(args, root, work):
    """Random tiles z10–z15 of the warped scene for --soak seconds: RSS after a 30-s warm-up and at the end."""
    work.mkdir(parents=True, exist_ok=True)
    sampler = Sampler()
    sampler.start()
    servers = []
    try:
        tessera = start_tessera(args.tessera, root, work, sampler)
        servers.append(tessera)
        places = tiles(bounds_of(tessera, WARPED), range(10, 16))
        url_file = Path(work) / "soak.txt"
        url_file.write_text("\n".join(tessera.path(WARPED, *place) for place in places) + "\n")
        wrk(tessera, url_file, args, 7, 30, count=False)
        after_warm_up = memory_kib(tessera.procs[0].pid)[1]
        result = wrk(tessera, url_file, args, 8, int(args.soak), count=True)
        bad = {status: n for status, n in result.get("statuses", {}).items() if status != 200}
        if "error" in result or bad:
            raise RuntimeError(f"soak: {result.get('error')} {bad}")
        end = memory_kib(tessera.procs[0].pid)[1]
        return {"tiles": len(places), "requests": result["requests"], "rss_after_warm_up": after_warm_up * 1024, "rss_end": end * 1024,
                "ratio": end / after_warm_up}
    finally:
        stop_all(sampler, servers)


def median(runs, *keys):
    values = []
    for run in runs:
        for key in keys:
            run = run[key]
        values.append(run)
    return statistics.median(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tessera")
    parser.add_argument("inputs")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--first-pass", type=float, default=30, help="seconds of each server's first pass, at most")
    parser.add_argument("--soak", type=int, default=300)
    parser.add_argument("--warm-tiles", type=int, default=300, help="tiles the warm runs draw from (default 300)")
    parser.add_argument("--json")
    add_wrk_arguments(parser, connections=32, wrk_timeout=30)
    args = parser.parse_args()
    root = make_scene(args.inputs)
    runs = []
    with tempfile.TemporaryDirectory(prefix="map-bench-") as work:
        for run in range(args.runs):
            say(f"run {run + 1} of {args.runs}")
            runs.append(one_run(args, root, Path(work) / f"run-{run}", 49 + run))
        soaked = soak(args, root, Path(work) / "soak") if args.soak > 0 else None
    print()
    print(f"Maps: tessera serve beside TiTiler 2.4 (2 workers), medians of {args.runs} runs")
    for label in ("warped", "aligned"):
        first = median(runs, label, "tessera", "tiles_per_s") / median(runs, label, "titiler", "tiles_per_s")
        warm_ratio = median(runs, label, "tessera", "warm_per_s") / median(runs, label, "titiler", "warm_per_s")
        print(f"  {label:8} first pass {median(runs, label, 'tessera', 'tiles_per_s'):8.1f} vs {median(runs, label, 'titiler', 'tiles_per_s'):6.1f} "
              f"tiles/s ({first:.1f}×); warm {median(runs, label, 'tessera', 'warm_per_s'):8.0f} vs "
              f"{median(runs, label, 'titiler', 'warm_per_s'):6.1f} req/s ({warm_ratio:.0f}×)")
    passing, first = runs[-1]["passthrough"], runs[-1]["aligned"]["tessera"]
    print(f"  pass-through: in the aligned first pass, {first['passed_through']} stored tiles of {first['native_tiles']} asked at the "
          f"native zoom (the others warped from levels); warm, {passing['tiles']} of them: "
          f"{median(runs, 'passthrough', 'tessera_per_s'):.0f} vs nginx {median(runs, 'passthrough', 'nginx_per_s'):.0f} req/s "
          f"({median(runs, 'passthrough', 'tessera_per_s') / median(runs, 'passthrough', 'nginx_per_s'):.2f}×)")
    print(f"  peak RSS: tessera {median(runs, 'memory', 'tessera') / 2**20:.0f} MB, largest TiTiler worker "
          f"{median(runs, 'memory', 'titiler_worker') / 2**20:.0f} MB")
    if soaked:
        print(f"  soak {args.soak:.0f} s: {soaked['requests']} requests over {soaked['tiles']} tiles, RSS "
              f"{soaked['rss_after_warm_up'] / 2**20:.0f} → {soaked['rss_end'] / 2**20:.0f} MB ({soaked['ratio']:.2f}×)")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": runs, "soak": soaked}, indent=2))


if __name__ == "__main__":
    main()
