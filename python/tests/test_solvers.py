"""The solvers from Python: the same numbers as the CLI and OpenSpiel."""

import os
import re
import signal
import threading
import time

import numpy as np
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
    uniform = darkhex.train(KUHN, iterations=1).history[0]
    assert uniform["iteration"] == 0
    assert abs(uniform["exploitability"] - facts["uniform_exploitability"]) < 1e-12


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


def test_a_sampler_whose_tables_outgrow_the_memory_limit_stops_with_its_checkpoint(tmp_path):
    game = darkhex.load_game("dark_hex(num_rows=4,num_cols=3)")
    ckpt = tmp_path / "c.ckpt"
    darkhex.set_memory_limit(0.004)
    try:
        with pytest.raises(MemoryError, match="sampler's tables after"):
            darkhex.train(game, algo="os-mccfr", iterations=3000, seed=1, checkpoint=ckpt)
    finally:
        darkhex.set_memory_limit(None)
    resumed = darkhex.train(game, algo="os-mccfr", iterations=3000, seed=1, checkpoint=ckpt)
    straight = darkhex.train(game, algo="os-mccfr", iterations=3000, seed=1)
    assert resumed.iterations == 3000
    resumed.policy.save(tmp_path / "resumed.bin")
    straight.policy.save(tmp_path / "straight.bin")
    assert (tmp_path / "resumed.bin").read_bytes() == (tmp_path / "straight.bin").read_bytes()


def test_monte_carlo_runs_are_seeded():
    a = darkhex.train(KUHN, algo="os-mccfr", iterations=2000, seed=4, threads=2)
    b = darkhex.train(KUHN, algo="os-mccfr", iterations=2000, seed=4, threads=2)
    assert a.exploitability == b.exploitability and 0 < a.exploitability < 0.2


def tabulated(game, policy, layout):
    """`policy` (a darkhex Policy) as a function of tensors, masks and the
    player: a lookup of each tensor's probabilities, from every decision
    point (the player too: both players' tensors are empty at the start)."""
    table = {}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            row = np.zeros(game.num_distinct_actions())
            for action, prob in policy.action_probabilities(state).items():
                row[action] = prob
            table[state.current_player(), state.information_state_tensor(layout=layout).tobytes()] = row
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            stack.append(child)
    calls = []

    def function(tensors, masks, player):
        assert tensors.dtype == np.float32 and masks.dtype == bool and len(tensors) == len(masks)
        calls.append(len(tensors))
        return np.stack([table[player, t.tobytes()] for t in tensors])

    return function, calls


@pytest.mark.parametrize(
    "name", ["dark_hex(num_rows=2,num_cols=2)", "dark_hex(num_rows=2,num_cols=3,gameversion=adh)", "kuhn_poker"]
)
@pytest.mark.parametrize("layout", ["openspiel", "darkhex"])
def test_a_policy_function_has_the_tables_exploitability(name, layout, reference):
    """CFR+'s policy as a lookup from tensors is the policy itself; the
    uniform function has the uniform policy's exploitability as OpenSpiel
    measured it."""
    game = darkhex.load_game(name)
    policy = darkhex.train(game, algo="cfr+", iterations=30).policy
    function, calls = tabulated(game, policy, layout)
    exact = darkhex.exploitability(game, policy)
    assert 0.001 < exact < 0.5
    assert abs(darkhex.exploitability(game, function, layout=layout, threads=1) - exact) < 1e-9
    assert calls and max(calls) <= 1024
    uniform = darkhex.exploitability(game, lambda tensors, masks, player: masks / masks.sum(axis=1, keepdims=True))
    if reference.get(name, {}).get("uniform_exploitability") is not None:
        assert abs(uniform - reference[name]["uniform_exploitability"]) < 1e-12


