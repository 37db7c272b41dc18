//! Inferior cells of a Hex position (Henderson and Hayward, "Probing the
//! 4-3-2 edge template in Hex"; Björnsson, Hayward, Johanson and van
//! Rijswijck, "Dead cell analysis in Hex and the Shannon game"): cells whose
//! colour does not matter (dead), sets a player can keep as second player
//! (captured, filled in for the owner), and moves a searcher may skip
//! (vulnerable, capture-dominated). Each rule is one function below with
//! the result it relies on.
//!
//! All of it works on one player's graph: the empty cells, that player's
//! stone groups contracted to single vertices, and the player's two sides;
//! the opponent's stones are gone. A minimal set of empty cells whose
//! colouring joins the player's sides ("minimal connector") is an induced
//! path of that graph.

use darkhex_games::board::{BLACK, WHITE};
use darkhex_games::{CellSet, Geometry};

use super::captured_search::{CaptureCache, is_captured, template_carriers};
use super::position::Stones;

/// One player's stone groups with each side's group first: label 0 is side
/// 0 (with the stones touching it), 1 is side 1, then the other groups.
#[derive(Clone, Debug)]
pub struct GroupMap<const W: usize> {
    player: usize,
    /// The player's stones.
    own: CellSet<W>,
    /// Each cell's group label, `NO_GROUP` for cells without the player's stone.
    label: Vec<u16>,
    /// Each group's stones.
    cells: Vec<CellSet<W>>,
    /// Each group's neighbourhood: its empty neighbours (a side's include the side's empty cells).
    reach: Vec<CellSet<W>>,
    /// Whether the sides are in one group (the player has won).
    joined: bool,
}

const NO_GROUP: u16 = u16::MAX;

impl<const W: usize> GroupMap<W> {
    pub fn new(geom: &Geometry<W>, stones: &Stones<W>, player: usize) -> Self {
        let mut map = GroupMap {
            player,
            own: CellSet::EMPTY,
            label: Vec::new(),
            cells: Vec::new(),
            reach: Vec::new(),
            joined: false,
        };
        map.reset(geom, stones, player);
        map
    }

    /// Recomputes the map for `stones` in place, reusing its memory.
    fn reset(&mut self, geom: &Geometry<W>, stones: &Stones<W>, player: usize) {
        let own = stones[player];
        let empty = geom.all() - stones[0] - stones[1];
        let sides = geom.sides(player);
        let map = self;
        map.player = player;
        map.own = own;
        map.label.clear();
        map.label.resize(geom.cells(), NO_GROUP);
        map.cells.clear();
        map.cells.resize(2, CellSet::EMPTY);
        map.reach.clear();
        map.reach.resize(2, CellSet::EMPTY);
        map.joined = false;
        for (i, side) in sides.iter().enumerate() {
            map.cells[i] = geom.flood(*side & own, own);
        }
        map.joined = map.cells[0].intersects(&map.cells[1]);
        for (i, side) in sides.iter().enumerate() {
            map.reach[i] = (geom.neighbours(map.cells[i]) | *side) & empty;
        }
        let mut left = own - map.cells[0] - map.cells[1];
        while let Some(c) = left.first() {
            let g = geom.flood(CellSet::single(c), left);
            left -= g;
            map.cells.push(g);
            map.reach.push(geom.neighbours(g) & empty);
        }
        for (l, g) in map.cells.iter().enumerate() {
            for c in g.iter() {
                map.label[c] = l as u16;
            }
        }
    }

    /// The one group an empty cell touches (its sides included): `Err`
    /// when it touches two or more, `Ok(None)` when none.
    fn group_at(&self, geom: &Geometry<W>, cell: usize) -> Result<Option<u16>, ()> {
        let mut group = None;
        for (i, side) in geom.sides(self.player).iter().enumerate() {
            if side.contains(cell) {
                if group.is_some_and(|g| g != i as u16) {
                    return Err(());
                }
                group = Some(i as u16);
            }
        }
        for c in (geom.adjacent(cell) & self.own).iter() {
            let l = self.label[c];
            if group.is_some_and(|g| g != l) {
                return Err(());
            }
            group = Some(l);
        }
        Ok(group)
    }
}

