#!/usr/bin/env bash
# The MPI tests, over real OpenMPI: distributed builds with 1, 2, 3 and 4
# ranks up to 14 seeds, both rulesets, each number of ranks once with the
# default message bound and once with messages of 4 KiB; every value and
# distance table compared byte for byte with the single-process build's,
# and `verify` run on each folder.
# Then a 2-rank build with checkpoints every second in which one rank is
# killed (kill -9) in the middle of a layer: mpirun must fail, no table of
# that layer may exist, a rerun with 3 ranks is refused, and the rerun with
# 2 resumes from the checkpoint and gives identical tables. Then a disk
# that fills up while a table is written (as root: a tmpfs): every rank
# stops, nothing of the layer is left, the rerun resumes. Last, a bad
# argument must be reported once, not once per rank. Needs OpenMPI (README,
# "Distributed builds"); runs as root with --allow-run-as-root (CI).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --features mpi --quiet
bin=$PWD/target/release/mancala-tb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpirun=(mpirun --allow-run-as-root --oversubscribe)

# Every value and distance table of $2 equals the same table of $1, layers 0..=$3.
same_tables() {
    local reference=$1 built=$2 max=$3 rules=$4
    for seeds in $(seq 0 "$max"); do
        for table in scores distance; do
            cmp "$reference/oware-$rules/$table.$seeds.mtb" "$built/oware-$rules/$table.$seeds.mtb"
        done
    done
}

# Each ruleset with 1 to 4 ranks; the message bound alternates, so that each
# number of ranks runs with each bound once.
bounds=(256M 4K)
turn=0
for rules in awari abapa; do
    turn=$((1 - turn))
    max=$([[ $rules == awari ]] && echo 18 || echo 14)
    "$bin" build oware --rules "$rules" --max-seeds "$max" --dir "$work/single" >/dev/null 2>&1
    for ranks in 1 2 3 4; do
        for message in "${bounds[(ranks + turn) % 2]}"; do
            built=$work/np$ranks-$message
            "${mpirun[@]}" -np "$ranks" "$bin" build oware --distributed --rules "$rules" \
                --max-seeds 14 --threads 1 --message-size "$message" --dir "$built" \
                >"$built.log" 2>&1 || { cat "$built.log"; exit 1; }
            same_tables "$work/single" "$built" 14 "$rules"
            "$bin" verify oware --rules "$rules" --dir "$built" >"$built.verify" 2>&1 \
                || { cat "$built.verify"; exit 1; }
            rm -rf "$built"
            echo "ok: $rules, $ranks ranks, messages of $message: values and distances of 0..=14 identical, verified"
        done
    done
done

# Copies the single-process tables of layers 0..=$2 into folder $1: the
# distributed build there starts at the layer above.
lower_tables() {
    mkdir -p "$1/oware-awari"
    for seeds in $(seq 0 "$2"); do
        cp "$work/single/oware-awari/"{scores,distance}."$seeds".mtb "$1/oware-awari/"
    done
}

# Kill rank 1 while layer 18 is being built, once both ranks have saved a
# checkpoint of it.
killed=$work/killed
lower_tables "$killed" 17
command=(build oware --distributed --max-seeds 18 --threads 1 --checkpoint-every 1 --dir "$killed")
"${mpirun[@]}" -np 2 "$bin" "${command[@]}" >"$work/killed.log" 2>&1 &
mpirun_pid=$!
scratch=$killed/oware-awari/build.18
until compgen -G "$scratch/*rank0-of-2.next*[0-9]" >/dev/null && compgen -G "$scratch/*rank1-of-2.next*[0-9]" >/dev/null; do
    kill -0 "$mpirun_pid" 2>/dev/null || { cat "$work/killed.log"; echo "the build ended before a checkpoint of layer 18"; exit 1; }
    sleep 0.2
done
victim=$(pgrep -f "mancala-tb build oware --distributed --max-seeds 18" | sort -n | tail -1)
kill -9 "$victim"
if wait "$mpirun_pid"; then
    echo "mpirun succeeded although a rank was killed"
    exit 1
