#!/usr/bin/env python3
"""Whole-slide images: `tessera serve` beside OpenSlide's own Deep Zoom server (openslide-python's
examples/deepzoom/deepzoom_server.py on Flask, threaded: what a lab runs today), on 127.0.0.1
only, in one run, on an Aperio SVS-like slide (`--kind svs`: scripts/make-slide-fixtures.py,
256-px JPEG tiles with shared tables, levels 1/4/16) or its DICOM twin (`--kind dicom`: one
instance per level, the same JPEG frames, an empty Basic Offset Table, so frames are found by
walking the fragments), made once into INPUTS/slides:

  Tiles       the same tiles both ways: Tessera's IIIF tiles at the stored levels (scale factors
              1, 4, 16; interior tiles: answered with their stored bytes) and the OpenSlide
              server's Deep Zoom tiles at the same levels with tile size 256 and overlap 0 (what
              read_region of the stored tile and a JPEG encode at its quality 75 give), in a seeded
              order. First touch: wrk from a fresh server over every interior tile of the stored
              levels, shuffled, each thread walking its share in order for --first-touch seconds
              (no tile asked twice: fewer requests than tiles), every status counted (req/s);
              warm: a checked pass over a list of --tiles of them (200, a JPEG 256×256), then wrk
              drawing from it at random (req/s), its statuses audited as in serving_bench.py.
  Regions     seeded random regions (sides 1000–8000 px) scaled to `!512,512`, Tessera from a
              fresh server, first pass; OpenSlide has no region endpoint, so beside it is what any
              server built on it would do per region, in process: read_region at the level
              OpenSlide's own get_best_level_for_downsample picks, a resize to the same size and a
              JPEG encode (one thread; ×2 for 2 cores is printed as its ceiling).
  info.json   cold: a fresh `tessera serve` per sample, the time to its first info.json of the
              slide (a 50000×40000 slide with --big); beside it OpenSlide's open of the slide
              in a warm Python process (what its server pays once per slide).
  Memory      peak RSS (VmHWM summed over each server's processes) through the tiles and regions.
  Convert     (--kind svs) the slide written as a tiled pyramidal TIFF, 256-px JPEG tiles at quality
              85: `tessera convert SLIDE OUT.tif` beside `vips tiffsave SLIDE OUT.tif --tile --pyramid`
              (libvips 8.14 reading the slide through OpenSlide), wall time and peak RSS of each
              process (/usr/bin/time), both outputs checked by `tessera info --json` to hold the
              slide's size and a full pyramid.

    slide_bench.py TESSERA INPUTS [--kind svs|dicom] [--runs 3] [--duration 10] [--size 50000x40000] [--json PATH]
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import free_port, jpeg_size, say  # noqa: E402
from serving_bench import (Sampler, Server, add_wrk_arguments, get, random_regions, run_wrk, stop_all,  # noqa: E402
                           wait_for_port, warm, wrk)

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / ".build" / "browser-venv" / "bin" / "python"
DEEPZOOM_SERVER = ROOT / ".build" / "openslide-fixtures" / "deepzoom_server.py"
# Kind → the fixture script's variant and the slide's file in it (a DICOM slide: its first level).
KINDS = {"svs": ("aperio-tables.svs", "aperio-tables.svs"), "dicom": ("dicom-untabled", "dicom-untabled/level-0.dcm")}
SLIDE = KINDS["svs"][1]
SLIDE_ID = SLIDE
TILE = 256
STORED_FACTORS = (1, 4, 16)


def make_slide(inputs, size, variant):
    folder = Path(inputs) / "slides" / size
    if not (folder / SLIDE).exists():
        say(f"making {variant} at {size} (once)…")
        subprocess.run([str(VENV_PYTHON), str(ROOT / "scripts" / "make-slide-fixtures.py"), str(folder), "--size", size,
                        "--only", variant, "--dicom-template", str(DEEPZOOM_SERVER.parent / "boxes_0.dcm")], check=True)
    return folder


def tile_list(width, height, count, seed):
    """(IIIF path, Deep Zoom path) of interior tiles of the stored levels, shuffled: `count` of
    them spread over the levels, or every one (count None)."""
    rng = random.Random(seed)
    max_level = (max(width, height) - 1).bit_length()  # Deep Zoom's: ceil(log2(longest side))
    pairs = []
    for factor in STORED_FACTORS:
        side = TILE * factor
        columns, rows = width // side, height // side  # whole tiles only: interior, stored whole
        places = ([(c, r) for r in range(rows) for c in range(columns)] if count is None else
                  [(rng.randrange(columns), rng.randrange(rows)) for _ in range(count // len(STORED_FACTORS))])
        for column, row in places:
            iiif = f"/iiif/3/{SLIDE_ID}/{column * side},{row * side},{side},{side}/{TILE},{TILE}/0/default.jpg"
            deep_zoom = f"/slide_files/{max_level - (factor.bit_length() - 1)}/{column}_{row}.jpeg"
            pairs.append((iiif, deep_zoom))
    rng.shuffle(pairs)
    return list(dict.fromkeys(pairs))


def start_tessera(tessera, root, work, sampler):
    server = Server("tessera", "tessera serve")
    server.port = free_port()
    cache = tempfile.mkdtemp(prefix="cache-", dir=work)
    proc = server.spawn([tessera, "serve", str(root), "--host", "127.0.0.1", "--port", str(server.port), "--cache-dir", cache],
                        Path(work) / "tessera.log")
    if not wait_for_port(server.port, [proc], 30):
        raise RuntimeError("tessera serve did not start")
    sampler.register(server.name, [proc.pid])
    return server


def start_openslide(root, work, sampler):
    server = Server("openslide", "OpenSlide Deep Zoom server (Flask, threaded)")
    server.port = free_port()
    proc = server.spawn([str(VENV_PYTHON), str(DEEPZOOM_SERVER), "-l", "127.0.0.1", "-p", str(server.port), "-s", str(TILE),
                         "-e", "0", str(Path(root) / SLIDE)], Path(work) / "openslide.log")
    if not wait_for_port(server.port, [proc], 60):
        raise RuntimeError("the OpenSlide Deep Zoom server did not start")
    sampler.register(server.name, [proc.pid])
    return server


def checked_pass(server, paths, label):
    """One pass over paths, 8 clients; every answer must be a 256×256 JPEG. Returns req/s."""
    for path in paths[:3]:
        status, _, body = get(server.base, path)
        if status != 200 or jpeg_size(body) != (TILE, TILE):
            raise RuntimeError(f"{label}: {path} answered {status}, {jpeg_size(body) if status == 200 else body[:80]}")
    done, bad, seconds = warm(server, paths[3:], 8, 600)
    if bad:
        raise RuntimeError(f"{label}: {bad}")
    return done / seconds


def wrk_rate(server, paths, args, work, seed):
    url_file = Path(work) / f"{server.name}-urls.txt"
    url_file.write_text("\n".join(paths) + "\n")
    result = run_wrk(server, url_file, args, seed)
    if "error" in result:
        raise RuntimeError(f"{server.name} wrk: {result['error']}")
    return result["requests_per_s"]


def first_touch_rate(server, paths, args, work, seed):
    """Requests per second over tiles never asked before: wrk walking `paths` in order (each
    thread its share) for --first-touch seconds, every status counted; checked to have asked
    fewer than there are tiles, so none was asked twice."""
    for path in paths[-3:]:  # checked by hand at the end of the list, which the walk does not reach
        status, _, body = get(server.base, path)
        if status != 200 or jpeg_size(body) != (TILE, TILE):
            raise RuntimeError(f"{server.name}: {path} answered {status}, {jpeg_size(body) if status == 200 else body[:80]}")
    url_file = Path(work) / f"{server.name}-first-touch.txt"
    url_file.write_text("\n".join(paths[:-3]) + "\n")
    result = wrk(server, url_file, args, seed, args.first_touch, count=True, sequential=True)
    answered = sum(result.get("statuses", {}).values())
    bad = {status: n for status, n in result.get("statuses", {}).items() if status != 200}
    if "error" in result or bad or result["non2xx3xx"] or answered == 0:
        raise RuntimeError(f"{server.name} first touch: {result.get('error')} {bad} {result['non2xx3xx']}")
    if result["requests"] >= len(paths) - 3:
        raise RuntimeError(f"{server.name} first touch asked {result['requests']} of {len(paths) - 3} tiles: some twice")
    return result["requests_per_s"]


def openslide_regions(slide_path, boxes):
    """Seconds per region for read_region + resize + JPEG encode, in one process and thread."""
    code = f"""
