//! Builds one player's table level by level (rows of `d` observations,
//! then `d + 1`), without walking every history: what a player will
//! observe depends only on the real state and their own row, so histories
//! that reach the same (row, packed node) are merged and counted once,
//! with their number kept to count the histories exactly.
//!
//! Within a row, the moves that show the player nothing (the opponent's,
//! in the dark) are followed to closure one move at a time, merging again
//! after each. Rows of a level are expanded in parallel; the next level's
//! rows are numbered in (parent row, symbol) order, which is the canonical
//! breadth-first order of [`super::tables`], whatever the thread count.

use std::sync::atomic::{AtomicI64, Ordering};

use darkhex_games::{Action, Turn};
use rayon::prelude::*;

use super::error::StreamError;
use super::tables::{BuildOptions, BuildProgress, InfoStateTables, NOT_OWN, PlayerTable, RawTable};
use super::walkable::{MAX_SYMBOLS, Moves, NO_SYMBOL, PackedStream};

/// (packed node, number of histories reaching it), sorted by node, unique.
type Nodes = Vec<(u64, u64)>;

struct RowGroup {
    row: u32,
    nodes: Nodes,
}

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
/// expansions of a level running in parallel: one level of a board too
/// large for the machine can outgrow it before the level ends.
struct Budget {
    max: Option<u64>,
    live: AtomicI64,
    /// Where the build is, for the error: game, player, level, rows so far.
    game: String,
    player: usize,
    depth: usize,
    rows: u64,
}

/// "2.0 GB", or "1.0 MB" below a gigabyte.
fn readable_bytes(bytes: u64) -> String {
    if bytes >= 1_000_000_000 {
        format!("{:.1} GB", bytes as f64 / 1e9)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

/// Bytes of one merged history.
const NODE_BYTES: usize = std::mem::size_of::<(u64, u64)>();

/// Bytes a row of the level being expanded holds besides its histories: its
/// group, its expansion's result and their small heap blocks (actions,
/// child list). Levels of many rows with few histories each (the noisy
/// and flash variants) are mostly this.
const ROW_OVERHEAD: usize = std::mem::size_of::<RowGroup>()
    + std::mem::size_of::<Result<Expanded, StreamError>>()
    + 2 * std::mem::size_of::<ChildGroup>()
    + 64;

impl Budget {
    fn too_large(&self) -> StreamError {
        StreamError::TablesTooLarge {
            game: self.game.clone(),
            player: self.player,
            depth: self.depth,
            rows: self.rows,
            limit: readable_bytes(self.max.unwrap_or(0)),
        }
    }

    /// Moves the budget from `reported` to `now` bytes for one expansion;
    /// `false` once the build holds more than allowed.
    fn account(&self, reported: &mut i64, now: usize) -> bool {
        let now = now as i64;
        let live = self.live.fetch_add(now - *reported, Ordering::Relaxed) + now - *reported;
        *reported = now;
        self.max.is_none_or(|m| live <= m as i64)
    }
}

fn expand<S: PackedStream>(
    stream: &S,
    player: usize,
    group: RowGroup,
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
    let mut generation = group.nodes;
    while !generation.is_empty() {
        let mut next = Vec::new();
        for &(key, count) in &generation {
            pushed += 1;
            if pushed.is_multiple_of(1 << 16) {
                let held = next.len() + buckets.iter().map(Vec::len).sum::<usize>();
                if !budget.account(&mut reported, held * NODE_BYTES) {
                    return Err(budget.too_large());
                }
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
        if !budget.account(&mut reported, held * NODE_BYTES) {
            return Err(budget.too_large());
        }
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
    if !budget.account(
        &mut reported,
        kept * NODE_BYTES + out.children.len() * ROW_OVERHEAD,
    ) {
        return Err(budget.too_large());
    }
    Ok(out)
}

/// One player's table, and the histories and terminals it counted.
fn build_player<S: PackedStream>(
    stream: &S,
    player: usize,
    options: &BuildOptions,
    held: u64,
) -> Result<(PlayerTable, u64, u64), StreamError> {
    let mut raw = RawTable::with_root();
    let mut level = vec![RowGroup {
        row: 0,
        nodes: vec![(stream.pack(&stream.root()), 1)],
    }];
    let (mut histories, mut terminals) = (0u64, 0u64);
    for depth in 0.. {
        if level.is_empty() {
            break;
        }
        let rows: Vec<u32> = level.iter().map(|g| g.row).collect();
        let nodes: usize = level.iter().map(|g| g.nodes.len()).sum();
        let budget = Budget {
            max: options.max_bytes,
            live: AtomicI64::new(
                (held + raw.bytes()) as i64
                    + (nodes * NODE_BYTES + level.len() * ROW_OVERHEAD) as i64,
            ),
            game: stream.game_string(),
            player,
            depth: depth + 1,
            rows: raw.len() as u64,
        };
        let expanded: Vec<Result<Expanded, StreamError>> = level
            .into_par_iter()
            .with_max_len(1)
            .map(|g| expand(stream, player, g, &budget))
            .collect();
        let mut next = Vec::new();
        for (row, e) in rows.into_iter().zip(expanded) {
            let e = e?;
            histories += e.histories;
            terminals += e.terminals;
            debug_assert_eq!(raw.action_start.len(), row as usize + 1);
            if let Some(a) = e.actions {
                raw.actions.extend_from_slice(&a);
            }
            raw.action_start.push(raw.actions.len() as u32);
            for c in e.children {
                next.push(RowGroup {
                    row: raw.len() as u32,
                    nodes: c.nodes,
                });
                raw.parent.push(row);
                raw.symbol.push(c.symbol);
                raw.own.push(c.own);
            }
        }
        level = next;
        if let Some(progress) = options.progress {
            progress(BuildProgress {
                player,
                depth: depth + 1,
                rows: raw.len() as u64,
                histories,
            });
        }
    }
    Ok((PlayerTable::freeze(raw), histories, terminals))
}

/// Builds both players' tables, merging histories that agree on the
/// player's row and the packed node.
pub fn build_by_levels<S: PackedStream>(
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
