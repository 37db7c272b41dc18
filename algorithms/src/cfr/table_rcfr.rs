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
//! A network is fitted to a sample of each player's rows: `steps x batch`
//! slots drawn uniformly (every slot, in order, when the table has no
//! more), their rows written from their keys, the network's Adam steps run
//! on them, and one sweep predicts every row. The design matrix of all
//! rows would not fit in memory, and a sweep per Adam step would cost a
//! pass over the tables each. Each fit starts from the same initial
//! weights and draws its sample from a stream of the seed, the iteration
//! and the player, so the fit depends on the regrets alone, as the
//! least-squares fit does: a resumed run refits its last regrets and goes
//! on bit for bit, with no network in the checkpoint. (On the compiled
//! tree a network keeps its weights from one iteration to the next.)

use std::ops::Range;

use faer::Mat;
use rayon::prelude::*;

use darkhex_games::{AnyGame, NUM_PLAYERS};

use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::cfr::rcfr::{MAX_FEATURE_CELLS, RcfrError, RcfrSettings, RegressorKind};
use crate::fa::features::{FeatureMap, Pair};
use crate::fa::mlp::{Mlp, MlpSettings};
use crate::fa::regress::{
    Design, GramSums, RegressError, Regressor, add_to_rhs, check_term, dot, solve_factored,
};
use crate::stream::{InfoStateTables, PlayerTable, Real};

/// Rows per piece of the parallel sweeps.
const ROWS_PER_CHUNK: u32 = 1 << 12;

/// The regressors of an RCFR run over the tables: the feature map and what
/// fits it.
pub struct TableRegression {
    settings: RcfrSettings,
    map: FeatureMap,
    fit: Fit,
}

