"""Games and states: OpenSpiel's names and ids, the CLI's errors, tensors."""

import copy
import pickle
import random

import numpy as np
import pytest

import darkhex


def all_states(game):
    """Every non-terminal history of a small game, depth first."""
    out, stack = [], [game.new_initial_state()]
    while stack:
        s = stack.pop()
        if s.is_terminal():
            continue
        out.append(s)
        actions = [a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
        for a in actions:
            child = s.clone()
            child.apply_action(a)
            stack.append(child)
    return out


def test_errors_carry_the_cli_text():
    with pytest.raises(ValueError, match="unknown game 'chess': accepted games are hex, rex, dark_hex"):
        darkhex.load_game("chess")
    with pytest.raises(ValueError, match="from 1 to 26"):
        darkhex.load_game("hex(board_size=0)")
    state = darkhex.load_game("dark_hex(num_rows=2,num_cols=2)").new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    with pytest.raises(ValueError, match=r"move a1 is not legal here: the cell holds your own stone \(x\)"):
        state.apply_action(0)
    state.apply_action(1)  # Black finds White's b1 and goes again
    with pytest.raises(ValueError, match=r"move b1 is not legal here: the cell holds a discovered stone \(o\)"):
        state.apply_action(1)
    with pytest.raises(ValueError, match="cell ids go from 0 to 3"):
        state.apply_action(7)
    with pytest.raises(ValueError, match="not an action of"):
        state.apply_action(-3)
    with pytest.raises(ValueError, match="player must be 0 or 1, not 2"):
        state.information_state_tensor(2)


def test_action_ids_and_players_out_of_range_are_refused():
    # Names were made of any number: 9 on a 3x3 board was 'a4', 99 'a34',
    # and player 7 was taken for a player.
    for name in ["hex(board_size=3)", "dark_hex(num_rows=3,num_cols=3)"]:
        game = darkhex.load_game(name)
        state = game.new_initial_state()
        assert game.action_to_string(0, 8) == state.action_to_string(1, 8) == "c3"
        for where in (game, state):
            for action in (9, 99, -1, 2**40):
                with pytest.raises(ValueError, match=f"action {action} is out of range: .* has actions 0 to 8"):
                    where.action_to_string(0, action)
            with pytest.raises(ValueError, match="player must be 0, 1 or -1 \\(chance\\), not 7"):
                where.action_to_string(7, 0)
            with pytest.raises(ValueError, match="has no chance outcomes"):
                where.action_to_string(-1, 0)
        for method in (state.legal_actions, state.legal_actions_mask):
            with pytest.raises(ValueError, match="player must be 0, 1 or -1 \\(chance\\), not 7"):
                method(7)
        with pytest.raises(ValueError, match="player must be 0 or 1, not 7"):
            state.player_return(7)
    # Chance outcomes have their own range: Leduc deals six cards, and
    # its players have three actions.
    leduc = darkhex.load_game("leduc_poker")
    assert leduc.action_to_string(-1, 5) == "Kh" and leduc.action_to_string(0, 2) == "raise"
    with pytest.raises(ValueError, match="chance outcome 6 is out of range: leduc_poker has chance outcomes 0 to 5"):
        leduc.action_to_string(-1, 6)
    with pytest.raises(ValueError, match="action 3 is out of range: leduc_poker has actions 0 to 2"):
        leduc.action_to_string(1, 3)
    deal = leduc.new_initial_state()
    assert deal.legal_actions(-1) == list(range(6)) and deal.legal_actions(0) == []


def test_openspiel_player_ids_chance_and_returns():
    game = darkhex.load_game("kuhn_poker")
    state = game.new_initial_state()
    assert state.current_player() == darkhex.CHANCE_PLAYER_ID == -1
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    for a in [2, 0, 1, 0]:  # K to player 0, J to player 1, bet, pass
        state.apply_action(a)
    assert state.is_terminal() and state.current_player() == darkhex.TERMINAL_PLAYER_ID == -4
    assert state.returns() == [1.0, -1.0]
    assert state.history() == [2, 0, 1, 0]
    assert game.max_chance_outcomes() == 3 and game.num_distinct_actions() == 2
    assert (game.min_utility(), game.max_utility()) == (-2.0, 2.0)
    assert state.action_to_string(-1, 2) == "K" and state.action_to_string(0, 1) == "bet"


def test_clones_are_independent_and_states_pickle():
    game = darkhex.load_game("dark_hex(num_rows=3,num_cols=3,gameversion=adh)")
    state = game.new_initial_state()
    for a in [4, 4, 0]:
        state.apply_action(a)
    other = state.clone()
    other.apply_action(8)
    assert state.history() == [4, 4, 0] and other.history() == [4, 4, 0, 8]
    for copied in (copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert copied.history() == state.history()
        assert copied.information_state_string(1) == state.information_state_string(1)
    assert pickle.loads(pickle.dumps(game)) == game
    assert game.new_state_from_history([4, 4, 0]).history() == [4, 4, 0]
    assert state.legal_actions_mask() == [1 if a in state.legal_actions() else 0 for a in range(9)]
    assert state.legal_actions(player=1 - state.current_player()) == []


def test_information_state_strings_count_the_reference_information_states(reference):
    for name in [
        "dark_hex(num_rows=2,num_cols=2)",
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
        "kuhn_poker",
        "leduc_poker",
    ]:
        game = darkhex.load_game(name)
        seen = [set(), set()]
        for s in all_states(game):
            p = s.current_player()
            if p >= 0:
                seen[p].add(s.information_state_string())
        assert [len(x) for x in seen] == reference[name]["infosets"], name


def test_tensors_are_float32_arrays_of_the_advertised_shapes():
    for name in ["hex(board_size=3)", "dark_hex(num_rows=2,num_cols=3,disclosure=flash)", "leduc_poker"]:
        game = darkhex.load_game(name)
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
        t = state.information_state_tensor()
        o = state.observation_tensor()
        assert t.dtype == np.float32 and t.size == game.information_state_tensor_size()
        assert o.dtype == np.float32 and o.size == game.observation_tensor_size()
        assert int(np.prod(game.observation_tensor_shape())) == o.size
