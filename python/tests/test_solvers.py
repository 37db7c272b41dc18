"""The solvers from Python: the same numbers as the CLI and OpenSpiel."""

import os
import signal
import threading
import time

import pytest

import darkhex

KUHN = darkhex.load_game("kuhn_poker")


def test_cfr_family_matches_openspiels_exploitability(reference):
    facts = reference["kuhn_poker"]
    for algo, key in [("cfr", "cfr_exploitability_at"), ("cfr+", "cfrplus_exploitability_at")]:
        result = darkhex.train(KUHN, algo=algo, iterations=1000)
        assert abs(result.exploitability - facts[key]["1000"]) < 1e-12, algo
        assert result.iterations == 1000
        points = {p["iteration"]: p["exploitability"] for p in result.history}
        assert abs(points[100] - facts[key]["100"]) < 1e-12, algo
    uniform = darkhex.train(KUHN, iterations=0)
    assert abs(uniform.exploitability - facts["uniform_exploitability"]) < 1e-12


def test_policies_save_load_and_evaluate_the_same(tmp_path):
    result = darkhex.train(KUHN, algo="cfr+", iterations=200)
    exact = darkhex.exploitability(KUHN, result.policy)
    assert exact == result.exploitability
    for name in ["p.json", "p.bin"]:
        result.policy.save(tmp_path / name)
        loaded = darkhex.load_policy(tmp_path / name)
        assert loaded.game == KUHN and len(loaded) == 12
        assert darkhex.exploitability(KUHN, loaded) == exact
        assert loaded.provenance["algorithm"] == "cfr+" and loaded.provenance["iterations"] == 200
    with pytest.raises(ValueError, match="the policy is for kuhn_poker, not leduc_poker"):
        darkhex.load_policy(tmp_path / "p.json", game=darkhex.load_game("leduc_poker"))
    with pytest.raises(OSError, match="cannot read"):
        darkhex.load_policy(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="unknown algorithm 'cfrr': accepted algorithms are cfr, cfr\\+"):
        darkhex.train(KUHN, algo="cfrr")


def test_a_checkpointed_run_resumes_to_the_same_bits(tmp_path):
    straight = darkhex.train(KUHN, algo="dcfr", iterations=300)
    ckpt = tmp_path / "k.ckpt"
    darkhex.train(KUHN, algo="dcfr", iterations=120, checkpoint=ckpt)
    resumed = darkhex.train(KUHN, algo="dcfr", iterations=300, checkpoint=ckpt)
    assert resumed.exploitability == straight.exploitability
    assert resumed.iterations == 300


def test_monte_carlo_runs_are_seeded():
    a = darkhex.train(KUHN, algo="os-mccfr", iterations=2000, seed=4, threads=2)
    b = darkhex.train(KUHN, algo="os-mccfr", iterations=2000, seed=4, threads=2)
    assert a.exploitability == b.exploitability and 0 < a.exploitability < 0.2


def test_the_lp_and_pone_give_the_known_values(reference):
    lp = darkhex.solve_lp(KUHN)
    assert abs(lp.value - reference["kuhn_poker"]["value_p0"]) < 1e-7
    assert lp.exploitability < 1e-7
    assert abs(darkhex.exploitability(KUHN, lp.policy) - lp.exploitability) < 1e-12
    name = "dark_hex(num_rows=2,num_cols=2,gameversion=adh)"
    assert abs(darkhex.solve_lp(darkhex.load_game(name)).value - reference[name]["value_p0"]) < 1e-6
    # 2x2 Dark Hex: the first player wins with probability one from either
    # cell of the short diagonal, the second never does.
    small = darkhex.load_game("dark_hex(num_rows=2,num_cols=2)")
    first, second = darkhex.pone(small, player=0), darkhex.pone(small, player=1)
    assert first.wins and first.winning_move_names == ["b1", "a2"]
    assert not second.wins and second.winning_moves == []
    with pytest.raises(ValueError, match="pone decides dark games"):
        darkhex.pone(KUHN)


def test_hex_positions_are_solved_as_the_cli_solves_them(darkhex_cli):
    import json

    game = darkhex.load_game("hex(board_size=4)")
    cli = json.loads(darkhex_cli("solve", "hex(board_size=4)", "--moves", "b2", "--all-moves", "--json"))
    r = darkhex.solve_hex(game, moves=["b2"], all_moves=True)
    assert r.to_move == cli["to_move"] == 1 and r.winner == cli["winner"]
    names = sorted(game.action_to_string(1, m) for m in r.winning_moves)
    assert names == sorted(cli["winning_moves"])
    assert len(r.move_values) == 15
    assert darkhex.solve_hex(darkhex.load_game("hex(board_size=5)")).winner == 0
    with pytest.raises(ValueError, match="the cell already holds"):
        darkhex.solve_hex(game, moves=["a1", "a1"])
    with pytest.raises(ValueError, match="solve_hex solves Hex and Rex"):
        darkhex.solve_hex(KUHN)


def test_long_calls_release_the_gil():
    leduc = darkhex.load_game("leduc_poker")
    done = threading.Event()
    worker = threading.Thread(
        target=lambda: (darkhex.train(leduc, algo="cfr+", iterations=300), done.set())
    )
    start = time.perf_counter()
    worker.start()
    ticks = 0
    while not done.is_set():
        ticks += 1  # Python work that needs the GIL
        if time.perf_counter() - start > 60:
            break
    worker.join()
    assert done.is_set()
    assert ticks > 100_000, ticks


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT to this process")
def test_ctrl_c_stops_training_and_keeps_the_checkpoint(tmp_path):
    leduc = darkhex.load_game("leduc_poker")
    ckpt = tmp_path / "leduc.ckpt"
    # A shell without job control starts background commands with SIGINT
    # ignored, and Python then keeps ignoring it: give it Python's own
    # handler, as an interactive session has.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    start = time.perf_counter()
    try:
        # Minutes of training if the signal went unheard: a failure, not a hang.
        with pytest.raises(KeyboardInterrupt):
            darkhex.train(leduc, algo="cfr+", iterations=300_000, eval_every=10**8, checkpoint=ckpt)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.perf_counter() - start < 30
    assert ckpt.exists()
    more = darkhex.train(leduc, algo="cfr+", iterations=1, checkpoint=ckpt)
    assert more.iterations > 1, "the checkpoint holds the iterations done before Ctrl-C"
