//! `darkhex solve` for Hex and Rex: who wins a position, with which moves,
//! by proof-number search; and the table of every opening.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use clap::Args;
use darkhex_algorithms::files::{FileKind, write_atomically};
use darkhex_algorithms::shard::Shard;
use darkhex_games::board::{Dims, stone_glyph};
use darkhex_games::hex::HexGame;
use darkhex_games::{CellSet, Game, Geometry, with_cell_words};
use darkhex_hexengine::hexsolve::dfpn::FIRST_SLICE;
use darkhex_hexengine::hexsolve::edge_patterns::LEARNT_HEADER;
use darkhex_hexengine::hexsolve::openings::{
    OpeningValue, OpeningsLog, Table, merge_openings, opening_cells, reply_cells,
};
use darkhex_hexengine::hexsolve::tt::BUCKET;
use darkhex_hexengine::hexsolve::{
    DfpnParams, HexSolver, Outcome, Position, Progress, Rules, Stats,
};
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::number_in;
use crate::interrupt::SIGNALS;
use crate::output::outln;
use crate::outputs::{Files, Holds};
use crate::solve_table::TableFile;

/// The transposition table's size without --tt-mb, in MB.
const DEFAULT_TT_MB: usize = 1024;

/// Hex rules `--without` can switch off, for measuring what each saves.
pub const RULE_NAMES: [&str; 13] = [
    "connections",
    "edge-patterns",
    "ladder-patterns",
    "fill-in",
    "template-captures",
    "decompositions",
    "vulnerable",
    "dominated",
    "path-domination",
    "neighbour-domination",
    "symmetry",
    "resistance-order",
    "proof-sets",
];

/// Rex rules `--without` can switch off (Solrex's rule set).
pub const REX_RULE_NAMES: [&str; 11] = [
    "pairings",
    "decompositions",
    "dead-move",
    "dead-fill",
    "clique-cutsets",
    "capture-fill",
    "mutual-fill",
    "preferences",
    "colour-symmetry",
    "symmetry",
    "resistance-order",
];

#[derive(Args, Clone, Debug, Default)]
pub struct HexSolveArgs {
    /// Hex/Rex: moves played from the empty board, Black first (b3,d4,...)
    #[arg(long)]
    moves: Option<String>,
    /// Hex/Rex: Black stones to add (a1,c3,...), to set up any position
    #[arg(long)]
    black: Option<String>,
    /// Hex/Rex: White stones to add
    #[arg(long)]
    white: Option<String>,
    /// Hex/Rex: the player to move, 0 (Black) or 1 (White); default: the
    /// player whose turn it is after --moves (Black with equal stones)
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::whole::<u8>(0, Some(1)))]
    to_move: Option<u8>,
    /// Hex/Rex: solve every move and print its value
    #[arg(long)]
    all_moves: bool,
    /// Hex/Rex: the value of every opening move of the empty board
    #[arg(long, conflicts_with_all = ["moves", "black", "white", "to_move", "all_moves"])]
    openings: bool,
    /// Hex/Rex: for every opening (one of each pair of 180-degree images),
    /// the value of every reply of the second player; with --out, a log
    /// that keeps each solved reply and that a rerun goes on from
    #[arg(long, conflicts_with_all = ["moves", "black", "white", "to_move", "all_moves", "openings"])]
    replies: bool,
    /// Hex/Rex: search threads (default: all cores); with --openings or
    /// --all-moves each thread solves positions of its own, and joins a
    /// search still running once none is left to start
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::threads)]
    threads: Option<usize>,
    /// Hex/Rex: transposition table size in MB (default 1024)
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::tt_mb)]
    tt_mb: Option<usize>,
    /// Hex/Rex: stop after this many seconds and print what is known (with
    /// --openings or --all-moves: each position's search)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.001, 1e9, false))]
    time_limit: Option<f64>,
    /// Hex: how the solver orders moves: resistance (current through each
    /// cell; the default), or network-kK (k-contribution in both position
    /// networks, K = 0..2)
    #[arg(long)]
    order: Option<String>,
    /// Hex/Rex: rules to switch off, comma-separated. Hex: connections,
    /// edge-patterns, ladder-patterns, fill-in, template-captures, decompositions,
    /// vulnerable, dominated, path-domination, neighbour-domination, symmetry,
    /// resistance-order, proof-sets. Rex:
    /// pairings, decompositions, dead-move, dead-fill, clique-cutsets,
    /// capture-fill, mutual-fill, preferences, colour-symmetry, symmetry,
    /// resistance-order
    #[arg(long)]
    without: Option<String>,
    /// Hex/Rex: rules off by default to switch on, comma-separated. Hex:
    /// path-domination, neighbour-domination (Henderson and Hayward's
    /// inferior cells), slices (with several threads, each search of
    /// --openings or --all-moves runs in slices of growing length and waits
    /// at the back of the queue between them). Rex: captured-overlap
    /// (H-search combining semis that overlap on captured pairs, Solrex's
    /// augmented H-search), slices
    #[arg(long)]
    with: Option<String>,
    /// Hex: search locally for edge connections no built-in pattern
    /// covers, learn them as patterns, and keep them in FILE (read first
    /// when it exists, written when the solve ends)
    #[arg(long, value_name = "FILE")]
    learn_edges: Option<PathBuf>,
    /// Hex/Rex: the search's ε (1+ε trick: how long it stays in a move
    /// before switching; default 0.25 for Hex, 0.1 for Rex)
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::number_in(0.0, 10.0, false))]
    epsilon: Option<f64>,
    /// Hex/Rex: the focus: only the best BASE + FACTOR x (moves still open)
    /// moves set a position's proof number (default 1,0.25 for Hex, 3,0.25
    /// for Rex)
    #[arg(long, value_name = "BASE,FACTOR", value_parser = widening)]
    widening: Option<(usize, f64)>,
    /// Hex/Rex with --openings: solve only part I of N of the openings
    /// (the I-th, (I+N)-th, ... of the table), logged to --out; `darkhex
    /// solve merge` joins the parts
    #[arg(long, value_name = "I/N", requires = "openings")]
    pub shard: Option<Shard>,
    /// Hex/Rex: keep the solver's table in FILE, so that a long solve
    /// stopped (Ctrl-C, --time-limit, kill) goes on where it was: read
    /// first when it exists, written when the solve stops or ends and
    /// every few minutes meanwhile; refused when saved for another game
    /// or other rules (--without, --with, --order, --learn-edges)
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
}

