#!/usr/bin/env bash
# How stable `plan oware`'s projection is (issue 43): runs it ROUNDS times
# on a quiet machine and ROUNDS times beside LOAD processes that keep a core
# busy each (default: as many as cores), alternating, and prints each run's
# projected time with its spread and the serial shares it took (each with
# the layer of DIR that measured it, or "fitted"); then the largest over
# the smallest projection of each kind.
#
#   [DIR=folder] scripts/bench/plan-stability.sh BIN [ROUNDS LOAD] [-- PLAN ARGS...]
#
# PLAN ARGS default to the workstation's: --max-seeds 48 --memory 64G
# --threads 16 --disk 1.8T; DIR (the folder of recorded builds) defaults to
# an empty one.
set -euo pipefail
bin=$(realpath "$1")
rounds=${2:-3} load=${3:-$(nproc)}
shift $(($# < 3 ? $# : 3))
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--max-seeds 48 --memory 64G --threads 16 --disk 1.8T)
empty=$(mktemp -d)
dir=${DIR:-$empty}
trap 'rm -rf "$empty"; kill $(jobs -p) 2>/dev/null || true' EXIT

# One projection: "seconds low high shares".
project() {
    "$bin" plan oware "${args[@]}" --dir "$dir" --json 2>/dev/null | python3 -c '
import json, sys
p = json.load(sys.stdin)
s = p["assumptions"]["serial_shares"]
on = ["layer %d" % l if l is not None else "fitted" for l in s["measured_on"]]
print("%.0f %.0f %.0f in-memory %.3f (%s) out-of-core %.3f (%s) compact %.3f (%s)" % (
    p["seconds"], p["seconds_spread"][0], p["seconds_spread"][1],
    s["in_memory"], on[0], s["out_of_core"], on[1], s["compact"], on[2]))'
}

quiet=() loaded=()
for round in $(seq "$rounds"); do
    line=$(project)
    echo "round $round quiet: $line"
    quiet+=("${line%% *}")
    pids=()
    for _ in $(seq "$load"); do
        sh -c 'while :; do :; done' &
        pids+=($!)
    done
    line=$(project)
    kill "${pids[@]}"
    wait "${pids[@]}" 2>/dev/null || true
    echo "round $round beside $load busy processes: $line"
    loaded+=("${line%% *}")
done
ratio() { printf '%s\n' "$@" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f", hi / lo }'; }
all=("${quiet[@]}" "${loaded[@]}")
echo "largest/smallest: quiet $(ratio "${quiet[@]}"), loaded $(ratio "${loaded[@]}"), all $(ratio "${all[@]}")"
