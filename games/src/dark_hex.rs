//! Dark Hex and Dark Rex: each player sees their own stones and the opponent
//! stones they have run into. Rules and information states follow DESIGN.md.

use std::fmt;

use smallvec::SmallVec;

use crate::board::{Dims, HexBoard, stone_glyph};
use crate::cellset::pick_set_bit;
use crate::error::GameError;
use crate::game::{Action, Game, NUM_PLAYERS, State, Token, Turn};
use crate::hex::{returns_for, size_params, winner_when_joined};

/// What happens to the mover after a collision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameVersion {
    /// `cdh`: the mover goes again.
    Classic,
    /// `adh`: the turn passes.
    Abrupt,
}

/// What both players see of the turn count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObsType {
    RevealNothing,
    /// Both players see the total number of turns (placements and collisions).
    RevealNumTurns,
}

/// What the owner of a stone learns when the opponent collides with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Disclosure {
    /// Nothing, as in OpenSpiel.
    None,
    /// That a collision happened, not where ("noisy Dark Hex").
    Noise,
    /// The cell ("flash Dark Hex").
    Flash,
}

impl GameVersion {
    pub const NAMES: [&'static str; 2] = ["cdh", "adh"];
    pub fn name(self) -> &'static str {
        match self {
            GameVersion::Classic => "cdh",
            GameVersion::Abrupt => "adh",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "cdh" => Some(GameVersion::Classic),
            "adh" => Some(GameVersion::Abrupt),
            _ => None,
        }
    }
}

impl GameVersion {
    /// The same two rules under phantom tic-tac-toe's names (OpenSpiel's).
    pub const TTT_NAMES: [&'static str; 2] = ["classical", "abrupt"];
    pub fn ttt_name(self) -> &'static str {
        match self {
            GameVersion::Classic => "classical",
            GameVersion::Abrupt => "abrupt",
        }
    }
    pub fn from_ttt_name(s: &str) -> Option<Self> {
        match s {
            "classical" => Some(GameVersion::Classic),
            "abrupt" => Some(GameVersion::Abrupt),
            _ => None,
        }
    }
}

impl ObsType {
    pub const NAMES: [&'static str; 2] = ["reveal-nothing", "reveal-numturns"];
    pub fn name(self) -> &'static str {
        match self {
            ObsType::RevealNothing => "reveal-nothing",
            ObsType::RevealNumTurns => "reveal-numturns",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "reveal-nothing" => Some(ObsType::RevealNothing),
            "reveal-numturns" => Some(ObsType::RevealNumTurns),
            _ => None,
        }
    }
}

impl Disclosure {
    pub const NAMES: [&'static str; 3] = ["none", "noise", "flash"];
    pub fn name(self) -> &'static str {
        match self {
            Disclosure::None => "none",
            Disclosure::Noise => "noise",
            Disclosure::Flash => "flash",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "none" => Some(Disclosure::None),
            "noise" => Some(Disclosure::Noise),
            "flash" => Some(Disclosure::Flash),
            _ => None,
        }
    }
}

/// Information-state tokens. A player's key is the sequence of these.
pub mod token {
    use crate::game::Token;

    /// The player's own stone went down on the cell (low 12 bits).
    pub const PLACED: Token = 0x0000;
    /// The player's own attempt found an opponent stone on the cell.
    pub const COLLIDED: Token = 0x1000;
    /// The opponent took a turn (`reveal-numturns` only).
    pub const OPPONENT_TURN: Token = 0x2000;
    /// The opponent collided with one of the player's stones (`noise`).
    pub const NOISE: Token = 0x3000;
    /// The opponent collided with the player's stone on the cell (`flash`).
    pub const FLASH: Token = 0x4000;

    pub const KIND_MASK: Token = 0xF000;
    pub const CELL_MASK: Token = 0x0FFF;
}

