//! The buffers of DQN and NFSP: a circular replay buffer of transitions
//! (the newest `capacity` kept, as OpenSpiel's `ReplayBuffer`) and a
//! reservoir of supervised examples (a uniform sample of every example
//! ever offered, as its `ReservoirBuffer`, Vitter's algorithm R). Both
//! sample minibatches without replacement from a stream the caller owns,
//! and both are plain data, so a checkpoint holds them as they are.

use rand::Rng;
use serde::{Deserialize, Serialize};

/// One step of a learner: where it acted, what it did, what came of it.
pub struct Transition<'a> {
    pub observation: &'a [f32],
    pub action: usize,
    pub reward: f32,
    /// The learner's next observation (anything when `done`).
    pub next_observation: &'a [f32],
    /// Its legal actions there, as bits (anything when `done`).
    pub next_legal: &'a [u64],
    pub done: bool,
}

/// The newest `capacity` transitions, each row `width` floats.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplayBuffer {
    pub capacity: usize,
    pub width: usize,
    /// Words of a legal-action mask.
    pub words: usize,
    /// Transitions ever added: the next goes to `added % capacity`.
    pub added: u64,
    pub observations: Vec<f32>,
    pub actions: Vec<u32>,
    pub rewards: Vec<f32>,
    pub next_observations: Vec<f32>,
    pub next_legal: Vec<u64>,
    pub dones: Vec<bool>,
}

/// A minibatch of transitions, row by row.
#[derive(Default)]
pub struct Batch {
    pub observations: Vec<f32>,
    pub actions: Vec<u32>,
    pub rewards: Vec<f32>,
    pub next_observations: Vec<f32>,
    pub next_legal: Vec<u64>,
    pub dones: Vec<bool>,
}

impl ReplayBuffer {
    pub fn new(capacity: usize, width: usize, actions: usize) -> ReplayBuffer {
        ReplayBuffer {
            capacity: capacity.max(1),
            width,
            words: actions.div_ceil(64),
            ..ReplayBuffer::default()
        }
    }

    /// Bytes a buffer of `capacity` rows takes when full.
    pub fn bytes(capacity: usize, width: usize, actions: usize) -> f64 {
        capacity as f64 * (8.0 * width as f64 + 8.0 * actions.div_ceil(64) as f64 + 9.0)
    }

    pub fn len(&self) -> usize {
        self.actions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    pub fn add(&mut self, t: &Transition) {
        let (w, k) = (self.width, self.words);
        let mut legal = vec![0u64; k];
        if !t.done {
            legal.copy_from_slice(&t.next_legal[..k]);
        }
        let zeros = vec![0.0f32; w];
        let next = if t.done {
            &zeros[..]
        } else {
            &t.next_observation[..w]
        };
        if self.len() < self.capacity {
            self.observations.extend_from_slice(&t.observation[..w]);
            self.actions.push(t.action as u32);
            self.rewards.push(t.reward);
            self.next_observations.extend_from_slice(next);
            self.next_legal.extend_from_slice(&legal);
            self.dones.push(t.done);
        } else {
            let i = (self.added % self.capacity as u64) as usize;
            self.observations[i * w..][..w].copy_from_slice(&t.observation[..w]);
            self.actions[i] = t.action as u32;
            self.rewards[i] = t.reward;
            self.next_observations[i * w..][..w].copy_from_slice(next);
            self.next_legal[i * k..][..k].copy_from_slice(&legal);
            self.dones[i] = t.done;
        }
        self.added += 1;
    }

    /// `n` distinct transitions drawn uniformly (all of them, shuffled,
    /// when there are fewer).
    pub fn sample(&self, n: usize, rng: &mut impl Rng) -> Batch {
        let (w, k) = (self.width, self.words);
        let picks = rand::seq::index::sample(rng, self.len(), n.min(self.len()));
        let mut b = Batch::default();
        for i in picks {
            b.observations
                .extend_from_slice(&self.observations[i * w..][..w]);
            b.actions.push(self.actions[i]);
            b.rewards.push(self.rewards[i]);
            b.next_observations
                .extend_from_slice(&self.next_observations[i * w..][..w]);
            b.next_legal
                .extend_from_slice(&self.next_legal[i * k..][..k]);
            b.dones.push(self.dones[i]);
        }
        b
    }
}

/// A uniform sample of at most `capacity` of the examples ever offered:
/// an observation and the distribution to learn there, each `width` and
/// `actions` floats.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Reservoir {
    pub capacity: usize,
    pub width: usize,
    pub actions: usize,
    /// Examples ever offered.
    pub offered: u64,
    pub observations: Vec<f32>,
    pub targets: Vec<f32>,
}

