# The whole of phantom tic-tac-toe, classical and abrupt (reveal-nothing),
# measured with exp-a-spiel (Rudolph et al. 2025's C++ library, github
# gabrfarina/exp-a-spiel), for the "exp-a-spiel" part of
# reference/phantom_ttt.json: its information states per player and the
# exact value and exploitability of the uniform policy. OpenSpiel's Python
# cannot walk these games (about 1e10 histories).
#
# Build exp-a-spiel outside the repository (C++20, OpenMP, Boost headers of
# 1.81 or later, pybind11, scikit-build-core) into a virtual environment of
# its own, then from the repository root, for one game or both:
#
#     OMP_NUM_THREADS=2 /path/to/venv/bin/python scripts/expaspiel_phantom_ttt.py Pttt AbruptPttt
#
# exp-a-spiel's `expl` pair is how much each player's strategy loses to a
# best response (expl[0]: what player 1 gains against player 0's), so
# darkhex's best-response values are BR0 = expl[1] + ev0 and
# BR1 = expl[0] - ev0, and its exploitability is (expl[0] + expl[1]) / 2.
import json
import pathlib
import resource
import sys
import time

import eas

REPO = pathlib.Path(__file__).resolve().parents[1]
DARKHEX = {
    "Pttt": "phantom_ttt",
    "AbruptPttt": "phantom_ttt(gameversion=abrupt)",
}


def measure(name):
    start, cpu = time.time(), time.process_time()
    traverser = getattr(eas, name + "Traverser")()
    built, built_cpu = time.time(), time.process_time()
    x, y = traverser.construct_uniform_strategies()
    r = traverser.ev_and_exploitability(x, y)
    done, done_cpu = time.time(), time.process_time()
    return dict(
        eas=name,
        darkhex=DARKHEX[name],
        infosets=[traverser.NUM_INFOS_PL0, traverser.NUM_INFOS_PL1],
        ev0=r.ev0,
        expl=list(r.expl),
        tables_seconds=[built - start, built_cpu - cpu],
        exploitability_seconds=[done - built, done_cpu - built_cpu],
        peak_gb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
    )


def main(names):
    path = REPO / "reference" / "phantom_ttt.json"
    for name in names:
        facts = measure(name)
        print(json.dumps(facts), flush=True)
        data = json.loads(path.read_text()) if path.exists() else {}
        kept = [f for f in data.get("exp-a-spiel", []) if f["eas"] != name]
        data["exp-a-spiel"] = sorted(kept + [facts], key=lambda f: f["eas"] != "Pttt")
        path.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:] or list(DARKHEX))
