//! Hex and Rex (reverse Hex) with full information.

use std::fmt;

use smallvec::SmallVec;

use crate::board::{Dims, HexBoard, stone_glyph};
use crate::error::GameError;
use crate::game::{Action, Game, NUM_PLAYERS, State, Token, Turn};

/// Hex, or Rex when `misere` is set: the player who joins their sides loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HexGame {
    dims: Dims,
    misere: bool,
}

impl HexGame {
    /// The position after the moves of `key` (both players see every
    /// move: the key is the history).
    fn replay(&self, key: &[Token]) -> Result<HexState, String> {
        let mut state = self.new_initial_state();
        for (i, &a) in key.iter().enumerate() {
            state
                .check_action(a)
                .map_err(|e| format!("move {} of the key: {e}", i + 1))?;
            state.apply(a);
        }
        Ok(state)
    }

    pub fn new(dims: Dims, misere: bool) -> Self {
        HexGame { dims, misere }
    }

    pub fn dims(&self) -> Dims {
        self.dims
    }

    pub fn is_misere(&self) -> bool {
        self.misere
    }

    pub fn name(&self) -> &'static str {
        if self.misere { "rex" } else { "hex" }
    }
}

/// Winner of a game in which `joiner` just joined their sides.
pub(crate) fn winner_when_joined(joiner: usize, misere: bool) -> usize {
    if misere { 1 - joiner } else { joiner }
}

pub(crate) fn size_params(dims: Dims) -> String {
    if dims.rows() == dims.cols() {
        format!("board_size={}", dims.rows())
    } else {
        format!("num_rows={},num_cols={}", dims.rows(), dims.cols())
    }
}

pub(crate) fn returns_for(winner: Option<usize>) -> [f64; NUM_PLAYERS] {
    match winner {
        Some(0) => [1.0, -1.0],
        Some(_) => [-1.0, 1.0],
        None => [0.0, 0.0],
    }
}

impl Game for HexGame {
    type State = HexState;

    fn new_initial_state(&self) -> HexState {
        HexState {
            game: *self,
            board: HexBoard::new(self.dims),
            history: SmallVec::new(),
            winner: None,
        }
    }

    fn num_distinct_actions(&self) -> usize {
        self.dims.cells()
    }

    fn max_game_length(&self) -> usize {
        self.dims.cells()
    }

    fn game_string(&self) -> String {
        format!("{}({})", self.name(), size_params(self.dims))
    }

    fn min_utility(&self) -> f64 {
        -1.0
    }

    fn max_utility(&self) -> f64 {
        1.0
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        self.dims.parse_cell(text).map(|c| c as Action)
    }

    fn action_name(&self, action: Action) -> String {
        self.dims.cell_name(action as usize)
    }

    fn describe_token(&self, token: Token) -> String {
        self.action_name(token)
    }

    fn info_state_actions(&self, player: usize, key: &[Token]) -> Result<Vec<Action>, String> {
        let state = self.replay(key)?;
        match state.current_player() {
            Turn::Player(p) if p == player => Ok(state.legal_actions()),
            Turn::Player(p) => Err(format!("player {p} is to move there, not player {player}")),
            _ => Err("the game is over there".to_string()),
        }
    }

    fn render_info_state(&self, _player: usize, key: &[Token]) -> String {
        let mut state = self.new_initial_state();
        for &a in key {
            state.apply(a);
        }
        state.board.render()
    }
}

/// A Hex or Rex position. Both players see everything, so each player's
/// information state is the whole move sequence.
#[derive(Debug, PartialEq, Eq)]
pub struct HexState {
    game: HexGame,
    board: HexBoard,
    history: SmallVec<[Action; 32]>,
    winner: Option<usize>,
}

impl Clone for HexState {
    fn clone(&self) -> Self {
        HexState {
            game: self.game,
            board: self.board.clone(),
            history: self.history.clone(),
            winner: self.winner,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.game = source.game;
        self.board.clone_from(&source.board);
        self.history.clone_from(&source.history);
        self.winner = source.winner;
    }
}

impl HexState {
    pub fn board(&self) -> &HexBoard {
        &self.board
    }

    pub fn winner(&self) -> Option<usize> {
        self.winner
    }

    fn to_move(&self) -> usize {
        self.history.len() % 2
    }
}

impl State for HexState {
    fn current_player(&self) -> Turn {
        if self.winner.is_some() {
            Turn::Terminal
        } else {
            Turn::Player(self.to_move())
        }
    }

    fn legal_actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.winner.is_none() {
            let cells = self.game.dims.cells();
            out.extend(
                (0..cells)
                    .filter(|&c| self.board.is_empty(c))
                    .map(|c| c as Action),
            );
        }
    }

    fn apply(&mut self, action: Action) {
        let player = self.to_move();
        if self.board.place(action as usize, player) {
            self.winner = Some(winner_when_joined(player, self.game.misere));
        }
        self.history.push(action);
    }

    fn check_action(&self, action: Action) -> Result<(), GameError> {
        if self.winner.is_some() {
            return Err(GameError::GameOver);
        }
        let dims = self.game.dims;
        let cell = action as usize;
        if cell >= dims.cells() {
            return Err(GameError::IllegalMove {
                name: action.to_string(),
                reason: format!("cell ids go from 0 to {}", dims.cells() - 1),
            });
        }
        if let Some(p) = self.board.stone(cell) {
            return Err(GameError::IllegalMove {
                name: dims.cell_name(cell),
                reason: format!("the cell already holds {}", stone_glyph(p)),
            });
        }
        Ok(())
    }

    fn returns(&self) -> [f64; NUM_PLAYERS] {
        returns_for(self.winner)
    }

    fn info_key(&self, _player: usize) -> &[Token] {
        &self.history
    }

    fn history(&self) -> &[Action] {
        &self.history
    }

    fn view_string(&self, _player: usize) -> String {
        self.board.render()
    }
}

impl fmt::Display for HexState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.board.render())
    }
}

impl crate::tensor::Tensors for HexGame {
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        self.observation_tensor_shape()
    }

    fn observation_tensor_shape(&self) -> Vec<usize> {
        vec![3, self.dims.rows(), self.dims.cols()]
    }

    fn information_state_tensor(&self, state: &HexState, player: usize, out: &mut [f32]) {
        self.observation_tensor(state, player, out);
    }

    fn information_state_tensor_of_key(
        &self,
        player: usize,
        key: &[Token],
        out: &mut [f32],
    ) -> Result<(), String> {
        self.observation_tensor(&self.replay(key)?, player, out);
        Ok(())
    }

    fn observation_tensor(&self, state: &HexState, _player: usize, out: &mut [f32]) {
        crate::tensor::board_planes(self.dims.cells(), out, |c| state.board.stone(c));
    }
}