/// Rule: a cell whose neighbourhood in the player's graph is a clique is
/// on no induced side-to-side path, so on no minimal connector of that
/// player, and its colour never changes the winner: it is dead
/// (Björnsson et al., dead cell analysis: "simplicial" vertices).
/// When the cell touches exactly one of the player's groups (or sides), a
/// weaker condition is enough: if every empty neighbour also touches that
/// group, a connector entering and leaving the cell could go through the
/// group instead (its stones are always there), so the cell is on no
/// minimal connector either (Benzene's presimplicial test drops such
/// neighbours the same way). `empty` excludes the cell itself.
fn is_simplicial<const W: usize>(
    geom: &Geometry<W>,
    groups: &GroupMap<W>,
    empty: CellSet<W>,
    cell: usize,
) -> bool {
    let Ok(group) = groups.group_at(geom, cell) else {
        return false;
    };
    let near = geom.adjacent(cell) & empty;
    match group {
        Some(l) => near.is_subset(&groups.reach[l as usize]),
        // Empty neighbours pairwise adjacent (on the hex grid: at most two).
        None => near
            .iter()
            .all(|e| near.without(e).is_subset(&geom.adjacent(e))),
    }
}

/// Rule: a cell on no simple path between the player's sides (in the
/// player's graph) is on no minimal connector, hence dead. A vertex lies on
/// a simple s–t path exactly when it shares a biconnected block with the
/// edge s–t once that edge is added; those blocks are found by Tarjan's
/// algorithm. This finds dead regions behind cut cells.
fn off_every_path<const W: usize>(
    geom: &Geometry<W>,
    groups: &GroupMap<W>,
    empty: CellSet<W>,
) -> CellSet<W> {
    if groups.joined {
        return CellSet::EMPTY;
    }
    // Vertices: groups (0, 1 the sides) then empty cells.
    let ng = groups.cells.len();
    let cells: Vec<usize> = empty.iter().collect();
    let mut index = vec![u16::MAX; geom.cells()];
    for (i, &c) in cells.iter().enumerate() {
        index[c] = (ng + i) as u16;
    }
    let v = ng + cells.len();
    let mut edges: Vec<(u16, u16)> = Vec::with_capacity(4 * v);
    for (i, &c) in cells.iter().enumerate() {
        let me = (ng + i) as u16;
        for d in (geom.adjacent(c) & empty).iter() {
            if d > c {
                edges.push((me, index[d]));
            }
        }
    }
    for (l, reach) in groups.reach.iter().enumerate() {
        for c in reach.iter() {
            edges.push((l as u16, index[c]));
        }
    }
    // The added edge between the sides.
    edges.push((0, 1));
    let adj = Adjacency::new(v, &edges);
    let live = block_of_edge(&adj, 0, 1);
    let mut dead = CellSet::EMPTY;
    for (i, &c) in cells.iter().enumerate() {
        if !live[ng + i] {
            dead.insert(c);
        }
    }
    dead
}

/// An undirected graph's neighbour lists in two flat arrays (one
/// allocation each instead of one per vertex: this runs at every position).
struct Adjacency {
    start: Vec<u32>,
    to: Vec<u16>,
}

