//! Whether a probe can still be White's only winning move in a board
//! position or any position reached from it by moves outside the
//! template: Demer and Selinger's viable abstract probe (Definition 7.1)
//! for the template's carrier with what the board holds around it.
//!
//! The carrier and its neighbours become a region: a neighbour holding a
//! stone is that stone, an empty one is a context cell, a neighbour off
//! the board is Black's edge (above and below) or White's (left and
//! right). A black stone whose group on the board holds one of the
//! template's terminals, or reaches the edge that stands for one, is a
//! stone of that terminal; the other black stones are plain stones, each
//! group of them joined in the region its own boundary node (two of them
//! joined outside the region only are two nodes, which proves less but
//! nothing false: the rest of the board is still a monotone map of the
//! partitions). When the probe is not viable there, every board around it
//! gives White the same outcome with and without the probe as a first
//! move, so no filling of the empty cells outside the carrier is a
//! witness, and the search need not solve it.

use crate::region::{Region, hex_neighbours};
use crate::template::Template;
use darkhex_games::board::{BLACK, WHITE};
use darkhex_hexengine::analyst::CellLists;
use rustc_hash::FxHashMap;

use super::Placement;

/// Answers kept before the cache starts over (a diagram is a hundred
/// bytes or so).
const CACHE_LIMIT: usize = 1 << 18;

/// Viability answers by the region's diagram: climbs revisit the same
/// surroundings of the carrier many times.
#[derive(Default)]
pub(super) struct Viability {
    cache: FxHashMap<String, bool>,
}

impl Viability {
    /// Whether carrier cell `x` of placement `p` is viable with `stones`
    /// on the board. `true` when the surroundings make no region the
    /// template engine takes (then nothing is proven).
    pub(super) fn check(&mut self, p: &Placement, stones: &CellLists, x: usize) -> bool {
        let Some(text) = diagram(p, stones, x) else {
            return true;
        };
        if let Some(&v) = self.cache.get(&text) {
            return v;
        }
        let v = viable(&text);
        if self.cache.len() >= CACHE_LIMIT {
            self.cache.clear();
        }
        self.cache.insert(text, v);
        v
    }
}

/// The probe `p` of a region diagram is viable; `true` when the diagram
/// is not one the template engine takes.
fn viable(text: &str) -> bool {
    let Ok(region) = Region::parse(text) else {
        return true;
    };
    let Some(x) = region.cell_names().iter().position(|n| n == "p") else {
        return true;
    };
    match Template::new(region) {
        Ok(t) => t.viable_probes()[x],
        Err(_) => true,
    }
}

/// Black's groups on the board, the edges included: a union-find over the
/// cells, with node `cells` the top edge and `cells + 1` the bottom edge.
struct Groups(Vec<usize>);

impl Groups {
    fn of(p: &Placement, stones: &CellLists) -> Self {
        let d = p.dims;
        let n = d.cells();
        let mut black = vec![false; n];
        for &c in &stones[BLACK] {
            black[c] = true;
        }
        let mut g = Groups((0..n + 2).collect());
        for &c in &stones[BLACK] {
            let (r, _) = d.row_col(c);
            if r == 0 {
                g.join(c, n);
            }
            if r + 1 == d.rows() {
                g.join(c, n + 1);
            }
            for nb in d.neighbours(c) {
                if black[nb] {
                    g.join(c, nb);
                }
            }
        }
        g
    }

    fn root(&mut self, mut a: usize) -> usize {
        while self.0[a] != a {
            self.0[a] = self.0[self.0[a]];
            a = self.0[a];
        }
        a
    }

    fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        self.0[ra] = rb;
    }
}

