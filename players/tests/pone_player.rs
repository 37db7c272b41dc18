//! The PONE player never loses where PONE says it wins with probability one.

use darkhex_games::load_game;
use darkhex_players::{play_game, prepare};

#[test]
fn the_pone_player_never_loses_a_sure_win() {
    // Player 0 wins classic 3x3 Dark Hex surely; player 1 wins the 3x2 board
    // and 3x3 Dark Rex.
    for (game, seat) in [
        ("dark_hex(num_rows=3,num_cols=3)", 0),
        ("dark_hex(num_rows=3,num_cols=3,disclosure=flash)", 0),
        ("dark_hex(num_rows=3,num_cols=2,gameversion=cdh)", 1),
        ("dark_rex(num_rows=3,num_cols=3)", 1),
    ] {
        let g = load_game(game).unwrap();
        let pone = prepare("pone(fallback=random)", &g).unwrap();
        for opponent in ["random", "ismcts(sims=200)"] {
            let other = prepare(opponent, &g).unwrap();
            for seed in 0..60 {
                let mut players = if seat == 0 {
                    [pone.create(0, seed), other.create(1, seed + 100)]
                } else {
                    [other.create(0, seed + 100), pone.create(1, seed)]
                };
                let r = play_game(&g, &mut players, seed, |_, _, _| {}).unwrap();
                assert!(
                    r.returns[seat] > 0.0,
                    "{game}: pone lost to {opponent} (seed {seed}): {:?}",
                    r.history
                );
            }
        }
    }
}

#[test]
fn the_pone_player_falls_back_where_it_has_no_sure_win() {
    // Nobody wins abrupt 3x3 Dark Hex surely: the fallback plays.
    let g = load_game("dark_hex(num_rows=3,num_cols=3,gameversion=adh)").unwrap();
    let pone = prepare("pone(fallback=ismcts(sims=100))", &g).unwrap();
    let random = prepare("random", &g).unwrap();
    let mut wins = 0;
    for seed in 0..40 {
        let mut players = [pone.create(0, seed), random.create(1, seed + 7)];
        wins += usize::from(
            play_game(&g, &mut players, seed, |_, _, _| {})
                .unwrap()
                .returns[0]
                > 0.0,
        );
    }
    assert!(wins >= 30, "{wins}");
    assert!(prepare("pone", &load_game("hex(board_size=3)").unwrap()).is_err());
}
