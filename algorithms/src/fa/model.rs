//! A trained policy network as a policy: the policy it plays at any
//! information state, over a compiled tree or the streaming tables, and
//! its file (`darkhex-model`), which `exploit`, `play` and the league read
//! where they read a policy file.
//!
//! A network has one output per action of the game, and takes one of two
//! inputs ([`ModelInput`]): what the player observed (the observation
//! features of [`FeatureKind::Observation`], Deep CFR's) or the game's
//! information-state tensor (the reinforcement-learning trainers'). Its
//! policy at an information state comes from its legal actions' outputs
//! by one of two heads ([`PolicyHead`]): clipped at zero and normalised
//! (Deep CFR's networks regress probabilities; uniform when none is
//! positive), or a softmax (PPO's and MMD's are logits). A player without
//! a network plays uniformly.
//!
//! The file holds the game string, the input's name, the head, each
//! network's input width, shape and weights, and the training's settings;
//! its binary form is checksummed (see [`crate::files`]). Loading checks
//! the game, and that the game has the feature map and gives it the width
//! the networks were trained on: a model cannot be run on another board.
//!
//! Networks are called on batches of at most [`CHUNK`] information states
//! (see [`crate::fa::batch_policy`]).

use std::path::Path;
use std::sync::atomic::AtomicBool;

use darkhex_games::{Action, AnyGame, Game, NUM_PLAYERS, Tensors, Token};
use serde::{Deserialize, Serialize};

use crate::cfr::deep_cfr_settings::DeepCfrSettings;
use crate::cfr::escher_settings::EscherSettings;
pub use crate::fa::batch_policy::CHUNK;
use crate::fa::batch_policy::{self, BatchPolicy};
use crate::fa::features::{FeatureKind, FeatureMap};
use crate::fa::mlp::{Mlp, MlpParams, MlpSettings};
use crate::fa::regress::RegressError;
use crate::files::{self, Document, Encoding, FileError, FileKind};
use crate::policy::{TreePolicy, normalise};
use crate::policy_file::{PolicyError, require_game};
use crate::rl::nfsp_settings::NfspSettings;
use crate::rl::ppo_settings::PpoSettings;
use crate::stream::{InfoStateTables, RowPolicy};
use crate::tree::GameTree;

pub const MODEL_VERSION: u32 = 1;

/// One player's network as the file holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetworkFile {
    pub inputs: usize,
    pub settings: MlpSettings,
    pub params: MlpParams,
}

/// How a network's legal outputs become a policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyHead {
    /// Clipped at zero and normalised, uniform when none is positive:
    /// Deep CFR's policy network regresses probabilities (files written
    /// before there was a choice hold such networks).
    #[default]
    Clipped,
    /// A softmax over the legal actions' outputs: PPO's and MMD's actor
    /// gives logits.
    Softmax,
}

/// How the training that made a model was set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Training {
    DeepCfr(DeepCfrSettings),
    /// PPO or MMD (the settings say which).
    PolicyGradient(PpoSettings),
    Escher(EscherSettings),
    Nfsp(NfspSettings),
}

/// A policy model file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelFile {
    pub format: String,
    pub version: u32,
    pub game: String,
    /// The algorithm that trained it (`deep-cfr`, `ppo`, `mmd`).
    pub algorithm: String,
    /// The networks' input ([`ModelInput::name`]).
    pub features: String,
    /// Deep CFR's iterations; the steps of PPO and MMD.
    pub iterations: u64,
    /// Exact exploitability when the training could compute it.
    pub exploitability: Option<f64>,
    pub training: Training,
    /// Each player's network; none for a player who never moved in training.
    pub networks: [Option<NetworkFile>; NUM_PLAYERS],
    /// Files written before there was a choice have clipped outputs.
    #[serde(default)]
    pub head: PolicyHead,
}

impl Document for ModelFile {
    const KIND: FileKind = FileKind::Model;
    const VERSION: u32 = MODEL_VERSION;
    fn game(&self) -> &str {
        &self.game
    }
}

/// What a model says about how it was made.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelProvenance {
    pub algorithm: String,
    pub iterations: u64,
    pub exploitability: Option<f64>,
    pub training: Training,
}

/// What a model's networks take.
#[derive(Clone, Debug)]
pub enum ModelInput {
    /// A feature map's observation features.
    Features(FeatureMap),
    /// The game's information-state tensor.
    Tensor,
}

impl ModelInput {
    /// The information-state tensor's name in a file.
    pub const TENSOR: &'static str = "info-state-tensor";

