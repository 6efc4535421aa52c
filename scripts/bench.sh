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
