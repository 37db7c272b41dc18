//! Feature rows of (information state, action) pairs, for the regressors
//! of function-approximation CFR.
//!
//! A row is computed from the information-state key alone (the token
//! sequence every table of darkhex identifies an information state by:
//! [`InfosetTable::keys`] on the compiled tree, the rows of the streaming
//! tables), so one map serves every solver. Three maps:
//!
//! - [`FeatureKind::OneHot`]: one column per (information state, action)
//!   slot of a player's table. A linear fit on it is the table itself:
//!   RCFR with it is CFR, which is what the checks hold it to.
//! - [`FeatureKind::Observation`]: what the player observed, then the
//!   action one-hot: the input of a network.
//! - [`FeatureKind::Joint`]: the observation features crossed with the
//!   action one-hot (one block of observation features per action, the
//!   others zero): a linear model on it is a linear model per action, which
//!   is what lets a linear regressor tell actions apart at all.
//!
//! Observation features, all in `[0, 1]`, then a constant 1:
//! - board games (Hex, Rex, every Dark Hex variant, phantom tic-tac-toe,
//!   whose observations are Dark Hex's), per cell: own stone,
//!   opponent stone known (discovered by a collision in Dark Hex, every
//!   opponent stone in Hex), own stone the opponent found (flash
//!   disclosure), empty in the player's view; then the counts of own
//!   placements, own collisions, opponent turns seen (`reveal-numturns`)
//!   and opponent collisions signalled (`noise` and `flash`), each divided
//!   by the number of cells. In Dark Hex a cell tried and found occupied is
//!   exactly a discovered opponent stone, so one channel holds both.
//! - Kuhn poker: own card, then each betting position's action.
//! - Leduc poker: own card's rank, the public card's rank, then each
//!   betting position of each round's action.
//! - Liar's Dice: how many of the player's dice show each face (divided by
//!   their number of dice), every bid made so far, then the last bid.

use darkhex_games::dark_hex::{Disclosure, ObsType, token};
use darkhex_games::leduc::{PRIVATE_CARD, PUBLIC_CARD};
use darkhex_games::liars_dice::LiarsDiceGame;
use darkhex_games::{Action, AnyGame, Game, NUM_PLAYERS, Token};
use ndarray::{Array2, ArrayViewMut2};
use serde::{Deserialize, Serialize};

/// Which feature map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FeatureKind {
    OneHot,
    Observation,
    Joint,
}

impl FeatureKind {
    pub const NAMES: [&'static str; 3] = ["one-hot", "obs", "joint"];

    pub fn name(self) -> &'static str {
        match self {
            FeatureKind::OneHot => "one-hot",
            FeatureKind::Observation => "obs",
            FeatureKind::Joint => "joint",
        }
    }

    pub fn parse(name: &str) -> Option<FeatureKind> {
        match name {
            "one-hot" => Some(FeatureKind::OneHot),
            "obs" => Some(FeatureKind::Observation),
            "joint" => Some(FeatureKind::Joint),
            _ => None,
        }
    }
}

/// One (information state, action) pair of a player's table. `slot` is
/// the pair's index in the player's policy arrays, read only by one-hot
/// features.
#[derive(Clone, Copy, Debug)]
pub struct Pair<'a> {
    pub key: &'a [Token],
    pub action: Action,
    pub slot: usize,
}

/// How a game's information states become observation features.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Observer {
    /// Dark Hex (`dark`) or Hex (every move seen).
    Board {
        cells: usize,
        dark: bool,
        turns: bool,
        noise: bool,
        flash: bool,
    },
    Kuhn,
    Leduc,
    LiarsDice(LiarsDiceGame),
}

/// Per-cell channels of the board features.
const OWN: usize = 0;
const OPPONENT: usize = 1;
const FOUND: usize = 2;
const EMPTY: usize = 3;
const CHANNELS: usize = 4;
/// Own placements, own collisions, opponent turns, opponent collisions.
const BOARD_COUNTS: usize = 4;

const KUHN_CARDS: usize = 3;
/// Kuhn: at most two actions precede a decision.
const KUHN_POSITIONS: usize = 2;
const LEDUC_RANKS: usize = 3;
/// Leduc: call, raise, raise, call is the longest round.
const LEDUC_POSITIONS: usize = 4;
const LEDUC_ACTIONS: usize = 3;