impl Adjacency {
    fn new(vertices: usize, edges: &[(u16, u16)]) -> Self {
        let mut start = vec![0u32; vertices + 1];
        for &(a, b) in edges {
            start[a as usize + 1] += 1;
            start[b as usize + 1] += 1;
        }
        for i in 0..vertices {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut to = vec![0u16; 2 * edges.len()];
        for &(a, b) in edges {
            to[next[a as usize] as usize] = b;
            next[a as usize] += 1;
            to[next[b as usize] as usize] = a;
            next[b as usize] += 1;
        }
        Adjacency { start, to }
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    fn of(&self, v: usize) -> &[u16] {
        &self.to[self.start[v] as usize..self.start[v + 1] as usize]
    }
}

/// The vertices of the biconnected block that holds the edge `s`–`t`.
fn block_of_edge(adj: &Adjacency, s: usize, t: usize) -> Vec<bool> {
    let n = adj.len();
    let mut disc = vec![0u32; n];
    let mut low = vec![0u32; n];
    let mut time = 1;
    let mut live = vec![false; n];
    let mut edges: Vec<(u16, u16)> = Vec::new();
    // Iterative DFS from s: (vertex, parent, next neighbour index).
    let mut stack: Vec<(usize, usize, usize)> = vec![(s, usize::MAX, 0)];
    disc[s] = time;
    low[s] = time;
    time += 1;
    while let Some(&mut (u, parent, ref mut next)) = stack.last_mut() {
        if *next < adj.of(u).len() {
            let w = adj.of(u)[*next] as usize;
            *next += 1;
            if disc[w] == 0 {
                edges.push((u as u16, w as u16));
                disc[w] = time;
                low[w] = time;
                time += 1;
                stack.push((w, u, 0));
            } else if w != parent && disc[w] < disc[u] {
                edges.push((u as u16, w as u16));
                low[u] = low[u].min(disc[w]);
            }
        } else {
            stack.pop();
            if let Some(&(p, _, _)) = stack.last() {
                low[p] = low[p].min(low[u]);
                if low[u] >= disc[p] {
                    // The edges down to (p, u) form one block.
                    let mut block = Vec::new();
                    while let Some(e) = edges.pop() {
                        block.push(e);
                        if e == (p as u16, u as u16) {
                            break;
                        }
                    }
                    let has_st = block.iter().any(|&(a, b)| {
                        (a as usize == s && b as usize == t) || (a as usize == t && b as usize == s)
                    });
                    if has_st {
                        for (a, b) in block {
                            live[a as usize] = true;
                            live[b as usize] = true;
                        }
                    }
                }
            }
        }
    }
    live
}

/// Rule (Björnsson et al., dead cell analysis: clique cutsets): in one
/// player's graph, a region cut off from the player's sides by a clique (two
/// or three mutually adjacent vertices: empty cells, one group or side) is
/// on no induced side-to-side path, since such a path would enter and leave
/// the region through two vertices of the clique, which are adjacent; so its
/// cells are on no minimal connector, and dead. This finds the pockets that
/// [`off_every_path`] misses, those with two ways in that touch each other.
/// Returns the dead cells found this way for either player.
pub fn clique_cutset_dead<const W: usize>(geom: &Geometry<W>, stones: &Stones<W>) -> CellSet<W> {
    /// A vertex of a player's graph: an empty cell or a group (0 and 1
    /// are the sides).
    #[derive(Clone, Copy, PartialEq)]
    enum Vertex {
        Cell(usize),
        Group(usize),
    }
    let empty = geom.all() - stones[0] - stones[1];
    let mut dead = CellSet::EMPTY;
    for p in [BLACK, WHITE] {
        let groups = GroupMap::new(geom, stones, p);
        if groups.joined {
            return empty;
        }
        let sides = geom.sides(p);
        let open = empty | stones[p];
        let adjacent = |u: Vertex, v: Vertex| match (u, v) {
            (Vertex::Cell(a), Vertex::Cell(b)) => geom.adjacent(a).contains(b),
            (Vertex::Cell(a), Vertex::Group(l)) | (Vertex::Group(l), Vertex::Cell(a)) => {
                groups.reach[l].contains(a)
            }
            // Two groups of one player never touch.
            (Vertex::Group(_), Vertex::Group(_)) => false,
        };
        // The empty cells no side reaches once `clique` is taken out.
        let cut_off = |clique: &[Vertex]| -> CellSet<W> {
            let mut within = open;
            let mut from = [true, true];
            for &v in clique {
                match v {
                    Vertex::Cell(c) => within.remove(c),
                    Vertex::Group(l) => {
                        within -= groups.cells[l];
                        if l < 2 {
                            from[l] = false;
                        }
                    }
                }
            }
            // One flood from both sides at once: it reaches the union of
            // the two floods (this runs for every clique of every position).
            let mut seeds = CellSet::EMPTY;
            for i in 0..2 {
                if from[i] {
                    seeds |= sides[i];
                }
            }
            (within - geom.flood(seeds & within, within)) & empty
        };
        // Every clique of two or three vertices holds an empty cell (two
        // groups never touch): take each empty cell a with one neighbour, or
        // two that touch each other.
        let mut near: Vec<Vertex> = Vec::with_capacity(12);
        for a in empty.iter() {
            near.clear();
            near.extend(
                (geom.adjacent(a) & empty)
                    .iter()
                    .filter(|&b| b > a)
                    .map(Vertex::Cell),
            );
            near.extend(
                (0..groups.cells.len())
                    .filter(|&l| groups.reach[l].contains(a))
                    .map(Vertex::Group),
            );
            for (i, &v) in near.iter().enumerate() {
                dead |= cut_off(&[Vertex::Cell(a), v]);
                for &w in near[i + 1..].iter().filter(|&&w| adjacent(v, w)) {
                    dead |= cut_off(&[Vertex::Cell(a), v, w]);
                }
            }
        }
    }
    dead
}

/// Dead cells: simplicial or off every side-to-side path for either player.
pub fn dead_cells<const W: usize>(geom: &Geometry<W>, stones: &Stones<W>) -> CellSet<W> {
    let empty = geom.all() - stones[0] - stones[1];
    let mut dead = CellSet::EMPTY;
    for p in [BLACK, WHITE] {
        let groups = GroupMap::new(geom, stones, p);
        if groups.joined {
            // The game is over: no cell matters.
            return empty;
        }
        for c in (empty - dead).iter() {
            if is_simplicial(geom, &groups, empty.without(c), c) {
                dead.insert(c);
            }
        }
        dead |= off_every_path(geom, &groups, empty);
    }
    dead
}

/// The empty cells near `cell` that a stone of `player` there would make
/// dead (simplicial for either player), `cell` excluded.
pub fn killed_by<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    cell: usize,
) -> CellSet<W> {
    let others = GroupMap::new(geom, stones, 1 - player);
    let mut own = GroupMap::new(geom, stones, player);
    killed_with(geom, stones, player, cell, &others, &mut own, false)
}

/// [`killed_by`], given the other player's groups before the stone. The
/// stone changes that player's graph only by taking an empty cell away,
/// which no test here reads: each takes the empty cells as an argument.
/// So when no cell is simplicial before the stone (`none_dead`), only the
/// stone's neighbours can turn simplicial in that graph.
#[allow(clippy::too_many_arguments)]
fn killed_with<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    cell: usize,
    others: &GroupMap<W>,
    own: &mut GroupMap<W>,
    none_dead: bool,
) -> CellSet<W> {
    let mut after = *stones;
    after[player].insert(cell);
    let empty = geom.all() - after[0] - after[1];
    own.reset(geom, &after, player);
    let own = &*own;
    if own.joined || others.joined {
        return empty;
    }
    let near = geom.dilate(geom.dilate(CellSet::single(cell))) & empty;
    let mut killed = CellSet::EMPTY;
    let near_others = if none_dead {
        geom.adjacent(cell) & empty
    } else {
        near
    };
    for (groups, near) in [(own, near), (others, near_others)] {
        for c in (near - killed).iter() {
            if is_simplicial(geom, groups, empty.without(c), c) {
                killed.insert(c);
            }
        }
    }
    killed
}

