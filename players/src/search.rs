//! Monte Carlo tree search with UCB over a tree of actions, shared by MCTS
//! (one known root state) and single-observer information-set MCTS (a root
//! state sampled anew for every simulation: Cowling, Powley and Whitehouse
//! 2012). Children are scored with their availability counts (how often
//! their action was legal when the parent was visited), which equal the
//! parent's visits when the root is known.

use darkhex_games::{Action, State, Turn};
use rand::Rng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use crate::referee::sample_chance;
use crate::rollout::random_playout;

#[derive(Clone, Copy, Debug)]
pub struct SearchConfig {
    pub simulations: u32,
    /// UCB exploration constant; rewards are in [0, 1].
    pub exploration: f64,
}

struct Node {
    action: Action,
    /// Who played `action` (rewards are theirs).
    mover: u8,
    visits: u32,
    available: u32,
    reward: f64,
    children: Vec<u32>,
}

/// Runs the search and returns the most visited of `root_legal`. `root`
/// gives the state a simulation starts from (`None`: skip this one).
pub fn search<S: State>(
    config: SearchConfig,
    root_legal: &[Action],
    mut root: impl FnMut(&mut ChaCha8Rng) -> Option<S>,
    rng: &mut ChaCha8Rng,
) -> Action {
    let mut nodes = vec![Node {
        action: 0,
        mover: 0,
        visits: 0,
        available: 0,
        reward: 0.0,
        children: Vec::new(),
    }];
    let mut legal = Vec::new();
    let mut untried = Vec::new();
    let mut buf = Vec::new();
    let mut path = Vec::new();
    for _ in 0..config.simulations {
        let Some(mut state) = root(rng) else {
            continue;
        };
        path.clear();
        path.push(0usize);
        let mut node = 0usize;
        loop {
            let mover = match state.current_player() {
                Turn::Terminal => break,
                Turn::Chance => {
                    let a = sample_chance(&state, rng);
                    state.apply(a);
                    continue;
                }
                Turn::Player(p) => p,
            };
            state.legal_actions_into(&mut legal);
            untried.clear();
            untried.extend_from_slice(&legal);
            for k in 0..nodes[node].children.len() {
                let c = nodes[node].children[k];
                if let Some(i) = untried.iter().position(|&a| a == nodes[c as usize].action) {
                    untried.swap_remove(i);
                    nodes[c as usize].available += 1;
                }
            }
            if let Some(&a) = untried.choose(rng) {
                let child = nodes.len();
                nodes.push(Node {
                    action: a,
                    mover: mover as u8,
                    visits: 0,
                    available: 1,
                    reward: 0.0,
                    children: Vec::new(),
                });
                nodes[node].children.push(child as u32);
                state.apply(a);
                path.push(child);
                break;
            }
            let best = nodes[node]
                .children
                .iter()
                .map(|&c| c as usize)
                .filter(|&c| legal.contains(&nodes[c].action))
                .max_by(|&a, &b| {
                    ucb(&nodes[a], config.exploration)
                        .total_cmp(&ucb(&nodes[b], config.exploration))
                })
                .expect("a node with no untried action has a legal child");
            state.apply(nodes[best].action);
            path.push(best);
            node = best;
        }
        let returns = random_playout(&mut state, rng, &mut buf);
        for &n in &path {
            let node = &mut nodes[n];
            node.visits += 1;
            node.reward += (returns[node.mover as usize] + 1.0) / 2.0;
        }
    }
    nodes[0]
        .children
        .iter()
        .map(|&c| &nodes[c as usize])
        .filter(|n| root_legal.contains(&n.action))
        .max_by_key(|n| n.visits)
        .map(|n| n.action)
        .unwrap_or_else(|| root_legal[rng.random_range(0..root_legal.len())])
}

fn ucb(n: &Node, c: f64) -> f64 {
    let visits = n.visits.max(1) as f64;
    n.reward / visits + c * ((n.available.max(1) as f64).ln() / visits).sqrt()
}
