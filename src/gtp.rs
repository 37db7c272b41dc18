//! `darkhex gtp`: a Go Text Protocol engine for Hex and Rex that speaks
//! Benzene's dialect, so HexGui and scripts written for Wolve or MoHex drive
//! it unchanged. Responses go to stdout, the log to stderr.

use std::io::{BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use clap::Args;
use darkhex_games::board::{BLACK, Dims, MAX_SIDE, WHITE, stone_glyph};
use darkhex_games::hex::HexGame;
use darkhex_games::{AnyGame, Game};
use darkhex_hexengine::analyst::{
    Budget, CellLists, ConnectionEnd, Considered, HexAnalyst, analyst_for,
};
use darkhex_hexengine::hexsolve::Stats;
use darkhex_players::hex_players::candidate_moves;
use darkhex_players::network_player::NetworkEval;
use darkhex_players::registry::network_eval;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::help;
use crate::sgf::read_hex_sgf;

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex gtp                                        (11x11 Hex; HexGui: add it as a program)",
    "printf 'boardsize 6\\nplay b c4\\ndfpn-solve-state white\\n' | darkhex gtp",
    "darkhex gtp --game 'rex(board_size=5)' --move-time 2",
], &[GTP_COMMANDS]))]
pub struct GtpArgs {
    /// The game: Hex or Rex; `boardsize` changes its size
    #[arg(long, default_value = "hex(board_size=11)", value_parser = crate::parse_game)]
    game: AnyGame,
    /// Solver threads (default: all cores)
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::threads)]
    threads: Option<usize>,
    /// Transposition-table size of each solve, in MB
    #[arg(long, default_value_t = 1024, allow_negative_numbers = true, value_parser = crate::args::tt_mb)]
    tt_mb: usize,
    /// Seconds a dfpn command may run; 0 for no limit
    #[arg(long, default_value_t = 0.0, value_parser = crate::args::number_in(0.0, 1e9, true))]
    time_limit: f64,
    /// Seconds genmove spends looking for a proven win before it plays the
    /// evaluation's choice
    #[arg(long, default_value_t = 5.0, value_parser = crate::args::number_in(0.0, 1e9, true))]
    move_time: f64,
    /// What genmove plays without a proven win: `resistance`, or a network
    /// player's spec such as 'network(eval=ek,k=2,x=0.00001)' (Hex only);
    /// unset: network(eval=ek,k=2) on Hex boards up to 19x19, resistance on
    /// Rex and larger boards
    #[arg(long)]
    eval: Option<String>,
}

const GTP_COMMANDS: &str = "\
GTP commands (Benzene's dialect; colours b|black|w|white, cells a1-style; a word
more than a command reads is an error):
  protocol_version name version known_command list_commands quit (or exit)
  boardsize N | boardsize COLUMNS ROWS     clear_board     showboard
  play COLOUR CELL (either colour, any order)   genmove COLOUR   undo
  reg_genmove COLOUR                the move genmove would choose, without playing it
  all_legal_moves [COLOUR]   final_score   loadsgf FILE [MOVE_NUMBER] (Hex SGF, GM[11])
  dfpn-solve-state [COLOUR]         the winner with COLOUR to move (black, white, or empty: unknown)
  dfpn-solver-find-winning COLOUR   every winning move of COLOUR (all empty cells tried; the
                                    time limit holds for the whole command: an error if it
                                    ends with no winning move proved)
  dfpn-clear-tt                     accepted; every solve starts with an empty table
  vc-build COLOUR   vc-get-mustplay COLOUR   compute-inferior COLOUR   eval-resist [COLOUR]
  vc-between-cells-full COLOUR END END, vc-between-cells-semi COLOUR END END
                                    carriers between two cells or sides (north south west east)
  param_dfpn [threads N | tt_mb MB | tt_size ENTRIES | timelimit S]   (no arguments: the values)
  param_player [move_time S | eval resistance|network(eval=e)|network(eval=ek,k=K,x=X)]
  hexgui-analyze_commands";