/// Rule (Henderson and Hayward, section 2): a set a player can answer so
/// that each of its cells ends dead or the player's is captured by that
/// player, and colouring it the player's changes no value. A pair of cells
/// each killed by the player's stone on the other is such a set (the edge
/// bridge's carrier is one). `kills[y]` are the cells the player's stone on
/// `y` kills; returns the first such pair.
pub fn captured_pair<const W: usize>(
    empty: CellSet<W>,
    kills: &[CellSet<W>],
) -> Option<(usize, usize)> {
    empty.iter().find_map(|y| {
        kills[y]
            .iter()
            .find(|&x| x < y && kills[x].contains(y))
            .map(|x| (x, y))
    })
}

/// For every empty cell y, the cells `player`'s stone on y kills, in a
/// position without dead cells (with some, a few kills may be missed;
/// every kill reported holds).
pub(crate) fn kills<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
) -> Vec<CellSet<W>> {
    let empty = geom.all() - stones[0] - stones[1];
    let others = GroupMap::new(geom, stones, 1 - player);
    let mut own = GroupMap::new(geom, stones, player);
    let mut k = vec![CellSet::EMPTY; geom.cells()];
    for y in empty.iter() {
        k[y] = killed_with(geom, stones, player, y, &others, &mut own, true);
    }
    k
}

