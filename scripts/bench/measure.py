"""Runs commands side by side and reports median wall time and peak resident memory per command.

Each command runs in its own process; its peak RSS is what the kernel accounted for that child
(ru_maxrss), read through GNU time rather than by waiting on it from here: Linux carries the
high-water mark of the process that forked across exec, so every child of this Python process
would be reported at Python's own ~14 MB or more, hiding anything lighter. GNU time's own ~1 MB is
the floor instead. Runs are interleaved round-robin, so load on the shared machine falls on all
tools alike, and only ratios measured within one run are compared."""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

TIME = "/usr/bin/time"  # GNU time, installed by scripts/bootstrap.sh --bench


def say(*parts):
    print(*parts, flush=True)


def work_arguments(description, work):
    """The arguments of a bench that makes its inputs in a work directory: TESSERA, --runs (3),
    --work (`work`), --json PATH; and the work directory's `root`, made."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tessera")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", default=work)
    parser.add_argument("--json")
    args = parser.parse_args()
    root = os.path.join(args.work, "root")
    os.makedirs(root, exist_ok=True)
    return args, root


def free_port():
    """A port free on loopback now (the caller binds it next)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def jpeg_size(body):
    """(width, height) from a JPEG's SOF marker, or None if body is not a JPEG."""
    if body[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 < len(body):
        if body[i] != 0xFF:
            return None
        marker = body[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = int.from_bytes(body[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(body[i + 7:i + 9], "big"), int.from_bytes(body[i + 5:i + 7], "big")
        i += 2 + length
    return None


def run_once(argv, env=None):
    """Runs argv once: (seconds, peak RSS in bytes, exit status, stderr)."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as report, open(os.devnull, "wb") as devnull:
        start = time.perf_counter()
        proc = subprocess.run([TIME, "-f", "%M", "-o", report.name, *argv],
                              stdout=devnull, stderr=subprocess.PIPE, env=env)
        elapsed = time.perf_counter() - start
        lines = report.read().split()
        # GNU time writes "Command exited with non-zero status N" before the figure on failure.
        peak_kib = int(lines[-1]) if lines and lines[-1].isdigit() else 0
    return elapsed, peak_kib * 1024, proc.returncode, proc.stderr.decode(errors="replace").strip()


def compare(cases, runs=5, reference="tessera"):
    """cases: list of (name, argv[, env]). Returns {name: (median_seconds, peak_bytes, error or None)}."""
    results = {name: ([], [], None) for name, *_ in cases}
    for _ in range(runs):
        for name, argv, *rest in cases:
            times, peaks, error = results[name]
            if error:
                continue
            elapsed, peak, code, stderr = run_once(argv, rest[0] if rest else None)
            if code != 0:
                results[name] = (times, peaks, stderr.splitlines()[-1] if stderr else f"exit {code}")
                continue
            times.append(elapsed)
            peaks.append(peak)
    return {name: (statistics.median(t) if t else None, max(p) if p else None, e)
            for name, (t, p, e) in results.items()}


def table(title, results, reference="tessera"):
    base_time, base_peak, _ = results[reference]
    print(f"\n{title}")
    print(f"  {'tool':<34}{'median s':>10}{'× tessera':>11}{'peak MB':>10}{'× tessera':>11}")
    for name, (seconds, peak, error) in results.items():
        if error:
            print(f"  {name:<34}  failed: {error[:90]}")
            continue
        print(f"  {name:<34}{seconds:>10.3f}{seconds / base_time:>11.2f}{peak / 1e6:>10.1f}{peak / base_peak:>11.2f}")
    sys.stdout.flush()
