//! darkhex-algorithms: solvers over the games of `darkhex-games`: game-tree
//! compilation, the CFR family and Monte Carlo CFR, exact best response and
//! exploitability, sequence-form and normal-form LP, PONE (probability-one
//! wins in Dark Hex), and perfect-information Hex/Rex solvers.
//!
//! The crate grows issue by issue; the game-tree walk it builds on lives in
//! `darkhex_games::analysis`.
