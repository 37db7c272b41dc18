"""The vector environment steps many games as the State API steps one."""

import os
import subprocess
import sys

import numpy as np
import pytest

import darkhex


def random_legal(mask, rng):
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask])


@pytest.mark.parametrize(
    "name", ["dark_hex(num_rows=3,num_cols=3)", "leduc_poker", "hex(board_size=3)"]
)
def test_steps_agree_with_the_state_api(name):
    game = darkhex.load_game(name)
    n = 16
    env = darkhex.VectorEnv(game, n, seed=9)
    obs = env.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(150):
        states = env.states()
        mask = env.legal_actions_mask()
        players = env.current_players()
        for i, s in enumerate(states):
            assert s.current_player() == players[i]
            assert np.array_equal(s.information_state_tensor(), obs[i])
            assert s.legal_actions_mask() == mask[i].astype(int).tolist()
        actions = random_legal(mask, rng)
        obs, rewards, dones = env.step(actions)
        after = env.states()
        for i, s in enumerate(states):
            s.apply_action(int(actions[i]))
            if dones[i]:
                finished += 1
                assert s.is_terminal() and s.returns() == rewards[i].tolist()
                assert after[i].is_player_node() and len(after[i].history()) <= 2  # a new game
            else:
                assert not rewards[i].any()
                assert after[i].history()[: len(s.history())] == s.history()
    assert finished > 10


def test_games_restart_with_fresh_observations_and_seeds_repeat():
    game = darkhex.load_game("dark_hex(num_rows=2,num_cols=2)")
    runs = []
    for _ in range(2):
        env = darkhex.VectorEnv(game, 64, seed=42)
        env.reset()
        rng = np.random.default_rng(1)
        total = np.zeros(2)
        dones_seen = 0
        for _ in range(50):
            obs, rewards, dones = env.step(random_legal(env.legal_actions_mask(), rng))
            total += rewards.sum(axis=0)
            dones_seen += int(dones.sum())
            fresh = obs[dones]
            start = game.new_initial_state().information_state_tensor()
            assert all(np.array_equal(row, start) for row in fresh)
        runs.append((total.tolist(), dones_seen))
    assert runs[0] == runs[1]
    assert runs[0][1] > 100 and runs[0][0][0] == -runs[0][0][1]


def test_bad_steps_are_refused_before_any_game_moves():
    env = darkhex.VectorEnv(darkhex.load_game("hex(board_size=2)"), 3)
    env.reset()
    env.step(np.array([0, 1, 2]))
    before = env.obs().copy()
    with pytest.raises(ValueError, match="game 1: action 1 is not legal there"):
        env.step(np.array([1, 1, 1]))
    with pytest.raises(ValueError, match="game 0: action -1 is not legal there"):
        env.step(np.array([-1, 7, 1]))
    assert np.array_equal(env.obs(), before)
    with pytest.raises(ValueError, match="one action per game: 3, not 2"):
        env.step(np.array([0, 1]))
    for n in (0, -1):
        with pytest.raises(ValueError, match=f"n: {n} is out of range; accepted: 1 or more"):
            darkhex.VectorEnv(darkhex.load_game("hex(board_size=2)"), n)
    with pytest.raises(ValueError, match="seed: -1 is out of range; accepted: 0 to 18446744073709551615"):
        darkhex.VectorEnv(darkhex.load_game("hex(board_size=2)"), 1, seed=-1)


def test_more_games_than_memory_are_refused_not_aborted():
    # 10^8 games of 3x3 Hex are tens of GB: the allocation used to abort
    # the interpreter (or the OOM killer ended it).
    game = darkhex.load_game("hex(board_size=3)")
    for n in (10**8, 10**12, 2**63):
        with pytest.raises(MemoryError, match=f"a VectorEnv of {n} games of hex\\(board_size=3\\) would need about .*, more than the .* allowed here"):
            darkhex.VectorEnv(game, n)
    assert darkhex.VectorEnv(game, 1000).num_envs == 1000


