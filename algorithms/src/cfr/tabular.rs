//! Tabular CFR, CFR+, Linear CFR and Discounted CFR on a compiled tree.
//!
//! Update order, regret matching and averaging follow OpenSpiel's CFRSolver,
//! CFRPlusSolver and DCFRSolver: alternating updates (player 0's pass, then
//! player 1's against player 0's new policy), current policy by regret
//! matching after each pass, CFR+ clipping regrets at zero after each pass
//! and averaging with weight t, DCFR discounting positive and negative
//! regrets by t^a/(t^a+1) and t^b/(t^b+1) and averaging with weight t^g.
//! Predictive CFR+ (Farina, Kroer and Sandholm 2021) keeps CFR+'s clipped
//! regrets but plays regret matching on the regrets plus a prediction of
//! the next instantaneous regret, the last one, with alternating updates
//! and averaging weight t^g (quadratic by default, as in Farina et al.'s
//! later experiments and PDCFR+'s).
//!
//! Each pass is split into a fixed set of subtrees (independent of the number
//! of threads) that run in parallel and write only their own nodes' slots of a
//! scratch array; regrets are then summed per infoset. Every sum is thus
//! taken the same way whatever the thread count, so results are bitwise
//! identical with 1 or N threads.
//!
//! How an infoset's contributions are added up is part of the algorithm
//! ([`SumOrder`]). Where they cancel (in abrupt Dark Hex, for instance, at
//! infosets where every action is worth the same), a floating-point sum
//! leaves a residue of a few ulps of the terms, and regret matching,
//! discontinuous at zero, plays that residue as a regret. On abrupt 2x3,
//! adding the contributions one by one in node order, as OpenSpiel does,
//! leaves 364 of player 0's 4,033 infosets after the first iteration with
//! a policy that exact rational CFR does not play; summing them exactly
//! leaves none there, and 5 of 5,811 on abrupt 3x2 where OpenSpiel's order
//! leaves 342: the rounding of the terms themselves still decides a few
//! ties, as in any floating-point CFR (algorithms/tests/cfr_exact.rs).
//! By default each infoset's contributions are therefore summed exactly
//! (fixed point), so that the sum does not depend on their order, and the
//! streaming solver ([`crate::stream::stream_cfr`]), whose parallel passes
//! visit histories in no fixed order, computes the same sums: the two give
//! the same bits. [`SumOrder::OpenSpiel`] runs OpenSpiel's CFRSolver's
//! arithmetic instead (algorithms/tests/cfr_reference.rs).
//!
//! What is equal, then: with exact sums, this solver and the streaming one
//! give the same regrets, average weights and policies, bit for bit, for
//! every variant (algorithms/tests/stream_cfr.rs); in OpenSpiel's order,
//! this solver gives OpenSpiel's exploitability to within 4e-15. The two
//! orders give runs that part ways wherever a residue decides a policy,
//! from the second iteration on abrupt boards (abrupt 2x3, CFR after 2
//! iterations: 0.2350962 exact, 0.2333041 OpenSpiel's). Elsewhere they
//! differ in the last bits only, but CFR+ amplifies any difference of
//! rounding: its clipping holds regrets at or near zero, where the sign
//! of a last-bit difference decides whether an action is played. On
//! Leduc its runs in the two orders agree to 1e-15 for about 30
//! iterations, their average policies are 5e-10 apart at 100 and 2.5e-2
//! at 200, and after 1000 the exploitability is 2.414400e-4 exact against
//! 2.571516e-4 in OpenSpiel's order (OpenSpiel's figure); one ulp moved
//! in one regret after the first iteration gives 2.542940e-4 in
//! OpenSpiel's order: a floating-point CFR+ run on Leduc is only that
//! precise there, whatever the order. (`sum_orders` in the benches prints
//! these figures; docs/guide/train.md.)
//!
//! The average policy weights each infoset by the player's own reach
//! probability of it. OpenSpiel adds the same weight once per history of the
//! infoset, a constant factor per infoset that normalisation removes.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::policy::{TreePolicy, normalise, regret_matching};
use crate::stream::fixed_point::{to_f64 as fixed_to_f64, to_fixed};
use crate::tree::{CHANCE, GameTree, TERMINAL};
use darkhex_games::NUM_PLAYERS;

