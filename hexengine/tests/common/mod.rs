//! Small boards and random positions shared by the tests.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use darkhex_games::board::Dims;
use darkhex_games::{CellSet, Geometry};
use darkhex_hexengine::hexsolve::minimax::Minimax;
use darkhex_hexengine::hexsolve::node::RuleStats;
use darkhex_hexengine::hexsolve::position::joined;
use darkhex_hexengine::hexsolve::{DfpnParams, HexSolver, Position, Rules};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub fn geom(r: usize, c: usize) -> Geometry<1> {
    Geometry::new(Dims::new("hex", r, c).unwrap()).unwrap()
}

/// Random positions with at most `max_empty` empty cells, nobody joined.
pub fn positions(
    g: &Geometry<1>,
    rng: &mut ChaCha8Rng,
    count: usize,
    max_empty: usize,
) -> Vec<[CellSet<1>; 2]> {
    let mut out = Vec::new();
    while out.len() < count {
        let stones = rng.random_range(g.cells().saturating_sub(max_empty)..g.cells());
        let mut s = [CellSet::EMPTY; 2];
        let mut empty: Vec<usize> = (0..g.cells()).collect();
        for i in 0..stones {
            let k = rng.random_range(0..empty.len());
            s[i % 2].insert(empty.swap_remove(k));
        }
        if joined(g, &s).is_none() {
            out.push(s);
        }
    }
    out
}

/// Stones scattered at random: each cell Black with probability
/// 1/`one_in`, White with the same, else empty (players may be joined).
pub fn scatter<const W: usize>(
    g: &Geometry<W>,
    rng: &mut ChaCha8Rng,
    one_in: usize,
) -> [CellSet<W>; 2] {
    let mut stones = [CellSet::EMPTY; 2];
    for cell in 0..g.cells() {
        match rng.random_range(0..one_in) {
            0 => stones[0].insert(cell),
            1 => stones[1].insert(cell),
            _ => {}
        }
    }
    stones
}

/// `stones` with every cell outside them and `keep` coloured at random
/// while more than `max_empty` cells are empty, and each later one with
/// probability 0.3; `None` when more stay empty or someone is joined.
pub fn fill_around(
    g: &Geometry<1>,
    rng: &mut ChaCha8Rng,
    mut stones: [CellSet<1>; 2],
    keep: CellSet<1>,
    max_empty: usize,
) -> Option<[CellSet<1>; 2]> {
    for c in (g.all() - keep - stones[0] - stones[1]).iter() {
        if (stones[0] | stones[1]).count() + max_empty < g.cells() || rng.random_bool(0.3) {
            stones[rng.random_range(0..2)].insert(c);
        }
    }
    let empty = g.cells() - (stones[0] | stones[1]).count();
    (empty <= max_empty && joined(g, &stones).is_none()).then_some(stones)
}

/// Asserts that the solver's winning moves equal minimax's with either
/// player to move; what the rules did in both solves.
pub fn assert_winners_match_minimax(
    g: &Geometry<1>,
    solver: &HexSolver<1>,
    m: &mut Minimax<1>,
    stones: [CellSet<1>; 2],
) -> RuleStats {
    let mut rules = RuleStats::default();
    for to_move in 0..2 {
        let pos = Position::new(g, stones, to_move);
        let (values, stats) = solver.move_values(&pos, &|_, _| {});
        rules.add(&stats.rules);
        let winners: CellSet<1> = values
            .iter()
            .filter(|v| v.1 == Some(true))
            .map(|v| v.0)
            .collect();
        let (r, c) = (g.dims().rows(), g.dims().cols());
        assert_eq!(
            winners,
            m.winning_moves(&stones, to_move),
            "{r}x{c} {stones:?}, {to_move} to move"
        );
    }
    rules
}

/// Solves `count` random positions of an `r`x`c` board (at most
/// `max_empty` cells empty, either player to move) with `rules` on
/// `threads` threads, and asserts that the value, the winning move and
/// the set of winning moves equal plain minimax's.
pub fn check_board(
    r: usize,
    c: usize,
    rules: Rules,
    threads: usize,
    count: usize,
    max_empty: usize,
    seed: u64,
) {
    let g = geom(r, c);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut m = Minimax::new(&g, rules.misere);
    let params = DfpnParams {
        threads,
        tt_mb: 64,
        ..DfpnParams::for_game(rules.misere)
    };
    let solver = HexSolver::new(&g, rules, params);
    for stones in positions(&g, &mut rng, count, max_empty) {
        for to_move in 0..2 {
            let pos = Position::new(&g, stones, to_move);
            let out = solver.solve(&pos, &|_| {});
            let value = m.wins(&stones, to_move);
            assert_eq!(
                out.wins,
                Some(value),
                "{r}x{c} {stones:?} to move {to_move}"
            );
            if value && let Some(mv) = out.winning_move {
                let mut next = stones;
                next[to_move].insert(mv);
                assert!(!m.wins(&next, 1 - to_move), "{stones:?}: {mv} does not win");
            }
            let (values, _) = solver.move_values(&pos, &|_, _| {});
            let winners: CellSet<1> = values
                .iter()
                .filter(|v| v.1 == Some(true))
                .map(|v| v.0)
                .collect();
            assert!(values.iter().all(|v| v.1.is_some()));
            assert_eq!(
                winners,
                m.winning_moves(&stones, to_move),
                "{r}x{c} {stones:?} to move {to_move}"
            );
        }
    }
}
