#!/usr/bin/env python3
"""`tessera tile` against `vips dzsave` with the same tile size (254), overlap (1), format (JPEG)
and quality (75), and a check that both wrote the same descriptor, levels and tile set."""
import re
import shutil
import sys
import tempfile
from pathlib import Path

from measure import compare, table


def tile_set(directory, name):
    files = Path(directory) / f"{name}_files"
    return {str(p.relative_to(files)) for p in files.rglob("*.jpeg")}


def descriptor(directory, name):
    text = (Path(directory) / f"{name}.dzi").read_text()
    return {key: value for key, value in re.findall(r'(\w+)="([^"]*)"', text) if key != "xmlns"}


def main(tessera, inputs):
    work = Path(tempfile.mkdtemp(prefix="tessera-tile-bench-"))
    print("Deep Zoom pyramids (tile 254, overlap 1, JPEG q75): median of 3 interleaved runs, peak RSS per process")
    for name in ["huge-20000x20000.jpg", "wide-60000x4000.jpg", "tall-4000x60000.jpg"]:
        source = str(Path(inputs) / name)
        stem = Path(name).stem
        cases = [
            ("tessera", [tessera, "tile", source, "--layout", "dzi", "--output", str(work / "tessera")]),
            ("vips dzsave", ["vips", "dzsave", source, str(work / "vips" / stem), "--tile-size", "254",
                             "--overlap", "1", "--suffix", ".jpeg[Q=75]"]),
        ]
        (work / "vips").mkdir(exist_ok=True)
        results = compare(cases, runs=3)
        table(name, results)
        ours, theirs = tile_set(work / "tessera", stem), tile_set(work / "vips", stem)
        same = ours == theirs and descriptor(work / "tessera", stem) == descriptor(work / "vips", stem)
        levels = len({p.split("/")[0] for p in ours})
        print(f"  same descriptor and tile set as vips: {'yes' if same else 'NO'} ({levels} levels, {len(ours)} tiles)")
        shutil.rmtree(work / "tessera", ignore_errors=True)
        shutil.rmtree(work / "vips", ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
