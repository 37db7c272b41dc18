# Facts about the games of the IIG-RL benchmark (Rudolph et al.) besides
# Dark Hex, measured with OpenSpiel (pip install open_spiel), from the
# repository root:
#
#     python3 scripts/openspiel_benchmark_games.py
#
# - liars_dice: tree sizes, information states per player (OpenSpiel's
#   information-state string and tensor, checked to split the histories
#   alike), the exploitability of the uniform policy (Python best
#   response) and of the C++ CFRSolver / CFRPlusSolver average policies
#   after N iterations; merged into reference/openspiel.json.
# - phantom_ttt: the whole game has about 1e10 histories, past what
#   OpenSpiel's Python walks, so the same counts and the uniform policy's
#   exploitability (best responses from the opening's state) are measured
#   on the subgames that follow a fixed opening; written into the
#   "openspiel" part of reference/phantom_ttt.json (its "exp-a-spiel" part,
#   the whole games, comes from scripts/expaspiel_phantom_ttt.py).
import json
import pathlib
import sys
import time

import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import best_response, exploitability

REPO = pathlib.Path(__file__).resolve().parents[1]

LIARS_DICE = [
    ("liars_dice", [10, 100]),
    ("liars_dice(dice_sides=3)", [10, 100]),
    ("liars_dice(numdice=2,dice_sides=2)", [10, 100]),
]

# (game, opening): five moves leave subgames of 0.5 to 1 million histories.
# The second opening has a hit on move 2 (classical: the hitter goes on).
PHANTOM_TTT = [
    ("phantom_ttt", [4, 0, 8, 2, 6]),
    ("phantom_ttt", [4, 4, 0, 8, 2]),
    ("phantom_ttt(gameversion=abrupt)", [4, 0, 8, 2, 6]),
    ("phantom_ttt(gameversion=abrupt)", [4, 4, 0, 8, 2]),
    ("phantom_ttt(obstype=reveal-numturns)", [4, 0, 8, 2, 6]),
    ("phantom_ttt(gameversion=abrupt,obstype=reveal-numturns)", [4, 4, 0, 8, 2]),
]


def counts(root):
    """Histories, terminals and the decision points each player tells apart
    by OpenSpiel's information-state string and by its tensor."""
    histories = terminals = 0
    by_string, by_tensor = [set(), set()], [set(), set()]
    pairs = [set(), set()]
    stack = [root]
    while stack:
        s = stack.pop()
        histories += 1
        if s.is_terminal():
            terminals += 1
            continue
        if s.is_chance_node():
            stack.extend(s.child(a) for a, _ in s.chance_outcomes())
            continue
        p = s.current_player()
        string, tensor = s.information_state_string(p), tuple(s.information_state_tensor(p))
        by_string[p].add(string)
        by_tensor[p].add(tensor)
        pairs[p].add((string, tensor))
        stack.extend(s.child(a) for a in s.legal_actions())
    infosets = [len(x) for x in by_string]
    same = all(len(pairs[p]) == infosets[p] == len(by_tensor[p]) for p in range(2))
    return dict(histories=histories, terminals=terminals, infosets=infosets,
                string_and_tensor_agree=same)


def uniform_exploitability(game, root):
    """Exploitability of the uniform policy in the subgame at `root`: the
    mean of the players' best-response values there (zero-sum)."""
    uniform = policy_lib.UniformRandomPolicy(game)
    values = [best_response.BestResponsePolicy(game, p, uniform, root_state=root).value(root)
              for p in range(2)]
    return sum(values) / 2, values


def liars_dice():
    out = {}
    for name, iters in LIARS_DICE:
        start = time.time()
        game = pyspiel.load_game(name)
        facts = counts(game.new_initial_state())
        assert facts.pop("string_and_tensor_agree"), name
        facts["uniform_exploitability"] = exploitability.exploitability(
            game, policy_lib.UniformRandomPolicy(game))
        for key, cls in [("cfr_exploitability_at", pyspiel.CFRSolver),
                         ("cfrplus_exploitability_at", pyspiel.CFRPlusSolver)]:
            solver, done = cls(game), 0
            for n in iters:
                for _ in range(n - done):
                    solver.evaluate_and_update_policy()
                done = n
                facts.setdefault(key, {})[str(n)] = pyspiel.exploitability(game, solver.average_policy())
        out[name] = facts
        print(name, facts, f"{time.time() - start:.0f} s", flush=True)
    return out


def phantom_ttt():
    out = []
    for name, opening in PHANTOM_TTT:
        start = time.time()
        game = pyspiel.load_game(name)
        root = game.new_initial_state()
        for a in opening:
            root.apply_action(a)
        facts = dict(game=name, opening=opening, **counts(root))
        facts["uniform_exploitability"], facts["uniform_best_responses"] = uniform_exploitability(game, root)
        out.append(facts)
        print(facts, f"{time.time() - start:.0f} s", flush=True)
    return out


def main():
    reference = REPO / "reference" / "openspiel.json"
    data = json.loads(reference.read_text())
    data["games"].update(liars_dice())
    reference.write_text(json.dumps(data, indent=1) + "\n")
    path = REPO / "reference" / "phantom_ttt.json"
    ttt = json.loads(path.read_text()) if path.exists() else {}
    ttt["openspiel"] = phantom_ttt()
    path.write_text(json.dumps(ttt, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
