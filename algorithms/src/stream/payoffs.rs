//! The streaming pass: every history once, depth first, never stored,
//! both players at once.
//!
//! Each node returns, for each player q, the expected utility to q of the
//! terminals below it that q reaches without moving again, weighted by the
//! probabilities of everyone else's moves below it (the opponent's policy
//! and chance), and the plain expected value of player 0. At a node where
//! q moves, the child's amount times the reach of q's opponent and chance
//! is added to the slot of q's action: summed over the histories of the
//! information state, that is the payoff of q's sequence in the sequence
//! form (the product of the payoff matrix with the opponent's realisation
//! plan). Best responses take maxima over those bottom up; counterfactual
//! values take policy-weighted sums (see [`super::best_response`]).
//!
//! A one-sided pass ([`player_regrets`]) is CFR's regret pass for one
//! player, as alternating updates need: each node returns that player's
//! expected utility under the whole profile; at their nodes each action's
//! `cf_reach * (v(child) - v(node))` is added to its slot, so the slot sums
//! are the instantaneous counterfactual regrets; subtrees the opponent or
//! chance does not reach are skipped. Its arithmetic per history is the
//! compiled solver's ([`crate::cfr::tabular`]) and its slot sums are exact,
//! as that solver's are by default, so a regret that cancels to exactly
//! zero there (or not) does here too: regret matching is discontinuous at
//! zero, and sequence payoffs swept bottom up would round differently and
//! let the two solvers part ways at the first tie.
//!
//! The top of the tree is cut at a fixed depth into subtrees that rayon
//! walks in parallel; slot sums are exact fixed-point integers (see
//! [`super::fixed_point`]), one set per worker thread, added up at the
//! end, so the result has the same bits whatever the thread count.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use darkhex_games::{NUM_PLAYERS, Turn};
use rayon::prelude::*;

use super::error::StreamError;
use super::fixed_point::{MAX_TERM, SlotSums, to_f64, to_fixed};
use super::prefetch::prefetch;
use super::row_policy::RowPolicy;
use super::tables::{InfoStateTables, PlayerTable};
use super::walkable::{MAX_MOVES, Moves, NO_SYMBOL, StreamGame};

/// The top of the tree is cut where a level first has this many inner nodes.
const SPLIT_TARGET: usize = 1 << 13;

/// Workers report progress after about this many histories.
const REPORT_EVERY: u64 = 1 << 20;

#[derive(Default)]
pub struct PassOptions<'a> {
    /// Called with the number of histories walked so far.
    pub progress: Option<&'a (dyn Fn(u64) + Sync)>,
    /// Cut the top of the tree where a level first has this many inner
    /// nodes (0: the default, 8192). The result does not depend on it.
    pub min_tasks: usize,
    /// Once raised, the pass starts no more subtrees and ends with
    /// [`StreamError::Stopped`]: on 3x3 Dark Hex a subtree is a few
    /// milliseconds of a pass that takes minutes.
    pub stop: Option<&'a AtomicBool>,
}

/// What one pass computes for a policy profile.
#[derive(Clone, Debug, PartialEq)]
pub struct SequencePayoffs {
    /// `slots[p][k]`: the payoff of player p's sequence `k + 1`.
    pub slots: [Vec<f64>; NUM_PLAYERS],
    /// The payoff of each player's empty sequence (terminals reached before
    /// the player first moves).
    pub empty: [f64; NUM_PLAYERS],
    /// Player 0's expected utility when both follow the profile.
    pub value_p0: f64,
    /// Histories walked (subtrees that no player's opponent reaches are skipped).
    pub histories: u64,
}

/// What one player's regret pass computes ([`player_regrets`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerRegrets {
    /// `regrets[k]`: the instantaneous counterfactual regret of the slot.
    pub regrets: Vec<f64>,
    /// The player's expected utility under the profile.
    pub value: f64,
    /// Histories walked.
    pub histories: u64,
}

/// The `SIDE` of a pass that computes both players' sums; 0 and 1 compute
/// that player's only.
pub(super) const BOTH: usize = 2;

/// Reach of player 0, player 1 and chance.
pub(super) type Reach = [f64; 3];
/// Amounts for player 0 and player 1 as above, and player 0's expected value.
pub(super) type Amounts = [f64; 3];

/// A subtree of the parallel part: its root and what the walk carries there.
#[derive(Clone)]
pub(super) struct Task<N> {
    pub node: N,
    pub rows: [u32; NUM_PLAYERS],
    pub reach: Reach,
}

pub(super) struct Progress<'a> {
    done: AtomicU64,
    report: Option<&'a (dyn Fn(u64) + Sync)>,
}

