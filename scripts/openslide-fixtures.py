#!/usr/bin/env python3
"""OpenSlide's own tiny test slides (small.svs, boxes.tiff, boxes_0.dcm, boxes_1.dcm,
unreadable.svs, unopenable.tiff) and its Deep Zoom server example (deepzoom_server.py, the slide
benchmark's peer), taken out of openslide-python's source distribution on PyPI, checked by its
SHA-256, into OUTPUT_DIR. Usage: openslide-fixtures.py OUTPUT_DIR"""
import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile

VERSION = "1.4.7"
SHA256 = "730fed798de683b00c8ef4d956f3d429cc02f2c449eb0d58944e1769ba7983cc"
NAMES = tuple(f"tests/fixtures/{name}" for name in (
    "small.svs", "boxes.tiff", "boxes_0.dcm", "boxes_1.dcm", "unreadable.svs", "unopenable.tiff"))
NAMES += ("examples/deepzoom/deepzoom_server.py",)


def main():
    output = sys.argv[1]
    os.makedirs(output, exist_ok=True)
    with tempfile.TemporaryDirectory() as download:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
             "--no-binary", ":all:", f"openslide-python=={VERSION}", "-d", download],
            check=True)
        archive = os.path.join(download, f"openslide_python-{VERSION}.tar.gz")
        with open(archive, "rb") as file:
            digest = hashlib.sha256(file.read()).hexdigest()
        if digest != SHA256:
            sys.exit(f"openslide-python {VERSION}'s sdist has SHA-256 {digest}, not {SHA256}")
        with tarfile.open(archive) as tar:
            for name in NAMES:
                member = tar.extractfile(f"openslide_python-{VERSION}/{name}")
                with open(os.path.join(output, os.path.basename(name)), "wb") as file:
                    file.write(member.read())


if __name__ == "__main__":
    main()
