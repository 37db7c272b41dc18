#!/usr/bin/env python3
"""The Solrex 5x5 suite solved by darkhex and by Solrex (Young and Hayward's
Rex solver, github kenjyoung/benzene, its `mohex` engine), both driven over
GTP with the same commands, so the two columns are measured the same way on
the same machine.

The suite is Solrex's: every reply of White to Black's opening in the acute
corner (a1) of 5x5 Rex, 24 positions. Each is solved alone, from an empty
table:

    clear_board
    play b a1
    play w REPLY
    dfpn-clear-tt
    dfpn-solve-state black

and the last command is timed, in wall-clock seconds and in the CPU seconds
the engine spent on it (from /proc, so a loaded machine inflates the first
more than the second). With --find-winning the suite is instead one
`dfpn-solver-find-winning white` after `play b a1`, each engine keeping its
table across the replies as it does for that command.

The winners must agree (and every reply's winner is printed); a
disagreement makes the script exit with status 1.

Build Solrex outside the repository (github kenjyoung/benzene, with the
smartgame and gtpengine libraries of github cgao3/benzene-vanilla-cmake,
Boost and Berkeley DB from Debian packages; docs/rex.md has the recipe) and
pass its mohex binary:

    cargo build --release
    python3 benches/scripts/rex_side_by_side.py --threads 1 \\
        --solrex /path/to/solrex/mohex

Without --solrex only darkhex is measured.
"""
import argparse
import os
import subprocess
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


class Engine:
    """A GTP engine on pipes; its log (stderr) is discarded."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def cpu(self):
        """CPU seconds the engine has used so far (user and system)."""
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

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

    def timed(self, line):
        """The answer to `line`, wall seconds and CPU seconds."""
        cpu, start = self.cpu(), time.monotonic()
        answer = self.send(line)
        return answer, time.monotonic() - start, self.cpu() - cpu

    def close(self):
        try:
            self.send("quit")
        except RuntimeError:
            pass
        self.proc.wait(timeout=30)


def name(size, c):
    return "%s%d" % (chr(ord("a") + c % size), c // size + 1)


def setup(engine, size, threads, timelimit):
    engine.send("boardsize %d %d" % (size, size))
    engine.send("param_dfpn threads %d" % threads)
    if timelimit > 0:
        engine.send("param_dfpn timelimit %g" % timelimit)


def solve_alone(engine, size, opening, replies):
    """Each reply's winner, wall and CPU seconds, from an empty table."""
    results = {}
    for c in replies:
        engine.send("clear_board")
        engine.send("play b %s" % opening)
        engine.send("play w %s" % name(size, c))
        engine.send("dfpn-clear-tt")
        winner, wall, cpu = engine.timed("dfpn-solve-state black")
        results[c] = (winner.split()[0], wall, cpu)
        print("  %s %-5s %8.3f s %8.3f CPU s" % (name(size, c), results[c][0], wall, cpu),
              file=sys.stderr, flush=True)
    return results


def find_winning(engine, size, opening, replies):
    """One dfpn-solver-find-winning: each reply's winner, and the total
    wall and CPU seconds under the first reply."""
    engine.send("clear_board")
    engine.send("play b %s" % opening)
    engine.send("dfpn-clear-tt")
    answer, wall, cpu = engine.timed("dfpn-solver-find-winning white")
    winning = set(answer.split())
    results = {c: ("white" if name(size, c) in winning else "black", 0.0, 0.0)
               for c in replies}
    results[replies[0]] = (results[replies[0]][0], wall, cpu)
    print("  find-winning: %s (%.3f s, %.3f CPU s)" % (answer, wall, cpu),
          file=sys.stderr, flush=True)
    return results


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--opening", default="a1")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--darkhex", default="target/release/darkhex")
    ap.add_argument("--solrex", default=None, help="Solrex's mohex binary")
    ap.add_argument("--timelimit", type=float, default=0.0,
                    help="seconds per position, 0 for none")
    ap.add_argument("--find-winning", action="store_true",
                    help="one dfpn-solver-find-winning, tables kept across replies")
    args = ap.parse_args()
    game = "rex(board_size=%d)" % args.size
    engines = [("darkhex", [args.darkhex, "gtp", "--game", game])]
    if args.solrex:
        if not os.path.exists(args.solrex):
            sys.exit("no Solrex binary at " + args.solrex)
        engines.append(("solrex", [args.solrex]))
    cells = args.size * args.size
    opening = args.opening.lower()
    replies = [c for c in range(cells) if name(args.size, c) != opening]
    if len(replies) == cells:
        sys.exit("the opening %s is not a cell of %dx%d" % (opening, args.size, args.size))
    columns = {}
    for label, argv in engines:
        print("%s, %s %s, %d thread(s):" % (label, game, opening, args.threads),
              file=sys.stderr)
        engine = Engine(argv)
        setup(engine, args.size, args.threads, args.timelimit)
        run = find_winning if args.find_winning else solve_alone
        columns[label] = run(engine, args.size, opening, replies)
        engine.close()
    labels = [label for label, _ in engines]
    heads = " | ".join("%s s | %s CPU s" % (l, l) for l in labels)
    print("| reply | winner | " + heads + " |")
    print("| --- | --- | " + " | ".join("---" for _ in range(2 * len(labels))) + " |")
    disagree = []
    for c in replies:
        winners = {columns[l][c][0] for l in labels}
        if len(winners - {"empty"}) > 1:
            disagree.append(name(args.size, c))
        cols = " | ".join("%.3f | %.3f" % columns[l][c][1:] for l in labels)
        print("| %s | %s | %s |" % (name(args.size, c), "/".join(sorted(winners)), cols))
    totals = {l: (sum(r[1] for r in columns[l].values()),
                  sum(r[2] for r in columns[l].values())) for l in labels}
    print("| total | | %s |" % " | ".join("%.2f | %.2f" % totals[l] for l in labels))
    if len(labels) == 2:
        a, b = totals[labels[0]], totals[labels[1]]
        print("solrex / darkhex: %.1fx wall, %.1fx CPU" % (b[0] / max(a[0], 1e-9),
                                                         b[1] / max(a[1], 1e-9)))
    if disagree:
        print("the engines disagree on: " + ", ".join(disagree), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
