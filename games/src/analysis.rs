//! Walks a whole game tree: sizes (histories, terminals, information states,
//! sequences, depth) and a perfect-recall check.

use rustc_hash::FxHashMap;
use thiserror::Error;

use crate::game::{Action, Game, NUM_PLAYERS, State, Token, Turn};

/// A sequence of one player: an information state and the index of an action
/// taken there. `ROOT` is the empty sequence.
type SeqId = u64;
const ROOT: SeqId = u64::MAX;

fn seq_id(infoset: u32, action_index: usize) -> SeqId {
    ((infoset as u64) << 16) | action_index as u64
}

/// How an information state fails perfect recall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecallViolation {
    pub player: usize,
    /// The information state's tokens, described.
    pub info_state: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeStats {
    /// Every node: decision, chance and terminal.
    pub histories: u64,
    pub terminals: u64,
    pub chance_nodes: u64,
    pub infosets: [u64; NUM_PLAYERS],
    /// The empty sequence plus one per (information state, action).
    pub sequences: [u64; NUM_PLAYERS],
    /// The most actions (chance included) in any history.
    pub max_depth: usize,
    /// `None` when the game has perfect recall.
    pub recall_violation: Option<RecallViolation>,
}

impl TreeStats {
    pub fn perfect_recall(&self) -> bool {
        self.recall_violation.is_none()
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum WalkError {
    #[error(
        "the game tree has more than {limit} histories; raise the limit or pick a smaller game"
    )]
    TooLarge { limit: u64 },
}

/// Limits and progress reporting for a walk.
pub struct WalkOptions<'a> {
    pub max_histories: u64,
    /// Called with the number of histories visited, every 2^20 of them.
    pub progress: Option<&'a (dyn Fn(u64) + Sync)>,
}

impl Default for WalkOptions<'_> {
    fn default() -> Self {
        WalkOptions {
            max_histories: u64::MAX,
            progress: None,
        }
    }
}

struct InfosetRecord {
    parent: SeqId,
    actions_start: u32,
    actions_len: u32,
}

struct Walker<'a, G: Game> {
    game: &'a G,
    options: &'a WalkOptions<'a>,
    ids: [FxHashMap<Box<[Token]>, u32>; NUM_PLAYERS],
    records: [Vec<InfosetRecord>; NUM_PLAYERS],
    action_arena: Vec<Action>,
    /// One state and one action buffer per depth, reused across siblings.
    states: Vec<G::State>,
    actions: Vec<Vec<Action>>,
    stats: TreeStats,
}

/// Enumerates every history of `game` once.
pub fn tree_stats<G: Game>(game: &G, options: &WalkOptions) -> Result<TreeStats, WalkError> {
    let root = game.new_initial_state();
    let depth = game.max_game_length() + 2;
    let mut w = Walker {
        game,
        options,
        ids: Default::default(),
        records: Default::default(),
        action_arena: Vec::new(),
        states: vec![root; depth],
        actions: vec![Vec::new(); depth],
        stats: TreeStats {
            histories: 0,
            terminals: 0,
            chance_nodes: 0,
            infosets: [0; NUM_PLAYERS],
            sequences: [1; NUM_PLAYERS],
            max_depth: 0,
            recall_violation: None,
        },
    };
    w.visit(0, [ROOT; NUM_PLAYERS])?;
    for p in 0..NUM_PLAYERS {
        w.stats.infosets[p] = w.records[p].len() as u64;
        w.stats.sequences[p] = 1 + w.records[p]
            .iter()
            .map(|r| r.actions_len as u64)
            .sum::<u64>();
    }
    Ok(w.stats)
}

impl<G: Game> Walker<'_, G> {
    fn visit(&mut self, depth: usize, last: [SeqId; NUM_PLAYERS]) -> Result<(), WalkError> {
        self.stats.histories += 1;
        if self.stats.histories > self.options.max_histories {
            return Err(WalkError::TooLarge {
                limit: self.options.max_histories,
            });
        }
        if self.stats.histories & ((1 << 20) - 1) == 0
            && let Some(progress) = self.options.progress
        {
            progress(self.stats.histories);
        }
        self.stats.max_depth = self.stats.max_depth.max(depth);
        let mut actions = std::mem::take(&mut self.actions[depth]);
        let result = match self.states[depth].current_player() {
            Turn::Terminal => {
                self.stats.terminals += 1;
                Ok(())
            }
            Turn::Chance => {
                self.stats.chance_nodes += 1;
                self.states[depth].legal_actions_into(&mut actions);
                actions
                    .iter()
                    .try_for_each(|&a| self.visit_child(depth, a, last))
            }
            Turn::Player(p) => {
                self.states[depth].legal_actions_into(&mut actions);
                let infoset = self.record_infoset(depth, p, last[p], &actions);
                actions.iter().enumerate().try_for_each(|(i, &a)| {
                    let mut next = last;
                    next[p] = seq_id(infoset, i);
                    self.visit_child(depth, a, next)
                })
            }
        };
        self.actions[depth] = actions;
        result
    }

    fn visit_child(
        &mut self,
        depth: usize,
        action: Action,
        last: [SeqId; NUM_PLAYERS],
    ) -> Result<(), WalkError> {
        let (parents, children) = self.states.split_at_mut(depth + 1);
        children[0].clone_from(&parents[depth]);
        children[0].apply(action);
        self.visit(depth + 1, last)
    }

    /// Finds or creates the information state of `player` at this node, and
    /// checks it against what earlier histories of it had.
    fn record_infoset(
        &mut self,
        depth: usize,
        player: usize,
        parent: SeqId,
        actions: &[Action],
    ) -> u32 {
        let key = self.states[depth].info_key(player);
        if let Some(&id) = self.ids[player].get(key) {
            let rec = &self.records[player][id as usize];
            let start = rec.actions_start as usize;
            let known = &self.action_arena[start..start + rec.actions_len as usize];
            if self.stats.recall_violation.is_none() {
                let reason = if rec.parent != parent {
                    Some("its histories follow different earlier sequences of the player")
                } else if known != actions {
                    Some("its histories have different legal actions")
                } else {
                    None
                };
                if let Some(reason) = reason {
                    let info_state: Vec<String> =
                        key.iter().map(|&t| self.game.describe_token(t)).collect();
                    self.stats.recall_violation = Some(RecallViolation {
                        player,
                        info_state: info_state.join(", "),
                        reason: reason.to_string(),
                    });
                }
            }
            return id;
        }
        let id = self.records[player].len() as u32;
        self.ids[player].insert(key.into(), id);
        self.records[player].push(InfosetRecord {
            parent,
            actions_start: self.action_arena.len() as u32,
            actions_len: actions.len() as u32,
        });
        self.action_arena.extend_from_slice(actions);
        id
    }
}
