//! Sequence-form LP solves by backend: `cargo bench -p darkhex-benches --bench lp`.
//! microlp (simplex) runs only where it finishes in reasonable time.

use criterion::{Criterion, criterion_group, criterion_main};
use darkhex_algorithms::lp::{LpBackend, LpOptions, solve_sequence_form};
use darkhex_algorithms::{CompileOptions, GameTree};
use darkhex_games::load_game;

fn lp(c: &mut Criterion) {
    let mut group = c.benchmark_group("sequence-form LP");
    group.sample_size(10);
    let cases = [
        ("leduc_poker", LpBackend::Clarabel, false),
        ("leduc_poker", LpBackend::Microlp, true),
        ("dark_hex(num_rows=2,num_cols=3)", LpBackend::Clarabel, true),
        ("dark_hex(num_rows=2,num_cols=3)", LpBackend::Microlp, true),
        (
            "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
            LpBackend::Clarabel,
            false,
        ),
        (
            "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
            LpBackend::Clarabel,
            true,
        ),
    ];
    for (name, backend, full) in cases {
        let game = load_game(name).expect("a valid game string");
        let tree = GameTree::build(&game, &CompileOptions::default()).expect("the tree fits");
        let label = format!(
            "{}{}/{name}",
            backend.name(),
            if full { " full" } else { "" }
        );
        group.bench_function(label, |b| {
            b.iter(|| {
                solve_sequence_form(
                    &tree,
                    LpOptions {
                        backend,
                        full,
                        ..LpOptions::default()
                    },
                    &|_| {},
                )
                .expect("solved")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, lp);
criterion_main!(benches);
