//! Position networks (Honjo, Suzuki, Yamamoto and Furukawa, "A Hex strategy
//! using the position network", 2010, after van Rijswijk 2003): a Hex
//! position seen by one player as a graph whose shortest paths between the
//! player's two sides measure how far the player is from joining them.
//!
//! The network N_P of player P, built as the paper says:
//! 1. a node per cell, and two terminals `s` and `t` for P's two sides;
//! 2. links between adjacent cells, and between each terminal and the cells
//!    on its side;
//! 3. links between the end points of P's full virtual connections (H-search),
//!    each carrying the connection's carrier;
//! 4. every stone of P is removed and the nodes it was linked to are joined
//!    pairwise (a clique);
//! 5. every opponent stone is removed with its links.
//!
//! Removing the stones of one group one by one gives the clique of all the
//! group's links, and a virtual connection between two groups makes the two
//! cliques one; so the construction contracts each set of P's groups joined
//! by connections and links every pair of its neighbours. A terminal counts
//! as a neighbour of the groups on its side, so P's winning chain links `s`
//! to `t` directly (distance 1), and an opponent's winning chain leaves no
//! path at all.
//!
//! Each link keeps the carrier (empty cells) a path through it relies on,
//! for the carrier rule of the k-shortest path sets ([`super::paths`]):
//! empty for a board adjacency, the carrier of the connection for a virtual
//! link (its smallest, when H-search found several), and for a clique link
//! the carriers of the links into the groups plus those of the connections
//! between the groups when the two ends hang on different groups. Between
//! two nodes only the link with the smallest carrier is kept: a pair of
//! adjacent cells needs no carrier whatever else joins them.

use darkhex_games::{CellSet, Geometry};

use crate::hexsolve::position::Stones;
use crate::hexsolve::vc::{End, VcSet};

/// The node of the terminal on P's first side (north for Black, west for White).
pub const SOURCE: usize = 0;
/// The node of the terminal on P's second side.
pub const SINK: usize = 1;

/// Distance of a node that no path reaches.
pub const UNREACHED: u32 = u32::MAX;

/// A link from a node: its other end and the carrier it relies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link<const W: usize> {
    pub to: u32,
    pub carrier: CellSet<W>,
}

/// One player's position network, in compressed adjacency form.
#[derive(Clone, Debug)]
pub struct Network<const W: usize> {
    player: usize,
    /// The cell of node `v` is `cells[v - 2]` (the terminals have none).
    cells: Vec<usize>,
    /// The node of each empty cell (`u32::MAX` for stones).
    node_of: Vec<u32>,
    start: Vec<usize>,
    links: Vec<Link<W>>,
}

/// A link before deduplication: ends (smaller first) and carrier.
type RawLink<const W: usize> = (u32, u32, CellSet<W>);

/// Keeps, for each pair of ends, the link with the smallest carrier (the
/// first listed among equals, so the result does not depend on sorting).
fn dedup_links<const W: usize>(links: &mut Vec<RawLink<W>>) {
    for l in links.iter_mut() {
        if l.0 > l.1 {
            *l = (l.1, l.0, l.2);
        }
    }
    links.sort_by_key(|l| (l.0, l.1, l.2.count()));
    links.dedup_by_key(|l| (l.0, l.1));
}