enum Fit {
    /// Each player's lower Cholesky factor of `XᵀX + λI`.
    LeastSquares([Mat<f64>; NUM_PLAYERS]),
    /// A network fitted afresh to a sample of the rows at each iteration.
    Network(MlpSettings),
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
        let slots = std::array::from_fn(|p| tables.player(p).num_slots());
        let map = FeatureMap::new(settings.features, game, slots);
        if let RegressorKind::Mlp(network) = settings.regressor {
            return Ok(TableRegression {
                settings,
                map,
                fit: Fit::Network(network),
            });
        }
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
            fit: Fit::LeastSquares(factors),
        })
    }

    pub fn settings(&self) -> RcfrSettings {
        self.settings
    }

    /// Fits `player`'s cumulative `regrets` (one per slot of their table)
    /// after `iteration` iterations and writes the link of the fitted
    /// regrets into `current`.
    pub fn policy<T: Real>(
        &self,
        tables: &InfoStateTables,
        player: usize,
        regrets: &[T],
        current: &mut [f64],
        iteration: u64,
    ) -> Result<(), RcfrError> {
        let table = tables.player(player);
        if regrets.len() != table.num_slots() {
            return Err(RegressError::WrongLength {
                rows: table.num_slots(),
                targets: regrets.len(),
            }
            .into());
        }
        match &self.fit {
            Fit::LeastSquares(factors) => {
                let weights = self.fit(tables, player, regrets, &factors[player])?;
                self.play(tables, player, current, |rows, fitted| {
                    fitted.extend(rows.iter().map(|row| dot(&weights, row.iter().copied())));
                    Ok(())
                })
            }
            Fit::Network(network) => {
                let model = self.fit_network(*network, tables, player, regrets, iteration)?;
                self.play_network(tables, player, &model, current)
            }
        }
    }

    /// The least-squares weights of `regrets`.
    fn fit<T: Real>(
        &self,
        tables: &InfoStateTables,
        player: usize,
        regrets: &[T],
        factor: &Mat<f64>,
    ) -> Result<Vec<f64>, RcfrError> {
        let table = tables.player(player);
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
        Ok(solve_factored(factor, &rhs)?)
    }

    /// A network fitted to `regrets` on a sample of the player's slots:
    /// `steps x batch` drawn uniformly from a stream of the seed, the
    /// iteration and the player, or every slot in order when there are no
    /// more.
    fn fit_network<T: Real>(
        &self,
        network: MlpSettings,
        tables: &InfoStateTables,
        player: usize,
        regrets: &[T],
        iteration: u64,
    ) -> Result<Mlp, RcfrError> {
        let table = tables.player(player);
        let slots = table.num_slots();
        let wanted = network.steps as usize * network.batch as usize;
        let sample: Vec<usize> = if slots <= wanted {
            (0..slots).collect()
        } else {
            let mut rng = ChaCha8Rng::seed_from_u64(network.seed);
            rng.set_stream(iteration.wrapping_mul(NUM_PLAYERS as u64) + player as u64);
            (0..wanted).map(|_| rng.random_range(0..slots)).collect()
        };
        let columns = self.map.width(player);
        let mut x = Array2::zeros((sample.len(), columns));
        let mut targets = Vec::with_capacity(sample.len());
        for (mut out, &slot) in x.rows_mut().into_iter().zip(&sample) {
            let row = row_of_slot(table, slot);
            let key = tables.key_of_row(player, row);
            let pair = Pair {
                key: &key,
                action: table.slot_action(slot),
                slot,
            };
            let out = out
                .as_slice_mut()
                .expect("the rows of a fresh array are contiguous");
            self.map.write_row(player, pair, out);
            targets.push(regrets[slot].to_f64());
        }
        let mut model = Mlp::new(network, columns, player as u64)?;
        model.fit(&Design::new(x), &targets)?;
        Ok(model)
    }

    /// Writes into `current` the link of the network's value of each row.
    fn play_network(
        &self,
        tables: &InfoStateTables,
        player: usize,
        model: &Mlp,
        current: &mut [f64],
    ) -> Result<(), RcfrError> {
        let columns = self.map.width(player);
        self.play(tables, player, current, |rows, fitted| {
            // One forward pass for the chunk's rows.
            let mut batch = vec![0.0f32; rows.len() * columns];
            for (i, row) in rows.iter().enumerate() {
                for &(j, v) in row {
                    batch[i * columns + j] = v as f32;
                }
            }
            fitted.resize(rows.len(), 0.0);
            model.predict_rows(batch, fitted)
        })
    }

    /// Writes into `current` the link of each row's fitted values, which
    /// `predict(rows, fitted)` appends to `fitted`, one for each of the
    /// feature rows of a chunk's slots, in order. Chunks of rows run in
    /// parallel.
    fn play(
        &self,
        tables: &InfoStateTables,
        player: usize,
        current: &mut [f64],
        predict: impl Fn(&SparseRows, &mut Vec<f64>) -> Result<(), RegressError> + Sync,
    ) -> Result<(), RcfrError> {
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
        pieces.into_par_iter().try_for_each(|(rows, first, piece)| {
            let mut writer = RowWriter::new(&self.map, tables, player);
            let mut features = SparseRows::default();
            let mut decisions = Vec::new();
            writer.each_row(rows, |slots, rows| {
                for row in rows {
                    features.push(row);
                }
                decisions.push(slots);
            });
            let mut fitted = Vec::with_capacity(features.len());
            predict(&features, &mut fitted)?;
            for slots in decisions {
                let (a, b) = (slots.start - first, slots.end - first);
                link.apply(&fitted[a..b], &mut piece[a..b]);
            }
            Ok(())
        })
    }
}

/// Sparse feature rows end to end: each row's (column, value) entries in
/// ascending column order.
#[derive(Default)]
struct SparseRows {
    entries: Vec<(usize, f64)>,
    ends: Vec<usize>,
}

impl SparseRows {
    fn push(&mut self, row: &[(usize, f64)]) {
        self.entries.extend_from_slice(row);
        self.ends.push(self.entries.len());
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn iter(&self) -> impl Iterator<Item = &[(usize, f64)]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(a, &b)| &self.entries[a..b])
    }
}

/// The row (information state) whose slots hold `slot`: the last row
/// whose first slot is at most `slot` (rows without slots share their
/// first slot with the next row, and are passed over).
fn row_of_slot(table: &PlayerTable, slot: usize) -> u32 {
    // row(lo) starts at or before `slot`; row(hi) (the sentinel at the
    // end) after it.
    let (mut lo, mut hi) = (0u32, table.num_rows() as u32);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if table.row(mid).slot_start as usize <= slot {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
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
