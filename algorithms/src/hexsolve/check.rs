//! Independent checks of what the solver's rules claim, by exhaustive play
//! on small regions: that a virtual connection holds inside its carrier,
//! whoever moves first there. Tests hold every claim to these.

use rustc_hash::FxHashMap;

use darkhex_games::{CellSet, Geometry};

use super::position::Stones;

/// One end of a connection: cells (a stone group, or an empty cell taken
/// as the player's) or one of the player's sides (0 or 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terminal<const W: usize> {
    Cells(CellSet<W>),
    Side(usize),
}

struct CarrierGame<'g, const W: usize> {
    geom: &'g Geometry<W>,
    player: usize,
    /// The player's stones with both ends' cells.
    base: CellSet<W>,
    a: Terminal<W>,
    b: Terminal<W>,
    memo: FxHashMap<(CellSet<W>, CellSet<W>, bool), bool>,
}

impl<const W: usize> CarrierGame<'_, W> {
    fn touching(&self, t: Terminal<W>, stones: CellSet<W>) -> CellSet<W> {
        match t {
            Terminal::Cells(c) => c,
            Terminal::Side(i) => self.geom.sides(self.player)[i] & stones,
        }
    }

    fn joined(&self, mine: CellSet<W>) -> bool {
        let stones = self.base | mine;
        let from_a = self.geom.flood(self.touching(self.a, stones), stones);
        let goal = self.touching(self.b, stones);
        from_a.intersects(&goal)
    }

    /// Whether the player joins the ends when the cells `left` of the
    /// carrier are still to be played, `player_to_move` moving next.
    fn wins(&mut self, mine: CellSet<W>, left: CellSet<W>, player_to_move: bool) -> bool {
        if self.joined(mine) {
            return true;
        }
        if left.is_empty() {
            return false;
        }
        if let Some(&v) = self.memo.get(&(mine, left, player_to_move)) {
            return v;
        }
        let v = if player_to_move {
            left.iter()
                .any(|c| self.wins(mine.with(c), left.without(c), false))
        } else {
            left.iter().all(|c| self.wins(mine, left.without(c), true))
        };
        self.memo.insert((mine, left, player_to_move), v);
        v
    }
}

/// Whether `player` joins `a` to `b` by play inside `carrier` alone (every
/// other empty cell counted as the opponent's), with the opponent moving
/// first there, or the player when `player_first` (a semi connection).
pub fn connection_holds<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    a: Terminal<W>,
    b: Terminal<W>,
    carrier: CellSet<W>,
    player_first: bool,
) -> bool {
    let mut base = stones[player];
    for t in [a, b] {
        if let Terminal::Cells(c) = t {
            base |= c;
        }
    }
    let mut game = CarrierGame {
        geom,
        player,
        base,
        a,
        b,
        memo: FxHashMap::default(),
    };
    game.wins(CellSet::EMPTY, carrier - base, player_first)
}
