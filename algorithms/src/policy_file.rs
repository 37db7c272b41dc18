//! Policy files: a game string, how the policy was made, and the behaviour
//! strategy at every information state, as JSON (small games) or MessagePack.

use std::collections::BTreeMap;
use std::path::Path;

use darkhex_games::abstraction::Abstraction;
use darkhex_games::analysis::{NodeView, TreeVisitor, WalkOptions, walk};
use darkhex_games::spec::Spec;
use darkhex_games::{Action, AnyGame, Game, NUM_PLAYERS, State, Token, with_game};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::files::{self, Document, Encoding, FileError, FileKind};
use crate::policy::TreePolicy;
use crate::tree::GameTree;

pub const POLICY_FORMAT: &str = "darkhex-policy";
pub const POLICY_VERSION: u32 = 1;

/// Probabilities of an information state may miss a total of 1 by this much.
const SUM_TOLERANCE: f64 = 1e-6;

#[derive(Debug, Error)]
pub enum PolicyError {
    #[error(transparent)]
    File(#[from] FileError),
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
    /// The imperfect-recall abstraction the keys are written under (an
    /// [`Abstraction`] name; none: the game's own information states).
    /// Readers lift such a policy to the perfect-recall game: each
    /// information state plays its abstract state's distribution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abstraction: Option<String>,
    /// Where the file is a policy cut from another (`bounds --cut-black`):
    /// which file, and how it was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<CutFrom>,
    pub infosets: [Vec<InfosetPolicy>; NUM_PLAYERS],
}

/// The source of a cut policy: the strategy as a restricted best response
/// walked it (cut at `threshold`, completed by the `missing` default),
/// kept only at the information states its play reaches against any play
/// of the other side's. The source is named by its bytes, so a certificate
/// says which file it was cut from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CutFrom {
    /// The source file's name, as given.
    pub source: String,
    /// The source file's length and CRC-32 (as zlib computes it).
    pub source_bytes: u64,
    pub source_crc32: u32,
    pub threshold: Option<f64>,
    /// The default where the source has no entry: `error`, `uniform` or
    /// `lowest`.
    pub missing: String,
}

/// Whether `file_game`, a game string read from a file, names `game`.
pub fn same_game(file_game: &str, game: &AnyGame) -> bool {
    darkhex_games::load_game(file_game).is_ok_and(|g| g == *game)
}

/// Fails, naming the differences, unless a file of `file_game` (its game
/// string) is for `game`.
pub fn require_game(file_game: &str, game: &AnyGame) -> Result<(), PolicyError> {
    if same_game(file_game, game) {
        return Ok(());
    }
    let ours = game.game_string();
    Err(PolicyError::WrongGame {
        file_game: file_game.to_string(),
        differences: game_differences(file_game, &ours),
        game: ours,
    })
}

