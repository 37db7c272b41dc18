//! Every question the Hex engine answers about a position, on a board whose
//! size is known only at run time: who wins and with which moves, the
//! connections and inferior cells, the resistance score, and a move to play.
//! The engine's pieces are generic over the width of their bit sets; the GTP
//! engine and the players hold one [`HexAnalyst`] instead, with positions as
//! plain lists of cells.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use darkhex_games::board::{BLACK, WHITE};
use darkhex_games::hex::HexGame;
use darkhex_games::{CellSet, Geometry, with_cell_words};

use crate::eval::network::Network;
use crate::eval::paths::{PathLimits, path_sets};
use crate::eval::resistance::evaluate;
use crate::eval::{NetworkValue, PathSets};
use crate::hexsolve::inferior::{InferiorCells, analyse};
use crate::hexsolve::node::{Node, RuleStats, Workspace, examine};
use crate::hexsolve::position::winner;
use crate::hexsolve::rex;
use crate::hexsolve::vc::{VcParams, VcSet};
use crate::hexsolve::{DfpnParams, HexSolver, Position, Progress, Rules, Stats};

/// Each player's stones as cell ids, Black's first.
pub type CellLists = [Vec<usize>; 2];

/// What a solve may spend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    pub threads: usize,
    pub tt_mb: usize,
    pub time_limit: Option<Duration>,
    /// The positions a search stops after, unsolved (see
    /// [`DfpnParams::max_expansions`]).
    pub max_expansions: Option<u64>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            threads: 1,
            tt_mb: 256,
            time_limit: None,
            max_expansions: None,
        }
    }
}

/// The result of a solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// The player who wins with best play; `None` when the budget ran out.
    pub winner: Option<usize>,
    /// A winning move of the player to move, when they win.
    pub winning_move: Option<usize>,
    pub stats: Stats,
}

/// Inferior-cell analysis for one player to move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inferior {
    /// Cells filled in for each colour (captured, or dead and coloured).
    pub fill: CellLists,
    pub dead: Vec<usize>,
    /// (cell, a reply that kills it).
    pub vulnerable: Vec<(usize, usize)>,
    /// (cell, a cell that capture-dominates it).
    pub dominated: Vec<(usize, usize)>,
}

/// How the solver's rules see a position before any search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Considered {
    /// Decided already: the winner.
    Decided(usize),
    /// The moves worth searching, best first (mustplay and inferior cells
    /// removed, ordered by resistance current).
    Moves(Vec<usize>),
}

/// One end of a connection: a cell (empty, or one of the player's stones,
/// standing for its group) or one of the player's sides (0: north for
/// Black, west for White; 1: south or east).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectionEnd {
    Cell(usize),
    Side(usize),
}

/// A player's connections between two ends, as the solver sees them: on
/// the board with the player's inferior cells filled in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Connections {
    /// Carriers of the full connections, smallest first.
    pub fulls: Vec<Vec<usize>>,
    /// Carriers (key included) and keys of the semi connections, smallest
    /// first.
    pub semis: Vec<(Vec<usize>, usize)>,
}

/// Both players' circuits.
#[derive(Clone, Debug, PartialEq)]
pub struct Resist {
    /// ln(R_white / R_black): positive when Black is closer to joining.
    pub score: f64,
    /// ln R of each player's circuit.
    pub log_resistance: [f64; 2],
    /// The current through each cell, both circuits summed.
    pub current: Vec<f64>,
}

/// Both players' position networks (Honjo et al.) in one position.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkReport {
    /// Each network's distance and path counts.
    pub value: NetworkValue,
    /// The k-contribution of each cell in each network, Black's first
    /// (0 for stones).
    pub contribution: [Vec<f64>; 2],
}

/// Answers questions about positions of one Hex or Rex board.
pub trait HexAnalyst: Send + Sync {
    fn game(&self) -> HexGame;

    /// The winner of a finished game.
    fn winner(&self, stones: &CellLists) -> Option<usize>;

    /// Solves the position with `to_move` to play.
    fn solve(
        &self,
        stones: &CellLists,
        to_move: usize,
        budget: Budget,
        progress: &(dyn Fn(&Progress) + Sync),
    ) -> Verdict;

