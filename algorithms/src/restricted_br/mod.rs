//! Exact best response restricted to a policy's support: the cost follows
//! the fixed policy, not the game, so a pure or sparse strategy on a board
//! no table holds (4x3 Dark Hex has about 1.9e16 histories) can be best
//! responded to exactly.
//!
//! The responder's information states are walked depth first, each as its
//! belief: the histories consistent with what the responder has seen,
//! each weighted by the probability that chance and the fixed player play
//! to it. The fixed player's moves are followed only where its policy
//! gives them positive probability. At an information state the value is
//! the best, over the responder's actions, of the reach-weighted utility
//! of the histories that end before its next decision plus the values of
//! the information states it reaches next (perfect recall makes these a
//! tree). The value at the root is the best response's expected utility;
//! no history tree is held, only the beliefs on the path.
//!
//! The walk is split, near the root, into units (the responder's
//! information states a few decisions down) valued in parallel with rayon
//! and combined in a fixed order, so the value is the same, bit for bit,
//! whatever the threads, and an interrupted walk keeps its finished units
//! for a resumed one. Every sum is compensated ([`sum::Sum`]).

mod estimate;
mod fixed;
mod sum;
mod walk;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::policy_file::InfosetPolicy;
use darkhex_games::{Action, Game, State, Token};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use estimate::{RestrictedEstimate, estimate};
pub use fixed::{FixedPolicy, ModelPolicy, PerSeat, PoneMoves, Thresholded, thresholded};
pub use sum::Sum;
pub use walk::{Choice, Missing, Work};

use walk::{Kept, Walker, Weighted};

#[derive(Debug, Error, Clone, PartialEq)]
pub enum RestrictedBrError {
    #[error(
        "player {player}'s policy has no entry at {info_state} (--missing uniform plays uniformly there, --missing lowest its lowest legal action)"
    )]
    Uncovered { player: usize, info_state: String },
    #[error("the policy cannot be evaluated: {0}")]
    Policy(String),
    #[error("stopped")]
    Stopped,
    #[error("the saved progress does not fit this walk: {0}")]
    Resume(String),
}

/// How the walk treats what the policy lacks, and what it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub missing: Missing,
    /// Keep the responder's choices, to write its strategy.
    pub record: bool,
    /// Keep the fixed player's distributions at every information state
    /// the walk meets, to write its strategy as walked ([`Response::kept`]).
    pub keep: bool,
}

/// The walk is split into at least this many units where the first few
/// decisions allow it: enough to keep any number of cores busy when the
/// units differ in size. It depends on nothing about the machine, so the
/// units (and a saved walk's) are the same everywhere.
const MIN_UNITS: usize = 64;

/// The split goes at most this many of the responder's decisions down.
const MAX_SPLIT: usize = 4;

/// A finished unit: its value, the responder's choices in it, its work.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitResult {
    pub value: f64,
    pub choices: Vec<Choice>,
    pub work: Work,
}

/// The finished part of a stopped walk, to resume from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Partial {
    /// One entry per unit, `None` where it was not finished.
    pub units: Vec<Option<UnitResult>>,
    /// The information states found lacking so far, by player.
    pub lacking: Vec<(usize, Vec<Token>)>,
    /// The fixed player's distributions met so far (a superset of the
    /// finished units'), when kept; `None` when they were not.
    #[serde(default)]
    pub kept: Option<Vec<InfosetPolicy>>,
}

impl Partial {
    pub fn finished(&self) -> usize {
        self.units.iter().filter(|u| u.is_some()).count()
    }
}

/// How far a walk has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub units_done: usize,
    pub units: usize,
    /// Histories visited so far (this run's, counted in batches).
    pub histories: u64,
}

/// A best response's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    pub responder: usize,
    /// The responder's expected utility against the policy.
    pub value: f64,
    /// The responder's best action at every information state that it and
    /// the policy reach (when recorded), in depth-first order.
    pub choices: Vec<Choice>,
    pub work: Work,
    /// Distinct information states where the policy had no entry and
    /// played the default.
    pub lacking: usize,
    pub units: usize,
    /// Every unit's result: a walk resumed from them only recombines them.
    pub finished: Partial,
}

impl Response {
    /// The fixed player's distribution at every information state the
    /// walk met, sorted by key, when kept (`Settings::keep`; empty
    /// otherwise): under the policy's [`FixedPolicy::recall`] keys where it
    /// has one. The walk plays no other of its states.
    pub fn kept(&self) -> &[InfosetPolicy] {
        self.finished.kept.as_deref().unwrap_or_default()
    }
}

pub enum Outcome {
    Done(Response),
    Stopped(Partial),
}

