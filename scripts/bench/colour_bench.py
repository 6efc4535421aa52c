#!/usr/bin/env python3
"""The cost of colour management: Tessera converts an embedded ICC profile to sRGB with LittleCMS
(perceptual, black-point compensation) by default, and has no switch to turn it off, so each file
is measured tagged and again untagged: the same JPEG with its APP2 ICC_PROFILE segment(s) taken out,
compressed data byte for byte the same, which Tessera does not convert.

  * `tessera thumbnail` to 512 px (JPEG q75) of a 6000×4000 JPEG (q90) tagged Display P3, beside
    vipsthumbnail --export-profile srgb on the tagged file and plain vipsthumbnail on the untagged one;
  * `tessera tile --layout dzi` of a 16000×12000 JPEG (q90) tagged Adobe RGB (1998), beside
    `vips dzsave` with the same tile size (254), overlap (1) and quality (75). dzsave has no profile
    option in libvips 8.14 and does not convert: it strips the profile from the tiles, so its tagged
    run is the same work as its untagged one (checked below). `vips icc_transform … srgb --embedded
    --intent perceptual` saving straight to dzsave is vips doing the conversion, in one pipeline.

Median wall time of --runs interleaved runs (default 5) and peak RSS per process, through measure.py;
each run writes into an empty output after os.sync(), so none pays for another's writeback. Outputs
go to /dev/shm when it is writable (--scratch): a pyramid is about 4,000 files, and on this team's shared
machines their writeback to disk varied one run's time by ±7%, more than the difference measured.
Then the checks: Tessera's tagged outputs differ from its untagged ones (conversion happened); its
tagged thumbnail beside vipsthumbnail's --export-profile srgb one, and its tagged tiles beside those of
the vips icc_transform pipeline (mean absolute difference in 8-bit levels, CIEDE2000), each with the
untagged pair as the baseline; vips dzsave's tagged tiles against its untagged ones.

Inputs are made in WORKDIR and kept (delete them to regenerate): the untagged JPEGs by cjpeg from
make_inputs.py's photo-like bands, the tagged ones by inserting APP2 after APP0 with
make-colour-fixtures.py's jpeg_with_app2. The P3 profile is the one embedded in
Tests/Fixtures/colour/p3.jpg (built by make-colour-fixtures.py); Adobe RGB is colord-data's
/usr/share/color/icc/colord/AdobeRGB1998.icc.

Needs Pillow with LittleCMS (13.0.0, as make-colour-fixtures.py) and numpy, as make_inputs.py does:
the python3 that scripts/bench.sh prepares. .build/browser-venv/bin/python has Pillow 13.0.0 but not
numpy, so it can run this script only after `pip install numpy` there. Tools: vips, vipsthumbnail
(apt-get install --no-install-recommends libvips-tools), cjpeg, /usr/bin/time.

    colour_bench.py TESSERA_BINARY WORKDIR [--runs N] [--scratch DIR]
"""
import argparse
import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

from make_inputs import jpeg
from measure import compare, table
from tile_bench import descriptor, tile_set

Image.MAX_IMAGE_PIXELS = None
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
THUMB_SIZE, TILE, OVERLAP, QUALITY = 512, 254, 1, 75
SOURCE_QUALITY = 90
# The goals this bench checks.
MAX_OVERHEAD = 0.05


