#!/usr/bin/env python3
"""Every opening of an NxN Hex board solved by darkhex and by Benzene's DFPN
(its `wolve` engine), both driven over GTP with the same commands, so the two
columns are measured the same way on the same machine.

For each opening c the script sends to each engine:

    clear_board
    play b c
    dfpn-clear-tt
    dfpn-solve-state white

and times the last command. Both engines start every opening with an empty
transposition table. The winners must agree; a disagreement is printed and
makes the script exit with status 1.

Build Benzene outside the repository (github cgao3/benzene-vanilla-cmake,
with Boost and Berkeley DB from Debian packages) and pass its wolve binary:

    cargo build --release
    python3 benches/scripts/hex_side_by_side.py 7 --threads 2 \
        --wolve /path/to/benzene/build/src/wolve/wolve

Without --wolve only darkhex is measured.
"""
import argparse
import os
import subprocess
import sys
import time


class Engine:
    """A GTP engine on pipes; its log (stderr) is discarded."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            out = self.proc.stdout.readline()
            if out == "":
                raise RuntimeError("the engine stopped during: " + line)
            out = out.rstrip("\n")
            if out == "":
                if lines:
                    break
                continue
            lines.append(out)
        if not lines[0].startswith("="):
            raise RuntimeError("%s: %s" % (line, " ".join(lines)))
        return "\n".join([lines[0][1:].strip()] + lines[1:]).strip()

    def close(self):
        try:
            self.send("quit")
        except RuntimeError:
            pass
        self.proc.wait(timeout=30)


def openings(size, distinct):
    """Every cell, or one of each pair of 180-degree images (they have one
    value)."""
    n = size * size
    return [c for c in range(n) if not distinct or c <= n - 1 - c]


def name(size, c):
    return "%s%d" % (chr(ord("a") + c % size), c // size + 1)


def solve_all(engine, size, threads, timelimit, distinct):
    engine.send("boardsize %d %d" % (size, size))
    engine.send("param_dfpn threads %d" % threads)
    if timelimit > 0:
        engine.send("param_dfpn timelimit %g" % timelimit)
    results = {}
    for c in openings(size, distinct):
        engine.send("clear_board")
        engine.send("play b %s" % name(size, c))
        engine.send("dfpn-clear-tt")
        start = time.monotonic()
        winner = engine.send("dfpn-solve-state white").split()[0]
        results[c] = (winner, time.monotonic() - start)
        print("  %s %-5s %8.3f s" % (name(size, c), winner, results[c][1]),
              file=sys.stderr, flush=True)
    return results


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("size", type=int)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--darkhex", default="target/release/darkhex")
    ap.add_argument("--wolve", default=None, help="Benzene's wolve binary")
    ap.add_argument("--timelimit", type=float, default=0.0,
                    help="seconds per opening, 0 for none")
    ap.add_argument("--distinct", action="store_true",
                    help="solve one opening of each pair of 180-degree images")
    args = ap.parse_args()
    engines = [("darkhex", [args.darkhex, "gtp"])]
    if args.wolve:
        if not os.path.exists(args.wolve):
            sys.exit("no wolve binary at " + args.wolve)
        engines.append(("benzene", [args.wolve]))
    columns = {}
    for label, argv in engines:
        print("%s, %dx%d, %d thread(s):" % (label, args.size, args.size, args.threads),
              file=sys.stderr)
        engine = Engine(argv)
        columns[label] = solve_all(engine, args.size, args.threads, args.timelimit,
                                   args.distinct)
        engine.close()
    labels = [label for label, _ in engines]
    print("| opening | winner | " + " | ".join("%s s" % l for l in labels) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in labels) + " |")
    disagree = []
    for c in openings(args.size, args.distinct):
        winners = {columns[l][c][0] for l in labels}
        if len(winners - {"empty"}) > 1:
            disagree.append(name(args.size, c))
        image = args.size * args.size - 1 - c
        pair = args.distinct and image != c
        cell = name(args.size, c) + (" (" + name(args.size, image) + ")" if pair else "")
        print("| %s | %s | %s |" % (cell, "/".join(sorted(winners)),
                                    " | ".join("%.3f" % columns[l][c][1] for l in labels)))
    totals = " | ".join("%.2f" % sum(t for _, t in columns[l].values()) for l in labels)
    print("| total | | %s |" % totals)
    if disagree:
        print("the engines disagree on: " + ", ".join(disagree), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
