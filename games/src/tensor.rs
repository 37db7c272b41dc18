//! Tensors for learning code: a player's information state and observation
//! as flat `f32` arrays of a fixed shape per game, the way OpenSpiel's
//! `InformationStateTensor` and `ObservationTensor` are.
//!
//! Layouts (`n` = cells of a board, planes are cell-major inside):
//! - **hex, rex**: both tensors are the board, `[3, rows, cols]`: plane 0
//!   empty cells, plane 1 Black's stones, plane 2 White's. Who moves follows
//!   from the stone counts. (The information-state *key* is the move list:
//!   the tensor merges transpositions, which a perfect-information player
//!   may.)
//! - **dark_hex, dark_rex**: the information-state tensor, `[3n + L * W]`,
//!   is the player's view in the three planes above (stones of the player
//!   and the opponent stones they have found), then the player's
//!   observations in order, one slot of `W` per observation: `[0, n)` their
//!   stone went down on the cell, `[n, 2n)` they found an opponent stone
//!   there; then, present only in the variants that show them, `n` columns
//!   for a flash on their own stone at the cell, one for a noise, one for an
//!   opponent turn. `L` is `n` when nothing but the player's own attempts is
//!   observed, else the longest game, `2n - 1`. Two histories give the same
//!   tensor exactly when they give the same information state (tested on
//!   every small variant). OpenSpiel's dark_hex tensor holds the same
//!   information, its view with nine cell states and its action list
//!   one-hot without the result, and splits the histories into the same
//!   information states; [`TensorLayout::OpenSpiel`] writes it, for
//!   networks trained on OpenSpiel's games (see
//!   `DarkHexGame::openspiel_information_state_tensor_of_key`). The observation tensor is
//!   the view, `[3n]`, then with `reveal-numturns` the number of turns so far
//!   one-hot (`2n` columns), with `flash` the player's stones the opponent
//!   has found (`n`), with `noise` how many collisions the player heard of,
//!   one-hot (`n + 1`).
//! - **phantom_ttt**: OpenSpiel's layouts, value for value (tested against
//!   pyspiel): the view in three planes of nine cells (empty, player 1's
//!   noughts, player 0's crosses), then the information state lists the
//!   player's own attempts, nine columns each (`reveal-nothing`), or every
//!   turn, eleven columns each (`reveal-numturns`: the mover as 0 or 1, the
//!   cell, or column 10 for an opponent's turn); the observation adds the
//!   turn count one-hot with `reveal-numturns`. OpenSpiel's shape `[1, 108]`
//!   is given flat, `[108]`.
//! - **liars_dice**: OpenSpiel's layouts where a player moves: the player
//!   one-hot, each own die one-hot over the faces, a column per bid and the
//!   call (information state: every bid; observation: the last two). The
//!   dice appear once all of a player's dice are rolled, sorted.
//! - **kuhn_poker, leduc_poker**: OpenSpiel's layouts, value for value
//!   (tested against pyspiel): the player one-hot, the private card one-hot,
//!   (Leduc: the public card), then the bets, two columns each (Kuhn: pass,
//!   bet; Leduc: call, raise, four slots per round); the observation tensor
//!   replaces the bets by each player's chips in the pot.

use crate::game::{Game, Token};
use crate::registry::AnyGame;

/// Whose layout an information-state tensor takes: darkhex's own (above),
/// or OpenSpiel's, for networks trained on OpenSpiel's games (the two
/// differ only on Dark Hex; OpenSpiel's hex and dark_rex have none here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TensorLayout {
    #[default]
    Darkhex,
    OpenSpiel,
}

impl TensorLayout {
    pub const NAMES: [&'static str; 2] = ["darkhex", "openspiel"];

    pub fn name(self) -> &'static str {
        match self {
            TensorLayout::Darkhex => "darkhex",
            TensorLayout::OpenSpiel => "openspiel",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "darkhex" => Some(TensorLayout::Darkhex),
            "openspiel" => Some(TensorLayout::OpenSpiel),
            _ => None,
        }
    }
}

impl AnyGame {
    /// The information-state tensor's length in `layout`, or why the
    /// game has no such tensor.
    pub fn information_state_tensor_size_in(&self, layout: TensorLayout) -> Result<usize, String> {
        match (layout, self) {
            (TensorLayout::Darkhex, _) => Ok(self.information_state_tensor_size()),
            (TensorLayout::OpenSpiel, AnyGame::DarkHex(g)) => {
                g.openspiel_information_state_tensor_size()
            }
            (TensorLayout::OpenSpiel, AnyGame::Hex(_)) => Err(format!(
                "{self} has no OpenSpiel tensor here (OpenSpiel's hex tensor is not built); \
                 its tensor is darkhex's"
            )),
            // Their own layouts are OpenSpiel's (see the module comment).
            (TensorLayout::OpenSpiel, _) => Ok(self.information_state_tensor_size()),
        }
    }

    /// [`Tensors::information_state_tensor_of_key`] in `layout`; `out`
    /// holds zeros, [`AnyGame::information_state_tensor_size_in`] long.
    pub fn information_state_tensor_of_key_in(
        &self,
        layout: TensorLayout,
        player: usize,
        key: &[Token],
        out: &mut [f32],
    ) -> Result<(), String> {
        match (layout, self) {
            (TensorLayout::OpenSpiel, AnyGame::DarkHex(g)) => {
                g.openspiel_information_state_tensor_of_key(player, key, out)
            }
            _ => {
                self.information_state_tensor_size_in(layout)?;
                self.information_state_tensor_of_key(player, key, out)
            }
        }
    }
}

/// The two tensors of a game's states; see the module comment for layouts.
pub trait Tensors: Game {
    fn information_state_tensor_shape(&self) -> Vec<usize>;

    fn observation_tensor_shape(&self) -> Vec<usize>;

    /// Writes `player`'s information-state tensor into `out`, which must be
    /// the product of [`Tensors::information_state_tensor_shape`] long and
    /// hold zeros: only the entries that are not zero are written (the
    /// tensors are mostly zeros, and a batch of them is one zeroed buffer).
    fn information_state_tensor(&self, state: &Self::State, player: usize, out: &mut [f32]);

    /// Writes `player`'s information-state tensor at the information state
    /// `key` (as [`crate::State::info_key`] gives it) into `out`, zeros as
    /// above: the tensor of every history with that information state,
    /// worked out from the key alone (a policy network is evaluated on the
    /// information-state tables, which hold keys, not states). The error
    /// says why `key` is not one of `player`'s information states.
    fn information_state_tensor_of_key(
        &self,
        player: usize,
        key: &[Token],
        out: &mut [f32],
    ) -> Result<(), String>;

    /// Writes `player`'s observation tensor into `out`, zeros of the product
    /// of [`Tensors::observation_tensor_shape`]; as above, only the entries
    /// that are not zero are written.
    fn observation_tensor(&self, state: &Self::State, player: usize, out: &mut [f32]);

    fn information_state_tensor_size(&self) -> usize {
        self.information_state_tensor_shape().iter().product()
    }

    fn observation_tensor_size(&self) -> usize {
        self.observation_tensor_shape().iter().product()
    }
}

/// Fills the three board planes (empty, Black, White) of `n` cells from
/// what `stone` says each cell holds.
pub(crate) fn board_planes(n: usize, out: &mut [f32], stone: impl Fn(usize) -> Option<usize>) {
    for c in 0..n {
        let plane = stone(c).map_or(0, |p| p + 1);
        out[plane * n + c] = 1.0;
    }
}
