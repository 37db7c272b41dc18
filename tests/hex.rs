//! Solving Hex and Rex from the command line and over GTP: every answer is
//! held to plain exhaustive minimax on small boards.

mod common;

use common::{darkhex, darkhex_with_input, json, ok, stderr, stdout};
use darkhex_games::board::Dims;
use darkhex_games::{CellSet, Geometry};
use darkhex_hexengine::hexsolve::minimax::Minimax;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Stones = [CellSet<1>; 2];

/// A random unfinished position of `size`x`size` with `stones` stones.
fn random_position(geom: &Geometry<1>, stones: usize, rng: &mut ChaCha8Rng) -> Stones {
    loop {
        let mut cells: Vec<usize> = (0..geom.cells()).collect();
        cells.shuffle(rng);
        let mut s: Stones = [CellSet::EMPTY; 2];
        for (i, &c) in cells.iter().take(stones).enumerate() {
            s[i % 2].insert(c);
        }
        if !geom.connected(s[0], 0) && !geom.connected(s[1], 1) {
            return s;
        }
    }
}

fn names(dims: Dims, set: CellSet<1>) -> Vec<String> {
    set.iter().map(|c| dims.cell_name(c)).collect()
}

fn geometry(game: &str, size: usize) -> Geometry<1> {
    Geometry::new(Dims::new(game, size, size).unwrap()).unwrap()
}

#[test]
fn solve_gives_minimax_values_and_winning_moves() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    for (game, misere) in [("hex", false), ("rex", true)] {
        let geom = geometry(game, 4);
        let dims = geom.dims();
        let mut minimax = Minimax::new(&geom, misere);
        for round in 0..4 {
            let stones = random_position(&geom, 3 + 2 * round, &mut rng);
            let to_move = rng.random_range(0..2usize);
            let v = json(&darkhex(
                dir.path(),
                &[
                    "solve",
                    &format!("{game}(board_size=4)"),
                    "--black",
                    &names(dims, stones[0]).join(","),
                    "--white",
                    &names(dims, stones[1]).join(","),
                    "--to-move",
                    &to_move.to_string(),
                    "--all-moves",
                    "--threads",
                    "1",
                    "--json",
                ],
            ));
            let wins = minimax.wins(&stones, to_move);
            let winner = if wins { to_move } else { 1 - to_move };
            assert_eq!(v["winner"], winner, "{game} {stones:?}");
            let mut expected = names(dims, minimax.winning_moves(&stones, to_move));
            let mut got: Vec<String> = v["winning_moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect();
            expected.sort();
            got.sort();
            assert_eq!(got, expected, "{game} {stones:?} to move {to_move}");
        }
    }
}

#[test]
fn openings_table_matches_minimax() {
    let dir = tempfile::tempdir().unwrap();
    let geom = geometry("hex", 4);
    let dims = geom.dims();
    let mut minimax = Minimax::new(&geom, false);
    let v = json(&darkhex(
        dir.path(),
        &["solve", "hex(board_size=4)", "--openings", "--json"],
    ));
    let rows = v["openings"].as_array().unwrap();
    assert_eq!(rows.len(), 16);
    let winning = minimax.winning_moves(&[CellSet::EMPTY; 2], 0);
    for row in rows {
        let cell = dims.parse_cell(row["opening"].as_str().unwrap()).unwrap();
        assert_eq!(row["black_wins"], winning.contains(cell), "{row}");
    }
    // The four winning openings of 4x4 lie on the short diagonal.
    assert_eq!(winning.count(), 4);
}

/// `--replies`: after each opening (one of each pair of images), every
/// reply of the second player with its value, each equal to minimax's;
/// after the centre of an odd board the images of its replies are listed
/// with them.
#[test]
fn the_reply_table_matches_minimax() {
    let dir = tempfile::tempdir().unwrap();
    for (game, size, misere) in [("hex", 3, false), ("rex", 3, true), ("rex", 4, true)] {
        let geom = geometry(game, size);
        let dims = geom.dims();
        let n = dims.cells();
        let mut minimax = Minimax::new(&geom, misere);
        let v = json(&darkhex(
            dir.path(),
            &[
                "solve",
                &format!("{game}(board_size={size})"),
                "--replies",
                "--threads",
                "1",
                "--json",
            ],
        ));
        assert_eq!(v["complete"], true, "{v}");
        let rows = v["replies"].as_array().unwrap();
        // Every reply to each of the (n + 1) / 2 openings.
        assert_eq!(rows.len(), n.div_ceil(2) * (n - 1), "{game} {size}");
        let mut white_wins = 0;
        for row in rows {
            let opening = dims.parse_cell(row["opening"].as_str().unwrap()).unwrap();
            let reply = dims.parse_cell(row["reply"].as_str().unwrap()).unwrap();
            assert!(opening <= n - 1 - opening && reply != opening, "{row}");
            let mut stones: Stones = [CellSet::EMPTY; 2];
            stones[0].insert(opening);
            stones[1].insert(reply);
            let black_wins = minimax.wins(&stones, 0);
            assert_eq!(row["white_wins"], !black_wins, "{game} {size} {row}");
            white_wins += usize::from(!black_wins);
        }
        // Some replies win and some lose on each board: the table tells
        // them apart.
        assert!(white_wins > 0 && white_wins < rows.len(), "{game} {size}");
    }
}

