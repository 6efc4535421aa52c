#!/usr/bin/env python3
"""What access control costs warm tiles (issue 39's goals: public tiles ≤ 5% of their rate,
authorised tiles ≤ 15%), on 127.0.0.1 only.

Three `tessera serve` processes over one root holding the 16000×12000 photo twice, as
`open/photo.jpg` and `staff/photo.jpg`:
- "no policy": no --access; the open photo's tiles;
- "policy, public image": --access with a policy that restricts `staff/**` (to the group staff) and
  `restricted/**`, degrades `previews/**`, and so makes `open/` public by its default; the open
  photo's tiles;
- "policy, authorised": the same policy; the staff photo's tiles, every request with alice's access
  cookie (she is in staff; the cookie from a real login at /auth/login).
Each is warmed with a pass over every aligned tile (its pyramid built and waited for), then wrk
(-t2 -c64) draws random aligned tiles, the three interleaved, median of --runs. Every answer is
checked: a status audit after each timed run (as serving_bench.py does) and the first pass's bodies
are JPEGs of the expected size. The ratios are of requests/s against "no policy" in the same run.

    access_bench.py TESSERA INPUTS [--runs 3] [--duration 10] [--json PATH]
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from measure import free_port, say
from serving_bench import (Sampler, Server, fetch_info, get, make_photo, run_wrk, stop_all, tile_paths, verify,
                           wait_for_port, warm)

PASSWORD = "a long enough password"
POLICY = {
    "default": "public", "users": "users.txt", "signingKeys": "signing.keys",
    "rules": [{"match": "staff/**", "access": "restricted", "groups": ["staff"]},
              {"match": "restricted/**", "access": "restricted"},
              {"match": "previews/**", "access": "degraded", "maxSize": 400, "watermark": "Preview"}],
}


def start(name, label, tessera, root, work, extra, sampler):
    server = Server(name, label)
    server.port = free_port()
    cache = work / f"cache-{name}"
    cache.mkdir()
    argv = [tessera, "serve", str(root), "--host", "127.0.0.1", "--port", str(server.port), "--cache-dir", str(cache),
            "--memory-cache", "20", *extra]
    proc = server.spawn(argv, work / f"{name}.log")
    sampler.register(name, [proc.pid])
    if not wait_for_port(server.port, [proc], 30):
        server.stop()
        raise RuntimeError(f"{label} did not start: " + (work / f"{name}.log").read_text()[-500:])
    return server


def log_in(server):
    """alice's access cookie, from a real login."""
    body = urllib.parse.urlencode({"username": "alice", "password": PASSWORD}).encode()
    request = urllib.request.Request(server.base + "/auth/login", data=body, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        cookie = response.headers["Set-Cookie"].split(";")[0]
    assert cookie.startswith("tessera_access="), cookie
    return cookie


def wait_for_pyramid(server):
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        status, _, body = get(server.base, "/metrics")
        if status == 200 and b"tessera_pyramid_builds_total 1" in body:
            return True
        time.sleep(0.2)
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tessera")
    parser.add_argument("inputs", help="bench-out/inputs; the 16000×12000 JPEG is made there if missing")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--wrk-timeout", type=int, default=5)
    parser.add_argument("--status-hook", choices=("audit", "timed"), default="audit")
    parser.add_argument("--audit-duration", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json")
    args = parser.parse_args()

    tessera = str(Path(args.tessera).resolve())
    photo = make_photo(Path(args.inputs))
    work = Path(tempfile.mkdtemp(prefix="tessera-access-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    root = work / "root"
    for folder in ("open", "staff"):
        (root / folder).mkdir(parents=True)
        os.link(photo, root / folder / "photo.jpg") if os.stat(photo).st_dev == os.stat(work).st_dev else shutil.copy(photo, root / folder / "photo.jpg")
    subprocess.run([tessera, "user", "add", str(work / "users.txt"), "alice", "--group", "staff"], input=PASSWORD + "\n",
                   text=True, check=True)
    (work / "signing.keys").write_text("k1 " + __import__("base64").b64encode(os.urandom(32)).decode() + "\n")
    (work / "policy.json").write_text(json.dumps(POLICY))

    sampler = Sampler()
    sampler.start()
    servers, report = [], {"config": vars(args), "runs": []}
    try:
        plain = start("plain", "no policy", tessera, root, work, [], sampler)
        servers.append(plain)
        public = start("public", "policy, public image", tessera, root, work, ["--access", str(work / "policy.json")], sampler)
        servers.append(public)
        authorised = start("authorised", "policy, authorised", tessera, root, work, ["--access", str(work / "policy.json")], sampler)
        servers.append(authorised)
        cookie = log_in(authorised)
        headers = {"authorised": {"Cookie": cookie}}
        for server, prefix in ((plain, "open"), (public, "open"), (authorised, "staff")):
            server.prefix = f"/iiif/3/{prefix}%2Fphoto.jpg"
        plain.info = fetch_info(plain)
        sets = {}
        rng = random.Random(args.seed)
        for server in servers:
            tiles = tile_paths(server.prefix, plain.info)
            paths = [t[0] for t in tiles]
            rng.shuffle(paths)
            extra = headers.get(server.name)
            # One full-resolution tile starts the pyramid's build; the warming pass waits for it
            # (fine tiles asked for before it exists are each decoded from the source).
            finest = [t[0] for t in tiles if t[2] == 1][0]
            warm(server, [finest], 1, 120, headers=extra)
            if not wait_for_pyramid(server):
                raise RuntimeError(f"{server.label}: no pyramid within 180 s")
            done, bad, seconds = warm(server, paths, 4, 300, headers=extra)
            if bad:
                raise RuntimeError(f"{server.label}: warming answered {bad}")
            if server.name != "authorised":
                verify(server, tiles, [])
            say(f"warmed {server.label}: {done} tiles in {seconds:.1f} s")
            url_file = work / f"urls-{server.name}.txt"
            url_file.write_text("\n".join(paths) + "\n")
            sets[server.name] = url_file
        # Anonymous requests for the staff photo are refused: the policy is really applied.
        status, _, _ = get(authorised.base, f"{authorised.prefix}/0,0,256,256/256,256/0/default.jpg")
        if status != 401:
            raise RuntimeError(f"an anonymous staff tile answered {status}, not 401")
        results = {}
        for run in range(args.runs):
            for server in servers:
                extra = [f"{k}: {v}" for k, v in (headers.get(server.name) or {}).items()]
                result = run_wrk(server, sets[server.name], args, args.seed + run, headers=extra)
                result.update({"server": server.name, "run": run})
                report["runs"].append(result)
                results.setdefault(server.name, []).append(result)
                say(f"  {server.label:<22} {result['requests_per_s'] or 0:>9.0f} req/s  p99 {result['p99_ms'] or 0:.2f} ms  "
                    + (result.get("error") or "ok"))
        summary = {}
        for server in servers:
            rates = [r["requests_per_s"] for r in results[server.name] if r.get("requests_per_s") and "error" not in r]
            summary[server.name] = {"label": server.label, "median_requests_per_s": statistics.median(rates) if rates else None,
                                    "runs": [r["requests_per_s"] for r in results[server.name]],
                                    "errors": [r["error"] for r in results[server.name] if "error" in r],
                                    "peak_rss_mb": (sampler.peak(server.name) or 0) / 2**20}
        base = summary["plain"]["median_requests_per_s"]
        for name in ("public", "authorised"):
            rate = summary[name]["median_requests_per_s"]
            summary[name]["ratio_to_no_policy"] = rate / base if rate and base else None
        report["summary"] = summary
    finally:
        stop_all(sampler, servers)
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=str) + "\n")
    print("\n| warm aligned tiles | req/s (median) | × no policy | cost | goal | peak RSS MB |")
    print("|---|---:|---:|---:|---|---:|")
    goals = {"public": 0.95, "authorised": 0.85}
    for name, entry in report["summary"].items():
        ratio = entry.get("ratio_to_no_policy")
        goal = f"≥ {goals[name]:.2f}×: {'met' if ratio and ratio >= goals[name] else 'NOT met'}" if name in goals else ""
        print(f"| {entry['label']} | {entry['median_requests_per_s'] or 0:,.0f} | "
              f"{'—' if ratio is None else f'{ratio:.3f}'} | {'—' if ratio is None else f'{(1 - ratio) * 100:+.1f}%'} | {goal} | "
              f"{entry['peak_rss_mb']:.1f} |")


if __name__ == "__main__":
    sys.exit(main())
