//! Exact best response, exploitability and expected values of a tabular
//! policy profile on a compiled tree.
//!
//! A best response is computed on the responder's sequence tree, which perfect
//! recall makes a tree: one sweep of the game tree adds each terminal's
//! utility, weighted by the opponent's and chance's reach, to the responder's
//! sequence leading to it; then infosets, taken from the last numbered to the
//! first (children before parents), pick their best action and pass its value
//! up to their parent sequence.

use darkhex_games::NUM_PLAYERS;
use serde::{Deserialize, Serialize};

use crate::policy::TreePolicy;
use crate::tree::{CHANCE, GameTree, TERMINAL};

#[derive(Clone, Debug, PartialEq)]
pub struct BestResponse {
    /// The responder's expected utility when best responding.
    pub value: f64,
    /// Index (into the infoset's actions) of the best action at each of the
    /// responder's infosets; ties go to the first action.
    pub actions: Vec<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exploitability {
    /// NashConv / 2: the mean gain of the two best responses.
    pub exploitability: f64,
    pub nash_conv: f64,
    /// Player 0's expected utility when both follow the profile.
    pub value_p0: f64,
    /// Each player's best-response value against the other's policy.
    pub best_response_values: [f64; NUM_PLAYERS],
}

fn sign(player: usize) -> f64 {
    if player == 0 { 1.0 } else { -1.0 }
}

/// Adds reach-weighted terminal utilities to the responder's sequences.
fn accumulate(
    tree: &GameTree,
    policy: &TreePolicy,
    responder: usize,
    node: usize,
    reach: f64,
    seq: usize,
    totals: &mut [f64],
) {
    match tree.kind(node) {
        TERMINAL => totals[seq] += reach * sign(responder) * tree.utility(node),
        CHANCE => {
            for (c, &p) in tree.children(node).zip(tree.chance_probs(node)) {
                accumulate(tree, policy, responder, c, reach * p, seq, totals);
            }
        }
        mover => {
            let mover = mover as usize;
            let slots = tree.infosets(mover).slots(tree.infoset(node));
            for (c, slot) in tree.children(node).zip(slots) {
                if mover == responder {
                    accumulate(tree, policy, responder, c, reach, slot + 1, totals);
                } else {
                    let p = policy.probs[mover][slot];
                    if p > 0.0 {
                        accumulate(tree, policy, responder, c, reach * p, seq, totals);
                    }
                }
            }
        }
    }
}

pub fn best_response(tree: &GameTree, policy: &TreePolicy, responder: usize) -> BestResponse {
    let (value, actions, _) = sweep(tree, policy, responder);
    BestResponse { value, actions }
}

/// The best response's value and choice at each of the responder's
/// infosets, and the reach-weighted value of each slot: taking its action,
/// then best responding.
fn sweep(tree: &GameTree, policy: &TreePolicy, responder: usize) -> (f64, Vec<u32>, Vec<f64>) {
    let table = tree.infosets(responder);
    let mut totals = vec![0.0; table.num_slots() + 1];
    if tree.num_nodes() > 0 {
        accumulate(tree, policy, responder, 0, 1.0, 0, &mut totals);
    }
    let mut actions = vec![0u32; table.len()];
    // Infosets after `i` in the numbering are its descendants, so a slot's
    // total is complete when its infoset comes up, and stays so.
    for i in (0..table.len()).rev() {
        let slots = table.slots(i);
        let start = slots.start;
        let (mut best, mut best_k) = (f64::NEG_INFINITY, 0);
        for (k, slot) in slots.enumerate() {
            if totals[slot + 1] > best {
                best = totals[slot + 1];
                best_k = k;
            }
        }
        debug_assert!(start + best_k < table.num_slots());
        actions[i] = best_k as u32;
        totals[table.parent[i] as usize] += best;
    }
    (totals[0], actions, totals)
}

/// What a best responder in one seat earns at each of its infosets
/// against the other seat's policy: the counterfactual values of the best
/// response (Zinkevich et al. 2007), divided by the probability that
/// chance and the opponent bring play to the infoset, so that each is an
/// expected utility given the infoset is reached.
#[derive(Clone, Debug, PartialEq)]
pub struct ResponseValues {
    /// The responder's best-response value from the start.
    pub value: f64,
    /// Per infoset: the probability that chance and the opponent play to
    /// it (summed over its histories); 0 where the opponent never goes.
    pub reach: Vec<f64>,
    /// Per slot: the expected utility of taking the slot's action at its
    /// infoset and best responding after, given the infoset is reached
    /// (`NaN` where the reach is 0).
    pub action_values: Vec<f64>,
}

impl ResponseValues {
    /// The best response's value at `infoset`: its best action's.
    pub fn infoset_value(&self, tree: &GameTree, responder: usize, infoset: usize) -> f64 {
        tree.infosets(responder)
            .slots(infoset)
            .map(|s| self.action_values[s])
            .fold(f64::NEG_INFINITY, f64::max)
    }
}

pub fn response_values(tree: &GameTree, policy: &TreePolicy, responder: usize) -> ResponseValues {
    let (value, _, totals) = sweep(tree, policy, responder);
    let table = tree.infosets(responder);
    let mut reach = vec![0.0; table.len()];
    if tree.num_nodes() > 0 {
        add_reach(tree, policy, responder, 0, 1.0, &mut reach);
    }
    let action_values = (0..table.len())
        .flat_map(|i| table.slots(i).map(move |s| (i, s)))
        .map(|(i, s)| {
            if reach[i] > 0.0 {
                totals[s + 1] / reach[i]
            } else {
                f64::NAN
            }
        })
        .collect();
    ResponseValues {
        value,
        reach,
        action_values,
    }
}

/// Adds to each of the responder's infosets the chance and opponent
/// reach of its histories.
fn add_reach(
    tree: &GameTree,
    policy: &TreePolicy,
    responder: usize,
    node: usize,
    reach: f64,
    out: &mut [f64],
) {
    match tree.kind(node) {
        TERMINAL => {}
        CHANCE => {
            for (c, &p) in tree.children(node).zip(tree.chance_probs(node)) {
                add_reach(tree, policy, responder, c, reach * p, out);
            }
        }
        mover => {
            let mover = mover as usize;
            let infoset = tree.infoset(node);
            if mover == responder {
                out[infoset] += reach;
            }
            let slots = tree.infosets(mover).slots(infoset);
            for (c, slot) in tree.children(node).zip(slots) {
                let p = if mover == responder {
                    1.0
                } else {
                    policy.probs[mover][slot]
                };
                if p > 0.0 {
                    add_reach(tree, policy, responder, c, reach * p, out);
                }
            }
        }
    }
}

fn expected(tree: &GameTree, policy: &TreePolicy, node: usize, reach: f64) -> f64 {
    match tree.kind(node) {
        TERMINAL => reach * tree.utility(node),
        CHANCE => tree
            .children(node)
            .zip(tree.chance_probs(node))
            .map(|(c, &p)| expected(tree, policy, c, reach * p))
            .sum(),
        mover => {
            let mover = mover as usize;
            let slots = tree.infosets(mover).slots(tree.infoset(node));
            tree.children(node)
                .zip(&policy.probs[mover][slots])
                .filter(|&(_, &p)| p > 0.0)
                .map(|(c, &p)| expected(tree, policy, c, reach * p))
                .sum()
        }
    }
}

/// Player 0's expected utility when both players follow `policy`.
pub fn expected_value(tree: &GameTree, policy: &TreePolicy) -> f64 {
    if tree.num_nodes() == 0 {
        return 0.0;
    }
    expected(tree, policy, 0, 1.0)
}

pub fn exploitability(tree: &GameTree, policy: &TreePolicy) -> Exploitability {
    let br = [
        best_response(tree, policy, 0).value,
        best_response(tree, policy, 1).value,
    ];
    let nash_conv = br[0] + br[1];
    Exploitability {
        exploitability: nash_conv / 2.0,
        nash_conv,
        value_p0: expected_value(tree, policy),
        best_response_values: br,
    }
}
