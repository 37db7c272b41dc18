//! Outcome-sampling Monte Carlo CFR on Dark Hex and Dark Rex boards no
//! table holds, with information-state keys packed into one `u128` and
//! tables that grow with the states met ([`super::compact_table`]), under
//! any [`Abstraction`].
//!
//! Keys, for a board of `cells` cells (at most
//! [`crate::stream::dark_hex::MAX_CELLS`], so every layout fits):
//! - the order of one's attempts (`perfect-recall` with `reveal-nothing`
//!   and no disclosure, where it is the whole information state, and
//!   `attempts`): one entry `2 * cell + collided + 1` per attempt, of
//!   `bits(2 * cells)` bits, the latest attempt lowest (20 cells: 120 bits);
//! - `view`: the player's stones in bits `0..cells`, the opponent stones
//!   they discovered in bits `cells..2 * cells`.
//!
//! Perfect recall with turn counts or a disclosure would add the
//! opponent's observations, up to `2 * cells - 1` of them: that does not
//! fit, and those variants train under `attempts` or `view` here (or
//! keyed on tokens, [`super::mccfr`]).
//!
//! Under the rotation, a key and its turned twin share the entry of the
//! smaller packed value; the twin's actions are the entry's in reverse
//! order (the rotation reverses the order of cells).
//!
//! The walk, its random draws and its floating-point operations are
//! [`super::mccfr`]'s outcome sampling, and so is the batch structure
//! when a batch gives each worker
//! [`super::mccfr::ITERATIONS_PER_WORKER`] iterations: then
//! under `perfect-recall` both give the same policy, bit for bit, for a
//! seed and worker count (tested). By default a worker runs
//! [`CompactState::ITERATIONS_PER_WORKER`] iterations a batch instead: the
//! threads then meet 8 times less often (with 8, a quarter of the time on
//! 4x3 went to putting them to sleep and waking them), and the regrets a
//! walk reads are at most that many iterations old. Unlike the keyed tables, an opponent's state is
//! stored only once its owner updates it: a state never updated plays
//! uniformly either way.

use darkhex_games::abstraction::{Abstraction, Recall, key_actions};
use darkhex_games::dark_hex::{DarkHexGame, Disclosure, ObsType, token};
use darkhex_games::{Game, NUM_PLAYERS, Token};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::compact_table::{CompactTable, Key, hash};
use super::compact_updates::{NOT_FOUND, UpdateTable};
use super::mccfr::{IterationRng, in_batches, iteration_rng, sample_index, worker_share};
use super::pone_terminals::{Decided, Known, PoneTerminals, PoneTerminalsError};
use crate::policy::{normalise, regret_matching};
use crate::policy_file::{InfosetPolicy, PolicyFile, Provenance};
use crate::pone::knowledge::Knowledge;
use crate::stream::DarkHexStream;
use crate::stream::dark_hex::{MAX_CELLS, Played, RealBoard};

#[derive(Debug, Error, PartialEq)]
pub enum CompactError {
    #[error(
        "{game}: compact keys hold perfect recall only with obstype=reveal-nothing and disclosure=none (the opponent's observations do not fit 128 bits); train it under --abstraction attempts or view, or keyed on tokens without --abstraction"
    )]
    RecallDoesNotFit { game: String },
    #[error("{game} has {cells} cells; compact keys hold boards of at most {max}")]
    BoardTooLarge {
        game: String,
        cells: usize,
        max: usize,
    },
    #[error("the checkpoint's table for player {player} is damaged: {reason}")]
    Damaged { player: usize, reason: String },
    #[error(transparent)]
    Pone(#[from] PoneTerminalsError),
}

/// Everything needed to continue a run: what a checkpoint holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompactState {
    /// An [`Abstraction`] name.
    pub abstraction: String,
    pub exploration: f64,
    pub seed: u64,
    pub workers: usize,
    /// Each worker's iterations in a batch, on which results depend.
    pub iterations_per_worker: u64,
    pub iteration: u64,
    pub tables: [CompactTable; NUM_PLAYERS],
    /// Whether a history ends where PONE proves the player to move wins
    /// with probability one ([`super::pone_terminals`]).
    #[serde(default)]
    pub pone_terminals: bool,
    /// The decided states met, and how many sampled histories ended there.
    #[serde(default)]
    pub decided: Decided,
}

