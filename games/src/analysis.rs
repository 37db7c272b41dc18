//! Walks a whole game tree once, depth first, numbering every player's
//! information states and checking perfect recall on the way. Visitors build
//! on the walk: [`tree_stats`] counts, the solvers' tree compiler builds arrays.

use rustc_hash::FxHashMap;
use thiserror::Error;

use crate::game::{Action, Game, NUM_PLAYERS, State, Token, Turn};

/// A player's sequence: 0 is the empty sequence; `slot + 1` is the sequence
/// ending with the action in that slot (see [`InfosetTable::slot`]).
pub type SeqId = u32;
pub const EMPTY_SEQUENCE: SeqId = 0;

/// How an information state fails perfect recall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecallViolation {
    pub player: usize,
    /// The information state's tokens, described.
    pub info_state: String,
    pub reason: String,
}

/// One player's information states, numbered in the order the walk first met
/// them, so a state's parent sequence always belongs to a smaller id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InfosetTable {
    /// The information-state key of each id.
    pub keys: Vec<Box<[Token]>>,
    /// Actions of infoset `i` are `actions[action_start[i]..action_start[i + 1]]`;
    /// each index into `actions` is a slot, the unit of policy arrays.
    pub action_start: Vec<u32>,
    pub actions: Vec<Action>,
    /// The player's sequence leading to each infoset.
    pub parent: Vec<SeqId>,
}

impl InfosetTable {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Number of (infoset, action) slots.
    pub fn num_slots(&self) -> usize {
        self.actions.len()
    }

    pub fn slots(&self, infoset: usize) -> std::ops::Range<usize> {
        self.action_start[infoset] as usize..self.action_start[infoset + 1] as usize
    }

    pub fn slot(&self, infoset: usize, action_index: usize) -> usize {
        self.action_start[infoset] as usize + action_index
    }

    pub fn actions_of(&self, infoset: usize) -> &[Action] {
        &self.actions[self.slots(infoset)]
    }
}

/// What a walk learnt besides what its visitor collected.
#[derive(Clone, Debug, Default)]
pub struct WalkSummary {
    pub histories: u64,
    pub max_depth: usize,
    pub infosets: [InfosetTable; NUM_PLAYERS],
    /// `None` when the game has perfect recall.
    pub recall_violation: Option<RecallViolation>,
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

/// One history as the walk shows it to a visitor.
pub struct NodeView<'a, S> {
    pub state: &'a S,
    pub depth: usize,
    pub turn: Turn,
    /// Legal actions, or chance outcomes; the children in this order.
    pub actions: &'a [Action],
    /// Probabilities of the chance outcomes (empty elsewhere).
    pub chance_probs: &'a [f64],
    /// The mover's infoset id at decision nodes.
    pub infoset: u32,
}

/// Receives every history, parents before children.
pub trait TreeVisitor<S: State> {
    /// What the visitor remembers of a node to hand back with its children.
    type Node: Copy;

    /// `parent` is the parent's handle and the index of the action leading here.
    fn visit(&mut self, node: &NodeView<S>, parent: Option<(Self::Node, usize)>) -> Self::Node;
}

struct Walker<'a, G: Game, V> {
    game: &'a G,
    options: &'a WalkOptions<'a>,
    visitor: &'a mut V,
    ids: [FxHashMap<Box<[Token]>, u32>; NUM_PLAYERS],
    summary: WalkSummary,
    /// One state and one action buffer per depth, reused across siblings.
    states: Vec<G::State>,
    actions: Vec<Vec<Action>>,
    probs: Vec<f64>,
}

/// Visits every history of `game` once, depth first.
pub fn walk<G: Game, V: TreeVisitor<G::State>>(
    game: &G,
    options: &WalkOptions,
    visitor: &mut V,
) -> Result<WalkSummary, WalkError> {
    let depth = game.max_game_length() + 2;
    let mut w = Walker {
        game,
        options,
        visitor,
        ids: Default::default(),
        summary: WalkSummary::default(),
        states: vec![game.new_initial_state(); depth],
        actions: vec![Vec::new(); depth],
        probs: Vec::new(),
    };
    for t in &mut w.summary.infosets {
        t.action_start.push(0);
    }
    w.visit(0, [EMPTY_SEQUENCE; NUM_PLAYERS], None)?;
    let Walker {
        ids, mut summary, ..
    } = w;
    for (p, map) in ids.into_iter().enumerate() {
        let table = &mut summary.infosets[p];
        let mut keys: Vec<Option<Box<[Token]>>> = vec![None; table.parent.len()];
        for (key, id) in map {
            keys[id as usize] = Some(key);
        }
        table.keys = keys.into_iter().map(Option::unwrap_or_default).collect();
    }
    Ok(summary)
}

