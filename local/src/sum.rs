//! Sums G +_f H of games over posets A and B into a game over C, for a
//! monotone outcome map f: A x B -> C (Demer and Selinger, Definition 3.6).

use rustc_hash::FxHashMap;

use crate::LocalError;
use crate::form::{Arena, GameId};
use crate::poset::{Atom, Poset};

/// A monotone map f: A x B -> C, tabulated.
#[derive(Clone, Debug)]
pub struct OutcomeMap {
    b_len: usize,
    table: Vec<Atom>,
}

impl OutcomeMap {
    /// Tabulates `f`, refusing it unless a <= a' and b <= b' imply
    /// f(a, b) <= f(a', b').
    pub fn new(
        a: &Poset,
        b: &Poset,
        c: &Poset,
        f: impl Fn(Atom, Atom) -> Atom,
    ) -> Result<Self, LocalError> {
        let mut table = Vec::with_capacity(a.len() * b.len());
        for x in a.atoms() {
            for y in b.atoms() {
                let z = f(x, y);
                if z as usize >= c.len() {
                    return Err(LocalError::Map(format!(
                        "f({}, {}) = atom {z} lies outside poset {}",
                        a.atom_name(x),
                        b.atom_name(y),
                        c.name()
                    )));
                }
                table.push(z);
            }
        }
        let map = OutcomeMap {
            b_len: b.len(),
            table,
        };
        for x in a.atoms() {
            for x2 in a.atoms().filter(|&x2| a.le(x, x2)) {
                for y in b.atoms() {
                    for y2 in b.atoms().filter(|&y2| b.le(y, y2)) {
                        if !c.le(map.apply(x, y), map.apply(x2, y2)) {
                            return Err(LocalError::Map(format!(
                                "f is not monotone: f({}, {}) = {} but f({}, {}) = {}",
                                a.atom_name(x),
                                b.atom_name(y),
                                c.atom_name(map.apply(x, y)),
                                a.atom_name(x2),
                                b.atom_name(y2),
                                c.atom_name(map.apply(x2, y2))
                            )));
                        }
                    }
                }
            }
        }
        Ok(map)
    }

    pub fn apply(&self, a: Atom, b: Atom) -> Atom {
        self.table[a as usize * self.b_len + b as usize]
    }
}

/// G +_f H, built in `out` (not simplified: call [`Arena::canonical`]).
pub fn sum(
    ga: &Arena,
    g: GameId,
    hb: &Arena,
    h: GameId,
    f: &OutcomeMap,
    out: &mut Arena,
) -> GameId {
    Summands {
        ga,
        hb,
        f,
        memo: FxHashMap::default(),
    }
    .sum(g, h, out)
}

/// The two arenas, the map, and the sums built so far.
struct Summands<'a> {
    ga: &'a Arena,
    hb: &'a Arena,
    f: &'a OutcomeMap,
    memo: FxHashMap<(GameId, GameId), GameId>,
}

impl Summands<'_> {
    fn sum(&mut self, g: GameId, h: GameId, out: &mut Arena) -> GameId {
        if let Some(&s) = self.memo.get(&(g, h)) {
            return s;
        }
        let (ga, hb) = (self.ga, self.hb);
        let s = match (ga.as_atom(g), hb.as_atom(h)) {
            (Some(a), Some(b)) => out.atom(self.f.apply(a, b)),
            _ => {
                let mut left = Vec::new();
                let mut right = Vec::new();
                for &gl in ga.left(g) {
                    left.push(self.sum(gl, h, out));
                }
                for &hl in hb.left(h) {
                    left.push(self.sum(g, hl, out));
                }
                for &gr in ga.right(g) {
                    right.push(self.sum(gr, h, out));
                }
                for &hr in hb.right(h) {
                    right.push(self.sum(g, hr, out));
                }
                out.composite(left, right)
                    .expect("a composite summand gives options on both sides")
            }
        };
        self.memo.insert((g, h), s);
        s
    }
}