/// What inferior-cell analysis found for one player to move.
#[derive(Clone, Debug)]
pub struct InferiorCells<const W: usize> {
    /// The stones with the fill-in added.
    pub filled: Stones<W>,
    /// The fill-in of each colour: the captured cells of that player, and
    /// the dead cells, given to the opponent of the player to move (their
    /// colour does not matter).
    pub fill: [CellSet<W>; 2],
    pub dead: CellSet<W>,
    /// Empty cells the player to move may skip because an opponent reply
    /// kills them, with one killer each.
    pub vulnerable: Vec<(usize, usize)>,
    /// Empty cells the player to move may skip because a kept cell
    /// capture-dominates them, with that cell.
    pub dominated: Vec<(usize, usize)>,
}

impl<const W: usize> InferiorCells<W> {
    /// Every cell the player to move may leave out of the search.
    pub fn prunable(&self) -> CellSet<W> {
        self.vulnerable
            .iter()
            .chain(&self.dominated)
            .map(|&(c, _)| c)
            .collect()
    }
}

fn someone_joined<const W: usize>(geom: &Geometry<W>, stones: &Stones<W>) -> bool {
    geom.connected(stones[BLACK], BLACK) || geom.connected(stones[WHITE], WHITE)
}

/// Which dominations [`analyse_cached`] looks for among the cells that
/// are not vulnerable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dominations {
    /// Capture-domination (kills and captured pairs) and the acute-corner
    /// 4-3-2 arcs.
    pub capture: bool,
    /// Henderson and Hayward's path-domination ([`path_dominated`]).
    pub path: bool,
    /// Henderson and Hayward's neighbourhood-domination
    /// ([`neighbour_dominated`]).
    pub neighbour: bool,
}

impl Dominations {
    pub const ALL: Self = Dominations {
        capture: true,
        path: true,
        neighbour: true,
    };
}

/// Fill-in to a fixpoint (dead cells, then captured pairs of either
/// player), then the vulnerable and dominated cells of `to_move`.
pub fn analyse<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    to_move: usize,
) -> InferiorCells<W> {
    analyse_cached(
        geom,
        stones,
        to_move,
        Some(&mut CaptureCache::new()),
        Dominations::ALL,
    )
}

