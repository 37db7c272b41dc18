//! Inspecting a policy in the page: a policy file (trained, or the LP's
//! equilibrium), a trained model or a PONE strategy, read by the readers
//! every other command uses. The page walks the game by clicking moves;
//! at each state the player to move's information state is shown with
//! the policy's probabilities there, and (a job) the exact exploitability
//! with the best response's values at that information state, where the
//! game's tree fits in memory.

use std::collections::HashMap;
use std::path::{Path as FsPath, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::Json;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use darkhex_algorithms::best_response::response_values;
use darkhex_algorithms::fa::model::{ModelFile, PolicyModel};
use darkhex_algorithms::files::{self, FileKind};
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::policy_file::InfosetPolicy;
use darkhex_algorithms::pone::strategy::Strategy;
use darkhex_algorithms::stream::{self, BuildProgress, PassOptions, RowPolicy};
use darkhex_algorithms::{
    CompileOptions, GameTree, PolicyFile, PolicyTable, Provenance, TreeError, TreePolicy,
    exploitability,
};
use darkhex_games::{
    Action, AnyGame, Game, NUM_PLAYERS, State as _, Token, Turn, load_game, with_game,
};
use serde::Deserialize;
use serde_json::{Value, json};

use super::api::{Answer, ApiError, AppState, Shared, blocking, job};
use super::jobs::{Progress, cancelled};
use super::view::{frame, named, observed, state_after};
use crate::info::build_tables_checked;

/// Policies kept loaded between requests (a file is read again when it changes).
const KEPT: usize = 4;

/// Bytes of memory a loaded policy takes per byte of its file, at most:
/// the file's entries, and the table indexing them for look-ups (a key,
/// actions and probabilities in vectors of their own, twice). MessagePack
/// writes a probability in 9 bytes, JSON in about 20 characters.
fn bytes_per_file_byte(path: &FsPath) -> f64 {
    if files::Encoding::for_path(path) == files::Encoding::Json {
        4.0
    } else {
        12.0
    }
}

/// Where a policy's probabilities come from.
enum Source {
    Table {
        file: PolicyFile,
        table: PolicyTable,
    },
    Model(PolicyModel),
    /// A PONE strategy: its owner's move at each information state it reaches.
    Pone {
        owner: usize,
        moves: HashMap<Vec<Token>, Action>,
        file: PolicyFile,
    },
}

pub struct Loaded {
    game: AnyGame,
    source: Source,
    summary: Value,
}

/// File, modification time, length: a file rewritten is read again.
type Stamp = (PathBuf, Option<SystemTime>, u64);

#[derive(Default)]
pub struct Cache(Mutex<Vec<(Stamp, Arc<Loaded>)>>);

impl Cache {
    fn get(&self, path: &FsPath) -> Result<Arc<Loaded>, ApiError> {
        let meta = std::fs::metadata(path)
            .map_err(|e| ApiError::not_found(format!("cannot read {}: {e}", path.display())))?;
        let stamp: Stamp = (path.to_path_buf(), meta.modified().ok(), meta.len());
        {
            let kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((_, l)) = kept.iter().find(|(s, _)| *s == stamp) {
                return Ok(l.clone());
            }
        }
        // Loading may take gigabytes (a 3x3 policy): past the memory
        // limit it is refused before reading, as the commands refuse.
        let factor = bytes_per_file_byte(path);
        MemoryLimit::new(None).check(
            format!("loading {}", files::shown(path)),
            meta.len() as f64 * factor,
            &format!("{factor} bytes a byte of the file"),
        )?;
        let loaded = Arc::new(load(path)?);
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(s, _)| s.0 != stamp.0);
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push((stamp, loaded.clone()));
        Ok(loaded)
    }
}

fn game_of(text: &str, path: &FsPath) -> Result<AnyGame, ApiError> {
    load_game(text).map_err(|e| {
        ApiError::bad(format!(
            "{} names a game darkhex cannot read: {e}",
            path.display()
        ))
    })
}

