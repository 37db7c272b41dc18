//! Virtual connections by H-search (Anshelevich): for one player, full
//! connections (the player joins the two ends even moving second) and semi
//! connections (joins them moving first, by playing the key) between the
//! player's groups, empty cells and the player's two sides, each with its
//! carrier: the empty cells the connection needs.
//!
//! Rules (Anshelevich, "A hierarchical approach to computer Hex", 2002):
//! - base: an empty cell and an adjacent empty cell, own group or side are
//!   fully connected with an empty carrier;
//! - AND: fulls x–z (carrier A) and z–y (carrier B) with A, B disjoint and
//!   not containing x, y give a full x–y with carrier A ∪ B when z is an
//!   own group, and a semi with carrier A ∪ B ∪ {z} and key z when z is an
//!   empty cell;
//! - OR: semis x–y whose carriers have an empty common intersection give a
//!   full x–y with the union as carrier (the opponent cannot block them all
//!   with one move); at most [`VcParams::max_ors`] semis are combined at a
//!   time, and all of a pair's semis when their intersection is empty.
//!
//! Lists keep only minimal carriers (a carrier that contains another of the
//! same pair and kind adds nothing), and a semi that contains a full's
//! carrier is dropped. Edge templates up to the 4-3-2 (ziggurat) follow from
//! the rules; the tests check that they are found.
//!
//! [`VcSet::update`] brings the connections up to date after a move instead
//! of rebuilding them: connections whose carrier the move hits are dropped
//! (opponent's move) or shrunk (own move, whose stone joins its groups), and
//! the rules run again from what changed.

use std::collections::VecDeque;

use darkhex_games::{CellSet, Geometry};

use super::position::Stones;

/// Limits of the search; the defaults follow the 2011 Benzene H-search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VcParams {
    /// Fulls kept per pair of ends.
    pub max_fulls: usize,
    /// Semis kept per pair of ends.
    pub max_semis: usize,
    /// Semis the OR rule combines at a time.
    pub max_ors: usize,
    /// Stop as soon as the two sides are fully connected.
    pub stop_at_edge_full: bool,
}

impl Default for VcParams {
    fn default() -> Self {
        VcParams {
            max_fulls: 25,
            max_semis: 50,
            max_ors: 4,
            stop_at_edge_full: true,
        }
    }
}

/// A connection's carrier and whether the rules have used it yet.
#[derive(Clone, Copy, Debug)]
struct Full<const W: usize> {
    carrier: CellSet<W>,
    processed: bool,
}

#[derive(Clone, Copy, Debug)]
struct Semi<const W: usize> {
    carrier: CellSet<W>,
    key: u16,
    processed: bool,
}

/// The ends of connections: cells `0..n` (an empty cell, or the player's
/// group, named by its lowest cell) and the player's two sides, `n` and
/// `n + 1`. A group that touches a side is that side.
pub type End = u16;

/// Virtual connections of one player in one position.
#[derive(Clone, Debug)]
pub struct VcSet<const W: usize> {
    player: usize,
    params: VcParams,
    n: usize,
    /// `n + 2`: the row length of the pair matrices.
    ends: usize,
    stones: Stones<W>,
    /// The end each cell belongs to (`NONE` for opponent stones).
    end_of: Vec<End>,
    /// Cells of each end (stone groups and sides include their stones).
    members: Vec<CellSet<W>>,
    fulls: Vec<Vec<Full<W>>>,
    semis: Vec<Vec<Semi<W>>>,
    /// For each end, the ends it has a full list with.
    full_partners: Vec<Vec<End>>,
    full_queue: VecDeque<(End, End, CellSet<W>)>,
    or_queue: VecDeque<(End, End)>,
    or_queued: Vec<bool>,
    edge_full: bool,
    /// Reused by the AND rule for what it finds.
    scratch: Vec<(End, CellSet<W>)>,
    /// Reused by the OR rule: the semis' carriers, their suffix
    /// intersections and the fulls found.
    or_scratch: [Vec<CellSet<W>>; 3],
    or_skip: Vec<bool>,
    /// Pairs whose lists were written since the last reset.
    used_pairs: Vec<u32>,
}

