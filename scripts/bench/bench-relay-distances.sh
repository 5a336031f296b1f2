#!/usr/bin/env bash
# Benchmark: the distance tables of the explicit engine's score tables.
# Builds one table (or layer range) from scratch with BASE (a binary from
# before distance tables), NEW and NEW --no-distances, alternating, ROUNDS
# times, each in a fresh folder; then adds the distance tables to a
# values-only folder by a rerun, and verifies with and without them.
# Prints every run's wall time with the load average, the medians, and the
# sizes of the value and distance tables in bytes per position.
#
#   scripts/bench/bench-relay-distances.sh BASE NEW ROUNDS -- ARGS...
#   scripts/bench/bench-relay-distances.sh /tmp/mtb-base target/release/mancala-tb 3 -- \
#       omweso --width 4 --seeds 12 --objective points
#
# ARGS are the `build` arguments without `--dir`; `verify` gets the same
# (En Gehé: `--max-seeds` for both).
set -euo pipefail
base=$(realpath "$1") new=$(realpath "$2") rounds=$3
shift 3
[ "${1:-}" = "--" ] || { echo "usage: $0 BASE NEW ROUNDS -- ARGS..." >&2; exit 2; }
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
timed() {
    local start end
    start=$(date +%s.%N)
    "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

declare -A times
for round in $(seq "$rounds"); do
    for which in base new values-only; do
        dir=$work/$which-$round
        case $which in
            base) s=$(timed "$base" build "$@" --dir "$dir") ;;
            new) s=$(timed "$new" build "$@" --dir "$dir") ;;
            values-only) s=$(timed "$new" build "$@" --no-distances --dir "$dir") ;;
        esac
        times[$which]+="$s "
        echo "round $round $which: $s s, load $(cut -d' ' -f1 /proc/loadavg)"
    done
    # Distances added beside values built without them.
    s=$(timed "$new" build "$@" --dir "$work/values-only-$round")
    times[added]+="$s "
    echo "round $round adding the distances to values-only: $s s, load $(cut -d' ' -f1 /proc/loadavg)"
done
for which in base new values-only added; do
    echo "median $which: $(echo "${times[$which]}" | tr ' ' '\n' | grep . | median) s"
done

for which in base-1 new-1; do
    s=$(timed "$new" verify "$@" --dir "$work/$which")
    echo "verify $which (with the new binary): $s s"
done

# Sizes from `info`: its last columns are positions, bytes, bits/pos,
# encoding, coding, checksums.
"$new" info --dir "$work/new-1" | awk 'NR > 1 {
        kind = ($(NF - 2) == "distance") ? "distance" : "value"
        pos[kind] += $(NF - 5); bytes[kind] += $(NF - 4)
    }
    END { for (k in pos) printf "%s tables: %d bytes for %d positions, %.4f bytes/position\n", k, bytes[k], pos[k], bytes[k] / pos[k] }'
