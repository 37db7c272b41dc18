#!/usr/bin/env python3
"""The Python package measured: playouts from Python against pyspiel's C++
dark_hex, the vector environment, Ray's overhead on a league, the wheel.

Run with the test script's virtual environment (scripts/test.sh makes it,
with darkhex, open_spiel and ray installed), from the repository root:

    .venv/bin/python benches/scripts/python_bench.py playouts [SECONDS]
    .venv/bin/python benches/scripts/python_bench.py vector [SECONDS]
    .venv/bin/python benches/scripts/python_bench.py instructions
    .venv/bin/python benches/scripts/python_bench.py ray [GAMES_PER_PAIR]
    .venv/bin/python benches/scripts/python_bench.py wheel

playouts: random playouts of 3x3 Dark Hex, state by state from Python
(`legal_actions`, a random choice, `apply_action` until the end), with
darkhex and with pyspiel's C++ dark_hex in the same run, alternating in
rounds so both see the same load; then darkhex.VectorEnv with 4,096 games
(actions drawn at random among the legal ones either with numpy from the
legal-action masks, as a learner's policy would choose them, or by the
environment's `sample_legal_actions`; each step also returns the
information-state tensors, rewards and done flags).
Prints steps a second of each and the ratios.

vector: darkhex.VectorEnv with sample_legal_actions() alone, for 128 to
4,096 games on one and on two threads (RAYON_NUM_THREADS, each in a fresh
process): steps a second.

instructions: the same four ways of stepping, counted in instructions per
game step under valgrind's callgrind (the load of a shared machine does
not change them): each is run twice, with no steps and with many, and the
difference is divided by the steps, so start-up and imports drop out. The
vector environment is counted on one thread: the work, without the pool's
waiting.

ray: a 4-player round-robin league on 3x3 Dark Hex (333 games per pair,
1,998 games; random and ISMCTS players) by `darkhex league --threads 2`
and by darkhex.ray.league on a two-node local Ray cluster of one CPU per
node, the same cores; the cluster's start is timed apart. The two logs
must be equal.

wheel: `maturin build --release` of ./python, its wall time and the wheel's
size (the Rust crates below it compiled already: run the Rust build first).
"""
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
GAME = "dark_hex(num_rows=3,num_cols=3)"


