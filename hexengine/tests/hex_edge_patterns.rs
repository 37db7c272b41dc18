//! Edge patterns: the frames they are stated in, their text form, the
//! built-in table held to an exhaustive check, and learning by local search.

mod common;

use common::{geom, scatter};
use darkhex_games::board::{BLACK, Dims, WHITE};
use darkhex_games::{CellSet, Geometry};
use darkhex_hexengine::hexsolve::check::{Terminal, connection_holds, connection_holds_pruned};
use darkhex_hexengine::hexsolve::edge_patterns::{
    EdgeFrame, EdgePattern, EdgePatterns, PlacedEdges,
};
use darkhex_hexengine::hexsolve::edge_search::EdgeLearner;
use darkhex_hexengine::hexsolve::vc::{VcParams, VcSet};
use darkhex_hexengine::hexsolve::{DfpnParams, HexSolver, Position, Rules};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// The six neighbours of (e, a) in every frame.
const STEPS: [(isize, isize); 6] = [(0, -1), (0, 1), (-1, -1), (-1, 0), (1, 0), (1, 1)];

#[test]
fn frames_keep_the_grid_and_measure_from_their_side() {
    for (r, c) in [(5, 7), (7, 5), (6, 6)] {
        let dims = Dims::new("hex", r, c).unwrap();
        let g = Geometry::<1>::new(dims).unwrap();
        for player in [BLACK, WHITE] {
            for side in 0..2 {
                let frame = EdgeFrame::new(dims, player, side);
                for cell in 0..dims.cells() {
                    let (e, a) = frame.coords(cell);
                    assert_eq!(frame.cell(e, a), Some(cell));
                    assert_eq!(e == 0, g.sides(player)[side].contains(cell));
                    let near: CellSet<1> = STEPS
                        .iter()
                        .filter_map(|&(de, da)| frame.cell(e + de, a + da))
                        .collect();
                    assert_eq!(near, g.adjacent(cell), "{r}x{c} {player} {side} {cell}");
                }
            }
        }
    }
}

#[test]
fn mirroring_keeps_the_grid_and_undoes_itself() {
    // (e, a) -> (e, e - a) maps each step to a step.
    for &(de, da) in &STEPS {
        let image = (de, de - da);
        assert!(STEPS.contains(&image), "{de},{da}");
    }
    let p = EdgePattern::parse("3;2,-1;0,-3 0,-2 1,-2 1,-1 2,0 3,1", 1).unwrap();
    assert_ne!(p.mirrored(), p);
    assert_eq!(p.mirrored().mirrored(), p);
}

#[test]
fn pattern_lines_round_trip_and_bad_lines_are_named() {
    let p = EdgePattern::parse("4; 3,-2 ;0,-5 0,-4 1,-4 3,-1", 7).unwrap();
    assert_eq!(EdgePattern::parse(&p.to_line(), 1).unwrap(), p);
    for (bad, what) in [
        ("4;3,-2", "2 fields"),
        ("x;;", "bad depth"),
        ("4;3;0,1", "bad cell"),
        ("2;;3,0", "beyond E's row"),
        ("2;;2,0", "E itself"),
        ("2;;0,99", "bad cell"),
    ] {
        let err = EdgePattern::parse(bad, 12).unwrap_err().to_string();
        assert!(
            err.contains("line 12") && err.contains(what),
            "{bad}: {err}"
        );
    }
    let table = EdgePatterns::new();
    let err = table
        .learn_text("# fine\n2;;0,0 1,0\n2;;0,0 1,0;\n")
        .unwrap_err();
    assert_eq!(err.line, 3);
}

