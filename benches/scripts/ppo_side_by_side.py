#!/usr/bin/env python3
"""PPO's training speed on 3x3 Dark Hex: darkhex against IIG-RL-Benchmark.

Both train PPO (or MMD) in self-play on the benchmark's best settings for
the game (its best_hyperparameters folder; darkhex's `--preset
rudolph2026`) and network (towers of three layers of 512), from scratch,
for the same number of steps, and report steps a second of training (no
exploitability is computed: the benchmark's needs exp-a-spiel, darkhex's
is exact by its own streaming pass, see docs/guide/rl.md).

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

PyPI's OpenSpiel differs from the fork the benchmark pins (its dark_hex
fixes and abrupt phantom tic-tac-toe); 3x3 Dark Hex runs on both. Torch
takes `--threads` intra-op threads, darkhex `--threads` threads.
"""

import argparse
import json
import os
import subprocess
import sys
import time

GAMES = {
    "abrupt": (
        "dark_hex(gameversion=adh,board_size=3,obstype=reveal-nothing)",
        "dark_hex(num_rows=3,num_cols=3,gameversion=adh)",
    ),
    "classic": (
        "dark_hex(gameversion=cdh,board_size=3,obstype=reveal-nothing)",
        "dark_hex(num_rows=3,num_cols=3)",
    ),
}

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

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    name, _ = GAMES[args.game]
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
    start = time.perf_counter()
    update = -1
    while agent.total_steps_done < args.steps:
        update += 1
        for _ in range(common["steps_per_batch"]):
            outputs = agent.step(time_steps)
            time_steps, rewards, dones, _ = envs.step(outputs, reset_if_done=True)
            agent.post_step([r[0] for r in rewards], dones)
        agent.anneal_learning_rate(update, updates)
        learn(time_steps, agent.total_steps_done, args.steps)
    seconds = time.perf_counter() - start
    print(json.dumps({"steps": agent.total_steps_done, "seconds": seconds}))


def darkhex_one(args):
    _, game = GAMES[args.game]
    out = subprocess.run(
        [args.darkhex, "train", game, "--algo", args.algo, "--preset", "rudolph2026",
         "--steps", str(args.steps), "--seed", str(args.seed), "--threads", str(args.threads),
         "--out", "/dev/null", "--no-eval", "--json"],
        capture_output=True, text=True, check=True,
    )
    run = json.loads(out.stdout)
    return {"steps": run["steps"], "seconds": run["session"]["seconds"]}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--benchmark", help="a clone of IIG-RL-Benchmark")
    p.add_argument("--python", help="a Python with torch and open_spiel")
    p.add_argument("--darkhex", default=os.path.join(os.path.dirname(__file__), "../../target/release/darkhex"))
    p.add_argument("--game", choices=sorted(GAMES), default="abrupt")
    p.add_argument("--algo", choices=["ppo", "mmd"], default="ppo")
    p.add_argument("--steps", type=int, default=20480)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        benchmark_one(args)
        return
    theirs = subprocess.run(
        [args.python, __file__, "--one", "--benchmark", args.benchmark, "--game", args.game,
         "--algo", args.algo, "--steps", str(args.steps), "--threads", str(args.threads),
         "--seed", str(args.seed)],
        capture_output=True, text=True, check=True,
    )
    theirs = json.loads(theirs.stdout.strip().splitlines()[-1])
    ours = darkhex_one(args)
    for who, run in [("IIG-RL-Benchmark", theirs), ("darkhex", ours)]:
        print(f"{who:18} {args.algo} {args.game} 3x3: {run['steps']} steps in {run['seconds']:.1f} s, "
              f"{run['steps'] / run['seconds']:.0f} steps a second")
    print(f"ratio (wall): {theirs['seconds'] / ours['seconds'] * ours['steps'] / theirs['steps']:.2f}x")


if __name__ == "__main__":
    main()
