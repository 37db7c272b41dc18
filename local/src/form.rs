//! Game forms over an outcome poset (Selinger 2022, Demer and Selinger
//! Definition 3.1), hash-consed in an arena so that equal subgames are
//! stored once and compared by id; the order relations <= and ◁ by their
//! mutual recursion (Definition 3.2), memoised per pair of ids.

use rustc_hash::FxHashMap;

use crate::LocalError;
use crate::poset::{Atom, Poset};

/// A game form in an [`Arena`]: equal forms have equal ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(pub u32);

/// One form. Option lists are sorted and free of repeats, so that a set of
/// options has one representation and hash-consing finds it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Atom(Atom),
    Composite {
        left: Box<[GameId]>,
        right: Box<[GameId]>,
    },
}

/// The forms over one poset, and the memoised relations between them.
#[derive(Clone, Debug)]
pub struct Arena {
    poset: Poset,
    nodes: Vec<Node>,
    ids: FxHashMap<Node, GameId>,
    le_memo: FxHashMap<(GameId, GameId), bool>,
    lf_memo: FxHashMap<(GameId, GameId), bool>,
    pub(crate) canonical_memo: FxHashMap<GameId, GameId>,
    /// Bytes of the option lists, each held twice (in `nodes` and as a
    /// key of `ids`).
    option_bytes: u64,
}

impl Arena {
    pub fn new(poset: Poset) -> Self {
        let mut arena = Arena {
            poset,
            nodes: Vec::new(),
            ids: FxHashMap::default(),
            le_memo: FxHashMap::default(),
            lf_memo: FxHashMap::default(),
            canonical_memo: FxHashMap::default(),
            option_bytes: 0,
        };
        // Atoms first, so that atom x has id x.
        for a in arena.poset.atoms().collect::<Vec<_>>() {
            arena.intern(Node::Atom(a));
        }
        arena
    }

    pub fn poset(&self) -> &Poset {
        &self.poset
    }

    /// Forms stored (atoms included).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Bytes the forms and the memoised relations hold, counted from the
    /// tables' sizes (what an expansion's memory limit counts).
    pub fn bytes(&self) -> u64 {
        (self.nodes.capacity() * std::mem::size_of::<Node>()) as u64
            + table_bytes::<(Node, GameId)>(self.ids.capacity())
            + table_bytes::<((GameId, GameId), bool)>(self.le_memo.capacity())
            + table_bytes::<((GameId, GameId), bool)>(self.lf_memo.capacity())
            + table_bytes::<(GameId, GameId)>(self.canonical_memo.capacity())
            + self.option_bytes
    }

    pub fn node(&self, g: GameId) -> &Node {
        &self.nodes[g.0 as usize]
    }

    fn intern(&mut self, node: Node) -> GameId {
        if let Some(&id) = self.ids.get(&node) {
            return id;
        }
        let id = GameId(u32::try_from(self.nodes.len()).expect("fewer than 2^32 forms"));
        if let Node::Composite { left, right } = &node {
            self.option_bytes +=
                2 * (std::mem::size_of_val(&**left) + std::mem::size_of_val(&**right)) as u64;
        }
        self.nodes.push(node.clone());
        self.ids.insert(node, id);
        id
    }

    /// The atomic form [a].
    pub fn atom(&mut self, a: Atom) -> GameId {
        assert!(
            (a as usize) < self.poset.len(),
            "atom {a} outside the poset"
        );
        GameId(a as u32)
    }

    /// The composite form {left | right}; both sides must be non-empty.
    pub fn composite(
        &mut self,
        left: impl IntoIterator<Item = GameId>,
        right: impl IntoIterator<Item = GameId>,
    ) -> Result<GameId, LocalError> {
        let left = sorted_set(left);
        let right = sorted_set(right);
        if left.is_empty() || right.is_empty() {
            return Err(LocalError::Form(
                "a composite game needs at least one left and one right option".into(),
            ));
        }
        Ok(self.intern_composite(left, right))
    }

    pub(crate) fn intern_composite(&mut self, left: Vec<GameId>, right: Vec<GameId>) -> GameId {
        debug_assert!(!left.is_empty() && !right.is_empty());
        self.intern(Node::Composite {
            left: left.into_boxed_slice(),
            right: right.into_boxed_slice(),
        })
    }

