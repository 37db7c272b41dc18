//! PONE terminals for the compact outcome sampler: a history where the
//! player to move wins with probability one from their information state
//! ends there, scored as that win, as the thesis trained MCCFR on 4x3 (its
//! PONE table is keyed by the mover's view and hidden-stone count, and a
//! state found in it counts as won).
//!
//! Only the player to move is asked: PONE's knowledge is a player's at
//! their own turn, and the other player's sure win, if they have one,
//! shows one move later, at their turn.
//!
//! The sampler follows each player's knowledge ([`Knowledge`]) along the
//! walk; PONE's answers are kept in the searches' tables, one entry per
//! knowledge state (at most the 3^cells boards of own and found stones
//! times the hidden counts), and counted in the run's memory. The keys of
//! the decided states the walks met are kept so the policy file can carry
//! PONE's strategy from each: there the file plays PONE's winning moves.
//!
//! A decided state must be one abstract state: so the key has to tell the
//! knowledge apart. With `reveal-nothing` and no disclosure it does for
//! `perfect-recall` and `attempts` (then the whole information state), and
//! for `view` in classic Dark Hex (the hidden count follows from the
//! stone counts); in abrupt Dark Hex a view does not tell how many of the
//! opponent's turns were collisions.

use std::collections::BTreeSet;

use darkhex_games::abstraction::{Abstraction, Recall, key_actions};
use darkhex_games::dark_hex::{DarkHexGame, Disclosure, GameVersion, ObsType};
use darkhex_games::{Action, Game, NUM_PLAYERS, Token};
use thiserror::Error;

use super::compact_table::Key;
use crate::policy_file::InfosetPolicy;
use crate::pone::knowledge::{Heard, Knowledge, Rules};
use crate::pone::search::Search;
use crate::pone::{rules_for, strategy_moves};

#[derive(Debug, Error, PartialEq)]
pub enum PoneTerminalsError {
    #[error(
        "{game}: PONE terminals need obstype=reveal-nothing and disclosure=none (the sampler follows what each player knows from their own attempts only)"
    )]
    Observations { game: String },
    #[error(
        "{game}: under --abstraction {abstraction} a key does not tell how many opponent stones are hidden (in abrupt Dark Hex some opponent turns were collisions); use perfect-recall or attempts, with or without -rot180"
    )]
    AbstractionTooCoarse { game: String, abstraction: String },
    #[error("{game}: PONE handles boards of up to 64 cells")]
    BoardTooLarge { game: String },
}

/// What a player hears of an opponent turn with `reveal-nothing` and no
/// disclosure: that it happened (in abrupt Dark Hex, not even whether it
/// placed a stone).
const HEARD: Heard = Heard {
    placed: true,
    count: 0,
    cells: 0,
};

/// Each player's knowledge at a point of a walk.
pub type Known = [Knowledge; NUM_PLAYERS];

/// Both players' PONE searches, with their tables.
pub struct PoneTerminals {
    searches: [Search; NUM_PLAYERS],
}

impl PoneTerminals {
    /// PONE for `game` sampled under `abstraction`, or why the pair does not fit.
    pub fn new(game: &DarkHexGame, abstraction: Abstraction) -> Result<Self, PoneTerminalsError> {
        let name = game.game_string();
        if game.obstype() != ObsType::RevealNothing || game.disclosure() != Disclosure::None {
            return Err(PoneTerminalsError::Observations { game: name });
        }
        if abstraction.recall == Recall::View && game.version() == GameVersion::Abrupt {
            return Err(PoneTerminalsError::AbstractionTooCoarse {
                game: name,
                abstraction: abstraction.name(),
            });
        }
        let search = |p| {
            rules_for(game, p)
                .map(Search::new)
                .map_err(|_| PoneTerminalsError::BoardTooLarge { game: name.clone() })
        };
        Ok(PoneTerminals {
            searches: [search(0)?, search(1)?],
        })
    }

    /// Whether `player` wins with probability one from `known[player]`,
    /// their knowledge at their turn.
    #[inline]
    pub fn wins(&self, player: usize, known: &Known) -> bool {
        self.searches[player].wins(&known[player])
    }

    /// The knowledge after `mover` attempts `cell`; `turn_ends` when the
    /// turn passes to the opponent (a placement; in abrupt Dark Hex, a
    /// collision too).
    #[inline]
    pub fn after(
        &self,
        mut known: Known,
        mover: usize,
        cell: u32,
        collided: bool,
        turn_ends: bool,
    ) -> Known {
        known[mover] = known[mover].after_own(cell as usize, collided);
        if turn_ends {
            let other = 1 - mover;
            known[other] = known[other].after_opponent(self.rules(other), HEARD);
        }
        known
    }

    fn rules(&self, player: usize) -> &Rules {
        &self.searches[player].rules
    }

    /// Bytes the searches' tables hold.
    pub fn memory_bytes(&self) -> usize {
        self.searches.iter().map(Search::memory_bytes).sum()
    }

    /// PONE's strategy from every decided state in `roots` (each given by
    /// its tokens), as policy entries keyed under `abstraction`: the
    /// winning move with probability one, turned with the key.
    pub fn policy_entries(
        &self,
        cells: usize,
        abstraction: Abstraction,
        roots: [Vec<Vec<Token>>; NUM_PLAYERS],
    ) -> [Vec<InfosetPolicy>; NUM_PLAYERS] {
        let mut roots = roots.into_iter();
        std::array::from_fn(|p| {
            let moves = strategy_moves(&self.searches[p], roots.next().unwrap_or_default());
            let mut key = Vec::new();
            let mut seen = BTreeSet::new();
            let mut out = Vec::new();
            for (tokens, action) in moves {
                let turned = abstraction.abstract_key(cells, &tokens, &mut key);
                // Information states the abstraction merges share the
                // knowledge, and with it PONE's move.
                if !seen.insert(key.clone()) {
                    continue;
                }
                let action = if turned {
                    (cells - 1) as Action - action
                } else {
                    action
                };
                let actions = key_actions(cells, &key);
                let probs = actions
                    .iter()
                    .map(|&a| if a == action { 1.0 } else { 0.0 })
                    .collect();
                out.push(InfosetPolicy {
                    key: key.clone(),
                    actions,
                    probs,
                });
            }
            out.sort_by(|a, b| a.key.cmp(&b.key));
            out
        })
    }
}

/// The decided states the walks met, by stored key, and how many sampled
/// histories ended at one.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Decided {
    pub keys: [BTreeSet<Key>; NUM_PLAYERS],
    pub ends: u64,
}

impl Decided {
    /// Bytes held, about (a B-tree keeps up to 11 keys a node).
    pub fn memory_bytes(&self) -> usize {
        self.keys
            .iter()
            .map(|k| k.len() * (size_of::<Key>() + 8))
            .sum()
    }
}