/// Every command, the most words it reads after its name, and how it is
/// used: one check refuses a word more for all of them, which a handler
/// would otherwise ignore (`play b a1 c3` is a mistake, not a move).
const COMMANDS: [(&str, usize, &str); 29] = [
    ("all_legal_moves", 1, "all_legal_moves [COLOUR]"),
    ("boardsize", 2, "boardsize N, or boardsize COLUMNS ROWS"),
    ("clear_board", 0, "clear_board"),
    ("compute-inferior", 1, "compute-inferior COLOUR"),
    ("dfpn-clear-tt", 0, "dfpn-clear-tt"),
    ("dfpn-solve-state", 1, "dfpn-solve-state [COLOUR]"),
    (
        "dfpn-solver-find-winning",
        1,
        "dfpn-solver-find-winning COLOUR",
    ),
    ("eval-resist", 1, "eval-resist [COLOUR]"),
    ("final_score", 0, "final_score"),
    ("genmove", 1, "genmove COLOUR"),
    ("hexgui-analyze_commands", 0, "hexgui-analyze_commands"),
    ("known_command", 1, "known_command NAME"),
    ("list_commands", 0, "list_commands"),
    ("loadsgf", 2, "loadsgf FILE [MOVE_NUMBER]"),
    ("name", 0, "name"),
    ("param_dfpn", 2, "param_dfpn [NAME VALUE]"),
    ("param_player", 2, "param_player [NAME VALUE]"),
    ("play", 2, "play COLOUR CELL"),
    ("protocol_version", 0, "protocol_version"),
    ("quit", 0, "quit"),
    ("showboard", 0, "showboard"),
    ("undo", 0, "undo"),
    ("vc-build", 1, "vc-build COLOUR"),
    ("vc-get-mustplay", 1, "vc-get-mustplay COLOUR"),
    (
        "vc-between-cells-full",
        3,
        "vc-between-cells-full COLOUR END END",
    ),
    (
        "vc-between-cells-semi",
        3,
        "vc-between-cells-semi COLOUR END END",
    ),
    ("version", 0, "version"),
    ("reg_genmove", 1, "reg_genmove COLOUR"),
    ("exit", 0, "exit"),
];

/// Refuses words past those `name` reads.
fn check_arity(name: &str, args: &[&str]) -> Result<()> {
    let Some(&(_, most, usage)) = COMMANDS.iter().find(|c| c.0 == name) else {
        return Ok(());
    };
    if args.len() <= most {
        return Ok(());
    }
    let takes = match most {
        0 => "no arguments".to_string(),
        1 => "at most one argument".to_string(),
        n => format!("at most {n} arguments"),
    };
    bail!(
        "{name} takes {takes} (usage: {usage}); '{}' is too many",
        args[most..].join(" ")
    )
}

/// The largest board the network evaluations take (19x19).
const MAX_NETWORK_CELLS: usize = 19 * 19;

/// Benzene's table-entry count (`tt_size`) in our megabytes: about this many
/// bytes an entry.
const BYTES_PER_ENTRY: usize = 64;

struct Engine {
    /// Knows the game (its board and whether it is Rex).
    analyst: Arc<dyn HexAnalyst>,
    /// (colour, cell) in the order played.
    moves: Vec<(usize, usize)>,
    /// The colour to move once `.0` moves are on the board, as a loaded
    /// SGF file's `PL` says (players alternate after it); forgotten when
    /// moves are taken back past it or the board is cleared.
    sgf_turn: Option<(usize, usize)>,
    threads: usize,
    tt_mb: usize,
    time_limit: f64,
    move_time: f64,
    /// genmove's choice without a proven win: resistance (`None`) or a
    /// network evaluation with its path budget.
    eval: Option<(NetworkEval, usize)>,
    /// Whether `eval` is the default, chosen again for each board.
    default_eval: bool,
    /// Draws the tie-breakers of E.
    rng: ChaCha8Rng,
}

/// What a command answers: its text, or that the engine should stop.
enum Reply {
    Text(String),
    Quit,
}

fn text(s: impl Into<String>) -> Result<Reply> {
    Ok(Reply::Text(s.into()))
}

