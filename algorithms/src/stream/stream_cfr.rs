//! Full-width CFR-family solvers over the information-state tables, for
//! games whose history tree is too large to compile.
//!
//! An iteration follows the compiled solver ([`crate::cfr::tabular`]) step
//! for step, so that both give the same numbers iteration for iteration:
//! alternating updates, player 0 first; for each player, their current
//! policy joins the average weighted by their own reach, a one-sided
//! streaming pass ([`super::payoffs::player_regrets`]) gives their
//! instantaneous counterfactual regrets under the current profile, and one
//! sweep over their rows updates the cumulative regrets and the current
//! policy. Player 1's pass thus sees player 0's updated policy, as in the
//! compiled solver and OpenSpiel.
//!
//! The sums of the pass are exact and the sweep is sequential, so results
//! have the same bits whatever the thread count, and the same bits as the
//! compiled solver's, which sums each information state's contributions
//! exactly too by default ([`crate::cfr::tabular::SumOrder`]); OpenSpiel's
//! order of sums, which the compiled solver offers for comparison with
//! OpenSpiel, is not one a parallel pass over histories can follow.

use serde::{Deserialize, Serialize};

use darkhex_games::NUM_PLAYERS;

use super::precision::Real;
use super::row_policy::RowPolicy;
use super::tables::InfoStateTables;
use crate::cfr::tabular::{CfrVariant, match_with_prediction};
use crate::huge_pages;
use crate::policy::normalise;

/// What a streaming solver needs to continue: what a checkpoint holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "T: Real")]
pub struct StreamCfrState<T> {
    pub variant: CfrVariant,
    pub iteration: u64,
    /// Per player and slot of the tables.
    pub regrets: [Vec<T>; NUM_PLAYERS],
    pub cumulative: [Vec<T>; NUM_PLAYERS],
    /// The last instantaneous regrets (predictive variants; empty otherwise).
    pub predictions: [Vec<T>; NUM_PLAYERS],
}

impl<T: Real> StreamCfrState<T> {
    pub fn new(tables: &InfoStateTables, variant: CfrVariant) -> Self {
        let zeros = |p: usize| huge_pages::filled(tables.player(p).num_slots(), T::default());
        StreamCfrState {
            variant,
            iteration: 0,
            regrets: std::array::from_fn(zeros),
            cumulative: std::array::from_fn(zeros),
            predictions: std::array::from_fn(|p| {
                if variant.is_predictive() {
                    zeros(p)
                } else {
                    Vec::new()
                }
            }),
        }
    }

    /// Whether the arrays have the tables' sizes.
    pub fn fits(&self, tables: &InfoStateTables) -> bool {
        (0..NUM_PLAYERS).all(|p| {
            let n = tables.player(p).num_slots();
            let predictions = if self.variant.is_predictive() { n } else { 0 };
            self.regrets[p].len() == n
                && self.cumulative[p].len() == n
                && self.predictions[p].len() == predictions
        })
    }

    pub fn is_finite(&self) -> bool {
        [&self.regrets, &self.cumulative, &self.predictions]
            .iter()
            .all(|arrays| arrays.iter().flatten().all(|x| x.to_f64().is_finite()))
    }
}

/// A CFR-family solver over information-state tables. The passes over the
/// histories are the caller's (see [`StreamCfr::iterate`]): the solver holds
/// only arrays over the tables' slots.
pub struct StreamCfr<'t, T: Real> {
    tables: &'t InfoStateTables,
    state: StreamCfrState<T>,
    current: RowPolicy,
    /// The updating player's sequence reaches while the average grows.
    seq_reach: Vec<f64>,
}

impl<'t, T: Real> StreamCfr<'t, T> {
    pub fn new(tables: &'t InfoStateTables, variant: CfrVariant) -> Self {
        Self::with_state(tables, StreamCfrState::new(tables, variant))
            .expect("fresh arrays fit the tables")
    }

    /// Continues from a saved state; `None` if its arrays do not fit the tables.
    pub fn with_state(tables: &'t InfoStateTables, state: StreamCfrState<T>) -> Option<Self> {
        if !state.fits(tables) {
            return None;
        }
        let mut solver = StreamCfr {
            tables,
            current: RowPolicy::uniform(tables),
            seq_reach: Vec::new(),
            state,
        };
        if solver.state.iteration > 0 {
            for p in 0..NUM_PLAYERS {
                solver.match_all(p);
            }
        }
        Some(solver)
    }

    pub fn iteration(&self) -> u64 {
        self.state.iteration
    }

    pub fn variant(&self) -> CfrVariant {
        self.state.variant
    }

    pub fn state(&self) -> &StreamCfrState<T> {
        &self.state
    }

