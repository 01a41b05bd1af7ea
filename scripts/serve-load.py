#!/usr/bin/env python3
"""A bounded load on `checkers serve` from this machine (issue 52).

Starts `checkers serve --port 0` on a store, then for --seconds runs:
  - well-behaved clients (--clients minus --slow): each asks for the page
    and the API routes in turn on a keep-alive connection, as fast as
    answers come, timing every answer;
  - slow readers (--slow): each sends pipelined requests for large
    answers (the page, proof trees of --limit nodes) and reads 4 KB a
    second; when the server closes the connection (its write timeout),
    it connects again;
  - idle connections (--idle): connected, never sending; each one the
    server closes (its idle timeout) is connected again.
The server's resident memory and thread count are read from /proc each
half second. It prints the figures and exits 1 if any well-behaved
request failed or took longer than --max-latency seconds.

Without --store it makes one in a temporary folder: `checkers solve
--egdb-pieces 0` of W:WK19,K23:B12,K28 (a win of 4,486 proof nodes, so
/api/proof answers run to megabytes).

  python3 scripts/serve-load.py --bin target/release/checkers
  python3 scripts/serve-load.py --bin target/debug/checkers --seconds 60 \\
      --clients 20 --slow 5 --idle 100

Only the standard library (Python 3.8 or later).
"""

import argparse
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

FEN = "W:WK19,K23:B12,K28"