/// [`analyse`], remembering in `cache` which template carriers were found
/// captured (a searcher keeps one cache per thread); without a cache the
/// template carriers are not searched.
pub fn analyse_cached<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    to_move: usize,
    mut cache: Option<&mut CaptureCache<W>>,
    dominations: Dominations,
) -> InferiorCells<W> {
    let mut filled = *stones;
    let mut fill = [CellSet::EMPTY; 2];
    let mut dead = CellSet::EMPTY;
    let dead_colour = 1 - to_move;
    // Each player's kills in the final fill-in, reused below.
    let mut kills_now: [Option<Vec<CellSet<W>>>; 2] = [None, None];
    'fill: while !someone_joined(geom, &filled) {
        kills_now = [None, None];
        let d = dead_cells(geom, &filled);
        if !d.is_empty() {
            dead |= d;
            fill[dead_colour] |= d;
            filled[dead_colour] |= d;
            continue;
        }
        let empty = geom.all() - filled[0] - filled[1];
        for p in [to_move, 1 - to_move] {
            let k = kills(geom, &filled, p);
            if let Some((x, y)) = captured_pair(empty, &k) {
                for c in [x, y] {
                    fill[p].insert(c);
                    filled[p].insert(c);
                }
                continue 'fill;
            }
            kills_now[p] = Some(k);
        }
        for p in [to_move, 1 - to_move] {
            let Some(cache) = cache.as_deref_mut() else {
                break;
            };
            let found = template_carriers(geom, &filled, p)
                .into_iter()
                .find(|&c| is_captured(geom, &filled, p, c, cache));
            if let Some(c) = found {
                fill[p] |= c;
                filled[p] |= c;
                continue 'fill;
            }
        }
        break;
    }
    let mut result = InferiorCells {
        filled,
        fill,
        dead,
        vulnerable: Vec::new(),
        dominated: Vec::new(),
    };
    if someone_joined(geom, &filled) {
        return result;
    }
    let empty = geom.all() - filled[0] - filled[1];
    // Rule (Henderson and Hayward, section 2): in the search for a winning
    // move, cells the opponent can kill (P-vulnerable) can be pruned.
    let opponent_kills = kills_now[1 - to_move]
        .take()
        .unwrap_or_else(|| kills(geom, &filled, 1 - to_move));
    let mut is_vulnerable = CellSet::EMPTY;
    for y in empty.iter() {
        for x in opponent_kills[y].iter() {
            if !is_vulnerable.contains(x) {
                is_vulnerable.insert(x);
                result.vulnerable.push((x, y));
            }
        }
    }
    let candidates = empty - is_vulnerable;
    let mut arcs: Vec<Vec<usize>> = vec![Vec::new(); geom.cells()];
    if dominations.capture {
        // Rule: if the player's stone on y kills x, then y is at least as
        // good a move as x (S + P[y] with x dead is S + P[y] + P[x]): x is
        // capture-dominated by y. Of cells dominating each other one is kept.
        let own_kills = kills_now[to_move]
            .take()
            .unwrap_or_else(|| kills(geom, &filled, to_move));
        for y in candidates.iter() {
            let beaten = own_kills[y] | captured_around(geom, &filled, to_move, y);
            for x in (beaten & candidates).without(y).iter() {
                arcs[x].push(y);
            }
        }
        for (x, y) in acute_corner_arcs(geom, empty, to_move) {
            if candidates.contains(x) && candidates.contains(y) {
                arcs[x].push(y);
            }
        }
    }
    let henderson_hayward: [(bool, DominationRule<W>); 2] = [
        (dominations.path, path_dominated),
        (dominations.neighbour, neighbour_dominated),
    ];
    for (_, rule) in henderson_hayward.into_iter().filter(|(on, _)| *on) {
        for (x, y) in rule(geom, &filled, to_move, candidates) {
            arcs[x].push(y);
        }
    }
    result.dominated = prune_dominated(&arcs, candidates);
    result
}

/// A domination rule: the arcs (dominated, dominating) among the
/// candidates for the player.
type DominationRule<const W: usize> =
    fn(&Geometry<W>, &Stones<W>, usize, CellSet<W>) -> Vec<(usize, usize)>;

