//! Policy files: a game string, how the policy was made, and the behaviour
//! strategy at every information state, as JSON (small games) or MessagePack.

use std::collections::BTreeMap;
use std::path::Path;

use darkhex_games::spec::Spec;
use darkhex_games::{Action, AnyGame, Game, NUM_PLAYERS, Token};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::files::{self, FileError};
use crate::policy::TreePolicy;
use crate::tree::GameTree;

pub const POLICY_FORMAT: &str = "darkhex-policy";
pub const POLICY_VERSION: u32 = 1;

#[derive(Debug, Error)]
pub enum PolicyError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{path} is a '{format}' file, not a darkhex policy (version {POLICY_VERSION})")]
    NotAPolicy { path: String, format: String },
    #[error("the policy is for {file_game}, not {game}: {differences}")]
    WrongGame {
        file_game: String,
        game: String,
        differences: String,
    },
    #[error("the policy does not fit {game}: {reason}")]
    Mismatch { game: String, reason: String },
}

/// How a policy was made.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub algorithm: String,
    /// Numeric settings of the algorithm (alpha, exploration, seed, ...).
    pub parameters: BTreeMap<String, f64>,
    pub iterations: u64,
    /// Exact exploitability when it could be computed.
    pub exploitability: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InfosetPolicy {
    /// The information-state key (see `State::info_key`).
    pub key: Vec<Token>,
    pub actions: Vec<Action>,
    pub probs: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyFile {
    pub format: String,
    pub version: u32,
    pub game: String,
    #[serde(flatten)]
    pub provenance: Provenance,
    pub infosets: [Vec<InfosetPolicy>; NUM_PLAYERS],
}

/// Whether `file_game`, a game string read from a file, names `game`.
pub fn same_game(file_game: &str, game: &AnyGame) -> bool {
    darkhex_games::load_game(file_game).is_ok_and(|g| g == *game)
}

/// What differs between two game strings, parameter by parameter.
pub fn game_differences(a: &str, b: &str) -> String {
    let (Ok(sa), Ok(sb)) = (Spec::parse(a), Spec::parse(b)) else {
        return format!("{a} vs {b}");
    };
    if sa.name != sb.name {
        return format!("game {} vs {}", sa.name, sb.name);
    }
    let mut keys: Vec<&str> = sa
        .params
        .iter()
        .chain(&sb.params)
        .map(|(k, _)| k.as_str())
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let diffs: Vec<String> = keys
        .into_iter()
        .filter(|k| sa.get(k) != sb.get(k))
        .map(|k| {
            let show = |v: Option<&str>| v.unwrap_or("(default)").to_string();
            format!("{k} {} vs {}", show(sa.get(k)), show(sb.get(k)))
        })
        .collect();
    diffs.join(", ")
}

impl PolicyFile {
    pub fn new(
        game: &str,
        provenance: Provenance,
        infosets: [Vec<InfosetPolicy>; NUM_PLAYERS],
    ) -> Self {
        PolicyFile {
            format: POLICY_FORMAT.to_string(),
            version: POLICY_VERSION,
            game: game.to_string(),
            provenance,
            infosets,
        }
    }

    /// The policy of a compiled tree, every infoset included.
    pub fn from_tree(tree: &GameTree, policy: &TreePolicy, provenance: Provenance) -> Self {
        let infosets = std::array::from_fn(|p| {
            let table = tree.infosets(p);
            (0..table.len())
                .map(|i| InfosetPolicy {
                    key: table.keys[i].to_vec(),
                    actions: table.actions_of(i).to_vec(),
                    probs: policy.infoset(tree, p, i).to_vec(),
                })
                .collect()
        });
        PolicyFile::new(tree.game(), provenance, infosets)
    }

    pub fn save(&self, path: &Path) -> Result<(), PolicyError> {
        Ok(files::save(path, self)?)
    }

    pub fn load(path: &Path) -> Result<PolicyFile, PolicyError> {
        let file: PolicyFile = files::load(path, "policy")?;
        if file.format != POLICY_FORMAT || file.version != POLICY_VERSION {
            return Err(PolicyError::NotAPolicy {
                path: path.display().to_string(),
                format: format!("{} {}", file.format, file.version),
            });
        }
        Ok(file)
    }

    /// Fails, naming the differences, unless the file is for `game`.
    pub fn check_game(&self, game: &AnyGame) -> Result<(), PolicyError> {
        let ours = game.game_string();
        if same_game(&self.game, game) {
            return Ok(());
        }
        Err(PolicyError::WrongGame {
            file_game: self.game.clone(),
            game: ours.clone(),
            differences: game_differences(&self.game, &ours),
        })
    }

    /// The policy on `tree`'s infosets. Infosets the file lacks (never
    /// reached while sampling) play uniformly; their number is returned.
    pub fn to_tree_policy(&self, tree: &GameTree) -> Result<(TreePolicy, usize), PolicyError> {
        let mut policy = TreePolicy::uniform(tree);
        let mut missing = 0;
        let mismatch = |reason: String| PolicyError::Mismatch {
            game: tree.game().to_string(),
            reason,
        };
        for p in 0..NUM_PLAYERS {
            let table = tree.infosets(p);
            let index: FxHashMap<&[Token], usize> = table
                .keys
                .iter()
                .enumerate()
                .map(|(i, k)| (&**k, i))
                .collect();
            let mut covered = 0;
            for entry in &self.infosets[p] {
                let Some(&i) = index.get(entry.key.as_slice()) else {
                    return Err(mismatch(format!(
                        "player {p} has an information state the game does not ({} observations)",
                        entry.key.len()
                    )));
                };
                if entry.actions != table.actions_of(i) || entry.probs.len() != entry.actions.len()
                {
                    return Err(mismatch(format!(
                        "player {p}: the actions of an information state differ"
                    )));
                }
                if entry.probs.iter().any(|x| !(0.0..=1.0 + 1e-9).contains(x))
                    || (entry.probs.iter().sum::<f64>() - 1.0).abs() > 1e-6
                {
                    return Err(mismatch(format!(
                        "player {p}: probabilities {:?} are not a distribution",
                        entry.probs
                    )));
                }
                policy.probs[p][table.slots(i)].copy_from_slice(&entry.probs);
                covered += 1;
            }
            missing += table.len() - covered;
        }
        Ok((policy, missing))
    }
}

/// A policy file indexed for play: the action distribution at an
/// information state, looked up by its key.
#[derive(Clone, Debug, Default)]
pub struct PolicyTable {
    maps: [FxHashMap<Box<[Token]>, Distribution>; NUM_PLAYERS],
}

/// Legal actions and their probabilities.
type Distribution = (Vec<Action>, Vec<f64>);

impl PolicyTable {
    pub fn new(file: &PolicyFile) -> PolicyTable {
        let maps = std::array::from_fn(|p| {
            file.infosets[p]
                .iter()
                .map(|e| {
                    (
                        e.key.clone().into_boxed_slice(),
                        (e.actions.clone(), e.probs.clone()),
                    )
                })
                .collect()
        });
        PolicyTable { maps }
    }

    /// The actions and probabilities at `key`, if the policy has them.
    pub fn get(&self, player: usize, key: &[Token]) -> Option<(&[Action], &[f64])> {
        self.maps[player]
            .get(key)
            .map(|(a, p)| (a.as_slice(), p.as_slice()))
    }
}
