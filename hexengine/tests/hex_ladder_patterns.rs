//! Ladder patterns: their text form, the built-in table held to exhaustive
//! play, the finder reproducing it, and matches on real boards holding.

mod common;

use common::{assert_winners_match_minimax, fill_around, geom, positions};
use darkhex_games::board::{BLACK, Dims, WHITE};
use darkhex_games::{CellSet, Geometry};
use darkhex_hexengine::hexsolve::check::ladder_holds;
use darkhex_hexengine::hexsolve::edge_patterns::EdgeFrame;
use darkhex_hexengine::hexsolve::ladder_patterns::{
    LadderPattern, PlacedLadders, find_ladder_patterns, ladder_patterns, parse_ladders,
};
use darkhex_hexengine::hexsolve::minimax::Minimax;
use darkhex_hexengine::hexsolve::{DfpnParams, HexSolver, Rules};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

#[test]
fn ladder_lines_round_trip_and_bad_lines_are_named() {
    let p = LadderPattern::parse("1; 3 ;0,0 0,1 0,2 1,1 1,2 0,3", 4).unwrap();
    assert_eq!(p.carrier[0], (0, 0));
    assert_eq!(LadderPattern::parse(&p.to_line(), 1).unwrap(), p);
    for (bad, what) in [
        ("1;3", "2 fields"),
        ("x;3;0,0", "bad number 'x'"),
        ("9;3;0,0", "bad number '9'"),
        ("1;3;0;0", "4 fields"),
        ("1;3;00", "bad cell"),
        ("1;3;2,0", "bad number '2'"),
        ("1;3;1,0", "an end"),
        ("1;3;1,3", "an end"),
    ] {
        let err = LadderPattern::parse(bad, 12).unwrap_err().to_string();
        assert!(
            err.contains("line 12") && err.contains(what),
            "{bad}: {err}"
        );
    }
    let err = parse_ladders("# fine\n1;2;0,0\n1;2\n").unwrap_err();
    assert_eq!(err.line, 3);
}

/// A pattern on a band of its own along Black's last row: X, Y, carrier,
/// every other cell White's.
fn band_game(p: &LadderPattern) -> (Geometry<2>, [CellSet<2>; 2], [CellSet<2>; 2], CellSet<2>) {
    let ends = [(p.depth, 0), (1, p.reach)];
    let cells = || p.carrier.iter().chain(&ends).map(|&(e, a)| (e, a as isize));
    let lo = cells().map(|c| c.1).min().unwrap_or(0);
    let hi = cells().map(|c| c.1).max().unwrap_or(0);
    let dims = Dims::new("hex", p.depth as usize + 1, (hi - lo + 1) as usize).unwrap();
    let g = Geometry::<2>::new(dims).unwrap();
    let frame = EdgeFrame::new(dims, BLACK, 1);
    let at = |(e, a): (i8, i8)| frame.cell(e as isize, a as isize - lo).unwrap();
    let [x, y] = ends.map(|c| CellSet::single(at(c)));
    let carrier: CellSet<2> = p.carrier.iter().map(|&c| at(c)).collect();
    let white = g.all() - carrier - x - y;
    (g, [CellSet::EMPTY, white], [x, y], carrier)
}

/// Whether the pattern's ladder holds, and no cell of its carrier can go.
fn holds_and_is_minimal(p: &LadderPattern) -> Result<(), String> {
    let (g, stones, ends, carrier) = band_game(p);
    if !ladder_holds(&g, &stones, BLACK, ends, 1, carrier, true) {
        return Err(format!("{} does not hold", p.to_line()));
    }
    for c in carrier.iter() {
        let mut less = stones;
        less[WHITE].insert(c);
        if ladder_holds(&g, &less, BLACK, ends, 1, carrier.without(c), true) {
            return Err(format!("{} holds without a cell", p.to_line()));
        }
    }
    Ok(())
}

#[test]
fn builtin_ladders_hold_and_are_minimal() {
    let all = ladder_patterns();
    assert!(all.len() >= 40, "{} ladder patterns", all.len());
    // Every distance along the second row up to four, each way.
    for reach in [-4, -3, -2, 2, 3, 4] {
        assert!(
            all.iter().any(|p| p.depth == 1 && p.reach == reach),
            "no second-row ladder of reach {reach}"
        );
    }
    let failing: Vec<String> = all
        .par_iter()
        .filter_map(|p| holds_and_is_minimal(p).err())
        .collect();
    assert!(failing.is_empty(), "{failing:?}");
}