/// Rule (Henderson and Hayward, "Probing the 4-3-2 edge template in Hex",
/// Lemma 1: path-domination): y path-dominates x for `player` when every
/// minimal connector of the player through x also holds y; then S + P[y]
/// is at least as good for P as S + P[x]. Found here when y separates x
/// from one of the player's sides in the graph of the empty cells and
/// the player's stones: a minimal connector through x is a path from
/// side to side through x, so it passes y. Returns the arcs (x, y) among
/// `candidates`.
pub fn path_dominated<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    candidates: CellSet<W>,
) -> Vec<(usize, usize)> {
    let empty = geom.all() - stones[0] - stones[1];
    let passable = empty | stones[player];
    let [a, b] = geom.sides(player);
    let mut arcs = Vec::new();
    for y in candidates.iter() {
        let open = passable.without(y);
        let both = geom.flood(a, open) & geom.flood(b, open);
        for x in (candidates - both).without(y).iter() {
            arcs.push((x, y));
        }
    }
    arcs
}

/// Rule (Henderson and Hayward, section 4: neighbourhood-domination): y
/// dominates x for `player` when everything x touches, y touches too: x's
/// empty neighbours (y aside) are y's, and every group of the player's
/// stones (or side) next to x is next to y. Any connector through x then
/// has one through y in its place, so S + P[y] is at least as good for P
/// as S + P[x]. Returns the arcs (x, y) among `candidates`.
pub fn neighbour_dominated<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    candidates: CellSet<W>,
) -> Vec<(usize, usize)> {
    let empty = geom.all() - stones[0] - stones[1];
    let groups = GroupMap::new(geom, stones, player);
    let touched = |c: usize| -> Vec<usize> {
        (0..groups.reach.len())
            .filter(|&g| groups.reach[g].contains(c))
            .collect()
    };
    let info: Vec<(usize, CellSet<W>, Vec<usize>)> = candidates
        .iter()
        .map(|c| (c, geom.adjacent(c) & empty, touched(c)))
        .collect();
    let mut arcs = Vec::new();
    for (x, nx, gx) in &info {
        for (y, ny, gy) in &info {
            if x != y && nx.without(*y).is_subset(ny) && gx.iter().all(|g| gy.contains(g)) {
                arcs.push((*x, *y));
            }
        }
    }
    arcs
}

/// Rule (capture-domination through a captured pair): the cells of a pair
/// next to `y` that `player`'s stone on `y` makes captured, as it does with
/// an edge bridge: `player`'s stone on either cell kills the other. (Rex
/// reads the same pairs through its own theorem: see
/// [`super::rex::preferences`].) Then S + P[y] is S + P[y] with the pair filled for P, which
/// P-dominates S + P[x] for either cell x of the pair (an extra stone never
/// hurts its owner). Only pairs with another end besides `y` (the
/// player's side, or a stone of the player touching both cells) can be
/// captured, which keeps the kill tests rare.
pub(crate) fn captured_around<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    y: usize,
) -> CellSet<W> {
    captured_pairs_around(geom, stones, player, y)
        .into_iter()
        .fold(CellSet::EMPTY, |acc, pair| acc | pair)
}

/// The pairs of [`captured_around`], each as a set of two cells (two of
/// them may share a cell).
pub(crate) fn captured_pairs_around<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    y: usize,
) -> Vec<CellSet<W>> {
    let empty = geom.all() - stones[0] - stones[1];
    let near = geom.adjacent(y) & empty;
    let own = stones[player];
    let [s0, s1] = geom.sides(player);
    let mut after = *stones;
    after[player].insert(y);
    let mut captured = Vec::new();
    for a in near.iter() {
        for b in (geom.adjacent(a) & near).iter().filter(|&b| b > a) {
            let pair = CellSet::single(a).with(b);
            let other_end = pair.is_subset(&s0)
                || pair.is_subset(&s1)
                || (geom.adjacent(a) & geom.adjacent(b) & own)
                    .without(y)
                    .first()
                    .is_some();
            if other_end
                && killed_by(geom, &after, player, a).contains(b)
                && killed_by(geom, &after, player, b).contains(a)
            {
                captured.push(pair);
            }
        }
    }
    captured
}

