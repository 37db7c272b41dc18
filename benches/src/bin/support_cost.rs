//! How the cost of one exact best response (`restricted_br`) grows with the
//! fixed strategy's support on 4x3 Dark Hex: Black plays the first cell
//! empty in its view in the order b1 b2 b3 b4 a1 a2 a3 a4 c1 c2 c3 c4 (the
//! strategy of docs/results/bounds-4x3.md), except at its K shallowest
//! information states (fewest observations, then by key), where it plays
//! that cell and the next one alike. White's exact best response is
//! walked, on every core; one JSON line per K on stdout with the histories
//! and information states walked, wall and CPU seconds and peak memory.
//!
//! usage: support_cost GAME [K ...]   (default K: 0 1 2 4 8 16)

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use darkhex_algorithms::restricted_br::{
    FixedPolicy, Missing, Outcome, RestrictedBrError, Settings, restricted_best_response,
};
use darkhex_benches::{cpu_seconds, peak_rss_mb};
use darkhex_games::{Action, AnyGame, Game, State, Token, Turn, load_game};
use serde_json::json;

const ORDER: [Action; 12] = [1, 4, 7, 10, 0, 3, 6, 9, 2, 5, 8, 11];

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("{message}");
    std::process::exit(2);
}

/// The legal actions in the order's preference.
fn preferred(legal: &[Action]) -> Vec<Action> {
    ORDER
        .iter()
        .copied()
        .filter(|a| legal.contains(a))
        .collect()
}

struct ColumnFirst {
    mixed: BTreeSet<Vec<Token>>,
}

impl FixedPolicy for ColumnFirst {
    fn distribution(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        if player != 0 {
            return Ok(None);
        }
        let order = preferred(actions);
        let chosen: &[Action] = if self.mixed.contains(key) && order.len() > 1 {
            &order[..2]
        } else {
            &order[..1]
        };
        let share = 1.0 / chosen.len() as f64;
        Ok(Some(Cow::Owned(
            actions
                .iter()
                .map(|a| if chosen.contains(a) { share } else { 0.0 })
                .collect(),
        )))
    }
}

/// Black's information states the rule (mixing at `mixed`) reaches within
/// `depth` moves, against any play of White's.
fn states<S: State>(
    state: &S,
    depth: usize,
    policy: &ColumnFirst,
    out: &mut BTreeSet<(usize, Vec<Token>)>,
) {
    if depth == 0 {
        return;
    }
    let moves = match state.current_player() {
        Turn::Player(0) => {
            let key = state.info_key(0);
            out.insert((key.len(), key.to_vec()));
            let legal = state.legal_actions();
            let order = preferred(&legal);
            if policy.mixed.contains(key) {
                order.into_iter().take(2).collect()
            } else {
                order.into_iter().take(1).collect()
            }
        }
        Turn::Player(_) => state.legal_actions(),
        _ => Vec::new(),
    };
    for a in moves {
        let mut next = state.clone();
        next.apply(a);
        states(&next, depth - 1, policy, out);
    }
}

/// The `k` shallowest information states, each chosen with the ones
/// before it mixing (so it is reached).
fn shallowest<G: Game>(game: &G, k: usize) -> BTreeSet<Vec<Token>> {
    let mut policy = ColumnFirst {
        mixed: BTreeSet::new(),
    };
    let mut depth = 1;
    while policy.mixed.len() < k {
        let mut found = BTreeSet::new();
        states(&game.new_initial_state(), depth, &policy, &mut found);
        match found
            .into_iter()
            .find(|(_, key)| !policy.mixed.contains(key))
        {
            Some((_, key)) => {
                policy.mixed.insert(key);
            }
            None if depth > game.max_game_length() => fail("fewer information states than K"),
            None => depth += 1,
        }
    }
    policy.mixed
}

fn measure<G: Game>(game: &G, name: &str, k: usize) {
    let policy = ColumnFirst {
        mixed: shallowest(game, k),
    };
    let settings = Settings {
        missing: Missing::Error,
        record: false,
        keep: false,
    };
    let stop = AtomicBool::new(false);
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let outcome = restricted_best_response(game, &policy, 1, settings, None, &stop, &|_| {})
        .unwrap_or_else(|e| fail(e));
    let Outcome::Done(r) = outcome else {
        fail("stopped")
    };
    println!(
        "{}",
        json!({
            "game": name,
            "mixed_states": k,
            "black_value_bound": -r.value,
            "histories": r.work.histories,
            "white_info_states": r.work.info_states,
            "wall_seconds": wall.elapsed().as_secs_f64(),
            "cpu_seconds": cpu_seconds() - cpu,
            "threads": rayon::current_num_threads(),
            "peak_rss_mb": peak_rss_mb(),
        })
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        fail("usage: support_cost GAME [K ...]");
    };
    let game: AnyGame = load_game(name).unwrap_or_else(|e| fail(e));
    if game.num_distinct_actions() != ORDER.len() {
        fail("support_cost plays a 4x3 strategy: the game must have 12 cells");
    }
    let ks: Vec<usize> = if args.len() > 1 {
        args[1..]
            .iter()
            .map(|k| {
                k.parse()
                    .unwrap_or_else(|_| fail(format!("K is a count, not {k}")))
            })
            .collect()
    } else {
        vec![0, 1, 2, 4, 8, 16]
    };
    for k in ks {
        measure(&game, name, k);
    }
}
