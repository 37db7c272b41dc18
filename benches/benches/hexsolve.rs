//! The Hex solver's pieces: `cargo bench -p darkhex-benches --bench hexsolve`.
//! H-search (both players' virtual connections) and one resistance
//! evaluation on a mid-game 11x11 position; the edge patterns tried at every
//! cell there, and the built-in table placed on a board; the solver's
//! examination of one 7x7 position (inferior cells, connections, ordering);
//! all openings of 5x5. Rex: examining a 5x5 position (Solrex's fill-in,
//! pruning and pairing strategies), every opening of 4x4, and Solrex's
//! 5x5 suite (every reply to a1, from one empty table).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use darkhex_benches::{MID_11, position};
use darkhex_games::board::{BLACK, Dims, WHITE};
use darkhex_games::{CellSet, Geometry};
use darkhex_hexengine::eval::evaluate;
use darkhex_hexengine::hexsolve::edge_patterns::{EdgePatterns, PlacedEdges};
use darkhex_hexengine::hexsolve::inferior::analyse;
use darkhex_hexengine::hexsolve::node::{RuleStats, Workspace, examine};
use darkhex_hexengine::hexsolve::vc::{VcParams, VcSet};
use darkhex_hexengine::hexsolve::{DfpnParams, HexSolver, Position, Rules};

/// A 7x7 position after a few opening moves.
const MID_7: &str = "d4,c5,e3,c3,b6";

fn hexsolve(c: &mut Criterion) {
    let g11 = Geometry::<2>::new(Dims::new("hex", 11, 11).unwrap()).unwrap();
    let pos = position(&g11, MID_11);
    let stones = pos.played;
    let params = VcParams::default();
    c.bench_function("h-search 11x11 mid-game (both players)", |b| {
        let mut v = [
            VcSet::new(&g11, BLACK, params),
            VcSet::new(&g11, WHITE, params),
        ];
        b.iter(|| {
            v[0].rebuild(&g11, black_box(&stones));
            v[1].rebuild(&g11, black_box(&stones));
        })
    });
    let vcs = [
        VcSet::build(&g11, &stones, BLACK, params),
        VcSet::build(&g11, &stones, WHITE, params),
    ];
    c.bench_function("resistance 11x11 mid-game", |b| {
        b.iter(|| evaluate(&g11, black_box(&stones), [&vcs[0], &vcs[1]]).score())
    });
    c.bench_function("inferior cells 11x11 mid-game", |b| {
        b.iter(|| analyse(&g11, black_box(&stones), BLACK).dead.count())
    });
    let placed = PlacedEdges::builtin(&g11);
    let open = g11.all() - stones[0] - stones[1];
    c.bench_function(
        "edge patterns 11x11 mid-game (every cell, side, player)",
        |b| {
            b.iter(|| {
                let mut found = 0;
                for player in [BLACK, WHITE] {
                    for side in 0..2 {
                        for e in (open | stones[player]).iter() {
                            found +=
                                placed.find(black_box(&stones), player, side, e).is_some() as usize;
                        }
                    }
                }
                found
            })
        },
    );
    let g8 = Geometry::<1>::new(Dims::new("hex", 8, 8).unwrap()).unwrap();
    c.bench_function("place the built-in edge patterns on 8x8", |b| {
        b.iter(|| {
            let mut p = PlacedEdges::new(black_box(&g8));
            p.sync(&g8, EdgePatterns::builtin());
            p.max_depth()
        })
    });
    let g7 = Geometry::<1>::new(Dims::new("hex", 7, 7).unwrap()).unwrap();
    let pos7 = position(&g7, MID_7);
    let rules = Rules::hex();
    c.bench_function("examine a 7x7 position", |b| {
        let mut ws = Workspace::new(&g7, &rules);
        let mut stats = RuleStats::default();
        b.iter(|| {
            examine(
                &g7,
                black_box(&pos7),
                [CellSet::EMPTY; 2],
                &rules,
                &mut stats,
                &mut ws,
            )
        })
    });
    let r5 = Geometry::<1>::new(Dims::new("rex", 5, 5).unwrap()).unwrap();
    let rex = Rules::rex();
    let rex_mid = position(&r5, "a1,c3,b4");
    c.bench_function("examine a 5x5 Rex position", |b| {
        let mut ws = Workspace::new(&r5, &rex);
        let mut stats = RuleStats::default();
        b.iter(|| {
            examine(
                &r5,
                black_box(&rex_mid),
                [CellSet::EMPTY; 2],
                &rex,
                &mut stats,
                &mut ws,
            )
        })
    });
    let mut group = c.benchmark_group("solve");
    group.sample_size(10);
    let g5 = Geometry::<1>::new(Dims::new("hex", 5, 5).unwrap()).unwrap();
    group.bench_function("every 5x5 opening, 1 thread", |b| {
        b.iter(|| {
            let solver = HexSolver::new(
                &g5,
                Rules::hex(),
                DfpnParams {
                    tt_mb: 32,
                    ..DfpnParams::default()
                },
            );
            solver
                .move_values(&Position::empty(&g5), &|_, _| {})
                .0
                .len()
        })
    });
    fn rex_solver(g: &Geometry<1>) -> HexSolver<'_, 1> {
        HexSolver::new(
            g,
            Rules::rex(),
            DfpnParams {
                threads: 1,
                tt_mb: 64,
                ..DfpnParams::default()
            },
        )
    }
    let r4 = Geometry::<1>::new(Dims::new("rex", 4, 4).unwrap()).unwrap();
    group.bench_function("every 4x4 Rex opening, 1 thread", |b| {
        b.iter(|| {
            rex_solver(&r4)
                .move_values(&Position::empty(&r4), &|_, _| {})
                .0
                .len()
        })
    });
    let after_a1 = position(&r5, "a1");
    group.bench_function("Rex 5x5: every reply to a1, 1 thread", |b| {
        b.iter(|| {
            rex_solver(&r5)
                .move_values(black_box(&after_a1), &|_, _| {})
                .0
                .len()
        })
    });
    group.finish();
}

criterion_group!(benches, hexsolve);
criterion_main!(benches);