fn parse_colour(word: Option<&str>) -> Result<usize> {
    let w = word.ok_or_else(|| anyhow!("missing colour: accepted are b, black, w, white"))?;
    match w.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(BLACK),
        "w" | "white" => Ok(WHITE),
        _ => bail!("'{w}' is not a colour: accepted are b, black, w, white"),
    }
}

fn colour_name(c: usize) -> &'static str {
    if c == BLACK { "black" } else { "white" }
}

fn seconds(limit: f64) -> Option<Duration> {
    (limit > 0.0).then(|| Duration::from_secs_f64(limit))
}

/// The evaluation `text` names: `resistance` or a network player's spec.
fn parse_eval(text: &str, game: &HexGame) -> Result<Option<(NetworkEval, usize)>> {
    let text = text.trim();
    if text == "resistance" {
        return Ok(None);
    }
    // Without this, network_eval's "unknown player 'resistance'" would
    // suggest that resistance is not an evaluation at all.
    if text.starts_with("resistance(") {
        bail!(
            "genmove's evaluation is one ply: --eval takes resistance or a network(...) spec, \
             not {text} (resistance(depth=D) is a player for play and league)"
        );
    }
    let eval = network_eval(text)
        .map_err(|e| anyhow!("{e} (genmove's evaluation is resistance or a network(...) spec)"))?;
    if game.is_misere() {
        bail!("the network evaluations play Hex, not Rex: keep eval resistance");
    }
    if game.dims().cells() > MAX_NETWORK_CELLS {
        bail!("the network evaluations go up to 19x19: keep eval resistance");
    }
    Ok(Some(eval))
}

/// The evaluation genmove uses unless told: E_k with k = 2, which opens in
/// the centre region where one ply of resistance opens beside an obtuse
/// corner (docs/guide/hex.md), on the boards it takes; resistance elsewhere.
fn default_eval(game: &HexGame) -> Option<(NetworkEval, usize)> {
    if game.is_misere() || game.dims().cells() > MAX_NETWORK_CELLS {
        return None;
    }
    network_eval(DEFAULT_EVAL).ok()
}

/// genmove's evaluation on Hex boards up to 19x19 unless told otherwise.
const DEFAULT_EVAL: &str = "network(eval=ek,k=2)";

impl Engine {
    fn new(game: HexGame, args: &GtpArgs) -> Result<Self> {
        Ok(Engine {
            eval: match &args.eval {
                Some(text) => parse_eval(text, &game)?,
                None => default_eval(&game),
            },
            default_eval: args.eval.is_none(),
            rng: ChaCha8Rng::seed_from_u64(0),
            analyst: Arc::from(analyst_for(&game)),
            moves: Vec::new(),
            sgf_turn: None,
            threads: crate::args::thread_count(args.threads),
            tt_mb: args.tt_mb,
            time_limit: args.time_limit,
            move_time: args.move_time,
        })
    }

    fn dims(&self) -> Dims {
        self.analyst.game().dims()
    }

    fn resize(&mut self, rows: usize, cols: usize) -> Result<()> {
        let game = self.analyst.game();
        let dims = Dims::new(game.name(), rows, cols)?;
        if !self.default_eval && self.eval.is_some() && dims.cells() > MAX_NETWORK_CELLS {
            bail!("the network evaluations go up to 19x19: set param_player eval resistance first");
        }
        let game = HexGame::new(dims, game.is_misere());
        if self.default_eval {
            self.eval = default_eval(&game);
        }
        self.analyst = Arc::from(analyst_for(&game));
        self.moves.clear();
        self.sgf_turn = None;
        Ok(())
    }

    fn stones(&self) -> CellLists {
        let mut s: CellLists = [Vec::new(), Vec::new()];
        for &(colour, cell) in &self.moves {
            s[colour].push(cell);
        }
        s
    }

    fn occupant(&self, cell: usize) -> Option<usize> {
        self.moves.iter().find(|m| m.1 == cell).map(|m| m.0)
    }

    fn empty_cells(&self) -> Vec<usize> {
        (0..self.dims().cells())
            .filter(|&c| self.occupant(c).is_none())
            .collect()
    }

