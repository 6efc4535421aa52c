#!/usr/bin/env bash
# Runs the official IIIF Image API validator (iiif-validator on PyPI) against a running server.
#
#   scripts/iiif-validate.sh HOST:PORT PREFIX IDENTIFIER [OPTIONAL_TEST...]
#   e.g. scripts/iiif-validate.sh 127.0.0.1:8182 iiif/3 tessera-validator
#
# The image behind IDENTIFIER must be the validator's test image (scripts/iiif-validator-image.py).
# Runs the version 3.0 level-2 suite (33 tests), then each optional test by name (default list
# below, or the names given after IDENTIFIER), prints one line per test (failure details indented
# under it), ends with "iiif-validator: N passed, M failed" and exits 1 if anything failed.
#
# Environment:
#   IIIF_VALIDATOR_PYTHON  a python that already has the pinned validator; else a venv is made
#   IIIF_VALIDATOR_VENV    where that venv goes (default: <repo>/.build/iiif-validator-venv)
#   IIIF_VALIDATOR_SEED    seed for the validator's random choices (default: random, printed)
#   IIIF_VALIDATOR_LEVEL   level of the suite (default 2)
#   IIIF_WAIT_SECONDS      how long to wait for the server's info.json to answer (default 30)
#   IIIF_VALIDATOR_TIMEOUT seconds each of the validator's requests may take (default 60; its own is 5)
set -uo pipefail

# iiif-validator 1.0.5 (2019) is the latest on PyPI; it works on Python 3.11 except for
# format_webp/format_jp2/format_pdf, which call urllib.urlopen (Python 2 only). Dependencies pinned
# as resolved on 2026-11 (pillow matches the repo's fixture pin).
# The pins live in one file, which scripts/bootstrap.sh installs from too.
mapfile -t REQUIREMENTS < "$(dirname "$0")/iiif-validator-requirements.txt"
DEFAULT_OPTIONAL_TESTS=(size_up rot_full_non90 rot_region_non90 rot_mirror rot_mirror_180 format_webp
  linkheader_canonical linkheader_profile)

