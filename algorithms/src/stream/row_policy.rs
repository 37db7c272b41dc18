//! A policy profile as one probability per slot of the tables, read from
//! and written to policy files (keys are information-state tokens).

use std::path::Path;

use darkhex_games::NUM_PLAYERS;
use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};

use super::tables::InfoStateTables;
use crate::files::{self, Encoding};
use crate::policy_file::{
    InfosetPolicy, POLICY_FORMAT, POLICY_VERSION, PolicyError, PolicyFile, Provenance,
};

#[derive(Clone, Debug, PartialEq)]
pub struct RowPolicy {
    /// `probs[p][slot]`: player p's probability of the slot's action at its row.
    pub probs: [Vec<f64>; NUM_PLAYERS],
}

impl RowPolicy {
    pub fn uniform(tables: &InfoStateTables) -> RowPolicy {
        let probs = std::array::from_fn(|p| {
            let t = tables.player(p);
            let mut v = crate::huge_pages::filled(t.num_slots(), 0.0);
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
                .map(|row| self.infoset(tables, p, row))
                .collect()
        });
        PolicyFile::new(tables.game(), provenance, infosets)
    }

    /// Writes [`RowPolicy::to_file`]'s file row by row: on 3x3 Dark Hex the
    /// file's information states held at once take gigabytes.
    pub fn save(
        &self,
        tables: &InfoStateTables,
        provenance: &Provenance,
        path: &Path,
    ) -> Result<(), PolicyError> {
        let view = PolicyFileView {
            format: POLICY_FORMAT,
            version: POLICY_VERSION,
            game: tables.game(),
            provenance,
            infosets: std::array::from_fn(|player| Rows {
                policy: self,
                tables,
                player,
            }),
        };
        files::save_as::<PolicyFile, _>(path, &view, tables.game(), Encoding::for_path(path))?;
        Ok(())
    }

    fn infoset(&self, tables: &InfoStateTables, player: usize, row: u32) -> InfosetPolicy {
        let t = tables.player(player);
        InfosetPolicy {
            key: tables.key_of_row(player, row),
            actions: t.actions(row).to_vec(),
            probs: self.probs[player][t.slots(row)].to_vec(),
        }
    }
}

/// Serialises as a [`PolicyFile`] (same fields, same order).
#[derive(Serialize)]
struct PolicyFileView<'a> {
    format: &'a str,
    version: u32,
    game: &'a str,
    #[serde(flatten)]
    provenance: &'a Provenance,
    infosets: [Rows<'a>; NUM_PLAYERS],
}

/// One player's decision rows, serialised as the file's list of
/// information states, one at a time.
struct Rows<'a> {
    policy: &'a RowPolicy,
    tables: &'a InfoStateTables,
    player: usize,
}

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let t = self.tables.player(self.player);
        let mut seq = serializer.serialize_seq(Some(t.num_decision_rows()))?;
        for row in t.decision_rows() {
            seq.serialize_element(&self.policy.infoset(self.tables, self.player, row))?;
        }
        seq.end()
    }
}
