#!/usr/bin/env bash
# Whether two mancala-tb binaries write the same tables: runs the same
# build command with each in a fresh folder and compares every value table
# (`scores.N.mtb` and the explicit engine's `*.mtb` alike; distance tables
# only where both wrote them) byte for byte. Prints one line per table
# compared and fails at the first difference or if either wrote none.
#
#   scripts/tools/same-tables.sh BIN_A BIN_B ARGS...
#   scripts/tools/same-tables.sh base/mancala-tb new/mancala-tb build oware --max-seeds 18
#
# ARGS is the command line without `--dir`, which the script adds.
set -euo pipefail
a=$1 b=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$a" "$@" --dir "$work/a" >"$work/a.log" 2>&1 || { cat "$work/a.log" >&2; exit 1; }
"$b" "$@" --dir "$work/b" >"$work/b.log" 2>&1 || { cat "$work/b.log" >&2; exit 1; }
count=0
while IFS= read -r table; do
    [ -f "$work/b/$table" ] || continue
    cmp "$work/a/$table" "$work/b/$table"
    echo "identical: $table"
    count=$((count + 1))
done < <(cd "$work/a" && find . -name '*.mtb' | sort)
[ "$count" -gt 0 ] || { echo "no table to compare" >&2; exit 1; }
echo "$count tables identical: $*"
