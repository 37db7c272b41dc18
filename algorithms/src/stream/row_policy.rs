//! A policy profile as one probability per slot of the tables, read from
//! and written to policy files (keys are information-state tokens).

use darkhex_games::NUM_PLAYERS;

use super::tables::InfoStateTables;
use crate::policy_file::{InfosetPolicy, PolicyError, PolicyFile, Provenance};

#[derive(Clone, Debug, PartialEq)]
pub struct RowPolicy {
    /// `probs[p][slot]`: player p's probability of the slot's action at its row.
    pub probs: [Vec<f64>; NUM_PLAYERS],
}

impl RowPolicy {
    pub fn uniform(tables: &InfoStateTables) -> RowPolicy {
        let probs = std::array::from_fn(|p| {
            let t = tables.player(p);
            let mut v = vec![0.0; t.num_slots()];
            for row in t.decision_rows() {
                let slots = t.slots(row);
                let u = 1.0 / slots.len() as f64;
                v[slots].fill(u);
            }
            v
        });
        RowPolicy { probs }
    }

    /// The file's policy; decision rows the file lacks play uniformly, and
    /// their number per player is returned. Information states the game
    /// does not have, or listed with other actions, are errors.
    pub fn from_file(
        tables: &InfoStateTables,
        file: &PolicyFile,
    ) -> Result<(RowPolicy, [usize; NUM_PLAYERS]), PolicyError> {
        let mut policy = RowPolicy::uniform(tables);
        let mut missing = [0; NUM_PLAYERS];
        let mismatch = |reason: String| PolicyError::Mismatch {
            game: tables.game().to_string(),
            reason,
        };
        for (p, missing_p) in missing.iter_mut().enumerate() {
            let t = tables.player(p);
            let mut covered = vec![false; t.num_rows()];
            for entry in &file.infosets[p] {
                let row = tables
                    .row_of_key(p, &entry.key)
                    .filter(|&r| t.is_decision(r))
                    .ok_or_else(|| {
                        mismatch(format!(
                            "player {p} has an information state where the game gives them no move ({} observations)",
                            entry.key.len()
                        ))
                    })?;
                if entry.actions != t.actions(row) || entry.probs.len() != entry.actions.len() {
                    return Err(mismatch(format!(
                        "player {p}: the actions of an information state differ"
                    )));
                }
                if std::mem::replace(&mut covered[row as usize], true) {
                    return Err(mismatch(format!(
                        "player {p}: an information state appears twice"
                    )));
                }
                policy.probs[p][t.slots(row)].copy_from_slice(&entry.probs);
            }
            *missing_p = t.num_decision_rows() - file.infosets[p].len();
        }
        Ok((policy, missing))
    }

    /// The policy as a file, every decision row included.
    pub fn to_file(&self, tables: &InfoStateTables, provenance: Provenance) -> PolicyFile {
        let infosets = std::array::from_fn(|p| {
            let t = tables.player(p);
            t.decision_rows()
                .map(|row| InfosetPolicy {
                    key: tables.key_of_row(p, row),
                    actions: t.actions(row).to_vec(),
                    probs: self.probs[p][t.slots(row)].to_vec(),
                })
                .collect()
        });
        PolicyFile::new(tables.game(), provenance, infosets)
    }
}
