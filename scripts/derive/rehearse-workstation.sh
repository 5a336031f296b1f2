#!/usr/bin/env bash
# The workstation's ratio, rehearsed (issue #20): a 64 GB machine building
# layer 48 has about 0.31 bytes a position, page cache included. This builds
# layers FIRST..LAST (default 25..26) from finished layers 0..FIRST-1 twice,
# alternating, ROUNDS times (default 1):
#   - inside a memory cgroup of LIMIT (default 300M), which the kernel
#     charges with the page cache too, with the default budget (the build
#     reads the cgroup's limit);
#   - unconstrained, in memory.
# and prints each build's wall time, the cgroup's peak, the bytes each read
# from and wrote to the disk per position built, its peak resident memory
# (anonymous and mapped pages, not the page cache), and whether the
# tables are identical, and where each build spent its time by phase
# (`build oware --phases`, the layers FIRST..LAST). Needs root (it
# creates the cgroup; v1 or v2).
# Both build values only (`--no-distances`): the rehearsal is of the value
# build, and a workstation's distance passes are the layers' that fit it
# (docs/oware.md, "Distance tables").
#
#   [BIN=binary] scripts/derive/rehearse-workstation.sh LOWER_DIR [FIRST LAST LIMIT ROUNDS]
#
# With 300M both layers are built compact; with 580M or 800M (0.75 or 1.04
# bytes a position of layer 26: the ratios of a 64 GB machine's layers
# 41-44) out of core.
#
# LOWER_DIR holds oware-awari/scores.0..FIRST-1.mtb (build them with
# `mancala-tb build oware --max-seeds FIRST-1 --dir LOWER_DIR`).
set -euo pipefail
lower=$1 first=${2:-25} last=${3:-26} limit=${4:-300M} rounds=${5:-1}
cd "$(dirname "$0")/../.."
# BIN: a binary to rehearse (default: this checkout's, built now).
if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet
fi
bin=$(realpath "${BIN:-target/release/mancala-tb}")
bytes=$(numfmt --from=iec "$limit")

# A fresh folder whose lower layers are links to LOWER_DIR's tables.
fresh() {
    local dir
    dir=$(mktemp -d)
    mkdir "$dir/oware-awari"
    for seeds in $(seq 0 $((first - 1))); do
        ln -s "$(realpath "$lower/oware-awari/scores.$seeds.mtb")" "$dir/oware-awari/"
    done
    echo "$dir"
}

# The cgroup: v2 if the unified hierarchy has the memory controller.
if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
    group=/sys/fs/cgroup/mtb-rehearsal
    mkdir -p "$group"
    echo "$bytes" >"$group/memory.max"
    peak_file=$group/memory.peak
else
    group=/sys/fs/cgroup/memory/mtb-rehearsal
    mkdir -p "$group"
    echo "$bytes" >"$group/memory.limit_in_bytes"
    echo 0 >"$group/memory.max_usage_in_bytes"
    peak_file=$group/memory.max_usage_in_bytes
fi
trap 'rmdir "$group" 2>/dev/null || true' EXIT

# The bytes a build read from and wrote to the disk (not the page cache),
# per position of the layers built, from /usr/bin/time's 512-byte blocks.
# Layer n's positions: C(n+11, 11) − C(n+5, 11).
binomial() { local n=$1 k=$2 r=1 i; for ((i = 1; i <= k; i++)); do r=$((r * (n - k + i) / i)); done; echo $r; }
positions=0
for ((s = first; s <= last; s++)); do
    positions=$((positions + $(binomial $((s + 11)) 11) - $( [ $((s + 5)) -ge 11 ] && binomial $((s + 5)) 11 || echo 0)))
done
disk_io() {
    awk -v p="$positions" '{ printf "disk read %.2f B, written %.2f B a position, max RSS %.0f MiB", $1 * 512 / p, $2 * 512 / p, $3 / 1024 }' "$1"
}

# The phase lines of a summary, of the layers FIRST..LAST.
phases() {
    awk -v f="$first" -v l="$last" '/^phases/ { on = 1 } on && ($2 >= f && $2 <= l || $1 == "phase")' "$1"
}

for round in $(seq "$rounds"); do
    limited=$(fresh) roomy=$(fresh)
    [ -f "$group/memory.max_usage_in_bytes" ] && echo 0 >"$group/memory.max_usage_in_bytes"
    start=$(date +%s.%N)
    # The build joins the cgroup before it starts, so its page cache is
    # charged there from its first read.
    sh -c "echo \$\$ >$group/cgroup.procs && exec /usr/bin/time -o $limited/io -f '%I %O %M' $bin build oware --max-seeds $last --dir $limited --no-distances --phases" \
        >"$limited/summary" 2>&1
    end=$(date +%s.%N)
    echo "round $round: in $limit: $(echo "$end - $start" | bc) s, peak $(numfmt --to=iec <"$peak_file")B, $(disk_io "$limited/io")"
    # The layers' lines of the summary: time, rate, engine, memory.
    awk -v f="$first" -v l="$last" '$1 >= f && $1 <= l && $6 != "built"' "$limited/summary"
    phases "$limited/summary"
    start=$(date +%s.%N)
    /usr/bin/time -o "$roomy/io" -f '%I %O %M' "$bin" build oware --max-seeds "$last" --dir "$roomy" --engine in-memory --no-distances --phases >"$roomy/summary" 2>&1
    end=$(date +%s.%N)
    echo "round $round: unconstrained, in memory: $(echo "$end - $start" | bc) s, $(disk_io "$roomy/io")"
    phases "$roomy/summary"
    for seeds in $(seq "$first" "$last"); do
        cmp "$limited/oware-awari/scores.$seeds.mtb" "$roomy/oware-awari/scores.$seeds.mtb" \
            && echo "layer $seeds: tables identical"
    done
    rm -rf "$limited" "$roomy"
done
