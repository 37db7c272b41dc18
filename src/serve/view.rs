//! States as the pages draw them: boards (the referee's and each player's
//! view of a dark game), what a player has observed, and a game replayed
//! move by move. Everything here reads the games' own accessors and the
//! CLI's move lines ([`crate::play`]); nothing decides a rule.

use darkhex_games::dark_hex::token;
use darkhex_games::{Action, AnyGame, AnyState, Game, State, Turn, parse_move};
use serde::Serialize;

use super::api::ApiError;
use crate::play::{move_line, mover_label, outcome_line};

/// A board: each cell's stone (0 Black, 1 White), and which stones the
/// opponent of their owner has discovered (dark games).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Board {
    pub rows: usize,
    pub cols: usize,
    pub cells: Vec<Option<usize>>,
    pub revealed: Vec<bool>,
}

/// The real board of a board game.
pub fn real_board(state: &AnyState) -> Option<Board> {
    match state {
        AnyState::Hex(s) => {
            let b = s.board();
            let cells = (0..b.dims().cells()).map(|c| b.stone(c)).collect();
            Some(board(b.dims(), cells, vec![false; b.dims().cells()]))
        }
        AnyState::DarkHex(s) => {
            let b = s.board();
            let n = b.dims().cells();
            let cells = (0..n).map(|c| b.stone(c)).collect();
            let revealed = (0..n).map(|c| b.is_revealed(c)).collect();
            Some(board(b.dims(), cells, revealed))
        }
        // Their boards are not hex boards (tic-tac-toe) or not boards at
        // all: the pages show their moves and observations in words.
        AnyState::Kuhn(_)
        | AnyState::Leduc(_)
        | AnyState::PhantomTtt(_)
        | AnyState::LiarsDice(_) => None,
    }
}

/// What `player` sees of the board: the real board in Hex and Rex, their
/// own stones and the ones they ran into in a dark game.
pub fn player_board(state: &AnyState, player: usize) -> Option<Board> {
    match state {
        AnyState::DarkHex(s) => {
            let dims = s.board().dims();
            let cells: Vec<Option<usize>> = (0..dims.cells()).map(|c| s.view(player, c)).collect();
            let revealed = cells.iter().map(|&o| o == Some(1 - player)).collect();
            Some(board(dims, cells, revealed))
        }
        _ => real_board(state),
    }
}

fn board(
    dims: darkhex_games::board::Dims,
    cells: Vec<Option<usize>>,
    revealed: Vec<bool>,
) -> Board {
    Board {
        rows: dims.rows(),
        cols: dims.cols(),
        cells,
        revealed,
    }
}

/// What a player has observed: each observation of their information
/// state in words, and the counts a dark game's variant discloses.
#[derive(Clone, Debug, Serialize)]
pub struct Observed {
    pub log: Vec<String>,
    /// Their own attempts that found an opponent stone.
    pub collisions: usize,
    /// The opponent's turns, where `obstype=reveal-numturns` shows them.
    pub opponent_turns: Option<usize>,
    /// Collisions the opponent made on the player's stones, where the
    /// disclosure tells of them (noise: how many; flash: where).
    pub opponent_collisions: Option<usize>,
}

pub fn observed(game: &AnyGame, key: &[darkhex_games::Token]) -> Observed {
    let kinds =
        |k: darkhex_games::Token| key.iter().filter(|&&t| t & token::KIND_MASK == k).count();
    let (turns, theirs) = match game {
        AnyGame::DarkHex(g) => (
            // A collision the disclosure tells of stands for the turn too.
            (g.obstype() == darkhex_games::dark_hex::ObsType::RevealNumTurns)
                .then(|| kinds(token::OPPONENT_TURN) + kinds(token::NOISE) + kinds(token::FLASH)),
            (g.disclosure() != darkhex_games::dark_hex::Disclosure::None)
                .then(|| kinds(token::NOISE) + kinds(token::FLASH)),
        ),
        _ => (None, None),
    };
    Observed {
        log: key.iter().map(|&t| game.describe_token(t)).collect(),
        collisions: match game {
            AnyGame::DarkHex(_) => kinds(token::COLLIDED),
            _ => 0,
        },
        opponent_turns: turns,
        opponent_collisions: theirs,
    }
}

/// A legal action with the name a user reads.
#[derive(Clone, Debug, Serialize)]
pub struct Named {
    pub id: Action,
    pub name: String,
}

pub fn named(game: &AnyGame, actions: &[Action]) -> Vec<Named> {
    actions
        .iter()
        .map(|&id| Named {
            id,
            name: game.action_name(id),
        })
        .collect()
}

/// One position of a game shown whole: the real state and each player's
/// view, with the move that led to it.
#[derive(Clone, Debug, Serialize)]
pub struct Frame {
    /// The move that led here, as `play` prints it ("x b2 (hit)").
    pub line: Option<String>,
    /// The action id of that move, and who made it (a player, or chance).
    pub action: Option<Action>,
    pub mover: Option<String>,
    pub to_move: String,
    /// Whether the players' views differ from the real board (dark games).
    pub dark: bool,
    pub real: Option<Board>,
    /// Each player's view (dark games and poker differ from the real state).
    pub views: [Option<Board>; 2],
    /// The state and the views as the CLI draws them (poker shows only these).
    pub text: String,
    pub view_texts: [String; 2],
    /// Each player's observations so far.
    pub observed: [Observed; 2],
    pub outcome: Option<String>,
    pub returns: Option<[f64; 2]>,
}