/// The legal cells at an information state of a game of hidden
/// placements on `cells` cells (Dark Hex, phantom tic-tac-toe), worked out
/// from its tokens: those empty in the player's view. Checks that each
/// observation is one the game shows (turn tokens only with turn counts,
/// noise and flash tokens only with that disclosure, a flash only on the
/// player's own stone, no cell seen twice).
pub(crate) fn view_actions(
    cells: usize,
    obstype: ObsType,
    disclosure: Disclosure,
    describe: impl Fn(Token) -> String,
    key: &[Token],
) -> Result<Vec<Action>, String> {
    let mut seen = vec![false; cells];
    let mut own = vec![false; cells];
    for (i, &t) in key.iter().enumerate() {
        let cell = (t & token::CELL_MASK) as usize;
        let bad = |why: &str| Err(format!("observation {} ({}) {why}", i + 1, describe(t)));
        match t & token::KIND_MASK {
            token::PLACED | token::COLLIDED if cell >= cells => {
                return bad(&format!("names a cell outside the {cells} cells"));
            }
            token::PLACED | token::COLLIDED if seen[cell] => {
                return bad("names a cell the player already knows");
            }
            token::PLACED | token::COLLIDED => {
                seen[cell] = true;
                own[cell] = t & token::KIND_MASK == token::PLACED;
            }
            token::OPPONENT_TURN if obstype == ObsType::RevealNumTurns => {}
            token::NOISE if disclosure == Disclosure::Noise => {}
            token::FLASH if disclosure == Disclosure::Flash && cell < cells && own[cell] => {}
            _ => return bad("is not one this game shows"),
        }
    }
    let legal: Vec<Action> = (0..cells)
        .filter(|&c| !seen[c])
        .map(|c| c as Action)
        .collect();
    if legal.is_empty() {
        return Err("the player sees no empty cell there".to_string());
    }
    Ok(legal)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DarkHexGame {
    dims: Dims,
    version: GameVersion,
    obstype: ObsType,
    disclosure: Disclosure,
    misere: bool,
}

impl DarkHexGame {
    pub fn new(
        dims: Dims,
        version: GameVersion,
        obstype: ObsType,
        disclosure: Disclosure,
        misere: bool,
    ) -> Self {
        DarkHexGame {
            dims,
            version,
            obstype,
            disclosure,
            misere,
        }
    }

    pub fn dims(&self) -> Dims {
        self.dims
    }
    pub fn version(&self) -> GameVersion {
        self.version
    }
    pub fn obstype(&self) -> ObsType {
        self.obstype
    }
    pub fn disclosure(&self) -> Disclosure {
        self.disclosure
    }
    pub fn is_misere(&self) -> bool {
        self.misere
    }
    pub fn name(&self) -> &'static str {
        if self.misere { "dark_rex" } else { "dark_hex" }
    }
}

impl Game for DarkHexGame {
    type State = DarkHexState;

    fn new_initial_state(&self) -> DarkHexState {
        DarkHexState {
            game: *self,
            board: HexBoard::new(self.dims),
            to_move: 0,
            winner: None,
            logs: Default::default(),
            history: SmallVec::new(),
            seen: [
                CellBits::new(self.dims.cells()),
                CellBits::new(self.dims.cells()),
            ],
        }
    }

    fn num_distinct_actions(&self) -> usize {
        self.dims.cells()
    }

    /// Each cell is placed once and collided into at most once, and the last
    /// placement ends the game at the latest: 2 * cells - 1 turns.
    fn max_game_length(&self) -> usize {
        2 * self.dims.cells() - 1
    }

    fn game_string(&self) -> String {
        let mut s = format!("{}({}", self.name(), size_params(self.dims));
        if self.version != GameVersion::Classic {
            s += &format!(",gameversion={}", self.version.name());
        }
        if self.obstype != ObsType::RevealNothing {
            s += &format!(",obstype={}", self.obstype.name());
        }
        if self.disclosure != Disclosure::None {
            s += &format!(",disclosure={}", self.disclosure.name());
        }
        s + ")"
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

    fn describe_token(&self, t: Token) -> String {
        let cell = || self.dims.cell_name((t & token::CELL_MASK) as usize);
        match t & token::KIND_MASK {
            token::PLACED => format!("placed {}", cell()),
            token::COLLIDED => format!("hit {}", cell()),
            token::OPPONENT_TURN => "opponent moved".to_string(),
            token::NOISE => "opponent hit a stone".to_string(),
            token::FLASH => format!("opponent hit {}", cell()),
            _ => format!("token {t:#x}"),
        }
    }

    /// See [`view_actions`].
    fn info_state_actions(&self, _player: usize, key: &[Token]) -> Result<Vec<Action>, String> {
        view_actions(
            self.dims.cells(),
            self.obstype,
            self.disclosure,
            |t| self.describe_token(t),
            key,
        )
    }

    fn render_info_state(&self, player: usize, key: &[Token]) -> String {
        let mut view = vec![None; self.dims.cells()];
        for &t in key {
            let cell = (t & token::CELL_MASK) as usize;
            match t & token::KIND_MASK {
                token::PLACED => view[cell] = Some(player),
                token::COLLIDED => view[cell] = Some(1 - player),
                _ => {}
            }
        }
        self.dims.render(|c| view[c].map_or('.', stone_glyph))
    }
}

/// The real state of a Dark Hex game, with both players' views.
#[derive(Debug, PartialEq, Eq)]
pub struct DarkHexState {
    game: DarkHexGame,
    /// The real board; it also marks the stones their owner's opponent has discovered.
    board: HexBoard,
    to_move: u8,
    winner: Option<usize>,
    logs: [SmallVec<[Token; 24]>; NUM_PLAYERS],
    history: SmallVec<[Action; 32]>,
    /// The cells on which each player sees a stone, redundant with the
    /// board: legal moves and their checks read it without a pass over the
    /// cells, which learning code pays on every step.
    seen: [CellBits; NUM_PLAYERS],
}

/// The cells of word `w` of a set of `cells` cells that the set lacks.
fn missing_bits(cells: usize, w: usize, word: u64) -> u64 {
    let valid = cells - 64 * w;
    if valid >= 64 {
        !word
    } else {
        !word & ((1 << valid) - 1)
    }
}

/// A set of cells, one bit a cell.
#[derive(Clone, Debug, PartialEq, Eq)]
struct CellBits(SmallVec<[u64; 2]>);

impl CellBits {
    fn new(cells: usize) -> Self {
        CellBits(smallvec::smallvec![0; cells.div_ceil(64)])
    }

