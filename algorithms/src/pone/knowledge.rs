//! What a Dark Hex player knows at one of their turns, reduced to what
//! decides the rest of the game: their stones, the opponent stones they have
//! found, how many opponent stones may be hidden, and what the opponent may
//! know of their stones.
//!
//! The hidden configurations consistent with an information state depend on
//! nothing else: every set of free cells of a possible size that does not
//! join the opponent's sides is possible (stones are only ever added, so a
//! position that is not over was never over, and each opponent placement was
//! on a cell empty at the time). The hidden count is exact in classic Dark
//! Hex (the opponent places once per turn) and whenever collisions are
//! disclosed; in abrupt Dark Hex without disclosure a turn may have been a
//! collision instead, so the count is a range.

use darkhex_games::Token;
use darkhex_games::dark_hex::{DarkHexGame, Disclosure, GameVersion, ObsType, token};

use super::bitboard::{Geometry, subsets};

/// What the owner learns of the opponent's collisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hearing {
    /// Nothing (in abrupt Dark Hex, not even whether a turn placed a stone).
    Nothing,
    /// How many (noise; or the turn count, in classic Dark Hex).
    Count,
    /// Which stones (flash).
    Cells,
}

/// The rules of one search: the game and whose knowledge it follows.
#[derive(Clone, Debug)]
pub struct Rules {
    pub geometry: Geometry,
    pub owner: usize,
    pub abrupt: bool,
    pub misere: bool,
    pub hearing: Hearing,
    pub numturns: bool,
    pub disclosure: Disclosure,
}

impl Rules {
    /// `None` for boards of more than 64 cells.
    pub fn new(game: &DarkHexGame, owner: usize) -> Option<Rules> {
        let abrupt = game.version() == GameVersion::Abrupt;
        let numturns = game.obstype() == ObsType::RevealNumTurns;
        let hearing = match game.disclosure() {
            Disclosure::Flash => Hearing::Cells,
            Disclosure::Noise => Hearing::Count,
            Disclosure::None if numturns && !abrupt => Hearing::Count,
            Disclosure::None => Hearing::Nothing,
        };
        Some(Rules {
            geometry: Geometry::new(game.dims())?,
            owner,
            abrupt,
            misere: game.is_misere(),
            hearing,
            numturns,
            disclosure: game.disclosure(),
        })
    }

    pub fn opponent(&self) -> usize {
        1 - self.owner
    }

    /// Whether the owner cannot tell a collision from a placement.
    fn blind(&self) -> bool {
        self.abrupt && self.hearing == Hearing::Nothing
    }
}

/// The owner's knowledge at their turn. `found` / `found_count` are the
/// owner's stones the opponent has run into (cells under flash, a number
/// otherwise). Hidden opponent stones number `hidden_max - c` for some
/// `c` in `0..=max_collisions` (always 0 unless the owner is blind to
/// collisions in abrupt Dark Hex).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Knowledge {
    pub own: u64,
    pub seen: u64,
    pub found: u64,
    pub found_count: u8,
    pub hidden_max: u8,
    pub max_collisions: u8,
}

/// The hidden configurations of a knowledge state, with their union and
/// intersection.
pub struct Worlds {
    pub sets: Vec<u64>,
    pub union: u64,
    pub intersection: u64,
}

impl Worlds {
    /// The configurations in which the owner's stone on `bit` is placed:
    /// those where that cell is empty.
    pub fn placing(&self, bit: u64) -> Vec<u64> {
        self.sets.iter().copied().filter(|h| h & bit == 0).collect()
    }

    /// The configurations in which the owner runs into a hidden stone on
    /// `bit`, with that stone no longer hidden.
    pub fn hitting(&self, bit: u64) -> Vec<u64> {
        self.sets
            .iter()
            .filter(|h| *h & bit != 0)
            .map(|h| h & !bit)
            .collect()
    }
}

/// What the owner perceives of one opponent turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heard {
    /// Whether the turn is known to have placed a stone.
    pub placed: bool,
    /// Collisions heard as a count, or as cells under flash.
    pub count: u8,
    pub cells: u64,
}

impl Knowledge {
    pub const EMPTY: Knowledge = Knowledge {
        own: 0,
        seen: 0,
        found: 0,
        found_count: 0,
        hidden_max: 0,
        max_collisions: 0,
    };

    pub fn free(&self, rules: &Rules) -> u64 {
        rules.geometry.all & !self.own & !self.seen
    }

    /// The owner's stones the opponent may still run into: cells under
    /// flash, and otherwise all of them (only the count matters then).
    pub fn unfound(&self, rules: &Rules) -> u64 {
        match rules.hearing {
            Hearing::Cells => self.own & !self.found,
            _ => self.own,
        }
    }

