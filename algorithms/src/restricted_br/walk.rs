//! The depth-first walk of the responder's information states, each held
//! as its belief: the histories the responder cannot tell apart, each
//! weighted by the probability that the fixed player and chance play to
//! it. Nothing but the beliefs on the path from the root is held.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use darkhex_games::abstraction::Abstraction;
use darkhex_games::{Action, Game, State, Token, Turn};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};

use super::RestrictedBrError;
use super::fixed::FixedPolicy;
use super::sum::Sum;

/// What the walk plays where the fixed policy has no entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Missing {
    /// Every legal action equally likely, as a policy player plays there.
    Uniform,
    /// Stop with an error naming the information state.
    Error,
    /// The lowest legal action, with probability one: a pure default,
    /// which keeps a sparse policy's support sparse where it has no entry.
    Lowest,
}

/// One of the responder's choices: at the information state `key`, whose
/// legal actions are `actions`, it plays `actions[best]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub key: Vec<Token>,
    pub actions: Vec<Action>,
    pub best: u32,
}

/// Work done, counted the same whatever the threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    /// Histories visited (the walk's unit of work).
    pub histories: u64,
    /// The responder's information states valued.
    pub info_states: u64,
}

impl Work {
    pub fn add(&mut self, other: Work) {
        self.histories += other.histories;
        self.info_states += other.info_states;
    }
}

/// A history and the probability that the fixed player and chance play to it.
pub(super) type Weighted<S> = (S, f64);

/// Where the histories of a belief go after one of the responder's actions.
pub(super) struct Successors<S> {
    /// Reach-weighted utility of the histories that ended before the
    /// responder's next decision.
    pub terminal: f64,
    /// The histories at the responder's next decisions, sorted by its
    /// information state.
    pub histories: Vec<Weighted<S>>,
    /// One range of `histories` per information state, in key order.
    pub groups: Vec<std::ops::Range<usize>>,
}

/// The fixed player's distributions as the walk played them, by
/// information state (under the policy's [`FixedPolicy::recall`]).
pub(super) type Kept = FxHashMap<Vec<Token>, (Vec<Action>, Vec<f64>)>;

/// Histories visited between two additions to the shared counter.
const FLUSH: u64 = 1 << 14;

pub(super) struct Walker<'a, G: Game> {
    pub game: &'a G,
    pub policy: &'a dyn FixedPolicy,
    /// The best-responding player; `None`: both play the policy, and the
    /// walk computes the profile's value for player 0.
    pub responder: Option<usize>,
    pub missing: Missing,
    /// Keep the responder's choices (to write its strategy).
    pub record: bool,
    pub stop: &'a AtomicBool,
    /// Raised when a part of a parallel walk failed: the others stop.
    pub failed: AtomicBool,
    /// Histories visited, for progress (flushed every [`FLUSH`]).
    pub visited: AtomicU64,
    /// The information states the policy lacked, by player.
    pub lacking: Mutex<FxHashSet<(usize, Vec<Token>)>>,
    /// The fixed player's distributions met, when kept.
    pub kept: Option<Mutex<Kept>>,
    recall: Option<Abstraction>,
}

impl<'a, G: Game> Walker<'a, G> {
    pub fn new(
        game: &'a G,
        policy: &'a dyn FixedPolicy,
        responder: Option<usize>,
        missing: Missing,
        record: bool,
        stop: &'a AtomicBool,
    ) -> Self {
        Walker {
            game,
            policy,
            responder,
            missing,
            record,
            stop,
            failed: AtomicBool::new(false),
            visited: AtomicU64::new(0),
            lacking: Mutex::new(FxHashSet::default()),
            kept: None,
            recall: policy.recall(),
        }
    }

    /// Keeps the fixed player's distributions at every information state
    /// the walk meets (the stated default where the policy lacks one), to
    /// write the strategy down as walked.
    pub fn keeping(mut self, keep: bool) -> Self {
        self.kept = keep.then(|| Mutex::new(Kept::default()));
        self
    }

    fn keep(&self, kept: &Mutex<Kept>, key: &[Token], actions: &[Action], probs: &[f64]) {
        let mut abstract_key = Vec::new();
        let key = match self.recall {
            Some(a) => {
                // Without rotation, so no board size is needed.
                a.abstract_key(0, key, &mut abstract_key);
                abstract_key.as_slice()
            }
            None => key,
        };
        let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
        if !kept.contains_key(key) {
            kept.insert(key.to_vec(), (actions.to_vec(), probs.to_vec()));
        }
    }

    fn count(&self, work: &mut Work) {
        work.histories += 1;
        if work.histories.is_multiple_of(FLUSH) {
            self.visited.fetch_add(FLUSH, Ordering::Relaxed);
        }
    }

    /// The utility the walk maximises (or, with no responder, player 0's).
    fn utility(&self, state: &G::State) -> f64 {
        state.returns()[self.responder.unwrap_or(0)]
    }

    /// The fixed player's distribution at `state`, or the stated default.
    fn distribution(
        &self,
        player: usize,
        state: &G::State,
        actions: &[Action],
    ) -> Result<Vec<f64>, RestrictedBrError> {
        let key = state.info_key(player);
        let probs = match self
            .policy
            .distribution_after(player, key, actions, state.history())?
        {
            Some(p) => p.into_owned(),
            None => self.default(player, key, actions)?,
        };
        if let Some(kept) = &self.kept {
            self.keep(kept, key, actions, &probs);
        }
        Ok(probs)
    }

