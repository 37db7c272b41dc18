#!/usr/bin/env python3
"""Deep CFR on Leduc poker: darkhex against OpenSpiel's PyTorch Deep CFR.

Both run the same settings (traversals per player and iteration, one
hidden layer, Adam steps, batch, learning rate, reservoir sizes, the
policy network's steps at the end), each run from scratch for a number of
iterations, timed on the wall clock from the start of training to the
trained policy network (the exploitability computation is not counted).
The exploitability of each run's policy network is computed exactly: by
darkhex on its tree, by OpenSpiel's `nash_conv` on its tabular copy of
the network's policy.

OpenSpiel needs a Python with `open_spiel`, `torch` and `dm-tree`, kept
outside the repository:

    python3 -m venv /tmp/ospt
    /tmp/ospt/bin/pip install open_spiel torch dm-tree
    cargo build --release
    python3 benches/scripts/deep_cfr_side_by_side.py \\
        --openspiel-python /tmp/ospt/bin/python --svg deep-cfr-leduc.svg

It prints one row per run and, for each OpenSpiel run, how soon darkhex
reached the same exploitability; `--svg` draws both curves (exploitability
against wall seconds) in one plot. `--threads 1` (the default) gives each
side one thread: torch's intra-op threads and darkhex's pool alike.
"""

import argparse
import json
import os
import subprocess
import sys
import time

from svg_curves import write_svg

GAME = "leduc_poker"


def openspiel_one(args):
    """Runs in the OpenSpiel Python: one training run, one JSON line."""
    import pyspiel
    import torch
    from open_spiel.python import policy
    from open_spiel.python.pytorch import deep_cfr

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    game = pyspiel.load_game(GAME)
    solver = deep_cfr.DeepCFRSolver(
        game,
        policy_network_layers=(args.hidden,),
        advantage_network_layers=(args.hidden,),
        num_iterations=args.iterations_one,
        num_traversals=args.traversals,
        reinitialize_advantage_networks=True,
        learning_rate=args.learning_rate,
        batch_size_advantage=args.batch_size,
        batch_size_strategy=args.batch_size,
        memory_capacity=args.capacity,
        policy_network_train_steps=args.policy_steps,
        advantage_network_train_steps=args.fit_steps,
        seed=args.seed,
    )
    start = time.perf_counter()
    solver.solve()
    seconds = time.perf_counter() - start
    tabular = policy.tabular_policy_from_callable(game, solver.action_probabilities)
    conv = pyspiel.nash_conv(game, policy.python_policy_to_pyspiel_policy(tabular))
    print(json.dumps({"iterations": args.iterations_one, "seconds": seconds,
                      "exploitability": conv / 2}))


def run_openspiel(args, iterations):
    cmd = [args.openspiel_python, __file__, "--openspiel-one", str(iterations)]
    cmd += settings_flags(args)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_darkhex(args, iterations):
    cmd = [args.darkhex, "train", GAME, "--algo", "deep-cfr",
           "--iterations", str(iterations), "--seed", str(args.seed),
           "--traversals", str(args.traversals), "--hidden", str(args.hidden),
           "--fit-steps", str(args.fit_steps), "--batch-size", str(args.batch_size),
           "--learning-rate", str(args.learning_rate),
           "--advantage-capacity", str(args.capacity),
           "--strategy-capacity", str(args.capacity),
           "--policy-steps", str(args.policy_steps), "--threads", str(args.threads),
           "--json"]
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return {"iterations": iterations, "seconds": result["seconds"],
            "exploitability": result["exploitability"]}


def settings_flags(args):
    return ["--traversals", str(args.traversals), "--hidden", str(args.hidden),
            "--fit-steps", str(args.fit_steps), "--batch-size", str(args.batch_size),
            "--learning-rate", str(args.learning_rate), "--capacity", str(args.capacity),
            "--policy-steps", str(args.policy_steps), "--seed", str(args.seed),
            "--threads", str(args.threads)]


def first_reaching(runs, target):
    """The fastest darkhex run at or below `target`, or None."""
    hits = [r for r in runs if r["exploitability"] <= target]
    return min(hits, key=lambda r: r["seconds"]) if hits else None


def svg_plot(path, curves):
    """Exploitability against wall seconds, both axes logarithmic."""
    write_svg(path, f"Deep CFR on {GAME}", [("seconds", "wall seconds of training (log)")], curves)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--openspiel-python", help="a Python with open_spiel, torch and dm-tree")
    ap.add_argument("--darkhex", default="target/release/darkhex")
    ap.add_argument("--iterations", default="5,10,20,40",
                    help="OpenSpiel's runs, comma-separated")
    ap.add_argument("--darkhex-iterations", default="5,10,20,40,80,160",
                    help="darkhex's runs, comma-separated")
    ap.add_argument("--traversals", type=int, default=100)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--fit-steps", type=int, default=100)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--learning-rate", type=float, default=1e-3)
    ap.add_argument("--capacity", type=int, default=100_000)
    ap.add_argument("--policy-steps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--svg", help="write both curves to this SVG file")
    ap.add_argument("--openspiel-one", dest="iterations_one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.iterations_one is not None:
        openspiel_one(args)
        return
    if not args.openspiel_python:
        sys.exit("--openspiel-python PATH is needed: a Python with open_spiel, torch and dm-tree")

    print(f"{GAME}: traversals {args.traversals}, hidden ({args.hidden},), fit steps "
          f"{args.fit_steps}, batch {args.batch_size}, learning rate {args.learning_rate}, "
          f"reservoirs {args.capacity}, policy steps {args.policy_steps}, "
          f"{args.threads} thread(s) each")
    ours = []
    for n in [int(x) for x in args.darkhex_iterations.split(",")]:
        ours.append(run_darkhex(args, n))
        r = ours[-1]
        print(f"  darkhex    {n:>4} iterations {r['seconds']:>9.1f} s  "
              f"exploitability {r['exploitability']:.4f}", flush=True)
    theirs = []
    for n in [int(x) for x in args.iterations.split(",")]:
        theirs.append(run_openspiel(args, n))
        r = theirs[-1]
        line = (f"  OpenSpiel  {n:>4} iterations {r['seconds']:>9.1f} s  "
                f"exploitability {r['exploitability']:.4f}")
        hit = first_reaching(ours, r["exploitability"])
        if hit:
            line += (f"   darkhex reached it in {hit['seconds']:.1f} s "
                     f"({r['seconds'] / hit['seconds']:.1f}x sooner)")
        else:
            line += "   darkhex's runs did not reach it"
        print(line, flush=True)
    if args.svg:
        svg_plot(args.svg, [("darkhex", "#1f77b4", ours), ("OpenSpiel (PyTorch)", "#d62728", theirs)])
        print(f"wrote {args.svg}")


if __name__ == "__main__":
    main()
