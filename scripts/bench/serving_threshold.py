#!/usr/bin/env python3
"""Where `tessera serve` should stop decoding sources into memory and build pyramids instead.

For photo-like JPEGs of 2, 4, 8 and 16 megapixels (made from the bench's 16000x12000 input with
`vips resize`), each served twice by a fresh `tessera serve` on loopback, once forced down the
small-source path (decoded with shrink-on-load into the memory cache) and once down the pyramid
path (built on first use):
  - cold: seconds to info.json and the first full-resolution 512-px tile (a viewer's first look);
  - first pass: seconds to fetch every tile info.json lists once, in order (a viewer's first pan);
  - warm: requests/s of wrk (-t2 -c16, 5 s) over those tiles, then over 50,000 random regions (nearly all distinct, so rendered rather than cached)
    scaled to !256,256 (thumbnails of crops);
  - peak RSS of the server.
Usage: serving_threshold.py TESSERA BENCH_INPUTS [--sizes 2,4,8,16]
"""
import argparse, json, math, os, random, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read()


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def wrk_rate(base, paths, work):
    listing = os.path.join(work, "paths.txt")
    with open(listing, "w") as f:
        f.write("\n".join(paths) + "\n")
    out = subprocess.run(["wrk", "-t2", "-c16", "-d5s", "-s", os.path.join(HERE, "serving", "urls.lua"), base,
                          "--", listing, "1"], capture_output=True, text=True, check=True).stdout
    bad = [l for l in out.splitlines() if "Non-2xx" in l or "Socket errors" in l]
    rate = float(next(l for l in out.splitlines() if l.startswith("Requests/sec")).split()[1])
    return rate, bad


def measure(tessera, image, small, work):
    root = os.path.join(work, "root")
    cache = os.path.join(work, "cache")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(root)
    shutil.copy(image, os.path.join(root, "p.jpg"))
    port = free_port()
    server = subprocess.Popen([tessera, "serve", root, "--port", str(port), "--cache-dir", cache,
                               "--small-source-pixels", "1000000000" if small else "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        server.stdout.readline()
        base = f"http://127.0.0.1:{port}"
        start = time.monotonic()
        info = json.loads(get(base + "/iiif/3/p.jpg/info.json"))
        get(base + "/iiif/3/p.jpg/0,0,512,512/512,/0/default.jpg")
        cold = time.monotonic() - start
        width, height = info["width"], info["height"]
        tile = info["tiles"][0]["width"]
        tiles = []
        for factor in info["tiles"][0]["scaleFactors"]:
            step = tile * factor
            for y in range(0, height, step):
                for x in range(0, width, step):
                    w, h = min(step, width - x), min(step, height - y)
                    tiles.append(f"/iiif/3/p.jpg/{x},{y},{w},{h}/{math.ceil(w / factor)},/0/default.jpg")
        start = time.monotonic()
        for path in tiles:
            get(base + path)
        first_pass = time.monotonic() - start
        tiles_rate, bad_tiles = wrk_rate(base, tiles, work)
        rng = random.Random(7)
        regions = []
        for _ in range(50000):
            w, h = rng.randint(256, min(width, 2048)), rng.randint(256, min(height, 2048))
            x, y = rng.randint(0, width - w), rng.randint(0, height - h)
            regions.append(f"/iiif/3/p.jpg/{x},{y},{w},{h}/!256,256/0/default.jpg")
        regions_rate, bad_regions = wrk_rate(base, regions, work)
        rss = peak_rss_mb(server.pid)
        return dict(cold=cold, first_pass=first_pass, tiles=len(tiles), tiles_rate=tiles_rate,
                    regions_rate=regions_rate, rss=rss, problems=bad_tiles + bad_regions)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tessera")
    parser.add_argument("inputs")
    parser.add_argument("--sizes", default="2,4,8,16")
    args = parser.parse_args()
    source = os.path.join(args.inputs, "photo-16000x12000.jpg")
    work = tempfile.mkdtemp(prefix="tessera-threshold-")
    try:
        print("Serving threshold: small-source path (decode into memory) vs pyramid path, per source size")
        print(f"{'source':>16} {'path':>8} {'cold s':>7} {'1st pass s':>10} {'tiles/s':>9} {'regions/s':>9} {'peak RSS MB':>11}")
        for megapixels in [int(s) for s in args.sizes.split(",")]:
            width = int(math.sqrt(megapixels * 1e6 * 4 / 3))
            image = os.path.join(work, f"photo-{megapixels}mp.jpg")
            subprocess.run(["vips", "resize", source, image, str(width / 16000)], check=True)
            for small in (True, False):
                r = measure(args.tessera, image, small, os.path.join(work, "run"))
                label = f"{megapixels} MP ({width})"
                print(f"{label:>16} {'memory' if small else 'pyramid':>8} {r['cold']:7.2f} {r['first_pass']:10.2f} "
                      f"{r['tiles_rate']:9.0f} {r['regions_rate']:9.0f} {r['rss']:11.1f}"
                      + (f"  problems: {r['problems']}" if r["problems"] else ""), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
