//! A database of Hex-realizable 3-terminal values, built as Demer and
//! Selinger built theirs (section 5.1): start from the values of small
//! 3-terminal regions, close the set under the symmetries (renumbering
//! the terminals) and duals (exchanging the colours), and in each round
//! add the pinwheel compositions (their Definition 4.9) of every three
//! values; keep canonical forms with at most a chosen number of atoms.
//! Values are hash-consed in one arena over P3, so a value is stored once
//! and looked up by its canonical form.
//!
//! The pinwheel. The paper's schematic diagram is not in the text we
//! have; its proof of Lemma 4.10 fixes what the composition does: three
//! components G1, G2, G3 round a centre, the outcome never ⊤ when every
//! component's outcome is a or b, and each of a, b, c reachable by such
//! choices. The composition here: inner nodes X1, X2, X3 (black stones
//! round a white centre) and the outer terminals O1, O2, O3; component
//! i's terminals 1, 2, 3 are X_i, X_{i+1} and O_i. So component i joins
//! O_i to X_{i+1} (its a), to X_i (its b), or the inner nodes (its c),
//! and the composition's outcome is which outer terminals end up joined.
//! That is planar (three blades round a centre, hence the name) and meets
//! all three facts. Since the database is closed under renumbering
//! terminals, the order chosen for a component's terminals does not
//! change which values the closure holds.
//!
//! Every value in the database is that of a Hex region: the seeds are
//! regions, renumbering and exchanging colours (with a reflection) turn a
//! region into a region, and a pinwheel of regions is a region whose
//! value is the composition of their values (values can replace each
//! other in any position).

use std::fmt::Write as _;
use std::time::Instant;

use rustc_hash::FxHashMap;

use crate::LocalError;
use crate::expansion::Limits;
use crate::form::{Arena, GameId};
use crate::poset::{Atom, Poset};
use crate::region::Region;

/// P3's atoms as the arena numbers them.
const BOT: Atom = 0;
const TOP: Atom = 4;

/// The six orders of the terminals, as images of (1, 2, 3); the atoms a,
/// b, c (the pairs opposite terminals 1, 2, 3) follow their terminal.
pub const PERMUTATIONS: [[u8; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// How a value was first reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A seed region (or an atom: the empty region, terminals joined).
    Seed(String),
    /// Entry `.1` with its terminals renumbered: terminal t becomes
    /// `.0[t]`.
    Renumbered([u8; 3], usize),
    /// Entry's dual: colours exchanged.
    Dual(usize),
    /// The pinwheel of three entries.
    Pinwheel([usize; 3]),
}

/// One value of the database.
#[derive(Clone, Debug)]
pub struct Entry {
    pub value: GameId,
    /// The round it was found in (0: the seeds and their closure).
    pub round: usize,
    /// Atoms in its canonical form, written out.
    pub atoms: u64,
    pub origin: Origin,
}

/// What a round did.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundReport {
    pub round: usize,
    /// Pinwheels composed.
    pub pinwheels: u64,
    /// Distinct values after the round.
    pub values: usize,
    pub seconds: f64,
}

/// The database.
pub struct Database {
    arena: Arena,
    entries: Vec<Entry>,
    index: FxHashMap<GameId, usize>,
    max_atoms: u64,
    /// Values after each round, round 0 first.
    counts: Vec<usize>,
    atom_memo: FxHashMap<GameId, u64>,
}

impl Database {
    /// An empty database keeping values of at most `max_atoms` atoms.
    pub fn new(max_atoms: u64) -> Self {
        Database {
            arena: Arena::new(Poset::p3()),
            entries: Vec::new(),
            index: FxHashMap::default(),
            max_atoms,
            counts: Vec::new(),
            atom_memo: FxHashMap::default(),
        }
    }

