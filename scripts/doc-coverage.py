#!/usr/bin/env python3
"""Documentation coverage of Tessera's public API, measured on symbol graphs.

    scripts/doc-coverage.py                      # dump the symbol graphs (builds), print the table
    scripts/doc-coverage.py --min 85 TesseraCore TesseraTiles   # exit 1 if a listed module is below 85 %
    scripts/doc-coverage.py --symbol-graph-dir DIR --list TesseraPipeline   # read graphs already dumped; name the gaps

Without --symbol-graph-dir it runs `swift package dump-symbol-graph --minimum-access-level public`
in the package's root and reads the directory the command says it wrote the graphs to
(`.build/<triple>/symbolgraph`). A module's public symbols are those of `<Module>.symbols.json` and
of its extension graphs `<Module>@<Other>.symbols.json` (its extensions of other modules' types).
Only Tessera's own modules are counted: names starting with "Tessera" that are targets under
Sources/ (so not the test runner's TesseraPackageTests). A module with no public symbols (`Tessera`,
which only re-exports) is listed without a percentage and never fails --min.

What counts:
- A symbol is *documented* when it has a doc comment with some non-blank text.
- Members that the module does not declare are left out: the symbol graph's synthesized members
  (precise identifiers containing `::SYNTHESIZED::`: default implementations a type gets from a
  protocol extension, such as `!=` from Equatable or `encode(to:)` from RawRepresentable's Codable
  extension). They are the protocol's API, documented where the protocol is.
- A symbol the module does declare whose only doc comment is inherited from the requirement of a
  protocol in another module (the symbol graph gives it that protocol's doc comment, with another
  module's name: `description` of CustomStringConvertible, `init(from:)` of Decodable, an enum's
  implicit `init(rawValue:)`) counts as documented: the requirement's doc states what it does, and
  it is what DocC shows on its page. Such symbols are counted in the "inherited" column, so the
  share is visible; --strict counts them as undocumented instead.
- Enum cases and every other kind count like any other symbol: an undocumented case is a gap.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def dump_symbol_graphs():
    """Runs SwiftPM's dump-symbol-graph (which builds first) and returns the directory it wrote."""
    command = ["swift", "package", "dump-symbol-graph", "--minimum-access-level", "public"]
    result = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout)
        sys.exit(f"doc-coverage: `{' '.join(command)}` failed with status {result.returncode}")
    match = re.search(r"Files written to (.+)$", result.stdout, re.MULTILINE)
    if not match:
        sys.stderr.write(result.stdout)
        sys.exit("doc-coverage: dump-symbol-graph did not say where it wrote the symbol graphs")
    return match.group(1).strip()


def own_modules(directory):
    """Tessera's module names with a symbol graph in `directory`, in a stable order."""
    names = set()
    for filename in os.listdir(directory):
        match = re.fullmatch(r"([A-Za-z0-9_]+)(?:@[A-Za-z0-9_]+)?\.symbols\.json", filename)
        if match and match.group(1).startswith("Tessera") and os.path.isdir(os.path.join(ROOT, "Sources", match.group(1))):
            names.add(match.group(1))
    return sorted(names)


def has_text(doc_comment):
    return any(line.get("text", "").strip() for line in (doc_comment or {}).get("lines", []))


def coverage(directory, module):
    """(symbol count, count documented by their own comment, inherited-doc symbols, undocumented symbols)."""
    files = [f for f in os.listdir(directory) if f == f"{module}.symbols.json" or f.startswith(f"{module}@")]
    seen = {}
    for filename in sorted(files):
        with open(os.path.join(directory, filename)) as handle:
            graph = json.load(handle)
        for symbol in graph.get("symbols", []):
            precise = symbol["identifier"]["precise"]
            if "::SYNTHESIZED::" in precise:
                continue
            seen.setdefault(precise, symbol)
    own, inherited, missing = 0, [], []
    for symbol in seen.values():
        doc = symbol.get("docComment")
        entry = (symbol["kind"]["identifier"], ".".join(symbol["pathComponents"]), symbol.get("location", {}))
        if has_text(doc) and doc.get("module", module) == module:
            own += 1
        elif has_text(doc):
            inherited.append(entry)
        else:
            missing.append(entry)
    return len(seen), own, inherited, missing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", help="modules to check against --min and list (default: all of Tessera's)")
    parser.add_argument("--min", type=float, help="exit 1 when a module's percentage is below this")
    parser.add_argument("--symbol-graph-dir", help="read these graphs instead of running dump-symbol-graph")
    parser.add_argument("--strict", action="store_true", help="do not count doc comments inherited from other modules")
    parser.add_argument("--list", action="store_true", help="print the undocumented symbols of the modules checked")
    arguments = parser.parse_args()

    directory = arguments.symbol_graph_dir or dump_symbol_graphs()
    modules = own_modules(directory)
    if not modules:
        sys.exit(f"doc-coverage: no Tessera symbol graphs in {directory}")
    unknown = [m for m in arguments.modules if m not in modules]
    if unknown:
        sys.exit(f"doc-coverage: no symbol graph for {', '.join(unknown)} in {directory}")
    checked = arguments.modules or modules

    rows, failures, gaps = [], [], collections.OrderedDict()
    for module in modules:
        total, own, inherited, missing = coverage(directory, module)
        documented = own + (0 if arguments.strict else len(inherited))
        percent = 100.0 * documented / total if total else None
        rows.append((module, total, documented, len(inherited), percent))
        if module in checked:
            gaps[module] = missing + (inherited if arguments.strict else [])
            if arguments.min is not None and percent is not None and percent < arguments.min:
                failures.append(module)

    header = ("module", "public symbols", "documented", "of which inherited", "percent")
    print(f"{header[0]:<18} {header[1]:>14} {header[2]:>10} {header[3]:>18} {header[4]:>7}")
    for module, total, documented, inherited, percent in rows:
        mark = " *" if module in checked and arguments.min is not None else ""
        shown = "-" if percent is None else f"{percent:.1f}%"
        print(f"{module:<18} {total:>14} {documented:>10} {inherited:>18} {shown:>7}{mark}")
    if arguments.strict:
        print("(--strict: inherited doc comments are not counted as documented)")

    if arguments.list:
        for module, missing in gaps.items():
            if not missing:
                continue
            print(f"\n{module}: {len(missing)} undocumented")
            for kind, path, location in sorted(missing, key=lambda m: (m[2].get("uri", ""), m[2].get("position", {}).get("line", 0))):
                where = location.get("uri", "").replace(f"file://{ROOT}/", "")
                line = location.get("position", {}).get("line")
                print(f"  {where}:{line + 1 if line is not None else '?'}  {kind.replace('swift.', '')}  {path}")

    if failures:
        print(f"\ndoc-coverage: below {arguments.min:g}%: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
