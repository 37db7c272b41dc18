"""The job-level proof-number search on Ray (darkhex.ray.job_search): the
values of the single-machine solver, with a master that really expands,
and a store that makes a stopped run resume without repeating a job."""

import json

import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (pip install ray); scripts/test.sh installs it")

import darkhex  # noqa: E402
import darkhex.ray  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, log_to_driver=False)
    yield
    ray.shutdown()


def solver_values(game, positions):
    return [darkhex.solve_hex(game, moves=p).winner for p in positions]


# Budgets small enough that most openings come back unknown from their
# first job and the master expands them.
@pytest.mark.parametrize(
    "game, budget", [("hex(board_size=4)", 1), ("hex(board_size=5)", 3), ("rex(board_size=4)", 5)]
)
def test_every_opening_gets_the_solvers_value(local_ray, game, budget):
    g = darkhex.load_game(game)
    run = darkhex.ray.job_search_openings(g, budget=budget)
    openings = [[c] for c in darkhex.opening_cells(g)]
    assert [v["moves"] for v in run["values"]] == openings
    assert [v["winner"] for v in run["values"]] == solver_values(g, openings)
    assert run["expanded"] > 0 and run["jobs"] > len(openings)
    for v in run["values"]:
        assert v["to_move"] == 1
        if v["winner"] == 1:
            # The winning move wins: the position after it is lost for Black.
            assert darkhex.solve_hex(g, moves=v["moves"] + [v["winning_move"]]).winner == 1
        else:
            assert v["winning_move"] is None


def test_the_master_expands_the_moves_the_solver_searches(local_ray):
    hex8 = darkhex.load_game("hex(board_size=8)")
    moves = darkhex.hex_moves(hex8, ["c3"])
    # White's replies less the inferior ones, best first; none repeated.
    assert 0 < len(moves) < 63 and len(set(moves)) == len(moves)
    assert darkhex.hex_moves(darkhex.load_game("hex(board_size=4)"), ["a1"]) == []  # decided at once
    with pytest.raises(ValueError, match="hex_moves takes Hex and Rex positions"):
        darkhex.hex_moves(darkhex.load_game("kuhn_poker"))


def test_any_positions(local_ray):
    g = darkhex.load_game("hex(board_size=5)")
    r = darkhex.ray.job_search(g, ["b2"], budget=1, workers=1)
    assert r["names"] == ["b2"] and r["to_move"] == 1
    assert r["winner"] == darkhex.solve_hex(g, moves=["b2"]).winner == 0
    assert r["expanded"] > 0
    positions = [["a1", "e5"], ["c3", "b3", "b4"], ["e1", "a5", "c3"]]
    run = darkhex.ray.job_search_openings(g, positions, budget=1)
    assert [v["names"] for v in run["values"]] == positions
    assert [v["winner"] for v in run["values"]] == solver_values(g, positions)


def test_a_stopped_run_resumes_without_repeating_a_job(local_ray, tmp_path):
    g = darkhex.load_game("hex(board_size=5)")
    store = tmp_path / "store.json"
    heard = []
    first = darkhex.ray.job_search_openings(g, budget=1, out=store, max_jobs=40, progress=heard.append)
    assert first["jobs"] == 40 and first["solved"] < first["positions"]
    assert heard and heard[-1]["stored"] == first["stored"]
    held = json.loads(store.read_text())["entries"]
    assert set(first["sent"]) <= set(held)
    second = darkhex.ray.job_search_openings(g, budget=1, out=store)
    assert not set(second["sent"]) & set(held)
    # Positions solved in the first run decide the openings above them at
    # once, so not every answer is asked for again.
    assert second["reused"] > 0 and second["solved"] == second["positions"]
    openings = [[c] for c in darkhex.opening_cells(g)]
    assert [v["winner"] for v in second["values"]] == solver_values(g, openings)
    # Once more: everything is in the store, and no job goes out.
    third = darkhex.ray.job_search_openings(g, budget=1, out=store)
    assert third["jobs"] == 0 and third["values"] == second["values"]


def test_bad_settings_and_stores_are_named(tmp_path):
    hex3 = darkhex.load_game("hex(board_size=3)")
    with pytest.raises(ValueError, match="budget is a number of expansions"):
        darkhex.ray.job_search(hex3, budget=0)
    with pytest.raises(ValueError, match="solves Hex and Rex positions"):
        darkhex.ray.job_search(darkhex.load_game("dark_hex(board_size=3)"))
    with pytest.raises(ValueError):
        darkhex.ray.job_search(hex3, ["a1", "a1"])
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "darkhex job store", "game": "hex(board_size=4)", "entries": {}}))
    with pytest.raises(ValueError, match="holds positions of hex\\(board_size=4\\), not of hex\\(board_size=3\\)"):
        darkhex.ray.job_search(hex3, out=other)
    (tmp_path / "cut.json").write_text('{"format": "darkhex job st')
    with pytest.raises(ValueError, match="is not a job store"):
        darkhex.ray.job_search(hex3, out=tmp_path / "cut.json")
