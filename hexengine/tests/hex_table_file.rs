//! The solver's table saved when a search stops and loaded by a rerun:
//! the rerun proves what an uninterrupted search proves, with fewer new
//! positions than a search from nothing; files of another board, of Rex
//! for Hex, of other rules, cut short or damaged are refused in one line.

use darkhex_base::memory::MemoryLimit;
use darkhex_games::Geometry;
use darkhex_games::board::Dims;
use darkhex_hexengine::hexsolve::{DfpnParams, HexSolver, Outcome, Position, Rules};

const HEX7: &str = "hex(board_size=7)";

fn geom(n: usize, misere: bool) -> Geometry<1> {
    let kind = if misere { "rex" } else { "hex" };
    Geometry::new(Dims::new(kind, n, n).unwrap()).unwrap()
}

/// 7x7 after a3: White wins with d4, in about 1,400 positions.
fn position(geom: &Geometry<1>) -> Position<1> {
    let a3 = geom.dims().parse_cell("a3").unwrap();
    Position::empty(geom).play(geom, a3)
}

fn params(max_expansions: Option<u64>) -> DfpnParams {
    DfpnParams {
        tt_mb: 64,
        max_expansions,
        ..DfpnParams::default()
    }
}

fn solve(solver: &HexSolver<1>, pos: &Position<1>) -> Outcome {
    solver.solve(pos, &|_| {})
}

fn limit() -> MemoryLimit {
    MemoryLimit::bytes_given(4_000_000_000)
}

#[test]
fn a_search_stopped_and_resumed_from_its_saved_table_proves_the_same_with_less_work() {
    let g = geom(7, false);
    let pos = position(&g);
    let fresh = solve(&HexSolver::new(&g, Rules::hex(), params(None)), &pos);
    assert_eq!(fresh.wins, Some(true));
    let d4 = g.dims().parse_cell("d4").unwrap();
    assert_eq!(fresh.winning_move, Some(d4));
    let total = fresh.stats.expansions;
    assert!(total > 1000, "{total}");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a3.table");
    // Stopped halfway by a budget (as by a time limit or a signal).
    let first = HexSolver::new(&g, Rules::hex(), params(Some(total / 2)));
    let cut = solve(&first, &pos);
    assert_eq!(cut.wins, None);
    let saved = first.save_table(&path, HEX7).unwrap();
    assert!(saved.positions > 0);

    let second = HexSolver::new(&g, Rules::hex(), params(None));
    let loaded = second.load_table(&path, HEX7, limit()).unwrap();
    assert_eq!(loaded, saved);
    let resumed = solve(&second, &pos);
    assert_eq!(
        (resumed.wins, resumed.winning_move),
        (fresh.wins, fresh.winning_move)
    );
    // Measured: 1,367 positions fresh, 683 before the stop and 683 after
    // it (746 after it when the table is saved without the expansions).
    let (before, after) = (cut.stats.expansions, resumed.stats.expansions);
    assert!(
        after < total && after + before >= total / 2,
        "fresh {total}, before the stop {before}, after it {after}"
    );

    // A table saved by the resumed solve decides the position at once.
    second.save_table(&path, HEX7).unwrap();
    let third = HexSolver::new(&g, Rules::hex(), params(None));
    third.load_table(&path, HEX7, limit()).unwrap();
    let again = solve(&third, &pos);
    assert_eq!(again.wins, Some(true));
    assert_eq!(again.stats.expansions, 0);
}

#[test]
fn a_table_of_another_game_rules_or_a_damaged_one_is_refused_in_one_line() {
    let g = geom(5, false);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.table");
    let solver = HexSolver::new(&g, Rules::hex(), params(Some(30)));
    solve(&solver, &Position::empty(&g));
    solver.save_table(&path, "hex(board_size=5)").unwrap();
    let refused = |solver: &HexSolver<1>, game: &str| -> String {
        let e = solver.load_table(&path, game, limit()).unwrap_err();
        let e = e.to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    };

    // Another board.
    let g6 = geom(6, false);
    let six = HexSolver::new(&g6, Rules::hex(), params(None));
    let e = refused(&six, "hex(board_size=6)");
    assert!(
        e.contains("hex(board_size=5) (5x5)") && e.contains("not of hex(board_size=6) (6x6)"),
        "{e}"
    );
    // Rex for Hex: another game (and other rules).
    let r5 = geom(5, true);
    let rex = HexSolver::new(&r5, Rules::for_game(true), params(None));
    let e = refused(&rex, "rex(board_size=5)");
    assert!(e.contains("not of rex(board_size=5)"), "{e}");
    // The same game under other rules: the rule that differs is named.
    let without = Rules {
        proof_sets: false,
        ..Rules::hex()
    };
    let other = HexSolver::new(&g, without, params(None));
    let e = refused(&other, "hex(board_size=5)");
    assert!(
        e.contains("proof_sets: true") && e.contains("proof_sets: false"),
        "{e}"
    );
    // A memory limit the file and the table do not fit in.
    let e = HexSolver::new(&g, Rules::hex(), params(None))
        .load_table(
            &path,
            "hex(board_size=5)",
            MemoryLimit::bytes_given(1_000_000),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("would need about"), "{e}");

    // Cut short, and one byte changed.
    let same = HexSolver::new(&g, Rules::hex(), params(None));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
    let e = refused(&same, "hex(board_size=5)");
    assert!(e.contains("cut short"), "{e}");
    let mut bad = bytes.clone();
    let at = bytes.len() - 20;
    bad[at] ^= 0x01;
    std::fs::write(&path, &bad).unwrap();
    let e = refused(&same, "hex(board_size=5)");
    assert!(e.contains("checksum"), "{e}");
    // Nothing was loaded from the refused files.
    assert!(solve(&same, &Position::empty(&g)).stats.expansions > 0);
}
