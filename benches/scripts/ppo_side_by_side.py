#!/usr/bin/env python3
"""PPO on 3x3 Dark Hex: darkhex against IIG-RL-Benchmark, speed and exploitability.

Both train PPO (or MMD) in self-play on the benchmark's best settings for
the game (its best_hyperparameters folder; darkhex's `--preset
rudolph2026`) and network (towers of three layers of 512), from scratch,
for the same number of steps, and report steps a second of training.
With `--eval-every K` each side's policy is also measured exactly every K
steps: darkhex's by its own streaming pass (`train --eval-every`, see
docs/guide/rl.md), the benchmark's actor saved at the same steps and
measured afterwards (`--benchmark-eval`) by exp-a-spiel (the `eas` module
the benchmark builds from source) as the benchmark's main.py does (the
mean of the two best responses' gains), or by darkhex's exact evaluation
of the actor on OpenSpiel's tensors (`darkhex.exploitability(game,
policy, layout="openspiel")`, darkhex's package installed in --python),
the default where exp-a-spiel does not fit in memory (abrupt 3x3 needs
about 34 GB). `--plot FILE.svg` draws both curves against steps and
against training seconds (matplotlib in the Python running this script);
results: docs/results/rl.md.

The benchmark's side runs its own PPO and MMD classes
(algorithms/ppo/ppo.py, algorithms/mmd/mmd.py of a clone of
github.com/nathanlct/IIG-RL-Benchmark) in the loop of its runners
(algorithms/ppo/run_ppo.py), on OpenSpiel's vector environment, in a
Python kept outside the repository with torch (CPU) and open_spiel:

    python3 -m venv /tmp/venv-rl
    /tmp/venv-rl/bin/pip install torch --index-url https://download.pytorch.org/whl/cpu
    /tmp/venv-rl/bin/pip install open_spiel numpy
    git clone https://github.com/nathanlct/IIG-RL-Benchmark /tmp/iig
    cargo build --release
    python3 benches/scripts/ppo_side_by_side.py --benchmark /tmp/iig \\
        --python /tmp/venv-rl/bin/python --steps 20480
    # with exploitability, two seeds, a plot (eas built into that Python,
    # or darkhex's package: pip install ./python, for --benchmark-eval darkhex):
    python3 benches/scripts/ppo_side_by_side.py --benchmark /tmp/iig \\
        --python /tmp/venv-rl/bin/python --steps 16384 --eval-every 8192 \\
        --seeds 0 1 --threads 1 --workdir /tmp/sbs --plot sbs.svg

PyPI's OpenSpiel differs from the fork the benchmark pins (its dark_hex
fixes and abrupt phantom tic-tac-toe); 3x3 Dark Hex runs on both. Torch
takes `--threads` intra-op threads, darkhex `--threads` threads.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

GAMES = {
    # (the benchmark's OpenSpiel string, darkhex's, exp-a-spiel's traverser)
    "abrupt": (
        "dark_hex(gameversion=adh,board_size=3,obstype=reveal-nothing)",
        "dark_hex(num_rows=3,num_cols=3,gameversion=adh)",
        "abrupt_dark_hex",
    ),
    "classic": (
        "dark_hex(gameversion=cdh,board_size=3,obstype=reveal-nothing)",
        "dark_hex(num_rows=3,num_cols=3)",
        "classical_dark_hex",
    ),
}

# exp-a-spiel's peak memory for its tables and one exploitability, in GB
# (docs/results/dark-hex-3x3.md: 7.4 on classic, 23 to 33 on abrupt).
EAS_GB = {"classic": 7.4, "abrupt": 33.0}


def meminfo_gb(field):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 2**20
    return 0.0


# The benchmark's best settings (best_hyperparameters/min_final_expl_hparams).
BEST = {
    ("abrupt", "ppo"): dict(num_steps=256, num_minibatches=8, update_epochs=4, learning_rate=0.00025,
                            clip_coef=0.025, ent_coef=0.05, vf_coef=0.0625, max_grad_norm=2.0),
    ("classic", "ppo"): dict(num_steps=512, num_minibatches=4, update_epochs=8, learning_rate=0.002,
                             clip_coef=0.025, ent_coef=0.05, vf_coef=1.0, max_grad_norm=2.0),
    ("abrupt", "mmd"): dict(num_steps=32, num_minibatches=32, update_epochs=2, learning_rate=6.25e-05,
                            clip_coef=0.8, ent_coef=0.05, vf_coef=0.0625, max_grad_norm=0.5, kl_coef=0.1),
    ("classic", "mmd"): dict(num_steps=128, num_minibatches=4, update_epochs=1, learning_rate=6.25e-05,
                             clip_coef=0.1, ent_coef=0.2, vf_coef=2.0, max_grad_norm=2.0, kl_coef=0.025),
}


def benchmark_one(args):
    """Runs in the benchmark's Python: one training run, one JSON line."""
    sys.path.insert(0, args.benchmark)
    import pyspiel
    import torch
    from open_spiel.python.rl_environment import ChanceEventSampler, Environment
    from open_spiel.python.vector_env import SyncVectorEnv

    import numpy as np

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    random.seed(args.seed)
    name = GAMES[args.game][0]
    best = dict(BEST[(args.game, args.algo)])
    num_envs = 8
    envs = SyncVectorEnv(
        [Environment(pyspiel.load_game(name), chance_event_sampler=ChanceEventSampler(seed=args.seed + i))
         for i in range(num_envs)]
    )
    game = envs.envs[0]._game
    common = dict(
        input_shape=game.information_state_tensor_shape(),
        num_actions=game.num_distinct_actions(),
        num_players=2,
        num_envs=num_envs,
        steps_per_batch=best.pop("num_steps"),
        num_minibatches=best.pop("num_minibatches"),
        update_epochs=best.pop("update_epochs"),
        learning_rate=best.pop("learning_rate"),
        clip_coef=best.pop("clip_coef"),
        entropy_coef=best.pop("ent_coef"),
        value_coef=best.pop("vf_coef"),
        max_grad_norm=best.pop("max_grad_norm"),
        gae=True, gamma=0.99, gae_lambda=0.95, normalize_advantages=True, clip_vloss=True,
        target_kl=None, device="cpu",
    )
    if args.algo == "ppo":
        from algorithms.ppo.ppo import PPO, PPOAgent
        agent = PPO(agent_fn=PPOAgent, **common)
        learn = lambda ts, done, total: agent.learn(ts)
    else:
        from algorithms.mmd.mmd import MMD, MMDAgent
        agent = MMD(agent_fn=MMDAgent, kl_coef=best.pop("kl_coef"), **common)
        learn = lambda ts, done, total: agent.learn(ts, done, total)
    batch = num_envs * common["steps_per_batch"]
    updates = args.steps // batch + 1
    time_steps = envs.reset()
    start, cpu = time.perf_counter(), time.process_time()
    saving = 0.0
    saved = []
    update = -1
    while agent.total_steps_done < args.steps:
        update += 1
        for _ in range(common["steps_per_batch"]):
            outputs = agent.step(time_steps)
            time_steps, rewards, dones, _ = envs.step(outputs, reset_if_done=True)
            agent.post_step([r[0] for r in rewards], dones)
        agent.anneal_learning_rate(update, updates)
        learn(time_steps, agent.total_steps_done, args.steps)
        steps = agent.total_steps_done
        if args.eval_every and (steps // args.eval_every > (steps - batch) // args.eval_every
                                or steps >= args.steps):
            # The actor as the benchmark saves it; measured after the run, off the clock.
            begin = time.perf_counter()
            path = os.path.join(args.workdir, f"theirs-{args.game}-{args.algo}-{args.seed}-{steps}.pt")
            agent.save(path)
            saving += time.perf_counter() - begin
            saved.append({"steps": steps, "seconds": time.perf_counter() - start - saving, "actor": path})
    seconds = time.perf_counter() - start - saving
    print(json.dumps({"steps": agent.total_steps_done, "seconds": seconds,
                      "cpu_seconds": time.process_time() - cpu, "saved": saved}))


