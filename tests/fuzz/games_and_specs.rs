//! Game strings, player specs and move lists.

use darkhex::games::{AnyGame, GAME_NAMES, Game, State, Turn, load_game, parse_move};
use darkhex::players::{PLAYER_NAMES, prepare_in};
use proptest::prelude::*;

use super::{each_seed, guarded, mutated, one_line, run, seed_lines, text};

const PARAMS: &[&str] = &[
    "board_size",
    "num_rows",
    "num_cols",
    "gameversion",
    "obstype",
    "disclosure",
    "size",
];
const VALUES: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "26",
    "27",
    "-1",
    "99999999999999999999",
    "cdh",
    "adh",
    "reveal-nothing",
    "reveal-numturns",
    "none",
    "noise",
    "flash",
    "x",
    "",
    "3)",
];

/// A game string from the grammar, parameters drawn from the real ones and
/// from wrong ones.
fn grammar_game() -> impl Strategy<Value = String> {
    (
        // The real names and two wrong ones.
        prop::sample::select([&GAME_NAMES[..], &["chess", ""]].concat()),
        prop::collection::vec(
            (prop::sample::select(PARAMS), prop::sample::select(VALUES)),
            0..5,
        ),
        any::<bool>(),
    )
        .prop_map(|(name, params, parens)| {
            let body: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            if parens || !body.is_empty() {
                format!("{name}({})", body.join(","))
            } else {
                name.to_string()
            }
        })
}

fn check_game(input: &str) -> Result<(), String> {
    match load_game(input) {
        Ok(game) => {
            // The canonical string names the same game.
            let again = load_game(&game.game_string())
                .map_err(|e| format!("{} does not parse back: {e}", game.game_string()))?;
            if again != game {
                return Err(format!("{} parses to another game", game.game_string()));
            }
            let state = game.new_initial_state();
            if state.current_player() != Turn::Terminal && state.legal_actions().is_empty() {
                return Err("a state to move with no legal action".into());
            }
            Ok(())
        }
        Err(e) => one_line(&e),
    }
}

/// Seeds the line files cannot hold: line breaks inside a game string or
/// spec once made errors of several lines (what was typed is now quoted
/// escaped).
const MULTI_LINE: [&str; 8] = [
    "ran\ndom\n\n",
    "he\nx\n(\n",
    "hex(board_size=3,board_size=\n\n4)",
    "ismcts(sims=\n1\n2\n)",
    "pone(fallback=\n\nwizard)",
    // A file name is shown in the error that cannot read it.
    "policy(file=k\n\nuhn.json)",
    "lp(file=e\n\nq.json)",
    "network(eval=ek,k=2,x=0\n.00001)",
];

#[test]
fn game_strings() {
    let seeds = seed_lines("game-strings");
    each_seed("game-strings", seeds.iter().map(|b| text(b)), |s| {
        check_game(s)
    });
    each_seed("game-strings", MULTI_LINE.map(String::from), |s| {
        check_game(s)
    });
    let strategy = prop_oneof![mutated(seeds).prop_map(|b| text(&b)), grammar_game()];
    run("game strings", 3000, strategy, |input| {
        guarded("game-strings", input, |s| check_game(s))
    });
}

/// The small games the specs are tried on: preparing a player is cheap there
/// (an LP of Kuhn poker or 2x2 Dark Hex takes milliseconds).
const SPEC_GAMES: &[&str] = &[
    "kuhn_poker",
    "dark_hex(num_rows=2,num_cols=2)",
    "hex(board_size=2)",
    "rex(board_size=2)",
];

fn check_spec(input: &(usize, String)) -> Result<(), String> {
    let (g, spec) = input;
    let game = load_game(SPEC_GAMES[*g]).map_err(|e| e.to_string())?;
    // Relative files are the policy files of the corpus.
    let base = super::corpus("policies");
    match prepare_in(spec, &game, &base) {
        // Playing would take as long as the spec asks (sims=10000000 is
        // legal): the parser's part ends with the players made.
        Ok(factory) => {
            let _players = [factory.create(0, 1), factory.create(1, 2)];
            Ok(())
        }
        Err(e) => one_line(&e),
    }
}

const SPEC_PARAMS: &[&str] = &[
    "sims", "c", "file", "backend", "fallback", "time", "eval", "k", "x", "paths",
];
const SPEC_VALUES: &[&str] = &[
    "0",
    "1",
    "10",
    "0.001",
    "1e-300",
    "1e300",
    "-5",
    "NaN",
    "inf",
    "99999999999999999999",
    "kuhn.json",
    "kuhn.bin",
    "missing.json",
    "/dev/zero",
    "/",
    ".",
    "clarabel",
    "microlp",
    "random",
    "lp",
    "ismcts(sims=5)",
    "pone(fallback=random)",
    "e",
    "ek",
    "",
];

fn grammar_spec() -> impl Strategy<Value = String> {
    (
        prop::sample::select([&PLAYER_NAMES[..], &["human", "wizard"]].concat()),
        prop::collection::vec(
            (
                prop::sample::select(SPEC_PARAMS),
                prop::sample::select(SPEC_VALUES),
            ),
            0..4,
        ),
    )
        .prop_map(|(name, params)| {
            if params.is_empty() {
                name.to_string()
            } else {
                let body: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{name}({})", body.join(","))
            }
        })
}

#[test]
fn player_specs() {
    let seeds = seed_lines("player-specs");
    let every = (0..SPEC_GAMES.len()).flat_map(|g| seeds.iter().map(move |b| (g, text(b))));
    each_seed("player-specs", every, check_spec);
    let multi_line = (0..SPEC_GAMES.len()).flat_map(|g| MULTI_LINE.map(|s| (g, s.to_string())));
    each_seed("player-specs", multi_line, check_spec);
    let spec = prop_oneof![mutated(seeds).prop_map(|b| text(&b)), grammar_spec()];
    // `human` reads the terminal: it is left out here.
    let strategy = (0..SPEC_GAMES.len(), spec).prop_filter("human", |(_, s)| !s.contains("human"));
    run("player specs", 600, strategy, |input| {
        guarded("player-specs", input, check_spec)
    });
}

/// Move lists as `play --moves` and the league's logs give them.
fn check_moves(input: &(usize, String)) -> Result<(), String> {
    let (g, moves) = input;
    let game: AnyGame = load_game(MOVE_GAMES[*g]).map_err(|e| e.to_string())?;
    let mut state = game.new_initial_state();
    for word in moves.split(',') {
        match parse_move(&game, &state, word) {
            Ok(a) => {
                state
                    .try_apply(a)
                    .map_err(|e| format!("parse_move accepted an illegal move: {e}"))?;
            }
            Err(e) => return one_line(&e),
        }
    }
    Ok(())
}

const MOVE_GAMES: &[&str] = &[
    "kuhn_poker",
    "leduc_poker",
    "hex(board_size=3)",
    "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
    "dark_rex(num_rows=3,num_cols=3,disclosure=flash)",
];

#[test]
fn move_lists() {
    let seeds = seed_lines("moves");
    let every = (0..MOVE_GAMES.len()).flat_map(|g| seeds.iter().map(move |b| (g, text(b))));
    each_seed("moves", every, check_moves);
    let strategy = (0..MOVE_GAMES.len(), mutated(seeds).prop_map(|b| text(&b)));
    run("move lists", 3000, strategy, |input| {
        guarded("moves", input, check_moves)
    });
}
