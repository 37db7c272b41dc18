//! Games and states with OpenSpiel's names: `load_game`, `Game`, `State`.

use darkhex_games::{
    Action, AnyGame, AnyState, Game, State, TensorLayout, Tensors, Turn, load_game as parse_game,
};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::{IntoPy, value_error};

/// OpenSpiel's player ids of chance nodes and terminal states.
pub const CHANCE_PLAYER: i64 = -1;
pub const TERMINAL_PLAYER: i64 = -4;

/// The tensor layout named `name` (`darkhex` or `openspiel`).
pub fn tensor_layout(name: &str) -> PyResult<TensorLayout> {
    TensorLayout::from_name(name).ok_or_else(|| {
        value_error(format!(
            "unknown tensor layout '{name}': accepted layouts are {}",
            TensorLayout::NAMES.join(", ")
        ))
    })
}

/// A game of darkhex, loaded from an OpenSpiel-style game string.
///
/// >>> import darkhex
/// >>> game = darkhex.load_game("dark_hex(num_rows=3,num_cols=3)")
/// >>> game.num_distinct_actions(), game.max_game_length()
/// (9, 17)
/// >>> str(game)
/// 'dark_hex(board_size=3)'
#[pyclass(module = "darkhex", name = "Game", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyGame {
    pub game: AnyGame,
}

/// Parses a game string such as `dark_hex(num_rows=2,num_cols=3,gameversion=adh)`;
/// an unknown name or parameter raises `ValueError` listing what is accepted.
///
/// >>> import darkhex
/// >>> darkhex.load_game("kuhn_poker").num_players()
/// 2
/// >>> darkhex.load_game("chess")
/// Traceback (most recent call last):
/// ...
/// ValueError: unknown game 'chess': accepted games are hex, rex, dark_hex, dark_rex, phantom_ttt, kuhn_poker, leduc_poker, liars_dice
#[pyfunction]
pub fn load_game(text: &str) -> PyResult<PyGame> {
    Ok(PyGame {
        game: parse_game(text).py()?,
    })
}

/// Converts a Python action id to the game's, refusing what no game has.
pub fn action_id(game: &AnyGame, action: i64) -> PyResult<Action> {
    Action::try_from(action).map_err(|_| {
        value_error(format!(
            "{action} is not an action of {game}: actions go from 0 to {}",
            game.num_distinct_actions().max(1) - 1
        ))
    })
}

/// An action given as an id or as the name a user writes (`"b3"`, `"bet"`).
pub fn action_of(game: &AnyGame, action: &Bound<'_, PyAny>) -> PyResult<Action> {
    if let Ok(id) = action.extract::<i64>() {
        return action_id(game, id);
    }
    let text: String = action.extract().map_err(|_| {
        value_error(format!(
            "a move is an action id or a name such as 'b3', not {action}"
        ))
    })?;
    game.parse_action(&text).py()
}

/// A player id of a method that also speaks of chance: 0, 1, or -1.
fn player_or_chance(player: i64) -> PyResult<Turn> {
    match player {
        0 | 1 => Ok(Turn::Player(player as usize)),
        CHANCE_PLAYER => Ok(Turn::Chance),
        p => Err(value_error(format!(
            "player must be 0, 1 or -1 (chance), not {p}"
        ))),
    }
}

pub fn player_index(player: i64) -> PyResult<usize> {
    match player {
        0 | 1 => Ok(player as usize),
        p => Err(value_error(format!("player must be 0 or 1, not {p}"))),
    }
}

#[pymethods]
impl PyGame {
    fn new_initial_state(&self) -> PyState {
        PyState {
            game: self.game,
            state: self.game.new_initial_state(),
        }
    }

    fn num_distinct_actions(&self) -> usize {
        self.game.num_distinct_actions()
    }

    fn num_players(&self) -> usize {
        darkhex_games::NUM_PLAYERS
    }

    /// An upper bound on the actions of a game, chance outcomes included.
    fn max_game_length(&self) -> usize {
        self.game.max_game_length()
    }

    fn min_utility(&self) -> f64 {
        self.game.min_utility()
    }

    fn max_utility(&self) -> f64 {
        self.game.max_utility()
    }

    /// The most outcomes a chance node has (0 in games without chance).
    fn max_chance_outcomes(&self) -> usize {
        // The deal of the first card has the most outcomes in both poker games.
        self.game.new_initial_state().chance_outcomes().len()
    }

    /// Whether both players see everything (Hex and Rex).
    fn is_perfect_information(&self) -> bool {
        matches!(self.game, AnyGame::Hex(_))
    }

    /// `layout="openspiel"`: OpenSpiel's tensor, where it differs (Dark Hex).
    #[pyo3(signature = (layout = "darkhex"))]
    fn information_state_tensor_shape(&self, layout: &str) -> PyResult<Vec<usize>> {
        match tensor_layout(layout)? {
            TensorLayout::Darkhex => Ok(self.game.information_state_tensor_shape()),
            other => Ok(vec![self.information_state_tensor_size(other.name())?]),
        }
    }

