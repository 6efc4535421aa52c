#!/usr/bin/env python3
"""Checks two rules of the style guide on every Swift file under Sources/:

  - no function (func, init, deinit, subscript, a computed property's body) over 80 lines;
  - no type over 400 lines summed over its declaration and every extension of it, in any file
    (a file cap met by cutting a type into extensions is not met), nested types counted in the
    type that holds them.

Lines are counted from a declaration's first line to its closing brace, comments and blank lines
included (they are read as code is). Braces inside string literals and comments are not counted.
Exits 1 naming each function and type over its limit, with its file and line.

    scripts/code-shape.py            # run by `make test`
    scripts/code-shape.py --top 10   # the longest functions and types, whatever their length
"""
import argparse
import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FUNCTION_LIMIT = 80
TYPE_LIMIT = 400
MODIFIERS = r"(?:(?:@\w+(?:\([^)]*\))?|public|package|internal|private|fileprivate|open|final|static|class|override|mutating|nonisolated|convenience|required|indirect|lazy|dynamic)(?:\([^)]*\))?\s+)*"
TYPE = re.compile(r"^\s*" + MODIFIERS + r"(?:struct|class|enum|actor|extension|protocol)\s+([A-Za-z_][\w.]*)")
FUNCTION = re.compile(r"^\s*" + MODIFIERS + r"(?:func\s+\S+|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<])")


def code_only(lines: list[str]) -> list[str]:
    """Each line with its comments and string literals' contents blanked, so braces in them do not count."""
    result, in_block, in_multiline = [], False, False
    for line in lines:
        out, i = [], 0
        while i < len(line):
            if in_block:
                end = line.find("*/", i)
                if end < 0:
                    i = len(line)
                    continue
                in_block, i = False, end + 2
            elif in_multiline:
                end = line.find('"""', i)
                if end < 0:
                    i = len(line)
                    continue
                in_multiline, i = False, end + 3
            elif line.startswith("//", i):
                break
            elif line.startswith("/*", i):
                in_block, i = True, i + 2
            elif line.startswith('"""', i):
                in_multiline, i = True, i + 3
            elif line[i] == '"':
                # A one-line string literal (raw `#"…"#` too): skipped to its closing quote.
                i += 1
                while i < len(line) and line[i] != '"':
                    i += 2 if line[i] == "\\" else 1
                i += 1
            else:
                out.append(line[i])
                i += 1
        result.append("".join(out))
    return result


def block_end(code: list[str], start: int) -> int | None:
    """The line of the brace that closes the block opened on or just after `start`; None when no
    block opens within a few lines (a protocol requirement, a declaration without a body)."""
    depth, opened = 0, False
    for index in range(start, len(code)):
        for character in code[index]:
            if character == "{":
                depth, opened = depth + 1, True
            elif character == "}":
                depth -= 1
                if opened and depth == 0:
                    return index
        if not opened and index - start > 8:
            return None
    return None


def measure(path: pathlib.Path):
    """(functions, types) of one file: (lines, name, line number) and (lines, name)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    code = code_only(lines)
    functions, types = [], []
    index = 0
    while index < len(code):
        type_match = TYPE.match(code[index])
        if type_match and (end := block_end(code, index)) is not None:
            types.append((end - index + 1, type_match.group(1).split(".")[0], index + 1))
        function_match = FUNCTION.match(code[index])
        if function_match and (end := block_end(code, index)) is not None:
            functions.append((end - index + 1, lines[index].strip()[:80], index + 1))
            index = end
        index += 1
    # Only the outermost declarations of a type count (nested ones are inside their lines).
    outer, covered_until = [], -1
    for length, name, line in types:
        if line > covered_until:
            outer.append((length, name, line))
            covered_until = line + length - 1
    return functions, outer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, help="print the longest functions and types instead of checking")
    args = parser.parse_args()
    functions, types = [], collections.defaultdict(list)
    for path in sorted((ROOT / "Sources").rglob("*.swift")):
        found_functions, found_types = measure(path)
        relative = path.relative_to(ROOT)
        functions += [(length, f"{relative}:{line}", text) for length, text, line in found_functions]
        for length, name, line in found_types:
            # Types are named per module: two modules may each have a type of a name.
            types[(relative.parts[1], name)].append((length, f"{relative}:{line}"))
    totals = sorted(((sum(l for l, _ in parts), name, parts) for (_, name), parts in types.items()), reverse=True)
    if args.top:
        for length, place, text in sorted(functions, reverse=True)[: args.top]:
            print(f"{length:5} {place} {text}")
        for total, name, parts in totals[: args.top]:
            print(f"{total:5} {name} ({len(parts)} declarations)")
        return 0
    failures = [f"{place}: a function of {length} lines (at most {FUNCTION_LIMIT}): {text}"
                for length, place, text in functions if length > FUNCTION_LIMIT]
    failures += [f"{parts[0][1]}: type {name} has {total} lines over {len(parts)} declarations (at most {TYPE_LIMIT})"
                 for total, name, parts in totals if total > TYPE_LIMIT]
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