/// The region diagram of the carrier and its neighbours (the probe named
/// `p`); `None` when one black group holds two terminals (the template is
/// joined already, and no region says that).
fn diagram(p: &Placement, stones: &CellLists, x: usize) -> Option<String> {
    let d = p.dims;
    let n = d.cells();
    let (rows, cols) = (d.rows() as isize, d.cols() as isize);
    let mut groups = Groups::of(p, stones);
    let mut terminal_of: FxHashMap<usize, u8> = FxHashMap::default();
    let held = p
        .terminal_stones
        .iter()
        .copied()
        .chain(p.edge_terminal[0].map(|t| (n, t)))
        .chain(p.edge_terminal[1].map(|t| (n + 1, t)));
    for (node, t) in held {
        let root = groups.root(node);
        if *terminal_of.entry(root).or_insert(t) != t {
            return None;
        }
    }
    let mut colour = vec![None; n];
    for (player, list) in stones.iter().enumerate() {
        for &c in list {
            colour[c] = Some(player);
        }
    }
    let mut black_token = |node: usize| match terminal_of.get(&groups.root(node)) {
        Some(t) => (b'1' + t) as char,
        None => 'B',
    };
    let mut tokens: FxHashMap<(isize, isize), char> = FxHashMap::default();
    for (i, &cell) in p.carrier.iter().enumerate() {
        let (r, c) = d.row_col(cell);
        tokens.insert((r as isize, c as isize), if i == x { 'p' } else { '.' });
    }
    for &cell in &p.carrier {
        let (r, c) = d.row_col(cell);
        let (r, c) = (r as isize, c as isize);
        for pos in hex_neighbours(r, c) {
            if tokens.contains_key(&pos) {
                continue;
            }
            let (rr, cc) = pos;
            let token = if rr < 0 {
                black_token(n)
            } else if rr >= rows {
                black_token(n + 1)
            } else if cc < 0 || cc >= cols {
                'W'
            } else {
                let nb = d.cell(rr as usize, cc as usize);
                match colour[nb] {
                    Some(BLACK) => black_token(nb),
                    Some(WHITE) => 'W',
                    _ => continue,
                }
            };
            tokens.insert(pos, token);
        }
    }
    let r0 = tokens.keys().map(|k| k.0).min()?;
    let r1 = tokens.keys().map(|k| k.0).max()?;
    let c0 = tokens.keys().map(|k| k.1).min()?;
    let c1 = tokens.keys().map(|k| k.1).max()?;
    let mut text = String::new();
    for r in r0..=r1 {
        let row: Vec<String> = (c0..=c1)
            .map(|c| tokens.get(&(r, c)).copied().unwrap_or('-').to_string())
            .collect();
        text += &row.join(" ");
        text.push('\n');
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use darkhex_games::hex::HexGame;
    use darkhex_hexengine::analyst::analyst_for;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::super::committed::{committed, region};
    use super::super::{Filling, placements, white_winning_moves};
    use super::*;

    #[test]
    fn every_committed_witness_is_viable_where_it_stands() {
        let all = committed();
        for w in &all {
            assert!(
                !w.fits.is_empty(),
                "{}: no placement of its template fits",
                w.file
            );
            for p in &w.fits {
                assert!(
                    Viability::default().check(p, &w.stones, w.x),
                    "{}: probe {} not viable",
                    w.file,
                    w.cell
                );
            }
        }
        assert!(all.len() >= 20, "only {} witnesses", all.len());
    }

    #[test]
    fn a_probe_that_is_not_viable_is_never_the_only_winning_move() {
        // Random fillings around the ziggurat on boards up to 6x6: where
        // the check says a probe is not viable, the solver finds another
        // winning move or none. Both answers of the check occur, and some
        // probes it calls not viable do win.
        let region = region("ziggurat");
        let places = placements(&region, 6).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut viability = Viability::default();
        let (mut viable, mut not, mut winning) = (0, 0, 0);
        for i in 0..1500 {
            let p = &places[i * 7919 % places.len()];
            let Some(filling) = Filling::random(p, &mut rng, 6) else {
                continue;
            };
            let stones = filling.stones(p);
            let x = i % 8;
            if viability.check(p, &stones, x) {
                viable += 1;
                continue;
            }
            not += 1;
            let analyst = analyst_for(&HexGame::new(p.dims, false));
            if analyst.winner(&stones).is_some() {
                continue;
            }
            let wins = white_winning_moves(analyst.as_ref(), &stones).expect("solved");
            assert_ne!(wins, [p.carrier[x]], "probe {x} alone in {stones:?}");
            winning += usize::from(wins.contains(&p.carrier[x]));
        }
        assert!(viable > 50 && not > 50, "viable {viable}, not {not}");
        assert!(winning > 50, "only {winning} not viable and winning");
    }
}
