//! Independent checks of what the solver's rules claim, by exhaustive play
//! on small regions: that a virtual connection holds inside its carrier,
//! whoever moves first there. Tests hold every claim to these.
//!
//! [`connection_holds`] tries every move. [`connection_holds_pruned`]
//! answers the same by a search that skips the opponent moves a found
//! proof already covers (monotonicity: a stone never hurts its owner), fast
//! enough for carriers of twenty-five cells; the tests check the two agree.
//! [`ladder_holds`] asks the same of two cells where one of the player's
//! sides counts as their stone (a ladder along it, [`super::ladder_patterns`]).

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
    /// A side of the player's that joins whatever reaches it.
    through: Option<usize>,
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
        if from_a.intersects(&goal) {
            return true;
        }
        let Some(side) = self.through.map(|i| self.geom.sides(self.player)[i]) else {
            return false;
        };
        from_a.intersects(&side) && self.geom.flood(goal, stones).intersects(&side)
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

/// What a position of the carrier game is worth: `Ok(proof)` when the
/// player joins the ends, `Err(disproof)` when not; the set is the cells
/// still empty that the winner needs, the loser being given every other.
type Verdict<const W: usize> = Result<CellSet<W>, CellSet<W>>;

impl<const W: usize> CarrierGame<'_, W> {
    /// The verdict from here. After the mover's first move x is answered
    /// by the other side's win with set S, a move y outside S and x loses
    /// as well: the other side's strategy never used y (it counted y as the
    /// mover's), and x is now free instead of the mover's, which never
    /// helps the mover. So each side tries moves only inside the growing
    /// union of the answers' sets; the union is the position's set.
    fn verdict(
        &self,
        mine: CellSet<W>,
        left: CellSet<W>,
        player_to_move: bool,
        last: Option<usize>,
        memo: &mut FxHashMap<(CellSet<W>, CellSet<W>, bool), Verdict<W>>,
    ) -> Verdict<W> {
        if self.joined(mine) {
            return Ok(CellSet::EMPTY);
        }
        if left.is_empty() || !self.joined(mine | left) {
            return Err(CellSet::EMPTY);
        }
        if let Some(&v) = memo.get(&(mine, left, player_to_move)) {
            return v;
        }
        // One move from the end: a cell that joins the ends for the
        // player, or one that cuts them for good for the opponent. Two of
        // either decide the position whoever moves.
        let joins: Vec<usize> = left
            .iter()
            .filter(|&c| self.joined(mine.with(c)))
            .take(2)
            .collect();
        if joins.len() == 2 || (player_to_move && joins.len() == 1) {
            let v = Ok(joins.into_iter().collect());
            memo.insert((mine, left, player_to_move), v);
            return v;
        }
        let cuts: Vec<usize> = left
            .iter()
            .filter(|&c| !self.joined(mine | left.without(c)))
            .take(2)
            .collect();
        if cuts.len() == 2 || (!player_to_move && cuts.len() == 1) {
            let v = Err(cuts.into_iter().collect());
            memo.insert((mine, left, player_to_move), v);
            return v;
        }
        // Answers next to the last move first: that is where a carrier's
        // replies usually are.
        let near = last.map_or(CellSet::EMPTY, |c| self.geom.adjacent(c));
        let pick = |from: CellSet<W>| (from & near).first().or(from.first());
        let mut union = CellSet::EMPTY;
        let mut tried = CellSet::EMPTY;
        let mut next = pick(left);
        let mut won = None;
        while let Some(c) = next {
            tried.insert(c);
            let (after, turn) = if player_to_move {
                (mine.with(c), false)
            } else {
                (mine, true)
            };
            let v = self.verdict(after, left.without(c), turn, Some(c), memo);
            // The mover's win ends the search; the other side's win adds
            // its set to the moves left to try.
            match (player_to_move, v) {
                (true, Ok(p)) | (false, Err(p)) => {
                    won = Some(p.with(c));
                    break;
                }
                (true, Err(d)) | (false, Ok(d)) => union |= d.with(c),
            }
            next = pick(union - tried);
        }
        let v = match (player_to_move, won) {
            (true, Some(p)) => Ok(p),
            (false, Some(d)) => Err(d),
            (true, None) => Err(union),
            (false, None) => Ok(union),
        };
        memo.insert((mine, left, player_to_move), v);
        v
    }
}

/// [`connection_holds`] by the proof-pruned search.
pub fn connection_holds_pruned<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    a: Terminal<W>,
    b: Terminal<W>,
    carrier: CellSet<W>,
    player_first: bool,
) -> bool {
    let game = CarrierGame::new(geom, stones, player, [a, b], None);
    game.holds_pruned(carrier, player_first)
}

/// Whether `player`, the opponent moving first, joins the cells `a` and
/// `b` (stones, or empty cells taken as the player's) by play inside
/// `carrier`, where their side `side` counts as their stone: a chain
/// between the two, or each reaching that side. By the proof-pruned
/// search, or by trying every move when not `pruned`.
pub fn ladder_holds<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    [a, b]: [CellSet<W>; 2],
    side: usize,
    carrier: CellSet<W>,
    pruned: bool,
) -> bool {
    let ends = [Terminal::Cells(a), Terminal::Cells(b)];
    let mut game = CarrierGame::new(geom, stones, player, ends, Some(side));
    if pruned {
        game.holds_pruned(carrier, false)
    } else {
        game.wins(CellSet::EMPTY, carrier - game.base, false)
    }
}

impl<'g, const W: usize> CarrierGame<'g, W> {
    fn new(
        geom: &'g Geometry<W>,
        stones: &Stones<W>,
        player: usize,
        [a, b]: [Terminal<W>; 2],
        through: Option<usize>,
    ) -> Self {
        let mut base = stones[player];
        for t in [a, b] {
            if let Terminal::Cells(c) = t {
                base |= c;
            }
        }
        CarrierGame {
            geom,
            player,
            base,
            a,
            b,
            through,
            memo: FxHashMap::default(),
        }
    }

    fn holds_pruned(&self, carrier: CellSet<W>, player_first: bool) -> bool {
        let mut memo = FxHashMap::default();
        self.verdict(
            CellSet::EMPTY,
            carrier - self.base,
            player_first,
            None,
            &mut memo,
        )
        .is_ok()
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
    let mut game = CarrierGame::new(geom, stones, player, [a, b], None);
    game.wins(CellSet::EMPTY, carrier - game.base, player_first)
}
