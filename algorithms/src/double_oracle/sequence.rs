//! The restricted game in sequence form (Bosansky, Kiekintveld, Lisy and
//! Pechoucek 2014): each player may play any sequence one of its pure
//! strategies plays, combined freely across information states, which
//! holds far more strategies than the normal form over the same pure
//! strategies.
//!
//! A sequence is restricted if some strategy of the player's set plays it.
//! The sets' strategies are complete (a listed move, else the lowest legal
//! action: the paper's default strategy), so every information state a
//! restricted sequence reaches has a restricted action and the restricted
//! game needs no temporary leaves. Its histories are the game's with both
//! players on restricted sequences; they are enumerated once per iteration
//! and the sequence-form LP of the tree ([`crate::lp`]) solves them.
//!
//! The certificate is the restricted equilibrium played in the full game
//! ([`PlanPolicy`]): the plan's behaviour where the restricted game has the
//! information state, and where only the other player's leaving the
//! restricted game leads, the even mixture of the set's strategies that
//! play to it ([`Mixture`]). The bounds are its exact best responses', so
//! they hold whatever the restricted game is.

use std::borrow::Cow;
use std::rc::Rc;

use darkhex_games::analysis::InfosetTable;
use darkhex_games::{Action, Game, NUM_PLAYERS, State, Token, Turn};
use rustc_hash::FxHashMap;

use super::pure::{Kept, Mixture, Pure};
use crate::lp::sequence_form::{NOISE, SequencePayoffs, behaviour_from_plan};
use crate::lp::{LpBackend, LpError, solve_player_lp};
use crate::policy_file::InfosetPolicy;
use crate::restricted_br::{FixedPolicy, RestrictedBrError};

/// One restricted information state: its id, and for each restricted
/// action (ascending) the strategies of the set that play it there.
struct Node {
    id: u32,
    /// (action, the indices of the strategies choosing it).
    split: Rc<[(Action, Vec<u32>)]>,
}

/// The restricted game's sequence form.
pub struct RestrictedGame {
    pub tables: [InfosetTable; NUM_PLAYERS],
    pub payoffs: SequencePayoffs,
    /// Histories (terminal ones included) the enumeration visited.
    pub histories: u64,
    index: [FxHashMap<Vec<Token>, Node>; NUM_PLAYERS],
}

impl RestrictedGame {
    /// Enumerates the histories on which both players play sequences of
    /// their sets.
    pub fn build<G: Game>(
        game: &G,
        sets: &[Vec<Pure>; NUM_PLAYERS],
    ) -> Result<RestrictedGame, RestrictedBrError> {
        let mut out = RestrictedGame {
            tables: std::array::from_fn(|_| {
                let mut t = InfosetTable::default();
                t.action_start.push(0);
                t
            }),
            payoffs: SequencePayoffs {
                entries: Vec::new(),
            },
            histories: 0,
            index: Default::default(),
        };
        let mut entries = Vec::new();
        let all: [Vec<u32>; NUM_PLAYERS] =
            std::array::from_fn(|p| (0..sets[p].len() as u32).collect());
        let state = game.new_initial_state();
        out.walk(sets, state, [&all[0], &all[1]], [0, 0], 1.0, &mut entries)?;
        out.payoffs = SequencePayoffs::from_entries(entries);
        Ok(out)
    }

    /// `playing`: the strategies of each set that play the sequence `seq`.
    fn walk<S: State>(
        &mut self,
        sets: &[Vec<Pure>; NUM_PLAYERS],
        state: S,
        playing: [&[u32]; NUM_PLAYERS],
        seq: [u32; NUM_PLAYERS],
        chance: f64,
        entries: &mut Vec<(u32, u32, f64)>,
    ) -> Result<(), RestrictedBrError> {
        self.histories += 1;
        match state.current_player() {
            Turn::Terminal => entries.push((seq[0], seq[1], chance * state.returns()[0])),
            Turn::Chance => {
                for (a, p) in state.chance_outcomes() {
                    let mut next = state.clone();
                    next.apply(a);
                    self.walk(sets, next, playing, seq, chance * p, entries)?;
                }
            }
            Turn::Player(p) => {
                let key = state.info_key(p);
                if !self.index[p].contains_key(key) {
                    let node = self.add_infoset(
                        p,
                        key,
                        &state.legal_actions(),
                        &sets[p],
                        playing[p],
                        seq[p],
                    )?;
                    self.index[p].insert(key.to_vec(), node);
                }
                // Held apart from the index, which the walk below adds to.
                let (id, split) = {
                    let node = &self.index[p][key];
                    (node.id, Rc::clone(&node.split))
                };
                let start = self.tables[p].action_start[id as usize];
                for (k, (a, who)) in split.iter().enumerate() {
                    let mut next = state.clone();
                    next.apply(*a);
                    let mut playing = playing;
                    playing[p] = who;
                    let mut seq = seq;
                    seq[p] = start + k as u32 + 1;
                    self.walk(sets, next, playing, seq, chance, entries)?;
                }
            }
        }
        Ok(())
    }

