//! Best responses and policy values from sequence payoffs: one sweep over
//! a player's decision rows from the last to the first, so that every
//! row's later information states are done before it, passing each row's
//! value up to the player's sequence that leads to it.

use darkhex_games::NUM_PLAYERS;

use super::payoffs::SequencePayoffs;
use super::row_policy::RowPolicy;
use super::tables::InfoStateTables;
use crate::best_response::Exploitability;

/// Sweeps player p's rows; `value_of_row` turns a row's completed slot
/// values into the row's value.
fn sweep(
    tables: &InfoStateTables,
    payoffs: &SequencePayoffs,
    player: usize,
    mut value_of_row: impl FnMut(std::ops::Range<usize>, &[f64]) -> f64,
) -> f64 {
    let t = tables.player(player);
    let mut seq = payoffs.slots[player].clone();
    let mut empty = payoffs.empty[player];
    for row in (0..t.num_rows() as u32).rev() {
        let slots = t.slots(row);
        if slots.is_empty() {
            continue;
        }
        let v = value_of_row(slots.clone(), &seq[slots]);
        match t.parent_seq(row) {
            0 => empty += v,
            s => seq[s as usize - 1] += v,
        }
    }
    empty
}

/// Player p's best-response value against the opponent's policy in `payoffs`.
pub fn best_response_value(
    tables: &InfoStateTables,
    payoffs: &SequencePayoffs,
    player: usize,
) -> f64 {
    sweep(tables, payoffs, player, |_, values| {
        values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    })
}

/// Player p's expected utility when they follow `policy` too: equal to
/// `value_p0` (player 0) or its negation (player 1) up to rounding.
pub fn policy_value(
    tables: &InfoStateTables,
    payoffs: &SequencePayoffs,
    policy: &RowPolicy,
    player: usize,
) -> f64 {
    let probs = &policy.probs[player];
    sweep(tables, payoffs, player, |slots, values| {
        probs[slots].iter().zip(values).map(|(p, v)| p * v).sum()
    })
}

/// Both best responses, NashConv and exploitability of the profile whose
/// payoffs these are.
pub fn stream_best_responses(
    tables: &InfoStateTables,
    payoffs: &SequencePayoffs,
) -> Exploitability {
    let br: [f64; NUM_PLAYERS] = std::array::from_fn(|p| best_response_value(tables, payoffs, p));
    let nash_conv = br[0] + br[1];
    Exploitability {
        exploitability: nash_conv / 2.0,
        nash_conv,
        value_p0: payoffs.value_p0,
        best_response_values: br,
    }
}
