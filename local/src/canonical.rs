//! Canonical forms: the simplest member of a form's equivalence class
//! (Selinger 2022, Lemma 4.23), by removing dominated options and
//! bypassing reversible ones, then replacing a form equivalent to an atom
//! by that atom.
//!
//! Bypassing a left option G^L reversible through G^LR (G^LR <= G):
//! a composite G^LR gives its left options in place of G^L, as in normal
//! play; an atomic G^LR has no options to give, and takes G^L's place
//! itself. The tests check the result equivalent to the input, and the
//! same for equivalent inputs.

use crate::form::{Arena, GameId, sorted_set};

impl Arena {
    /// The canonical form of `g`, memoised.
    pub fn canonical(&mut self, g: GameId) -> GameId {
        if let Some(&c) = self.canonical_memo.get(&g) {
            return c;
        }
        let c = if self.as_atom(g).is_some() {
            g
        } else {
            let left: Vec<GameId> = self.left(g).to_vec();
            let right: Vec<GameId> = self.right(g).to_vec();
            let left = left.into_iter().map(|o| self.canonical(o)).collect();
            let right = right.into_iter().map(|o| self.canonical(o)).collect();
            self.simplify(left, right)
        };
        self.canonical_memo.insert(g, c);
        self.canonical_memo.insert(c, c);
        c
    }

    /// The canonical form of {left | right} whose options are canonical
    /// already: what a region's expansion calls at each position.
    pub fn simplify(&mut self, mut left: Vec<GameId>, mut right: Vec<GameId>) -> GameId {
        loop {
            left = self.undominated(sorted_set(left), true);
            right = self.undominated(sorted_set(right), false);
            let g = self.intern_composite(left.clone(), right.clone());
            if let Some((i, by)) = self.reversible(g, &left, true) {
                left.remove(i);
                left.extend(by);
                continue;
            }
            if let Some((i, by)) = self.reversible(g, &right, false) {
                right.remove(i);
                right.extend(by);
                continue;
            }
            let atoms: Vec<_> = self.poset().atoms().collect();
            for a in atoms {
                let atom = self.atom(a);
                if self.equivalent(g, atom) {
                    return atom;
                }
            }
            self.canonical_memo.insert(g, g);
            return g;
        }
    }

    /// The options no other option dominates (Left prefers larger options,
    /// Right smaller); of equivalent options the first is kept.
    fn undominated(&mut self, options: Vec<GameId>, left: bool) -> Vec<GameId> {
        let mut keep = Vec::with_capacity(options.len());
        for (i, &x) in options.iter().enumerate() {
            let dominated = options.iter().enumerate().any(|(j, &y)| {
                j != i && {
                    let (lo, hi) = if left { (x, y) } else { (y, x) };
                    self.le(lo, hi) && (j < i || !self.le(hi, lo))
                }
            });
            if !dominated {
                keep.push(x);
            }
        }
        keep
    }

    /// The first reversible option of `g` on the given side and what
    /// replaces it.
    fn reversible(
        &mut self,
        g: GameId,
        options: &[GameId],
        left: bool,
    ) -> Option<(usize, Vec<GameId>)> {
        for (i, &o) in options.iter().enumerate() {
            let replies: Vec<GameId> = if left { self.right(o) } else { self.left(o) }.to_vec();
            for reply in replies {
                let reverses = if left {
                    self.le(reply, g)
                } else {
                    self.le(g, reply)
                };
                if reverses {
                    let by = if self.as_atom(reply).is_some() {
                        vec![reply]
                    } else if left {
                        self.left(reply).to_vec()
                    } else {
                        self.right(reply).to_vec()
                    };
                    return Some((i, by));
                }
            }
        }
        None
    }
}
