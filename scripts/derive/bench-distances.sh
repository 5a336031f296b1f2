#!/usr/bin/env bash
# Benchmark: what finding the distances adds to a build. Builds layers
# 0..=MAX in fresh folders with BIN, with the distances (the default) and
# without (`--no-distances`), and with BASE without them if BASE is set,
# ROUNDS times (default 3), the order rotated every round. Each time is the
# build's own ("built ... in" plus any distance passes), so other layers'
# and processes' work counts alike. Prints per round the times and the
# ratios (the distances' extra over the values-only build; BIN's values-only
# build over BASE's), the distance lines of the first round (per layer how
# they were found, the table's bytes per position, the longest line), then
# the medians.
#
# With LOWER set to a tablebase folder holding 0..=K with their distance
# tables, each fresh folder starts with links to its tables, so only the
# layers above K are built and timed.
#
#   scripts/derive/bench-distances.sh BIN MAX [ROUNDS]
#   BASE=/tmp/mtb-main scripts/derive/bench-distances.sh target/release/mancala-tb 20 3
#   LOWER=/work/l25 scripts/derive/bench-distances.sh target/release/mancala-tb 26 3
set -euo pipefail
bin=$(realpath "$1") max=$2 rounds=${3:-3}
base=${BASE:+$(realpath "$BASE")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Builds with binary $1 and options $2..; prints its seconds, and keeps its
# output in $work/out.
build() {
    local bin=$1 dir=$work/dir
    shift
    rm -rf "$dir"
    mkdir -p "$dir/oware-awari"
    if [ -n "${LOWER:-}" ]; then
        for f in "$LOWER"/oware-awari/{scores,distance}.*.mtb; do
            ln -s "$(realpath "$f")" "$dir/oware-awari/"
        done
    fi
    "$bin" build oware --max-seeds "$max" --dir "$dir" "$@" 2>/dev/null >"$work/out"
    rm -rf "$dir"
    awk '/^built .* in [0-9.]+ s/ { for (i = 1; i < NF; i++) if ($(i + 1) == "s") { v = $i; break } }
         /^distances of .* by passes in/ { for (i = 1; i < NF; i++) if ($i == "in") p = $(i + 1) }
         END { printf "%.2f", v + p }' "$work/out"
}

runs=(with without)
[ -n "$base" ] && runs+=(base)
declare -A times=()
extras=() slowdowns=()
for round in $(seq "$rounds"); do
    # Rotate the order: each setting runs first in some round.
    shift_by=$(((round - 1) % ${#runs[@]}))
    order=("${runs[@]:shift_by}" "${runs[@]:0:shift_by}")
    for run in "${order[@]}"; do
        case $run in
            with) times[$run]=$(build "$bin")
                  [ "$round" -eq 1 ] && sed -n '/^ *dist  *found/,/^distances of/p' "$work/out" >"$work/lines" ;;
            without) times[$run]=$(build "$bin" --no-distances) ;;
            base) times[$run]=$(build "$base" --no-distances) ;;
        esac
    done
    extra=$(awk -v w="${times[with]}" -v o="${times[without]}" 'BEGIN { printf "%.3f", (w - o) / o }')
    extras+=("$extra") with+=("${times[with]}") without+=("${times[without]}")
    line="round $round: with distances ${times[with]} s, without ${times[without]} s, extra/values $extra"
    if [ -n "$base" ]; then
        slowdown=$(awk -v o="${times[without]}" -v b="${times[base]}" 'BEGIN { printf "%.3f", o / b }')
        slowdowns+=("$slowdown") bases+=("${times[base]}")
        line+=", BASE without ${times[base]} s, BIN/BASE without $slowdown"
    fi
    echo "$line (load $(cut -d' ' -f1 /proc/loadavg))"
done
cat "$work/lines"
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
line="median: with distances $(median "${with[@]}") s, without $(median "${without[@]}") s, extra/values $(median "${extras[@]}")"
[ -n "$base" ] && line+=", BASE without $(median "${bases[@]}") s, BIN/BASE without $(median "${slowdowns[@]}")"
echo "$line"
