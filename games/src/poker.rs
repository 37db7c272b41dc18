//! Pieces shared by the two reference poker games.

use smallvec::SmallVec;

use crate::game::{NUM_PLAYERS, Token};

/// Token of a private card dealt to the observer.
pub const PRIVATE_CARD: Token = 0x100;
/// Token of a public card seen by both players.
pub const PUBLIC_CARD: Token = 0x200;

/// A card id not yet dealt.
pub const NO_CARD: u8 = u8::MAX;

pub type Log = SmallVec<[Token; 12]>;

/// Zero-sum settlement: the winner takes the loser's contribution; a tie
/// (`None`) returns every chip.
pub fn settle(contributions: [u32; NUM_PLAYERS], winner: Option<usize>) -> [f64; NUM_PLAYERS] {
    match winner {
        Some(w) => {
            let won = contributions[1 - w] as f64;
            let mut r = [0.0; NUM_PLAYERS];
            r[w] = won;
            r[1 - w] = -won;
            r
        }
        None => [0.0; NUM_PLAYERS],
    }
}

/// Parses a move in a poker game: one of `names` (case-insensitive, or a
/// unique prefix), a card name, or an action id below `max_id`.
pub fn parse_named(
    text: &str,
    names: &[(&str, u16)],
    cards: &[&str],
    max_id: usize,
) -> Result<u16, crate::GameError> {
    let t = text.trim().to_ascii_lowercase();
    if let Some(&(_, id)) = names.iter().find(|(n, _)| *n == t) {
        return Ok(id);
    }
    if let Some(i) = cards.iter().position(|c| c.eq_ignore_ascii_case(&t)) {
        return Ok(i as u16);
    }
    if let Ok(id) = t.parse::<usize>()
        && id < max_id
    {
        return Ok(id as u16);
    }
    let mut accepted: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
    accepted.extend_from_slice(cards);
    Err(crate::GameError::BadMove {
        text: text.to_string(),
        expected: format!(
            "one of {} or an action id from 0 to {}",
            accepted.join(", "),
            max_id - 1
        ),
    })
}