    /// Black moves when both have as many stones, as in Benzene, unless a
    /// loaded SGF file said otherwise (`PL`).
    fn to_move(&self) -> usize {
        if let Some((at, colour)) = self.sgf_turn
            && self.moves.len() >= at
        {
            return colour ^ ((self.moves.len() - at) % 2);
        }
        let black = self.moves.iter().filter(|m| m.0 == BLACK).count();
        usize::from(black > self.moves.len() - black)
    }

    fn budget(&self, limit: f64) -> Budget {
        Budget {
            threads: self.threads,
            tt_mb: self.tt_mb,
            time_limit: seconds(limit),
            max_expansions: None,
        }
    }

    fn names(&self, cells: impl IntoIterator<Item = usize>) -> String {
        cells
            .into_iter()
            .map(|c| format!(" {}", self.dims().cell_name(c)))
            .collect()
    }

    fn play(&mut self, colour: usize, word: Option<&str>) -> Result<()> {
        let w = word.ok_or_else(|| anyhow!("missing cell, e.g. a1"))?;
        if w.eq_ignore_ascii_case("swap-pieces") {
            bail!(
                "illegal move: {} swap-pieces (darkhex plays Hex without the swap rule)",
                colour_name(colour)
            );
        }
        let cell = self
            .dims()
            .parse_cell(w)
            .map_err(|e| anyhow!("illegal move: {} {w} ({e})", colour_name(colour)))?;
        if self.occupant(cell).is_some() {
            bail!("illegal move: {} {w} (occupied)", colour_name(colour));
        }
        self.moves.push((colour, cell));
        Ok(())
    }

    fn genmove(&mut self, colour: usize) -> Result<String> {
        let stones = self.stones();
        let empty = self.empty_cells();
        if empty.is_empty() || self.analyst.winner(&stones).is_some() {
            return Ok("resign".into());
        }
        let start = Instant::now();
        let verdict = self
            .analyst
            .solve(&stones, colour, self.budget(self.move_time), &|_| {});
        let chosen = match (verdict.winner, verdict.winning_move) {
            (Some(w), Some(m)) if w == colour => {
                eprintln!("info: {} is a proven win", self.dims().cell_name(m));
                m
            }
            _ => {
                let candidates = candidate_moves(self.analyst.as_ref(), &stones, colour, &empty);
                let (best, by) = self.unproven_move(&stones, colour, &candidates);
                let best = best.ok_or_else(|| anyhow!("no move to play"))?;
                let verdict_word = match verdict.winner {
                    Some(w) if w != colour => "a proven loss; ",
                    _ => "",
                };
                eprintln!(
                    "info: {verdict_word}{} by {by} after {:.1} s",
                    self.dims().cell_name(best),
                    start.elapsed().as_secs_f64()
                );
                best
            }
        };
        self.moves.push((colour, chosen));
        Ok(self.dims().cell_name(chosen))
    }

    /// The best of `candidates` by genmove's evaluation, and its name.
    fn unproven_move(
        &mut self,
        stones: &CellLists,
        colour: usize,
        candidates: &[usize],
    ) -> (Option<usize>, String) {
        match &self.eval {
            None => {
                let scores = self.analyst.move_scores(stones, colour, Some(candidates));
                let best = scores
                    .iter()
                    .copied()
                    .reduce(|best, next| if best.1 >= next.1 { best } else { next })
                    .map(|(c, _)| c);
                (best, "resistance".to_string())
            }
            Some((eval, max_paths)) => {
                let values = self.analyst.network_move_values(
                    stones,
                    colour,
                    Some(candidates),
                    eval.limits(*max_paths),
                );
                (eval.choose(&values, colour, &mut self.rng), eval.spec())
            }
        }
    }

    fn showboard(&self) -> String {
        let board = self.dims().render(|c| match self.occupant(c) {
            Some(p) => stone_glyph(p),
            None => '.',
        });
        // The game string names rows and columns, as everywhere else in
        // darkhex (`boardsize` takes them the other way round, as GTP does).
        format!(
            "\n{}, {} to move (x Black joins top and bottom, o White left and right)\n{board}",
            self.analyst.game().game_string(),
            colour_name(self.to_move())
        )
    }

