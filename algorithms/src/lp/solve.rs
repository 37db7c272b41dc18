//! Exact equilibria by linear programming: the sequence-form LP for any
//! two-player zero-sum game with perfect recall, solved with `good_lp`.
//!
//! For player p with realization plan x (E x = e, x >= 0) against the
//! opponent's plan y (F y = f, y >= 0), max_x min_y x'A y equals, by LP
//! duality of the inner problem, max q_0 subject to E x = e, x >= 0 and, for
//! every opponent sequence s, q[infoset ending s] - sum of q over the
//! opponent's infosets that follow s - (A'x)[s] <= 0, with q free (q_0
//! belongs to the empty sequence). Each player's LP gives that player's
//! equilibrium plan; the two values agree up to the solver's tolerance.
//!
//! On larger games the LPs are solved on restricted supports of the
//! compiled tree (a column-generation loop in the spirit of Bosansky et
//! al.'s double oracle; the double oracle proper, which never builds the
//! tree, is `crate::double_oracle`): player p's plan may use only some of
//! p's sequences while every constraint of the opponent stays, so the
//! restricted value is a true guarantee for p. When the two guarantees meet,
//! the pair is an equilibrium of the whole game; otherwise each side's best
//! response to the other, and the sequences of the plan the other's LP found
//! for it (the LP's duals), are added to its support and the LPs are solved
//! again; after ten rounds the full LPs are solved instead. Equilibria of
//! games like Dark Hex use a small fraction of the sequences, and the
//! restricted LPs factorise far faster than the full ones.

use std::time::Instant;

use darkhex_games::NUM_PLAYERS;
use darkhex_games::analysis::InfosetTable;
use good_lp::{
    DualValues, Expression, ProblemVariables, Solution, SolutionWithDual, SolverModel, Variable,
    variable,
};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::best_response::{Exploitability, best_response, exploitability};
use crate::bytes::readable_bytes;
use crate::cfr::{CfrSolver, CfrVariant};
use crate::lp::sequence_form::{
    SequencePayoffs, behaviour_from_plan, plan_from_behaviour, slot_infosets,
};
use crate::policy::TreePolicy;
use crate::tree::GameTree;

/// Games with fewer sequences (both players) are solved with the full LP.
const RESTRICT_FROM_SEQUENCES: usize = 4000;
/// CFR+ iterations that propose the first supports.
const WARM_START_ITERATIONS: u64 = 100;
/// Sequences the warm start reaches with at least this weight start in the support.
const WARM_START_WEIGHT: f64 = 1e-3;
/// Restricted supports above this fraction of all sequences: solve the full LP.
const RESTRICT_MAX_FRACTION: f64 = 0.6;
const MAX_ROUNDS: usize = 10;
/// Sequences an LP's dual plan weighs above this join the opponent's support.
const DUAL_SUPPORT_WEIGHT: f64 = 1e-4;
/// Memory of one LP, from its size: the interior-point factorisation fills
/// in per payoff entry and per row or column. Measured on Clarabel with faer
/// over the full LPs of the 2x3 and 3x2 Dark Hex boards (0.9 to 2.1 KB per
/// entry at their peak, baseline included), rounded up.
const LP_BYTES_PER_ENTRY: f64 = 2200.0;
const LP_BYTES_PER_ROW: f64 = 1000.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LpBackend {
    /// Pure-Rust interior point; the default.
    Clarabel,
    /// Pure-Rust simplex; exact vertices, slow beyond small games.
    Microlp,
}

impl LpBackend {
    pub const NAMES: [&'static str; 2] = ["clarabel", "microlp"];

    pub fn from_name(name: &str) -> Option<LpBackend> {
        match name {
            "clarabel" => Some(LpBackend::Clarabel),
            "microlp" => Some(LpBackend::Microlp),
            _ => None,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            LpBackend::Clarabel => "clarabel",
            LpBackend::Microlp => "microlp",
        }
    }
}

#[derive(Debug, Error)]
pub enum LpError {
    #[error("the LP needs perfect recall; player {player} at [{info_state}]: {reason}")]
    ImperfectRecall {
        player: usize,
        info_state: String,
        reason: String,
    },
    #[error("the {backend} solver failed: {reason}")]
    Solver {
        backend: &'static str,
        reason: String,
    },
    #[error("the LP value {value} lies outside the game's utility range [{min}, {max}]")]
    ValueOutOfRange { value: f64, min: f64, max: f64 },
    #[error("the two players' LPs disagree on the value: {v0} and {v1}")]
    Disagreement { v0: f64, v1: f64 },
    #[error(
        "player {player}'s LP ({rows} rows and columns, {entries} payoff entries) would need about {}, more than the {} that --max-memory-gb leaves after the game tree; {known}",
        readable_bytes(*.bytes as f64),
        readable_bytes(*.limit_bytes as f64)
    )]
    TooLarge {
        player: usize,
        rows: usize,
        entries: usize,
        bytes: u64,
        limit_bytes: u64,
        /// What the rounds before found.
        known: String,
    },
}

