"""darkhex games driven by OpenSpiel, and darkhex's tensors against OpenSpiel's."""

import copy
import pickle
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

@pytest.mark.parametrize("name", ["dark_hex(num_rows=2,num_cols=3,gameversion=adh)", "hex(board_size=3)", "leduc_poker"])
def test_bridged_games_and_states_pickle_and_deep_copy(name):
    # OpenSpiel pickles through the game string, which reads
    # `python_darkhex(game=dark_hex(...))` back as a game-valued parameter
    # and refused it.
    game = darkhex.openspiel.load_game(name)
    state = game.new_initial_state()
    rng = random.Random(1)
    for _ in range(3):
        state.apply_action(rng.choice(state.legal_actions()))
    for copied in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert type(copied) is type(state) and copied is not state
        assert copied.history() == state.history() and str(copied) == str(state)
        assert copied.information_state_string(1) == state.information_state_string(1)
        assert copied.get_game().get_parameters() == game.get_parameters()
        action = copied.legal_actions()[0]
        copied.apply_action(action)
        assert copied.history() == state.history() + [action]
    same = pickle.loads(pickle.dumps(game))
    assert same.get_parameters() == {"game": str(darkhex.load_game(name))}
    assert same.num_distinct_actions() == game.num_distinct_actions()
    assert copy.deepcopy(game).get_parameters() == game.get_parameters()


def test_the_game_parameter_is_required():
    # Without it the game used to be Kuhn poker, silently.
    with pytest.raises(ValueError, match="python_darkhex needs the `game` parameter, a darkhex game string: "
                       "pyspiel.load_game\\('python_darkhex', \\{'game': 'dark_hex\\(num_rows=3,num_cols=3\\)'\\}\\)"):
        pyspiel.load_game("python_darkhex")
    game = pyspiel.load_game("python_darkhex", {"game": "leduc_poker"})
    assert game.num_distinct_actions() == 3 and game.get_parameters() == {"game": "leduc_poker"}


def assert_same_tensors(ours, theirs):
    """Both players' tensors of a darkhex state and an OpenSpiel one, value for value."""
    for p in (0, 1):
        assert ours.information_state_tensor(p).tolist() == theirs.information_state_tensor(p), ours.history()
        assert ours.observation_tensor(p).tolist() == theirs.observation_tensor(p), ours.history()


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_poker_tensors_are_openspiels_value_for_value(name, reference):
    ours, theirs = darkhex.load_game(name), pyspiel.load_game(name)
    compared = 0
    stack = [(ours.new_initial_state(), theirs.new_initial_state())]
    while stack:
        a, b = stack.pop()
        if a.is_terminal():
            continue
        assert_same_tensors(a, b)
        compared += 2
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


@pytest.mark.parametrize(
    "name",
    [
        "dark_hex(num_rows=3,num_cols=3)",
        "dark_hex(num_rows=3,num_cols=3,gameversion=adh)",
        "dark_hex(num_rows=3,num_cols=3,obstype=reveal-numturns)",
        "dark_hex(num_rows=3,num_cols=2,gameversion=adh,obstype=reveal-numturns)",
    ],
)
def test_dark_hex_tensors_in_openspiels_layout_are_openspiels_value_for_value(name):
    ours, theirs = darkhex.load_game(name), pyspiel.load_game(name)
    assert ours.information_state_tensor_shape(layout="openspiel") == theirs.information_state_tensor_shape()
    rng = random.Random(13)
    compared = 0
    for _ in range(200):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        while not a.is_terminal():
            mover = a.current_player()
            for p in (0, 1):
                try:
                    tensor = a.information_state_tensor(p, layout="openspiel")
                except ValueError as e:
                    # Only the waiting player may see no empty cell (and so have no information state).
                    assert p != mover and "sees no empty cell" in str(e), (name, a.history(), p)
                    continue
                assert tensor.dtype == np.float32
                assert tensor.tolist() == b.information_state_tensor(p), (name, a.history(), p)
                compared += 1
            action = rng.choice(a.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
    assert compared > 2000


def test_an_unknown_tensor_layout_is_refused():
    game = darkhex.load_game("dark_hex(num_rows=2,num_cols=2)")
    with pytest.raises(ValueError, match="accepted layouts are darkhex, openspiel"):
        game.information_state_tensor_size(layout="torch")
    with pytest.raises(ValueError, match="OpenSpiel's dark_hex has no"):
        darkhex.load_game("dark_rex(num_rows=2,num_cols=2)").information_state_tensor_size(layout="openspiel")


@pytest.mark.parametrize(
    "name",
    [
        "phantom_ttt",
        "phantom_ttt(gameversion=abrupt)",
        "phantom_ttt(obstype=reveal-numturns)",
        "phantom_ttt(gameversion=abrupt,obstype=reveal-numturns)",
    ],
)
def test_phantom_ttt_tensors_and_moves_are_openspiels_on_random_games(name):
    ours, theirs = darkhex.load_game(name), pyspiel.load_game(name)
    rng = random.Random(11)
    results = set()
    for _ in range(300):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        while not a.is_terminal():
            assert a.current_player() == b.current_player()
            assert a.legal_actions() == b.legal_actions()
            assert_same_tensors(a, b)
            action = rng.choice(a.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
        assert b.is_terminal() and list(a.returns()) == b.returns()
        results.add(tuple(b.returns()))
    assert (0.0, 0.0) in results and len(results) == 3, "wins for each and draws"


def test_liars_dice_tensors_are_openspiels_where_players_move():
    """Value for value at every decision (OpenSpiel shows each die as it
    lands, darkhex once a player's dice are all rolled: see the Rust docs)."""
    name = "liars_dice(numdice=2,dice_sides=2)"
    ours, theirs = darkhex.load_game(name), pyspiel.load_game(name)
    stack = [(ours.new_initial_state(), theirs.new_initial_state())]
    compared = 0
    while stack:
        a, b = stack.pop()
        if a.is_terminal():
            assert list(a.returns()) == b.returns()
            continue
        if not a.is_chance_node():
            assert_same_tensors(a, b)
            compared += 1
        for action in a.legal_actions():
            ca, cb = a.clone(), b.clone()
            ca.apply_action(action)
            cb.apply_action(action)
            stack.append((ca, cb))
    assert compared == 16 * 256