    pub fn max_atoms(&self) -> u64 {
        self.max_atoms
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Distinct values after each round (round 0: the seeds, closed).
    pub fn counts(&self) -> &[usize] {
        &self.counts
    }

    pub fn arena(&self) -> &Arena {
        &self.arena
    }

    /// Whether `g` is passable (every Hex region's value is: Selinger's
    /// Theorem 3.4 in Demer and Selinger).
    pub fn is_passable(&mut self, g: GameId) -> bool {
        self.arena.is_passable(g)
    }

    /// The value in the paper's notation.
    pub fn display(&self, g: GameId) -> String {
        self.arena.display(g)
    }

    /// Atoms of `g` written out (shared subforms counted each time),
    /// saturating.
    fn atoms(&mut self, g: GameId) -> u64 {
        if let Some(&n) = self.atom_memo.get(&g) {
            return n;
        }
        let n = if self.arena.as_atom(g).is_some() {
            1
        } else {
            let options: Vec<GameId> = self
                .arena
                .left(g)
                .iter()
                .chain(self.arena.right(g))
                .copied()
                .collect();
            options
                .into_iter()
                .fold(0u64, |n, o| n.saturating_add(self.atoms(o)))
        };
        self.atom_memo.insert(g, n);
        n
    }

    /// Adds `g` (canonical) unless known or too large; its index if new.
    fn add(&mut self, g: GameId, round: usize, origin: Origin) -> Option<usize> {
        if self.index.contains_key(&g) {
            return None;
        }
        let atoms = self.atoms(g);
        if atoms > self.max_atoms {
            return None;
        }
        Some(self.push(g, round, atoms, origin))
    }

    /// Stores a new value; its index.
    fn push(&mut self, value: GameId, round: usize, atoms: u64, origin: Origin) -> usize {
        let i = self.entries.len();
        self.entries.push(Entry {
            value,
            round,
            atoms,
            origin,
        });
        self.index.insert(value, i);
        i
    }

    /// The seeds: the five atoms (the empty region, and terminals joined
    /// in pairs or all three) and the values of `regions`, 3-terminal
    /// regions over P3, each expanded within `limits`. Then the closure
    /// under renumbering and duals.
    pub fn seed(
        &mut self,
        regions: &[(String, Region)],
        limits: &Limits,
    ) -> Result<(), LocalError> {
        if !self.entries.is_empty() {
            return Err(LocalError::Database(
                "the database is seeded already".into(),
            ));
        }
        for (name, atom) in [
            ("Empty", BOT),
            ("Eq(2,3)", 1),
            ("Eq(1,3)", 2),
            ("Eq(1,2)", 3),
            ("Eq(1,2,3)", TOP),
        ] {
            let g = self.arena.atom(atom);
            self.add(g, 0, Origin::Seed(name.into()));
        }
        for (name, region) in regions {
            if region.terminals() != 3 || region.poset().name() != "p3" {
                return Err(LocalError::Database(format!(
                    "seed {name}: a seed is a 3-terminal region over poset p3"
                )));
            }
            let v = region.value_within(&mut self.arena, true, limits)?.value;
            self.add(v, 0, Origin::Seed(name.clone()));
        }
        self.close(0, 0);
        self.counts.push(self.entries.len());
        Ok(())
    }

    /// Adds the renumberings and duals of entries `from..` until nothing
    /// new comes (they form a group, so one pass over each new entry does).
    fn close(&mut self, from: usize, round: usize) {
        let mut i = from;
        while i < self.entries.len() {
            let g = self.entries[i].value;
            for p in PERMUTATIONS.iter().skip(1) {
                let h = self.renumber(g, *p, &mut FxHashMap::default());
                let h = self.arena.canonical(h);
                self.add(h, round, Origin::Renumbered(*p, i));
            }
            let d = self.dual(g, &mut FxHashMap::default());
            let d = self.arena.canonical(d);
            self.add(d, round, Origin::Dual(i));
            i += 1;
        }
    }

    fn renumber(&mut self, g: GameId, p: [u8; 3], memo: &mut FxHashMap<GameId, GameId>) -> GameId {
        if let Some(&h) = memo.get(&g) {
            return h;
        }
        let h = match self.arena.as_atom(g) {
            Some(a) if (1..=3).contains(&a) => self.arena.atom(1 + p[a as usize - 1]),
            Some(a) => self.arena.atom(a),
            None => {
                let (l, r) = (self.arena.left(g).to_vec(), self.arena.right(g).to_vec());
                let l: Vec<GameId> = l.into_iter().map(|o| self.renumber(o, p, memo)).collect();
                let r: Vec<GameId> = r.into_iter().map(|o| self.renumber(o, p, memo)).collect();
                self.arena
                    .composite(l, r)
                    .expect("a composite's image has options on both sides")
            }
        };
        memo.insert(g, h);
        h
    }

    /// The dual: Black and White exchanged. In a filled region Black
    /// joining all terminals is White joining none of the three white
    /// boundary parts and vice versa, and Black joining exactly a pair
    /// is White joining the two white parts beside the third terminal,
    /// which in the dual's numbering (white part i is the one opposite
    /// terminal i) is the same pair: ⊤ and ⊥ swap, a, b, c stay, and the
    /// players' options swap.
    pub fn dual(&mut self, g: GameId, memo: &mut FxHashMap<GameId, GameId>) -> GameId {
        if let Some(&h) = memo.get(&g) {
            return h;
        }
        let h = match self.arena.as_atom(g) {
            Some(BOT) => self.arena.atom(TOP),
            Some(TOP) => self.arena.atom(BOT),
            Some(a) => self.arena.atom(a),
            None => {
                let (l, r) = (self.arena.left(g).to_vec(), self.arena.right(g).to_vec());
                let l: Vec<GameId> = l.into_iter().map(|o| self.dual(o, memo)).collect();
                let r: Vec<GameId> = r.into_iter().map(|o| self.dual(o, memo)).collect();
                self.arena
                    .composite(r, l)
                    .expect("a composite's dual has options on both sides")
            }
        };
        memo.insert(g, h);
        h
    }

    /// The canonical value of the pinwheel of three values.
    pub fn pinwheel(&mut self, parts: [GameId; 3]) -> GameId {
        let mut memo = FxHashMap::default();
        self.pinwheel_memo(parts, &mut memo)
    }

    fn pinwheel_memo(
        &mut self,
        parts: [GameId; 3],
        memo: &mut FxHashMap<[GameId; 3], GameId>,
    ) -> GameId {
        if let Some(&g) = memo.get(&parts) {
            return g;
        }
        let atoms = parts.map(|p| self.arena.as_atom(p));
        let g = if let [Some(x), Some(y), Some(z)] = atoms {
            self.arena.atom(pinwheel_outcome([x, y, z]))
        } else {
            let mut left = Vec::new();
            let mut right = Vec::new();
            for i in 0..3 {
                for side in [true, false] {
                    let options = if side {
                        self.arena.left(parts[i]).to_vec()
                    } else {
                        self.arena.right(parts[i]).to_vec()
                    };
                    for o in options {
                        let mut next = parts;
                        next[i] = o;
                        let v = self.pinwheel_memo(next, memo);
                        if side {
                            left.push(v);
                        } else {
                            right.push(v);
                        }
                    }
                }
            }
            self.arena.simplify(left, right)
        };
        memo.insert(parts, g);
        g
    }

    /// One round: the pinwheel of every three values with at least one
    /// from the last round (the others were composed before), one
    /// rotation of each triple (rotating the components renumbers the
    /// outer terminals, which the closure adds), then the closure.
    pub fn round(&mut self) -> Result<RoundReport, LocalError> {
        self.round_with(&mut |_, _| {})
    }

    /// [`Database::round`], calling `progress(done, of)` as the first
    /// components of the triples go by.
    pub fn round_with(
        &mut self,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<RoundReport, LocalError> {
        let round = self.counts.len();
        if round == 0 {
            return Err(LocalError::Database(
                "seed the database before its rounds".into(),
            ));
        }
        let start = Instant::now();
        let old = if round >= 2 {
            self.counts[round - 2]
        } else {
            0
        };
        let n = self.entries.len();
        let first_new = n;
        let mut pinwheels = 0u64;
        let mut memo = FxHashMap::default();
        for i in 0..n {
            for j in i..n {
                for k in i..n {
                    // Triples of old values only were composed before;
                    // a rotation putting a smaller index first is
                    // composed as that rotation.
                    if (i < old && j < old && k < old) || (k == i && j > i) {
                        continue;
                    }
                    let parts = [i, j, k].map(|e| self.entries[e].value);
                    let g = self.pinwheel_memo(parts, &mut memo);
                    pinwheels += 1;
                    self.add(g, round, Origin::Pinwheel([i, j, k]));
                }
            }
            // The memo holds subgames of compositions with i first.
            memo.clear();
            progress(i + 1, n);
        }
        self.close(first_new, round);
        self.counts.push(self.entries.len());
        Ok(RoundReport {
            round,
            pinwheels,
            values: self.entries.len(),
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// The canonical form of the value `text`, in the database's arena.
    pub fn parse(&mut self, text: &str) -> Result<GameId, LocalError> {
        let g = self.arena.parse(text)?;
        Ok(self.arena.canonical(g))
    }

    /// The entry holding the value `text` (any form: it is reduced to
    /// canonical form first).
    pub fn lookup(&mut self, text: &str) -> Result<Option<&Entry>, LocalError> {
        let g = self.parse(text)?;
        Ok(self.index.get(&g).map(|&i| &self.entries[i]))
    }

    /// How entry `i` is built, as an expression over the seeds.
    pub fn recipe(&self, i: usize) -> String {
        match &self.entries[i].origin {
            Origin::Seed(name) => name.clone(),
            Origin::Renumbered(p, e) => format!(
                "renumber[{}{}{}]({})",
                p[0] + 1,
                p[1] + 1,
                p[2] + 1,
                self.recipe(*e)
            ),
            Origin::Dual(e) => format!("dual({})", self.recipe(*e)),
            Origin::Pinwheel([x, y, z]) => format!(
                "pinwheel({}, {}, {})",
                self.recipe(*x),
                self.recipe(*y),
                self.recipe(*z)
            ),
        }
    }

    /// The database as text: a header, one line a value (`v INDEX ROUND
    /// ATOMS ORIGIN | VALUE`), and a checksum of everything before it.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{HEADER}");
        let _ = writeln!(out, "max-atoms {}", self.max_atoms);
        for (r, c) in self.counts.iter().enumerate() {
            let _ = writeln!(out, "round {r} {c}");
        }
        for (i, e) in self.entries.iter().enumerate() {
            let origin = match &e.origin {
                Origin::Seed(name) => format!("seed {name}"),
                Origin::Renumbered(p, x) => {
                    format!("renumber {}{}{} {x}", p[0] + 1, p[1] + 1, p[2] + 1)
                }
                Origin::Dual(x) => format!("dual {x}"),
                Origin::Pinwheel([x, y, z]) => format!("pinwheel {x} {y} {z}"),
            };
            let _ = writeln!(
                out,
                "v {i} {} {} {origin} | {}",
                e.round,
                e.atoms,
                self.arena.display(e.value)
            );
        }
        let sum = checksum(&out);
        let _ = writeln!(out, "checksum {sum:016x}");
        out
    }

    /// Reads [`Database::to_text`]'s text back, checking the checksum,
    /// that every value is canonical and new, and that every origin names
    /// an earlier entry; errors name the line.
    pub fn from_text(text: &str) -> Result<Self, LocalError> {
        let err = |line: usize, msg: String| LocalError::Database(format!("line {line}: {msg}"));
        let body_end = text.rfind("checksum ").ok_or_else(|| {
            LocalError::Database(
                "no checksum line: the file is cut short or no value database".into(),
            )
        })?;
        let body = &text[..body_end];
        let stated = text[body_end + "checksum ".len()..].trim();
        let computed = format!("{:016x}", checksum(body));
        if stated != computed {
            return Err(LocalError::Database(format!(
                "checksum {stated} does not match the contents ({computed}): the file was changed or damaged"
            )));
        }
        let mut lines = body.lines().enumerate().map(|(i, l)| (i + 1, l));
        match lines.next() {
            Some((_, l)) if l == HEADER => {}
            _ => {
                return Err(err(1, format!("expected '{HEADER}': not a value database")));
            }
        }
        let mut db: Option<Database> = None;
        for (n, line) in lines {
            let (tag, rest) = line.split_once(' ').unwrap_or((line, ""));
            match tag {
                "max-atoms" if db.is_none() => {
                    let m = rest
                        .parse()
                        .map_err(|_| err(n, format!("'{rest}' is not a whole number")))?;
                    db = Some(Database::new(m));
                }
                "round" => {
                    let d = db
                        .as_mut()
                        .ok_or_else(|| err(n, "a round before max-atoms".into()))?;
                    let count = rest
                        .split_whitespace()
                        .nth(1)
                        .and_then(|c| c.parse().ok())
                        .ok_or_else(|| err(n, "expected 'round R COUNT'".into()))?;
                    d.counts.push(count);
                }
                "v" => {
                    let d = db
                        .as_mut()
                        .ok_or_else(|| err(n, "a value before max-atoms".into()))?;
                    d.read_entry(rest).map_err(|m| err(n, m))?;
                }
                _ => {
                    return Err(err(
                        n,
                        format!("'{tag}' starts no line of a value database (max-atoms, round, v)"),
                    ));
                }
            }
        }
        let d = db.ok_or_else(|| err(2, "no max-atoms line".into()))?;
        if d.counts.last() != Some(&d.entries.len()) {
            return Err(LocalError::Database(format!(
                "the rounds count {:?} values, the file holds {}",
                d.counts.last(),
                d.entries.len()
            )));
        }
        Ok(d)
    }

    fn read_entry(&mut self, rest: &str) -> Result<(), String> {
        let (head, value) = rest
            .split_once(" | ")
            .ok_or("expected 'v INDEX ROUND ATOMS ORIGIN | VALUE'")?;
        let words: Vec<&str> = head.split_whitespace().collect();
        let num = |i: usize| -> Result<usize, String> {
            words
                .get(i)
                .and_then(|w| w.parse().ok())
                .ok_or_else(|| format!("expected a whole number as word {} of '{head}'", i + 1))
        };
        let (index, round, atoms) = (num(0)?, num(1)?, num(2)? as u64);
        if index != self.entries.len() {
            return Err(format!(
                "value {index} where {} comes next",
                self.entries.len()
            ));
        }
        let earlier = |i: usize| -> Result<usize, String> {
            let e = num(i)?;
            if e >= index {
                return Err(format!(
                    "value {index} is made of value {e}, not an earlier one"
                ));
            }
            Ok(e)
        };
        let origin = match words.get(3).copied() {
            Some("seed") => Origin::Seed(words[4..].join(" ")),
            Some("dual") => Origin::Dual(earlier(4)?),
            Some("pinwheel") => Origin::Pinwheel([earlier(4)?, earlier(5)?, earlier(6)?]),
            Some("renumber") => {
                let p = words.get(4).copied().unwrap_or_default();
                let perm = PERMUTATIONS
                    .iter()
                    .find(|q| format!("{}{}{}", q[0] + 1, q[1] + 1, q[2] + 1) == p)
                    .ok_or_else(|| format!("'{p}' is no order of the terminals 1, 2, 3"))?;
                Origin::Renumbered(*perm, earlier(5)?)
            }
            other => {
                return Err(format!(
                    "origin '{}' is none of seed, renumber, dual, pinwheel",
                    other.unwrap_or_default()
                ));
            }
        };
        let g = self.arena.parse(value).map_err(|e| e.to_string())?;
        if self.arena.canonical(g) != g {
            return Err(format!("{value} is not in canonical form"));
        }
        if self.index.contains_key(&g) {
            return Err(format!("{value} is in the database twice"));
        }
        if self.atoms(g) != atoms {
            return Err(format!("{value} has {} atoms, not {atoms}", self.atoms(g)));
        }
        self.push(g, round, atoms, origin);
        Ok(())
    }
}

/// The first line of a database file, naming its format and version.
pub const HEADER: &str = "darkhex value database 1 (3-terminal values over p3)";

/// FNV-1a, 64 bits: enough to catch a damaged or hand-edited file.
fn checksum(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The outcome of a pinwheel whose components ended in atoms x, y, z:
/// which outer terminals the components' joinings connect.
pub fn pinwheel_outcome(parts: [Atom; 3]) -> Atom {
    // Nodes: outer terminals O1-O3 are 0-2, inner nodes X1-X3 are 3-5.
    let mut parent = [0usize, 1, 2, 3, 4, 5];
    fn find(p: &mut [usize; 6], x: usize) -> usize {
        let mut x = x;
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let join = |p: &mut [usize; 6], x: usize, y: usize| {
        let (rx, ry) = (find(p, x), find(p, y));
        p[rx] = ry;
    };
    for (i, &atom) in parts.iter().enumerate() {
        // Component i's terminals 1, 2, 3: X_i, X_{i+1}, O_i.
        let t = [3 + i, 3 + (i + 1) % 3, i];
        let pairs: &[(usize, usize)] = match atom {
            1 => &[(1, 2)],
            2 => &[(0, 2)],
            3 => &[(0, 1)],
            TOP => &[(0, 1), (1, 2)],
            _ => &[],
        };
        for &(x, y) in pairs {
            join(&mut parent, t[x], t[y]);
        }
    }
    let r: Vec<usize> = (0..3).map(|o| find(&mut parent, o)).collect();
    match (r[1] == r[2], r[0] == r[2], r[0] == r[1]) {
        (true, true, _) | (true, _, true) | (_, true, true) => TOP,
        (true, false, false) => 1,
        (false, true, false) => 2,
        (false, false, true) => 3,
        (false, false, false) => BOT,
    }
}

/// The seed regions shipped with the crate (`local/seeds/`): one cell
/// touching two terminals, one touching three, and Demer and Selinger's
/// Figure 9.
pub fn default_seeds() -> Result<Vec<(String, Region)>, LocalError> {
    [
        (
            "one-cell-two-terminals",
            include_str!("../seeds/one-cell-two-terminals.region"),
        ),
        (
            "one-cell-three-terminals",
            include_str!("../seeds/one-cell-three-terminals.region"),
        ),
        ("figure9", include_str!("../seeds/figure9.region")),
    ]
    .into_iter()
    .map(|(name, text)| Ok((name.to_string(), Region::parse(text)?)))
    .collect()
}
