# Exploitability of the uniform random policy, measured with OpenSpiel, for
# reference/openspiel.json (pip install open_spiel).
import json, sys
import pyspiel
from open_spiel.python import policy
from open_spiel.python.algorithms import exploitability
out = {}
for name in ["kuhn_poker", "leduc_poker", "dark_hex(num_rows=2,num_cols=2)",
             "dark_hex(num_rows=2,num_cols=2,gameversion=adh)", "hex(num_rows=2,num_cols=3)"]:
    game = pyspiel.load_game(name)
    out[name] = {"uniform_exploitability": exploitability.exploitability(game, policy.UniformRandomPolicy(game))}
    print(name, out[name], flush=True)
json.dump(out, open(sys.argv[1] if len(sys.argv) > 1 else "openspiel_uniform.json", "w"), indent=1)
