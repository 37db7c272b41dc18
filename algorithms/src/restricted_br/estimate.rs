//! What a restricted best response will cost, estimated before it starts
//! by Knuth's method on the walk itself: random paths down the
//! responder's information states, each node expanded exactly as the walk
//! expands it, its histories weighted by the product of the branching
//! factors above. The mean over paths is unbiased. The probes also time
//! the expansions, which gives the time per history.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use darkhex_games::{Game, State};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::RestrictedBrError;
use super::fixed::FixedPolicy;
use super::walk::{Missing, Walker, Work};

/// The estimated size of a restricted best response.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestrictedEstimate {
    /// Histories the walk will visit.
    pub histories: f64,
    /// The responder's information states it will value.
    pub info_states: f64,
    /// The random paths drawn.
    pub paths: usize,
    /// Seconds a history took in the probes, on one thread.
    pub seconds_per_history: f64,
    /// The most bytes of beliefs a path held (one thread's walk holds
    /// about this much).
    pub path_bytes: f64,
}

impl RestrictedEstimate {
    /// Seconds on `threads` threads, were the work spread evenly.
    pub fn seconds(&self, threads: usize) -> f64 {
        self.histories * self.seconds_per_history / threads.max(1) as f64
    }

    /// "about 3.1e9 histories (Knuth's estimate from 200 random paths)".
    pub fn text(&self) -> String {
        format!(
            "about {:.1e} histories and {:.1e} information states of the responder (Knuth's estimate from {} random paths)",
            self.histories, self.info_states, self.paths
        )
    }
}

/// Estimates the best response of `responder` against `policy` from at
/// least `min_paths` and at most `max_paths` random paths, drawing no more
/// after `time`.
#[allow(clippy::too_many_arguments)]
pub fn estimate<G: Game>(
    game: &G,
    policy: &dyn FixedPolicy,
    responder: usize,
    missing: Missing,
    min_paths: usize,
    max_paths: usize,
    time: Duration,
    seed: u64,
) -> Result<RestrictedEstimate, RestrictedBrError> {
    let stop = AtomicBool::new(false);
    let walker = Walker::new(game, policy, Some(responder), missing, false, &stop);
    let start = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut root_work = Work::default();
    let root = walker.root(&mut root_work)?;
    let state_bytes = size_of::<G::State>() as f64 + 8.0;
    let (mut histories, mut info_states, mut path_bytes) = (0.0, 0.0, 0.0f64);
    let mut visited = root_work.histories;
    let mut paths = 0;
    while paths < max_paths.max(1) && (paths < min_paths || start.elapsed() < time) {
        paths += 1;
        if root.groups.is_empty() {
            continue;
        }
        let g = root.groups[rng.random_range(0..root.groups.len())].clone();
        let mut belief = root.histories[g].to_vec();
        let mut weight = root.groups.len() as f64;
        let mut held = 0.0;
        loop {
            info_states += weight;
            held += belief.len() as f64 * state_bytes;
            path_bytes = path_bytes.max(held);
            let mut work = Work::default();
            let mut nexts = Vec::new();
            for a in belief[0].0.legal_actions() {
                nexts.push(walker.successors(&belief, a, &mut work)?);
            }
            visited += work.histories;
            histories += weight * work.histories as f64;
            let children: usize = nexts.iter().map(|n| n.groups.len()).sum();
            if children == 0 {
                break;
            }
            let mut pick = rng.random_range(0..children);
            let next = nexts
                .iter()
                .find(|n| {
                    if pick < n.groups.len() {
                        true
                    } else {
                        pick -= n.groups.len();
                        false
                    }
                })
                .expect("the pick is below the children's count");
            belief = next.histories[next.groups[pick].clone()].to_vec();
            weight *= children as f64;
        }
    }
    let n = paths as f64;
    Ok(RestrictedEstimate {
        histories: root_work.histories as f64 + histories / n,
        info_states: info_states / n,
        paths,
        seconds_per_history: start.elapsed().as_secs_f64() / visited.max(1) as f64,
        path_bytes,
    })
}
