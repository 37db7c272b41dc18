//! Progress display (spinners and bars on stderr, hidden when it is not a
//! terminal) and what the long-running commands share: compiling with a
//! spinner, default output paths.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::{CompileOptions, GameTree, TreeError};
use darkhex_games::{AnyGame, Game, with_game};
use indicatif::{ProgressBar, ProgressStyle};

pub fn spinner(template_prefix: &str) -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    let style = ProgressStyle::with_template(&format!(
        "{{spinner}} {template_prefix} {{human_pos}} histories"
    ))
    .unwrap_or_else(|_| ProgressStyle::default_spinner());
    bar.set_style(style);
    bar
}

pub fn bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let style = ProgressStyle::with_template(
        "{bar:32.cyan/blue} {human_pos}/{human_len} iterations  {msg}  [{elapsed_precise} < {eta}]",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// A bar over a streaming pass: the share of histories done and the time left.
pub fn histories_bar(histories: u64) -> ProgressBar {
    let bar = ProgressBar::new(histories);
    let style = ProgressStyle::with_template(
        "{bar:32.cyan/blue} {percent:>3}% of {human_len} histories, {per_sec}  [{elapsed_precise} < {eta}]",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// A bar over a network's policy computed at every information state.
pub fn information_states_bar(states: u64) -> ProgressBar {
    let bar = ProgressBar::new(states);
    let style = ProgressStyle::with_template(
        "{bar:32.cyan/blue} {human_pos}/{human_len} information states through the network, {per_sec}  [{elapsed_precise} < {eta}]",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// Compiles `game` with a spinner; returns the tree and the seconds it took.
pub fn compile(game: &AnyGame, limit: MemoryLimit) -> Result<(GameTree, f64), TreeError> {
    let bar = spinner("compiling the game tree:");
    let progress = |n: u64| bar.set_position(n);
    let options = CompileOptions {
        limit,
        progress: Some(&progress),
    };
    let start = Instant::now();
    let tree = with_game!(game, g => GameTree::build(g, &options));
    bar.finish_and_clear();
    Ok((tree?, start.elapsed().as_secs_f64()))
}

/// `policies/<game>-<algo>.<ext>` with the game string made file-name safe.
pub fn default_policy_path(game: &AnyGame, algo: &str, binary: bool) -> PathBuf {
    let mut slug = String::new();
    for c in game.game_string().chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('_') {
            slug.push('_');
        }
    }
    let slug = slug.trim_end_matches('_');
    let algo = algo.replace('+', "plus");
    PathBuf::from("policies").join(format!(
        "{slug}-{algo}.{}",
        if binary { "bin" } else { "json" }
    ))
}