impl Reservoir {
    pub fn new(capacity: usize, width: usize, actions: usize) -> Reservoir {
        Reservoir {
            capacity: capacity.max(1),
            width,
            actions,
            ..Reservoir::default()
        }
    }

    /// Bytes a reservoir of `capacity` examples takes when full.
    pub fn bytes(capacity: usize, width: usize, actions: usize) -> f64 {
        capacity as f64 * 4.0 * (width + actions) as f64
    }

    pub fn len(&self) -> usize {
        self.observations.len() / self.width.max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.observations.is_empty()
    }

    /// Offers an example: kept while there is room, then in place of a
    /// uniformly drawn one with probability capacity / offered.
    pub fn add(&mut self, observation: &[f32], target: &[f32], rng: &mut impl Rng) {
        let (w, a) = (self.width, self.actions);
        if self.len() < self.capacity {
            self.observations.extend_from_slice(&observation[..w]);
            self.targets.extend_from_slice(&target[..a]);
        } else {
            let i = rng.random_range(0..=self.offered) as usize;
            if i < self.capacity {
                self.observations[i * w..][..w].copy_from_slice(&observation[..w]);
                self.targets[i * a..][..a].copy_from_slice(&target[..a]);
            }
        }
        self.offered += 1;
    }

    /// `n` distinct examples drawn uniformly: observations and targets.
    pub fn sample(&self, n: usize, rng: &mut impl Rng) -> (Vec<f32>, Vec<f32>) {
        let (w, a) = (self.width, self.actions);
        let picks = rand::seq::index::sample(rng, self.len(), n.min(self.len()));
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for i in picks {
            x.extend_from_slice(&self.observations[i * w..][..w]);
            y.extend_from_slice(&self.targets[i * a..][..a]);
        }
        (x, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn transition(x: f32, done: bool) -> (Vec<f32>, Vec<u64>, bool) {
        (vec![x, -x], vec![0b11], done)
    }

    #[test]
    fn the_replay_buffer_keeps_the_newest_transitions() {
        let mut b = ReplayBuffer::new(3, 2, 2);
        for k in 0..5 {
            let (obs, legal, done) = transition(k as f32, k == 4);
            b.add(&Transition {
                observation: &obs,
                action: k % 2,
                reward: k as f32,
                next_observation: &obs,
                next_legal: &legal,
                done,
            });
        }
        assert_eq!(b.len(), 3);
        // Rows 0 and 1 were overwritten by transitions 3 and 4.
        assert_eq!(b.rewards, [3.0, 4.0, 2.0]);
        assert_eq!(b.observations, [3.0, -3.0, 4.0, -4.0, 2.0, -2.0]);
        // A final transition keeps no next observation or legal actions.
        assert_eq!(&b.next_observations[2..4], [0.0, 0.0]);
        assert_eq!(b.next_legal, [0b11, 0, 0b11]);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let s = b.sample(3, &mut rng);
        let mut rewards = s.rewards.clone();
        rewards.sort_by(f32::total_cmp);
        assert_eq!(rewards, [2.0, 3.0, 4.0], "distinct rows");
    }

    #[test]
    fn the_reservoir_is_a_uniform_sample_of_everything_offered() {
        // Each of 10 examples should stay with probability 4/10.
        let mut kept = [0u32; 10];
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let runs = 20_000;
        for _ in 0..runs {
            let mut r = Reservoir::new(4, 1, 1);
            for k in 0..10 {
                r.add(&[k as f32], &[1.0], &mut rng);
            }
            assert_eq!(r.len(), 4);
            for &x in &r.observations {
                kept[x as usize] += 1;
            }
        }
        for (k, &n) in kept.iter().enumerate() {
            let share = f64::from(n) / f64::from(runs);
            assert!((share - 0.4).abs() < 0.015, "example {k} kept {share}");
        }
    }
}