/// `--widening BASE,FACTOR`: a whole BASE of at least 1 and a FACTOR from
/// 0 to 1.
fn widening(text: &str) -> Result<(usize, f64), String> {
    let accepted = "accepted: BASE,FACTOR with BASE a whole number from 1 to 1000 and FACTOR from 0 to 1 (e.g. 3,0.25)";
    let Some((base, factor)) = text.split_once(',') else {
        return Err(format!("'{text}' is not BASE,FACTOR; {accepted}"));
    };
    let base = crate::args::whole(1, Some(1000))(base).map_err(|e| format!("BASE {e}"))?;
    let factor =
        crate::args::number_in(0.0, 1.0, false)(factor).map_err(|e| format!("FACTOR {e}"))?;
    Ok((base, factor))
}

/// What solving a Hex or Rex position writes, for the output guard: the
/// learnt edge patterns (read first when present) and the log of solved
/// openings.
pub fn files(args: &HexSolveArgs, out: Option<&Path>) -> Files {
    Files::new()
        .writes(
            "--learn-edges",
            args.learn_edges.as_deref(),
            Holds::EdgePatterns,
        )
        .writes("--out", out, Holds::Document(FileKind::OpeningsLog))
        .writes(
            "--table",
            args.table.as_deref(),
            Holds::Document(FileKind::SolverTable),
        )
}

/// What `solve merge` reads.
pub fn merge_files(args: &MergeArgs) -> Files {
    args.logs
        .iter()
        .fold(Files::new(), |f, log| f.reads("the log", Some(log)))
}

#[derive(Args)]
pub struct MergeArgs {
    /// Every shard's log (the --out of each `--openings --shard I/N` run)
    #[arg(required = true)]
    logs: Vec<PathBuf>,
    /// Print one JSON object, as `solve --openings --json` does
    #[arg(long)]
    json: bool,
}

/// The options of the Hex and Rex solver, which the LP does not take.
pub const OPTIONS: [&str; 18] = [
    "--moves",
    "--black",
    "--white",
    "--to-move",
    "--all-moves",
    "--openings",
    "--replies",
    "--threads",
    "--tt-mb",
    "--time-limit",
    "--order",
    "--without",
    "--with",
    "--learn-edges",
    "--shard",
    "--epsilon",
    "--widening",
    "--table",
];

impl HexSolveArgs {
    /// The options given, by name.
    pub fn given(&self) -> Vec<&'static str> {
        let given = [
            self.moves.is_some(),
            self.black.is_some(),
            self.white.is_some(),
            self.to_move.is_some(),
            self.all_moves,
            self.openings,
            self.replies,
            self.threads.is_some(),
            self.tt_mb.is_some(),
            self.time_limit.is_some(),
            self.order.is_some(),
            self.without.is_some(),
            self.with.is_some(),
            self.learn_edges.is_some(),
            self.shard.is_some(),
            self.epsilon.is_some(),
            self.widening.is_some(),
            self.table.is_some(),
        ];
        OPTIONS
            .into_iter()
            .zip(given)
            .filter(|g| g.1)
            .map(|g| g.0)
            .collect()
    }
}

/// The position given by the arguments.
fn position<const W: usize>(
    game: &HexGame,
    geom: &Geometry<W>,
    args: &HexSolveArgs,
) -> Result<Position<W>> {
    let dims = game.dims();
    let mut state = game.new_initial_state();
    let mut stones = [CellSet::<W>::EMPTY; 2];
    let mut turn = 0;
    if let Some(moves) = &args.moves {
        for (i, text) in moves.split(',').enumerate() {
            let cell = dims
                .parse_cell(text)
                .map_err(|e| anyhow::anyhow!("move {} ('{}'): {e}", i + 1, text.trim()))?;
            use darkhex_games::State as _;
            state
                .try_apply(cell as u16)
                .map_err(|e| anyhow::anyhow!("move {} ('{}'): {e}", i + 1, text.trim()))?;
            stones[turn].insert(cell);
            turn = 1 - turn;
        }
    }
    for (player, list) in [(0, &args.black), (1, &args.white)] {
        let Some(list) = list else { continue };
        for text in list.split(',') {
            let cell = dims.parse_cell(text)?;
            if stones[0].contains(cell) || stones[1].contains(cell) {
                bail!("{} already holds a stone", dims.cell_name(cell));
            }
            stones[player].insert(cell);
        }
    }
    let to_move = match args.to_move {
        Some(p) => p as usize,
        None if args.moves.is_some() && args.black.is_none() && args.white.is_none() => turn,
        None => usize::from(stones[0].count() > stones[1].count()),
    };
    Ok(Position::new(geom, stones, to_move))
}

