//! Player specs (`random`, `policy(file=P)`, `lp`, `mcts(sims=2000)`,
//! `ismcts(sims=2000)`, `pone(fallback=SPEC)`, `resistance`,
//! `solver(fallback=SPEC,time=S)`, `network(eval=e)`,
//! `network(eval=ek,k=K,x=X)`) and the factories that make players from
//! them.
//! Preparing a spec does the expensive work once (loading a file, solving an
//! LP); a league then creates a fresh player for every game and seat.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use darkhex_algorithms::fa::model::PolicyModel;
use darkhex_algorithms::files::{self, FileKind};
use darkhex_algorithms::lp::{LpBackend, LpOptions, solve_sequence_form};
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::pone::{self, search::Search as PoneSearch};
use darkhex_algorithms::{
    CompileOptions, GameTree, LpError, PolicyError, PolicyFile, PolicyTable, Provenance, TreeError,
};
use darkhex_games::spec::Spec;
use darkhex_games::{AnyGame, GameError, with_game};
use darkhex_hexengine::analyst::{HexAnalyst, analyst_for};
use darkhex_hexengine::eval::Weight;
use darkhex_hexengine::eval::paths::DEFAULT_MAX_PATHS;
use thiserror::Error;

use crate::hex_players::{ResistancePlayer, SolverPlayer};
use crate::network_player::{NetworkEval, NetworkPlayer};
use crate::player::Player;
use crate::policy_player::{PolicyPlayer, PolicySource};
use crate::pone_player::PonePlayer;
use crate::random::RandomPlayer;
use crate::search::SearchConfig;
use crate::search_players::{IsmctsPlayer, MctsPlayer};

/// Names `prepare` accepts.
pub const PLAYER_NAMES: [&str; 9] = [
    "random",
    "policy",
    "lp",
    "mcts",
    "ismcts",
    "pone",
    "resistance",
    "solver",
    "network",
];

const DEFAULT_SIMULATIONS: usize = 1000;
const DEFAULT_EXPLORATION: f64 = 1.4;

#[derive(Debug, Error)]
pub enum SpecError {
    #[error(transparent)]
    Syntax(#[from] GameError),
    #[error("malformed player spec '{}': {}", darkhex_games::one_line(.text), darkhex_games::one_line(.reason))]
    Malformed { text: String, reason: String },
    #[error("unknown player '{}': accepted players are {names}", darkhex_games::one_line(.0), names = PLAYER_NAMES.join(", "))]
    UnknownPlayer(String),
    #[error("{} cannot play {game}: {}", darkhex_games::one_line(.player), darkhex_games::one_line(.reason))]
    Unsupported {
        player: String,
        game: String,
        reason: String,
    },
    #[error("{}: {source}", darkhex_games::one_line(.player))]
    Policy { player: String, source: PolicyError },
    #[error("{}: {source}", darkhex_games::one_line(.player))]
    Lp { player: String, source: LpError },
    #[error("{}: {source}", darkhex_games::one_line(.player))]
    Tree { player: String, source: TreeError },
}

/// Makes players of one spec for one game.
pub trait PlayerFactory: Send + Sync {
    fn create(&self, seat: usize, seed: u64) -> Box<dyn Player>;

