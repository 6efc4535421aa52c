#!/usr/bin/env python3
"""Scale-out (issue 18): `tessera serve` over S3 (SeaweedFS) and behind nginx, on 127.0.0.1 only.

- Cold build: time from start to the first tile of the 16000×12000 JPEG (which waits for its whole
  IIIF pyramid) with the source and the pyramids on local disk, the source in S3, and both in S3.
- Warm tiles through nginx (round robin, no proxy_cache, so the instances answer every request)
  over one, two and three instances sharing the S3 pyramid, each warmed with the same 1,000
  aligned tiles first: requests/s and p99 by wrk (-t2 -c64). On this 2-core machine more instances
  share the same two cores: the rows show the overhead of spreading, not a speed-up.
- S3 requests per tile: a fresh instance (empty memory) serving 200 aligned tiles of the built
  pyramid, its S3 traffic counted by scripts/faulty-proxy.py in front of SeaweedFS.
- Memory: VmRSS and VmHWM of each instance after its warm run.

SeaweedFS (scripts/seaweedfs.py, telemetry off), the proxy, nginx and every `tessera serve` are
started here on free ports and stopped by PID, also on error.

    scaleout_bench.py TESSERA INPUTS [--duration 10] [--json PATH]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from serving_bench import (PHOTO, TEMPLATES, Server, fetch_info, free_port, get, make_photo, memory_kib,
                           nginx_conf, run_wrk, say, tail, tile_paths, wait_for_port, warm)

ROOT = Path(__file__).resolve().parents[2]
VENV_PYTHON = ROOT / ".build/tools-venv/bin/python"
KEY, SECRET, REGION = "tessera-bench", "tessera-bench-secret", "us-east-1"


def s3(method, endpoint, path, data_file=None):
    """A signed request by curl's own SigV4 signer (no SDK needed)."""
    argv = ["curl", "-sf", "-X", method, "--aws-sigv4", f"aws:amz:{REGION}:s3", "--user", f"{KEY}:{SECRET}",
            *(["-T", str(data_file)] if data_file else []), f"{endpoint}/{path}"]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def start_tessera(work, tessera, name, root, cache, env, extra=()):
    server = Server("tessera", name)
    server.port = free_port()
    directory = work / name
    directory.mkdir()
    argv = [tessera, "serve", root, "--host", "127.0.0.1", "--port", str(server.port),
            "--cache-dir", str(directory / "cache"), "--small-source-pixels", "0", *extra]
    if cache:
        argv += ["--cache", cache]
    proc = server.spawn(argv, directory / "serve.log", env)
    if not wait_for_port(server.port, [proc], 30):
        server.stop()
        raise RuntimeError(f"{name} did not start: {tail(directory / 'serve.log')}")
    server.prefix = f"/iiif/3/{PHOTO}"
    return server