fn load(path: &FsPath) -> Result<Loaded, ApiError> {
    let shown = files::shown(path);
    match files::identify(path) {
        Some(FileKind::Policy) => {
            let file = PolicyFile::load(path)?;
            let game = game_of(&file.game, path)?;
            file.check_actions(&game)?;
            let summary = json!({
                "kind": "policy",
                "game": game.game_string(),
                "algorithm": file.provenance.algorithm,
                "iterations": file.provenance.iterations,
                "exploitability": file.provenance.exploitability,
                "infosets": [file.infosets[0].len(), file.infosets[1].len()],
            });
            let table = PolicyTable::new(&file);
            Ok(Loaded {
                game,
                source: Source::Table { file, table },
                summary,
            })
        }
        Some(FileKind::Model) => {
            let file: ModelFile = files::load(path)?;
            let game = game_of(&file.game, path)?;
            let (model, _) = PolicyModel::load_for(path, &game)?;
            let summary = json!({
                "kind": "model",
                "game": game.game_string(),
                "algorithm": file.algorithm,
                "iterations": file.iterations,
                "exploitability": file.exploitability,
                "features": file.features,
            });
            Ok(Loaded {
                game,
                source: Source::Model(model),
                summary,
            })
        }
        Some(FileKind::PoneStrategy) => {
            let strategy = Strategy::load(path)?;
            let game = game_of(&strategy.game, path)?;
            let owner = strategy.player.min(1);
            let mut infosets: [Vec<InfosetPolicy>; NUM_PLAYERS] = Default::default();
            for (key, action) in &strategy.moves {
                let actions = game.info_state_actions(owner, key).map_err(|why| {
                    ApiError::bad(format!(
                        "{shown}: the strategy's state {} is not one of the game's: {why}",
                        game.describe_info_state(key)
                    ))
                })?;
                let probs = actions
                    .iter()
                    .map(|a| f64::from(u8::from(a == action)))
                    .collect();
                infosets[owner].push(InfosetPolicy {
                    key: key.clone(),
                    actions,
                    probs,
                });
            }
            let provenance = Provenance {
                algorithm: "pone".into(),
                ..Provenance::default()
            };
            let file = PolicyFile::new(&strategy.game, provenance, infosets);
            let summary = json!({
                "kind": "pone",
                "game": game.game_string(),
                "algorithm": "pone",
                "owner": owner,
                "infosets": [file.infosets[0].len(), file.infosets[1].len()],
            });
            let moves = strategy.moves.into_iter().collect();
            Ok(Loaded {
                game,
                source: Source::Pone { owner, moves, file },
                summary,
            })
        }
        Some(kind) => Err(ApiError::bad(format!(
            "{shown} is a darkhex {}, not a policy: the inspector opens policy files, models and PONE strategies",
            kind.what()
        ))),
        None => Err(ApiError::bad(format!(
            "{shown} is not a darkhex policy, model or PONE strategy (`darkhex train`, `solve --out` and `pone --strategy-out` write them)"
        ))),
    }
}

/// The policy's probabilities at `player`'s information state `key`,
/// whose legal actions are `legal`, and whether the file holds it (a table
/// plays uniformly where it does not).
fn probabilities(
    l: &Loaded,
    player: usize,
    key: &[Token],
    legal: &[Action],
) -> Result<(Vec<f64>, bool), ApiError> {
    let uniform = || vec![1.0 / legal.len() as f64; legal.len()];
    Ok(match &l.source {
        Source::Table { table, .. } => match table.get(player, key) {
            Some((actions, probs)) if actions == legal => (probs.to_vec(), true),
            _ => (uniform(), false),
        },
        Source::Model(model) => (model.policy(player, key, legal)?, true),
        Source::Pone { owner, moves, .. } => match moves.get(key) {
            Some(a) if player == *owner => (
                legal.iter().map(|x| f64::from(u8::from(x == a))).collect(),
                true,
            ),
            _ => (uniform(), false),
        },
    })
}

