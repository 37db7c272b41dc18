//! Property tests over random playouts and exhaustive checks on small games.

use darkhex_games::analysis::{WalkOptions, tree_stats};
use darkhex_games::board::{BLACK, Dims, HexBoard, WHITE};
use darkhex_games::cellset::select_in_word;
use darkhex_games::dark_hex::{Disclosure, GameVersion, ObsType, token};
use darkhex_games::{Action, AnyGame, AnyState, Game, State, Tensors, Token, Turn, load_game};
use proptest::prelude::*;
use std::collections::HashMap;

/// Plays `choices` as indices into the legal actions until the game ends or
/// the choices run out; returns the actions played.
fn playout(game: &AnyGame, choices: &[u16]) -> Vec<Action> {
    let mut state = game.new_initial_state();
    let mut played = Vec::new();
    for &c in choices {
        if state.is_terminal() {
            break;
        }
        let legal = state.legal_actions();
        let a = legal[c as usize % legal.len()];
        state.apply(a);
        played.push(a);
    }
    played
}

fn replay(game: &AnyGame, actions: &[Action]) -> AnyState {
    let mut s = game.new_initial_state();
    for &a in actions {
        s.apply(a);
    }
    s
}

fn dark_game(rows: usize, cols: usize, extra: &str) -> AnyGame {
    load_game(&format!("dark_hex(num_rows={rows},num_cols={cols}{extra})")).unwrap()
}

fn dims_strategy() -> impl Strategy<Value = (usize, usize)> {
    (1usize..=9, 1usize..=9)
}

const DARK_VARIANTS: [&str; 6] = [
    "",
    ",gameversion=adh",
    ",disclosure=noise",
    ",disclosure=flash,gameversion=adh",
    ",obstype=reveal-numturns",
    ",obstype=reveal-numturns,disclosure=flash",
];

