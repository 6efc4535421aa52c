#!/usr/bin/env bash
# Builds the API documentation of Tessera's eight library modules with the toolchain's docc, one
# archive per module under .build/docs (`.build/docs/TesseraCore.doccarchive` …), treating every
# docc warning as an error, then checks documentation coverage (scripts/doc-coverage.py --min 85)
# for the modules that must stay at 85 %.
#
#   scripts/docs.sh            # all of it; exit 0 only with no warning and every module covered
#   DOCC=/path/to/docc scripts/docs.sh
#   SYMBOL_GRAPH_DIR=.build/x86_64-unknown-linux-gnu/symbolgraph scripts/docs.sh   # graphs dumped already: no build
#
# Each catalog is Sources/<Module>/<Module>.docc; its symbols come from
# `swift package dump-symbol-graph --minimum-access-level public` (which builds first), given to
# docc in a directory of that module's graphs alone (<Module>.symbols.json and its extension graphs
# <Module>@<Other>.symbols.json), so each archive documents one module. To look at one:
# `docc preview Sources/TesseraTiles/TesseraTiles.docc --additional-symbol-graph-dir <that dir>`,
# or serve .build/docs/<Module>.doccarchive with any static file server and open /documentation/<module>.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(TesseraCore TesseraCodecs TesseraStorage TesseraPipeline TesseraTiles TesseraViewing TesseraVideo TesseraTrimming TesseraIIIF TesseraServer)
# The modules held to 85 % of public symbols documented: all of them.
covered=("${modules[@]}")
minimum=85

# The docc beside the toolchain's swift, else whatever is on PATH.
if [[ -z "${DOCC:-}" ]]; then
    swift_path=$(readlink -f "$(command -v swift)")
    DOCC="$(dirname "$swift_path")/docc"
    [[ -x "$DOCC" ]] || DOCC=$(command -v docc || true)
fi
[[ -n "$DOCC" && -x "$DOCC" ]] || { echo "docs.sh: no docc found (set DOCC)" >&2; exit 1; }

start=$SECONDS
log=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$log" "$work"' EXIT
if [[ -n "${SYMBOL_GRAPH_DIR:-}" ]]; then
    graphs=$SYMBOL_GRAPH_DIR
    echo "== symbol graphs from $graphs"
else
    echo "== swift package dump-symbol-graph --minimum-access-level public"
    if ! swift package dump-symbol-graph --minimum-access-level public >"$log" 2>&1; then
        cat "$log" >&2
        echo "docs.sh: dump-symbol-graph failed" >&2
        exit 1
    fi
    graphs=$(sed -n 's/^Files written to //p' "$log" | tail -n 1)
fi
[[ -d "$graphs" ]] || { cat "$log" >&2; echo "docs.sh: no symbol graphs at '$graphs'" >&2; exit 1; }

failed=()
mkdir -p .build/docs
for module in "${modules[@]}"; do
    catalog="Sources/$module/$module.docc"
    archive=".build/docs/$module.doccarchive"
    echo "== docc convert $catalog"
    if [[ ! -d "$catalog" ]]; then
        echo "docs.sh: $catalog is missing" >&2
        failed+=("$module")
        continue
    fi
    symbols="$work/$module"
    mkdir -p "$symbols"
    cp "$graphs/$module.symbols.json" "$symbols/"
    for extension in "$graphs/$module"@*.symbols.json; do
        [[ -e "$extension" ]] && cp "$extension" "$symbols/"
    done
    rm -rf "$archive"
    # docc prints its diagnostics on stderr and its "Finished" line on stdout; keep both, and count
    # any warning as a failure even if this docc version exits 0 on one.
    if ! "$DOCC" convert "$catalog" \
        --additional-symbol-graph-dir "$symbols" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.tessera.$module" \
        --output-path "$archive" \
        --warnings-as-errors >"$work/$module.log" 2>&1 \
        || grep -qE '(^|[^A-Za-z])(warning|error):' "$work/$module.log"; then
        cat "$work/$module.log" >&2
        failed+=("$module")
    else
        echo "   $archive"
    fi
done

echo "== documentation coverage (at least $minimum % for ${covered[*]})"
coverage_status=0
scripts/doc-coverage.py --symbol-graph-dir "$graphs" --min "$minimum" "${covered[@]}" || coverage_status=$?

echo "== $((SECONDS - start)) s"
if ((${#failed[@]})); then
    echo "docs.sh: docc reported problems in ${failed[*]}" >&2
    exit 1
fi
exit "$coverage_status"
