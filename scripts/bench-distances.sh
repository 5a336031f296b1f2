#!/usr/bin/env bash
# Benchmark: the distance pass beside the value build of the same layers.
# Builds layers 0..=MAX with distances in a fresh folder, ROUNDS times
# (default 3), and prints per round the value build's time and the distance
# pass's (both as `build oware` reports them: the layers' own times, in the
# same process, so the machine's speed swings alike for both), their ratio,
# and per layer the pass's time, its table's bytes per position and its
# longest line; then the medians. With LOWER set to a tablebase folder
# holding 0..=K, each fresh folder starts with links to its value and
# distance tables, so only the layers above K are timed.
#
#   scripts/bench-distances.sh BIN MAX [ROUNDS]
#   scripts/bench-distances.sh target/release/mancala-tb 20 3
set -euo pipefail
bin=$(realpath "$1") max=$2 rounds=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
values=() distances=() ratios=()
for round in $(seq "$rounds"); do
    dir=$work/$round
    mkdir -p "$dir/oware-awari"
    if [ -n "${LOWER:-}" ]; then
        for f in "$LOWER"/oware-awari/{scores,distance}.*.mtb; do ln -s "$(realpath "$f")" "$dir/oware-awari/"; done
    fi
    out=$("$bin" build oware --max-seeds "$max" --dir "$dir" 2>/dev/null)
    v=$(sed -n 's/^built .* in \([0-9.]*\) s .*/\1/p' <<<"$out")
    d=$(sed -n 's/^distances of .* found in \([0-9.]*\) s$/\1/p' <<<"$out")
    r=$(awk -v v="$v" -v d="$d" 'BEGIN { printf "%.3f", d / v }')
    echo "round $round: values $v s, distances $d s, distances/values $r (load $(cut -d' ' -f1 /proc/loadavg))"
    # The distance pass's lines: a line per layer, then the totals.
    sed -n '/^ *dist  *seconds/,/^distances of/p' <<<"$out"
    values+=("$v") distances+=("$d") ratios+=("$r")
    rm -rf "$dir"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "median: values $(median "${values[@]}") s, distances $(median "${distances[@]}") s, distances/values $(median "${ratios[@]}")"