    pub fn tables(&self) -> &'t InfoStateTables {
        self.tables
    }

    /// The policy the next iteration plays.
    pub fn current_policy(&self) -> &RowPolicy {
        &self.current
    }

    /// The average policy: what CFR converges with.
    pub fn average_policy(&self) -> RowPolicy {
        let probs = std::array::from_fn(|p| {
            let t = self.tables.player(p);
            let cumulative = &self.state.cumulative[p];
            let mut out = huge_pages::filled(t.num_slots(), 0.0);
            let mut weights = Vec::new();
            for row in t.decision_rows() {
                let s = t.slots(row);
                weights.clear();
                weights.extend(cumulative[s.clone()].iter().map(|w| w.to_f64()));
                normalise(&weights, &mut out[s]);
            }
            out
        });
        RowPolicy { probs }
    }

    /// One iteration. `pass(policy, p)` returns player p's instantaneous
    /// regrets under `policy`, one per slot of p's table, as
    /// [`super::payoffs::player_regrets`] computes them. On an error from
    /// player 0's pass the state is as it was (passes fail only on bad
    /// input, before walking, so player 1's cannot fail after 0's did not).
    pub fn iterate<E>(
        &mut self,
        pass: impl FnMut(&RowPolicy, usize) -> Result<Vec<f64>, E>,
    ) -> Result<(), E> {
        self.iterate_with(pass, |_, _, _| Ok(()))
    }

    /// One iteration in which, after each player's sweep, `policy(player,
    /// cumulative regrets, current policy)` replaces the current policy
    /// that regret matching gave, as [`crate::cfr::tabular::CfrSolver::iterate_with`]
    /// does on the compiled tree: how regression CFR over the tables plays
    /// the link of its fitted regrets while every regret stays CFR's. On an
    /// error from `policy` the iteration is left half done; the caller
    /// drops the solver.
    pub fn iterate_with<E>(
        &mut self,
        mut pass: impl FnMut(&RowPolicy, usize) -> Result<Vec<f64>, E>,
        mut policy: impl FnMut(usize, &[T], &mut [f64]) -> Result<(), E>,
    ) -> Result<(), E> {
        let t = self.state.iteration + 1;
        for p in 0..NUM_PLAYERS {
            let regrets = pass(&self.current, p)?;
            assert_eq!(
                regrets.len(),
                self.tables.player(p).num_slots(),
                "a regret per slot"
            );
            self.accumulate_average(p, t);
            self.update(p, t, &regrets);
            policy(p, &self.state.regrets[p], &mut self.current.probs[p])?;
        }
        self.state.iteration = t;
        Ok(())
    }

    /// Replaces each player's current policy by `policy` of their regrets,
    /// as [`StreamCfr::iterate_with`] does after a sweep (when resuming).
    pub fn replace_current<E>(
        &mut self,
        mut policy: impl FnMut(usize, &[T], &mut [f64]) -> Result<(), E>,
    ) -> Result<(), E> {
        for p in 0..NUM_PLAYERS {
            policy(p, &self.state.regrets[p], &mut self.current.probs[p])?;
        }
        Ok(())
    }

    /// Adds player p's current policy, weighted by their own reach of each
    /// row, to the cumulative policy. Parents come before children in row
    /// order, so one sweep computes the reaches.
    fn accumulate_average(&mut self, p: usize, t: u64) {
        let table = self.tables.player(p);
        let weight = self.state.variant.average_weight(t);
        let sigma = &self.current.probs[p];
        let cumulative = &mut self.state.cumulative[p];
        self.seq_reach.clear();
        self.seq_reach.resize(table.num_slots(), 0.0);
        for row in 0..table.num_rows() as u32 {
            let slots = table.slots(row);
            if slots.is_empty() {
                continue;
            }
            let reach = match table.parent_seq(row) {
                0 => 1.0,
                s => self.seq_reach[s as usize - 1],
            };
            for s in slots {
                self.seq_reach[s] = reach * sigma[s];
                // The compiled solver's order of products, for equal bits.
                cumulative[s] = T::from_f64(cumulative[s].to_f64() + weight * reach * sigma[s]);
            }
        }
    }

    /// Adds player p's instantaneous regrets to their cumulative ones,
    /// discounts or clips them, and updates their current policy.
    fn update(&mut self, p: usize, t: u64, instant: &[f64]) {
        let table = self.tables.player(p);
        let update = self.state.variant.regret_update(t);
        let predictive = self.state.variant.is_predictive();
        let sigma = &mut self.current.probs[p];
        let regrets = &mut self.state.regrets[p];
        let predictions = &mut self.state.predictions[p];
        let (mut r, mut m, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        for row in table.decision_rows() {
            let slots = table.slots(row);
            r.clear();
            m.clear();
            for s in slots.clone() {
                let next = update.apply(regrets[s].to_f64() + instant[s]);
                regrets[s] = T::from_f64(next);
                r.push(regrets[s].to_f64());
                if predictive {
                    predictions[s] = T::from_f64(instant[s]);
                    m.push(predictions[s].to_f64());
                }
            }
            match_with_prediction(&r, &m, &mut scratch, &mut sigma[slots]);
        }
    }

    /// The current policy from the regrets (and predictions) alone.
    fn match_all(&mut self, p: usize) {
        let table = self.tables.player(p);
        let (mut r, mut m, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        for row in table.decision_rows() {
            let slots = table.slots(row);
            r.clear();
            r.extend(
                self.state.regrets[p][slots.clone()]
                    .iter()
                    .map(|x| x.to_f64()),
            );
            m.clear();
            if !self.state.predictions[p].is_empty() {
                m.extend(
                    self.state.predictions[p][slots.clone()]
                        .iter()
                        .map(|x| x.to_f64()),
                );
            }
            match_with_prediction(&r, &m, &mut scratch, &mut self.current.probs[p][slots]);
        }
    }
}
