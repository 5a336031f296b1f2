#!/usr/bin/env bash
# The Python package (python/): installs it as a user does, `pip install
# ./python`, in a fresh virtual environment with the test tools and
# OpenSpiel, then runs its tests (python/tests), which build small tables
# with the debug binary and compare the package's answers with its `probe`;
# and checks the type stubs against the module (mypy's stubtest).
# The package builds in the repository's target/ folder, where `cargo
# build --release` has already compiled the dependencies they share.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
"${pip[@]}" maturin numpy pytest open_spiel mypy
CARGO_TARGET_DIR=$PWD/target "${pip[@]}" ./python
(cd "$venv" && bin/python -m mypy.stubtest mancala_tb._native && bin/python -m mypy -p mancala_tb)
MANCALA_TB=$PWD/target/debug/mancala-tb "$venv/bin/python" -m pytest -q python/tests
