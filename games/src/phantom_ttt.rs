//! Phantom tic-tac-toe as OpenSpiel defines it (`phantom_ttt`): tic-tac-toe
//! on a hidden board. Each player sees their own marks and the opponent
//! marks they have run into. A move onto an opponent's mark reveals it to
//! the mover, who goes again (`gameversion=classical`) or loses the turn
//! (`abrupt`), as in Dark Hex's classic and abrupt versions; the owner of
//! the mark learns nothing. Three in a row wins; a board filled without one
//! is a draw (returns 0). `obstype=reveal-numturns` also shows each player
//! every turn the opponent takes. The observations are Dark Hex's tokens
//! ([`crate::dark_hex::token`]), so a player's information state is exactly
//! the sequence of their attempts with each result (and the opponent's
//! turns), as OpenSpiel's information-state string and tensor say.

use std::fmt;

use smallvec::SmallVec;

use crate::board::{Dims, stone_glyph};
use crate::dark_hex::{Disclosure, GameVersion, ObsType, token, view_actions};
use crate::error::GameError;
use crate::game::{Action, Game, NUM_PLAYERS, State, Token, Turn};

/// The board: 3x3, cells named `a1` (top left) to `c3`, letter the column.
pub const DIMS: Dims = Dims::THREE_BY_THREE;
pub const CELLS: usize = 9;
/// Every cell, as a set.
pub const ALL: u16 = (1 << CELLS) - 1;

/// The eight lines of three, as cell sets (cell `r * 3 + c` at bit `r * 3 + c`).
pub const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

/// Whether `marks` hold a line of three.
pub fn has_line(marks: u16) -> bool {
    LINES.iter().any(|&line| line & !marks == 0)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PhantomTttGame {
    version: GameVersion,
    obstype: ObsType,
}

impl PhantomTttGame {
    pub fn new(version: GameVersion, obstype: ObsType) -> Self {
        PhantomTttGame { version, obstype }
    }

    pub fn version(&self) -> GameVersion {
        self.version
    }

    pub fn obstype(&self) -> ObsType {
        self.obstype
    }
}

impl Game for PhantomTttGame {
    type State = PhantomTttState;

    fn new_initial_state(&self) -> PhantomTttState {
        PhantomTttState {
            game: *self,
            marks: [0; NUM_PLAYERS],
            revealed: 0,
            to_move: 0,
            outcome: Outcome::Ongoing,
            logs: Default::default(),
            history: SmallVec::new(),
        }
    }

    fn num_distinct_actions(&self) -> usize {
        CELLS
    }

    /// Each cell is marked once and run into at most once, and the last
    /// mark ends the game at the latest: 17 turns.
    fn max_game_length(&self) -> usize {
        2 * CELLS - 1
    }

    fn game_string(&self) -> String {
        let mut params = Vec::new();
        if self.version != GameVersion::Classic {
            params.push(format!("gameversion={}", self.version.ttt_name()));
        }
        if self.obstype != ObsType::RevealNothing {
            params.push(format!("obstype={}", self.obstype.name()));
        }
        if params.is_empty() {
            "phantom_ttt".to_string()
        } else {
            format!("phantom_ttt({})", params.join(","))
        }
    }

    fn min_utility(&self) -> f64 {
        -1.0
    }

    fn max_utility(&self) -> f64 {
        1.0
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        DIMS.parse_cell(text).map(|c| c as Action)
    }

    fn action_name(&self, action: Action) -> String {
        if (action as usize) < CELLS {
            DIMS.cell_name(action as usize)
        } else {
            // Not an action of the game (a damaged file can name one).
            format!("action {action}")
        }
    }

    fn describe_token(&self, t: Token) -> String {
        let cell = (t & token::CELL_MASK) as usize;
        match t & token::KIND_MASK {
            token::PLACED if cell < CELLS => format!("marked {}", DIMS.cell_name(cell)),
            token::COLLIDED if cell < CELLS => format!("hit {}", DIMS.cell_name(cell)),
            token::OPPONENT_TURN => "opponent moved".to_string(),
            _ => format!("token {t:#x}"),
        }
    }

    fn info_state_actions(&self, _player: usize, key: &[Token]) -> Result<Vec<Action>, String> {
        view_actions(
            CELLS,
            self.obstype,
            Disclosure::None,
            |t| self.describe_token(t),
            key,
        )
    }

    fn render_info_state(&self, player: usize, key: &[Token]) -> String {
        let mut view = [None; CELLS];
        for &t in key {
            let cell = (t & token::CELL_MASK) as usize;
            match t & token::KIND_MASK {
                token::PLACED if cell < CELLS => view[cell] = Some(player),
                token::COLLIDED if cell < CELLS => view[cell] = Some(1 - player),
                _ => {}
            }
        }
        DIMS.render_square(|c| view[c].map_or('.', stone_glyph))
    }
}

/// How a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Ongoing,
    Won(usize),
    Draw,
}