#[test]
fn a_time_limit_prints_what_is_known() {
    let dir = tempfile::tempdir().unwrap();
    let v = json(&darkhex(
        dir.path(),
        &[
            "solve",
            "hex(board_size=9)",
            "--time-limit",
            "0.3",
            "--threads",
            "1",
            "--json",
        ],
    ));
    assert_eq!(v["complete"], false);
    assert!(v["winner"].is_null());
    let o = darkhex(
        dir.path(),
        &["solve", "hex(board_size=4)", "--moves", "a1,a1"],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("a1"), "{}", stderr(&o));
    let o = darkhex(
        dir.path(),
        &["solve", "hex(board_size=4)", "--without", "magic"],
    );
    assert!(
        stderr(&o).contains("accepted are connections"),
        "{}",
        stderr(&o)
    );
}

/// `--table FILE`: a solve stopped by its time limit leaves its table in
/// FILE, and the same command without the limit goes on from it to the
/// value of a solve from nothing, with a winning move that wins; a table
/// of Rex offered to Hex, or one cut short, is refused in one line. (A
/// time limit stops after a number of positions that varies from run to
/// run; hexengine's tests/hex_table_file.rs measures the work a resumed
/// search saves with a budget of positions instead.)
#[test]
fn a_stopped_solve_goes_on_from_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let solve = |moves: &str, extra: &[&str]| {
        let mut args = vec![
            "solve",
            "hex(board_size=7)",
            "--moves",
            moves,
            "--threads",
            "1",
            "--json",
        ];
        args.extend_from_slice(extra);
        darkhex(dir.path(), &args)
    };
    // 7x7 a2: White wins (with d4 from nothing), in about 4,000 positions.
    let fresh = json(&solve("a2", &[]));
    assert_eq!(fresh["winner"], 1);
    let cut = json(&solve(
        "a2",
        &["--time-limit", "0.4", "--table", "a2.table"],
    ));
    assert_eq!(cut["complete"], false, "{cut}");
    let o = solve("a2", &["--table", "a2.table"]);
    assert!(
        stderr(&o).contains("loaded from a2.table"),
        "{}",
        stderr(&o)
    );
    let resumed = json(&o);
    assert_eq!(resumed["winner"], fresh["winner"], "{resumed}");
    let reply = resumed["winning_move"].as_str().unwrap().to_string();
    let after = json(&solve(&format!("a2,{reply}"), &[]));
    assert_eq!(after["winner"], 1, "{reply}: {after}");
    let o = darkhex(
        dir.path(),
        &[
            "solve",
            "rex(board_size=7)",
            "--moves",
            "a2",
            "--table",
            "a2.table",
        ],
    );
    let err = stderr(&o);
    assert!(
        !o.status.success() && err.trim().lines().count() == 1,
        "{err}"
    );
    assert!(
        err.contains("hex(board_size=7)") && err.contains("rex(board_size=7)"),
        "{err}"
    );
    let bytes = std::fs::read(dir.path().join("a2.table")).unwrap();
    std::fs::write(dir.path().join("a2.table"), &bytes[..bytes.len() / 2]).unwrap();
    let o = solve("a2", &["--table", "a2.table"]);
    let err = stderr(&o);
    assert!(
        !o.status.success() && err.trim().lines().count() == 1,
        "{err}"
    );
    assert!(err.contains("cut short"), "{err}");
}

