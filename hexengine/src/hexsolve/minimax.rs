//! Plain exhaustive minimax with a memo and nothing else: no connections,
//! no inferior cells, no move ordering. It is the reference every pruning
//! rule of the solver is checked against on small positions.

use rustc_hash::FxHashMap;

use darkhex_games::{CellSet, Geometry};

use super::position::{Stones, winner};

/// Exhaustive search of Hex (or Rex, `misere`) positions.
pub struct Minimax<'g, const W: usize> {
    geom: &'g Geometry<W>,
    misere: bool,
    memo: FxHashMap<(Stones<W>, usize), bool>,
}

impl<'g, const W: usize> Minimax<'g, W> {
    pub fn new(geom: &'g Geometry<W>, misere: bool) -> Self {
        Minimax {
            geom,
            misere,
            memo: FxHashMap::default(),
        }
    }

    /// Whether `to_move` wins `stones` with best play.
    pub fn wins(&mut self, stones: &Stones<W>, to_move: usize) -> bool {
        if let Some(w) = winner(self.geom, stones, self.misere) {
            return w == to_move;
        }
        if let Some(&v) = self.memo.get(&(*stones, to_move)) {
            return v;
        }
        let empty = self.geom.all() - stones[0] - stones[1];
        let mut win = false;
        for c in empty.iter() {
            let mut next = *stones;
            next[to_move].insert(c);
            if !self.wins(&next, 1 - to_move) {
                win = true;
                break;
            }
        }
        self.memo.insert((*stones, to_move), win);
        win
    }

    /// Every empty cell that wins for `to_move`.
    pub fn winning_moves(&mut self, stones: &Stones<W>, to_move: usize) -> CellSet<W> {
        let empty = self.geom.all() - stones[0] - stones[1];
        let mut moves = CellSet::EMPTY;
        if winner(self.geom, stones, self.misere).is_some() {
            return moves;
        }
        for c in empty.iter() {
            let mut next = *stones;
            next[to_move].insert(c);
            if !self.wins(&next, 1 - to_move) {
                moves.insert(c);
            }
        }
        moves
    }

    /// Positions remembered so far.
    pub fn positions(&self) -> usize {
        self.memo.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darkhex_games::board::Dims;

    fn geom(r: usize, c: usize) -> Geometry<1> {
        Geometry::new(Dims::new("hex", r, c).unwrap()).unwrap()
    }

    #[test]
    fn small_boards_have_their_known_values() {
        // The first player wins every square Hex board (strategy stealing);
        // on a board with more columns than rows, Black (joining the
        // shorter distance) wins even moving second.
        for n in 1..=4 {
            let g = geom(n, n);
            let mut m = Minimax::new(&g, false);
            assert!(m.wins(&[CellSet::EMPTY; 2], 0), "{n}x{n}");
        }
        let g = geom(2, 3);
        let mut m = Minimax::new(&g, false);
        assert!(
            !m.wins(&[CellSet::EMPTY; 2], 1),
            "2x3: White moving first loses"
        );
        // 3x3 Hex: the first moves that win are c1, a2, b2, c2 and a3
        // (an independent brute force in Python over the same rules agrees).
        let g = geom(3, 3);
        let mut m = Minimax::new(&g, false);
        let wins: Vec<usize> = m.winning_moves(&[CellSet::EMPTY; 2], 0).iter().collect();
        assert_eq!(wins, vec![2, 3, 4, 5, 6]);
    }

    #[test]
    fn rex_is_won_by_the_player_who_does_not_join() {
        // Rex on square boards: the first player wins the even-sided boards
        // and loses the odd ones (Lagarias and Sleator).
        for (n, first_wins) in [(1, false), (2, true), (3, false), (4, true)] {
            let g = geom(n, n);
            let mut m = Minimax::new(&g, true);
            assert_eq!(m.wins(&[CellSet::EMPTY; 2], 0), first_wins, "{n}x{n}");
        }
    }
}
