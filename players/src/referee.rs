//! Runs one game between two players, telling each only its own observations.

use darkhex_games::{Action, Game, NUM_PLAYERS, State, Turn};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::player::{Player, PlayerError, PlayerView};

/// How a game went.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Every action, chance outcomes included.
    pub history: Vec<Action>,
    pub returns: [f64; NUM_PLAYERS],
    /// Decisions each seat took.
    pub decisions: [u32; NUM_PLAYERS],
    /// Decisions at which each seat's player had no policy and played uniformly.
    pub uniform_fallbacks: [u32; NUM_PLAYERS],
}

pub use darkhex_algorithms::policy::sample_chance;

/// Plays `game` to the end. Chance nodes are sampled from `seed`; `on_move`
/// sees the real state after each action (for referees' displays, not players).
pub fn play_game<G: Game>(
    game: &G,
    players: &mut [Box<dyn Player + '_>; NUM_PLAYERS],
    seed: u64,
    on_move: impl FnMut(&G::State, Turn, Action),
) -> Result<GameRecord, PlayerError> {
    play_game_from(game.new_initial_state(), players, seed, on_move)
}

/// [`play_game`] from `state` on (moves already made, as `play --moves`
/// gives them): the record holds the whole history, and decisions count
/// from `state`.
pub fn play_game_from<S: State>(
    mut state: S,
    players: &mut [Box<dyn Player + '_>; NUM_PLAYERS],
    seed: u64,
    mut on_move: impl FnMut(&S, Turn, Action),
) -> Result<GameRecord, PlayerError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut legal = Vec::new();
    let mut decisions = [0; NUM_PLAYERS];
    loop {
        let turn = state.current_player();
        let action = match turn {
            Turn::Terminal => break,
            Turn::Chance => sample_chance(&state, &mut rng),
            Turn::Player(p) => {
                state.legal_actions_into(&mut legal);
                let view = PlayerView {
                    seat: p,
                    info_key: state.info_key(p),
                    legal: &legal,
                };
                let a = players[p].act(&view)?;
                decisions[p] += 1;
                if !legal.contains(&a) {
                    return Err(PlayerError::IllegalChoice {
                        name: players[p].name(),
                        action: a,
                        legal: legal.clone(),
                    });
                }
                a
            }
        };
        state.apply(action);
        on_move(&state, turn, action);
    }
    let returns = state.returns();
    for (p, player) in players.iter_mut().enumerate() {
        player.game_over(state.info_key(p), returns)?;
    }
    Ok(GameRecord {
        history: state.history().to_vec(),
        returns,
        decisions,
        uniform_fallbacks: [
            players[0].uniform_fallbacks(),
            players[1].uniform_fallbacks(),
        ],
    })
}
