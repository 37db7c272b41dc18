//! `darkhex play`: replay a move list, or play against the random player.

use std::io::{self, BufReader};

use anyhow::{Context, Result};
use clap::Args;
use darkhex_games::moves::awaited;
use darkhex_games::{Action, AnyGame, AnyState, Game, State, Turn, parse_move};
use darkhex_players::{HumanPlayer, Player, play_game_from, prepare};

use crate::help;
use crate::output::{outln, side_by_side};

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex play 'dark_hex(num_rows=3,num_cols=3)' --seat 1 --seed 7             (you against random)",
    "darkhex play 'hex(board_size=5)' --p0 'mcts(sims=2000)' --p1 random            (watch)",
    "darkhex play 'dark_hex(num_rows=2,num_cols=2)' --moves a1,a1,b2,a2               (replay)",
    "darkhex play kuhn_poker --moves J,Q,bet --p1 lp           (deal J and Q, bet, then lp answers)",
], &[help::PLAYERS, help::GAMES]))]
pub struct PlayArgs {
    /// Game string, e.g. 'dark_hex(num_rows=3,num_cols=3)'
    #[arg(value_parser = crate::parse_game)]
    game: AnyGame,
    /// Start from these moves, comma-separated, each shown as it is played:
    /// cell names (a1,b2) for board games; for poker the cards chance deals,
    /// then actions (kuhn_poker: J,Q,bet,pass; leduc_poker: Js,Kh,raise,call,Qs,...).
    /// If the game is not over after them, it goes on as without --moves
    /// (you against random, or --p0/--p1)
    #[arg(long)]
    moves: Option<String>,
    /// Seed of the random opponent and of chance
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = crate::args::seed)]
    seed: u64,
    /// Your seat when playing the random player: 0 moves first (Black, x), 1 second (White, o)
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = crate::args::whole::<u8>(0, Some(1)))]
    seat: u8,
    /// Player 0 as a spec (random, lp, ismcts(sims=1000), policy(file=P), human, ...);
    /// with only one of --p0/--p1, you play the other seat
    #[arg(long, conflicts_with = "seat")]
    p0: Option<String>,
    /// Player 1 as a spec
    #[arg(long, conflicts_with = "seat")]
    p1: Option<String>,
}

pub fn run(args: PlayArgs) -> Result<()> {
    let start = match &args.moves {
        Some(moves) => {
            let state = replay(&args.game, moves)?;
            if state.current_player() == Turn::Terminal {
                return Ok(());
            }
            let n = state.history().len();
            outln!(
                "not over after {n} move{}: {}; the game goes on",
                if n == 1 { "" } else { "s" },
                awaited(&args.game, &state)
            );
            state
        }
        None => args.game.new_initial_state(),
    };
    let (human, random) = ("human".to_string(), "random".to_string());
    let specs = match (&args.p0, &args.p1) {
        (None, None) if args.seat == 0 => [&human, &random],
        (None, None) => [&random, &human],
        (p0, p1) => [p0.as_ref().unwrap_or(&human), p1.as_ref().unwrap_or(&human)],
    };
    watch(&args.game, start, specs, args.seed)
}

/// "x" / "o" for board games, "player N" otherwise.
pub fn mover_label(game: &AnyGame, turn: Turn) -> String {
    match (turn, game.dims()) {
        (Turn::Player(p), Some(_)) => darkhex_games::board::stone_glyph(p).to_string(),
        (Turn::Player(p), None) => format!("player {p}"),
        (Turn::Chance, _) => "chance".to_string(),
        (Turn::Terminal, _) => "nobody".to_string(),
    }
}

/// "x b2", "o a1 (hit)" for a collision in a dark game, "chance K" for a deal.
pub fn move_line(game: &AnyGame, before: &AnyState, action: Action) -> String {
    let turn = before.current_player();
    let name = if turn == Turn::Chance {
        game.chance_outcome_name(action)
    } else {
        game.action_name(action)
    };
    let hit = match before {
        AnyState::DarkHex(s) if !s.board().is_empty(action as usize) => " (hit)",
        AnyState::PhantomTtt(s) if s.mark(action as usize).is_some() => " (hit)",
        _ => "",
    };
    format!("{} {name}{hit}", mover_label(game, turn))
}

