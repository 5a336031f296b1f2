#!/usr/bin/env bash
# A benchmark run, recorded: runs COMMAND from the repository root and keeps
# its raw output in benchsuite/runs/<date>-<MACHINE>/<NAME>.txt, headed by
# the date, the commit (and whether the tree was clean), the machine (cores,
# CPU, memory) and the load average before it. The folder's README.md lists
# each run's command; write its summary there by hand, with the figures it
# is taken from. A run's folder is not edited once its day is over: later
# figures go into a new run (docs/benchmarks.md points at the latest).
#
#   scripts/tools/record-run.sh MACHINE NAME -- COMMAND...
#   scripts/tools/record-run.sh vm2 build-20 -- scripts/tools/side-by-side.sh 7b4d242 house 3 -- build oware --max-seeds 20
set -euo pipefail
[ $# -ge 4 ] && [ "$3" = "--" ] || { echo "usage: $0 MACHINE NAME -- COMMAND..." >&2; exit 2; }
machine=$1 name=$2
shift 3
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
dir=benchsuite/runs/$(date +%F)-$machine
mkdir -p "$dir"
out=$dir/$name.txt
[ -e "$out" ] && { echo "$out exists: choose another NAME" >&2; exit 2; }
{
    echo "# $name"
    echo "date: $(date -Iseconds)"
    echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (uncommitted changes)')"
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(free -g | awk '/^Mem:/ { print $2 " GiB" }')"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "command: $*"
    echo
} >"$out"
if [ ! -e "$dir/README.md" ]; then
    printf '# %s, %s\n\nMachine: %s.\n\n## Runs\n\n' "$(date +%F)" "$machine" \
        "$(sed -n 's/^machine: //p' "$out")" >"$dir/README.md"
fi
printf -- '- `%s.txt`: `%s`\n' "$name" "$*" >>"$dir/README.md"
"$@" 2>&1 | tee -a "$out"
echo "recorded in $out; summarise it in $dir/README.md" >&2