    fn insert(&mut self, cell: usize) {
        self.0[cell / 64] |= 1 << (cell % 64);
    }

    fn contains(&self, cell: usize) -> bool {
        self.0[cell / 64] & (1 << (cell % 64)) != 0
    }

    /// The cells below `cells` not in the set, as bits into `words`.
    fn missing_words(&self, cells: usize, words: &mut [u64]) {
        for (w, (&word, out)) in self.0.iter().zip(words.iter_mut()).enumerate() {
            *out = missing_bits(cells, w, word);
        }
    }

    /// Of the `n` cells below `cells` not in the set, the one at index
    /// `pick(n)` in increasing order (see [`pick_set_bit`]).
    fn pick_missing(&self, cells: usize, pick: impl FnOnce(usize) -> usize) -> Option<usize> {
        let mut words: SmallVec<[u64; 2]> = smallvec::smallvec![0; self.0.len()];
        self.missing_words(cells, &mut words);
        pick_set_bit(&words, pick)
    }

    /// Appends the cells below `cells` not in the set, in increasing order.
    fn missing_into(&self, cells: usize, out: &mut Vec<Action>) {
        out.reserve(cells);
        for (w, &word) in self.0.iter().enumerate() {
            let mut missing = missing_bits(cells, w, word);
            while missing != 0 {
                out.push((64 * w + missing.trailing_zeros() as usize) as Action);
                missing &= missing - 1;
            }
        }
    }
}

impl Clone for DarkHexState {
    fn clone(&self) -> Self {
        DarkHexState {
            game: self.game,
            board: self.board.clone(),
            to_move: self.to_move,
            winner: self.winner,
            logs: self.logs.clone(),
            history: self.history.clone(),
            seen: self.seen.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.game = source.game;
        self.board.clone_from(&source.board);
        self.to_move = source.to_move;
        self.winner = source.winner;
        self.logs[0].clone_from(&source.logs[0]);
        self.logs[1].clone_from(&source.logs[1]);
        self.history.clone_from(&source.history);
        self.seen[0].clone_from(&source.seen[0]);
        self.seen[1].clone_from(&source.seen[1]);
    }
}

impl DarkHexState {
    pub fn game(&self) -> &DarkHexGame {
        &self.game
    }

    pub fn board(&self) -> &HexBoard {
        &self.board
    }

    pub fn winner(&self) -> Option<usize> {
        self.winner
    }

    /// The stone `player` sees on `cell`: their own stones, and opponent
    /// stones they have collided with.
    pub fn view(&self, player: usize, cell: usize) -> Option<usize> {
        match self.board.stone(cell) {
            Some(p) if p == player || self.board.is_revealed(cell) => Some(p),
            _ => None,
        }
    }

    /// Opponent stones on the board that `player` has not discovered.
    pub fn hidden_stones(&self, player: usize) -> usize {
        let cells = self.game.dims.cells();
        (0..cells)
            .filter(|&c| self.board.stone(c) == Some(1 - player) && !self.board.is_revealed(c))
            .count()
    }