def benchmark_eval(args):
    """Runs in the benchmark's Python: each saved actor measured exactly, one JSON line."""
    sys.path.insert(0, args.benchmark)
    import pyspiel
    import torch
    from algorithms.ppo.ppo import PPOAgent

    torch.set_num_threads(args.threads)
    name, darkhex_name, traverser_name = GAMES[args.game]
    game = pyspiel.load_game(name)
    evaluator = eval_by_darkhex(darkhex_name, args.threads) if args.benchmark_eval == "darkhex" else None
    if evaluator is None:
        evaluator = eval_by_eas(game, traverser_name, args.game)
        if isinstance(evaluator, dict):
            print(json.dumps(evaluator))
            return
    points = []
    for path in args.actors:
        actor = PPOAgent(game.num_distinct_actions(), game.information_state_tensor_shape(), "cpu").actor
        actor.load_state_dict(torch.load(path))
        begin, cpu = time.perf_counter(), time.process_time()
        point = evaluator(actor)
        points.append(dict(point, actor=path, eval_seconds=time.perf_counter() - begin,
                           eval_cpu_seconds=time.process_time() - cpu))
    print(json.dumps({"evaluator": args.benchmark_eval, "points": points}))


def eval_by_darkhex(darkhex_name, threads):
    """darkhex's exact evaluation of a torch actor on OpenSpiel's tensors: the
    actor over every information state (batches of 1,024), its logits masked
    and normalised as exp-a-spiel's table builder does (eas_exploitability.py),
    then the exact best responses, streamed over the tables on 3x3."""
    import darkhex
    import torch

    game = darkhex.load_game(darkhex_name)

    def evaluate(actor):
        def policy(tensors, masks, player):
            with torch.no_grad():
                logits = actor(torch.from_numpy(tensors))
                logits = torch.where(torch.from_numpy(masks), logits, -1e9)
                logits -= logits.max(dim=-1, keepdim=True)[0]
                e = torch.exp(logits)
                return (e / e.sum(dim=-1, keepdim=True)).numpy()

        return {"exploitability": darkhex.exploitability(game, policy, layout="openspiel", threads=threads)}

    return evaluate