impl CompactState {
    /// Each worker's iterations in a batch unless set otherwise.
    pub const ITERATIONS_PER_WORKER: u64 = 64;

    pub fn new(abstraction: Abstraction, exploration: f64, seed: u64, workers: usize) -> Self {
        CompactState {
            abstraction: abstraction.name(),
            exploration,
            seed,
            workers: workers.max(1),
            iterations_per_worker: Self::ITERATIONS_PER_WORKER,
            iteration: 0,
            tables: Default::default(),
            pone_terminals: false,
            decided: Decided::default(),
        }
    }

    /// The same with PONE terminals on or off.
    pub fn with_pone_terminals(mut self, on: bool) -> Self {
        self.pone_terminals = on;
        self
    }

    /// The same with `n` iterations a worker a batch (at least 1):
    /// [`super::mccfr::ITERATIONS_PER_WORKER`] gives [`super::mccfr`]'s batches.
    pub fn with_iterations_per_worker(mut self, n: u64) -> Self {
        self.iterations_per_worker = n.max(1);
        self
    }

    /// Bytes the tables hold.
    pub fn memory_bytes(&self) -> usize {
        self.tables
            .iter()
            .map(CompactTable::memory_bytes)
            .sum::<usize>()
            + self.decided.memory_bytes()
    }
}

/// The policy file's parameter recording that PONE terminals were on (1).
pub const PONE_TERMINALS: &str = "pone_terminals";
/// The policy file's parameter counting the sampled histories that ended
/// at a PONE terminal.
pub const PONE_ENDS: &str = "pone_terminal_histories";

/// How keys are packed on one board.
#[derive(Clone, Copy, Debug)]
struct Packing {
    cells: u32,
    abstraction: Abstraction,
    /// Bits of one attempt's entry.
    width: u32,
}

impl Packing {
    fn new(cells: usize, abstraction: Abstraction) -> Self {
        Packing {
            cells: cells as u32,
            abstraction,
            width: (2 * cells as u32).ilog2() + 1,
        }
    }

    #[inline(always)]
    fn entry(&self, cell: u32, collided: bool) -> Key {
        Key::from(2 * cell + u32::from(collided) + 1)
    }

    /// A set of cells turned by 180 degrees.
    #[inline(always)]
    fn rotate(&self, set: u32) -> u32 {
        set.reverse_bits() >> (32 - self.cells)
    }

    /// `M`'s key at `node` (`attempts` holds each player's attempts packed
    /// as played and turned) in the stored orientation, and whether it
    /// was turned to get there.
    #[inline(always)]
    fn key<const M: usize>(&self, node: RealBoard, attempts: &Attempts) -> (Key, bool) {
        let (key, turned) = match self.abstraction.recall {
            Recall::Perfect | Recall::Attempts => (attempts.played[M], attempts.turned[M]),
            Recall::View => {
                let own = node.stones[M];
                let found = node.stones[1 - M] & node.revealed;
                let pack = |own: u32, found: u32| Key::from(own) | Key::from(found) << self.cells;
                (pack(own, found), pack(self.rotate(own), self.rotate(found)))
            }
        };
        if self.abstraction.rotate && turned < key {
            (turned, true)
        } else {
            (key, false)
        }
    }

