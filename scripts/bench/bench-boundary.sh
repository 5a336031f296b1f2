#!/usr/bin/env bash
# Benchmark: the distributed build past 2^31 positions for real. Layer SEEDS
# (default 30: 2.74 G positions) is built by RANKS ranks of 1 thread
# (default 6: the last share starts near position 2.28 G, past 2^31) over
# the single-process tables below it, and by one process of the machine's
# threads; the value and distance tables of both are compared byte for
# byte. Prints each build's wall time and peak resident memory (each rank's
# and the single process's) and the bytes the ranks sent each other.
#
#   scripts/bench/bench-boundary.sh DIR [SEEDS] [RANKS] [RANK_MEMORY] [MEMORY]
#
# DIR/oware-awari must hold layers 0..SEEDS-1 built by one process (build
# them first, outside the repository: `mancala-tb build oware --max-seeds
# 29 --dir DIR`; the build resumes if interrupted). The distributed build
# works in DIR.ranks (hard links of those tables); the single one adds
# layer SEEDS to DIR. RANK_MEMORY (default 3G) is each rank's --memory,
# MEMORY (default 14G) the single process's. BIN, if set, is the binary to
# run (built with `--features mpi`); by default this tree's, built first.
# Needs OpenMPI (README).
set -euo pipefail
dir=$1
seeds=${2:-30}
ranks=${3:-6}
rank_memory=${4:-3G}
memory=${5:-14G}
cd "$(dirname "$0")/../.."
if [[ -z ${BIN:-} ]]; then
    cargo build --release --features mpi --quiet
fi
bin=${BIN:-$PWD/target/release/mancala-tb}
below=$((seeds - 1))
[[ -e $dir/oware-awari/scores.$below.mtb ]] || { echo "no layer $below in $dir/oware-awari" >&2; exit 2; }
ranked=$dir.ranks
mkdir -p "$ranked/oware-awari"
for s in $(seq 0 "$below"); do
    for table in scores distance; do
        ln -f "$dir/oware-awari/$table.$s.mtb" "$ranked/oware-awari/$table.$s.mtb"
    done
done
echo "layer $seeds of awari; $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

start=$(date +%s.%N)
mpirun --allow-run-as-root --oversubscribe -np "$ranks" \
    /usr/bin/time -f "rank peak resident %M KiB" \
    "$bin" build oware --distributed --max-seeds "$seeds" --threads 1 --memory "$rank_memory" \
    --dir "$ranked" >"$ranked.log" 2>&1 || { tail -30 "$ranked.log"; exit 1; }
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v r="$ranks" 'BEGIN { printf "%d ranks x 1 thread: %.0f s wall\n", r, e - s }'
grep "rank peak resident" "$ranked.log" | sed 's/^/    /'
grep "^sent between ranks" "$ranked.log" | sed 's/^/    /' || true

start=$(date +%s.%N)
/usr/bin/time -f "peak resident %M KiB" "$bin" build oware --max-seeds "$seeds" --memory "$memory" \
    --dir "$dir" >"$dir.single.log" 2>&1 || { tail -30 "$dir.single.log"; exit 1; }
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v t="$(nproc)" 'BEGIN { printf "1 process x %d threads: %.0f s wall\n", t, e - s }'
grep "peak resident" "$dir.single.log" | sed 's/^/    /'

for table in scores distance; do
    cmp "$dir/oware-awari/$table.$seeds.mtb" "$ranked/oware-awari/$table.$seeds.mtb"
    echo "identical: $table.$seeds.mtb ($(stat -c %s "$dir/oware-awari/$table.$seeds.mtb") bytes)"
done
