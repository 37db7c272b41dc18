//! Imperfect-recall abstractions of Dark Hex and Dark Rex information
//! states, for training where perfect recall does not fit: what a player
//! keeps of their perfect-recall key (see DESIGN.md, "Information states").
//!
//! - `perfect-recall`: everything (the game's own information states).
//! - `attempts`: the player's own attempts with their results, in order;
//!   what the opponent's turns, noise and flashes told them is forgotten
//!   (with `reveal-nothing` and no disclosure this is perfect recall).
//! - `view`: the board as the player sees it (own stones, discovered
//!   opponent stones), without the order it was learnt in.
//!
//! Each can be reduced by the 180-degree rotation (suffix `-rot180`),
//! cell `c` to `cells - 1 - c`: it maps every rectangular board onto itself
//! with each player's two sides swapped, so it maps every Dark Hex and
//! Dark Rex variant (classic, abrupt, any disclosure or turn counts) to
//! itself, move for move. A key and its rotation share one entry, kept in
//! the orientation whose token list is lexicographically smaller; since
//! the rotation reverses the order of cells, the rotated key's legal
//! actions are the canonical one's in reverse order.
//!
//! An abstract key is written with the game's own tokens (placed and
//! collided cells; in `view`, sorted), so policy files keep one format.

use std::fmt;

use crate::dark_hex::token;
use crate::game::{Action, Token};

/// What a player remembers of their observations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Recall {
    Perfect,
    Attempts,
    View,
}

/// A recall and whether keys are reduced by the 180-degree rotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Abstraction {
    pub recall: Recall,
    pub rotate: bool,
}

/// Why an abstraction name is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown abstraction '{}': accepted abstractions are {}", crate::one_line(.0), Abstraction::NAMES.join(", "))]
pub struct UnknownAbstraction(pub String);

const ROT180: &str = "-rot180";

impl Abstraction {
    pub const NAMES: [&'static str; 6] = [
        "perfect-recall",
        "perfect-recall-rot180",
        "attempts",
        "attempts-rot180",
        "view",
        "view-rot180",
    ];

    pub const PERFECT_RECALL: Abstraction = Abstraction {
        recall: Recall::Perfect,
        rotate: false,
    };

    pub fn parse(name: &str) -> Result<Abstraction, UnknownAbstraction> {
        let (base, rotate) = match name.strip_suffix(ROT180) {
            Some(base) => (base, true),
            None => (name, false),
        };
        let recall = match base {
            "perfect-recall" => Recall::Perfect,
            "attempts" => Recall::Attempts,
            "view" => Recall::View,
            _ => return Err(UnknownAbstraction(name.to_string())),
        };
        Ok(Abstraction { recall, rotate })
    }

    pub fn name(&self) -> String {
        let base = match self.recall {
            Recall::Perfect => "perfect-recall",
            Recall::Attempts => "attempts",
            Recall::View => "view",
        };
        if self.rotate {
            format!("{base}{ROT180}")
        } else {
            base.to_string()
        }
    }

    /// Whether every information state is its own abstract state.
    pub fn is_identity(&self) -> bool {
        *self == Abstraction::PERFECT_RECALL
    }

    /// The abstract key of the perfect-recall `key` on a board of `cells`
    /// cells, into `out`; true when `key` is the rotation of the stored
    /// orientation (its legal actions are then the stored ones reversed).
    pub fn abstract_key(&self, cells: usize, key: &[Token], out: &mut Vec<Token>) -> bool {
        out.clear();
        match self.recall {
            Recall::Perfect => out.extend_from_slice(key),
            Recall::Attempts | Recall::View => out.extend(
                key.iter()
                    .copied()
                    .filter(|&t| matches!(t & token::KIND_MASK, token::PLACED | token::COLLIDED)),
            ),
        }
        if self.recall == Recall::View {
            out.sort_unstable();
        }
        if !self.rotate {
            return false;
        }
        let rotated = self.turned(cells, out);
        if rotated < *out {
            *out = rotated;
            true
        } else {
            false
        }
    }

    /// An abstract key (as [`Self::abstract_key`] writes them) turned by
    /// 180 degrees, in the same form.
    pub fn turned(&self, cells: usize, key: &[Token]) -> Vec<Token> {
        let mut rotated: Vec<Token> = key.iter().map(|&t| rotate_token(cells, t)).collect();
        if self.recall == Recall::View {
            rotated.sort_unstable();
        }
        rotated
    }
}

impl fmt::Display for Abstraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The actions at an abstract key (as [`Abstraction::abstract_key`]
/// writes them) on a board of `cells` cells, ascending: the cells none of
/// its tokens names.
pub fn key_actions(cells: usize, key: &[Token]) -> Vec<Action> {
    (0..cells as Action)
        .filter(|&c| !key.iter().any(|&t| t & token::CELL_MASK == c))
        .collect()
}

/// A token with its cell (if it names one) turned by 180 degrees.
fn rotate_token(cells: usize, t: Token) -> Token {
    match t & token::KIND_MASK {
        token::PLACED | token::COLLIDED | token::FLASH => {
            let cell = (t & token::CELL_MASK) as usize;
            (t & token::KIND_MASK) | (cells - 1 - cell) as Token
        }
        _ => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_itself() {
        for name in Abstraction::NAMES {
            assert_eq!(Abstraction::parse(name).unwrap().name(), name);
        }
        let e = Abstraction::parse("views").unwrap_err().to_string();
        assert!(e.contains("'views'") && e.contains("view-rot180"), "{e}");
    }

    #[test]
    fn keys_forget_what_the_abstraction_drops_and_rotate_to_the_smaller() {
        // 2x3: cells 0..6; the rotation maps c to 5 - c.
        let key = [token::COLLIDED | 4, token::OPPONENT_TURN, token::PLACED | 5];
        let mut out = Vec::new();
        let of = |a: &str, out: &mut Vec<Token>| {
            let r = Abstraction::parse(a).unwrap().abstract_key(6, &key, out);
            (r, out.clone())
        };
        assert_eq!(of("perfect-recall", &mut out), (false, key.to_vec()));
        assert_eq!(
            of("attempts", &mut out),
            (false, vec![token::COLLIDED | 4, token::PLACED | 5])
        );
        assert_eq!(
            of("view", &mut out),
            (false, vec![token::PLACED | 5, token::COLLIDED | 4])
        );
        // Rotated: collided 1, placed 0; sorted: placed 0, collided 1 < placed 5, ...
        assert_eq!(
            of("view-rot180", &mut out),
            (true, vec![token::PLACED, token::COLLIDED | 1])
        );
        assert_eq!(
            of("attempts-rot180", &mut out),
            (true, vec![token::COLLIDED | 1, token::PLACED])
        );
    }
}
