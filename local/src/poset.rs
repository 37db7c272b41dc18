//! Finite outcome posets: the atoms a region's completions are worth, and
//! their order (Demer and Selinger, section 3.1).

use crate::LocalError;

/// An atom of a poset: an index into its elements.
pub type Atom = u8;

/// Which black terminals of a filled 2- or 3-terminal region are joined,
/// before a poset identifies any of them. `A` joins 2-3, `B` joins 1-3,
/// `C` joins 1-2 (the paper's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Connection {
    None,
    A,
    B,
    C,
    All,
}

/// A finite partial order (a preorder is allowed: atoms equivalent under it
/// compare equal both ways) with named elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Poset {
    name: String,
    names: Vec<String>,
    /// `le[x][y]`: x <= y.
    le: Vec<Vec<bool>>,
    /// The atom each [`Connection`] is worth, for posets of regions.
    connection: [Atom; 5],
}

const BOT: &str = "⊥";
const TOP: &str = "⊤";

impl Poset {
    /// A poset from element names and the pairs x <= y it must contain;
    /// the reflexive-transitive closure is taken.
    pub fn new(name: &str, names: &[&str], pairs: &[(usize, usize)]) -> Result<Self, LocalError> {
        let n = names.len();
        if n == 0 || n > Atom::MAX as usize {
            return Err(LocalError::Poset(format!(
                "a poset has 1 to {} elements, not {n}",
                Atom::MAX
            )));
        }
        let mut le = vec![vec![false; n]; n];
        for (x, row) in le.iter_mut().enumerate() {
            row[x] = true;
        }
        for &(x, y) in pairs {
            if x >= n || y >= n {
                return Err(LocalError::Poset(format!(
                    "pair ({x}, {y}) names no element"
                )));
            }
            le[x][y] = true;
        }
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    if le[i][k] && le[k][j] {
                        le[i][j] = true;
                    }
                }
            }
        }
        Ok(Poset {
            name: name.to_string(),
            names: names.iter().map(|s| s.to_string()).collect(),
            le,
            connection: [0; 5],
        })
    }

    /// Two terminals: ⊥ (not joined) < ⊤ (joined).
    pub fn boolean() -> Self {
        let mut p = Self::new("boolean", &[BOT, TOP], &[(0, 1)]).expect("valid poset");
        p.connection = [0, 0, 0, 0, 1];
        p
    }

    /// P3 = {⊥, a, b, c, ⊤}: ⊥ below three incomparable atoms below ⊤.
    pub fn p3() -> Self {
        let mut p = Self::new(
            "p3",
            &[BOT, "a", "b", "c", TOP],
            &[(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4)],
        )
        .expect("valid poset");
        p.connection = [0, 1, 2, 3, 4];
        p
    }

    /// A corner: P3 with c <= a (Demer and Selinger, Figure 10a).
    pub fn corner() -> Self {
        let mut p = Self::new(
            "corner",
            &[BOT, "a", "b", "c", TOP],
            &[(0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4), (3, 1)],
        )
        .expect("valid poset");
        p.connection = [0, 1, 2, 3, 4];
        p
    }

    /// A fork: c is worth ⊥ (White's two edges are joined), so the poset is
    /// the quotient {⊥, a, b, ⊤} (Demer and Selinger, Figure 10b).
    pub fn fork() -> Self {
        let mut p = Self::new(
            "fork",
            &[BOT, "a", "b", TOP],
            &[(0, 1), (0, 2), (1, 3), (2, 3)],
        )
        .expect("valid poset");
        p.connection = [0, 1, 2, 0, 3];
        p
    }

    /// The named poset of regions: boolean, p3, corner or fork.
    pub fn by_name(name: &str) -> Result<Self, LocalError> {
        match name {
            "boolean" => Ok(Self::boolean()),
            "p3" => Ok(Self::p3()),
            "corner" => Ok(Self::corner()),
            "fork" => Ok(Self::fork()),
            _ => Err(LocalError::Poset(format!(
                "unknown poset '{name}': accepted boolean, p3, corner, fork"
            ))),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn le(&self, x: Atom, y: Atom) -> bool {
        self.le[x as usize][y as usize]
    }

    pub fn atom_name(&self, x: Atom) -> &str {
        &self.names[x as usize]
    }

    /// The atom named `name`; `top`/`T` and `bot`/`F` stand for ⊤ and ⊥.
    pub fn atom(&self, name: &str) -> Option<Atom> {
        let name = match name {
            "top" | "T" => TOP,
            "bot" | "F" => BOT,
            other => other,
        };
        self.names.iter().position(|n| n == name).map(|i| i as Atom)
    }

    /// The atom a filled region with these joined terminals is worth.
    pub fn of_connection(&self, c: Connection) -> Atom {
        let i = match c {
            Connection::None => 0,
            Connection::A => 1,
            Connection::B => 2,
            Connection::C => 3,
            Connection::All => 4,
        };
        self.connection[i]
    }

    pub fn atoms(&self) -> impl Iterator<Item = Atom> {
        (0..self.names.len()).map(|i| i as Atom)
    }
}