    /// The value of every empty cell as a move of `to_move`: `Some(true)`
    /// when it wins, `None` when the budget ran out first (the budget's time
    /// limit holds for all the moves together; moves not started by then
    /// are left out). Inferior cells are tried too: a move the rules prune
    /// may still win. The stats' seconds are wall seconds.
    fn move_values(
        &self,
        stones: &CellLists,
        to_move: usize,
        budget: Budget,
    ) -> (Vec<(usize, Option<bool>)>, Stats);

    /// The cells `to_move` must play in to stop the opponent joining next
    /// move (`None`: no such threat; always in Rex, where joining loses).
    fn mustplay(&self, stones: &CellLists, to_move: usize) -> Option<Vec<usize>>;

    /// Full and semi connections of `player`: (full, semi) counts, and
    /// whether the player's sides are fully connected. In Rex they are
    /// pairing strategies: a full between the sides forces its owner to
    /// join them, and lose.
    fn connection_counts(&self, stones: &CellLists, player: usize) -> (usize, usize, bool);

    /// `player`'s connections between `ends`, built after filling in the
    /// cells [`HexAnalyst::inferior`] fills with `player` to move. Empty
    /// when an end is an opponent's stone or the ends are one group.
    fn connections_between(
        &self,
        stones: &CellLists,
        player: usize,
        ends: [ConnectionEnd; 2],
    ) -> Connections;

    fn inferior(&self, stones: &CellLists, to_move: usize) -> Inferior;

    fn considered(&self, stones: &CellLists, to_move: usize) -> Considered;

    fn resistance(&self, stones: &CellLists) -> Resist;

    /// Each candidate move of `to_move` (every empty cell when `None`) with
    /// the resistance score for `to_move` after it; in Rex, where joining
    /// loses, the score is turned round so that higher is still better.
    fn move_scores(
        &self,
        stones: &CellLists,
        to_move: usize,
        candidates: Option<&[usize]>,
    ) -> Vec<(usize, f64)>;

    /// Both players' position networks with their virtual links, the path
    /// sets S_0..S_k and each cell's k-contribution.
    fn network(&self, stones: &CellLists, limits: PathLimits) -> NetworkReport;

    /// Each candidate move of `to_move` (every empty cell when `None`) with
    /// both networks' path sets after it; the connections of the position
    /// are updated for each move instead of rebuilt.
    fn network_move_values(
        &self,
        stones: &CellLists,
        to_move: usize,
        candidates: Option<&[usize]>,
        limits: PathLimits,
    ) -> Vec<(usize, NetworkValue)>;
}

/// The analyst for `game`'s board.
pub fn analyst_for(game: &HexGame) -> Box<dyn HexAnalyst> {
    let dims = game.dims();
    with_cell_words!(dims.cells(), W => Box::new(Engine::<W>::new(*game)))
}

struct Engine<const W: usize> {
    game: HexGame,
    geom: Geometry<W>,
    rules: Rules,
}

impl<const W: usize> Engine<W> {
    fn new(game: HexGame) -> Self {
        // Every board a HexGame accepts fits the widest cell set.
        let geom = Geometry::<W>::new(game.dims()).expect("the cell set holds the board");
        let rules = Rules::for_game(game.is_misere());
        Engine { game, geom, rules }
    }

    /// The inferior cells of the game's own rules (Hex's or Rex's).
    fn analyse(&self, stones: &CellLists, to_move: usize) -> InferiorCells<W> {
        let sets = self.sets(stones);
        if self.game.is_misere() {
            rex::analyse(&self.geom, &sets, to_move)
        } else {
            analyse(&self.geom, &sets, to_move)
        }
    }

    fn sets(&self, stones: &CellLists) -> [CellSet<W>; 2] {
        let n = self.geom.cells();
        [BLACK, WHITE].map(|p| stones[p].iter().copied().filter(|&c| c < n).collect())
    }

    fn position(&self, stones: &CellLists, to_move: usize) -> Position<W> {
        Position::new(&self.geom, self.sets(stones), to_move)
    }