/// Roughly how many subtrees a pass is cut into.
const TASKS: usize = 256;
/// Infoset groups for the per-infoset regret sums.
const CHUNKS: usize = 64;
/// Below this many histories a pass takes well under a millisecond, less
/// than waking another thread costs, so it runs on the calling thread. The
/// work is split the same way either way, so results are identical.
const PARALLEL_FROM_NODES: usize = 50_000;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum CfrVariant {
    Vanilla,
    Plus,
    Linear,
    Discounted { alpha: f64, beta: f64, gamma: f64 },
    Predictive { gamma: f64 },
}

/// What a variant does to a cumulative regret at the end of a pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RegretUpdate {
    Keep,
    /// Regret matching+: negative regrets become zero.
    Clip,
    /// Positive regrets times `pos`, negative ones times `neg`.
    Discount {
        pos: f64,
        neg: f64,
    },
}

impl RegretUpdate {
    #[inline]
    pub fn apply(self, r: f64) -> f64 {
        match self {
            RegretUpdate::Keep => r,
            RegretUpdate::Clip => r.max(0.0),
            RegretUpdate::Discount { pos, neg } => r * if r >= 0.0 { pos } else { neg },
        }
    }
}

impl CfrVariant {
    /// DCFR's recommended parameters (Brown and Sandholm 2019).
    pub const DCFR_DEFAULT: CfrVariant = CfrVariant::Discounted {
        alpha: 1.5,
        beta: 0.0,
        gamma: 2.0,
    };

    /// Predictive CFR+'s default: quadratic averaging.
    pub const PCFR_DEFAULT: CfrVariant = CfrVariant::Predictive { gamma: 2.0 };

    pub fn name(&self) -> &'static str {
        match self {
            CfrVariant::Vanilla => "cfr",
            CfrVariant::Plus => "cfr+",
            CfrVariant::Linear => "lcfr",
            CfrVariant::Discounted { .. } => "dcfr",
            CfrVariant::Predictive { .. } => "pcfr+",
        }
    }

    /// Whether the current policy also depends on the last instantaneous regrets.
    pub fn is_predictive(&self) -> bool {
        matches!(self, CfrVariant::Predictive { .. })
    }

    /// Weight of iteration `t`'s policy in the average.
    pub fn average_weight(&self, t: u64) -> f64 {
        let t = t as f64;
        match *self {
            CfrVariant::Vanilla => 1.0,
            CfrVariant::Plus | CfrVariant::Linear => t,
            CfrVariant::Discounted { gamma, .. } | CfrVariant::Predictive { gamma } => {
                t.powf(gamma)
            }
        }
    }

    /// Applied to each cumulative regret after its player's pass of iteration `t`.
    pub fn regret_update(&self, t: u64) -> RegretUpdate {
        let t = t as f64;
        let discount = |exp: f64| {
            let x = t.powf(exp);
            x / (x + 1.0)
        };
        match *self {
            CfrVariant::Vanilla => RegretUpdate::Keep,
            CfrVariant::Plus | CfrVariant::Predictive { .. } => RegretUpdate::Clip,
            CfrVariant::Linear => {
                let d = discount(1.0);
                RegretUpdate::Discount { pos: d, neg: d }
            }
            CfrVariant::Discounted { alpha, beta, .. } => RegretUpdate::Discount {
                pos: discount(alpha),
                neg: discount(beta),
            },
        }
    }
}

/// The current policy at one information state: regret matching on the
/// regrets, plus the prediction for predictive variants (`prediction`
/// empty otherwise). `scratch` holds the sum.
pub fn match_with_prediction(
    regrets: &[f64],
    prediction: &[f64],
    scratch: &mut Vec<f64>,
    out: &mut [f64],
) {
    if prediction.is_empty() {
        regret_matching(regrets, out);
    } else {
        scratch.clear();
        scratch.extend(regrets.iter().zip(prediction).map(|(r, m)| r + m));
        regret_matching(scratch, out);
    }
}

/// How a pass adds up each infoset's regret contributions (see the module
/// notes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SumOrder {
    /// Exactly, in fixed point: the sum of the rounded contributions,
    /// whatever their order, as the streaming solver computes it: the
    /// default, so that `train` and `train --stream` give the same bits.
    #[default]
    Exact,
    /// One by one in depth-first node order, into the cumulative regret
    /// itself (predictive variants: into the instantaneous regret), as
    /// OpenSpiel's CFRSolver does: its numbers to the last bit.
    OpenSpiel,
}

