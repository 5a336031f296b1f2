#!/usr/bin/env bash
# Benchmark: one Oware layer built under several memory budgets, side by
# side, from the same finished lower layers: the in-memory engine where the
# budget holds the layer, the out-of-core engine where it does not, with
# the lower layers kept in memory or read from their tables as the budget
# allows. Each run goes through scripts/derive/bench-oware.sh (wall time, rate,
# peak anonymous memory).
#
#   scripts/bench/bench-engines.sh LAYER BUDGET... (e.g. 22 8G 600M 200M)
#
# The lower layers are built once (default budget) in $LOWER (default
# /tmp/bench-engines-lower) and reused by later runs.
set -euo pipefail
layer=$1
shift
cd "$(dirname "$0")/../.."
lower=${LOWER:-/tmp/bench-engines-lower}
cargo build --release --quiet
target/release/mancala-tb build oware --max-seeds $((layer - 1)) --dir "$lower" >/dev/null
for budget in "$@"; do
    dir=$(mktemp -d)
    mkdir "$dir/oware-awari"
    for seeds in $(seq 0 $((layer - 1))); do
        ln -s "$lower/oware-awari/scores.$seeds.mtb" "$dir/oware-awari/"
    done
    echo "== layer $layer, --memory $budget"
    DIR=$dir scripts/derive/bench-oware.sh "$layer" awari "$(nproc)" "$budget" | grep -E "^ *$layer |wall|peak"
    rm -rf "$dir"
done
