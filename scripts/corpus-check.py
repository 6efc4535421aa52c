#!/usr/bin/env python3
"""Runs `tessera` over public test corpora, as a new user with odd files would, and says what
happened to each file: read, refused with a typed error, or a finding (crash, hang, runaway
memory, an error that is not one line naming the file, a path of the machine in a message).

The corpora are not committed (their licences and sizes are their own): fetch them as repositories
and name their folders, or give `--git REPO:FOLDER` to read a folder of a bare mirror without a
work tree (`git archive`), for example:

    scripts/corpus-check.py .build/release/tessera \\
        --git /work/.mirror/uclouvain+openjpeg-data/repo:input/conformance \\
        --git /work/.mirror/python-pillow+Pillow/repo:Tests/images \\
        --git /work/.mirror/libvips+libvips/repo:test/test-suite/images

Per file, each a process of its own, with a deadline (--seconds, 60) and an address-space limit
(--memory-mib, 2048: a decoder that asks for more fails its allocation, which must come back as a
typed error, never as a crash):

  info        `tessera info FILE`
  thumbnail   `tessera thumbnail FILE --max-pixel-size 256 --output T.png`
  reference   for JPEG 2000 files (.jp2 .j2k .j2c .jph .jhc): `tessera convert FILE C.png` beside
              `opj_decompress -i FILE -o R.png`, compared as 8-bit pixels (PSNR, or "exact"), when
              both decode and the sizes agree. Colour conversions may differ where the codestream
              is not sRGB (YCC, ICC): the PSNR is printed, not judged.

Exit status 0 when there is no finding, 1 otherwise. `--json PATH` writes every file's outcome.
"""
import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

JPEG2000 = {".jp2", ".j2k", ".j2c", ".jph", ".jhc", ".jpx", ".jpf"}
# Exit statuses of a typed failure (docs/command-line.md, "Exit status"): 1 mixed, 64 usage,
# 65 bad data, 66 not found, 67 unsupported, 68 too large, 69 truncated, 70 corrupt, 74 I/O.
TYPED = {1, 65, 66, 67, 68, 69, 70, 74}


def limited(memory_mib):
    def apply():
        limit = memory_mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run(argv, seconds, memory_mib):
    """(status or 'timeout', stderr text, wall seconds, peak RSS in MiB of the child)."""
    start = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    try:
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=seconds,
                              preexec_fn=limited(memory_mib))
        status, err = done.returncode, done.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as expired:
        status, err = "timeout", (expired.stderr or b"").decode("utf-8", "replace")
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return status, err, time.monotonic() - start, (rss / 1024 if rss > before else None)


def judge(step, path, status, err, checkout_roots):
    """None when the outcome is acceptable, else what is wrong."""
    if status == "timeout":
        return f"{step}: no answer within the deadline"
    if status < 0:
        return f"{step}: killed by signal {-status}"
    if status == 0:
        return None
    if status not in TYPED:
        return f"{step}: exit status {status} is not a typed failure"
    lines = [line for line in err.splitlines() if line.strip()]
    if len(lines) != 1:
        return f"{step}: {len(lines)} lines on stderr, not one"
    line = lines[0].replace(str(path), "FILE")
    # The one line names the file the user gave, and no other path of this machine.
    for root in checkout_roots:
        if str(root) in line:
            return f"{step}: the message names a path: {lines[0]}"
    if "FILE" not in line and path.name not in line:
        return f"{step}: the message does not name the file: {lines[0]}"
    return None


def pixels8(png):
    """An 8-bit RGB(A) image of a PNG, 16-bit samples scaled down (needs Pillow)."""
    from PIL import Image
    image = Image.open(png)
    if image.mode in ("I;16", "I;16B", "I"):
        image = image.point(lambda v: v / 257).convert("L")
    return image.convert("RGBA" if "A" in image.getbands() else "RGB")


def psnr(a, b):
    if a.size != b.size:
        return None, f"sizes differ: {a.size} vs {b.size}"
    if a.mode != b.mode:
        a, b = a.convert("RGB"), b.convert("RGB")
    x, y = a.tobytes(), b.tobytes()
    squared = sum((p - q) * (p - q) for p, q in zip(x, y))
    if squared == 0:
        return math.inf, "exact"
    mse = squared / len(x)
    value = 10 * math.log10(255 * 255 / mse)
    return value, f"{value:.1f} dB"