/// How to solve.
#[derive(Clone, Copy, Debug)]
pub struct LpOptions {
    pub backend: LpBackend,
    /// Always solve the full LPs, never restricted supports.
    pub full: bool,
    /// Refuse an LP whose estimated memory (see [`lp_bytes`]) exceeds this.
    pub max_bytes: u64,
}

impl Default for LpOptions {
    fn default() -> Self {
        LpOptions {
            backend: LpBackend::Clarabel,
            full: false,
            max_bytes: u64::MAX,
        }
    }
}

/// Estimated peak memory of player `p`'s LP over the `allowed` sequences
/// (all when `None`): rows, columns and payoff entries, returned with it.
pub fn lp_bytes(
    tree: &GameTree,
    payoffs: &SequencePayoffs,
    p: usize,
    allowed: Option<&[bool]>,
) -> (u64, usize, usize) {
    let mine = tree.infosets(p);
    let theirs = tree.infosets(1 - p);
    let is_allowed = |s: usize| allowed.is_none_or(|a| a[s]);
    let columns = (0..=mine.num_slots()).filter(|&s| is_allowed(s)).count() + theirs.len() + 1;
    let rows = mine.len() + theirs.num_slots() + 2;
    let entries = payoffs
        .entries
        .iter()
        .filter(|&&(s0, s1, _)| is_allowed(if p == 0 { s0 } else { s1 } as usize))
        .count();
    let bytes = LP_BYTES_PER_ENTRY * entries as f64 + LP_BYTES_PER_ROW * (rows + columns) as f64;
    (bytes as u64, rows + columns, entries)
}

/// An equilibrium and how it was found.
#[derive(Clone, Debug)]
pub struct LpSolution {
    pub value_p0: f64,
    pub policy: TreePolicy,
    /// Exact exploitability of `policy`: the check that the LP was solved well.
    pub exploitability: Exploitability,
    /// Of the largest LP solved.
    pub variables: usize,
    pub constraints: usize,
    /// Rounds of restricted LPs (1 when the full LPs were solved).
    pub rounds: usize,
    /// Sequences each player's final LP could use, and how many the game has.
    pub support: [(usize, usize); NUM_PLAYERS],
    pub build_seconds: f64,
    pub solve_seconds: f64,
}

/// Sizes and times accumulated over the LPs of one solve.
#[derive(Default)]
struct Stats {
    variables: usize,
    constraints: usize,
    build: f64,
    solve: f64,
}

/// What one player's LP gives.
struct PlayerLp {
    /// The value p can guarantee.
    value: f64,
    /// p's realization plan.
    plan: Vec<f64>,
    /// The opponent's plan in the LP's own game (p restricted, the opponent
    /// not): the duals of the opponent-sequence constraints, when the
    /// backend gives duals.
    opponent_plan: Option<Vec<f64>>,
}

