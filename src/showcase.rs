//! `darkhex` with no arguments: the showcase. It solves a small Dark Hex
//! board exactly, trains CFR+ on it, and rates the trained policy, the
//! equilibrium and two other players against each other, in seconds.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Result;
use darkhex_algorithms::lp::{LpOptions, solve_sequence_form};
use darkhex_algorithms::{
    Algorithm, AlgorithmParams, CompileOptions, GameTree, PolicyFile, Provenance, Trainer,
};
use darkhex_games::{EXAMPLE_GAME_STRINGS, load_game};
use darkhex_league::{Tournament, run_league};

use crate::output::outln;

const GAME: &str = "dark_hex(num_rows=2,num_cols=3,gameversion=adh)";
const GAMES_PER_PAIR: u32 = 200;

pub fn run() -> Result<()> {
    let start = Instant::now();
    outln!("darkhex: Hex, Rex and Dark Hex, with exact solvers, CFR, players and a league.");
    outln!(
        "Games are named by strings such as {}.\n",
        EXAMPLE_GAME_STRINGS[..4].join(", ")
    );
    let dir = tempfile::tempdir()?;
    let game = load_game(GAME)?;
    outln!("Abrupt Dark Hex on a 2x3 board: each player sees only their own stones, and");
    outln!("a move onto a hidden enemy stone reveals it and costs the turn.\n");

    let t = Instant::now();
    let tree = GameTree::build(&game, &CompileOptions::default())?;
    let exact = solve_sequence_form(&tree, LpOptions::default(), &|_| {})?;
    outln!(
        "1. Exact solution by sequence-form LP: the first player's value is {:.6} (9/11), \
         exploitability {:.1e}, {:.2} s.",
        exact.value_p0,
        exact.exploitability.exploitability,
        t.elapsed().as_secs_f64()
    );
    let lp_path = dir.path().join("equilibrium.json");
    PolicyFile::from_tree(&tree, &exact.policy, Provenance::default()).save(&lp_path)?;

    let t = Instant::now();
    let algorithm = Algorithm::parse("cfr+", AlgorithmParams::default())?;
    let mut trainer = Trainer::new(game, Some(&tree), algorithm, 0, 1)?;
    trainer.run(200)?;
    let e = trainer
        .evaluate()?
        .map(|e| e.exploitability)
        .unwrap_or(f64::NAN);
    let cfr_path = dir.path().join("cfr.json");
    trainer.policy().save(&cfr_path)?;
    outln!(
        "2. CFR+ for 200 iterations: exploitability {e:.1e}, {:.2} s (OpenSpiel's CFR+ takes ~30 ms an iteration here).",
        t.elapsed().as_secs_f64()
    );

    let t = Instant::now();
    let specs = [
        "random".to_string(),
        "ismcts(sims=1000)".to_string(),
        format!("policy(file={})", cfr_path.display()),
        format!("lp(file={})", lp_path.display()),
    ];
    let mut league = Tournament::new(GAME, &specs, GAMES_PER_PAIR, 1, None)?;
    for (entry, name) in
        league
            .players
            .iter_mut()
            .zip(["random", "ismcts", "cfr+ 200", "equilibrium"])
    {
        entry.name = name.to_string();
    }
    let run = run_league(
        &league,
        &dir.path().join("league"),
        &|_| {},
        &AtomicBool::new(false),
    )?;
    outln!(
        "3. A league, {GAMES_PER_PAIR} games a pair with seats alternating, {} games in {:.2} s:\n",
        run.results.len(),
        t.elapsed().as_secs_f64()
    );
    outln!("{}", run.report.ratings_markdown());
    outln!("{}", run.report.cross_markdown());
    outln!(
        "The whole showcase took {:.1} s. Next:",
        start.elapsed().as_secs_f64()
    );
    let next = [
        (
            format!("darkhex solve '{GAME}'"),
            "the LP, its details and policy file",
        ),
        (
            "darkhex train leduc_poker --plot leduc.svg".to_string(),
            "CFR+ with progress and a plot",
        ),
        (
            format!("darkhex league --game '{GAME}' --players random,lp,ismcts"),
            "your own tournament",
        ),
        (
            "darkhex play 'dark_hex(num_rows=3,num_cols=3)'".to_string(),
            "play against the random player",
        ),
        ("darkhex --help".to_string(), "every command"),
    ];
    for (command, what) in next {
        outln!("  {command:<84} {what}");
    }
    Ok(())
}