def first_tile_seconds(server):
    """Seconds from now to the centre tile of full resolution (the whole pyramid is built first)."""
    start = time.perf_counter()
    server.info = fetch_info(server)
    tiles = [t for t in tile_paths(server.prefix, server.info) if t[2] == 1]
    path = tiles[len(tiles) // 2][0]
    # A build past the server's 30-s request deadline answers 503 and goes on: ask again.
    for _ in range(20):
        status, _, _ = get(server.base, path, timeout=600)
        if status != 503:
            break
    if status != 200:
        raise RuntimeError(f"first tile answered {status}")
    return time.perf_counter() - start


def proxy_stats(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/__stats", timeout=10) as response:
        return json.loads(response.read())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tessera")
    parser.add_argument("inputs")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run (default 10)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--wrk-timeout", type=int, default=5)
    parser.add_argument("--status-hook", default="audit")
    parser.add_argument("--audit-duration", type=int, default=2)
    parser.add_argument("--json", help="write every number measured to this file")
    args = parser.parse_args()
    tessera = str(Path(args.tessera).resolve())
    photo = make_photo(args.inputs)
    report = {}
    servers, services = [], []
    work = Path(tempfile.mkdtemp(prefix="tessera-scaleout-"))
    try:
        # SeaweedFS and the counting proxy.
        # weed uses P..P+4 and their gRPC ports P+10000..P+10004: all below the ephemeral range, so no
        # port the kernel hands out for port 0 (nginx's, the instances') can land on one of them.
        s3_port = None
        for _ in range(200):
            s3_port = random.randrange(10000, 22700)
            if all(free_port_ok(s3_port + offset + grpc) for offset in range(5) for grpc in (0, 10000)):
                break
        env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET, AWS_REGION=REGION)
        subprocess.run([str(VENV_PYTHON), str(ROOT / "scripts/seaweedfs.py"), "start", "--data", str(work / "weed"),
                        "--s3-port", str(s3_port), "--pid-file", str(work / "weed.pid")], check=True, env=env)
        services.append(lambda: subprocess.run([str(VENV_PYTHON), str(ROOT / "scripts/seaweedfs.py"), "stop",
                                                "--pid-file", str(work / "weed.pid")], env=env))
        endpoint = f"http://127.0.0.1:{s3_port}"
        proxy_port = free_port()
        proxy = subprocess.Popen([sys.executable, str(ROOT / "scripts/faulty-proxy.py"), "--listen", str(proxy_port),
                                  "--upstream", endpoint, "--pid-file", str(work / "proxy.pid")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        services.append(lambda: (proxy.terminate(), proxy.wait(5)))
        wait_for_port(proxy_port, [proxy], 10)
        for bucket in ("originals", "pyramids"):
            s3("PUT", endpoint, bucket)
        s3("PUT", endpoint, f"originals/{PHOTO}", photo)
        direct = dict(env, AWS_ENDPOINT_URL=endpoint)
        counted = dict(env, AWS_ENDPOINT_URL=f"http://127.0.0.1:{proxy_port}")
        local_root = work / "root"
        local_root.mkdir()
        shutil.copyfile(photo, local_root / PHOTO)  # a copy: a symlink out of the root is refused

        # Cold builds.
        say("Scale-out: cold build, 16000×12000 JPEG → IIIF pyramid (time to the first tile)")
        cold = {}
        for name, root, cache in [("local → local", str(local_root), None), ("S3 → local", "s3://originals", None),
                                  ("S3 → S3", "s3://originals", "s3://pyramids")]:
            server = start_tessera(work, tessera, "cold-" + str(len(cold)), root, cache, direct)
            servers.append(server)
            seconds = first_tile_seconds(server)
            hwm = memory_kib(server.procs[0].pid)[0] * 1024
            cold[name] = {"seconds": seconds, "peak_rss": hwm}
            server.stop()
            say(f"  {name:14} {seconds:6.2f} s  ×{seconds / cold['local → local']['seconds']:.2f}  "
                f"peak RSS {hwm / 2**20:.0f} MB")
        report["cold"] = cold
        # S3 requests per tile, from a fresh instance, through the counting proxy.
        server = start_tessera(work, tessera, "counted", "s3://originals", "s3://pyramids", counted)
        servers.append(server)
        server.info = fetch_info(server)
        aligned = tile_paths(server.prefix, server.info)
        report["tiles_per_pyramid"] = len(aligned)  # each one PUT by the build, plus descriptor and pointer
        random.Random(1).shuffle(aligned)
        before = proxy_stats(proxy_port)["forwarded"]
        done, bad, _ = warm(server, [t[0] for t in aligned[:200]], 4, 300)
        per_tile = (proxy_stats(proxy_port)["forwarded"] - before) / max(done, 1)
        report["s3_requests_per_tile"] = per_tile
        say(f"  S3 requests per tile served by a fresh instance: {per_tile:.2f} ({done} tiles, non-200 {bad or 'none'})")
        server.stop()

        # Warm tiles through nginx over 1, 2, 3 instances.
        say("Scale-out: warm aligned tiles through nginx (no proxy_cache), wrk -t2 -c64; 2 cores shared by all")
        urls = [t[0] for t in aligned[:1000]]
        url_file = work / "urls.txt"
        url_file.write_text("\n".join(urls) + "\n")
        report["warm"] = {}
        for count in (1, 2, 3):
            instances = [start_tessera(work, tessera, f"warm{count}-{i}", "s3://originals", "s3://pyramids", direct)
                         for i in range(count)]
            servers.extend(instances)
            for instance in instances:
                warm(instance, urls, 4, 300)
            balancer = Server("nginx", f"nginx over {count}")
            balancer.port = free_port()
            directory = work / f"nginx-{count}"
            directory.mkdir()
            block = (TEMPLATES / "nginx-balancer.conf").read_text().replace("@PORT@", str(balancer.port)).replace(
                "@UPSTREAMS@", "\n".join(f"        server 127.0.0.1:{i.port};" for i in instances))
            proc = balancer.spawn(nginx_conf(directory, block), directory / "stdout.log")
            servers.append(balancer)
            wait_for_port(balancer.port, [proc], 10)
            balancer.procs.extend(p for i in instances for p in i.procs)  # wrk waits until all are idle
            result = run_wrk(balancer, url_file, args, 1)
            memory = [memory_kib(i.procs[0].pid) for i in instances]
            row = {"requests_per_s": result["requests_per_s"], "p99_ms": result["p99_ms"],
                   "rss": [m[1] * 1024 for m in memory], "peak_rss": [m[0] * 1024 for m in memory],
                   "error": result.get("error")}
            report["warm"][count] = row
            base = report["warm"][1]["requests_per_s"] or 1
            say(f"  {count} instance{'s' if count > 1 else ' '}  {row['requests_per_s'] or 0:8.0f} req/s  "
                f"×{(row['requests_per_s'] or 0) / base:.2f}  p99 {row['p99_ms'] or 0:6.1f} ms  RSS each "
                + ", ".join(f"{r / 2**20:.0f}" for r in row["rss"]) + " MB"
                + (f"  FAILED: {row['error']}" if row["error"] else ""))
            balancer.procs = balancer.procs[:1]
            balancer.stop()
            for instance in instances:
                instance.stop()
    finally:
        for server in servers:
            server.stop()
        for stop in reversed(services):
            try:
                stop()
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
        subprocess.run(["rm", "-rf", str(work)])
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


def free_port_ok(port):
    import socket
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


if __name__ == "__main__":
    main()
