//! darkhex-league: runs round-robin and gauntlet tournaments between players,
//! keeps an append-only results log that a rerun resumes, and rates players.