import io, sys, time, openslide
from PIL import Image
boxes = {boxes!r}
slide = openslide.OpenSlide({str(slide_path)!r})
start = time.perf_counter()
for x, y, w, h in boxes:
    scale = max(w, h) / 512
    level = slide.get_best_level_for_downsample(scale)
    d = slide.level_downsamples[level]
    tile = slide.read_region((x, y), level, (round(w / d), round(h / d))).convert("RGB")
    tile.thumbnail((512, 512), Image.LANCZOS)
    tile.save(io.BytesIO(), "JPEG", quality=75)
print(time.perf_counter() - start)
"""
    out = subprocess.run([str(VENV_PYTHON), "-c", code], capture_output=True, text=True, check=True).stdout
    return float(out.split()[-1]) / len(boxes)


def openslide_open(slide_path, runs):
    code = f"""
import time, openslide
times = []
for _ in range({runs}):
    start = time.perf_counter(); slide = openslide.OpenSlide({str(slide_path)!r}); slide.properties; slide.level_dimensions
    times.append(time.perf_counter() - start); slide.close()
print(sorted(times)[len(times) // 2])
"""
    return float(subprocess.run([str(VENV_PYTHON), "-c", code], capture_output=True, text=True, check=True).stdout.split()[-1])


def cold_info(tessera, root, work, runs):
    times = []
    for _ in range(runs):
        sampler = Sampler()
        server = start_tessera(tessera, root, work, sampler)
        try:
            start = time.perf_counter()
            status, _, body = get(server.base, f"/iiif/3/{SLIDE_ID}/info.json")
            times.append(time.perf_counter() - start)
            if status != 200 or b"physdim" not in body:
                raise RuntimeError(f"cold info.json answered {status}")
        finally:
            server.stop()
    return statistics.median(times)


def one_run(args, root, size, work, seed):
    width, height = size
    pairs = tile_list(width, height, args.tiles, seed)
    boxes = random_regions(args.regions, width, height, seed, smallest=1000, largest=8000)
    sampler = Sampler()
    sampler.start()
    tessera = start_tessera(args.tessera, root, work, sampler)
    openslide = start_openslide(root, work, sampler)
    try:
        every = tile_list(width, height, None, seed)
        result = {"first_touch": {"tessera": first_touch_rate(tessera, [p[0] for p in every], args, work, seed),
                                  "openslide": first_touch_rate(openslide, [p[1] for p in every], args, work, seed)}}
        for server, index in ((tessera, 0), (openslide, 1)):
            checked_pass(server, [p[index] for p in pairs], server.name)
        result["warm"] = {"tessera": wrk_rate(tessera, [p[0] for p in pairs], args, work, seed),
                          "openslide": wrk_rate(openslide, [p[1] for p in pairs], args, work, seed)}
        region_paths = [f"/iiif/3/{SLIDE_ID}/{x},{y},{w},{h}/!512,512/0/default.jpg" for x, y, w, h in boxes]
        done, bad, seconds = warm(tessera, region_paths, 8, 600)
        if bad:
            raise RuntimeError(f"tessera regions: {bad}")
        per_region = openslide_regions(Path(root) / SLIDE, boxes)
        result["regions"] = {"tessera": done / seconds, "openslide_in_process_1_core": 1 / per_region}
    finally:
        stop_all(sampler, [tessera, openslide])
    result["peak_rss"] = {"tessera": sampler.peak(tessera.name), "openslide": sampler.peak(openslide.name)}
    return result


def timed(command):
    """(seconds, peak RSS bytes) of `command` run to completion, as /usr/bin/time reports them."""
    run = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {run.stderr[-400:]}")
    seconds, kilobytes = run.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kilobytes) * 1024


def convert_pass(tessera, slide_path, size, work):
    """The slide written as a pyramidal TIFF by both, each output checked to be the whole slide."""
    result = {}
    commands = {
        "tessera": [tessera, "convert", str(slide_path), f"{work}/tessera.tif", "--quality", "85"],
        "vips": ["vips", "tiffsave", str(slide_path), f"{work}/vips.tif", "--tile", "--pyramid", "--compression", "jpeg",
                 "--Q", "85", "--tile-width", "256", "--tile-height", "256"],
    }
    for name, command in commands.items():
        seconds, rss = timed(command)
        info = json.loads(subprocess.run([tessera, "info", "--json", f"{work}/{name}.tif"], capture_output=True, text=True).stdout)
        levels = info["source"]["levels"]
        if (info["width"], info["height"]) != tuple(size) or max(levels[-1]["width"], levels[-1]["height"]) > 512:
            raise RuntimeError(f"{name}'s pyramid is not the whole slide: {info['width']}×{info['height']}, {len(levels)} levels")
        result[name] = {"seconds": seconds, "peak_rss": rss, "bytes": os.path.getsize(f"{work}/{name}.tif"), "levels": len(levels)}
        os.remove(f"{work}/{name}.tif")
    return result


def median_of(runs, *keys):
    values = []
    for run in runs:
        value = run
        for key in keys:
            value = value[key]
        values.append(value)
    return statistics.median(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tessera")
    parser.add_argument("inputs")
    parser.add_argument("--kind", choices=KINDS, default="svs", help="an Aperio SVS or its DICOM twin (default svs)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", default="50000x40000", help="the slide's level 0, pixels (default 50000x40000)")
    parser.add_argument("--tiles", type=int, default=1500, help="distinct tiles per run (default 1500)")
    parser.add_argument("--regions", type=int, default=40, help="random regions per run (default 40)")
    parser.add_argument("--first-touch", type=int, default=1, help="seconds of the first-touch walk (default 1)")
    parser.add_argument("--json")
    add_wrk_arguments(parser, connections=16, wrk_timeout=10)
    args = parser.parse_args()
    args.tessera = os.path.abspath(args.tessera)
    size = tuple(int(v) for v in args.size.split("x"))
    global SLIDE, SLIDE_ID
    variant, SLIDE = KINDS[args.kind]
    SLIDE_ID = SLIDE.replace("/", "%2F")
    root = make_slide(args.inputs, args.size, variant)
    work = tempfile.mkdtemp(prefix="slide-bench-")
    runs = []
    for run in range(args.runs):
        say(f"run {run + 1} of {args.runs}…")
        runs.append(one_run(args, root, size, work, seed=run))
    report = {"size": size, "runs": runs, "cold_info_s": cold_info(args.tessera, root, work, max(3, args.runs)),
              "openslide_open_s": openslide_open(Path(root) / SLIDE, max(3, args.runs))}
    if args.kind == "svs":
        say("convert to a pyramidal TIFF…")
        report["convert"] = [convert_pass(args.tessera, Path(root) / SLIDE, size, work) for _ in range(args.runs)]
    print(f"\nWhole-slide image {size[0]}×{size[1]} ({SLIDE}), medians of {args.runs} runs")
    rows = [("aligned tiles, first touch (req/s)", "first_touch", "openslide"), ("aligned tiles, warm (req/s)", "warm", "openslide"),
            ("unaligned regions !512 (req/s)", "regions", "openslide_in_process_1_core")]
    print(f"  {'':<40}{'tessera':>10}{'openslide':>12}{'ratio':>8}")
    for label, part, peer in rows:
        ours, theirs = median_of(runs, part, "tessera"), median_of(runs, part, peer)
        print(f"  {label:<40}{ours:>10.0f}{theirs:>12.1f}{ours / theirs:>7.1f}×")
    ours, theirs = median_of(runs, "peak_rss", "tessera"), median_of(runs, "peak_rss", "openslide")
    print(f"  {'peak RSS (MB)':<40}{ours / 1e6:>10.1f}{theirs / 1e6:>12.1f}{ours / theirs:>7.2f}×")
    print(f"  cold info.json: {report['cold_info_s'] * 1000:.1f} ms (OpenSlide's open of the slide: "
          f"{report['openslide_open_s'] * 1000:.1f} ms)")
    print("  (OpenSlide's regions: in process on one thread, read_region + resize + encode; its 2-core ceiling is 2× that)")
    if "convert" in report:
        print(f"  {'to a pyramidal TIFF':<40}{'tessera':>10}{'vips':>12}{'ratio':>8}")
        for label, key, scale in (("  wall time (s)", "seconds", 1), ("  peak RSS (MB)", "peak_rss", 1e6), ("  file (MB)", "bytes", 1e6)):
            ours = statistics.median(r["tessera"][key] for r in report["convert"]) / scale
            theirs = statistics.median(r["vips"][key] for r in report["convert"]) / scale
            print(f"  {label:<40}{ours:>10.1f}{theirs:>12.1f}{ours / theirs:>7.2f}×")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
