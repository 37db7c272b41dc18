#!/usr/bin/env python3
"""Game values of small Dark Hex and Dark Rex boards by sequence-form LP
(`darkhex solve`), for reference/lp_values.json, which the PONE tests check
against. Run from the repository root after `cargo build --release`:

    python3 scripts/lp_values.py > reference/lp_values.json
"""
import json
import subprocess
import sys
import tempfile

boards = [(2, 2), (2, 3), (3, 2)]
values = {}
for rows, cols in boards:
    for base in ["dark_hex", "dark_rex"]:
        for version in ["cdh", "adh"]:
            extras = [f"disclosure={d}" for d in ["none", "noise", "flash"]] + ["obstype=reveal-numturns"]
            for extra in extras:
                game = f"{base}(num_rows={rows},num_cols={cols},gameversion={version},{extra})"
                with tempfile.TemporaryDirectory() as out:
                    run = subprocess.run(["target/release/darkhex", "solve", game, "--json", "--out", f"{out}/p.bin"],
                                         capture_output=True, text=True, check=True)
                r = json.loads(run.stdout)
                values[r["game"]] = {"value_p0": r["value_p0"], "exploitability": r["exploitability"]}
                print(r["game"], r["value_p0"], file=sys.stderr, flush=True)
json.dump({"about": "Values for player 0 by sequence-form LP (darkhex solve, clarabel); exploitability of the "
                    "LP's profile. Made by scripts/lp_values.py.",
           "games": values}, sys.stdout, indent=1)
print()
