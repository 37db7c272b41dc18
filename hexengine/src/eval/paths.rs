//! The k-shortest path sets of a position network (Honjo et al. 2010): S_i
//! is the set of simple paths between the terminals `s` and `t` of length
//! d(s, t) + i, where length counts links.
//!
//! - S_0 is counted on the layers of a breadth-first search (every shortest
//!   walk is a simple path, and the number of shortest paths into a node is
//!   the sum over its predecessors in the layer before), so its count is
//!   exact however large; the paths through a node number
//!   (paths s to u) x (paths u to t).
//! - S_i for i >= 1 needs the paths themselves, for the carrier rule: a path
//!   is accepted only if its zone (its cells and the carriers of the virtual
//!   links it uses) is not a subset of the zone of an accepted path of a
//!   shorter S_j. Paths are enumerated depth first, a prefix being followed
//!   only while its length plus the breadth-first distance still to `t` fits
//!   within d + k. The enumeration stops after [`PathLimits::max_paths`]
//!   paths: the counts of S_1.. are then lower bounds and
//!   [`PathSets::complete`] is false (S_0's count stays exact).
//!
//! Two facts keep the carrier rule cheap. A zone without cells beyond its
//! path's own (no virtual link, or carriers the path walks through) has
//! fewer cells than any longer path and covers none, so only zones with
//! extra cells are kept to compare with. And comparing with accepted paths
//! only loses nothing: a rejected path lies inside an accepted zone, so
//! whatever it would cover, that zone covers too.
//!
//! Counts are [`BigUint`] (num-bigint): S_0 is counted in `u128` with
//! checked arithmetic and again in big integers only when that overflows;
//! the enumerated sets are bounded by the budget, so `u64` holds them.

use num_bigint::BigUint;
use num_traits::{CheckedAdd, CheckedMul, One, ToPrimitive, Zero};

use darkhex_games::CellSet;

use super::network::{Network, SINK, SOURCE, UNREACHED};

/// How far the path sets go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathLimits {
    /// The last set, S_k.
    pub k: usize,
    /// Paths the enumeration of S_0..S_k records before it gives up.
    pub max_paths: usize,
    /// Whether to count the paths through each node (for k-contributions).
    pub through: bool,
}

/// Paths recorded by default: a few megabytes, tens of milliseconds.
pub const DEFAULT_MAX_PATHS: usize = 200_000;

impl PathLimits {
    pub fn new(k: usize) -> Self {
        PathLimits {
            k,
            max_paths: DEFAULT_MAX_PATHS,
            through: false,
        }
    }
}

/// S_0..S_k of one network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathSets {
    /// d(s, t); `None` when the terminals are cut apart.
    pub distance: Option<u32>,
    /// n_i = |S_i| for i = 0..=k (all zero without a path).
    pub counts: Vec<BigUint>,
    /// False when the budget ran out: n_1..n_k are then lower bounds.
    pub complete: bool,
    /// For each node, the paths of S_0..S_k through it (empty unless asked).
    pub through: Vec<BigUint>,
}

impl PathSets {
    /// The k-contribution of node `v`: the share of the paths of S_0..S_k
    /// that pass through it (0 when there are none).
    pub fn contribution(&self, v: usize) -> f64 {
        self.share(v, &self.counts.iter().sum())
    }

    /// The k-contribution of each of the board's `cells` cells in `net`
    /// (0 for stones), the path total summed once for all of them.
    pub fn cell_contributions<const W: usize>(&self, net: &Network<W>, cells: usize) -> Vec<f64> {
        let total: BigUint = self.counts.iter().sum();
        (0..cells)
            .map(|c| net.node(c).map_or(0.0, |v| self.share(v, &total)))
            .collect()
    }

    fn share(&self, v: usize, total: &BigUint) -> f64 {
        match self.through.get(v) {
            Some(t) if !total.is_zero() => ratio(t, total),
            _ => 0.0,
        }
    }
}