    fn solver(&self, budget: Budget) -> HexSolver<'_, W> {
        let params = DfpnParams {
            threads: budget.threads.max(1),
            tt_mb: budget.tt_mb.max(1),
            time_limit: budget.time_limit,
            max_expansions: budget.max_expansions,
            ..DfpnParams::for_game(self.rules.misere)
        };
        HexSolver::new(&self.geom, self.rules, params)
    }

    fn vcs(&self, sets: &[CellSet<W>; 2]) -> [VcSet<W>; 2] {
        [BLACK, WHITE].map(|p| VcSet::build(&self.geom, sets, p, self.rules.vc))
    }

    /// The limits of the connections the resistance circuits are built
    /// from: the rules run to the end even when a player's sides are
    /// joined (where the solver stops), or the circuit would hold whatever
    /// the rules had reached by then, which depends on the cells' order.
    fn circuit_vc(&self) -> VcParams {
        VcParams {
            stop_at_edge_full: false,
            ..self.rules.vc
        }
    }

    /// The empty cells among `candidates` (all of them when `None`).
    fn moves(&self, sets: &[CellSet<W>; 2], candidates: Option<&[usize]>) -> Vec<usize> {
        let empty = self.geom.all() - sets[0] - sets[1];
        match candidates {
            Some(list) => list
                .iter()
                .copied()
                .filter(|&c| c < self.geom.cells() && empty.contains(c))
                .collect(),
            None => cells(empty),
        }
    }

    /// Both players' path sets with `vcs` as their virtual links.
    fn path_sets(
        &self,
        sets: &[CellSet<W>; 2],
        vcs: &[VcSet<W>; 2],
        limits: PathLimits,
    ) -> ([PathSets; 2], [Network<W>; 2]) {
        let nets = [BLACK, WHITE].map(|p| Network::build(&self.geom, sets, p, Some(&vcs[p])));
        (nets.each_ref().map(|n| path_sets(n, limits)), nets)
    }
}

fn cells<const W: usize>(set: CellSet<W>) -> Vec<usize> {
    set.iter().collect()
}

impl<const W: usize> HexAnalyst for Engine<W> {
    fn game(&self) -> HexGame {
        self.game
    }

    fn winner(&self, stones: &CellLists) -> Option<usize> {
        winner(&self.geom, &self.sets(stones), self.game.is_misere())
    }

    fn solve(
        &self,
        stones: &CellLists,
        to_move: usize,
        budget: Budget,
        progress: &(dyn Fn(&Progress) + Sync),
    ) -> Verdict {
        let pos = self.position(stones, to_move);
        let out = self.solver(budget).solve(&pos, progress);
        Verdict {
            winner: out.wins.map(|w| if w { to_move } else { 1 - to_move }),
            winning_move: out.winning_move,
            stats: out.stats,
        }
    }

    fn move_values(
        &self,
        stones: &CellLists,
        to_move: usize,
        budget: Budget,
    ) -> (Vec<(usize, Option<bool>)>, Stats) {
        let pos = self.position(stones, to_move);
        // The budget's time holds for all the moves together.
        let deadline = budget.time_limit.map(|t| Instant::now() + t);
        let mut solver = self.solver(Budget {
            time_limit: None,
            ..budget
        });
        solver.params.deadline = deadline;
        solver.move_values(&pos, &|_, _| {})
    }

    fn mustplay(&self, stones: &CellLists, to_move: usize) -> Option<Vec<usize>> {
        if self.game.is_misere() {
            return None;
        }
        let sets = self.sets(stones);
        let theirs = VcSet::build(&self.geom, &sets, 1 - to_move, self.rules.vc);
        theirs
            .blocking_cells()
            .map(|b| cells(b - sets[0] - sets[1]))
    }

    fn connection_counts(&self, stones: &CellLists, player: usize) -> (usize, usize, bool) {
        let v = VcSet::build(&self.geom, &self.sets(stones), player, self.rules.vc);
        let (fulls, semis) = v.counts();
        (fulls, semis, v.edge_full())
    }