def test_a_policy_function_that_fails_or_answers_wrongly_is_refused():
    game = darkhex.load_game("dark_hex(num_rows=2,num_cols=2)")

    def fails(tensors, masks, player):
        raise KeyError("no such state")

    with pytest.raises(KeyError, match="no such state"):
        darkhex.exploitability(game, fails)
    with pytest.raises(ValueError, match="probabilities \\(not logits\\)"):
        darkhex.exploitability(game, lambda tensors, masks, player: masks * 3.0)
    with pytest.raises(ValueError, match="must return a 17 x 4 array"):
        darkhex.exploitability(game, lambda tensors, masks, player: masks[:, :2])
    with pytest.raises(ValueError, match="accepted layouts are darkhex, openspiel"):
        darkhex.exploitability(game, fails, layout="pytorch")
    with pytest.raises(ValueError, match="OpenSpiel's dark_hex has no"):
        darkhex.exploitability(darkhex.load_game("dark_rex(num_rows=2,num_cols=2)"), fails, layout="openspiel")
    with pytest.raises(ValueError, match="layout= is for a policy function"):
        darkhex.exploitability(KUHN, darkhex.solve_lp(KUHN).policy, layout="openspiel")


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


def test_an_expansion_budget_leaves_the_proof_numbers():
    hex7 = darkhex.load_game("hex(board_size=7)")
    cut = darkhex.solve_hex(hex7, moves=["a4"], threads=1, max_expansions=5)
    assert cut.winner is None and 5 <= cut.expansions < 20
    assert 0 < cut.proof_number < 2_000_000_000 and 0 < cut.disproof_number < 2_000_000_000
    again = darkhex.solve_hex(hex7, moves=["a4"], threads=1, max_expansions=5)
    assert (again.proof_number, again.disproof_number) == (cut.proof_number, cut.disproof_number)
    # On 4x4 White, to move after a1, wins (b3), and Black, to move after
    # a1 b3, loses: a proof, then a disproof.
    hex4 = darkhex.load_game("hex(board_size=4)")
    won = darkhex.solve_hex(hex4, moves=["a1"])
    assert won.winner == 1 and (won.proof_number, won.disproof_number) == (0, 2_000_000_000)
    lost = darkhex.solve_hex(hex4, moves=["a1", "b3"])
    assert lost.winner == 1 and (lost.proof_number, lost.disproof_number) == (2_000_000_000, 0)


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


