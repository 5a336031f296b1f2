#!/usr/bin/env bash
# Benchmark: two commits of this project side by side on the same work.
# Builds each commit's release binary in its own worktree (under
# $WORK, default /tmp/side-by-side), then runs the same command with each,
# alternating BASE and NEW (BASE first in odd rounds, NEW first in even
# ones), ROUNDS times (default 3), each in a fresh
# tablebase folder, and prints every run's wall time (with the load
# average, so a busy machine shows) and the times of the layers it built,
# the medians, and BASE/NEW (above 1: NEW is faster).
#
#   scripts/tools/side-by-side.sh BASE NEW [ROUNDS] -- ARGS...
#   scripts/tools/side-by-side.sh e497a42 main 3 -- build oware --max-seeds 20
#
# BASE or NEW may also be a mancala-tb binary already built (a path).
# ARGS is the mancala-tb command line without `--dir`, which the script
# adds. With LOWER set to a tablebase folder, each fresh folder starts
# with links to LOWER's tables (the lower layers), so only the layers
# above them are built: `LOWER=/work/tb --  build oware --max-seeds 26`
# times layers 25..26 if LOWER holds 0..=24.
set -euo pipefail
base=$1 new=$2 rounds=3
shift 2
if [ "${1:-}" != "--" ]; then rounds=$1; shift; fi
[ "${1:-}" = "--" ] || { echo "usage: $0 BASE NEW [ROUNDS] -- ARGS..." >&2; exit 2; }
shift
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/side-by-side}
mkdir -p "$work"

# The release binary of a commit, built once in a worktree of its own
# (or the binary given).
binary() {
    local commit tree
    if [ -x "$1" ] && [ -f "$1" ]; then realpath "$1"; return; fi
    commit=$(git -C "$repo" rev-parse --short "$1")
    tree=$work/$commit
    [ -d "$tree" ] || git -C "$repo" worktree add --detach --quiet "$tree" "$commit"
    cargo build --release --quiet --manifest-path "$tree/Cargo.toml" >&2
    echo "$tree/target/release/mancala-tb"
}
base_bin=$(binary "$base")
new_bin=$(binary "$new")

# A fresh tablebase folder, with links to LOWER's tables if set.
fresh() {
    local dir sub
    dir=$(mktemp -d -p "$work")
    if [ -n "${LOWER:-}" ]; then
        for sub in "$LOWER"/*/; do
            mkdir "$dir/$(basename "$sub")"
            ln -s "$(realpath "$sub")"/*.mtb "$dir/$(basename "$sub")/"
        done
    fi
    echo "$dir"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A times
for round in $(seq "$rounds"); do
    # ABBA: the order turns each round, so that whatever the run before
    # leaves behind (dirty pages, a warmer or cooler host) falls on both.
    # A copy of the same binary measured 0.924 with base always first.
    order="base new"
    [ $((round % 2)) = 0 ] && order="new base"
    for which in $order; do
        bin=${which}_bin
        dir=$(fresh)
        start=$(date +%s.%N)
        "${!bin}" "$@" --dir "$dir" >"$dir.log" 2>&1 || { cat "$dir.log" >&2; exit 1; }
        end=$(date +%s.%N)
        seconds=$(echo "$end - $start" | bc)
        times[$which]+="$seconds "
        echo "round $round $which ($([ $which = base ] && echo "$base" || echo "$new")): $seconds s, load $(cut -d' ' -f1 /proc/loadavg)"
        # The layers this run built, as the build recorded them.
        for times_file in "$dir"/*/build-times.tsv; do
            [ -f "$times_file" ] || continue
            awk -F'\t' '{ printf "  layer %s: %s s, %.2f M positions/s\n", $1, $3, $2 / $3 / 1e6 }' "$times_file"
        done
        rm -rf "$dir" "$dir.log"
    done
done
base_median=$(echo "${times[base]}" | tr ' ' '\n' | grep . | median)
new_median=$(echo "${times[new]}" | tr ' ' '\n' | grep . | median)
echo "medians: $base $base_median s, $new $new_median s; ratio $(echo "scale=3; $base_median / $new_median" | bc)"
