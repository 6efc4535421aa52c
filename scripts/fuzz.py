#!/usr/bin/env python3
"""Builds and runs Tessera's libFuzzer harnesses (Sources/Fuzz, issue 16).

    scripts/fuzz.py build                   build every harness (TESSERA_FUZZ=1, ASan + libFuzzer)
    scripts/fuzz.py run [HARNESS...]        fuzz each for FUZZ_SECONDS (default 300)      `make fuzz`
    scripts/fuzz.py smoke [HARNESS...]      the committed corpus plus FUZZ_SMOKE_RUNS inputs `make fuzz-smoke`
    scripts/fuzz.py minimize [HARNESS...]   merge what `run` found into the committed corpus
    scripts/fuzz.py reproduce HARNESS FILE...   run the harness on the given inputs once

`run` and `smoke` print executions, coverage (libFuzzer's cov: edges and ft: features) and findings
per harness, and exit non-zero on any finding: a crash (ASan report, trap, failed precondition), a
leak, a timeout, an allocation over FUZZ_MALLOC_MB, or RSS over FUZZ_RSS_MB. The input that caused
it is written to Fuzz/findings/HARNESS/.

Environment: FUZZ_SECONDS (300), FUZZ_RUNS (for `run`: stop after this many executions, whichever
comes first; unset: no limit), FUZZ_SMOKE_RUNS (500), FUZZ_TIMEOUT (seconds per input, 10),
FUZZ_RSS_MB (1024), FUZZ_MALLOC_MB (256), FUZZ_CONFIG (release), FUZZ_SCRATCH (.build/fuzz).
Prefix with `nice -n 19` to leave the machine to other work.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "Tests/Fixtures"
CORPUS = ROOT / "Fuzz/corpus"
DICTIONARIES = ROOT / "Fuzz/dict"
FINDINGS = ROOT / "Fuzz/findings"

# Fixtures larger than this are not seeds: libFuzzer mutates small inputs many times faster, and
# each format's large fixtures (the 1.5 MB PNG bomb, 200 KB photos) add no structure a small one
# lacks.
SEED_BYTE_LIMIT = 64 * 1024


def images(*patterns):
    """The image fixtures matching `patterns`, the colour-managed ones included."""
    return [directory / p for directory in (FIXTURES, FIXTURES / "colour") for p in patterns]


# Harness → its dictionary, the fixtures it is seeded from, the longest input it is given and the
# seconds one input may take. Every harness also starts from its committed corpus, Fuzz/corpus/NAME.
HARNESSES = {
    "FuzzProbe": dict(
        dict="probe", seeds=images("*.jpg", "*.png", "*.gif", "*.webp", "*.heic", "*.avif", "*.tif", "*.svg")
        + [FIXTURES / "video/*.mp4", FIXTURES / "pdf/*.pdf", FIXTURES / "jpeg2000/*.jp2", FIXTURES / "jpegxl/*.jxl", FIXTURES / "stills/*.*"],
        max_len=65536, timeout=10),
    "FuzzDecodeJPEG": dict(dict="jpeg", seeds=images("*.jpg"), max_len=65536, timeout=10),
    "FuzzDecodePNG": dict(dict="png", seeds=images("*.png"), max_len=65536, timeout=10),
    "FuzzDecodeGIF": dict(dict="gif", seeds=images("*.gif"), max_len=65536, timeout=10),
    "FuzzDecodeWebP": dict(dict="webp", seeds=images("*.webp"), max_len=65536, timeout=10),
    "FuzzDecodeHEIF": dict(dict="heif", seeds=images("*.heic", "*.avif"), max_len=65536, timeout=10),
    "FuzzDecodeTIFF": dict(dict="tiff", seeds=images("*.tif") + [FIXTURES / "pages/*.tif"], max_len=65536, timeout=10),
    "FuzzDecodeSVG": dict(dict="svg", seeds=images("*.svg"), max_len=16384, timeout=10),
    "FuzzDecodePDF": dict(dict="pdf", seeds=[FIXTURES / "pdf/*.pdf"], max_len=65536, timeout=10),
    "FuzzDecodeJXL": dict(dict="jxl", seeds=[FIXTURES / "jpegxl/*.jxl"], max_len=65536, timeout=10),
    "FuzzDecodeStill": dict(
        dict="still", seeds=[FIXTURES / "stills" / p for p in ("*.bmp", "*.ico", "*.cur", "*.pbm", "*.pgm", "*.ppm", "*.pam", "*.tga")],
        max_len=65536, timeout=10),
    "FuzzDecodeJP2": dict(dict="jp2", seeds=[FIXTURES / "jpeg2000/*.jp2", FIXTURES / "jpeg2000/*.j2k", FIXTURES / "jpeg2000/*.j2c"], max_len=65536, timeout=10),
    "FuzzVideo": dict(
        dict="video", seeds=[FIXTURES / "video" / p for p in ("*.mp4", "*.mkv", "*.webm", "*.ts", "*.m4a")],
        max_len=65536, timeout=20),
    # Seeds: Fuzz/corpus/FuzzSlide, two slides of scripts/make-slide-fixtures.py --size 256x256 and
    # the OME-TIFF of scripts/make-vendor-slide-fixtures.py --ome-seed.
    "FuzzSlide": dict(dict="tiff", seeds=[], max_len=65536, timeout=10),
    "FuzzDICOM": dict(dict="dicom", seeds=[], max_len=65536, timeout=10),
    # Seeds: the committed maps of scripts/make-map-fixtures.py --small (hostile ones included).
    "FuzzGeoTIFF": dict(dict="tiff", seeds=[FIXTURES / "maps/*.tif"], max_len=65536, timeout=10),
    "FuzzPyramidDescriptor": dict(dict="descriptor", seeds=[], max_len=4096, timeout=10),
    "FuzzCacheHeaders": dict(dict="cache-headers", seeds=[], max_len=1024, timeout=10),
    "FuzzIIIFRequest": dict(dict="iiif", seeds=[], max_len=1024, timeout=10),
    "FuzzPresentationSidecar": dict(dict="sidecar", seeds=[FIXTURES / "sidecars/*.json"], max_len=4096, timeout=10),
    "FuzzAccess": dict(dict="access", seeds=[], max_len=4096, timeout=10),
}


def setting(name, default):
    value = os.environ.get(name, "")
    return value if value else default


def scratch():
    return (ROOT / setting("FUZZ_SCRATCH", ".build/fuzz")).resolve()


def configuration():
    return setting("FUZZ_CONFIG", "release")


def binary(harness):
    return scratch() / configuration() / harness


def build(harnesses):
    """Builds each harness's product; every harness shares the one instrumented build of the package."""
    environment = dict(os.environ, TESSERA_FUZZ="1")
    start = time.monotonic()
    command = ["swift", "build", "-c", configuration(), "--scratch-path", str(scratch())]
    # With TESSERA_FUZZ the package holds only the harnesses as executables: one build makes them all.
    products = [[]] if set(harnesses) == set(HARNESSES) else [["--product", harness] for harness in harnesses]
    for product in products:
        print(f"building {' '.join(product[1:]) or 'every harness'}", flush=True)
        if subprocess.run(command + product, cwd=ROOT, env=environment).returncode != 0:
            sys.exit("fuzz: the build failed")
    print(f"built {len(harnesses)} harnesses in {time.monotonic() - start:.0f} s", flush=True)