/// Solves player `p`'s LP with p's plan restricted to `allowed` sequences
/// (all of them if `None`).
fn solve_player(
    tables: [&InfosetTable; NUM_PLAYERS],
    payoffs: &SequencePayoffs,
    p: usize,
    allowed: Option<&[bool]>,
    backend: LpBackend,
    stats: &mut Stats,
) -> Result<PlayerLp, LpError> {
    let start = Instant::now();
    let (mine, theirs) = (tables[p], tables[1 - p]);
    let sign = if p == 0 { 1.0 } else { -1.0 };
    let is_allowed = |s: usize| allowed.is_none_or(|a| a[s]);
    let mut vars = ProblemVariables::new();
    let x: Vec<Option<Variable>> = (0..=mine.num_slots())
        .map(|s| is_allowed(s).then(|| vars.add(variable().min(0.0))))
        .collect();
    let q: Vec<Variable> = vars.add_vector(variable(), theirs.len() + 1);
    let root = x[0].ok_or_else(|| LpError::Solver {
        backend: backend.name(),
        reason: "the empty sequence is outside the support".into(),
    })?;
    let mut constraints = Vec::with_capacity(mine.len() + theirs.num_slots() + 2);
    constraints.push(Expression::from(root).eq(1.0));
    for i in 0..mine.len() {
        let Some(parent) = x[mine.parent[i] as usize] else {
            continue;
        };
        let mut e = Expression::with_capacity(mine.slots(i).len() + 1);
        for s in mine.slots(i) {
            if let Some(v) = x[s + 1] {
                e.add_mul(1.0, v);
            }
        }
        e.add_mul(-1.0, parent);
        constraints.push(e.eq(0.0));
    }
    // One constraint per opponent sequence: the infoset it ends in, minus
    // the infosets that follow it, minus the payoff it meets.
    let owner = slot_infosets(theirs);
    let mut rows: Vec<Expression> = (0..=theirs.num_slots())
        .map(|s| {
            let mut e = Expression::with_capacity(4);
            let infoset = if s == 0 { 0 } else { owner[s - 1] as usize + 1 };
            e.add_mul(1.0, q[infoset]);
            e
        })
        .collect();
    for (j, &parent) in theirs.parent.iter().enumerate() {
        rows[parent as usize].add_mul(-1.0, q[j + 1]);
    }
    for &(s0, s1, v) in &payoffs.entries {
        let (mine_seq, their_seq) = if p == 0 { (s0, s1) } else { (s1, s0) };
        if let Some(var) = x[mine_seq as usize] {
            rows[their_seq as usize].add_mul(-sign * v, var);
        }
    }
    stats.variables = stats.variables.max(x.iter().flatten().count() + q.len());
    stats.constraints = stats.constraints.max(constraints.len() + rows.len());
    let objective = q[0];
    let problem = vars.maximise(objective);
    stats.build += start.elapsed().as_secs_f64();
    let start = Instant::now();
    let failed = |reason: String| LpError::Solver {
        backend: backend.name(),
        reason,
    };
    let plan_of = |value: &dyn Fn(Variable) -> f64| -> Vec<f64> {
        x.iter().map(|v| v.map_or(0.0, value)).collect()
    };
    let result = match backend {
        LpBackend::Clarabel => {
            let mut model = problem.using(good_lp::clarabel).with_all(constraints);
            // faer's supernodal factorisation is many times faster than
            // qdldl on these KKT systems.
            model
                .settings()
                .max_iter(500)
                .direct_solve_method("faer".to_string());
            let refs: Vec<_> = rows
                .into_iter()
                .map(|e| model.add_constraint(e.leq(0.0)))
                .collect();
            let mut solution = model.solve().map_err(|e| failed(e.to_string()))?;
            let value = solution.value(objective);
            let plan = plan_of(&|v| solution.value(v));
            let duals = solution.compute_dual();
            let opponent_plan = refs.into_iter().map(|r| duals.dual(r).abs()).collect();
            PlayerLp {
                value,
                plan,
                opponent_plan: Some(opponent_plan),
            }
        }
        LpBackend::Microlp => {
            constraints.extend(rows.into_iter().map(|e| e.leq(0.0)));
            let solution = problem
                .using(good_lp::microlp)
                .with_all(constraints)
                .solve()
                .map_err(|e| failed(e.to_string()))?;
            PlayerLp {
                value: solution.value(objective),
                plan: plan_of(&|v| solution.value(v)),
                opponent_plan: None,
            }
        }
    };
    stats.solve += start.elapsed().as_secs_f64();
    Ok(result)
}

/// Player `p`'s guarantee and realization plan in the sequence form given
/// by its two players' information-state tables and payoffs (a restricted
/// game's, which no compiled tree holds).
pub fn solve_player_lp(
    tables: [&InfosetTable; NUM_PLAYERS],
    payoffs: &SequencePayoffs,
    p: usize,
    backend: LpBackend,
) -> Result<(f64, Vec<f64>), LpError> {
    let lp = solve_player(tables, payoffs, p, None, backend, &mut Stats::default())?;
    Ok((lp.value, lp.plan))
}

/// The sequences a behaviour strategy reaches with weight above `min_weight`,
/// closed so that every infoset whose parent sequence is in keeps at least
/// one action (its most likely one).
fn support_of(table: &InfosetTable, probs: &[f64], min_weight: f64) -> Vec<bool> {
    let plan = plan_from_behaviour(table, probs);
    let mut keep = vec![false; table.num_slots() + 1];
    keep[0] = true;
    for i in 0..table.len() {
        let parent = table.parent[i] as usize;
        let slots = table.slots(i);
        for s in slots.clone() {
            keep[s + 1] = keep[parent] && plan[s + 1] >= min_weight;
        }
        if keep[parent] && !slots.clone().any(|s| keep[s + 1]) {
            let best = slots
                .max_by(|&a, &b| probs[a].total_cmp(&probs[b]))
                .expect("an infoset has an action");
            keep[best + 1] = true;
        }
    }
    keep
}

