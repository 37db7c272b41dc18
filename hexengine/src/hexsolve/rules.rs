//! Which rules the solver applies ([`Rules`]) and what they did
//! ([`RuleStats`]): settings and counts that the search, the examination
//! of a position and the edge search all read, so they sit below the three.

use super::rex::rules::RexRules;
use super::vc::VcParams;

/// Which rules the solver applies; each can be switched off to measure
/// what it saves (all on by default). The Hex rules are theorems about Hex
/// and Rex uses none of them; Rex has its own ([`RexRules`]), with the
/// 180-degree symmetry and the resistance order shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Rex: the player who joins their sides loses.
    pub misere: bool,
    /// Virtual connections: a side-to-side full or semi decides the
    /// position; the opponent's semis restrict the moves (mustplay).
    pub connections: bool,
    /// Dead and captured cells filled in.
    pub fill_in: bool,
    /// Among them, 4-3-2 carriers proved captured by search
    /// ([`super::captured_search`]).
    pub template_captures: bool,
    /// Regions sealed off by a connection filled in for their owner.
    pub decompositions: bool,
    /// Vulnerable cells pruned.
    pub vulnerable: bool,
    /// Capture-dominated cells pruned (and the acute-corner 4-3-2 arcs).
    pub dominated: bool,
    /// Path-dominated cells pruned (Henderson and Hayward, Lemma 1); off
    /// by default.
    pub path_domination: bool,
    /// Neighbourhood-dominated cells pruned (Henderson and Hayward); off
    /// by default.
    pub neighbour_domination: bool,
    /// A position equal to its 180-degree rotation searches one of each
    /// pair of symmetric moves.
    pub symmetry: bool,
    /// Moves ordered by the current through them in the resistance circuits
    /// (otherwise by cell id).
    pub resistance_order: bool,
    /// Moves ordered instead by their k-contribution (Honjo et al.) summed
    /// over both players' position networks, for this k.
    pub network_order: Option<usize>,
    /// Proof sets: a move found losing also refutes every sibling outside
    /// the cells the opponent's win needed (Hex only: it rests on
    /// monotonicity, extra stones never hurt their owner).
    pub proof_sets: bool,
    /// Edge connections by the built-in patterns (ladders, templates of the
    /// fourth and fifth rows, templates leaning on stones), added to
    /// H-search's ([`super::edge_patterns`]).
    pub edge_patterns: bool,
    /// Edge connections no pattern covers searched locally, and learnt as
    /// new patterns ([`super::edge_search`]).
    pub learn_edges: bool,
    /// Ladders along a side as full connections between two cells
    /// ([`super::ladder_patterns`]), added to H-search's.
    pub ladder_patterns: bool,
    pub vc: VcParams,
    /// Rex's rules, applied when `misere` (and only then).
    pub rex: RexRules,
}

impl Rules {
    /// Everything on, for Hex.
    pub fn hex() -> Self {
        Rules {
            misere: false,
            connections: true,
            fill_in: true,
            template_captures: true,
            decompositions: true,
            vulnerable: true,
            dominated: true,
            // Henderson and Hayward's two rules prune nothing the others
            // do not on 6x6 and 7x7 and cost time a position
            // (docs/results/hex-solver.md): opt-in, `--with`.
            path_domination: false,
            neighbour_domination: false,
            symmetry: true,
            resistance_order: true,
            network_order: None,
            proof_sets: true,
            edge_patterns: true,
            learn_edges: false,
            ladder_patterns: true,
            vc: VcParams::default(),
            rex: RexRules::all(),
        }
    }

    /// The rules of Hex, or of Rex when `misere`.
    pub fn for_game(misere: bool) -> Self {
        if misere { Rules::rex() } else { Rules::hex() }
    }

    /// Rex: the Solrex rules ([`super::rex`]), the 180-degree symmetry and
    /// the resistance order; none of the Hex theorems, which do not hold
    /// for Rex.
    pub fn rex() -> Self {
        Rules {
            misere: true,
            connections: false,
            fill_in: false,
            template_captures: false,
            decompositions: false,
            vulnerable: false,
            dominated: false,
            path_domination: false,
            neighbour_domination: false,
            symmetry: true,
            resistance_order: true,
            network_order: None,
            proof_sets: false,
            edge_patterns: false,
            learn_edges: false,
            ladder_patterns: false,
            // Solrex's augmented H-search costs more than it saves here
            // (docs/results/rex.md): opt-in, `--with captured-overlap`.
            vc: VcParams {
                captured_overlap: false,
                ..VcParams::pairings()
            },
            rex: RexRules::all(),
        }
    }
}

/// Counts of what the rules did, for the knockout table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleStats {
    pub decided_by_connection: u64,
    pub cells_filled: u64,
    pub moves_pruned_by_mustplay: u64,
    pub moves_pruned_as_inferior: u64,
    pub moves_pruned_by_proof_sets: u64,
    /// Positions left open, and the moves they kept to search (Benzene's
    /// "consider size" is the ratio).
    pub open_positions: u64,
    pub moves_kept: u64,
    /// Edge connections found by the patterns, local searches run and
    /// patterns learnt by them.
    pub edge_matched: u64,
    pub edge_searched: u64,
    pub edge_learnt: u64,
    /// Ladder connections matched.
    pub ladder_matched: u64,
    /// Rex: moves shown to lose and left out (the player's own pre-join
    /// keys, moves into a colour-symmetric position won by the opponent).
    pub losing_moves_pruned: u64,
    /// Rex: positions decided by colour symmetry.
    pub decided_by_colour_symmetry: u64,
    /// Positions whose value the table held for their filled form.
    pub solved_by_filled_form: u64,
}

impl RuleStats {
    pub fn add(&mut self, other: &RuleStats) {
        self.decided_by_connection += other.decided_by_connection;
        self.cells_filled += other.cells_filled;
        self.moves_pruned_by_mustplay += other.moves_pruned_by_mustplay;
        self.moves_pruned_as_inferior += other.moves_pruned_as_inferior;
        self.moves_pruned_by_proof_sets += other.moves_pruned_by_proof_sets;
        self.open_positions += other.open_positions;
        self.moves_kept += other.moves_kept;
        self.edge_matched += other.edge_matched;
        self.edge_searched += other.edge_searched;
        self.edge_learnt += other.edge_learnt;
        self.ladder_matched += other.ladder_matched;
        self.losing_moves_pruned += other.losing_moves_pruned;
        self.decided_by_colour_symmetry += other.decided_by_colour_symmetry;
        self.solved_by_filled_form += other.solved_by_filled_form;
    }
}
