#!/usr/bin/env bash
# The test command: the Rust tests, then the Python package's tests.
#
#   scripts/test.sh            everything (what CI runs)
#   scripts/test.sh --python   the Python half only
#
# Needs Rust (cargo) and Python 3.11 or later, nothing else. The Python half
# makes a virtual environment in .venv (kept between runs; delete it to
# start afresh), installs maturin, pytest, numpy, open-spiel and ray from
# PyPI into it, builds and installs the package from ./python, and runs
# pytest over python/tests (docstring and docs/python.md examples included)
# with every test required to run: none is skipped for a missing OpenSpiel
# or Ray. Rust-only users need none of it: `cargo test --workspace
# --release` is the Rust half. Each phase's wall time is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
command -v cargo >/dev/null || { echo "scripts/test.sh: cargo is not on PATH (install Rust with rustup)" >&2; exit 2; }
command -v "$PYTHON" >/dev/null || { echo "scripts/test.sh: $PYTHON is not on PATH (install Python 3.11 or later, or set PYTHON)" >&2; exit 2; }

# Wall time and the CPU time of the processes a phase ran (user + system:
# on a machine others share, the part the load does not inflate).
# `times` runs in this shell: a subshell would report its own children.
clock=$(mktemp)
trap 'rm -f "$clock"' EXIT
cpu_now() {
    times >"$clock"
    CPU=$(awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$clock")
}
phases=()
timed() {
    local name=$1 start=$SECONDS before
    shift
    cpu_now
    before=$CPU
    "$@"
    cpu_now
    phases+=("$(printf '%-24s %6d s wall %6.0f s CPU' "$name" $((SECONDS - start)) "$(awk "BEGIN { print $CPU - $before }")")")
}

# The Python tests compare with the CLI's own runs. `cargo test` builds the
# CLI for its integration tests, into target/release/darkhex; a separate
# `cargo build --bin darkhex` would build it again with another feature
# set (the tests' dev-dependencies unify features across the workspace)
# and recompile half the crates.
if [[ "${1:-}" != "--python" ]]; then
    timed "cargo test" cargo test --workspace --release
else
    timed "cargo build (the CLI)" cargo build --release --bin darkhex
fi

set_up() {
    if [[ ! -x .venv/bin/python ]]; then
        "$PYTHON" -m venv .venv
    fi
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet maturin pytest numpy open_spiel ray
}
timed "virtual environment" set_up
# maturin is in the environment already: build with it, not a second copy.
# The maturin backend runs the `maturin` program: the environment's, on PATH.
timed "pip install ./python" env PATH="$PWD/.venv/bin:$PATH" \
    .venv/bin/python -m pip install --quiet --no-build-isolation ./python
timed "pytest" env DARKHEX_BIN="$PWD/target/release/darkhex" DARKHEX_REQUIRE_ALL=1 \
    .venv/bin/python -m pytest -q -rs --durations=5 python/tests

printf '%s\n' "${phases[@]}"
