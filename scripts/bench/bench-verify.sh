#!/usr/bin/env bash
# Benchmark: `verify oware` of the layers 0..=MAX of an existing tablebase
# folder under several sets of options, run in turn (alternating) for
# ROUNDS rounds. Prints each run's wall time, peak RSS and peak anonymous
# memory (the verify's own arrays; RSS also counts the page cache of the
# mapped raw copies it streams), then the medians of each set.
#
#   DIR=/path/to/tablebases scripts/bench/bench-verify.sh MAX ROUNDS "OPTIONS" ["OPTIONS" ...]
#
# e.g. scripts/bench/bench-verify.sh 20 3 "" "--memory 160M --lower-cache 0"
# With BIN set, that binary is run instead of this checkout's release build.
set -euo pipefail
max=$1
rounds=$2
shift 2
cd "$(dirname "$0")/../.."
source scripts/tools/watch-process.sh
if [[ -z "${BIN:-}" ]]; then
    cargo build --release --quiet
    BIN=target/release/mancala-tb
fi
out=$(mktemp)
trap 'rm -f "$out" "$out.runs"' EXIT

for round in $(seq "$rounds"); do
    for options in "$@"; do
        start=$(date +%s.%N)
        # shellcheck disable=SC2086 # the options are words
        "$BIN" verify oware --max-seeds "$max" --dir "$DIR" $options >"$out" 2>&1 &
        pid=$!
        watch_process "$pid"
        wait "$pid" || { cat "$out"; exit 1; }
        end=$(date +%s.%N)
        printf 'round %d [%s]: %.1f s, peak RSS %d MiB, peak anonymous %d MiB\n' "$round" \
            "${options:-default}" "$(echo "$end - $start" | bc)" $((peak_rss / 1024)) \
            $((peak_anon / 1024))
    done
done | tee "$out.runs"
echo "medians:"
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for options in "$@"; do
    key="[${options:-default}]"
    runs=$(grep -F "$key" "$out.runs")
    printf '  %s: %s s, peak RSS %s MiB, peak anonymous %s MiB\n' "$key" \
        "$(awk '{print $(NF-9)}' <<<"$runs" | median)" \
        "$(awk '{print $(NF-5)}' <<<"$runs" | median)" \
        "$(awk '{print $(NF-1)}' <<<"$runs" | median)"
done
