//! `darkhex analyze`: Honjo et al.'s position networks of a Hex position:
//! each player's distance d(s, t), the sizes n_i of the k-shortest path sets,
//! E, E_k, and each cell's k-contribution as a board (and an SVG heat map).

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use darkhex_games::board::{BLACK, Dims, WHITE, stone_glyph};
use darkhex_games::{AnyGame, Game, State};
use darkhex_hexengine::analyst::{NetworkReport, analyst_for};
use darkhex_hexengine::eval::paths::DEFAULT_MAX_PATHS;
use darkhex_hexengine::eval::{Exact, PathLimits, PathSets, Weight};
use darkhex_players::hex_players::stones_after;
use darkhex_players::registry::MAX_K;
use num_traits::ToPrimitive;
use serde_json::{Value, json};

use crate::help;
use crate::output::{outln, side_by_side};
use crate::outputs::{Files, Holds};

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex analyze 'hex(board_size=7)' --moves d4,c5",
    "darkhex analyze 'hex(board_size=11)' --moves f6,e7 --k 1 --svg f6e7.svg",
    "darkhex analyze 'hex(board_size=5)' --moves c3 --k 0 --x 0.01 --json",
], &[help::GAMES]))]
pub struct AnalyzeArgs {
    /// A Hex game string, e.g. 'hex(board_size=7)'
    #[arg(value_parser = crate::parse_game)]
    game: AnyGame,
    /// Moves from the empty board, Black first: comma-separated cell names
    #[arg(long, default_value = "")]
    moves: String,
    /// The last path set counted: S_0..S_k
    #[arg(long, default_value_t = 2, allow_negative_numbers = true, value_parser = crate::args::whole::<u8>(0, Some(MAX_K as i128)))]
    k: u8,
    /// The weight x of E_k: a path one link longer is worth x paths
    #[arg(long, default_value = "0.00001")]
    x: String,
    /// Paths each network's enumeration of S_0..S_k records at most
    #[arg(long, default_value_t = DEFAULT_MAX_PATHS, allow_negative_numbers = true, value_parser = crate::args::whole::<usize>(1, None))]
    paths: usize,
    /// Write a heat map of the k-contributions to this SVG file (named .svg)
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Print one JSON object instead of tables
    #[arg(long)]
    json: bool,
}

/// What `analyze` writes, for the output guard.
pub fn files(args: &AnalyzeArgs) -> Files {
    Files::new().writes("--svg", args.svg.as_deref(), Holds::Svg)
}

pub fn run(args: AnalyzeArgs) -> Result<()> {
    let AnyGame::Hex(game) = args.game else {
        bail!(
            "analyze evaluates Hex positions, not {}: give 'hex(board_size=N)'",
            args.game
        );
    };
    if game.is_misere() {
        bail!("analyze evaluates Hex positions (joining wins), not Rex: give 'hex(board_size=N)'");
    }
    let x: Weight = args.x.parse().map_err(|e| anyhow!("--x: {e}"))?;
    let dims = game.dims();
    let mut state = game.new_initial_state();
    let mut moves = Vec::new();
    for (i, text) in args.moves.split(',').map(str::trim).enumerate() {
        if text.is_empty() && args.moves.trim().is_empty() {
            break;
        }
        let what = || format!("move {} ('{text}')", i + 1);
        let action = game.parse_action(text).with_context(what)?;
        state.try_apply(action).with_context(what)?;
        moves.push(action);
    }
    let stones = stones_after(&moves);
    let analyst = analyst_for(&game);
    let k = usize::from(args.k);
    let limits = PathLimits {
        max_paths: args.paths,
        ..PathLimits::new(k)
    };
    let report = analyst.network(&stones, limits);
    let names: Vec<String> = moves.iter().map(|&m| game.action_name(m)).collect();
    let to_move = moves.len() % 2;
    if let Some(path) = &args.svg {
        let title = format!("{} after {}", game.game_string(), moves_text(&names));
        crate::heatmap::contributions(path, &title, dims, &stones, &report.contribution, k)?;
    }
    if args.json {
        outln!(
            "{}",
            to_json(&game.game_string(), &names, to_move, k, &x, &report)
        );
        return Ok(());
    }
    outln!(
        "{} after {}: {} to move",
        game.game_string(),
        moves_text(&names),
        if state.is_terminal() {
            "nobody (the game is over)"
        } else if to_move == BLACK {
            "Black (x)"
        } else {
            "White (o)"
        }
    );
    outln!("{}", table(&report, k, &x));
    let v = &report.value;
    outln!(
        "E   = d_W / d_B = {} (the players add r < 1e-6 to break ties)",
        number(&v.e())
    );
    outln!(
        "E_{k} = E_{k}W / E_{k}B = {} (x = {x})",
        number(&v.ek(k, &x))
    );
    if v.weight_too_large(k, &x) {
        outln!("warning: x = {x} is too large for these counts: a part E_kP is not positive");
    }
    if !v.complete() {
        outln!(
            "note: more than {} paths: n_1..n_{k} marked >= are counts of the paths enumerated before stopping (raise --paths)",
            args.paths
        );
    }
    outln!(
        "\nk-contribution (k={k}): per cent of the paths of S_0..S_{k} through each cell\n{}",
        side_by_side(&[
            (
                "Black's network N_B",
                board(dims, &stones, &report.contribution[BLACK])
            ),
            (
                "White's network N_W",
                board(dims, &stones, &report.contribution[WHITE])
            ),
        ])
    );
    if let Some(path) = &args.svg {
        outln!("heat map written to {}", path.display());
    }
    Ok(())
}