const NONE: End = End::MAX;

impl<const W: usize> VcSet<W> {
    /// An empty set of connections for `player` on `geom`'s board, ready
    /// for [`VcSet::rebuild`].
    pub fn new(geom: &Geometry<W>, player: usize, params: VcParams) -> Self {
        let n = geom.cells();
        let ends = n + 2;
        VcSet {
            player,
            params,
            n,
            ends,
            stones: [CellSet::EMPTY; 2],
            end_of: vec![NONE; n],
            members: vec![CellSet::EMPTY; ends],
            fulls: vec![Vec::new(); ends * ends],
            semis: vec![Vec::new(); ends * ends],
            full_partners: vec![Vec::new(); ends],
            full_queue: VecDeque::new(),
            or_queue: VecDeque::new(),
            or_queued: vec![false; ends * ends],
            edge_full: false,
            scratch: Vec::new(),
            or_scratch: Default::default(),
            or_skip: Vec::new(),
            used_pairs: Vec::new(),
        }
    }

    /// The connections of `player` in `stones`.
    pub fn build(geom: &Geometry<W>, stones: &Stones<W>, player: usize, params: VcParams) -> Self {
        let mut vcs = VcSet::new(geom, player, params);
        vcs.rebuild(geom, stones);
        vcs
    }

    /// Computes the connections of `stones` in place, reusing the memory of
    /// the previous ones (the solver does this at every position).
    pub fn rebuild(&mut self, geom: &Geometry<W>, stones: &Stones<W>) {
        self.reset();
        self.stones = *stones;
        self.label_ends(geom);
        self.add_base(geom, geom.all() - stones[0] - stones[1]);
        self.close();
    }

    /// Empties every list, keeping their memory.
    fn reset(&mut self) {
        for &p in &self.used_pairs {
            self.fulls[p as usize].clear();
            self.semis[p as usize].clear();
            self.or_queued[p as usize] = false;
        }
        self.used_pairs.clear();
        for partners in &mut self.full_partners {
            partners.clear();
        }
        self.full_queue.clear();
        self.or_queue.clear();
        self.edge_full = false;
    }

    /// Names each cell's end: empty cells themselves, own stones their
    /// group (or the side it touches).
    fn label_ends(&mut self, geom: &Geometry<W>) {
        let own = self.stones[self.player];
        let other = self.stones[1 - self.player];
        self.end_of.fill(NONE);
        for m in &mut self.members {
            *m = CellSet::EMPTY;
        }
        for c in (geom.all() - own - other).iter() {
            self.end_of[c] = c as End;
            self.members[c] = CellSet::single(c);
        }
        let sides = geom.sides(self.player);
        for (i, side) in sides.iter().enumerate() {
            let e = self.side(i);
            self.members[e as usize] = geom.flood(*side & own, own);
        }
        for g in geom.groups(own) {
            let end = if g.intersects(&self.members[self.side(0) as usize]) {
                self.side(0)
            } else if g.intersects(&self.members[self.side(1) as usize]) {
                self.side(1)
            } else {
                let e = g.first().expect("a group has a stone") as End;
                self.members[e as usize] = g;
                e
            };
            for c in g.iter() {
                self.end_of[c] = end;
            }
        }
    }

    /// Base connections of every empty cell in `cells` to its empty, own
    /// and side neighbours.
    fn add_base(&mut self, geom: &Geometry<W>, cells: CellSet<W>) {
        let empty = geom.all() - self.stones[0] - self.stones[1];
        let own = self.stones[self.player];
        let sides = geom.sides(self.player);
        for c in cells.iter() {
            let adj = geom.adjacent(c);
            for d in (adj & empty).iter() {
                self.add_full(c as End, d as End, CellSet::EMPTY);
            }
            for d in (adj & own).iter() {
                let e = self.end_of[d];
                self.add_full(c as End, e, CellSet::EMPTY);
            }
            for (i, side) in sides.iter().enumerate() {
                if side.contains(c) {
                    self.add_full(c as End, self.side(i), CellSet::EMPTY);
                }
            }
        }
    }

