//! Small boards, random positions and game strings shared by the tests.

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

/// Every Dark Hex variant on a board: gameversion x disclosure x obstype.
pub fn variants(rows: usize, cols: usize) -> Vec<String> {
    let mut out = Vec::new();
    for version in ["cdh", "adh"] {
        for disclosure in ["none", "noise", "flash"] {
            for obstype in ["reveal-nothing", "reveal-numturns"] {
                out.push(format!(
                    "dark_hex(num_rows={rows},num_cols={cols},gameversion={version},disclosure={disclosure},obstype={obstype})"
                ));
            }
        }
    }
    out
}
