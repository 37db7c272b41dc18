//! Templates and their probes: is a region a second-player connection for
//! Black, and which White intrusions (probes) into its carrier can never
//! be White's only winning move (Demer and Selinger, section 7.4).
//!
//! A template sits in an unknown board, so its outcome is not just which
//! of its terminals Black joined: every cell outside the diagram that
//! touches an empty cell (a *context cell*) may be used by either player
//! later. The outcome of a filled carrier is therefore the partition of
//! the *boundary nodes* (each terminal, each group of other black stones,
//! each context cell) into the sets Black's stones in the carrier join,
//! ordered by refinement: a coarser partition is better for Black in every
//! board. The rest of the board is then a monotone map from these
//! partitions (and its own cells) to a win, so G <= H over this poset
//! means H is at least as good for Black as G in every board. Boards are
//! planar and not every monotone map is one, so the relation can miss a
//! domination that holds in Hex; what it proves holds.
//!
//! The two rules (with G the region's form, G^Rx the form after White's
//! probe x, G^{x,y} after White x and Black y):
//!
//! - probe x is *dominated* by probe q when G^Rq <= G^Rx: wherever x wins
//!   for White, q does. Probes with equivalent forms are reported
//!   equivalent: either can be dropped, not both.
//! - probe x is *strongly reversed* by Black's reply y when G <= G^{x,y}
//!   and every right option K of (the canonical form of) G^{x,y} has some
//!   probe w != x with G^Rw <= K. Then in any board where White wins with
//!   x, Black's reply y leaves White a winning move, which is either
//!   outside the template (winning before x too, since G <= G^{x,y}) or a
//!   move K inside it, and then w wins before x. So White had a winning
//!   move other than x: Demer and Selinger's definition ("there exists a
//!   black response y so that if White has a winning move in the
//!   resulting position, then White already had a winning move other than
//!   x"), proved by this local sufficient condition.

use std::time::Instant;

use rustc_hash::FxHashMap;

use crate::LocalError;
use crate::expansion::{self, Limits, SizeEstimate, unlimited};
use crate::form::{Arena, GameId, table_bytes};
use crate::poset::{Atom, Poset};
use crate::region::{Region, hex_neighbours};

/// Empty cells a template may have: the outcome of every colouring is
/// tabulated (2^n of them) and the game tree has up to 3^n positions.
pub const MAX_TEMPLATE_CELLS: usize = 16;

/// Memory a template's analysis holds per position it stores (the table
/// of positions, the forms and their relations): its peak resident
/// memory over the positions stored was 44 to 79 bytes on parallelograms
/// of 12 to 15 cells with up to 438 distinct forms. Templates of many
/// outcomes have many forms, and the relations between them can take
/// ten times as much (918 bytes a position on a 12-cell parallelogram of
/// 74 outcomes and 38,154 forms): the memory limit counts them as the
/// analysis runs.
pub const BYTES_PER_POSITION: f64 = 80.0;

/// Boundary nodes a template may have (partitions are sets of 32-bit masks).
pub const MAX_NODES: usize = 32;

/// A boundary node: stones (a terminal, or a group of other black stones)
/// or a context cell, with the region cells it touches.
#[derive(Clone, Debug)]
struct Node {
    name: String,
    /// Region cells that belong to the node (stones), or that touch it
    /// (a context cell).
    cells: u128,
    stones: bool,
    /// A context cell's position (unused for stones).
    position: (isize, isize),
    /// For a context cell: the stone nodes next to it (a mask of nodes).
    stone_nb: u32,
}

/// A partition of the boundary nodes: its blocks of two or more nodes, as
/// node masks, sorted.
type Partition = Vec<u32>;

/// What `darkhex template` reports about one probe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The probed cell's name.
    pub cell: String,
    /// Probes at least as good for White, and not equivalent.
    pub dominated_by: Vec<String>,
    /// Probes with an equivalent form.
    pub equivalent_to: Vec<String>,
    /// Black replies that strongly reverse the probe.
    pub reversed_by: Vec<String>,
}

