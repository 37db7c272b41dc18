//! What a tournament is: the game, the players, how many games each pair
//! plays, the format and the base seed; read from TOML or built in code.

use std::hash::{BuildHasher, Hash};
use std::path::{Path, PathBuf};

use rustc_hash::FxBuildHasher;
use serde::{Deserialize, Serialize};

use crate::LeagueError;

/// The most games a tournament may hold: its schedule is held in memory
/// and its log takes a few hundred bytes a game.
pub const MAX_GAMES: u64 = 1_000_000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The name in tables; defaults to the spec.
    #[serde(default)]
    pub name: String,
    /// A player spec such as `ismcts(sims=1000)`.
    pub spec: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every pair of players.
    RoundRobin,
    /// One player against each of the others.
    Gauntlet,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tournament {
    pub game: String,
    pub players: Vec<Entry>,
    /// Games each pair plays; seats alternate, so an even number is fair.
    pub games_per_pair: u32,
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "round_robin")]
    pub format: Format,
    /// The gauntlet's player (by name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenger: Option<String>,
    /// Where relative file paths in player specs start: the tournament
    /// file's directory. Not part of what the tournament is.
    #[serde(skip)]
    pub base_dir: PathBuf,
}

impl PartialEq for Tournament {
    fn eq(&self, other: &Self) -> bool {
        self.game == other.game
            && self.players == other.players
            && self.games_per_pair == other.games_per_pair
            && self.seed == other.seed
            && self.format == other.format
            && self.challenger == other.challenger
    }
}

fn round_robin() -> Format {
    Format::RoundRobin
}

/// One game of a tournament: players `a` and `b` (indices), the `round`
/// of their pairing; `a` sits first in even rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Match {
    pub a: usize,
    pub b: usize,
    pub round: u32,
}

impl Match {
    pub fn seats(&self) -> [usize; 2] {
        if self.round.is_multiple_of(2) {
            [self.a, self.b]
        } else {
            [self.b, self.a]
        }
    }
}

/// A game of the schedule with its id: the number `league show` takes and
/// the results log records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Numbered {
    pub id: u64,
    pub game: Match,
}

/// A tournament as it stood before it was extended: its players (names, in
/// order) and games per pair. A log keeps the stages its league went
/// through, so that game ids stay what they were when it grew.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stage {
    pub players: Vec<String>,
    pub games_per_pair: u32,
}

