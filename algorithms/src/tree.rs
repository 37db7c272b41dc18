//! A game compiled once into flat arrays, for the tabular solvers.
//!
//! Nodes are numbered so that the children of a node are contiguous and all
//! descendants of node `v` are exactly the range `first_child(v)..subtree_end(v)`:
//! a node's block of children is allocated when the depth-first walk reaches it.
//! Every index is larger than its parent's, so one forward sweep sees parents
//! first and a backward sweep sees children first.
//!
//! Size: 15 bytes per history (kind 1, child count 2, first child 4, payload 4,
//! pair index 4), 8 per chance outcome and per terminal (utility), and 4 per
//! decision node (the list of histories of each information state); a running
//! CFR solver adds 8 per (decision history, action) pair; the memory guard
//! ([`MemoryLimit`]) bounds what [`GameTree::build`] accepts.

use darkhex_games::analysis::{
    InfosetTable, NodeView, RecallViolation, TreeVisitor, WalkError, WalkOptions, walk,
};
use darkhex_games::{Game, NUM_PLAYERS, State, Turn};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::bytes::readable_bytes;
use crate::memory::MemoryLimit;

pub const CHANCE: u8 = 2;
pub const TERMINAL: u8 = 3;

/// Bytes per history of a compiled tree and a CFR solver over it, used to
/// refuse games that would not fit.
pub const BYTES_PER_HISTORY: u64 = 15 + 4 + 8 + 8;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum TreeError {
    #[error(
        "{game} has about {histories:.3e} histories ({how}): compiling them would need about {}, more than {}",
        readable_bytes(*.bytes),
        .limit.describe()
    )]
    TooLarge {
        game: String,
        histories: f64,
        how: &'static str,
        bytes: f64,
        limit: MemoryLimit,
    },
}

/// Limits and progress for [`GameTree::build`].
pub struct CompileOptions<'a> {
    pub limit: MemoryLimit,
    /// Called with the number of histories compiled so far.
    pub progress: Option<&'a (dyn Fn(u64) + Sync)>,
}

impl Default for CompileOptions<'_> {
    fn default() -> Self {
        CompileOptions {
            limit: MemoryLimit::new(None),
            progress: None,
        }
    }
}

/// A compiled game tree.
#[derive(Clone, Debug)]
pub struct GameTree {
    game: String,
    /// Player 0 or 1, [`CHANCE`] or [`TERMINAL`].
    kind: Vec<u8>,
    count: Vec<u16>,
    first_child: Vec<u32>,
    /// Decision node: infoset id. Chance node: offset into `chance_probs`.
    /// Terminal: index into `utilities`.
    payload: Vec<u32>,
    chance_probs: Vec<f64>,
    /// Player 0's utility at each terminal (the games are zero-sum).
    utilities: Vec<f64>,
    infosets: [InfosetTable; NUM_PLAYERS],
    /// Decision nodes of infoset `i` of player p:
    /// `infoset_nodes[p][infoset_node_start[p][i]..infoset_node_start[p][i + 1]]`.
    infoset_node_start: [Vec<u32>; NUM_PLAYERS],
    infoset_nodes: [Vec<u32>; NUM_PLAYERS],
    /// Each decision node's position in `infoset_nodes` of its player.
    /// Player p's (history, action) pairs follow the same order: grouped by
    /// infoset, then by history in depth-first order, so that solvers write
    /// per-history quantities there and sum them per infoset in one sweep.
    history_index: Vec<u32>,
    /// Pairs of infoset `i` of player p: `pair_base[p][i]..pair_base[p][i + 1]`.
    pair_base: [Vec<u32>; NUM_PLAYERS],
    max_depth: usize,
    recall_violation: Option<RecallViolation>,
    utility_range: (f64, f64),
}

/// Knuth's estimate of the number of histories: the mean, over random root-to-leaf
/// paths, of the sum of products of branching factors along the path.
pub fn estimate_histories<G: Game>(game: &G, probes: usize, seed: u64) -> f64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut total = 0.0;
    for _ in 0..probes {
        total += knuth_probe(game, &mut rng, |_| true);
    }
    total / probes as f64
}

/// One probe of Knuth's estimator: a uniformly random root-to-leaf path,
/// and the sum over its nodes of the product of the branching factors of
/// the nodes above where `branches(turn)` says the tree branches fully
/// (elsewhere it follows one child).
pub(crate) fn knuth_probe<G: Game>(
    game: &G,
    rng: &mut impl Rng,
    branches: impl Fn(Turn) -> bool,
) -> f64 {
    let mut state = game.new_initial_state();
    let mut legal = Vec::new();
    let (mut width, mut sum) = (1.0, 1.0);
    loop {
        let turn = state.current_player();
        match turn {
            Turn::Terminal => break,
            Turn::Chance => {
                let outcomes = state.chance_outcomes();
                if branches(turn) {
                    width *= outcomes.len() as f64;
                }
                state.apply(outcomes[rng.random_range(0..outcomes.len())].0);
            }
            Turn::Player(_) => {
                state.legal_actions_into(&mut legal);
                if branches(turn) {
                    width *= legal.len() as f64;
                }
                state.apply(legal[rng.random_range(0..legal.len())]);
            }
        }
        sum += width;
    }
    sum
}