    pub fn player(&self) -> usize {
        self.player
    }

    /// The end of side 0 (north for Black, west for White) or 1.
    pub fn side(&self, i: usize) -> End {
        (self.n + i) as End
    }

    /// The end a cell belongs to, if it is empty or the player's.
    pub fn end_of(&self, cell: usize) -> Option<End> {
        match self.end_of[cell] {
            NONE => None,
            e => Some(e),
        }
    }

    fn pair(&self, x: End, y: End) -> usize {
        let (a, b) = if x < y { (x, y) } else { (y, x) };
        a as usize * self.ends + b as usize
    }

    fn is_cell_end(&self, e: End) -> bool {
        (e as usize) < self.n
    }

    fn is_empty_end(&self, e: End) -> bool {
        let c = e as usize;
        self.is_cell_end(e) && !self.stones[0].contains(c) && !self.stones[1].contains(c)
    }

    /// Cells an end occupies that a carrier must avoid (an empty end).
    fn end_cells(&self, e: End) -> CellSet<W> {
        if self.is_empty_end(e) {
            CellSet::single(e as usize)
        } else {
            CellSet::EMPTY
        }
    }

    fn add_full(&mut self, x: End, y: End, carrier: CellSet<W>) -> bool {
        self.insert_full(x, y, carrier, false)
    }

    /// Adds a full unless a carrier of the pair is a subset of it, removing
    /// the pair's fulls and semis that contain it; a full not yet
    /// `processed` waits for the AND rule.
    fn insert_full(&mut self, x: End, y: End, carrier: CellSet<W>, processed: bool) -> bool {
        if x == y {
            return false;
        }
        let p = self.pair(x, y);
        let list = &mut self.fulls[p];
        if list.iter().any(|f| f.carrier.is_subset(&carrier)) {
            return false;
        }
        if list.is_empty() && self.semis[p].is_empty() {
            self.used_pairs.push(p as u32);
        }
        list.retain(|f| !carrier.is_subset(&f.carrier));
        if list.len() >= self.params.max_fulls {
            return false;
        }
        if list.is_empty() {
            self.full_partners[x as usize].push(y);
            self.full_partners[y as usize].push(x);
        }
        list.push(Full { carrier, processed });
        self.semis[p].retain(|s| !carrier.is_subset(&s.carrier));
        if !processed {
            self.full_queue.push_back((x, y, carrier));
        }
        if (x as usize) >= self.n && (y as usize) >= self.n {
            self.edge_full = true;
        }
        true
    }

    fn add_semi(&mut self, x: End, y: End, carrier: CellSet<W>, key: End) -> bool {
        self.insert_semi(x, y, carrier, key, false)
    }

    /// Adds a semi unless a full or semi carrier of the pair is a subset of
    /// it, removing the pair's semis that contain it; a semi not yet
    /// `processed` queues its pair for the OR rule.
    fn insert_semi(
        &mut self,
        x: End,
        y: End,
        carrier: CellSet<W>,
        key: End,
        processed: bool,
    ) -> bool {
        if x == y {
            return false;
        }
        let p = self.pair(x, y);
        if self.fulls[p].iter().any(|f| f.carrier.is_subset(&carrier)) {
            return false;
        }
        let list = &mut self.semis[p];
        if list.iter().any(|s| s.carrier.is_subset(&carrier)) {
            return false;
        }
        if list.is_empty() && self.fulls[p].is_empty() {
            self.used_pairs.push(p as u32);
        }
        list.retain(|s| !carrier.is_subset(&s.carrier));
        if list.len() >= self.params.max_semis {
            return false;
        }
        list.push(Semi {
            carrier,
            key,
            processed,
        });
        if !processed && !self.or_queued[p] {
            self.or_queued[p] = true;
            self.or_queue.push_back((x.min(y), x.max(y)));
        }
        true
    }

