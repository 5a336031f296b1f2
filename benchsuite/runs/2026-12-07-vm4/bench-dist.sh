#!/usr/bin/env bash
# awari 0..=22: main before this session (1d42716: the layer gathered on rank 0)
# against the new distributed build, 2 ranks x 1 thread, alternating, and the
# new one at 4 ranks x 1 thread and 1 process x 2 threads.
set -euo pipefail
old=/work/bin/mtb-main-mpi new=/work/bin/mtb-new max=22
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mpirun=(mpirun --allow-run-as-root --oversubscribe)
run() { # name, command...
    local name=$1; shift
    rm -rf "$work/d"
    local s e; s=$(date +%s.%N)
    "$@" --dir "$work/d" > "$work/out" 2>&1 || { tail "$work/out"; exit 1; }
    e=$(date +%s.%N)
    printf "%-26s %7.1f s  %s\n" "$name" "$(echo "$e - $s" | bc)" "$(grep -h '^sent between ranks' "$work/out" | tr '\n' ' ')"
}
echo "awari 0..=$max, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in 1 2; do
    run "old 2 ranks x 1" "${mpirun[@]}" -np 2 $old build oware --distributed --max-seeds $max --threads 1
    run "new 2 ranks x 1" "${mpirun[@]}" -np 2 $new build oware --distributed --max-seeds $max --threads 1
    run "new 2 ranks x 1 nodist" "${mpirun[@]}" -np 2 $new build oware --distributed --max-seeds $max --threads 1 --no-distances
    run "new 1 process x 2" $new build oware --max-seeds $max --threads 2
done
run "new 4 ranks x 1" "${mpirun[@]}" -np 4 $new build oware --distributed --max-seeds $max --threads 1