def eval_by_eas(game, traverser_name, which):
    """exp-a-spiel as the benchmark's main.py runs it (the mean of the two best
    responses' gains), or a dict saying why it cannot run here."""
    from algorithms.eas_exploitability import build_traverser, compute_exploitability

    # Waits for the memory exp-a-spiel needs (other runs may be finishing)
    # rather than let the kernel kill something; never starts where it cannot fit.
    need = EAS_GB[which] + 1.0
    waited = time.perf_counter()
    while meminfo_gb("MemAvailable") < need:
        if need > meminfo_gb("MemTotal") or time.perf_counter() - waited > 1800:
            return {"skipped": f"exp-a-spiel needs about {need:.0f} GB on {which} 3x3, "
                               f"{meminfo_gb('MemAvailable'):.1f} GB available", "points": []}
        time.sleep(10)
    traverser = build_traverser(traverser_name)

    def evaluate(actor):
        ev0, expl0, expl1 = compute_exploitability(actor, actor, traverser, game_name=traverser_name)
        return {"exploitability": (expl0 + expl1) / 2, "value_p0": ev0}

    return evaluate


def default_benchmark_eval(game):
    """exp-a-spiel where it fits in this machine's memory, else darkhex."""
    return "exp-a-spiel" if EAS_GB[game] + 1.0 <= meminfo_gb("MemTotal") else "darkhex"