proptest! {
    /// `pick_legal_action` counts and indexes the legal actions without
    /// listing them in Dark Hex (boards past 64 cells take two words): it
    /// must name the same action as the list, for every index; and
    /// `legal_mask_into` must set the bits of the list and no other.
    #[test]
    fn a_picked_legal_action_is_the_listed_one_at_its_index(
        (rows, cols) in dims_strategy(),
        variant in 0..DARK_VARIANTS.len() + 3,
        choices in prop::collection::vec(any::<u16>(), 81),
    ) {
        let game = match variant.checked_sub(DARK_VARIANTS.len()) {
            None => dark_game(rows, cols, DARK_VARIANTS[variant]),
            Some(0) => load_game(&format!("hex(num_rows={rows},num_cols={cols})")).unwrap(),
            Some(1) => load_game("leduc_poker").unwrap(),
            Some(_) => load_game("kuhn_poker").unwrap(),
        };
        let mut state = game.new_initial_state();
        let mut buf = Vec::new();
        let words = game.num_distinct_actions().div_ceil(64);
        for (step, &c) in choices.iter().enumerate() {
            let legal = state.legal_actions();
            // Stale bits everywhere: the mask must clear what is not legal.
            let mut mask = vec![u64::MAX; words];
            state.legal_mask_into(&mut buf, &mut mask);
            let mut listed = vec![0u64; words];
            for &a in &legal {
                listed[usize::from(a) / 64] |= 1 << (a % 64);
            }
            prop_assert_eq!(&mask, &listed, "step {}", step);
            for k in 0..legal.len() {
                let mut counted = None;
                let picked = state.pick_legal_action(&mut buf, |n| {
                    counted = Some(n);
                    k
                });
                prop_assert_eq!(counted, Some(legal.len()), "step {}", step);
                prop_assert_eq!(picked, Some(legal[k]), "step {}, index {}", step, k);
            }
            if legal.is_empty() {
                prop_assert_eq!(state.pick_legal_action(&mut buf, |_| 0), None);
                prop_assert!(state.is_terminal());
                break;
            }
            state.apply(legal[c as usize % legal.len()]);
        }
    }

    #[test]
    fn select_in_word_finds_the_bit_the_clearing_loop_finds(x in any::<u64>(), sparse in any::<u64>()) {
        for word in [x, x & sparse, x & sparse & (sparse >> 7), u64::MAX, 1 << (x % 64)] {
            let mut bits = word;
            for k in 0..word.count_ones() {
                prop_assert_eq!(select_in_word(word, k), bits.trailing_zeros(), "{:#x} {}", word, k);
                bits &= bits - 1;
            }
        }
    }

    #[test]
    fn a_full_board_has_exactly_one_player_joined(
        (rows, cols) in dims_strategy(),
        colours in prop::collection::vec(any::<bool>(), 81),
        order in Just(()).prop_perturb(|_, mut rng| (0..81u32).map(|_| rng.random::<u32>()).collect::<Vec<_>>()),
    ) {
        let d = Dims::new("hex", rows, cols).unwrap();
        let mut cells: Vec<usize> = (0..d.cells()).collect();
        cells.sort_by_key(|&c| order[c]);
        let mut board = HexBoard::new(d);
        let mut joined = [false; 2];
        for c in cells {
            let p = if colours[c] { BLACK } else { WHITE };
            joined[p] |= board.place(c, p);
        }
        let by_search = [board.connected_by_search(BLACK), board.connected_by_search(WHITE)];
        prop_assert_eq!(joined, by_search);
        prop_assert!(by_search[0] ^ by_search[1], "{} {:?}", board.render(), by_search);
    }

    #[test]
    fn the_incremental_winner_equals_a_search_on_every_prefix(
        (rows, cols) in dims_strategy(),
        choices in prop::collection::vec(any::<u16>(), 81),
    ) {
        let game = load_game(&format!("hex(num_rows={rows},num_cols={cols})")).unwrap();
        let actions = playout(&game, &choices);
        let mut state = game.new_initial_state();
        for &a in &actions {
            state.apply(a);
            let AnyState::Hex(s) = &state else { unreachable!() };
            let b = s.board();
            let oracle = match (b.connected_by_search(BLACK), b.connected_by_search(WHITE)) {
                (true, false) => Some(BLACK),
                (false, true) => Some(WHITE),
                (false, false) => None,
                (true, true) => panic!("both players joined"),
            };
            prop_assert_eq!(s.winner(), oracle);
        }
        prop_assert!(state.is_terminal(), "a hex game ends before the board is full");
    }

    /// The legal moves, their checks and the tensors' board planes are
    /// kept apart from the board (a bit set of seen cells, the players'
    /// logs); each must say what the board itself says a player sees.
    #[test]
    fn what_a_dark_hex_player_may_play_and_sees_is_the_board(
        (rows, cols) in dims_strategy(),
        variant in 0..DARK_VARIANTS.len(),
        choices in prop::collection::vec(any::<u16>(), 162),
    ) {
        let game = dark_game(rows, cols, DARK_VARIANTS[variant]);
        let n = rows * cols;
        let mut state = game.new_initial_state();
        for &choice in &choices {
            let AnyState::DarkHex(s) = &state else { unreachable!() };
            for p in 0..2 {
                let mut tensor = vec![0.0; game.information_state_tensor_size()];
                game.information_state_tensor(&state, p, &mut tensor);
                for c in 0..n {
                    let plane = s.view(p, c).map_or(0, |owner| owner + 1);
                    for k in 0..3 {
                        prop_assert_eq!(tensor[k * n + c], f32::from(k == plane), "player {} cell {} plane {}", p, c, k);
                    }
                }
            }
            if state.is_terminal() {
                break;
            }
            let Turn::Player(p) = state.current_player() else { unreachable!() };
            let unseen: Vec<Action> = (0..n).filter(|&c| s.view(p, c).is_none()).map(|c| c as Action).collect();
            prop_assert_eq!(state.legal_actions(), unseen.clone());
            for c in 0..n as Action {
                prop_assert_eq!(state.check_action(c).is_ok(), unseen.contains(&c));
            }
            state.apply(unseen[choice as usize % unseen.len()]);
        }
    }

    #[test]
    fn would_join_foretells_place_on_every_empty_cell(
        (rows, cols) in dims_strategy(),
        choices in prop::collection::vec(any::<u16>(), 81),
    ) {
        let game = load_game(&format!("hex(num_rows={rows},num_cols={cols})")).unwrap();
        let mut state = game.new_initial_state();
        for a in playout(&game, &choices) {
            let AnyState::Hex(s) = &state else { unreachable!() };
            let b = s.board();
            for cell in (0..b.dims().cells()).filter(|&c| b.is_empty(c)) {
                for player in [BLACK, WHITE] {
                    let mut placed = b.clone();
                    prop_assert_eq!(b.would_join(cell, player), placed.place(cell, player));
                }
            }
            state.apply(a);
        }
    }

    #[test]
    fn rex_and_dark_rex_swap_the_winner(
        (rows, cols) in (1usize..=6, 1usize..=6),
        variant in 0usize..DARK_VARIANTS.len(),
        choices in prop::collection::vec(any::<u16>(), 80),
    ) {
        let v = DARK_VARIANTS[variant];
        let pairs = [
            (format!("hex(num_rows={rows},num_cols={cols})"), format!("rex(num_rows={rows},num_cols={cols})")),
            (format!("dark_hex(num_rows={rows},num_cols={cols}{v})"), format!("dark_rex(num_rows={rows},num_cols={cols}{v})")),
        ];
        for (plain, misere) in pairs {
            let (g, m) = (load_game(&plain).unwrap(), load_game(&misere).unwrap());
            let actions = playout(&g, &choices);
            let (sg, sm) = (replay(&g, &actions), replay(&m, &actions));
            prop_assert!(sg.is_terminal());
            prop_assert!(sm.is_terminal(), "{misere} ended at a different move");
            let (rg, rm) = (sg.returns(), sm.returns());
            prop_assert_eq!(rg[0], -rm[0]);
            prop_assert_eq!(rg[1], -rm[1]);
            prop_assert!(rg[0] != 0.0);
        }
    }

    #[test]
    fn disclosure_tells_the_owner_of_a_stone_what_it_promises(
        (rows, cols) in (2usize..=5, 2usize..=5),
        abrupt in any::<bool>(),
        choices in prop::collection::vec(any::<u16>(), 60),
    ) {
        let version = if abrupt { ",gameversion=adh" } else { "" };
        let none = dark_game(rows, cols, version);
        let noise = dark_game(rows, cols, &format!("{version},disclosure=noise"));
        let flash = dark_game(rows, cols, &format!("{version},disclosure=flash"));
        let actions = playout(&none, &choices);
        let mut states = [none.new_initial_state(), noise.new_initial_state(), flash.new_initial_state()];
        for &a in &actions {
            let mover = states[0].current_player().player().unwrap();
            let opp = 1 - mover;
            let AnyState::DarkHex(s) = &states[0] else { unreachable!() };
            let collision = !s.board().is_empty(a as usize);
            let before: Vec<[usize; 2]> =
                states.iter().map(|s| [s.info_key(0).len(), s.info_key(1).len()]).collect();
            for s in &mut states {
                s.apply(a);
            }
            let news_of = |i: usize, p: usize| -> Vec<Token> { states[i].info_key(p)[before[i][p]..].to_vec() };
            // The mover learns the same thing whatever the disclosure.
            prop_assert_eq!(news_of(0, mover), news_of(1, mover));
            prop_assert_eq!(news_of(0, mover), news_of(2, mover));
            let news = |i: usize| news_of(i, opp);
            prop_assert_eq!(news(0), Vec::<Token>::new());
            if collision {
                prop_assert_eq!(news(1), vec![token::NOISE]);
                prop_assert_eq!(news(2), vec![token::FLASH | a]);
            } else {
                prop_assert_eq!(news(1), Vec::<Token>::new());
                prop_assert_eq!(news(2), Vec::<Token>::new());
            }
        }
    }

    #[test]
    fn histories_sharing_an_information_state_share_legal_actions(
        (rows, cols) in (2usize..=4, 2usize..=4),
        variant in 0usize..DARK_VARIANTS.len(),
        games in prop::collection::vec(prop::collection::vec(any::<u16>(), 32), 40),
    ) {
        let game = dark_game(rows, cols, DARK_VARIANTS[variant]);
        let mut seen: HashMap<(usize, Vec<Token>), Vec<Action>> = HashMap::new();
        for choices in &games {
            let mut state = game.new_initial_state();
            for &c in choices {
                let Turn::Player(p) = state.current_player() else { break };
                let legal = state.legal_actions();
                let known = seen.entry((p, state.info_key(p).to_vec())).or_insert_with(|| legal.clone());
                prop_assert_eq!(&*known, &legal);
                state.apply(legal[c as usize % legal.len()]);
            }
        }
    }
}

