#!/usr/bin/env python3
"""The Dark Hex thesis's experiment: vanilla CFR's successor CFR+ against
regression CFR (RCFR with a linear and with a network regressor) and
f-RCFR (polynomial links of power 1.5, 2 and 3, and the exponential link),
each run by `darkhex train` on the same game, exploitability computed
exactly at log-spaced iterations; one SVG per game with exploitability
against iterations and against wall seconds, and a table of the last
point of every run.

    cargo build --release
    python3 benches/scripts/thesis_experiment.py --out results/thesis \\
        --games leduc_poker,dh2x3,dh3x2,adh2x3,adh3x2 --iterations 200 --time-limit 600

Games are darkhex game strings or these short names: dh2x3 and dh3x2
(classic Dark Hex), adh2x3 and adh3x2 (abrupt), dh3x3 (classic 3x3, where
every method streams over the information-state tables: give it hours).
Each run stops at --iterations or after --time-limit wall seconds,
whichever comes first; runs are sequential, each on --threads threads.
A run whose JSON is already in --out is not run again, so an interrupted
experiment resumes where it stopped.

Each run's policy file is kept beside its JSON, for `darkhex exploit`,
`darkhex play` and league players `policy(file=...)`.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

from svg_curves import COLOURS, write_svg

SHORT = {
    "dh2x3": "dark_hex(num_rows=2,num_cols=3)",
    "dh3x2": "dark_hex(num_rows=3,num_cols=2)",
    "adh2x3": "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
    "adh3x2": "dark_hex(num_rows=3,num_cols=2,gameversion=adh)",
    "dh3x3": "dark_hex(num_rows=3,num_cols=3)",
}

METHODS = [
    ("CFR+", ["--algo", "cfr+"]),
    ("RCFR, linear", ["--algo", "rcfr", "--regressor", "linear"]),
    ("RCFR, MLP", ["--algo", "rcfr", "--regressor", "mlp"]),
    ("f-RCFR, poly p=1.5", ["--algo", "f-rcfr", "--link", "poly", "--power", "1.5"]),
    ("f-RCFR, poly p=2", ["--algo", "f-rcfr", "--link", "poly", "--power", "2"]),
    ("f-RCFR, poly p=3", ["--algo", "f-rcfr", "--link", "poly", "--power", "3"]),
    ("f-RCFR, exp", ["--algo", "f-rcfr", "--link", "exp"]),
]


def slug(text):
    """A file-name form of a method or game: "RCFR, MLP" is rcfr-mlp."""
    text = text.replace("+", "-plus")
    return "-".join("".join(c if c.isalnum() else " " for c in text).lower().split())


def run(args, name, game, flags, out):
    """One `darkhex train` run; its JSON result, kept in `out`."""
    result = out / f"{slug(name)}.json"
    if result.exists():
        return json.loads(result.read_text())
    cmd = [args.darkhex, "train", game, *flags, "--iterations", str(args.iterations),
           "--time-limit", str(args.time_limit), "--evals-per-decade", str(args.evals_per_decade),
           "--threads", str(args.threads), "--seed", str(args.seed),
           "--out", str(out / f"{slug(name)}.policy"), "--json"]
    print(f"  {name}: {' '.join(cmd[1:])}", flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{name} on {game} failed: {proc.stderr.strip().splitlines()[-1:]}")
    tmp = result.with_suffix(".tmp")
    tmp.write_text(proc.stdout)
    os.replace(tmp, result)
    return json.loads(proc.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--darkhex", default="target/release/darkhex")
    ap.add_argument("--out", default="thesis-experiment", help="folder of results, SVGs and policies")
    ap.add_argument("--games", default="leduc_poker,dh2x3,dh3x2,adh2x3,adh3x2")
    ap.add_argument("--methods", default=None,
                    help="comma-separated subset of: " + ",".join(slug(m) for m, _ in METHODS))
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--time-limit", type=float, default=600, help="wall seconds a run, at most")
    ap.add_argument("--evals-per-decade", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    methods = METHODS
    if args.methods:
        wanted = [slug(m) for m in args.methods.split(",")]
        known = [slug(m) for m, _ in METHODS]
        unknown = [m for m in wanted if m not in known]
        if unknown:
            sys.exit(f"unknown methods {unknown}; the methods are {','.join(known)}")
        methods = [m for m in METHODS if slug(m[0]) in wanted]
    root = pathlib.Path(args.out)
    rows = []
    for short in args.games.split(","):
        game = SHORT.get(short, short)
        out = root / slug(short)
        out.mkdir(parents=True, exist_ok=True)
        print(game, flush=True)
        curves = []
        for k, (name, flags) in enumerate(methods):
            result = run(args, name, game, flags, out)
            points = [dict(p, iteration=max(p["iteration"], 1e-9)) for p in result["history"]
                      if p["iteration"] > 0]
            curves.append((name, COLOURS[k % len(COLOURS)], points))
            last = result["history"][-1]
            rows.append((short, name, last["iteration"], last["seconds"], last["exploitability"]))
        svg = root / f"{slug(short)}.svg"
        write_svg(str(svg), game, [("iteration", "iterations (log)"), ("seconds", "wall seconds (log)")],
                  curves)
        print(f"  wrote {svg}", flush=True)
    print("| game | method | iterations | wall s | exploitability |")
    print("| --- | --- | ---: | ---: | ---: |")
    for short, name, it, secs, expl in rows:
        print(f"| {short} | {name} | {it} | {secs:.3g} | {expl:.4g} |")


if __name__ == "__main__":
    main()