    /// What the opponent of a collider learns, if anything.
    fn collision_token(&self, cell: usize) -> Option<Token> {
        match self.game.disclosure {
            Disclosure::Flash => Some(token::FLASH | cell as Token),
            Disclosure::Noise => Some(token::NOISE),
            Disclosure::None => self.turn_token(),
        }
    }

    fn turn_token(&self) -> Option<Token> {
        (self.game.obstype == ObsType::RevealNumTurns).then_some(token::OPPONENT_TURN)
    }
}

impl State for DarkHexState {
    #[inline]
    fn current_player(&self) -> Turn {
        if self.winner.is_some() {
            Turn::Terminal
        } else {
            Turn::Player(self.to_move as usize)
        }
    }

    fn legal_actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.winner.is_none() {
            self.seen[self.to_move as usize].missing_into(self.game.dims.cells(), out);
        }
    }

    fn legal_mask_into(&self, _buf: &mut Vec<Action>, words: &mut [u64]) {
        words.fill(0);
        if self.winner.is_none() {
            self.seen[self.to_move as usize].missing_words(self.game.dims.cells(), words);
        }
    }

    fn pick_legal_action(
        &self,
        _buf: &mut Vec<Action>,
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<Action> {
        if self.winner.is_some() {
            return None;
        }
        self.seen[self.to_move as usize]
            .pick_missing(self.game.dims.cells(), pick)
            .map(|c| c as Action)
    }

    fn apply(&mut self, action: Action) {
        let mover = self.to_move as usize;
        let opponent = 1 - mover;
        let cell = action as usize;
        self.history.push(action);
        self.seen[mover].insert(cell);
        if self.board.is_empty(cell) {
            self.logs[mover].push(token::PLACED | action);
            if let Some(t) = self.turn_token() {
                self.logs[opponent].push(t);
            }
            if self.board.place(cell, mover) {
                self.winner = Some(winner_when_joined(mover, self.game.misere));
            } else {
                self.to_move = opponent as u8;
            }
        } else {
            debug_assert_eq!(self.board.stone(cell), Some(opponent));
            self.board.reveal(cell);
            self.logs[mover].push(token::COLLIDED | action);
            if let Some(t) = self.collision_token(cell) {
                self.logs[opponent].push(t);
            }
            if self.game.version == GameVersion::Abrupt {
                self.to_move = opponent as u8;
            }
        }
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
        let p = self.to_move as usize;
        if !self.seen[p].contains(cell) {
            return Ok(());
        }
        if let Some(owner) = self.view(p, cell) {
            let whose = if owner == p {
                "your own"
            } else {
                "a discovered"
            };
            return Err(GameError::IllegalMove {
                name: dims.cell_name(cell),
                reason: format!("the cell holds {whose} stone ({})", stone_glyph(owner)),
            });
        }
        Ok(())
    }

    fn returns(&self) -> [f64; NUM_PLAYERS] {
        returns_for(self.winner)
    }

    fn info_key(&self, player: usize) -> &[Token] {
        &self.logs[player]
    }

    fn history(&self) -> &[Action] {
        &self.history
    }

    fn view_string(&self, player: usize) -> String {
        self.game
            .dims
            .render(|c| self.view(player, c).map_or('.', stone_glyph))
    }
}

impl fmt::Display for DarkHexState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.board.render())
    }
}

impl DarkHexGame {
    /// Columns of one observation slot in the information-state tensor.
    fn token_columns(&self) -> usize {
        let n = self.dims.cells();
        2 * n
            + if self.disclosure == Disclosure::Flash {
                n
            } else {
                0
            }
            + usize::from(self.disclosure == Disclosure::Noise)
            + usize::from(self.obstype == ObsType::RevealNumTurns)
    }

    /// Observation slots: a player's own attempts name each cell at most
    /// once; anything else they observe comes at most once a turn.
    fn token_slots(&self) -> usize {
        if self.token_columns() == 2 * self.dims.cells() {
            self.dims.cells()
        } else {
            self.max_game_length()
        }
    }