fn moves_text(names: &[String]) -> String {
    if names.is_empty() {
        "no moves".to_string()
    } else {
        names.join(" ")
    }
}

/// A value for people: "inf" for a won game.
fn number(e: &Exact) -> String {
    match e {
        Exact::Infinite => "inf (Black has won)".to_string(),
        _ if e.to_f64() == 0.0 => "0 (White has won)".to_string(),
        _ => format!("{:.12}", e.to_f64()),
    }
}

fn table(report: &NetworkReport, k: usize, x: &Weight) -> String {
    let v = &report.value;
    let mut out = format!("{:<14} {:>6}", "network", "d(s,t)");
    for i in 0..=k {
        out += &format!(" {:>10}", format!("n_{i}"));
    }
    out += &format!(" {:>18}\n", format!("E_{k}P"));
    for (p, name) in [(BLACK, "Black (N_B)"), (WHITE, "White (N_W)")] {
        let side = &v.sides[p];
        let d = side.distance.map_or("none".to_string(), |d| d.to_string());
        out += &format!("{name:<14} {d:>6}");
        for (i, n) in side.counts.iter().enumerate() {
            let mark = if i > 0 && !side.complete { ">=" } else { "" };
            out += &format!(" {:>10}", format!("{mark}{n}"));
        }
        let part = v
            .part(p, k, x)
            .map_or("inf".to_string(), |e| format!("{e:.15}"));
        out += &format!(" {part:>18}\n");
    }
    out.trim_end().to_string()
}

/// The contributions in per cent on the board, stones as x and o.
fn board(dims: Dims, stones: &[Vec<usize>; 2], values: &[f64]) -> String {
    let mut out = String::from("   ");
    for c in 0..dims.cols() {
        out += &format!("{:>4}", (b'a' + c as u8) as char);
    }
    out.push('\n');
    for r in 0..dims.rows() {
        out += &format!("{}{:>2} ", "  ".repeat(r), r + 1);
        for c in 0..dims.cols() {
            let cell = dims.cell(r, c);
            let text = match [BLACK, WHITE]
                .into_iter()
                .find(|&p| stones[p].contains(&cell))
            {
                Some(p) => stone_glyph(p).to_string(),
                None => format!("{:.0}", 100.0 * values[cell]),
            };
            out += &format!("{text:>4}");
        }
        out.push('\n');
    }
    out
}

/// A count as a JSON number when it fits 64 bits, else as a decimal string.
fn count_json(n: &num_bigint::BigUint) -> Value {
    n.to_u64()
        .map_or_else(|| Value::String(n.to_string()), Value::from)
}

fn value_json(e: &Exact) -> Value {
    match e {
        Exact::Infinite => Value::String("inf".to_string()),
        _ => json!(e.to_f64()),
    }
}

fn side_json(side: &PathSets, part: Option<f64>, contribution: &[f64]) -> Value {
    json!({
        "distance": side.distance,
        "counts": side.counts.iter().map(count_json).collect::<Vec<_>>(),
        "complete": side.complete,
        "part": part.map_or(Value::String("inf".to_string()), |p| json!(p)),
        "contribution": contribution,
    })
}

pub fn to_json(
    game: &str,
    names: &[String],
    to_move: usize,
    k: usize,
    x: &Weight,
    report: &NetworkReport,
) -> Value {
    let v = &report.value;
    let side = |p: usize| side_json(&v.sides[p], v.part(p, k, x), &report.contribution[p]);
    json!({
        "game": game,
        "moves": names,
        "to_move": to_move,
        "k": k,
        "x": x.to_string(),
        "black": side(BLACK),
        "white": side(WHITE),
        "e": value_json(&v.e()),
        "e_k": value_json(&v.ek(k, x)),
        "weight_too_large": v.weight_too_large(k, x),
    })
}
