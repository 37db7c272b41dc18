//! Regions a player has sealed off with a virtual connection (the "VC
//! decomposition" of Hayward, Björnsson, Johanson, Kan, Po and van
//! Rijswijck, "Solving 7x7 Hex: virtual connections and game-state
//! reduction", 2003; Benzene fills them in as it builds connections).
//!
//! Take two of a player's groups (or a group and one of the player's sides)
//! g1 and g2 with a full connection of carrier K, and the region D of
//! cells that can reach K without crossing g1, g2 or an opponent stone. If D
//! touches none of the player's sides except through g1 and g2, every chain
//! of the player that passes through D enters and leaves it by g1 or g2. So
//! D is worth nothing to the player beyond joining g1 and g2, which the
//! connection already guarantees: the player answers every opponent move
//! in K inside K and plays anything else as if D were full of their stones.
//! Hence S + P[D] has the value of S, and D can be filled in for the player.

use darkhex_games::{CellSet, Geometry};

use super::position::Stones;
use super::vc::{End, VcSet};

/// The empty cells of every region sealed off by one of `vcs`' full
/// connections between two of its player's groups or sides.
pub fn sealed_regions<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    vcs: &VcSet<W>,
) -> CellSet<W> {
    let mut sealed = CellSet::EMPTY;
    each_sealed_region(geom, stones, vcs, |region| {
        sealed |= region;
        true
    });
    sealed
}

/// Calls `keep` with the empty cells of each region sealed off by one of
/// `vcs`' full connections between two of its player's groups or sides
/// (the smallest carrier of each pair of ends). A connection whose carrier
/// lies inside the regions `keep` has accepted (returned true for) is not
/// looked at again, so a region may come more than once only when it was
/// refused.
pub fn each_sealed_region<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    vcs: &VcSet<W>,
    mut keep: impl FnMut(CellSet<W>) -> bool,
) {
    let p = vcs.player();
    let empty = geom.all() - stones[0] - stones[1];
    let sides = geom.sides(p);
    let side_ends = [vcs.side(0), vcs.side(1)];
    let mut sealed = CellSet::EMPTY;
    // The player's ends that are stones or sides: each group's lowest cell,
    // and the two sides.
    let mut ends: Vec<End> = side_ends.to_vec();
    let mut left = stones[p];
    while let Some(c) = left.first() {
        let e = vcs.end_of(c).unwrap_or(c as End);
        left -= vcs.members(e).with(c);
        if !side_ends.contains(&e) {
            ends.push(e);
        }
    }
    for &x in &ends {
        for &y in vcs.full_partners(x) {
            // Each pair once, and both ends stones or sides.
            if y <= x || !ends.contains(&y) {
                continue;
            }
            let Some(carrier) = vcs.fulls(x, y).min_by_key(|c| c.count()) else {
                continue;
            };
            let Some(seed) = (carrier - sealed).first() else {
                continue;
            };
            let walls = vcs.members(x) | vcs.members(y) | stones[1 - p];
            let region = geom.flood(CellSet::single(seed), geom.all() - walls);
            // A side of the player that is neither end lets chains out.
            let open = side_ends
                .iter()
                .zip(sides)
                .any(|(&e, side)| e != x && e != y && region.intersects(&side));
            if !open && carrier.is_subset(&region) && keep(region & empty) {
                sealed |= region & empty;
            }
        }
    }
}
