"""darkhex games as OpenSpiel games.

`load_game(string)` returns a `pyspiel.Game`: a Python game registered with
`pyspiel.register_game` as "python_darkhex", whose states wrap darkhex
states. OpenSpiel's Python algorithms (CFR, exploitability, best response,
`rl_environment.Environment`, ...) run on it unchanged; information-state
strings and tensors are darkhex's (perfect recall in every game).

>>> import darkhex.openspiel
>>> game = darkhex.openspiel.load_game("kuhn_poker")
>>> game.get_type().short_name, game.num_distinct_actions()
('python_darkhex', 2)

Needs open_spiel (`pip install open_spiel`).
"""

import numpy as np
import pyspiel

import darkhex

SHORT_NAME = "python_darkhex"


def _game_type(game):
    """The OpenSpiel type of one darkhex game."""
    has_chance = game.max_chance_outcomes() > 0
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="darkhex games (Hex, Rex, Dark Hex, Kuhn and Leduc poker)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(
            pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
            if has_chance
            else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        information=(
            pyspiel.GameType.Information.PERFECT_INFORMATION
            if game.is_perfect_information()
            else pyspiel.GameType.Information.IMPERFECT_INFORMATION
        ),
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        # OpenSpiel fills a missing parameter in from this default; an
        # empty one lets the game tell that it was not given.
        parameter_specification={"game": ""},
    )


class DarkhexGame(pyspiel.Game):
    """A darkhex game seen through OpenSpiel's interface."""

    def __init__(self, params=None):
        name = str((params or {}).get("game", ""))
        if not name:
            raise ValueError(
                f"{SHORT_NAME} needs the `game` parameter, a darkhex game string: "
                f"pyspiel.load_game({SHORT_NAME!r}, {{'game': 'dark_hex(num_rows=3,num_cols=3)'}})"
            )
        self.darkhex_game = darkhex.load_game(name)
        g = self.darkhex_game
        info = pyspiel.GameInfo(
            num_distinct_actions=g.num_distinct_actions(),
            max_chance_outcomes=g.max_chance_outcomes(),
            num_players=2,
            min_utility=g.min_utility(),
            max_utility=g.max_utility(),
            utility_sum=0.0,
            max_game_length=g.max_game_length(),
        )
        super().__init__(_game_type(g), info, {"game": str(g)})

    def new_initial_state(self):
        return DarkhexState(self, self.darkhex_game.new_initial_state())

    def __reduce__(self):
        # OpenSpiel pickles a game as its game string, which reads
        # `game=dark_hex(...)` back as a game-valued parameter and refuses
        # it: a darkhex game pickles as its darkhex game string instead.
        return (load_game, (str(self.darkhex_game),))

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = iig_obs_type is None or iig_obs_type.perfect_recall
        return DarkhexObserver(self.darkhex_game, perfect_recall, params)


class DarkhexState(pyspiel.State):
    """A darkhex state behind OpenSpiel's state interface; `darkhex_state` is
    the wrapped `darkhex.State`."""

    def __init__(self, game, state):
        super().__init__(game)
        self.darkhex_state = state

    def __reduce__(self):
        # Pickled (and deep-copied) as the darkhex game string and the
        # history, as darkhex states are; see DarkhexGame.__reduce__.
        return (_replay, (str(self.darkhex_state.get_game()), self.darkhex_state.history()))

    def current_player(self):
        return self.darkhex_state.current_player()

    def _legal_actions(self, player):
        return self.darkhex_state.legal_actions()

    def chance_outcomes(self):
        return self.darkhex_state.chance_outcomes()

    def _apply_action(self, action):
        self.darkhex_state.apply_action(action)

    def _action_to_string(self, player, action):
        return self.darkhex_state.action_to_string(player, action)

    def is_terminal(self):
        return self.darkhex_state.is_terminal()

    def returns(self):
        return self.darkhex_state.returns()

    def __str__(self):
        return str(self.darkhex_state)


class DarkhexObserver:
    """OpenSpiel's observer interface: the information state (perfect recall
    asked) or the observation, as darkhex computes them."""

    def __init__(self, game, perfect_recall, params):
        if params:
            raise ValueError(f"darkhex observers take no parameters, not {params}")
        self.perfect_recall = perfect_recall
        if perfect_recall:
            shape = game.information_state_tensor_shape()
        else:
            shape = game.observation_tensor_shape()
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        name = "information_state" if perfect_recall else "observation"
        self.dict = {name: self.tensor.reshape(shape)}

    def set_from(self, state, player):
        s = state.darkhex_state
        if self.perfect_recall:
            self.tensor[:] = s.information_state_tensor(player)
        else:
            self.tensor[:] = s.observation_tensor(player)

    def string_from(self, state, player):
        s = state.darkhex_state
        if self.perfect_recall:
            return s.information_state_string(player)
        return s.observation_string(player)


pyspiel.register_game(_game_type(darkhex.load_game("kuhn_poker")), DarkhexGame)


def load_game(string):
    """The darkhex game `string` (a darkhex game string, such as
    "dark_hex(num_rows=3,num_cols=3)") as a `pyspiel.Game`."""
    return pyspiel.load_game(SHORT_NAME, {"game": str(darkhex.load_game(string))})


def _replay(string, history):
    """The bridged state after `history` in the darkhex game `string` (unpickling)."""
    state = load_game(string).new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def policy_to_openspiel(policy, game):
    """`policy` (a `darkhex.Policy` or `darkhex.Model`) as an OpenSpiel
    `TabularPolicy` of `game` (from `load_game`); `Policy.to_openspiel` and
    `Model.to_openspiel` call this."""
    from open_spiel.python import policy as openspiel_policy

    if str(policy.game) != game.get_parameters().get("game"):
        raise ValueError(
            f"the policy is for {policy.game}, and the game is {game.get_parameters().get('game')}"
        )
    tabular = openspiel_policy.TabularPolicy(game)
    for index, state in enumerate(tabular.states):
        row = tabular.action_probability_array[index]
        row[:] = 0.0
        for action, p in policy.action_probabilities(state.darkhex_state).items():
            row[action] = p
    return tabular