struct Builder {
    kind: Vec<u8>,
    count: Vec<u16>,
    first_child: Vec<u32>,
    payload: Vec<u32>,
    chance_probs: Vec<f64>,
    utilities: Vec<f64>,
    /// Each player's decision nodes in the order the walk met them.
    decision_order: [Vec<u32>; NUM_PLAYERS],
}

impl Builder {
    fn allocate(&mut self, n: usize) -> u32 {
        let start = self.kind.len() as u32;
        let len = self.kind.len() + n;
        self.kind.resize(len, TERMINAL);
        self.count.resize(len, 0);
        self.first_child.resize(len, 0);
        self.payload.resize(len, 0);
        start
    }
}

impl<S: State> TreeVisitor<S> for Builder {
    type Node = u32;

    fn visit(&mut self, node: &NodeView<S>, parent: Option<(u32, usize)>) -> u32 {
        let i = match parent {
            None => self.allocate(1),
            Some((p, k)) => self.first_child[p as usize] + k as u32,
        } as usize;
        let n = node.actions.len();
        self.count[i] = n as u16;
        if n > 0 {
            self.first_child[i] = self.allocate(n);
        }
        match node.turn {
            Turn::Terminal => {
                self.kind[i] = TERMINAL;
                self.payload[i] = self.utilities.len() as u32;
                self.utilities.push(node.state.returns()[0]);
            }
            Turn::Chance => {
                self.kind[i] = CHANCE;
                self.payload[i] = self.chance_probs.len() as u32;
                self.chance_probs.extend_from_slice(node.chance_probs);
            }
            Turn::Player(p) => {
                self.kind[i] = p as u8;
                self.payload[i] = node.infoset;
                self.decision_order[p].push(i as u32);
            }
        }
        i as u32
    }
}

impl GameTree {
    /// Compiles `game`, refusing it when the estimated or actual size exceeds
    /// `options.limit`.
    pub fn build<G: Game>(game: &G, options: &CompileOptions) -> Result<GameTree, TreeError> {
        let name = game.game_string();
        let too_large = |histories: f64, how| TreeError::TooLarge {
            game: name.clone(),
            histories,
            how,
            bytes: histories * BYTES_PER_HISTORY as f64,
            limit: options.limit,
        };
        let max_histories = options.limit.bytes() / BYTES_PER_HISTORY;
        let estimate = estimate_histories(game, 256, 0);
        if estimate > 4.0 * max_histories as f64 {
            return Err(too_large(estimate, "estimated by random probes"));
        }
        let mut builder = Builder {
            kind: Vec::new(),
            count: Vec::new(),
            first_child: Vec::new(),
            payload: Vec::new(),
            chance_probs: Vec::new(),
            utilities: Vec::new(),
            decision_order: Default::default(),
        };
        let walk_options = WalkOptions {
            max_histories,
            progress: options.progress,
        };
        let summary = walk(game, &walk_options, &mut builder).map_err(|e| match e {
            WalkError::TooLarge { limit } => too_large(limit as f64, "at least"),
        })?;
        let Builder {
            kind,
            count,
            first_child,
            payload,
            chance_probs,
            utilities,
            decision_order,
        } = builder;
        let mut tree = GameTree {
            game: name,
            kind,
            count,
            first_child,
            payload,
            chance_probs,
            utilities,
            infosets: summary.infosets,
            infoset_node_start: Default::default(),
            infoset_nodes: Default::default(),
            history_index: Vec::new(),
            pair_base: Default::default(),
            max_depth: summary.max_depth,
            recall_violation: summary.recall_violation,
            utility_range: (game.min_utility(), game.max_utility()),
        };
        for (p, order) in decision_order.iter().enumerate() {
            let (start, nodes) = tree.group_by_infoset(p, order);
            tree.infoset_node_start[p] = start;
            tree.infoset_nodes[p] = nodes;
        }
        tree.number_pairs();
        Ok(tree)
    }

