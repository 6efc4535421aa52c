#!/usr/bin/env python3
"""Output and document formats (issue 17) beside the tools people use for them, in one run:

  * AVIF encode of a 2048×1536 photo-like PNG at quality 50, libaom speed 6, 4:2:0, 8 bits:
    `tessera convert` beside `vips heifsave` (Q 50, effort 3, which libvips maps to speed 9 − 3)
    and `avifenc` (libavif over the same libaom: --min/--max quantizers from quality 50 as libheif
    computes them, -s 6, -y 420). Each output's size and PSNR against the source are printed, so
    "matched quality" is checked, not assumed.
  * An animated GIF (500×500, 100 frames: a pan across a photo-like image, every frame a full
    palette image of its own) made into a 128-pixel animated WebP at quality 80: `tessera thumbnail`
    beside `vips thumbnail` with `n=-1` (every page) and ImageMagick (`-coalesce -thumbnail`).
    Goal: ahead of vips on time and on memory. Each output's frame count is printed.
  * A PDF page of dense vector art (6,000 filled and stroked Bézier shapes on US Letter) rendered
    to a 1024-pixel PNG: `tessera thumbnail` beside `vips thumbnail` (pdfload) and
    `pdftoppm -scale-to 1024` (poppler's own tool), all on white.

Median wall time of --runs interleaved runs and peak RSS per process (measure.py). Inputs are made
in WORKDIR and kept. Tools: vips (libvips-tools), avifenc (libavif-bin), pdftoppm (poppler-utils),
/usr/bin/time: `scripts/bootstrap.sh --bench` installs them.

    format_bench.py TESSERA_BINARY WORKDIR [--runs N]
"""
import argparse
import importlib.util
import random
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

from make_inputs import whole
from measure import compare, table

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
QUALITY, SPEED = 50, 6
# The goal issue 17 sets for these rows: within this factor of the fastest peer.
MOST_BEHIND_FASTEST = 1.2


def animated_gif(path, size=500, frames=100):
    """A pan across a larger photo-like image, each frame quantised to its own palette."""
    scene = whole(size + frames * 4, size + frames * 2, seed=11)
    images = [Image.fromarray(scene[i * 2:i * 2 + size, i * 4:i * 4 + size]).quantize(256) for i in range(frames)]
    images[0].save(path, save_all=True, append_images=images[1:], duration=40, loop=0)


def check_ahead(title, results, peer):
    ok = {name: r for name, r in results.items() if not r[2]}
    if "tessera" in ok and peer in ok:
        time_ratio = ok["tessera"][0] / ok[peer][0]
        memory_ratio = ok["tessera"][1] / ok[peer][1]
        verdict = "met" if time_ratio < 1 and memory_ratio < 1 else "NOT met"
        print(f"  goal (ahead of {peer} on time and memory): time {time_ratio:.2f}×, peak RSS {memory_ratio:.2f}× — {verdict}")


