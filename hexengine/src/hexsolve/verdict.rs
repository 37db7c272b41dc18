//! What examining a position concludes ([`Node`]: decided, or the moves to
//! search) and why ([`Grounds`]), for Hex ([`super::node`]) and Rex
//! ([`super::rex`]) alike.

use darkhex_games::CellSet;

/// A position as the solver first sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node<const W: usize> {
    /// The player to move wins; with a winning move when one is known
    /// (none when the game is already won).
    Won(Option<u16>),
    /// The player to move loses.
    Lost,
    /// Undecided: the moves to search, best first, and the fill-in that
    /// holds below this position.
    Open {
        children: Vec<u16>,
        fill: [CellSet<W>; 2],
    },
}

/// Why [`super::node::examine_with_grounds`] decided a position or left moves out, in
/// the position's own cells; what proof sets are built from.
///
/// A proof set of a decided position is a set of its empty cells such that
/// the winner still wins when the loser is given every other empty cell.
/// By monotonicity of Hex (an extra stone never hurts its owner) a move of
/// the loser outside a proof set then loses too.
#[derive(Clone, Debug, Default)]
pub struct Grounds<const W: usize> {
    /// Won or Lost: a proof set.
    pub proof: CellSet<W>,
    /// Open: moves left out as inferior, each with the move that dominates
    /// it (vulnerable to a killer, or capture-dominated).
    pub dominated: Vec<(u16, u16)>,
    /// Open: the opponent's side-to-side semis (carrier and key) that put
    /// the moves left out by mustplay out of the mustplay: a move outside
    /// one of them loses to its key.
    pub semis: Vec<CellSet<W>>,
    /// Open: moves left out as the images of kept moves by rotation.
    pub mirrored: CellSet<W>,
    /// Open: the fill-in cells that are dead, from above included. A
    /// proof set can leave them out: their colour changes no value.
    pub dead: CellSet<W>,
}
