//! Builds the tables by walking every history once, with a hash map from
//! (row, symbol) to child row, then renumbering the rows canonically.
//! Works for any [`StreamGame`]; [`super::build_merged`] is the fast way
//! for games whose nodes pack into a word.

use std::sync::atomic::Ordering;

use darkhex_games::{Action, NUM_PLAYERS, Turn};
use rustc_hash::FxHashMap;

use super::error::StreamError;
use super::estimate::WALK_BUILD_ROW_BYTES;
use super::tables::{BuildOptions, BuildProgress, InfoStateTables, NOT_OWN, PlayerTable, RawTable};
use super::walkable::{Moves, NO_SYMBOL, StreamGame};

/// One player's rows in the order the walk found them.
#[derive(Default)]
struct Found {
    edges: FxHashMap<(u32, u8), u32>,
    parent: Vec<u32>,
    symbol: Vec<u8>,
    own: Vec<u8>,
    actions: Vec<Option<Vec<Action>>>,
}

impl Found {
    fn new() -> Self {
        Found {
            parent: vec![u32::MAX],
            symbol: vec![NO_SYMBOL],
            own: vec![NOT_OWN],
            actions: vec![None],
            ..Default::default()
        }
    }

    /// Renumbers breadth first, children by symbol (see [`super::tables`]).
    fn canonical(self) -> RawTable {
        let n = self.parent.len();
        let mut edges: Vec<((u32, u8), u32)> = self.edges.into_iter().collect();
        edges.sort_unstable();
        let mut child_start = vec![0usize; n + 1];
        for &((q, _), _) in &edges {
            child_start[q as usize + 1] += 1;
        }
        for i in 0..n {
            child_start[i + 1] += child_start[i];
        }
        let mut order = vec![0u32];
        let mut i = 0;
        while i < order.len() {
            let old = order[i] as usize;
            order.extend(
                edges[child_start[old]..child_start[old + 1]]
                    .iter()
                    .map(|e| e.1),
            );
            i += 1;
        }
        let mut new_of_old = vec![0u32; n];
        for (new, &old) in order.iter().enumerate() {
            new_of_old[old as usize] = new as u32;
        }
        let mut raw = RawTable::with_root();
        raw.parent.clear();
        raw.symbol.clear();
        raw.own.clear();
        for &old in &order {
            let old = old as usize;
            let parent = self.parent[old];
            raw.parent.push(if parent == u32::MAX {
                u32::MAX
            } else {
                new_of_old[parent as usize]
            });
            raw.symbol.push(self.symbol[old]);
            raw.own.push(self.own[old]);
            if let Some(a) = &self.actions[old] {
                raw.actions.extend_from_slice(a);
            }
            raw.action_start.push(raw.actions.len() as u32);
        }
        raw
    }
}

struct Walker<'a, S: StreamGame> {
    stream: &'a S,
    options: &'a BuildOptions<'a>,
    found: [Found; NUM_PLAYERS],
    nodes: Vec<S::Node>,
    moves: Vec<Moves>,
    histories: u64,
    terminals: u64,
    /// Both players' rows so far, for the memory limit.
    rows_held: u64,
}

impl<S: StreamGame> Walker<'_, S> {
    fn recall_error(&self, player: usize, reason: &str) -> StreamError {
        StreamError::NotPerfectRecall {
            game: self.stream.game_string(),
            player,
            reason: reason.to_string(),
        }
    }

    fn visit(&mut self, depth: usize, rows: [u32; NUM_PLAYERS]) -> Result<(), StreamError> {
        self.histories += 1;
        if self.histories & ((1 << 12) - 1) == 0 {
            if self.options.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Err(StreamError::Stopped);
            }
            if self.histories & ((1 << 20) - 1) == 0
                && let Some(progress) = self.options.progress
            {
                progress(BuildProgress {
                    histories: self.histories,
                    rows: self.found[0].parent.len() as u64,
                    ..Default::default()
                });
            }
        }
        let turn = self.stream.turn(&self.nodes[depth]);
        if turn == Turn::Terminal {
            self.terminals += 1;
            return Ok(());
        }
        if self.nodes.len() == depth + 1 {
            self.nodes.push(self.nodes[depth].clone());
            self.moves.push(Moves::default());
        }
        let mut moves = std::mem::take(&mut self.moves[depth]);
        self.stream.moves(&self.nodes[depth], &mut moves);
        let mover = turn.player();
        if let Some(m) = mover {
            let row = rows[m] as usize;
            match &self.found[m].actions[row] {
                None => self.found[m].actions[row] = Some(moves.actions().to_vec()),
                Some(a) if a != moves.actions() => {
                    return Err(self.recall_error(
                        m,
                        "an information state has histories with different legal actions",
                    ));
                }
                Some(_) => {}
            }
        }
        for (i, &a) in moves.actions().iter().enumerate() {
            let (parents, children) = self.nodes.split_at_mut(depth + 1);
            let shown = self.stream.apply(&parents[depth], a, &mut children[0]);
            let mut next = rows;
            for p in 0..NUM_PLAYERS {
                let own = if mover == Some(p) { i as u8 } else { NOT_OWN };
                if shown[p] == NO_SYMBOL {
                    if own != NOT_OWN {
                        return Err(StreamError::SilentOwnMove {
                            game: self.stream.game_string(),
                            player: p,
                        });
                    }
                    continue;
                }
                let f = &mut self.found[p];
                let fresh = f.parent.len() as u32;
                let child = *f.edges.entry((rows[p], shown[p])).or_insert(fresh);
                if child == fresh {
                    self.rows_held += 1;
                    if let Some(limit) = self.options.limit
                        && self.rows_held as f64 * WALK_BUILD_ROW_BYTES > limit.bytes() as f64
                    {
                        return Err(StreamError::TablesTooLarge {
                            game: self.stream.game_string(),
                            player: p,
                            depth,
                            rows: f.parent.len() as u64,
                            limit,
                        });
                    }
                    f.parent.push(rows[p]);
                    f.symbol.push(shown[p]);
                    f.own.push(own);
                    f.actions.push(None);
                } else if f.own[child as usize] != own {
                    return Err(self.recall_error(p, "one observation follows both an own move and another's, or different own moves"));
                }
                next[p] = child;
            }
            self.visit(depth + 1, next)?;
        }
        self.moves[depth] = moves;
        Ok(())
    }
}

/// Builds both players' tables by walking every history of `stream`.
pub fn build_by_walk<S: StreamGame>(
    stream: &S,
    options: &BuildOptions,
) -> Result<InfoStateTables, StreamError> {
    let mut w = Walker {
        stream,
        options,
        found: [Found::new(), Found::new()],
        nodes: vec![stream.root()],
        moves: vec![Moves::default()],
        histories: 0,
        terminals: 0,
        rows_held: 0,
    };
    w.visit(0, [0; NUM_PLAYERS])?;
    let (histories, terminals) = (w.histories, w.terminals);
    let [f0, f1] = w.found;
    Ok(InfoStateTables::new(
        stream.game_string(),
        stream.alphabet().to_vec(),
        [
            PlayerTable::freeze(f0.canonical()),
            PlayerTable::freeze(f1.canonical()),
        ],
        histories,
        terminals,
    ))
}