/// The real state of a phantom tic-tac-toe game, with both players' views.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhantomTttState {
    game: PhantomTttGame,
    /// Each player's marks, as cell sets.
    marks: [u16; NUM_PLAYERS],
    /// Marks their owner's opponent has run into.
    revealed: u16,
    to_move: u8,
    outcome: Outcome,
    logs: [SmallVec<[Token; 17]>; NUM_PLAYERS],
    history: SmallVec<[Action; 17]>,
}

impl PhantomTttState {
    pub fn game(&self) -> &PhantomTttGame {
        &self.game
    }

    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    /// Each player's marks on the real board, as cell sets.
    pub fn marks(&self) -> [u16; NUM_PLAYERS] {
        self.marks
    }

    /// The cells on which `player` sees a mark: their own, and the
    /// opponent's they have run into.
    pub fn seen(&self, player: usize) -> u16 {
        self.marks[player] | (self.marks[1 - player] & self.revealed)
    }

    /// The mark `player` sees on `cell`.
    pub fn view(&self, player: usize, cell: usize) -> Option<usize> {
        let bit = 1 << cell;
        if self.seen(player) & bit == 0 {
            None
        } else if self.marks[player] & bit != 0 {
            Some(player)
        } else {
            Some(1 - player)
        }
    }

    /// Whose mark is on `cell` of the real board.
    pub fn mark(&self, cell: usize) -> Option<usize> {
        (0..NUM_PLAYERS).find(|&p| self.marks[p] & (1 << cell) != 0)
    }

    fn legal_set(&self) -> u16 {
        if self.outcome == Outcome::Ongoing {
            ALL & !self.seen(self.to_move as usize)
        } else {
            0
        }
    }
}

impl State for PhantomTttState {
    #[inline]
    fn current_player(&self) -> Turn {
        match self.outcome {
            Outcome::Ongoing => Turn::Player(self.to_move as usize),
            _ => Turn::Terminal,
        }
    }