    /// Applies the rules until nothing new follows (or the sides are
    /// joined, when asked to stop there). New fulls go through AND first;
    /// OR runs when no full is waiting.
    fn close(&mut self) {
        loop {
            if self.edge_full && self.params.stop_at_edge_full {
                self.full_queue.clear();
                self.or_queue.clear();
                self.or_queued.fill(false);
                return;
            }
            if let Some((x, y, carrier)) = self.full_queue.pop_front() {
                let p = self.pair(x, y);
                let waiting = |f: &Full<W>| f.carrier == carrier && !f.processed;
                if !self.fulls[p].iter().any(waiting) {
                    continue;
                }
                self.and_rule(x, y, carrier);
                self.and_rule(y, x, carrier);
                // The AND rule adds to other pairs only, so the full is there.
                if let Some(f) = self.fulls[p].iter_mut().find(|f| f.carrier == carrier) {
                    f.processed = true;
                }
            } else if let Some((x, y)) = self.or_queue.pop_front() {
                let p = self.pair(x, y);
                self.or_queued[p] = false;
                self.or_rule(x, y);
            } else {
                return;
            }
        }
    }

    /// AND over the middle end `z`, combining the new full `a`–`z` with
    /// the processed fulls `z`–`w`.
    fn and_rule(&mut self, a: End, z: End, carrier: CellSet<W>) {
        // Sides are never a middle: a side is not a cell the player can
        // pass through (Benzene's and_over_edge, off by default).
        if !self.is_cell_end(z) {
            return;
        }
        let through_empty = self.is_empty_end(z);
        let avoid_a = self.end_cells(a);
        let mut found = std::mem::take(&mut self.scratch);
        found.clear();
        for k in 0..self.full_partners[z as usize].len() {
            let w = self.full_partners[z as usize][k];
            if w == a || self.end_cells(w).intersects(&carrier) {
                continue;
            }
            for f in &self.fulls[self.pair(z, w)] {
                if f.processed && !f.carrier.intersects(&carrier) && !f.carrier.intersects(&avoid_a)
                {
                    let mut union = carrier | f.carrier;
                    if through_empty {
                        union.insert(z as usize);
                    }
                    found.push((w, union));
                }
            }
        }
        for &(w, union) in &found {
            if through_empty {
                self.add_semi(a, w, union, z);
            } else {
                self.add_full(a, w, union);
            }
        }
        self.scratch = found;
    }

    /// OR: fulls from the semis of `x`–`y` with an empty common intersection.
    fn or_rule(&mut self, x: End, y: End) {
        let p = self.pair(x, y);
        if self.semis[p].iter().all(|s| s.processed) {
            return;
        }
        let [mut semis, mut tails, mut new_fulls] = std::mem::take(&mut self.or_scratch);
        semis.clear();
        semis.extend(self.semis[p].iter().map(|s| s.carrier));
        new_fulls.clear();
        // The whole list: its greedy union when the intersection is empty.
        let all = semis.iter().fold(CellSet::<W>::FULL, |acc, s| acc & *s);
        if all.is_empty() {
            new_fulls.push(greedy_union(&semis));
        }
        // Each new semi with up to max_ors - 1 others.
        tails.clear();
        tails.resize(semis.len() + 1, CellSet::<W>::FULL);
        for i in (0..semis.len()).rev() {
            tails[i] = tails[i + 1] & semis[i];
        }
        // Semis before `first` that are new too had their turn first: sets
        // holding both were searched then.
        let mut earlier_new = std::mem::take(&mut self.or_skip);
        earlier_new.clear();
        earlier_new.resize(semis.len(), false);
        for i in 0..semis.len() {
            if !self.semis[p][i].processed {
                self.or_search(
                    &semis,
                    &tails,
                    &earlier_new,
                    semis[i],
                    semis[i],
                    i,
                    0,
                    1,
                    &mut new_fulls,
                );
                earlier_new[i] = true;
            }
        }
        for s in &mut self.semis[p] {
            s.processed = true;
        }
        for &carrier in &new_fulls {
            self.add_full(x, y, carrier);
        }
        self.or_scratch = [semis, tails, new_fulls];
        self.or_skip = earlier_new;
    }