/// The walk near the root: the responder's first decisions, down to the
/// units.
enum Plan {
    Unit(usize),
    Decision {
        key: Vec<Token>,
        actions: Vec<Action>,
        branches: Vec<Branch>,
    },
}

struct Branch {
    terminal: f64,
    children: Vec<Plan>,
}

struct Planned<S> {
    terminal: f64,
    children: Vec<Plan>,
    units: Vec<Vec<Weighted<S>>>,
    work: Work,
}

impl<G: Game> Walker<'_, G> {
    fn plan(
        &self,
        belief: &[Weighted<G::State>],
        depth: usize,
        units: &mut Vec<Vec<Weighted<G::State>>>,
        work: &mut Work,
    ) -> Result<Plan, RestrictedBrError> {
        if depth == 0 {
            units.push(belief.to_vec());
            return Ok(Plan::Unit(units.len() - 1));
        }
        work.info_states += 1;
        let r = self.responder.unwrap_or(0);
        let actions = belief[0].0.legal_actions();
        let mut branches = Vec::with_capacity(actions.len());
        for &a in &actions {
            let next = self.successors(belief, a, work)?;
            let children = next
                .groups
                .iter()
                .map(|g| self.plan(&next.histories[g.clone()], depth - 1, units, work))
                .collect::<Result<_, _>>()?;
            branches.push(Branch {
                terminal: next.terminal,
                children,
            });
        }
        Ok(Plan::Decision {
            key: belief[0].0.info_key(r).to_vec(),
            actions,
            branches,
        })
    }

    /// The split `depth` decisions down from the root.
    fn planned(&self, depth: usize) -> Result<Planned<G::State>, RestrictedBrError> {
        let mut work = Work::default();
        let root = self.root(&mut work)?;
        let mut units = Vec::new();
        let children = root
            .groups
            .iter()
            .map(|g| self.plan(&root.histories[g.clone()], depth, &mut units, &mut work))
            .collect::<Result<_, _>>()?;
        Ok(Planned {
            terminal: root.terminal,
            children,
            units,
            work,
        })
    }

    /// The shallowest split with [`MIN_UNITS`] units, or the deepest tried.
    fn split(&self) -> Result<Planned<G::State>, RestrictedBrError> {
        let mut depth = 0;
        loop {
            let planned = self.planned(depth)?;
            if planned.units.len() >= MIN_UNITS || depth == MAX_SPLIT {
                return Ok(planned);
            }
            // No deeper decisions: every unit would be where it is.
            let deeper = self.planned(depth + 1)?;
            if deeper.units.len() <= planned.units.len() {
                return Ok(planned);
            }
            depth += 1;
        }
    }

    /// The value of `plan` given its units', the same sums in the same
    /// order as [`Walker::value`] makes them.
    fn combine(&self, plan: &Plan, units: &[UnitResult]) -> (f64, Vec<Choice>) {
        match plan {
            Plan::Unit(i) => (units[*i].value, units[*i].choices.clone()),
            Plan::Decision {
                key,
                actions,
                branches,
            } => {
                let mut best: Option<(f64, usize, Vec<Choice>)> = None;
                for (i, b) in branches.iter().enumerate() {
                    let mut total = Sum::default();
                    total.add(b.terminal);
                    let mut choices = Vec::new();
                    for c in &b.children {
                        let (v, below) = self.combine(c, units);
                        total.add(v);
                        choices.extend(below);
                    }
                    let v = total.value();
                    if best.as_ref().is_none_or(|b| v > b.0) {
                        best = Some((v, i, choices));
                    }
                }
                let (v, i, below) = best.unwrap_or((f64::NEG_INFINITY, 0, Vec::new()));
                if !self.record {
                    return (v, Vec::new());
                }
                let mut out = vec![Choice {
                    key: key.clone(),
                    actions: actions.clone(),
                    best: i as u32,
                }];
                out.extend(below);
                (v, out)
            }
        }
    }
}