    /// What the fixed player plays where its policy has no entry.
    fn default(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Vec<f64>, RestrictedBrError> {
        let count = || {
            self.lacking
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert((player, key.to_vec()));
        };
        match self.missing {
            Missing::Uniform => {
                count();
                Ok(vec![1.0 / actions.len() as f64; actions.len()])
            }
            Missing::Lowest => {
                count();
                let mut probs = vec![0.0; actions.len()];
                probs[0] = 1.0;
                Ok(probs)
            }
            Missing::Error => Err(RestrictedBrError::Uncovered {
                player,
                info_state: self.game.describe_info_state(key),
            }),
        }
    }

    /// Plays `state` (reached with probability `weight`) forward through
    /// chance and the fixed player's support, to the end or to the
    /// responder's next decision.
    pub fn expand(
        &self,
        state: G::State,
        weight: f64,
        terminal: &mut Sum,
        out: &mut Vec<Weighted<G::State>>,
        work: &mut Work,
    ) -> Result<(), RestrictedBrError> {
        self.count(work);
        match state.current_player() {
            Turn::Terminal => terminal.add(weight * self.utility(&state)),
            Turn::Chance => {
                for (a, p) in state.chance_outcomes() {
                    if p > 0.0 {
                        let mut child = state.clone();
                        child.apply(a);
                        self.expand(child, weight * p, terminal, out, work)?;
                    }
                }
            }
            Turn::Player(p) if Some(p) == self.responder => out.push((state, weight)),
            Turn::Player(p) => {
                let actions = state.legal_actions();
                let probs = self.distribution(p, &state, &actions)?;
                for (&a, &q) in actions.iter().zip(&probs) {
                    if q > 0.0 {
                        let mut child = state.clone();
                        child.apply(a);
                        self.expand(child, weight * q, terminal, out, work)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The start of the game played forward to the responder's first
    /// decisions.
    pub fn root(&self, work: &mut Work) -> Result<Successors<G::State>, RestrictedBrError> {
        let mut terminal = Sum::default();
        let mut histories = Vec::new();
        self.expand(
            self.game.new_initial_state(),
            1.0,
            &mut terminal,
            &mut histories,
            work,
        )?;
        Ok(self.grouped(terminal.value(), histories))
    }

    /// Where `belief`'s histories go when the responder plays `action`.
    pub fn successors(
        &self,
        belief: &[Weighted<G::State>],
        action: Action,
        work: &mut Work,
    ) -> Result<Successors<G::State>, RestrictedBrError> {
        let mut terminal = Sum::default();
        let mut histories = Vec::new();
        for (s, w) in belief {
            let mut child = s.clone();
            child.apply(action);
            self.expand(child, *w, &mut terminal, &mut histories, work)?;
        }
        Ok(self.grouped(terminal.value(), histories))
    }

    fn grouped(
        &self,
        terminal: f64,
        mut histories: Vec<Weighted<G::State>>,
    ) -> Successors<G::State> {
        let mut groups = Vec::new();
        if let Some(r) = self.responder {
            // Stable: a belief's histories keep the order they were met in.
            histories.sort_by(|a, b| a.0.info_key(r).cmp(b.0.info_key(r)));
            let mut start = 0;
            for i in 1..=histories.len() {
                if i == histories.len()
                    || histories[i].0.info_key(r) != histories[start].0.info_key(r)
                {
                    groups.push(start..i);
                    start = i;
                }
            }
        }
        Successors {
            terminal,
            histories,
            groups,
        }
    }

    /// The best response's value at the information state whose belief
    /// is `belief` (reach-weighted: the sum over its histories), and its
    /// choices there and below when recording.
    pub fn value(
        &self,
        belief: &[Weighted<G::State>],
        work: &mut Work,
    ) -> Result<(f64, Vec<Choice>), RestrictedBrError> {
        if self.stop.load(Ordering::Relaxed) || self.failed.load(Ordering::Relaxed) {
            return Err(RestrictedBrError::Stopped);
        }
        work.info_states += 1;
        let actions = belief[0].0.legal_actions();
        let mut best: Option<(f64, usize, Vec<Choice>)> = None;
        for (i, &a) in actions.iter().enumerate() {
            let next = self.successors(belief, a, work)?;
            let mut total = Sum::default();
            total.add(next.terminal);
            let mut choices = Vec::new();
            for g in &next.groups {
                let (v, c) = self.value(&next.histories[g.clone()], work)?;
                total.add(v);
                if self.record {
                    choices.extend(c);
                }
            }
            let v = total.value();
            if best.as_ref().is_none_or(|b| v > b.0) {
                best = Some((v, i, choices));
            }
        }
        let Some((v, i, below)) = best else {
            unreachable!("a decision has a legal action");
        };
        Ok((v, self.choose(&belief[0].0, actions, i, below)))
    }

    /// The responder's choice `best` at the information state of `at`,
    /// first, then the choices below it.
    pub fn choose(
        &self,
        at: &G::State,
        actions: Vec<Action>,
        best: usize,
        below: Vec<Choice>,
    ) -> Vec<Choice> {
        let (Some(r), true) = (self.responder, self.record) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(below.len() + 1);
        out.push(Choice {
            key: at.info_key(r).to_vec(),
            actions,
            best: best as u32,
        });
        out.extend(below);
        out
    }
}
