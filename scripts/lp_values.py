#!/usr/bin/env python3
"""Game values of small Dark Hex and Dark Rex boards by sequence-form LP
(`darkhex solve`), for reference/lp_values.json, which the PONE tests check
against. Run from the repository root after `cargo build --release`:

    python3 scripts/lp_values.py > reference/lp_values.json

With --large it also solves the classic 2x4 and 4x2 boards with every
disclosure (about half an hour; 4x2 flash peaks at 22 GB) into "large".
"""
import json
import subprocess
import sys
import tempfile


def solve(game):
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run(["target/release/darkhex", "solve", game, "--json", "--out", f"{out}/p.bin"],
                             capture_output=True, text=True, check=True)
    r = json.loads(run.stdout)
    print(r["game"], r["value_p0"], file=sys.stderr, flush=True)
    return r


boards = [(2, 2), (2, 3), (3, 2)]
values = {}
for rows, cols in boards:
    for base in ["dark_hex", "dark_rex"]:
        for version in ["cdh", "adh"]:
            extras = [f"disclosure={d}" for d in ["none", "noise", "flash"]] + ["obstype=reveal-numturns"]
            for extra in extras:
                game = f"{base}(num_rows={rows},num_cols={cols},gameversion={version},{extra})"
                r = solve(game)
                values[r["game"]] = {"value_p0": r["value_p0"], "exploitability": r["exploitability"]}
large = {}
if "--large" in sys.argv[1:]:
    for rows, cols in [(2, 4), (4, 2)]:
        for disclosure in ["none", "noise", "flash"]:
            r = solve(f"dark_hex(num_rows={rows},num_cols={cols},disclosure={disclosure})")
            large[r["game"]] = {"value_p0": r["value_p0"], "exploitability": r["exploitability"],
                                "seconds": round(r["seconds"], 2)}
about = ("Values for player 0 by sequence-form LP (darkhex solve, clarabel); exploitability of the LP's profile. "
         "Made by scripts/lp_values.py.")
report = {"games": values}
if large:
    about += " 'large' holds the classic 2x4 and 4x2 boards (scripts/lp_values.py --large; 4x2 flash needs 22 GB)."
    report["large"] = large
json.dump({"about": about, **report}, sys.stdout, indent=1)
print()
