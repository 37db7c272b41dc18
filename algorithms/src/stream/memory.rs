//! What a streaming training run holds in memory, so that a run that would
//! not fit is refused before it starts rather than killed hours into it.

use darkhex_games::NUM_PLAYERS;

use super::precision::Precision;
use super::tables::InfoStateTables;
use crate::cfr::tabular::CfrVariant;

/// Bytes of one exact per-slot sum of a pass ([`super::fixed_point`]).
const SUM_BYTES: usize = 16;

/// The parts of a streaming CFR run's memory, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CfrMemory {
    pub tables: usize,
    /// Regrets, average weights and predictions at the chosen precision.
    pub solver_arrays: usize,
    /// The current policy, sequence reaches and payoffs (f64).
    pub working_arrays: usize,
    /// The largest of a CFR pass's or an exploitability pass's exact sums
    /// (one set per thread and a total) with the average policy and payoffs
    /// it needs.
    pub pass: usize,
    /// A checkpoint: a copy of the solver's arrays and their encoding.
    pub checkpoint: usize,
}

impl CfrMemory {
    pub fn new(
        tables: &InfoStateTables,
        variant: CfrVariant,
        precision: Precision,
        threads: usize,
    ) -> CfrMemory {
        let slots = std::array::from_fn(|p| tables.player(p).num_slots());
        CfrMemory::for_tables_of(tables.memory_bytes(), slots, variant, precision, threads)
    }

    /// The memory of a run over tables of `table_bytes` with these slots:
    /// the built tables' counts, or an estimate's before they are built.
    pub fn for_tables_of(
        table_bytes: usize,
        slots: [usize; NUM_PLAYERS],
        variant: CfrVariant,
        precision: Precision,
        threads: usize,
    ) -> CfrMemory {
        let all = slots[0] + slots[1];
        let most = slots[0].max(slots[1]);
        let arrays = if variant.is_predictive() { 3 } else { 2 };
        let solver_arrays = arrays * all * precision.bytes();
        // Current policy for both players; one player's reaches and payoffs.
        let working_arrays = 8 * all + 2 * 8 * most;
        let sets = threads + 1;
        let cfr_pass = SUM_BYTES * sets * most;
        // The average policy, both players' sums, their payoffs and a sweep's copy.
        let exploit_pass = 8 * all + SUM_BYTES * sets * all + 8 * all + 8 * most;
        // MessagePack spends a marker byte on every number.
        let checkpoint = solver_arrays + arrays * all * (precision.bytes() + 1);
        CfrMemory {
            tables: table_bytes,
            solver_arrays,
            working_arrays,
            pass: cfr_pass.max(exploit_pass),
            checkpoint,
        }
    }

    /// The peak: everything but the checkpoint is held throughout, and a
    /// checkpoint is written between passes.
    pub fn total(&self) -> usize {
        self.tables + self.beside_tables()
    }

    /// The peak less the tables.
    pub fn beside_tables(&self) -> usize {
        self.solver_arrays + self.working_arrays + self.pass.max(self.checkpoint)
    }
}