/// The band game of a pattern as a board of its own: E on the top row
/// (the pattern's depth), the side at the bottom, every cell outside the
/// pattern the opponent's.
fn band_game(p: &EdgePattern) -> (Geometry<2>, [CellSet<2>; 2], usize, CellSet<2>) {
    let d = p.depth as isize;
    let cells = || {
        p.stones
            .iter()
            .chain(&p.carrier)
            .map(|&(e, a)| (e as isize, a as isize))
    };
    let lo = cells().map(|c| c.1).min().unwrap_or(0).min(0);
    let hi = cells().map(|c| c.1).max().unwrap_or(0).max(0);
    let dims = Dims::new("hex", d as usize + 1, (hi - lo + 1) as usize).unwrap();
    let g = Geometry::<2>::new(dims).unwrap();
    let frame = EdgeFrame::new(dims, BLACK, 1);
    let at = |(e, a): (i8, i8)| frame.cell(e as isize, a as isize - lo).unwrap();
    let e_cell = at((p.depth, 0));
    let black: CellSet<2> = p.stones.iter().map(|&c| at(c)).collect();
    let carrier: CellSet<2> = p.carrier.iter().map(|&c| at(c)).collect();
    let white = g.all() - black - carrier - CellSet::single(e_cell);
    (g, [black, white], e_cell, carrier)
}

fn holds(p: &EdgePattern) -> bool {
    let (g, stones, e, carrier) = band_game(p);
    let to = Terminal::Cells(CellSet::single(e));
    connection_holds_pruned(&g, &stones, BLACK, to, Terminal::Side(1), carrier, false)
}

/// Every built-in pattern of up to 14 cells holds by exhaustive play in
/// its carrier (larger ones take seconds to gigabytes that way).
#[test]
fn small_builtin_patterns_hold_by_exhaustive_play() {
    let all = EdgePatterns::builtin().since(0);
    let small: Vec<&EdgePattern> = all.iter().filter(|p| p.carrier.len() <= 14).collect();
    assert!(small.len() > 100, "{} small patterns", small.len());
    let failing: Vec<String> = small
        .par_iter()
        .filter(|p| !holds(p))
        .map(|p| p.to_line())
        .collect();
    assert!(
        failing.is_empty(),
        "{} fail: {:?}",
        failing.len(),
        &failing[..failing.len().min(3)]
    );
}

