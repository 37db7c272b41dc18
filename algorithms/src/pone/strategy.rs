//! Probability-one strategies written out: the owner's action at every
//! information state the strategy can reach, keyed by the exact token
//! sequence the game shows the owner.

use std::path::Path;

use darkhex_games::dark_hex::{DarkHexGame, token};
use darkhex_games::{Action, Game, Token};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::knowledge::{Heard, Hearing, Knowledge, Rules, knowledge_of};
use super::search::Search;
use crate::files::{self, Document, Encoding, FileError, FileKind};

pub const STRATEGY_FORMAT: &str = "darkhex-pone-strategy";
pub const STRATEGY_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strategy {
    pub format: String,
    pub version: u32,
    pub game: String,
    pub player: usize,
    /// The information state the strategy starts from (empty: the game's start).
    pub from: Vec<Token>,
    /// (information state, action), sorted by information state.
    pub moves: Vec<(Vec<Token>, Action)>,
}

impl Strategy {
    /// Writes JSON when the name ends in `.json`, else the checksummed binary form.
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        files::save(path, self, Encoding::for_path(path))
    }

    pub fn load(path: &Path) -> Result<Strategy, FileError> {
        files::load(path)
    }

    /// The moves indexed by information state.
    pub fn table(&self) -> FxHashMap<&[Token], Action> {
        self.moves.iter().map(|(k, a)| (k.as_slice(), *a)).collect()
    }
}

impl Document for Strategy {
    const KIND: FileKind = FileKind::PoneStrategy;
    const VERSION: u32 = STRATEGY_VERSION;
    fn game(&self) -> &str {
        &self.game
    }
}

/// Token sequences the owner sees for one perceived opponent turn.
fn turn_tokens(rules: &Rules, heard: Heard) -> Vec<Vec<Token>> {
    let turn_marker: Vec<Token> = if rules.numturns {
        vec![token::OPPONENT_TURN]
    } else {
        vec![]
    };
    // Collision tokens in every order the opponent could have made them.
    let mut collision_orders: Vec<Vec<Token>> = vec![vec![]];
    match rules.hearing {
        Hearing::Cells => {
            let cells: Vec<Token> = (0..64)
                .filter(|c| heard.cells >> c & 1 == 1)
                .map(|c| token::FLASH | c as Token)
                .collect();
            collision_orders = permutations(&cells);
        }
        Hearing::Count => {
            let one = match rules.disclosure {
                darkhex_games::dark_hex::Disclosure::None => token::OPPONENT_TURN,
                _ => token::NOISE,
            };
            collision_orders = vec![vec![one; heard.count as usize]];
        }
        Hearing::Nothing => {}
    }
    if rules.abrupt && !heard.placed {
        // One heard collision, and nothing else, this turn. (Unheard, a
        // collision looks like a placement: opponent_branches reports it so.)
        return collision_orders;
    }
    collision_orders
        .into_iter()
        .map(|mut seq| {
            seq.extend_from_slice(&turn_marker);
            seq
        })
        .collect()
}

fn permutations(items: &[Token]) -> Vec<Vec<Token>> {
    if items.is_empty() {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// Writes out the strategy a finished search found from the information
/// state `from`: one entry per reachable information state (none if `from`
/// is not one of the search's player's).
pub fn extract_strategy(search: &Search, game: &DarkHexGame, from: &[Token]) -> Strategy {
    Strategy {
        format: STRATEGY_FORMAT.into(),
        version: STRATEGY_VERSION,
        game: game.game_string(),
        player: search.rules.owner,
        from: from.to_vec(),
        moves: strategy_moves(search, [from.to_vec()]),
    }
}

/// The winning moves at every information state reachable from any of
/// `roots` (the search's player's information states) under the strategy
/// the search found, sorted by information state; a root the player does
/// not win from, or that is not theirs, adds nothing.
pub fn strategy_moves(
    search: &Search,
    roots: impl IntoIterator<Item = Vec<Token>>,
) -> Vec<(Vec<Token>, Action)> {
    let rules = &search.rules;
    let mut moves: FxHashMap<Vec<Token>, Action> = FxHashMap::default();
    let mut stack: Vec<(Vec<Token>, Knowledge)> = roots
        .into_iter()
        .filter_map(|from| knowledge_of(rules, &from).map(|root| (from, root)))
        .collect();
    while let Some((tokens, k)) = stack.pop() {
        if moves.contains_key(&tokens) {
            continue;
        }
        let Some(cell) = search.winning_move(&k) else {
            // A state no hidden configuration fits is never reached.
            continue;
        };
        moves.insert(tokens.clone(), cell as Action);
        let worlds = k.worlds(rules);
        let bit = 1u64 << cell;
        let mut follow = |after: Knowledge, prefix: Vec<Token>, sets: Vec<u64>| {
            let Some(branches) = search.opponent_branches(&after, &sets) else {
                unreachable!("a winning move leaves the opponent no win");
            };
            for heard in branches {
                let next = after.after_opponent(rules, heard);
                for seq in turn_tokens(rules, heard) {
                    let mut t = prefix.clone();
                    t.extend(seq);
                    stack.push((t, next));
                }
            }
        };
        if worlds.intersection & bit == 0 && !rules.geometry.connected(k.own | bit, rules.owner) {
            let mut t = tokens.clone();
            t.push(token::PLACED | cell as Token);
            follow(k.after_own(cell, false), t, worlds.placing(bit));
        }
        if worlds.union & bit != 0 {
            let mut t = tokens.clone();
            t.push(token::COLLIDED | cell as Token);
            let after = k.after_own(cell, true);
            if rules.abrupt {
                follow(after, t, worlds.hitting(bit));
            } else {
                stack.push((t, after));
            }
        }
    }
    let mut moves: Vec<(Vec<Token>, Action)> = moves.into_iter().collect();
    moves.sort();
    moves
}
