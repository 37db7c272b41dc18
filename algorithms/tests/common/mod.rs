//! Small boards and random positions for the Hex solver's tests.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use darkhex_algorithms::hexsolve::position::joined;
use darkhex_games::board::Dims;
use darkhex_games::{CellSet, Geometry};
use rand::Rng;
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