fn rules(game: &HexGame, without: &Option<String>, order: &str) -> Result<Rules> {
    let mut rules = Rules::for_game(game.is_misere());
    match order {
        "resistance" => {}
        "network-k0" | "network-k1" | "network-k2" if game.is_misere() => bail!(
            "--order {order} is for Hex only (the position networks are Hex's); Rex accepts --order resistance"
        ),
        "network-k0" | "network-k1" | "network-k2" => {
            rules.network_order = order[9..].parse().ok();
        }
        other => bail!(
            "unknown --order '{other}': accepted are resistance, and for Hex network-k0, network-k1, network-k2"
        ),
    }
    if let Some(list) = without {
        for name in list.split(',').map(str::trim) {
            if game.is_misere() {
                switch_off_rex(&mut rules, name)?;
                continue;
            }
            match name {
                "connections" => rules.connections = false,
                "edge-patterns" => rules.edge_patterns = false,
                "ladder-patterns" => rules.ladder_patterns = false,
                "fill-in" => rules.fill_in = false,
                "template-captures" => rules.template_captures = false,
                "decompositions" => rules.decompositions = false,
                "vulnerable" => rules.vulnerable = false,
                "dominated" => rules.dominated = false,
                "path-domination" => rules.path_domination = false,
                "neighbour-domination" => rules.neighbour_domination = false,
                "symmetry" => rules.symmetry = false,
                "resistance-order" => rules.resistance_order = false,
                "proof-sets" => rules.proof_sets = false,
                other => bail!(
                    "unknown rule '{other}' in --without: accepted are {}",
                    RULE_NAMES.join(", ")
                ),
            }
        }
    }
    Ok(rules)
}

/// Whether `name` is among the comma-separated names of `--with`.
fn switched_on(with: &Option<String>, name: &str) -> bool {
    with.as_deref()
        .is_some_and(|list| list.split(',').any(|n| n.trim() == name))
}

/// Switches off the Rex rule `name`.
fn switch_off_rex(rules: &mut Rules, name: &str) -> Result<()> {
    let rex = &mut rules.rex;
    match name {
        "pairings" => rex.pairings = false,
        "decompositions" => rex.decompositions = false,
        "dead-move" => rex.dead_move = false,
        "dead-fill" => rex.dead_fill = false,
        "clique-cutsets" => rex.clique_cutsets = false,
        "capture-fill" => rex.capture_fill = false,
        "mutual-fill" => rex.mutual_fill = false,
        "preferences" => rex.preferences = false,
        "colour-symmetry" => rex.colour_symmetry = false,
        "symmetry" => rules.symmetry = false,
        "resistance-order" => rules.resistance_order = false,
        other => bail!(
            "unknown Rex rule '{other}' in --without: accepted are {}",
            REX_RULE_NAMES.join(", ")
        ),
    }
    Ok(())
}

pub fn run(game: &HexGame, args: &HexSolveArgs, out: Option<&Path>, json: bool) -> Result<()> {
    let dims = game.dims();
    with_cell_words!(dims.cells(), W => run_width::<W>(game, args, out, json))
}

fn player_name(p: usize) -> String {
    format!(
        "{} ({})",
        if p == 0 { "Black" } else { "White" },
        stone_glyph(p)
    )
}

