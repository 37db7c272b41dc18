//! Builds one player's table without walking every history: what a player
//! will observe depends only on the real state and their own row, so
//! histories that reach the same (row, packed node) are merged and counted
//! once, with their number kept to count the histories exactly.
//!
//! Expanding a row follows the moves that show the player nothing (the
//! opponent's, in the dark) to closure one move at a time, merging again
//! after each, and sorts the moves that show the player something into the
//! row's children, one per symbol. The rows are expanded depth first, so
//! that only the merged histories of the rows on the current path and of
//! their waiting siblings are held: a whole level of them at once (the
//! first builder's way) outgrew this 24 GB machine on 3x3 Dark Hex with
//! noise or flash. The top few levels are expanded first and the subtrees
//! below them in parallel; the rows are then renumbered in the canonical
//! breadth-first order of [`super::tables`], so the tables depend only on
//! the game, whatever the thread count.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

use darkhex_games::{Action, Turn};
use rayon::prelude::*;

use super::error::StreamError;
use super::tables::{BuildOptions, BuildProgress, InfoStateTables, NOT_OWN, PlayerTable, RawTable};
use super::walkable::{MAX_SYMBOLS, Moves, NO_SYMBOL, PackedStream};
use crate::memory::MemoryLimit;

/// (packed node, number of histories reaching it), sorted by node, unique.
type Nodes = Vec<(u64, u64)>;

struct ChildGroup {
    symbol: u8,
    own: u8,
    nodes: Nodes,
}

#[derive(Default)]
struct Expanded {
    actions: Option<Vec<Action>>,
    children: Vec<ChildGroup>,
    histories: u64,
    terminals: u64,
    /// The bytes the budget counts for the children until they are expanded.
    held: i64,
}

/// Sorts by node and adds up the counts of equal nodes.
fn merge(nodes: &mut Nodes) {
    nodes.sort_unstable_by_key(|&(n, _)| n);
    nodes.dedup_by(|later, kept| {
        if later.0 == kept.0 {
            kept.1 += later.1;
            true
        } else {
            false
        }
    });
}

/// The memory a build may hold and what it holds now, shared by the
/// expansions running in parallel, and where the build is, for the error
/// and the progress report.
struct Budget<'a> {
    limit: Option<MemoryLimit>,
    live: AtomicI64,
    game: String,
    player: usize,
    rows: AtomicU64,
    histories: AtomicU64,
    progress: Option<&'a (dyn Fn(BuildProgress) + Sync)>,
    stop: Option<&'a AtomicBool>,
}

/// Bytes of one merged history.
const NODE_BYTES: usize = std::mem::size_of::<(u64, u64)>();

/// Bytes a waiting row holds besides its histories: its group and its
/// small heap block.
const ROW_OVERHEAD: usize = std::mem::size_of::<ChildGroup>() + 32;

/// Bytes a found row costs at the build's peak, when the table is
/// renumbered and frozen: its [`Found`] entry (11), its renumbered copy
/// (10) and the renumbering's two indices (8); each action costs two
/// copies.
const FOUND_ROW_BYTES: usize = 30;
const FOUND_ACTION_BYTES: usize = 2 * std::mem::size_of::<Action>();

impl Budget<'_> {
    fn too_large(&self, depth: usize) -> StreamError {
        StreamError::TablesTooLarge {
            game: self.game.clone(),
            player: self.player,
            depth,
            rows: self.rows.load(Ordering::Relaxed),
            limit: self.limit.unwrap_or(MemoryLimit::bytes_given(0)),
        }
    }

    /// Counts an expansion's rows and histories, keeps the found rows'
    /// memory, and reports progress now and then.
    fn found(&self, rows: usize, actions: usize, histories: u64, depth: usize) -> bool {
        let before = self.histories.fetch_add(histories, Ordering::Relaxed);
        let total_rows = self.rows.fetch_add(rows as u64, Ordering::Relaxed) + rows as u64;
        let bytes = rows * FOUND_ROW_BYTES + actions * FOUND_ACTION_BYTES;
        let live = self.live.fetch_add(bytes as i64, Ordering::Relaxed) + bytes as i64;
        if let Some(progress) = self.progress
            && (before >> 24) != (before + histories) >> 24
        {
            progress(BuildProgress {
                player: self.player,
                depth,
                rows: total_rows,
                histories: before + histories,
            });
        }
        self.limit.is_none_or(|m| live <= m.bytes() as i64)
    }

    /// Moves the budget from `reported` to `now` bytes for one expansion;
    /// `false` once the build holds more than allowed.
    fn account(&self, reported: &mut i64, now: usize) -> bool {
        let now = now as i64;
        let live = self.live.fetch_add(now - *reported, Ordering::Relaxed) + now - *reported;
        *reported = now;
        self.limit.is_none_or(|m| live <= m.bytes() as i64)
    }

    /// [`Self::account`] for an expansion that stops once the build holds
    /// more than allowed.
    fn hold(&self, reported: &mut i64, now: usize, depth: usize) -> Result<(), StreamError> {
        if self.account(reported, now) {
            Ok(())
        } else {
            Err(self.too_large(depth))
        }
    }
}

