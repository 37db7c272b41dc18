"""Leagues from Python: the CLI's log, ratings and table."""

import json

import pytest

import darkhex

TOML = """
game = "dark_hex(num_rows=3,num_cols=3)"
games_per_pair = 6
seed = 3
[[players]]
spec = "random"
[[players]]
name = "search"
spec = "ismcts(sims=40)"
[[players]]
spec = "pone"
"""


def test_a_league_from_toml_equals_the_cli_run(tmp_path, darkhex_cli):
    (tmp_path / "t.toml").write_text(TOML)
    darkhex_cli("league", "t.toml", "--threads", "1", "--out", "cli", cwd=tmp_path)
    result = darkhex.league(TOML, out=tmp_path / "py", threads=1)
    assert (tmp_path / "py" / "results.jsonl").read_text() == (
        tmp_path / "cli" / "results.jsonl"
    ).read_text()
    report = json.loads((tmp_path / "cli" / "report.json").read_text())
    assert result.ratings == {p["name"]: p["rating"]["elo"] for p in report["players"]}
    for cell in report["cross"]:
        assert result.table[cell["row"]][cell["col"]] == cell["overall"]["score"]
    assert len(result.games) == 18 and result.games[0]["id"] == 1
    assert "| rank | player | Elo" in result.report


def test_a_dict_is_the_same_league_as_its_toml(tmp_path):
    as_dict = {
        "game": "dark_hex(num_rows=3,num_cols=3)",
        "games_per_pair": 6,
        "seed": 3,
        "players": [
            {"spec": "random"},
            {"name": "search", "spec": "ismcts(sims=40)"},
            {"spec": "pone"},
        ],
    }
    a = darkhex.league(as_dict, threads=1)
    b = darkhex.league(TOML, threads=1)
    assert a.ratings == b.ratings and a.games == b.games and a.out is None


def test_shards_and_bad_definitions(tmp_path):
    part = darkhex.league(TOML, out=tmp_path / "p1", shard="1/3")
    assert len(part.games) == 6
    with pytest.raises(ValueError, match="I from 1 to N"):
        darkhex.league(TOML, shard="0/3")
    with pytest.raises(ValueError, match="needs at least two players"):
        darkhex.league({"game": "kuhn_poker", "games_per_pair": 2, "players": [{"spec": "random"}]})
    with pytest.raises(ValueError, match="tournament definition"):
        darkhex.league("game = ")
    with pytest.raises(ValueError, match="player 'nobody\\(x=1\\)'"):
        darkhex.league(TOML.replace('"pone"', '"nobody(x=1)"'))


def test_a_missing_tournament_file_is_a_file_error_naming_it(tmp_path):
    # A path given as a string used to be parsed as TOML text.
    nowhere = tmp_path / "nowhere.toml"
    for missing in ["/missing.toml", str(nowhere), nowhere]:
        with pytest.raises(FileNotFoundError, match=f"^cannot read {missing}: No such file"):
            darkhex.league(missing)
    with pytest.raises(IsADirectoryError, match=f"cannot read {tmp_path}"):
        darkhex.league(str(tmp_path))
    (tmp_path / "t.toml").write_text(TOML)
    assert len(darkhex.league(str(tmp_path / "t.toml"), out=tmp_path / "o").games) == 18