    /// Benzene's inferior-cell string for HexGui: `fb`/`fw` filled in for
    /// Black/White, `iv[killer]` vulnerable, `ii[dominator]` dominated.
    /// Also returns the cells it lists.
    /// A cell or one of `colour`'s sides, as `vc-between-cells-*` names it.
    fn connection_end(&self, colour: usize, word: Option<&str>) -> Result<ConnectionEnd> {
        let sides = if colour == BLACK {
            ["north", "south"]
        } else {
            ["west", "east"]
        };
        let w = word.ok_or_else(|| {
            anyhow!(
                "missing end: a cell such as a1, or {} or {}",
                sides[0],
                sides[1]
            )
        })?;
        if let Some(i) = sides.iter().position(|s| w.eq_ignore_ascii_case(s)) {
            return Ok(ConnectionEnd::Side(i));
        }
        self.dims()
            .parse_cell(w)
            .map(ConnectionEnd::Cell)
            .map_err(|e| {
                anyhow!(
                    "'{w}' is not an end of {}: {e}; or {} or {}",
                    colour_name(colour),
                    sides[0],
                    sides[1]
                )
            })
    }

    fn inferior_text(&self, colour: usize) -> (String, Vec<usize>) {
        let inf = self.analyst.inferior(&self.stones(), colour);
        let mut out = String::new();
        let mut listed = Vec::new();
        for (p, tag) in [(BLACK, "fb"), (WHITE, "fw")] {
            for &c in &inf.fill[p] {
                out += &format!(" {} {tag}", self.dims().cell_name(c));
                listed.push(c);
            }
        }
        for (list, tag) in [(&inf.vulnerable, "iv"), (&inf.dominated, "ii")] {
            for &(c, by) in list {
                out += &format!(
                    " {} {tag}[{}]",
                    self.dims().cell_name(c),
                    self.dims().cell_name(by)
                );
                listed.push(c);
            }
        }
        (out, listed)
    }

    /// Every winning move of `colour`, each empty cell solved in turn
    /// within one time limit for the whole command. When time runs out,
    /// the moves proved winning by then are the answer (each of them
    /// wins; others may too, and stderr names the cells left open); with
    /// none proved, the command fails rather than answer an empty list,
    /// which would say that no move wins.
    fn find_winning(&self, colour: usize) -> Result<String> {
        let empty = self.empty_cells();
        let (values, stats) =
            self.analyst
                .move_values(&self.stones(), colour, self.budget(self.time_limit));
        let solved = |c: &usize| values.iter().any(|v| v.0 == *c && v.1.is_some());
        let open: Vec<usize> = empty.iter().copied().filter(|c| !solved(c)).collect();
        let winning: Vec<usize> = values
            .iter()
            .filter(|v| v.1 == Some(true))
            .map(|v| v.0)
            .collect();
        self.info(&stats);
        if !open.is_empty() {
            if winning.is_empty() {
                bail!(
                    "no winning move proved within the time limit of {} s: {} of {} moves left unsolved (raise param_dfpn timelimit, or 0 for none)",
                    self.time_limit,
                    open.len(),
                    empty.len()
                );
            }
            eprintln!(
                "warning: the time limit left {} of {} moves unsolved:{}",
                open.len(),
                empty.len(),
                self.names(open)
            );
        }
        Ok(self.names(winning))
    }

    /// The log line of a solve: the positions examined and the wall time
    /// (the threads' seconds added up would count each second once per
    /// thread).
    fn info(&self, stats: &Stats) {
        eprintln!(
            "info: {} positions in {:.2} s (wall time), {} thread(s)",
            stats.expansions, stats.seconds, self.threads
        );
    }