def playouts_per_second(load_game, seconds):
    game = load_game(GAME)
    rng = random.Random(0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps / (time.perf_counter() - start)


def vector_env_steps_per_second(seconds, sampler, n=4096):
    import numpy as np

    import darkhex

    env = darkhex.VectorEnv(darkhex.load_game(GAME), n, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if sampler:
            actions = env.sample_legal_actions()
        else:
            mask = env.legal_actions_mask()
            actions = np.argmax(rng.random(mask.shape, dtype=np.float32) * mask, axis=1)
        env.step(actions)
        steps += n
    return steps / (time.perf_counter() - start)


def playouts(seconds=3.0, rounds=3):
    import pyspiel

    import darkhex

    ours, theirs, vector, sampled = [], [], [], []
    for _ in range(rounds):
        ours.append(playouts_per_second(darkhex.load_game, seconds))
        theirs.append(playouts_per_second(pyspiel.load_game, seconds))
        vector.append(vector_env_steps_per_second(seconds, sampler=False))
        sampled.append(vector_env_steps_per_second(seconds, sampler=True))
    best = lambda xs: max(xs)  # noqa: E731 (the least disturbed round)
    print(f"3x3 Dark Hex, random playouts from Python, best of {rounds} rounds of {seconds:.0f} s")
    print(f"  darkhex State      {best(ours):>12,.0f} steps/s   rounds {[round(x) for x in ours]}")
    print(f"  pyspiel dark_hex   {best(theirs):>12,.0f} steps/s   rounds {[round(x) for x in theirs]}")
    print(f"  VectorEnv, numpy   {best(vector):>12,.0f} steps/s   rounds {[round(x) for x in vector]}")
    print(f"  VectorEnv, sampled {best(sampled):>12,.0f} steps/s   rounds {[round(x) for x in sampled]}")
    print(f"  State / pyspiel               {best(ours) / best(theirs):.2f}x")
    print(f"  VectorEnv numpy / pyspiel     {best(vector) / best(theirs):.1f}x")
    print(f"  VectorEnv sampled / pyspiel   {best(sampled) / best(theirs):.1f}x")


def vector_sizes(seconds=2.0):
    sizes = [128, 256, 1024, 2048, 4096]
    print(f"darkhex.VectorEnv on 3x3 Dark Hex, sample_legal_actions(), best of 3 rounds of {seconds:.0f} s")
    print(f"  {'games':>6} {'1 thread':>16} {'2 threads':>16}")
    for n in sizes:
        row = []
        for threads in (1, 2):
            out = subprocess.run(
                [sys.executable, __file__, "vector-one", str(n), str(seconds)],
                env={**os.environ, "RAYON_NUM_THREADS": str(threads)},
                check=True, capture_output=True, text=True,
            ).stdout
            row.append(float(out))
        print(f"  {n:>6,} {row[0]:>16,.0f} {row[1]:>16,.0f}")


def run_steps(way, steps):
    """Steps 3x3 Dark Hex `steps` times one way (what `instructions` counts)."""
    if way in ("darkhex", "pyspiel"):
        if way == "darkhex":
            import darkhex as lib
        else:
            import pyspiel as lib
        game = lib.load_game(GAME)
        rng = random.Random(0)
        done = 0
        while done < steps:
            state = game.new_initial_state()
            while not state.is_terminal() and done < steps:
                state.apply_action(rng.choice(state.legal_actions()))
                done += 1
        return
    import numpy as np

    import darkhex

    n = 4096
    env = darkhex.VectorEnv(darkhex.load_game(GAME), n, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(steps // n):
        if way == "vector-sampled":
            actions = env.sample_legal_actions()
        else:
            mask = env.legal_actions_mask()
            actions = np.argmax(rng.random(mask.shape, dtype=np.float32) * mask, axis=1)
        env.step(actions)


def instructions():
    if shutil.which("valgrind") is None:
        sys.exit("instructions needs valgrind (apt-get install valgrind)")
    work = pathlib.Path(tempfile.mkdtemp())

    def count(way, n):
        out = work / f"{way}.{n}"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
             sys.executable, __file__, "steps", way, str(n)],
            check=True, capture_output=True,
            # Callgrind runs threads one at a time, so a second worker's
            # count would be its spinning while it waits its turn.
            env=dict(os.environ, RAYON_NUM_THREADS="1"),
        )
        for line in out.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
        sys.exit(f"no instruction count in {out}")

    print("3x3 Dark Hex from Python: instructions per game step (callgrind, many steps less none)")
    for way, what, steps in [
        ("darkhex", "darkhex State, state by state", 20_000),
        ("pyspiel", "pyspiel dark_hex, state by state", 20_000),
        ("vector-numpy", "VectorEnv, numpy over the masks", 15 * 4096),
        ("vector-sampled", "VectorEnv, sample_legal_actions", 15 * 4096),
    ]:
        per_step = (count(way, steps) - count(way, 0)) / steps
        print(f"  {what:<34} {per_step:>8,.0f}")
    shutil.rmtree(work)


def league_toml(games_per_pair):
    players = ["random", "ismcts(sims=25)", "ismcts(sims=50)", "ismcts(sims=100)"]
    lines = [f'game = "{GAME}"', f"games_per_pair = {games_per_pair}", "seed = 1"]
    for p in players:
        lines += ["[[players]]", f'spec = "{p}"']
    return "\n".join(lines) + "\n"


def ray_overhead(games_per_pair=333):
    import ray
    from ray.cluster_utils import Cluster

    import darkhex.ray

    binary = os.environ.get("DARKHEX_BIN", str(REPO / "target" / "release" / "darkhex"))
    work = pathlib.Path(tempfile.mkdtemp())
    (work / "t.toml").write_text(league_toml(games_per_pair))
    start = time.perf_counter()
    subprocess.run(
        [binary, "league", "t.toml", "--threads", "2", "--out", "cli"],
        cwd=work, check=True, capture_output=True,
    )
    cli = time.perf_counter() - start
    start = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    boot = time.perf_counter() - start
    start = time.perf_counter()
    result = darkhex.ray.league(league_toml(games_per_pair), out=work / "ray")
    on_ray = time.perf_counter() - start
    ray.shutdown()
    cluster.shutdown()
    games = len(result.games)
    same = _sorted_lines(work / "cli") == _sorted_lines(work / "ray")
    print(f"4-player league on {GAME}, {games} games, 2 cores")
    print(f"  darkhex league --threads 2     {cli:8.1f} s")
    print(f"  darkhex.ray.league, 2 nodes    {on_ray:8.1f} s   ({on_ray / cli:.2f}x the CLI)")
    print(f"  cluster start (2 nodes)        {boot:8.1f} s")
    print(f"  logs hold the same games: {same}")
    shutil.rmtree(work)


def _sorted_lines(out):
    # The CLI on two threads writes games as they finish; the games, ids
    # aside, are the same.
    rows = []
    for line in (out / "results.jsonl").read_text().splitlines()[1:]:
        g = json.loads(line)
        g.pop("id")
        rows.append(json.dumps(g, sort_keys=True))
    return sorted(rows)


def wheel():
    out = pathlib.Path(tempfile.mkdtemp())
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "maturin", "build", "--release", "-m", str(REPO / "python" / "Cargo.toml"),
         "--out", str(out)],
        check=True, capture_output=True,
    )
    seconds = time.perf_counter() - start
    [whl] = list(out.glob("*.whl"))
    print(f"wheel {whl.name}: {whl.stat().st_size / 1e6:.2f} MB, built in {seconds:.1f} s")
    shutil.rmtree(out)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "playouts"
    arg = sys.argv[2] if len(sys.argv) > 2 else None
    if what == "playouts":
        playouts(float(arg) if arg else 3.0)
    elif what == "vector":
        vector_sizes(float(arg) if arg else 2.0)
    elif what == "vector-one":
        n, seconds = int(arg), float(sys.argv[3])
        print(max(vector_env_steps_per_second(seconds, sampler=True, n=n) for _ in range(3)))
    elif what == "instructions":
        instructions()
    elif what == "steps":
        run_steps(arg, int(sys.argv[3]))
    elif what == "ray":
        ray_overhead(int(arg) if arg else 333)
    elif what == "wheel":
        wheel()
    else:
        sys.exit(f"unknown benchmark '{what}': playouts, vector, instructions, ray or wheel")
