//! Leagues from Python: `darkhex.league` runs one on this machine, as
//! `darkhex league` does; the private functions below let `darkhex.ray`
//! play a league's games as tasks and write the same log from them.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use darkhex_algorithms::shard::Shard;
use darkhex_games::{AnyGame, load_game};
use darkhex_league::runner::prepare_players;
use darkhex_league::{
    GameResult, LeagueRun, Tournament, play_match, run_league_part, write_league,
};
use darkhex_players::PlayerFactory;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::args;
use crate::errors::{IntoPy, value_error};
use crate::interrupt::{on_threads, run_blocking};
use crate::repr::fields_repr;

/// A tournament from what Python holds: TOML text, a dict of the same
/// fields, or the path of a tournament file.
fn tournament(py: Python<'_>, definition: &Bound<'_, PyAny>) -> PyResult<Tournament> {
    if definition.is_instance_of::<PyDict>() {
        let json: String = py
            .import("json")?
            .call_method1("dumps", (definition,))?
            .extract()?;
        return Tournament::from_json(&json).py();
    }
    if let Ok(text) = definition.extract::<String>() {
        // A tournament's text sets at least `game = ...`: a string with no
        // `=` and no line break is a file's path, and a missing file says
        // so rather than failing to parse as TOML.
        let path = Path::new(&text);
        if path.is_file() || !(text.contains('=') || text.contains('\n')) {
            return Tournament::from_toml_file(path).py();
        }
        return Tournament::from_toml(&text).py();
    }
    if let Ok(path) = definition.extract::<PathBuf>() {
        return Tournament::from_toml_file(&path).py();
    }
    Err(value_error(
        "a league is defined by TOML text, a dict of the same fields, or the path of a tournament file",
    ))
}

/// What `league` returns.
#[pyclass(module = "darkhex", name = "LeagueResult", frozen, get_all)]
pub struct LeagueResult {
    /// Player name to Elo rating (Bradley-Terry fit, mean 0), the CLI's numbers.
    ratings: Py<PyDict>,
    /// Pairwise scores: `table[row][col]` is the row player's mean score
    /// against the column player (1 a win, 0.5 a tie).
    table: Py<PyDict>,
    /// Every game of the log, as dicts, in schedule order.
    games: Py<PyList>,
    /// The report as `darkhex league` prints it (Markdown).
    report: String,
    /// Where the log and reports are, or None when they went to a temporary directory.
    out: Option<PathBuf>,
}

#[pymethods]
impl LeagueResult {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let head = fields_repr(slf.as_any(), &["out"])?;
        Ok(format!("{head}\n{}", slf.get().report))
    }
}

fn league_result(py: Python<'_>, run: &LeagueRun, out: Option<PathBuf>) -> PyResult<LeagueResult> {
    let ratings = PyDict::new(py);
    for p in &run.report.players {
        ratings.set_item(&p.name, p.rating.elo)?;
    }
    let table = PyDict::new(py);
    for c in &run.report.cross {
        let row = match table.get_item(&c.row)? {
            Some(row) => row.cast_into::<PyDict>()?,
            None => {
                let row = PyDict::new(py);
                table.set_item(&c.row, &row)?;
                row
            }
        };
        row.set_item(&c.col, c.overall.score)?;
    }
    let loads = py.import("json")?.getattr("loads")?;
    let games = PyList::empty(py);
    for g in &run.results {
        let text = serde_json::to_string(g).map_err(|e| value_error(e.to_string()))?;
        games.append(loads.call1((text,))?)?;
    }
    Ok(LeagueResult {
        ratings: ratings.unbind(),
        table: table.unbind(),
        games: games.unbind(),
        report: run.report.markdown(),
        out,
    })
}

/// Runs a league as `darkhex league` does and rates its players. The
/// definition is a tournament file's TOML text, a dict of the same fields,
/// or a file's path. The log and reports go to `out` (rerunning resumes,
/// or extends a grown league), or to a temporary directory; `shard="I/N"`
/// plays part I of N of the schedule. Ctrl-C keeps the finished games.
///
/// >>> import darkhex
/// >>> result = darkhex.league({
/// ...     "game": "kuhn_poker", "games_per_pair": 40, "seed": 1,
/// ...     "players": [{"name": "nash", "spec": "lp"}, {"spec": "random"}],
/// ... })
/// >>> result.ratings["nash"] > result.ratings["random"]
/// True
/// >>> len(result.games), sorted(result.table["nash"])
/// (40, ['random'])
#[pyfunction]
#[pyo3(signature = (definition, out = None, threads = None, shard = None))]
pub fn league(
    py: Python<'_>,
    definition: &Bound<'_, PyAny>,
    out: Option<PathBuf>,
    threads: Option<i128>,
    shard: Option<&str>,
) -> PyResult<LeagueResult> {
    let threads = args::threads(py, threads)?;
    let shard: Option<Shard> = shard.map(str::parse).transpose().py()?;
    let t = tournament(py, definition)?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let kept = out.clone();
    let run = run_blocking(py, Some(stop), move || -> Result<LeagueRun, String> {
        let temp;
        let dir: &Path = match &out {
            Some(d) => d,
            None => {
                temp = tempfile::tempdir().map_err(|e| e.to_string())?;
                temp.path()
            }
        };
        on_threads(threads, || {
            run_league_part(&t, shard, dir, &|_| {}, &flag).map_err(|e| crate::errors::message(&e))
        })?
    })?
    .map_err(value_error)?;
    if run.stopped {
        return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(
            "stopped before the end: run the league again with the same out to play the missing games",
        ));
    }
    league_result(py, &run, kept)
}

