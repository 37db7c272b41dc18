//! Virtual connections: the edge templates are found, and every claimed
//! connection holds when checked by exhaustive play inside its carrier.

use darkhex_games::board::{BLACK, Dims, WHITE};
use darkhex_games::{CellSet, Geometry};
use darkhex_hexengine::hexsolve::check::{Terminal, connection_holds};
use darkhex_hexengine::hexsolve::minimax::Minimax;
use darkhex_hexengine::hexsolve::position::joined;
use darkhex_hexengine::hexsolve::vc::{End, VcParams, VcSet};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn geom(r: usize, c: usize) -> Geometry<1> {
    Geometry::new(Dims::new("hex", r, c).unwrap()).unwrap()
}

fn cells(g: &Geometry<1>, names: &[&str]) -> CellSet<1> {
    names
        .iter()
        .map(|n| g.dims().parse_cell(n).unwrap())
        .collect()
}

fn terminal(v: &VcSet<1>, e: End, n: usize) -> Terminal<1> {
    if e as usize >= n {
        Terminal::Side(e as usize - n)
    } else {
        Terminal::Cells(v.members(e))
    }
}

#[test]
fn the_4_3_2_and_the_edge_bridge_are_found() {
    let g = geom(6, 6);
    let c4 = g.dims().parse_cell("c4").unwrap();
    let stones = [CellSet::single(c4), CellSet::EMPTY];
    let v = VcSet::build(&g, &stones, BLACK, VcParams::default());
    let e = v.end_of(c4).unwrap();
    let carriers: Vec<CellSet<1>> = v.fulls(e, v.side(1)).collect();
    // Benzene finds exactly this 8-cell carrier (the ziggurat) for c4 to
    // the south on 6x6.
    let ziggurat = cells(&g, &["d4", "b5", "c5", "d5", "a6", "b6", "c6", "d6"]);
    assert!(carriers.contains(&ziggurat), "{carriers:?}");
    // A stone on the second row reaches the edge by a bridge.
    let b5 = g.dims().parse_cell("b5").unwrap();
    let v = VcSet::build(
        &g,
        &[CellSet::single(b5), CellSet::EMPTY],
        BLACK,
        VcParams::default(),
    );
    let carriers: Vec<CellSet<1>> = v.fulls(v.end_of(b5).unwrap(), v.side(1)).collect();
    assert!(carriers.contains(&cells(&g, &["a6", "b6"])), "{carriers:?}");
    // And White's version of the template, against the east side.
    let stones = [CellSet::EMPTY, cells(&g, &["d3"])];
    let v = VcSet::build(&g, &stones, WHITE, VcParams::default());
    let d3 = g.dims().parse_cell("d3").unwrap();
    assert!(
        v.fulls(v.end_of(d3).unwrap(), v.side(1))
            .any(|c| c.count() == 8)
    );
}

#[test]
fn each_pair_of_ends_is_listed_once() {
    // A carrier smaller than every one of a pair's empties its list for a
    // moment; the pair must not be entered among the partners again then
    // (the resistance circuit added such a pair's link twice). Built and
    // updated sets alike.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut pairs = 0;
    for (r, c) in [(5, 5), (6, 6), (7, 7)] {
        let g = geom(r, c);
        for _ in 0..10 {
            let k = rng.random_range(0..=g.cells() / 4);
            let Some(stones) = random_position(&g, &mut rng, k) else {
                continue;
            };
            let empty: Vec<usize> = (g.all() - stones[0] - stones[1]).iter().collect();
            let cell = empty[rng.random_range(0..empty.len())];
            for player in [BLACK, WHITE] {
                let built = VcSet::build(&g, &stones, player, VcParams::default());
                let updated = built.update(&g, cell, rng.random_range(0..2));
                for v in [&built, &updated] {
                    let mut listed = v.full_pairs();
                    let all = listed.len();
                    listed.sort_unstable();
                    listed.dedup();
                    assert_eq!(listed.len(), all, "{r}x{c} {stones:?} player {player}");
                    for x in 0..(g.cells() + 2) as End {
                        let mut partners = v.full_partners(x).to_vec();
                        partners.sort_unstable();
                        partners.dedup();
                        assert_eq!(partners.len(), v.full_partners(x).len());
                    }
                    pairs += all;
                }
            }
        }
    }
    assert!(pairs > 1000, "{pairs}");
}

/// Carriers up to this size are checked by exhaustive play (3^k states).
const CHECKABLE: usize = 11;

/// A random position with `stones` stones, not yet won.
fn random_position(
    g: &Geometry<1>,
    rng: &mut ChaCha8Rng,
    stones: usize,
) -> Option<[CellSet<1>; 2]> {
    let mut s = [CellSet::EMPTY; 2];
    let mut empty: Vec<usize> = (0..g.cells()).collect();
    for i in 0..stones {
        let k = rng.random_range(0..empty.len());
        s[i % 2].insert(empty.swap_remove(k));
    }
    joined(g, &s).is_none().then_some(s)
}

