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

use super::inferior::captured_pairs_around;
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
    /// Rex's OR rule (Solrex, section 4): exactly two semis with disjoint
    /// carriers make a full, their keys a pair. Every full is then a
    /// pairing strategy (the player who colours one cell of each pair of
    /// its carrier joins its ends), which is what Rex's theorems need; the
    /// OR of three or more semis, and of a whole list, proves a Hex
    /// connection but no pairing.
    pub pairings: bool,
    /// Solrex's augmented H-search (section 5): with [`VcParams::pairings`],
    /// two semis whose carriers meet only in pairs captured around an
    /// empty end still make a full (see [`VcSet::captured_overlap_or`]).
    pub captured_overlap: bool,
}

impl Default for VcParams {
    fn default() -> Self {
        VcParams {
            max_fulls: 25,
            max_semis: 50,
            max_ors: 4,
            stop_at_edge_full: true,
            pairings: false,
            captured_overlap: false,
        }
    }
}

impl VcParams {
    /// Rex's H-search: fulls are pairing strategies (see
    /// [`VcParams::pairings`]).
    pub fn pairings() -> Self {
        VcParams {
            max_ors: 2,
            pairings: true,
            captured_overlap: true,
            ..VcParams::default()
        }
    }
}

/// Where one pair's lists live in the arenas, and which of their entries
/// the rules have used already (bit `i` for entry `i`).
///
/// The AND rule walks many pairs per new full; with each pair's lists in
/// their own heap blocks nearly every step was a cache miss. Blocks are
/// handed out from shared arenas in order of first use, so the pairs of one
/// position sit together, and the headers are small enough to stay cached.
#[derive(Clone, Copy, Debug)]
struct PairSlot {
    full_at: u32,
    semi_at: u32,
    fulls: u16,
    semis: u16,
    /// How many times the full list was started: its first full, and each
    /// full whose carrier lay inside every carrier then listed (which it
    /// replaced). The padding holds it: the slot stays 32 bytes.
    full_starts: u16,
    fulls_done: u64,
    semis_done: u64,
}

const NO_BLOCK: u32 = u32::MAX;

impl PairSlot {
    const EMPTY: PairSlot = PairSlot {
        full_at: NO_BLOCK,
        semi_at: NO_BLOCK,
        fulls: 0,
        semis: 0,
        full_starts: 0,
        fulls_done: 0,
        semis_done: 0,
    };
}

/// The mask of the first `n` entries.
fn first_bits(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
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
    slots: Vec<PairSlot>,
    /// Carriers of fulls, `max_fulls` a block.
    full_arena: Vec<CellSet<W>>,
    full_top: usize,
    /// Carriers and keys of semis, `max_semis` a block.
    semi_arena: Vec<CellSet<W>>,
    key_arena: Vec<u16>,
    semi_top: usize,
    /// For each end, the ends it has a full list with.
    full_partners: Vec<Vec<End>>,
    full_queue: VecDeque<(End, End, CellSet<W>)>,
    or_queue: VecDeque<(End, End)>,
    or_queued: Vec<bool>,
    edge_full: bool,
    /// Whether a list at its limit turned a connection away.
    limited: bool,
    /// Reused by the AND rule for what it finds.
    scratch: Vec<(End, CellSet<W>)>,
    /// Reused by the OR rule: the semis' carriers, their suffix
    /// intersections and the fulls found.
    or_scratch: [Vec<CellSet<W>>; 3],
    /// Reused by the OR rule: for each cell, the semis holding it (all
    /// zero between calls).
    or_holders: Vec<u64>,
    /// Pairs whose lists were written since the last reset.
    used_pairs: Vec<u32>,
    /// With [`VcParams::captured_overlap`]: for each empty cell, disjoint
    /// pairs next to it that the player's stone there would capture.
    captured: Vec<Vec<CellSet<W>>>,
}

const NONE: End = End::MAX;

