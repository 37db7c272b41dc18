//! The memory one search thread reuses from position to position
//! ([`Workspace`]), and what it asks of an edge learner ([`EdgeSearch`]).

use std::sync::Arc;

use darkhex_games::Geometry;
use darkhex_games::board::{BLACK, WHITE};

use super::captured_search::CaptureCache;
use super::edge_patterns::{EdgePattern, EdgePatterns, PlacedEdges};
use super::ladder_patterns::PlacedLadders;
use super::position::Stones;
use super::rules::Rules;
use super::vc::VcSet;

/// Memory one search thread reuses from position to position.
pub struct Workspace<const W: usize> {
    /// Each colour's connections.
    pub(crate) vcs: [VcSet<W>; 2],
    /// Template carriers already searched for capture.
    pub(crate) captures: CaptureCache<W>,
    /// The built-in edge patterns on this board.
    pub(crate) builtin: Option<Arc<PlacedEdges<W>>>,
    /// The ladder patterns on this board.
    pub(crate) ladders: Option<Arc<PlacedLadders<W>>>,
    /// Patterns learnt by this solver's threads, the set they share and
    /// this thread's placement of it, with its local searches.
    pub(crate) learning: Option<Learning<W>>,
}

pub(crate) struct Learning<const W: usize> {
    pub(crate) learnt: Arc<EdgePatterns>,
    pub(crate) placed: PlacedEdges<W>,
    pub(crate) learner: Box<dyn EdgeSearch<W>>,
}

/// A local search that proves a cell joined to a side and cuts the proof
/// down to a pattern: [`super::edge_search::EdgeLearner`], which runs a
/// solver of its own. The workspace holds it by this trait so that the
/// examination of a position, below the search, does not name the search
/// (the learner and its solver are given by [`super::edge_search`], which
/// builds solvers and workspaces that learn).
pub trait EdgeSearch<const W: usize>: Send {
    /// A pattern joining `cell` to `player`'s side `side` in `stones`, if
    /// the local game of its band shows one.
    fn search(
        &mut self,
        geom: &Geometry<W>,
        stones: &Stones<W>,
        player: usize,
        side: usize,
        cell: usize,
    ) -> Option<EdgePattern>;
    /// The local searches run so far.
    fn searched(&self) -> u64;
    /// The deepest row a cell is searched from.
    fn max_depth(&self) -> usize;
}

/// Makes a thread's edge learner, when the rules learn.
pub type NewLearner<const W: usize> = fn() -> Box<dyn EdgeSearch<W>>;

impl<const W: usize> Workspace<W> {
    /// A workspace that learns into `learnt` with a learner of
    /// `new_learner` (when the rules learn), shared with other threads and
    /// solves. [`Workspace::new`] and [`Workspace::sharing`] give it the
    /// solver's own learner.
    pub fn with_learner(
        geom: &Geometry<W>,
        rules: &Rules,
        learnt: Arc<EdgePatterns>,
        new_learner: NewLearner<W>,
    ) -> Self {
        Workspace {
            vcs: [
                VcSet::new(geom, BLACK, rules.vc),
                VcSet::new(geom, WHITE, rules.vc),
            ],
            captures: CaptureCache::new(),
            builtin: rules.edge_patterns.then(|| PlacedEdges::builtin(geom)),
            ladders: rules.ladder_patterns.then(|| PlacedLadders::builtin(geom)),
            learning: rules.learn_edges.then(|| Learning {
                learnt,
                placed: PlacedEdges::new(geom),
                learner: new_learner(),
            }),
        }
    }
}