    /// The name a file gives it.
    pub fn name(&self) -> &'static str {
        match self {
            ModelInput::Features(map) => map.kind().name(),
            ModelInput::Tensor => Self::TENSOR,
        }
    }

    /// Its width on `game`.
    pub fn width(&self, game: &AnyGame) -> usize {
        match self {
            ModelInput::Features(map) => map.observation_width(),
            ModelInput::Tensor => game.information_state_tensor_size(),
        }
    }
}

/// What a model's networks take, its head, and each player's network: a
/// policy at every information state of the game.
pub struct PolicyModel {
    game: AnyGame,
    input: ModelInput,
    head: PolicyHead,
    networks: [Option<Mlp>; NUM_PLAYERS],
}

impl PolicyModel {
    /// Deep CFR's: `networks[p]` takes `map.observation_width()` inputs and
    /// has one output per action of `game`; clipped outputs.
    pub fn new(game: AnyGame, map: FeatureMap, networks: [Option<Mlp>; NUM_PLAYERS]) -> Self {
        PolicyModel {
            game,
            input: ModelInput::Features(map),
            head: PolicyHead::Clipped,
            networks,
        }
    }

    /// Networks on the game's information-state tensor, one output per
    /// action of `game`, read by `head`.
    pub fn on_tensors(
        game: AnyGame,
        networks: [Option<Mlp>; NUM_PLAYERS],
        head: PolicyHead,
    ) -> Self {
        PolicyModel {
            game,
            input: ModelInput::Tensor,
            head,
            networks,
        }
    }

    pub fn game(&self) -> &AnyGame {
        &self.game
    }

    pub fn input(&self) -> &ModelInput {
        &self.input
    }

    pub fn head(&self) -> PolicyHead {
        self.head
    }

    /// `player`'s policy at one information state.
    pub fn policy(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Vec<f64>, RegressError> {
        let mut out = vec![0.0; actions.len()];
        self.write_policies(player, &[(key, actions)], &mut out)?;
        Ok(out)
    }

    /// The policy at every information state of `tree` (compiled from
    /// this model's game).
    pub fn tree_policy(&self, tree: &GameTree) -> Result<TreePolicy, RegressError> {
        batch_policy::tree_policy(self, tree)
    }

    /// The policy at every decision row of `tables` (built from this
    /// model's game), for the streaming pass.
    pub fn row_policy(&self, tables: &InfoStateTables) -> Result<RowPolicy, RegressError> {
        batch_policy::row_policy_reporting(self, tables, &|_| {})
    }

    /// [`PolicyModel::row_policy`], telling `progress` how many decision
    /// rows of both players are done after each batch.
    pub fn row_policy_reporting(
        &self,
        tables: &InfoStateTables,
        progress: &dyn Fn(u64),
    ) -> Result<RowPolicy, RegressError> {
        batch_policy::row_policy_reporting(self, tables, progress)
    }

    /// [`PolicyModel::row_policy`], or `None` once `stop` is raised.
    pub fn row_policy_until(
        &self,
        tables: &InfoStateTables,
        stop: &AtomicBool,
    ) -> Result<Option<RowPolicy>, RegressError> {
        batch_policy::row_policy_until(self, tables, stop)
    }

    /// The model as a file.
    pub fn to_file(&self, provenance: ModelProvenance) -> ModelFile {
        ModelFile {
            format: FileKind::Model.format().to_string(),
            version: MODEL_VERSION,
            game: self.game.game_string(),
            algorithm: provenance.algorithm,
            features: self.input.name().to_string(),
            iterations: provenance.iterations,
            exploitability: provenance.exploitability,
            training: provenance.training,
            networks: std::array::from_fn(|p| {
                self.networks[p].as_ref().map(|net| NetworkFile {
                    inputs: self.input.width(&self.game),
                    settings: net.settings(),
                    params: net.params().clone(),
                })
            }),
            head: self.head,
        }
    }

    /// Writes the model (JSON when the name ends in `.json`, else the
    /// checksummed binary form), atomically.
    pub fn save(&self, path: &Path, provenance: ModelProvenance) -> Result<(), PolicyError> {
        let file = self.to_file(provenance);
        Ok(files::save(path, &file, Encoding::for_path(path))?)
    }

    /// Reads a model file for `game`, refusing a file for another game and
    /// a feature map the game does not have or gives another width.
    pub fn load_for(path: &Path, game: &AnyGame) -> Result<(PolicyModel, ModelFile), PolicyError> {
        let mut file: ModelFile = files::load(path)?;
        let model = PolicyModel::from_file(&mut file, game, path)?;
        Ok((model, file))
    }

    /// The model of `file` (its weights moved out) for `game`.
    fn from_file(
        file: &mut ModelFile,
        game: &AnyGame,
        path: &Path,
    ) -> Result<PolicyModel, PolicyError> {
        require_game(&file.game, game)?;
        let ours = game.game_string();
        let mismatch = |reason: String| PolicyError::Mismatch {
            game: ours.clone(),
            reason,
        };
        let input = match FeatureKind::parse(&file.features) {
            Some(FeatureKind::Observation) => ModelInput::Features(FeatureMap::new(
                FeatureKind::Observation,
                game,
                [0; NUM_PLAYERS],
            )),
            _ if file.features == ModelInput::TENSOR => ModelInput::Tensor,
            _ => {
                return Err(mismatch(format!(
                    "the model's input is '{}'; a model runs on the feature map obs or on the {}",
                    file.features,
                    ModelInput::TENSOR
                )));
            }
        };
        let width = input.width(game);
        let mut networks: [Option<Mlp>; NUM_PLAYERS] = Default::default();
        for (p, slot) in networks.iter_mut().enumerate() {
            let Some(net) = file.networks[p].take() else {
                continue;
            };
            if net.inputs != width {
                return Err(mismatch(format!(
                    "player {p}'s network takes {} features, and the game's {} is {width} wide",
                    net.inputs,
                    input.name(),
                )));
            }
            if net.params.outputs != game.num_distinct_actions() {
                return Err(mismatch(format!(
                    "player {p}'s network has {} outputs, and the game has {} actions",
                    net.params.outputs,
                    game.num_distinct_actions()
                )));
            }
            net.settings
                .check()
                .map_err(|reason| malformed(path, p, reason))?;
            let mlp = Mlp::with_params(net.settings, net.inputs, net.params)
                .map_err(|e| malformed(path, p, e.to_string()))?;
            *slot = Some(mlp);
        }
        Ok(PolicyModel {
            game: *game,
            input,
            head: file.head,
            networks,
        })
    }
}

/// One network call for a batch.
impl BatchPolicy for PolicyModel {
    fn game(&self) -> &AnyGame {
        &self.game
    }

