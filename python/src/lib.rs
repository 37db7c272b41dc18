//! The compiled half of the `darkhex` Python package (`darkhex._darkhex`):
//! bindings that convert types and release the GIL, while every algorithm
//! stays in the Rust crates. `darkhex/__init__.py` re-exports it; the
//! OpenSpiel and Ray layers are Python (`darkhex/openspiel.py`, `darkhex/ray.py`).

mod args;
mod deep;
mod errors;
mod games;
mod interrupt;
mod league;
mod policy_fn;
mod repr;
mod rl;
mod solvers;
mod tree;
mod vector_env;

use darkhex_games::AnyGame;
use darkhex_games::{Game, State};
use darkhex_hexengine::analyst::{Considered, analyst_for};
use darkhex_hexengine::hexsolve::openings::opening_cells as board_openings;
use darkhex_players::hex_players::stones_after;
use pyo3::prelude::*;

use crate::errors::{IntoPy, value_error};

/// The openings of a Hex or Rex board up to the 180-degree rotation, as
/// `darkhex solve --openings` solves them: one cell of each pair, ascending.
///
/// >>> import darkhex
/// >>> darkhex.opening_cells(darkhex.load_game("hex(board_size=3)"))
/// [0, 1, 2, 3, 4]
#[pyfunction]
fn opening_cells(game: &games::PyGame) -> PyResult<Vec<usize>> {
    match game.game {
        AnyGame::Hex(hex) => Ok(board_openings(hex.dims())),
        other => Err(value_error(format!(
            "openings are of Hex and Rex boards, not {other}"
        ))),
    }
}

/// The moves the Hex and Rex solver searches in the position `moves`
/// (ids or names from the empty board), best first: the empty cells less
/// those it proves it may skip (dead, captured, dominated, outside a
/// must-play region), in its order. Empty when the position is decided
/// already (or over). The job-level search expands its leaves with them.
///
/// >>> import darkhex
/// >>> darkhex.hex_moves(darkhex.load_game("hex(board_size=4)"), ["a1"])
/// []
#[pyfunction]
#[pyo3(signature = (game, moves = Vec::new()))]
fn hex_moves(game: &games::PyGame, moves: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<usize>> {
    let AnyGame::Hex(hex) = game.game else {
        return Err(value_error(format!(
            "hex_moves takes Hex and Rex positions, not {}",
            game.game
        )));
    };
    let mut state = hex.new_initial_state();
    let mut played = Vec::with_capacity(moves.len());
    for m in &moves {
        let a = games::action_of(&game.game, m)?;
        state.try_apply(a).py()?;
        played.push(a);
    }
    if state.is_terminal() {
        return Ok(Vec::new());
    }
    match analyst_for(&hex).considered(&stones_after(&played), moves.len() % 2) {
        Considered::Decided(_) => Ok(Vec::new()),
        Considered::Moves(cells) => Ok(cells),
    }
}

/// Sets the memory guard's limit for every later call, in GB (`None`: back
/// to the default, 60% of the memory available): the CLI's
/// `--max-memory-gb`. A game tree, a Deep CFR run or a `VectorEnv` that
/// would need more raises `MemoryError` before it is built.
///
/// >>> import darkhex
/// >>> darkhex.set_memory_limit(0.001)
/// >>> darkhex.VectorEnv(darkhex.load_game("hex(board_size=3)"), 100_000)
/// Traceback (most recent call last):
/// ...
/// MemoryError: a VectorEnv of 100000 games of hex(board_size=3) would need about ... (its states, random streams and two steps' arrays), more than the 1.0 MB that darkhex.set_memory_limit allows
/// >>> darkhex.set_memory_limit(None)
#[pyfunction]
#[pyo3(signature = (gb))]
fn set_memory_limit(gb: Option<f64>) -> PyResult<()> {
    let limit = match gb {
        Some(g) => Some((
            (args::number("gb", g, (0.001, false), (1e6, false))? * 1e9) as u64,
            "darkhex.set_memory_limit",
        )),
        None => None,
    };
    darkhex_algorithms::memory::set_process_limit(limit);
    Ok(())
}

#[pymodule]
fn _darkhex(m: &Bound<'_, PyModule>) -> PyResult<()> {
    darkhex_algorithms::fa::threads::settle();
    m.add_class::<games::PyGame>()?;
    m.add_class::<games::PyState>()?;
    m.add_class::<solvers::PyPolicy>()?;
    m.add_class::<solvers::TrainResult>()?;
    m.add_class::<deep::PyModel>()?;
    m.add_class::<deep::DeepCfrResult>()?;
    m.add_class::<rl::RlResult>()?;
    m.add_class::<solvers::LpResult>()?;
    m.add_class::<solvers::PoneResult>()?;
    m.add_class::<solvers::HexResult>()?;
    m.add_class::<league::LeagueResult>()?;
    m.add_class::<vector_env::VectorEnv>()?;
    m.add_function(wrap_pyfunction!(games::load_game, m)?)?;
    m.add_function(wrap_pyfunction!(solvers::train, m)?)?;
    m.add_function(wrap_pyfunction!(deep::train_deep_cfr, m)?)?;
    m.add_function(wrap_pyfunction!(solvers::exploitability, m)?)?;
    m.add_function(wrap_pyfunction!(solvers::load_policy, m)?)?;
    m.add_function(wrap_pyfunction!(solvers::solve_lp, m)?)?;
    m.add_function(wrap_pyfunction!(solvers::pone, m)?)?;
    m.add_function(wrap_pyfunction!(solvers::solve_hex, m)?)?;
    m.add_function(wrap_pyfunction!(league::league, m)?)?;
    m.add_function(wrap_pyfunction!(league::_league_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(league::_league_play, m)?)?;
    m.add_function(wrap_pyfunction!(league::_league_write, m)?)?;
    m.add_function(wrap_pyfunction!(opening_cells, m)?)?;
    m.add_function(wrap_pyfunction!(hex_moves, m)?)?;
    m.add_function(wrap_pyfunction!(set_memory_limit, m)?)?;
    m.add("CHANCE_PLAYER_ID", games::CHANCE_PLAYER)?;
    m.add("TERMINAL_PLAYER_ID", games::TERMINAL_PLAYER)?;
    Ok(())
}