/// `--learn-edges FILE` learns patterns into FILE (a solve without the
/// built-in ones finds some on 6x6), reads them back on the next run, and
/// refuses a malformed file, a Rex game and an unwritable path in one line.
#[test]
fn learning_edge_patterns_keeps_them_in_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let learn = |file: &str| {
        darkhex(
            dir.path(),
            &[
                "solve",
                "hex(board_size=6)",
                "--moves",
                "c3",
                "--threads",
                "1",
                "--without",
                "edge-patterns",
                "--learn-edges",
                file,
            ],
        )
    };
    let out = ok(&learn("edges.txt"));
    assert!(
        out.contains("White (o) wins") || out.contains("Black (x) wins"),
        "{out}"
    );
    let text = std::fs::read_to_string(dir.path().join("edges.txt")).unwrap();
    let table = darkhex_hexengine::hexsolve::edge_patterns::EdgePatterns::new();
    let first = table.learn_text(&text).unwrap();
    assert!(first > 0, "{text}");
    // A second run starts from the file: it searches less and keeps them.
    ok(&learn("edges.txt"));
    let again = std::fs::read_to_string(dir.path().join("edges.txt")).unwrap();
    assert!(table.learn_text(&again).unwrap() >= first);
    std::fs::write(dir.path().join("bad.txt"), "3;1,2;0,0 0,x\n").unwrap();
    let err = stderr(&learn("bad.txt"));
    assert!(err.contains("bad.txt") && err.contains("line 1"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let o = darkhex(
        dir.path(),
        &["solve", "rex(board_size=4)", "--learn-edges", "r.txt"],
    );
    assert!(stderr(&o).contains("Rex"), "{}", stderr(&o));
    let err = stderr(&learn("no/such/dir/e.txt"));
    assert!(!err.is_empty() && err.trim().lines().count() == 1, "{err}");
}

/// Runs a GTP session and returns the responses, one per command.
fn gtp(args: &[&str], script: &str) -> Vec<String> {
    let out = darkhex_with_input(&[&["gtp"], args].concat(), script);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(text.ends_with("\n\n"), "{text:?}");
    text.strip_suffix("\n\n")
        .unwrap_or_default()
        .split("\n\n")
        .map(str::to_string)
        .collect()
}

#[test]
fn gtp_speaks_benzenes_dialect_and_survives_errors() {
    let r = gtp(
        &[],
        "protocol_version\n7 name\nboardsize 6 6\nplay b c4\nplay w c4\nplay q a1\nfoo\n\
         # a comment\ndfpn-solve-state white\nvc-get-mustplay white\nknown_command vc-build\n\
         undo\nfinal_score\nboardsize 3\nplay b b2\nplay b b1\nplay b b3\nfinal_score\ngenmove w\nquit\n",
    );
    let expect = [
        "= 2",
        "=7 darkhex",
        "= ",
        "= ",
        "? illegal move: white c4 (occupied)",
        "? 'q' is not a colour: accepted are b, black, w, white",
        "? unknown command: foo",
        // Benzene answers the same: Black's c4 wins 6x6.
        "= black",
        "",
        "= true",
        "= ",
        "= cannot score",
        "= ",
        "= ",
        "= ",
        "= ",
        "= B+",
        "= resign",
        "= ",
    ];
    assert_eq!(r.len(), expect.len(), "{r:#?}");
    for (got, want) in r.iter().zip(expect) {
        if !want.is_empty() {
            assert_eq!(got, want);
        }
    }
    // White's only move against Black's centre stone is c3 (as Benzene finds).
    let must: Vec<&str> = r[8].split_whitespace().collect();
    assert_eq!(must.len(), 1 + 2 * 34, "{}", r[8]);
    assert!(!must.contains(&"c3"));
}

/// A word more than a command reads is an error for every command, with
/// the command's usage, and does nothing: `play b a1 extra` plays no
/// stone, `quit x` does not quit.
#[test]
fn gtp_refuses_a_word_too_many_for_every_command() {
    let commands = [
        "protocol_version x",
        "name x",
        "version x",
        "known_command play x",
        "list_commands x",
        "boardsize 3 3 3",
        "clear_board x",
        "showboard x",
        "play b a1 extra",
        "genmove b x",
        "reg_genmove b x",
        "undo 1",
        "all_legal_moves b x",
        "final_score x",
        "loadsgf f.sgf 1 x",
        "dfpn-solve-state b x",
        "dfpn-solver-find-winning b x",
        "dfpn-clear-tt x",
        "vc-build b x",
        "vc-get-mustplay b x",
        "compute-inferior b x",
        "eval-resist b x",
        "vc-between-cells-full b a1 north x",
        "vc-between-cells-semi b a1 north x",
        "param_dfpn threads 1 x",
        "param_player move_time 1 x",
        "hexgui-analyze_commands x",
        "quit x",
        "exit x",
    ];
    let script = format!(
        "boardsize 3\n{}\nall_legal_moves\nlist_commands\nquit\n",
        commands.join("\n")
    );
    let r = gtp(&[], &script);
    assert_eq!(r.len(), commands.len() + 4, "{r:#?}");
    for (command, answer) in commands.iter().zip(&r[1..]) {
        let extra = command.rsplit(' ').next().unwrap();
        assert!(
            answer.starts_with("? ")
                && answer.contains("(usage: ")
                && answer.ends_with(&format!("'{extra}' is too many")),
            "{command}: {answer}"
        );
    }
    assert_eq!(r[commands.len() + 1], "= a1 b1 c1 a2 b2 c2 a3 b3 c3");
    // Every command the engine knows is in the list above.
    let known: Vec<&str> = r[commands.len() + 2]
        .trim_start_matches("= ")
        .lines()
        .collect();
    let tried: Vec<&str> = commands
        .iter()
        .map(|c| c.split(' ').next().unwrap())
        .collect();
    assert_eq!(known.len(), tried.len());
    assert!(known.iter().all(|k| tried.contains(k)), "{known:?}");
    assert!(r[3].contains("takes no arguments"), "{}", r[3]);
    assert!(r[9].contains("play takes at most 2 arguments (usage: play COLOUR CELL)"));
    // A colour given to all_legal_moves or eval-resist is still a colour.
    let r = gtp(&[], "all_legal_moves q\neval-resist black\n");
    assert!(r[0].starts_with("? 'q' is not a colour"), "{}", r[0]);
    assert!(r[1].starts_with("=  res "), "{}", r[1]);
}

/// showboard names the board by its game string, rows first as
/// everywhere in darkhex, though `boardsize` takes columns first as GTP
/// does: `boardsize 5 3` is 3 rows of 5 cells.
#[test]
fn gtp_showboard_names_rows_and_columns_as_the_cli_does() {
    for (game, shown) in [
        ("hex(board_size=4)", "hex(num_rows=3,num_cols=5)"),
        ("rex(board_size=4)", "rex(num_rows=3,num_cols=5)"),
    ] {
        let r = gtp(&["--game", game], "boardsize 5 3\nshowboard\n");
        let board = &r[1];
        assert!(
            board.contains(&format!("{shown}, black to move")),
            "{board}"
        );
        let rows = board
            .lines()
            .filter(|l| l.trim_start().starts_with(char::is_numeric));
        assert_eq!(rows.count(), 3, "{board}");
    }
}

/// The info line of a solve reports wall seconds: with two threads
/// solving moves side by side, their searches' seconds added up would be
/// about twice the time the command took.
#[test]
fn gtp_info_reports_wall_seconds() {
    let start = std::time::Instant::now();
    let o = darkhex_with_input(
        &["gtp", "--threads", "2"],
        "boardsize 5\ndfpn-solver-find-winning black\n",
    );
    let wall = start.elapsed().as_secs_f64();
    let err = stderr(&o);
    let line = err
        .lines()
        .find(|l| l.starts_with("info: ") && l.contains(" positions in "))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(line.ends_with("s (wall time), 2 thread(s)"), "{line}");
    let seconds: f64 = line
        .split(" positions in ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(seconds <= wall, "{seconds} s reported, {wall} s elapsed");
}

#[test]
fn gtp_vc_between_cells_shows_the_ziggurat() {
    let r = gtp(
        &[],
        "boardsize 6 6\nplay b c4\nvc-between-cells-full black c4 south\n\
         vc-between-cells-semi black c4 south\nvc-between-cells-full white c4 east\n\
         vc-between-cells-full white a1 north\nquit\n",
    );
    // Benzene (wolve) answers this carrier for the 4-3-2 edge template.
    assert_eq!(r[2], "= black c4 south full [ d4 b5 c5 d5 a6 b6 c6 d6 ]");
    // Each semi is a smaller carrier with its key: the full's cells only.
    let semis: Vec<&str> = r[3].trim_start_matches("= ").lines().collect();
    assert!(!semis.is_empty(), "{}", r[3]);
    let full = ["d4", "b5", "c5", "d5", "a6", "b6", "c6", "d6"];
    for line in semis {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(&words[..4], ["black", "c4", "south", "semi"], "{line}");
        let key = words[words.len() - 1];
        assert!(words[5..words.len() - 2].contains(&key), "{line}");
        assert!(
            words[5..words.len() - 2].iter().all(|c| full.contains(c)),
            "{line}"
        );
    }
    // Black's stone is no end of White's.
    assert_eq!(r[4], "= ");
    assert!(
        r[5].starts_with("? 'north' is not an end of white"),
        "{}",
        r[5]
    );
}

#[test]
fn gtp_solver_answers_equal_minimax() {
    let geom = geometry("hex", 4);
    let dims = geom.dims();
    let mut minimax = Minimax::new(&geom, false);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut script = String::from("boardsize 4\n");
    let mut commands = 1;
    let mut expected = Vec::new();
    for _ in 0..5 {
        let stones = random_position(&geom, 4, &mut rng);
        let to_move = rng.random_range(0..2usize);
        script += "clear_board\n";
        commands += 1;
        for (p, colour) in [(0, "b"), (1, "w")] {
            for c in names(dims, stones[p]) {
                script += &format!("play {colour} {c}\n");
                commands += 1;
            }
        }
        let colour = ["black", "white"][to_move];
        script += &format!("dfpn-solve-state {colour}\ndfpn-solver-find-winning {colour}\n");
        commands += 2;
        let winner = if minimax.wins(&stones, to_move) {
            to_move
        } else {
            1 - to_move
        };
        let mut moves = names(dims, minimax.winning_moves(&stones, to_move));
        moves.sort();
        expected.push((commands - 2, ["black", "white"][winner], moves));
    }
    let r = gtp(&["--threads", "1"], &script);
    assert_eq!(r.len(), commands, "{r:#?}");
    for (i, winner, moves) in expected {
        assert_eq!(r[i], format!("= {winner}"));
        let mut got: Vec<String> = r[i + 1]
            .trim_start_matches('=')
            .split_whitespace()
            .map(str::to_string)
            .collect();
        got.sort();
        assert_eq!(got, moves);
    }
}

#[test]
fn gtp_loads_hex_sgf_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.sgf");
    std::fs::write(&file, "(;FF[4]GM[11]SZ[5];B[c3];W[b4];B[d2])").unwrap();
    let bad = dir.path().join("bad.sgf");
    std::fs::write(&bad, "(;GM[1]SZ[9];B[de])").unwrap();
    let r = gtp(
        &[],
        &format!(
            "loadsgf {}\nall_legal_moves\nloadsgf {} 2\nall_legal_moves\nloadsgf {}\nloadsgf nowhere.sgf\n",
            file.display(),
            file.display(),
            bad.display()
        ),
    );
    assert_eq!(r[0], "= ");
    assert_eq!(r[1].split_whitespace().count(), 1 + 22);
    assert_eq!(r[3].split_whitespace().count(), 1 + 24);
    assert!(
        r[4].starts_with("? ") && r[4].contains("GM[11]"),
        "{}",
        r[4]
    );
    assert!(r[5].starts_with("? cannot read"), "{}", r[5]);
}

#[test]
fn gtp_loadsgf_takes_the_player_to_move_from_pl() {
    let dir = tempfile::tempdir().unwrap();
    // As many stones each: Black would move, but the file says White.
    let file = dir.path().join("w.sgf");
    std::fs::write(&file, "(;FF[4]GM[11]SZ[3]AB[a1]AW[c3]PL[W])").unwrap();
    let bad = dir.path().join("bad.sgf");
    std::fs::write(&bad, "(;FF[4]GM[11]SZ[3]AB[a1]PL[Q])").unwrap();
    let r = gtp(
        &[],
        &format!(
            "loadsgf {}\nshowboard\nplay w b2\nshowboard\nundo\nshowboard\nundo\nundo\nshowboard\nloadsgf {}\n",
            file.display(),
            bad.display()
        ),
    );
    let to_move = |i: usize| r[i].contains("white to move");
    assert!(to_move(1), "{}", r[1]);
    assert!(!to_move(3), "{}", r[3]);
    assert!(to_move(5), "{}", r[5]);
    // Taken back past the file's position, the counts decide again.
    assert!(!to_move(8), "{}", r[8]);
    assert!(
        r[9].starts_with("? ") && r[9].contains("PL[B] and PL[W]"),
        "{}",
        r[9]
    );
}

#[test]
fn solver_and_resistance_players() {
    let dir = tempfile::tempdir().unwrap();
    // 5x5 is a first-player win the solver proves within its time: as Black
    // it must win whatever White does.
    for opponent in ["resistance", "random", "mcts(sims=200)"] {
        let out = ok(&darkhex(
            dir.path(),
            &[
                "play",
                "hex(board_size=5)",
                "--p0",
                "solver(time=5)",
                "--p1",
                opponent,
            ],
        ));
        assert!(out.contains("x wins"), "{opponent}: {out}");
    }
    for (spec, says) in [
        ("solver(time=-1)", "accepted are seconds"),
        ("solver(depth=3)", "depth"),
        ("resistance(x=1)", "x"),
    ] {
        let o = darkhex(
            dir.path(),
            &["play", "hex(board_size=5)", "--p0", spec, "--p1", "random"],
        );
        assert!(!o.status.success(), "{spec}");
        assert!(stderr(&o).contains(says), "{spec}: {}", stderr(&o));
    }
    let o = darkhex(
        dir.path(),
        &[
            "play",
            "dark_hex(num_rows=2,num_cols=2)",
            "--p0",
            "resistance",
            "--p1",
            "random",
        ],
    );
    assert!(stderr(&o).contains("plays Hex and Rex"), "{}", stderr(&o));
}

#[test]
fn six_by_six_replies_to_a1_agree_with_benzene() {
    // Benzene's wolve, `play b a1` then `dfpn-solver-find-winning white`,
    // answers b2 d2 e2 c3 d3 c4 d5 (measured on this project's machine).
    let dir = tempfile::tempdir().unwrap();
    let v = json(&darkhex(
        dir.path(),
        &[
            "solve",
            "hex(board_size=6)",
            "--moves",
            "a1",
            "--all-moves",
            "--json",
        ],
    ));
    assert_eq!(v["winner"], 1);
    let got: Vec<&str> = v["winning_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(got, ["b2", "d2", "e2", "c3", "d3", "c4", "d5"]);
}

#[test]
fn genmove_opens_as_the_player_of_its_evaluation_does() {
    // With no time to prove a win, genmove plays the move of the player
    // with its evaluation: the same candidates, the same scores. A move and
    // its image by the 180-degree turn score the same; genmove takes the
    // first such cell (or its own draw), the player one by its seed. Unless
    // told, genmove's evaluation on Hex is network(eval=ek,k=2).
    let cases: [(&[&str], &str); 2] = [
        (
            &["--move-time", "0.001", "--eval", "resistance"],
            "resistance",
        ),
        (&["--move-time", "0.001"], "network(eval=ek,k=2)"),
    ];
    for ((args, spec), size) in cases
        .into_iter()
        .flat_map(|case| [8, 9].map(|size| (case, size)))
    {
        let r = gtp(args, &format!("boardsize {size}\ngenmove b\nquit\n"));
        let dims = Dims::new("hex", size, size).unwrap();
        let genmove = r[1].strip_prefix("= ").unwrap();
        let genmove = dims.parse_cell(genmove).unwrap();
        let game = darkhex_games::load_game(&format!("hex(board_size={size})")).unwrap();
        let legal: Vec<darkhex_games::Action> =
            (0..dims.cells() as darkhex_games::Action).collect();
        for seed in [1, 2] {
            let mut player = darkhex_players::prepare(spec, &game)
                .unwrap()
                .create(0, seed);
            let view = darkhex_players::PlayerView {
                seat: 0,
                info_key: &[],
                legal: &legal,
            };
            let played = player.act(&view).unwrap() as usize;
            assert!(
                played == genmove || played == dims.rotate180(genmove),
                "{size}x{size} {spec}: genmove {} and the player {}",
                dims.cell_name(genmove),
                dims.cell_name(played)
            );
        }
    }
}

/// Before, the limit held for each cell of find-winning alone (81 s on an
/// empty 9x9 board with `timelimit 1`) and an unproved answer was an empty
/// list, which says that no move wins. `undo` with nothing to undo fails,
/// as the GTP specification says.
#[test]
fn gtp_keeps_one_time_limit_per_command_and_says_when_nothing_was_proved() {
    let start = std::time::Instant::now();
    let r = gtp(
        &["--threads", "1"],
        "boardsize 9\nparam_dfpn timelimit 1\ndfpn-solver-find-winning black\n\
         dfpn-solve-state black\nundo\nplay b e5\nundo\nundo\nundo 1\nquit\n",
    );
    // A generous bound on a loaded machine, far below one second per cell.
    assert!(start.elapsed().as_secs() < 40, "{:?}", start.elapsed());
    assert!(
        r[2].starts_with("? no winning move proved within the time limit of 1 s"),
        "{}",
        r[2]
    );
    // Benzene's answer for a search that ran out of time.
    assert_eq!(r[3], "= empty");
    assert_eq!(r[4], "? cannot undo: no move has been played");
    assert_eq!(r[5..7], ["= ", "= "]);
    assert_eq!(r[7], "? cannot undo: no move has been played");
    assert!(r[8].starts_with("? undo takes no arguments"), "{}", r[8]);
}

/// The GTP engine and `darkhex solve --json` answer the same on the same
/// positions: the winner and every winning move, Hex and Rex.
#[test]
fn gtp_answers_equal_solve_json() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let dir = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for (game, name, size, stones) in [
        ("hex", "hex(board_size=4)", 4, 3),
        ("hex", "hex(board_size=5)", 5, 6),
        ("hex", "hex(num_rows=3,num_cols=5)", 0, 4),
        ("rex", "rex(board_size=4)", 4, 5),
    ] {
        let dims = match size {
            0 => Dims::new(game, 3, 5).unwrap(),
            n => Dims::new(game, n, n).unwrap(),
        };
        let geom: Geometry<1> = Geometry::new(dims).unwrap();
        let mut script = format!("boardsize {} {}\n", dims.cols(), dims.rows());
        let mut asked = Vec::new();
        let mut commands = 1;
        for _ in 0..3 {
            let position = random_position(&geom, stones, &mut rng);
            let to_move = rng.random_range(0..2usize);
            let colour = ["black", "white"][to_move];
            script += "clear_board\n";
            commands += 1;
            for (p, c) in [(0, "b"), (1, "w")] {
                for cell in names(dims, position[p]) {
                    script += &format!("play {c} {cell}\n");
                    commands += 1;
                }
            }
            script += &format!("dfpn-solve-state {colour}\ndfpn-solver-find-winning {colour}\n");
            commands += 2;
            asked.push((commands - 2, position, to_move));
        }
        let r = gtp(&["--game", name, "--threads", "1"], &script);
        assert_eq!(r.len(), commands, "{r:#?}");
        for (i, position, to_move) in asked {
            let mut args: Vec<String> = vec![
                "solve".into(),
                name.into(),
                "--to-move".into(),
                to_move.to_string(),
                "--all-moves".into(),
                "--json".into(),
                "--threads".into(),
                "1".into(),
            ];
            for (p, flag) in [(0, "--black"), (1, "--white")] {
                if !position[p].is_empty() {
                    args.push(flag.into());
                    args.push(names(dims, position[p]).join(","));
                }
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let v = json(&darkhex(dir.path(), &args));
            let winner = ["black", "white"][v["winner"].as_u64().unwrap() as usize];
            assert_eq!(r[i], format!("= {winner}"), "{name} {args:?}");
            let mut by_gtp: Vec<&str> = r[i + 1]
                .trim_start_matches('=')
                .split_whitespace()
                .collect();
            by_gtp.sort();
            let mut by_solve: Vec<&str> = v["winning_moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect();
            by_solve.sort();
            assert_eq!(by_gtp, by_solve, "{name} {args:?}");
            compared += 1;
        }
    }
    assert_eq!(compared, 12);
}

/// `solve --json` twice, on one thread and on two: the same answer, byte
/// for byte once the timings and the work counts (which depend on how the
/// threads met) are taken out. A single search proves one winning move,
/// which may differ with threads; `--all-moves` reports the first.
#[test]
fn two_solves_give_the_same_json_on_one_or_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let solve = |game: &str, extra: &[&str], threads: &str| {
        let mut args = vec!["solve", game, "--json", "--threads", threads];
        args.extend(extra);
        let mut v = json(&darkhex(dir.path(), &args));
        strip_work(&mut v);
        v
    };
    for (game, extra) in [
        (
            "hex(board_size=5)",
            &["--moves", "c3,b4", "--all-moves"][..],
        ),
        ("hex(board_size=4)", &["--openings"][..]),
        ("rex(board_size=4)", &["--all-moves"][..]),
    ] {
        let first = serde_json::to_string(&solve(game, extra, "1")).unwrap();
        for threads in ["1", "2", "2"] {
            let again = serde_json::to_string(&solve(game, extra, threads)).unwrap();
            assert_eq!(again, first, "{game} {extra:?} on {threads} threads");
        }
    }
    let one = solve("hex(board_size=7)", &["--moves", "d4,c5"], "1");
    for threads in ["1", "2", "2"] {
        let mut v = solve("hex(board_size=7)", &["--moves", "d4,c5"], threads);
        let found = v["winning_move"].take();
        let after = format!("d4,c5,{}", found.as_str().unwrap());
        let reply = solve("hex(board_size=7)", &["--moves", &after], "1");
        assert_eq!(reply["winner"], 0, "{found} on {threads} threads");
        let mut same = one.clone();
        same.as_object_mut().unwrap().remove("winning_move");
        v.as_object_mut().unwrap().remove("winning_move");
        assert_eq!(v, same);
    }
}

/// Removes what depends on time and on how threads met: seconds, counts of
/// positions, the table's use and the thread count itself.
fn strip_work(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            for key in ["seconds", "expansions", "threads", "table"] {
                map.remove(key);
            }
            for value in map.values_mut() {
                strip_work(value);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_work),
        _ => {}
    }
}

#[test]
fn rex_rules_switch_off_by_name_and_keep_the_value() {
    // Black's d1 wins 4x4 Rex (the only opening Hayward, Toft and
    // Henderson left to Solrex); each rule off changes no value.
    let dir = tempfile::tempdir().unwrap();
    // Solrex's augmented H-search is off by default; --with switches it on.
    let switches = darkhex_rex_rule_names()
        .into_iter()
        .map(|name| ("--without", name))
        .chain([("--with", "captured-overlap")]);
    for (switch, name) in switches {
        let v = json(&darkhex(
            dir.path(),
            &[
                "solve",
                "rex(board_size=4)",
                "--moves",
                "d1",
                switch,
                name,
                "--threads",
                "1",
                "--json",
            ],
        ));
        assert_eq!(v["winner"], 0, "{switch} {name}");
    }
    for (game, err) in [
        ("rex(board_size=4)", "unknown Rex rule 'pairings' in --with"),
        ("hex(board_size=4)", "unknown Hex rule 'pairings' in --with"),
    ] {
        let o = darkhex(dir.path(), &["solve", game, "--with", "pairings"]);
        assert!(!o.status.success());
        assert!(stderr(&o).contains(err), "{}", stderr(&o));
    }
    let o = darkhex(
        dir.path(),
        &["solve", "rex(board_size=4)", "--without", "connections"],
    );
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("unknown Rex rule 'connections'") && err.contains("pairings"),
        "{err}"
    );
}