    fn connections_between(
        &self,
        stones: &CellLists,
        player: usize,
        ends: [ConnectionEnd; 2],
    ) -> Connections {
        let filled = self.analyse(stones, player).filled;
        let v = VcSet::build(&self.geom, &filled, player, self.rules.vc);
        let [Some(x), Some(y)] = ends.map(|e| match e {
            ConnectionEnd::Cell(c) if c < self.geom.cells() => v.end_of(c),
            ConnectionEnd::Cell(_) => None,
            ConnectionEnd::Side(i) => Some(v.side(i.min(1))),
        }) else {
            return Connections::default();
        };
        if x == y {
            return Connections::default();
        }
        let mut fulls: Vec<Vec<usize>> = v.fulls(x, y).map(cells).collect();
        let mut semis: Vec<(Vec<usize>, usize)> = v
            .semis(x, y)
            .map(|(c, key)| (cells(c.with(key)), key))
            .collect();
        fulls.sort_by_key(Vec::len);
        semis.sort_by_key(|s| s.0.len());
        Connections { fulls, semis }
    }

    fn inferior(&self, stones: &CellLists, to_move: usize) -> Inferior {
        let inf = self.analyse(stones, to_move);
        Inferior {
            fill: inf.fill.map(cells),
            dead: cells(inf.dead),
            vulnerable: inf.vulnerable,
            dominated: inf.dominated,
        }
    }

    fn considered(&self, stones: &CellLists, to_move: usize) -> Considered {
        let pos = self.position(stones, to_move);
        let mut ws = Workspace::new(&self.geom, &self.rules);
        let mut stats = RuleStats::default();
        let fill = [CellSet::EMPTY; 2];
        match examine(&self.geom, &pos, fill, &self.rules, &mut stats, &mut ws) {
            Node::Won(_) => Considered::Decided(to_move),
            Node::Lost => Considered::Decided(1 - to_move),
            Node::Open { children, .. } => {
                Considered::Moves(children.into_iter().map(usize::from).collect())
            }
        }
    }

    fn resistance(&self, stones: &CellLists) -> Resist {
        let sets = self.sets(stones);
        let vcs = [BLACK, WHITE].map(|p| VcSet::build(&self.geom, &sets, p, self.circuit_vc()));
        let r = evaluate(&self.geom, &sets, [&vcs[BLACK], &vcs[WHITE]]);
        Resist {
            score: r.score(),
            log_resistance: [BLACK, WHITE].map(|p| r.circuits[p].resistance.max(1e-12).ln()),
            current: (0..self.geom.cells()).map(|c| r.cell_current(c)).collect(),
        }
    }

    fn move_scores(
        &self,
        stones: &CellLists,
        to_move: usize,
        candidates: Option<&[usize]>,
    ) -> Vec<(usize, f64)> {
        let sets = self.sets(stones);
        let moves = self.moves(&sets, candidates);
        let mut vcs = [BLACK, WHITE].map(|p| VcSet::new(&self.geom, p, self.circuit_vc()));
        let sign = if self.game.is_misere() { -1.0 } else { 1.0 };
        moves
            .into_iter()
            .map(|c| {
                let mut next = sets;
                next[to_move].insert(c);
                for v in &mut vcs {
                    v.rebuild(&self.geom, &next);
                }
                let r = evaluate(&self.geom, &next, [&vcs[BLACK], &vcs[WHITE]]);
                (c, sign * r.score_for(to_move))
            })
            .collect()
    }

    fn network(&self, stones: &CellLists, limits: PathLimits) -> NetworkReport {
        let sets = self.sets(stones);
        let limits = PathLimits {
            through: true,
            ..limits
        };
        let (sides, nets) = self.path_sets(&sets, &self.vcs(&sets), limits);
        let contribution =
            [BLACK, WHITE].map(|p| sides[p].cell_contributions(&nets[p], self.geom.cells()));
        NetworkReport {
            value: NetworkValue { sides },
            contribution,
        }
    }