    /// What a user should know about the prepared player (a policy file
    /// that lacks information states, say).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Games whose trees have at most this many histories are enumerated when a
/// policy file is loaded, to count the information states it lacks.
pub const COVERAGE_MAX_HISTORIES: u64 = 20_000_000;

struct Random;

impl PlayerFactory for Random {
    fn create(&self, _seat: usize, seed: u64) -> Box<dyn Player> {
        Box::new(RandomPlayer::new(seed))
    }
}

struct Policy {
    label: String,
    source: PolicySource,
    notes: Vec<String>,
}

impl PlayerFactory for Policy {
    fn create(&self, _seat: usize, seed: u64) -> Box<dyn Player> {
        Box::new(PolicyPlayer::new(
            self.label.clone(),
            self.source.clone(),
            seed,
        ))
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}

struct Search {
    game: AnyGame,
    config: SearchConfig,
}

impl PlayerFactory for Search {
    fn create(&self, _seat: usize, seed: u64) -> Box<dyn Player> {
        match self.game {
            AnyGame::Hex(g) => Box::new(MctsPlayer::new(g, self.config, seed)),
            AnyGame::DarkHex(g) => Box::new(IsmctsPlayer::new(g, self.config, seed)),
            AnyGame::PhantomTtt(_)
            | AnyGame::Kuhn(_)
            | AnyGame::Leduc(_)
            | AnyGame::LiarsDice(_) => unreachable!("refused when prepared"),
        }
    }
}

struct Pone {
    /// One search (and its table) per seat, shared by every game.
    searches: [Arc<PoneSearch>; 2],
    fallback: Arc<dyn PlayerFactory>,
}

impl PlayerFactory for Pone {
    fn create(&self, seat: usize, seed: u64) -> Box<dyn Player> {
        Box::new(PonePlayer::new(
            self.searches[seat].clone(),
            self.fallback.create(seat, seed),
        ))
    }

    fn notes(&self) -> Vec<String> {
        self.fallback.notes()
    }
}

struct Resistance {
    analyst: Arc<dyn HexAnalyst>,
    depth: usize,
}

impl PlayerFactory for Resistance {
    fn create(&self, _seat: usize, seed: u64) -> Box<dyn Player> {
        Box::new(ResistancePlayer::new(
            self.analyst.clone(),
            seed,
            self.depth,
        ))
    }
}

struct Solver {
    analyst: Arc<dyn HexAnalyst>,
    time: Duration,
    fallback: Arc<dyn PlayerFactory>,
}

impl PlayerFactory for Solver {
    fn create(&self, seat: usize, seed: u64) -> Box<dyn Player> {
        Box::new(SolverPlayer::new(
            self.analyst.clone(),
            self.time,
            self.fallback.create(seat, seed),
        ))
    }