/// A tournament's players, prepared once per process: a Ray worker plays
/// many batches of one league.
struct Prepared {
    t: Tournament,
    game: AnyGame,
    factories: Vec<Arc<dyn PlayerFactory>>,
}

static PREPARED: Mutex<Option<(String, Arc<Prepared>)>> = Mutex::new(None);

fn prepared(json: &str, base_dir: &Path) -> Result<Arc<Prepared>, String> {
    let key = format!("{}\n{json}", base_dir.display());
    let mut cache = PREPARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((k, p)) = cache.as_ref()
        && *k == key
    {
        return Ok(p.clone());
    }
    let message = |e: darkhex_league::LeagueError| crate::errors::message(&e);
    let mut t = Tournament::from_json(json).map_err(message)?;
    t.base_dir = base_dir.to_path_buf();
    let game = load_game(&t.game).map_err(|e| crate::errors::message(&e))?;
    let factories = prepare_players(&t, &game).map_err(message)?;
    let p = Arc::new(Prepared { t, game, factories });
    *cache = Some((key, p.clone()));
    Ok(p)
}

/// The tournament as canonical JSON (names filled in), the number of games
/// in its schedule, and the directory its relative file paths start from.
#[pyfunction]
pub fn _league_schedule(
    py: Python<'_>,
    definition: &Bound<'_, PyAny>,
) -> PyResult<(String, usize, PathBuf)> {
    let t = tournament(py, definition)?;
    let json = serde_json::to_string(&t).map_err(|e| value_error(e.to_string()))?;
    let base = if t.base_dir.as_os_str().is_empty() {
        std::env::current_dir()?
    } else {
        std::path::absolute(&t.base_dir)?
    };
    Ok((json, t.schedule().len(), base))
}

/// Plays the games at `positions` of the schedule (0-based), one after
/// the other; returns each game's log line (JSON), unnumbered.
#[pyfunction]
pub fn _league_play(
    py: Python<'_>,
    tournament: String,
    base_dir: PathBuf,
    positions: Vec<usize>,
) -> PyResult<Vec<String>> {
    run_blocking(py, None, move || -> Result<Vec<String>, String> {
        let p = prepared(&tournament, &base_dir)?;
        let schedule = p.t.schedule();
        positions
            .iter()
            .map(|&i| {
                let m = schedule
                    .get(i)
                    .ok_or_else(|| format!("the league has no game at position {i}"))?;
                let g = play_match(&p.t, &p.game, &p.factories, m)
                    .map_err(|e| crate::errors::message(&e))?;
                serde_json::to_string(&g).map_err(|e| e.to_string())
            })
            .collect()
    })?
    .map_err(value_error)
}

/// Writes the league's log and reports from every game's line (in any
/// order; a game given twice counts once) into `out`, or a temporary
/// directory: the log `darkhex league` writes on one thread.
#[pyfunction]
#[pyo3(signature = (tournament, lines, out = None))]
pub fn _league_write(
    py: Python<'_>,
    tournament: String,
    lines: Vec<String>,
    out: Option<PathBuf>,
) -> PyResult<LeagueResult> {
    let t = Tournament::from_json(&tournament).py()?;
    let games: Vec<GameResult> = lines
        .iter()
        .map(|l| serde_json::from_str(l))
        .collect::<Result<_, _>>()
        .map_err(|e| value_error(format!("a game's line is damaged: {e}")))?;
    let kept = out.clone();
    let run = py
        .detach(move || -> Result<LeagueRun, String> {
            let temp;
            let dir: &Path = match &out {
                Some(d) => d,
                None => {
                    temp = tempfile::tempdir().map_err(|e| e.to_string())?;
                    temp.path()
                }
            };
            write_league(&t, games, dir).map_err(|e| crate::errors::message(&e))
        })
        .map_err(value_error)?;
    league_result(py, &run, kept)
}
