#!/usr/bin/env bash
# Benchmark: the distributed build against the single-process one, side by
# side on this machine, layers 0..=MAX (default 22) of awari:
#   1 process x T threads, R ranks x 1 thread (mpirun), and 3 ranks x 1 thread
#   (oversubscribed where there are fewer cores: for correctness, not speed).
# Prints wall time and rate of each, the distributed builds' bytes sent per
# position, and each rank's peak anonymous memory; checks that every table
# equals the single-process build's.
#
#   scripts/derive/bench-mpi.sh [MAX_SEEDS] [RANKS] [THREADS]
#
# RANKS and THREADS default to the number of cores. Needs OpenMPI (README).
set -euo pipefail
max=${1:-22}
ranks=${2:-$(nproc)}
threads=${3:-$(nproc)}
cd "$(dirname "$0")/../.."
cargo build --release --features mpi --quiet
bin=$PWD/target/release/mancala-tb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs a build command in the background; prints its wall time and the peak
# anonymous memory of each mancala-tb process it started.
measure() {
    local name=$1
    shift
    local start end
    start=$(date +%s.%N)
    "$@" >"$work/$name.out" 2>"$work/$name.err" &
    local pid=$!
    declare -A peak=()
    while kill -0 "$pid" 2>/dev/null; do
        for p in $(pgrep -f "^$bin build oware" || true); do
            anon=$(awk '/^RssAnon/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
            ((${anon:-0} > ${peak[$p]:-0})) && peak[$p]=$anon
        done
        sleep 0.05
    done
    wait "$pid" || { cat "$work/$name.err"; exit 1; }
    end=$(date +%s.%N)
    local positions
    positions=$(awk '$1 == "built" && $3 == "positions" {print $2}' "$work/$name.out")
    local largest
    largest=$(awk -v m="$max" '$1 == m {print $2}' "$work/$name.out")
    awk -v n="$name" -v s="$start" -v e="$end" -v p="$positions" 'BEGIN {
        printf "%-22s %8.1f s wall  %6.2fM positions/s\n", n, e - s, p / (e - s) / 1e6 }'
    for p in "${!peak[@]}"; do
        awk -v a="${peak[$p]}" -v l="$largest" -v m="$max" 'BEGIN {
            printf "    a process: peak anonymous memory %.0f MiB = %.2f bytes per position of layer %d\n",
                a / 1024, a * 1024 / l, m }'
    done
    grep "^sent between ranks: " "$work/$name.out" | sed 's/^/    /' || true
    grep "^sent between ranks, " "$work/$name.out" | sed 's/^/    /' || true
}

same_tables() {
    for seeds in $(seq 0 "$max"); do
        cmp "$work/single/oware-awari/scores.$seeds.mtb" "$1/oware-awari/scores.$seeds.mtb"
    done
}

mpirun=(mpirun --allow-run-as-root --oversubscribe)
echo "awari layers 0..=$max on $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "1 process x $threads" "$bin" build oware --max-seeds "$max" --threads "$threads" \
    --dir "$work/single"
measure "$ranks ranks x 1" "${mpirun[@]}" -np "$ranks" "$bin" build oware --distributed \
    --max-seeds "$max" --threads 1 --dir "$work/ranks"
same_tables "$work/ranks"
measure "3 ranks x 1" "${mpirun[@]}" -np 3 "$bin" build oware --distributed \
    --max-seeds "$max" --threads 1 --dir "$work/three"
same_tables "$work/three"
echo "tables identical to the single-process build's; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
