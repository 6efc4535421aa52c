"""Runs commands side by side and reports median wall time and peak resident memory per command.

Each command runs in its own process; its peak RSS is what the kernel accounted for that child
(wait4's ru_maxrss). Runs are interleaved round-robin, so load on the shared machine falls on all
tools alike, and only ratios measured within one run are compared."""
import os
import statistics
import subprocess
import sys
import time


def run_once(argv, env=None):
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(argv, stdout=devnull, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        stderr = proc.stderr.read().decode(errors="replace").strip()
    elapsed = time.perf_counter() - start
    return elapsed, usage.ru_maxrss * 1024, proc.returncode, stderr


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