    /// Depth-first search over subsets containing semi `first`, extending
    /// with semis from `from` on that shrink the running intersection;
    /// `tails[j]` is the intersection of semis `j..`.
    #[allow(clippy::too_many_arguments)]
    fn or_search(
        &self,
        semis: &[CellSet<W>],
        tails: &[CellSet<W>],
        skip: &[bool],
        inter: CellSet<W>,
        union: CellSet<W>,
        first: usize,
        from: usize,
        used: usize,
        out: &mut Vec<CellSet<W>>,
    ) {
        if used >= self.params.max_ors {
            return;
        }
        for j in from..semis.len() {
            // Not even all the remaining semis together empty it.
            if !(inter & tails[j]).is_empty() {
                return;
            }
            if j == first || skip[j] {
                continue;
            }
            let next = inter & semis[j];
            if next == inter {
                continue;
            }
            let u = union | semis[j];
            if next.is_empty() {
                out.push(u);
            } else if used + 1 < self.params.max_ors {
                self.or_search(semis, tails, skip, next, u, first, j + 1, used + 1, out);
            }
        }
    }

    /// Whether the player's sides are fully connected.
    pub fn edge_full(&self) -> bool {
        !self.fulls[self.pair(self.side(0), self.side(1))].is_empty()
    }

    /// The carriers of the fulls between `x` and `y`.
    pub fn fulls(&self, x: End, y: End) -> impl Iterator<Item = CellSet<W>> + '_ {
        self.fulls[self.pair(x, y)].iter().map(|f| f.carrier)
    }

    /// The (carrier, key) of the semis between `x` and `y`.
    pub fn semis(&self, x: End, y: End) -> impl Iterator<Item = (CellSet<W>, usize)> + '_ {
        self.semis[self.pair(x, y)]
            .iter()
            .map(|s| (s.carrier, s.key as usize))
    }

    /// The semis between the two sides: the player joins them by playing a key.
    pub fn edge_semis(&self) -> impl Iterator<Item = (CellSet<W>, usize)> + '_ {
        self.semis(self.side(0), self.side(1))
    }

    /// The smallest carrier of a full between the sides.
    pub fn smallest_edge_full(&self) -> Option<CellSet<W>> {
        self.fulls(self.side(0), self.side(1))
            .min_by_key(|c| c.count())
    }

    /// The cells the opponent must play in to stop this player's sides
    /// being joined next move: the intersection of the carriers of the
    /// side-to-side semis (`None` when there is no such semi).
    pub fn blocking_cells(&self) -> Option<CellSet<W>> {
        let mut it = self.edge_semis().map(|(c, _)| c);
        let first = it.next()?;
        Some(it.fold(first, |acc, c| acc & c))
    }

    /// Every (x, y) pair with at least one full, x < y.
    pub fn full_pairs(&self) -> Vec<(End, End)> {
        let mut pairs = Vec::new();
        for x in 0..self.ends as End {
            for &y in &self.full_partners[x as usize] {
                if x < y {
                    pairs.push((x, y));
                }
            }
        }
        pairs
    }

    /// Every (x, y) pair with at least one semi, x < y.
    pub fn semi_pairs(&self) -> Vec<(End, End)> {
        let mut pairs = Vec::new();
        for x in 0..self.ends {
            for y in x + 1..self.ends {
                if !self.semis[x * self.ends + y].is_empty() {
                    pairs.push((x as End, y as End));
                }
            }
        }
        pairs
    }

    /// The cells of an end: the empty cell, the group's stones, or the
    /// side's stones (a side with no stones has none).
    pub fn members(&self, e: End) -> CellSet<W> {
        self.members[e as usize]
    }

    /// Total number of fulls and semis.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.fulls.iter().map(Vec::len).sum(),
            self.semis.iter().map(Vec::len).sum(),
        )
    }

    /// The connections after `mover` plays `cell` (empty now), brought up to
    /// date from these instead of rebuilt.
    pub fn update(&self, geom: &Geometry<W>, cell: usize, mover: usize) -> Self {
        let mut stones = self.stones;
        stones[mover].insert(cell);
        let mut next = VcSet::new(geom, self.player, self.params);
        next.stones = stones;
        next.label_ends(geom);
        let own_move = mover == self.player;
        // Carry over every connection the move leaves valid, renamed to the
        // new ends and marked processed: the opponent's stone breaks the
        // ones it lands in; the player's own stone only shrinks carriers.
        let rename = |e: End| -> Option<End> {
            if (e as usize) >= self.n {
                return Some(e);
            }
            next.end_of(self.members[e as usize].first()?)
        };
        let mut carried_fulls = Vec::new();
        let mut carried_semis = Vec::new();
        // Pairs whose fulls the opponent's move broke: their semis may
        // combine into new fulls.
        let mut broken = Vec::new();
        for x in 0..self.ends {
            for y in x + 1..self.ends {
                let p = x * self.ends + y;
                if self.fulls[p].is_empty() && self.semis[p].is_empty() {
                    continue;
                }
                let (Some(nx), Some(ny)) = (rename(x as End), rename(y as End)) else {
                    continue;
                };
                if nx == ny {
                    continue;
                }
                for f in &self.fulls[p] {
                    let hit = f.carrier.contains(cell);
                    if !hit || own_move {
                        carried_fulls.push((nx, ny, f.carrier.without(cell), !hit));
                    } else {
                        broken.push((nx, ny));
                    }
                }
                for s in &self.semis[p] {
                    let hit = s.carrier.contains(cell);
                    if hit && !own_move {
                        continue;
                    }
                    if s.key as usize == cell {
                        // The key is played: the semi is now a full.
                        carried_fulls.push((nx, ny, s.carrier.without(cell), false));
                    } else {
                        carried_semis.push((nx, ny, s.carrier.without(cell), s.key, !hit));
                    }
                }
            }
        }
        // Unchanged connections were combined before: only what the move
        // shrank or created goes through the rules again.
        for (x, y, c, unchanged) in carried_fulls {
            next.insert_full(x, y, c, unchanged);
        }
        for (x, y, c, key, unchanged) in carried_semis {
            next.insert_semi(x, y, c, key, unchanged);
        }
        let mut redo: Vec<(End, End)> = broken;
        if own_move {
            // The new stone's group is a new end: its connections come from
            // the base rule around it, and all of them are combined again.
            let group = next.end_of(cell).expect("the stone is the player's");
            let around = geom.neighbours(next.members(group)) - stones[0] - stones[1];
            next.add_base(geom, around);
            for y in 0..next.ends as End {
                if y == group {
                    continue;
                }
                let p = next.pair(group, y);
                for f in &mut next.fulls[p] {
                    if f.processed {
                        f.processed = false;
                        next.full_queue.push_back((group, y, f.carrier));
                    }
                }
                redo.push((group, y));
            }
        }
        for (x, y) in redo {
            let p = next.pair(x, y);
            if next.semis[p].is_empty() {
                continue;
            }
            for s in &mut next.semis[p] {
                s.processed = false;
            }
            if !next.or_queued[p] {
                next.or_queued[p] = true;
                next.or_queue.push_back((x.min(y), x.max(y)));
            }
        }
        next.close();
        next
    }
}

/// A union of carriers that still has an empty intersection: carriers are
/// taken, smallest first, only when they shrink the running intersection.
fn greedy_union<const W: usize>(carriers: &[CellSet<W>]) -> CellSet<W> {
    let mut order: Vec<&CellSet<W>> = carriers.iter().collect();
    order.sort_by_key(|c| c.count());
    let mut inter = CellSet::<W>::FULL;
    let mut union = CellSet::EMPTY;
    for c in order {
        let next = inter & *c;
        if next != inter {
            inter = next;
            union |= *c;
            if inter.is_empty() {
                break;
            }
        }
    }
    union
}