fn run_width<const W: usize>(
    game: &HexGame,
    args: &HexSolveArgs,
    out: Option<&Path>,
    json: bool,
) -> Result<()> {
    let geom =
        Geometry::<W>::new(game.dims()).ok_or_else(|| anyhow::anyhow!("the board is too large"))?;
    let threads = crate::args::thread_count(args.threads);
    let defaults = DfpnParams::for_game(game.is_misere());
    let (widening_base, widening_factor) = args
        .widening
        .unwrap_or((defaults.widening_base, defaults.widening_factor));
    let params = DfpnParams {
        threads,
        tt_mb: args.tt_mb.unwrap_or(DEFAULT_TT_MB),
        time_limit: args.time_limit.map(Duration::from_secs_f64),
        epsilon: args.epsilon.unwrap_or(defaults.epsilon),
        widening_base,
        widening_factor,
        first_slice: switched_on(&args.with, "slices").then_some(FIRST_SLICE),
        ..defaults
    };
    let order = args.order.as_deref().unwrap_or("resistance");
    let mut rules = rules(game, &args.without, order)?;
    if let Some(list) = &args.with {
        for name in list.split(',').map(str::trim) {
            match (game.is_misere(), name) {
                // A setting of the search, not a rule: see `first_slice`.
                (_, "slices") => {}
                (true, "captured-overlap") => rules.vc.captured_overlap = true,
                (false, "path-domination") => rules.path_domination = true,
                (false, "neighbour-domination") => rules.neighbour_domination = true,
                (true, other) => {
                    bail!(
                        "unknown Rex rule '{other}' in --with: accepted are captured-overlap, slices"
                    )
                }
                (false, other) => bail!(
                    "unknown Hex rule '{other}' in --with: accepted are path-domination, \
                     neighbour-domination"
                ),
            }
        }
    }
    if args.learn_edges.is_some() {
        if game.is_misere() {
            bail!("--learn-edges is for Hex: edge connections are not Rex's");
        }
        rules.learn_edges = true;
    }
    if out.is_some() && !args.openings && !args.replies {
        bail!(
            "--out is the log of --openings or --replies (rerunning resumes it); the solve of one position writes no file"
        );
    }
    let solver = HexSolver::new(&geom, rules, params);
    if let Some(path) = &args.learn_edges
        && path.exists()
    {
        let text = darkhex_algorithms::files::read_text(path)?;
        solver
            .learnt_edges()
            .learn_text(&text)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    }
    let table = match &args.table {
        Some(path) => Some(TableFile::open(path, &game.game_string(), &solver)?),
        None => None,
    };
    crate::interrupt::watch(solver.stop_flag());
    let kept = Kept {
        learn_into: args.learn_edges.as_deref(),
        table,
    };
    if args.openings {
        let log = match (args.shard, out) {
            (shard, Some(path)) => Some(OpeningsLog::open(
                path,
                &game.game_string(),
                shard,
                Table::Openings,
            )?),
            (Some(_), None) => bail!(
                "--shard writes the shard's solved openings to a log: give it with --out FILE"
            ),
            (None, None) => None,
        };
        return openings(game, &solver, args.shard, log, json, kept);
    }
    if args.replies {
        let log = match out {
            Some(path) => Some(OpeningsLog::open(
                path,
                &game.game_string(),
                None,
                Table::Replies,
            )?),
            None => None,
        };
        return replies(game, &solver, log, json, kept);
    }
    let pos = position(game, &geom, args)?;
    let bar = spinner(json);
    let start = Instant::now();
    let report = |p: &Progress| {
        bar.set_message(progress_line(p));
        kept.tick(&solver);
    };
    let out = solver.solve(&pos, &report);
    let mut stats = out.stats;
    let mut values = None;
    if args.all_moves && out.wins.is_some() {
        let report = |cell: usize, p: &Progress| {
            bar.set_message(format!(
                "{}: {}",
                game.dims().cell_name(cell),
                progress_line(p)
            ));
            kept.tick(&solver);
        };
        let (v, s) = solver.move_values(&pos, &report);
        stats.add(&s);
        values = Some(v);
    }
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    kept.save(&solver)?;
    let interrupted = solver.stop_flag().load(Ordering::SeqCst);
    // Moves a stop left unstarted are undecided as much as those whose
    // search ran out of time: every move is listed, each with its value.
    let values: Option<Vec<(usize, Option<bool>)>> = values.map(|v| {
        pos.empty_cells(&geom)
            .iter()
            .map(|c| (c, v.iter().find(|m| m.0 == c).and_then(|m| m.1)))
            .collect()
    });
    let dims = game.dims();
    let to_move = pos.to_move;
    let winner = out.wins.map(|w| if w { to_move } else { 1 - to_move });
    // The search proves one winning move, and with several threads which
    // one may vary from run to run; with every move solved, the first
    // winning one (by cell) is the answer, the same on any thread count.
    let winning_move = values
        .as_ref()
        .and_then(|v| v.iter().find(|(_, w)| *w == Some(true)).map(|(c, _)| *c))
        .or(out.winning_move);
    let named = |wanted: Option<bool>| -> Option<Vec<String>> {
        values.as_ref().map(|v| {
            v.iter()
                .filter(|(_, w)| *w == wanted)
                .map(|(c, _)| dims.cell_name(*c))
                .collect()
        })
    };
    let winning = named(Some(true));
    let undecided = named(None);
    // Complete: everything asked for is decided, the position and, with
    // --all-moves, every move.
    let complete = out.wins.is_some() && undecided.as_ref().is_none_or(Vec::is_empty);
    if json {
        let moves: Option<Vec<serde_json::Value>> = values.as_ref().map(|v| {
            v.iter()
                .map(|(c, w)| serde_json::json!({"move": dims.cell_name(*c), "wins": w}))
                .collect()
        });
        let json = serde_json::json!({
            "game": game.game_string(),
            "to_move": to_move,
            "winner": winner,
            "winning_move": winning_move.map(|c| dims.cell_name(c)),
            "winning_moves": winning,
            "undecided_moves": undecided,
            "moves": moves,
            "expansions": stats.expansions,
            "seconds": seconds,
            "threads": threads,
            "complete": complete,
            "table": {"slots": stats.tt_slots, "used": stats.tt_used, "replaced": stats.tt_replaced},
        });
        outln!("{json}");
    } else {
        outln!("game             {}", game.game_string());
        outln!(
            "position\n{}",
            value_board(dims, |c| stone_at(&pos, c), &[])
        );
        outln!("to move          {}", player_name(to_move));
        match (winner, out.wins) {
            (Some(w), Some(true)) => outln!(
                "value            {} wins{}",
                player_name(w),
                winning_move
                    .map(|c| format!(", e.g. with {}", dims.cell_name(c)))
                    .unwrap_or_default()
            ),
            (Some(w), _) => outln!("value            {} wins: every move loses", player_name(w)),
            (None, _) => outln!(
                "value            not proved ({}): root proof number {}, disproof number {}",
                if interrupted { "stopped" } else { "time limit" },
                out.root.phi,
                out.root.delta
            ),
        }
        if let (Some(v), Some(w), Some(u)) = (&values, &winning, &undecided) {
            let list = |names: &[String]| {
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            };
            if u.is_empty() {
                outln!("winning moves    {}", list(w));
            } else {
                outln!(
                    "winning moves    {} proved winning: {}; {} undecided: {}",
                    w.len(),
                    list(w),
                    u.len(),
                    u.join(", ")
                );
            }
            let unknown = match (u.is_empty(), interrupted) {
                (true, _) => "",
                (false, true) => ", ? undecided: its search was stopped first",
                (false, false) => ", ? undecided: its search reached the time limit first",
            };
            outln!(
                "move values      (W wins, L loses{unknown})\n{}",
                value_board(dims, |c| stone_at(&pos, c), v)
            );
        } else if args.all_moves {
            outln!("move values      not searched: the position itself is not decided");
        }
        outln!(
            "search           {} positions in {seconds:.3} s ({:.0} a second), {threads} thread(s)",
            stats.expansions,
            stats.expansions as f64 / seconds.max(1e-9)
        );
        outln!(
            "table            {} of {} slots used, {} positions replaced",
            stats.tt_used,
            stats.tt_slots,
            stats.tt_replaced
        );
        let r = stats.rules;
        if game.is_misere() {
            outln!(
                "rules            {} positions decided by pairing strategies, {} by colour symmetry, {} by the table's value of their filled form, {} cells filled in, {} inferior moves pruned, {} losing moves pruned",
                r.decided_by_connection,
                r.decided_by_colour_symmetry,
                r.solved_by_filled_form,
                r.cells_filled,
                r.moves_pruned_as_inferior,
                r.losing_moves_pruned
            );
        } else {
            outln!(
                "rules            {} positions decided by connections, {} cells filled in, {} moves outside the mustplay, {} inferior moves pruned, {} moves refuted by a sibling's proof set",
                r.decided_by_connection,
                r.cells_filled,
                r.moves_pruned_by_mustplay,
                r.moves_pruned_as_inferior,
                r.moves_pruned_by_proof_sets
            );
        }
        if r.open_positions > 0 {
            outln!(
                "open positions   {}, {:.1} moves kept on average",
                r.open_positions,
                r.moves_kept as f64 / r.open_positions as f64
            );
        }
        if r.open_positions > 0 && !game.is_misere() {
            outln!(
                "edge patterns    {} connections found by patterns, {} local searches, {} patterns learnt",
                r.edge_matched,
                r.edge_searched,
                r.edge_learnt
            );
            outln!(
                "ladders          {} connections found by ladder patterns",
                r.ladder_matched
            );
        }
    }
    if !complete && let Some(line) = table_warning(&stats, solver.params.tt_mb) {
        eprintln!("{line}");
    }
    if interrupted {
        bail!("stopped by a signal ({SIGNALS}); the value above is what was proved before");
    }
    Ok(())
}

