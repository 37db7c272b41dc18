//! What a streaming pass needs of a game: a node it can copy cheaply, the
//! moves there, and what each move shows each player, already turned into
//! a symbol (an index into the game's sorted alphabet of observations) so
//! that the tables can find the next row without looking at tokens.

use darkhex_games::{Action, NUM_PLAYERS, Token, Turn};

/// Marks "this move shows the player nothing" in a [`Shown`].
pub const NO_SYMBOL: u8 = u8::MAX;

/// Symbols are bits of a row's 64-bit child mask.
pub const MAX_SYMBOLS: usize = 64;

/// Moves at one node: Dark Hex has at most 20 cells here, poker a few cards.
pub const MAX_MOVES: usize = 64;

/// What one move shows each player: a symbol, or [`NO_SYMBOL`].
pub type Shown = [u8; NUM_PLAYERS];

/// The moves at a node, ascending: legal actions, or chance outcomes with
/// their probabilities. A fixed array, so the walks allocate nothing.
#[derive(Clone, Debug)]
pub struct Moves {
    len: usize,
    actions: [Action; MAX_MOVES],
    probs: [f64; MAX_MOVES],
}

impl Default for Moves {
    fn default() -> Self {
        Moves {
            len: 0,
            actions: [0; MAX_MOVES],
            probs: [0.0; MAX_MOVES],
        }
    }
}

impl Moves {
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Adds a move; `prob` is ignored at decision nodes. Callers keep to
    /// [`MAX_MOVES`] (the streams check their games when they are made).
    #[inline]
    pub fn push(&mut self, action: Action, prob: f64) {
        self.actions[self.len] = action;
        self.probs[self.len] = prob;
        self.len += 1;
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn actions(&self) -> &[Action] {
        &self.actions[..self.len]
    }

    #[inline]
    pub fn probs(&self) -> &[f64] {
        &self.probs[..self.len]
    }
}

/// A two-player zero-sum game as the streaming passes walk it.
///
/// Every player's information state must be the sequence of symbols the
/// moves showed them (perfect recall by construction), and a player's own
/// move must show them exactly one symbol.
pub trait StreamGame: Sync {
    type Node: Clone + Send + Sync;

    /// The canonical game string.
    fn game_string(&self) -> String;

    /// Every observation token the game can show, ascending; symbol `s` is
    /// `alphabet()[s]`.
    fn alphabet(&self) -> &[Token];

    fn root(&self) -> Self::Node;

    fn turn(&self, node: &Self::Node) -> Turn;

    /// The legal actions (ascending) or chance outcomes at a non-terminal node.
    fn moves(&self, node: &Self::Node, out: &mut Moves);

    /// Writes the node after `action` into `child` and returns what the
    /// move shows each player.
    fn apply(&self, node: &Self::Node, action: Action, child: &mut Self::Node) -> Shown;

    /// Player 0's utility at a terminal node (player 1's is its negation).
    fn utility(&self, node: &Self::Node) -> f64;

    /// The largest absolute utility.
    fn max_abs_utility(&self) -> f64;
}

/// A stream whose nodes pack into one word that holds everything about
/// the future of the game, so that histories reaching the same node and
/// the same information state of a player can be merged.
pub trait PackedStream: StreamGame {
    fn pack(&self, node: &Self::Node) -> u64;
    fn unpack(&self, key: u64) -> Self::Node;
}
