//! The policy a player induces, for measuring a search player's
//! exploitability exactly: ISMCTS has no table of probabilities, only a move
//! it picks when asked. At every information state of its seat that its own
//! play can reach (whatever the other player and chance do), a fresh copy of
//! the player, seeded from the state's key, is asked `samples` times; the
//! frequencies of its answers are its policy there. Information states its
//! own play never reaches carry no weight in a best response to it, so
//! leaving them out changes no exploitability.
//!
//! Each question goes to a new player, so a player that remembers earlier
//! moves of the same game (none of the search players does) is measured
//! without that memory. The seeds depend only on the key, the sample and
//! the base seed: the result is the same on any number of threads.

use std::collections::BTreeMap;

use darkhex_algorithms::policy_file::InfosetPolicy;
use darkhex_games::{Action, AnyGame, Game, State, Token, Turn, with_game};
use rayon::prelude::*;

use crate::player::{PlayerError, PlayerView};
use crate::registry::PlayerFactory;

/// What [`induced_policy`] found for one seat.
#[derive(Clone, Debug)]
pub struct InducedPolicy {
    /// The policy at each information state the player's own play reaches, in key order.
    pub infosets: Vec<InfosetPolicy>,
    /// Histories that play reaches (terminal ones).
    pub terminal_histories: u64,
}

/// SplitMix64's finaliser: spreads a key's tokens over the seed's bits.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The seed of sample `sample` at the information state `key`.
fn seed_of(seed: u64, key: &[Token], sample: u32) -> u64 {
    let mut h = mix(seed ^ 0x9e37_79b9_7f4a_7c15);
    for &t in key {
        h = mix(h ^ u64::from(t));
    }
    mix(h ^ (u64::from(sample) << 32 | key.len() as u64))
}

/// The policy `factory`'s player of `seat` induces in `game` (see the
/// module comment); `progress` hears the number of information states done.
pub fn induced_policy(
    game: &AnyGame,
    factory: &dyn PlayerFactory,
    seat: usize,
    samples: u32,
    seed: u64,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<InducedPolicy, PlayerError> {
    with_game!(game, g => induce(g, factory, seat, samples.max(1), seed, progress))
}

fn induce<G: Game>(
    game: &G,
    factory: &dyn PlayerFactory,
    seat: usize,
    samples: u32,
    seed: u64,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<InducedPolicy, PlayerError>
where
    G::State: Send + Sync,
{
    let mut policy: BTreeMap<Vec<Token>, (Vec<Action>, Vec<f64>)> = BTreeMap::new();
    let mut terminal_histories = 0u64;
    let mut frontier = vec![game.new_initial_state()];
    // Level by level of the seat's own decisions: the states where it moves
    // next, their new keys asked in parallel, then its chosen moves applied.
    while !frontier.is_empty() {
        let mut decisions = Vec::new();
        while let Some(state) = frontier.pop() {
            match state.current_player() {
                Turn::Terminal => terminal_histories += 1,
                Turn::Chance => {
                    for (a, p) in state.chance_outcomes() {
                        if p > 0.0 {
                            let mut child = state.clone();
                            child.apply(a);
                            frontier.push(child);
                        }
                    }
                }
                Turn::Player(p) if p == seat => decisions.push(state),
                Turn::Player(_) => {
                    for a in state.legal_actions() {
                        let mut child = state.clone();
                        child.apply(a);
                        frontier.push(child);
                    }
                }
            }
        }
        let mut fresh: BTreeMap<Vec<Token>, Vec<Action>> = BTreeMap::new();
        for s in &decisions {
            let key = s.info_key(seat);
            if !policy.contains_key(key) && !fresh.contains_key(key) {
                fresh.insert(key.to_vec(), s.legal_actions());
            }
        }
        let done = policy.len();
        let asked: Vec<_> = fresh
            .into_par_iter()
            .map(|(key, legal)| {
                let probs = ask(factory, seat, samples, seed, &key, &legal)?;
                Ok((key, (legal, probs)))
            })
            .collect::<Result<_, PlayerError>>()?;
        policy.extend(asked);
        progress(policy.len());
        debug_assert!(policy.len() >= done);
        for s in decisions {
            let (actions, probs) = &policy[s.info_key(seat)];
            for (&a, &p) in actions.iter().zip(probs) {
                if p > 0.0 {
                    let mut child = s.clone();
                    child.apply(a);
                    frontier.push(child);
                }
            }
        }
    }
    let infosets = policy
        .into_iter()
        .map(|(key, (actions, probs))| InfosetPolicy {
            key,
            actions,
            probs,
        })
        .collect();
    Ok(InducedPolicy {
        infosets,
        terminal_histories,
    })
}

/// The frequencies of the moves fresh players choose at `key`.
fn ask(
    factory: &dyn PlayerFactory,
    seat: usize,
    samples: u32,
    seed: u64,
    key: &[Token],
    legal: &[Action],
) -> Result<Vec<f64>, PlayerError> {
    let mut counts = vec![0u32; legal.len()];
    let view = PlayerView {
        seat,
        info_key: key,
        legal,
    };
    for sample in 0..samples {
        let mut player = factory.create(seat, seed_of(seed, key, sample));
        let action = player.act(&view)?;
        let i =
            legal
                .iter()
                .position(|&a| a == action)
                .ok_or_else(|| PlayerError::IllegalChoice {
                    name: player.name(),
                    action,
                    legal: legal.to_vec(),
                })?;
        counts[i] += 1;
    }
    Ok(counts
        .into_iter()
        .map(|c| f64::from(c) / f64::from(samples))
        .collect())
}