fn verdict(black_wins: Option<bool>) -> &'static str {
    match black_wins {
        Some(true) => "wins",
        Some(false) => "loses",
        None => "undecided",
    }
}

/// What a solve keeps on disk beside its results: the edge patterns it
/// learnt (--learn-edges) and its table (--table).
struct Kept<'a> {
    learn_into: Option<&'a Path>,
    table: Option<TableFile>,
}

impl Kept<'_> {
    /// A periodic save of the table, when one is due.
    fn tick<const W: usize>(&self, solver: &HexSolver<W>) {
        if let Some(t) = &self.table {
            t.tick(solver);
        }
    }

    /// Saves both once the solve has stopped or ended.
    fn save<const W: usize>(self, solver: &HexSolver<W>) -> Result<()> {
        save_learnt(solver, self.learn_into)?;
        match self.table {
            Some(t) => t.close(solver),
            None => Ok(()),
        }
    }
}

/// Writes the patterns the solver learnt (and was given) to `path`.
fn save_learnt<const W: usize>(solver: &HexSolver<W>, path: Option<&Path>) -> Result<()> {
    let Some(path) = path else { return Ok(()) };
    let learnt = solver.learnt_edges();
    let text = format!(
        "{LEARNT_HEADER}\n\
         # depth;stones;carrier, cells as e,a (rows from the side, steps along it from E)\n{}",
        learnt.to_text()
    );
    write_atomically(path, text.as_bytes())?;
    eprintln!("{} edge patterns in {}", learnt.len(), path.display());
    Ok(())
}