if [[ $# -lt 3 ]]; then
  echo "usage: $0 HOST:PORT PREFIX IDENTIFIER [OPTIONAL_TEST...]" >&2
  exit 2
fi
server=${1#http://}
server=${server%/}
prefix=$2
identifier=$3
shift 3
optional_tests=("$@")
[[ ${#optional_tests[@]} -eq 0 ]] && optional_tests=("${DEFAULT_OPTIONAL_TESTS[@]}")
level=${IIIF_VALIDATOR_LEVEL:-2}
seed=${IIIF_VALIDATOR_SEED:-$RANDOM}

# The validator joins -p's '/'-separated parts with '/' after "http://HOST:PORT/": a leading or
# trailing slash would make a "//" in every URL.
while [[ $prefix == /* ]]; do prefix=${prefix#/}; done
while [[ $prefix == */ ]]; do prefix=${prefix%/}; done

# The validator uses urllib, which honours *_proxy variables: keep every request on HOST:PORT.
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy='*' NO_PROXY='*'
export PYTHONDONTWRITEBYTECODE=1

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# --- the validator -----------------------------------------------------------------------------
validator_ok() { # python → 0 if it imports the pinned validator
  "$1" - <<'EOF' >/dev/null 2>&1
import contextlib, io, importlib.metadata as md
with contextlib.redirect_stdout(io.StringIO()):
    import iiif_validator.validator
assert md.version("iiif-validator") == "1.0.5"
EOF
}

if [[ -n ${IIIF_VALIDATOR_PYTHON:-} ]]; then
  py=$IIIF_VALIDATOR_PYTHON
else
  venv=${IIIF_VALIDATOR_VENV:-$repo/.build/iiif-validator-venv}
  py=$venv/bin/python
  if ! validator_ok "$py"; then
    echo "iiif-validate: installing ${REQUIREMENTS[*]} into $venv" >&2
    { [[ -x $py ]] || python3 -m venv "$venv"; } &&
      "$py" -m pip install --quiet --disable-pip-version-check "${REQUIREMENTS[@]}" >&2 ||
      { echo "iiif-validate: could not install the validator" >&2; exit 2; }
  fi
fi
if ! validator_ok "$py"; then
  # python-magic (imported by the validator's test modules) needs libmagic.so.1.
  if ! ldconfig -p 2>/dev/null | grep 'libmagic\.so\.1' >/dev/null && [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "iiif-validate: installing libmagic1" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q libmagic1 >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q libmagic1 >/dev/null 2>&1; }
  fi
  validator_ok "$py" || { echo "iiif-validate: $py cannot import iiif-validator 1.0.5 (needs libmagic1)" >&2; exit 2; }
fi
cli=$("$py" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')/iiif-validate.py
[[ -f $cli ]] || { echo "iiif-validate: $cli not found" >&2; exit 2; }

base="http://$server${prefix:+/$prefix}/$identifier"

# --- wait for the server -----------------------------------------------------------------------
if ! "$py" - "$base/info.json" "${IIIF_WAIT_SECONDS:-30}" <<'EOF'; then
import sys, time, urllib.request, urllib.error
url, deadline = sys.argv[1], time.time() + float(sys.argv[2])
while True:
    try:
        urllib.request.urlopen(url, timeout=5).close()
        sys.exit(0)
    except urllib.error.HTTPError as e:
        sys.exit("iiif-validate: %s answered %d" % (url, e.code))
    except Exception as e:
        if time.time() > deadline:
            sys.exit("iiif-validate: %s not reachable: %s" % (url, e))
        time.sleep(0.25)
EOF
  echo "iiif-validator: 0 passed, 1 failed"
  exit 1
fi

# --- running -----------------------------------------------------------------------------------
passed=0
failed=0
# The validator gives each request 5 seconds; a debug build answering an arbitrary rotation while
# the rest of the test suite runs on the same two cores can take longer, which the validator reports
# as status 0. Its requests get IIIF_VALIDATOR_TIMEOUT seconds (default 60) instead: a slow answer
# is not a wrong one, and the whole run is still bounded by `timeout 900`.
run_validator() { # args for iiif-validate.py → its output (stdout+stderr), seeded
  timeout 900 "$py" -c '
import os, random, runpy, sys
import iiif_validator.validator as validator
seconds = float(os.environ.get("IIIF_VALIDATOR_TIMEOUT", "60"))
opened = validator.urlopen
validator.urlopen = lambda request, timeout=None: opened(request, timeout=seconds)
random.seed(int(sys.argv[1]))
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
' "$seed" "$cli" -s "$server" ${prefix:+-p "$prefix"} -i "$identifier" --version=3.0 "$@" 2>&1
}

# Reads the validator's output; prints one line per test ("PASS name" / "FAIL name" + indented
# details) and, last, "<tests> <passes> <fails>".
summarize() {
  awk '
    /^\[[0-9]+\] test [A-Za-z0-9_]+ (PASS|FAIL)$/ { n++; name=$3; status=$4
      if (status == "PASS") { p++; printf "PASS  %s\n", name } else { f++; printf "FAIL  %s\n", name }
      indetail = (status == "FAIL"); next }
    /^Done \(/ { indetail = 0; next }
    /^Importing 3$/ { next }
    indetail && NF { sub(/^ */, ""); printf "        %s\n", $0
      # validator 1.0.5 bugs turn some failures into bare Python exceptions: say what they mean
      if ($0 ~ /name .u. is not defined/)
        print "        hint: GET of the base URI (no /info.json) was not redirected (want 303 to .../info.json)"
      if ($0 ~ /NoneType. object has no attribute .strip/)
        print "        hint: the response to full/max/0/default.jpg has no Link header"
      if (name == "size_noup" && $0 ~ /missing 3 required positional arguments/)
        print "        hint: a size without ^ above the region (S,S ,S S, pct:200 !2000,3000) answered 200; want 400"
      next }
    END { printf "%d %d %d\n", n, p, f }'
}

echo "iiif-validator 1.0.5 against $base (version 3.0, level $level, seed $seed)"

out=$(run_validator --level="$level"); status=$?
report=$(printf '%s\n' "$out" | summarize)
printf '%s\n' "$report" | sed '$d'
read -r n p f <<<"$(printf '%s\n' "$report" | tail -n 1)"
passed=$((passed + p)); failed=$((failed + f))
if [[ $status -ne $f ]]; then
  echo "FAIL  level-$level suite: exit status $status but $f failures printed (crash or timeout?)"
  failed=$((failed + 1))
fi
if [[ $level == 2 && $n -ne 33 ]]; then
  echo "        note: the level-2 suite ran $n tests, expected 33"
fi

known=$("$py" - <<'EOF'
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    from iiif_validator.validator import TestSuite, ValidationInfo
print(" ".join(sorted(TestSuite(ValidationInfo()).list_tests("3.0"))))
EOF
)

webp_check() { # the check format_webp means to make, done here: validator 1.0.5 cannot run it on Python 3
  "$py" - "$base/full/max/0/default.webp" <<'EOF'
import io, sys, urllib.request, urllib.error
url = sys.argv[1]
try:
    wh = urllib.request.urlopen(urllib.request.Request(url, headers={"Origin": "http://iiif.io/"}), timeout=5)
    status, body = wh.status, wh.read()
except urllib.error.HTTPError as e:
    status, body = e.code, e.read()
if status != 200:
    sys.exit("url: %s\ngot status %d, expected 200" % (url, status))
if body[0:4] != b"RIFF" or body[8:12] != b"WEBP":
    sys.exit("url: %s\nbody is not RIFF....WEBP (bytes 0-12: %r)" % (url, body[:12]))
from PIL import Image
img = Image.open(io.BytesIO(body))
if img.size != (1000, 1000):
    sys.exit("url: %s\nWebP decodes to %s, expected (1000, 1000)" % (url, img.size))
EOF
}

for test in "${optional_tests[@]}"; do
  if [[ " $known " != *" $test "* ]]; then
    echo "FAIL  $test"
    echo "        no test of that name for version 3.0 in iiif-validator 1.0.5"
    failed=$((failed + 1))
    continue
  fi
  out=$(run_validator --test="$test"); status=$?
  if [[ $test == format_webp && $out == *"has no attribute 'urlopen'"* ]]; then
    if detail=$(webp_check 2>&1); then
      echo "PASS  format_webp (checked by this script: the validator's own check needs Python 2)"
      passed=$((passed + 1))
    else
      echo "FAIL  format_webp (checked by this script: the validator's own check needs Python 2)"
      printf '%s\n' "$detail" | sed 's/^/        /'
      failed=$((failed + 1))
    fi
    continue
  fi
  report=$(printf '%s\n' "$out" | summarize)
  printf '%s\n' "$report" | sed '$d'
  read -r n p f <<<"$(printf '%s\n' "$report" | tail -n 1)"
  passed=$((passed + p)); failed=$((failed + f))
  if [[ $n -ne 1 || $status -ne $f ]]; then
    echo "FAIL  $test: ran $n tests, exit status $status"
    failed=$((failed + 1))
  fi
done

echo "iiif-validator: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
