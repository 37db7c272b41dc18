"""PPO and MMD from Python: darkhex.train(game, algo="ppo"|"mmd") writes the
CLI's model file byte for byte, the model is a darkhex.Model every reader
takes, and arguments the CLI refuses are refused with its words."""

import json

import pytest

import darkhex

KUHN = darkhex.load_game("kuhn_poker")
SMALL = dict(steps=2048, hidden=[16], num_envs=8, rollout_steps=32, seed=3, threads=1)
CLI_SMALL = ["--steps", "2048", "--hidden", "16", "--num-envs", "8", "--rollout-steps", "32", "--seed", "3", "--threads", "1"]


@pytest.mark.parametrize("algo", ["ppo", "mmd"])
def test_python_writes_the_clis_model_byte_for_byte(tmp_path, darkhex_cli, algo):
    cli = json.loads(darkhex_cli("train", "kuhn_poker", "--algo", algo, *CLI_SMALL, "--out", "cli.model", "--json", cwd=tmp_path))
    result = darkhex.train(KUHN, algo=algo, **SMALL)
    assert result.steps == cli["steps"] == 2048
    assert result.exploitability == cli["exploitability"]
    assert [p["steps"] for p in result.history] == [p["steps"] for p in cli["curve"]]
    result.model.save(tmp_path / "py.model")
    assert (tmp_path / "py.model").read_bytes() == (tmp_path / "cli.model").read_bytes()
    model = darkhex.load_policy(tmp_path / "cli.model")
    assert isinstance(model, darkhex.Model)
    assert darkhex.exploitability(KUHN, model) == result.exploitability
    assert model.provenance["algorithm"] == algo and model.provenance["iterations"] == 2048
    assert model.provenance["parameters"]["num_envs"] == 8
    state = KUHN.new_initial_state()
    state.apply_action(2)
    state.apply_action(0)
    probs = model.action_probabilities(state)
    assert sorted(probs) == [0, 1] and abs(sum(probs.values()) - 1) < 1e-12
    assert all(0 < p < 1 for p in probs.values())


def test_what_the_cli_refuses_python_refuses_in_its_words():
    with pytest.raises(ValueError, match="steps applies to algo=\"ppo\", algo=\"mmd\" and algo=\"nfsp\" only"):
        darkhex.train(KUHN, algo="cfr+", steps=10)
    with pytest.raises(ValueError, match="ppo takes steps, not iterations"):
        darkhex.train(KUHN, algo="ppo", iterations=10)
    with pytest.raises(ValueError, match="the preset rudolph2026 has no ppo settings for kuhn_poker; it covers classical_dark_hex"):
        darkhex.train(KUHN, algo="ppo", preset="rudolph2026")
    with pytest.raises(ValueError, match="preset: 'x' is not one of rudolph2026"):
        darkhex.train(KUHN, algo="mmd", preset="x")
    with pytest.raises(ValueError, match="the KL coefficient and the schedule apply to mmd only"):
        darkhex.train(KUHN, algo="ppo", kl_coef=0.1, steps=10)
    with pytest.raises(ValueError, match="clip: -1 is out of range; accepted: 0 to 10"):
        darkhex.train(KUHN, algo="ppo", clip=-1.0)
    with pytest.raises(ValueError, match="3 minibatches of a rollout of 2 steps"):
        darkhex.train(KUHN, algo="ppo", num_envs=1, rollout_steps=2, minibatches=3)


NFSP_SMALL = dict(steps=4000, hidden=[16], anticipatory=0.5, seed=3, eval_every=2000)
CLI_NFSP_SMALL = ["--steps", "4000", "--hidden", "16", "--anticipatory", "0.5", "--seed", "3", "--eval-every", "2000"]


def test_nfsp_from_python_is_the_clis_and_its_model_evaluates(tmp_path, darkhex_cli):
    cli = json.loads(darkhex_cli("train", "kuhn_poker", "--algo", "nfsp", *CLI_NFSP_SMALL, "--out", "cli.model", "--json", cwd=tmp_path))
    result = darkhex.train(KUHN, algo="nfsp", **NFSP_SMALL)
    assert result.steps == cli["steps"] >= 4000
    assert result.exploitability == cli["exploitability"]
    assert 0 < result.exploitability < 1
    assert [p["steps"] for p in result.history] == [p["steps"] for p in cli["curve"]]
    result.model.save(tmp_path / "py.model")
    assert (tmp_path / "py.model").read_bytes() == (tmp_path / "cli.model").read_bytes()
    model = darkhex.load_policy(tmp_path / "py.model")
    assert model.provenance["algorithm"] == "nfsp"
    assert model.provenance["parameters"]["anticipatory_param"] == 0.5
    assert darkhex.exploitability(KUHN, model) == result.exploitability
    state = KUHN.new_initial_state()
    state.apply_action(2)
    state.apply_action(0)
    probs = model.action_probabilities(state)
    assert sorted(probs) == [0, 1] and abs(sum(probs.values()) - 1) < 1e-12