/// `a / b` as a float, accurate even when both overflow `f64`.
fn ratio(a: &BigUint, b: &BigUint) -> f64 {
    let shift = b.bits().saturating_sub(512);
    let part = |x: &BigUint| (x >> shift).to_f64().unwrap_or(f64::MAX);
    part(a) / part(b)
}

/// Computes S_0..S_k of `net`.
pub fn path_sets<const W: usize>(net: &Network<W>, limits: PathLimits) -> PathSets {
    let ds = net.distances_from(SOURCE);
    let nodes = net.nodes();
    let none = || PathSets {
        distance: None,
        counts: vec![BigUint::zero(); limits.k + 1],
        complete: true,
        through: if limits.through {
            vec![BigUint::zero(); nodes]
        } else {
            Vec::new()
        },
    };
    let d = ds[SINK];
    if d == UNREACHED {
        return none();
    }
    let dt = net.distances_from(SINK);
    let (n0, mut through) = shortest::<u128, W>(net, &ds, &dt, limits.through)
        .map(|(n, t)| (BigUint::from(n), t.into_iter().map(BigUint::from).collect()))
        .unwrap_or_else(|| {
            shortest::<BigUint, W>(net, &ds, &dt, limits.through)
                .expect("big integers do not overflow")
        });
    let mut counts = vec![n0];
    let mut complete = true;
    if limits.k >= 1 {
        // The carrier rule and the counts depend on the set of paths found,
        // not on the order they were found in, so the links are tried
        // nearest `t` first and the search leaves a node at its first link
        // too far from `t`. Only a budget that runs out makes the order
        // matter (it decides which paths were recorded): then the walk is
        // redone in the network's own link order, the one that decided it
        // before links were sorted.
        let mut walk = Walk::new(net, &dt, d, limits, true);
        walk.run();
        if walk.recorded > limits.max_paths {
            walk = Walk::new(net, &dt, d, limits, false);
            walk.run();
        }
        complete = walk.recorded <= limits.max_paths;
        let mut node_counts = vec![0u64; if limits.through { nodes } else { 0 }];
        let extra = accept(&walk.found, net, &mut node_counts);
        counts.extend(extra.into_iter().map(BigUint::from));
        for (t, &c) in through.iter_mut().zip(&node_counts) {
            *t += c;
        }
    }
    PathSets {
        distance: Some(d),
        counts,
        complete,
        through,
    }
}

/// The number of shortest paths, and (when `through`) of those through each
/// node; `None` when `T` overflows.
fn shortest<T, const W: usize>(
    net: &Network<W>,
    ds: &[u32],
    dt: &[u32],
    through: bool,
) -> Option<(T, Vec<T>)>
where
    T: Clone + Zero + One + CheckedAdd + CheckedMul,
{
    let d = ds[SINK];
    let on_shortest = |v: usize| ds[v] != UNREACHED && dt[v] != UNREACHED && ds[v] + dt[v] == d;
    let mut order: Vec<usize> = (0..net.nodes()).filter(|&v| on_shortest(v)).collect();
    order.sort_by_key(|&v| ds[v]);
    // Paths from `start` to each node of the shortest-path layers, in the
    // direction `dist` grows.
    let count_from = |start: usize, dist: &[u32], order: &mut dyn Iterator<Item = &usize>| {
        let mut paths = vec![T::zero(); net.nodes()];
        paths[start] = T::one();
        for &v in order {
            if paths[v].is_zero() {
                continue;
            }
            for l in net.links(v) {
                let w = l.to as usize;
                if on_shortest(w) && dist[w] == dist[v] + 1 {
                    paths[w] = paths[w].checked_add(&paths[v])?;
                }
            }
        }
        Some(paths)
    };
    let forward = count_from(SOURCE, ds, &mut order.iter())?;
    let total = forward[SINK].clone();
    if !through {
        return Some((total, Vec::new()));
    }
    let backward = count_from(SINK, dt, &mut order.iter().rev())?;
    let mut per_node = Vec::with_capacity(net.nodes());
    for (f, b) in forward.iter().zip(&backward) {
        per_node.push(f.checked_mul(b)?);
    }
    Some((total, per_node))
}