    /// Writes `player`'s policy at each of `states` (a key and its legal
    /// actions) into `out`, one probability per action, in order: one
    /// network call for all of them.
    fn write_policies(
        &self,
        player: usize,
        states: &[(&[Token], &[Action])],
        out: &mut [f64],
    ) -> Result<(), RegressError> {
        batch_policy::check_rows(states, out)?;
        let Some(net) = &self.networks[player] else {
            let mut at = 0;
            for (_, actions) in states {
                out[at..at + actions.len()].fill(1.0 / actions.len() as f64);
                at += actions.len();
            }
            return Ok(());
        };
        let width = self.input.width(&self.game);
        let outputs = self.game.num_distinct_actions();
        let mut x = vec![0.0f32; states.len() * width];
        match &self.input {
            ModelInput::Features(map) => {
                let mut row = vec![0.0f64; width];
                for (&(key, _), chunk) in states.iter().zip(x.chunks_exact_mut(width)) {
                    map.write_observation(player, key, &mut row);
                    chunk.iter_mut().zip(&row).for_each(|(o, &v)| *o = v as f32);
                }
            }
            ModelInput::Tensor => {
                for (&(key, _), chunk) in states.iter().zip(x.chunks_exact_mut(width)) {
                    self.game
                        .information_state_tensor_of_key(player, key, chunk)
                        .map_err(RegressError::BadKey)?;
                }
            }
        }
        let mut y = vec![0.0; states.len() * outputs];
        net.predict_rows(x, &mut y)?;
        let mut at = 0;
        let mut legal = Vec::new();
        for (i, (_, actions)) in states.iter().enumerate() {
            let outputs = actions.iter().map(|&a| y[i * outputs + a as usize]);
            let probs = &mut out[at..at + actions.len()];
            match self.head {
                PolicyHead::Clipped => {
                    legal.clear();
                    legal.extend(outputs.map(|v| v.max(0.0)));
                    normalise(&legal, probs);
                }
                PolicyHead::Softmax => softmax(outputs, probs),
            }
            at += actions.len();
        }
        Ok(())
    }
}

fn malformed(path: &Path, player: usize, reason: String) -> PolicyError {
    PolicyError::File(FileError::Malformed {
        path: path.to_path_buf(),
        what: FileKind::Model.what(),
        reason: format!("player {player}'s network: {reason}"),
    })
}

/// The softmax of `logits` into `out`, in f64 (the largest subtracted
/// first).
fn softmax(logits: impl Iterator<Item = f64> + Clone, out: &mut [f64]) {
    let max = logits.clone().fold(f64::NEG_INFINITY, f64::max);
    for (o, l) in out.iter_mut().zip(logits) {
        *o = (l - max).exp();
    }
    let total: f64 = out.iter().sum();
    out.iter_mut().for_each(|o| *o /= total);
}