/// Every built-in pattern holds by a solve of its band game with the
/// edge patterns off (the solver is held to minimax by hex_solver.rs).
#[test]
fn builtin_patterns_hold_by_search() {
    let all = EdgePatterns::builtin().since(0);
    assert!(all.len() > 1000, "the table has {} patterns", all.len());
    let failing: Vec<String> = all
        .par_chunks(all.len().div_ceil(8))
        .flat_map_iter(|chunk| {
            let mut solvers = std::collections::HashMap::new();
            chunk
                .iter()
                .filter(|p| !holds_by_search(p, &mut solvers))
                .map(|p| p.to_line())
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        failing.is_empty(),
        "{} fail: {:?}",
        failing.len(),
        &failing[..failing.len().min(3)]
    );
}

type Solvers = std::collections::HashMap<(usize, usize), HexSolver<'static, 2>>;

/// The band game with a row above E that is White's but for a Black stone
/// over E, so Black joins north and south exactly when E reaches the side.
fn holds_by_search(p: &EdgePattern, solvers: &mut Solvers) -> bool {
    let d = p.depth as isize;
    let cells = || {
        p.stones
            .iter()
            .chain(&p.carrier)
            .map(|&(e, a)| (e as isize, a as isize))
    };
    let lo = cells().map(|c| c.1).min().unwrap_or(0).min(0);
    let hi = cells().map(|c| c.1).max().unwrap_or(0).max(0);
    let (rows, cols) = (d as usize + 2, (hi - lo + 1) as usize);
    let solver = solvers.entry((rows, cols)).or_insert_with(|| {
        let dims = Dims::new("hex", rows, cols).unwrap();
        let g: &'static Geometry<2> = Box::leak(Box::new(Geometry::new(dims).unwrap()));
        let rules = Rules {
            edge_patterns: false,
            ..Rules::hex()
        };
        let params = DfpnParams {
            threads: 1,
            tt_mb: 8,
            ..DfpnParams::default()
        };
        HexSolver::new(g, rules, params)
    });
    let g = solver.geometry();
    let frame = EdgeFrame::new(g.dims(), BLACK, 1);
    let at = |(e, a): (isize, isize)| frame.cell(e, a - lo).unwrap();
    let mut stones = [CellSet::<2>::EMPTY; 2];
    stones[BLACK].insert(at((d + 1, 0)));
    stones[BLACK].insert(at((d, 0)));
    stones[BLACK] |= p
        .stones
        .iter()
        .map(|&(e, a)| at((e as isize, a as isize)))
        .collect();
    let carrier: CellSet<2> = p
        .carrier
        .iter()
        .map(|&(e, a)| at((e as isize, a as isize)))
        .collect();
    stones[WHITE] = g.all() - stones[BLACK] - carrier;
    solver.clear();
    let out = solver.solve(&Position::new(g, stones, WHITE), &|_| {});
    out.wins == Some(false)
}

/// A wrong pattern is caught: each cell taken from a true one's carrier
/// in turn, the check must fail at least once (the carrier is minimal).
#[test]
fn the_check_refuses_broken_patterns() {
    let all = EdgePatterns::builtin().since(0);
    for p in all
        .iter()
        .filter(|p| (8..=12).contains(&p.carrier.len()))
        .take(40)
    {
        assert!(holds(p));
        let broken = (0..p.carrier.len()).all(|i| {
            let mut q = p.clone();
            q.carrier.remove(i);
            !holds(&q)
        });
        assert!(broken, "{} holds with a cell less", p.to_line());
    }
}

/// The pruned check answers as the plain one on random small carriers.
#[test]
fn pruned_check_agrees_with_exhaustive_play() {
    let g = geom(4, 4);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let (mut yes, mut no) = (0, 0);
    for _ in 0..400 {
        let mut stones = [CellSet::<1>::EMPTY; 2];
        let mut carrier = CellSet::EMPTY;
        for c in 0..g.cells() {
            match rng.random_range(0..10) {
                0 | 1 => stones[BLACK].insert(c),
                2 | 3 => stones[WHITE].insert(c),
                _ => carrier.insert(c),
            }
        }
        let a = Terminal::Side(0);
        let b = Terminal::Side(1);
        for first in [false, true] {
            let plain = connection_holds(&g, &stones, BLACK, a, b, carrier, first);
            let pruned = connection_holds_pruned(&g, &stones, BLACK, a, b, carrier, first);
            assert_eq!(plain, pruned, "{stones:?} {carrier:?} {first}");
            if plain { yes += 1 } else { no += 1 }
        }
    }
    assert!(yes > 50 && no > 50, "{yes} holding, {no} not");
}

/// Two Black stones side by side on the fourth row of 8x8 (c5 and d5,
/// White's e8 far away) are joined to the south side by a template that
/// H-search does not find. The local search proves it and learns a
/// pattern that holds by exhaustive play and then matches the position;
/// with White on c6 and d6 under the pair the template is broken and the
/// search finds nothing, which exhaustive play confirms on the pattern's
/// own cells.
#[test]
fn a_fourth_row_template_is_learnt_and_holds() {
    let dims = Dims::new("hex", 8, 8).unwrap();
    let g = Geometry::<1>::new(dims).unwrap();
    let cell = |s: &str| dims.parse_cell(s).unwrap();
    let mut stones = [CellSet::<1>::EMPTY; 2];
    stones[BLACK] = [cell("c5"), cell("d5")].into_iter().collect();
    stones[WHITE].insert(cell("e8"));
    let vcs = VcSet::build(&g, &stones, BLACK, VcParams::default());
    let pair = vcs.end_of(cell("c5")).unwrap();
    assert!(
        vcs.fulls(pair, vcs.side(1)).next().is_none(),
        "H-search joins the pair already"
    );
    let mut learner = EdgeLearner::<1>::default();
    let p = learner
        .search(&g, &stones, BLACK, 1, cell("c5"))
        .expect("the template holds");
    assert!(holds(&p), "{}", p.to_line());
    let table = EdgePatterns::new();
    table.learn(p.clone());
    let mut placed = PlacedEdges::new(&g);
    placed.sync(&g, &table);
    let carrier = placed
        .find(&stones, BLACK, 1, cell("c5"))
        .expect("it matches");
    let pair_cells = Terminal::Cells(stones[BLACK]);
    assert!(connection_holds_pruned(
        &g,
        &stones,
        BLACK,
        pair_cells,
        Terminal::Side(1),
        carrier,
        false
    ));
    stones[WHITE].insert(cell("c6"));
    stones[WHITE].insert(cell("d6"));
    assert!(placed.find(&stones, BLACK, 1, cell("c5")).is_none());
    assert!(learner.search(&g, &stones, BLACK, 1, cell("c5")).is_none());
    let blocked = carrier - stones[WHITE];
    assert!(!connection_holds_pruned(
        &g,
        &stones,
        BLACK,
        pair_cells,
        Terminal::Side(1),
        blocked,
        false
    ));
}

/// Placed on real boards (every side of both players, non-square boards
/// included), each pattern that matches a random position joins its E to
/// its side by exhaustive play in the carrier it gives there.
#[test]
fn matches_on_random_boards_hold_by_exhaustive_play() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut checked = [0usize; 4];
    for (r, c) in [(7, 7), (8, 6), (6, 8), (8, 8)] {
        let g = geom(r, c);
        let placed = PlacedEdges::builtin(&g);
        for _ in 0..150 {
            let stones = scatter(&g, &mut rng, 12);
            for player in [BLACK, WHITE] {
                for side in 0..2 {
                    for e in (g.all() - stones[1 - player]).iter() {
                        let Some(carrier) = placed.find(&stones, player, side, e) else {
                            continue;
                        };
                        if carrier.count() > 14 {
                            continue;
                        }
                        let from = Terminal::Cells(CellSet::single(e));
                        assert!(
                            connection_holds_pruned(
                                &g,
                                &stones,
                                player,
                                from,
                                Terminal::Side(side),
                                carrier,
                                false
                            ),
                            "{r}x{c} {stones:?} player {player} side {side} cell {e}"
                        );
                        checked[player * 2 + side] += 1;
                    }
                }
            }
        }
    }
    assert!(
        checked.iter().all(|&n| n > 20),
        "matches checked per side: {checked:?}"
    );
}

