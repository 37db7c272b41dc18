//! Electric-resistance evaluation (Anshelevich's Hexy, Benzene's Six-style
//! circuits): for each player a circuit whose nodes are the empty cells, the
//! player's stone groups and the player's two sides, with the sides as the
//! terminals. Adjacent nodes are joined by a resistor (conductance 1 between
//! empty cells, 2 between a group and an empty cell), and each full virtual
//! connection between two ends adds a link of that conductance divided by
//! one plus the size of the common intersection of its carriers: a
//! connection the opponent can hardly disturb conducts like a wire. The
//! resistance between a player's sides measures how far they are from
//! joining them; the score is ln(R_white / R_black), positive when Black is
//! better. The current through each empty cell, summed over both circuits,
//! orders moves: the cells that carry the most current matter most.

use darkhex_games::board::{BLACK, WHITE};
use darkhex_games::{CellSet, Geometry};
use faer::Mat;
use faer::linalg::solvers::Solve;

use crate::hexsolve::position::Stones;
use crate::hexsolve::vc::{End, VcSet};

/// Conductance between an empty cell and an empty cell, and between a
/// stone group (or side) and an empty cell (Benzene's defaults).
const EMPTY_EMPTY: f64 = 1.0;
const STONE_EMPTY: f64 = 2.0;
/// Resistance reported when a player's sides cannot be joined at all.
pub const INFINITE: f64 = 1e12;

/// One player's circuit: its resistance and the current through each node.
#[derive(Clone, Debug)]
pub struct Circuit {
    /// Resistance between the player's sides (0 when joined,
    /// [`INFINITE`] when they cannot be).
    pub resistance: f64,
    /// Current through each cell's node (0 for cells not in the circuit).
    pub current: Vec<f64>,
}

/// Both players' circuits.
#[derive(Clone, Debug)]
pub struct Resistance {
    pub circuits: [Circuit; 2],
}

impl Resistance {
    /// ln(R_white / R_black): positive when Black is closer to joining.
    pub fn score(&self) -> f64 {
        let [b, w] = [&self.circuits[BLACK], &self.circuits[WHITE]];
        let (rb, rw) = (b.resistance.max(1e-12), w.resistance.max(1e-12));
        (rw / rb).ln()
    }

    /// The score for `player` (positive when `player` is better).
    pub fn score_for(&self, player: usize) -> f64 {
        if player == BLACK {
            self.score()
        } else {
            -self.score()
        }
    }

    /// How much a cell matters: the current through it in both circuits.
    pub fn cell_current(&self, cell: usize) -> f64 {
        self.circuits[BLACK].current[cell] + self.circuits[WHITE].current[cell]
    }
}

/// Evaluates a position with both players' connections. Connections built
/// with [`VcParams::stop_at_edge_full`](crate::hexsolve::vc::VcParams) set
/// hold whatever H-search had reached when a player's sides were joined:
/// the score then depends on the order of the cells. So it does where a
/// list of connections reached its limit ([`VcSet::limited`]): which
/// connections the list kept depends on the order they were found in.
pub fn evaluate<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    vcs: [&VcSet<W>; 2],
) -> Resistance {
    evaluate_with(geom, stones, vcs, Links::OnePerPair)
}

/// How a pair of ends joined by full connections is linked in the circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// One link a pair, whatever the number of its connections (Hex's
    /// evaluation: a position and its turned image score alike).
    OnePerPair,
    /// One link for each time the pair's list of fulls was started
    /// ([`VcSet::full_starts`]): its first full, and each full whose
    /// carrier lay inside all those then listed, which it replaced. A pair whose
    /// connection H-search kept improving on outright conducts more. This
    /// depends on the order connections were found in, so a position and
    /// its turned image may order differently; Rex's move order uses it
    /// because it orders Rex better than one link a pair (docs/results/rex.md).
    OnePerStart,
}

/// [`evaluate`] with the connections linked as `links` says.
pub fn evaluate_with<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    vcs: [&VcSet<W>; 2],
    links: Links,
) -> Resistance {
    Resistance {
        circuits: [
            circuit(geom, stones, vcs[BLACK], links),
            circuit(geom, stones, vcs[WHITE], links),
        ],
    }
}