/// The exact best response of `responder` against `policy` (the other
/// player's), resumed from `resume` when given. Stops between histories
/// when `stop` is raised, returning the finished units.
pub fn restricted_best_response<G: Game>(
    game: &G,
    policy: &dyn FixedPolicy,
    responder: usize,
    settings: Settings,
    resume: Option<Partial>,
    stop: &AtomicBool,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Outcome, RestrictedBrError> {
    let walker = Walker::new(
        game,
        policy,
        Some(responder),
        settings.missing,
        settings.record,
        stop,
    )
    .keeping(settings.keep);
    let planned = walker.split()?;
    let n = planned.units.len();
    let resume = resume.unwrap_or_else(|| Partial {
        units: vec![None; n],
        lacking: Vec::new(),
        kept: settings.keep.then(Vec::new),
    });
    if resume.units.len() != n {
        return Err(RestrictedBrError::Resume(format!(
            "it was split into {} parts, this walk into {n}",
            resume.units.len()
        )));
    }
    if let Some(kept) = &walker.kept {
        let Some(saved) = &resume.kept else {
            return Err(RestrictedBrError::Resume(
                "its parts were walked without keeping the strategy's information states".into(),
            ));
        };
        let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
        for e in saved {
            kept.insert(e.key.clone(), (e.actions.clone(), e.probs.clone()));
        }
    }
    walker
        .lacking
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(resume.lacking.iter().cloned());
    let done = std::sync::atomic::AtomicUsize::new(resume.finished());
    let results: Vec<Result<UnitResult, RestrictedBrError>> = planned
        .units
        .par_iter()
        .zip(resume.units.par_iter())
        .map(|(belief, saved)| {
            if let Some(saved) = saved {
                return Ok(saved.clone());
            }
            let mut work = Work::default();
            let outcome = walker.value(belief, &mut work);
            if matches!(outcome, Err(ref e) if *e != RestrictedBrError::Stopped) {
                walker.failed.store(true, Ordering::Relaxed);
            }
            let (value, choices) = outcome?;
            let units_done = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress(Progress {
                units_done,
                units: n,
                histories: walker.visited.load(Ordering::Relaxed),
            });
            Ok(UnitResult {
                value,
                choices,
                work,
            })
        })
        .collect();
    if let Some(Err(e)) = results
        .iter()
        .find(|r| matches!(r, Err(e) if *e != RestrictedBrError::Stopped))
    {
        return Err(e.clone());
    }
    let mut lacking: Vec<(usize, Vec<Token>)> =
        std::mem::take(&mut *walker.lacking.lock().unwrap_or_else(|e| e.into_inner()))
            .into_iter()
            .collect();
    lacking.sort();
    let kept = walker.kept.as_ref().map(|k| {
        sorted(std::mem::take(
            &mut *k.lock().unwrap_or_else(|e| e.into_inner()),
        ))
    });
    if results.iter().any(|r| r.is_err()) {
        return Ok(Outcome::Stopped(Partial {
            units: results.into_iter().map(Result::ok).collect(),
            lacking,
            kept,
        }));
    }
    let units: Vec<UnitResult> = results.into_iter().filter_map(Result::ok).collect();
    let lacking_count = lacking.len();
    let mut total = Sum::default();
    total.add(planned.terminal);
    let mut choices = Vec::new();
    for c in &planned.children {
        let (v, below) = walker.combine(c, &units);
        total.add(v);
        choices.extend(below);
    }
    let mut work = planned.work;
    for u in &units {
        work.add(u.work);
    }
    Ok(Outcome::Done(Response {
        responder,
        // The compensated sum can round a sure win to 1 + 2^-52; no
        // expected utility leaves the game's range.
        value: total.value().clamp(game.min_utility(), game.max_utility()),
        choices,
        work,
        lacking: lacking_count,
        units: n,
        finished: Partial {
            units: units.into_iter().map(Some).collect(),
            lacking,
            kept,
        },
    }))
}

fn sorted(kept: Kept) -> Vec<InfosetPolicy> {
    let mut out: Vec<InfosetPolicy> = kept
        .into_iter()
        .map(|(key, (actions, probs))| InfosetPolicy {
            key,
            actions,
            probs,
        })
        .collect();
    out.sort_by(|a, b| a.key.cmp(&b.key));
    out
}

/// The best response, run to the end (no interruption, no progress).
pub fn best_response_to<G: Game>(
    game: &G,
    policy: &dyn FixedPolicy,
    responder: usize,
    settings: Settings,
) -> Result<Response, RestrictedBrError> {
    let stop = AtomicBool::new(false);
    match restricted_best_response(game, policy, responder, settings, None, &stop, &|_| {})? {
        Outcome::Done(r) => Ok(r),
        Outcome::Stopped(_) => Err(RestrictedBrError::Stopped),
    }
}

/// Player 0's expected utility when both players follow `policy`, walked
/// over the two supports only (the histories both policies play to).
pub fn profile_value<G: Game>(
    game: &G,
    policy: &dyn FixedPolicy,
    missing: Missing,
) -> Result<(f64, Work), RestrictedBrError> {
    let stop = AtomicBool::new(false);
    let walker = Walker::new(game, policy, None, missing, false, &stop);
    let mut work = Work::default();
    let root = walker.root(&mut work)?;
    Ok((root.terminal, work))
}
