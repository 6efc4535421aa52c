#!/usr/bin/env python3
"""A fault-injecting HTTP proxy for the object-storage tests: forwards every request to an S3
service unchanged (the Host header included, so signatures still verify) unless told to fail.

    scripts/faulty-proxy.py --listen PORT --upstream http://127.0.0.1:S3PORT --pid-file FILE

Faults are set through the proxy itself, and apply to the next COUNT forwarded requests (after
AFTER more are let through, when `after=AFTER` is given):

    GET /__fault?mode=status&code=503&count=3   answer 503 (with S3's XML error body) instead
    GET /__fault?mode=drop&count=2              close the connection without answering
    GET /__fault?mode=stall&seconds=5&count=1   wait, then forward
    GET /__fault?mode=none                      clear
    GET /__stats                                {"forwarded", "faulted", "bytes" (of bodies relayed)}

Binds 127.0.0.1 only. Stdlib only.
"""
import argparse
import http.client
import json
import os
import signal
import socketserver
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

state = {"mode": "none", "count": 0, "after": 0, "code": 503, "seconds": 0.0, "forwarded": 0, "faulted": 0, "bytes": 0}
lock = threading.Lock()
upstream = None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def control(self, path, query):
        parameters = {k: v[0] for k, v in urllib.parse.parse_qs(query).items()}
        with lock:
            if path == "/__fault":
                state["mode"] = parameters.get("mode", "none")
                state["count"] = int(parameters.get("count", "1"))
                state["code"] = int(parameters.get("code", "503"))
                state["seconds"] = float(parameters.get("seconds", "0"))
                state["after"] = int(parameters.get("after", "0"))
            body = json.dumps({k: state[k] for k in ("forwarded", "faulted", "bytes")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def take_fault(self):
        with lock:
            if state["mode"] == "none" or state["count"] <= 0 or state["after"] > 0:
                state["after"] = max(0, state["after"] - 1)
                state["forwarded"] += 1
                return None
            state["count"] -= 1
            state["faulted"] += 1
            fault = dict(state)
            if state["count"] == 0:
                state["mode"] = "none"
            return fault

    def relay(self):
        parsed = urllib.parse.urlsplit(self.path)
        if parsed.path in ("/__fault", "/__stats"):
            return self.control(parsed.path, parsed.query)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        fault = self.take_fault()
        if fault and fault["mode"] == "status":
            message = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>%s</Code><Message>injected</Message></Error>"
                       % ("SlowDown" if fault["code"] == 503 else "InternalError")).encode()
            self.send_response(fault["code"])
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(message)))
            self.end_headers()
            self.wfile.write(message)
            return
        if fault and fault["mode"] == "drop":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if fault and fault["mode"] == "stall":
            time.sleep(fault["seconds"])
        connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
        connection.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
        for name, value in self.headers.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        data = response.read()
        with lock:
            state["bytes"] += len(data)
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(name, value)
        # A HEAD answer has no body but states the object's length.
        length = response.getheader("Content-Length") if self.command == "HEAD" else None
        self.send_header("Content-Length", length or str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        connection.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = relay


def exit_without(parent):
    """Exits once `parent` is gone: a test process that crashed cannot stop this one, and a proxy
    left running would hold the test runner's output open."""
    while True:
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:
            pass
        time.sleep(1)


def main():
    # A parent that blocks signals in its threads (a Swift test process does) passes the mask on
    # through fork and exec; unblocked here, so SIGTERM stops this process and what it starts.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    global upstream
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--pid-file")
    parser.add_argument("--parent-pid", type=int, help="exit when this process is gone (a crashed test run)")
    arguments = parser.parse_args()
    if arguments.parent_pid:
        threading.Thread(target=exit_without, args=(arguments.parent_pid,), daemon=True).start()
    upstream = urllib.parse.urlsplit(arguments.upstream)
    socketserver.TCPServer.allow_reuse_address = True
    server = ThreadingHTTPServer(("127.0.0.1", arguments.listen), Handler)
    server.daemon_threads = True
    if arguments.pid_file:
        with open(arguments.pid_file, "w") as file:
            file.write(str(os.getpid()))
    print("listening on 127.0.0.1:%d" % arguments.listen, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