/// The realization plan of the uniform strategy.
fn uniform_plan(table: &InfosetTable) -> Vec<f64> {
    let mut plan = vec![0.0; table.num_slots() + 1];
    plan[0] = 1.0;
    for i in 0..table.len() {
        let slots = table.slots(i);
        let share = plan[table.parent[i] as usize] / slots.len() as f64;
        for s in slots {
            plan[s + 1] = share;
        }
    }
    plan
}

/// Adds the sequences of a pure strategy (one action index per infoset) to `keep`.
fn add_pure_strategy(table: &InfosetTable, actions: &[u32], keep: &mut [bool]) -> usize {
    let mut reached = vec![false; table.num_slots() + 1];
    reached[0] = true;
    let mut added = 0;
    for i in 0..table.len() {
        if reached[table.parent[i] as usize] {
            let s = table.slot(i, actions[i] as usize) + 1;
            reached[s] = true;
            if !keep[s] {
                keep[s] = true;
                added += 1;
            }
        }
    }
    added
}

/// Solves the game's sequence-form LPs (restricted when that pays, see the
/// module documentation) and checks the result: perfect recall first, then
/// the value against the utility range and the two LPs' agreement, and the
/// exact exploitability of the returned profile.
pub fn solve_sequence_form(
    tree: &GameTree,
    options: LpOptions,
    progress: &dyn Fn(&str),
) -> Result<LpSolution, LpError> {
    if let Some(v) = tree.recall_violation() {
        return Err(LpError::ImperfectRecall {
            player: v.player,
            info_state: v.info_state.clone(),
            reason: v.reason.clone(),
        });
    }
    let start = Instant::now();
    progress("building the sequence-form payoffs");
    let payoffs = SequencePayoffs::new(tree);
    let mut stats = Stats {
        build: start.elapsed().as_secs_f64(),
        ..Stats::default()
    };
    let total: [usize; NUM_PLAYERS] = std::array::from_fn(|p| tree.infosets(p).num_slots() + 1);
    let mut supports: Option<[Vec<bool>; NUM_PLAYERS]> = None;
    // Restricting needs the LP duals, which the simplex backend does not give.
    let can_restrict = options.backend == LpBackend::Clarabel;
    if !options.full && can_restrict && total[0] + total[1] >= RESTRICT_FROM_SEQUENCES {
        progress("proposing supports with CFR+");
        let mut cfr = CfrSolver::new(tree, CfrVariant::Plus);
        cfr.run(WARM_START_ITERATIONS);
        let average = cfr.average_policy();
        let s: [Vec<bool>; NUM_PLAYERS] = std::array::from_fn(|p| {
            support_of(tree.infosets(p), &average.probs[p], WARM_START_WEIGHT)
        });
        let small = (0..NUM_PLAYERS).all(|p| {
            (s[p].iter().filter(|&&k| k).count() as f64) < RESTRICT_MAX_FRACTION * total[p] as f64
        });
        if small {
            supports = Some(s);
        }
    }
    let (min, max) = tree.utility_range();
    // Interior-point values are accurate to about 1e-8; the checks allow
    // 1e-6, the support search stops when the bounds meet to 1e-7.
    let slack = 1e-6 * (max - min).max(1.0);
    let meet = 1e-7 * (max - min).max(1.0);
    let mut rounds = 0;
    let mut known = "no LP was solved yet".to_string();
    loop {
        rounds += 1;
        let mut values = [0.0; NUM_PLAYERS];
        let mut plans: [Vec<f64>; NUM_PLAYERS] = Default::default();
        let mut opponent_plans: [Option<Vec<f64>>; NUM_PLAYERS] = Default::default();
        for p in 0..NUM_PLAYERS {
            let allowed = supports.as_ref().map(|s| s[p].as_slice());
            let size = allowed.map_or(total[p], |a| a.iter().filter(|&&k| k).count());
            let (bytes, rows, entries) = lp_bytes(tree, &payoffs, p, allowed);
            if bytes > options.max_bytes {
                return Err(LpError::TooLarge {
                    player: p,
                    rows,
                    entries,
                    bytes,
                    limit_bytes: options.max_bytes,
                    known,
                });
            }
            progress(&format!(
                "round {rounds}: player {p}'s LP over {size} of {} sequences ({})",
                total[p],
                options.backend.name()
            ));
            let tables = [tree.infosets(0), tree.infosets(1)];
            let lp = solve_player(tables, &payoffs, p, allowed, options.backend, &mut stats)?;
            values[p] = lp.value;
            plans[p] = lp.plan;
            opponent_plans[p] = lp.opponent_plan;
            if p == 0 && values[0] >= max - meet {
                // Player 0 wins surely: every strategy of player 1 is an
                // equilibrium strategy, so player 1's LP is not needed.
                progress("player 0 wins whatever player 1 does");
                values[1] = -max;
                plans[1] = uniform_plan(tree.infosets(1));
                break;
            }
        }
        let probs = std::array::from_fn(|p| behaviour_from_plan(tree.infosets(p), &plans[p]));
        let policy = TreePolicy { probs };
        // Each value is a guarantee: values[0] <= v* <= -values[1], with
        // equality exactly at an equilibrium.
        // The utility range bounds the value too, which settles games a
        // player wins surely even when the other LP is a little off.
        let (low, high) = (values[0].max(min), (-values[1]).min(max));
        let gap = high - low;
        known = format!("after {rounds} round(s) the value lies in [{low:.9}, {high:.9}]");
        progress(&known);
        let Some(s) = supports.as_mut().filter(|_| gap > meet) else {
            return finish(
                tree,
                policy,
                values,
                rounds,
                supports.as_ref(),
                &total,
                stats,
                slack,
            );
        };
        // Player p's LP is the game in which p is restricted and the opponent
        // is not; its duals are the opponent's plan there. A best response of
        // p to that plan outside p's support is what p's support lacks; if
        // there is none, p's guarantee is already the value.
        // The opponent's own restricted LP gives a second plan to answer.
        let mut added = 0;
        for p in 0..NUM_PLAYERS {
            let o = 1 - p;
            let mut against = TreePolicy::uniform(tree);
            for plan in opponent_plans[p].iter().chain([&plans[o]]) {
                against.probs[o] = behaviour_from_plan(tree.infosets(o), plan);
                let br = best_response(tree, &against, p);
                added += add_pure_strategy(tree.infosets(p), &br.actions, &mut s[p]);
            }
        }
        // And the opponent's plan in p's LP is a good answer to p's
        // current options: its heaviest sequences join the opponent's
        // support, at most doubling it (the LP's factorisation grows fast).
        for p in 0..NUM_PLAYERS {
            let Some(y) = &opponent_plans[p] else {
                continue;
            };
            let support = &mut s[1 - p];
            let mut candidates: Vec<(f64, usize)> = y
                .iter()
                .enumerate()
                .filter(|&(i, &w)| w > DUAL_SUPPORT_WEIGHT && !support[i])
                .map(|(i, &w)| (w, i))
                .collect();
            candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let room = support.iter().filter(|&&k| k).count();
            for &(_, i) in candidates.iter().take(room) {
                support[i] = true;
                added += 1;
            }
        }
        if added == 0 || rounds >= MAX_ROUNDS {
            // The best responses are inside the supports already (the gap is
            // the solver's tolerance), or the supports grow too slowly: the
            // full LP closes the gap.
            supports = None;
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn finish(
    tree: &GameTree,
    policy: TreePolicy,
    values: [f64; NUM_PLAYERS],
    rounds: usize,
    supports: Option<&[Vec<bool>; NUM_PLAYERS]>,
    total: &[usize; NUM_PLAYERS],
    stats: Stats,
    slack: f64,
) -> Result<LpSolution, LpError> {
    let (min, max) = tree.utility_range();
    let value_p0 = values[0];
    if !(min - slack..=max + slack).contains(&value_p0) {
        return Err(LpError::ValueOutOfRange {
            value: value_p0,
            min,
            max,
        });
    }
    if (values[0] + values[1]).abs() > slack {
        return Err(LpError::Disagreement {
            v0: values[0],
            v1: -values[1],
        });
    }
    let exploitability = exploitability(tree, &policy);
    let support = std::array::from_fn(|p| {
        let used = supports.map_or(total[p], |s| s[p].iter().filter(|&&k| k).count());
        (used, total[p])
    });
    Ok(LpSolution {
        value_p0: value_p0.clamp(min, max),
        policy,
        exploitability,
        variables: stats.variables,
        constraints: stats.constraints,
        rounds,
        support,
        build_seconds: stats.build,
        solve_seconds: stats.solve,
    })
}
