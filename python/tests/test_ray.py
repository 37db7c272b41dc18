"""Leagues and solves as Ray tasks on a two-node cluster on this machine:
the same log and values as the CLI, also when a node dies mid-run."""

import json
import threading

import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (pip install ray); scripts/test.sh installs it")
from ray.cluster_utils import Cluster  # noqa: E402

import darkhex  # noqa: E402
import darkhex.ray  # noqa: E402

LEAGUE = """
game = "dark_hex(num_rows=3,num_cols=3)"
games_per_pair = 10
seed = 11
[[players]]
spec = "random"
[[players]]
spec = "ismcts(sims=200)"
[[players]]
spec = "ismcts(sims=400)"
"""


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    worker = c.add_node(num_cpus=1)
    ray.init(address=c.address, log_to_driver=False)
    c.wait_for_nodes()
    yield c, worker
    ray.shutdown()
    c.shutdown()


@pytest.fixture(scope="module")
def cli_league(tmp_path_factory, darkhex_cli):
    d = tmp_path_factory.mktemp("cli")
    (d / "t.toml").write_text(LEAGUE)
    darkhex_cli("league", "t.toml", "--threads", "1", "--out", "out", cwd=d)
    return (d / "out" / "results.jsonl").read_text(), json.loads((d / "out" / "report.json").read_text())


def test_a_ray_league_writes_the_clis_log(cluster, cli_league, tmp_path):
    log, report = cli_league
    result = darkhex.ray.league(LEAGUE, out=tmp_path / "ray", batch_size=3)
    assert (tmp_path / "ray" / "results.jsonl").read_text() == log
    assert result.ratings == {p["name"]: p["rating"]["elo"] for p in report["players"]}
    assert len(ray.nodes()) == 2


def test_ray_solves_openings_to_the_clis_values(cluster, darkhex_cli):
    cli = json.loads(darkhex_cli("solve", "rex(board_size=4)", "--openings", "--threads", "1", "--json"))
    expected = {o["opening"]: o["black_wins"] for o in cli["openings"]}
    game = darkhex.load_game("rex(board_size=4)")
    # Budgets far too small at first: positions come back unsolved and go
    # out again with four times the time.
    results = darkhex.ray.solve_openings(game, time_limit=0.002, growth=4.0)
    assert [r["moves"][0] for r in results] == darkhex.opening_cells(game)
    assert any(r["attempts"] > 1 for r in results)
    for r in results:
        assert r["winner"] is not None and r["to_move"] == 1
        assert expected[r["names"][0]] == (r["winner"] == 0), r
    # Any positions, not only openings: on 4x4, White's b3 wins after a1.
    [r] = darkhex.ray.solve_openings(darkhex.load_game("hex(board_size=4)"), [["a1", "b3"]])
    assert r["winner"] == 1 and r["to_move"] == 0


def test_a_node_lost_mid_league_changes_nothing(cluster, cli_league, tmp_path):
    c, worker = cluster
    log, _ = cli_league
    removed = threading.Event()
    at = []

    def progress(done, total):
        if not removed.is_set():
            # One CPU a node and many batches queued: the other node is
            # playing a batch now, and dies with it.
            c.remove_node(worker)
            removed.set()
            at.append((done, total))

    darkhex.ray.league(LEAGUE, out=tmp_path / "ray", batch_size=2, progress=progress)
    assert removed.is_set() and at[0][0] < at[0][1] - 2
    assert (tmp_path / "ray" / "results.jsonl").read_text() == log
    assert len([n for n in ray.nodes() if n["Alive"]]) == 1
