//! The Game and State traits every game implements, and the vocabulary they share.

use std::fmt;

use crate::error::GameError;

/// An action id. Board games use the cell id `r * cols + c`; poker uses small
/// integers. Legal actions are always listed in ascending order.
pub type Action = u16;

/// One observation in a player's information state (see [`State::info_key`]).
pub type Token = u16;

/// Every game here has two players.
pub const NUM_PLAYERS: usize = 2;

/// Who acts at a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    Player(usize),
    Chance,
    Terminal,
}

impl Turn {
    pub fn player(self) -> Option<usize> {
        match self {
            Turn::Player(p) => Some(p),
            _ => None,
        }
    }
}

/// A game: its parameters and how to start it.
pub trait Game: Clone + Send + Sync + fmt::Debug {
    type State: State;

    fn new_initial_state(&self) -> Self::State;

    /// Size of the action space: every action id is below this.
    fn num_distinct_actions(&self) -> usize;

    /// An upper bound on the number of actions (chance included) in any history.
    fn max_game_length(&self) -> usize;

    /// The canonical game string; [`crate::load_game`] parses it back to this game.
    fn game_string(&self) -> String;

    fn min_utility(&self) -> f64;
    fn max_utility(&self) -> f64;

    /// Reads an action as a user writes it: a cell name such as `b3` for
    /// board games, an action name such as `bet` for poker. Chance outcomes
    /// are read at the state they are dealt in: [`crate::parse_move`].
    fn parse_action(&self, text: &str) -> Result<Action, GameError>;

    /// The name a user reads and [`Game::parse_action`] accepts back.
    fn action_name(&self, action: Action) -> String;

    /// The name of a chance outcome (a card), which [`crate::parse_move`]
    /// accepts back where chance deals.
    fn chance_outcome_name(&self, action: Action) -> String {
        action.to_string()
    }

    /// Human-readable form of one token of an information state.
    fn describe_token(&self, token: Token) -> String;

    /// The legal actions at `player`'s information state `key`, worked out
    /// from the key alone (ascending); the error says why `key` is not a
    /// state at which `player` moves. Policy files are checked with this.
    fn info_state_actions(&self, player: usize, key: &[Token]) -> Result<Vec<Action>, String>;

    /// An information state in words, for messages.
    fn describe_info_state(&self, key: &[Token]) -> String {
        if key.is_empty() {
            return "the start".to_string();
        }
        let parts: Vec<String> = key.iter().map(|&t| self.describe_token(t)).collect();
        format!("[{}]", parts.join(", "))
    }

    /// Draws what `player` knows from their information state alone (board
    /// games draw the player's view of the board).
    fn render_info_state(&self, _player: usize, key: &[Token]) -> String {
        let parts: Vec<String> = key.iter().map(|&t| self.describe_token(t)).collect();
        format!("{}\n", parts.join(", "))
    }
}

/// A history of a game: the real state, with everything hidden included.
pub trait State: Clone + Send + Sync + fmt::Display + fmt::Debug {
    fn current_player(&self) -> Turn;

    fn is_terminal(&self) -> bool {
        self.current_player() == Turn::Terminal
    }

    /// Appends the legal actions, ascending, to `out` (which is cleared first).
    /// Hot loops reuse one buffer through this instead of [`State::legal_actions`].
    fn legal_actions_into(&self, out: &mut Vec<Action>);

    fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::new();
        self.legal_actions_into(&mut out);
        out
    }

    /// Of the `n` legal actions in ascending order, the one at index
    /// `pick(n)` (which must be below `n`); `None` when there is none. A
    /// uniform sampler passes a uniform draw below `n`: the action is the
    /// one `legal_actions()[pick(n)]` gives, and a game that can count and
    /// index its legal actions directly does so without listing them
    /// (random playouts and the vector environment call this every step).
    /// `buf` is scratch for the games that list them.
    fn pick_legal_action(
        &self,
        buf: &mut Vec<Action>,
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<Action> {
        self.legal_actions_into(buf);
        if buf.is_empty() {
            None
        } else {
            Some(buf[pick(buf.len())])
        }
    }

    /// The legal actions as bits, action `a` as bit `a % 64` of
    /// `words[a / 64]`; every other bit is cleared. `words` holds at least
    /// `num_distinct_actions` bits. The vector environment keeps these
    /// beside its games, so that sampling and checking actions reads a few
    /// words a game instead of each game's state. `buf` is scratch for the
    /// games that list their actions to give them.
    fn legal_mask_into(&self, buf: &mut Vec<Action>, words: &mut [u64]) {
        words.fill(0);
        self.legal_actions_into(buf);
        for &a in buf.iter() {
            words[usize::from(a) / 64] |= 1 << (a % 64);
        }
    }

    /// Applies a legal action. Callers that hold an action from a user go
    /// through [`State::try_apply`]; this one trusts its argument.
    fn apply(&mut self, action: Action);

    /// Why `action` cannot be played here, or `Ok` if it can.
    fn check_action(&self, action: Action) -> Result<(), GameError>;

    fn try_apply(&mut self, action: Action) -> Result<(), GameError> {
        self.check_action(action)?;
        self.apply(action);
        Ok(())
    }

    /// Returns to each player; zero before the end.
    fn returns(&self) -> [f64; NUM_PLAYERS];

    /// The player's information state: exactly the sequence of what they have
    /// observed so far. Two histories share an information state for `player`
    /// if and only if these slices are equal (perfect recall by construction).
    fn info_key(&self, player: usize) -> &[Token];

    /// Outcomes and probabilities at a chance node, ascending by action.
    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        Vec::new()
    }

    /// Every action taken so far, chance outcomes included.
    fn history(&self) -> &[Action];

    /// What `player` can see, drawn for a human.
    fn view_string(&self, player: usize) -> String;
}