    /// The game's tokens for a stored key (attempts in order, or the view's
    /// placed then collided cells).
    fn tokens(&self, key: Key) -> Vec<Token> {
        match self.abstraction.recall {
            Recall::Perfect | Recall::Attempts => {
                let used = Key::BITS - key.leading_zeros();
                let n = used.div_ceil(self.width);
                let mask = (1 << self.width) - 1;
                (0..n)
                    .rev()
                    .map(|j| {
                        let e = ((key >> (j * self.width)) & mask) as Token - 1;
                        let kind = if e & 1 == 1 {
                            token::COLLIDED
                        } else {
                            token::PLACED
                        };
                        kind | (e / 2)
                    })
                    .collect()
            }
            Recall::View => {
                let cells = self.cells as Token;
                let all = (1 << cells) - 1;
                let own = (key & all) as u32;
                let found = ((key >> cells) & all) as u32;
                let of = |set: u32, kind: Token| {
                    (0..cells)
                        .filter(move |&c| set >> c & 1 == 1)
                        .map(move |c| kind | c)
                };
                of(own, token::PLACED)
                    .chain(of(found, token::COLLIDED))
                    .collect()
            }
        }
    }

    /// How many actions a stored key has (the cells it does not name), or
    /// why it is no key of the board.
    fn actions(&self, key: Key) -> Result<usize, String> {
        let tokens = self.tokens(key);
        let mut seen = 0u64;
        for &t in &tokens {
            let cell = t & token::CELL_MASK;
            if u32::from(cell) >= self.cells || seen >> cell & 1 == 1 {
                return Err(format!("key {key:#x} is no information state of the board"));
            }
            seen |= 1 << cell;
        }
        match self.cells as usize - tokens.len() {
            0 => Err(format!("key {key:#x} leaves no legal action")),
            n => Ok(n),
        }
    }
}

/// Each player's attempts so far, packed as played and turned by 180
/// degrees (for the sequence keys).
#[derive(Clone, Copy, Debug, Default)]
struct Attempts {
    played: [Key; NUM_PLAYERS],
    turned: [Key; NUM_PLAYERS],
}

impl Attempts {
    #[inline(always)]
    fn after<const M: usize>(mut self, packing: &Packing, cell: u32, collided: bool) -> Self {
        let w = packing.width;
        self.played[M] = self.played[M] << w | packing.entry(cell, collided);
        self.turned[M] = self.turned[M] << w | packing.entry(packing.cells - 1 - cell, collided);
        self
    }
}

/// A node's key in its stored orientation and its hash.
struct Lookup {
    key: Key,
    turned: bool,
    hash: u64,
}

/// One worker's walks in a batch.
struct Walker<'a> {
    game: &'a DarkHexStream,
    packing: Packing,
    frozen: &'a [CompactTable; NUM_PLAYERS],
    updates: &'a mut [UpdateTable; NUM_PLAYERS],
    exploration: f64,
    pone: Option<&'a PoneTerminals>,
    /// The decided states met before the batch.
    decided: &'a Decided,
    /// The worker's: decided states first met in the batch, and its ends.
    met: &'a mut Decided,
}