#[test]
fn collisions_follow_the_game_version() {
    let cdh = dark_game(2, 2, "");
    let adh = dark_game(2, 2, ",gameversion=adh");
    for (game, mover_after) in [(cdh, 1), (adh, 0)] {
        let mut s = game.new_initial_state();
        s.apply(0); // x a1
        s.apply(0); // o hits a1
        assert_eq!(s.current_player(), Turn::Player(mover_after), "{game}");
        assert_eq!(s.info_key(1), &[token::COLLIDED]);
        assert!(
            s.check_action(0).is_err(),
            "a revealed stone is not a legal target"
        );
    }
}

#[test]
fn every_small_game_has_perfect_recall() {
    let mut names = vec!["kuhn_poker".to_string(), "leduc_poker".to_string()];
    for (r, c) in [(1, 1), (1, 2), (2, 1), (1, 3), (2, 2), (2, 3), (3, 2)] {
        for base in ["hex", "rex"] {
            names.push(format!("{base}(num_rows={r},num_cols={c})"));
        }
        for base in ["dark_hex", "dark_rex"] {
            for version in GameVersion::NAMES {
                for obs in ObsType::NAMES {
                    for disclosure in Disclosure::NAMES {
                        names.push(format!(
                            "{base}(num_rows={r},num_cols={c},gameversion={version},obstype={obs},disclosure={disclosure})"
                        ));
                    }
                }
            }
        }
    }
    for name in names {
        let game = load_game(&name).unwrap();
        let stats = tree_stats(&game, &WalkOptions::default()).unwrap();
        assert!(
            stats.perfect_recall(),
            "{name}: {:?}",
            stats.recall_violation
        );
        assert!(stats.terminals > 0, "{name}");
        assert!(stats.max_depth <= game.max_game_length(), "{name}");
    }
}