    /// How many more collisions the opponent can make.
    pub fn collisions_left(&self, rules: &Rules) -> u32 {
        match rules.hearing {
            Hearing::Cells => self.unfound(rules).count_ones(),
            Hearing::Count => self.own.count_ones() - u32::from(self.found_count),
            Hearing::Nothing => self.own.count_ones(),
        }
    }

    /// Every consistent hidden configuration.
    pub fn worlds(&self, rules: &Rules) -> Worlds {
        let g = &rules.geometry;
        let free = self.free(rules);
        let mut w = Worlds {
            sets: Vec::new(),
            union: 0,
            intersection: free,
        };
        let low = self.hidden_max - self.max_collisions;
        for h in low..=self.hidden_max {
            subsets(free, u32::from(h), |hidden| {
                if !g.connected(self.seen | hidden, rules.opponent()) {
                    w.sets.push(hidden);
                    w.union |= hidden;
                    w.intersection &= hidden;
                }
            });
        }
        w
    }

    /// The same knowledge with the board turned by 180 degrees.
    pub fn rotated(&self, g: &Geometry) -> Knowledge {
        Knowledge {
            own: g.rotate(self.own),
            seen: g.rotate(self.seen),
            found: g.rotate(self.found),
            ..*self
        }
    }

    /// After the owner's move to `cell`: placed, or run into a hidden stone.
    pub fn after_own(&self, cell: usize, collided: bool) -> Knowledge {
        let bit = 1u64 << cell;
        let mut k = *self;
        if collided {
            k.seen |= bit;
            k.hidden_max -= 1;
            // The found stone was placed before it was found, so the
            // opponent's collisions so far left a turn for it.
            k.max_collisions = k.max_collisions.min(k.hidden_max);
        } else {
            k.own |= bit;
        }
        k
    }

    /// After an opponent turn as the owner perceives it.
    pub fn after_opponent(&self, rules: &Rules, heard: Heard) -> Knowledge {
        let mut k = *self;
        k.found |= heard.cells;
        k.found_count += heard.count;
        if rules.blind() {
            // A placement, or a collision if one was possible.
            k.hidden_max += 1;
            k.max_collisions = (k.max_collisions + 1).min(k.own.count_ones() as u8);
        } else if heard.placed {
            k.hidden_max += 1;
        }
        k
    }
}

/// Reads the owner's knowledge off their information state at one of their
/// turns; `None` if the tokens cannot come from this game.
pub fn knowledge_of(rules: &Rules, key: &[Token]) -> Option<Knowledge> {
    let cells = rules.geometry.dims.cells();
    let mut k = Knowledge::EMPTY;
    // The second player's first turn follows one of the first player's.
    let mut pending = rules.owner == 1;
    let (mut noises, mut turns, mut cells_heard) = (0u8, 0u8, 0u64);
    let close =
        |k: &mut Knowledge, noises: &mut u8, turns: &mut u8, heard_cells: &mut u64| -> Option<()> {
            let collisions = match (rules.hearing, rules.disclosure) {
                (Hearing::Cells, _) => heard_cells.count_ones() as u8,
                // Classic turns with the count shown: every action but the
                // closing placement was a collision.
                (Hearing::Count, Disclosure::None) => turns.checked_sub(1)?,
                (Hearing::Count, _) => *noises,
                (Hearing::Nothing, _) => 0,
            };
            let heard = Heard {
                // A classic turn always ends with a placement; an abrupt one
                // placed unless a collision was heard.
                placed: !rules.abrupt || collisions == 0,
                count: if rules.hearing == Hearing::Count {
                    collisions
                } else {
                    0
                },
                cells: *heard_cells,
            };
            if heard.cells & !k.own != 0 || (heard.count as u32) > k.collisions_left(rules) {
                return None;
            }
            *k = k.after_opponent(rules, heard);
            (*noises, *turns, *heard_cells) = (0, 0, 0);
            Some(())
        };
    for &t in key {
        let cell = (t & token::CELL_MASK) as usize;
        match t & token::KIND_MASK {
            token::PLACED | token::COLLIDED => {
                if pending {
                    close(&mut k, &mut noises, &mut turns, &mut cells_heard)?;
                }
                let collided = t & token::KIND_MASK == token::COLLIDED;
                if cell >= cells
                    || k.free(rules) >> cell & 1 == 0
                    || (collided && k.hidden_max == 0)
                {
                    return None;
                }
                k = k.after_own(cell, collided);
                pending = !collided || rules.abrupt;
            }
            token::NOISE => noises += 1,
            token::OPPONENT_TURN => turns += 1,
            token::FLASH if cell < cells => cells_heard |= 1 << cell,
            _ => return None,
        }
    }
    if pending {
        close(&mut k, &mut noises, &mut turns, &mut cells_heard)?;
    }
    Some(k)
}