impl SumOrder {
    /// Names the `train` command accepts, in the order of the variants.
    pub const NAMES: [&str; 2] = ["exact", "openspiel"];

    pub fn name(self) -> &'static str {
        match self {
            SumOrder::Exact => Self::NAMES[0],
            SumOrder::OpenSpiel => Self::NAMES[1],
        }
    }

    pub fn parse(name: &str) -> Option<SumOrder> {
        match name {
            "exact" => Some(SumOrder::Exact),
            "openspiel" => Some(SumOrder::OpenSpiel),
            _ => None,
        }
    }

    /// What checkpoints written before the order was recorded used.
    fn before_it_was_recorded() -> SumOrder {
        SumOrder::OpenSpiel
    }
}

/// The state a solver needs to continue: what a checkpoint holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CfrState {
    pub variant: CfrVariant,
    /// Part of the algorithm: a resumed run keeps it.
    #[serde(default = "SumOrder::before_it_was_recorded")]
    pub sum_order: SumOrder,
    pub iteration: u64,
    pub regrets: [Vec<f64>; NUM_PLAYERS],
    pub cumulative: [Vec<f64>; NUM_PLAYERS],
    /// Predictive variants: each player's last instantaneous regrets
    /// (empty for the others).
    #[serde(default)]
    pub predictions: [Vec<f64>; NUM_PLAYERS],
}

/// A player's current policy from their cumulative regrets (see
/// [`CfrSolver::iterate_with`]): player, regrets, policy to write.
pub type PolicyFromRegrets<'a, E> = dyn FnMut(usize, &[f64], &mut [f64]) -> Result<(), E> + 'a;

/// One subtree of a pass: its root and the range of its descendants.
struct Task {
    root: usize,
    start: usize,
    end: usize,
}

/// The subtrees a pass is cut into, and the infoset groups of the regret sums.
struct Split {
    /// Ascending `start`; the ranges are disjoint.
    tasks: Vec<Task>,
    /// (root node, task index), ascending node: finds a task by its root.
    roots: Vec<(usize, usize)>,
    /// Infoset ranges per player.
    chunks: [Vec<(usize, usize)>; NUM_PLAYERS],
}

impl Split {
    fn new(tree: &GameTree) -> Split {
        let mut level: Vec<usize> = if tree.num_nodes() > 0 {
            vec![0]
        } else {
            vec![]
        };
        while level.len() < TASKS && level.iter().any(|&n| !tree.children(n).is_empty()) {
            let mut next = Vec::new();
            for &n in &level {
                let c = tree.children(n);
                if c.is_empty() {
                    next.push(n);
                } else {
                    next.extend(c);
                }
            }
            level = next;
        }
        let mut tasks: Vec<Task> = level
            .iter()
            .map(|&root| {
                let c = tree.children(root);
                let end = if c.is_empty() {
                    c.start
                } else {
                    tree.subtree_end(root)
                };
                Task {
                    root,
                    start: c.start,
                    end,
                }
            })
            .collect();
        tasks.sort_unstable_by_key(|t| (t.start, t.end));
        let mut roots: Vec<(usize, usize)> =
            tasks.iter().enumerate().map(|(i, t)| (t.root, i)).collect();
        roots.sort_unstable();
        let chunks = std::array::from_fn(|p| {
            let table = tree.infosets(p);
            let total = tree.num_nodes().max(1);
            let mut chunks = Vec::new();
            let (mut start, mut load) = (0, 0);
            for i in 0..table.len() {
                load += tree.infoset_pairs(p, i).len();
                if load * CHUNKS >= total {
                    chunks.push((start, i + 1));
                    start = i + 1;
                    load = 0;
                }
            }
            if start < table.len() {
                chunks.push((start, table.len()));
            }
            chunks
        });
        Split {
            tasks,
            roots,
            chunks,
        }
    }

    fn task_of(&self, node: usize) -> Option<usize> {
        self.roots
            .binary_search_by_key(&node, |&(n, _)| n)
            .ok()
            .map(|i| self.roots[i].1)
    }
}

/// One infoset group of a regret sum: its infoset range, regrets, policy
/// and predictions.
type ChunkWork<'a> = (
    ((&'a (usize, usize), &'a mut [f64]), &'a mut [f64]),
    &'a mut [f64],
);

