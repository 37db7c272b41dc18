//! The checkpoints of the reinforcement-learning runs (`darkhex train
//! --algo ppo|mmd|nfsp --checkpoint`): a PPO or MMD run's [`PpoState`]
//! (networks, optimiser, games, random streams, step counter), an NFSP
//! run's [`NfspState`] (both agents' networks, optimisers, replay buffers
//! and reservoirs, random streams), each with its exploitability curve so
//! far, always the checksummed binary form.

use std::path::Path;

use darkhex_games::{AnyGame, Game};
use serde::{Deserialize, Serialize};

use crate::cfr::training::DeepCheckpoint;
use crate::cfr::training::{CHECKPOINT_VERSION, Checkpoint};
use crate::files::{self, Document, Encoding, FileError, FileKind};
use crate::policy_file::{PolicyError, require_game};
use crate::rl::exact::CurvePoint;
use crate::rl::nfsp::NfspState;
use crate::rl::ppo::PpoState;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RlCheckpoint {
    pub format: String,
    pub version: u32,
    pub game: String,
    pub ppo: PpoState,
    /// Training seconds so far (evaluations excluded), across resumed runs.
    pub seconds: f64,
    pub curve: Vec<CurvePoint>,
}

impl Document for RlCheckpoint {
    const KIND: FileKind = FileKind::Checkpoint;
    const VERSION: u32 = CHECKPOINT_VERSION;
    fn game(&self) -> &str {
        &self.game
    }
}

impl RlCheckpoint {
    pub fn new(game: &AnyGame, ppo: PpoState, seconds: f64, curve: Vec<CurvePoint>) -> Self {
        RlCheckpoint {
            format: FileKind::Checkpoint.format().to_string(),
            version: CHECKPOINT_VERSION,
            game: game.game_string(),
            ppo,
            seconds,
            curve,
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        files::save(path, self, Encoding::Binary)
    }

    /// Reads a PPO or MMD checkpoint for `game`: another game's, or
    /// another algorithm's checkpoint, is refused saying so.
    pub fn load_for(path: &Path, game: &AnyGame) -> Result<RlCheckpoint, PolicyError> {
        let c: RlCheckpoint = files::load(path).map_err(|e| match e {
            FileError::Malformed { path, what, .. } => {
                let made_by = match (Checkpoint::load(&path), files::load::<DeepCheckpoint>(&path))
                {
                    (Ok(c), _) => Some(c.algorithm().name().to_string()),
                    (_, Ok(_)) => Some("deep-cfr".to_string()),
                    _ => None,
                };
                let reason = match made_by {
                    Some(a) => format!(
                        "it is not a ppo or mmd checkpoint but a {a} one (resume it with --algo {a})"
                    ),
                    None => "it is not a ppo or mmd checkpoint (resume it with the --algo it was made with)".into(),
                };
                PolicyError::File(FileError::Malformed { path, what, reason })
            }
            e => PolicyError::File(e),
        })?;
        require_game(&c.game, game)?;
        Ok(c)
    }
}

/// An NFSP run's checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NfspCheckpoint {
    pub format: String,
    pub version: u32,
    pub game: String,
    pub nfsp: NfspState,
    /// Training seconds so far (evaluations excluded), across resumed runs.
    pub seconds: f64,
    pub curve: Vec<CurvePoint>,
}

impl Document for NfspCheckpoint {
    const KIND: FileKind = FileKind::Checkpoint;
    const VERSION: u32 = CHECKPOINT_VERSION;
    fn game(&self) -> &str {
        &self.game
    }
}

impl NfspCheckpoint {
    pub fn new(game: &AnyGame, nfsp: NfspState, seconds: f64, curve: Vec<CurvePoint>) -> Self {
        NfspCheckpoint {
            format: FileKind::Checkpoint.format().to_string(),
            version: CHECKPOINT_VERSION,
            game: game.game_string(),
            nfsp,
            seconds,
            curve,
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        files::save(path, self, Encoding::Binary)
    }

    /// Reads an NFSP checkpoint for `game`: another game's, or another
    /// algorithm's checkpoint, is refused saying so.
    pub fn load_for(path: &Path, game: &AnyGame) -> Result<NfspCheckpoint, PolicyError> {
        let c: NfspCheckpoint = files::load(path).map_err(|e| match e {
            FileError::Malformed { path, what, .. } => {
                let reason = match files::load::<RlCheckpoint>(&path) {
                    Ok(c) => {
                        let a = c.ppo.settings.algorithm();
                        format!(
                            "it is not an nfsp checkpoint but a {a} one (resume it with --algo {a})"
                        )
                    }
                    Err(_) => {
                        "it is not an nfsp checkpoint (resume it with the --algo it was made with)"
                            .into()
                    }
                };
                PolicyError::File(FileError::Malformed { path, what, reason })
            }
            e => PolicyError::File(e),
        })?;
        require_game(&c.game, game)?;
        Ok(c)
    }
}