impl Walker<'_> {
    fn iterate(&mut self, player: usize, rng: &mut IterationRng) {
        let root = RealBoard {
            stones: [0; NUM_PLAYERS],
            revealed: 0,
        };
        let reach = [1.0; 3];
        let known = [Knowledge::EMPTY; NUM_PLAYERS];
        let own = self.look::<0>(root, &Attempts::default());
        if player == 0 {
            self.walk::<0, 0>(root, Attempts::default(), known, reach, rng, own);
        } else {
            self.walk::<0, 1>(root, Attempts::default(), known, reach, rng, own);
        }
    }

    /// `M`'s key at `node`, its slot in the frozen table asked for: a
    /// walk waits on this cache miss at every node unless it is asked
    /// for early.
    #[inline(always)]
    fn look<const M: usize>(&self, node: RealBoard, attempts: &Attempts) -> Lookup {
        let (key, turned) = self.packing.key::<M>(node, attempts);
        let hash = hash(key);
        let width = self.game.legal::<M>(node).count_ones() as usize;
        self.frozen[M].prefetch(hash, width);
        Lookup { key, turned, hash }
    }

    /// The sampled trajectory from a node where `M` moves, for the
    /// updating player `P`; returns `P`'s value estimate. `reach` =
    /// [updating player's, opponent's and chance's, sampling's]; `known`
    /// is each player's knowledge, followed only with PONE terminals;
    /// `own` is `M`'s lookup here.
    fn walk<const M: usize, const P: usize>(
        &mut self,
        node: RealBoard,
        attempts: Attempts,
        known: Known,
        reach: [f64; 3],
        rng: &mut IterationRng,
        own: Lookup,
    ) -> f64 {
        let [mine, others, sample] = reach;
        let legal = self.game.legal::<M>(node);
        let n = legal.count_ones() as usize;
        let Lookup { key, turned, hash } = own;
        // `M`'s moves leave the opponent's key as it is (their stones,
        // what they found, their attempts), so the opponent's next slot is
        // asked for now, its miss waiting beside this node's work.
        let theirs = if M == 0 {
            self.look::<1>(node, &attempts)
        } else {
            self.look::<0>(node, &attempts)
        };
        if let Some(pone) = self.pone
            && pone.wins(M, &known)
        {
            self.met.ends += 1;
            if !self.decided.keys[M].contains(&key) {
                self.met.keys[M].insert(key);
            }
            return if M == P { 1.0 } else { -1.0 };
        }
        // The current strategy in the order of this node's actions.
        let mut sigma = [0.0; MAX_CELLS];
        let sigma = &mut sigma[..n];
        let found = self.frozen[M].find(key, hash, n);
        match found {
            Some(slot) => {
                regret_matching(self.frozen[M].regrets(n, slot), sigma);
                if turned {
                    sigma.reverse();
                }
            }
            None => sigma.fill(1.0 / n as f64),
        }
        let mut behaviour = [0.0; MAX_CELLS];
        let behaviour = &mut behaviour[..n];
        if M == P {
            let e = self.exploration;
            for (b, &p) in behaviour.iter_mut().zip(sigma.iter()) {
                *b = e / n as f64 + (1.0 - e) * p;
            }
        } else {
            behaviour.copy_from_slice(sigma);
        }
        let i = sample_index(behaviour, rng);
        let (sigma_i, behaviour_i) = (sigma[i], behaviour[i]);
        let cell = nth_cell(legal, i);
        let next = if M == P {
            [mine * sigma_i, others, sample * behaviour_i]
        } else {
            [mine, others * sigma_i, sample * behaviour_i]
        };
        let child = match self.game.play::<M>(node, cell) {
            // `0.0 - u` as the keyed walk's returns have it.
            Played::Over(u) => {
                if P == 0 {
                    u
                } else {
                    0.0 - u
                }
            }
            Played::Collided(board) => {
                let attempts = attempts.after::<M>(&self.packing, cell, true);
                let again = self.game.moves_again();
                let known = self.follow(known, M, cell, true, !again);
                if again {
                    let own = self.look::<M>(board, &attempts);
                    self.walk::<M, P>(board, attempts, known, next, rng, own)
                } else {
                    self.pass::<M, P>(board, attempts, known, next, rng, theirs)
                }
            }
            Played::Placed(board) => {
                let attempts = attempts.after::<M>(&self.packing, cell, false);
                let known = self.follow(known, M, cell, false, true);
                self.pass::<M, P>(board, attempts, known, next, rng, theirs)
            }
        };
        // Baseline-free estimate: only the sampled action has a value.
        let sampled_value = child / behaviour_i;
        let value = sigma_i * sampled_value;
        if M == P {
            let scale = others / sample;
            let hint = found.unwrap_or(NOT_FOUND);
            let slots = self.updates[M].find_or_insert(key, n, hint);
            let u = &mut self.updates[M];
            let (regrets, average) = (&mut u.regrets[slots.clone()], &mut u.average[slots]);
            for (k, &p) in sigma.iter().enumerate() {
                let s = if turned { n - 1 - k } else { k };
                let action_value = if k == i { sampled_value } else { 0.0 };
                regrets[s] += action_value * scale - value * scale;
                average[s] += mine * p / sample;
            }
        }
        value
    }

    /// The walk from a node where `M`'s opponent moves, `theirs` their lookup.
    #[inline(always)]
    fn pass<const M: usize, const P: usize>(
        &mut self,
        node: RealBoard,
        attempts: Attempts,
        known: Known,
        reach: [f64; 3],
        rng: &mut IterationRng,
        theirs: Lookup,
    ) -> f64 {
        if M == 0 {
            self.walk::<1, P>(node, attempts, known, reach, rng, theirs)
        } else {
            self.walk::<0, P>(node, attempts, known, reach, rng, theirs)
        }
    }

    /// The knowledge after an attempt, where PONE terminals need it.
    #[inline(always)]
    fn follow(&self, known: Known, mover: usize, cell: u32, collided: bool, ends: bool) -> Known {
        match self.pone {
            Some(pone) => pone.after(known, mover, cell, collided, ends),
            None => known,
        }
    }
}