fn spinner(hidden: bool) -> ProgressBar {
    let bar = if hidden {
        ProgressBar::hidden()
    } else {
        ProgressBar::new_spinner()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

fn progress_line(p: &Progress) -> String {
    format!(
        "{} positions, root proof {} / disproof {}, table {:.0}% full, {:.1} s",
        p.expansions,
        p.root.phi,
        p.root.delta,
        100.0 * p.table_used,
        p.elapsed.as_secs_f64()
    )
}

/// A line saying that positions were pushed out of the table, when some
/// were. A position goes only in the slots of its bucket, so buckets
/// overflow long before the table is full: a few hundred replaced in a
/// table mostly empty is chance, and a larger table would change little.
/// Positions replaced are work the search may redo; a larger table saves
/// it once the table is well filled or the replaced positions are a fair
/// share of those examined.
fn table_warning(stats: &Stats, tt_mb: usize) -> Option<String> {
    if stats.tt_replaced == 0 {
        return None;
    }
    let share = stats.tt_used as f64 / stats.tt_slots.max(1) as f64;
    let what = format!(
        "{} positions were pushed out of full buckets of the table (a position may take only the {} slots of its bucket; {} of {} slots were in use, {:.0}%)",
        stats.tt_replaced,
        BUCKET,
        stats.tt_used,
        stats.tt_slots,
        100.0 * share
    );
    let helps = share >= 0.5 || stats.tt_replaced * 100 >= stats.expansions;
    Some(if helps {
        format!("{what}: a larger --tt-mb than {tt_mb} keeps more of them and may solve sooner")
    } else {
        format!(
            "{what}: few against the {} positions examined, so a larger --tt-mb would change little",
            stats.expansions
        )
    })
}

/// The position, with each solved move's value on its cell.
fn value_board(
    dims: Dims,
    stone: impl Fn(usize) -> Option<usize>,
    values: &[(usize, Option<bool>)],
) -> String {
    dims.render(|c| {
        if let Some((_, v)) = values.iter().find(|(x, _)| *x == c) {
            match v {
                Some(true) => 'W',
                Some(false) => 'L',
                None => '?',
            }
        } else {
            stone(c).map_or('.', stone_glyph)
        }
    })
}

/// Who holds `cell` in `pos`.
fn stone_at<const W: usize>(pos: &Position<W>, cell: usize) -> Option<usize> {
    (0..2).find(|&p| pos.played[p].contains(cell))
}

/// An opening, Black's value, seconds and positions (none for an image).
type OpeningRow = (usize, Option<bool>, f64, u64);

/// A position of a table run: an opening, or an opening and the second
/// player's reply.
#[derive(Clone, Copy, PartialEq)]
struct Entry {
    opening: usize,
    reply: Option<usize>,
}

impl Entry {
    fn name(&self, dims: Dims) -> String {
        match self.reply {
            Some(r) => format!("{},{}", dims.cell_name(self.opening), dims.cell_name(r)),
            None => dims.cell_name(self.opening),
        }
    }

    fn of_logged(dims: Dims, v: &OpeningValue) -> Option<Entry> {
        let opening = dims.parse_cell(&v.opening).ok()?;
        let reply = match &v.reply {
            Some(r) => Some(dims.parse_cell(r).ok()?),
            None => None,
        };
        Some(Entry { opening, reply })
    }
}

/// What a table run found for one entry: Black's value (none when its
/// search was cut short), seconds and positions.
type Found = (Entry, Option<bool>, f64, u64);

/// Solves `entries` (each thread solves entries of its own, sharing one
/// table), after taking those the log already holds, and appends each
/// entry solved to the log as it is solved, so a rerun skips it. Returns
/// every entry's value (undecided ones, searched to the time limit or
/// left unstarted by a stop, without), in the order of `entries`, the
/// searches' counters, and why the log could not be written, if it could
/// not (the run goes on without it, and fails once its results are out).
fn solve_logged<const W: usize>(
    dims: Dims,
    solver: &HexSolver<W>,
    entries: &[Entry],
    log: Option<(OpeningsLog, Vec<OpeningValue>)>,
    json: bool,
    unit: &str,
    kept: &Kept,
) -> (Vec<Found>, Stats, Option<anyhow::Error>) {
    let geom = solver.geometry();
    let empty = Position::empty(geom);
    let (log, logged) = match log {
        Some((log, logged)) => (Some(log), logged),
        None => (None, Vec::new()),
    };
    let mut known: Vec<Option<Found>> = vec![None; entries.len()];
    for v in &logged {
        let Some(e) = Entry::of_logged(dims, v) else {
            continue;
        };
        if let Some(i) = entries.iter().position(|x| *x == e) {
            known[i] = Some((e, Some(v.black_wins), v.seconds, v.expansions));
        }
    }
    let todo: Vec<usize> = (0..entries.len()).filter(|&i| known[i].is_none()).collect();
    let bar = if json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(todo.len() as u64)
    };
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:32.cyan/blue}} {{pos}}/{{len}} {unit}  {{msg}}  [{{elapsed_precise}}]"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let children: Vec<Position<W>> = todo
        .iter()
        .map(|&i| {
            let e = entries[i];
            let pos = empty.play(geom, e.opening);
            e.reply.map_or(pos, |r| pos.play(geom, r))
        })
        .collect();
    let found: Mutex<(Vec<Option<Found>>, Stats)> = Mutex::new((known, Stats::default()));
    let log = Mutex::new(log);
    let log_error: Mutex<Option<anyhow::Error>> = Mutex::default();
    // The searches running side by side, each on a line of its own.
    let running: Mutex<BTreeMap<usize, String>> = Mutex::default();
    let show = |running: &BTreeMap<usize, String>| {
        let lines: Vec<&str> = running.values().map(String::as_str).collect();
        bar.set_message(lines.join(" | "));
    };
    let report = |k: usize, p: &Progress| {
        let mut running = running.lock().unwrap_or_else(|e| e.into_inner());
        running.insert(
            k,
            format!("{}: {}", entries[todo[k]].name(dims), progress_line(p)),
        );
        show(&running);
        drop(running);
        kept.tick(solver);
    };
    let done = |k: usize, out: Outcome| {
        {
            let mut running = running.lock().unwrap_or_else(|e| e.into_inner());
            running.remove(&k);
            show(&running);
        }
        let e = entries[todo[k]];
        // The player to move after an opening is White, after a reply Black.
        let black_wins = out.wins.map(|w| w == e.reply.is_some());
        let secs = out.stats.seconds;
        if let (Some(log), Some(black_wins)) = (
            log.lock().unwrap_or_else(|e| e.into_inner()).as_mut(),
            black_wins,
        ) {
            let value = OpeningValue {
                opening: dims.cell_name(e.opening),
                reply: e.reply.map(|r| dims.cell_name(r)),
                black_wins,
                seconds: secs,
                expansions: out.stats.expansions,
            };
            if let Err(err) = log.append(&value) {
                // The search goes on; the run fails at the end, saying why.
                log_error
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(err.into());
                solver.stop_flag().store(true, Ordering::SeqCst);
            }
        }
        let mut found = found.lock().unwrap_or_else(|e| e.into_inner());
        found.1.add(&out.stats);
        found.0[todo[k]] = Some((e, black_wins, secs, out.stats.expansions));
        // Without a bar (no terminal, or --json), a line per entry on
        // stderr instead, so a long run's log shows how far it got.
        if json || !std::io::stderr().is_terminal() {
            eprintln!(
                "{}: Black {}, {secs:.2} s, {} positions",
                e.name(dims),
                verdict(black_wins),
                out.stats.expansions
            );
        }
        bar.inc(1);
    };
    solver.solve_each(&children, &report, &done);
    bar.finish_and_clear();
    let (found, total) = found.into_inner().unwrap_or_else(|e| e.into_inner());
    let log_error = log_error
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .map(|e| {
            e.context(format!(
                "the log of solved {unit} could not be written; rerun to go on"
            ))
        });
    let found = found
        .into_iter()
        .zip(entries)
        .map(|(f, &e)| f.unwrap_or((e, None, 0.0, 0)))
        .collect();
    (found, total, log_error)
}

