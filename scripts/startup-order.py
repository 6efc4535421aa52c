#!/usr/bin/env python3
"""`make order-file`: writes scripts/link/tessera.order, the functions `tessera` runs when it starts
and does a small job, which the release link (Makefile, RELEASE_FLAGS) places first in the
executable's text with lld's --symbol-ordering-file.

Why: a short-lived `tessera` process's peak RSS is mostly its own executable's text. Each first
touch of a code page maps the whole 64 KB window around it (the kernel's fault-around), and the
~1 MB of functions a thumbnail runs were spread over ~120 such windows of a 21 MB text: 7.7 MB
resident. Placed together they take ~80 windows, mostly adjacent (measured: small-JPEG thumbnail
16.1 → 13.7 MB peak RSS). What remains spread is code in the static Swift runtime's and
FoundationEssentials' objects that were built without per-function sections, which move as one
block.

How: each command below runs under valgrind's callgrind, which lists every function executed; the
names that are symbols of the binary are written in the order first seen. A stale file costs only
the start-up RSS (missing names are ignored, new functions are placed after the listed ones), so
rerun this after large changes to what start-up runs: `make order-file`, then commit the file.

Usage: scripts/startup-order.py [BINARY]   (default .build/release/tessera)
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDER_FILE = os.path.join(ROOT, "scripts", "link", "tessera.order")
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")

# What a short-lived process is asked most: help, info, thumbnails of each common format (also as
# JSON), a conversion. Order matters a little: earlier commands' functions are placed first.
COMMANDS = [
    ["--help"],
    ["thumbnail", "jpeg-exif-thumbnail.jpg", "--max-pixel-size", "128", "--output", "{out}/a.jpg"],
    ["info", "jpeg-exif-thumbnail.jpg"],
    ["info", "photo-400x300.png", "--json"],
    ["thumbnail", "photo-400x300.png", "--max-pixel-size", "128", "--output", "{out}/b.png"],
    ["thumbnail", "gif-single.gif", "--max-pixel-size", "64", "--output", "{out}/c.jpg"],
    ["thumbnail", "webp-lossless.webp", "--max-pixel-size", "64", "--output", "{out}/d.webp", "--json"],
    ["convert", "photo-400x300.png", "{out}/e.jpg"],
]


def executed_functions(binary, arguments, scratch, index):
    """Every function name callgrind saw, in order of first appearance in its output."""
    output = os.path.join(scratch, f"callgrind.{index}")
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--demangle=no", "--dump-instr=no", "--compress-strings=no",
         "--compress-pos=no", f"--callgrind-out-file={output}", binary, *arguments],
        cwd=FIXTURES, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    names = []
    with open(output) as lines:
        for line in lines:
            if line.startswith("fn=") or line.startswith("cfn="):
                names.append(line.split("=", 1)[1].strip())
    return names


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/tessera"))
    if not shutil.which("valgrind"):
        sys.exit("startup-order: needs valgrind (scripts/bootstrap.sh --bench installs it)")
    symbols = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    code = {fields[2] for fields in (line.split() for line in symbols.splitlines())
            if len(fields) == 3 and fields[1] in "Tt"}
    with tempfile.TemporaryDirectory() as scratch:
        # Valgrind 3.19 gives up on the DWARF 5 name index Swift 6.3 writes; the symbol table is
        # all it needs.
        stripped = os.path.join(scratch, "tessera")
        subprocess.run(["strip", "--strip-debug", "-o", stripped, binary], check=True)
        order, seen = [], set()
        for index, command in enumerate(COMMANDS):
            arguments = [argument.format(out=scratch) for argument in command]
            for name in executed_functions(stripped, arguments, scratch, index):
                if name in code and name not in seen:
                    seen.add(name)
                    order.append(name)
    os.makedirs(os.path.dirname(ORDER_FILE), exist_ok=True)
    with open(ORDER_FILE, "w") as file:
        file.write("\n".join(order) + "\n")
    print(f"startup-order: {len(order)} functions → {os.path.relpath(ORDER_FILE, ROOT)}")


if __name__ == "__main__":
    main()
