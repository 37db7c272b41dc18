//! The texts that close each command's `--help`: working examples, the game
//! strings, the player specs and the tournament file.

pub const GAMES: &str = "\
Game strings:
  hex(board_size=N)  hex(num_rows=R,num_cols=C)   Hex, sides 1 to 26 (default 11)
  rex(...)                                        Rex: joining your sides loses
  dark_hex(num_rows=R,num_cols=C[,gameversion=cdh|adh][,obstype=reveal-nothing|reveal-numturns]
           [,disclosure=none|noise|flash])        Dark Hex (default 3x3, classic)
  dark_rex(...)                                   Dark Hex with the misere winner
  phantom_ttt(gameversion=classical|abrupt,obstype=reveal-nothing|reveal-numturns)
                                                  phantom tic-tac-toe (default classical)
  kuhn_poker  leduc_poker                         the reference poker games
  liars_dice(numdice=N,dice_sides=S)              Liar's Dice for two, N 1 to 5 dice a player
                                                  of S 1 to 10 faces (default 1 die of 6)
  (parameters left out take their defaults: phantom_ttt is phantom_ttt(gameversion=classical))";

pub const PLAYERS: &str = "\
Player specs:
  random                       uniform random
  policy(file=P)               samples a policy file written by train or solve
  lp  lp(file=P)               the LP equilibrium (solved at start, or loaded)
  mcts(sims=N,c=C)             UCT with random playouts (hex, rex)
  ismcts(sims=N,c=C)           information-set MCTS (dark_hex, dark_rex)
  pone(fallback=SPEC)          a probability-one win when it has one, else SPEC
  resistance                   greedy on the resistance score one move ahead (hex, rex)
  solver(fallback=SPEC,time=S) a proven winning move when found in S seconds (default 1),
                               else SPEC (default resistance) (hex, rex)
  network(eval=e)              greedy on Honjo et al.'s distance ratio E = d_W/d_B + r (hex)
  network(eval=ek,k=K,x=X)     greedy on E_k, counting paths up to K links longer than the
                               shortest, each link worth X less (defaults k=2, x=0.00001);
                               paths=N bounds each network's path enumeration (hex)
  human                        you, at the terminal (play only)";

pub const TOURNAMENT: &str = "\
Tournament file (TOML); relative file paths in specs start at the file's directory:
  game = \"dark_hex(num_rows=2,num_cols=3,gameversion=adh)\"   # required
  games_per_pair = 100        # required; seats alternate
  seed = 1                    # default 0
  format = \"round-robin\"      # or \"gauntlet\" with challenger = \"NAME\"
  [[players]]                 # at least two
  name = \"equilibrium\"        # optional; defaults to the spec (spec#1, spec#2 if repeated)
  spec = \"lp\"                 # a player spec, see below";

pub const TRAINING_STOPS: &str = "\
Checkpoints and interruption (Ctrl-C, SIGTERM; a signal repeated within a second,
as `timeout` and Slurm deliver one to the process group, is one request):
  cfr cfr+ lcfr dcfr pcfr+   the checkpoint is saved at every evaluation, and between them
  rcfr rcfr+ f-rcfr          after the first iteration ending 3 minutes past the last save;
  os-mccfr es-mccfr          a signal stops after the iteration under way (a pass over the
                             histories in a streaming run), saves the checkpoint and writes
                             the policy so far; during an exploitability pass it stops the
                             pass within moments
  deep-cfr                   the checkpoint is saved after the first iteration ending 3
                             minutes past the last save; a signal stops after the iteration
                             under way and saves it (no model is written); during the final
                             fit of the policy networks it ends at once
  --resume continues any of them to the result an uninterrupted run gives, bit for bit";

/// Examples, then the given reference sections, for `after_help`.
pub fn after(examples: &[&str], sections: &[&str]) -> String {
    let mut text = String::from("Examples:\n");
    for e in examples {
        text += &format!("  {e}\n");
    }
    for s in sections {
        text += "\n";
        text += s;
        text += "\n";
    }
    text
}