    fn param_dfpn(&mut self, words: &[&str]) -> Result<String> {
        match words {
            [] => Ok(format!(
                "\n[string] threads {}\n[string] tt_mb {}\n[string] timelimit {}",
                self.threads, self.tt_mb, self.time_limit
            )),
            [name, value] => {
                let max_threads = crate::args::max_threads() as i128;
                let max_entries = crate::args::total_memory().map_or(1 << 40, i128::from)
                    / BYTES_PER_ENTRY as i128;
                let bad = |e: String| anyhow!("param_dfpn {name} {e}");
                match *name {
                    "threads" => {
                        self.threads =
                            crate::args::whole(1, Some(max_threads))(value).map_err(bad)?
                    }
                    "tt_mb" => self.tt_mb = crate::args::tt_mb(value).map_err(bad)?,
                    "tt_size" => {
                        let entries: usize =
                            crate::args::whole(1, Some(max_entries))(value).map_err(bad)?;
                        self.tt_mb = (entries * BYTES_PER_ENTRY).div_ceil(1_000_000);
                    }
                    "timelimit" => {
                        self.time_limit = crate::args::number_in(0.0, 1e9, true)(value)
                            .map_err(|e| anyhow!("param_dfpn timelimit {e} (0: no limit)"))?
                    }
                    other => bail!(
                        "unknown parameter '{other}': accepted are threads, tt_mb, tt_size, timelimit"
                    ),
                }
                Ok(String::new())
            }
            _ => bail!("usage: param_dfpn [NAME VALUE]"),
        }
    }

    fn param_player(&mut self, words: &[&str]) -> Result<String> {
        match words {
            [] => Ok(format!(
                "\n[string] move_time {}\n[string] eval {}",
                self.move_time,
                self.eval
                    .as_ref()
                    .map_or("resistance".to_string(), |e| e.0.spec())
            )),
            ["eval", value] => {
                self.eval = parse_eval(value, &self.analyst.game())?;
                self.default_eval = false;
                Ok(String::new())
            }
            ["move_time", value] => {
                self.move_time = value
                    .parse()
                    .ok()
                    .filter(|v: &f64| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| anyhow!("'{value}' is not a number of seconds"))?;
                Ok(String::new())
            }
            [other, _] => bail!("unknown parameter '{other}': accepted are move_time, eval"),
            _ => bail!("usage: param_player [move_time SECONDS | eval SPEC]"),
        }
    }

    fn loadsgf(&mut self, words: &[&str]) -> Result<()> {
        let path = PathBuf::from(
            words
                .first()
                .ok_or_else(|| anyhow!("usage: loadsgf FILE [MOVE_NUMBER]"))?,
        );
        let limit = match words.get(1) {
            Some(w) => Some(
                w.parse::<usize>()
                    .map_err(|_| anyhow!("'{w}' is not a move number"))?,
            ),
            None => None,
        };
        let text = darkhex_algorithms::files::read_text(&path)?;
        let game = read_hex_sgf(&text)?;
        self.resize(game.dims.rows(), game.dims.cols())?;
        let moves = game
            .moves
            .iter()
            .take(limit.map_or(usize::MAX, |n| n.saturating_sub(1)));
        for &(colour, cell) in game.setup.iter().chain(moves) {
            if self.occupant(cell).is_some() {
                bail!("the SGF file plays {} twice", self.dims().cell_name(cell));
            }
            self.moves.push((colour, cell));
        }
        let played = self.moves.len() - game.setup.len();
        self.sgf_turn = game
            .to_move_after(played)
            .map(|colour| (self.moves.len(), colour));
        Ok(())
    }

