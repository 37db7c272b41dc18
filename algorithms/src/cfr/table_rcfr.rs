//! RCFR and f-RCFR over the information-state tables, for games whose
//! tree is too large to compile (3x3 Dark Hex).
//!
//! Each iteration is the streaming CFR iteration
//! ([`crate::stream::StreamCfr::iterate_with`]): exact instantaneous
//! regrets from a pass over the histories, cumulative regrets (clipped for
//! RCFR+) and the reach-weighted average updated in the sweep. After a
//! player's sweep, the player's next policy is the link of a linear
//! least-squares fit to their cumulative regrets over every (information
//! state, action) row of their table, as [`super::rcfr`] does on the tree.
//!
//! The design matrix of 3x3 Dark Hex (6.6M + 5.9M rows) does not fit in
//! memory, so no row is stored: each is written again from its row's key
//! by the [`FeatureMap`] whenever a sweep needs it. The Gram matrix
//! `XᵀX + λI` depends on the features alone: it is accumulated and
//! factorised once per run (and again on resuming); each fit accumulates
//! `Xᵀy` in one sweep and solves the small d×d system, and a second sweep
//! predicts each row and applies the link. Both sums are exact
//! ([`crate::fa::regress`]), so neither the thread count nor the order of
//! the rows changes a bit: the fit over the tables gives the weights the
//! fit on the compiled tree gives, and each row's prediction sums its
//! nonzero columns in ascending order there as here.
//!
//! Networks are not fitted over the tables: they would need the rows in
//! memory or many sweeps per fit.

use std::ops::Range;

use faer::Mat;
use rayon::prelude::*;

use darkhex_games::{AnyGame, NUM_PLAYERS};

use crate::cfr::rcfr::{MAX_FEATURE_CELLS, RcfrError, RcfrSettings, RegressorKind};
use crate::fa::features::{FeatureMap, Pair};
use crate::fa::regress::{GramSums, RegressError, add_to_rhs, check_term, dot, solve_factored};
use crate::stream::{InfoStateTables, Real};

/// Rows per piece of the parallel sweeps.
const ROWS_PER_CHUNK: u32 = 1 << 12;

/// The regressors of an RCFR run over the tables: the feature map and each
/// player's factorised Gram matrix.
pub struct TableRegression {
    settings: RcfrSettings,
    map: FeatureMap,
    /// Each player's lower Cholesky factor of `XᵀX + λI`.
    factors: [Mat<f64>; NUM_PLAYERS],
}

impl TableRegression {
    /// Checks the settings and factorises each player's Gram matrix (one
    /// sweep over their rows).
    pub fn new(
        game: &AnyGame,
        tables: &InfoStateTables,
        settings: RcfrSettings,
    ) -> Result<TableRegression, RcfrError> {
        settings.check()?;
        if let RegressorKind::Mlp(_) = settings.regressor {
            return Err(RcfrError::NetworkOverTables);
        }
        let slots = std::array::from_fn(|p| tables.player(p).num_slots());
        let map = FeatureMap::new(settings.features, game, slots);
        for p in 0..NUM_PLAYERS {
            let columns = map.width(p);
            if columns.saturating_mul(columns) > MAX_FEATURE_CELLS {
                return Err(RcfrError::GramTooLarge {
                    features: settings.features.name(),
                    game: tables.game().to_string(),
                    columns,
                    limit: MAX_FEATURE_CELLS,
                });
            }
        }
        let mut factors = Vec::with_capacity(NUM_PLAYERS);
        for p in 0..NUM_PLAYERS {
            factors.push(factorise(&map, tables, p, settings.ridge)?);
        }
        let factors = match factors.try_into() {
            Ok(f) => f,
            Err(_) => unreachable!("one factor per player"),
        };
        Ok(TableRegression {
            settings,
            map,
            factors,
        })
    }

    pub fn settings(&self) -> RcfrSettings {
        self.settings
    }

    /// Fits `player`'s cumulative `regrets` (one per slot of their table)
    /// and writes the link of the fitted regrets into `current`.
    pub fn policy<T: Real>(
        &self,
        tables: &InfoStateTables,
        player: usize,
        regrets: &[T],
        current: &mut [f64],
    ) -> Result<(), RcfrError> {
        let weights = self.fit(tables, player, regrets)?;
        self.play(tables, player, &weights, current);
        Ok(())
    }

