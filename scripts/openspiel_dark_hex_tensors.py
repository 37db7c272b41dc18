# OpenSpiel's dark_hex information-state tensors at a few states, for the
# Rust test of darkhex's copy of that layout (games/tests/tensors.rs; the
# Python test python/tests/test_openspiel.py checks many more states
# against pyspiel itself). From the repository root, with OpenSpiel
# installed (pip install open_spiel):
#
#     python3 scripts/openspiel_dark_hex_tensors.py
#
# Writes reference/openspiel_dark_hex_tensors.json: for each game, random
# playouts (seeded), and at some of their decision points the history and
# both players' tensors as the positions and values of their nonzero
# entries.
import importlib.metadata
import json
import pathlib
import random

import pyspiel

REPO = pathlib.Path(__file__).resolve().parents[1]

GAMES = [
    "dark_hex(num_rows=3,num_cols=3)",
    "dark_hex(num_rows=3,num_cols=3,gameversion=adh)",
    "dark_hex(num_rows=3,num_cols=3,obstype=reveal-numturns)",
    "dark_hex(num_rows=2,num_cols=3,gameversion=adh,obstype=reveal-numturns)",
]
PLAYOUTS = 4


def nonzero(tensor):
    return [[i, v] for i, v in enumerate(tensor) if v != 0.0]


def main():
    out = {"open_spiel": importlib.metadata.version("open_spiel"), "games": []}
    rng = random.Random(51)
    for name in GAMES:
        game = pyspiel.load_game(name)
        states = []
        for _ in range(PLAYOUTS):
            state = game.new_initial_state()
            history = []
            while not state.is_terminal():
                if rng.random() < 0.4:
                    tensors = [nonzero(state.information_state_tensor(p)) for p in (0, 1)]
                    states.append({"history": list(history), "tensors": tensors})
                action = rng.choice(state.legal_actions())
                state.apply_action(action)
                history.append(action)
        out["games"].append({"game": name, "size": game.information_state_tensor_size(), "states": states})
    path = REPO / "reference" / "openspiel_dark_hex_tensors.json"
    path.write_text(json.dumps(out, indent=None, separators=(",", ":")) + "\n")
    print(f"{path}: {sum(len(g['states']) for g in out['games'])} states")


if __name__ == "__main__":
    main()