#[derive(Deserialize)]
pub struct Request {
    path: String,
    #[serde(default)]
    moves: String,
}

fn loaded(shared: &Shared, path: &str) -> Result<Arc<Loaded>, ApiError> {
    let path = shared.roots.resolve(path)?;
    shared.policies.get(&path)
}

pub async fn summary(State(state): State<AppState>, Query(q): Query<Request>) -> Answer {
    let shared = state.shared().clone();
    blocking(move || {
        let l = loaded(&shared, &q.path)?;
        Ok(Json(l.summary.clone()))
    })
    .await
}

/// The state after the moves, the player to move's information state and
/// the policy's probabilities there.
pub async fn at(State(state): State<AppState>, Query(q): Query<Request>) -> Answer {
    let shared = state.shared().clone();
    blocking(move || {
        let l = loaded(&shared, &q.path)?;
        let game = &l.game;
        let state = state_after(game, &q.moves)?;
        let mut v = json!({
            "game": game.game_string(),
            "summary": l.summary,
            "frame": frame(game, &state, None),
        });
        match state.current_player() {
            Turn::Player(p) => {
                let key = state.info_key(p);
                let legal = state.legal_actions();
                let (probs, covered) = probabilities(&l, p, key, &legal)?;
                let actions: Vec<Value> = named(game, &legal)
                    .into_iter()
                    .zip(&probs)
                    .map(|(a, &prob)| json!({ "id": a.id, "name": a.name, "prob": prob }))
                    .collect();
                v["player"] = json!(p);
                v["information_state"] = json!(game.describe_info_state(key));
                v["observed"] = json!(observed(game, key));
                v["covered"] = json!(covered);
                v["actions"] = json!(actions);
            }
            Turn::Chance => {
                let outcomes: Vec<Value> = state
                    .chance_outcomes()
                    .iter()
                    .map(|&(a, p)| json!({ "id": a, "name": game.chance_outcome_name(a), "prob": p }))
                    .collect();
                v["chance"] = json!(outcomes);
            }
            Turn::Terminal => {}
        }
        Ok(Json(v))
    })
    .await
}

/// The policy on the whole tree, as the exploitability's best responses take it.
fn tree_policy(l: &Loaded, tree: &GameTree) -> Result<TreePolicy, ApiError> {
    Ok(match &l.source {
        Source::Table { file, .. } | Source::Pone { file, .. } => file.to_tree_policy(tree)?.0,
        Source::Model(model) => model.tree_policy(tree)?,
    })
}