impl<const W: usize> VcSet<W> {
    /// An empty set of connections for `player` on `geom`'s board, ready
    /// for [`VcSet::rebuild`].
    pub fn new(geom: &Geometry<W>, player: usize, params: VcParams) -> Self {
        let n = geom.cells();
        let ends = n + 2;
        // The used-entry masks are one word a pair.
        assert!(
            params.max_fulls <= 64 && params.max_semis <= 64,
            "at most 64 fulls and 64 semis a pair"
        );
        let pairs = ends * (ends + 1) / 2;
        VcSet {
            player,
            params,
            n,
            ends,
            stones: [CellSet::EMPTY; 2],
            end_of: vec![NONE; n],
            members: vec![CellSet::EMPTY; ends],
            slots: vec![PairSlot::EMPTY; pairs],
            full_arena: Vec::new(),
            full_top: 0,
            semi_arena: Vec::new(),
            key_arena: Vec::new(),
            semi_top: 0,
            full_partners: vec![Vec::new(); ends],
            full_queue: VecDeque::new(),
            or_queue: VecDeque::new(),
            or_queued: vec![false; pairs],
            edge_full: false,
            limited: false,
            scratch: Vec::new(),
            or_scratch: Default::default(),
            or_holders: vec![0; n],
            used_pairs: Vec::new(),
            captured: vec![Vec::new(); n],
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
        self.find_captured(geom);
        self.add_base(geom, geom.all() - stones[0] - stones[1]);
        self.close();
    }

    /// Empties every list, keeping their memory.
    fn reset(&mut self) {
        for &p in &self.used_pairs {
            self.slots[p as usize] = PairSlot::EMPTY;
            self.or_queued[p as usize] = false;
        }
        self.used_pairs.clear();
        self.full_top = 0;
        self.semi_top = 0;
        for partners in &mut self.full_partners {
            partners.clear();
        }
        self.full_queue.clear();
        self.or_queue.clear();
        self.edge_full = false;
        self.limited = false;
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

    /// With [`VcParams::captured_overlap`], the captured pairs around each
    /// empty cell (kept disjoint, so that they are a pairing). Groups and
    /// sides have none to offer: pairs they capture already are captured
    /// in the position, and the fill-in has coloured them.
    fn find_captured(&mut self, geom: &Geometry<W>) {
        for pairs in &mut self.captured {
            pairs.clear();
        }
        if !self.params.captured_overlap {
            return;
        }
        let empty = geom.all() - self.stones[0] - self.stones[1];
        for c in empty.iter() {
            let mut taken = CellSet::EMPTY;
            for pair in captured_pairs_around(geom, &self.stones, self.player, c) {
                if !pair.intersects(&taken) {
                    taken |= pair;
                    self.captured[c].push(pair);
                }
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

    /// The index of an unordered pair (a triangle, diagonal included).
    fn pair(&self, x: End, y: End) -> usize {
        let (a, b) = if x < y {
            (x as usize, y as usize)
        } else {
            (y as usize, x as usize)
        };
        b * (b + 1) / 2 + a
    }

    /// The carriers of pair `p`'s fulls.
    fn full_list(&self, p: usize) -> &[CellSet<W>] {
        let s = &self.slots[p];
        if s.fulls == 0 {
            return &[];
        }
        &self.full_arena[s.full_at as usize..][..s.fulls as usize]
    }

    /// The carriers of pair `p`'s semis.
    fn semi_list(&self, p: usize) -> &[CellSet<W>] {
        let s = &self.slots[p];
        if s.semis == 0 {
            return &[];
        }
        &self.semi_arena[s.semi_at as usize..][..s.semis as usize]
    }

    fn semi_keys(&self, p: usize) -> &[u16] {
        let s = &self.slots[p];
        if s.semis == 0 {
            return &[];
        }
        &self.key_arena[s.semi_at as usize..][..s.semis as usize]
    }

    /// Drops pair `p`'s fulls whose carrier contains `carrier`, the first
    /// at `first`, keeping the order of the others.
    fn drop_full_supersets(&mut self, p: usize, carrier: CellSet<W>, first: usize) {
        let slot = &mut self.slots[p];
        let n = slot.fulls as usize;
        if n == 0 {
            return;
        }
        if first >= n {
            return;
        }
        let list = &mut self.full_arena[slot.full_at as usize..][..n];
        let mut kept = first;
        let mut done = slot.fulls_done & first_bits(first);
        for i in first + 1..n {
            if !carrier.is_subset(&list[i]) {
                list[kept] = list[i];
                done |= ((slot.fulls_done >> i) & 1) << kept;
                kept += 1;
            }
        }
        slot.fulls = kept as u16;
        slot.fulls_done = done;
    }

    /// Drops pair `p`'s semis whose carrier contains `carrier`, the first
    /// at `first`, keeping the order of the others.
    fn drop_semi_supersets(&mut self, p: usize, carrier: CellSet<W>, first: usize) {
        let slot = &mut self.slots[p];
        let n = slot.semis as usize;
        if n == 0 {
            return;
        }
        let at = slot.semi_at as usize;
        if first >= n {
            return;
        }
        let list = &mut self.semi_arena[at..][..n];
        let keys = &mut self.key_arena[at..][..n];
        let mut kept = first;
        let mut done = slot.semis_done & first_bits(first);
        for i in first + 1..n {
            if !carrier.is_subset(&list[i]) {
                list[kept] = list[i];
                keys[kept] = keys[i];
                done |= ((slot.semis_done >> i) & 1) << kept;
                kept += 1;
            }
        }
        slot.semis = kept as u16;
        slot.semis_done = done;
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
        let Some(first) = first_superset(self.full_list(p), carrier) else {
            return false;
        };
        let slot = self.slots[p];
        if slot.fulls == 0 && slot.semis == 0 {
            self.used_pairs.push(p as u32);
        }
        self.drop_full_supersets(p, carrier, first);
        let len = self.slots[p].fulls as usize;
        if len >= self.params.max_fulls {
            self.limited = true;
            return false;
        }
        // Partners once: a carrier smaller than all of the pair's empties
        // the list here without the pair ceasing to be partners.
        if slot.fulls == 0 {
            self.full_partners[x as usize].push(y);
            self.full_partners[y as usize].push(x);
        }
        if len == 0 {
            self.slots[p].full_starts += 1;
        }
        if self.slots[p].full_at == NO_BLOCK {
            let at = self.full_top;
            self.full_top += self.params.max_fulls;
            if self.full_arena.len() < self.full_top {
                self.full_arena.resize(self.full_top, CellSet::EMPTY);
            }
            self.slots[p].full_at = at as u32;
        }
        let slot = &mut self.slots[p];
        self.full_arena[slot.full_at as usize + len] = carrier;
        slot.fulls_done |= (processed as u64) << len;
        slot.fulls += 1;
        let first = self.semi_list(p).iter().position(|s| carrier.is_subset(s));
        self.drop_semi_supersets(p, carrier, first.unwrap_or(usize::MAX));
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
        if self.full_list(p).iter().any(|f| f.is_subset(&carrier)) {
            return false;
        }
        let Some(first) = first_superset(self.semi_list(p), carrier) else {
            return false;
        };
        let slot = self.slots[p];
        if slot.semis == 0 && slot.fulls == 0 {
            self.used_pairs.push(p as u32);
        }
        self.drop_semi_supersets(p, carrier, first);
        let len = self.slots[p].semis as usize;
        if len >= self.params.max_semis {
            self.limited = true;
            return false;
        }
        if self.slots[p].semi_at == NO_BLOCK {
            let at = self.semi_top;
            self.semi_top += self.params.max_semis;
            if self.semi_arena.len() < self.semi_top {
                self.semi_arena.resize(self.semi_top, CellSet::EMPTY);
                self.key_arena.resize(self.semi_top, 0);
            }
            self.slots[p].semi_at = at as u32;
        }
        let slot = &mut self.slots[p];
        self.semi_arena[slot.semi_at as usize + len] = carrier;
        self.key_arena[slot.semi_at as usize + len] = key;
        slot.semis_done |= (processed as u64) << len;
        slot.semis += 1;
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
                let list = self.full_list(p);
                let done = self.slots[p].fulls_done;
                let waiting = (0..list.len()).any(|i| list[i] == carrier && done >> i & 1 == 0);
                if !waiting {
                    continue;
                }
                self.and_rule(x, y, carrier);
                self.and_rule(y, x, carrier);
                // The AND rule adds to other pairs only, so the full is there.
                if let Some(i) = self.full_list(p).iter().position(|f| *f == carrier) {
                    self.slots[p].fulls_done |= 1 << i;
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
        let avoid = carrier | self.end_cells(a);
        let mut found = std::mem::take(&mut self.scratch);
        found.clear();
        // This loop is the H-search's hottest: it reads the lists in place,
        // and tests an end against the carrier by its cell alone (carriers
        // hold empty cells only, and a group's end is one of its stones).
        let n = self.n;
        for &w in &self.full_partners[z as usize] {
            if w == a || ((w as usize) < n && carrier.contains(w as usize)) {
                continue;
            }
            let slot = &self.slots[self.pair(z, w)];
            let mut done = slot.fulls_done;
            if done == 0 {
                continue;
            }
            let list = &self.full_arena[slot.full_at as usize..][..slot.fulls as usize];
            while done != 0 {
                let i = done.trailing_zeros() as usize;
                done &= done - 1;
                let f = list[i];
                if !f.intersects(&avoid) {
                    let mut union = carrier | f;
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
        let slot = self.slots[p];
        let done = slot.semis_done;
        if done == first_bits(slot.semis as usize) {
            return;
        }
        // One semi combines with nothing (its carrier holds its key).
        if slot.semis < 2 {
            self.slots[p].semis_done = first_bits(slot.semis as usize);
            return;
        }
        let [mut semis, mut tails, mut new_fulls] = std::mem::take(&mut self.or_scratch);
        semis.clear();
        semis.extend_from_slice(self.semi_list(p));
        new_fulls.clear();
        // The whole list: its greedy union when the intersection is empty
        // (no pairing when it takes more than two).
        let all = semis.iter().fold(CellSet::<W>::FULL, |acc, s| acc & *s);
        if all.is_empty() && !self.params.pairings {
            new_fulls.push(greedy_union(&semis));
        }
        // Each new semi with up to max_ors - 1 others.
        tails.clear();
        tails.resize(semis.len() + 1, CellSet::<W>::FULL);
        for i in (0..semis.len()).rev() {
            tails[i] = tails[i + 1] & semis[i];
        }
        let mut holders = Holders {
            of_cell: std::mem::take(&mut self.or_holders),
            filled: false,
        };
        let search = OrSearch {
            semis: &semis,
            tails: &tails,
            max_ors: self.max_ors(),
        };
        // Semis before `first` that are new too had their turn first: sets
        // holding both were searched then.
        let mut earlier_new = 0u64;
        for (i, &semi) in semis.iter().enumerate() {
            if done >> i & 1 == 0 {
                let skip = earlier_new | 1 << i;
                search.run(&mut holders, skip, semi, semi, 0, 1, &mut new_fulls);
                earlier_new |= 1 << i;
            }
        }
        if holders.filled {
            for s in &semis {
                for c in s.iter() {
                    holders.of_cell[c] = 0;
                }
            }
        }
        self.or_holders = holders.of_cell;
        if self.params.pairings && self.params.captured_overlap {
            self.captured_overlap_or(x, y, &semis, done, &mut new_fulls);
        }
        self.slots[p].semis_done = first_bits(semis.len());
        for &carrier in &new_fulls {
            self.add_full(x, y, carrier);
        }
        self.or_scratch = [semis, tails, new_fulls];
    }

    /// Rule (Solrex, section 5, after Arneson, Hayward and Henderson and
    /// Henderson's thesis): two semis x–y whose carriers meet only in cells
    /// of pairs captured around x or y make a full, whose carrier adds
    /// those pairs. With the player owning the end, the opponent's answer
    /// in each such pair leaves the player one cell of it and the other
    /// dead (the player's stone on either kills the other), and a dead
    /// cell's colour changes no join: both cells count as the player's. So
    /// the two semis no longer conflict, and their keys, the captured
    /// pairs and each semi's pairs outside them make a pairing inside the
    /// carrier, which joins x to y. Unlike a plain full, the carrier may
    /// hold cells no pair needs (a semi's cell whose mate is captured): it
    /// contains a pairing rather than being one. `done` marks the semis
    /// combined before; each new one is tried with every other.
    fn captured_overlap_or(
        &self,
        x: End,
        y: End,
        semis: &[CellSet<W>],
        done: u64,
        out: &mut Vec<CellSet<W>>,
    ) {
        // The pairs of both ends, kept disjoint, away from the ends.
        let mut cells = self.end_cells(x) | self.end_cells(y);
        let mut pairs: Vec<CellSet<W>> = Vec::new();
        for e in [x, y] {
            if self.is_empty_end(e) {
                for &pair in &self.captured[e as usize] {
                    if !pair.intersects(&cells) {
                        cells |= pair;
                        pairs.push(pair);
                    }
                }
            }
        }
        if pairs.is_empty() {
            return;
        }
        let cells = pairs.iter().fold(CellSet::EMPTY, |acc, p| acc | *p);
        for i in (0..semis.len()).filter(|&i| done >> i & 1 == 0) {
            for j in 0..semis.len() {
                // A pair of new semis is tried once, from its first.
                if j == i || (j < i && done >> j & 1 == 0) {
                    continue;
                }
                let meet = semis[i] & semis[j];
                if meet.is_empty() || !meet.is_subset(&cells) {
                    continue;
                }
                let used = pairs
                    .iter()
                    .filter(|p| p.intersects(&meet))
                    .fold(CellSet::EMPTY, |acc, p| acc | *p);
                out.push(semis[i] | semis[j] | used);
            }
        }
    }

    /// Semis the OR rule combines at a time.
    fn max_ors(&self) -> usize {
        if self.params.pairings {
            2
        } else {
            self.params.max_ors
        }
    }

    /// Adds full connections found by other means (each `(x, y,
    /// carrier)`) and combines them with the rest by the rules.
    pub fn add_fulls(&mut self, fulls: &[(End, End, CellSet<W>)]) {
        for &(x, y, carrier) in fulls {
            self.add_full(x, y, carrier);
        }
        self.close();
    }

    /// Whether the player's sides are fully connected.
    pub fn edge_full(&self) -> bool {
        self.slots[self.pair(self.side(0), self.side(1))].fulls > 0
    }

    /// Whether [`VcParams::max_fulls`] or [`VcParams::max_semis`] turned a
    /// connection away: which ones a full list keeps depends on the order
    /// they were found in, and so on the cells' numbering.
    pub fn limited(&self) -> bool {
        self.limited
    }

    /// The carriers of the fulls between `x` and `y`.
    pub fn fulls(&self, x: End, y: End) -> impl Iterator<Item = CellSet<W>> + '_ {
        self.full_list(self.pair(x, y)).iter().copied()
    }

    /// How many times the full list of `x` and `y` was started: its first
    /// full, and each later full whose carrier lay inside every carrier
    /// then listed.
    pub fn full_starts(&self, x: End, y: End) -> usize {
        self.slots[self.pair(x, y)].full_starts as usize
    }

    /// The (carrier, key) of the semis between `x` and `y`.
    pub fn semis(&self, x: End, y: End) -> impl Iterator<Item = (CellSet<W>, usize)> + '_ {
        let p = self.pair(x, y);
        self.semi_list(p)
            .iter()
            .zip(self.semi_keys(p))
            .map(|(&c, &k)| (c, k as usize))
    }

    /// The semis between the two sides: the player joins them by playing a key.
    pub fn edge_semis(&self) -> impl Iterator<Item = (CellSet<W>, usize)> + '_ {
        self.semis(self.side(0), self.side(1))
    }

    /// Whether every carrier is exactly the cells of a pairing (the
    /// carriers of [`VcParams::captured_overlap`]'s fulls may hold more).
    pub fn exact_carriers(&self) -> bool {
        !self.params.captured_overlap
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

    /// The ends `e` has at least one full with.
    pub fn full_partners(&self, e: End) -> &[End] {
        &self.full_partners[e as usize]
    }

    /// Every (x, y) pair with at least one semi, x < y.
    pub fn semi_pairs(&self) -> Vec<(End, End)> {
        let mut pairs = Vec::new();
        for x in 0..self.ends {
            for y in x + 1..self.ends {
                if self.slots[self.pair(x as End, y as End)].semis > 0 {
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
            self.slots.iter().map(|s| s.fulls as usize).sum(),
            self.slots.iter().map(|s| s.semis as usize).sum(),
        )
    }

    /// The connections after `mover` plays `cell` (empty now), brought up to
    /// date from these instead of rebuilt.
    pub fn update(&self, geom: &Geometry<W>, cell: usize, mover: usize) -> Self {
        let mut next = VcSet::new(geom, self.player, self.params);
        self.update_into(geom, cell, mover, &mut next);
        next
    }

    /// [`VcSet::update`] written into `next`, whose lists are emptied and
    /// whose memory is reused: a one-ply search over every move pays for
    /// the arenas once instead of once a move (allocating and faulting in
    /// megabytes of fresh pages cost as much as the rules themselves).
    /// `next` must be a set of the same player, board and limits.
    pub fn update_into(&self, geom: &Geometry<W>, cell: usize, mover: usize, next: &mut Self) {
        assert!(
            next.player == self.player && next.n == self.n && next.params == self.params,
            "update_into needs a set of the same player, board and limits"
        );
        let mut stones = self.stones;
        stones[mover].insert(cell);
        next.reset();
        next.stones = stones;
        next.label_ends(geom);
        next.find_captured(geom);
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
                let p = self.pair(x as End, y as End);
                if self.slots[p].fulls == 0 && self.slots[p].semis == 0 {
                    continue;
                }
                let (Some(nx), Some(ny)) = (rename(x as End), rename(y as End)) else {
                    continue;
                };
                if nx == ny {
                    continue;
                }
                for f in self.full_list(p) {
                    let hit = f.contains(cell);
                    if !hit || own_move {
                        carried_fulls.push((nx, ny, f.without(cell), !hit));
                    } else {
                        broken.push((nx, ny));
                    }
                }
                for (s, &key) in self.semi_list(p).iter().zip(self.semi_keys(p)) {
                    let hit = s.contains(cell);
                    if hit && !own_move {
                        continue;
                    }
                    if key as usize == cell {
                        // The key is played: the semi is now a full.
                        carried_fulls.push((nx, ny, s.without(cell), false));
                    } else {
                        carried_semis.push((nx, ny, s.without(cell), key, !hit));
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
                let done = next.slots[p].fulls_done;
                for i in 0..next.slots[p].fulls as usize {
                    if done >> i & 1 == 1 {
                        let f = next.full_list(p)[i];
                        next.full_queue.push_back((group, y, f));
                    }
                }
                next.slots[p].fulls_done = 0;
                redo.push((group, y));
            }
        }
        for (x, y) in redo {
            let p = next.pair(x, y);
            if next.slots[p].semis == 0 {
                continue;
            }
            next.slots[p].semis_done = 0;
            if !next.or_queued[p] {
                next.or_queued[p] = true;
                next.or_queue.push_back((x.min(y), x.max(y)));
            }
        }
        next.close();
    }
}

/// The OR rule's search over the semis of one pair: `tails[j]` is the
/// intersection of semis `j..`.
struct OrSearch<'a, const W: usize> {
    semis: &'a [CellSet<W>],
    tails: &'a [CellSet<W>],
    max_ors: usize,
}

/// For each cell, the semis (bit `j` for semi `j`) whose carrier holds it;
/// filled when first needed.
struct Holders {
    of_cell: Vec<u64>,
    filled: bool,
}

impl<const W: usize> OrSearch<'_, W> {
    /// Depth-first search over sets of `used` semis with intersection
    /// `inter` (never empty) and union `union`, extended in order with
    /// semis from `from` on, not in `skip`, that shrink the intersection;
    /// pushes the union of each set whose intersection empties.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        holders: &mut Holders,
        skip: u64,
        inter: CellSet<W>,
        union: CellSet<W>,
        from: usize,
        used: usize,
        out: &mut Vec<CellSet<W>>,
    ) {
        if used >= self.max_ors {
            return;
        }
        // A set's intersection has a few cells once two semis are in it:
        // then the masks find its last semi; a lone semi's carrier has
        // more cells than a pass over the list has semis (Rex's pairs).
        let last = used + 1 == self.max_ors;
        if last && used > 1 {
            self.last(holders, skip, inter, union, from, out);
            return;
        }
        for (j, &semi) in self.semis.iter().enumerate().skip(from) {
            // Not even all the remaining semis together empty it.
            if !(inter & self.tails[j]).is_empty() {
                return;
            }
            if skip >> j & 1 == 1 {
                continue;
            }
            let next = inter & semi;
            if next == inter {
                continue;
            }
            let u = union | semi;
            if next.is_empty() {
                out.push(u);
            } else if !last {
                self.run(holders, skip, next, u, j + 1, used + 1, out);
            }
        }
    }

    /// The last semi of a set: in order, each from `from` on, not in
    /// `skip`, that shares no cell with `inter`. Most of the search's
    /// steps were here, one a semi; the intersection has a few cells, and
    /// the semis holding none of them are a few masks away.
    fn last(
        &self,
        holders: &mut Holders,
        skip: u64,
        inter: CellSet<W>,
        union: CellSet<W>,
        from: usize,
        out: &mut Vec<CellSet<W>>,
    ) {
        let n = self.semis.len();
        // A semi holds its key: the set's intersection is never empty.
        if from >= n || inter.is_empty() {
            return;
        }
        if !holders.filled {
            for (j, s) in self.semis.iter().enumerate() {
                for c in s.iter() {
                    holders.of_cell[c] |= 1 << j;
                }
            }
            holders.filled = true;
        }
        let mut hit = skip | first_bits(from);
        for c in inter.iter() {
            hit |= holders.of_cell[c];
        }
        let mut free = first_bits(n) & !hit;
        while free != 0 {
            let j = free.trailing_zeros() as usize;
            free &= free - 1;
            out.push(union | self.semis[j]);
        }
    }
}

/// Where `carrier` stands against a list of carriers, in one pass: `None`
/// when one of them is a subset of it (it adds nothing), else the index of
/// the first that contains it (the list's length when none does).
fn first_superset<const W: usize>(list: &[CellSet<W>], carrier: CellSet<W>) -> Option<usize> {
    let mut first = list.len();
    for (i, c) in list.iter().enumerate() {
        if c.is_subset(&carrier) {
            return None;
        }
        if first == list.len() && carrier.is_subset(c) {
            first = i;
        }
    }
    Some(first)
}

/// A union of carriers that still has an empty intersection: carriers are
/// taken by size, smallest first, those of one size together, each that
/// shrinks the intersection of the smaller ones. Taking one carrier at a
/// time among equals would make the union depend on the list's order,
/// which follows the cells' numbering (a position and its 180-degree image
/// got different fulls: 5x5 Black a1 c1, White d4 b5).
fn greedy_union<const W: usize>(carriers: &[CellSet<W>]) -> CellSet<W> {
    let mut order: Vec<&CellSet<W>> = carriers.iter().collect();
    order.sort_by_key(|c| c.count());
    let mut inter = CellSet::<W>::FULL;
    let mut union = CellSet::EMPTY;
    for size in order.chunk_by(|a, b| a.count() == b.count()) {
        let smaller = inter;
        for &c in size {
            if smaller & *c != smaller {
                inter &= *c;
                union |= *c;
            }
        }
        if inter.is_empty() {
            break;
        }
    }
    union
}