/// A recorded path: its zone (cells and carriers) and its cells.
#[derive(Clone, Copy, Debug)]
struct Found<const W: usize> {
    zone: CellSet<W>,
    cells: CellSet<W>,
}

/// A link as the walk needs it: its far end, that end's distance to `t`,
/// and the link's carrier.
#[derive(Clone, Copy, Debug)]
struct Step<const W: usize> {
    to: u32,
    dt: u32,
    carrier: CellSet<W>,
}

/// The depth-first enumeration of the paths of length d..=d+k.
struct Walk<'a, const W: usize> {
    net: &'a Network<W>,
    /// The links into nodes that reach `t`, node by node (`start`), with
    /// the distances inline: the inner loop reads one array.
    steps: Vec<Step<W>>,
    start: Vec<usize>,
    /// Whether each node's steps are sorted by distance to `t`.
    sorted: bool,
    d: u32,
    limit: u32,
    /// Whether shortest paths are recorded (only their zones with extra
    /// cells matter, and there are none without carriers).
    keep_shortest: bool,
    on_path: Vec<bool>,
    /// Paths of length d + i, by i.
    found: Vec<Vec<Found<W>>>,
    recorded: usize,
    max_paths: usize,
}

impl<'a, const W: usize> Walk<'a, W> {
    fn new(net: &'a Network<W>, dt: &[u32], d: u32, limits: PathLimits, sorted: bool) -> Self {
        let nodes = net.nodes();
        let mut steps = Vec::new();
        let mut start = Vec::with_capacity(nodes + 1);
        for v in 0..nodes {
            start.push(steps.len());
            let first = steps.len();
            for l in net.links(v) {
                let to = l.to as usize;
                if dt[to] != UNREACHED {
                    steps.push(Step {
                        to: l.to,
                        dt: dt[to],
                        carrier: l.carrier,
                    });
                }
            }
            if sorted {
                steps[first..].sort_by_key(|s| s.dt);
            }
        }
        start.push(steps.len());
        Walk {
            net,
            steps,
            start,
            sorted,
            d,
            limit: d + limits.k as u32,
            keep_shortest: net.has_carriers(),
            on_path: vec![false; nodes],
            found: vec![Vec::new(); limits.k + 1],
            recorded: 0,
            max_paths: limits.max_paths,
        }
    }

    fn run(&mut self) {
        self.on_path[SOURCE] = true;
        self.from(SOURCE, 0, CellSet::EMPTY, CellSet::EMPTY);
    }

    fn from(&mut self, v: usize, len: u32, zone: CellSet<W>, cells: CellSet<W>) {
        for j in self.start[v]..self.start[v + 1] {
            if self.recorded > self.max_paths {
                return;
            }
            let Step { to, dt, carrier } = self.steps[j];
            let w = to as usize;
            let next = len + 1;
            if next + dt > self.limit {
                if self.sorted {
                    return;
                }
                continue;
            }
            if self.on_path[w] {
                continue;
            }
            let zone = zone | carrier;
            if w == SINK {
                let i = (next - self.d) as usize;
                if i > 0 || (self.keep_shortest && zone != cells) {
                    self.found[i].push(Found { zone, cells });
                    self.recorded += 1;
                }
                continue;
            }
            let cell = self.net.cell(w).expect("inner nodes are cells");
            self.on_path[w] = true;
            self.from(w, next, zone.with(cell), cells.with(cell));
            self.on_path[w] = false;
        }
    }
}