    fn add_infoset(
        &mut self,
        p: usize,
        key: &[Token],
        legal: &[Action],
        set: &[Pure],
        playing: &[u32],
        parent: u32,
    ) -> Result<Node, RestrictedBrError> {
        let mut split: Vec<(Action, Vec<u32>)> = Vec::new();
        for &s in playing {
            let a = set[s as usize].action(key, legal)?;
            match split.iter_mut().find(|(b, _)| *b == a) {
                Some((_, who)) => who.push(s),
                None => split.push((a, vec![s])),
            }
        }
        split.sort_by_key(|(a, _)| *a);
        let table = &mut self.tables[p];
        let id = table.len() as u32;
        table.keys.push(key.into());
        table.actions.extend(split.iter().map(|(a, _)| *a));
        table.action_start.push(table.actions.len() as u32);
        table.parent.push(parent);
        Ok(Node {
            id,
            split: split.into(),
        })
    }

    /// The restricted game's value for Black and each player's equilibrium
    /// realization plan, from the two players' LPs.
    pub fn solve(&self, backend: LpBackend) -> Result<(f64, [Vec<f64>; NUM_PLAYERS]), LpError> {
        let tables = [&self.tables[0], &self.tables[1]];
        let (value, black) = solve_player_lp(tables, &self.payoffs, 0, backend)?;
        let (_, white) = solve_player_lp(tables, &self.payoffs, 1, backend)?;
        Ok((value, [black, white]))
    }

    /// Player `p`'s sequences (the empty one included).
    pub fn sequences(&self, p: usize) -> usize {
        self.tables[p].num_slots() + 1
    }
}

/// A restricted equilibrium strategy played in the full game: the plan's
/// behaviour at the restricted information states its play reaches, the
/// even mixture of the set's strategies elsewhere. Every distribution it
/// gives is kept: after a best response to it, the kept ones are the
/// certificate.
pub struct PlanPolicy<'a, G: Game> {
    player: usize,
    /// The plan's behaviour at the restricted states its play reaches.
    plan: FxHashMap<&'a [Token], (&'a [Action], Vec<f64>)>,
    fallback: Mixture<'a, G>,
    kept: Kept,
}

impl<'a, G: Game> PlanPolicy<'a, G> {
    pub fn new(
        game: &'a G,
        restricted: &'a RestrictedGame,
        player: usize,
        plan: &[f64],
        set: &'a [Pure],
    ) -> Self {
        let table = &restricted.tables[player];
        let probs = behaviour_from_plan(table, plan);
        let reached = (0..table.len())
            .filter(|&i| plan[table.parent[i] as usize] > NOISE)
            .map(|i| {
                (
                    &*table.keys[i],
                    (table.actions_of(i), probs[table.slots(i)].to_vec()),
                )
            })
            .collect();
        PlanPolicy {
            player,
            plan: reached,
            fallback: Mixture::new(game, player, set.iter().map(|s| (s, 1.0)).collect()),
            kept: Kept::default(),
        }
    }

    /// Restricted information states where the plan mixes.
    pub fn mixed(&self) -> usize {
        self.plan
            .values()
            .filter(|(_, p)| p.iter().filter(|&&x| x > 0.0).count() > 1)
            .count()
    }

    /// The distributions given so far, sorted by key.
    pub fn infosets(&self) -> Vec<InfosetPolicy> {
        self.kept.infosets()
    }
}

impl<G: Game> FixedPolicy for PlanPolicy<'_, G> {
    fn distribution(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        self.distribution_after(player, key, actions, &[])
    }

    fn distribution_after(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
        history: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        if player != self.player {
            return Ok(None);
        }
        if let Some(p) = self.kept.get(key) {
            return Ok(Some(Cow::Owned(p)));
        }
        let probs = match self.plan.get(key) {
            Some((restricted, probs)) => {
                let mut out = vec![0.0; actions.len()];
                for (a, &p) in restricted.iter().zip(probs) {
                    let at = actions.binary_search(a).map_err(|_| {
                        RestrictedBrError::Policy(format!(
                            "a restricted action {a} is not legal at an information state of {} observations",
                            key.len()
                        ))
                    })?;
                    out[at] = p;
                }
                out
            }
            None => match self
                .fallback
                .distribution_after(player, key, actions, history)?
            {
                Some(p) => p.into_owned(),
                None => return Ok(None),
            },
        };
        self.kept.keep(key, actions, &probs);
        Ok(Some(Cow::Owned(probs)))
    }
}