impl Probe {
    /// Never White's only winning move (equivalence counts: one of two
    /// equivalent probes is never the only winning one, though not both
    /// may be dropped).
    pub fn is_inferior(&self) -> bool {
        !(self.dominated_by.is_empty()
            && self.equivalent_to.is_empty()
            && self.reversed_by.is_empty())
    }
}

/// A template's analysis.
#[derive(Clone, Debug)]
pub struct TemplateReport {
    /// Black joins all terminals with White moving first, whatever the
    /// context cells are.
    pub is_template: bool,
    pub empty_cells: usize,
    pub terminals: u8,
    pub context_cells: usize,
    /// Distinct outcomes (partitions) the carrier's colourings give.
    pub outcomes: usize,
    pub probes: Vec<Probe>,
    /// Positions expanded and forms stored.
    pub positions: usize,
    pub forms: usize,
    pub seconds: f64,
}

/// A region seen as a template in an unknown board.
pub struct Template {
    region: Region,
    nodes: Vec<Node>,
    /// Atom (index into the outcome poset) of every colouring of the
    /// carrier, by its mask of black empty cells.
    outcome: Vec<Atom>,
    /// Per atom: all terminals in one block (Black's goal).
    goal: Vec<bool>,
    poset: Poset,
}

impl Template {
    /// The template of a region: its boundary nodes, the outcome of every
    /// colouring and the outcome poset.
    pub fn new(region: Region) -> Result<Self, LocalError> {
        let n = region.empty.len();
        if n > MAX_TEMPLATE_CELLS {
            return Err(LocalError::Region(format!(
                "{n} empty cells: a template has at most {MAX_TEMPLATE_CELLS}"
            )));
        }
        let nodes = boundary_nodes(&region);
        if nodes.len() > MAX_NODES {
            return Err(LocalError::Region(format!(
                "{} boundary nodes (terminals, stone groups and cells outside touching the carrier): at most {MAX_NODES}",
                nodes.len()
            )));
        }
        let mut atoms: FxHashMap<Partition, Atom> = FxHashMap::default();
        let mut partitions: Vec<Partition> = Vec::new();
        let mut outcome = Vec::with_capacity(1 << n);
        for black in 0..(1u64 << n) {
            let p = partition(&region, &nodes, black);
            let next = partitions.len();
            let atom = match atoms.get(&p) {
                Some(&a) => a,
                None => {
                    if next > Atom::MAX as usize - 1 {
                        return Err(LocalError::Region(format!(
                            "the carrier's colourings give more than {} distinct outcomes: too large a template",
                            Atom::MAX
                        )));
                    }
                    atoms.insert(p.clone(), next as Atom);
                    partitions.push(p);
                    next as Atom
                }
            };
            outcome.push(atom);
        }
        let terminals: u32 = nodes
            .iter()
            .enumerate()
            .take(region.terminals as usize)
            .fold(0, |m, (i, _)| m | 1 << i);
        let goal = partitions
            .iter()
            .map(|p| p.iter().any(|&b| b & terminals == terminals))
            .collect();
        let names: Vec<String> = partitions.iter().map(|p| name(&nodes, p)).collect();
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut pairs = Vec::new();
        for (i, p) in partitions.iter().enumerate() {
            for (j, q) in partitions.iter().enumerate() {
                if i != j && refines(&nodes, p, q) {
                    pairs.push((i, j));
                }
            }
        }
        let poset = Poset::new("partitions", &name_refs, &pairs)?;
        Ok(Template {
            region,
            nodes,
            outcome,
            goal,
            poset,
        })
    }

    pub fn region(&self) -> &Region {
        &self.region
    }

    /// The outcome poset: the partitions of the boundary nodes the
    /// carrier's colourings give, by refinement.
    pub fn poset(&self) -> &Poset {
        &self.poset
    }

    /// Context cells: positions outside the region touching an empty cell.
    pub fn context_cells(&self) -> usize {
        self.nodes.iter().filter(|n| !n.stones).count()
    }

    /// The context cells' (row, column) positions in the diagram's
    /// coordinates, in reading order.
    pub fn context_positions(&self) -> Vec<(isize, isize)> {
        self.nodes
            .iter()
            .filter(|n| !n.stones)
            .map(|n| n.position)
            .collect()
    }