fn exploit_job(shared: &Shared, q: &Request, progress: &Progress) -> Result<Value, ApiError> {
    let l = loaded(shared, &q.path)?;
    let game = l.game;
    let state = state_after(&game, &q.moves)?;
    progress.set("waiting for another computation to finish", 0, 0);
    let _heavy = shared.heavy.lock().unwrap_or_else(|e| e.into_inner());
    if progress.stopped() {
        return Err(cancelled());
    }
    progress.set("compiling the game tree (histories)", 0, 0);
    let count = |n: u64| progress.advance(n);
    let options = CompileOptions {
        limit: MemoryLimit::new(None),
        progress: Some(&count),
    };
    let tree = match with_game!(&game, g => GameTree::build(g, &options)) {
        Ok(tree) => tree,
        // Too large to compile: the exploitability by a streaming pass, as
        // `darkhex exploit` falls back to it (no values at a state there).
        Err(TreeError::TooLarge { .. }) => return streamed(&l, progress),
    };
    if progress.stopped() {
        return Err(cancelled());
    }
    progress.set("best responses", 0, 0);
    let policy = tree_policy(&l, &tree)?;
    let e = exploitability(&tree, &policy);
    let mut v = json!({
        "exploitability": e.exploitability,
        "nash_conv": e.nash_conv,
        "value_p0": e.value_p0,
        "best_response_values": e.best_response_values,
        "method": "compiled tree",
    });
    if let Turn::Player(p) = state.current_player() {
        let key = state.info_key(p);
        let table = tree.infosets(p);
        if let Some(i) = table.keys.iter().position(|k| **k == *key) {
            if progress.stopped() {
                return Err(cancelled());
            }
            let r = response_values(&tree, &policy, p);
            let slots = table.slots(i);
            let values: Vec<Value> = table
                .actions_of(i)
                .iter()
                .zip(&r.action_values[slots.clone()])
                .zip(&policy.probs[p][slots])
                .map(|((&a, &value), &prob)| {
                    json!({ "id": a, "name": game.action_name(a), "value": finite(value), "prob": prob })
                })
                .collect();
            let best = r.infoset_value(&tree, p, i);
            let played: f64 = r.action_values[table.slots(i)]
                .iter()
                .zip(&policy.probs[p][table.slots(i)])
                .map(|(v, p)| v * p)
                .sum();
            v["at"] = json!({
                "player": p,
                "reach": r.reach[i],
                "best_response_value": finite(best),
                "policy_then_best_response": finite(played),
                "actions": values,
            });
        }
    }
    Ok(v)
}

/// The exploitability by one pass over the histories and the
/// information-state tables, for games whose tree does not fit.
fn streamed(l: &Loaded, progress: &Progress) -> Result<Value, ApiError> {
    let game = &l.game;
    let failed = |e: anyhow::Error| ApiError::bad(darkhex_games::one_line(&format!("{e:#}")));
    progress.set("building the information-state tables (rows)", 0, 0);
    // Beside the tables: the policy (8 bytes a slot) and each worker's
    // exact sums (16), as `darkhex exploit` counts them.
    let slot_bytes = 8.0 + 16.0 * (rayon::current_num_threads() + 1) as f64;
    let built = |p: BuildProgress| progress.advance(p.rows);
    let tables = build_tables_checked(
        game,
        MemoryLimit::new(None),
        &format!("the streaming pass over {game}"),
        |e| (e.slots[0] + e.slots[1]) * slot_bytes,
        &built,
        progress.flag(),
    )
    .map_err(|e| {
        if progress.stopped() {
            cancelled()
        } else {
            failed(e)
        }
    })?;
    if progress.stopped() {
        return Err(cancelled());
    }
    let policy = match &l.source {
        Source::Table { file, .. } | Source::Pone { file, .. } => {
            RowPolicy::from_file(&tables, file)?.0
        }
        Source::Model(model) => {
            let rows = tables.num_decision_rows();
            progress.set("the network's policy (information states)", 0, rows);
            model.row_policy_reporting(&tables, &|n| progress.advance(n))?
        }
    };
    progress.set("the streaming pass (histories)", 0, tables.histories());
    let walked = |n: u64| progress.advance(n);
    let options = PassOptions {
        progress: Some(&walked),
        stop: Some(progress.flag()),
        ..Default::default()
    };
    let report = stream::stream_exploitability(game, &tables, &policy, &options).map_err(|e| {
        if progress.stopped() {
            cancelled()
        } else {
            ApiError::from(e)
        }
    })?;
    let e = report.exploitability;
    Ok(json!({
        "exploitability": e.exploitability,
        "nash_conv": e.nash_conv,
        "value_p0": e.value_p0,
        "best_response_values": e.best_response_values,
        "method": "streaming pass",
    }))
}

/// A number for JSON: `null` where it is not finite (an unreached state).
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

pub async fn exploit(State(state): State<AppState>, Query(q): Query<Request>) -> impl IntoResponse {
    let shared = state.shared().clone();
    job(shared.shutdown.clone(), move |progress| {
        exploit_job(&shared, &q, progress)
    })
}
