//! darkhex-hexengine: the perfect-information engine for Hex and Rex,
//! which needs only the games and darkhex-base: virtual connections,
//! inferior cells, edge and ladder patterns, depth-first proof-number
//! search over a transposition table, Rex's own rules and the openings
//! tables ([`hexsolve`]); the evaluations a player or a move order reads
//! (resistance, the E and E_k path counts: [`eval`]); and the analyst the
//! GTP engine, the players and the witness search ask ([`analyst`]).
//!
//! None of the imperfect-information solvers (CFR, LP, PONE, the tables)
//! is built with it: a Hex-only user compiles no LP solver and no network.

pub mod analyst;
pub mod eval;
pub mod hexsolve;
