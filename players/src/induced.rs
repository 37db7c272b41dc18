//! The policy a player induces, for measuring a search player's
//! exploitability exactly: ISMCTS has no table of probabilities, only a move
//! it picks when asked. At every information state of its seat that its own
//! play can reach (whatever the other player and chance do), a fresh copy of
//! the player, seeded from the state's key, is asked `samples` times; the
//! frequencies of its answers are its policy there. Information states its
//! own play never reaches carry no weight in a best response to it, so
//! leaving them out changes no exploitability.
//!
//! Two ways to find those states, with the same answer: walking the
//! histories that the player's own play allows ([`induced_policy`], for
//! games small enough to walk), or walking the player's rows of the
//! information-state tables ([`induced_policy_over_tables`], for 3x3 Dark
//! Hex, where a mixed policy's histories number billions): a row is reached
//! when every own move on its path has positive probability, since the
//! tables hold only rows some history shows and the opponent may play
//! anything.
//!
//! Each question goes to a new player, so a player that remembers earlier
//! moves of the same game (none of the search players does) is measured
//! without that memory. The seeds depend only on the key, the sample and
//! the base seed: the result is the same on any number of threads.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use darkhex_algorithms::policy_file::InfosetPolicy;
use darkhex_algorithms::stream::InfoStateTables;
use darkhex_games::{Action, AnyGame, Game, State, Token, Turn, with_game};
use rayon::prelude::*;

use crate::player::{PlayerError, PlayerView};
use crate::registry::PlayerFactory;

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
/// module comment) at each information state its own play reaches, in key
/// order; `progress` hears the number of information states done.
pub fn induced_policy(
    game: &AnyGame,
    factory: &dyn PlayerFactory,
    seat: usize,
    samples: u32,
    seed: u64,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<InfosetPolicy>, PlayerError> {
    with_game!(game, g => induce(g, factory, seat, samples.max(1), seed, progress))
}

fn induce<G: Game>(
    game: &G,
    factory: &dyn PlayerFactory,
    seat: usize,
    samples: u32,
    seed: u64,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<InfosetPolicy>, PlayerError>
where
    G::State: Send + Sync,
{
    let mut policy: BTreeMap<Vec<Token>, (Vec<Action>, Vec<f64>)> = BTreeMap::new();
    let mut frontier = vec![game.new_initial_state()];
    // Level by level of the seat's own decisions: the states where it moves
    // next, their new keys asked in parallel, then its chosen moves applied.
    while !frontier.is_empty() {
        let mut decisions = Vec::new();
        while let Some(state) = frontier.pop() {
            match state.current_player() {
                Turn::Terminal => {}
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
        let answered = Answered::new(policy.len(), progress);
        let asked: Vec<_> = fresh
            .into_par_iter()
            .map(|(key, legal)| {
                let probs = ask(factory, seat, samples, seed, &key, &legal)?;
                answered.one();
                Ok((key, (legal, probs)))
            })
            .collect::<Result<_, PlayerError>>()?;
        policy.extend(asked);
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
    Ok(policy
        .into_iter()
        .map(|(key, (actions, probs))| InfosetPolicy {
            key,
            actions,
            probs,
        })
        .collect())
}

/// Counts information states as they are answered, for `progress`: a
/// level of a large game takes minutes of questions.
struct Answered<'a> {
    before: usize,
    now: AtomicUsize,
    progress: &'a (dyn Fn(usize) + Sync),
}

impl<'a> Answered<'a> {
    fn new(before: usize, progress: &'a (dyn Fn(usize) + Sync)) -> Self {
        Answered {
            before,
            now: AtomicUsize::new(0),
            progress,
        }
    }

    fn one(&self) {
        let n = self.now.fetch_add(1, Ordering::Relaxed) + 1;
        (self.progress)(self.before + n);
    }
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

/// [`induced_policy`] over the information-state tables of the game: the
/// same policy, found without walking histories.
pub fn induced_policy_over_tables(
    tables: &InfoStateTables,
    factory: &dyn PlayerFactory,
    seat: usize,
    samples: u32,
    seed: u64,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<InfosetPolicy>, PlayerError> {
    let table = tables.player(seat);
    let rows = table.num_rows();
    // Rows come level by level (breadth first), so a level's reach follows
    // from the levels before it.
    let mut depth = vec![0u32; rows];
    for r in 1..rows as u32 {
        if let Some(p) = table.parent(r) {
            depth[r as usize] = depth[p as usize] + 1;
        }
    }
    let mut reached = vec![false; rows];
    let mut prob = vec![0.0f64; table.num_slots()];
    let mut found = Vec::new();
    let mut start = 0usize;
    while start < rows {
        let end = start
            + depth[start..]
                .iter()
                .take_while(|&&d| d == depth[start])
                .count();
        let mut asking = Vec::new();
        for r in start..end {
            let row = r as u32;
            reached[r] = match table.parent(row) {
                None => true,
                Some(p) => {
                    let own = table.parent_seq(row);
                    reached[p as usize]
                        && (own == table.parent_seq(p) || prob[own as usize - 1] > 0.0)
                }
            };
            if reached[r] && table.is_decision(row) {
                asking.push(row);
            }
        }
        let answered = Answered::new(found.len(), progress);
        let answers: Vec<(u32, Vec<Token>, Vec<f64>)> = asking
            .into_par_iter()
            .map(|row| {
                let key = tables.key_of_row(seat, row);
                let probs = ask(factory, seat, samples, seed, &key, table.actions(row))?;
                answered.one();
                Ok((row, key, probs))
            })
            .collect::<Result<_, PlayerError>>()?;
        for (row, key, probs) in answers {
            for (slot, &p) in table.slots(row).zip(&probs) {
                prob[slot] = p;
            }
            found.push(InfosetPolicy {
                key,
                actions: table.actions(row).to_vec(),
                probs,
            });
        }
        start = end;
    }
    found.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(found)
}