    /// The column of `t` within its slot: a base for its kind, plus its
    /// cell for the kinds that name one. Looked up by kind without a branch,
    /// as the tokens of a log vary at random in learning code.
    fn token_column(&self, t: Token) -> usize {
        let n = self.dims.cells();
        let flash = if self.disclosure == Disclosure::Flash {
            n
        } else {
            0
        };
        let noise = usize::from(self.disclosure == Disclosure::Noise);
        let turn = 2 * n + flash + noise;
        // By kind: placed, collided, opponent turn, noise, flash.
        let base = [0, n, turn, 2 * n + flash, 2 * n, turn];
        let names_cell = [1, 1, 0, 0, 1, 0];
        let kind = usize::from(t >> 12).min(5);
        base[kind] + usize::from(t & token::CELL_MASK) * names_cell[kind]
    }

    /// The information-state tensor of `player` whose observations are
    /// `log` (see [`crate::Tensors::information_state_tensor`]). The board
    /// planes come from the log, not from the board: a player sees
    /// exactly the cells of their placements and collisions, so the empty
    /// plane is filled and each such token moves its cell to its colour's
    /// plane. That is a few writes a token instead of a pass over every
    /// cell (tests/tensors.rs checks it against the board).
    fn log_tensor(&self, player: usize, log: &[Token], out: &mut [f32]) {
        let n = self.dims.cells();
        let (board, slots) = out.split_at_mut(3 * n);
        board[..n].fill(1.0);
        // The plane of a token's cell: own colour for a placement, the
        // opponent's for a collision.
        let own_plane = 1 + player;
        let collided_plane = 2 - player;
        // Planes 1 and 2 swap by xor with 3.
        debug_assert_eq!(own_plane ^ 3, collided_plane);
        let width = self.token_columns();
        if width == 2 * n {
            // Placements and collisions only: the kind's bit picks the column half.
            for (slot, &t) in log.iter().enumerate() {
                let cell = usize::from(t & token::CELL_MASK);
                let collided = usize::from(t >> 12);
                board[cell] = 0.0;
                board[(own_plane ^ (3 * collided)) * n + cell] = 1.0;
                slots[slot * width + collided * n + cell] = 1.0;
            }
            return;
        }
        for (slot, &t) in log.iter().enumerate() {
            let cell = usize::from(t & token::CELL_MASK);
            match t & token::KIND_MASK {
                token::PLACED => {
                    board[cell] = 0.0;
                    board[own_plane * n + cell] = 1.0;
                }
                token::COLLIDED => {
                    board[cell] = 0.0;
                    board[collided_plane * n + cell] = 1.0;
                }
                _ => {}
            }
            slots[slot * width + self.token_column(t)] = 1.0;
        }
    }
}

/// A cell's states in OpenSpiel's hex (`CellState`, -4 to 4).
const OPENSPIEL_CELL_STATES: usize = 9;
/// A cell's column inside its nine: `CellState` plus 4.
const OPENSPIEL_EMPTY: usize = 4;
const OPENSPIEL_STONE: [usize; NUM_PLAYERS] = [OPENSPIEL_EMPTY + 1, OPENSPIEL_EMPTY - 1];

impl DarkHexGame {
    /// Why OpenSpiel's `dark_hex` has no tensor for this game, if it has none.
    fn openspiel_missing(&self) -> Option<String> {
        let what = if self.misere {
            "the misère rule (dark_rex)"
        } else if self.disclosure != Disclosure::None {
            "collision disclosure (noise or flash)"
        } else {
            return None;
        };
        Some(format!(
            "OpenSpiel's dark_hex has no {what}, so {} has no OpenSpiel tensor",
            self.game_string()
        ))
    }

    /// Columns of one turn's slot, and slots, of OpenSpiel's tensor.
    fn openspiel_slots(&self) -> (usize, usize) {
        let n = self.dims.cells();
        match self.obstype {
            ObsType::RevealNothing => (n, n),
            ObsType::RevealNumTurns => (n + 2, self.max_game_length()),
        }
    }

    /// The length of OpenSpiel's information-state tensor (162 on 3x3
    /// with `reveal-nothing`), or why OpenSpiel has none for this game.
    pub fn openspiel_information_state_tensor_size(&self) -> Result<usize, String> {
        if let Some(why) = self.openspiel_missing() {
            return Err(why);
        }
        let (width, slots) = self.openspiel_slots();
        Ok(OPENSPIEL_CELL_STATES * self.dims.cells() + width * slots)
    }