/// Cuts `data` into the given ascending, disjoint ranges.
fn split_ranges<T>(
    mut data: &mut [T],
    ranges: impl Iterator<Item = (usize, usize)>,
) -> Vec<&mut [T]> {
    let mut out = Vec::new();
    let mut base = 0;
    for (start, end) in ranges {
        let (_, tail) = std::mem::take(&mut data).split_at_mut(start - base);
        let (mine, tail) = tail.split_at_mut(end - start);
        out.push(mine);
        data = tail;
        base = end;
    }
    out
}

/// Calls `f` with each index in `range` whose bit is set, ascending.
fn for_each_set_bit(bits: &[AtomicU64], range: std::ops::Range<usize>, mut f: impl FnMut(usize)) {
    let mut i = range.start;
    while i < range.end {
        let word = bits[i / 64].load(Ordering::Relaxed) >> (i % 64);
        if word == 0 {
            i = (i / 64 + 1) * 64;
            continue;
        }
        i += word.trailing_zeros() as usize;
        if i < range.end {
            f(i);
        }
        i += 1;
    }
}

/// Calls `add(action index, contribution)` for each visited history of an
/// infoset (`histories`, whose pairs are `pairs`, `n` a history), in
/// depth-first order as OpenSpiel adds them; the others contributed nothing.
fn for_each_contribution(
    visited: &[AtomicU64],
    histories: std::ops::Range<usize>,
    pairs: &[f64],
    n: usize,
    add: &mut dyn FnMut(usize, f64),
) {
    for_each_set_bit(visited, histories.clone(), |h| {
        let c = &pairs[(h - histories.start) * n..][..n];
        c.iter().enumerate().for_each(|(k, &c)| add(k, c));
    });
}

/// A slice that parallel walks write into, each at indices no other walk touches.
struct DisjointWrites<'a> {
    ptr: *mut f64,
    len: usize,
    _slice: std::marker::PhantomData<&'a mut [f64]>,
}

// SAFETY: access goes through `set` and `get`, whose callers guarantee that
// no index is used by two threads at once.
unsafe impl Send for DisjointWrites<'_> {}
unsafe impl Sync for DisjointWrites<'_> {}

impl<'a> DisjointWrites<'a> {
    fn new(slice: &'a mut [f64]) -> Self {
        DisjointWrites {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _slice: std::marker::PhantomData,
        }
    }

    /// # Safety
    /// No other thread reads or writes index `i` during this call.
    unsafe fn set(&self, i: usize, v: f64) {
        assert!(i < self.len);
        // SAFETY: in bounds (checked), and exclusive by the caller's promise.
        unsafe { self.ptr.add(i).write(v) }
    }

    /// # Safety
    /// No other thread writes index `i` during this call.
    unsafe fn get(&self, i: usize) -> f64 {
        assert!(i < self.len);
        // SAFETY: in bounds (checked), and not written concurrently.
        unsafe { self.ptr.add(i).read() }
    }
}

/// Reach probability of a node, split as OpenSpiel keeps it: the product
/// of the opponent's action probabilities and that of chance's. The
/// counterfactual reach is `opponent * chance`, multiplied in that order.
#[derive(Clone, Copy, Debug)]
struct Reach {
    opponent: f64,
    chance: f64,
}

/// What one regret pass reads.
struct Pass<'a> {
    tree: &'a GameTree,
    player: usize,
    sign: f64,
    policy: &'a [Vec<f64>; NUM_PLAYERS],
    /// One bit per history of the updating player: set when visited, so
    /// that only those histories' pairs are read (the rest are stale).
    visited: &'a [AtomicU64],
}