def pdf_module():
    spec = importlib.util.spec_from_file_location("make_pdf_fixtures", ROOT / "scripts" / "make-pdf-fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dense_page(count=6000, seed=7):
    """A content stream of `count` random cubic shapes, filled and stroked, on a 612×792 pt page."""
    rng = random.Random(seed)
    parts = []
    for _ in range(count):
        r, g, b = (rng.random() for _ in range(3))
        x, y = rng.uniform(0, 612), rng.uniform(0, 792)
        points = " ".join(f"{x + rng.uniform(-60, 60):.1f} {y + rng.uniform(-60, 60):.1f}" for _ in range(3))
        parts.append(f"{r:.3f} {g:.3f} {b:.3f} rg 0 0 0 RG 0.4 w {x:.1f} {y:.1f} m {points} c h B\n")
    return "".join(parts).encode()


def avif_quantizers(quality):
    """libheif's aom plugin maps quality q to a quantizer of (100 − q) × 63 / 100 (rounded), used as
    both min and max; avifenc takes the quantizers directly."""
    quantizer = round((100 - quality) * 63 / 100)
    return quantizer, quantizer


def psnr(path, reference):
    """PSNR of an encoded file against the source, decoded by Pillow (pillow-heif for AVIF)."""
    try:
        import pillow_heif
        pillow_heif.register_heif_opener()
    except ImportError:
        return float("nan")
    a = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
    b = np.asarray(Image.open(reference).convert("RGB"), dtype=np.float64)
    mse = ((a - b) ** 2).mean()
    return 10 * np.log10(255 ** 2 / mse) if mse else float("inf")


def check_goal(title, results):
    timed = {name: seconds for name, (seconds, _, error) in results.items() if not error}
    peers = {name: s for name, s in timed.items() if name != "tessera"}
    if "tessera" in timed and peers:
        fastest = min(peers, key=peers.get)
        ratio = timed["tessera"] / peers[fastest]
        verdict = "met" if ratio <= MOST_BEHIND_FASTEST else "NOT met"
        print(f"  goal (≤ {MOST_BEHIND_FASTEST}× the fastest peer, {fastest}): {ratio:.2f}× — {verdict}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tessera")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    missing = [tool for tool in ("vips", "avifenc", "pdftoppm", "convert") if not shutil.which(tool)]
    if missing:
        sys.exit(f"format_bench: missing {', '.join(missing)} (scripts/bootstrap.sh --bench installs them)")

    source = work / "photo-2048x1536.png"
    if not source.exists():
        Image.fromarray(whole(2048, 1536, seed=5)).save(source)
    document = work / "dense-vector.pdf"
    if not document.exists():
        document.write_bytes(pdf_module().document([(612, 792, dense_page())]))

    animation = work / "pan-500x500-100.gif"
    if not animation.exists():
        animated_gif(animation)

    with tempfile.TemporaryDirectory(dir=work) as scratch:
        out = Path(scratch)
        webps = {"tessera": out / "t.webp", "vips thumbnail n=-1": out / "v.webp", "imagemagick": out / "m.webp"}
        cases = [
            ("tessera", [args.tessera, "thumbnail", str(animation), "--max-pixel-size", "128", "--quality", "80",
                         "--output", str(webps["tessera"])]),
            ("vips thumbnail n=-1", ["vips", "thumbnail", f"{animation}[n=-1]", f"{webps['vips thumbnail n=-1']}[Q=80]", "128"]),
            ("imagemagick", ["convert", str(animation), "-coalesce", "-thumbnail", "128x128", "-quality", "80",
                             str(webps["imagemagick"])]),
        ]
        results = compare(cases, runs=args.runs)
        title = "Animated GIF 500×500, 100 frames → 128-pixel animated WebP, quality 80"
        table(title, results)
        for name, path in webps.items():
            if path.exists():
                with Image.open(path) as image:
                    print(f"  {name:<34}{path.stat().st_size / 1024:>8.1f} KB  {getattr(image, 'n_frames', 1)} frames, {image.size[0]}×{image.size[1]}")
        check_ahead(title, results, "vips thumbnail n=-1")

        low, high = avif_quantizers(QUALITY)
        outputs = {"tessera": out / "t.avif", "vips heifsave": out / "v.avif", "avifenc": out / "a.avif"}
        cases = [
            ("tessera", [args.tessera, "convert", str(source), str(outputs["tessera"]),
                         "--quality", str(QUALITY), "--speed", str(SPEED)]),
            ("vips heifsave", ["vips", "heifsave", str(source), str(outputs["vips heifsave"]),
                               "--compression", "av1", "--Q", str(QUALITY), "--effort", str(9 - SPEED),
                               "--subsample-mode", "on", "--bitdepth", "8"]),
            ("avifenc", ["avifenc", "-s", str(SPEED), "-y", "420", "-d", "8", "--min", str(low), "--max", str(high),
                         str(source), str(outputs["avifenc"])]),
        ]
        results = compare(cases, runs=args.runs)
        title = f"AVIF encode, 2048×1536 photo-like PNG, quality {QUALITY}, speed {SPEED}"
        table(title, results)
        for name, path in outputs.items():
            if path.exists():
                print(f"  {name:<34}{path.stat().st_size / 1024:>8.1f} KB  {psnr(path, source):6.2f} dB")
        check_goal(title, results)

        pngs = {"tessera": out / "t.png", "vips thumbnail": out / "v.png", "pdftoppm": out / "p"}
        cases = [
            ("tessera", [args.tessera, "thumbnail", str(document), "--max-pixel-size", "1024",
                         "--output", str(pngs["tessera"])]),
            ("vips thumbnail", ["vips", "thumbnail", str(document), str(pngs["vips thumbnail"]), "1024"]),
            ("pdftoppm", ["pdftoppm", "-png", "-singlefile", "-scale-to", "1024", str(document), str(pngs["pdftoppm"])]),
        ]
        results = compare(cases, runs=args.runs)
        title = "PDF page (6,000 vector shapes, US Letter) → 1024-pixel PNG"
        table(title, results)
        rendered = {name: Path(str(p) + (".png" if name == "pdftoppm" else "")) for name, p in pngs.items()}
        sizes = {name: Image.open(p).size for name, p in rendered.items() if p.exists()}
        print("  sizes: " + ", ".join(f"{name} {w}×{h}" for name, (w, h) in sizes.items()))
        if all(p.exists() for p in rendered.values()):
            a = np.asarray(Image.open(rendered["tessera"]).convert("RGB"), dtype=np.float64)
            b = np.asarray(Image.open(rendered["pdftoppm"]).convert("RGB"), dtype=np.float64)
            if a.shape == b.shape:
                print(f"  tessera vs pdftoppm: mean difference {np.abs(a - b).mean():.2f} levels")
        check_goal(title, results)


if __name__ == "__main__":
    main()
