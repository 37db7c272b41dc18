//! `darkhex info` and `darkhex exploit` past the compiled tree, as a user
//! runs them: the streaming numbers equal the compiled ones.

mod common;

use common::{darkhex, json, ok, stderr};

const GAME: &str = "dark_hex(num_rows=2,num_cols=3,gameversion=adh,disclosure=noise)";

#[test]
fn info_counts_from_the_tables_equal_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let walked = json(&darkhex(d, &["info", GAME, "--json"]));
    let tables = json(&darkhex(
        d,
        &["info", GAME, "--json", "--max-histories", "1000"],
    ));
    assert_eq!(tables["method"], "streaming tables");
    for key in ["histories", "terminals", "infosets", "sequences"] {
        assert_eq!(tables[key], walked[key], "{key}");
    }
    let text = ok(&darkhex(d, &["info", GAME, "--max-histories", "1000"]));
    assert!(text.contains("counted without walking them"), "{text}");
}

#[test]
fn streaming_exploit_equals_the_compiled_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A sampled policy: it lacks information states, which play uniformly.
    ok(&darkhex(
        d,
        &[
            "train",
            GAME,
            "--algo",
            "os-mccfr",
            "--iterations",
            "300",
            "--out",
            "p.json",
        ],
    ));
    for policy in ["p.json", "uniform"] {
        let compiled = json(&darkhex(d, &["exploit", GAME, policy, "--json"]));
        let streamed = json(&darkhex(
            d,
            &["exploit", GAME, policy, "--json", "--stream"],
        ));
        assert_eq!(compiled["method"], "compiled tree");
        assert_eq!(streamed["method"], "streaming pass");
        for key in ["exploitability", "nash_conv", "value_p0"] {
            let (a, b) = (
                compiled[key].as_f64().unwrap(),
                streamed[key].as_f64().unwrap(),
            );
            assert!((a - b).abs() < 1e-12, "{policy} {key}: {a} vs {b}");
        }
        for p in 0..2 {
            let a = compiled["best_response_values"][p].as_f64().unwrap();
            let b = streamed["best_response_values"][p].as_f64().unwrap();
            assert!((a - b).abs() < 1e-12, "{policy}: best response {p}");
        }
        assert_eq!(
            compiled["uniform_infosets_per_player"],
            streamed["uniform_infosets_per_player"]
        );
    }
    let missing = json(&darkhex(
        d,
        &["exploit", GAME, "p.json", "--json", "--stream"],
    ));
    assert!(
        missing["uniform_infosets"].as_u64().unwrap() > 0,
        "{missing}"
    );
    let text = ok(&darkhex(d, &["exploit", GAME, "p.json", "--stream"]));
    assert!(
        text.contains("play uniformly") && text.contains("best responses"),
        "{text}"
    );
}

#[test]
fn a_policy_for_another_game_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--iterations",
            "10",
            "--out",
            "k.json",
        ],
    ));
    let o = darkhex(d, &["exploit", GAME, "k.json", "--stream"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.starts_with("error:") && err.contains("kuhn_poker"),
        "{err}"
    );
    let o = darkhex(d, &["exploit", GAME, "nothing.json", "--stream"]);
    assert!(!o.status.success() && stderr(&o).starts_with("error:"));
}