    fn legal_actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        let mut free = self.legal_set();
        while free != 0 {
            out.push(free.trailing_zeros() as Action);
            free &= free - 1;
        }
    }

    fn legal_mask_into(&self, _buf: &mut Vec<Action>, words: &mut [u64]) {
        words.fill(0);
        words[0] = u64::from(self.legal_set());
    }

    fn apply(&mut self, action: Action) {
        let mover = self.to_move as usize;
        let opponent = 1 - mover;
        let bit = 1u16 << action;
        self.history.push(action);
        let turn = (self.game.obstype == ObsType::RevealNumTurns).then_some(token::OPPONENT_TURN);
        if let Some(t) = turn {
            self.logs[opponent].push(t);
        }
        if self.marks[opponent] & bit != 0 {
            self.revealed |= bit;
            self.logs[mover].push(token::COLLIDED | action);
            if self.game.version == GameVersion::Abrupt {
                self.to_move = opponent as u8;
            }
            return;
        }
        self.marks[mover] |= bit;
        self.logs[mover].push(token::PLACED | action);
        self.outcome = if has_line(self.marks[mover]) {
            Outcome::Won(mover)
        } else if self.marks[0] | self.marks[1] == ALL {
            Outcome::Draw
        } else {
            self.to_move = opponent as u8;
            Outcome::Ongoing
        };
    }

    fn check_action(&self, action: Action) -> Result<(), GameError> {
        if self.outcome != Outcome::Ongoing {
            return Err(GameError::GameOver);
        }
        let cell = action as usize;
        if cell >= CELLS {
            return Err(GameError::IllegalMove {
                name: action.to_string(),
                reason: format!("cell ids go from 0 to {}", CELLS - 1),
            });
        }
        let p = self.to_move as usize;
        match self.view(p, cell) {
            None => Ok(()),
            Some(owner) => Err(GameError::IllegalMove {
                name: DIMS.cell_name(cell),
                reason: format!(
                    "the cell holds {} mark ({})",
                    if owner == p {
                        "your own"
                    } else {
                        "a discovered"
                    },
                    stone_glyph(owner)
                ),
            }),
        }
    }

    fn returns(&self) -> [f64; NUM_PLAYERS] {
        match self.outcome {
            Outcome::Won(0) => [1.0, -1.0],
            Outcome::Won(_) => [-1.0, 1.0],
            _ => [0.0, 0.0],
        }
    }

    fn info_key(&self, player: usize) -> &[Token] {
        &self.logs[player]
    }

    fn history(&self) -> &[Action] {
        &self.history
    }

    fn view_string(&self, player: usize) -> String {
        DIMS.render_square(|c| self.view(player, c).map_or('.', stone_glyph))
    }
}

impl fmt::Display for PhantomTttState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&DIMS.render_square(|c| self.mark(c).map_or('.', stone_glyph)))
    }
}

/// OpenSpiel's plane of a cell in a player's view: 0 empty, 1 player 1's
/// mark (a nought), 2 player 0's (a cross).
fn openspiel_plane(mark: Option<usize>) -> usize {
    match mark {
        None => 0,
        Some(p) => 2 - p,
    }
}

/// OpenSpiel's layouts, value for value: the view in three planes of nine
/// cells (empty, noughts, crosses); the information state then lists the
/// player's own attempts, one slot of nine cells each (`reveal-nothing`),
/// or every turn, one slot of eleven columns each (`reveal-numturns`: the
/// mover as 0 or 1, then the cell, or column 10 for an opponent's turn);
/// the observation adds the number of turns so far, one-hot
/// (`reveal-numturns`; OpenSpiel's 17 columns hold 0 to 16, the turns of a
/// game still going).
impl crate::tensor::Tensors for PhantomTttGame {
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        let (slots, width) = self.sequence_layout();
        vec![3 * CELLS + slots * width]
    }

    fn observation_tensor_shape(&self) -> Vec<usize> {
        match self.obstype {
            ObsType::RevealNothing => vec![3 * CELLS],
            ObsType::RevealNumTurns => vec![3 * CELLS + self.max_game_length()],
        }
    }

    fn information_state_tensor(&self, state: &PhantomTttState, player: usize, out: &mut [f32]) {
        self.log_tensor(player, &state.logs[player], out);
    }

    /// The key is the player's log, which holds their view too (their own
    /// marks placed, the opponent's found by collisions): checked as a
    /// policy file's keys are, then written as a state's log is.
    fn information_state_tensor_of_key(
        &self,
        player: usize,
        key: &[Token],
        out: &mut [f32],
    ) -> Result<(), String> {
        self.info_state_actions(player, key)?;
        let (slots, _) = self.sequence_layout();
        if key.len() > slots {
            return Err(format!(
                "it holds {} observations, more than a game of {} has",
                key.len(),
                self.game_string()
            ));
        }
        self.log_tensor(player, key, out);
        Ok(())
    }

    fn observation_tensor(&self, state: &PhantomTttState, player: usize, out: &mut [f32]) {
        self.view_planes(state, player, out);
        let turns = state.history.len();
        if self.obstype == ObsType::RevealNumTurns && turns < self.max_game_length() {
            out[3 * CELLS + turns] = 1.0;
        }
    }
}