    /// The outcome (an atom of [`Template::poset`]) of the carrier filled
    /// with the empty cells of `black` (a mask over the empty cells, in
    /// reading order) black and the others white.
    pub fn outcome(&self, black: u64) -> Atom {
        self.outcome[black as usize]
    }

    /// A fresh arena over the template's outcome poset.
    pub fn arena(&self) -> Arena {
        Arena::new(self.poset.clone())
    }

    /// The canonical form of the position with the empty cells of `black`
    /// and `white` (masks over the empty cells) taken, in `arena` (from
    /// [`Template::arena`]).
    pub fn form(&self, arena: &mut Arena, black: u64, white: u64) -> GameId {
        let mut memo = FxHashMap::default();
        unlimited(self.expand(arena, black, white, &mut memo, &Limits::default()))
    }

    /// What [`Template::analyse`] will store, estimated before it starts:
    /// its positions are the set R of [`crate::expansion`] (and the
    /// probes' positions, one or two stones, in R unless the empty
    /// template is settled), so the estimate has only the walks' error.
    pub fn estimate(&self) -> SizeEstimate {
        let (positions, std_error) = expansion::estimate(
            self.region.empty.len(),
            |black, white| self.settled(black, white),
            |_, _| 0,
        );
        SizeEstimate {
            positions,
            std_error,
            bytes: positions * BYTES_PER_POSITION,
        }
    }

    /// The analysis: template or not, and every probe's status.
    pub fn analyse(&self) -> TemplateReport {
        unlimited(self.analyse_within(&Limits::default()))
    }

