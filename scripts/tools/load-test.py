#!/usr/bin/env python3
"""Bounded load test of `mancala-tb serve` on 127.0.0.1 only.

Starts the server on a free loopback port over DIR, takes a fixed sample of
Oware positions from the layers built there, asks `query oware --json` for
each (the reference), then sends REQUESTS requests from CLIENTS concurrent
clients (each request a sample position; keep-alive connections) and checks
every answer byte for byte against the reference. Reports the throughput,
latency percentiles and the server's resident memory before and after (and
its peak), and exits non-zero on any error or wrong value. Stops by itself:
the request count and a wall-clock limit bound it.

    scripts/tools/load-test.py --dir /tmp/tb-people [--requests 20000] [--clients 32]
"""

import argparse
import http.client
import json
import random
import subprocess
import sys
import threading
import time


def rss_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True, help="tablebase folder with Oware layers")
    ap.add_argument("--bin", default="target/release/mancala-tb")
    ap.add_argument("--rules", default="awari")
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--positions", type=int, default=200, help="distinct positions sampled")
    ap.add_argument("--time-limit", type=float, default=300, help="seconds at most")
    args = ap.parse_args()

    server = subprocess.Popen(
        [args.bin, "serve", "--dir", args.dir, "--bind", "127.0.0.1:0"],
        stderr=subprocess.PIPE, text=True)
    try:
        addr = server.stderr.readline().strip().rsplit("http://", 1)[1].rstrip("/")
        host, port = addr.rsplit(":", 1)
        return run(args, server, host, int(port))
    finally:
        server.kill()
        server.wait()


def run(args, server, host, port):
    conn = http.client.HTTPConnection(host, port, timeout=30)
    conn.request("GET", "/api/tables")
    tables = json.loads(conn.getresponse().read())
    layers = sorted(t["seeds"] for t in tables
                    if t["game"] == "oware" and t["ruleset"] == args.rules)
    top = max(s for i, s in enumerate(layers) if s == i)
    rng = random.Random(12)
    sample = []
    for _ in range(args.positions):
        seeds = rng.randint(max(0, top - 6), top)
        pits = [0] * 12
        for _ in range(seeds):
            pits[rng.randrange(12)] += 1
        sample.append(pits)
    expected = []
    for pits in sample:
        out = subprocess.run(
            [args.bin, "query", "oware", "--json", "--rules", args.rules, "--dir", args.dir]
            + [str(p) for p in pits], capture_output=True, text=True, check=True)
        expected.append(out.stdout.strip().encode())
    print(f"{len(sample)} positions of layers {max(0, top - 6)}..{top} ({args.rules}); "
          f"reference answers from `query oware --json`")

    rss_before = rss_kib(server.pid, "VmRSS")
    counter = iter(range(args.requests))
    lock = threading.Lock()
    latencies, errors = [], []
    deadline = time.monotonic() + args.time_limit

    def client():
        c = http.client.HTTPConnection(host, port, timeout=30)
        mine = []
        while time.monotonic() < deadline:
            with lock:
                i = next(counter, None)
            if i is None:
                break
            k = i % len(sample)
            path = f"/api/oware?rules={args.rules}&pits=" + ",".join(map(str, sample[k]))
            t0 = time.perf_counter()
            try:
                c.request("GET", path)
                reply = c.getresponse()
                body = reply.read()
            except Exception as e:  # a refused or broken connection is an error
                with lock:
                    errors.append(f"{path}: {e}")
                c = http.client.HTTPConnection(host, port, timeout=30)
                continue
            mine.append(time.perf_counter() - t0)
            if reply.status != 200 or body != expected[k]:
                with lock:
                    errors.append(f"{path}: {reply.status} {body[:200]!r}")
        with lock:
            latencies.extend(mine)

    start = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    rss_after = rss_kib(server.pid, "VmRSS")
    rss_peak = rss_kib(server.pid, "VmHWM")

    latencies.sort()
    pct = lambda q: 1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    done = len(latencies)
    print(f"{done} requests from {args.clients} clients in {wall:.1f} s: "
          f"{done / wall:.0f} requests/s")
    if done:
        print(f"latency ms: median {pct(0.5):.1f}, 99% {pct(0.99):.1f}, max {1000 * latencies[-1]:.1f}")
    print(f"server memory (RSS): {rss_before / 1024:.1f} MiB before, {rss_after / 1024:.1f} MiB after, "
          f"peak {rss_peak / 1024:.1f} MiB")
    print(f"errors or wrong answers: {len(errors)}")
    for e in errors[:10]:
        print("  " + e)
    if errors or done < args.requests:
        if done < args.requests:
            print(f"only {done} of {args.requests} requests within {args.time_limit} s")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