impl Pass<'_> {
    /// The updating player's expected utility at `node` under the current
    /// policies. At the updating player's nodes, each action's regret
    /// contribution `cf_reach * (v(child) - v(node))` goes to the node's
    /// (history, action) pair in `pairs`. `leaf` may answer for a node
    /// instead of descending into it.
    ///
    /// Writes to `pairs` are safe to run in parallel on disjoint subtrees:
    /// every pair belongs to one decision node, written only by the walk
    /// that visits that node. The arithmetic (order of sums and products)
    /// follows OpenSpiel's, so regrets that cancel to exactly zero there do
    /// here too: regret matching is discontinuous at zero.
    fn value<L: FnMut(usize, Reach) -> Option<f64>>(
        &self,
        node: usize,
        reach: Reach,
        pairs: &DisjointWrites,
        leaf: &mut L,
    ) -> f64 {
        if let Some(v) = leaf(node, reach) {
            return v;
        }
        let tree = self.tree;
        match tree.kind(node) {
            TERMINAL => self.sign * tree.utility(node),
            CHANCE => {
                let mut v = 0.0;
                for (c, &p) in tree.children(node).zip(tree.chance_probs(node)) {
                    let r = Reach {
                        opponent: reach.opponent,
                        chance: reach.chance * p,
                    };
                    v += p * self.value(c, r, pairs, leaf);
                }
                v
            }
            mover => {
                let mover = mover as usize;
                let slots = tree.infosets(mover).slots(tree.infoset(node));
                let probs = &self.policy[mover][slots];
                let children = tree.children(node);
                let mut v = 0.0;
                if mover == self.player {
                    let h = tree.history_index(node);
                    self.visited[h / 64].fetch_or(1 << (h % 64), Ordering::Relaxed);
                    let first = tree.pair_start(node);
                    for (k, (c, &p)) in children.zip(probs).enumerate() {
                        let child = self.value(c, reach, pairs, leaf);
                        // SAFETY: this node's pairs are only touched by this walk.
                        unsafe { pairs.set(first + k, child) };
                        v += p * child;
                    }
                    let cf_reach = reach.opponent * reach.chance;
                    for i in first..first + probs.len() {
                        // SAFETY: as above.
                        unsafe { pairs.set(i, cf_reach * (pairs.get(i) - v)) };
                    }
                } else {
                    // A zero-probability action adds nothing to the value
                    // and its subtree has zero counterfactual reach.
                    for (c, &p) in children.zip(probs) {
                        if p > 0.0 {
                            let r = Reach {
                                opponent: reach.opponent * p,
                                chance: reach.chance,
                            };
                            v += p * self.value(c, r, pairs, leaf);
                        }
                    }
                }
                v
            }
        }
    }
}

/// A CFR-family solver over a compiled tree.
pub struct CfrSolver<'t> {
    tree: &'t GameTree,
    state: CfrState,
    current: [Vec<f64>; NUM_PLAYERS],
    split: Split,
    contrib: Vec<f64>,
    visited: Vec<AtomicU64>,
    seq_reach: Vec<f64>,
}

impl<'t> CfrSolver<'t> {
    /// A solver summing regrets in the default order ([`SumOrder::Exact`]),
    /// as the streaming solver does.
    pub fn new(tree: &'t GameTree, variant: CfrVariant) -> CfrSolver<'t> {
        Self::with_sum_order(tree, variant, SumOrder::default())
    }

    pub fn with_sum_order(
        tree: &'t GameTree,
        variant: CfrVariant,
        sum_order: SumOrder,
    ) -> CfrSolver<'t> {
        let zeros = |p: usize| vec![0.0; tree.infosets(p).num_slots()];
        let state = CfrState {
            variant,
            sum_order,
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
        };
        Self::with_state(tree, state).expect("fresh arrays match the tree")
    }