#[test]
fn the_search_focus_is_a_setting_and_keeps_the_value() {
    // 5x5 Rex after 1.a1 2.b2, searched with Hex's focus and with Rex's
    // (the default): White's b2 wins (Solrex's 5x5 suite).
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    for focus in [&["--epsilon", "0.25", "--widening", "1,0.25"][..], &[]] {
        let mut argv = vec![
            "solve",
            "rex(board_size=5)",
            "--moves",
            "a1,b2",
            "--threads",
            "1",
            "--json",
        ];
        argv.extend_from_slice(focus);
        let v = json(&darkhex(dir.path(), &argv));
        assert_eq!(v["winner"], 1, "{focus:?}");
        seen.push(v["expansions"].as_u64().unwrap());
    }
    // The two focuses search differently (else the setting did nothing).
    assert_ne!(seen[0], seen[1]);
    for (flag, value, err) in [
        ("--widening", "0,0.25", "BASE 0 is out of range"),
        ("--widening", "2", "'2' is not BASE,FACTOR"),
        ("--widening", "2,1.5", "FACTOR 1.5 is out of range"),
        ("--epsilon", "-1", "-1 is out of range"),
    ] {
        let o = darkhex(dir.path(), &["solve", "rex(board_size=4)", flag, value]);
        assert!(!o.status.success(), "{flag} {value}");
        assert!(stderr(&o).contains(err), "{flag} {value}: {}", stderr(&o));
    }
}

