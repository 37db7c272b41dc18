//! `darkhex` with no arguments: a short tour of what is here.

use anyhow::Result;
use darkhex_games::analysis::{WalkOptions, tree_stats};
use darkhex_games::{EXAMPLE_GAME_STRINGS, load_game};
use darkhex_players::{Player, RandomPlayer, play_game};

use crate::output::outln;
use crate::play::{outcome_line, render_state, replay_history};

pub fn run() -> Result<()> {
    outln!("darkhex: Hex, Rex and Dark Hex, with solvers, players and a league.\n");
    outln!("Games are named by OpenSpiel-style strings, for example:");
    for s in EXAMPLE_GAME_STRINGS {
        outln!("  {s}");
    }

    let game = load_game("dark_hex(num_rows=3,num_cols=3)")?;
    outln!("\nTwo random players on {game} (seed 1). Each sees only their own stones");
    outln!("and the ones they bumped into; a bump in classic Dark Hex means moving again.");
    let mut players: [Box<dyn Player>; 2] = [
        Box::new(RandomPlayer::new(11)),
        Box::new(RandomPlayer::new(12)),
    ];
    let record = play_game(&game, &mut players, 1, |_, _, _| {})?;
    let (moves, state) = replay_history(&game, &record.history);
    outln!("moves: {}\n", moves.join(", "));
    outln!("{}", render_state(&game, &state));
    outln!("{}", outcome_line(&game, &state));

    let small = load_game("dark_hex(num_rows=2,num_cols=3)")?;
    let stats = tree_stats(&small, &WalkOptions::default())?;
    outln!(
        "\nThe whole tree of {small}: {} histories, {} / {} information states, perfect recall: {}.",
        stats.histories,
        stats.infosets[0],
        stats.infosets[1],
        if stats.perfect_recall() { "yes" } else { "no" }
    );
    outln!("\nNext:");
    outln!(
        "  darkhex play 'dark_hex(num_rows=3,num_cols=3)'          play against the random player"
    );
    outln!("  darkhex play 'hex(board_size=3)' --moves b2,a1,b1        replay moves");
    outln!("  darkhex info 'dark_hex(num_rows=2,num_cols=3)' --json     sizes of a game tree");
    outln!("  darkhex --help                                          every command");
    Ok(())
}
