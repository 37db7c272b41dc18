//! Pieces shared by the two reference poker games.

use smallvec::SmallVec;

use crate::game::{Game, NUM_PLAYERS, State, Token, Turn};

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

/// Parses an action of a poker game: one of `names` (case-insensitive).
/// Cards are chance outcomes, read by [`crate::moves::parse_move`] where
/// chance deals: a card's name is never an action.
pub fn parse_named(text: &str, names: &[(&str, u16)]) -> Result<u16, crate::GameError> {
    let t = text.trim().to_ascii_lowercase();
    if let Some(&(_, id)) = names.iter().find(|(n, _)| *n == t) {
        return Ok(id);
    }
    let accepted: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
    Err(crate::GameError::BadMove {
        text: text.to_string(),
        expected: format!("an action: one of {}", accepted.join(", ")),
    })
}

/// A history that shows `player` exactly `key`: the player's own card as the
/// key says, the opponent's the lowest card nobody else holds, then the
/// key's public cards and actions. Betting depends only on what both see,
/// so its legal actions are those of the information state.
pub fn replay_info_state<G: Game>(
    game: &G,
    player: usize,
    key: &[Token],
    deck: usize,
) -> Result<G::State, String> {
    let card_of = |t: Token, base: Token| {
        let c = t.wrapping_sub(base) as usize;
        (c < deck).then_some(c as u16)
    };
    let own = key
        .first()
        .and_then(|&t| card_of(t, PRIVATE_CARD))
        .ok_or("an information state starts with the player's own card")?;
    let public: Vec<u16> = key
        .iter()
        .filter_map(|&t| card_of(t, PUBLIC_CARD))
        .collect();
    let other = (0..deck as u16)
        .find(|c| *c != own && !public.contains(c))
        .ok_or("no card is left for the opponent")?;
    let mut state = game.new_initial_state();
    let deal = if player == 0 {
        [own, other]
    } else {
        [other, own]
    };
    for card in deal {
        state.check_action(card).map_err(|e| e.to_string())?;
        state.apply(card);
    }
    for (i, &t) in key.iter().enumerate().skip(1) {
        let action = match (state.current_player(), card_of(t, PUBLIC_CARD)) {
            (Turn::Chance, Some(card)) => card,
            (Turn::Player(_), None) if card_of(t, PRIVATE_CARD).is_none() => t,
            _ => return Err(format!("observation {} does not fit the game there", i + 1)),
        };
        state
            .check_action(action)
            .map_err(|e| format!("observation {}: {e}", i + 1))?;
        state.apply(action);
    }
    if state.current_player() != Turn::Player(player) || state.info_key(player) != key {
        return Err(format!("player {player} does not move there"));
    }
    Ok(state)
}