#[test]
fn disclosure_refines_information_states() {
    // The tree is the same; what the owner of a stone learns splits states.
    let base = "dark_hex(num_rows=2,num_cols=3";
    let stats = |extra: &str| {
        tree_stats(
            &load_game(&format!("{base}{extra})")).unwrap(),
            &WalkOptions::default(),
        )
        .unwrap()
    };
    let (none, noise, flash) = (
        stats(""),
        stats(",disclosure=noise"),
        stats(",disclosure=flash"),
    );
    assert_eq!(none.histories, noise.histories);
    assert_eq!(none.histories, flash.histories);
    for p in 0..2 {
        assert!(none.infosets[p] < noise.infosets[p], "{p}");
        assert!(noise.infosets[p] < flash.infosets[p], "{p}");
    }
}

#[test]
fn a_one_row_board_is_won_by_blacks_first_stone() {
    // Every cell of a 1 x n board touches both of Black's sides.
    let game = load_game("hex(num_rows=1,num_cols=4)").unwrap();
    let mut s = game.new_initial_state();
    s.apply(2);
    assert_eq!(s.returns(), [1.0, -1.0]);
    let rex = load_game("dark_rex(num_rows=1,num_cols=4)").unwrap();
    let mut s = rex.new_initial_state();
    s.apply(2);
    assert_eq!(s.returns(), [-1.0, 1.0]);
}

/// Every decision point of every game: the legal actions worked out from the
/// mover's information state alone are the state's legal actions, and a
/// state of the other player is never taken for one of the mover's.
#[test]
fn information_states_alone_give_the_legal_actions() {
    use darkhex_games::analysis::{NodeView, TreeVisitor, walk};
    struct Check<'g>(&'g AnyGame, usize);
    impl TreeVisitor<AnyState> for Check<'_> {
        type Node = ();
        fn visit(&mut self, node: &NodeView<AnyState>, _: Option<((), usize)>) {
            if let Turn::Player(p) = node.turn {
                let key = node.state.info_key(p);
                assert_eq!(
                    self.0.info_state_actions(p, key).as_deref(),
                    Ok(node.actions),
                    "{} player {p} at {key:?}",
                    self.0
                );
                self.1 += 1;
            }
        }
    }
    let mut games: Vec<String> = [
        "kuhn_poker",
        "leduc_poker",
        "hex(num_rows=2,num_cols=3)",
        "rex(board_size=3)",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for v in DARK_VARIANTS {
        games.push(format!("dark_hex(num_rows=2,num_cols=2{v})"));
        games.push(format!("dark_rex(num_rows=2,num_cols=3{v})"));
    }
    for name in games {
        let game = load_game(&name).unwrap();
        let mut check = Check(&game, 0);
        walk(&game, &WalkOptions::default(), &mut check).unwrap();
        assert!(check.1 > 10, "{name}");
    }
    // Keys no history shows are refused.
    let kuhn = load_game("kuhn_poker").unwrap();
    assert!(kuhn.info_state_actions(0, &[]).is_err());
    assert!(
        kuhn.info_state_actions(1, &[0x100]).is_err(),
        "player 1 does not move first"
    );
    assert!(kuhn.info_state_actions(0, &[0x100, 7]).is_err());
    let dark = dark_game(2, 2, "");
    assert!(
        dark.info_state_actions(0, &[token::PLACED, token::PLACED])
            .is_err()
    );
    assert!(dark.info_state_actions(0, &[token::NOISE]).is_err());
    assert!(dark.info_state_actions(0, &[token::PLACED | 9]).is_err());
}