#[test]
fn a_table_too_small_for_the_search_replaces_positions_and_keeps_every_value() {
    // Every White reply to 5x5 Rex's 1.a1 (Solrex's suite): all win but
    // d2, c3 and b4. A 1 MB table holds a quarter of the positions the
    // search meets, so it must replace and meet some again.
    let dir = tempfile::tempdir().unwrap();
    let solve = |extra: &[&str]| {
        let mut argv = vec![
            "solve",
            "rex(board_size=5)",
            "--moves",
            "a1",
            "--all-moves",
            "--threads",
            "1",
            "--json",
        ];
        argv.extend_from_slice(extra);
        json(&darkhex(dir.path(), &argv))
    };
    let small = solve(&["--tt-mb", "1"]);
    let large = solve(&[]);
    assert_eq!(small["moves"], large["moves"]);
    let losing: Vec<&str> = large["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["wins"] == false)
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(losing, ["d2", "c3", "b4"]);
    let table = |v: &serde_json::Value, k: &str| v["table"][k].as_u64().unwrap();
    assert!(table(&small, "replaced") > 0);
    assert!(table(&small, "used") <= table(&small, "slots"));
    assert_eq!(table(&large, "replaced"), 0);
    assert!(table(&large, "used") > table(&small, "slots"));
    // A search stopped unproved with a full table says what would help.
    let o = darkhex(
        dir.path(),
        &[
            "solve",
            "rex(board_size=6)",
            "--moves",
            "e3",
            "--threads",
            "1",
            "--tt-mb",
            "1",
            "--time-limit",
            "5",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("positions were pushed out of full buckets of the table")
            && stderr(&o)
                .contains("a larger --tt-mb than 1 keeps more of them and may solve sooner"),
        "{}",
        stderr(&o)
    );
}

/// `--all-moves` under a time limit too short for some moves: the moves
/// left undecided are named as such, in the text and the JSON, and the
/// solve is not called complete. The position: Black's column e lacks
/// only e5, so Black to move wins at once, but a move elsewhere lets White
/// cut there and leaves a position to search.
#[test]
fn moves_and_openings_left_undecided_are_named_and_not_complete() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "solve",
        "hex(board_size=9)",
        "--black",
        "e1,e2,e3,e4,e6,e7,e8,e9",
        "--white",
        "d5,f5",
        "--to-move",
        "0",
        "--all-moves",
        "--time-limit",
        "0.001",
        "--threads",
        "1",
    ];
    let v = json(&darkhex(dir.path(), &[&args[..], &["--json"]].concat()));
    assert_eq!(v["winner"], 0);
    assert_eq!(v["complete"], false);
    let names = |k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect()
    };
    let (winning, undecided) = (names("winning_moves"), names("undecided_moves"));
    assert!(!undecided.is_empty() && winning.contains(&"e5".to_string()));
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 81 - 10);
    for m in moves {
        let name = m["move"].as_str().unwrap().to_string();
        assert_eq!(m["wins"].is_null(), undecided.contains(&name), "{m}");
        assert_eq!(m["wins"] == true, winning.contains(&name), "{m}");
    }
    let out = ok(&darkhex(dir.path(), &args));
    let line = format!(
        "winning moves    {} proved winning: {}; {} undecided: {}",
        winning.len(),
        winning.join(", "),
        undecided.len(),
        undecided.join(", ")
    );
    assert!(out.contains(&line), "{out}");
    assert!(
        out.contains("? undecided: its search reached the time limit first"),
        "{out}"
    );
    // Openings: the same words, and `?` on the board explained.
    let args = [
        "solve",
        "hex(board_size=6)",
        "--openings",
        "--time-limit",
        "0.001",
        "--threads",
        "1",
    ];
    let v = json(&darkhex(dir.path(), &[&args[..], &["--json"]].concat()));
    assert_eq!(v["complete"], false);
    let undecided: Vec<&str> = v["openings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["black_wins"].is_null())
        .map(|o| o["opening"].as_str().unwrap())
        .collect();
    assert!(!undecided.is_empty());
    assert_eq!(v["undecided"], serde_json::json!(undecided));
    let out = ok(&darkhex(dir.path(), &args));
    assert!(out.contains("?: undecided (its search reached the time limit or was stopped)"));
    assert!(out.contains("undecided        "), "{out}");
    assert!(out.contains(": Black undecided, "), "{out}");
}