def reference(tessera, path, work, seconds, memory_mib):
    """Tessera's full decode beside opj_decompress's, as text."""
    ours, theirs = work / "ours.png", work / "theirs.png"
    for output in (ours, theirs):
        output.unlink(missing_ok=True)
    status, _, _, _ = run([tessera, "convert", str(path), str(ours)], seconds, memory_mib)
    if status != 0:
        return None
    opj = subprocess.run(["opj_decompress", "-quiet", "-upsample", "-i", str(path), "-o", str(theirs)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, timeout=seconds)
    if opj.returncode != 0 or not theirs.exists():
        return "opj_decompress does not decode it"
    try:
        return psnr(pixels8(ours), pixels8(theirs))[1]
    except Exception as error:  # Pillow cannot read one of them: say so, it is not Tessera's finding
        return f"not compared ({type(error).__name__})"


def corpus_files(args, scratch):
    """(label, path) of every file to check."""
    files = []
    for spec in args.git:
        repo, _, folder = spec.partition(":")
        target = scratch / Path(repo).parent.name / folder.replace("/", "_")
        target.mkdir(parents=True, exist_ok=True)
        # Blob by blob: a mirror may list its largest files without holding them (they are skipped).
        listing = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "HEAD", "--", folder], capture_output=True, text=True, check=True)
        for line in listing.stdout.splitlines():
            meta, name = line.split("\t", 1)
            mode, kind, blob = meta.split()
            if kind != "blob" or mode == "120000":
                continue
            content = subprocess.run(["git", "-C", repo, "cat-file", "blob", blob], capture_output=True)
            if content.returncode != 0:
                print(f"skipped  {name}: not held by the mirror", flush=True)
                continue
            destination = target / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(content.stdout)
        files += [(f"{Path(repo).parent.name}:{folder}", p) for p in sorted(target.rglob("*")) if p.is_file()]
    for folder in args.folders:
        files += [(folder, p) for p in sorted(Path(folder).rglob("*")) if p.is_file()]
    return [(label, p) for label, p in files if p.name not in ("COPYRIGHT", "VERSION.txt", "README", "README.md", "LICENSE")]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tessera")
    parser.add_argument("folders", nargs="*", help="folders of files (every file below them)")
    parser.add_argument("--git", action="append", default=[], help="REPO:FOLDER of a bare mirror (repeatable)")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--memory-mib", type=int, default=2048)
    parser.add_argument("--no-reference", action="store_true", help="skip the opj_decompress comparison")
    parser.add_argument("--json")
    args = parser.parse_args()
    tessera = os.path.abspath(args.tessera)
    with tempfile.TemporaryDirectory(prefix="tessera-corpus-") as scratch_name:
        scratch = Path(scratch_name)
        work = scratch / "work"
        work.mkdir()
        files = corpus_files(args, scratch / "files")
        roots = [scratch, Path.cwd(), Path.home()]
        outcomes, findings = [], []
        counts = {"read": 0, "refused": 0, "finding": 0}
        for label, path in files:
            entry = {"corpus": label, "file": path.name, "steps": {}}
            problems = []
            for step, argv in [("info", [tessera, "info", str(path)]),
                               ("thumbnail", [tessera, "thumbnail", str(path), "--max-pixel-size", "256",
                                              "--output", str(work / "thumbnail.png")])]:
                status, err, seconds, rss = run(argv, args.seconds, args.memory_mib)
                problem = judge(step, path, status, err, roots)
                # The message as a user reads it: the file's own path shortened to its name.
                message = err.strip().splitlines()[-1].replace(str(path), path.name) if err.strip() else ""
                entry["steps"][step] = {"status": status, "seconds": round(seconds, 3), "peak_rss_mib": rss, "message": message}
                if problem:
                    problems.append(problem)
            if not args.no_reference and path.suffix.lower() in JPEG2000 and shutil.which("opj_decompress"):
                entry["reference"] = reference(tessera, path, work, args.seconds, args.memory_mib)
            entry["problems"] = problems
            kind = "finding" if problems else ("read" if entry["steps"]["thumbnail"]["status"] == 0 else "refused")
            counts[kind] += 1
            outcomes.append(entry)
            if problems:
                findings.append(entry)
            note = f"  [{entry['reference']}]" if entry.get("reference") else ""
            why = "; ".join(problems) if problems else entry["steps"]["thumbnail"]["message"][:160]
            print(f"{kind:8} {label} {path.name}{note}" + (f"  — {why}" if kind != "read" else ""), flush=True)
        print(f"\n{len(files)} files: {counts['read']} read, {counts['refused']} refused with a typed error, "
              f"{counts['finding']} findings")
        compared = [o for o in outcomes if o.get("reference")]
        if compared:
            exact = sum(1 for o in compared if o["reference"] == "exact")
            print(f"JPEG 2000 against opj_decompress: {len(compared)} compared, {exact} exact; the rest: "
                  + ", ".join(f"{o['file']} {o['reference']}" for o in compared if o["reference"] != "exact"))
        if args.json:
            Path(args.json).write_text(json.dumps(outcomes, indent=1))
        return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