def test_numeric_arguments_take_the_clis_ranges():
    # `darkhex train --iterations 0` is refused; train(iterations=0) was
    # not, and a negative seed was an OverflowError naming no range.
    hex3 = darkhex.load_game("hex(board_size=3)")
    for call, says in [
        (lambda: darkhex.train(KUHN, iterations=0), "iterations: 0 is out of range; accepted: 1 or more"),
        (lambda: darkhex.train(KUHN, iterations=-5), "iterations: -5 is out of range"),
        (lambda: darkhex.train(KUHN, seed=-1), "seed: -1 is out of range; accepted: 0 to 18446744073709551615"),
        (lambda: darkhex.train(KUHN, seed=2**64), "seed: 18446744073709551616 is out of range"),
        (lambda: darkhex.train(KUHN, threads=0), "threads: 0 is out of range; accepted: 1 or more"),
        (lambda: darkhex.train(KUHN, eval_every=0), "eval_every: 0 is out of range; accepted: 1 or more"),
        (lambda: darkhex.train(KUHN, algo="deep-cfr"), "darkhex.train_deep_cfr runs it"),
        (lambda: darkhex.solve_hex(hex3, tt_mb=0), "tt_mb: 0 is out of range; accepted: 1 to"),
        (lambda: darkhex.solve_hex(hex3, max_expansions=0), "max_expansions: 0 is out of range; accepted: 1 or more"),
        (lambda: darkhex.solve_hex(hex3, tt_mb=10**12), "tt_mb: 1000000000000 is out of range"),
        (lambda: darkhex.solve_hex(hex3, time_limit=0.0), "time_limit: 0 is out of range; accepted: 0.001 to 1000000000"),
        (lambda: darkhex.solve_hex(hex3, time_limit=float("nan")), "time_limit: NaN is out of range"),
        (lambda: darkhex.solve_hex(hex3, threads=-1), "threads: -1 is out of range"),
        (lambda: darkhex.league({}, threads=0), "threads: 0 is out of range"),
        (lambda: darkhex.exploitability(KUHN, lambda t, m, p: m, threads=0), "threads: 0 is out of range"),
        (lambda: darkhex.train_deep_cfr(KUHN, iterations=0), "iterations: 0 is out of range"),
        (lambda: darkhex.train_deep_cfr(KUHN, traversals=0), "traversals: 0 is out of range; accepted: 1 to 10000000"),
        (lambda: darkhex.train_deep_cfr(KUHN, explore=1001), "explore: 1001 is out of range; accepted: 1 to 1000"),
        (lambda: darkhex.train_deep_cfr(KUHN, advantage_capacity=10**9 + 1), "advantage_capacity: 1000000001 is out of range"),
        (lambda: darkhex.train_deep_cfr(KUHN, strategy_capacity=0), "strategy_capacity: 0 is out of range"),
        (lambda: darkhex.train_deep_cfr(KUHN, fit_steps=0), "fit_steps: 0 is out of range; accepted: 1 to 1000000"),
        (lambda: darkhex.train_deep_cfr(KUHN, policy_steps=10**6 + 1), "policy_steps: 1000001 is out of range"),
        (lambda: darkhex.train_deep_cfr(KUHN, batch_size=2**32), "batch_size: 4294967296 is out of range; accepted: 1 to 4294967295"),
        (lambda: darkhex.train_deep_cfr(KUHN, learning_rate=0.0), "learning_rate: 0 is out of range; accepted: 0 to 1, 0 excluded"),
        (lambda: darkhex.train_deep_cfr(KUHN, learning_rate=1.5), "learning_rate: 1.5 is out of range"),
        (lambda: darkhex.train_deep_cfr(KUHN, hidden=[64, 0]), "hidden: a hidden layer's width is a whole number from 1 to 4096, not '0'"),
        (lambda: darkhex.train_deep_cfr(KUHN, hidden=[8] * 5), "hidden: at most 4 hidden layers, not 5"),
        (lambda: darkhex.train_deep_cfr(KUHN, seed=-1), "seed: -1 is out of range"),
        (lambda: darkhex.VectorEnv(KUHN, 10, seed=2**64), "seed: 18446744073709551616 is out of range"),
    ]:
        with pytest.raises(ValueError, match=re.escape(says).replace("\\.\\*", ".*")):
            call()
    with pytest.warns(RuntimeWarning, match="more than 4 per core"):
        assert darkhex.train(KUHN, iterations=3, threads=10**6).iterations == 3


def test_reprs_are_pythons():
    # TrainResult's repr showed Rust's Some(0.03...); the other results had
    # no repr of their own.
    def expected(obj, fields):
        shown = " ".join(f"{f}={getattr(obj, f)!r}" for f in fields)
        return f"<darkhex.{type(obj).__name__} {shown}>"

    result = darkhex.train(KUHN, iterations=10)
    assert repr(result) == expected(result, ["iterations", "exploitability", "value_p0", "seconds"])
    big = darkhex.train(darkhex.load_game("dark_hex(num_rows=3,num_cols=3)"), algo="os-mccfr", iterations=1)
    assert big.exploitability is None and "exploitability=None value_p0=None" in repr(big)
    hex4 = darkhex.load_game("hex(board_size=4)")
    solved = darkhex.solve_hex(hex4, moves=["a1"], all_moves=True)
    one = darkhex.solve_hex(hex4, moves=["a1"])
    hex_fields = [
        "to_move",
        "winner",
        "winning_move",
        "winning_moves",
        "expansions",
        "seconds",
        "proof_number",
        "disproof_number",
    ]
    assert repr(solved) == expected(solved, hex_fields) and "winning_moves=[" in repr(solved)
    assert repr(one) == expected(one, hex_fields) and "winning_moves=None" in repr(one)
    lp = darkhex.solve_lp(KUHN)
    assert repr(lp) == expected(lp, ["value", "exploitability"])
    pone = darkhex.pone(darkhex.load_game("dark_hex(num_rows=2,num_cols=2)"))
    assert repr(pone) == expected(pone, ["player", "wins", "winning_move_names", "states", "seconds"])
    assert "winning_move_names=['b1', 'a2']" in repr(pone)
    deep = darkhex.train_deep_cfr(KUHN, iterations=1, traversals=2, hidden=[4], fit_steps=1)
    assert repr(deep) == expected(deep, ["iterations", "exploitability", "value_p0", "traversals", "seconds"])
    league = darkhex.league(
        {"game": "kuhn_poker", "games_per_pair": 2, "players": [{"spec": "random"}, {"spec": "lp"}]}
    )
    assert repr(league) == f"<darkhex.LeagueResult out=None>\n{league.report}"
    for text in map(repr, [result, big, solved, one, lp, pone, deep, league, deep.model, lp.policy]):
        assert "Some(" not in text and not re.search(r"\de-\d\b", text), text