/// Expands the row of `depth` observations whose merged histories are
/// `nodes`.
fn expand<S: PackedStream>(
    stream: &S,
    player: usize,
    nodes: Nodes,
    depth: usize,
    budget: &Budget,
) -> Result<Expanded, StreamError> {
    // What this expansion holds beyond its input, reported to the budget.
    let mut reported = 0i64;
    let mut pushed = 0usize;
    let recall = |reason: &str| StreamError::NotPerfectRecall {
        game: stream.game_string(),
        player,
        reason: reason.to_string(),
    };
    let mut out = Expanded::default();
    let mut buckets: Vec<Nodes> = vec![Vec::new(); MAX_SYMBOLS];
    let mut own = [None::<u8>; MAX_SYMBOLS];
    let mut moves = Moves::default();
    let mut child = stream.root();
    let mut generation = nodes;
    while !generation.is_empty() {
        let mut next = Vec::new();
        for &(key, count) in &generation {
            pushed += 1;
            if pushed.is_multiple_of(1 << 16) {
                let held = next.len() + buckets.iter().map(Vec::len).sum::<usize>();
                budget.hold(&mut reported, held * NODE_BYTES, depth)?;
            }
            out.histories += count;
            let node = stream.unpack(key);
            let turn = stream.turn(&node);
            let mover = match turn {
                Turn::Terminal => {
                    out.terminals += count;
                    continue;
                }
                Turn::Chance => None,
                Turn::Player(m) => Some(m),
            };
            stream.moves(&node, &mut moves);
            if mover == Some(player) {
                match &out.actions {
                    None => out.actions = Some(moves.actions().to_vec()),
                    Some(a) if a != moves.actions() => {
                        return Err(recall(
                            "an information state has histories with different legal actions",
                        ));
                    }
                    Some(_) => {}
                }
            }
            for (i, &a) in moves.actions().iter().enumerate() {
                let shown = stream.apply(&node, a, &mut child)[player];
                let mine = if mover == Some(player) {
                    i as u8
                } else {
                    NOT_OWN
                };
                if shown == NO_SYMBOL {
                    if mine != NOT_OWN {
                        return Err(StreamError::SilentOwnMove {
                            game: stream.game_string(),
                            player,
                        });
                    }
                    next.push((stream.pack(&child), count));
                    continue;
                }
                let s = shown as usize;
                match own[s] {
                    None => own[s] = Some(mine),
                    Some(o) if o != mine => {
                        return Err(recall(
                            "one observation follows both an own move and another's, or different own moves",
                        ));
                    }
                    Some(_) => {}
                }
                buckets[s].push((stream.pack(&child), count));
            }
        }
        merge(&mut next);
        generation = next;
        let held = generation.len() + buckets.iter().map(Vec::len).sum::<usize>();
        budget.hold(&mut reported, held * NODE_BYTES, depth)?;
    }
    for (s, mut nodes) in buckets.into_iter().enumerate() {
        if let Some(o) = own[s] {
            merge(&mut nodes);
            out.children.push(ChildGroup {
                symbol: s as u8,
                own: o,
                nodes,
            });
        }
    }
    // What the next level keeps of this expansion: its rows and histories.
    let kept: usize = out.children.iter().map(|c| c.nodes.len()).sum();
    let now = kept * NODE_BYTES + out.children.len() * ROW_OVERHEAD;
    budget.hold(&mut reported, now, depth)?;
    out.held = reported;
    Ok(out)
}

/// Rows as the build finds them: each with its parent, the symbol that
/// leads to it, the index of the player's own action that shows it (or
/// [`NOT_OWN`]), and its legal actions, `actions[at..at + len]`.
#[derive(Default)]
struct Found {
    parent: Vec<u32>,
    symbol: Vec<u8>,
    own: Vec<u8>,
    actions_at: Vec<u32>,
    actions_len: Vec<u8>,
    actions: Vec<Action>,
    terminals: u64,
}

impl Found {
    /// Row 0 alone: the root of the table or of a subtree.
    fn rooted() -> Found {
        let mut f = Found::default();
        f.push(u32::MAX, NO_SYMBOL, NOT_OWN);
        f
    }

