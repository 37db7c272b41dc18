#!/usr/bin/env python3
"""Solrex's knockout experiment on darkhex: the 5x5 suite (every reply of
White to Black's opening in the acute corner a1, 24 positions), each
position solved alone by its own `darkhex solve` process from an empty
table, with every Rex rule on, then with each rule off in turn, and with
captured-overlap (off by default) switched on.

For each version the script prints the positions examined and the CPU
seconds (user and system of the solving processes, so a loaded machine
changes them less than wall time), both summed over the suite, and their
ratios to the version with every rule on, beside the ratios Young and
Hayward publish for Solrex ("A Reverse Hex Solver", 2016, 5x5 knockout
table). Every version must give the same winners; a difference makes the
script exit with status 1.

    cargo build --release
    python3 benches/scripts/rex_knockout.py
    python3 benches/scripts/rex_knockout.py --rules pairings --replies b2,c2,d2,d3
"""
import argparse
import json
import resource
import subprocess
import sys

RULES = ["pairings", "decompositions", "dead-move", "dead-fill", "clique-cutsets", "capture-fill",
         "mutual-fill", "preferences", "colour-symmetry", "symmetry", "resistance-order"]

# Rules off by default, measured switched on (`--with`): the row says "with".
OPT_IN = ["captured-overlap"]

# Solrex's published time ratios on its 5x5 suite, under the name of the
# darkhex rule closest to the feature switched off.
SOLREX = {
    "pairings": "89.83 (no H-search)",
    "decompositions": "1.06 (no VC decomp)",
    "captured-overlap": "1/0.99 (unaugmented H-search: 0.99)",
    "capture-fill": "2.02 (no capture fill-in)",
    "preferences": "2.30 (no inferior pruning)",
    "resistance-order": "1.62 (no resistance ordering)",
    "dead-fill": "1.07 (no dead fill-in)",
    "mutual-fill": "1.00 (no mutual fillin)",
    "clique-cutsets": "0.97 (no dead clique cutset)",
    "colour-symmetry": "1.01 (no colour symmetry pruning)",
}


def solve(darkhex, size, moves, without):
    """The winner, positions examined and CPU seconds of one solve."""
    argv = [darkhex, "solve", "rex(board_size=%d)" % size, "--moves", moves,
            "--json", "--threads", "1", "--tt-mb", "64"]
    if without in OPT_IN:
        argv += ["--with", without]
    elif without:
        argv += ["--without", without]
    proc = subprocess.run(argv, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit("darkhex failed on %s without %s" % (moves, without or "nothing"))
    got = json.loads(proc.stdout)
    if not got["complete"]:
        sys.exit("unsolved: %s without %s" % (moves, without or "nothing"))
    return got["winner"], got["expansions"]


def cpu_of_children():
    """CPU seconds of every finished child process so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(darkhex, size, opening, replies, without):
    winners, positions = {}, 0
    start = cpu_of_children()
    for cell in replies:
        winner, n = solve(darkhex, size, "%s,%s" % (opening, cell), without)
        winners[cell] = winner
        positions += n
    return winners, positions, cpu_of_children() - start


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--opening", default="a1")
    ap.add_argument("--darkhex", default="target/release/darkhex")
    ap.add_argument("--rules", default=",".join(RULES + OPT_IN),
                    help="the rules to switch off in turn, comma-separated")
    ap.add_argument("--replies", default=None,
                    help="only these replies, comma-separated (default: every one)")
    args = ap.parse_args()
    cells = ["%s%d" % (chr(ord("a") + c % args.size), c // args.size + 1)
             for c in range(args.size * args.size)]
    replies = [c for c in cells if c != args.opening]
    if args.replies:
        asked = [r for r in args.replies.split(",") if r]
        wrong = [r for r in asked if r not in replies]
        if wrong:
            sys.exit("not a reply to %s: %s" % (args.opening, ", ".join(wrong)))
        replies = asked
    rules = [r for r in args.rules.split(",") if r]
    unknown = [r for r in rules if r not in RULES + OPT_IN]
    if unknown:
        sys.exit("unknown rule %s; the rules are %s" % (
            ", ".join(unknown), ", ".join(RULES + OPT_IN)))
    base_winners, base_n, base_cpu = run(args.darkhex, args.size, args.opening, replies, None)
    print("| version | positions | ratio | CPU s | ratio | Solrex's time ratio |")
    print("| --- | --- | --- | --- | --- | --- |")
    print("| all rules on | %d | 1.00 | %.2f | 1.00 | 1.0 (13.9 s) |" % (base_n, base_cpu))
    differ = []
    for rule in rules:
        winners, n, cpu = run(args.darkhex, args.size, args.opening, replies, rule)
        if winners != base_winners:
            differ.append(rule)
        print("| %s %s | %d | %.2f | %.2f | %.2f | %s |" % (
            "with" if rule in OPT_IN else "without", rule, n, n / base_n, cpu, cpu / max(base_cpu, 1e-9), SOLREX.get(rule, "")),
            flush=True)
    if differ:
        print("winners differ without: " + ", ".join(differ), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