    #[pyo3(signature = (layout = "darkhex"))]
    fn information_state_tensor_size(&self, layout: &str) -> PyResult<usize> {
        self.game
            .information_state_tensor_size_in(tensor_layout(layout)?)
            .map_err(value_error)
    }

    fn observation_tensor_shape(&self) -> Vec<usize> {
        self.game.observation_tensor_shape()
    }

    fn observation_tensor_size(&self) -> usize {
        self.game.observation_tensor_size()
    }

    /// The name of `action` as `darkhex play --moves` reads it (`player` -1: a chance outcome).
    fn action_to_string(&self, player: i64, action: i64) -> PyResult<String> {
        let chance = player_or_chance(player)? == Turn::Chance;
        let (count, what) = if chance {
            (self.max_chance_outcomes(), "chance outcome")
        } else {
            (self.game.num_distinct_actions(), "action")
        };
        let game = &self.game;
        let a = usize::try_from(action)
            .ok()
            .filter(|&a| a < count)
            .and_then(|a| Action::try_from(a).ok())
            .ok_or_else(|| match count {
                0 => value_error(format!("{game} has no {what}s")),
                _ => value_error(format!(
                    "{what} {action} is out of range: {game} has {what}s 0 to {}",
                    count - 1
                )),
            })?;
        Ok(if chance {
            self.game.chance_outcome_name(a)
        } else {
            self.game.action_name(a)
        })
    }

    /// The action id of a move written as a user writes it (`"b3"`, `"bet"`, or the id).
    fn parse_action(&self, text: &str) -> PyResult<u16> {
        self.game.parse_action(text).py()
    }

    /// The state after `history` (action ids from the start), each action checked.
    fn new_state_from_history(&self, history: Vec<i64>) -> PyResult<PyState> {
        let mut state = self.new_initial_state();
        for a in history {
            state.apply_action(a)?;
        }
        Ok(state)
    }

    fn __str__(&self) -> String {
        self.game.game_string()
    }

    fn __repr__(&self) -> String {
        format!("darkhex.load_game('{}')", self.game.game_string())
    }

    /// Pickles as its game string (Ray sends games to other processes).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let load = py.import("darkhex")?.getattr("load_game")?;
        Ok((load, (self.game.game_string(),)))
    }
}

/// A history of a game: the real state, hidden information included.
///
/// >>> import darkhex
/// >>> state = darkhex.load_game("dark_hex(num_rows=2,num_cols=2)").new_initial_state()
/// >>> state.apply_action(0)
/// >>> state.current_player(), state.legal_actions()
/// (1, [0, 1, 2, 3])
/// >>> state.apply_action(0)   # White finds Black's stone and goes again
/// >>> state.current_player(), state.legal_actions()
/// (1, [1, 2, 3])
/// >>> state.information_state_string(1)
/// '1: [hit a1]'
#[pyclass(module = "darkhex", name = "State")]
#[derive(Clone)]
pub struct PyState {
    pub game: AnyGame,
    pub state: AnyState,
}

impl PyState {
    /// `player`, or the player to move when `None`.
    fn player_or_mover(&self, player: Option<i64>) -> PyResult<usize> {
        match (player, self.state.current_player()) {
            (Some(p), _) => player_index(p),
            (None, Turn::Player(p)) => Ok(p),
            (None, turn) => Err(value_error(format!(
                "no player moves at a {} node: name the player",
                if turn == Turn::Chance {
                    "chance"
                } else {
                    "terminal"
                }
            ))),
        }
    }
}

#[pymethods]
impl PyState {
    /// The player to move, or -1 at chance nodes and -4 at the end (OpenSpiel's ids).
    fn current_player(&self) -> i64 {
        match self.state.current_player() {
            Turn::Player(p) => p as i64,
            Turn::Chance => CHANCE_PLAYER,
            Turn::Terminal => TERMINAL_PLAYER,
        }
    }

    /// Legal actions ascending (chance outcomes at chance nodes); with
    /// `player`, empty unless that player moves.
    #[pyo3(signature = (player = None))]
    fn legal_actions(&self, player: Option<i64>) -> PyResult<Vec<u16>> {
        if let Some(p) = player
            && player_or_chance(p)? != self.state.current_player()
        {
            return Ok(Vec::new());
        }
        Ok(self.state.legal_actions())
    }

    /// One entry per distinct action: 1 where legal.
    #[pyo3(signature = (player = None))]
    fn legal_actions_mask(&self, player: Option<i64>) -> PyResult<Vec<i32>> {
        let mut mask = vec![0; self.game.num_distinct_actions()];
        for a in self.legal_actions(player)? {
            if let Some(m) = mask.get_mut(a as usize) {
                *m = 1;
            }
        }
        Ok(mask)
    }

    /// Plays `action`; an illegal one raises `ValueError` saying why.
    fn apply_action(&mut self, action: i64) -> PyResult<()> {
        let a = action_id(&self.game, action)?;
        self.state.try_apply(a).py()
    }

