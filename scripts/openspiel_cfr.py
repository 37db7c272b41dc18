# Measures exploitability of OpenSpiel's CFR-family average policies after N
# iterations, for reference/openspiel.json (pip install open_spiel).
import json, sys
import pyspiel
from open_spiel.python.algorithms import discounted_cfr, exploitability

out = {}
def record(game, key, n, value):
    out.setdefault(game, {}).setdefault(key, {})[str(n)] = value
    print(game, key, n, value, flush=True)

# Abrupt 2x3 and 3x2: boards where adding up regret contributions in
# OpenSpiel's order leaves residues that regret matching plays from the
# second iteration on (see algorithms/src/cfr/tabular.rs).
for game_name, iters in [("leduc_poker", [10, 100, 1000]),
                         ("dark_hex(num_rows=2,num_cols=2,gameversion=adh)", [10, 100, 1000]),
                         ("dark_hex(num_rows=2,num_cols=2)", [10, 100, 1000]),
                         ("dark_hex(num_rows=2,num_cols=3,gameversion=adh)", [2, 10]),
                         ("dark_hex(num_rows=3,num_cols=2,gameversion=adh)", [10])]:
    game = pyspiel.load_game(game_name)
    for key, cls in [("cfr_exploitability_at", pyspiel.CFRSolver), ("cfrplus_exploitability_at", pyspiel.CFRPlusSolver)]:
        solver, done = cls(game), 0
        for n in iters:
            for _ in range(n - done):
                solver.evaluate_and_update_policy()
            done = n
            record(game_name, key, n, pyspiel.exploitability(game, solver.average_policy()))

for game_name, iters in [("kuhn_poker", [10, 100, 1000]), ("leduc_poker", [10, 50])]:
    game = pyspiel.load_game(game_name)
    for key, make in [("lcfr_exploitability_at", lambda: discounted_cfr.LCFRSolver(game)),
                      ("dcfr_exploitability_at", lambda: discounted_cfr.DCFRSolver(game))]:
        solver, done = make(), 0
        for n in iters:
            for _ in range(n - done):
                solver.evaluate_and_update_policy()
            done = n
            record(game_name, key, n, exploitability.exploitability(game, solver.average_policy()))

json.dump(out, open(sys.argv[1] if len(sys.argv) > 1 else "openspiel_cfr.json", "w"), indent=1)