/// The error of a run a stop cut short.
fn stopped(logging: bool, unit: &str) -> anyhow::Error {
    if logging {
        anyhow::anyhow!(
            "stopped by a signal ({SIGNALS}) after the {unit} above; rerun the command to go on from its --out"
        )
    } else {
        anyhow::anyhow!("stopped by a signal ({SIGNALS}) after the {unit} above")
    }
}

/// The openings of the empty board (one of each pair of 180-degree images:
/// they have the same value), or a shard's part of them, with the time of
/// each; the log (--out, a shard's or the whole run's) keeps every solved
/// one as it is solved, and a rerun skips those.
fn openings<const W: usize>(
    game: &HexGame,
    solver: &HexSolver<W>,
    shard: Option<Shard>,
    log: Option<(OpeningsLog, Vec<OpeningValue>)>,
    json: bool,
    kept: Kept,
) -> Result<()> {
    let dims = game.dims();
    let n = dims.cells();
    let entries: Vec<Entry> = opening_cells(dims)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| shard.is_none_or(|s| s.holds(*i)))
        .map(|(_, c)| Entry {
            opening: c,
            reply: None,
        })
        .collect();
    let logging = log.is_some();
    let start = Instant::now();
    let (found, total, log_error) =
        solve_logged(dims, solver, &entries, log, json, "openings", &kept);
    let mut rows: Vec<OpeningRow> = Vec::new();
    for (e, black_wins, secs, expansions) in found {
        push_opening(&mut rows, n, e.opening, black_wins, secs, expansions);
    }
    kept.save(solver)?;
    if let Some(e) = log_error {
        return Err(e);
    }
    let unproved = rows.iter().any(|r| r.1.is_none());
    print_openings(
        game,
        rows,
        total.expansions,
        start.elapsed().as_secs_f64(),
        Some(solver.params.threads),
        json,
    )?;
    if unproved && let Some(line) = table_warning(&total, solver.params.tt_mb) {
        eprintln!("{line}");
    }
    if solver.stop_flag().load(Ordering::SeqCst) {
        return Err(stopped(logging, "openings"));
    }
    Ok(())
}

/// For each opening of the empty board (one of each pair of 180-degree
/// images), the value of each reply of the second player, with the time of
/// each; the log (--out) keeps every solved reply as it is solved, and a
/// rerun skips those.
fn replies<const W: usize>(
    game: &HexGame,
    solver: &HexSolver<W>,
    log: Option<(OpeningsLog, Vec<OpeningValue>)>,
    json: bool,
    kept: Kept,
) -> Result<()> {
    let dims = game.dims();
    let n = dims.cells();
    let entries: Vec<Entry> = opening_cells(dims)
        .into_iter()
        .flat_map(|o| {
            reply_cells(dims, o).into_iter().map(move |r| Entry {
                opening: o,
                reply: Some(r),
            })
        })
        .collect();
    let logging = log.is_some();
    let start = Instant::now();
    let (found, total, log_error) =
        solve_logged(dims, solver, &entries, log, json, "replies", &kept);
    kept.save(solver)?;
    if let Some(e) = log_error {
        return Err(e);
    }
    // Each reply's value for White, with the centre's replies' images.
    let mut rows: Vec<(usize, usize, Option<bool>, f64, u64)> = Vec::new();
    for (e, black_wins, secs, expansions) in found {
        let reply = e.reply.unwrap_or(e.opening);
        let white_wins = black_wins.map(|b| !b);
        rows.push((e.opening, reply, white_wins, secs, expansions));
        if n - 1 - e.opening == e.opening && n - 1 - reply != reply {
            rows.push((e.opening, n - 1 - reply, white_wins, 0.0, 0));
        }
    }
    rows.sort_by_key(|r| (r.0, r.1));
    let undecided = rows.iter().filter(|r| r.2.is_none()).count();
    let seconds = start.elapsed().as_secs_f64();
    let threads = solver.params.threads;
    if json {
        let list: Vec<serde_json::Value> = rows
            .iter()
            .map(|(o, r, w, s, e)| {
                serde_json::json!({"opening": dims.cell_name(*o), "reply": dims.cell_name(*r), "white_wins": w, "seconds": s, "expansions": e})
            })
            .collect();
        outln!(
            "{}",
            serde_json::json!({
                "game": game.game_string(),
                "replies": list,
                "complete": undecided == 0,
                "undecided": undecided,
                "seconds": seconds,
                "expansions": total.expansions,
                "threads": threads,
            })
        );
    } else {
        outln!("game             {}", game.game_string());
        outln!(
            "replies          after each opening (X), W: White's reply wins, L: it loses{}",
            if undecided == 0 {
                ""
            } else {
                ", ?: undecided (its search reached the time limit or was stopped)"
            }
        );
        for opening in opening_cells(dims) {
            let mine: Vec<_> = rows.iter().filter(|r| r.0 == opening).collect();
            let values: Vec<(usize, Option<bool>)> = mine.iter().map(|r| (r.1, r.2)).collect();
            let count = |v: Option<bool>| mine.iter().filter(|r| r.2 == v).count();
            let (secs, positions) = mine.iter().fold((0.0, 0), |(s, e), r| (s + r.3, e + r.4));
            let image = n - 1 - opening;
            let pair = if image != opening {
                format!(" (and {})", dims.cell_name(image))
            } else {
                String::new()
            };
            outln!(
                "{}{pair}: {} of {} replies win for White, {} undecided, {secs:.2} s, {positions} positions",
                dims.cell_name(opening),
                count(Some(true)),
                mine.len(),
                count(None)
            );
            outln!(
                "{}",
                value_board(dims, |c| (c == opening).then_some(0), &values)
            );
        }
        outln!(
            "total            {seconds:.2} s, {} positions, {threads} thread(s), {undecided} of {} replies undecided",
            total.expansions,
            rows.len()
        );
    }
    if undecided > 0
        && let Some(line) = table_warning(&total, solver.params.tt_mb)
    {
        eprintln!("{line}");
    }
    if solver.stop_flag().load(Ordering::SeqCst) {
        return Err(stopped(logging, "replies"));
    }
    Ok(())
}

