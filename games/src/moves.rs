//! Moves as a user writes them, read at the state they are played in: a
//! chance outcome by its name where chance acts (a card: `J`, `Qh`), an
//! action where a player does (a cell such as `b2`, or `bet`). The same
//! word never means a card at one step and an action at another.

use crate::error::GameError;
use crate::game::{Action, Game, State, Turn};

/// More legal moves than this are not listed in an error (a board's cells).
const LISTED: usize = 12;

/// Reads `text` as the next move at `state`; the error names what is
/// accepted there.
pub fn parse_move<G: Game>(game: &G, state: &G::State, text: &str) -> Result<Action, GameError> {
    let word = text.trim();
    match state.current_player() {
        Turn::Terminal => Err(GameError::GameOver),
        Turn::Chance => {
            let outcomes: Vec<Action> = state.chance_outcomes().iter().map(|o| o.0).collect();
            outcomes
                .iter()
                .copied()
                .find(|&a| game.chance_outcome_name(a).eq_ignore_ascii_case(word))
                .ok_or_else(|| GameError::BadMove {
                    text: text.to_string(),
                    expected: format!(
                        "chance deals a card here: one of {}",
                        names(&outcomes, |a| game.chance_outcome_name(a))
                    ),
                })
        }
        Turn::Player(p) => {
            let legal = state.legal_actions();
            let action = game.parse_action(word).map_err(|e| match e {
                GameError::BadMove { text, expected } if legal.len() <= LISTED => {
                    GameError::BadMove {
                        text,
                        expected: format!(
                            "{expected}; player {p} moves here: {}",
                            names(&legal, |a| game.action_name(a))
                        ),
                    }
                }
                e => e,
            })?;
            state.check_action(action)?;
            Ok(action)
        }
    }
}

/// What `state` waits for, in words: "chance deals one of J, Q, K",
/// "player 1 moves: pass, bet" (the moves left out on a large board).
pub fn awaited<G: Game>(game: &G, state: &G::State) -> String {
    match state.current_player() {
        Turn::Terminal => "nothing: the game is over".to_string(),
        Turn::Chance => {
            let outcomes: Vec<Action> = state.chance_outcomes().iter().map(|o| o.0).collect();
            format!(
                "chance deals one of {}",
                names(&outcomes, |a| game.chance_outcome_name(a))
            )
        }
        Turn::Player(p) => {
            let legal = state.legal_actions();
            if legal.len() <= LISTED {
                format!(
                    "player {p} moves: {}",
                    names(&legal, |a| game.action_name(a))
                )
            } else {
                format!("player {p} moves ({} legal moves)", legal.len())
            }
        }
    }
}

fn names(actions: &[Action], name: impl Fn(Action) -> String) -> String {
    actions
        .iter()
        .map(|&a| name(a))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_game;

    fn replay(game: &str, moves: &[&str]) -> Result<Vec<Action>, GameError> {
        let g = load_game(game).unwrap();
        let mut s = g.new_initial_state();
        let mut out = Vec::new();
        for m in moves {
            let a = parse_move(&g, &s, m)?;
            s.apply(a);
            out.push(a);
        }
        Ok(out)
    }

    #[test]
    fn cards_are_read_where_chance_deals_and_actions_where_players_act() {
        // J, Q dealt, then pass and bet: ids 0 1 0 1.
        assert_eq!(
            replay("kuhn_poker", &["J", "q", "pass", "BET"]),
            Ok(vec![0, 1, 0, 1])
        );
        let e = replay("kuhn_poker", &["bet"]).unwrap_err().to_string();
        assert!(
            e.contains("chance deals a card here: one of J, Q, K"),
            "{e}"
        );
        let e = replay("kuhn_poker", &["J", "J"]).unwrap_err().to_string();
        assert!(e.contains("'J'") && e.contains("one of Q, K"), "{e}");
        let e = replay("kuhn_poker", &["J", "Q", "K"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("player 0 moves here: pass, bet"), "{e}");
        assert!(!e.contains("id"), "{e}");
        let e = replay("leduc_poker", &["Js", "Kh", "raise", "raise", "raise"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("raise") && e.contains("legal actions are fold, call"),
            "{e}"
        );
        let e = replay("hex(board_size=3)", &["b2", "d9"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("a1 to c3") && e.contains("player 1 moves here: a1, b1"),
            "{e}"
        );
        let e = replay("hex(board_size=1)", &["a1", "a1"]).unwrap_err();
        assert_eq!(e, GameError::GameOver);
    }

    #[test]
    fn what_a_state_waits_for_is_said_in_the_game_s_words() {
        let g = load_game("kuhn_poker").unwrap();
        let mut s = g.new_initial_state();
        assert_eq!(awaited(&g, &s), "chance deals one of J, Q, K");
        s.apply(0);
        assert_eq!(awaited(&g, &s), "chance deals one of Q, K");
        s.apply(2);
        assert_eq!(awaited(&g, &s), "player 0 moves: pass, bet");
        let h = load_game("hex(board_size=5)").unwrap();
        assert_eq!(
            awaited(&h, &h.new_initial_state()),
            "player 0 moves (25 legal moves)"
        );
    }
}