/// Union-find root with path halving.
fn root(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

impl<const W: usize> Network<W> {
    /// The network of `player` in `stones`; `vcs` (that player's connections
    /// in that position) adds the virtual links, `None` builds the plain
    /// board network.
    pub fn build(
        geom: &Geometry<W>,
        stones: &Stones<W>,
        player: usize,
        vcs: Option<&VcSet<W>>,
    ) -> Self {
        let n = geom.cells();
        let own = stones[player];
        let empty = geom.all() - stones[0] - stones[1];
        let mut node_of = vec![u32::MAX; n];
        let cells: Vec<usize> = empty.iter().collect();
        for (i, &c) in cells.iter().enumerate() {
            node_of[c] = (i + 2) as u32;
        }
        let nodes = cells.len() + 2;
        // Before contraction the groups are vertices too, after the nodes.
        let groups = geom.groups(own);
        let mut vertex_of = node_of.clone();
        for (g, group) in groups.iter().enumerate() {
            for c in group.iter() {
                vertex_of[c] = (nodes + g) as u32;
            }
        }
        let sides = geom.sides(player);
        let mut raw: Vec<RawLink<W>> = Vec::with_capacity(4 * n);
        for &c in &cells {
            let v = vertex_of[c];
            for d in (geom.adjacent(c) & (empty | own)).iter() {
                if !empty.contains(d) || d > c {
                    raw.push((v, vertex_of[d], CellSet::EMPTY));
                }
            }
        }
        for (i, side) in sides.iter().enumerate() {
            for c in (*side & (empty | own)).iter() {
                raw.push((i as u32, vertex_of[c], CellSet::EMPTY));
            }
        }
        if let Some(vcs) = vcs {
            debug_assert_eq!(vcs.player(), player);
            let vertex = |e: End| -> u32 {
                let e = e as usize;
                if e >= n { (e - n) as u32 } else { vertex_of[e] }
            };
            for (x, y) in vcs.full_pairs() {
                let Some(carrier) = vcs.fulls(x, y).min_by_key(|c| c.count()) else {
                    continue;
                };
                let (a, b) = (vertex(x), vertex(y));
                if a != b && a != u32::MAX && b != u32::MAX {
                    raw.push((a, b, carrier));
                }
            }
        }
        dedup_links(&mut raw);
        let mut links = contract(raw, nodes, groups.len());
        dedup_links(&mut links);
        Network::from_links(player, cells, node_of, nodes, &links)
    }

    fn from_links(
        player: usize,
        cells: Vec<usize>,
        node_of: Vec<u32>,
        nodes: usize,
        links: &[RawLink<W>],
    ) -> Self {
        let mut start = vec![0usize; nodes + 1];
        for &(a, b, _) in links {
            start[a as usize + 1] += 1;
            start[b as usize + 1] += 1;
        }
        for v in 0..nodes {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let blank = Link {
            to: 0,
            carrier: CellSet::EMPTY,
        };
        let mut flat = vec![blank; start[nodes]];
        for &(a, b, carrier) in links {
            for (from, to) in [(a, b), (b, a)] {
                flat[fill[from as usize]] = Link { to, carrier };
                fill[from as usize] += 1;
            }
        }
        Network {
            player,
            cells,
            node_of,
            start,
            links: flat,
        }
    }

    pub fn player(&self) -> usize {
        self.player
    }

    /// Number of nodes, terminals included.
    pub fn nodes(&self) -> usize {
        self.start.len() - 1
    }

    /// The links of node `v`.
    pub fn links(&self, v: usize) -> &[Link<W>] {
        &self.links[self.start[v]..self.start[v + 1]]
    }

    /// The cell of node `v` (`None` for the terminals).
    pub fn cell(&self, v: usize) -> Option<usize> {
        v.checked_sub(2).map(|i| self.cells[i])
    }

    /// The node of a cell (`None` for a stone, which has none).
    pub fn node(&self, cell: usize) -> Option<usize> {
        match self.node_of.get(cell) {
            Some(&v) if v != u32::MAX => Some(v as usize),
            _ => None,
        }
    }

    /// Whether `a` and `b` are linked, and the link's carrier.
    pub fn link(&self, a: usize, b: usize) -> Option<CellSet<W>> {
        self.links(a)
            .iter()
            .find(|l| l.to as usize == b)
            .map(|l| l.carrier)
    }

    /// Whether some link relies on a carrier.
    pub fn has_carriers(&self) -> bool {
        self.links.iter().any(|l| !l.carrier.is_empty())
    }

    /// Number of links from each node to others, as BFS sees them.
    pub fn distances_from(&self, from: usize) -> Vec<u32> {
        let mut dist = vec![UNREACHED; self.nodes()];
        let mut queue = std::collections::VecDeque::new();
        dist[from] = 0;
        queue.push_back(from);
        while let Some(v) = queue.pop_front() {
            for l in self.links(v) {
                let w = l.to as usize;
                if dist[w] == UNREACHED {
                    dist[w] = dist[v] + 1;
                    queue.push_back(w);
                }
            }
        }
        dist
    }

    /// d(s, t): the length of the shortest path between the terminals
    /// (`None` when the opponent has cut them apart).
    pub fn distance(&self) -> Option<u32> {
        let d = self.distances_from(SOURCE)[SINK];
        (d != UNREACHED).then_some(d)
    }
}

/// Removes the group vertices (numbered from `nodes` on): every set of groups
/// joined by links becomes one clique over the nodes they touch.
fn contract<const W: usize>(raw: Vec<RawLink<W>>, nodes: usize, groups: usize) -> Vec<RawLink<W>> {
    let is_group = |v: u32| v as usize >= nodes;
    let mut parent: Vec<usize> = (0..groups).collect();
    for &(a, b, _) in &raw {
        if is_group(a) && is_group(b) {
            let (ra, rb) = (
                root(&mut parent, a as usize - nodes),
                root(&mut parent, b as usize - nodes),
            );
            parent[ra] = rb;
        }
    }
    // Carriers of the connections inside each set of groups, and each
    // node's attachments to it: (node, group, carrier).
    let mut inside = vec![CellSet::<W>::EMPTY; groups];
    let mut attached: Vec<Vec<(u32, usize, CellSet<W>)>> = vec![Vec::new(); groups];
    let mut links = Vec::with_capacity(raw.len());
    for (a, b, carrier) in raw {
        match (is_group(a), is_group(b)) {
            (false, false) => links.push((a, b, carrier)),
            (true, true) => {
                let r = root(&mut parent, a as usize - nodes);
                inside[r] |= carrier;
            }
            (ga, _) => {
                let (node, g) = if ga { (b, a) } else { (a, b) };
                let g = g as usize - nodes;
                let r = root(&mut parent, g);
                attached[r].push((node, g, carrier));
            }
        }
    }
    for r in 0..groups {
        let list = &mut attached[r];
        list.sort_by_key(|&(v, g, c)| (v, g, c.count()));
        list.dedup_by_key(|&mut (v, g, _)| (v, g));
        // Each node's attachments are consecutive.
        let runs: Vec<&[(u32, usize, CellSet<W>)]> = list.chunk_by(|x, y| x.0 == y.0).collect();
        for (i, first) in runs.iter().enumerate() {
            for second in &runs[i + 1..] {
                // The cheapest way between the two through the groups.
                let mut best: Option<CellSet<W>> = None;
                for &(_, gu, cu) in first.iter() {
                    for &(_, gv, cv) in second.iter() {
                        let through = if gu == gv { CellSet::EMPTY } else { inside[r] };
                        let c = cu | cv | through;
                        if best.is_none_or(|b| c.count() < b.count()) {
                            best = Some(c);
                        }
                    }
                }
                if let Some(c) = best {
                    links.push((first[0].0, second[0].0, c));
                }
            }
        }
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hexsolve::vc::VcParams;
    use darkhex_games::board::{BLACK, Dims, WHITE};

    fn geom(size: usize) -> Geometry<1> {
        Geometry::new(Dims::new("hex", size, size).unwrap()).unwrap()
    }

    fn set(g: &Geometry<1>, names: &[&str]) -> CellSet<1> {
        names
            .iter()
            .map(|n| g.dims().parse_cell(n).unwrap())
            .collect()
    }

    fn node(net: &Network<1>, g: &Geometry<1>, name: &str) -> usize {
        net.node(g.dims().parse_cell(name).unwrap()).unwrap()
    }

    #[test]
    fn the_plain_network_of_an_empty_board_is_the_board() {
        let g = geom(3);
        let net = Network::build(&g, &[CellSet::EMPTY; 2], BLACK, None);
        assert_eq!(net.nodes(), 11);
        // Black's s touches row 1, t row 3; a1 has a2, b1 and s.
        let a1 = node(&net, &g, "a1");
        let mut around: Vec<usize> = net.links(a1).iter().map(|l| l.to as usize).collect();
        around.sort();
        assert_eq!(
            around,
            vec![SOURCE, node(&net, &g, "b1"), node(&net, &g, "a2")]
        );
        // 16 adjacent pairs of cells (6 across, 6 down, 4 diagonal) and 3
        // cells on each of Black's sides.
        let total: usize = (0..net.nodes()).map(|v| net.links(v).len()).sum();
        assert_eq!(total / 2, 16 + 6);
        assert_eq!(net.distance(), Some(4));
        assert!(!net.has_carriers());
        // White's terminals are the columns.
        let w = Network::build(&g, &[CellSet::EMPTY; 2], WHITE, None);
        assert!(w.link(SOURCE, node(&w, &g, "a2")).is_some());
        assert!(w.link(SOURCE, node(&w, &g, "b1")).is_none());
    }

    #[test]
    fn own_stones_become_cliques_and_opponent_stones_disappear() {
        let g = geom(3);
        let stones = [set(&g, &["b2"]), set(&g, &["a3"])];
        let net = Network::build(&g, &stones, BLACK, None);
        // Neighbours of b2: b1 c1 a2 c2 a3 b3; a3 is White's, so gone.
        let around = ["b1", "c1", "a2", "c2", "b3"];
        for x in around {
            for y in around {
                if x != y {
                    let c = net.link(node(&net, &g, x), node(&net, &g, y));
                    assert_eq!(c, Some(CellSet::EMPTY), "{x}-{y}");
                }
            }
        }
        assert!(net.node(g.dims().parse_cell("b2").unwrap()).is_none());
        assert!(net.node(g.dims().parse_cell("a3").unwrap()).is_none());
        // s b1 b3 t.
        assert_eq!(net.distance(), Some(3));
        // White: b2 is gone; a3's clique holds a2 b3 and s (column a).
        let w = Network::build(&g, &stones, WHITE, None);
        assert_eq!(
            w.link(node(&w, &g, "a2"), node(&w, &g, "b3")),
            Some(CellSet::EMPTY)
        );
        assert!(w.link(SOURCE, node(&w, &g, "b3")).is_some());
        // s b3 c3 t: nothing on the east column is linked to s.
        assert_eq!(w.distance(), Some(3));
    }

    #[test]
    fn a_won_game_links_the_terminals_or_cuts_them() {
        let g = geom(3);
        let stones = [set(&g, &["a1", "a2", "a3"]), CellSet::EMPTY];
        let black = Network::build(&g, &stones, BLACK, None);
        assert_eq!(black.link(SOURCE, SINK), Some(CellSet::EMPTY));
        assert_eq!(black.distance(), Some(1));
        let white = Network::build(&g, &stones, WHITE, None);
        assert_eq!(white.distance(), None);
    }

    #[test]
    fn virtual_connections_add_links_with_their_carriers() {
        let g = geom(3);
        let stones = [CellSet::EMPTY; 2];
        let vcs = VcSet::build(&g, &stones, BLACK, VcParams::default());
        let net = Network::build(&g, &stones, BLACK, Some(&vcs));
        let b2 = node(&net, &g, "b2");
        // The bridge to each edge template: b2 to row 1 over b1 c1, to row 3 over a3 b3.
        assert_eq!(net.link(SOURCE, b2), Some(set(&g, &["b1", "c1"])));
        assert_eq!(net.link(b2, SINK), Some(set(&g, &["a3", "b3"])));
        assert_eq!(net.distance(), Some(2));
        // An adjacency keeps its empty carrier.
        assert_eq!(net.link(b2, node(&net, &g, "b1")), Some(CellSet::EMPTY));
    }

    #[test]
    fn a_bridge_between_stones_makes_one_clique_with_its_carrier() {
        let g = geom(5);
        // Black b2 and a4 form a bridge over a3 b3; neither touches a side.
        let stones = [set(&g, &["b2", "a4"]), CellSet::EMPTY];
        let plain = Network::build(&g, &stones, BLACK, None);
        let (b1, a5) = (node(&plain, &g, "b1"), node(&plain, &g, "a5"));
        assert_eq!(plain.link(b1, a5), None);
        // s b1 a3 a5 t: through b2's clique, then a4's.
        assert_eq!(plain.distance(), Some(4));
        let vcs = VcSet::build(&g, &stones, BLACK, VcParams::default());
        let net = Network::build(&g, &stones, BLACK, Some(&vcs));
        let bridge = set(&g, &["a3", "b3"]);
        // b1 touches b2 only and a5 touches a4 only: the link needs the bridge.
        assert_eq!(net.link(b1, a5), Some(bridge));
        // a3 touches both stones: to a5 it needs nothing.
        assert_eq!(net.link(node(&net, &g, "a3"), a5), Some(CellSet::EMPTY));
        // b2's bridge to the north edge over b1 c1 links s to b2's clique.
        let c2 = node(&net, &g, "c2");
        assert_eq!(net.link(SOURCE, c2), Some(set(&g, &["b1", "c1"])));
        assert_eq!(net.link(SOURCE, a5), Some(bridge | set(&g, &["b1", "c1"])));
        // H-search joins Black's sides outright here (b2 and a4 win 5x5):
        // that connection links the terminals.
        assert!(vcs.edge_full());
        assert_eq!(net.link(SOURCE, SINK).map(|c| c.count()), Some(15));
        assert_eq!(net.distance(), Some(1));
    }
}
