#!/usr/bin/env bash
# Benchmark: how one Oware layer's build scales with threads.
# Builds awari 0..=LAYER-1 once (every core), then builds layer LAYER alone
# on those lower tables with each engine and each thread count, in a fresh
# folder each time, ROUNDS times (the order of the thread counts reversed
# every round). Prints each run's layer time (from the build's
# build-times.tsv) and wall time, then per engine and thread count the
# median layer time, M positions/s, the speed-up over the fewest threads and
# the efficiency (speed-up / threads), and per engine the serial share of
# Amdahl's law fitted to the medians (`Engine::serial_share`). Every run's table must be
# byte-identical to the first run's, or the script fails.
#
# The engines build values only (`--no-distances`). The engine name
# `in-memory-distances` is the in-memory engine finding the distances as it
# builds the layer; `distances` times the distance pass instead: layer
# LAYER's values built once (in memory), then each run adds its distance
# table alone (the lower layers have theirs), timed as the build reports
# it. Both write the same distance table, which must be byte-identical too.
#
#   scripts/derive/thread-scaling.sh BIN LAYER "ENGINES" "THREADS" [ROUNDS]
#   scripts/derive/thread-scaling.sh target/release/mancala-tb 22 "in-memory in-memory-distances compact distances" "1 2 4 8 16" 1
#
# WORK (default /tmp/thread-scaling) holds the folders; RUN_LIMIT (seconds,
# default 600) stops a run that takes longer, which is then reported and
# left out of the summary.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 BIN LAYER \"ENGINES\" \"THREADS\" [ROUNDS]" >&2; exit 2; }
bin=$(realpath "$1") layer=$2 engines=$3 threads=$4 rounds=${5:-1}
work=${WORK:-/tmp/thread-scaling}
limit=${RUN_LIMIT:-600}
mkdir -p "$work"

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
# A fresh folder (printed) whose layers are links to those of $1.
linked() {
    local dir
    dir=$(mktemp -d -p "$work")
    mkdir "$dir/oware-awari"
    ln -s "$1"/oware-awari/*.mtb "$dir/oware-awari/"
    echo "$dir"
}

# The lower layers with their distance tables (a rerun on an older folder
# adds them), and for `distances` the layer's values.
lower=$work/lower
if [ ! -f "$lower/oware-awari/distance.$((layer - 1)).mtb" ]; then
    start=$(date +%s.%N)
    "$bin" build oware --max-seeds $((layer - 1)) --dir "$lower" >"$work/lower.log" 2>&1 \
        || { cat "$work/lower.log" >&2; exit 1; }
    echo "lower layers 0..=$((layer - 1)): $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s on $(nproc) threads"
fi
values=$work/values-$layer
if [[ " $engines " == *" distances "* && ! -f "$values/oware-awari/scores.$layer.mtb" ]]; then
    rm -rf "$values"
    mv "$(linked "$lower")" "$values"
    "$bin" build oware --max-seeds "$layer" --engine in-memory --no-distances --dir "$values" \
        >"$work/values.log" 2>&1 || { cat "$work/values.log" >&2; exit 1; }
fi

declare -A reference=()
results=$work/results.tsv
: >"$results"
for round in $(seq "$rounds"); do
    order=$threads
    [ $((round % 2)) -eq 0 ] && order=$(echo "$threads" | tr ' ' '\n' | tac | tr '\n' ' ')
    for engine in $engines; do
        for t in $order; do
            case $engine in
                distances) dir=$(linked "$values") table=distance args=() ;;
                in-memory-distances) dir=$(linked "$lower") table=distance args=(--engine in-memory) ;;
                *) dir=$(linked "$lower") table=scores args=(--engine "$engine" --no-distances) ;;
            esac
            start=$(date +%s.%N)
            if ! timeout "$limit" "$bin" build oware --max-seeds "$layer" "${args[@]}" \
                --threads "$t" --dir "$dir" >"$dir.log" 2>&1; then
                echo "round $round $engine $t threads: failed or over ${limit} s"; tail -3 "$dir.log"
                rm -rf "$dir" "$dir.log"; continue
            fi
            wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
            if [ "$engine" = distances ]; then
                positions=$(awk -F'\t' -v n="$layer" '$1 == n { print $2 }' "$values/oware-awari/build-times.tsv")
                seconds=$(sed -n 's/^distances of .* by passes in \([0-9.]*\) s.*$/\1/p' "$dir.log")
            else
                read -r positions seconds < <(awk -F'\t' -v n="$layer" '$1 == n { print $2, $3 }' "$dir/oware-awari/build-times.tsv")
            fi
            sum=$(md5sum <"$dir/oware-awari/$table.$layer.mtb" | cut -d' ' -f1)
            [ -n "${reference[$table]:-}" ] || reference[$table]=$sum
            [ "$sum" = "${reference[$table]}" ] || { echo "round $round $engine $t threads: table differs ($sum, first run ${reference[$table]})" >&2; exit 1; }
            printf '%s\t%s\t%s\t%s\n' "$engine" "$t" "$seconds" "$positions" >>"$results"
            echo "round $round $engine $t threads: layer $layer $seconds s, wall $wall s, load $(cut -d' ' -f1 /proc/loadavg)"
            rm -rf "$dir" "$dir.log"
        done
    done
done

echo "layer $layer, medians over $rounds round(s); tables byte-identical across all runs"
printf 'engine\tthreads\tseconds\tM pos/s\tspeed-up\tefficiency\n'
for engine in $engines; do
    awk -F'\t' -v e="$engine" '$1 == e' "$results" | sort -t$'\t' -k2,2n -k3,3n | awk -F'\t' -v e="$engine" '
        { runs[$2] = runs[$2] " " $3; count[$2]++; positions = $4; if (!($2 in seen)) { order[++n] = $2; seen[$2] = 1 } }
        END {
            for (i = 1; i <= n; i++) {
                t = order[i]; split(substr(runs[t], 2), v, " "); c = count[t]
                m = (c % 2) ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
                if (i == 1) { base = m; base_t = t }
                speedup = base / m
                printf "%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\n", e, t, m, positions / m / 1e6, speedup, speedup / (t / base_t)
                x[i] = 1 / t; y[i] = m; sx += x[i]; sy += y[i]
            }
            # Amdahl: T(t) = a + b / t by least squares; the serial share
            # is a / (a + b), what `Engine::serial_share` holds.
            if (n >= 2) {
                mx = sx / n; my = sy / n
                for (i = 1; i <= n; i++) { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) ^ 2 }
                b = sxy / sxx; a = my - b * mx
                printf "%s\tserial share (Amdahl, least squares)\t%.3f\n", e, a / (a + b)
            }
        }'
done