impl Observer {
    fn of(game: &AnyGame) -> Observer {
        match game {
            AnyGame::Hex(g) => Observer::Board {
                cells: g.dims().cells(),
                dark: false,
                turns: false,
                noise: false,
                flash: false,
            },
            AnyGame::DarkHex(g) => Observer::Board {
                cells: g.dims().cells(),
                dark: true,
                turns: g.obstype() == ObsType::RevealNumTurns,
                noise: g.disclosure() == Disclosure::Noise,
                flash: g.disclosure() == Disclosure::Flash,
            },
            AnyGame::PhantomTtt(g) => Observer::Board {
                cells: g.num_distinct_actions(),
                dark: true,
                turns: g.obstype() == ObsType::RevealNumTurns,
                noise: false,
                flash: false,
            },
            AnyGame::Kuhn(_) => Observer::Kuhn,
            AnyGame::Leduc(_) => Observer::Leduc,
            AnyGame::LiarsDice(g) => Observer::LiarsDice(*g),
        }
    }

    /// Observation features, the constant included.
    fn width(self) -> usize {
        1 + match self {
            Observer::Board { cells, .. } => CHANNELS * cells + BOARD_COUNTS,
            Observer::Kuhn => KUHN_CARDS + 2 * KUHN_POSITIONS,
            Observer::Leduc => 2 * LEDUC_RANKS + 2 * LEDUC_POSITIONS * LEDUC_ACTIONS,
            Observer::LiarsDice(g) => g.dice_sides() + 2 * g.liar() as usize,
        }
    }

    /// Writes `player`'s observation features of `key` into `out` (zeroed,
    /// `width()` long).
    fn write(self, player: usize, key: &[Token], out: &mut [f64]) {
        let last = out.len() - 1;
        out[last] = 1.0;
        match self {
            Observer::Board {
                cells,
                dark,
                turns,
                noise,
                flash,
            } => {
                let scale = 1.0 / cells as f64;
                let counts = CHANNELS * cells;
                let mut set = |channel: usize, cell: usize| {
                    if cell < cells {
                        out[channel * cells + cell] = 1.0;
                    }
                };
                let mut tally = [0.0f64; BOARD_COUNTS];
                for (i, &t) in key.iter().enumerate() {
                    let cell = (t & token::CELL_MASK) as usize;
                    if !dark {
                        // Hex: the moves alternate, player 0's first.
                        let channel = if i % 2 == player { OWN } else { OPPONENT };
                        set(channel, t as usize);
                        tally[0] += (i % 2 == player) as u8 as f64;
                        continue;
                    }
                    match t & token::KIND_MASK {
                        token::PLACED => {
                            set(OWN, cell);
                            tally[0] += 1.0;
                        }
                        token::COLLIDED => {
                            set(OPPONENT, cell);
                            tally[1] += 1.0;
                        }
                        token::OPPONENT_TURN if turns => tally[2] += 1.0,
                        token::NOISE if noise => tally[3] += 1.0,
                        token::FLASH if flash => {
                            set(FOUND, cell);
                            tally[3] += 1.0;
                        }
                        _ => {}
                    }
                }
                for c in 0..cells {
                    if out[OWN * cells + c] == 0.0 && out[OPPONENT * cells + c] == 0.0 {
                        out[EMPTY * cells + c] = 1.0;
                    }
                }
                for (k, n) in tally.into_iter().enumerate() {
                    out[counts + k] = n * scale;
                }
            }
            Observer::Kuhn => {
                let mut position = 0;
                for &t in key {
                    let card = t.wrapping_sub(PRIVATE_CARD) as usize;
                    if card < KUHN_CARDS {
                        out[card] = 1.0;
                    } else if position < KUHN_POSITIONS && (t as usize) < 2 {
                        out[KUHN_CARDS + 2 * position + t as usize] = 1.0;
                        position += 1;
                    }
                }
            }
            Observer::Leduc => {
                let betting = 2 * LEDUC_RANKS;
                let (mut round, mut position) = (0, 0);
                for &t in key {
                    let private = t.wrapping_sub(PRIVATE_CARD) as usize;
                    let public = t.wrapping_sub(PUBLIC_CARD) as usize;
                    if private < 2 * LEDUC_RANKS {
                        out[private / 2] = 1.0;
                    } else if public < 2 * LEDUC_RANKS {
                        out[LEDUC_RANKS + public / 2] = 1.0;
                        round = 1;
                        position = 0;
                    } else if position < LEDUC_POSITIONS && (t as usize) < LEDUC_ACTIONS {
                        let base = betting + (round * LEDUC_POSITIONS + position) * LEDUC_ACTIONS;
                        out[base + t as usize] = 1.0;
                        position += 1;
                    }
                }
            }
            Observer::LiarsDice(g) => {
                let sides = g.dice_sides();
                let bids = g.liar() as usize;
                let (dice, said) = key.split_first().map_or((None, &[][..]), |(first, rest)| {
                    (g.dice_of_token(*first), rest)
                });
                for face in dice.into_iter().flatten() {
                    out[face as usize - 1] += 1.0 / g.num_dice() as f64;
                }
                for &b in said.iter().filter(|&&b| (b as usize) < bids) {
                    out[sides + b as usize] = 1.0;
                }
                if let Some(&last) = said.last().filter(|&&b| (b as usize) < bids) {
                    out[sides + bids + last as usize] = 1.0;
                }
            }
        }
    }
}