/// The sieve (placements ruled out 64 at a time by the cells that kill
/// them) gives the first matching placement, as the plain scan does, on
/// random positions of several densities, boards of one and two words, and
/// on a table that grows after its sieves were made.
#[test]
fn the_sieve_answers_as_the_scan_does() {
    fn compare<const W: usize>(
        g: &Geometry<W>,
        placed: &PlacedEdges<W>,
        rng: &mut ChaCha8Rng,
    ) -> usize {
        let mut found = 0;
        for round in 0..60 {
            let stones = scatter(g, rng, 2 * (3 + round % 10));
            for player in [BLACK, WHITE] {
                for side in 0..2 {
                    for e in (g.all() - stones[1 - player]).iter() {
                        let scanned = placed.find_by_scan(&stones, player, side, e);
                        let sieved = placed.find(&stones, player, side, e);
                        assert_eq!(scanned, sieved, "player {player} side {side} cell {e}");
                        found += scanned.is_some() as usize;
                    }
                }
            }
        }
        found
    }
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    for (r, c) in [(8, 8), (6, 9), (9, 6)] {
        let g = geom(r, c);
        assert!(
            compare(&g, &PlacedEdges::builtin(&g), &mut rng) > 100,
            "{r}x{c}"
        );
    }
    let dims = Dims::new("hex", 11, 11).unwrap();
    let g = Geometry::<2>::new(dims).unwrap();
    assert!(
        compare(&g, &PlacedEdges::builtin(&g), &mut rng) > 100,
        "11x11"
    );
    let g = geom(8, 8);
    let all = EdgePatterns::builtin().since(0);
    let growing = EdgePatterns::new();
    let mut placed = PlacedEdges::new(&g);
    for half in all.chunks(all.len() / 2 + 1) {
        for p in half {
            growing.learn(p.clone());
        }
        placed.sync(&g, &growing);
        assert!(compare(&g, &placed, &mut rng) > 100, "a growing table");
    }
}
