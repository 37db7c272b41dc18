#!/usr/bin/env python3
"""PONE's answers for every Dark Hex (or, given `dark_rex`, Dark Rex) board up
to 4x4, both game versions and both players, for docs/results/small-boards.md
(`darkhex pone`). From the repository root, after `cargo build --release`:

    python3 scripts/pone_table.py
    python3 scripts/pone_table.py dark_rex
"""
import json
import subprocess
import sys

family = sys.argv[1] if len(sys.argv) > 1 else "dark_hex"
if family not in ("dark_hex", "dark_rex"):
    sys.exit(f"unknown game family {family!r}: expected dark_hex or dark_rex")

boards = [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 2), (3, 4), (4, 3), (4, 4)]
print("| board | version | player 0 wins surely | player 1 wins surely | states (p0 / p1) | seconds (p0 / p1) |")
print("| --- | --- | --- | --- | --- | --- |")
for rows, cols in boards:
    for version in ["cdh", "adh"]:
        game = f"{family}(num_rows={rows},num_cols={cols},gameversion={version})"
        res = []
        for player in ["0", "1"]:
            out = subprocess.run(["target/release/darkhex", "pone", game, "--player", player, "--json"],
                                 capture_output=True, text=True, check=True).stdout
            res.append(json.loads(out))
        def answer(r):
            return f"yes: {', '.join(r['winning_moves'])}" if r["wins"] else "no"
        print(f"| {rows}x{cols} | {version} | {answer(res[0])} | {answer(res[1])} | "
              f"{res[0]['states']} / {res[1]['states']} | {res[0]['seconds']:.3f} / {res[1]['seconds']:.3f} |", flush=True)