/// Applies the carrier rule to S_1.. in turn; returns their sizes and adds
/// the accepted paths through each node to `through` (when it has room).
fn accept<const W: usize>(
    found: &[Vec<Found<W>>],
    net: &Network<W>,
    through: &mut [u64],
) -> Vec<u64> {
    // Zones of accepted shorter paths that could cover a longer one, with
    // their sizes, largest first: a zone smaller than a path's covers it not.
    let mut cover: Vec<(u32, CellSet<W>)> = found[0]
        .iter()
        .map(|f| (f.zone.count() as u32, f.zone))
        .collect();
    let mut counts = Vec::with_capacity(found.len() - 1);
    let mut index = CoverIndex::default();
    for set in &found[1..] {
        cover.sort_unstable_by(|a, b| b.cmp(a));
        cover.dedup();
        index.rebuild(&cover);
        let mut accepted = 0u64;
        let mut wider = Vec::new();
        // Paths found one after another often share their zone.
        let mut previous: Option<(CellSet<W>, bool)> = None;
        for f in set {
            let size = f.zone.count() as u32;
            let covered = match previous {
                Some((zone, covered)) if zone == f.zone => covered,
                _ => index.covers(&cover, f.zone, size),
            };
            previous = Some((f.zone, covered));
            if covered {
                continue;
            }
            accepted += 1;
            if !through.is_empty() {
                through[SOURCE] += 1;
                through[SINK] += 1;
                for c in f.cells.iter() {
                    if let Some(v) = net.node(c) {
                        through[v] += 1;
                    }
                }
            }
            if f.zone != f.cells {
                wider.push((size, f.zone));
            }
        }
        cover.extend(wider);
        counts.push(accepted);
    }
    counts
}

/// Which cover zones hold each cell, as one bit per zone: the zones that
/// contain a path's zone are the AND of its cells' rows. Scanning up to
/// 1 400 zones for each of up to 60 000 paths of S_2 was most of an 11x11
/// move. Most of those paths are covered (four in five next to the centre),
/// so the scan rarely stopped early; here an uncovered path is usually
/// settled within its first cells, and a covered one by the zone that
/// covered the path before it or the first zone left standing.
struct CoverIndex {
    /// Words a row (one bit per zone).
    words: usize,
    /// Row of cell `c`: `bits[c * words..][..words]`.
    bits: Vec<u64>,
    /// The zones still containing the cells seen so far.
    acc: Vec<u64>,
    /// The zone that covered the last covered path (an index into the
    /// cover; `usize::MAX` before the first).
    last: usize,
}

impl Default for CoverIndex {
    fn default() -> Self {
        CoverIndex {
            words: 0,
            bits: Vec::new(),
            acc: Vec::new(),
            last: usize::MAX,
        }
    }
}

impl CoverIndex {
    fn rebuild<const W: usize>(&mut self, cover: &[(u32, CellSet<W>)]) {
        self.words = cover.len().div_ceil(64);
        self.last = usize::MAX;
        self.bits.clear();
        self.bits.resize(W * 64 * self.words, 0);
        for (j, (_, zone)) in cover.iter().enumerate() {
            for c in zone.iter() {
                self.bits[c * self.words + j / 64] |= 1 << (j % 64);
            }
        }
    }

