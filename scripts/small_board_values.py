#!/usr/bin/env python3
"""Solves every small Dark Hex board with `darkhex solve` and prints the
table of values in docs/results/small-boards.md (player 0's value, exploitability, seconds).

    cargo build --release && python3 scripts/small_board_values.py [BOARDS...]

BOARDS are like 2x3 (default: 2x2 2x3 3x2 2x4 4x2). Boards whose tree does
not fit in memory are reported as such.
"""
import json
import subprocess
import sys
import tempfile
from fractions import Fraction

boards = sys.argv[1:] or ["2x2", "2x3", "3x2", "2x4", "4x2"]
print("| board | version | disclosure | value for player 0 | exploitability | seconds |")
print("| --- | --- | --- | --- | --- | --- |")
for board in boards:
    rows, cols = board.split("x")
    for version in ["cdh", "adh"]:
        for disclosure in ["none", "noise", "flash"]:
            game = f"dark_hex(num_rows={rows},num_cols={cols},gameversion={version},disclosure={disclosure})"
            with tempfile.TemporaryDirectory() as out:
                run = subprocess.run(["target/release/darkhex", "solve", game, "--json", "--max-memory-gb", "20",
                                      "--out", f"{out}/policy.bin"], capture_output=True, text=True)
            if run.returncode != 0:
                reason = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "failed"
                print(f"| {board} | {version} | {disclosure} | {reason} | | |", flush=True)
                continue
            r = json.loads(run.stdout)
            v = r["value_p0"]
            frac = Fraction(v).limit_denominator(1000)
            exact = f" = {frac}" if abs(float(frac) - v) < 1e-7 else ""
            print(f"| {board} | {version} | {disclosure} | {v:.6f}{exact} | {r['exploitability']:.1e} | {r['seconds']:.2f} |",
                  flush=True)