/// A feature map for one game: see the module notes.
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureMap {
    kind: FeatureKind,
    observer: Observer,
    actions: usize,
    /// One-hot: each player's number of slots.
    slots: [usize; NUM_PLAYERS],
}

impl FeatureMap {
    /// `slots` is each player's number of (information state, action)
    /// slots, the width of one-hot features (ignored by the others).
    pub fn new(kind: FeatureKind, game: &AnyGame, slots: [usize; NUM_PLAYERS]) -> FeatureMap {
        FeatureMap {
            kind,
            observer: Observer::of(game),
            actions: game.num_distinct_actions(),
            slots,
        }
    }

    pub fn kind(&self) -> FeatureKind {
        self.kind
    }

    /// The number of observation features (the constant included).
    pub fn observation_width(&self) -> usize {
        self.observer.width()
    }

    /// The number of columns of `player`'s rows.
    pub fn width(&self, player: usize) -> usize {
        match self.kind {
            FeatureKind::OneHot => self.slots[player],
            FeatureKind::Observation => self.observer.width() + self.actions,
            FeatureKind::Joint => self.observer.width() * self.actions,
        }
    }

    /// Writes what `player` observed at `key` (the observation features,
    /// the constant included) into `out`, `observation_width()` long: the
    /// input of a network with one output per action.
    pub fn write_observation(&self, player: usize, key: &[Token], out: &mut [f64]) {
        out.fill(0.0);
        self.observer.write(player, key, out);
    }

    /// Writes `player`'s row of `pair` into `out`, `width(player)` long.
    pub fn write_row(&self, player: usize, pair: Pair, out: &mut [f64]) {
        out.fill(0.0);
        let a = pair.action as usize;
        let obs = self.observer.width();
        match self.kind {
            FeatureKind::OneHot => out[pair.slot] = 1.0,
            FeatureKind::Observation => {
                self.observer.write(player, pair.key, &mut out[..obs]);
                out[obs + a] = 1.0;
            }
            FeatureKind::Joint => {
                self.observer
                    .write(player, pair.key, &mut out[a * obs..(a + 1) * obs]);
            }
        }
    }

    /// Fills `out` (one row per pair, `width(player)` columns) row by row.
    pub fn fill<'a>(
        &self,
        player: usize,
        pairs: impl IntoIterator<Item = Pair<'a>>,
        mut out: ArrayViewMut2<f64>,
    ) {
        // Only a strided view needs it: a row at a time through a copy.
        let mut tmp = Vec::new();
        for (pair, mut row) in pairs.into_iter().zip(out.rows_mut()) {
            match row.as_slice_mut() {
                Some(row) => self.write_row(player, pair, row),
                None => {
                    tmp.resize(row.len(), 0.0);
                    self.write_row(player, pair, &mut tmp);
                    row.iter_mut().zip(&tmp).for_each(|(x, &v)| *x = v);
                }
            }
        }
    }

    /// A contiguous batch of `player`'s rows, one per pair.
    pub fn batch<'a>(
        &self,
        player: usize,
        pairs: impl ExactSizeIterator<Item = Pair<'a>>,
    ) -> Array2<f64> {
        let mut out = Array2::zeros((pairs.len(), self.width(player)));
        self.fill(player, pairs, out.view_mut());
        out
    }
}

/// The pairs of a compiled tree's player table, in slot order.
pub fn table_pairs(
    table: &darkhex_games::analysis::InfosetTable,
) -> impl ExactSizeIterator<Item = Pair<'_>> {
    let infoset_of = (0..table.len()).flat_map(move |i| table.slots(i).map(move |_| i));
    // Collecting the infoset per slot keeps the iterator exact-size.
    let owners: Vec<usize> = infoset_of.collect();
    owners.into_iter().enumerate().map(move |(slot, i)| Pair {
        key: &table.keys[i],
        action: table.actions[slot],
        slot,
    })
}