    /// Whether a zone of `cover` (sorted largest first, as indexed) of at
    /// least `size` cells contains `zone`: a smaller one cannot.
    fn covers<const W: usize>(
        &mut self,
        cover: &[(u32, CellSet<W>)],
        zone: CellSet<W>,
        size: u32,
    ) -> bool {
        let m = cover.partition_point(|z| z.0 >= size);
        if m == 0 {
            return false;
        }
        // Most longer paths are covered, and the depth-first walk finds
        // neighbouring paths one after another: the zone that covered the
        // last path usually covers this one.
        if self.last < m && zone.is_subset(&cover[self.last].1) {
            return true;
        }
        let used = m.div_ceil(64);
        let acc = &mut self.acc;
        acc.clear();
        acc.resize(used, u64::MAX);
        if m % 64 != 0 {
            acc[used - 1] = (1u64 << (m % 64)) - 1;
        }
        // Words of `acc` outside lo..hi are zero.
        let (mut lo, mut hi) = (0, used);
        for c in zone.iter() {
            let row = &self.bits[c * self.words..];
            for i in lo..hi {
                acc[i] &= row[i];
            }
            while lo < hi && acc[lo] == 0 {
                lo += 1;
            }
            while hi > lo && acc[hi - 1] == 0 {
                hi -= 1;
            }
            if lo == hi {
                return false;
            }
            // A zone that holds every cell so far often holds the rest.
            let j = lo * 64 + acc[lo].trailing_zeros() as usize;
            if zone.is_subset(&cover[j].1) {
                self.last = j;
                return true;
            }
            // A few candidates left: try them whole.
            if hi - lo == 1 && acc[lo].count_ones() <= 4 {
                let mut bits = acc[lo];
                while bits != 0 {
                    let j = lo * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if zone.is_subset(&cover[j].1) {
                        self.last = j;
                        return true;
                    }
                }
                return false;
            }
        }
        self.last = lo * 64 + acc[lo].trailing_zeros() as usize;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hexsolve::vc::{VcParams, VcSet};
    use darkhex_games::Geometry;
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

    fn counts(p: &PathSets) -> Vec<u64> {
        p.counts.iter().map(|c| c.to_u64().unwrap()).collect()
    }

    fn network(g: &Geometry<1>, stones: [CellSet<1>; 2], player: usize, vcs: bool) -> Network<1> {
        let v = VcSet::build(g, &stones, player, VcParams::default());
        Network::build(g, &stones, player, vcs.then_some(&v))
    }

    fn all(k: usize) -> PathLimits {
        PathLimits {
            through: true,
            ..PathLimits::new(k)
        }
    }

    /// Every simple path of length d..=d+k by plain search and the carrier
    /// rule applied path by path: the counts the fast code must give.
    fn brute_force(net: &Network<1>, k: usize) -> Vec<u64> {
        fn go(
            net: &Network<1>,
            path: &mut Vec<usize>,
            zone: CellSet<1>,
            max: usize,
            out: &mut Vec<(usize, CellSet<1>)>,
        ) {
            let v = *path.last().unwrap();
            for l in net.links(v) {
                let w = l.to as usize;
                if path.contains(&w) || path.len() > max {
                    continue;
                }
                let z = zone | l.carrier;
                if w == SINK {
                    let cells: CellSet<1> = path.iter().filter_map(|&u| net.cell(u)).collect();
                    out.push((path.len(), z | cells));
                } else {
                    path.push(w);
                    go(net, path, z, max, out);
                    path.pop();
                }
            }
        }
        let Some(d) = net.distance() else {
            return vec![0; k + 1];
        };
        let mut out = Vec::new();
        go(
            net,
            &mut vec![SOURCE],
            CellSet::EMPTY,
            d as usize + k,
            &mut out,
        );
        let mut accepted: Vec<CellSet<1>> = Vec::new();
        let mut counts = vec![0; k + 1];
        for (i, count) in counts.iter_mut().enumerate() {
            let len = d as usize + i;
            let mut now = Vec::new();
            for &(_, zone) in out.iter().filter(|p| p.0 == len) {
                if i == 0 || !accepted.iter().any(|z| zone.is_subset(z)) {
                    *count += 1;
                    now.push(zone);
                }
            }
            accepted.extend(now);
        }
        counts
    }

    #[test]
    fn the_empty_3x3_board_by_hand() {
        let g = geom(3);
        let net = network(&g, [CellSet::EMPTY; 2], BLACK, false);
        let p = path_sets(&net, all(1));
        // Down-only paths: 1 + 3 + 4 from a1, b1, c1; one sideways step
        // more: 11 in row 1, 12 in row 2, 11 in row 3.
        assert_eq!((p.distance, counts(&p)), (Some(4), vec![8, 34]));
        assert!(p.complete);
        let b2 = net.node(g.dims().parse_cell("b2").unwrap()).unwrap();
        let a1 = net.node(0).unwrap();
        let k0 = path_sets(&net, all(0));
        assert_eq!(k0.contribution(b2), 0.5);
        assert_eq!(k0.contribution(a1), 0.125);
        assert_eq!(k0.contribution(SOURCE), 1.0);
        // b2 lies on 4 of the 8 shortest paths, and on 24 of the 34 longer
        // ones: every step across row 2 (12), and 6 each of those across
        // rows 1 and 3.
        assert_eq!(p.through[b2], BigUint::from(4u32 + 24));
    }

    #[test]
    fn a_stone_and_the_4x4_board_by_hand() {
        let g = geom(3);
        let net = network(&g, [set(&g, &["b2"]), CellSet::EMPTY], BLACK, false);
        let p = path_sets(&net, all(1));
        // s {b1,c1} {a3,b3} t, then 4 + 10 + 10 paths with one node more.
        assert_eq!((p.distance, counts(&p)), (Some(3), vec![4, 24]));
        let g4 = geom(4);
        let net = network(&g4, [CellSet::EMPTY; 2], BLACK, false);
        let p = path_sets(&net, all(2));
        assert_eq!((p.distance, counts(&p)[0]), (Some(5), 20));
        assert_eq!(counts(&p), brute_force(&net, 2));
        // White's network is Black's turned: the same counts.
        let w = network(&g4, [CellSet::EMPTY; 2], WHITE, false);
        assert_eq!(counts(&path_sets(&w, all(2))), counts(&p));
    }

    #[test]
    fn a_bridge_to_the_edges_does_not_count_twice() {
        let g = geom(3);
        let net = network(&g, [CellSet::EMPTY; 2], BLACK, true);
        let p = path_sets(&net, all(1));
        // S_0 is s-b2-t over the two edge bridges; its zone b1 c1 b2 a3 b3
        // holds four paths of length 3 (s-b1-b2-t, s-c1-b2-t, s-b2-a3-t,
        // s-b2-b3-t) that only re-route inside it.
        assert_eq!((p.distance, counts(&p)[0]), (Some(2), 1));
        let rule = brute_force(&net, 1);
        assert_eq!(counts(&p), rule);
        let without = {
            let mut n = 0;
            for x in net.links(SOURCE) {
                for y in net.links(x.to as usize) {
                    n += usize::from(
                        y.to as usize != SOURCE
                            && net.link(y.to as usize, SINK).is_some()
                            && y.to as usize != SINK,
                    );
                }
            }
            n
        };
        assert_eq!(rule[1] + 4, without as u64);
    }

    #[test]
    fn fast_counts_agree_with_plain_search_on_small_positions() {
        let g = geom(4);
        let positions: [(&[&str], &[&str]); 4] = [
            (&[], &[]),
            (&["b2"], &["c2"]),
            (&["b2", "c3"], &["a3", "d1"]),
            (&["a1", "d4"], &["b3", "c2", "b4"]),
        ];
        for (black, white) in positions {
            let stones = [set(&g, black), set(&g, white)];
            for player in [BLACK, WHITE] {
                for vcs in [false, true] {
                    let net = network(&g, stones, player, vcs);
                    let p = path_sets(&net, all(2));
                    assert_eq!(
                        counts(&p),
                        brute_force(&net, 2),
                        "{black:?} {white:?} {player} {vcs}"
                    );
                    assert!(p.complete);
                }
            }
        }
    }

    #[test]
    fn links_nearest_t_first_find_the_same_paths() {
        let g = Geometry::<2>::new(Dims::new("hex", 11, 11).unwrap()).unwrap();
        let names = |n: &[&str]| -> CellSet<2> {
            n.iter().map(|c| g.dims().parse_cell(c).unwrap()).collect()
        };
        let positions: [(&[&str], &[&str]); 3] = [
            (&[], &[]),
            (&["f6"], &[]),
            (&["f6", "g5", "d9", "c8"], &["e7", "h4", "c10", "b9"]),
        ];
        let paths = |walk: &Walk<2>| -> Vec<Vec<(CellSet<2>, CellSet<2>)>> {
            walk.found
                .iter()
                .map(|set| {
                    let mut v: Vec<_> = set.iter().map(|f| (f.zone, f.cells)).collect();
                    v.sort_unstable();
                    v
                })
                .collect()
        };
        for (black, white) in positions {
            let stones = [names(black), names(white)];
            for player in [BLACK, WHITE] {
                let vcs = VcSet::build(&g, &stones, player, VcParams::default());
                let net = Network::build(&g, &stones, player, Some(&vcs));
                let dt = net.distances_from(SINK);
                let d = net.distance().unwrap();
                let [mut sorted, mut plain] =
                    [true, false].map(|s| Walk::new(&net, &dt, d, PathLimits::new(2), s));
                sorted.run();
                plain.run();
                assert!(sorted.found[2].len() > 100);
                assert_eq!(
                    paths(&sorted),
                    paths(&plain),
                    "{black:?} {white:?} {player}"
                );
            }
        }
    }

    #[test]
    fn the_cover_index_answers_as_a_scan_of_the_zones() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let random_zone = |rng: &mut rand_chacha::ChaCha8Rng, cells: usize| -> CellSet<2> {
            (0..cells).map(|_| rng.random_range(0..121)).collect()
        };
        // Zone counts on both sides of a word boundary, and paths that lie
        // inside a zone (covered) or stick out of every one.
        let mut index = CoverIndex::default();
        let mut covered = 0;
        for zones in [0, 1, 63, 64, 65, 200] {
            let mut cover: Vec<(u32, CellSet<2>)> = (0..zones)
                .map(|_| {
                    let z = random_zone(&mut rng, 30);
                    (z.count() as u32, z)
                })
                .collect();
            cover.sort_unstable_by(|a, b| b.cmp(a));
            index.rebuild(&cover);
            for q in 0..400 {
                let zone = match (q % 2, cover.is_empty()) {
                    (0, false) => {
                        let z = cover[rng.random_range(0..cover.len())].1;
                        z.iter().filter(|_| rng.random_bool(0.7)).collect()
                    }
                    _ => random_zone(&mut rng, 8),
                };
                let size = zone.count() as u32;
                let scan = cover
                    .iter()
                    .take_while(|z| z.0 >= size)
                    .any(|z| zone.is_subset(&z.1));
                assert_eq!(index.covers(&cover, zone, size), scan, "{zones} {zone:?}");
                covered += usize::from(scan);
            }
        }
        assert!(covered > 500, "{covered}");
    }

    #[test]
    fn finished_games_have_one_link_or_none_and_budgets_are_reported() {
        let g = geom(3);
        let won = [set(&g, &["b1", "b2", "b3"]), CellSet::EMPTY];
        let black = path_sets(&network(&g, won, BLACK, true), all(2));
        assert_eq!(black.distance, Some(1));
        assert_eq!(black.counts[0], BigUint::one());
        let white = path_sets(&network(&g, won, WHITE, true), all(2));
        assert_eq!((white.distance, counts(&white)), (None, vec![0, 0, 0]));
        assert_eq!(white.contribution(SOURCE), 0.0);
        let net = network(&geom(4), [CellSet::EMPTY; 2], BLACK, false);
        let mut tight = PathLimits::new(2);
        tight.max_paths = 10;
        let p = path_sets(&net, tight);
        assert!(!p.complete);
        assert_eq!(p.counts[0], BigUint::from(20u32));
    }
}
