//! darkhex-players: the Player trait and every player: uniform random, trained
//! and solver-backed policies, MCTS and information-set MCTS, and humans.
//! A player sees only its own observations, never the real board of a dark game.