    /// Writes `player`'s information-state tensor at the key `key` in
    /// OpenSpiel's layout into `out` (zeros, that size long): value for
    /// value what pyspiel 2.0.2 gives at every history of the key
    /// (python/tests/test_openspiel.py; games/tests/fixtures for Rust).
    /// The layout: each cell's state one-hot over OpenSpiel's nine (a
    /// player's view holds only empty, 0, Black, 1, and White, -1, where
    /// anyone moves), then the player's turns one slot each: with
    /// `reveal-nothing` their own attempts, a column per cell; with
    /// `reveal-numturns` every turn, column 0 the mover (0 or 1), then a
    /// column per cell for the player's own attempts, the last column for
    /// the opponent's.
    pub fn openspiel_information_state_tensor_of_key(
        &self,
        player: usize,
        key: &[Token],
        out: &mut [f32],
    ) -> Result<(), String> {
        let size = self.openspiel_information_state_tensor_size()?;
        self.info_state_actions(player, key)?;
        if key.len() > self.max_game_length() {
            return Err(format!(
                "it holds {} observations, more than a game of {} has",
                key.len(),
                self.game_string()
            ));
        }
        if out.len() != size {
            return Err(format!(
                "the tensor is {size} long, not {} (OpenSpiel's layout)",
                out.len()
            ));
        }
        let n = self.dims.cells();
        let (view, slots) = out.split_at_mut(OPENSPIEL_CELL_STATES * n);
        for c in 0..n {
            view[c * OPENSPIEL_CELL_STATES + OPENSPIEL_EMPTY] = 1.0;
        }
        let (width, _) = self.openspiel_slots();
        let numturns = self.obstype == ObsType::RevealNumTurns;
        for (slot, &t) in key.iter().enumerate() {
            let cell = usize::from(t & token::CELL_MASK);
            let row = &mut slots[slot * width..(slot + 1) * width];
            let owner = match t & token::KIND_MASK {
                token::PLACED => player,
                token::COLLIDED => 1 - player,
                _ => {
                    // An opponent's turn (the key was checked above).
                    row[0] = (1 - player) as f32;
                    row[n + 1] = 1.0;
                    continue;
                }
            };
            let cell_view = &mut view[cell * OPENSPIEL_CELL_STATES..][..OPENSPIEL_CELL_STATES];
            cell_view[OPENSPIEL_EMPTY] = 0.0;
            cell_view[OPENSPIEL_STONE[owner]] = 1.0;
            if numturns {
                row[0] = player as f32;
                row[1 + cell] = 1.0;
            } else {
                row[cell] = 1.0;
            }
        }
        Ok(())
    }
}

impl crate::tensor::Tensors for DarkHexGame {
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        vec![3 * self.dims.cells() + self.token_slots() * self.token_columns()]
    }

    fn observation_tensor_shape(&self) -> Vec<usize> {
        let n = self.dims.cells();
        let mut len = 3 * n;
        if self.obstype == ObsType::RevealNumTurns {
            len += self.max_game_length() + 1;
        }
        match self.disclosure {
            Disclosure::Flash => len += n,
            Disclosure::Noise => len += n + 1,
            Disclosure::None => {}
        }
        vec![len]
    }

    fn information_state_tensor(&self, state: &DarkHexState, player: usize, out: &mut [f32]) {
        self.log_tensor(player, &state.logs[player], out);
    }

    /// The key is the player's log: checked as a policy file's keys are,
    /// then written as a state's log is.
    fn information_state_tensor_of_key(
        &self,
        player: usize,
        key: &[Token],
        out: &mut [f32],
    ) -> Result<(), String> {
        self.info_state_actions(player, key)?;
        if key.len() > self.token_slots() {
            return Err(format!(
                "it holds {} observations, more than a game of {} has",
                key.len(),
                self.game_string()
            ));
        }
        self.log_tensor(player, key, out);
        Ok(())
    }

    fn observation_tensor(&self, state: &DarkHexState, player: usize, out: &mut [f32]) {
        let n = self.dims.cells();
        crate::tensor::board_planes(n, out, |c| state.view(player, c));
        let mut at = 3 * n;
        if self.obstype == ObsType::RevealNumTurns {
            out[at + state.history.len()] = 1.0;
            at += self.max_game_length() + 1;
        }
        match self.disclosure {
            Disclosure::Flash => {
                for c in 0..n {
                    if state.board.stone(c) == Some(player) && state.board.is_revealed(c) {
                        out[at + c] = 1.0;
                    }
                }
            }
            Disclosure::Noise => {
                let heard = state.logs[player]
                    .iter()
                    .filter(|&&t| t & token::KIND_MASK == token::NOISE)
                    .count();
                out[at + heard] = 1.0;
            }
            Disclosure::None => {}
        }
    }
}