    pub fn as_atom(&self, g: GameId) -> Option<Atom> {
        match self.node(g) {
            Node::Atom(a) => Some(*a),
            Node::Composite { .. } => None,
        }
    }

    /// The left options (empty for an atom).
    pub fn left(&self, g: GameId) -> &[GameId] {
        match self.node(g) {
            Node::Atom(_) => &[],
            Node::Composite { left, .. } => left,
        }
    }

    /// The right options (empty for an atom).
    pub fn right(&self, g: GameId) -> &[GameId] {
        match self.node(g) {
            Node::Atom(_) => &[],
            Node::Composite { right, .. } => right,
        }
    }

    /// G^(L): the left options of a composite game, an atom itself.
    fn left_or_self(&self, g: GameId) -> Vec<GameId> {
        match self.node(g) {
            Node::Atom(_) => vec![g],
            Node::Composite { left, .. } => left.to_vec(),
        }
    }

    fn right_or_self(&self, g: GameId) -> Vec<GameId> {
        match self.node(g) {
            Node::Atom(_) => vec![g],
            Node::Composite { right, .. } => right.to_vec(),
        }
    }

    /// G <= H: H is at least as good for Left (Black) as G.
    pub fn le(&mut self, g: GameId, h: GameId) -> bool {
        if g == h {
            return true;
        }
        if let Some(&v) = self.le_memo.get(&(g, h)) {
            return v;
        }
        let v = self.left_or_self(g).into_iter().all(|gl| self.lf(gl, h))
            && self.right_or_self(h).into_iter().all(|hr| self.lf(g, hr));
        self.le_memo.insert((g, h), v);
        v
    }

    /// G ◁ H: moving first in H is at least as good for Left as moving
    /// second in G.
    pub fn lf(&mut self, g: GameId, h: GameId) -> bool {
        if let Some(&v) = self.lf_memo.get(&(g, h)) {
            return v;
        }
        let v = match (self.as_atom(g), self.as_atom(h)) {
            (Some(a), Some(b)) => self.poset.le(a, b),
            _ => {
                self.right(g).to_vec().into_iter().any(|gr| self.le(gr, h))
                    || self.left(h).to_vec().into_iter().any(|hl| self.le(g, hl))
            }
        };
        self.lf_memo.insert((g, h), v);
        v
    }

    /// Forgets the memoised relations (the forms stay), e.g. to time a
    /// comparison from scratch.
    pub fn forget_relations(&mut self) {
        self.le_memo.clear();
        self.lf_memo.clear();
    }

    /// G ≃ H.
    pub fn equivalent(&mut self, g: GameId, h: GameId) -> bool {
        g == h || (self.le(g, h) && self.le(h, g))
    }

    /// Monotone: G <= G^L and G^R <= G for every option, recursively.
    pub fn is_monotone(&mut self, g: GameId) -> bool {
        self.holds_throughout(g, |arena, g| {
            let left = arena.left(g).to_vec();
            let right = arena.right(g).to_vec();
            left.iter().all(|&gl| arena.le(g, gl)) && right.iter().all(|&gr| arena.le(gr, g))
        })
    }

    /// Passable: G ◁ G, recursively for every option.
    pub fn is_passable(&mut self, g: GameId) -> bool {
        self.holds_throughout(g, |arena, g| arena.lf(g, g))
    }

    /// Whether `local` holds at G and at every subgame of G, each subgame
    /// tested once.
    fn holds_throughout(&mut self, g: GameId, local: fn(&mut Self, GameId) -> bool) -> bool {
        let mut seen = FxHashMap::default();
        self.holds_rec(g, local, &mut seen)
    }

    fn holds_rec(
        &mut self,
        g: GameId,
        local: fn(&mut Self, GameId) -> bool,
        seen: &mut FxHashMap<GameId, bool>,
    ) -> bool {
        if let Some(&v) = seen.get(&g) {
            return v;
        }
        let options: Vec<GameId> = self.left(g).iter().chain(self.right(g)).copied().collect();
        let v = local(self, g) && options.into_iter().all(|o| self.holds_rec(o, local, seen));
        seen.insert(g, v);
        v
    }

    /// Depth: 0 for atoms, one more than the deepest option otherwise.
    pub fn depth(&self, g: GameId) -> usize {
        let mut memo = FxHashMap::default();
        self.depth_rec(g, &mut memo)
    }

