#!/usr/bin/env python3
"""`tessera render`: peak RSS and time of an 800×600 view of a 16000×12000 pyramid at zooms from
the whole image to 2.5× magnification (the viewer must stay under about 160 MiB at any zoom)."""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import compare


def main(tessera, inputs):
    work = Path(tempfile.mkdtemp(prefix="tessera-view-bench-"))
    subprocess.run([tessera, "tile", str(Path(inputs) / "view-16000x12000.jpg"), "--output", str(work)],
                   check=True, stdout=subprocess.DEVNULL)
    dzi = str(work / "view-16000x12000.dzi")
    cases = []
    for zoom in ["fit", "0.1", "0.25", "0.5", "1", "2.5"]:
        args = [] if zoom == "fit" else ["--zoom", zoom]
        cases.append((f"zoom {zoom}", [tessera, "render", dzi, "--viewport", "800x600", "--center", "8000,6000",
                                       "--output", str(work / f"view-{zoom}.png")] + args))
    results = compare(cases, runs=3)
    print("\nViewer: 800×600 view of a 16000×12000 Deep Zoom pyramid (median of 3, peak RSS per process)")
    for name, (seconds, peak, error) in results.items():
        print(f"  {name:<12} " + (f"failed: {error}" if error else f"{seconds:6.2f} s   peak {peak / 2**20:6.1f} MiB"))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