/// A complete solve says so: every move decided, no undecided one.
#[test]
fn a_complete_all_moves_solve_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let v = json(&darkhex(
        dir.path(),
        &[
            "solve",
            "hex(board_size=4)",
            "--moves",
            "b2",
            "--all-moves",
            "--threads",
            "1",
            "--json",
        ],
    ));
    assert_eq!(v["complete"], true);
    assert_eq!(v["undecided_moves"], serde_json::json!([]));
    assert!(
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["wins"].is_boolean())
    );
}

/// The network move orders are Hex's: Rex refuses them saying so, not
/// as unknown names.
#[test]
fn network_orders_are_refused_on_rex_as_hex_only() {
    let dir = tempfile::tempdir().unwrap();
    let o = darkhex(
        dir.path(),
        &["solve", "rex(board_size=4)", "--order", "network-k1"],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(
            "--order network-k1 is for Hex only (the position networks are Hex's); Rex accepts --order resistance"
        ),
        "{}",
        stderr(&o)
    );
    let o = darkhex(dir.path(), &["solve", "hex(board_size=4)", "--order", "k1"]);
    assert!(
        stderr(&o)
            .contains("unknown --order 'k1': accepted are resistance, and for Hex network-k0"),
        "{}",
        stderr(&o)
    );
}

fn darkhex_rex_rule_names() -> [&'static str; 11] {
    [
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
    ]
}

#[test]
fn gtp_solves_rex_and_boardsize_changes_the_board() {
    // 4x4 Rex: the acute corner wins for Black, so White has no winning
    // reply; 5x5: every opening loses, a1 included (Solrex).
    let replies = gtp(
        &["--game", "rex(board_size=4)", "--threads", "1"],
        "play b a1\ndfpn-solver-find-winning w\nboardsize 5\nplay b a1\ndfpn-solve-state w\nvc-get-mustplay w\n",
    );
    let replies: Vec<&str> = replies.iter().map(|r| r.trim_end()).collect();
    assert_eq!(replies, ["=", "=", "=", "=", "= white", "="]);
}