/// The cell of the `i`-th legal move (moves ascend by cell).
#[inline(always)]
fn nth_cell(mut legal: u32, i: usize) -> u32 {
    for _ in 0..i {
        legal &= legal - 1;
    }
    legal.trailing_zeros()
}

/// An outcome-sampling run with compact keys on a Dark Hex or Dark Rex game.
pub struct CompactSolver {
    game: DarkHexGame,
    stream: DarkHexStream,
    packing: Packing,
    state: CompactState,
    /// Each worker's update tables, kept between batches for their memory.
    scratch: Vec<[UpdateTable; NUM_PLAYERS]>,
    /// Each worker's decided states first met in a batch.
    met: Vec<Decided>,
    pone: Option<PoneTerminals>,
}

impl CompactSolver {
    /// A run continuing `state` (a new one from [`CompactState::new`]);
    /// fails where the keys do not fit the game or a table is damaged.
    pub fn new(game: DarkHexGame, mut state: CompactState) -> Result<Self, CompactError> {
        let abstraction =
            Abstraction::parse(&state.abstraction).map_err(|e| CompactError::Damaged {
                player: 0,
                reason: e.to_string(),
            })?;
        let cells = game.dims().cells();
        let too_large = || CompactError::BoardTooLarge {
            game: game.game_string(),
            cells,
            max: MAX_CELLS,
        };
        if cells > MAX_CELLS {
            return Err(too_large());
        }
        if abstraction.recall == Recall::Perfect
            && (game.obstype() != ObsType::RevealNothing || game.disclosure() != Disclosure::None)
        {
            return Err(CompactError::RecallDoesNotFit {
                game: game.game_string(),
            });
        }
        let stream = DarkHexStream::new(&game).map_err(|_| too_large())?;
        let packing = Packing::new(cells, abstraction);
        for (player, t) in state.tables.iter_mut().enumerate() {
            t.restore(|k| packing.actions(k))
                .map_err(|reason| CompactError::Damaged { player, reason })?;
        }
        state.workers = state.workers.max(1);
        state.iterations_per_worker = state.iterations_per_worker.max(1);
        let pone = state
            .pone_terminals
            .then(|| PoneTerminals::new(&game, abstraction))
            .transpose()?;
        let scratch = vec![Default::default(); state.workers];
        let met = vec![Decided::default(); state.workers];
        Ok(CompactSolver {
            game,
            stream,
            packing,
            state,
            scratch,
            met,
            pone,
        })
    }

    /// Bytes the run holds: the tables, the workers' update tables and
    /// PONE's searches.
    pub fn memory_bytes(&self) -> usize {
        self.state.memory_bytes()
            + self
                .scratch
                .iter()
                .flatten()
                .map(UpdateTable::memory_bytes)
                .sum::<usize>()
            + self.met.iter().map(Decided::memory_bytes).sum::<usize>()
            + self.pone.as_ref().map_or(0, PoneTerminals::memory_bytes)
    }

    pub fn state(&self) -> &CompactState {
        &self.state
    }

    pub fn abstraction(&self) -> Abstraction {
        self.packing.abstraction
    }

    /// Whether histories end where PONE decides them.
    pub fn pone_terminals(&self) -> bool {
        self.pone.is_some()
    }

    pub fn iteration(&self) -> u64 {
        self.state.iteration
    }