    fn command(&mut self, name: &str, args: &[&str]) -> Result<Reply> {
        check_arity(name, args)?;
        let first = args.first().copied();
        match name {
            "protocol_version" => text("2"),
            "name" => text("darkhex"),
            "version" => text(env!("CARGO_PKG_VERSION")),
            "known_command" => text(
                if first.is_some_and(|c| COMMANDS.iter().any(|k| k.0 == c)) {
                    "true"
                } else {
                    "false"
                },
            ),
            "list_commands" => text(COMMANDS.iter().map(|c| c.0).collect::<Vec<_>>().join("\n")),
            "quit" | "exit" => Ok(Reply::Quit),
            "boardsize" => {
                let size = |w: &str| -> Result<usize> {
                    crate::args::whole(1, Some(MAX_SIDE as i128))(w)
                        .map_err(|e| anyhow!("boardsize {e}"))
                };
                match args {
                    [n] => {
                        let n = size(n)?;
                        self.resize(n, n)?;
                    }
                    [cols, rows] => {
                        let (c, r) = (size(cols)?, size(rows)?);
                        self.resize(r, c)?;
                    }
                    _ => bail!("usage: boardsize N, or boardsize COLUMNS ROWS"),
                }
                text("")
            }
            "clear_board" => {
                self.moves.clear();
                self.sgf_turn = None;
                text("")
            }
            "play" => {
                let colour = parse_colour(first)?;
                self.play(colour, args.get(1).copied())?;
                text("")
            }
            "genmove" | "reg_genmove" => {
                let colour = parse_colour(first)?;
                let m = self.genmove(colour)?;
                if name == "reg_genmove" && m != "resign" {
                    self.moves.pop();
                }
                text(m)
            }
            "undo" => {
                // The GTP specification: undo fails when there is nothing to undo.
                if self.moves.pop().is_none() {
                    bail!("cannot undo: no move has been played");
                }
                if self.sgf_turn.is_some_and(|(at, _)| self.moves.len() < at) {
                    self.sgf_turn = None;
                }
                text("")
            }
            "showboard" => text(self.showboard()),
            "all_legal_moves" => {
                // Some controllers name the colour: both have the same moves.
                if let Some(w) = first {
                    parse_colour(Some(w))?;
                }
                let stones = self.stones();
                if self.analyst.winner(&stones).is_some() {
                    return text("");
                }
                text(self.names(self.empty_cells()).trim_start().to_string())
            }
            "final_score" => text(match self.analyst.winner(&self.stones()) {
                Some(BLACK) => "B+",
                Some(_) => "W+",
                None => "cannot score",
            }),
            "loadsgf" => {
                self.loadsgf(args)?;
                text("")
            }
            "dfpn-solve-state" => {
                let colour = match first {
                    Some(w) => parse_colour(Some(w))?,
                    None => self.to_move(),
                };
                let v = self.analyst.solve(
                    &self.stones(),
                    colour,
                    self.budget(self.time_limit),
                    &|_| {},
                );
                self.info(&v.stats);
                if v.winner.is_none() {
                    // Benzene's answer for a search that stopped unsolved.
                    eprintln!(
                        "warning: not solved within the time limit of {} s: 'empty' means unknown",
                        self.time_limit
                    );
                }
                text(v.winner.map_or("empty", colour_name))
            }
            "dfpn-solver-find-winning" => {
                let colour = parse_colour(first)?;
                text(self.find_winning(colour)?)
            }
            "vc-build" => {
                let colour = parse_colour(first)?;
                let stones = self.stones();
                let (fulls, semis, joined) = self.analyst.connection_counts(&stones, colour);
                eprintln!(
                    "info: {} has {fulls} full and {semis} semi connections{}",
                    colour_name(colour),
                    if joined {
                        "; its sides are connected"
                    } else {
                        ""
                    }
                );
                let (mut out, listed) = self.inferior_text(colour);
                if let Considered::Moves(keep) = self.analyst.considered(&stones, colour) {
                    for c in self.empty_cells() {
                        if !keep.contains(&c) && !listed.contains(&c) {
                            out += &format!(" {} x", self.dims().cell_name(c));
                        }
                    }
                }
                text(out)
            }
            "vc-get-mustplay" => {
                let colour = parse_colour(first)?;
                let must = self.analyst.mustplay(&self.stones(), colour);
                let outside = self
                    .empty_cells()
                    .into_iter()
                    .filter(|c| must.as_ref().is_some_and(|m| !m.contains(c)));
                text(
                    outside
                        .map(|c| format!(" {} x", self.dims().cell_name(c)))
                        .collect::<String>(),
                )
            }
            "vc-between-cells-full" | "vc-between-cells-semi" => {
                let colour = parse_colour(first)?;
                let ends = [args.get(1), args.get(2)]
                    .map(|w| self.connection_end(colour, w.copied()))
                    .into_iter()
                    .collect::<Result<Vec<_>>>()?;
                let [x, y] = [ends[0], ends[1]];
                let found = self
                    .analyst
                    .connections_between(&self.stones(), colour, [x, y]);
                let head = format!("{} {} {}", colour_name(colour), args[1], args[2]);
                let lines: Vec<String> = if name.ends_with("full") {
                    found
                        .fulls
                        .into_iter()
                        .map(|c| format!("{head} full [{} ]", self.names(c)))
                        .collect()
                } else {
                    found
                        .semis
                        .into_iter()
                        .map(|(c, key)| {
                            let key = self.dims().cell_name(key);
                            format!("{head} semi [{} ] {key}", self.names(c))
                        })
                        .collect()
                };
                text(lines.join("\n"))
            }
            "compute-inferior" => {
                let colour = parse_colour(first)?;
                text(self.inferior_text(colour).0)
            }
            "eval-resist" => {
                // HexGui sends the colour to move; the score is Black's
                // either way.
                if let Some(w) = first {
                    parse_colour(Some(w))?;
                }
                let r = self.analyst.resistance(&self.stones());
                text(format!(
                    " res {:.3} rew {:.3} reb {:.3}",
                    r.score, r.log_resistance[WHITE], r.log_resistance[BLACK]
                ))
            }
            "hexgui-analyze_commands" => text(
                [
                    "param/DFPN Param/param_dfpn",
                    "param/Player Param/param_player",
                    "none/DFPN Solve State/dfpn-solve-state %m",
                    "plist/DFPN Find Winning/dfpn-solver-find-winning %m",
                    "inferior/VC Build/vc-build %m",
                    "inferior/VC Mustplay/vc-get-mustplay %m",
                    "string/VC Between Cells Full/vc-between-cells-full %m %P %P",
                    "string/VC Between Cells Semi/vc-between-cells-semi %m %P %P",
                    "inferior/Compute Inferior/compute-inferior %m",
                    "string/Eval Resist/eval-resist %m",
                    "string/Show Board/showboard",
                ]
                .join("\n"),
            ),
            // Each solve starts with a fresh table: there is nothing to clear.
            "dfpn-clear-tt" => text(""),
            "param_dfpn" => text(self.param_dfpn(args)?),
            "param_player" => text(self.param_player(args)?),
            other => bail!("unknown command: {other}"),
        }
    }
}