def seed_directory(harness):
    """The harness's fixture seeds, linked into one directory (libFuzzer reads corpora by directory)."""
    directory = scratch() / "seeds" / harness
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    for pattern in HARNESSES[harness]["seeds"]:
        for path in sorted(pattern.parent.glob(pattern.name)):
            if path.is_file() and path.stat().st_size <= SEED_BYTE_LIMIT:
                (directory / f"{path.parent.name}-{path.name}").symlink_to(path)
    return directory


def libfuzzer_flags(harness, artifacts):
    spec = HARNESSES[harness]
    flags = [
        f"-max_len={spec['max_len']}",
        f"-timeout={setting('FUZZ_TIMEOUT', str(spec['timeout']))}",
        f"-rss_limit_mb={setting('FUZZ_RSS_MB', '1024')}",
        f"-malloc_limit_mb={setting('FUZZ_MALLOC_MB', '256')}",
        "-print_final_stats=1",
        # Slow inputs short of the timeout are no finding; libFuzzer would otherwise file them too.
        "-report_slow_units=1000000",
        f"-artifact_prefix={artifacts}/",
    ]
    dictionary = DICTIONARIES / f"{spec['dict']}.dict"
    if dictionary.exists():
        flags.append(f"-dict={dictionary}")
    return flags


def environment_for_run(temporary):
    # Harnesses put their scratch files under TMPDIR; a crash leaves them, so each run gets its own
    # directory, removed afterwards. detect_leaks is ASan's default, stated since a leak is a finding.
    # Swift's own crash backtracer is off: it reads the crashed thread's stack from another thread,
    # which AddressSanitizer reports as an error of its own, hiding the real one.
    # LeakSanitizer's suppressions (Fuzz/lsan.supp) name what the toolchain's libraries keep for good.
    return dict(os.environ, TMPDIR=str(temporary), ASAN_OPTIONS=setting("ASAN_OPTIONS", "detect_leaks=1"),
                LSAN_OPTIONS=f"suppressions={ROOT / 'Fuzz/lsan.supp'}", SWIFT_BACKTRACE="enable=no")