fi
echo "killed rank $victim in layer 18; mpirun said:"
grep -v '^\s*$' "$work/killed.log" | grep -iv "^ *[0-9]\+ \|layer\|building\|memory" | head -8 | sed 's/^/    /'
if [[ -e $killed/oware-awari/scores.18.mtb ]]; then
    echo "a table of the interrupted layer exists"
    exit 1
fi
same_tables "$work/single" "$killed" 17 awari
# Another number of ranks cannot resume it.
if "${mpirun[@]}" -np 3 "$bin" "${command[@]}" >"$work/other.log" 2>&1; then
    echo "a resume with 3 ranks of a layer saved by 2 succeeded"
    exit 1
fi
grep -q "saved by a build of 2 ranks" "$work/other.log" || { cat "$work/other.log"; exit 1; }
echo "ok: a resume with 3 ranks is refused: $(grep -m1 -o 'its checkpoints were saved by a build of 2 ranks[^;]*' "$work/other.log")"
"${mpirun[@]}" -np 2 "$bin" "${command[@]}" >"$work/rerun.log" 2>&1 || { cat "$work/rerun.log"; exit 1; }
grep -q "layer 18: resuming from its checkpoint" "$work/rerun.log" || { cat "$work/rerun.log"; echo "the rerun did not resume layer 18"; exit 1; }
same_tables "$work/single" "$killed" 18 awari
"$bin" verify oware --dir "$killed" >/dev/null 2>&1
echo "ok: a rank killed in layer 18 fails the build; the rerun resumes from the checkpoint and gives identical tables"

# A full disk: the shared folder is a tmpfs, filled up as soon as
# rank 0 starts writing the table of layer 16. Every rank stops, one
# naming the disk, no temporary file of layer 16 is left, and once there is room the
# rerun keeps the layers built and gives identical tables. Mounting needs
# root (CI).
if [[ $(id -u) == 0 ]]; then
    full=$work/full
    mkdir -p "$full"
    mount -t tmpfs -o size=256M tmpfs "$full"
    trap 'umount "$full" 2>/dev/null || true; rm -rf "$work"' EXIT
    lower_tables "$full" 14
    command=(build oware --distributed --max-seeds 16 --threads 1 --dir "$full")
    "${mpirun[@]}" -np 2 "$bin" "${command[@]}" >"$work/full.log" 2>&1 &
    mpirun_pid=$!
    until [[ -e $full/oware-awari/scores.16.mtb.tmp ]]; do
        kill -0 "$mpirun_pid" 2>/dev/null || { cat "$work/full.log"; echo "the build ended before layer 16's table"; exit 1; }
        sleep 0.01
    done
    dd if=/dev/zero of="$full/filler" bs=64K 2>/dev/null || true
    if wait "$mpirun_pid"; then
        echo "a build on a full disk succeeded"
        exit 1
    fi
    grep -q "No space left on device" "$work/full.log" || { cat "$work/full.log"; exit 1; }
    # A table finished before the disk filled (the values, when the distance
    # table is the one cut short) is whole; no temporary file may be left.
    if compgen -G "$full/oware-awari/*.16.mtb.tmp*" >/dev/null; then
        ls -l "$full/oware-awari"
        echo "a temporary file of layer 16 was left on the full disk"
        exit 1
    fi
    same_tables "$work/single" "$full" 15 awari
    kept=$(stat -c %Y.%y "$full/oware-awari/scores.15.mtb")
    rm "$full/filler"
    "${mpirun[@]}" -np 2 "$bin" "${command[@]}" >"$work/full-rerun.log" 2>&1 || { cat "$work/full-rerun.log"; exit 1; }
    [[ $(stat -c %Y.%y "$full/oware-awari/scores.15.mtb") == "$kept" ]] || { echo "layer 15 was built again"; exit 1; }
    same_tables "$work/single" "$full" 16 awari
    echo "ok: a full disk stops every rank, the rerun resumes: $(grep -m1 -o 'error: rank [0-9] of 2: .*No space left on device' "$work/full.log")"
    umount "$full"
else
    echo "skipped: the full-disk test mounts a tmpfs, which needs root"
fi

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
