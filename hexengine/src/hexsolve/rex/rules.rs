//! Which Rex rules the solver applies, read by the solver's settings
//! ([`crate::hexsolve::rules::Rules`]) below the Rex examination itself.

/// Which Rex rules the solver applies; each can be switched off to measure
/// what it saves (all on by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RexRules {
    /// Theorem 3.4: with a dead cell empty, that cell is the only move.
    pub dead_move: bool,
    /// Theorem 3.1 with dead cells: an even number of them filled in.
    pub dead_fill: bool,
    /// Dead cells also found behind clique cutsets (more work a position).
    pub clique_cutsets: bool,
    /// Theorem 3.3, corollary 1: captured pairs filled in.
    pub capture_fill: bool,
    /// Theorem 3.8: mutual fill-in, one cell for each player.
    pub mutual_fill: bool,
    /// Theorems 3.5 to 3.7: moves another move is at least as good as are
    /// pruned.
    pub preferences: bool,
    /// Section 4: pairing strategies decide positions (theorems 4.1, 4.2)
    /// and the player's own pre-join keys are pruned.
    pub pairings: bool,
    /// Regions sealed off by a pairing strategy, with an even number of
    /// empty cells, are filled in (needs [`RexRules::pairings`]).
    pub decompositions: bool,
    /// A colour-symmetric position is decided, and a move that makes one
    /// is played when it wins and pruned when it loses.
    pub colour_symmetry: bool,
}

impl RexRules {
    /// Every Rex rule on.
    pub fn all() -> Self {
        RexRules {
            dead_move: true,
            dead_fill: true,
            clique_cutsets: true,
            capture_fill: true,
            mutual_fill: true,
            preferences: true,
            pairings: true,
            decompositions: true,
            colour_symmetry: true,
        }
    }
}