FINDING_PATTERNS = [
    (re.compile(r"ERROR: libFuzzer: timeout"), "timeout"),
    (re.compile(r"ERROR: libFuzzer: out-of-memory \(malloc\((\d+)\)\)"), "allocation over the limit"),
    (re.compile(r"ERROR: libFuzzer: out-of-memory"), "RSS over the limit"),
    (re.compile(r"ERROR: LeakSanitizer"), "leak"),
    (re.compile(r"ERROR: AddressSanitizer: (\S+)"), "crash (AddressSanitizer: {0})"),
    (re.compile(r"ERROR: libFuzzer: deadly signal"), "crash (deadly signal)"),
    (re.compile(r"ERROR: libFuzzer: (.+)"), "libFuzzer: {0}"),
]


def read_outcome(log_text, returncode):
    """Executions, coverage and the finding (None when clean) of one libFuzzer run."""
    stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", log_text, re.MULTILINE))
    status_lines = re.findall(r"^#(\d+)\s+\w+\s+(.*)$", log_text, re.MULTILINE)
    cov = ft = corpus = "-"
    for _, rest in status_lines:
        cov = re.search(r"cov: (\d+)", rest).group(1) if "cov:" in rest else cov
        ft = re.search(r"ft: (\d+)", rest).group(1) if "ft:" in rest else ft
        corpus = re.search(r"corp: (\S+)", rest).group(1) if "corp:" in rest else corpus
    executions = stats.get("number_of_executed_units") or (status_lines[-1][0] if status_lines else "0")
    finding = None
    for pattern, label in FINDING_PATTERNS:
        match = pattern.search(log_text)
        if match:
            finding = label.format(*match.groups())
            break
    if finding is None and returncode != 0:
        finding = f"exit status {returncode}"
    return dict(executions=int(executions), exec_per_second=stats.get("average_exec_per_sec", "-"), cov=cov, ft=ft,
                corpus=corpus, peak_rss_mb=stats.get("peak_rss_mb", "-"), finding=finding)


def fuzz(harness, corpora, extra_flags, log_path):
    """Runs one harness over `corpora` (the first one receives new inputs) and returns its outcome."""
    artifacts = FINDINGS / harness
    artifacts.mkdir(parents=True, exist_ok=True)
    before = set(artifacts.iterdir())
    command = [str(binary(harness))] + libfuzzer_flags(harness, artifacts) + extra_flags + [
        str(c) for c in corpora if c.exists()]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f"{harness}-", dir=scratch()))
    try:
        with open(log_path, "w") as log:
            result = subprocess.run(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                    env=environment_for_run(temporary))
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    outcome = read_outcome(log_path.read_text(errors="replace"), result.returncode)
    outcome["artifacts"] = sorted(str(p.relative_to(ROOT)) for p in set(artifacts.iterdir()) - before)
    outcome["log"] = str(log_path.relative_to(ROOT)) if log_path.is_relative_to(ROOT) else str(log_path)
    if not any(artifacts.iterdir()):
        artifacts.rmdir()
    return outcome


def report(outcomes, seconds):
    header = f"{'harness':<24}{'executions':>12}{'exec/s':>9}{'cov':>7}{'ft':>8}{'corpus':>14}{'RSS MB':>8}  result"
    print("\n" + header + "\n" + "-" * len(header))
    for harness, o in outcomes.items():
        result = "ok" if o["finding"] is None else f"FINDING: {o['finding']}"
        print(f"{harness:<24}{o['executions']:>12}{o['exec_per_second']:>9}{o['cov']:>7}{o['ft']:>8}"
              f"{o['corpus']:>14}{o['peak_rss_mb']:>8}  {result}")
        for artifact in o["artifacts"]:
            print(f"{'':<24}input: {artifact}   (log: {o['log']})")
    failed = [h for h, o in outcomes.items() if o["finding"] is not None]
    print(f"\n{len(outcomes)} harnesses in {seconds:.0f} s; "
          + (f"findings in {', '.join(failed)}" if failed else "no findings"))
    return 1 if failed else 0


def selected(names):
    unknown = [n for n in names if n not in HARNESSES]
    if unknown:
        sys.exit(f"fuzz: unknown harness {', '.join(unknown)}; known: {', '.join(HARNESSES)}")
    return names or list(HARNESSES)