    fn notes(&self) -> Vec<String> {
        self.fallback.notes()
    }
}

struct Network {
    analyst: Arc<dyn HexAnalyst>,
    eval: NetworkEval,
    max_paths: usize,
}

impl PlayerFactory for Network {
    fn create(&self, _seat: usize, seed: u64) -> Box<dyn Player> {
        Box::new(NetworkPlayer::new(
            self.analyst.clone(),
            self.eval.clone(),
            self.max_paths,
            seed,
        ))
    }
}

/// The evaluations `network(eval=...)` accepts.
const NETWORK_EVALS: [&str; 2] = ["e", "ek"];
/// The largest k of E_k: S_k's paths grow about tenfold with each k.
pub const MAX_K: usize = 4;

/// The evaluation and path budget of a `network(...)` spec:
/// `network(eval=e)`, or `network(eval=ek,k=K,x=X)` (k = 2 and the paper's
/// x = 0.00001 unless given); `paths=N` bounds each network's enumeration.
pub fn network_eval(text: &str) -> Result<(NetworkEval, usize), SpecError> {
    let s = Spec::parse(text)?;
    let bad = |reason: String| SpecError::Unsupported {
        player: text.trim().to_string(),
        game: "hex".to_string(),
        reason,
    };
    if s.name != "network" {
        return Err(SpecError::UnknownPlayer(s.name));
    }
    s.check_params(&["eval", "k", "x", "paths"])?;
    let ek = s.get_choice(
        "eval",
        &NETWORK_EVALS,
        |v| NETWORK_EVALS.iter().position(|&e| e == v),
        1,
    )? == 1;
    let max_paths = s.get_usize("paths", 1..=100_000_000, DEFAULT_MAX_PATHS)?;
    if !ek {
        if let Some(p) = ["k", "x"].into_iter().find(|p| s.get(p).is_some()) {
            return Err(bad(format!("{p} applies to eval=ek only")));
        }
        return Ok((NetworkEval::E, max_paths));
    }
    let k = s.get_usize("k", 0..=MAX_K, 2)?;
    let x = match s.get("x") {
        Some(t) => t.parse::<Weight>().map_err(|e| bad(e.to_string()))?,
        None => Weight::paper(),
    };
    Ok((NetworkEval::Ek { k, x }, max_paths))
}

/// Seconds the solver player searches per move unless told otherwise.
const DEFAULT_SOLVER_SECONDS: f64 = 1.0;

/// Loads and checks a policy file, a table or a model (told apart by the
/// file's header); the notes say how many information states a table
/// lacks, when the game is small enough to count them.
fn load_policy(
    label: &str,
    path: &Path,
    game: &AnyGame,
) -> Result<(PolicySource, Vec<String>), SpecError> {
    let error = |source| SpecError::Policy {
        player: label.to_string(),
        source,
    };
    if files::identify(path) == Some(FileKind::Model) {
        let (model, _) = PolicyModel::load_for(path, game).map_err(error)?;
        return Ok((PolicySource::Model(Arc::new(model)), Vec::new()));
    }
    let file = PolicyFile::load_for(path, game).map_err(error)?;
    let notes = match file.uncovered(game, COVERAGE_MAX_HISTORIES) {
        Some([0, 0]) => Vec::new(),
        Some(missing) => vec![format!(
            "{label}: {} lacks {} of player 0's and {} of player 1's information states; it plays uniformly there",
            files::shown(path),
            missing[0],
            missing[1]
        )],
        None => vec![format!(
            "{label}: {game} is too large to count the information states {} lacks; where it has none the player plays uniformly",
            files::shown(path)
        )],
    };
    Ok((
        PolicySource::Table(Arc::new(PolicyTable::new(&file))),
        notes,
    ))
}

/// Solves `game` by sequence-form LP: the equilibrium player's policy.
pub fn equilibrium_policy(
    game: &AnyGame,
    backend: LpBackend,
    label: &str,
) -> Result<PolicyFile, SpecError> {
    let tree = with_game!(game, g => GameTree::build(g, &CompileOptions::default())).map_err(
        |source| SpecError::Tree {
            player: label.to_string(),
            source,
        },
    )?;
    let solution = solve_sequence_form(
        &tree,
        LpOptions {
            backend,
            // The tree and the LP share the default budget.
            max_bytes: MemoryLimit::new(None)
                .less(tree.memory_bytes() as u64)
                .bytes(),
            ..LpOptions::default()
        },
        &|_| {},
    )
    .map_err(|source| SpecError::Lp {
        player: label.to_string(),
        source,
    })?;
    let provenance = Provenance {
        algorithm: format!("lp/{}", backend.name()),
        exploitability: Some(solution.exploitability.exploitability),
        ..Provenance::default()
    };
    Ok(PolicyFile::from_tree(&tree, &solution.policy, provenance))
}

/// The files a player spec reads (its `file=` parameters, nested specs
/// included), as written: a league stamps them so that games logged with
/// one policy file are never counted for a retrained one.
pub fn files_named(spec: &str) -> Vec<String> {
    let Ok(s) = Spec::parse(spec) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for (key, value) in &s.params {
        if key == "file" {
            files.push(value.clone());
        } else if value.contains('(') {
            files.extend(files_named(value));
        }
    }
    files
}

/// Parses `spec` and prepares its factory for `game`; file paths are as given.
pub fn prepare(spec: &str, game: &AnyGame) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    prepare_in(spec, game, Path::new(""))
}

/// [`prepare`] with relative file paths taken from `base` (a tournament
/// file's directory).
pub fn prepare_in(
    spec: &str,
    game: &AnyGame,
    base: &Path,
) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    let s = Spec::parse(spec).map_err(|e| match e {
        GameError::Syntax { text, reason } => SpecError::Malformed { text, reason },
        e => SpecError::Syntax(e),
    })?;
    let label = darkhex_games::one_line(spec.trim());
    let unsupported = |reason: &str| SpecError::Unsupported {
        player: label.clone(),
        game: game.to_string(),
        reason: reason.to_string(),
    };
    match s.name.as_str() {
        "random" => {
            s.check_params(&[])?;
            Ok(Arc::new(Random))
        }
        "policy" => {
            s.check_params(&["file"])?;
            let path = s
                .get("file")
                .ok_or_else(|| unsupported("policy needs file=PATH"))?;
            let (source, notes) = load_policy(&label, &base.join(path), game)?;
            Ok(Arc::new(Policy {
                source,
                label,
                notes,
            }))
        }
        "lp" => {
            s.check_params(&["file", "backend"])?;
            let backend = s.get_choice(
                "backend",
                &LpBackend::NAMES,
                LpBackend::from_name,
                LpBackend::Clarabel,
            )?;
            let (source, notes) = match s.get("file") {
                Some(path) => load_policy(&label, &base.join(path), game)?,
                None => (
                    PolicySource::Table(Arc::new(PolicyTable::new(&equilibrium_policy(
                        game, backend, &label,
                    )?))),
                    Vec::new(),
                ),
            };
            Ok(Arc::new(Policy {
                label,
                source,
                notes,
            }))
        }
        "mcts" | "ismcts" => {
            s.check_params(&["sims", "c"])?;
            let config = SearchConfig {
                simulations: s.get_usize("sims", 1..=10_000_000, DEFAULT_SIMULATIONS)? as u32,
                exploration: s.get_f64("c", DEFAULT_EXPLORATION)?,
            };
            match (s.name.as_str(), game) {
                ("mcts", AnyGame::Hex(_)) | ("ismcts", AnyGame::DarkHex(_)) => {}
                ("mcts", AnyGame::DarkHex(_)) => {
                    return Err(unsupported(
                        "mcts needs the whole board; ismcts plays the dark games",
                    ));
                }
                ("ismcts", AnyGame::Hex(_)) => {
                    return Err(unsupported(
                        "ismcts is for the dark games; mcts plays hex and rex",
                    ));
                }
                _ => return Err(unsupported("the search players play the Hex family")),
            }
            Ok(Arc::new(Search {
                game: *game,
                config,
            }))
        }
        "pone" => {
            s.check_params(&["fallback"])?;
            let AnyGame::DarkHex(dark) = game else {
                return Err(unsupported("pone plays Dark Hex and Dark Rex"));
            };
            let fallback = prepare_in(s.get("fallback").unwrap_or("random"), game, base)?;
            let search = |seat| -> Result<Arc<PoneSearch>, SpecError> {
                let rules = pone::rules_for(dark, seat).map_err(|e| unsupported(&e.to_string()))?;
                Ok(Arc::new(PoneSearch::new(rules)))
            };
            let searches = [search(0)?, search(1)?];
            Ok(Arc::new(Pone { searches, fallback }))
        }
        "resistance" | "solver" | "network" => {
            let AnyGame::Hex(hex) = game else {
                return Err(unsupported(
                    "it plays Hex and Rex, which show the whole board",
                ));
            };
            if s.name == "network" {
                let (eval, max_paths) = network_eval(spec)?;
                if hex.is_misere() {
                    return Err(unsupported(
                        "network plays Hex: E and E_k reward joining one's sides, which loses in Rex",
                    ));
                }
                let analyst: Arc<dyn HexAnalyst> = Arc::from(analyst_for(hex));
                return Ok(Arc::new(Network {
                    analyst,
                    eval,
                    max_paths,
                }));
            }
            let analyst: Arc<dyn HexAnalyst> = Arc::from(analyst_for(hex));
            if s.name == "resistance" {
                s.check_params(&["depth"])?;
                let depth = s.get_usize("depth", 1..=4, 1)?;
                return Ok(Arc::new(Resistance { analyst, depth }));
            }
            s.check_params(&["fallback", "time"])?;
            let time = s.get_f64("time", DEFAULT_SOLVER_SECONDS)?;
            if !(0.001..=86_400.0).contains(&time) {
                return Err(unsupported(&format!(
                    "time={time} is out of range: accepted are seconds from 0.001 to 86400"
                )));
            }
            let fallback = prepare_in(s.get("fallback").unwrap_or("resistance"), game, base)?;
            Ok(Arc::new(Solver {
                analyst,
                time: Duration::from_secs_f64(time),
                fallback,
            }))
        }
        other => Err(SpecError::UnknownPlayer(other.to_string())),
    }
}