/// SplitMix64: spreads consecutive seeds over the whole range.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Tournament {
    /// Reads a tournament file; player files are found relative to it.
    pub fn from_toml_file(path: &Path) -> Result<Tournament, LeagueError> {
        let text = darkhex_algorithms::files::read_text(path)?;
        let mut t = Tournament::from_toml(&text)?;
        t.base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(t)
    }

    pub fn from_toml(text: &str) -> Result<Tournament, LeagueError> {
        // The parser's message points at the line with a caret under the
        // column: its line breaks are kept.
        let mut t: Tournament = toml::from_str(text)
            .map_err(|e| LeagueError::Definition(e.to_string().trim_end().to_string()))?;
        t.fill_names();
        t.validate()?;
        Ok(t)
    }

    /// The same definition as [`Tournament::from_toml`] reads, written as a
    /// JSON object (a Python dict, say).
    pub fn from_json(text: &str) -> Result<Tournament, LeagueError> {
        let mut t: Tournament =
            serde_json::from_str(text).map_err(|e| LeagueError::Definition(e.to_string()))?;
        t.fill_names();
        t.validate()?;
        Ok(t)
    }

    pub fn new(
        game: &str,
        specs: &[String],
        games_per_pair: u32,
        seed: u64,
        gauntlet: Option<String>,
    ) -> Result<Tournament, LeagueError> {
        let mut t = Tournament {
            game: game.to_string(),
            players: specs
                .iter()
                .map(|s| Entry {
                    name: String::new(),
                    spec: s.clone(),
                })
                .collect(),
            games_per_pair,
            seed,
            format: if gauntlet.is_some() {
                Format::Gauntlet
            } else {
                Format::RoundRobin
            },
            challenger: gauntlet,
            base_dir: PathBuf::new(),
        };
        t.fill_names();
        t.validate()?;
        Ok(t)
    }

    /// Unnamed players are named by their spec; the same spec twice
    /// becomes `spec#1`, `spec#2`, ...
    fn fill_names(&mut self) {
        let unnamed: Vec<String> = self
            .players
            .iter()
            .filter(|p| p.name.trim().is_empty())
            .map(|p| p.spec.trim().to_string())
            .collect();
        let mut seen: std::collections::HashMap<String, usize> = Default::default();
        for p in &mut self.players {
            if p.name.trim().is_empty() {
                let spec = p.spec.trim().to_string();
                p.name = if unnamed.iter().filter(|s| **s == spec).count() > 1 {
                    let k = seen.entry(spec.clone()).or_insert(0);
                    *k += 1;
                    format!("{spec}#{k}")
                } else {
                    spec
                };
            }
        }
    }

    /// "round-robin", or "gauntlet of NAME".
    pub fn format_name(&self) -> String {
        match (&self.format, &self.challenger) {
            (Format::Gauntlet, Some(c)) => format!("gauntlet of {c}"),
            (Format::Gauntlet, None) => "gauntlet".into(),
            (Format::RoundRobin, _) => "round-robin".into(),
        }
    }

    /// Checks what a tournament file or a log's header may get wrong.
    pub fn validate(&self) -> Result<(), LeagueError> {
        let bad = |m: String| Err(LeagueError::Definition(m));
        if self.players.len() < 2 {
            return bad(format!(
                "a tournament needs at least two players, not {}",
                self.players.len()
            ));
        }
        if self.games_per_pair == 0 {
            return bad("games_per_pair must be at least 1".into());
        }
        let n = self.players.len() as u128;
        let pairs = match self.format {
            Format::RoundRobin => n * (n - 1) / 2,
            Format::Gauntlet => n - 1,
        };
        let games = pairs * u128::from(self.games_per_pair);
        if games > MAX_GAMES as u128 {
            return bad(format!(
                "{} players and {} games per pair make {games} games: at most {MAX_GAMES} are accepted",
                self.players.len(),
                self.games_per_pair
            ));
        }
        for (i, p) in self.players.iter().enumerate() {
            // Names go into one-line messages, CSV and Markdown tables.
            if p.name.chars().any(char::is_control) {
                return bad(format!(
                    "the player name '{}' holds a control character: names are one line of text",
                    darkhex_games::one_line(&p.name)
                ));
            }
            if self.players[..i].iter().any(|q| q.name == p.name) {
                return bad(format!(
                    "two players are named '{}': give them different names",
                    p.name
                ));
            }
        }
        match (&self.format, &self.challenger) {
            (Format::Gauntlet, None) => bad("a gauntlet needs challenger = NAME".into()),
            (Format::Gauntlet, Some(c)) if self.index_of(c).is_none() => {
                let names: Vec<&str> = self.players.iter().map(|p| p.name.as_str()).collect();
                bad(format!(
                    "the challenger '{c}' is not a player: players are {}",
                    names.join(", ")
                ))
            }
            (Format::RoundRobin, Some(_)) => bad("challenger is for format = \"gauntlet\"".into()),
            _ => Ok(()),
        }
    }

    /// The position of the player called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.players.iter().position(|p| p.name == name)
    }

    /// The pairs that meet, in a fixed order.
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        let n = self.players.len();
        match self.format {
            Format::RoundRobin => (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .collect(),
            Format::Gauntlet => {
                let c = self
                    .challenger
                    .as_deref()
                    .and_then(|c| self.index_of(c))
                    .unwrap_or(0);
                (0..n).filter(|&b| b != c).map(|b| (c, b)).collect()
            }
        }
    }

    /// Every game, pair by pair, round by round.
    pub fn schedule(&self) -> Vec<Match> {
        self.pairs()
            .into_iter()
            .flat_map(|(a, b)| (0..self.games_per_pair).map(move |round| Match { a, b, round }))
            .collect()
    }

    /// This tournament as a stage of a growing league.
    pub fn stage(&self) -> Stage {
        Stage {
            players: self.players.iter().map(|p| p.name.clone()).collect(),
            games_per_pair: self.games_per_pair,
        }
    }

    /// Every game with its id, by id. Ids depend only on the schedule:
    /// the games of the first stage are numbered from 1 pair by pair,
    /// round by round; each later stage (`earlier`, then this tournament)
    /// numbers the games it added after them, in its own schedule order.
    /// So two runs, a resumed run and the shards of a run give every game
    /// the same id, and extending a league keeps the ids it had.
    pub fn numbered_schedule(&self, earlier: &[Stage]) -> Vec<Numbered> {
        let key = |m: &Match| {
            (
                self.players[m.a].name.as_str(),
                self.players[m.b].name.as_str(),
                m.round,
            )
        };
        let mut ids: std::collections::HashMap<(&str, &str, u32), u64> = Default::default();
        let mut next = 1;
        for stage in earlier.iter().chain(std::iter::once(&self.stage())) {
            // The stage's players keep their order in this tournament (a
            // league that grows may not reorder them), so the stage's
            // schedule is this one's restricted to them.
            let present: Vec<bool> = self
                .players
                .iter()
                .map(|p| stage.players.contains(&p.name))
                .collect();
            for m in self.schedule() {
                if present[m.a] && present[m.b] && m.round < stage.games_per_pair {
                    ids.entry(key(&m)).or_insert_with(|| {
                        next += 1;
                        next - 1
                    });
                }
            }
        }
        let mut out: Vec<Numbered> = self
            .schedule()
            .into_iter()
            .map(|game| Numbered {
                id: ids[&key(&game)],
                game,
            })
            .collect();
        out.sort_by_key(|n| n.id);
        out
    }

    /// The seed of one game: depends on the base seed, the players' names
    /// and the round, so adding a player leaves other games' seeds alone.
    pub fn game_seed(&self, m: &Match) -> u64 {
        let key = (&self.players[m.a].name, &self.players[m.b].name, m.round);
        mix(self.seed ^ FxBuildHasher.hash_one(key))
    }
}
