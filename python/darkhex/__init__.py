"""darkhex: Hex, Rex and Dark Hex from Python.

Games with OpenSpiel's names (`load_game`, `Game`, `State`), the solvers
(`train`, with PPO and MMD among its algorithms, `train_deep_cfr`,
`exploitability`, `solve_lp`, `pone`, `solve_hex`), leagues
(`league`), a vector environment for learning code (`VectorEnv`), and two
optional layers: `darkhex.openspiel` (darkhex games as `pyspiel` games) and
`darkhex.ray` (leagues and solves as Ray tasks). Every algorithm runs in the
Rust crates; long calls release the GIL and Ctrl-C stops them.

>>> import darkhex
>>> game = darkhex.load_game("dark_hex(num_rows=2,num_cols=2)")
>>> round(darkhex.solve_lp(game).value, 6)   # the first player wins
1.0
"""

from darkhex._darkhex import (
    CHANCE_PLAYER_ID,
    TERMINAL_PLAYER_ID,
    DeepCfrResult,
    Game,
    HexResult,
    LeagueResult,
    LpResult,
    Model,
    Policy,
    PoneResult,
    RlResult,
    State,
    TrainResult,
    VectorEnv,
    exploitability,
    league,
    load_game,
    load_policy,
    opening_cells,
    hex_moves,
    set_memory_limit,
    pone,
    solve_hex,
    solve_lp,
    train,
    train_deep_cfr,
)

__all__ = [
    "CHANCE_PLAYER_ID",
    "TERMINAL_PLAYER_ID",
    "DeepCfrResult",
    "Game",
    "HexResult",
    "LeagueResult",
    "LpResult",
    "Model",
    "Policy",
    "PoneResult",
    "RlResult",
    "State",
    "TrainResult",
    "VectorEnv",
    "exploitability",
    "league",
    "load_game",
    "load_policy",
    "opening_cells",
    "hex_moves",
    "set_memory_limit",
    "pone",
    "solve_hex",
    "solve_lp",
    "train",
    "train_deep_cfr",
]
