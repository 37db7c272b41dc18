#!/usr/bin/env python3
"""darkhex and OpenSpiel side by side, in one run, on the same machine.

Needs OpenSpiel in the running Python (pip install open_spiel, in a virtual
environment outside the repository). From the repository root:

    python3 benches/scripts/side_by_side.py [ITERATIONS]
    python3 benches/scripts/side_by_side.py mccfr [ITERATIONS]

For each game: mean seconds of CFR+ iterations 1..N (OpenSpiel's C++
CFRPlusSolver against darkhex with 1 and 2 threads), seconds and peak memory
of one exact exploitability computation of the resulting average policy, and
the ratios. Each side runs in its own process so peak memory is its own.

With `mccfr`: seconds per 10^5 iterations of Monte Carlo CFR from scratch on
one thread (default 10^5 iterations): OpenSpiel's C++ outcome-sampling solver
(exploration 0.6) on 3x3 classic Dark Hex and its external-sampling solver
on Leduc, against darkhex's samplers over the information-state tables
(their build timed apart) and on the State API with keyed tables.
"""
import json
import resource
import subprocess
import sys
import time

GAMES = [
    "leduc_poker",
    "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
    "dark_hex(num_rows=3,num_cols=2,gameversion=adh)",
    "dark_hex(num_rows=3,num_cols=2)",
]

OPENSPIEL_CHILD = r"""
import json, resource, sys, time
import pyspiel
name, iterations = sys.argv[1], int(sys.argv[2])
game = pyspiel.load_game(name)
solver = pyspiel.CFRPlusSolver(game)
start = time.perf_counter()
for _ in range(iterations):
    solver.evaluate_and_update_policy()
per_iteration = (time.perf_counter() - start) / iterations
policy = solver.average_policy()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
start = time.perf_counter()
e = pyspiel.exploitability(game, policy)
exploit_s = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cfr_plus_s_per_iteration": per_iteration, "exploitability_s": exploit_s,
                  "exploitability": e, "exploitability_peak_growth_mb": after - before,
                  "peak_rss_mb": after}))
"""


MCCFR_GAMES = [
    ("dark_hex(num_rows=3,num_cols=3)", "os-mccfr"),
    ("leduc_poker", "es-mccfr"),
]

OPENSPIEL_MCCFR_CHILD = r"""
import json, sys, time
import pyspiel
name, algo, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3])
game = pyspiel.load_game(name)
if algo == "os-mccfr":
    solver = pyspiel.OutcomeSamplingMCCFRSolver(game, 0.6, 1)
else:
    solver = pyspiel.ExternalSamplingMCCFRSolver(game, 1, pyspiel.MCCFRAverageType.SIMPLE)
start, cpu = time.perf_counter(), time.process_time()
for _ in range(iterations):
    solver.run_iteration()
scale = 1e5 / iterations
print(json.dumps({"s_per_1e5": (time.perf_counter() - start) * scale,
                  "cpu_s_per_1e5": (time.process_time() - cpu) * scale}))
"""


def times(a, b):
    """a / b as a speed-up; CPU clocks tick in 10 ms, so a short run may read 0."""
    return f"{a / b:.1f}x" if b > 0 else "n/a"


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def mccfr(iterations):
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "darkhex-benches", "--bin", "mccfr_speed"], check=True)
    rows = []
    for game, algo in MCCFR_GAMES:
        os_ = run_json([sys.executable, "-c", OPENSPIEL_MCCFR_CHILD, game, algo, iterations])
        dh = run_json(["target/release/mccfr_speed", game, algo, iterations])
        rows.append((game, algo, os_, dh))
        print(json.dumps({"game": game, "algo": algo, "openspiel": os_, "darkhex": dh}), flush=True)
    print()
    print(f"Monte Carlo CFR, {iterations} iterations from scratch, one thread: CPU seconds per 10^5 iterations "
          "(wall seconds in brackets; on a shared machine CPU seconds are the figure to read)")
    print("| game | algorithm | OpenSpiel | darkhex keyed | ratio | darkhex tables | ratio | table build (wall) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for game, algo, o, d in rows:
        ok, dk, dt = o["cpu_s_per_1e5"], d["keyed_cpu_s_per_1e5"], d["tables_cpu_s_per_1e5"]
        print(f"| {game} | {algo} | {ok:.3f} s ({o['s_per_1e5']:.3f}) | {dk:.3f} s ({d['keyed_s_per_1e5']:.3f}) "
              f"| {times(ok, dk)} | {dt:.3f} s ({d['tables_s_per_1e5']:.3f}) | {times(ok, dt)} "
              f"| {d['tables_build_s']:.1f} s |")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "mccfr":
        mccfr(sys.argv[2] if len(sys.argv) > 2 else "100000")
        return
    iterations = sys.argv[1] if len(sys.argv) > 1 else "50"
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "darkhex-benches", "--bin", "side_by_side"], check=True)
    rows = []
    for game in GAMES:
        os_ = run_json([sys.executable, "-c", OPENSPIEL_CHILD, game, iterations])
        dh = run_json(["target/release/side_by_side", game, iterations])
        rows.append((game, os_, dh))
        print(json.dumps({"game": game, "openspiel": os_, "darkhex": dh}), flush=True)
    print()
    print(f"CFR+ iterations 1..{iterations}, mean per iteration; one exploitability call")
    print("| game | OpenSpiel CFR+ | darkhex 1 thread | ratio | darkhex 2 threads | ratio | OpenSpiel exploitability | darkhex | ratio | OpenSpiel MB (growth) | darkhex peak MB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for game, o, d in rows:
        r1 = o["cfr_plus_s_per_iteration"] / d["cfr_plus_s_per_iteration_1_thread"]
        r2 = o["cfr_plus_s_per_iteration"] / d["cfr_plus_s_per_iteration_2_threads"]
        re = o["exploitability_s"] / d["exploitability_s"]
        print(f"| {game} | {o['cfr_plus_s_per_iteration']*1e3:.2f} ms | {d['cfr_plus_s_per_iteration_1_thread']*1e3:.3f} ms | {r1:.0f}x "
              f"| {d['cfr_plus_s_per_iteration_2_threads']*1e3:.3f} ms | {r2:.0f}x | {o['exploitability_s']:.3f} s "
              f"| {d['exploitability_s']*1e3:.2f} ms | {re:.0f}x | {o['peak_rss_mb']:.0f} ({o['exploitability_peak_growth_mb']:.0f}) "
              f"| {d['peak_rss_mb']:.1f} |")


if __name__ == "__main__":
    main()