impl PhantomTttGame {
    /// The information-state tensor of `player`'s log.
    fn log_tensor(&self, player: usize, log: &[Token], out: &mut [f32]) {
        let mut view = [None; CELLS];
        for &t in log {
            let cell = usize::from(t & token::CELL_MASK);
            match t & token::KIND_MASK {
                token::PLACED => view[cell] = Some(player),
                token::COLLIDED => view[cell] = Some(1 - player),
                _ => {}
            }
        }
        for (c, &mark) in view.iter().enumerate() {
            out[openspiel_plane(mark) * CELLS + c] = 1.0;
        }
        let (_, width) = self.sequence_layout();
        let mut at = 3 * CELLS;
        for &t in log {
            let cell = usize::from(t & token::CELL_MASK);
            match (self.obstype, t & token::KIND_MASK) {
                (ObsType::RevealNothing, _) => out[at + cell] = 1.0,
                (ObsType::RevealNumTurns, token::OPPONENT_TURN) => {
                    out[at] = (1 - player) as f32;
                    out[at + 1 + CELLS] = 1.0;
                }
                (ObsType::RevealNumTurns, _) => {
                    out[at] = player as f32;
                    out[at + 1 + cell] = 1.0;
                }
            }
            at += width;
        }
    }

    /// Slots and columns a slot of the information-state tensor's sequence.
    fn sequence_layout(&self) -> (usize, usize) {
        match self.obstype {
            ObsType::RevealNothing => (CELLS, CELLS),
            ObsType::RevealNumTurns => (self.max_game_length(), CELLS + 2),
        }
    }

    fn view_planes(&self, state: &PhantomTttState, player: usize, out: &mut [f32]) {
        for c in 0..CELLS {
            out[openspiel_plane(state.view(player, c)) * CELLS + c] = 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(game: PhantomTttGame, cells: &[&str]) -> PhantomTttState {
        let mut s = game.new_initial_state();
        for c in cells {
            s.try_apply(game.parse_action(c).unwrap()).unwrap();
        }
        s
    }

    #[test]
    fn a_hit_reveals_the_mark_and_keeps_or_passes_the_turn() {
        for (version, again) in [(GameVersion::Classic, true), (GameVersion::Abrupt, false)] {
            let game = PhantomTttGame::new(version, ObsType::RevealNothing);
            let s = play(game, &["b2", "b2"]);
            assert_eq!(s.view(1, 4), Some(0));
            assert_eq!(s.view(0, 4), Some(0));
            assert_eq!(s.current_player(), Turn::Player(if again { 1 } else { 0 }));
            assert_eq!(s.info_key(1), &[token::COLLIDED | 4]);
            assert_eq!(
                s.info_key(0),
                &[token::PLACED | 4],
                "the owner learns nothing"
            );
            assert!(s.check_action(4).is_err());
        }
    }

    #[test]
    fn three_in_a_row_wins_and_a_full_board_draws() {
        let game = PhantomTttGame::new(GameVersion::Classic, ObsType::RevealNothing);
        let won = play(game, &["a1", "a2", "b1", "b2", "c1"]);
        assert_eq!(won.outcome(), Outcome::Won(0));
        assert_eq!(won.returns(), [1.0, -1.0]);
        // x: a1 b1 a3 c2 c3, o: b2 c1 a2 b3; no line of three.
        let drawn = play(
            game,
            &["a1", "b2", "b1", "c1", "a3", "a2", "c2", "b3", "c3"],
        );
        assert_eq!(drawn.outcome(), Outcome::Draw);
        assert_eq!(drawn.returns(), [0.0, 0.0]);
        assert!(drawn.is_terminal());
    }

    #[test]
    fn turn_counts_show_every_opponent_turn() {
        let game = PhantomTttGame::new(GameVersion::Classic, ObsType::RevealNumTurns);
        let s = play(game, &["b2", "b2", "a1"]);
        assert_eq!(
            s.info_key(0),
            &[
                token::PLACED | 4,
                token::OPPONENT_TURN,
                token::OPPONENT_TURN
            ]
        );
        assert_eq!(
            s.info_key(1),
            &[token::OPPONENT_TURN, token::COLLIDED | 4, token::PLACED]
        );
    }
}
