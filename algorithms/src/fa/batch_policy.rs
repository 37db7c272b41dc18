//! A policy computed for many information states at once: a network
//! ([`crate::fa::model::PolicyModel`]), or a function outside the library
//! (the Python package's policy callables, which read OpenSpiel's
//! tensors). Over a whole compiled tree or the streaming tables it is
//! called on chunks of [`CHUNK`] information states, cut the same way
//! wherever a whole table is evaluated, so a tree and the tables of one
//! game get the same bits from one policy.

use std::sync::atomic::{AtomicBool, Ordering};

use darkhex_games::{Action, AnyGame, NUM_PLAYERS, Token};

use crate::fa::regress::RegressError;
use crate::policy::TreePolicy;
use crate::stream::{InfoStateTables, RowPolicy};
use crate::tree::GameTree;

/// Information states per call when a whole table is evaluated.
pub const CHUNK: usize = 1024;

/// A policy at any information state of its game, a batch at a time.
pub trait BatchPolicy {
    fn game(&self) -> &AnyGame;

    /// Writes `player`'s policy at each of `states` (a key and its legal
    /// actions) into `out`, one probability per action, in order.
    fn write_policies(
        &self,
        player: usize,
        states: &[(&[Token], &[Action])],
        out: &mut [f64],
    ) -> Result<(), RegressError>;
}

/// Refuses an `out` that does not hold one probability per action of
/// `states`, as [`BatchPolicy::write_policies`] takes them.
pub fn check_rows(states: &[(&[Token], &[Action])], out: &[f64]) -> Result<(), RegressError> {
    let rows: usize = states.iter().map(|(_, a)| a.len()).sum();
    if out.len() != rows {
        return Err(RegressError::WrongLength {
            rows,
            targets: out.len(),
        });
    }
    Ok(())
}

/// The policy at every information state of `tree` (compiled from the
/// policy's game).
pub fn tree_policy<P: BatchPolicy + ?Sized>(
    policy: &P,
    tree: &GameTree,
) -> Result<TreePolicy, RegressError> {
    let mut probs: [Vec<f64>; NUM_PLAYERS] = Default::default();
    for (p, out) in probs.iter_mut().enumerate() {
        let table = tree.infosets(p);
        out.resize(table.num_slots(), 0.0);
        let mut start = 0;
        while start < table.len() {
            let end = (start + CHUNK).min(table.len());
            let states: Vec<(&[Token], &[Action])> = (start..end)
                .map(|i| (&*table.keys[i], table.actions_of(i)))
                .collect();
            let slots = table.slots(start).start..table.slots(end - 1).end;
            policy.write_policies(p, &states, &mut out[slots])?;
            start = end;
        }
    }
    Ok(TreePolicy { probs })
}

/// The policy at every decision row of `tables` (built from the policy's
/// game), for the streaming pass, telling `progress` how many decision
/// rows of both players are done after each chunk: on 3x3 Dark Hex the
/// policy meets 6 to 27 million rows, minutes of a command that should
/// show how far it is.
pub fn row_policy_reporting<P: BatchPolicy + ?Sized>(
    policy: &P,
    tables: &InfoStateTables,
    progress: &dyn Fn(u64),
) -> Result<RowPolicy, RegressError> {
    let mut rows = RowPolicy::uniform(tables);
    fill_rows(policy, tables, &mut rows, &|| false, progress)?;
    Ok(rows)
}

/// [`row_policy_reporting`] without reports, or `None` once `stop` is
/// raised.
pub fn row_policy_until<P: BatchPolicy + ?Sized>(
    policy: &P,
    tables: &InfoStateTables,
    stop: &AtomicBool,
) -> Result<Option<RowPolicy>, RegressError> {
    let mut rows = RowPolicy::uniform(tables);
    let stopped = || stop.load(Ordering::Relaxed);
    let done = fill_rows(policy, tables, &mut rows, &stopped, &|_| {})?;
    Ok(done.then_some(rows))
}

/// Writes `policy` into `rows`, a chunk at a time, telling `progress` the
/// rows done so far after each; false when `stopped` said so before the
/// last chunk.
fn fill_rows<P: BatchPolicy + ?Sized>(
    policy: &P,
    tables: &InfoStateTables,
    rows: &mut RowPolicy,
    stopped: &dyn Fn() -> bool,
    progress: &dyn Fn(u64),
) -> Result<bool, RegressError> {
    let mut done = 0;
    for p in 0..NUM_PLAYERS {
        let t = tables.player(p);
        let decision_rows: Vec<u32> = t.decision_rows().collect();
        for chunk in decision_rows.chunks(CHUNK) {
            if stopped() {
                return Ok(false);
            }
            let keys: Vec<Vec<Token>> = chunk.iter().map(|&r| tables.key_of_row(p, r)).collect();
            let states: Vec<(&[Token], &[Action])> = chunk
                .iter()
                .zip(&keys)
                .map(|(&r, k)| (k.as_slice(), t.actions(r)))
                .collect();
            let mut out: Vec<f64> = vec![0.0; states.iter().map(|s| s.1.len()).sum()];
            policy.write_policies(p, &states, &mut out)?;
            let mut at = 0;
            for &r in chunk {
                let s = t.slots(r);
                let n = s.len();
                rows.probs[p][s].copy_from_slice(&out[at..at + n]);
                at += n;
            }
            done += chunk.len() as u64;
            progress(done);
        }
    }
    Ok(true)
}