    /// Continues from a saved state; `None` if its arrays do not fit the tree.
    pub fn with_state(tree: &'t GameTree, state: CfrState) -> Option<CfrSolver<'t>> {
        for p in 0..NUM_PLAYERS {
            let n = tree.infosets(p).num_slots();
            let predictions = if state.variant.is_predictive() { n } else { 0 };
            if state.regrets[p].len() != n
                || state.cumulative[p].len() != n
                || state.predictions[p].len() != predictions
            {
                return None;
            }
        }
        let mut solver = CfrSolver {
            tree,
            current: TreePolicy::uniform(tree).probs,
            split: Split::new(tree),
            contrib: Vec::new(),
            visited: Vec::new(),
            seq_reach: Vec::new(),
            state,
        };
        if solver.state.iteration > 0 {
            for p in 0..NUM_PLAYERS {
                solver.match_regrets(p);
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

    pub fn sum_order(&self) -> SumOrder {
        self.state.sum_order
    }

    pub fn state(&self) -> &CfrState {
        &self.state
    }

    pub fn tree(&self) -> &'t GameTree {
        self.tree
    }

    /// The policy the next iteration plays.
    pub fn current_policy(&self) -> TreePolicy {
        TreePolicy {
            probs: self.current.clone(),
        }
    }

    /// The average policy: what CFR converges with.
    pub fn average_policy(&self) -> TreePolicy {
        let probs = std::array::from_fn(|p| {
            let table = self.tree.infosets(p);
            let mut out = vec![0.0; table.num_slots()];
            for i in 0..table.len() {
                let s = table.slots(i);
                normalise(&self.state.cumulative[p][s.clone()], &mut out[s]);
            }
            out
        });
        TreePolicy { probs }
    }

    pub fn run(&mut self, iterations: u64) {
        for _ in 0..iterations {
            self.iterate();
        }
    }

    pub fn iterate(&mut self) {
        self.iterate_with(&mut |_, _, _| Ok::<(), std::convert::Infallible>(()))
            .unwrap_or_else(|e| match e {});
    }

    /// One iteration in which, after each player's pass, `policy(player,
    /// cumulative regrets, current policy)` replaces the current policy
    /// that regret matching gave: how regression CFR plays the link of its
    /// fitted regrets while every regret stays exactly CFR's. On an error
    /// the iteration is left half done; the caller drops the solver.
    pub fn iterate_with<E>(&mut self, policy: &mut PolicyFromRegrets<E>) -> Result<(), E> {
        self.state.iteration += 1;
        for p in 0..NUM_PLAYERS {
            self.accumulate_average(p);
            self.regret_pass(p);
            self.finish_pass(p);
            policy(p, &self.state.regrets[p], &mut self.current[p])?;
        }
        Ok(())
    }

    /// Replaces each player's current policy by `policy` of their regrets,
    /// as [`CfrSolver::iterate_with`] does after a pass (when resuming).
    pub fn replace_current<E>(&mut self, policy: &mut PolicyFromRegrets<E>) -> Result<(), E> {
        for p in 0..NUM_PLAYERS {
            policy(p, &self.state.regrets[p], &mut self.current[p])?;
        }
        Ok(())
    }

    /// Adds the player's current policy, weighted by their own reach of each
    /// infoset, to the cumulative policy. Parents come before children in
    /// infoset order, so one sweep computes the reaches.
    fn accumulate_average(&mut self, p: usize) {
        let table = self.tree.infosets(p);
        let weight = self.state.variant.average_weight(self.state.iteration);
        let sigma = &self.current[p];
        let cumulative = &mut self.state.cumulative[p];
        self.seq_reach.clear();
        self.seq_reach.resize(table.num_slots(), 0.0);
        for i in 0..table.len() {
            let parent = table.parent[i] as usize;
            let reach = if parent == 0 {
                1.0
            } else {
                self.seq_reach[parent - 1]
            };
            for s in table.slots(i) {
                self.seq_reach[s] = reach * sigma[s];
                cumulative[s] += weight * reach * sigma[s];
            }
        }
    }

    /// Computes every regret contribution of player `p` into `contrib`.
    fn regret_pass(&mut self, p: usize) {
        let tree = self.tree;
        // Stale pairs are never read (see `visited`), so this only grows.
        self.contrib
            .resize(tree.num_pairs(p).max(self.contrib.len()), 0.0);
        let words = tree.num_histories(p).div_ceil(64);
        self.visited
            .resize_with(words.max(self.visited.len()), AtomicU64::default);
        self.visited
            .iter()
            .for_each(|w| w.store(0, Ordering::Relaxed));
        if tree.num_nodes() == 0 {
            return;
        }
        let pass = Pass {
            tree,
            player: p,
            sign: if p == 0 { 1.0 } else { -1.0 },
            policy: &self.current,
            visited: &self.visited,
        };
        let pairs = DisjointWrites::new(&mut self.contrib);
        let split = &self.split;
        let root = Reach {
            opponent: 1.0,
            chance: 1.0,
        };
        // Reaches of the task roots, from a walk of the nodes above them;
        // roots the walk prunes keep a zero reach and are skipped.
        let unreached = Reach {
            opponent: 0.0,
            chance: 0.0,
        };
        let mut reach_in = vec![unreached; split.tasks.len()];
        pass.value(0, root, &pairs, &mut |n, r| {
            split.task_of(n).map(|t| {
                reach_in[t] = r;
                0.0
            })
        });
        // The task roots' subtrees, disjoint, in parallel.
        let run_task = |(task, &reach): (&Task, &Reach)| {
            if reach.opponent == 0.0 {
                0.0
            } else {
                pass.value(task.root, reach, &pairs, &mut |_, _| None)
            }
        };
        let values: Vec<f64> = if tree.num_nodes() >= PARALLEL_FROM_NODES {
            split
                .tasks
                .par_iter()
                .zip(&reach_in)
                .map(run_task)
                .collect()
        } else {
            split.tasks.iter().zip(&reach_in).map(run_task).collect()
        };
        // The nodes above the tasks again, now with the tasks' values.
        pass.value(0, root, &pairs, &mut |n, _| {
            split.task_of(n).map(|t| values[t])
        });
    }

    /// Sums the pass's contributions into player `p`'s regrets, infoset by
    /// infoset in the [`SumOrder`], then discounts or clips them and updates
    /// the current policy by regret matching.
    fn finish_pass(&mut self, p: usize) {
        let tree = self.tree;
        let table = tree.infosets(p);
        let variant = self.state.variant;
        let t = self.state.iteration;
        let contrib = &self.contrib;
        let visited = &self.visited;
        let chunks = &self.split.chunks[p];
        let slot_range = |&(a, b): &(usize, usize)| {
            (
                table.action_start[a] as usize,
                table.action_start[b] as usize,
            )
        };
        let update = variant.regret_update(t);
        let predictive = variant.is_predictive();
        let regrets = split_ranges(&mut self.state.regrets[p], chunks.iter().map(slot_range));
        let current = split_ranges(&mut self.current[p], chunks.iter().map(slot_range));
        // Non-predictive variants hold no predictions: empty pieces.
        let predictions = if predictive {
            split_ranges(
                &mut self.state.predictions[p],
                chunks.iter().map(slot_range),
            )
        } else {
            chunks.iter().map(|_| &mut [][..]).collect()
        };
        let exact = self.state.sum_order == SumOrder::Exact;
        let finish = |(((&(a, b), regrets), current), predictions): ChunkWork| {
            let base = table.action_start[a] as usize;
            let (mut sums, mut instant, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
            for i in a..b {
                let slots = table.slots(i);
                let local = slots.start - base..slots.end - base;
                let r = &mut regrets[local.clone()];
                let n = r.len();
                let histories = tree.infoset_histories(p, i);
                let pairs = &contrib[tree.infoset_pairs(p, i)];
                let each_contribution = |add: &mut dyn FnMut(usize, f64)| {
                    for_each_contribution(visited, histories.clone(), pairs, n, add)
                };
                if !exact && !predictive {
                    // OpenSpiel adds each contribution to the regret itself.
                    each_contribution(&mut |k, c| r[k] += c);
                    r.iter_mut().for_each(|r| *r = update.apply(*r));
                } else {
                    instant.clear();
                    instant.resize(n, 0.0);
                    if exact {
                        sums.clear();
                        sums.resize(n, 0i128);
                        each_contribution(&mut |k, c| sums[k] += to_fixed(c));
                        for (x, &s) in instant.iter_mut().zip(&sums) {
                            *x = fixed_to_f64(s);
                        }
                    } else {
                        each_contribution(&mut |k, c| instant[k] += c);
                    }
                    for (r, &x) in r.iter_mut().zip(&instant) {
                        *r = update.apply(*r + x);
                    }
                }
                let prediction = if predictive {
                    let m = &mut predictions[local.clone()];
                    m.copy_from_slice(&instant);
                    &*m
                } else {
                    &[][..]
                };
                match_with_prediction(r, prediction, &mut scratch, &mut current[local]);
            }
        };
        if tree.num_nodes() >= PARALLEL_FROM_NODES {
            chunks
                .par_iter()
                .zip(regrets)
                .zip(current)
                .zip(predictions)
                .for_each(finish);
        } else {
            chunks
                .iter()
                .zip(regrets)
                .zip(current)
                .zip(predictions)
                .for_each(finish);
        }
    }

    /// The current policy from the regrets (and predictions) alone (when resuming).
    fn match_regrets(&mut self, p: usize) {
        let table = self.tree.infosets(p);
        let mut scratch = Vec::new();
        for i in 0..table.len() {
            let s = table.slots(i);
            let prediction = if self.state.predictions[p].is_empty() {
                &[][..]
            } else {
                &self.state.predictions[p][s.clone()]
            };
            match_with_prediction(
                &self.state.regrets[p][s.clone()],
                prediction,
                &mut scratch,
                &mut self.current[p][s],
            );
        }
    }
}
