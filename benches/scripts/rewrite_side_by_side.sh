#!/usr/bin/env bash
# Outcome-sampling MCCFR on 4x3 classic Dark Hex, darkhex's view-rot180
# sampler beside the Dark Hex thesis author's Rust rewrite (github
# BedirT/darkhex), interleaved, each run under /usr/bin/time -v: the table in
# docs/results/compact-mccfr.md ("Against the rewrite").
#
# usage: benches/scripts/rewrite_side_by_side.sh REWRITE_DIR DARKHEX_BIN [RUNS] [ITERATIONS]
#
# REWRITE_DIR is a tree of the rewrite, already built with
# `cargo build --release`: its crates/core (see docs/results/compact-mccfr.md
# for the versions) and a crate driver/ whose src/main.rs is
# benches/scripts/rewrite_mccfr_driver.rs and whose Cargo.toml names the
# package `rewrite-mccfr` with the dependency
# `darkhex-core = { path = "../crates/core" }`; the tree's Cargo.toml is a
# workspace of the two (members = ["crates/core", "driver"]). This script
# fetches and builds nothing: it stops and says so when
# REWRITE_DIR/target/release/rewrite-mccfr is missing. Each round runs the rewrite, darkhex on 1 thread and darkhex on
# 2 threads, in a scratch directory it removes at the end (the rewrite twice:
# writing its checkpoint as darkhex writes its policy file, and writing
# nothing); it prints one tab-separated line a run: what, user s, sys s,
# wall s, peak KB, 1-minute load; the rewrite's own summary goes to stderr.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 REWRITE_DIR DARKHEX_BIN [RUNS] [ITERATIONS]" >&2
    exit 2
fi
rewrite="$1/target/release/rewrite-mccfr"
darkhex="$2"
runs="${3:-3}"
iterations="${4:-1000000}"
if [ ! -x "$rewrite" ]; then
    echo "no rewrite driver at $rewrite: build it first (cd $1 && cargo build --release)" >&2
    exit 2
fi
if [ ! -x "$darkhex" ]; then
    echo "no darkhex binary at $darkhex" >&2
    exit 2
fi
if [ ! -x /usr/bin/time ]; then
    echo "/usr/bin/time (GNU time) is needed for -v" >&2
    exit 2
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"

measure() {
    local what="$1"
    shift
    local load
    load="$(cut -d' ' -f1 /proc/loadavg)"
    /usr/bin/time -v -o time.txt "$@" >out.txt 2>&1 || {
        cat out.txt >&2
        exit 1
    }
    awk -v what="$what" -v load="$load" -F': ' '
        /User time/ { user = $2 }
        /System time/ { sys = $2 }
        /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + t[i] }
        /Maximum resident set size/ { rss = $2 }
        END { printf "%s\t%s\t%s\t%.2f\t%s\t%s\n", what, user, sys, wall, rss, load }
    ' time.txt
}

game='dark_hex(num_rows=4,num_cols=3)'
printf 'what\tuser_s\tsys_s\twall_s\tpeak_kb\tload\n'
for round in $(seq 1 "$runs"); do
    measure "rewrite" "$rewrite" 4 3 "$iterations" 1 rw43.bin
    cat out.txt >&2
    measure "rewrite-nosave" "$rewrite" 4 3 "$iterations" 1 -
    for threads in 1 2; do
        measure "darkhex-${threads}t" "$darkhex" train "$game" --algo os-mccfr \
            --iterations "$iterations" --seed 1 --threads "$threads" \
            --abstraction view-rot180 --out dh43.bin
    done
done