def fixtures_module():
    """scripts/make-colour-fixtures.py as a module (its name has hyphens): its JPEG APP2 helpers,
    profile descriptions and CIEDE2000."""
    spec = importlib.util.spec_from_file_location("make_colour_fixtures", ROOT / "scripts" / "make-colour-fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def app2_chunks(profile):
    """The profile cut into APP2 payloads (at most 65,519 bytes each after the 14-byte header)."""
    return [profile[i:i + 65519] for i in range(0, len(profile), 65519)]


def without_app2(fx, data):
    """data with every APP2 segment removed (what is left must be the untagged file, byte for byte)."""
    out, pos = bytearray(data[:2]), 2
    for marker, start, end in fx.jpeg_segments(data):
        if marker != 0xE2:
            out += data[start:end]
        pos = end
    return bytes(out + data[pos:])


def make_pair(fx, directory, label, size, seed, profile):
    """(tagged, untagged) JPEGs of a photo-like size[0]×size[1] image, q90: the untagged one from
    cjpeg, the tagged one the same bytes with the profile's APP2 segment(s) after APP0."""
    width, height = size
    untagged = directory / f"colour-untagged-{width}x{height}.jpg"
    tagged = directory / f"colour-{label}-{width}x{height}.jpg"
    if not untagged.exists():
        print(f"generating {untagged} …", flush=True)
        partial = untagged.with_name(".partial-" + untagged.name)
        jpeg(partial, width, height, seed=seed, quality=SOURCE_QUALITY)
        partial.rename(untagged)
    base = untagged.read_bytes()
    want = fx.jpeg_with_app2(base, app2_chunks(profile))
    if not tagged.exists() or tagged.read_bytes() != want:
        partial = tagged.with_name(".partial-" + tagged.name)
        partial.write_bytes(want)
        partial.rename(tagged)
    # The pair differs by the APP2 segments only, and those carry exactly the profile.
    assert without_app2(fx, want) == base and fx.jpeg_icc(want) == profile and fx.jpeg_icc(base) is None
    return tagged, untagged


def rounds(cases, runs, outputs):
    """`runs` rounds of every case in turn, each run through compare(): the same medians and peaks as
    compare(cases, runs), every run's time kept to show the spread. Before each run its output
    (outputs[name], a file or directory) is removed and the page cache written back (os.sync), so
    every run writes into nothing and none pays for the writeback of the one before."""
    times = {name: [] for name, *_ in cases}
    peaks = {name: [] for name, *_ in cases}
    errors = {}
    for _ in range(runs):
        for case in cases:
            name = case[0]
            if name in errors:
                continue
            output = outputs[name]
            if output.is_dir():
                shutil.rmtree(output)
                output.mkdir()
            else:
                output.unlink(missing_ok=True)
            os.sync()
            seconds, peak, error = compare([case], runs=1)[name]
            if error:
                errors[name] = error
            else:
                times[name].append(seconds)
                peaks[name].append(peak)
    results = {name: (statistics.median(times[name]) if times[name] and name not in errors else None,
                      max(peaks[name]) if peaks[name] and name not in errors else None, errors.get(name))
               for name, *_ in cases}
    return results, times


def rgb(path):
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"), dtype=np.int16)


def mad(a, b):
    """Mean absolute difference in 8-bit levels over every channel of every pixel."""
    return float(np.abs(np.asarray(a, dtype=np.int16) - np.asarray(b, dtype=np.int16)).mean())


def profile_of(fx, path):
    with Image.open(path) as image:
        return fx.description(image.info.get("icc_profile")) or "none"


def fmt(value, digits=3):
    return "—" if value is None else f"{value:.{digits}f}"


def ratio(a, b):
    return None if a is None or b is None or not b else a / b


def summary(title, results, times, rows, notes=()):
    """The table this bench is about. rows: (label, tagged case, untagged case or None), tessera first:
    tagged and untagged time and peak RSS, the conversion overhead, and tessera ÷ each peer."""
    print(f"\n  {title}")
    print(f"    {'':<36}{'tagged s':>10}{'untagged s':>12}{'overhead':>10}{'tagged MB':>11}{'untagged MB':>13}{'RSS +':>8}")
    none = (None, None, None)
    cells = {}
    for label, tagged, untagged in rows:
        t, u = results[tagged], results[untagged] if untagged else none
        overhead, rss = ratio(t[0], u[0]), ratio(t[1], u[1])
        cells[label] = (t, u)
        print(f"    {label:<36}{fmt(t[0]):>10}{fmt(u[0]):>12}"
              f"{'—' if overhead is None else f'{(overhead - 1) * 100:+.1f}%':>10}"
              f"{fmt(t[1] and t[1] / 1e6, 1):>11}{fmt(u[1] and u[1] / 1e6, 1):>13}"
              f"{'—' if rss is None else f'{(rss - 1) * 100:+.0f}%':>8}")
    (tt, tu) = cells[rows[0][0]]
    for label, _, _ in rows[1:]:
        vt, vu = cells[label]
        print(f"    {'tessera ÷ ' + label:<36}{fmt(ratio(tt[0], vt[0]), 2):>10}{fmt(ratio(tu[0], vu[0]), 2):>12}{'':>10}"
              f"{fmt(ratio(tt[1], vt[1]), 2):>11}{fmt(ratio(tu[1], vu[1]), 2):>13}")
    spread = "; ".join(f"{name} {min(v):.3f}–{max(v):.3f}" for name, v in times.items() if v)
    print(f"    every run (s): {spread}")
    for note in notes:
        print(f"    {note}")
    overhead = ratio(tt[0], tu[0])
    goals = [("conversion adds ≤ 5% to tessera's time", None if overhead is None else overhead - 1 <= MAX_OVERHEAD,
              "—" if overhead is None else f"{(overhead - 1) * 100:+.1f}%")]
    for label, _, untagged in rows[1:]:
        vt, vu = cells[label]
        goals.append((f"tessera tagged ahead of {label}, tagged", None if tt[0] is None or vt[0] is None else tt[0] < vt[0],
                      fmt(ratio(tt[0], vt[0]), 2) + "×"))
        if untagged:
            goals.append((f"tessera untagged ahead of {label}, untagged",
                          None if tu[0] is None or vu[0] is None else tu[0] < vu[0], fmt(ratio(tu[0], vu[0]), 2) + "×"))
    for label, met, value in goals:
        print(f"    goal {label}: {'—' if met is None else 'met' if met else 'NOT met'} ({value})")
    sys.stdout.flush()


def measure_and_report(cases, runs, outputs, tagged, heading, title, rows, notes=()):
    """Runs the cases (rounds()), then prints their table under `heading` and the summary under
    title(size), size the tagged source's width×height. False when a case failed: there is nothing
    to check then."""
    results, times = rounds(cases, runs, outputs)
    with Image.open(tagged) as image:
        width, height = image.size
    table(f"{heading}: median of {runs} interleaved runs", results, reference="tessera tagged")
    summary(title(f"{width}×{height}"), results, times, rows, notes)
    return not any(error for _, _, error in results.values())


def thumbnails(fx, tessera, tagged, untagged, out, runs):
    files = {"tessera tagged": out / "tessera-tagged.jpg", "tessera untagged": out / "tessera-untagged.jpg",
             "vipsthumbnail -e srgb, tagged": out / "vips-tagged.jpg", "vipsthumbnail, untagged": out / "vips-untagged.jpg"}

    def ours(source, name):
        return [tessera, "thumbnail", str(source), "--max-pixel-size", str(THUMB_SIZE),
                "--quality", str(QUALITY), "--output", str(files[name])]
    cases = [
        ("tessera tagged", ours(tagged, "tessera tagged")),
        ("tessera untagged", ours(untagged, "tessera untagged")),
        ("vipsthumbnail -e srgb, tagged", ["vipsthumbnail", str(tagged), "--size", str(THUMB_SIZE), "--export-profile",
                                           "srgb", "-o", f"{files['vipsthumbnail -e srgb, tagged']}[Q={QUALITY}]"]),
        ("vipsthumbnail, untagged", ["vipsthumbnail", str(untagged), "--size", str(THUMB_SIZE),
                                     "-o", f"{files['vipsthumbnail, untagged']}[Q={QUALITY}]"]),
    ]
    if not measure_and_report(cases, runs, files, tagged,
                              f"{tagged.name} (Display P3) and {untagged.name} → {THUMB_SIZE} px, JPEG q{QUALITY}",
                              lambda size: f"thumbnail {size} → {THUMB_SIZE} px",
                              [("tessera", "tessera tagged", "tessera untagged"),
                               ("vipsthumbnail", "vipsthumbnail -e srgb, tagged", "vipsthumbnail, untagged")]):
        return
    t_tag, t_un = rgb(files["tessera tagged"]), rgb(files["tessera untagged"])
    v_tag, v_un = rgb(files["vipsthumbnail -e srgb, tagged"]), rgb(files["vipsthumbnail, untagged"])
    print("  checks:")
    print(f"    tessera tagged vs untagged: mean |Δ| {mad(t_tag, t_un):.2f} levels "
          f"({'converted' if mad(t_tag, t_un) > 0.5 else 'NOT CONVERTED'}); sizes {t_tag.shape[1]}×{t_tag.shape[0]}, "
          f"vips {v_tag.shape[1]}×{v_tag.shape[0]}; embedded profile: tessera {profile_of(fx, files['tessera tagged'])}, "
          f"vips {profile_of(fx, files['vipsthumbnail -e srgb, tagged'])}")
    if t_tag.shape != v_tag.shape:
        print("    sizes differ: vips' thumbnails resized to tessera's (Lanczos) for the comparison")
        v_tag, v_un = (np.asarray(Image.fromarray(v.astype(np.uint8)).resize((t_tag.shape[1], t_tag.shape[0]),
                                                                              Image.LANCZOS), dtype=np.int16)
                       for v in (v_tag, v_un))
    tagged_de = fx.colour_difference(Image.fromarray(t_tag.astype(np.uint8)), Image.fromarray(v_tag.astype(np.uint8)))
    untagged_de = fx.colour_difference(Image.fromarray(t_un.astype(np.uint8)), Image.fromarray(v_un.astype(np.uint8)))
    print(f"    tessera tagged vs vipsthumbnail -e srgb: mean |Δ| {mad(t_tag, v_tag):.2f} levels, "
          f"ΔE00 mean {tagged_de['mean']:.2f}, p99 {tagged_de['p99']:.2f}")
    print(f"    baseline, untagged tessera vs vipsthumbnail (resampling only): mean |Δ| {mad(t_un, v_un):.2f} levels, "
          f"ΔE00 mean {untagged_de['mean']:.2f}, p99 {untagged_de['p99']:.2f}")
    sys.stdout.flush()


def pyramids(fx, tessera, tagged, untagged, out, runs):
    converting = "vips icc_transform → dzsave"
    names = ("tessera tagged", "tessera untagged", "vips dzsave tagged", "vips dzsave untagged", converting)
    dirs = {name: out / f"pyramid-{index}" for index, name in enumerate(names)}
    for directory in dirs.values():
        directory.mkdir(parents=True, exist_ok=True)
    options = ["--tile-size", str(TILE), "--overlap", str(OVERLAP)]

    def ours(source, name):
        return [tessera, "tile", str(source), "--layout", "dzi", *options, "--quality", str(QUALITY),
                "--output", str(dirs[name])]

    def theirs(source, name):
        return ["vips", "dzsave", str(source), str(dirs[name] / source.stem), *options,
                "--suffix", f".jpeg[Q={QUALITY}]"]
    cases = [("tessera tagged", ours(tagged, "tessera tagged")),
             ("tessera untagged", ours(untagged, "tessera untagged")),
             ("vips dzsave tagged", theirs(tagged, "vips dzsave tagged")),
             ("vips dzsave untagged", theirs(untagged, "vips dzsave untagged")),
             # The same conversion in vips' one streaming pipeline: the embedded profile to its built-in
             # sRGB, perceptual (dzsave chosen by the .dz suffix; container=fs writes the .dzi tree).
             (converting, ["vips", "icc_transform", str(tagged),
                           f"{dirs[converting] / tagged.stem}.dz[container=fs,tile-size={TILE},overlap={OVERLAP},"
                           f"suffix=.jpeg[Q={QUALITY}]]", "srgb", "--embedded", "--intent", "perceptual"])]
    if not measure_and_report(cases, runs, dirs, tagged,
                              f"{tagged.name} (Adobe RGB) and {untagged.name} → Deep Zoom (tile {TILE}, "
                              f"overlap {OVERLAP}, JPEG q{QUALITY})",
                              lambda size: f"Deep Zoom pyramid of {size}",
                              [("tessera", "tessera tagged", "tessera untagged"),
                               ("vips dzsave", "vips dzsave tagged", "vips dzsave untagged"),
                               (converting, converting, None)],
                              ["vips dzsave has no profile option in libvips 8.14 and converts nothing (it strips "
                               "the profile from the tiles): its tagged run is untagged work; `vips icc_transform … "
                               "srgb --embedded` into dzsave is vips doing the conversion Tessera does"]):
        return

    def source(name):
        return untagged if "untagged" in name else tagged
    sets = {name: tile_set(directory, source(name).stem) for name, directory in dirs.items()}
    same = (len({frozenset(tiles) for tiles in sets.values()}) == 1
            and descriptor(dirs["tessera tagged"], tagged.stem) == descriptor(dirs["vips dzsave tagged"], tagged.stem))
    ours_tagged = sets["tessera tagged"]
    levels = sorted({int(p.split("/")[0]) for p in ours_tagged})
    print("  checks:")
    print(f"    same descriptor and tile set in all five pyramids: {'yes' if same else 'NO'} "
          f"({len(levels)} levels, {len(ours_tagged)} tiles)")
    # The largest level that is one tile, and 9 tiles spread over the full-resolution level.
    single = max(level for level in levels if {p for p in ours_tagged if p.startswith(f"{level}/")} == {f"{level}/0_0.jpeg"})
    top = levels[-1]
    grid = [p.split("/")[1].removesuffix(".jpeg").split("_") for p in ours_tagged if p.startswith(f"{top}/")]
    columns, rows = max(int(c) for c, _ in grid) + 1, max(int(r) for _, r in grid) + 1
    sample = [f"{single}/0_0.jpeg"] + [f"{top}/{c * (columns - 1) // 2}_{r * (rows - 1) // 2}.jpeg"
                                       for c in range(3) for r in range(3)]

    def tile(name, path):
        return dirs[name] / f"{source(name).stem}_files" / path
    differ, agree, baseline, vips_same, carrying = [], [], [], True, []
    for path in sample:
        tessera_tagged = rgb(tile("tessera tagged", path))
        differ.append(mad(tessera_tagged, rgb(tile("tessera untagged", path))))
        agree.append(mad(tessera_tagged, rgb(tile(converting, path))))
        baseline.append(mad(rgb(tile("tessera untagged", path)), rgb(tile("vips dzsave untagged", path))))
        vips_same &= tile("vips dzsave tagged", path).read_bytes() == tile("vips dzsave untagged", path).read_bytes()
        with Image.open(tile("tessera tagged", path)) as image:
            if image.info.get("icc_profile"):
                carrying.append(path)
    with Image.open(tile("tessera tagged", sample[0])) as a, Image.open(tile(converting, sample[0])) as b:
        de = fx.colour_difference(a.convert("RGB"), b.convert("RGB"))
    print(f"    tessera tagged vs untagged, {len(sample)} tiles ({sample[0]} and 9 of level {top}): mean |Δ| "
          f"{min(differ):.2f}–{max(differ):.2f} levels ({'converted' if min(differ) > 0.5 else 'NOT CONVERTED in some'})"
          + (f"; tiles carrying a profile: {carrying}" if carrying else "; no tile carries a profile"))
    print(f"    tessera tagged vs {converting}, same tiles: mean |Δ| {min(agree):.2f}–{max(agree):.2f} levels; "
          f"{sample[0]} ΔE00 mean {de['mean']:.2f}, p99 {de['p99']:.2f}")
    print(f"    baseline, tessera untagged vs vips dzsave untagged: mean |Δ| {min(baseline):.2f}–{max(baseline):.2f} levels")
    print(f"    vips dzsave tagged tiles byte-identical to its untagged ones: {'yes (no conversion)' if vips_same else 'NO'}")
    sys.stdout.flush()


def default_scratch():
    """/dev/shm when it is a writable directory: the pyramids are written to memory, so the disk's
    writeback, the same work tagged or not but seconds of noise against a 5% difference, is left
    out of both. Otherwise the temporary directory."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tessera", help="the tessera binary")
    parser.add_argument("workdir", help="where the inputs are made and kept (bench-out/inputs)")
    parser.add_argument("--runs", type=int, default=5, help="interleaved runs per command (default 5)")
    parser.add_argument("--scratch", default=default_scratch(),
                        help="where outputs are written (default /dev/shm when writable, else the temporary directory)")
    args = parser.parse_args()
    missing = [tool for tool in ("vips", "vipsthumbnail", "cjpeg") if not shutil.which(tool)]
    if missing:
        sys.exit(f"colour_bench: missing {', '.join(missing)}; apt-get install -y --no-install-recommends "
                 "libvips-tools libjpeg-turbo-progs")
    tessera = str(Path(args.tessera).resolve())
    fx = fixtures_module()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    p3 = fx.jpeg_icc((ROOT / "Tests" / "Fixtures" / "colour" / "p3.jpg").read_bytes())
    adobe = fx.read(fx.ADOBE_RGB_ICC)
    small = make_pair(fx, workdir, "p3", (6000, 4000), 11, p3)
    big = make_pair(fx, workdir, "adobergb", (16000, 12000), 12, adobe)
    out = Path(tempfile.mkdtemp(prefix="tessera-colour-bench-", dir=args.scratch))
    try:
        print(f"\nColour management: embedded profile → sRGB (tessera, LittleCMS) against the same JPEG untagged; "
              f"median of {args.runs} interleaved runs, peak RSS per process, outputs in {out.parent}")
        thumbnails(fx, tessera, *small, out, args.runs)
        pyramids(fx, tessera, *big, out, args.runs)
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