impl<G: Game, V: TreeVisitor<G::State>> Walker<'_, G, V> {
    fn visit(
        &mut self,
        depth: usize,
        last: [SeqId; NUM_PLAYERS],
        parent: Option<(V::Node, usize)>,
    ) -> Result<(), WalkError> {
        self.summary.histories += 1;
        let n = self.summary.histories;
        if n > self.options.max_histories {
            return Err(WalkError::TooLarge {
                limit: self.options.max_histories,
            });
        }
        if n & ((1 << 20) - 1) == 0
            && let Some(progress) = self.options.progress
        {
            progress(n);
        }
        self.summary.max_depth = self.summary.max_depth.max(depth);
        let mut actions = std::mem::take(&mut self.actions[depth]);
        let turn = self.states[depth].current_player();
        let mut infoset = 0;
        self.probs.clear();
        match turn {
            Turn::Terminal => actions.clear(),
            Turn::Chance => {
                actions.clear();
                for (a, p) in self.states[depth].chance_outcomes() {
                    actions.push(a);
                    self.probs.push(p);
                }
            }
            Turn::Player(p) => {
                self.states[depth].legal_actions_into(&mut actions);
                infoset = self.record_infoset(depth, p, last[p], &actions);
            }
        }
        let handle = self.visitor.visit(
            &NodeView {
                state: &self.states[depth],
                depth,
                turn,
                actions: &actions,
                chance_probs: &self.probs,
                infoset,
            },
            parent,
        );
        let mut result = Ok(());
        for (i, &a) in actions.iter().enumerate() {
            let mut next = last;
            if let Turn::Player(p) = turn {
                next[p] = self.summary.infosets[p].slot(infoset as usize, i) as SeqId + 1;
            }
            let (parents, children) = self.states.split_at_mut(depth + 1);
            children[0].clone_from(&parents[depth]);
            children[0].apply(a);
            result = self.visit(depth + 1, next, Some((handle, i)));
            if result.is_err() {
                break;
            }
        }
        self.actions[depth] = actions;
        result
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
        let table = &mut self.summary.infosets[player];
        if let Some(&id) = self.ids[player].get(key) {
            if self.summary.recall_violation.is_none() {
                let reason = if table.parent[id as usize] != parent {
                    Some("its histories follow different earlier sequences of the player")
                } else if table.actions_of(id as usize) != actions {
                    Some("its histories have different legal actions")
                } else {
                    None
                };
                if let Some(reason) = reason {
                    let info_state: Vec<String> =
                        key.iter().map(|&t| self.game.describe_token(t)).collect();
                    self.summary.recall_violation = Some(RecallViolation {
                        player,
                        info_state: info_state.join(", "),
                        reason: reason.to_string(),
                    });
                }
            }
            return id;
        }
        let id = table.parent.len() as u32;
        self.ids[player].insert(key.into(), id);
        table.parent.push(parent);
        table.actions.extend_from_slice(actions);
        table.action_start.push(table.actions.len() as u32);
        id
    }
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

#[derive(Default)]
struct Counter {
    terminals: u64,
    chance_nodes: u64,
}

impl<S: State> TreeVisitor<S> for Counter {
    type Node = ();
    fn visit(&mut self, node: &NodeView<S>, _parent: Option<((), usize)>) {
        match node.turn {
            Turn::Terminal => self.terminals += 1,
            Turn::Chance => self.chance_nodes += 1,
            Turn::Player(_) => {}
        }
    }
}

/// Enumerates every history of `game` once and counts.
pub fn tree_stats<G: Game>(game: &G, options: &WalkOptions) -> Result<TreeStats, WalkError> {
    let mut counter = Counter::default();
    let summary = walk(game, options, &mut counter)?;
    let infosets = summary.infosets.each_ref().map(|t| t.len() as u64);
    let sequences = summary
        .infosets
        .each_ref()
        .map(|t| 1 + t.num_slots() as u64);
    Ok(TreeStats {
        histories: summary.histories,
        terminals: counter.terminals,
        chance_nodes: counter.chance_nodes,
        infosets,
        sequences,
        max_depth: summary.max_depth,
        recall_violation: summary.recall_violation,
    })
}
