#!/usr/bin/env bash
# Benchmark: `mancala-tb probe oware` on a batch of random positions of one
# layer, end to end (one whole process: reading the lines, probing, writing
# the answers), with the page cache warm. Prints, per run, the wall time per
# position, the load average beside it, and a checksum of the answers (equal
# answers, equal checksums: compare tables of two codings with it).
#
#   scripts/bench/probe-batch.sh DIR [SEEDS] [COUNT] [RUNS]
#
# DIR holds the tables (DIR/oware-awari/); the positions (default 200,000
# of layer 20) are uniform over the layer and the same on every call. With
# BIN set, that binary probes instead of target/release/mancala-tb (run
# after `cargo build --release`).
set -euo pipefail
dir=$1
seeds=${2:-20}
count=${3:-200000}
runs=${4:-3}
cd "$(dirname "$0")/../.."
bin=${BIN:-target/release/mancala-tb}
positions=$(mktemp)
answers=$(mktemp)
trap 'rm -f "$positions" "$answers"' EXIT

# Twelve pit counts adding up to SEEDS: 11 bars among SEEDS + 11 places.
python3 - "$seeds" "$count" >"$positions" <<'PY'
import random, sys
seeds, count = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seeds)
for _ in range(count):
    bars = sorted(rng.sample(range(seeds + 11), 11)) + [seeds + 11]
    print(*(b - a - 1 for a, b in zip([-1] + bars, bars)))
PY

# A first run warms the page cache (tables, binary).
"$bin" probe oware --dir "$dir" "$positions" >/dev/null
for _ in $(seq "$runs"); do
    start=$(date +%s.%N)
    "$bin" probe oware --dir "$dir" "$positions" >"$answers"
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" -v n="$count" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
        -v sum="$(md5sum <"$answers" | cut -c1-12)" \
        'BEGIN { printf "%d positions: %.3f s, %.2f us/position (load %s, answers %s)\n", n, e - s, (e - s) * 1e6 / n, load, sum }'
done