    fn is_terminal(&self) -> bool {
        self.state.is_terminal()
    }

    fn is_chance_node(&self) -> bool {
        self.state.current_player() == Turn::Chance
    }

    fn is_player_node(&self) -> bool {
        matches!(self.state.current_player(), Turn::Player(_))
    }

    fn is_simultaneous_node(&self) -> bool {
        false
    }

    /// (outcome, probability) pairs at a chance node, ascending; empty elsewhere.
    fn chance_outcomes(&self) -> Vec<(u16, f64)> {
        self.state.chance_outcomes()
    }

    /// Each player's return: +1/-1 at the end of a board game, chips in poker, 0 before the end.
    fn returns(&self) -> Vec<f64> {
        self.state.returns().to_vec()
    }

    /// Rewards arrive at the end only: the returns.
    fn rewards(&self) -> Vec<f64> {
        self.returns()
    }

    fn player_return(&self, player: i64) -> PyResult<f64> {
        Ok(self.state.returns()[player_index(player)?])
    }

    /// Every action so far, chance outcomes included.
    fn history(&self) -> Vec<u16> {
        self.state.history().to_vec()
    }

    fn move_number(&self) -> usize {
        self.state.history().len()
    }

    fn clone(&self) -> PyState {
        Clone::clone(self)
    }

    fn __copy__(&self) -> PyState {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyState {
        Clone::clone(self)
    }

    fn get_game(&self) -> PyGame {
        PyGame { game: self.game }
    }

    /// The name of `action`, a chance outcome's when `player` is -1.
    fn action_to_string(&self, player: i64, action: i64) -> PyResult<String> {
        PyGame { game: self.game }.action_to_string(player, action)
    }

    /// The player's information state in words, prefixed by the player: a
    /// perfect-recall key (two histories give the same string exactly when
    /// the player cannot tell them apart).
    #[pyo3(signature = (player = None))]
    fn information_state_string(&self, player: Option<i64>) -> PyResult<String> {
        let p = self.player_or_mover(player)?;
        Ok(format!(
            "{p}: {}",
            self.game.describe_info_state(self.state.info_key(p))
        ))
    }

    /// The information-state tensor as a float32 array (layouts in
    /// docs/python.md); `layout="openspiel"` gives OpenSpiel's, value for
    /// value, where the player knows of a cell still empty.
    #[pyo3(signature = (player = None, layout = "darkhex"))]
    fn information_state_tensor<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
        layout: &str,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let p = self.player_or_mover(player)?;
        let layout = tensor_layout(layout)?;
        let size = self
            .game
            .information_state_tensor_size_in(layout)
            .map_err(value_error)?;
        let mut out = vec![0.0; size];
        match layout {
            TensorLayout::Darkhex => self.game.information_state_tensor(&self.state, p, &mut out),
            _ => self
                .game
                .information_state_tensor_of_key_in(layout, p, self.state.info_key(p), &mut out)
                .map_err(|e| value_error(format!("no OpenSpiel tensor here: {e}")))?,
        }
        Ok(PyArray1::from_vec(py, out))
    }

    /// What the player sees now, drawn for a human.
    #[pyo3(signature = (player = None))]
    fn observation_string(&self, player: Option<i64>) -> PyResult<String> {
        let p = self.player_or_mover(player)?;
        Ok(self.state.view_string(p))
    }

    /// The observation tensor as a float32 array (layouts in docs/python.md).
    #[pyo3(signature = (player = None))]
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let p = self.player_or_mover(player)?;
        let mut out = vec![0.0; self.game.observation_tensor_size()];
        self.game.observation_tensor(&self.state, p, &mut out);
        let array = PyArray1::from_vec(py, out);
        Ok(array)
    }

    fn __str__(&self) -> String {
        self.state.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "<darkhex.State of {} after {:?}>",
            self.game,
            self.state.history()
        )
    }

    /// Pickles as the game and the history.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let game = Bound::new(py, PyGame { game: self.game })?;
        let replay = game.getattr("new_state_from_history")?;
        let args = PyTuple::new(py, [self.state.history().to_vec()])?;
        Ok((replay, args))
    }
}

/// The player whose choice at `state` a policy of `game` is asked for:
/// the player to move, who `player` (when given) must be.
pub fn deciding_player(game: &AnyGame, state: &PyState, player: Option<i64>) -> PyResult<usize> {
    if state.game != *game {
        return Err(value_error(format!(
            "the state is of {}, and the policy of {game}",
            state.game
        )));
    }
    let Turn::Player(mover) = state.state.current_player() else {
        return Err(value_error(
            "a policy chooses at decision nodes; this state is a chance node or terminal",
        ));
    };
    match player.map(player_index).transpose()? {
        Some(p) if p != mover => Err(value_error(format!(
            "player {p} does not move here: a policy chooses for the player to move, {mover}"
        ))),
        _ => Ok(mover),
    }
}