    fn len(&self) -> usize {
        self.parent.len()
    }

    fn push(&mut self, parent: u32, symbol: u8, own: u8) -> u32 {
        self.parent.push(parent);
        self.symbol.push(symbol);
        self.own.push(own);
        self.actions_at.push(0);
        self.actions_len.push(0);
        (self.parent.len() - 1) as u32
    }

    fn set_actions(&mut self, row: u32, actions: &[Action]) {
        self.actions_at[row as usize] = self.actions.len() as u32;
        self.actions_len[row as usize] = actions.len() as u8;
        self.actions.extend_from_slice(actions);
    }

    /// Expands `row` (whose merged histories are `nodes`) and, depth first,
    /// every row below it.
    fn subtree<S: PackedStream>(
        &mut self,
        stream: &S,
        player: usize,
        row: u32,
        nodes: Nodes,
        depth: usize,
        budget: &Budget,
    ) -> Result<(), StreamError> {
        let e = self.expand(stream, player, row, nodes, depth, budget)?;
        let mut held = e.held;
        for c in e.children {
            let child = self.push(row, c.symbol, c.own);
            let bytes = c.nodes.len() * NODE_BYTES + ROW_OVERHEAD;
            self.subtree(stream, player, child, c.nodes, depth + 1, budget)?;
            // The child's histories were dropped as it was expanded.
            let left = (held as usize).saturating_sub(bytes);
            budget.account(&mut held, left);
        }
        budget.account(&mut held, 0);
        Ok(())
    }

    /// Expands `row` and records its actions; returns the children to expand.
    fn expand<S: PackedStream>(
        &mut self,
        stream: &S,
        player: usize,
        row: u32,
        nodes: Nodes,
        depth: usize,
        budget: &Budget,
    ) -> Result<Expanded, StreamError> {
        let e = expand(stream, player, nodes, depth, budget)?;
        let actions = e.actions.as_deref().unwrap_or(&[]);
        self.set_actions(row, actions);
        self.terminals += e.terminals;
        if !budget.found(e.children.len(), actions.len(), e.histories, depth) {
            return Err(budget.too_large(depth));
        }
        if budget.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Err(StreamError::Stopped);
        }
        Ok(e)
    }

    /// Adds a subtree found apart, whose row 0 is this table's `row`.
    fn graft(&mut self, row: u32, part: Found) {
        let offset = self.len() as u32 - 1;
        let actions_offset = self.actions.len() as u32;
        self.actions_at[row as usize] = part.actions_at[0] + actions_offset;
        self.actions_len[row as usize] = part.actions_len[0];
        for r in 1..part.len() {
            let parent = match part.parent[r] {
                0 => row,
                p => p + offset,
            };
            self.parent.push(parent);
            self.symbol.push(part.symbol[r]);
            self.own.push(part.own[r]);
            self.actions_at.push(part.actions_at[r] + actions_offset);
            self.actions_len.push(part.actions_len[r]);
        }
        self.actions.extend_from_slice(&part.actions);
        self.terminals += part.terminals;
    }

    /// The rows renumbered breadth first, each row's children in the order
    /// of their symbols (the order in which every row's children are found).
    fn canonical(self) -> RawTable {
        let n = self.len();
        let mut child_start = vec![0u32; n + 1];
        for &p in &self.parent[1..] {
            child_start[p as usize + 1] += 1;
        }
        for i in 0..n {
            child_start[i + 1] += child_start[i];
        }
        let mut children = vec![0u32; n.saturating_sub(1)];
        let mut next = child_start.clone();
        for (r, &p) in self.parent.iter().enumerate().skip(1) {
            children[next[p as usize] as usize] = r as u32;
            next[p as usize] += 1;
        }
        drop(next);
        let mut order = Vec::with_capacity(n);
        order.push(0u32);
        let mut i = 0;
        while i < order.len() {
            let r = order[i] as usize;
            let kids = &children[child_start[r] as usize..child_start[r + 1] as usize];
            debug_assert!(
                kids.windows(2)
                    .all(|w| self.symbol[w[0] as usize] < self.symbol[w[1] as usize])
            );
            order.extend_from_slice(kids);
            i += 1;
        }
        drop(children);
        drop(child_start);
        let mut new_of_old = vec![0u32; n];
        for (new, &old) in order.iter().enumerate() {
            new_of_old[old as usize] = new as u32;
        }
        let mut raw = RawTable {
            parent: Vec::with_capacity(n),
            symbol: Vec::with_capacity(n),
            own: Vec::with_capacity(n),
            action_start: Vec::with_capacity(n + 1),
            actions: Vec::with_capacity(self.actions.len()),
        };
        raw.action_start.push(0);
        for &old in &order {
            let old = old as usize;
            raw.parent.push(match self.parent[old] {
                u32::MAX => u32::MAX,
                p => new_of_old[p as usize],
            });
            raw.symbol.push(self.symbol[old]);
            raw.own.push(self.own[old]);
            let at = self.actions_at[old] as usize;
            raw.actions
                .extend_from_slice(&self.actions[at..at + self.actions_len[old] as usize]);
            raw.action_start.push(raw.actions.len() as u32);
        }
        raw
    }
}