def darkhex_one(args, seed):
    game = GAMES[args.game][1]
    evals = ["--eval-every", str(args.eval_every)] if args.eval_every else ["--no-eval"]
    model = os.path.join(args.workdir, f"ours-{args.game}-{args.algo}-{seed}.model")
    child = subprocess.Popen(
        [args.darkhex, "train", game, "--algo", args.algo, "--preset", "rudolph2026",
         "--steps", str(args.steps), "--seed", str(seed), "--threads", str(args.threads),
         "--out", model, "--json"] + evals,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    stdout = child.stdout.read()
    # The child's own CPU time (this script runs several children at once).
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise RuntimeError(f"darkhex train exited with status {status}")
    run = json.loads(stdout)
    curve = [{k: p[k] for k in ("steps", "seconds", "exploitability", "value_p0", "eval_seconds")}
             for p in run["curve"]]
    return {"steps": run["steps"], "seconds": run["session"]["seconds"], "curve": curve, "model": model,
            "cpu_seconds_with_evals": usage.ru_utime + usage.ru_stime}


def benchmark_run(args, seed):
    """The benchmark's training run in its Python, then its saved actors measured by exp-a-spiel."""
    common = ["--benchmark", args.benchmark, "--game", args.game, "--algo", args.algo,
              "--threads", str(args.threads), "--benchmark-eval", args.benchmark_eval]
    out = subprocess.run(
        [args.python, __file__, "--one", "--steps", str(args.steps), "--seed", str(seed),
         "--eval-every", str(args.eval_every or 0), "--workdir", args.workdir] + common,
        capture_output=True, text=True, check=True,
    )
    run = json.loads(out.stdout.strip().splitlines()[-1])
    run["curve"] = []
    if run["saved"]:
        out = subprocess.run(
            [args.python, __file__, "--eval", "--actors"] + [p["actor"] for p in run["saved"]] + common,
            capture_output=True, text=True, check=True,
        )
        measured = json.loads(out.stdout.strip().splitlines()[-1])
        if "skipped" in measured:
            run["skipped"] = measured["skipped"]
        run["evaluator"] = measured.get("evaluator")
        run["curve"] = [dict(saved, **{k: m[k] for k in ("exploitability", "value_p0", "eval_seconds") if k in m})
                        for saved, m in zip(run["saved"], measured["points"])]
    return run


def plot(runs, args):
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    colours = {"IIG-RL-Benchmark": "tab:orange", "darkhex": "tab:blue"}
    for (who, seed), run in sorted(runs.items()):
        if not run["curve"]:
            continue
        steps = [p["steps"] for p in run["curve"]]
        seconds = [p["seconds"] for p in run["curve"]]
        expl = [p["exploitability"] for p in run["curve"]]
        label = f"{who}, seed {seed}"
        axes[0].plot(steps, expl, marker="o", color=colours[who], label=label, alpha=0.6 + 0.4 * (seed == 0))
        axes[1].plot(seconds, expl, marker="o", color=colours[who], label=label, alpha=0.6 + 0.4 * (seed == 0))
    axes[0].set_xlabel("steps")
    axes[1].set_xlabel("training seconds (wall)")
    axes[1].set_xscale("log")
    axes[0].set_ylabel("exact exploitability")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{args.algo} on {args.game} 3x3 Dark Hex, the benchmark's best settings")
    fig.tight_layout()
    fig.savefig(args.plot, metadata={"Date": None})


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--benchmark", help="a clone of IIG-RL-Benchmark")
    p.add_argument("--python", help="a Python with torch and open_spiel")
    p.add_argument("--darkhex", default=os.path.join(os.path.dirname(__file__), "../../target/release/darkhex"))
    p.add_argument("--game", choices=sorted(GAMES), default="abrupt")
    p.add_argument("--algo", choices=["ppo", "mmd"], default="ppo")
    p.add_argument("--steps", type=int, default=20480)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--seeds", type=int, nargs="+", default=[0], help="runs of each side, all at once")
    p.add_argument("--eval-every", type=int, default=0, help="steps between exact evaluations")
    p.add_argument("--benchmark-eval", choices=["darkhex", "exp-a-spiel"],
                   help="what measures the benchmark's actors: darkhex's exact evaluation on OpenSpiel's "
                        "tensors (darkhex installed in --python), or exp-a-spiel (default: exp-a-spiel "
                        "where it fits in memory, 8 GB on classic 3x3 and 34 on abrupt, else darkhex)")
    p.add_argument("--workdir", default="/tmp", help="where the benchmark's actors are saved")
    p.add_argument("--plot", help="an SVG of both curves (needs --eval-every)")
    p.add_argument("--json", help="every run and curve, as JSON")
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--eval", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--actors", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args()
    args.benchmark_eval = args.benchmark_eval or default_benchmark_eval(args.game)
    if args.one:
        benchmark_one(args)
        return
    if args.eval:
        benchmark_eval(args)
        return
    jobs = [(who, seed) for seed in args.seeds for who in ("IIG-RL-Benchmark", "darkhex")]
    with ThreadPoolExecutor(len(jobs)) as pool:
        done = pool.map(lambda job: (benchmark_run if job[0] != "darkhex" else darkhex_one)(args, job[1]), jobs)
        runs = dict(zip(jobs, done))
    for (who, seed), run in runs.items():
        cpu = run.get("cpu_seconds", run.get("cpu_seconds_with_evals"))
        print(f"{who:18} {args.algo} {args.game} 3x3 seed {seed}: {run['steps']} steps in {run['seconds']:.1f} s "
              f"({cpu:.1f} CPU s{' with the evaluations' if 'cpu_seconds' not in run else ''}), "
              f"{run['steps'] / run['seconds']:.0f} steps a second")
        for point in run["curve"]:
            print(f"{'':18}   at {point['steps']} steps ({point['seconds']:.1f} s): "
                  f"exploitability {point['exploitability']:.6f}")
    for seed in args.seeds:
        theirs, ours = runs[("IIG-RL-Benchmark", seed)], runs[("darkhex", seed)]
        print(f"ratio (wall) seed {seed}: {theirs['seconds'] / ours['seconds'] * ours['steps'] / theirs['steps']:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"who": who, "seed": seed, **run} for (who, seed), run in runs.items()], f, indent=1)
    if args.plot:
        plot(runs, args)


if __name__ == "__main__":
    main()
