//! The network trainers as the loop drives them: PPO and MMD, NFSP,
//! ESCHER and Deep CFR, each with its step, its checkpoint and its model.

use std::path::Path;

use darkhex_games::AnyGame;

use super::{DriveError, NetworkTrainer};
use crate::cfr::deep_cfr::DeepCfrSolver;
use crate::cfr::escher::{EscherCheckpoint, EscherSolver};
use crate::cfr::training::DeepCheckpoint;
use crate::fa::model::{ModelProvenance, PolicyModel};
use crate::rl::checkpoint::{NfspCheckpoint, RlCheckpoint};
use crate::rl::exact::CurvePoint;
use crate::rl::nfsp::NfspTrainer;
use crate::rl::ppo::PpoTrainer;

/// A PPO or MMD run.
pub struct Ppo {
    pub trainer: PpoTrainer,
    /// The last model taken from the networks.
    model: Option<PolicyModel>,
}

impl Ppo {
    pub fn new(trainer: PpoTrainer) -> Ppo {
        Ppo {
            trainer,
            model: None,
        }
    }
}

impl NetworkTrainer for Ppo {
    const UNIT: &'static str = "step";
    const MODEL_WHEN_STOPPED: bool = true;

    fn algorithm(&self) -> &'static str {
        self.trainer.settings().algorithm()
    }

    fn position(&self) -> u64 {
        self.trainer.steps()
    }

    fn target(&self) -> u64 {
        self.trainer.settings().steps
    }

    fn done(&self) -> bool {
        self.trainer.done()
    }

    fn advance(&mut self) -> Result<(), DriveError> {
        self.trainer.update()?;
        Ok(())
    }

    fn save(&mut self, path: &Path, seconds: f64, curve: &[CurvePoint]) -> Result<(), DriveError> {
        let state = self.trainer.state()?;
        RlCheckpoint::new(self.trainer.game(), state, seconds, curve.to_vec()).save(path)?;
        Ok(())
    }

    fn model(&mut self) -> Result<&PolicyModel, DriveError> {
        Ok(self.model.insert(self.trainer.model()?))
    }

    fn into_model(mut self) -> Result<PolicyModel, DriveError> {
        Ok(self.trainer.model()?)
    }

    fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance {
        self.trainer.provenance(exploitability)
    }
}

/// An NFSP run.
pub struct Nfsp {
    pub trainer: NfspTrainer,
    /// The last model taken from the average networks.
    model: Option<PolicyModel>,
}

impl Nfsp {
    pub fn new(trainer: NfspTrainer) -> Nfsp {
        Nfsp {
            trainer,
            model: None,
        }
    }
}

impl NetworkTrainer for Nfsp {
    const UNIT: &'static str = "step";
    const MODEL_WHEN_STOPPED: bool = true;

    fn algorithm(&self) -> &'static str {
        "nfsp"
    }

    fn position(&self) -> u64 {
        self.trainer.steps()
    }

    fn target(&self) -> u64 {
        self.trainer.settings().steps
    }

    fn advance(&mut self) -> Result<(), DriveError> {
        Ok(self.trainer.play_game()?)
    }

    fn save(&mut self, path: &Path, seconds: f64, curve: &[CurvePoint]) -> Result<(), DriveError> {
        let state = self.trainer.state()?;
        NfspCheckpoint::new(self.trainer.game(), state, seconds, curve.to_vec()).save(path)?;
        Ok(())
    }

    fn model(&mut self) -> Result<&PolicyModel, DriveError> {
        Ok(self.model.insert(self.trainer.model()?))
    }

    fn into_model(mut self) -> Result<PolicyModel, DriveError> {
        Ok(self.trainer.model()?)
    }

    fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance {
        self.trainer.provenance(exploitability)
    }
}

/// An ESCHER run: its policy networks fitted for each evaluation and the
/// model.
pub struct Escher {
    pub solver: EscherSolver,
    pub game: AnyGame,
}

impl NetworkTrainer for Escher {
    const UNIT: &'static str = "iteration";
    const MODEL_WHEN_STOPPED: bool = false;

    fn algorithm(&self) -> &'static str {
        "escher"
    }

    fn position(&self) -> u64 {
        self.solver.iteration()
    }

    fn target(&self) -> u64 {
        self.solver.settings().iterations
    }

    fn advance(&mut self) -> Result<(), DriveError> {
        Ok(self.solver.iterate()?)
    }

    fn save(&mut self, path: &Path, seconds: f64, curve: &[CurvePoint]) -> Result<(), DriveError> {
        EscherCheckpoint::new(&self.game, self.solver.state(), seconds, curve.to_vec())
            .save(path)?;
        Ok(())
    }

    fn model(&mut self) -> Result<&PolicyModel, DriveError> {
        self.solver.train_policy()?;
        Ok(self.solver.model()?)
    }

    fn into_model(mut self) -> Result<PolicyModel, DriveError> {
        self.solver.train_policy()?;
        Ok(self.solver.into_model()?)
    }

    fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance {
        self.solver.provenance(exploitability)
    }

    fn fitting(&self) -> Option<String> {
        Some("while fitting escher's policy networks (the model is not written yet)".into())
    }
}

/// A Deep CFR run: no evaluations as it goes (each needs the policy
/// networks fitted), one at the end where the tree compiles.
pub struct DeepCfr {
    pub solver: DeepCfrSolver,
    pub game: AnyGame,
    /// The iteration the policy networks were last fitted at.
    fitted: Option<u64>,
}

impl DeepCfr {
    pub fn new(solver: DeepCfrSolver, game: AnyGame) -> DeepCfr {
        DeepCfr {
            solver,
            game,
            fitted: None,
        }
    }

    fn fit(&mut self) -> Result<(), DriveError> {
        let at = self.solver.iteration();
        if self.fitted != Some(at) {
            self.solver.train_policy()?;
            self.fitted = Some(at);
        }
        Ok(())
    }
}

impl NetworkTrainer for DeepCfr {
    const UNIT: &'static str = "iteration";
    const MODEL_WHEN_STOPPED: bool = false;

    fn algorithm(&self) -> &'static str {
        "deep-cfr"
    }

    fn position(&self) -> u64 {
        self.solver.iteration()
    }

    fn target(&self) -> u64 {
        self.solver.settings().iterations
    }

    fn advance(&mut self) -> Result<(), DriveError> {
        Ok(self.solver.iterate()?)
    }

    fn save(&mut self, path: &Path, seconds: f64, _curve: &[CurvePoint]) -> Result<(), DriveError> {
        DeepCheckpoint::new(&self.game, self.solver.state(), seconds).save(path)?;
        Ok(())
    }

    fn model(&mut self) -> Result<&PolicyModel, DriveError> {
        self.fit()?;
        Ok(self.solver.model()?)
    }

    fn into_model(mut self) -> Result<PolicyModel, DriveError> {
        self.fit()?;
        Ok(self.solver.into_model()?)
    }

    fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance {
        self.solver.provenance(exploitability)
    }

    fn fitting(&self) -> Option<String> {
        Some("while fitting deep-cfr's policy networks (the model is not written yet)".into())
    }
}
