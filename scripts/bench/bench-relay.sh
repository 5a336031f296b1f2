#!/usr/bin/env bash
# Benchmarks of the explicit engine (issue 5 targets): Omweso 4×4 with 12
# seeds and 4×8 with 8 seeds (both objectives), En Gehé 2×6 up to 16 and
# 2×8 up to 12 counters. Wall time and peak memory of each build from
# scratch; the machine load before each run is printed, since other jobs
# skew the times.
#
# Usage: scripts/bench/bench-relay.sh [DIR]   (default: a fresh temporary folder)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/mancala-tb"
dir="${1:-$(mktemp -d)}"
run() {
    echo "== mancala-tb build $* (load: $(cut -d' ' -f1-3 /proc/loadavg))"
    /usr/bin/time -f "wall %e s, peak memory %M KB" "$bin" build "$@" --dir "$dir" 2>&1 \
        | grep -v '^Building'
}
run omweso --width 4 --seeds 12 --objective wdl
run omweso --width 4 --seeds 12 --objective points
run omweso --width 8 --seeds 8 --objective wdl
run omweso --width 8 --seeds 8 --objective points
run engehe --width 6 --max-seeds 16
run engehe --width 8 --max-seeds 12
"$bin" stats omweso --width 4 --seeds 12 --objective points --dir "$dir"
"$bin" stats omweso --width 8 --seeds 8 --objective points --dir "$dir"
"$bin" stats omweso --width 4 --seeds 12 --dir "$dir"
"$bin" stats omweso --width 8 --seeds 8 --dir "$dir"