    /// [`Template::analyse`], reporting progress and stopping with
    /// [`LocalError::OverLimit`] past the limits' memory.
    pub fn analyse_within(&self, limits: &Limits) -> Result<TemplateReport, LocalError> {
        let start = Instant::now();
        let mut arena = Arena::new(self.poset.clone());
        let mut memo = FxHashMap::default();
        let n = self.region.empty.len();
        let g = self.expand(&mut arena, 0, 0, &mut memo, limits)?;
        let mut wins = FxHashMap::default();
        let is_template = self.right_first_wins(&arena, g, &mut wins);
        let probe = (0..n)
            .map(|x| self.expand(&mut arena, 0, 1 << x, &mut memo, limits))
            .collect::<Result<Vec<GameId>, _>>()?;
        let names = self.region.cell_names().to_vec();
        let mut probes = Vec::with_capacity(n);
        for x in 0..n {
            let mut report = Probe {
                cell: names[x].clone(),
                dominated_by: Vec::new(),
                equivalent_to: Vec::new(),
                reversed_by: Vec::new(),
            };
            for q in (0..n).filter(|&q| q != x) {
                if arena.le(probe[q], probe[x]) {
                    if arena.le(probe[x], probe[q]) {
                        report.equivalent_to.push(names[q].clone());
                    } else {
                        report.dominated_by.push(names[q].clone());
                    }
                }
            }
            for y in (0..n).filter(|&y| y != x) {
                let xy = self.expand(&mut arena, 1 << y, 1 << x, &mut memo, limits)?;
                if !arena.le(g, xy) {
                    continue;
                }
                let rights = arena.right(xy).to_vec();
                let reversed = rights
                    .into_iter()
                    .all(|k| (0..n).filter(|&w| w != x).any(|w| arena.le(probe[w], k)));
                if reversed {
                    report.reversed_by.push(names[y].clone());
                }
            }
            probes.push(report);
        }
        Ok(TemplateReport {
            is_template,
            empty_cells: n,
            terminals: self.region.terminals,
            context_cells: self.context_cells(),
            outcomes: self.poset.len(),
            probes,
            positions: memo.len(),
            forms: arena.len(),
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// Which probes are viable (Demer and Selinger, Definition 7.1): with
    /// G the region's form and H the same game where White may not open
    /// with the probe (later moves there stay allowed), G < H. When G = H,
    /// every board around this region, with any stones in any of its
    /// context cells later, gives White the same outcome with and without
    /// the probe as a first move, so the probe is never White's only
    /// winning move there. A region of one empty cell has no game without
    /// its only White move, so its probe counts as viable.
    pub fn viable_probes(&self) -> Vec<bool> {
        let n = self.region.empty.len();
        if n < 2 {
            return vec![true; n];
        }
        let mut arena = self.arena();
        let mut memo = FxHashMap::default();
        let mut expand = |black, white| {
            unlimited(self.expand(&mut arena, black, white, &mut memo, &Limits::default()))
        };
        let g = expand(0, 0);
        let left: Vec<GameId> = (0..n).map(|i| expand(1 << i, 0)).collect();
        let right: Vec<GameId> = (0..n).map(|i| expand(0, 1 << i)).collect();
        (0..n)
            .map(|x| {
                let others = (0..n).filter(|&i| i != x).map(|i| right[i]).collect();
                let h = arena.simplify(left.clone(), others);
                !arena.le(h, g)
            })
            .collect()
    }

    /// The form of the position with these black and white empty cells,
    /// canonical, built once per position.
    fn expand(
        &self,
        arena: &mut Arena,
        black: u64,
        white: u64,
        memo: &mut FxHashMap<(u64, u64), GameId>,
        limits: &Limits,
    ) -> Result<GameId, LocalError> {
        if let Some(&g) = memo.get(&(black, white)) {
            return Ok(g);
        }
        let free = self.region.free_mask() & !(black | white);
        let g = if self.settled(black, white) {
            arena.atom(self.outcome[black as usize])
        } else {
            let mut left = Vec::new();
            let mut right = Vec::new();
            let mut rest = free;
            while rest != 0 {
                let bit = rest & rest.wrapping_neg();
                rest &= rest - 1;
                left.push(self.expand(arena, black | bit, white, memo, limits)?);
                right.push(self.expand(arena, black, white | bit, memo, limits)?);
            }
            arena.simplify(left, right)
        };
        memo.insert((black, white), g);
        limits.stored(memo.len(), arena, || {
            table_bytes::<((u64, u64), GameId)>(memo.capacity())
        })?;
        Ok(g)
    }

    /// Every completion has the outcome of the position's black cells
    /// (the outcome is monotone, so comparing the extremes tells).
    fn settled(&self, black: u64, white: u64) -> bool {
        let free = self.region.free_mask() & !(black | white);
        let low = self.outcome[black as usize];
        let high = self.outcome[(black | free) as usize];
        self.poset.le(high, low)
    }

    /// Black reaches the goal in G with White moving first, read off the
    /// form: the context cells all White.
    fn right_first_wins(
        &self,
        arena: &Arena,
        g: GameId,
        memo: &mut FxHashMap<GameId, bool>,
    ) -> bool {
        self.wins(arena, g, false, memo)
    }

    fn wins(
        &self,
        arena: &Arena,
        g: GameId,
        black_first: bool,
        memo: &mut FxHashMap<GameId, bool>,
    ) -> bool {
        if let Some(a) = arena.as_atom(g) {
            return self.goal[a as usize];
        }
        // Keyed by the form and whose move (the id's top bit).
        let key = GameId(g.0 | if black_first { 1 << 31 } else { 0 });
        if let Some(&v) = memo.get(&key) {
            return v;
        }
        let v = if black_first {
            arena
                .left(g)
                .iter()
                .any(|&o| self.wins(arena, o, false, memo))
        } else {
            arena
                .right(g)
                .iter()
                .all(|&o| self.wins(arena, o, true, memo))
        };
        memo.insert(key, v);
        v
    }
}

/// The boundary nodes: the terminals (in order), groups of other black
/// stones, then the context cells in reading order.
fn boundary_nodes(region: &Region) -> Vec<Node> {
    let mut nodes = Vec::new();
    for t in 0..region.terminals as usize {
        nodes.push(Node {
            name: (t + 1).to_string(),
            cells: region.term[t],
            stones: true,
            position: (0, 0),
            stone_nb: 0,
        });
    }
    let terminal_stones = region.term.iter().fold(0, |m, &t| m | t);
    let mut rest = region.fixed_black & !terminal_stones;
    while rest != 0 {
        let seed = rest & rest.wrapping_neg();
        let group = region.flood(seed, region.fixed_black & !terminal_stones);
        rest &= !group;
        let (r, c) = region.coords[seed.trailing_zeros() as usize];
        nodes.push(Node {
            name: format!("B{}", cell_label(r as isize, c as isize)),
            cells: group,
            stones: true,
            position: (0, 0),
            stone_nb: 0,
        });
    }
    let index: FxHashMap<(isize, isize), usize> = region
        .coords
        .iter()
        .enumerate()
        .map(|(i, &(r, c))| ((r as isize, c as isize), i))
        .collect();
    let mut context: Vec<((isize, isize), u128)> = Vec::new();
    for &cell in &region.empty {
        let (r, c) = region.coords[cell];
        let (r, c) = (r as isize, c as isize);
        for pos in hex_neighbours(r, c) {
            if index.contains_key(&pos) {
                continue;
            }
            match context.iter_mut().find(|(p, _)| *p == pos) {
                Some(entry) => entry.1 |= 1u128 << cell,
                None => context.push((pos, 1u128 << cell)),
            }
        }
    }
    context.sort_unstable_by_key(|&(p, _)| p);
    let stone_nodes = nodes.len();
    for ((r, c), cells) in context {
        let around = hex_neighbours(r, c)
            .iter()
            .filter_map(|p| index.get(p))
            .fold(0u128, |m, &i| m | 1u128 << i);
        let stone_nb = nodes[..stone_nodes]
            .iter()
            .enumerate()
            .filter(|(_, n)| n.cells & around != 0)
            .fold(0u32, |m, (i, _)| m | 1 << i);
        nodes.push(Node {
            name: cell_label(r, c),
            cells,
            stones: false,
            position: (r, c),
            stone_nb,
        });
    }
    nodes
}

/// A position's label, row and column from 0 as in the diagram.
fn cell_label(r: isize, c: isize) -> String {
    format!("({r},{c})")
}

/// The partition of the boundary nodes joined by the black cells when the
/// empty cells of `black` are black.
fn partition(region: &Region, nodes: &[Node], black: u64) -> Partition {
    let black_cells = region.fixed_black | region.cells_of(black);
    let mut blocks: Vec<u32> = Vec::new();
    let mut rest = black_cells;
    while rest != 0 {
        let comp = region.flood(rest & rest.wrapping_neg(), black_cells);
        rest &= !comp;
        let block = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.cells & comp != 0)
            .fold(0u32, |m, (i, _)| m | 1 << i);
        if block != 0 {
            blocks.push(block);
        }
    }
    // A terminal's stones are joined outside: merge blocks sharing a node.
    let mut i = 0;
    while i < blocks.len() {
        let mut j = i + 1;
        while j < blocks.len() {
            if blocks[i] & blocks[j] != 0 {
                let b = blocks.swap_remove(j);
                blocks[i] |= b;
                j = i + 1;
            } else {
                j += 1;
            }
        }
        i += 1;
    }
    // A context cell next to a stone of its block is joined to the block
    // by that stone whenever it is black: its membership says nothing.
    for b in &mut blocks {
        let block = *b;
        for (i, n) in nodes.iter().enumerate() {
            if block >> i & 1 == 1 && n.stone_nb & block != 0 {
                *b &= !(1 << i);
            }
        }
    }
    blocks.retain(|b| b.count_ones() >= 2);
    blocks.sort_unstable();
    blocks
}

/// P <= Q: in every board, the black connections P makes Q makes too.
/// Each block of P lies in a block of Q, widened by the context cells
/// next to its stones (joined to them whenever black).
fn refines(nodes: &[Node], p: &Partition, q: &Partition) -> bool {
    p.iter().all(|&b| {
        q.iter().any(|&c| {
            let wide = nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.stone_nb & c != 0)
                .fold(c, |m, (i, _)| m | 1 << i);
            b & wide == b
        })
    })
}

fn name(nodes: &[Node], p: &Partition) -> String {
    if p.is_empty() {
        return "none joined".into();
    }
    p.iter()
        .map(|&b| {
            let members: Vec<&str> = (0..nodes.len())
                .filter(|&i| b >> i & 1 == 1)
                .map(|i| nodes[i].name.as_str())
                .collect();
            format!("{{{}}}", members.join(" "))
        })
        .collect::<Vec<_>>()
        .join(" ")
}
