#!/usr/bin/env bash
# The pages' tests: pytest + Selenium driving headless Chromium against `tessera serve` (the debug
# build unless TESSERA_BIN says otherwise), all on 127.0.0.1. Arguments go to pytest instead of
# the default (every test under Tests/Browser).
set -euo pipefail
cd "$(dirname "$0")/.."
export TESSERA_BIN="${TESSERA_BIN:-$PWD/.build/debug/tessera}"
[ $# -gt 0 ] || set -- Tests/Browser
exec .build/browser-venv/bin/python -m pytest -q -p no:cacheprovider "$@"