def command_run(names):
    harnesses = selected(names)
    build(harnesses)
    seconds = int(setting("FUZZ_SECONDS", "300"))
    runs = int(setting("FUZZ_RUNS", "0"))
    start = time.monotonic()
    outcomes = {}
    for harness in harnesses:
        print(f"fuzzing {harness} for {seconds} s" + (f" or {runs} executions" if runs else ""), flush=True)
        work = scratch() / "corpus" / harness
        work.mkdir(parents=True, exist_ok=True)
        limits = [f"-max_total_time={seconds}"] + ([f"-runs={runs}"] if runs else [])
        outcomes[harness] = fuzz(harness, [work, CORPUS / harness, seed_directory(harness)], limits,
                                 scratch() / "logs" / f"{harness}.log")
    return report(outcomes, time.monotonic() - start)


def command_smoke(names):
    """A fixed amount of work per harness: every committed input once, then FUZZ_SMOKE_RUNS mutations
    of them from a fixed seed, so the run is repeatable and its time does not depend on the machine."""
    harnesses = selected(names)
    build(harnesses)
    runs = int(setting("FUZZ_SMOKE_RUNS", "500"))
    start = time.monotonic()
    outcomes = {}
    for harness in harnesses:
        committed = CORPUS / harness
        count = sum(1 for p in committed.iterdir() if p.is_file()) if committed.exists() else 0
        with tempfile.TemporaryDirectory(dir=scratch()) as discarded:
            outcomes[harness] = fuzz(harness, [Path(discarded), committed], [f"-runs={count + runs}", "-seed=1"],
                                     scratch() / "logs" / f"{harness}-smoke.log")
    return report(outcomes, time.monotonic() - start)


def command_minimize(names):
    """Replaces each committed corpus with libFuzzer's minimal merge of it, the work corpus of `run`
    and the fixture seeds: the fewest inputs that reach every feature any of them reaches."""
    harnesses = selected(names)
    build(harnesses)
    for harness in harnesses:
        merged = scratch() / "merged" / harness
        shutil.rmtree(merged, ignore_errors=True)
        merged.mkdir(parents=True)
        sources = [CORPUS / harness, scratch() / "corpus" / harness, seed_directory(harness)]
        artifacts = scratch() / "merge-artifacts" / harness
        artifacts.mkdir(parents=True, exist_ok=True)
        # Committed inputs are cut to FUZZ_CORPUS_MAX_LEN bytes (4096), which keeps the corpus
        # within its 2 MB budget: a truncated file still walks the headers and the first rows.
        cut = min(HARNESSES[harness]["max_len"], int(setting("FUZZ_CORPUS_MAX_LEN", "4096")))
        command = [str(binary(harness)), "-merge=1"] + libfuzzer_flags(harness, artifacts) + [f"-max_len={cut}", str(merged)] + [
            str(s) for s in sources if s.exists()]
        temporary = Path(tempfile.mkdtemp(prefix=f"{harness}-", dir=scratch()))
        try:
            result = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env=environment_for_run(temporary))
        finally:
            shutil.rmtree(temporary, ignore_errors=True)
        if result.returncode != 0:
            sys.exit(f"fuzz: merging {harness}'s corpus failed (an input crashes: run `scripts/fuzz.py smoke {harness}`)")
        shutil.rmtree(CORPUS / harness, ignore_errors=True)
        shutil.copytree(merged, CORPUS / harness)
        files = list((CORPUS / harness).iterdir())
        print(f"{harness:<24}{len(files):>6} inputs {sum(f.stat().st_size for f in files):>10} bytes")
    total = sum(f.stat().st_size for f in CORPUS.rglob("*") if f.is_file())
    print(f"committed corpus: {total} bytes")


def command_reproduce(arguments):
    if len(arguments) < 2:
        sys.exit("usage: scripts/fuzz.py reproduce HARNESS FILE...")
    harness = selected(arguments[:1])[0]
    build([harness])
    with tempfile.TemporaryDirectory(dir=scratch()) as temporary:
        artifacts = Path(temporary) / "artifacts"
        artifacts.mkdir()
        command = [str(binary(harness))] + libfuzzer_flags(harness, artifacts) + arguments[1:]
        return subprocess.run(command, cwd=ROOT, env=environment_for_run(temporary)).returncode


def main(arguments):
    if not arguments or arguments[0] not in ("build", "run", "smoke", "minimize", "reproduce"):
        sys.exit(__doc__)
    scratch().mkdir(parents=True, exist_ok=True)
    verb, rest = arguments[0], arguments[1:]
    if verb == "build":
        build(selected(rest))
        return 0
    if verb == "run":
        return command_run(rest)
    if verb == "smoke":
        return command_smoke(rest)
    if verb == "minimize":
        command_minimize(rest)
        return 0
    return command_reproduce(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
