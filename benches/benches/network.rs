//! Honjo et al.'s network evaluation: `cargo bench -p darkhex-benches --bench network`.
//! One E_2 evaluation (both networks built from their connections, S_0..S_2
//! counted) on a mid-game 11x11 position, and one full move of the
//! `network(eval=ek,k=2)` and of the `network(eval=e)` player on the empty
//! 11x11 board (every empty cell tried: connections updated, networks
//! rebuilt, path sets counted; in parallel over the candidate moves), and a
//! whole 7x7 game between two `network(eval=ek,k=2)` players.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use darkhex_benches::{MID_11, position};
use darkhex_games::board::{BLACK, Dims, WHITE};
use darkhex_games::hex::HexGame;
use darkhex_games::{Action, AnyGame, Geometry};
use darkhex_hexengine::analyst::{HexAnalyst, analyst_for};
use darkhex_hexengine::eval::{Network, NetworkValue, PathLimits, Weight, path_sets};
use darkhex_hexengine::hexsolve::vc::{VcParams, VcSet};
use darkhex_players::network_player::{NetworkEval, NetworkPlayer};
use darkhex_players::{Player, PlayerView, play_game, prepare};

fn network(c: &mut Criterion) {
    let g11 = Geometry::<2>::new(Dims::new("hex", 11, 11).unwrap()).unwrap();
    let stones = position(&g11, MID_11).played;
    let vcs = [BLACK, WHITE].map(|p| VcSet::build(&g11, &stones, p, VcParams::default()));
    let x = Weight::paper();
    c.bench_function("E_2 evaluation 11x11 mid-game", |b| {
        b.iter(|| {
            let sides = [BLACK, WHITE].map(|p| {
                let net = Network::build(&g11, black_box(&stones), p, Some(&vcs[p]));
                path_sets(&net, PathLimits::new(2))
            });
            NetworkValue { sides }.ek(2, &x)
        })
    });
    let game = HexGame::new(Dims::new("hex", 11, 11).unwrap(), false);
    let analyst: Arc<dyn HexAnalyst> = Arc::from(analyst_for(&game));
    let eval = NetworkEval::Ek { k: 2, x };
    let legal: Vec<Action> = (0..121).collect();
    let mut group = c.benchmark_group("slow");
    group.sample_size(10);
    for (name, eval) in [("ek,k=2", eval), ("e", NetworkEval::E)] {
        group.bench_function(format!("network(eval={name}) move on empty 11x11"), |b| {
            let mut player = NetworkPlayer::new(analyst.clone(), eval.clone(), 200_000, 1);
            b.iter(|| {
                let view = PlayerView {
                    seat: BLACK,
                    info_key: &[],
                    legal: &legal,
                };
                player.act(black_box(&view)).unwrap()
            })
        });
    }
    let game7 = HexGame::new(Dims::new("hex", 7, 7).unwrap(), false);
    let ek = prepare("network(eval=ek,k=2)", &AnyGame::Hex(game7)).unwrap();
    group.bench_function("7x7 game network(eval=ek,k=2) against itself", |b| {
        b.iter(|| {
            let mut players = [ek.create(0, 1), ek.create(1, 2)];
            play_game(&game7, &mut players, 0, |_, _, _| {}).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, network);
criterion_main!(benches);
