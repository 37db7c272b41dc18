//! Real Dark Hex states consistent with one player's observations, for
//! players that search over what the hidden board may be.
//!
//! A sample replays the game from the start: the observer's own moves come
//! from their information state; the opponent's moves are drawn at random
//! among those the observations allow (cells the observer later places on
//! stay empty, cells the observer later runs into are filled in time, no
//! move ends the game early, collisions only where the observer would not
//! have noticed them). Every sample is then checked exactly: its real state
//! gives the observer precisely the given information state, or it is drawn
//! again.

use darkhex_games::dark_hex::{DarkHexGame, DarkHexState, Disclosure, GameVersion, ObsType, token};
use darkhex_games::{Action, Game, State, Token, Turn};
use rand::Rng;
use rand::seq::IndexedRandom;

/// Draws before giving up.
pub const MAX_ATTEMPTS: usize = 64;
/// Chance of a hidden collision where one is possible.
const HIDDEN_COLLISION: f64 = 0.15;

/// A real state in which `seat` has information state `key` and is to move.
pub fn sample_consistent(
    game: &DarkHexGame,
    seat: usize,
    key: &[Token],
    rng: &mut impl Rng,
) -> Option<DarkHexState> {
    (0..MAX_ATTEMPTS).find_map(|_| try_sample(game, seat, key, rng))
}

fn try_sample(
    game: &DarkHexGame,
    seat: usize,
    key: &[Token],
    rng: &mut impl Rng,
) -> Option<DarkHexState> {
    let mut state = game.new_initial_state();
    loop {
        let seen = state.info_key(seat);
        let pos = seen.len();
        if pos > key.len() || seen != &key[..pos] {
            return None;
        }
        match state.current_player() {
            Turn::Player(p) if p == seat => {
                let Some(&t) = key.get(pos) else {
                    return Some(state);
                };
                let kind = t & token::KIND_MASK;
                let cell = (t & token::CELL_MASK) as usize;
                let expect_empty = match kind {
                    token::PLACED => true,
                    token::COLLIDED => false,
                    _ => return None,
                };
                if state.board().is_empty(cell) != expect_empty {
                    return None;
                }
                state.apply(cell as Action);
            }
            Turn::Player(_) => {
                let a = opponent_move(game, &state, seat, &key[pos..], rng)?;
                state.apply(a);
            }
            Turn::Terminal | Turn::Chance => return None,
        }
    }
}

/// Whether the observer's token passes the turn to the opponent.
fn passes_turn(game: &DarkHexGame, t: Token) -> bool {
    match t & token::KIND_MASK {
        token::PLACED => true,
        token::COLLIDED => game.version() == GameVersion::Abrupt,
        _ => false,
    }
}

fn opponent_move(
    game: &DarkHexGame,
    state: &DarkHexState,
    seat: usize,
    future: &[Token],
    rng: &mut impl Rng,
) -> Option<Action> {
    let board = state.board();
    let cells = game.dims().cells();
    let hidden_ours: Vec<usize> = (0..cells)
        .filter(|&c| board.stone(c) == Some(seat) && !board.is_revealed(c))
        .collect();
    let numturns = game.obstype() == ObsType::RevealNumTurns;
    let silent = game.disclosure() == Disclosure::None;
    // What the observer will see of this move, if anything.
    let next = future
        .first()
        .map(|&t| (t & token::KIND_MASK, (t & token::CELL_MASK) as usize));
    let may_collide = match next {
        Some((token::FLASH, c)) => return hidden_ours.contains(&c).then_some(c as Action),
        Some((token::NOISE, _)) => return hidden_ours.choose(rng).map(|&c| c as Action),
        Some((token::OPPONENT_TURN, _)) => silent,
        // With the turn count visible, every opponent move shows up.
        _ if numturns => return None,
        _ => silent,
    };

    // The observer's future placements must find their cells empty; the
    // cells they will run into must hold opponent stones by then.
    let mut keep_empty = vec![false; cells];
    let mut deadlines: Vec<(usize, usize)> = Vec::new();
    for (i, &t) in future.iter().enumerate() {
        let c = (t & token::CELL_MASK) as usize;
        match t & token::KIND_MASK {
            token::PLACED => keep_empty[c] = true,
            token::COLLIDED if board.is_empty(c) && !deadlines.iter().any(|d| d.1 == c) => {
                deadlines.push((i, c))
            }
            _ => {}
        }
    }
    // Opponent placements still to come before each deadline, this one
    // included: with the turn count visible, one per turn token; otherwise
    // this one and one after each observer move that passes the turn.
    let chances_before = |d: usize| -> usize {
        let before = &future[..d];
        if numturns {
            before
                .iter()
                .filter(|&&t| t & token::KIND_MASK == token::OPPONENT_TURN)
                .count()
        } else {
            1 + before.iter().filter(|&&t| passes_turn(game, t)).count()
        }
    };
    let tight = deadlines
        .iter()
        .enumerate()
        .any(|(k, &(d, _))| k + 1 >= chances_before(d));
    // The cells tried are empty, so the move places a stone of the mover.
    let ends_game = |c: usize| board.would_join(c, 1 - seat);
    if tight {
        let (_, c) = deadlines[0];
        return (!ends_game(c)).then_some(c as Action);
    }
    // In abrupt Dark Hex a collision uses the turn a placement needed.
    let collision_ok = may_collide
        && !hidden_ours.is_empty()
        && (game.version() == GameVersion::Classic
            || deadlines
                .iter()
                .enumerate()
                .all(|(k, &(d, _))| k + 2 <= chances_before(d)));
    if collision_ok && rng.random_bool(HIDDEN_COLLISION) {
        return hidden_ours.choose(rng).map(|&c| c as Action);
    }
    let places: Vec<usize> = (0..cells)
        .filter(|&c| board.is_empty(c) && !keep_empty[c] && !ends_game(c))
        .collect();
    places.choose(rng).map(|&c| c as Action)
}

#[cfg(test)]
mod tests {
    use super::*;
    use darkhex_games::AnyGame;
    use darkhex_games::load_game;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn samples_reproduce_the_observers_information_state() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for extra in [
            "",
            ",gameversion=adh",
            ",disclosure=noise",
            ",disclosure=flash,gameversion=adh",
            ",obstype=reveal-numturns",
            ",obstype=reveal-numturns,disclosure=noise,gameversion=adh",
        ] {
            let AnyGame::DarkHex(game) =
                load_game(&format!("dark_hex(num_rows=3,num_cols=4{extra})")).unwrap()
            else {
                unreachable!()
            };
            let mut found = 0;
            for _ in 0..200 {
                // A random real game; sample from each decision point of it.
                let mut real = game.new_initial_state();
                while let Turn::Player(p) = real.current_player() {
                    let sample = sample_consistent(&game, p, real.info_key(p), &mut rng);
                    if let Some(s) = sample {
                        assert_eq!(s.info_key(p), real.info_key(p), "{extra}");
                        assert_eq!(s.current_player(), Turn::Player(p), "{extra}");
                        assert_eq!(s.legal_actions(), real.legal_actions(), "{extra}");
                        found += 1;
                    }
                    let legal = real.legal_actions();
                    real.apply(*legal.choose(&mut rng).unwrap());
                }
            }
            assert!(found > 1500, "{extra}: only {found} samples");
        }
    }
}