/// Rule (Henderson and Hayward, "Probing the 4-3-2 edge template in Hex",
/// Theorem 2): when the nine cells where the player could build a 4-3-2
/// edge template into an acute corner are all empty, seven of them are
/// dominated by the other two, whatever the rest of the board holds. For
/// Black at a1 against the first row: c2 captures the template's carrier
/// once Black has b3, so it dominates a1, b1, c1, d1, a2 and b2; b3
/// dominates a3. Returns the arcs (inferior, dominating) at both acute
/// corners: the pattern turned by 180 degrees for the far corner, and
/// transposed (rows for columns) for White.
fn acute_corner_arcs<const W: usize>(
    geom: &Geometry<W>,
    empty: CellSet<W>,
    player: usize,
) -> Vec<(usize, usize)> {
    // (row, column) for Black at a1; the last two are the dominating cells.
    const CAPTURED: [(usize, usize); 6] = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1)];
    const CAPTOR: (usize, usize) = (1, 2);
    const ROW_THREE: (usize, usize) = (2, 0);
    const STONE: (usize, usize) = (2, 1);
    let dims = geom.dims();
    let (rows, cols) = (dims.rows(), dims.cols());
    let (reach_r, reach_c) = if player == BLACK { (3, 4) } else { (4, 3) };
    if rows < reach_r || cols < reach_c {
        return Vec::new();
    }
    let mut arcs = Vec::new();
    for far in [false, true] {
        let cell = |(r, c): (usize, usize)| {
            let (r, c) = if player == BLACK { (r, c) } else { (c, r) };
            let (r, c) = if far {
                (rows - 1 - r, cols - 1 - c)
            } else {
                (r, c)
            };
            dims.cell(r, c)
        };
        let nine = CAPTURED
            .iter()
            .chain([&CAPTOR, &ROW_THREE, &STONE])
            .map(|&rc| cell(rc));
        if !nine.clone().all(|c| empty.contains(c)) {
            continue;
        }
        arcs.extend(CAPTURED.iter().map(|&rc| (cell(rc), cell(CAPTOR))));
        arcs.push((cell(ROW_THREE), cell(STONE)));
    }
    arcs
}

/// Given arcs x → y ("y dominates x") over `cells`, the cells that can be
/// pruned, each with a kept cell that dominates it. Kept: the lowest cell
/// of each sink strongly connected component; every other cell reaches one
/// of those along arcs, and domination is transitive.
pub(crate) fn prune_dominated<const W: usize>(
    arcs: &[Vec<usize>],
    cells: CellSet<W>,
) -> Vec<(usize, usize)> {
    let n = arcs.len();
    let comp = strongly_connected(arcs, cells);
    let mut sink = vec![true; n];
    for x in cells.iter() {
        if arcs[x].iter().any(|&y| comp[y] != comp[x]) {
            sink[comp[x]] = false;
        }
    }
    let mut representative = vec![usize::MAX; n];
    for x in cells.iter() {
        if sink[comp[x]] && representative[comp[x]] == usize::MAX {
            representative[comp[x]] = x;
        }
    }
    let mut pruned = Vec::new();
    for x in cells.iter() {
        if representative[comp[x]] == x {
            continue;
        }
        // Breadth-first along arcs to the first cell of a sink component.
        let mut seen = CellSet::<W>::single(x);
        let mut queue = std::collections::VecDeque::from([x]);
        while let Some(v) = queue.pop_front() {
            if sink[comp[v]] {
                pruned.push((x, representative[comp[v]]));
                break;
            }
            for &y in &arcs[v] {
                if !seen.contains(y) {
                    seen.insert(y);
                    queue.push_back(y);
                }
            }
        }
    }
    pruned
}

/// Strongly connected components (Tarjan) of the arcs restricted to `cells`.
fn strongly_connected<const W: usize>(arcs: &[Vec<usize>], cells: CellSet<W>) -> Vec<usize> {
    let n = arcs.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![usize::MAX; n];
    let mut next_index = 0;
    let mut next_comp = 0;
    for root in cells.iter() {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i < arcs[v].len() {
                let w = arcs[v][*i];
                *i += 1;
                if !cells.contains(w) {
                    continue;
                }
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(u, _)) = work.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}
