#!/usr/bin/env python3
"""IIIF Presentation: how long `tessera serve` takes to make the documents of large sources, cold
(a fresh server, its first request) and warm (the same request again), on 127.0.0.1 only:

  Document   a 2,000-page PDF and a 2,000-page TIFF: `presentation/3/{id}/manifest` (a canvas per
             page, each page's size from the headers). Beside it, the reference floor of reading
             the same page sizes with the tools at hand: poppler's `pdfinfo -f 1 -l 2000` (PDF)
             and Pillow seeking through every page of the TIFF for its size (one process each).
  Folder     10,000 small JPEGs (64×48, distinct files): `presentation/3/collection/{dir}` and
             `presentation/3/{dir}/manifest`, each from a fresh server; beside `vipsheader` over the
             same files in one process (its per-file header read, the floor of probing them).

No other IIIF server makes Presentation documents (iipsrv #243, Cantaloupe #48), so the peers here
are the floors: what reading the same headers costs with poppler and libvips. Cold is a fresh
server process with the files in the page cache (/dev/shm): the server's work, not the disk's.
Every answer is checked (status 200, a Manifest or Collection with the expected item count).
Medians over --runs; peak RSS of the server (VmHWM) after its requests.

    presentation_bench.py TESSERA [--runs 3] [--work /dev/shm/tessera-presentation] [--json PATH]
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from measure import free_port, say, work_arguments  # noqa: E402
from serving_bench import Server, get, memory_kib, tail, wait_for_port  # noqa: E402

PAGES = 2000
FILES = 10_000


def make_pdf(path, pages):
    """A PDF of `pages` pages (alternately Letter and A4 landscape), each a filled rectangle."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("pdfs", Path(__file__).resolve().parent.parent / "make-pdf-fixtures.py")
    pdfs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pdfs)
    sizes = [(612, 792), (842, 595)]
    path.write_bytes(pdfs.document([
        (sizes[i % 2][0], sizes[i % 2][1], pdfs.rectangle((i % 256, 100, 200), 0, 0, sizes[i % 2][0], sizes[i % 2][1]))
        for i in range(pages)]))


def make_tiff(path, pages):
    import importlib.util
    spec = importlib.util.spec_from_file_location("tiffs", Path(__file__).resolve().parent.parent / "make-page-fixtures.py")
    tiffs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tiffs)
    path.write_bytes(tiffs.tiff([(32 + i % 7, 24, (i % 256, 0, 0), 0, None) for i in range(pages)]))


def make_folder(directory, count):
    from PIL import Image
    directory.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        target = directory / f"photo-{i:05d}.jpg"
        if not target.exists():
            Image.new("RGB", (64, 48), (i % 256, (i // 256) % 256, 90)).save(target, quality=80)


def start(tessera, root, work):
    cache = work / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    server = Server("tessera", "tessera serve")
    server.port = free_port()
    log = work / "serve.log"
    proc = server.spawn([tessera, "serve", str(root), "--host", "127.0.0.1", "--port", str(server.port),
                         "--cache-dir", str(cache)], log)
    if not wait_for_port(server.port, [proc], 30):
        server.stop()
        raise SystemExit(f"tessera serve did not start: {tail(log)}")
    return server


def timed(server, path, expect_type, expect_items):
    start = time.perf_counter()
    status, _, body = get(server.base, path, timeout=120)
    elapsed = time.perf_counter() - start
    document = json.loads(body) if status == 200 else {}
    if status != 200 or document.get("type") != expect_type or len(document.get("items", [])) != expect_items:
        raise SystemExit(f"{path}: status {status}, {document.get('type')} of {len(document.get('items', []))} items "
                         f"(wanted {expect_type} of {expect_items})")
    return elapsed, len(body)


def floor(argv):
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    args, root = work_arguments(__doc__, "/dev/shm/tessera-presentation")
    work, root = Path(args.work), Path(root)
    (root / "docs").mkdir(parents=True, exist_ok=True)
    pdf, tif, folder = root / "docs" / "pages-2000.pdf", root / "docs" / "pages-2000.tif", root / "folder"
    if not pdf.exists():
        make_pdf(pdf, PAGES)
    if not tif.exists():
        make_tiff(tif, PAGES)
    make_folder(folder, FILES)
    files = sorted(str(p) for p in folder.iterdir())

    cases = [
        ("2,000-page PDF manifest", "/presentation/3/docs%2Fpages-2000.pdf/manifest", "Manifest", PAGES,
         ["pdfinfo", "-f", "1", "-l", str(PAGES), str(pdf)]),
        ("2,000-page TIFF manifest", "/presentation/3/docs%2Fpages-2000.tif/manifest", "Manifest", PAGES,
         [sys.executable, "-c", "import sys; from PIL import Image; im = Image.open(sys.argv[1]); "
          "[(im.seek(i), im.size) for i in range(im.n_frames)]", str(tif)]),
        ("10,000-file folder collection", "/presentation/3/collection/folder", "Collection", FILES,
         ["vipsheader", *files]),
        ("10,000-file folder manifest", "/presentation/3/folder/manifest", "Manifest", FILES,
         ["vipsheader", *files]),
    ]
    results = {}
    for name, path, kind, items, reference in cases:
        colds, warms, floors, peaks, size = [], [], [], [], 0
        for _ in range(args.runs):
            server = start(args.tessera, root, work)
            try:
                cold, size = timed(server, path, kind, items)
                colds.append(cold)
                warms.append(statistics.median(timed(server, path, kind, items)[0] for _ in range(10)))
                peaks.append((memory_kib(server.procs[0].pid) or (0, 0))[0] / 1024)
            finally:
                server.stop()
            floors.append(floor(reference))
        results[name] = {
            "cold_s": statistics.median(colds), "warm_ms": statistics.median(warms) * 1000,
            "floor_s": statistics.median(floors), "floor": " ".join(reference[:2]), "bytes": size,
            "peak_rss_mb": statistics.median(peaks),
        }
        r = results[name]
        say(f"  {name:<32} cold {r['cold_s']:.3f} s ({r['cold_s'] / r['floor_s']:.1f}× {r['floor']} {r['floor_s']:.3f} s)"
            f"  warm {r['warm_ms']:.1f} ms  {r['bytes'] / 1e6:.1f} MB  peak RSS {r['peak_rss_mb']:.0f} MB")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
