#!/usr/bin/env bash
# Memory and I/O of one layer's build by each engine outside memory:
# rebuilds layer N of DIR (layers 0..N-1 built there) with the out-of-core
# and the compact engine in turn, each at the least budget it accepts (so
# the lower layers are read from their tables), and prints the wall time,
# the peak anonymous memory (what the budget counts; the tables' pages are
# mapped from the page cache), and the bytes read and written per position
# of the layer (read(2) and write(2): the scratch files, and the table
# written; the tables read are mapped). The tables must be identical.
# Usage: scripts/derive/engine-footprint.sh DIR N [RULES]
set -euo pipefail
dir=$1 seeds=$2 rules=${3:-awari}
bin=${BIN:-target/release/mancala-tb}
folder=$dir/oware-$rules
# The layer's size: C(n+11, 11) - C(n+5, 11), the published index.
positions=$(python3 -c "from math import comb; print(comb($seeds + 11, 11) - comb($seeds + 5, 11))")
for engine in out-of-core compact; do
    rm -f "$folder/scores.$seeds.mtb"
    # The least budget: the error of a budget of 1 byte names it.
    least=$("$bin" build oware --rules "$rules" --max-seeds "$seeds" --dir "$dir" --engine "$engine" \
        --memory 1 2>&1 | sed -n 's/.*needs at least \([0-9.]*\) \([KMG]\)iB.*/\1\2/p' || true)
    memory=$(python3 -c "import sys; v,u=float('$least'[:-1]),'$least'[-1]; print(int(v*{'K':1<<10,'M':1<<20,'G':1<<30}[u])+(8<<20))")
    start=$(date +%s.%N)
    "$bin" build oware --rules "$rules" --max-seeds "$seeds" --dir "$dir" --engine "$engine" \
        --memory "$memory" --lower-cache 0 2>/dev/null &
    pid=$!
    peak=0 io=""
    while kill -0 $pid 2>/dev/null; do
        rss=$(awk '/RssAnon/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)
        [ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
        io=$(cat /proc/$pid/io 2>/dev/null || echo "$io")
        sleep 0.2
    done
    wait $pid
    end=$(date +%s.%N)
    read_bytes=$(echo "$io" | awk '/^rchar/ {print $2}')
    written=$(echo "$io" | awk '/^wchar/ {print $2}')
    python3 - "$engine" "$least" "$start" "$end" "$peak" "$read_bytes" "$written" "$positions" <<'PY'
import sys
e, least, s, t, peak, r, w, n = sys.argv[1:]
n = int(n)
print(f"{e:12} budget {least:>9} +8M  {float(t)-float(s):7.1f} s  peak {int(peak)/1024:7.1f} MiB "
      f"({int(peak)*1024/n:.3f} B/position)  read {int(r)/n:.2f} B/position  written {int(w)/n:.2f} B/position")
PY
    md5sum "$folder/scores.$seeds.mtb"
done