    fn network_move_values(
        &self,
        stones: &CellLists,
        to_move: usize,
        candidates: Option<&[usize]>,
        limits: PathLimits,
    ) -> Vec<(usize, NetworkValue)> {
        let sets = self.sets(stones);
        let vcs = self.vcs(&sets);
        let limits = PathLimits {
            through: false,
            ..limits
        };
        // Each move's value depends on the move alone, and `collect` keeps
        // the candidates' order: the same list whatever the thread count.
        // Each thread reuses one pair of connection sets for its moves.
        let fresh = || [BLACK, WHITE].map(|p| VcSet::new(&self.geom, p, self.rules.vc));
        self.moves(&sets, candidates)
            .into_par_iter()
            .map_init(fresh, |next_vcs, c| {
                let mut next = sets;
                next[to_move].insert(c);
                for (v, into) in vcs.iter().zip(next_vcs.iter_mut()) {
                    v.update_into(&self.geom, c, to_move, into);
                }
                let (sides, _) = self.path_sets(&next, next_vcs, limits);
                (c, NetworkValue { sides })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darkhex_games::board::Dims;

    /// The one-ply network values as they were computed before the search
    /// went parallel: one move after another, each with freshly allocated
    /// connection sets.
    fn one_by_one<const W: usize>(
        e: &Engine<W>,
        stones: &CellLists,
        to_move: usize,
        limits: PathLimits,
    ) -> Vec<(usize, NetworkValue)> {
        let sets = e.sets(stones);
        let vcs = e.vcs(&sets);
        e.moves(&sets, None)
            .into_iter()
            .map(|c| {
                let mut next = sets;
                next[to_move].insert(c);
                let next_vcs = vcs.each_ref().map(|v| v.update(&e.geom, c, to_move));
                let sides = [BLACK, WHITE].map(|p| {
                    let net = Network::build(&e.geom, &next, p, Some(&next_vcs[p]));
                    path_sets(&net, limits)
                });
                (c, NetworkValue { sides })
            })
            .collect()
    }

    #[test]
    fn network_move_values_are_those_of_the_first_implementation() {
        // Sums over every move of (d, n_0, n_1, n_2) in Black's and White's
        // networks, as the implementation of commit 17aff52 (one move after
        // another, links in network order, every zone scanned) computed them.
        // 9x9 Black's n_2 was 49,462 with the connections of the OR rule
        // that took a whole list's equal-sized carriers one at a time; taken
        // together they leave 49,451, and 7x7 Black's 6,223 becomes 6,221
        // (the networks' links are the fulls).
        let cases: [(usize, &str, [[u64; 4]; 2]); 2] = [
            (
                9,
                "e5,d6,c7,f3",
                [[229, 481, 6025, 49451], [255, 1292, 12342, 76704]],
            ),
            (7, "d4,c5", [[98, 193, 1300, 6221], [122, 279, 1366, 7569]]),
        ];
        for (size, moves, want) in cases {
            let game = HexGame::new(Dims::new("hex", size, size).unwrap(), false);
            let analyst = analyst_for(&game);
            let mut stones: CellLists = [vec![], vec![]];
            for (i, m) in moves.split(',').enumerate() {
                stones[i % 2].push(game.dims().parse_cell(m).unwrap());
            }
            let values = analyst.network_move_values(&stones, BLACK, None, PathLimits::new(2));
            let mut sums = [[0u64; 4]; 2];
            for (_, v) in &values {
                assert!(v.complete());
                for (sum, side) in sums.iter_mut().zip(&v.sides) {
                    sum[0] += u64::from(side.distance.unwrap());
                    for (s, n) in sum[1..].iter_mut().zip(&side.counts) {
                        *s += u64::try_from(n).unwrap();
                    }
                }
            }
            assert_eq!(sums, want, "{size}x{size} {moves}");
        }
    }

    #[test]
    fn network_move_values_do_not_depend_on_threads_or_reused_sets() {
        let positions: [(usize, &str); 3] = [(7, ""), (7, "d4,c5,e3"), (9, "e5,d6,c7,f3,g4")];
        for (size, moves) in positions {
            let game = HexGame::new(Dims::new("hex", size, size).unwrap(), false);
            let e = Engine::<2>::new(game);
            let mut stones: CellLists = [vec![], vec![]];
            for (i, m) in moves.split(',').filter(|m| !m.is_empty()).enumerate() {
                stones[i % 2].push(game.dims().parse_cell(m).unwrap());
            }
            let to_move = (stones[0].len() + stones[1].len()) % 2;
            let limits = PathLimits::new(2);
            let want = one_by_one(&e, &stones, to_move, limits);
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let got = pool.install(|| e.network_move_values(&stones, to_move, None, limits));
                assert_eq!(got, want, "{size}x{size} {moves} with {threads} threads");
            }
        }
    }
}
