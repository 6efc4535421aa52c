#!/usr/bin/env bash
# Benchmarks Tessera against the peer tools in one run; prints ratios and peak RSS.
# Inputs are generated once into bench-out/inputs (several hundred MB; never committed).
set -euo pipefail
tessera=$(realpath "${1:-.build/release/tessera}")
cd "$(dirname "$0")/.."
python3 -c "import numpy" 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check numpy
python3 -c "import pillow_heif" 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check "pillow-heif==1.8.1" || true
python3 scripts/bench/make_inputs.py bench-out/inputs
python3 scripts/bench/thumbnail_bench.py "$tessera" bench-out/inputs
python3 scripts/bench/tile_bench.py "$tessera" bench-out/inputs
python3 scripts/bench/colour_bench.py "$tessera" bench-out/inputs
python3 scripts/bench/format_bench.py "$tessera" bench-out/inputs
python3 scripts/bench/view_bench.py "$tessera" bench-out/inputs
python3 scripts/bench/video_bench.py "$tessera" bench-out/inputs
# The cold path: first screens, a grid of unseen photos, a deep first click and a gigapixel JPEG
# through `tessera serve` from an empty cache, beside the decodes they cannot avoid.
python3 scripts/bench/cold_bench.py "$tessera" bench-out/inputs --runs 3 --json bench-out/cold.json
# `tessera serve` beside nginx (static tiles) and iipsrv (FastCGI behind nginx), wrk on loopback.
python3 scripts/bench/serving_bench.py "$tessera" bench-out/inputs --runs 3 --json bench-out/serving.json
# Access control: warm tiles with no policy, with a policy that leaves the image public, and
# authorised by an access cookie (issue 39's goals: ≤ 5% and ≤ 15% of the rate).
python3 scripts/bench/access_bench.py "$tessera" bench-out/inputs --runs 3 --json bench-out/access.json
# JPEG 2000 (two JP2s of the same JPEG, made on /dev/shm): `tessera serve` beside iipsrv (OpenJPEG),
# cold tiles beside opj_decompress, `tessera thumbnail` beside vipsthumbnail.
python3 scripts/bench/jp2_bench.py "$tessera" bench-out/inputs --runs 3 --json bench-out/jp2.json
# Whole-slide images: an Aperio SVS-like slide and its DICOM twin (50000×40000, made once) served by
# `tessera serve` beside OpenSlide's own Deep Zoom server (Flask), aligned tiles, regions, cold
# info.json, memory.
python3 scripts/bench/slide_bench.py "$tessera" bench-out/inputs --runs 3 --json bench-out/slides.json
python3 scripts/bench/slide_bench.py "$tessera" bench-out/inputs --kind dicom --runs 3 --json bench-out/slides-dicom.json
# Maps: a Sentinel-2-like scene (10980², UTM, made once) as Web Mercator tiles, `tessera serve` beside
# TiTiler 2.4 (2 uvicorn workers): first-pass and warm tiles, warped and aligned, JPEG pass-through
# beside nginx, memory, and a 5-minute soak.
python3 scripts/bench/map_bench.py "$tessera" bench-out/inputs --runs 3 --json bench-out/maps.json
# IIIF Presentation: manifests of a 2,000-page PDF and TIFF and a 10,000-file folder's collection and
# manifest, cold and warm, beside the header reads they cannot avoid (pdfinfo, Pillow, vipsheader).
python3 scripts/bench/presentation_bench.py "$tessera" --runs 3 --json bench-out/presentation.json
# The viewer over many images, in headless Chromium: page 1 of an unseen 2,000-page PDF beside the
# same page alone, paging, and the thumbnails a 10,000-image gallery asks for.
.build/browser-venv/bin/python scripts/bench/viewer_pages_bench.py "$tessera" --runs 3 --json bench-out/viewer-pages.json
# Scale-out: sources and pyramids in SeaweedFS, one to three `tessera serve` behind nginx.
python3 scripts/bench/scaleout_bench.py "$tessera" bench-out/inputs --json bench-out/scaleout.json

# The image pipeline: memory-hit latency, disk-hit throughput and a 1,000-URL prefetch storm, each
# against a plain baseline (download + full decode + resize, no caching) in the same run, over HTTP
# from a local server.
bin=$(dirname "$tessera")
served=bench-out/served
"$bin/tessera-demo" "$served" 50 --generate-only >/dev/null
cp Tests/Fixtures/jpeg-exif-thumbnail.jpg "$served/"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$served" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break; sleep 0.1; done
base="http://127.0.0.1:$port"
photos=$(cd "$served" && ls photo-*.jpg)
echo
echo "Image pipeline: 100×100-point cells at 3x from 4032×3024 JPEGs over local HTTP"
"$bin/tessera-bench" latency "$base" photo-000.jpg
"$bin/tessera-bench" throughput "$base" $photos
echo "  1,000 distinct URLs at once (640×480 JPEG):"
"$bin/tessera-bench" storm "$base" jpeg-exif-thumbnail.jpg
"$bin/tessera-bench" storm-baseline "$base" jpeg-exif-thumbnail.jpg
