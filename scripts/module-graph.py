#!/usr/bin/env python3
"""Checks that the module graph written in docs/layout.md is the one the sources import.

The graph is read three ways: from the `import Tessera…` lines of each module's Swift files, from
the dependencies each target lists in Package.swift, and from the block under "## Module graph" in
docs/layout.md (`Module → A, B`). Exits 1, naming each difference, when the document says other
edges than the imports, or when Package.swift lists a Tessera module a target never imports (an
edge the compiler would not catch: it only refuses imports that are not listed).

    scripts/module-graph.py            # run by `make test`
    scripts/module-graph.py --print    # the graph the imports make, as the document writes it
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
IMPORT = re.compile(r"\s*(?:@testable |@_exported )?(?:(?:public|package|internal) )?import (Tessera\w*)\s*$")
TARGET = re.compile(r'\.(?:target|executableTarget)\(\s*name:\s*"(\w+)"\s*,\s*dependencies:\s*\[(.*?)\]', re.S)


def imported() -> dict[str, set[str]]:
    """Each Tessera module of Sources/ and the Tessera modules its files import."""
    graph: dict[str, set[str]] = {}
    for directory in sorted((ROOT / "Sources").iterdir()):
        if not directory.name.startswith("Tessera") and directory.name != "tessera":
            continue
        edges = graph.setdefault(directory.name, set())
        for path in directory.rglob("*.swift"):
            for line in path.read_text(encoding="utf-8").splitlines():
                match = IMPORT.match(line)
                if match and match.group(1) != directory.name:
                    edges.add(match.group(1))
    return graph


def listed() -> dict[str, set[str]]:
    """Each target of Package.swift and the Tessera modules it lists as dependencies."""
    text = (ROOT / "Package.swift").read_text(encoding="utf-8")
    return {name: set(re.findall(r'"(Tessera\w*)"', body)) for name, body in TARGET.findall(text)}


def documented() -> dict[str, set[str]]:
    """The graph in docs/layout.md's "Module graph" block."""
    text = (ROOT / "docs/layout.md").read_text(encoding="utf-8")
    section = text.split("## Module graph", 1)[1]
    block = section.split("```", 2)[1]
    graph = {}
    for line in block.strip().splitlines():
        module, _, edges = line.partition("→")
        graph[module.strip()] = {edge.strip() for edge in edges.split(",") if edge.strip()}
    return graph


def written(graph: dict[str, set[str]]) -> str:
    width = max(len(module) for module in graph)
    return "\n".join(f"{module.ljust(width)} → {', '.join(sorted(edges))}".rstrip() for module, edges in graph.items())


def main() -> int:
    imports = imported()
    if "--print" in sys.argv:
        print(written(imports))
        return 0
    problems = []
    document = documented()
    for module in sorted(set(imports) | set(document)):
        if imports.get(module) != document.get(module):
            problems.append(
                f"docs/layout.md says {module} → {sorted(document.get(module, []))}, its imports are {sorted(imports.get(module, []))}")
    for module, dependencies in sorted(listed().items()):
        unused = dependencies - imports.get(module, set())
        if module in imports and unused:
            problems.append(f"Package.swift lists {sorted(unused)} for {module}, which never imports them")
    for problem in problems:
        print(f"module-graph: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