/// Subtrees are walked in parallel below the first level with this many rows.
const PARALLEL_ROWS: usize = 1024;

/// One player's table, and the histories and terminals it counted.
fn build_player<S: PackedStream>(
    stream: &S,
    player: usize,
    options: &BuildOptions,
    held: u64,
) -> Result<(PlayerTable, u64, u64), StreamError> {
    let budget = Budget {
        limit: options.limit,
        live: AtomicI64::new(held as i64),
        game: stream.game_string(),
        player,
        rows: AtomicU64::new(1),
        histories: AtomicU64::new(0),
        progress: options.progress,
        stop: options.stop,
    };
    let mut found = Found::rooted();
    let mut level = vec![(0u32, vec![(stream.pack(&stream.root()), 1)])];
    let mut depth = 0;
    while !level.is_empty() && level.len() < PARALLEL_ROWS {
        let mut next = Vec::new();
        for (row, nodes) in level {
            let e = found.expand(stream, player, row, nodes, depth, &budget)?;
            for c in e.children {
                next.push((found.push(row, c.symbol, c.own), c.nodes));
            }
        }
        level = next;
        depth += 1;
    }
    let parts: Vec<Result<Found, StreamError>> = level
        .into_par_iter()
        .with_max_len(1)
        .map(|(_, nodes)| {
            let mut part = Found::rooted();
            part.subtree(stream, player, 0, nodes, depth, &budget)?;
            Ok(part)
        })
        .collect();
    let roots: Vec<u32> = (found.len() - parts.len()..found.len())
        .map(|r| r as u32)
        .collect();
    for (row, part) in roots.into_iter().zip(parts) {
        found.graft(row, part?);
    }
    let histories = budget.histories.load(Ordering::Relaxed);
    let terminals = found.terminals;
    Ok((PlayerTable::freeze(found.canonical()), histories, terminals))
}

/// One probe of Knuth's estimator on `player`'s table: a path from the
/// root row, each step to a child row drawn by `pick` (from 0 to the
/// number of children), expanded exactly as a build expands it; adds to
/// `rows` and `slots` each row's children and actions weighted by the
/// product of the branching factors above it, whose mean over probes is
/// the table's number of rows and slots. Holds only the path's row.
pub(super) fn knuth_probe<S: PackedStream>(
    stream: &S,
    player: usize,
    pick: &mut dyn FnMut(usize) -> usize,
    rows: &mut f64,
    slots: &mut f64,
) -> Result<(), StreamError> {
    let budget = Budget {
        limit: None,
        live: AtomicI64::new(0),
        game: stream.game_string(),
        player,
        rows: AtomicU64::new(0),
        histories: AtomicU64::new(0),
        progress: None,
        stop: None,
    };
    let mut nodes = vec![(stream.pack(&stream.root()), 1)];
    let mut weight = 1.0;
    *rows += 1.0;
    for depth in 0.. {
        let mut e = expand(stream, player, nodes, depth, &budget)?;
        *slots += weight * e.actions.as_ref().map_or(0, Vec::len) as f64;
        let k = e.children.len();
        if k == 0 {
            break;
        }
        *rows += weight * k as f64;
        weight *= k as f64;
        nodes = e.children.swap_remove(pick(k)).nodes;
    }
    Ok(())
}

/// Builds both players' tables, merging histories that agree on the
/// player's row and the packed node.
pub fn build_merged<S: PackedStream>(
    stream: &S,
    options: &BuildOptions,
) -> Result<InfoStateTables, StreamError> {
    let (t0, histories, terminals) = build_player(stream, 0, options, 0)?;
    let (t1, histories1, _) = build_player(stream, 1, options, t0.memory_bytes() as u64)?;
    debug_assert_eq!(histories, histories1);
    Ok(InfoStateTables::new(
        stream.game_string(),
        stream.alphabet().to_vec(),
        [t0, t1],
        histories,
        terminals,
    ))
}