#[test]
fn every_claimed_connection_holds_in_its_carrier() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut checked = (0, 0);
    for (r, c) in [(3, 3), (3, 4), (4, 4), (4, 5), (5, 5)] {
        let g = geom(r, c);
        for _ in 0..12 {
            let k = rng.random_range(0..=g.cells() / 3);
            let Some(stones) = random_position(&g, &mut rng, k) else {
                continue;
            };
            for player in [BLACK, WHITE] {
                let v = VcSet::build(&g, &stones, player, VcParams::default());
                let n = g.cells();
                for (x, y) in v.full_pairs() {
                    for carrier in v.fulls(x, y).filter(|c| c.count() <= CHECKABLE) {
                        assert!(
                            connection_holds(
                                &g,
                                &stones,
                                player,
                                terminal(&v, x, n),
                                terminal(&v, y, n),
                                carrier,
                                false
                            ),
                            "{r}x{c} {stones:?} player {player}: full {x}-{y} {carrier:?}"
                        );
                        checked.0 += 1;
                    }
                }
                for (x, y) in v.semi_pairs() {
                    for (carrier, key) in v.semis(x, y).filter(|(c, _)| c.count() <= CHECKABLE) {
                        assert!(carrier.contains(key));
                        assert!(
                            connection_holds(
                                &g,
                                &stones,
                                player,
                                terminal(&v, x, n),
                                terminal(&v, y, n),
                                carrier,
                                true
                            ),
                            "{r}x{c} {stones:?} player {player}: semi {x}-{y} {carrier:?}"
                        );
                        checked.1 += 1;
                    }
                }
            }
        }
    }
    assert!(checked.0 > 1000 && checked.1 > 1000, "{checked:?}");
}

#[test]
fn updated_connections_hold_and_keep_the_templates() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let g = geom(5, 5);
    let n = g.cells();
    for _ in 0..30 {
        let Some(stones) = random_position(&g, &mut rng, 4) else {
            continue;
        };
        let empty: Vec<usize> = (g.all() - stones[0] - stones[1]).iter().collect();
        let cell = empty[rng.random_range(0..empty.len())];
        let mover = rng.random_range(0..2);
        let mut after = stones;
        after[mover].insert(cell);
        if joined(&g, &after).is_some() {
            continue;
        }
        for player in [BLACK, WHITE] {
            let before = VcSet::build(&g, &stones, player, VcParams::default());
            let updated = before.update(&g, cell, mover);
            let rebuilt = VcSet::build(&g, &after, player, VcParams::default());
            for (x, y) in updated.full_pairs() {
                for carrier in updated.fulls(x, y).filter(|c| c.count() <= CHECKABLE) {
                    assert!(connection_holds(
                        &g,
                        &after,
                        player,
                        terminal(&updated, x, n),
                        terminal(&updated, y, n),
                        carrier,
                        false
                    ));
                }
            }
            for (x, y) in updated.semi_pairs() {
                for (carrier, _) in updated.semis(x, y).filter(|(c, _)| c.count() <= CHECKABLE) {
                    assert!(connection_holds(
                        &g,
                        &after,
                        player,
                        terminal(&updated, x, n),
                        terminal(&updated, y, n),
                        carrier,
                        true
                    ));
                }
            }
            assert_eq!(
                updated.edge_full(),
                rebuilt.edge_full(),
                "{stones:?} {cell} by {mover}"
            );
        }
    }
}

#[test]
fn every_winning_move_is_in_the_mustplay() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut restricted = 0;
    for (r, c) in [(3, 3), (4, 4), (4, 5)] {
        let g = geom(r, c);
        let mut m = Minimax::new(&g, false);
        for _ in 0..40 {
            // At most 12 empty cells: minimax stays fast.
            let k = rng.random_range(g.cells().saturating_sub(12)..=g.cells() * 2 / 3);
            let Some(stones) = random_position(&g, &mut rng, k) else {
                continue;
            };
            let to_move = rng.random_range(0..2);
            let opponent = VcSet::build(&g, &stones, 1 - to_move, VcParams::default());
            if opponent.edge_full() {
                assert!(
                    !m.wins(&stones, to_move),
                    "the opponent's side-to-side full is a loss"
                );
                continue;
            }
            let Some(mustplay) = opponent.blocking_cells() else {
                continue;
            };
            let wins = m.winning_moves(&stones, to_move);
            assert!(
                wins.is_subset(&mustplay),
                "{stones:?}: {wins:?} outside {mustplay:?}"
            );
            restricted += 1;
        }
    }
    assert!(restricted > 20, "{restricted}");
}

/// Each pair of ends with its list, in stored order.
type Lists<T> = Vec<(End, End, Vec<T>)>;

/// Every list of `v`, in its stored order: fulls, then semis with their keys.
fn all_lists(v: &VcSet<1>) -> (Lists<CellSet<1>>, Lists<(CellSet<1>, usize)>) {
    let fulls = v
        .full_pairs()
        .into_iter()
        .map(|(x, y)| (x, y, v.fulls(x, y).collect()))
        .collect();
    let semis = v
        .semi_pairs()
        .into_iter()
        .map(|(x, y)| (x, y, v.semis(x, y).collect()))
        .collect();
    (fulls, semis)
}

#[test]
fn updating_into_a_used_set_equals_updating_into_a_new_one() {
    // The network players reuse one set per thread for every move they
    // try: whatever the set held before must leave no trace.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let g = geom(7, 7);
    let mut reused = [BLACK, WHITE].map(|p| VcSet::new(&g, p, VcParams::default()));
    let mut tried = 0;
    for _ in 0..12 {
        let k = rng.random_range(0..12);
        let Some(stones) = random_position(&g, &mut rng, k) else {
            continue;
        };
        let mover = k % 2;
        for player in [BLACK, WHITE] {
            let before = VcSet::build(&g, &stones, player, VcParams::default());
            for cell in (g.all() - stones[0] - stones[1]).iter() {
                before.update_into(&g, cell, mover, &mut reused[player]);
                let fresh = before.update(&g, cell, mover);
                assert_eq!(
                    all_lists(&reused[player]),
                    all_lists(&fresh),
                    "{stones:?} {cell}"
                );
                assert_eq!(reused[player].edge_full(), fresh.edge_full());
                tried += 1;
            }
        }
    }
    assert!(tried > 500, "{tried}");
}