    /// Stable counting sort of player `p`'s decision nodes (given in walk
    /// order) by infoset: within an infoset, histories keep depth-first order,
    /// the order in which OpenSpiel's solvers add up their regrets.
    fn group_by_infoset(&self, p: usize, order: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let n = self.infosets[p].len();
        let mut start = vec![0u32; n + 1];
        for &i in order {
            start[self.payload[i as usize] as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut nodes = vec![0u32; start[n] as usize];
        for &i in order {
            let s = &mut fill[self.payload[i as usize] as usize];
            nodes[*s as usize] = i;
            *s += 1;
        }
        (start, nodes)
    }

    fn number_pairs(&mut self) {
        self.history_index = vec![0; self.num_nodes()];
        for p in 0..NUM_PLAYERS {
            for (h, &node) in self.infoset_nodes[p].iter().enumerate() {
                self.history_index[node as usize] = h as u32;
            }
            let table = &self.infosets[p];
            let mut base = Vec::with_capacity(table.len() + 1);
            let mut next = 0u32;
            for i in 0..table.len() {
                base.push(next);
                let s = &self.infoset_node_start[p];
                next += (s[i + 1] - s[i]) * table.slots(i).len() as u32;
            }
            base.push(next);
            self.pair_base[p] = base;
        }
    }

    pub fn game(&self) -> &str {
        &self.game
    }

    pub fn num_nodes(&self) -> usize {
        self.kind.len()
    }

    pub fn num_terminals(&self) -> usize {
        self.utilities.len()
    }

    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    pub fn infosets(&self, player: usize) -> &InfosetTable {
        &self.infosets[player]
    }

    pub fn recall_violation(&self) -> Option<&RecallViolation> {
        self.recall_violation.as_ref()
    }

    /// (min, max) utility of the game.
    pub fn utility_range(&self) -> (f64, f64) {
        self.utility_range
    }

    /// Bytes held by the tree's arrays.
    pub fn memory_bytes(&self) -> usize {
        let n = self.num_nodes();
        let infosets: usize = self
            .infosets
            .iter()
            .map(|t| {
                t.keys.iter().map(|k| k.len() * 2 + 16).sum::<usize>()
                    + t.actions.len() * 2
                    + t.len() * 8
            })
            .sum();
        n * 11
            + self.chance_probs.len() * 8
            + self.utilities.len() * 8
            + self
                .infoset_nodes
                .iter()
                .map(|v| v.len() * 4)
                .sum::<usize>()
            + n * 4
            + infosets
    }

    #[inline]
    pub fn kind(&self, node: usize) -> u8 {
        self.kind[node]
    }

    #[inline]
    pub fn children(&self, node: usize) -> std::ops::Range<usize> {
        let fc = self.first_child[node] as usize;
        fc..fc + self.count[node] as usize
    }

    /// The infoset of a decision node.
    #[inline]
    pub fn infoset(&self, node: usize) -> usize {
        self.payload[node] as usize
    }

    /// Outcome probabilities of a chance node, in child order.
    #[inline]
    pub fn chance_probs(&self, node: usize) -> &[f64] {
        let start = self.payload[node] as usize;
        &self.chance_probs[start..start + self.count[node] as usize]
    }

    /// Player 0's utility at a terminal node.
    #[inline]
    pub fn utility(&self, node: usize) -> f64 {
        self.utilities[self.payload[node] as usize]
    }

    /// The decision nodes of one infoset, in depth-first order.
    pub fn infoset_nodes(&self, player: usize, infoset: usize) -> &[u32] {
        let s = &self.infoset_node_start[player];
        &self.infoset_nodes[player][s[infoset] as usize..s[infoset + 1] as usize]
    }

    /// Position of a decision node among its player's histories, grouped by
    /// infoset (see [`GameTree::infoset_histories`]).
    #[inline]
    pub fn history_index(&self, node: usize) -> usize {
        self.history_index[node] as usize
    }

    /// The positions of an infoset's histories (indices into the player's
    /// histories grouped by infoset).
    #[inline]
    pub fn infoset_histories(&self, player: usize, infoset: usize) -> std::ops::Range<usize> {
        let s = &self.infoset_node_start[player];
        s[infoset] as usize..s[infoset + 1] as usize
    }

    /// Number of decision nodes of a player.
    pub fn num_histories(&self, player: usize) -> usize {
        self.infoset_nodes[player].len()
    }

    /// First (history, action) pair of a decision node; its actions follow.
    #[inline]
    pub fn pair_start(&self, node: usize) -> usize {
        let p = self.kind[node] as usize;
        let i = self.payload[node] as usize;
        let first_history = self.infoset_node_start[p][i];
        let n = self.infosets[p].action_start[i + 1] - self.infosets[p].action_start[i];
        (self.pair_base[p][i] + (self.history_index[node] - first_history) * n) as usize
    }

    /// The (history, action) pairs of one infoset: `len / actions` histories.
    pub fn infoset_pairs(&self, player: usize, infoset: usize) -> std::ops::Range<usize> {
        self.pair_base[player][infoset] as usize..self.pair_base[player][infoset + 1] as usize
    }

    pub fn num_pairs(&self, player: usize) -> usize {
        self.pair_base[player].last().map_or(0, |&n| n as usize)
    }

    /// One past the last descendant of `node`: its descendants are
    /// `first_child(node)..subtree_end(node)`. The last block allocated under
    /// a node belongs to its last child that has children, recursively.
    pub fn subtree_end(&self, mut node: usize) -> usize {
        loop {
            let c = self.children(node);
            if c.is_empty() {
                return node + 1;
            }
            match c.clone().rev().find(|&k| self.count[k] > 0) {
                Some(k) => node = k,
                None => return c.end,
            }
        }
    }
}