/// The real state and, for dark games, what each player sees.
pub fn render_state(game: &AnyGame, state: &impl State) -> String {
    if game.is_dark_board() {
        side_by_side(&[
            ("real board", state.to_string()),
            ("x (player 0) sees", state.view_string(0)),
            ("o (player 1) sees", state.view_string(1)),
        ])
    } else {
        state.to_string()
    }
}

pub fn outcome_line(game: &AnyGame, state: &impl State) -> String {
    match state.current_player() {
        Turn::Terminal => {
            let r = state.returns();
            let winner = if r[0] > r[1] {
                Some(0)
            } else if r[1] > r[0] {
                Some(1)
            } else {
                None
            };
            match winner {
                Some(w) => format!(
                    "{} wins; returns {} / {}",
                    mover_label(game, Turn::Player(w)),
                    r[0],
                    r[1]
                ),
                None => format!("a tie; returns {} / {}", r[0], r[1]),
            }
        }
        turn => format!("game not over: {} to move", mover_label(game, turn)),
    }
}

/// Plays `moves` (comma-separated, as `--moves` takes them) from the
/// start, showing each, and returns the state they reach; the outcome is
/// shown when the game is over.
pub fn replay(game: &AnyGame, moves: &str) -> Result<AnyState> {
    let mut state = game.new_initial_state();
    for (i, text) in moves.split(',').enumerate() {
        let text = text.trim();
        let number = i + 1;
        let action =
            parse_move(game, &state, text).with_context(|| format!("move {number} ('{text}')"))?;
        let line = move_line(game, &state, action);
        state.apply(action);
        outln!("{number}. {line}");
        outln!("{}", render_state(game, &state));
    }
    if state.current_player() == Turn::Terminal {
        outln!("{}", outcome_line(game, &state));
    }
    Ok(state)
}

/// A player from a spec, or a human at the terminal for `human`.
fn make_player(spec: &str, game: &AnyGame, seat: usize, seed: u64) -> Result<Box<dyn Player>> {
    if spec.trim() == "human" {
        return Ok(Box::new(HumanPlayer::new(
            *game,
            BufReader::new(io::stdin()),
            io::stdout(),
        )));
    }
    let factory = prepare(spec, game)?;
    for note in factory.notes() {
        eprintln!("note: {note}");
    }
    Ok(factory.create(seat, seed))
}

/// Plays one game between two specs from `start`. Without a human at the
/// table every move is shown with the real board; a human sees only their
/// own view until the end.
fn watch(game: &AnyGame, start: AnyState, specs: [&String; 2], seed: u64) -> Result<()> {
    let humans: Vec<usize> = (0..2).filter(|&p| specs[p].trim() == "human").collect();
    let mut players = [
        make_player(specs[0], game, 0, seed.wrapping_add(1))?,
        make_player(specs[1], game, 1, seed.wrapping_add(2))?,
    ];
    for (p, spec) in specs.iter().enumerate() {
        let you = if humans.contains(&p) { " (you)" } else { "" };
        outln!(
            "{} (seat {p}): {spec}{you}",
            mover_label(game, Turn::Player(p))
        );
    }
    let mut state = start.clone();
    let mut lines = Vec::new();
    let mut shown = Ok(());
    let record = play_game_from(start, &mut players, seed, |after, _turn, action| {
        let line = move_line(game, &state, action);
        state = after.clone();
        if humans.is_empty() && shown.is_ok() {
            shown = (|| -> Result<()> {
                outln!("{line}");
                outln!("{}", render_state(game, after));
                Ok(())
            })();
        }
        lines.push(line);
    });
    shown?;
    let record = match record {
        Ok(r) => r,
        // Quitting is what the user asked for, not a failure.
        Err(darkhex_players::PlayerError::Quit) => {
            outln!("\nyou quit the game");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    if !humans.is_empty() {
        outln!("\nmoves: {}", lines.join(", "));
        outln!("{}", render_state(game, &state));
    }
    outln!("{}", outcome_line(game, &state));
    for seat in 0..2 {
        if record.uniform_fallbacks[seat] > 0 {
            outln!(
                "{} played uniformly at {} of its {} decisions: its policy has no entry there",
                mover_label(game, Turn::Player(seat)),
                record.uniform_fallbacks[seat],
                record.decisions[seat]
            );
        }
    }
    Ok(())
}