/// The pruned search answers as trying every move does, on the small
/// ladders and on each with a carrier cell taken away.
#[test]
fn pruned_and_plain_ladder_checks_agree() {
    let small: Vec<&LadderPattern> = ladder_patterns()
        .iter()
        .filter(|p| p.carrier.len() <= 8)
        .collect();
    assert!(small.len() >= 10);
    let mut held = 0;
    let mut failed = 0;
    for p in small {
        let (g, stones, ends, carrier) = band_game(p);
        for c in std::iter::once(None).chain(carrier.iter().map(Some)) {
            let mut s = stones;
            let mut k = carrier;
            if let Some(c) = c {
                s[WHITE].insert(c);
                k.remove(c);
            }
            let pruned = ladder_holds(&g, &s, BLACK, ends, 1, k, true);
            let plain = ladder_holds(&g, &s, BLACK, ends, 1, k, false);
            assert_eq!(pruned, plain, "{} less {c:?}", p.to_line());
            if plain { held += 1 } else { failed += 1 }
        }
    }
    assert!(held > 0 && failed > 0, "{held} held, {failed} failed");
}

/// The finder gives the table's short ladders again.
#[test]
fn the_finder_reproduces_the_short_ladders() {
    let found = find_ladder_patterns(3, |_| {});
    let table: Vec<&LadderPattern> = ladder_patterns()
        .iter()
        .filter(|p| p.reach.abs() <= 3)
        .collect();
    assert_eq!(found.iter().collect::<Vec<_>>(), table);
}

/// Ladders matched on random positions of several boards, for both
/// players and all four sides, hold there by exhaustive play inside
/// their carriers.
#[test]
fn matches_on_random_boards_hold_by_exhaustive_play() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut checked = 0;
    for (r, c) in [(4, 6), (6, 4), (5, 5), (6, 6), (5, 7)] {
        let g = geom(r, c);
        let placed = PlacedLadders::new(&g, ladder_patterns());
        for stones in positions(&g, &mut rng, 60, r * c - 4) {
            for player in [BLACK, WHITE] {
                for x in (g.all() - stones[1 - player]).iter() {
                    for (y, side, carrier) in placed.matches(&stones, player, x) {
                        if carrier.count() > 12 {
                            continue;
                        }
                        let ends = [CellSet::single(x), CellSet::single(y)];
                        assert!(
                            ladder_holds(&g, &stones, player, ends, side, carrier, false),
                            "{r}x{c} player {player} side {side}: {x} to {y} in {carrier:?} with {stones:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 500, "{checked} matches checked");
}

/// Positions built around ladders (X, Y and the carrier empty, every
/// other cell random) on 6x6 and 5x7: every move's value still matches
/// minimax, and the ladders were used.
#[test]
fn ladders_keep_values() {
    let mut matched = 0;
    for (i, (r, c)) in [(6, 6), (5, 7)].into_iter().enumerate() {
        let g = geom(r, c);
        let mut rng = ChaCha8Rng::seed_from_u64(70 + i as u64);
        let mut m = Minimax::new(&g, false);
        let solver = HexSolver::new(&g, Rules::hex(), DfpnParams::default());
        let all: Vec<&LadderPattern> = ladder_patterns()
            .iter()
            .filter(|p| p.carrier.len() <= 11)
            .collect();
        let mut done = 0;
        while done < 12 {
            let p = &all[rng.random_range(0..all.len())];
            let (player, side) = (rng.random_range(0..2), rng.random_range(0..2));
            let frame = EdgeFrame::new(g.dims(), player, side);
            let a0 = rng.random_range(0..r.max(c) as i64) as isize;
            let at = |&(e, a): &(i8, i8)| frame.cell(e as isize, a0 + a as isize);
            let (Some(x), Some(y), Some(carrier)) = (
                at(&(p.depth, 0)),
                at(&(1, p.reach)),
                p.carrier.iter().map(at).collect::<Option<CellSet<1>>>(),
            ) else {
                continue;
            };
            let mut stones = [CellSet::EMPTY; 2];
            stones[player].insert(x);
            let Some(stones) = fill_around(&g, &mut rng, stones, carrier.with(y), 14) else {
                continue;
            };
            done += 1;
            matched += assert_winners_match_minimax(&g, &solver, &mut m, stones).ladder_matched;
        }
    }
    assert!(matched > 20, "{matched} connections from ladders");
}
