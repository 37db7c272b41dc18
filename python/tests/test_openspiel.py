"""darkhex games driven by OpenSpiel, and darkhex's tensors against OpenSpiel's."""

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed (pip install open_spiel); scripts/test.sh installs it"
)

import darkhex  # noqa: E402
import darkhex.openspiel  # noqa: E402
from open_spiel.python import rl_environment  # noqa: E402
from open_spiel.python.algorithms import cfr, exploitability  # noqa: E402


def test_openspiels_cfr_plus_on_a_darkhex_game_reaches_darkhexs_exploitability():
    game = darkhex.openspiel.load_game("kuhn_poker")
    solver = cfr.CFRPlusSolver(game)
    for _ in range(50):
        solver.evaluate_and_update_policy()
    theirs = exploitability.exploitability(game, solver.average_policy())
    ours = darkhex.train(darkhex.load_game("kuhn_poker"), algo="cfr+", iterations=50).exploitability
    assert abs(theirs - ours) < 1e-12, (theirs, ours)
    assert 1e-4 < ours < 1e-2


@pytest.mark.parametrize(
    "name", ["leduc_poker", "dark_hex(num_rows=2,num_cols=2,gameversion=adh)"]
)
def test_openspiels_exploitability_of_a_darkhex_policy_is_darkhexs(name):
    game = darkhex.load_game(name)
    policy = darkhex.train(game, algo="cfr", iterations=20).policy
    ours = darkhex.exploitability(game, policy)
    spiel_game = darkhex.openspiel.load_game(name)
    theirs = exploitability.exploitability(spiel_game, policy.to_openspiel(spiel_game))
    assert abs(theirs - ours) < 1e-12, (theirs, ours)
    assert ours > 1e-3


def test_an_rl_environment_plays_dark_hex_episodes():
    game = darkhex.openspiel.load_game("dark_hex(num_rows=3,num_cols=3)")
    env = rl_environment.Environment(game, seed=3)
    size = darkhex.load_game("dark_hex(num_rows=3,num_cols=3)").information_state_tensor_size()
    assert env.observation_spec()["info_state"] == (size,)
    rng = random.Random(3)
    wins = [0, 0]
    for _ in range(30):
        step = env.reset()
        moves = 0
        while not step.last():
            player = step.observations["current_player"]
            legal = step.observations["legal_actions"][player]
            assert len(step.observations["info_state"][player]) == size
            step = env.step([rng.choice(legal)])
            moves += 1
        assert 5 <= moves <= 17
        assert sorted(step.rewards) == [-1.0, 1.0]
        wins[step.rewards.index(1.0)] += 1
    assert sum(wins) == 30


def test_openspiel_states_wrap_darkhex_states():
    game = darkhex.openspiel.load_game("dark_hex(num_rows=2,num_cols=2)")
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(0)
    assert state.current_player() == 1
    assert state.information_state_string(1) == "1: [hit a1]"
    assert state.history() == [0, 0]
    clone = state.clone()
    clone.apply_action(3)
    assert state.history() == [0, 0] and clone.history() == [0, 0, 3]
    assert np.array_equal(
        state.information_state_tensor(1), state.darkhex_state.information_state_tensor(1)
    )
    with pytest.raises(ValueError, match="unknown game"):
        darkhex.openspiel.load_game("chess")

@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_poker_tensors_are_openspiels_value_for_value(name, reference):
    ours, theirs = darkhex.load_game(name), pyspiel.load_game(name)
    compared = 0
    stack = [(ours.new_initial_state(), theirs.new_initial_state())]
    while stack:
        a, b = stack.pop()
        if a.is_terminal():
            continue
        for p in (0, 1):
            assert a.information_state_tensor(p).tolist() == b.information_state_tensor(p), a.history()
            assert a.observation_tensor(p).tolist() == b.observation_tensor(p), a.history()
            compared += 1
        for action in a.legal_actions():
            ca, cb = a.clone(), b.clone()
            ca.apply_action(action)
            cb.apply_action(action)
            stack.append((ca, cb))
    facts = reference[name]
    assert compared == 2 * (facts["histories"] - facts["terminals"])


@pytest.mark.parametrize("version", ["cdh", "adh"])
def test_dark_hex_tensors_tell_apart_what_openspiels_tell_apart(version):
    """On random 3x3 playouts, two decision points share darkhex's tensor
    exactly when they share OpenSpiel's (which has perfect recall there)."""
    name = f"dark_hex(num_rows=3,num_cols=3,gameversion={version})"
    ours, theirs = darkhex.load_game(name), pyspiel.load_game(name)
    rng = random.Random(5)
    pairs = {}
    for _ in range(400):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        while not a.is_terminal():
            p = a.current_player()
            key = (p, a.information_state_tensor().tobytes())
            other = (p, tuple(b.information_state_tensor(p)))
            pairs.setdefault(key, set()).add(other)
            action = rng.choice(a.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
    inverse = {}
    for key, others in pairs.items():
        assert len(others) == 1, "one darkhex tensor, several OpenSpiel ones"
        inverse.setdefault(next(iter(others)), set()).add(key)
    assert all(len(keys) == 1 for keys in inverse.values()), "one OpenSpiel tensor, several darkhex ones"
    assert len(pairs) > 1000