DEEP = ["--algo", "deep-cfr", "--iterations", "3", "--traversals", "20", "--hidden", "16,16", "--fit-steps", "16", "--seed", "2"]


def test_deep_cfr_writes_the_clis_model_and_reads_it(tmp_path, darkhex_cli):
    import json

    cli = json.loads(darkhex_cli("train", "kuhn_poker", *DEEP, "--out", "cli.model", "--json", cwd=tmp_path))
    exploit = json.loads(darkhex_cli("exploit", "kuhn_poker", "cli.model", "--json", cwd=tmp_path))
    # The CLI's model read in Python: the exploitability `darkhex exploit` prints.
    model = darkhex.load_policy(tmp_path / "cli.model")
    assert isinstance(model, darkhex.Model) and model.game == KUHN
    assert darkhex.exploitability(KUHN, model) == exploit["exploitability"] == cli["exploitability"]
    assert model.provenance["iterations"] == 3 and model.provenance["parameters"]["traversals"] == 20
    # Python's run with the CLI's settings writes the CLI's file, byte for byte.
    result = darkhex.train_deep_cfr(
        KUHN, iterations=3, traversals=20, hidden=[16, 16], fit_steps=16, seed=2, threads=1
    )
    assert result.exploitability == cli["exploitability"] and result.value_p0 == cli["value_p0"]
    assert result.iterations == 3 and result.traversals == cli["traversals"] == 120
    result.model.save(tmp_path / "py.model")
    assert (tmp_path / "py.model").read_bytes() == (tmp_path / "cli.model").read_bytes()
    # And the CLI reads Python's (a JSON name too).
    result.model.save(tmp_path / "py.json")
    again = json.loads(darkhex_cli("exploit", "kuhn_poker", "py.json", "--json", cwd=tmp_path))
    assert again["exploitability"] == cli["exploitability"]
    # The model's policy at a state is a distribution over the legal actions.
    state = KUHN.new_state_from_history([0, 1, 1])   # J to 0, Q to 1, player 0 bets
    probs = model.action_probabilities(state)
    assert sorted(probs) == [0, 1] and abs(sum(probs.values()) - 1) < 1e-12
    assert probs == result.model.action_probabilities(state, player=1)
    with pytest.raises(ValueError, match="player 0 does not move here: a policy chooses for the player to move, 1"):
        model.action_probabilities(state, player=0)
    with pytest.raises(ValueError, match="the model is for kuhn_poker, not leduc_poker"):
        darkhex.exploitability(darkhex.load_game("leduc_poker"), model)
    with pytest.raises(ValueError, match="is for kuhn_poker"):
        darkhex.load_policy(tmp_path / "cli.model", game=darkhex.load_game("leduc_poker"))
    with pytest.raises(TypeError, match="policy must be a darkhex.Policy, a darkhex.Model or a function of tensors and masks, not int"):
        darkhex.exploitability(KUHN, 3)
