#!/usr/bin/env python3
"""Sorts the pairs `duplicates` reports by what they repeat, for planning a clean-up.

    duplicates --most 200 --seconds 120 | scripts/duplicate-kinds.py [--list]

A pair is `identical` or `shape` (as duplicates marks it), and `declarations` when at least 70% of
the code lines on each side declare or list rather than compute: stored properties, the
assignments of a memberwise initializer, enum cases and switch arms that map a value to a
constant, command-line option attributes, test-argument tuples, X-macro entries and preprocessor
lines, markup. Such a pair is two different things written in the same grammar (two structs, two
option lists, two argument tables); the others (`code`) are where one piece of logic could serve
both. Comments and blank lines are not counted, as duplicates does not count them.
"""
import argparse
import re
import sys
from collections import Counter

DECLARING = [re.compile(pattern) for pattern in (
    r"^(public |private |internal |fileprivate |package )*(static )?(let|var) \w+: [^=]+"
    r"( = (\"[^\"]*\"|[\d.]+|false|true|nil|\.\w+|\[\]))?$",  # a stored property, maybe with a literal default
    r"^var \w+ = (\"[^\"]*\"|[\d.]+|false|true|nil|\.\w+)$",
    r"^self\.\w+ = \w+$", r"^\w+ = \w+(\(.*\))?$",  # a memberwise initializer's assignments
    r"^case ", r"^@(Option|Flag|Argument|OptionGroup)", r"^(help|abstract|commandName|discussion):",
    r"^static let configuration", r"^(public )?(init|struct|enum|final class|class|extension|func|static func)\b.*[({]\s*$",
    r"^\w+: [^()]+(,|\))?$", r"^\) \{$", r"^try container\.encode", r"^var container = ",
    r"^\(.*\),?$", r"^\[?\"", r"^\.\w+\(", r"^@Test\(", r"^arguments: \[", r"^\]\)$", r"^precondition\(",
    r"^\w+ = registry\.make", r"^(descriptor|namespace|helpText):",
    r"^X\(", r"^#(define|undef|include|ifndef|endif)", r"^(typedef|static const)", r"^<", r"^[\])}]+[,;]?$",
)]
ROW = re.compile(r"(D\d+) (\S+):(\d+)-(\d+) ~ (\S+):(\d+)-(\d+)")


def declaring_share(path, first, last):
    """The share of the code lines `first`…`last` of `path` that declare or list."""
    with open(path, encoding="utf-8", errors="replace") as file:
        lines = [line.strip() for line in file.read().split("\n")[first - 1:last]]
    code = [line for line in lines if line and not line.startswith("//") and line not in "{}()[];,"]
    return sum(any(p.match(line) for p in DECLARING) for line in code) / max(len(code), 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", action="store_true", help="print each pair with its kind")
    options = parser.parse_args()
    kinds = Counter()
    for line in sys.stdin:
        match = ROW.match(line)
        if not match:
            continue
        _, a, a1, a2, b, b1, b2 = match.groups()
        share = min(declaring_share(a, int(a1), int(a2)), declaring_share(b, int(b1), int(b2)))
        kind = ("shape" if " shape" in line else "identical", "declarations" if share >= 0.7 else "code")
        kinds[kind] += 1
        if options.list:
            print(f"{kind[0]:9} {kind[1]:12} {share:4.2f}  {line.strip()}")
    for (same, what), count in sorted(kinds.items()):
        print(f"{count:4}  {same}, {what}")
    print(f"{sum(kinds.values()):4}  pairs")


if __name__ == "__main__":
    main()
