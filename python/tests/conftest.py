"""Small tables built once per test session with the `mancala-tb` binary,
and the binary's own answers (`probe ... --json`) to compare with.

The binary is $MANCALA_TB, else the newer of the repository's
target/release and target/debug builds (`cargo build` makes one).
"""

import itertools
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
OWARE_SEEDS = 12
OMWESO_WIDTH, OMWESO_SEEDS = 2, (5, 6)
ENGEHE_WIDTH, ENGEHE_COUNTERS = 2, 8


def binary() -> str:
    if "MANCALA_TB" in os.environ:
        return os.environ["MANCALA_TB"]
    built = [REPO / "target" / p / "mancala-tb" for p in ("release", "debug")]
    built = [b for b in built if b.exists()]
    if not built:
        pytest.exit("no mancala-tb binary: run `cargo build` or set MANCALA_TB", 2)
    return str(max(built, key=lambda b: b.stat().st_mtime))


def run(*args: str, stdin: str = "") -> str:
    """The binary's standard output for `args`; a failure fails the test."""
    done = subprocess.run(
        [binary(), *args], input=stdin, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"mancala-tb {' '.join(args)}: {done.stderr}"
    return done.stdout


@pytest.fixture(scope="session")
def tables(tmp_path_factory) -> Path:
    """A tablebase folder: awari and abapa up to 12 seeds, Omweso 4 × 2
    with 5 and 6 seeds (wdl and points), En Gehé 2 × 2 up to 8 counters."""
    tb = tmp_path_factory.mktemp("tablebases")
    for rules in ("awari", "abapa"):
        run("build", "oware", "--rules", rules, "--max-seeds", str(OWARE_SEEDS), "--dir", str(tb))
    for seeds in OMWESO_SEEDS:
        for objective in ("wdl", "points"):
            run("build", "omweso", "--width", str(OMWESO_WIDTH), "--seeds", str(seeds),
                "--objective", objective, "--dir", str(tb))
    run("build", "engehe", "--width", str(ENGEHE_WIDTH), "--max-seeds", str(ENGEHE_COUNTERS),
        "--dir", str(tb))
    return tb


def compositions(seeds: int, pits: int):
    """Every way of putting `seeds` seeds into `pits` pits."""
    for bars in itertools.combinations(range(seeds + pits - 1), pits - 1):
        edges = (-1, *bars, seeds + pits - 1)
        yield [b - a - 1 for a, b in zip(edges, edges[1:])]


def random_positions(rng: np.random.Generator, seeds: int, pits: int, count: int) -> np.ndarray:
    """`count` positions of `seeds` seeds, uniform over the layer."""
    rows = []
    for _ in range(count):
        bars = np.sort(rng.choice(seeds + pits - 1, pits - 1, replace=False))
        edges = np.concatenate(([-1], bars, [seeds + pits - 1]))
        rows.append(np.diff(edges) - 1)
    return np.array(rows, dtype=np.uint8)


def probe_json(game: str, options: list, boards: np.ndarray) -> list:
    """`mancala-tb probe GAME OPTIONS --json` on every row."""
    lines = "".join(" ".join(map(str, row)) + "\n" for row in boards)
    out = run("probe", game, *options, "--json", stdin=lines)
    return [json.loads(line) for line in out.splitlines()]


def probe_text(game: str, options: list, boards: np.ndarray) -> list:
    """`mancala-tb probe GAME OPTIONS` on every row: one answer line each."""
    lines = "".join(" ".join(map(str, row)) + "\n" for row in boards)
    return run("probe", game, *options, stdin=lines).splitlines()
