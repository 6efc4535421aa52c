#!/usr/bin/env python3
"""Line coverage of Tessera's library modules by the Swift test suite (`make coverage`).

    scripts/coverage.py [--min 80] [--no-run] [--files MODULE]

Builds and runs the Swift tests with `--enable-code-coverage` in a scratch directory of their own
(.build/coverage, so the normal debug build is left alone), then asks llvm-cov for the lines of
every file under Sources/<Module>/ that the tests ran, in the test bundle and in the `tessera`
executable the command-line tests start (SwiftPM's LLVM_PROFILE_FILE reaches it, so its runs are
merged into the same profile). Prints one row a module; with --min, exits 1 when a library module
is below it. --no-run reads the profile of the last run. --files MODULE lists that module's files,
least covered first.

The browser tests (the pages' JavaScript) and the fuzz harnesses are not part of it.
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRATCH = REPO / ".build" / "coverage"
LIBRARIES = ["TesseraCore", "TesseraCodecs", "TesseraStorage", "TesseraPipeline", "TesseraTiles", "TesseraViewing", "TesseraVideo", "TesseraTrimming",
             "TesseraIIIF", "TesseraServer"]


def tool(name: str) -> str:
    """The toolchain's own llvm tool, beside `swift`."""
    swift = Path(shutil.which("swift") or "swift").resolve()
    candidate = swift.parent / name
    return str(candidate) if candidate.exists() else name


def run_tests() -> None:
    common = ["--scratch-path", str(SCRATCH), "--enable-code-coverage"]
    subprocess.run(["swift", "build", "--build-tests", *common], cwd=REPO, check=True)
    # A failing test still leaves a profile; its failure is reported, and the exit status says so.
    tests = subprocess.run(["swift", "test", "--skip-build", *common], cwd=REPO)
    if tests.returncode != 0:
        print(f"coverage.py: the tests failed (exit {tests.returncode}); coverage below is of that run", file=sys.stderr)


def report() -> dict[str, tuple[int, int]]:
    """Per source file under Sources/: (lines, lines covered)."""
    build = SCRATCH / "debug"
    # Every process's raw profile (the test runner's, and each `tessera` the CLI tests ran), merged
    # here: SwiftPM merges only after a run in which every test passed.
    raw = glob.glob(str(build / "codecov" / "*.profraw"))
    if not raw:
        sys.exit(f"coverage.py: no raw profiles in {build / 'codecov'}; run without --no-run first")
    profile = build / "codecov" / "coverage.profdata"
    subprocess.run([tool("llvm-profdata"), "merge", "--sparse", "-o", str(profile), *raw], check=True)
    objects = [p for p in glob.glob(str(build / "*.xctest"))] + [str(build / "tessera")]
    objects = [p for p in objects if os.path.exists(p)]
    arguments = [tool("llvm-cov"), "report", objects[0], *[f"--object={o}" for o in objects[1:]],
                 f"--instr-profile={profile}", "--show-region-summary=false", "--show-branch-summary=false",
                 str(REPO / "Sources")]
    output = subprocess.run(arguments, cwd=REPO, check=True, capture_output=True, text=True).stdout
    files: dict[str, tuple[int, int]] = {}
    for line in output.splitlines():
        parts = line.split()
        # Filename, the functions' three columns, then Lines, Missed Lines, Cover (regions and
        # branches are left out by the options above).
        if len(parts) >= 4 and parts[0].endswith(".swift") and parts[-3].isdigit() and parts[-2].isdigit():
            lines, missed = int(parts[-3]), int(parts[-2])
            files[parts[0]] = (lines, lines - missed)
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--min", type=float, help="exit 1 when a library module's line coverage is below this percentage")
    parser.add_argument("--no-run", action="store_true", help="report the last run's profile")
    parser.add_argument("--files", metavar="MODULE", help="list MODULE's files, least covered first")
    options = parser.parse_args()
    if not options.no_run:
        run_tests()
    files = report()
    modules: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, (lines, covered) in files.items():
        # llvm-cov prints paths relative to the common prefix of what it lists (Sources/…/ or the module).
        path = Path(name)
        parts = path.parts
        module = next((part for part in parts if part in LIBRARIES), None)
        if module is None:
            continue
        modules[module][0] += lines
        modules[module][1] += covered
    failing = []
    print(f"{'module':<18}{'lines':>8}{'covered':>9}{'percent':>9}")
    for module in LIBRARIES:
        lines, covered = modules.get(module, (0, 0))
        percent = 100.0 * covered / lines if lines else 0.0
        mark = ""
        if options.min is not None and percent < options.min:
            failing.append(module)
            mark = "  below"
        print(f"{module:<18}{lines:>8}{covered:>9}{percent:>8.1f}%{mark}")
    if options.files:
        rows = [(covered / lines if lines else 1, name, lines, covered) for name, (lines, covered) in files.items()
                if options.files in Path(name).parts]
        for ratio, name, lines, covered in sorted(rows)[:40]:
            print(f"  {100 * ratio:5.1f}%  {lines - covered:5} missed  {name}")
    if failing:
        print(f"coverage.py: below {options.min:g}%: {', '.join(failing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