def make_store(binary, folder):
    """A store with one proof tree: the --store given, or one made here."""
    path = os.path.join(folder, "load.sqlite")
    subprocess.run(
        [binary, "solve", "--egdb-pieces", "0", "--store", path, FEN],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return path


def start_server(binary, store, egdb_pieces):
    """`checkers serve` on a free port: the process, host and port."""
    proc = subprocess.Popen(
        [binary, "serve", "--store", store, "--egdb-pieces", str(egdb_pieces), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        sys.exit(f"serve-load: no address in {line!r}")
    hostport = line.split("http://")[1].split("/")[0]
    host, port = hostport.rsplit(":", 1)
    return proc, host, int(port)


class Figures:
    """What the clients saw, shared between their threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latencies = []
        self.statuses = {}
        self.failures = []
        self.slow_bytes = 0
        self.slow_connects = 0
        self.idle_connects = 0
        self.max_rss_kb = 0
        self.max_threads = 0

    def answered(self, status, seconds):
        with self.lock:
            self.latencies.append(seconds)
            self.statuses[status] = self.statuses.get(status, 0) + 1

    def failed(self, what):
        with self.lock:
            self.failures.append(what)


def well_behaved(host, port, stop, figures, timeout):
    """Asks each route in turn, timing each answer, until `stop`."""
    q = urllib.parse.quote(FEN, safe="")
    paths = [
        "/",
        "/api/ballots",
        f"/api/position?fen={q}",
        f"/api/proof?fen={q}",
        "/api/ballot/1",
        "/api/position?fen=bad",
    ]
    conn = None
    i = 0
    while not stop.is_set():
        path = paths[i % len(paths)]
        i += 1
        start = time.monotonic()
        try:
            if conn is None:
                conn = http.client.HTTPConnection(host, port, timeout=timeout)
            conn.request("GET", path)
            r = conn.getresponse()
            r.read()
            took = time.monotonic() - start
            if r.status >= 500:
                figures.failed(f"{path}: status {r.status}")
            figures.answered(r.status, took)
            if r.will_close:
                conn.close()
                conn = None
        except (OSError, http.client.HTTPException) as e:
            figures.failed(f"{path}: {e!r} after {time.monotonic() - start:.2f} s")
            if conn is not None:
                conn.close()
            conn = None
    if conn is not None:
        conn.close()


def slow_reader(host, port, stop, figures, limit):
    """Pipelines requests for large answers and reads 4 KB a second."""
    q = urllib.parse.quote(FEN, safe="")
    requests = (
        f"GET /api/proof?fen={q}&limit={limit} HTTP/1.1\r\nHost: x\r\n\r\n" * 5
        + "GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 200
    ).encode()
    while not stop.is_set():
        try:
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.settimeout(5)
            s.connect((host, port))
            with figures.lock:
                figures.slow_connects += 1
            s.sendall(requests)
            while not stop.is_set():
                data = s.recv(4096)
                if not data:
                    break
                with figures.lock:
                    figures.slow_bytes += len(data)
                stop.wait(1.0)
        except OSError:
            stop.wait(0.2)
        finally:
            s.close()


def idle_holder(host, port, stop, figures, count):
    """Holds `count` connections that never send; reopens closed ones."""
    socks = [None] * count
    while not stop.is_set():
        for i, s in enumerate(socks):
            closed = s is None
            if s is not None:
                try:
                    closed = s.recv(4096) == b""
                except BlockingIOError:
                    closed = False
                except OSError:
                    closed = True
                if closed:
                    s.close()
            if closed:
                try:
                    s = socket.create_connection((host, port), timeout=2)
                    s.setblocking(False)
                    socks[i] = s
                    with figures.lock:
                        figures.idle_connects += 1
                except OSError:
                    socks[i] = None
        stop.wait(0.5)
    for s in socks:
        if s is not None:
            s.close()


def watch(pid, stop, figures):
    """Reads the server's resident memory and threads from /proc."""
    while not stop.is_set():
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        kb = int(line.split()[1])
                        figures.max_rss_kb = max(figures.max_rss_kb, kb)
                    elif line.startswith("Threads:"):
                        figures.max_threads = max(figures.max_threads, int(line.split()[1]))
        except OSError:
            pass
        stop.wait(0.5)


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(p * len(sorted_values)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="target/release/checkers", help="the checkers binary")
    ap.add_argument("--store", help="the store (default: one made in a temporary folder)")
    ap.add_argument("--egdb-pieces", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--clients", type=int, default=20, help="clients in all, slow readers included")
    ap.add_argument("--slow", type=int, default=5, help="slow readers among the clients")
    ap.add_argument("--idle", type=int, default=100, help="idle connections held")
    ap.add_argument("--limit", type=int, default=20000, help="proof nodes the slow readers ask")
    ap.add_argument("--max-latency", type=float, default=1.0, help="seconds a good answer may take")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="serve-load-") as tmp:
        store = args.store or make_store(args.bin, tmp)
        proc, host, port = start_server(args.bin, store, args.egdb_pieces)
        figures = Figures()
        stop = threading.Event()
        threads = [threading.Thread(target=watch, args=(proc.pid, stop, figures))]
        threads.append(
            threading.Thread(target=idle_holder, args=(host, port, stop, figures, args.idle))
        )
        for _ in range(args.slow):
            threads.append(
                threading.Thread(target=slow_reader, args=(host, port, stop, figures, args.limit))
            )
        for _ in range(args.clients - args.slow):
            threads.append(
                threading.Thread(
                    target=well_behaved,
                    args=(host, port, stop, figures, 10 * args.max_latency),
                )
            )
        for t in threads:
            t.start()
        time.sleep(args.seconds)
        stop.set()
        for t in threads:
            t.join()
        ended = proc.poll()
        proc.kill()
        proc.wait()

    lat = sorted(figures.latencies)
    slowest = lat[-1] if lat else float("nan")
    print(f"serve-load: {args.seconds:.0f} s, {args.clients - args.slow} well-behaved clients, "
          f"{args.slow} slow readers, {args.idle} idle connections ({args.bin})")
    print(f"  answered     {len(lat)} requests ({len(lat) / args.seconds:.0f}/s), statuses "
          + ", ".join(f"{k}: {v}" for k, v in sorted(figures.statuses.items())))
    print(f"  latency      p50 {percentile(lat, 0.5) * 1000:.1f} ms, p99 "
          f"{percentile(lat, 0.99) * 1000:.1f} ms, max {slowest * 1000:.1f} ms")
    print(f"  failures     {len(figures.failures)}"
          + "".join(f"\n    {f}" for f in figures.failures[:10]))
    print(f"  slow readers {figures.slow_connects} connections, {figures.slow_bytes} bytes read")
    print(f"  idle         {figures.idle_connects} connections opened (reopened when the server closed them)")
    print(f"  server       max RSS {figures.max_rss_kb / 1024:.1f} MiB, max {figures.max_threads} threads, "
          + ("still running" if ended is None else f"ENDED with status {ended}"))
    bad = figures.failures or ended is not None or not lat or slowest > args.max_latency
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
