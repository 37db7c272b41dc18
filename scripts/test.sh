#!/usr/bin/env bash
# The test command: the Rust tests, then the Python package's tests.
#
#   scripts/test.sh            everything (what CI runs)
#   scripts/test.sh --python   the Python half only
#
# Needs Rust (cargo) and Python 3.11 or later; headless Chromium for the
# browser tests, which it installs when run as root (see below). The Rust half
# is `cargo test --workspace --release`; where cargo-nextest is installed it
# runs the same tests with `cargo nextest run` (every test its own process,
# both cores busy until the last test instead of one binary at a time: the
# same CPU time, a quarter less wall time) and the doc tests with cargo
# test. The Python half makes a virtual environment in .venv (kept between
# runs; delete it to start afresh), installs maturin, pytest, numpy,
# open-spiel and ray from PyPI into it, builds and installs the package
# from ./python, and runs pytest over python/tests (docstring and
# docs/python.md examples included) with every test required to run: none
# is skipped for a missing OpenSpiel or Ray. Rust-only users need none of
# it: `cargo test --workspace --release` is the Rust half. Each phase's wall
# and CPU time is printed at the end; docs/testing.md has the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
command -v cargo >/dev/null || { echo "scripts/test.sh: cargo is not on PATH (install Rust with rustup)" >&2; exit 2; }
command -v "$PYTHON" >/dev/null || { echo "scripts/test.sh: $PYTHON is not on PATH (install Python 3.11 or later, or set PYTHON)" >&2; exit 2; }

# Wall time and the CPU time of the processes a phase ran (user + system:
# on a machine others share, the part the load does not inflate).
# `times` runs in this shell: a subshell would report its own children.
clock=$(mktemp)
build_log=$(mktemp)
phases=()
recompiled=""
# The phases' times, also those done before a failure.
report() {
    rm -f "$clock" "$build_log"
    if ((${#phases[@]})); then printf '%s\n' "${phases[@]}"; fi
    if [[ -n "$recompiled" ]]; then
        echo "scripts/test.sh: warning: pip install ./python compiled again crates the Rust tests had built, with other features: ${recompiled}(see hack/Cargo.toml)" >&2
    fi
}
trap report EXIT
cpu_now() {
    times >"$clock"
    CPU=$(awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$clock")
}
timed() {
    local name=$1 start=$SECONDS before
    shift
    cpu_now
    before=$CPU
    "$@"
    cpu_now
    phases+=("$(printf '%-24s %6d s wall %6.0f s CPU' "$name" $((SECONDS - start)) "$(awk "BEGIN { print $CPU - $before }")")")
}

# The Python tests compare with the CLI's own runs: the Rust tests build it
# into target/release/darkhex for their integration tests. The CLI, the
# tests and the Python package are built with the same features (see
# hack/Cargo.toml), so each build reuses what another built.
rust_tests() {
    if cargo nextest --version >/dev/null 2>&1; then
        cargo nextest run --workspace --release --no-fail-fast
        # nextest does not run doc tests. Cargo warns that darkhex-python's
        # cdylib has none; excluding it would change the features, and with
        # them the build.
        cargo test --workspace --release --doc
    else
        cargo test --workspace --release
    fi
}
# The browser tests (tests/serve.rs) drive headless Chromium through
# chromedriver: Debian's chromium and chromium-driver, installed here when
# the script runs as root where apt-get is. Where they cannot be installed
# the script says how; under CI it stops, elsewhere the browser tests say
# they left out their browser part.
browser_ready() {
    command -v chromedriver >/dev/null &&
        { command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null; }
}
install_browser() {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
}
if [[ "${1:-}" != "--python" ]]; then
    if ! browser_ready && [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        timed "install Chromium" install_browser
    fi
    if browser_ready; then
        export DARKHEX_REQUIRE_BROWSER=1
    elif [[ -n "${CI:-}" ]]; then
        echo "scripts/test.sh: the browser tests need headless Chromium and its driver: apt-get install chromium chromium-driver (Debian, as root)" >&2
        exit 2
    else
        echo "scripts/test.sh: warning: no headless Chromium; the browser tests will leave out their browser part (apt-get install chromium chromium-driver, as root, to run them)" >&2
    fi
fi
if [[ "${1:-}" != "--python" ]]; then
    timed "Rust tests" rust_tests
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
# Its cargo output is kept to see what it compiled.
install_package() {
    env PATH="$PWD/.venv/bin:$PATH" .venv/bin/python -m pip install --verbose \
        --no-build-isolation ./python >"$build_log" 2>&1 || {
        tail -n 40 "$build_log" >&2
        return 1
    }
}
timed "pip install ./python" install_package

# After the Rust tests, maturin has only the package's own crates to
# compile (pyo3, numpy, their dependencies and the bindings): anything else
# it compiled was built by the tests with other features, which
# hack/Cargo.toml is there to prevent.
crates() {
    cargo tree --quiet --prefix none --format '{p}' "$@" | awk '{ print $1 }' | sort -u
}
if [[ "${1:-}" != "--python" ]]; then
    recompiled=$(comm -23 \
        <(awk '$1 == "Compiling" { print $2 }' "$build_log" | sort -u) \
        <(comm -23 <(crates -p darkhex-python -e normal,build) \
            <(crates --workspace --exclude darkhex-python -e normal,build,dev)) |
        tr '\n' ' ')
fi

# The CLI the Rust tests built (CARGO_TARGET_DIR moves it).
target_dir=${CARGO_TARGET_DIR:-target}
[[ "$target_dir" == /* ]] || target_dir="$PWD/$target_dir"
timed "pytest" env DARKHEX_BIN="$target_dir/release/darkhex" DARKHEX_REQUIRE_ALL=1 \
    .venv/bin/python -m pytest -q -rs --durations=5 python/tests
