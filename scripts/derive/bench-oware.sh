#!/usr/bin/env bash
# Benchmark: a full build of the Oware layers 0..=MAX (default 20, awari) in a
# fresh folder. Prints the build's summary table (with each layer's engine:
# in memory or out of core), then wall time, positions/s, memory: peak RSS
# and peak anonymous memory (the builder's own arrays; RSS also counts the
# page cache of mapped files), and the bytes the build read and wrote with
# read/write calls (scratch files, tables written; lower tables are read
# through a memory map and not counted).
#
#   scripts/derive/bench-oware.sh [MAX_SEEDS] [RULES] [THREADS] [MEMORY]
#
# MEMORY is the build's --memory (e.g. 1G); default: what is available.
# With DIR set, the build runs in that folder and keeps it: layers already
# there are not rebuilt (a long benchmark resumes, or extends an earlier
# one), and the totals count only the layers built by this run.
set -euo pipefail
max=${1:-20}
rules=${2:-awari}
threads=${3:-$(nproc)}
memory=${4:+--memory $4}
cd "$(dirname "$0")/../.."
source scripts/tools/watch-process.sh
cargo build --release --quiet
if [[ -n "${DIR:-}" ]]; then
    dir=$DIR
    mkdir -p "$dir"
else
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
fi

start=$(date +%s.%N)
target/release/mancala-tb build oware --rules "$rules" --max-seeds "$max" --dir "$dir" \
    --threads "$threads" $memory >"$dir/summary.txt" 2>"$dir/stderr.txt" &
pid=$!
watch_process "$pid"
wait "$pid" || { cat "$dir/stderr.txt"; exit 1; }
end=$(date +%s.%N)

cat "$dir/summary.txt"
positions=$(awk '$1 == "built" && $3 == "positions" {print $2}' "$dir/summary.txt")
largest=$(awk '$1 ~ /^[0-9]+$/ {p=$2} END {print p}' "$dir/summary.txt")
awk -v s="$start" -v e="$end" -v p="$positions" -v l="$largest" -v a="$peak_anon" -v r="$peak_rss" \
    -v t="$threads" -v m="$max" -v rules="$rules" -v ir="$io_read" -v iw="$io_written" 'BEGIN {
    w = e - s
    printf "%s layers 0..=%d, %d threads: %.0f positions in %.1f s wall = %.2fM positions/s\n", rules, m, t, p, w, p / w / 1e6
    printf "peak RSS %.0f MiB; peak anonymous memory %.0f MiB = %.2f bytes per position of the largest layer (%d)\n", r / 1024, a / 1024, a * 1024 / l, l
    printf "file I/O: %.2f bytes read, %.2f bytes written per position built\n", ir / p, iw / p
}'
