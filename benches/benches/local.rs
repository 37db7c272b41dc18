//! Region values: `cargo bench -p darkhex-benches --bench local`. The
//! canonical value of the ziggurat (8 empty cells, 2 terminals) and of a
//! 12-cell 3-terminal region built from scratch (fresh arena and tables
//! each time), and one comparison G <= H of two composite values with the
//! relations' memo empty. The 15-cell region of local/regions/three-15.region
//! takes seconds a run: time it with `darkhex region` (docs/results/regions.md).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use darkhex_local::region::Region;

const ZIGGURAT: &str = include_str!("../../local/regions/ziggurat.region");
const THREE_12: &str =
    "W 1 1 1 1 W\n W . . . . 3\n  2 . . . . 3\n   2 . . . . 3\n    W W W W W -\n";

fn local(c: &mut Criterion) {
    let zig = Region::parse(ZIGGURAT).unwrap();
    c.bench_function("ziggurat canonical value", |b| {
        b.iter(|| {
            let mut arena = zig.arena();
            black_box(zig.value(&mut arena, true).value)
        })
    });
    let three = Region::parse(THREE_12).unwrap();
    let mut group = c.benchmark_group("slow");
    group.sample_size(10);
    group.bench_function("12-cell 3-terminal canonical value", |b| {
        b.iter(|| {
            let mut arena = three.arena();
            black_box(three.value(&mut arena, true).value)
        })
    });
    group.finish();
    // Two values of one arena: a 3-terminal region and its value with a
    // stone more; the comparison on a copy whose memo starts empty.
    let mut arena = three.arena();
    let g = three.value(&mut arena, true).value;
    let more = Region::parse(&THREE_12.replacen('.', "B", 1)).unwrap();
    let h = more.value(&mut arena, true).value;
    let mut fresh = arena.clone();
    fresh.forget_relations();
    c.bench_function("one comparison G <= H of two region values", |b| {
        b.iter_batched(
            || fresh.clone(),
            // The arena is returned so that criterion drops it untimed.
            |mut a| {
                let le = black_box(a.le(g, h));
                (a, le)
            },
            criterion::BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, local);
criterion_main!(benches);
