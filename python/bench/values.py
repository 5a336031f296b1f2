#!/usr/bin/env python3
"""Benchmark: `Oware.values` on random positions of layers 10-20, end to end
from Python, tables warm; beside it, the same positions through the Rust
batch of the command line (`mancala-tb probe oware FILE`, one whole process:
reading the lines, probing, writing the answers), alternating.

    python/bench/values.py DIR [--count 500000] [--runs 5] [--bin target/release/mancala-tb]

DIR holds the awari tables up to 20 seeds (`mancala-tb build oware
--max-seeds 20 --dir DIR`). The positions are uniform over a layer, the
layer uniform over 10-20, the same on every call. Prints each run's time
per position, then the medians: values of a C-contiguous uint8 array (read
in place), of an int64 array (converted once), move values, two threads
sharing one object, and the command line; the answers' agreement; and, to
show that a probe releases the GIL, the longest a Python thread waited
during one.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

import mancala_tb


def positions(count: int) -> np.ndarray:
    rng = np.random.default_rng(20)
    seeds = rng.integers(10, 21, count)
    # Eleven bars among seeds + 11 places: the gaps are the pit counts.
    keys = rng.random((count, 31))
    boards = np.empty((count, 12), dtype=np.uint8)
    for n in range(10, 21):
        rows = np.flatnonzero(seeds == n)
        bars = np.sort(np.argsort(keys[rows, : n + 11], axis=1)[:, :11], axis=1)
        edges = np.hstack([np.full((len(rows), 1), -1), bars, np.full((len(rows), 1), n + 11)])
        boards[rows] = np.diff(edges, axis=1) - 1
    return boards


def timed(f) -> float:
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--count", type=int, default=500_000)
    parser.add_argument("--runs", type=int, default=5)
    root = Path(__file__).resolve().parents[2]
    parser.add_argument("--bin", default=str(root / "target" / "release" / "mancala-tb"))
    args = parser.parse_args()

    boards = positions(args.count)
    wide = boards.astype(np.int64)
    tb = mancala_tb.Oware(args.dir)
    values = tb.values(boards)  # warms the tables and the page cache
    tb.move_values(boards[:1000])
    halves = np.array_split(boards, 2)

    def two_threads():
        threads = [threading.Thread(target=tb.values, args=(h,)) for h in halves]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def longest_pause():
        """The longest a Python thread waits while another runs one `values`
        call: about the switch interval if the call releases the GIL, the
        whole call if it does not."""
        done = threading.Event()
        thread = threading.Thread(target=lambda: (tb.values(boards), done.set()))
        start = last = time.perf_counter()
        longest = 0.0
        thread.start()
        while not done.is_set():
            now = time.perf_counter()
            longest, last = max(longest, now - last), now
        thread.join()
        return longest, last - start

    with tempfile.TemporaryDirectory() as work:
        lines = Path(work) / "positions.txt"
        lines.write_text("".join(" ".join(map(str, b)) + "\n" for b in boards))
        answers = Path(work) / "answers.txt"
        command = [args.bin, "probe", "oware", "--dir", args.dir, str(lines)]

        def cli():
            with open(answers, "w") as out:
                subprocess.run(command, stdout=out, check=True)

        cli()  # warms the binary
        cases = {
            "values, uint8 in place": lambda: tb.values(boards),
            "values, int64 converted": lambda: tb.values(wide),
            "move_values, uint8": lambda: tb.move_values(boards),
            "values, 2 threads, one object": two_threads,
            "probe oware (command line)": cli,
        }
        times = {name: [] for name in cases}
        for run in range(args.runs):
            for name, case in cases.items():
                times[name].append(timed(case) * 1e6 / args.count)
            load = os.getloadavg()[0]
            print(
                f"run {run + 1}: "
                + ", ".join(f"{t[-1]:.2f}" for t in times.values())
                + f" µs/position (load {load:.1f})",
                file=sys.stderr,
                flush=True,
            )
        agree = np.array_equal(np.loadtxt(answers, dtype=np.int8), values)

    print(f"{args.count:,} random positions of layers 10-20, {args.runs} runs, medians:")
    cli_median = statistics.median(times["probe oware (command line)"])
    for name, t in times.items():
        median = statistics.median(t)
        print(f"  {name:32} {median:6.2f} µs/position ({median / cli_median:.2f} × the command line)")
    print(f"  answers equal the command line's: {agree}")
    pause, call = longest_pause()
    print(f"  longest pause of a Python thread during a values call: {pause * 1e3:.1f} ms of {call * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