def test_any_integer_array_like_steps_and_the_rest_is_refused():
    game = darkhex.load_game("hex(board_size=2)")
    runs = {}
    for kind, actions in [
        ("int64", lambda a: np.array(a, dtype=np.int64)),
        ("int32", lambda a: np.array(a, dtype=np.int32)),
        ("int8", lambda a: np.array(a, dtype=np.int8)),
        ("uint64", lambda a: np.array(a, dtype=np.uint64)),
        ("uint16", lambda a: np.array(a, dtype=np.uint16)),
        ("list", list),
        ("tuple", tuple),
        ("numpy ints", lambda a: [np.int32(x) for x in a]),
    ]:
        env = darkhex.VectorEnv(game, 3, seed=1)
        env.reset()
        outs = [env.step(actions([0, 1, 2])), env.step(actions([3, 3, 3]))]
        runs[kind] = [x.tolist() for out in outs for x in out]
    assert all(run == runs["int64"] for run in runs.values()), runs
    env = darkhex.VectorEnv(game, 3)
    env.reset()
    before = env.obs().copy()
    for bad, says in [
        ([0.0, 1.0, 2.0], "integer action ids .* not values of type float64"),
        ([True, False, True], "not values of type bool"),
        (np.array(["a", "b", "c"]), "not values of type <U1"),
        ([[0, 1, 2]], "one-dimensional array .* not one of shape \\(1, 3\\)"),
        (5, "not one of shape \\(\\)"),
        ([0, 1], "one action per game: 3, not 2"),
        (np.array([0, 1], dtype=np.int32), "one action per game: 3, not 2"),
        ([0, 1, 9], "game 2: action 9 is not legal there"),
        (np.array([0, 2**64 - 1, 1], dtype=np.uint64), "game 1: action 18446744073709551615 is not legal"),
        ([0, 2**70, 1], "integer action ids .* not values of type object"),
    ]:
        with pytest.raises(ValueError, match=says):
            env.step(bad)
    assert np.array_equal(env.obs(), before)


def test_the_first_bad_game_is_named_across_tasks_and_strides():
    # Actions are checked in chunks on the pool; the lowest bad game must
    # win whichever chunk finds its own first.
    n = 2000
    env = darkhex.VectorEnv(darkhex.load_game("hex(board_size=3)"), n, seed=2)
    env.reset()
    actions = env.sample_legal_actions()
    before = env.obs().copy()
    bad = actions.copy()
    bad[[1500, 300, 1999]] = 9
    with pytest.raises(ValueError, match="^game 300: action 9 is not legal"):
        env.step(bad)
    # A strided view is copied before the check; the same verdict.
    strided = np.repeat(bad, 2)[::2]
    assert not strided.flags["C_CONTIGUOUS"]
    with pytest.raises(ValueError, match="^game 300: action 9 is not legal"):
        env.step(strided)
    assert np.array_equal(env.obs(), before)
    obs, _, _ = env.step(np.repeat(actions, 2)[::2])
    assert not np.array_equal(obs, before)


def test_sampled_actions_are_legal_and_uniform():
    # Sampling draws among the legal actions from bit masks kept beside the
    # games; a wrong pick skews the draw or plays what is not legal.
    n = 4000
    env = darkhex.VectorEnv(darkhex.load_game("dark_hex(num_rows=3,num_cols=3)"), n, seed=3)
    env.reset()
    first = env.sample_legal_actions()
    # Every game is at its start: 9 cells, each drawn 1/9 of the time
    # (444 of 4,000, standard deviation 20).
    counts = np.bincount(first, minlength=9)
    assert all(abs(c - n / 9) < 100 for c in counts), counts
    env.step(first)
    for _ in range(40):
        actions = env.sample_legal_actions()
        mask = env.legal_actions_mask()
        assert mask[np.arange(n), actions].all()
        env.step(actions)


STEPS_DIGEST = """
import hashlib, darkhex
env = darkhex.VectorEnv(darkhex.load_game("dark_hex(num_rows=3,num_cols=3,gameversion=adh)"), 700, seed=5)
digest = hashlib.sha256(env.reset().tobytes())
for _ in range(40):
    actions = env.sample_legal_actions()
    for out in (actions, env.legal_actions_mask(), *env.step(actions)):
        digest.update(out.tobytes())
print(digest.hexdigest())
"""


def test_threads_do_not_change_the_steps():
    # 700 games are stepped in several tasks; each game's streams are its own.
    digests = set()
    for threads in ("1", "2", "3"):
        env = dict(os.environ, RAYON_NUM_THREADS=threads)
        run = subprocess.run(
            [sys.executable, "-c", STEPS_DIGEST], env=env, capture_output=True, text=True, check=True
        )
        digests.add(run.stdout.strip())
    assert len(digests) == 1, digests