/// What differs between two game strings, parameter by parameter, with
/// `board_size` read as the rows and columns it sets.
pub fn game_differences(a: &str, b: &str) -> String {
    let (Ok(sa), Ok(sb)) = (Spec::parse(a), Spec::parse(b)) else {
        return format!("{a} vs {b}");
    };
    if sa.name != sb.name {
        return format!("game {} vs {}", sa.name, sb.name);
    }
    let expand = |s: &Spec| -> Vec<(String, String)> {
        let mut params: Vec<(String, String)> = s
            .params
            .iter()
            .filter(|(k, _)| k != "board_size")
            .cloned()
            .collect();
        if let Some(size) = s.get("board_size") {
            for k in ["num_rows", "num_cols"] {
                if s.get(k).is_none() {
                    params.push((k.to_string(), size.to_string()));
                }
            }
        }
        params
    };
    let (pa, pb) = (expand(&sa), expand(&sb));
    let get =
        |p: &[(String, String)], k: &str| p.iter().find(|(pk, _)| pk == k).map(|(_, v)| v.clone());
    let mut keys: Vec<&str> = pa.iter().chain(&pb).map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    let diffs: Vec<String> = keys
        .into_iter()
        .filter(|k| get(&pa, k) != get(&pb, k))
        .map(|k| {
            let show = |v: Option<String>| v.unwrap_or_else(|| "(default)".to_string());
            format!("{k} {} vs {}", show(get(&pa, k)), show(get(&pb, k)))
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
            abstraction: None,
            cut: None,
            infosets,
        }
    }

    /// The abstraction the keys are written under, checked against the
    /// game: abstractions are of Dark Hex and Dark Rex keys.
    pub fn abstraction(&self) -> Result<Abstraction, String> {
        let Some(name) = &self.abstraction else {
            return Ok(Abstraction::PERFECT_RECALL);
        };
        let abstraction = Abstraction::parse(name).map_err(|e| e.to_string())?;
        match darkhex_games::load_game(&self.game) {
            Ok(AnyGame::DarkHex(_)) => Ok(abstraction),
            _ if abstraction.is_identity() => Ok(abstraction),
            _ => Err(format!(
                "abstraction {name} is of dark_hex and dark_rex keys, not of {}",
                self.game
            )),
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

    /// Writes JSON when the name ends in `.json`, else the checksummed binary form.
    pub fn save(&self, path: &Path) -> Result<(), PolicyError> {
        Ok(files::save(path, self, Encoding::for_path(path))?)
    }

    /// Reads a policy file and checks that every information state holds a
    /// probability distribution over sorted, distinct actions, once.
    pub fn load(path: &Path) -> Result<PolicyFile, PolicyError> {
        let file: PolicyFile = files::load(path)?;
        file.check_distributions().map_err(|reason| {
            PolicyError::File(FileError::Malformed {
                path: path.to_path_buf(),
                what: "policy",
                reason,
            })
        })?;
        Ok(file)
    }

    /// Reads a policy file for `game`: [`PolicyFile::load`], then the game
    /// and every information state's actions checked against the game.
    /// Every consumer of policy files goes through this.
    pub fn load_for(path: &Path, game: &AnyGame) -> Result<PolicyFile, PolicyError> {
        let file = PolicyFile::load(path)?;
        file.check_game(game)?;
        file.check_actions(game)?;
        Ok(file)
    }

    fn check_distributions(&self) -> Result<(), String> {
        self.abstraction()?;
        let game = darkhex_games::load_game(&self.game).ok();
        let describe = |key: &[Token]| match &game {
            Some(g) => g.describe_info_state(key),
            None => format!("{key:?}"),
        };
        for (p, entries) in self.infosets.iter().enumerate() {
            let mut keys = std::collections::HashSet::new();
            for e in entries {
                let at = || format!("player {p} at {}", describe(&e.key));
                if !keys.insert(e.key.as_slice()) {
                    return Err(format!("{} appears twice", at()));
                }
                if e.actions.is_empty() || e.probs.len() != e.actions.len() {
                    return Err(format!(
                        "{}: {} actions and {} probabilities",
                        at(),
                        e.actions.len(),
                        e.probs.len()
                    ));
                }
                if !e.actions.is_sorted_by(|a, b| a < b) {
                    return Err(format!(
                        "{}: the actions are not ascending and distinct",
                        at()
                    ));
                }
                let sum: f64 = e.probs.iter().sum();
                if e.probs.iter().any(|x| !x.is_finite() || *x < 0.0)
                    || (sum - 1.0).abs() > SUM_TOLERANCE
                {
                    return Err(format!(
                        "{}: probabilities {:?} are not a distribution (each in [0, 1], summing to 1)",
                        at(),
                        e.probs
                    ));
                }
            }
        }
        Ok(())
    }

    /// Fails, naming the differences, unless the file is for `game`.
    pub fn check_game(&self, game: &AnyGame) -> Result<(), PolicyError> {
        require_game(&self.game, game)
    }

    /// Fails unless every information state is one of its player's decision
    /// points in `game` and lists exactly the legal actions there.
    pub fn check_actions(&self, game: &AnyGame) -> Result<(), PolicyError> {
        for (p, entries) in self.infosets.iter().enumerate() {
            for e in entries {
                let at = || format!("player {p} at {}", game.describe_info_state(&e.key));
                let legal =
                    game.info_state_actions(p, &e.key)
                        .map_err(|why| PolicyError::Mismatch {
                            game: game.game_string(),
                            reason: format!("{} is not a decision of the game: {why}", at()),
                        })?;
                if legal != e.actions {
                    return Err(PolicyError::Mismatch {
                        game: game.game_string(),
                        reason: format!(
                            "{} {}",
                            at(),
                            action_differences(game, &e.actions, &legal)
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// How many of each player's information states the file lacks (they
    /// play uniformly), when the game tree has at most `max_histories`
    /// histories to enumerate them; `None` when it is larger.
    pub fn uncovered(&self, game: &AnyGame, max_histories: u64) -> Option<[usize; NUM_PLAYERS]> {
        let options = WalkOptions {
            max_histories,
            progress: None,
        };
        let summary = with_game!(game, g => walk(g, &options, &mut Nothing)).ok()?;
        // An abstract policy covers the states whose abstract state it lists.
        let lifted = self.abstraction.is_some().then(|| PolicyTable::new(self));
        Some(std::array::from_fn(|p| {
            let listed: std::collections::HashSet<&[Token]> =
                self.infosets[p].iter().map(|e| e.key.as_slice()).collect();
            summary.infosets[p]
                .keys
                .iter()
                .filter(|k| match &lifted {
                    Some(table) => table.get(p, k).is_none(),
                    None => !listed.contains(&***k),
                })
                .count()
        }))
    }

    /// The policy on `tree`'s infosets. Infosets the file lacks (never
    /// reached while sampling) play uniformly; their number is returned.
    pub fn to_tree_policy(&self, tree: &GameTree) -> Result<(TreePolicy, usize), PolicyError> {
        if self.abstraction.is_some() {
            return Ok(self.lifted_to_tree(tree));
        }
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
                policy.probs[p][table.slots(i)].copy_from_slice(&entry.probs);
                covered += 1;
            }
            missing += table.len() - covered;
        }
        Ok((policy, missing))
    }
}

impl PolicyFile {
    /// An abstract policy lifted to `tree`'s information states, each
    /// playing its abstract state's distribution; the number of
    /// information states whose abstract state the file lacks (they play
    /// uniformly).
    fn lifted_to_tree(&self, tree: &GameTree) -> (TreePolicy, usize) {
        let table = PolicyTable::new(self);
        let mut policy = TreePolicy::uniform(tree);
        let mut missing = 0;
        for p in 0..NUM_PLAYERS {
            let infosets = tree.infosets(p);
            for i in 0..infosets.len() {
                match table.get(p, &infosets.keys[i]) {
                    Some((actions, probs)) if actions == infosets.actions_of(i) => {
                        policy.probs[p][infosets.slots(i)].copy_from_slice(probs);
                    }
                    _ => missing += 1,
                }
            }
        }
        (policy, missing)
    }
}

/// How a listed set of actions differs from the legal ones, naming each
/// wrong action by its id (and its name, where it has one).
fn action_differences(game: &AnyGame, listed: &[Action], legal: &[Action]) -> String {
    let names = |a: &[Action]| {
        a.iter()
            .map(|&x| game.action_name(x))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let actions = game.num_distinct_actions();
    let unknown: Vec<String> = listed
        .iter()
        .filter(|&&a| usize::from(a) >= actions)
        .map(|a| a.to_string())
        .collect();
    if !unknown.is_empty() {
        return format!(
            "lists action id {}, which is no action of the game (its ids run from 0 to {}); the legal actions there are {}",
            unknown.join(", "),
            actions.saturating_sub(1),
            names(legal)
        );
    }
    let extra: Vec<Action> = listed
        .iter()
        .copied()
        .filter(|a| !legal.contains(a))
        .collect();
    let lacking: Vec<Action> = legal
        .iter()
        .copied()
        .filter(|a| !listed.contains(a))
        .collect();
    let mut parts = Vec::new();
    if !extra.is_empty() {
        parts.push(format!(
            "lists {}, not legal there",
            described(game, &extra)
        ));
    }
    if !lacking.is_empty() {
        parts.push(format!("lacks {}", described(game, &lacking)));
    }
    format!(
        "{}: it lists actions {} where the legal ones are {}",
        parts.join(" and "),
        names(listed),
        names(legal)
    )
}

/// Actions as "b2 (id 4), c1 (id 2)".
fn described(game: &AnyGame, actions: &[Action]) -> String {
    actions
        .iter()
        .map(|&a| format!("{} (id {a})", game.action_name(a)))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Document for PolicyFile {
    const KIND: FileKind = FileKind::Policy;
    const VERSION: u32 = POLICY_VERSION;
    fn game(&self) -> &str {
        &self.game
    }
}

/// A walk visitor that keeps nothing: the walk's own infoset tables suffice.
struct Nothing;

impl<S: State> TreeVisitor<S> for Nothing {
    type Node = ();
    fn visit(&mut self, _: &NodeView<S>, _: Option<((), usize)>) {}
}

/// A policy file indexed for play: the action distribution at an
/// information state, looked up by its key. An abstract policy is lifted:
/// a perfect-recall key is looked up by its abstract key (both
/// orientations of a rotation-reduced key are held, so a lookup only
/// forgets what the recall drops).
#[derive(Clone, Debug, Default)]
pub struct PolicyTable {
    maps: [FxHashMap<Box<[Token]>, Distribution>; NUM_PLAYERS],
    /// The recall of an abstract policy (without its rotation).
    lift: Option<Abstraction>,
}

/// Legal actions and their probabilities.
type Distribution = (Vec<Action>, Vec<f64>);

impl PolicyTable {
    pub fn new(file: &PolicyFile) -> PolicyTable {
        // Loading checked the abstraction; a file built in memory with a
        // wrong one is read as written.
        let abstraction = file.abstraction().unwrap_or(Abstraction::PERFECT_RECALL);
        let cells = darkhex_games::load_game(&file.game)
            .ok()
            .and_then(|g| g.dims())
            .map_or(0, |d| d.cells());
        let maps = std::array::from_fn(|p| {
            let mut map: FxHashMap<Box<[Token]>, Distribution> = FxHashMap::default();
            for e in &file.infosets[p] {
                if abstraction.rotate {
                    let (key, actions, probs) = rotated(abstraction, cells, e);
                    map.entry(key).or_insert_with(|| (actions, probs));
                }
                map.insert(
                    e.key.clone().into_boxed_slice(),
                    (e.actions.clone(), e.probs.clone()),
                );
            }
            map
        });
        let lift = (!abstraction.is_identity()).then_some(Abstraction {
            rotate: false,
            ..abstraction
        });
        PolicyTable { maps, lift }
    }

    /// The abstraction, without its rotation, whose keys a lookup reads
    /// (`None`: the game's own keys): information states with one such key
    /// get one distribution.
    pub fn lift(&self) -> Option<Abstraction> {
        self.lift
    }

    /// The actions and probabilities at `key`, if the policy has them.
    pub fn get(&self, player: usize, key: &[Token]) -> Option<(&[Action], &[f64])> {
        let map = &self.maps[player];
        let found = match self.lift {
            None => map.get(key),
            Some(a) => {
                let mut abstract_key = Vec::with_capacity(key.len());
                a.abstract_key(0, key, &mut abstract_key);
                map.get(abstract_key.as_slice())
            }
        };
        found.map(|(a, p)| (a.as_slice(), p.as_slice()))
    }
}

/// An entry of a rotation-reduced policy turned by 180 degrees: its key,
/// actions and probabilities.
fn rotated(
    abstraction: Abstraction,
    cells: usize,
    e: &InfosetPolicy,
) -> (Box<[Token]>, Vec<Action>, Vec<f64>) {
    let key = abstraction.turned(cells, &e.key);
    let actions = e
        .actions
        .iter()
        .rev()
        .map(|&a| (cells - 1 - a as usize) as Action)
        .collect();
    let probs = e.probs.iter().rev().copied().collect();
    (key.into_boxed_slice(), actions, probs)
}