fn circuit<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    vcs: &VcSet<W>,
    per: Links,
) -> Circuit {
    let n = geom.cells();
    let player = vcs.player();
    let (source, sink) = (vcs.side(0), vcs.side(1));
    let mut current = vec![0.0; n];
    if geom.connected(stones[player], player) {
        return Circuit {
            resistance: 0.0,
            current,
        };
    }
    let empty = geom.all() - stones[0] - stones[1];
    // Nodes: the ends (empty cells, groups, sides), numbered densely.
    let mut node_of_end = vec![usize::MAX; n + 2];
    let mut ends: Vec<End> = Vec::new();
    let mut number = |e: End, ends: &mut Vec<End>| -> usize {
        if node_of_end[e as usize] == usize::MAX {
            node_of_end[e as usize] = ends.len();
            ends.push(e);
        }
        node_of_end[e as usize]
    };
    let s = number(source, &mut ends);
    let t = number(sink, &mut ends);
    let mut links: Vec<(usize, usize, f64)> = Vec::with_capacity(4 * n);
    let sides = geom.sides(player);
    for c in empty.iter() {
        let me = number(c as End, &mut ends);
        for d in (geom.adjacent(c) & empty).iter().filter(|&d| d > c) {
            let other = number(d as End, &mut ends);
            links.push((me, other, EMPTY_EMPTY));
        }
        // At most six neighbours and two sides: no allocation per cell.
        let mut touched = [0 as End; 8];
        let mut count = 0;
        for e in (geom.adjacent(c) & stones[player])
            .iter()
            .filter_map(|d| vcs.end_of(d))
        {
            touched[count] = e;
            count += 1;
        }
        for (i, side) in sides.iter().enumerate() {
            if side.contains(c) {
                touched[count] = vcs.side(i);
                count += 1;
            }
        }
        let touched = &mut touched[..count];
        touched.sort_unstable();
        let mut last = None;
        for &e in touched.iter() {
            if last == Some(e) {
                continue;
            }
            last = Some(e);
            let other = number(e, &mut ends);
            links.push((me, other, STONE_EMPTY));
        }
    }
    // Connections beyond adjacency, weakened by how much of their carriers
    // the opponent could attack at once.
    for (x, y) in vcs.full_pairs() {
        let mut inter = CellSet::<W>::FULL;
        let mut any = false;
        for carrier in vcs.fulls(x, y) {
            inter &= carrier;
            any = true;
        }
        // A pair with an empty carrier is adjacent: its link is there.
        if !any || vcs.fulls(x, y).any(|c| c.is_empty()) {
            continue;
        }
        let stone = |e: End| (e as usize) >= n || !empty.contains(e as usize);
        let value = match (stone(x), stone(y)) {
            (false, false) => EMPTY_EMPTY,
            (true, true) => continue,
            _ => STONE_EMPTY,
        };
        let (a, b) = (number(x, &mut ends), number(y, &mut ends));
        let parallel = match per {
            Links::OnePerPair => 1.0,
            Links::OnePerStart => vcs.full_starts(x, y) as f64,
        };
        links.push((a, b, parallel * value / (1.0 + inter.count() as f64)));
    }
    let m = ends.len();
    // Only the part of the circuit connected to the sink carries current.
    // Each node's links, in one array (in the order of `links`, which
    // fixes the order the currents are summed in).
    let mut start = vec![0usize; m + 1];
    for &(a, b, _) in &links {
        start[a + 1] += 1;
        start[b + 1] += 1;
    }
    for v in 0..m {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut flat = vec![(0usize, 0.0f64); start[m]];
    for &(a, b, g) in &links {
        flat[fill[a]] = (b, g);
        fill[a] += 1;
        flat[fill[b]] = (a, g);
        fill[b] += 1;
    }
    let adjacency = |v: usize| &flat[start[v]..start[v + 1]];
    let mut reached = vec![false; m];
    let mut stack = vec![t];
    reached[t] = true;
    while let Some(v) = stack.pop() {
        for &(w, _) in adjacency(v) {
            if !reached[w] {
                reached[w] = true;
                stack.push(w);
            }
        }
    }
    if !reached[s] {
        return Circuit {
            resistance: INFINITE,
            current,
        };
    }
    // Kirchhoff: the Laplacian over the reached nodes, the sink grounded,
    // one unit of current into the source.
    let mut index = vec![usize::MAX; m];
    let mut order = Vec::new();
    for v in 0..m {
        if reached[v] && v != t {
            index[v] = order.len();
            order.push(v);
        }
    }
    let k = order.len();
    let mut lap = vec![0.0f64; k * k];
    for &(a, b, g) in &links {
        if !reached[a] {
            continue;
        }
        for (u, v) in [(a, b), (b, a)] {
            if index[u] != usize::MAX {
                lap[index[u] * k + index[u]] += g;
                if index[v] != usize::MAX {
                    lap[index[u] * k + index[v]] -= g;
                }
            }
        }
    }
    let mut rhs = vec![0.0f64; k];
    rhs[index[s]] = 1.0;
    solve_grounded_laplacian(&mut lap, &mut rhs, k);
    let voltage = |v: usize| {
        if index[v] == usize::MAX {
            0.0
        } else {
            rhs[index[v]]
        }
    };
    let resistance = voltage(s).abs();
    for v in 0..m {
        let e = ends[v] as usize;
        if e >= n || !empty.contains(e) || !reached[v] {
            continue;
        }
        let through: f64 = adjacency(v)
            .iter()
            .map(|&(w, g)| g * (voltage(v) - voltage(w)).abs())
            .sum();
        // Current enters and leaves a node: half the sum over its links.
        current[e] = through / 2.0;
    }
    Circuit {
        resistance,
        current,
    }
}

/// Solves `lap · x = rhs` in place (`rhs` becomes x) for a `k`×`k`
/// Laplacian stored by rows, with the sink grounded over a connected
/// circuit: such a matrix is symmetric positive definite, so a Cholesky
/// factorisation does (half the work of an LU, no pivoting). The matrices
/// are small (a node per empty cell and group), where a general solver's
/// set-up costs more than the arithmetic; the solver ran at every position
/// of the Rex search. Should rounding ever leave a pivot that is not
/// positive, the matrix goes to faer's LU (rebuilt from its upper
/// triangle, which the factorisation leaves alone, and its diagonal).
fn solve_grounded_laplacian(lap: &mut [f64], rhs: &mut [f64], k: usize) {
    let diagonal: Vec<f64> = (0..k).map(|j| lap[j * k + j]).collect();
    // The lower triangle becomes L, with lap = L·Lᵀ.
    for j in 0..k {
        let mut d = lap[j * k + j];
        for p in 0..j {
            d -= lap[j * k + p] * lap[j * k + p];
        }
        if d <= 0.0 || !d.is_finite() {
            let m = Mat::<f64>::from_fn(k, k, |r, c| match r.cmp(&c) {
                std::cmp::Ordering::Less => lap[r * k + c],
                std::cmp::Ordering::Equal => diagonal[r],
                std::cmp::Ordering::Greater => lap[c * k + r],
            });
            let mut b = Mat::<f64>::from_fn(k, 1, |r, _| rhs[r]);
            m.partial_piv_lu().solve_in_place(&mut b);
            for (r, x) in rhs.iter_mut().enumerate() {
                *x = b[(r, 0)];
            }
            return;
        }
        let d = d.sqrt();
        lap[j * k + j] = d;
        for i in j + 1..k {
            let mut v = lap[i * k + j];
            for p in 0..j {
                v -= lap[i * k + p] * lap[j * k + p];
            }
            lap[i * k + j] = v / d;
        }
    }
    // L·y = rhs, then Lᵀ·x = y.
    for i in 0..k {
        let mut v = rhs[i];
        for p in 0..i {
            v -= lap[i * k + p] * rhs[p];
        }
        rhs[i] = v / lap[i * k + i];
    }
    for i in (0..k).rev() {
        let mut v = rhs[i];
        for p in i + 1..k {
            v -= lap[p * k + i] * rhs[p];
        }
        rhs[i] = v / lap[i * k + i];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hexsolve::vc::VcParams;
    use darkhex_games::board::Dims;

    fn eval(size: usize, black: &[&str], white: &[&str]) -> (Geometry<1>, Resistance) {
        let g = Geometry::<1>::new(Dims::new("hex", size, size).unwrap()).unwrap();
        let set = |names: &[&str]| -> CellSet<1> {
            names
                .iter()
                .map(|n| g.dims().parse_cell(n).unwrap())
                .collect()
        };
        let stones = [set(black), set(white)];
        let b = VcSet::build(&g, &stones, BLACK, VcParams::default());
        let w = VcSet::build(&g, &stones, WHITE, VcParams::default());
        let r = evaluate(&g, &stones, [&b, &w]);
        (g, r)
    }

    /// The Cholesky solve agrees with faer's LU on grounded Laplacians of
    /// random connected graphs (a path through every node, so connected,
    /// plus random links), and on a matrix that is not positive definite
    /// it falls back to the LU.
    #[test]
    fn the_laplacian_solve_agrees_with_a_general_lu() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for k in 1..40 {
            // Nodes 0..k plus the grounded node k.
            let mut lap = vec![0.0; k * k];
            let link = |a: usize, b: usize, g: f64, lap: &mut Vec<f64>| {
                for (u, v) in [(a, b), (b, a)] {
                    if u < k {
                        lap[u * k + u] += g;
                        if v < k {
                            lap[u * k + v] -= g;
                        }
                    }
                }
            };
            for a in 0..k {
                link(a, a + 1, rng.random_range(0.1..2.0), &mut lap);
            }
            for _ in 0..2 * k {
                let (a, b) = (rng.random_range(0..=k), rng.random_range(0..=k));
                if a != b {
                    link(a, b, rng.random_range(0.1..2.0), &mut lap);
                }
            }
            let rhs: Vec<f64> = (0..k).map(|_| rng.random_range(-1.0..1.0)).collect();
            let m = Mat::<f64>::from_fn(k, k, |r, c| lap[r * k + c]);
            let mut want = Mat::<f64>::from_fn(k, 1, |r, _| rhs[r]);
            m.partial_piv_lu().solve_in_place(&mut want);
            let mut got = rhs.clone();
            solve_grounded_laplacian(&mut lap, &mut got, k);
            for r in 0..k {
                assert!((got[r] - want[(r, 0)]).abs() < 1e-9, "k {k} row {r}");
            }
        }
        // [[1, 2], [2, 1]] is symmetric and indefinite: x = (1, 1)/3 for
        // the right-hand side (1, 1).
        let mut lap = vec![1.0, 2.0, 2.0, 1.0];
        let mut x = vec![1.0, 1.0];
        solve_grounded_laplacian(&mut lap, &mut x, 2);
        assert!((x[0] - 1.0 / 3.0).abs() < 1e-12 && (x[1] - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn the_empty_square_board_is_even_and_a_stone_helps_its_owner() {
        let (_, r) = eval(5, &[], &[]);
        assert!(r.score().abs() < 1e-9, "{}", r.score());
        let (_, r) = eval(5, &["c3"], &[]);
        assert!(r.score() > 0.1, "{}", r.score());
        let (_, r) = eval(5, &[], &["c3"]);
        assert!(r.score() < -0.1, "{}", r.score());
    }

    #[test]
    fn a_position_turned_by_180_degrees_scores_the_same() {
        // Turning the board keeps each player's sides (north and south
        // swap, as do west and east), so both resistances and every cell's
        // current must turn with it. Each pair of ends counts its link
        // once (when a pair's list was emptied and refilled its link was
        // added twice: 7x7 f2 scored 0.498 and its image b6 0.489), the
        // connections are complete (H-search stopped at a side-to-side
        // full keeps an order-dependent part: 5x5 b2 e5 / c2 d4 gave
        // White 0.222 one way round and 0.197 the other), and the OR of a
        // pair's whole list takes equal-sized carriers together (one at a
        // time, 5x5 a1 c1 / d4 b5 gave White 0.180955 and, turned,
        // 0.180772). Where a list reached its limit (25 fulls or 50 semis
        // a pair), which connections it kept depends on the order they
        // were found in: those positions are left out, and counted.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let (mut compared, mut limited) = (0, 0);
        for size in [5, 6, 7] {
            let g = Geometry::<1>::new(Dims::new("hex", size, size).unwrap()).unwrap();
            let n = g.cells();
            for _ in 0..40 {
                let mut stones = [CellSet::<1>::EMPTY; 2];
                for i in 0..rng.random_range(1..=n / 3) {
                    let c = rng.random_range(0..n);
                    if !stones[0].contains(c) && !stones[1].contains(c) {
                        stones[i % 2].insert(c);
                    }
                }
                let turned = [g.rotate(stones[0]), g.rotate(stones[1])];
                let params = VcParams {
                    stop_at_edge_full: false,
                    ..VcParams::default()
                };
                let [a, b] = [stones, turned]
                    .map(|s| [BLACK, WHITE].map(|p| VcSet::build(&g, &s, p, params)));
                if a.iter().chain(&b).any(|v| v.limited()) {
                    limited += 1;
                    continue;
                }
                let [a, b] = [(stones, a), (turned, b)]
                    .map(|(s, v)| evaluate(&g, &s, [&v[BLACK], &v[WHITE]]));
                for p in [BLACK, WHITE] {
                    let (x, y) = (a.circuits[p].resistance, b.circuits[p].resistance);
                    assert!(
                        (x - y).abs() <= 1e-9 * x.max(1.0),
                        "{stones:?} {p}: {x} {y}"
                    );
                    for c in 0..n {
                        let (x, y) = (a.circuits[p].current[c], b.circuits[p].current[n - 1 - c]);
                        assert!((x - y).abs() <= 1e-9, "{stones:?} {p} cell {c}: {x} {y}");
                    }
                }
                compared += 1;
            }
        }
        assert_eq!((compared, limited), (99, 21));
    }

    #[test]
    fn the_centre_carries_the_most_current_and_a_win_has_no_resistance() {
        let (g, r) = eval(5, &[], &[]);
        let centre = g.dims().parse_cell("c3").unwrap();
        let best = (0..25)
            .max_by(|&a, &b| r.cell_current(a).total_cmp(&r.cell_current(b)))
            .unwrap();
        assert_eq!(best, centre);
        let (_, r) = eval(3, &["a1", "a2", "a3"], &[]);
        assert_eq!(r.circuits[BLACK].resistance, 0.0);
        assert!(r.score() > 10.0);
        // White walled off from the east: infinite resistance.
        let (_, r) = eval(3, &["b1", "b2", "b3"], &[]);
        assert_eq!(r.circuits[WHITE].resistance, INFINITE);
    }
}