pub fn frame(game: &AnyGame, state: &AnyState, last: Option<(&AnyState, Action)>) -> Frame {
    let over = state.current_player() == Turn::Terminal;
    Frame {
        line: last.map(|(before, a)| move_line(game, before, a)),
        action: last.map(|(_, a)| a),
        mover: last.map(|(before, _)| mover_label(game, before.current_player())),
        to_move: mover_label(game, state.current_player()),
        dark: matches!(game, AnyGame::DarkHex(_)),
        real: real_board(state),
        views: [player_board(state, 0), player_board(state, 1)],
        text: state.to_string(),
        view_texts: [state.view_string(0), state.view_string(1)],
        observed: [
            observed(game, state.info_key(0)),
            observed(game, state.info_key(1)),
        ],
        outcome: over.then(|| outcome_line(game, state)),
        returns: over.then(|| state.returns()),
    }
}

/// Reads comma-separated moves (as `play --moves` takes them) from the
/// start; the error names the move and what was accepted there.
pub fn replay_states(game: &AnyGame, moves: &str) -> Result<Vec<(AnyState, Action)>, ApiError> {
    let mut state = game.new_initial_state();
    let mut out = Vec::new();
    for (i, text) in moves.split(',').map(str::trim).enumerate() {
        if text.is_empty() && moves.trim().is_empty() {
            break;
        }
        let action = parse_move(game, &state, text).map_err(|e| {
            ApiError::bad(format!(
                "move {} ('{}'): {e}",
                i + 1,
                darkhex_games::one_line(text)
            ))
        })?;
        out.push((state.clone(), action));
        state.apply(action);
    }
    Ok(out)
}

/// Every position of a game from the start, replayed from its moves.
pub fn replay(game: &AnyGame, moves: &str) -> Result<Vec<Frame>, ApiError> {
    let steps = replay_states(game, moves)?;
    let mut state = game.new_initial_state();
    let mut frames = vec![frame(game, &state, None)];
    for (before, action) in &steps {
        state.apply(*action);
        frames.push(frame(game, &state, Some((before, *action))));
    }
    Ok(frames)
}

/// The state after `moves`.
pub fn state_after(game: &AnyGame, moves: &str) -> Result<AnyState, ApiError> {
    let steps = replay_states(game, moves)?;
    let mut state = game.new_initial_state();
    for (_, a) in steps {
        state.apply(a);
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use darkhex_games::load_game;

    use super::*;

    #[test]
    fn a_dark_replay_shows_each_player_only_their_stones_and_what_they_hit() {
        // Black a1, White a1 (a collision: White sees Black's stone), then
        // White b1 in classic Dark Hex, where the collider moves again.
        let game = load_game("dark_hex(num_rows=2,num_cols=2)").unwrap();
        let frames = replay(&game, "a1,a1,b1").unwrap();
        assert_eq!(frames.len(), 4);
        let last = &frames[3];
        let real = last.real.as_ref().unwrap();
        assert_eq!(real.cells, vec![Some(0), Some(1), None, None]);
        assert_eq!(real.revealed, vec![true, false, false, false]);
        let black = last.views[0].as_ref().unwrap();
        assert_eq!(black.cells, vec![Some(0), None, None, None]);
        let white = last.views[1].as_ref().unwrap();
        assert_eq!(white.cells, vec![Some(0), Some(1), None, None]);
        assert_eq!(white.revealed, vec![true, false, false, false]);
        assert_eq!(frames[2].line.as_deref(), Some("o a1 (hit)"));
        assert_eq!(last.observed[1].collisions, 1);
        assert_eq!(last.observed[1].log, vec!["hit a1", "placed b1"]);
        assert_eq!(last.to_move, "x");
        let e = replay(&game, "a1,zz").unwrap_err();
        assert!(e.message.starts_with("move 2 ('zz')"), "{}", e.message);
    }

    #[test]
    fn the_variants_disclose_turns_and_collisions_as_their_parameters_say() {
        let game =
            load_game("dark_hex(num_rows=2,num_cols=2,obstype=reveal-numturns,disclosure=noise)")
                .unwrap();
        let frames = replay(&game, "a1,a1").unwrap();
        let black = &frames[2].observed[0];
        assert_eq!(black.opponent_collisions, Some(1));
        assert_eq!(black.opponent_turns, Some(1));
        let plain = load_game("dark_hex(num_rows=2,num_cols=2)").unwrap();
        let frames = replay(&plain, "a1,a1").unwrap();
        assert_eq!(frames[2].observed[0].opponent_turns, None);
        assert_eq!(frames[2].observed[0].opponent_collisions, None);
    }
}