/// Adds an opening's row, and its image's (same value, no search) when it
/// is another cell.
fn push_opening(
    rows: &mut Vec<OpeningRow>,
    n: usize,
    cell: usize,
    black_wins: Option<bool>,
    secs: f64,
    expansions: u64,
) {
    rows.push((cell, black_wins, secs, expansions));
    if n - 1 - cell != cell {
        rows.push((n - 1 - cell, black_wins, 0.0, 0));
    }
}

/// The table of openings, as text or one JSON object.
fn print_openings(
    game: &HexGame,
    mut rows: Vec<OpeningRow>,
    expansions: u64,
    seconds: f64,
    threads: Option<usize>,
    json: bool,
) -> Result<()> {
    let dims = game.dims();
    let n = dims.cells();
    rows.sort_by_key(|r| r.0);
    let undecided: Vec<String> = rows
        .iter()
        .filter(|r| r.1.is_none())
        .map(|r| dims.cell_name(r.0))
        .collect();
    if json {
        let list: Vec<serde_json::Value> = rows
            .iter()
            .map(|(c, w, s, e)| {
                serde_json::json!({"opening": dims.cell_name(*c), "black_wins": w, "seconds": s, "expansions": e})
            })
            .collect();
        let json = serde_json::json!({
            "game": game.game_string(),
            "openings": list,
            "complete": undecided.is_empty(),
            "undecided": undecided,
            "seconds": seconds,
            "expansions": expansions,
            "threads": threads,
        });
        outln!("{json}");
        return Ok(());
    }
    outln!("game             {}", game.game_string());
    outln!(
        "openings         W: Black's opening wins, L: it loses (White to move){}",
        if undecided.is_empty() {
            ""
        } else {
            ", ?: undecided (its search reached the time limit or was stopped)"
        }
    );
    let values: Vec<(usize, Option<bool>)> = rows.iter().map(|r| (r.0, r.1)).collect();
    outln!("{}", value_board(dims, |_| None, &values));
    if !undecided.is_empty() {
        outln!(
            "undecided        {} of {} openings: {}",
            undecided.len(),
            rows.len(),
            undecided.join(", ")
        );
    }
    for (c, w, s, e) in rows.iter().filter(|r| r.3 > 0) {
        let verdict = verdict(*w);
        let image = n - 1 - c;
        let pair = if image != *c {
            format!(" (and {})", dims.cell_name(image))
        } else {
            String::new()
        };
        outln!(
            "  {}{pair}: Black {verdict}, {s:.3} s, {e} positions",
            dims.cell_name(*c)
        );
    }
    match threads {
        Some(threads) => {
            outln!("total            {seconds:.2} s, {expansions} positions, {threads} thread(s)")
        }
        None => {
            outln!("total            {seconds:.2} s of search, {expansions} positions, in shards")
        }
    }
    Ok(())
}

/// `darkhex solve merge`: the table of openings from every shard's log.
pub fn merge(args: &MergeArgs) -> Result<()> {
    let (game, values) = merge_openings(&args.logs)?;
    let game = match darkhex_games::load_game(&game)? {
        darkhex_games::AnyGame::Hex(g) => g,
        other => bail!("{other} is not a Hex or Rex board"),
    };
    let n = game.dims().cells();
    let mut rows = Vec::new();
    let (mut seconds, mut expansions) = (0.0, 0);
    for (cell, v) in values {
        push_opening(
            &mut rows,
            n,
            cell,
            Some(v.black_wins),
            v.seconds,
            v.expansions,
        );
        seconds += v.seconds;
        expansions += v.expansions;
    }
    print_openings(&game, rows, expansions, seconds, None, args.json)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(used: usize, slots: usize, replaced: u64, expansions: u64) -> Stats {
        Stats {
            tt_used: used,
            tt_slots: slots,
            tt_replaced: replaced,
            expansions,
            ..Stats::default()
        }
    }

    /// A few hundred positions pushed out of a table 13% used are full
    /// buckets, not a full table, and no reason for a larger one; a table
    /// well filled, or many positions replaced, is.
    #[test]
    fn the_table_line_says_buckets_and_advises_a_larger_table_only_when_it_helps() {
        assert_eq!(table_warning(&stats(10, 100, 0, 50), 64), None);
        let sparse = table_warning(&stats(1_300_000, 10_000_000, 700, 2_000_000), 1024).unwrap();
        assert!(
            sparse.starts_with("700 positions were pushed out of full buckets of the table (a position may take only the 4 slots of its bucket; 1300000 of 10000000 slots were in use, 13%)"),
            "{sparse}"
        );
        assert!(
            sparse.ends_with("few against the 2000000 positions examined, so a larger --tt-mb would change little"),
            "{sparse}"
        );
        assert!(!sparse.contains("full ("));
        let filled = table_warning(&stats(3116, 3840, 19178, 22286), 1).unwrap();
        assert!(
            filled.ends_with("(a position may take only the 4 slots of its bucket; 3116 of 3840 slots were in use, 81%): a larger --tt-mb than 1 keeps more of them and may solve sooner"),
            "{filled}"
        );
        // Little of the table used, but a tenth of the positions examined
        // pushed out: a larger table keeps that work.
        let churn = table_warning(&stats(1000, 10_000, 500, 5000), 2).unwrap();
        assert!(churn.contains("a larger --tt-mb than 2"), "{churn}");
    }
}
