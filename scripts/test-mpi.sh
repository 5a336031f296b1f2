#!/usr/bin/env bash
# The MPI tests: distributed builds with 1, 2 and 3 ranks up to 14 seeds,
# both rulesets, each table compared byte for byte with the single-process
# build's; then a 2-rank build in which one rank is killed in the middle of
# a layer: mpirun must fail, no table of that layer may exist, and the rerun
# must finish with identical tables. Needs OpenMPI (README, "Distributed
# builds"); runs as root with --allow-run-as-root (CI). Last, a bad argument
# must be reported once, not once per rank.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --features mpi --quiet
bin=$PWD/target/release/mancala-tb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpirun=(mpirun --allow-run-as-root --oversubscribe)

# Every table of $2 equals the same table of $1 (and $2 has them all up to $3).
same_tables() {
    local reference=$1 built=$2 max=$3 rules=$4
    for seeds in $(seq 0 "$max"); do
        cmp "$reference/oware-$rules/scores.$seeds.mtb" "$built/oware-$rules/scores.$seeds.mtb"
    done
}

for rules in awari abapa; do
    "$bin" build oware --rules "$rules" --max-seeds 16 --dir "$work/single" >/dev/null 2>&1
    for ranks in 1 2 3; do
        "${mpirun[@]}" -np "$ranks" "$bin" build oware --distributed --rules "$rules" \
            --max-seeds 14 --threads 1 --dir "$work/np$ranks" >"$work/np$ranks.log" 2>&1 \
            || { cat "$work/np$ranks.log"; exit 1; }
        same_tables "$work/single" "$work/np$ranks" 14 "$rules"
        echo "ok: $rules, $ranks ranks: layers 0..=14 identical to the single-process build"
    done
done

# Kill rank 1 while layer 16 is being built.
killed=$work/killed
"${mpirun[@]}" -np 2 "$bin" build oware --distributed --max-seeds 16 --threads 1 \
    --dir "$killed" >"$work/killed.log" 2>&1 &
mpirun_pid=$!
until [[ -e $killed/oware-awari/scores.15.mtb ]]; do
    kill -0 "$mpirun_pid" 2>/dev/null || { cat "$work/killed.log"; echo "the build ended early"; exit 1; }
    sleep 0.2
done
sleep 0.5
victim=$(pgrep -f "mancala-tb build oware --distributed --max-seeds 16" | sort -n | tail -1)
kill -9 "$victim"
if wait "$mpirun_pid"; then
    echo "mpirun succeeded although a rank was killed"
    exit 1
fi
echo "killed rank $victim; mpirun said:"
grep -v '^\s*$' "$work/killed.log" | grep -iv "^ *[0-9]\+ \|layer\|building\|memory" | head -8 | sed 's/^/    /'
if [[ -e $killed/oware-awari/scores.16.mtb ]]; then
    echo "a table of the interrupted layer exists"
    exit 1
fi
same_tables "$work/single" "$killed" 15 awari
"${mpirun[@]}" -np 2 "$bin" build oware --distributed --max-seeds 16 --threads 1 \
    --dir "$killed" >"$work/rerun.log" 2>&1 || { cat "$work/rerun.log"; exit 1; }
same_tables "$work/single" "$killed" 16 awari
echo "ok: a rank killed in layer 16 fails the build; the rerun gives identical tables"

# A bad command line is reported once, not once per rank.
if "${mpirun[@]}" -np 2 "$bin" build oware --distributed --no-such-flag >"$work/bad.log" 2>&1; then
    echo "mpirun succeeded with a bad argument"
    exit 1
fi
if [[ $(grep -c "unexpected argument" "$work/bad.log") != 1 ]]; then
    cat "$work/bad.log"
    exit 1
fi
echo "ok: a bad argument is reported once"
