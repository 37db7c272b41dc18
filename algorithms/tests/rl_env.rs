//! The vector environment: its steps are the State API's, a seed gives
//! the same games with one thread or two, and a snapshot restores the
//! games and streams under way exactly.

use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::rl::pool::with_threads;
use darkhex_algorithms::rl::vector_env::{EnvError, VectorEnv};
use darkhex_games::{Game, State, Tensors, load_game};

/// Every step's observations, rewards and done flags, `steps` steps of
/// random legal actions.
fn trace(env: &mut VectorEnv, steps: usize) -> Vec<(Vec<u32>, Vec<f32>, Vec<bool>)> {
    (0..steps)
        .map(|_| {
            let actions = env.sample_legal_actions();
            let s = env.step(&actions).unwrap();
            let bits = s.observations.iter().map(|x| x.to_bits()).collect();
            (bits, s.rewards, s.dones)
        })
        .collect()
}

#[test]
fn a_seed_plays_the_same_games_with_one_thread_or_two() {
    for name in [
        "leduc_poker",
        "dark_hex(num_rows=3,num_cols=3,gameversion=adh)",
    ] {
        let game = load_game(name).unwrap();
        // Past the games a task takes, so two threads split them.
        let run = |threads| {
            with_threads(threads, || {
                let mut env = VectorEnv::new(game, 300, 9, MemoryLimit::new(None)).unwrap();
                trace(&mut env, 40)
            })
        };
        let one = run(1);
        assert_eq!(one, run(2), "{name}");
        assert!(
            one.iter().any(|(_, _, dones)| dones.iter().any(|&d| d)),
            "{name}"
        );
    }
}

/// The observations are the tensors of the State API's players to move,
/// the rewards its returns, and finished games start again.
#[test]
fn steps_are_the_state_apis() {
    let game = load_game("dark_hex(num_rows=2,num_cols=3)").unwrap();
    let mut env = VectorEnv::new(game, 5, 3, MemoryLimit::new(None)).unwrap();
    let mut games = 0;
    for _ in 0..60 {
        let before: Vec<_> = env.states().to_vec();
        let actions = env.sample_legal_actions();
        let step = env.step(&actions).unwrap();
        for (i, state) in before.iter().enumerate() {
            let mut next = state.clone();
            next.apply(actions[i] as u16);
            let size = game.information_state_tensor_size();
            let row = &step.observations[i * size..][..size];
            if next.is_terminal() {
                games += 1;
                assert!(step.dones[i]);
                let r = next.returns();
                assert_eq!(step.rewards[2 * i..2 * i + 2], [r[0] as f32, r[1] as f32]);
                next = game.new_initial_state();
            } else {
                assert!(!step.dones[i] && step.rewards[2 * i..2 * i + 2] == [0.0, 0.0]);
            }
            assert_eq!(env.states()[i].history(), next.history());
            let mut want = vec![0.0; size];
            let p = next.current_player().player().unwrap();
            game.information_state_tensor(&next, p, &mut want);
            assert_eq!(row, &want[..]);
            let mask = env.legal_actions_mask();
            let legal: Vec<u16> = (0..game.num_distinct_actions() as u16)
                .filter(|&a| mask[i * game.num_distinct_actions() + a as usize])
                .collect();
            assert_eq!(legal, next.legal_actions());
        }
    }
    assert!(games > 10, "{games} games ended");
}

#[test]
fn a_snapshot_restores_the_games_under_way_and_their_streams() {
    let game = load_game("leduc_poker").unwrap();
    let mut env = VectorEnv::new(game, 7, 4, MemoryLimit::new(None)).unwrap();
    trace(&mut env, 5);
    let snapshot = env.snapshot();
    let after = trace(&mut env, 30);
    let mut other = VectorEnv::new(game, 7, 99, MemoryLimit::new(None)).unwrap();
    other.restore(&snapshot).unwrap();
    assert_eq!(trace(&mut other, 30), after);
    // A history that is not one of the game's, or too few games, is refused.
    let mut bad = snapshot.clone();
    bad.histories[2] = vec![0, 0];
    let e = other.restore(&bad).unwrap_err();
    assert!(matches!(e, EnvError::BadSnapshot(_)), "{e}");
    assert!(e.to_string().contains("game 2"), "{e}");
    bad = snapshot;
    bad.chance.pop();
    assert!(other.restore(&bad).is_err());
}

#[test]
fn illegal_actions_and_oversized_environments_are_refused() {
    let game = load_game("dark_hex(num_rows=2,num_cols=2)").unwrap();
    let mut env = VectorEnv::new(game, 3, 0, MemoryLimit::new(None)).unwrap();
    let e = env.step(&[0, 9, 1]).err().unwrap();
    assert_eq!(
        e.to_string(),
        "game 1: action 9 is not legal there; its legal actions are [0, 1, 2, 3]"
    );
    assert!(env.step(&[0, 1]).is_err());
    let e = VectorEnv::new(game, 1_000_000, 0, MemoryLimit::bytes_given(1 << 20))
        .err()
        .unwrap();
    assert!(matches!(e, EnvError::Memory(_)), "{e}");
    assert!(
        e.to_string()
            .starts_with("a VectorEnv of 1000000 games of "),
        "{e}"
    );
}