    fn depth_rec(&self, g: GameId, memo: &mut FxHashMap<GameId, usize>) -> usize {
        if let Some(&d) = memo.get(&g) {
            return d;
        }
        let d = self
            .left(g)
            .iter()
            .chain(self.right(g))
            .map(|&o| 1 + self.depth_rec(o, memo))
            .max()
            .unwrap_or(0);
        memo.insert(g, d);
        d
    }

    /// Distinct followers of G, G itself included.
    pub fn followers(&self, g: GameId) -> usize {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![g];
        while let Some(x) = stack.pop() {
            if seen.insert(x) {
                stack.extend(self.left(x).iter().chain(self.right(x)));
            }
        }
        seen.len()
    }

    /// The form in the paper's notation, e.g. `{⊤, {⊤ | a} | {a | ⊥}}`.
    pub fn display(&self, g: GameId) -> String {
        let mut out = String::new();
        self.write(g, &mut out);
        out
    }

    fn write(&self, g: GameId, out: &mut String) {
        match self.node(g) {
            Node::Atom(a) => out.push_str(self.poset.atom_name(*a)),
            Node::Composite { left, right } => {
                out.push('{');
                for (i, &o) in left.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write(o, out);
                }
                out.push_str(" | ");
                for (i, &o) in right.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write(o, out);
                }
                out.push('}');
            }
        }
    }

    /// Reads a form in the notation of [`Arena::display`]: atoms by name
    /// (`top`/`T` and `bot`/`F` also stand for ⊤ and ⊥), composites as
    /// `{L1, L2 | R1}`.
    pub fn parse(&mut self, text: &str) -> Result<GameId, LocalError> {
        let tokens = tokenize(text);
        let mut pos = 0;
        let g = self.parse_form(&tokens, &mut pos)?;
        if pos != tokens.len() {
            return Err(LocalError::Form(format!(
                "unexpected '{}' after a complete game in '{text}'",
                tokens[pos]
            )));
        }
        Ok(g)
    }

    fn parse_form(&mut self, tokens: &[String], pos: &mut usize) -> Result<GameId, LocalError> {
        let Some(tok) = tokens.get(*pos) else {
            return Err(LocalError::Form(
                "a game ends early: expected an atom or '{'".into(),
            ));
        };
        *pos += 1;
        if tok != "{" {
            return match self.poset.atom(tok) {
                Some(a) => Ok(self.atom(a)),
                None => Err(LocalError::Form(format!(
                    "'{tok}' is no atom of poset {}: accepted {}",
                    self.poset.name(),
                    self.poset
                        .atoms()
                        .map(|a| self.poset.atom_name(a).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            };
        }
        let mut sides = [Vec::new(), Vec::new()];
        let mut side = 0;
        loop {
            sides[side].push(self.parse_form(tokens, pos)?);
            match tokens.get(*pos).map(String::as_str) {
                Some(",") => *pos += 1,
                Some("|") if side == 0 => {
                    *pos += 1;
                    side = 1;
                }
                Some("}") if side == 1 => {
                    *pos += 1;
                    break;
                }
                Some(t) => {
                    return Err(LocalError::Form(format!(
                        "unexpected '{t}' in a composite game: expected ',', '|' or '}}'"
                    )));
                }
                None => return Err(LocalError::Form("a '{' is never closed".into())),
            }
        }
        let [left, right] = sides;
        self.composite(left, right)
    }
}

fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for ch in text.chars() {
        if matches!(ch, '{' | '}' | '|' | ',') || ch.is_whitespace() {
            if !word.is_empty() {
                tokens.push(std::mem::take(&mut word));
            }
            if !ch.is_whitespace() {
                tokens.push(ch.to_string());
            }
        } else {
            word.push(ch);
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    tokens
}

pub(crate) fn sorted_set(ids: impl IntoIterator<Item = GameId>) -> Vec<GameId> {
    let mut v: Vec<GameId> = ids.into_iter().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Bytes a hash table of `capacity` entries of type `T` holds: its
/// buckets (a power of two at least 8/7 of the capacity) with one control
/// byte each.
pub(crate) fn table_bytes<T>(capacity: usize) -> u64 {
    let buckets = if capacity == 0 {
        0
    } else {
        (capacity * 8 / 7).next_power_of_two()
    };
    (buckets * (std::mem::size_of::<T>() + 1)) as u64
}