/// One GTP response: `=` or `?`, the echoed id, the text; empty lines
/// inside become a single space so the blank line still ends it.
fn frame(ok: bool, id: Option<&str>, body: &str) -> String {
    let body = body
        .lines()
        .map(|l| if l.is_empty() { " " } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "{}{} {}\n\n",
        if ok { '=' } else { '?' },
        id.unwrap_or(""),
        body
    )
}

pub fn run(args: GtpArgs) -> Result<()> {
    let AnyGame::Hex(game) = args.game else {
        bail!(
            "the GTP engine plays Hex and Rex, not {}: give --game 'hex(board_size=N)' or 'rex(board_size=N)'",
            args.game
        );
    };
    eprintln!(
        "darkhex {} GTP engine: {} (type list_commands)",
        env!("CARGO_PKG_VERSION"),
        game.game_string()
    );
    let mut engine = Engine::new(game, &args)?;
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    // Lines are read as bytes: a stray non-UTF-8 byte gets an answer
    // (the command it spoils is unknown), not the end of the session.
    for line in stdin.lock().split(b'\n') {
        let line = String::from_utf8_lossy(&line?).into_owned();
        let line = line
            .split('#')
            .next()
            .unwrap_or("")
            .trim()
            .replace('\t', " ");
        let mut words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        let id = words[0]
            .chars()
            .all(|c| c.is_ascii_digit())
            .then(|| words.remove(0));
        let Some((&name, rest)) = words.split_first() else {
            write!(stdout, "{}", frame(false, id, "missing command"))?;
            stdout.flush()?;
            continue;
        };
        let result = catch_unwind(AssertUnwindSafe(|| engine.command(name, rest)))
            .unwrap_or_else(|_| Err(anyhow!("internal error in {name}; the engine goes on")));
        let quit = matches!(result, Ok(Reply::Quit));
        let response = match result {
            Ok(Reply::Text(t)) => frame(true, id, &t),
            Ok(Reply::Quit) => frame(true, id, ""),
            Err(e) => frame(false, id, &e.to_string().replace('\n', " ")),
        };
        write!(stdout, "{response}")?;
        stdout.flush()?;
        if quit {
            break;
        }
    }
    Ok(())
}