impl Progress<'_> {
    pub(super) fn add(&self, n: u64) {
        let total = self.done.fetch_add(n, Ordering::Relaxed) + n;
        if let Some(report) = self.report {
            report(total);
        }
    }
}

/// How a pass walks each subtree below the split: the generic walker
/// ([`Generic`]) for any [`StreamGame`], or one specialised to a game
/// (see [`super::dark_hex_pass`]). Every kernel must give the generic
/// walker's bits: the same sums, amounts and history count.
pub(super) trait Kernel<S: StreamGame>: Sync {
    /// Walks `task`'s subtree, adding `SIDE`'s sums into `sums` and the
    /// histories walked into `progress`; returns the task root's amounts.
    fn subtree<const SIDE: usize>(
        &self,
        stream: &S,
        tables: &InfoStateTables,
        policy: &RowPolicy,
        sums: &mut SlotSums,
        task: Task<S::Node>,
        progress: &Progress,
    ) -> Amounts;
}

/// The walker for any [`StreamGame`].
pub(super) struct Generic;

impl<S: StreamGame> Kernel<S> for Generic {
    fn subtree<const SIDE: usize>(
        &self,
        stream: &S,
        tables: &InfoStateTables,
        policy: &RowPolicy,
        sums: &mut SlotSums,
        task: Task<S::Node>,
        progress: &Progress,
    ) -> Amounts {
        let mut w = Walker::<S, SIDE>::new(stream, tables, policy, sums, task.node, progress);
        let v = w.visit(0, task.rows, task.reach);
        progress.add(w.pending);
        v
    }
}

/// A child of the node being visited, expanded before any is walked.
#[derive(Clone, Copy, Debug, Default)]
struct Kid {
    terminal: bool,
    /// Player 0's utility at a terminal child.
    utility: f64,
    /// Each player's row at an inner child.
    rows: [u32; NUM_PLAYERS],
}