    /// Iterations per parallel batch.
    pub fn batch_size(&self) -> u64 {
        self.state.workers as u64 * self.state.iterations_per_worker
    }

    /// Runs `iterations` more iterations in [`super::mccfr`]'s batches.
    pub fn run(&mut self, iterations: u64) {
        in_batches(iterations, self.batch_size(), |n| self.run_batch(n));
    }

    fn run_batch(&mut self, n: u64) {
        let workers = self.state.workers as u64;
        let first = self.state.iteration;
        let (seed, exploration) = (self.state.seed, self.state.exploration);
        let (stream, packing, frozen) = (&self.stream, self.packing, &self.state.tables);
        let (pone, decided) = (self.pone.as_ref(), &self.state.decided);
        self.scratch
            .par_iter_mut()
            .zip(self.met.par_iter_mut())
            .enumerate()
            .for_each(|(w, (updates, met))| {
                updates.iter_mut().for_each(UpdateTable::clear);
                *met = Decided::default();
                let mut walker = Walker {
                    game: stream,
                    packing,
                    frozen,
                    updates,
                    exploration,
                    pone,
                    decided,
                    met,
                };
                for it in worker_share(first, n, w as u64, workers) {
                    let mut rng = iteration_rng(seed, it);
                    for player in 0..NUM_PLAYERS {
                        walker.iterate(player, &mut rng);
                    }
                }
            });
        for (p, table) in self.state.tables.iter_mut().enumerate() {
            let updates: Vec<&UpdateTable> = self.scratch.iter().map(|u| &u[p]).collect();
            table.add(&updates);
        }
        for met in &mut self.met {
            let decided = &mut self.state.decided;
            decided.ends += met.ends;
            // One insertion a new key: `BTreeSet::append` merges the whole
            // set each batch, quadratic once millions of states are decided.
            for (keys, new) in decided.keys.iter_mut().zip(&mut met.keys) {
                keys.extend(std::mem::take(new));
            }
        }
        self.state.iteration += n;
    }

    /// The average policy at every state met, keyed as the abstraction
    /// writes keys (see [`Abstraction::abstract_key`]); the file names
    /// the abstraction.
    /// With PONE terminals, the decided states met carry PONE's
    /// winning strategy from there on, and the provenance says so.
    pub fn average_policy(&self, mut provenance: Provenance) -> PolicyFile {
        let abstraction = self.packing.abstraction;
        let cells = self.packing.cells as usize;
        let mut infosets: [Vec<InfosetPolicy>; NUM_PLAYERS] = std::array::from_fn(|p| {
            let t = &self.state.tables[p];
            let mut out = Vec::with_capacity(t.len());
            let mut key = Vec::new();
            for i in 0..t.len() {
                let stored = self.packing.tokens(t.key(i));
                // The file's orientation is the smaller token list's, which
                // need not be the smaller packed key's.
                let turned = abstraction.abstract_key(cells, &stored, &mut key);
                let mut probs = vec![0.0; t.width(i)];
                normalise(t.average(i), &mut probs);
                if turned {
                    probs.reverse();
                }
                let actions = key_actions(cells, &key);
                out.push(InfosetPolicy {
                    key: key.clone(),
                    actions,
                    probs,
                });
            }
            out
        });
        if let Some(pone) = &self.pone {
            let decided = &self.state.decided;
            let roots = std::array::from_fn(|p| {
                decided.keys[p]
                    .iter()
                    .map(|&k| self.packing.tokens(k))
                    .collect()
            });
            let entries = pone.policy_entries(cells, abstraction, roots);
            for (infosets, entries) in infosets.iter_mut().zip(entries) {
                infosets.extend(entries);
            }
            let parameters = &mut provenance.parameters;
            parameters.insert(PONE_TERMINALS.into(), 1.0);
            parameters.insert(PONE_ENDS.into(), decided.ends as f64);
        }
        let mut file = PolicyFile::new(&self.game.game_string(), provenance, infosets);
        if !abstraction.is_identity() {
            file.abstraction = Some(abstraction.name());
        }
        file
    }
}