def test_nfsp_refuses_what_it_does_not_take():
    with pytest.raises(ValueError, match="nfsp takes steps, not iterations"):
        darkhex.train(KUHN, algo="nfsp", iterations=10)
    with pytest.raises(ValueError, match="nfsp does not take num_envs"):
        darkhex.train(KUHN, algo="nfsp", num_envs=4)
    with pytest.raises(ValueError, match="anticipatory applies to algo=\"nfsp\" only"):
        darkhex.train(KUHN, algo="ppo", anticipatory=0.5)
    with pytest.raises(ValueError, match="anticipatory: 2 is out of range"):
        darkhex.train(KUHN, algo="nfsp", anticipatory=2.0)
    with pytest.raises(ValueError, match="the preset rudolph2026 has no nfsp settings for kuhn_poker"):
        darkhex.train(KUHN, algo="nfsp", preset="rudolph2026")


def test_escher_from_python_is_the_clis_and_its_model_evaluates(tmp_path, darkhex_cli):
    cli_args = ["--iterations", "4", "--traversals", "40", "--value-traversals", "40", "--hidden", "16", "--fit-steps", "16", "--seed", "2", "--eval-every", "2", "--threads", "1"]
    cli = json.loads(darkhex_cli("train", "kuhn_poker", "--algo", "escher", *cli_args, "--out", "cli.model", "--json", cwd=tmp_path))
    result = darkhex.train(KUHN, algo="escher", iterations=4, traversals=40, value_traversals=40, hidden=[16], fit_steps=16, seed=2, eval_every=2, threads=1)
    assert result.steps == cli["iterations"] == 4
    assert result.exploitability == cli["exploitability"]
    assert 0 < result.exploitability < 0.5
    assert [p["steps"] for p in result.history] == [p["steps"] for p in cli["curve"]] == [2, 4]
    result.model.save(tmp_path / "py.model")
    assert (tmp_path / "py.model").read_bytes() == (tmp_path / "cli.model").read_bytes()
    assert darkhex.exploitability(KUHN, result.model) == result.exploitability
    with pytest.raises(ValueError, match="escher does not take steps"):
        darkhex.train(KUHN, algo="escher", steps=10)
    with pytest.raises(ValueError, match="traversals applies to algo=\"escher\" only"):
        darkhex.train(KUHN, algo="ppo", traversals=10)


def test_a_checkpointed_run_resumes_to_the_uninterrupted_model(tmp_path):
    # NFSP, whose settings do not depend on the run's length (PPO's and
    # MMD's learning rate anneals over it).
    straight = darkhex.train(KUHN, algo="nfsp", **NFSP_SMALL)
    ckpt = tmp_path / "r.ckpt"
    half = darkhex.train(KUHN, algo="nfsp", **{**NFSP_SMALL, "steps": 2000}, checkpoint=ckpt)
    assert 2000 <= half.steps < straight.steps
    resumed = darkhex.train(KUHN, algo="nfsp", **NFSP_SMALL, checkpoint=ckpt)
    assert resumed.steps == straight.steps
    assert resumed.exploitability == straight.exploitability
    assert [p["steps"] for p in resumed.history] == [p["steps"] for p in straight.history]
    # The first evaluation is the checkpoint's, wall time and all: the run
    # went on from it rather than afresh.
    assert resumed.history[0] == half.history[0] != straight.history[0]
    straight.model.save(tmp_path / "straight.model")
    resumed.model.save(tmp_path / "resumed.model")
    assert (tmp_path / "straight.model").read_bytes() == (tmp_path / "resumed.model").read_bytes()
    with pytest.raises(ValueError, match="was made with other settings"):
        darkhex.train(KUHN, algo="nfsp", **{**NFSP_SMALL, "seed": 4}, checkpoint=ckpt)