struct Walker<'a, S: StreamGame, const SIDE: usize> {
    stream: &'a S,
    tables: [&'a PlayerTable; NUM_PLAYERS],
    policy: [&'a [f64]; NUM_PLAYERS],
    sums: &'a mut SlotSums,
    nodes: Vec<S::Node>,
    moves: Vec<Moves>,
    /// Each depth's children and what the walk knows of them.
    kids: Vec<Vec<S::Node>>,
    kid_info: Vec<[Kid; MAX_MOVES]>,
    /// A regret pass's child values at each depth.
    values: Vec<[f64; MAX_MOVES]>,
    /// Children at this depth come from `split_results`, in walk order.
    split_depth: usize,
    split_results: &'a [Amounts],
    next_result: usize,
    pending: u64,
    progress: &'a Progress<'a>,
}

impl<'a, S: StreamGame, const SIDE: usize> Walker<'a, S, SIDE> {
    fn new(
        stream: &'a S,
        tables: &'a InfoStateTables,
        policy: &'a RowPolicy,
        sums: &'a mut SlotSums,
        root: S::Node,
        progress: &'a Progress<'a>,
    ) -> Self {
        Walker {
            stream,
            tables: [tables.player(0), tables.player(1)],
            policy: [&policy.probs[0], &policy.probs[1]],
            sums,
            nodes: vec![root],
            moves: vec![Moves::default()],
            kids: vec![Vec::new()],
            kid_info: vec![[Kid::default(); MAX_MOVES]],
            values: vec![[0.0; MAX_MOVES]],
            split_depth: usize::MAX,
            split_results: &[],
            next_result: 0,
            pending: 0,
            progress,
        }
    }

    /// The amounts of the inner node at `depth` (relative to the walk's start).
    fn visit(&mut self, depth: usize, rows: [u32; NUM_PLAYERS], reach: Reach) -> Amounts {
        if self.nodes.len() == depth + 1 {
            self.nodes.push(self.nodes[depth].clone());
            self.moves.push(Moves::default());
            self.kids.push(Vec::new());
            self.kid_info.push([Kid::default(); MAX_MOVES]);
            self.values.push([0.0; MAX_MOVES]);
        }
        let turn = self.stream.turn(&self.nodes[depth]);
        // The mover's slots: their policy and sums are asked for now and
        // arrive while the children are expanded.
        let first = match turn {
            Turn::Player(m) => {
                let first = self.tables[m].row(rows[m]).slot_start as usize;
                prefetch(self.policy[m].as_ptr().wrapping_add(first));
                if SIDE == BOTH || SIDE == m {
                    prefetch(self.sums.sums[m].as_ptr().wrapping_add(first));
                }
                first
            }
            _ => 0,
        };
        let n = self.expand(depth, rows);
        self.pending += n as u64;
        if self.pending >= REPORT_EVERY {
            self.progress.add(std::mem::take(&mut self.pending));
        }
        let mut out = [0.0; 3];
        match turn {
            Turn::Player(m) if SIDE == BOTH => {
                let other_reach = reach[1 - m] * reach[2];
                for i in 0..n {
                    let sigma = self.policy[m][first + i];
                    let mut next = reach;
                    next[m] *= sigma;
                    let v = self.child(depth, i, next);
                    // Most sequence payoffs are zero: no write for those.
                    let gain = other_reach * v[m];
                    if gain != 0.0 {
                        self.sums.sums[m][first + i] += to_fixed(gain);
                    }
                    out[1 - m] += sigma * v[1 - m];
                    out[2] += sigma * v[2];
                }
            }
            // The updating player's move: every action, then each one's
            // regret, in the compiled solver's order of operations.
            Turn::Player(m) if m == SIDE => {
                for i in 0..n {
                    self.values[depth][i] = self.child(depth, i, reach)[m];
                }
                let sigma = &self.policy[m][first..first + n];
                let children = &self.values[depth][..n];
                let v = sigma.iter().zip(children).fold(0.0, |v, (p, c)| v + p * c);
                let cf_reach = reach[1 - m] * reach[2];
                let sums = &mut self.sums.sums[m][first..first + n];
                for (sum, &c) in sums.iter_mut().zip(children) {
                    *sum += to_fixed(cf_reach * (c - v));
                }
                out[m] = v;
            }
            // The opponent's move: actions it never plays are skipped.
            Turn::Player(m) => {
                for i in 0..n {
                    let sigma = self.policy[m][first + i];
                    if sigma == 0.0 {
                        continue;
                    }
                    let mut next = reach;
                    next[m] *= sigma;
                    let v = self.child(depth, i, next);
                    out[SIDE] += sigma * v[SIDE];
                }
            }
            Turn::Chance => {
                for i in 0..n {
                    let p = self.moves[depth].probs()[i];
                    let mut next = reach;
                    next[2] *= p;
                    let v = self.child(depth, i, next);
                    for q in 0..3 {
                        out[q] += p * v[q];
                    }
                }
            }
            Turn::Terminal => unreachable!("the walk visits inner nodes only"),
        }
        out
    }

    /// Makes every child of the node at `depth` and the rows of the inner
    /// ones, and asks for the row each inner child's mover reads first;
    /// returns the number of children.
    #[inline]
    fn expand(&mut self, depth: usize, rows: [u32; NUM_PLAYERS]) -> usize {
        let node = &self.nodes[depth];
        let moves = &mut self.moves[depth];
        self.stream.moves(node, moves);
        let n = moves.len();
        let kids = &mut self.kids[depth];
        if kids.len() < n {
            kids.resize(n, node.clone());
        }
        for (i, &a) in moves.actions().iter().enumerate() {
            let shown = self.stream.apply(node, a, &mut kids[i]);
            let kid = &mut self.kid_info[depth][i];
            match self.stream.turn(&kids[i]) {
                Turn::Terminal => {
                    kid.terminal = true;
                    kid.utility = self.stream.utility(&kids[i]);
                }
                turn => {
                    kid.terminal = false;
                    kid.rows = step_rows(&self.tables, rows, shown);
                    if let Turn::Player(m) = turn {
                        prefetch(self.tables[m].row_ptr(kid.rows[m]));
                    }
                }
            }
        }
        n
    }

    /// The amounts of child `i` of the node at `depth`, reached with `reach`.
    #[inline]
    fn child(&mut self, depth: usize, i: usize, reach: Reach) -> Amounts {
        let kid = self.kid_info[depth][i];
        if kid.terminal {
            let u = kid.utility;
            return [u, -u, u];
        }
        if !reached::<SIDE>(reach) {
            return [0.0; 3];
        }
        if depth + 1 == self.split_depth {
            self.next_result += 1;
            return self.split_results[self.next_result - 1];
        }
        self.nodes[depth + 1].clone_from(&self.kids[depth][i]);
        self.visit(depth + 1, kid.rows, reach)
    }
}

/// Whether an inner node reached with `reach` can change a sum of the
/// pass: chance goes there and (for each player whose sums the pass
/// computes) so does the opponent.
#[inline]
pub(super) fn reached<const SIDE: usize>(reach: Reach) -> bool {
    let opponents = match SIDE {
        BOTH => reach[0] != 0.0 || reach[1] != 0.0,
        p => reach[1 - p] != 0.0,
    };
    reach[2] != 0.0 && opponents
}

#[inline]
fn step_rows(
    tables: &[&PlayerTable; NUM_PLAYERS],
    mut rows: [u32; NUM_PLAYERS],
    shown: [u8; NUM_PLAYERS],
) -> [u32; NUM_PLAYERS] {
    for p in 0..NUM_PLAYERS {
        if shown[p] != NO_SYMBOL {
            rows[p] = tables[p].step(rows[p], shown[p]);
        }
    }
    rows
}

/// The first depth whose inner nodes number at least `target`, or
/// `None` when the tree is too small to be worth splitting.
fn split_depth<S: StreamGame>(stream: &S, target: usize) -> Option<usize> {
    let mut level = vec![stream.root()];
    let mut moves = Moves::default();
    let mut child = stream.root();
    for depth in 0.. {
        if level.len() >= target {
            return Some(depth);
        }
        let mut next = Vec::new();
        for node in &level {
            stream.moves(node, &mut moves);
            for &a in moves.actions() {
                stream.apply(node, a, &mut child);
                if stream.turn(&child) != Turn::Terminal {
                    next.push(child.clone());
                }
            }
        }
        if next.is_empty() {
            return None;
        }
        level = next;
    }
    None
}

/// The subtrees at `split` in walk order, with what the walk carries there.
fn collect_tasks<S: StreamGame, const SIDE: usize>(
    stream: &S,
    tables: &InfoStateTables,
    policy: &RowPolicy,
    split: usize,
) -> Vec<Task<S::Node>> {
    fn go<S: StreamGame, const SIDE: usize>(
        stream: &S,
        tables: &[&PlayerTable; NUM_PLAYERS],
        policy: &RowPolicy,
        task: Task<S::Node>,
        depth: usize,
        split: usize,
        out: &mut Vec<Task<S::Node>>,
    ) {
        let mut moves = Moves::default();
        stream.moves(&task.node, &mut moves);
        let turn = stream.turn(&task.node);
        let mut child = task.node.clone();
        for (i, &a) in moves.actions().iter().enumerate() {
            let shown = stream.apply(&task.node, a, &mut child);
            let mut reach = task.reach;
            match turn {
                // A one-sided pass never reads the updating player's policy.
                Turn::Player(m) if m == SIDE => {}
                Turn::Player(m) => {
                    reach[m] *= policy.probs[m][tables[m].row(task.rows[m]).slot_start as usize + i]
                }
                _ => reach[2] *= moves.probs()[i],
            }
            if stream.turn(&child) == Turn::Terminal || !reached::<SIDE>(reach) {
                continue;
            }
            let next = Task {
                node: child.clone(),
                rows: step_rows(tables, task.rows, shown),
                reach,
            };
            if depth + 1 == split {
                out.push(next);
            } else {
                go::<S, SIDE>(stream, tables, policy, next, depth + 1, split, out);
            }
        }
    }
    let mut out = Vec::new();
    let t = [tables.player(0), tables.player(1)];
    let root = Task {
        node: stream.root(),
        rows: [0; NUM_PLAYERS],
        reach: [1.0; 3],
    };
    go::<S, SIDE>(stream, &t, policy, root, 0, split, &mut out);
    out
}

/// Walks every history of `stream` once under `policy` and returns both
/// players' sequence payoffs. `tables` must have been built for `stream`.
pub fn sequence_payoffs<S: StreamGame>(
    stream: &S,
    tables: &InfoStateTables,
    policy: &RowPolicy,
    options: &PassOptions,
) -> Result<SequencePayoffs, StreamError> {
    sequence_payoffs_with(&Generic, stream, tables, policy, options)
}

/// [`sequence_payoffs`] with the subtrees walked by `kernel`.
pub(super) fn sequence_payoffs_with<S: StreamGame, K: Kernel<S>>(
    kernel: &K,
    stream: &S,
    tables: &InfoStateTables,
    policy: &RowPolicy,
    options: &PassOptions,
) -> Result<SequencePayoffs, StreamError> {
    let slots = [tables.player(0).num_slots(), tables.player(1).num_slots()];
    let pass = run_pass::<S, K, BOTH>(kernel, stream, tables, policy, slots, options)?;
    Ok(SequencePayoffs {
        slots: pass.sums.to_f64(),
        empty: [pass.root[0], pass.root[1]],
        value_p0: pass.root[2],
        histories: pass.histories,
    })
}

/// Player `player`'s instantaneous counterfactual regrets under `policy`,
/// by a pass over the histories that the opponent and chance reach.
pub fn player_regrets<S: StreamGame>(
    stream: &S,
    tables: &InfoStateTables,
    policy: &RowPolicy,
    player: usize,
    options: &PassOptions,
) -> Result<PlayerRegrets, StreamError> {
    player_regrets_with(&Generic, stream, tables, policy, player, options)
}

/// [`player_regrets`] with the subtrees walked by `kernel`.
pub(super) fn player_regrets_with<S: StreamGame, K: Kernel<S>>(
    kernel: &K,
    stream: &S,
    tables: &InfoStateTables,
    policy: &RowPolicy,
    player: usize,
    options: &PassOptions,
) -> Result<PlayerRegrets, StreamError> {
    let mut slots = [0; NUM_PLAYERS];
    slots[player] = tables.player(player).num_slots();
    let pass = match player {
        0 => run_pass::<S, K, 0>(kernel, stream, tables, policy, slots, options)?,
        _ => run_pass::<S, K, 1>(kernel, stream, tables, policy, slots, options)?,
    };
    let [a, b] = pass.sums.sums;
    let sums = if player == 0 { a } else { b };
    Ok(PlayerRegrets {
        regrets: sums.into_iter().map(to_f64).collect(),
        value: pass.root[player],
        histories: pass.histories,
    })
}

/// What [`run_pass`] returns: the exact sums, the root's amounts, the count.
struct Pass {
    sums: SlotSums,
    root: Amounts,
    histories: u64,
}

/// The pass computing `SIDE`'s sums (both players' for [`BOTH`]) into
/// arrays of `slots[p]` entries per player.
fn run_pass<S: StreamGame, K: Kernel<S>, const SIDE: usize>(
    kernel: &K,
    stream: &S,
    tables: &InfoStateTables,
    policy: &RowPolicy,
    slots: [usize; NUM_PLAYERS],
    options: &PassOptions,
) -> Result<Pass, StreamError> {
    if tables.game() != stream.game_string() || tables.alphabet() != stream.alphabet() {
        return Err(StreamError::WrongTables {
            tables: tables.game().to_string(),
            game: stream.game_string(),
        });
    }
    if stream.max_abs_utility() > MAX_TERM {
        return Err(StreamError::UtilityTooLarge {
            game: stream.game_string(),
            max_abs: stream.max_abs_utility(),
        });
    }
    let progress = Progress {
        done: AtomicU64::new(0),
        report: options.progress,
    };
    let root = stream.root();
    if stream.turn(&root) == Turn::Terminal {
        let u = stream.utility(&root);
        return Ok(Pass {
            sums: SlotSums::new(slots),
            root: [u, -u, u],
            histories: 1,
        });
    }
    let target = match options.min_tasks {
        0 => SPLIT_TARGET,
        n => n,
    };
    let split = split_depth(stream, target);
    let tasks = split.map_or_else(Vec::new, |d| {
        collect_tasks::<S, SIDE>(stream, tables, policy, d)
    });
    let workers: Vec<Mutex<Option<SlotSums>>> = (0..rayon::current_num_threads())
        .map(|_| Mutex::new(None))
        .collect();
    let stopped = || options.stop.is_some_and(|s| s.load(Ordering::Relaxed));
    let results: Vec<Amounts> = tasks
        .into_par_iter()
        .with_max_len(1)
        .map(|task| {
            if stopped() {
                return [0.0; 3];
            }
            let worker = rayon::current_thread_index().unwrap_or(0) % workers.len();
            // Each worker thread locks only its own set: never contended.
            let mut guard = workers[worker].lock().unwrap_or_else(|e| e.into_inner());
            let sums = guard.get_or_insert_with(|| SlotSums::new(slots));
            kernel.subtree::<SIDE>(stream, tables, policy, sums, task, &progress)
        })
        .collect();
    if stopped() {
        return Err(StreamError::Stopped);
    }
    let mut total = SlotSums::new(slots);
    let mut top = Walker::<S, SIDE>::new(stream, tables, policy, &mut total, root, &progress);
    top.split_depth = split.unwrap_or(usize::MAX);
    top.split_results = &results;
    let root_amounts = top.visit(0, [0; NUM_PLAYERS], [1.0; 3]);
    debug_assert_eq!(top.next_result, results.len());
    progress.add(top.pending + 1);
    for w in workers {
        if let Some(sums) = w.into_inner().unwrap_or_else(|e| e.into_inner()) {
            total.absorb(&sums);
        }
    }
    Ok(Pass {
        sums: total,
        root: root_amounts,
        histories: progress.done.load(Ordering::Relaxed),
    })
}