    /// The least-squares weights of `regrets`.
    pub fn fit<T: Real>(
        &self,
        tables: &InfoStateTables,
        player: usize,
        regrets: &[T],
    ) -> Result<Vec<f64>, RcfrError> {
        let table = tables.player(player);
        if regrets.len() != table.num_slots() {
            return Err(RegressError::WrongLength {
                rows: table.num_slots(),
                targets: regrets.len(),
            }
            .into());
        }
        // Features are at most 1 (see the feature map's notes).
        let largest = regrets
            .iter()
            .fold(0.0, |m: f64, r| m.max(r.to_f64().abs()));
        check_term(largest)?;
        let columns = self.map.width(player);
        let rhs = chunks(table.num_rows())
            .into_par_iter()
            .fold(
                || vec![0i128; columns],
                |mut rhs, rows| {
                    let mut writer = RowWriter::new(&self.map, tables, player);
                    writer.each_slot(rows, |slot, row| {
                        add_to_rhs(&mut rhs, row.iter().copied(), regrets[slot].to_f64());
                    });
                    rhs
                },
            )
            .reduce(
                || vec![0i128; columns],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        Ok(solve_factored(&self.factors[player], &rhs)?)
    }

    /// Writes into `current` the link of each row's value under `weights`.
    fn play(&self, tables: &InfoStateTables, player: usize, weights: &[f64], current: &mut [f64]) {
        let table = tables.player(player);
        let ranges = chunks(table.num_rows());
        // Each chunk of rows owns the consecutive slots of its rows.
        let mut pieces = Vec::with_capacity(ranges.len());
        let mut rest = current;
        let mut at = 0;
        for rows in &ranges {
            let end = table.row(rows.end).slot_start as usize;
            let (piece, tail) = rest.split_at_mut(end - at);
            pieces.push((rows.clone(), at, piece));
            rest = tail;
            at = end;
        }
        let link = self.settings.link;
        pieces.into_par_iter().for_each(|(rows, first, piece)| {
            let mut writer = RowWriter::new(&self.map, tables, player);
            let mut fitted = Vec::new();
            writer.each_row(rows, |slots, rows| {
                fitted.clear();
                fitted.extend(rows.iter().map(|row| dot(weights, row.iter().copied())));
                link.apply(&fitted, &mut piece[slots.start - first..slots.end - first]);
            });
        });
    }
}

/// Player `player`'s factorised Gram matrix. One sweep, sequential: a
/// copy of the sums per thread would be as large as the tables with
/// one-hot features.
fn factorise(
    map: &FeatureMap,
    tables: &InfoStateTables,
    player: usize,
    ridge: f64,
) -> Result<Mat<f64>, RcfrError> {
    let mut gram = GramSums::new(map.width(player));
    let mut writer = RowWriter::new(map, tables, player);
    writer.each_slot(0..tables.player(player).num_rows() as u32, |_, row| {
        gram.add(row.iter().copied());
    });
    Ok(gram.factor(ridge)?)
}

/// The fixed chunks of `rows` rows the parallel sweeps split them into.
fn chunks(rows: usize) -> Vec<Range<u32>> {
    let rows = rows as u32;
    (0..rows.div_ceil(ROWS_PER_CHUNK))
        .map(|c| c * ROWS_PER_CHUNK..((c + 1) * ROWS_PER_CHUNK).min(rows))
        .collect()
}

/// Writes a player's feature rows from their table's keys, one decision
/// row at a time, as sparse (column, value) entries in ascending column
/// order: the entries the tree's [`crate::fa::regress::Design`] keeps.
struct RowWriter<'a> {
    map: &'a FeatureMap,
    tables: &'a InfoStateTables,
    player: usize,
    dense: Vec<f64>,
    /// The current decision row's slots' entries, one list per slot.
    rows: Vec<Vec<(usize, f64)>>,
}

impl<'a> RowWriter<'a> {
    fn new(map: &'a FeatureMap, tables: &'a InfoStateTables, player: usize) -> Self {
        RowWriter {
            map,
            tables,
            player,
            dense: vec![0.0; map.width(player)],
            rows: Vec::new(),
        }
    }

    /// Calls `f(slots, rows)` for each decision row among `rows`, in order,
    /// with its slots and their feature rows.
    fn each_row(
        &mut self,
        rows: Range<u32>,
        mut f: impl FnMut(Range<usize>, &[Vec<(usize, f64)>]),
    ) {
        let table = self.tables.player(self.player);
        for row in rows {
            let slots = table.slots(row);
            if slots.is_empty() {
                continue;
            }
            let key = self.tables.key_of_row(self.player, row);
            self.rows.resize_with(slots.len(), Vec::new);
            for (entries, slot) in self.rows.iter_mut().zip(slots.clone()) {
                let pair = Pair {
                    key: &key,
                    action: table.slot_action(slot),
                    slot,
                };
                self.map.write_row(self.player, pair, &mut self.dense);
                entries.clear();
                entries.extend(
                    self.dense
                        .iter()
                        .enumerate()
                        .filter(|&(_, &v)| v != 0.0)
                        .map(|(j, &v)| (j, v)),
                );
            }
            f(slots.clone(), &self.rows[..slots.len()]);
        }
    }

    /// Calls `f(slot, row)` for each slot of the decision rows among
    /// `rows`, in slot order.
    fn each_slot(&mut self, rows: Range<u32>, mut f: impl FnMut(usize, &[(usize, f64)])) {
        self.each_row(rows, |slots, entries| {
            for (slot, row) in slots.zip(entries) {
                f(slot, row);
            }
        });
    }
}
