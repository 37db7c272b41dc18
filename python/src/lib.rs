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
mod repr;
mod solvers;
mod vector_env;

use darkhex_algorithms::hexsolve::openings::opening_cells as board_openings;
use darkhex_games::AnyGame;
use pyo3::prelude::*;

use crate::errors::value_error;

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

#[pymodule]
fn _darkhex(m: &Bound<'_, PyModule>) -> PyResult<()> {
    darkhex_algorithms::fa::threads::settle();
    m.add_class::<games::PyGame>()?;
    m.add_class::<games::PyState>()?;
    m.add_class::<solvers::PyPolicy>()?;
    m.add_class::<solvers::TrainResult>()?;
    m.add_class::<deep::PyModel>()?;
    m.add_class::<deep::DeepCfrResult>()?;
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
    m.add("CHANCE_PLAYER_ID", games::CHANCE_PLAYER)?;
    m.add("TERMINAL_PLAYER_ID", games::TERMINAL_PLAYER)?;
    Ok(())
}
