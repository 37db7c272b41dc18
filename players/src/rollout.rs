//! Random playouts: the inner loop of search players and of the playout benches.

use darkhex_games::{Action, State, Turn};
use rand::Rng;

use crate::referee::sample_chance;

/// Plays uniformly random actions (and samples chance) from `state` to the
/// end; `buf` is reused for legal actions. Returns the final returns.
pub fn random_playout<S: State>(
    state: &mut S,
    rng: &mut impl Rng,
    buf: &mut Vec<Action>,
) -> [f64; 2] {
    loop {
        match state.current_player() {
            Turn::Terminal => return state.returns(),
            Turn::Chance => {
                let a = sample_chance(state, rng);
                state.apply(a);
            }
            Turn::Player(_) => {
                let a = state
                    .pick_legal_action(buf, |n| rng.random_range(0..n))
                    .expect("a player to move has a legal action");
                state.apply(a);
            }
        }
    }
}
