//! What every command writes and builds, for the guards' tests: every
//! option of the CLI that names a file or folder with what the command
//! does there ([`PATH_OPTIONS`]), and every command with what it builds
//! ([`BUILDS`]). The CLI's own unit test requires these tables to hold
//! exactly the options whose value is a path and exactly the commands
//! (so a new command or option cannot go unlisted); tests/guards.rs runs
//! every writer against an existing file of each other kind, and every
//! builder on an input too large for it.

/// The kinds of files and folders darkhex writes, and one it does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Policy,
    Model,
    Checkpoint,
    PoneStrategy,
    LeagueLog,
    OpeningsLog,
    BoundsProgress,
    SolverTable,
    Svg,
    EdgePatterns,
    ValueDatabase,
    Witness,
    LeagueFolder,
    WitnessFolder,
    /// A file darkhex did not write (a user's notes).
    Foreign,
}

impl Kind {
    pub const ALL: [Kind; 15] = [
        Kind::Policy,
        Kind::Model,
        Kind::Checkpoint,
        Kind::PoneStrategy,
        Kind::LeagueLog,
        Kind::OpeningsLog,
        Kind::BoundsProgress,
        Kind::SolverTable,
        Kind::Svg,
        Kind::EdgePatterns,
        Kind::ValueDatabase,
        Kind::Witness,
        Kind::LeagueFolder,
        Kind::WitnessFolder,
        Kind::Foreign,
    ];
}

pub enum Role {
    Reads,
    /// Writes a file or folder of this kind; `run` is a command line that
    /// writes there, with `{}` for the path.
    Writes(Kind, &'static [&'static str]),
}

/// (subcommand, the option's id as clap names it, what is done there).
/// An option written more than one way (train's --out: a policy, or a
/// Deep CFR or PPO model) is listed once for each; the first writer of a
/// kind makes the sample the guards' tests use.
pub const PATH_OPTIONS: &[(&str, &str, Role)] = &[
    (
        "train",
        "out",
        Role::Writes(
            Kind::Policy,
            &["train", "kuhn_poker", "--iterations", "5", "--out", "{}"],
        ),
    ),
    (
        "train",
        "out",
        Role::Writes(
            Kind::Model,
            &[
                "train",
                "kuhn_poker",
                "--algo",
                "deep-cfr",
                "--iterations",
                "1",
                "--out",
                "{}",
            ],
        ),
    ),
    (
        "train",
        "out",
        Role::Writes(
            Kind::Model,
            &[
                "train",
                "kuhn_poker",
                "--algo",
                "ppo",
                "--hidden",
                "8",
                "--steps",
                "64",
                "--out",
                "{}",
            ],
        ),
    ),
    (
        "train",
        "checkpoint",
        Role::Writes(
            Kind::Checkpoint,
            &[
                "train",
                "kuhn_poker",
                "--iterations",
                "5",
                "--checkpoint",
                "{}",
                "--overwrite",
            ],
        ),
    ),
    (
        "train",
        "checkpoint",
        Role::Writes(
            Kind::Checkpoint,
            &[
                "train",
                "kuhn_poker",
                "--algo",
                "mmd",
                "--hidden",
                "8",
                "--steps",
                "64",
                "--checkpoint",
                "{}",
                "--overwrite",
            ],
        ),
    ),
    (
        "train",
        "out",
        Role::Writes(
            Kind::Model,
            &[
                "train",
                "kuhn_poker",
                "--algo",
                "nfsp",
                "--hidden",
                "8",
                "--steps",
                "64",
                "--out",
                "{}",
            ],
        ),
    ),
    (
        "train",
        "checkpoint",
        Role::Writes(
            Kind::Checkpoint,
            &[
                "train",
                "kuhn_poker",
                "--algo",
                "nfsp",
                "--hidden",
                "8",
                "--steps",
                "64",
                "--checkpoint",
                "{}",
                "--overwrite",
            ],
        ),
    ),
    (
        "train",
        "plot",
        Role::Writes(
            Kind::Svg,
            &["train", "kuhn_poker", "--iterations", "5", "--plot", "{}"],
        ),
    ),
    ("exploit", "policy", Role::Reads),
    (
        "exploit",
        "policy_out",
        Role::Writes(
            Kind::Policy,
            &[
                "exploit",
                "kuhn_poker",
                "--player",
                "random",
                "--policy-out",
                "{}",
            ],
        ),
    ),
    ("bounds", "black", Role::Reads),
    ("bounds", "white", Role::Reads),
    (
        "bounds",
        "response_to_black",
        Role::Writes(
            Kind::Policy,
            &[
                "bounds",
                "kuhn_poker",
                "--black",
                "samples/policy.json",
                "--response-to-black",
                "{}",
            ],
        ),
    ),
    (
        "bounds",
        "response_to_white",
        Role::Writes(
            Kind::Policy,
            &[
                "bounds",
                "kuhn_poker",
                "--white",
                "samples/policy.json",
                "--response-to-white",
                "{}",
            ],
        ),
    ),
    (
        "bounds",
        "cut_black",
        Role::Writes(
            Kind::Policy,
            &[
                "bounds",
                "kuhn_poker",
                "--black",
                "samples/policy.json",
                "--cut-black",
                "{}",
            ],
        ),
    ),
    (
        "bounds",
        "cut_white",
        Role::Writes(
            Kind::Policy,
            &[
                "bounds",
                "kuhn_poker",
                "--white",
                "samples/policy.json",
                "--cut-white",
                "{}",
            ],
        ),
    ),
    (
        "bounds",
        "checkpoint",
        Role::Writes(
            Kind::BoundsProgress,
            &[
                "bounds",
                "kuhn_poker",
                "--black",
                "samples/policy.json",
                "--checkpoint",
                "{}",
            ],
        ),
    ),
    ("bounds", "seed_file", Role::Reads),
    (
        "bounds",
        "out_black",
        Role::Writes(
            Kind::Policy,
            &[
                "bounds",
                "kuhn_poker",
                "--double-oracle",
                "--out-black",
                "{}",
            ],
        ),
    ),
    (
        "bounds",
        "out_white",
        Role::Writes(
            Kind::Policy,
            &[
                "bounds",
                "kuhn_poker",
                "--double-oracle",
                "--out-white",
                "{}",
            ],
        ),
    ),
    ("plot", "runs", Role::Reads),
    (
        "plot",
        "out",
        Role::Writes(Kind::Svg, &["plot", "{}", "samples/run.ckpt"]),
    ),
    (
        "solve",
        "out",
        Role::Writes(Kind::Policy, &["solve", "kuhn_poker", "--out", "{}"]),
    ),
    (
        "solve",
        "out",
        Role::Writes(
            Kind::OpeningsLog,
            &["solve", "hex(board_size=2)", "--openings", "--out", "{}"],
        ),
    ),
    (
        "solve",
        "out",
        Role::Writes(
            Kind::OpeningsLog,
            &["solve", "rex(board_size=2)", "--replies", "--out", "{}"],
        ),
    ),
    (
        "solve",
        "learn_edges",
        Role::Writes(
            Kind::EdgePatterns,
            &["solve", "hex(board_size=3)", "--learn-edges", "{}"],
        ),
    ),
    (
        "solve",
        "table",
        Role::Writes(
            Kind::SolverTable,
            &["solve", "hex(board_size=3)", "--table", "{}"],
        ),
    ),
    ("solve merge", "logs", Role::Reads),
    ("league", "file", Role::Reads),
    (
        "league",
        "out",
        Role::Writes(
            Kind::LeagueFolder,
            &[
                "league",
                "--game",
                "kuhn_poker",
                "--players",
                "random,random",
                "--games",
                "1",
                "--out",
                "{}",
            ],
        ),
    ),
    ("league show", "out", Role::Reads),
    ("league merge", "shards", Role::Reads),
    (
        "league merge",
        "out",
        Role::Writes(
            Kind::LeagueFolder,
            &[
                "league",
                "merge",
                "samples/shard-1",
                "samples/shard-2",
                "--out",
                "{}",
            ],
        ),
    ),
    ("pone", "check_strategy", Role::Reads),
    (
        "pone",
        "strategy_out",
        Role::Writes(
            Kind::PoneStrategy,
            &[
                "pone",
                "dark_hex(num_rows=2,num_cols=2)",
                "--strategy-out",
                "{}",
            ],
        ),
    ),
    (
        "analyze",
        "svg",
        Role::Writes(Kind::Svg, &["analyze", "hex(board_size=3)", "--svg", "{}"]),
    ),
    ("region", "file", Role::Reads),
    ("template", "file", Role::Reads),
    (
        "template",
        "witnesses",
        Role::Writes(
            Kind::WitnessFolder,
            &[
                "template",
                "samples/bridge.region",
                "--witnesses",
                "{}",
                "--attempts",
                "1",
            ],
        ),
    ),
    (
        "values build",
        "out",
        Role::Writes(
            Kind::ValueDatabase,
            &[
                "values",
                "build",
                "--rounds",
                "0",
                "--max-atoms",
                "3",
                "--out",
                "{}",
            ],
        ),
    ),
    ("values build", "seed_regions", Role::Reads),
    ("values query", "file", Role::Reads),
    ("serve", "folders", Role::Reads),
];

/// A region of 64 empty cells, 8 rows of 8 between two terminals: its
/// game is far past any machine (the builders read it as `huge.region`).
pub const HUGE_REGION: &str = "\
1 1 1 1 1 1 1 1
 . . . . . . . .
  . . . . . . . .
   . . . . . . . .
    . . . . . . . .
     . . . . . . . .
      . . . . . . . .
       . . . . . . . .
        . . . . . . . .
         2 2 2 2 2 2 2 2
";

/// Fifteen empty cells between three terminals (`fifteen.region`): a
/// template, whose analysis a small limit refuses.
pub const FIFTEEN_REGION: &str =
    "W 1 1 1 1 1 W\n 2 . . . . . 3\n  2 . . . . . 3\n   2 . . . . . 3\n    W W W W W W\n";

/// What a command builds whose size grows with its input.
pub enum Build {
    /// These command lines ask for more than any machine has; the memory
    /// guard must refuse each at once, with its estimate.
    TooLarge(&'static [&'static [&'static str]]),
    /// Nothing past what its options bound, for this reason.
    Bounded(&'static str),
}

/// Every command (subcommands by their path), with what it builds.
pub const BUILDS: &[(&str, Build)] = &[
    (
        "info",
        Build::TooLarge(&[&["info", "dark_hex(num_rows=4,num_cols=4)"]]),
    ),
    (
        "train",
        Build::TooLarge(&[
            &["train", "dark_hex(num_rows=4,num_cols=3)", "--stream"],
            &["train", "hex(board_size=5)", "--stream"],
            &["train", "dark_hex(num_rows=4,num_cols=3)", "--algo", "cfr+"],
            &[
                "train",
                "leduc_poker",
                "--algo",
                "deep-cfr",
                "--advantage-capacity",
                "1000000000",
                "--strategy-capacity",
                "1000000000",
            ],
            &[
                "train",
                "kuhn_poker",
                "--algo",
                "ppo",
                "--num-envs",
                "65536",
                "--rollout-steps",
                "65536",
            ],
        ]),
    ),
    (
        "exploit",
        Build::TooLarge(&[
            &["exploit", "hex(board_size=4)", "uniform"],
            &["exploit", "rex(board_size=4)", "uniform"],
            &["exploit", "dark_hex(num_rows=4,num_cols=4)", "uniform"],
            &[
                "exploit",
                "dark_hex(num_rows=4,num_cols=3)",
                "--player",
                "random",
            ],
        ]),
    ),
    (
        "solve",
        Build::TooLarge(&[&["solve", "dark_hex(num_rows=4,num_cols=3)"]]),
    ),
    (
        "league",
        Build::TooLarge(&[&[
            "league",
            "--game",
            "dark_hex(num_rows=4,num_cols=3)",
            "--players",
            "lp,random",
            "--games",
            "1",
            "--out",
            "L",
        ]]),
    ),
    (
        "play",
        Build::TooLarge(&[&[
            "play",
            "dark_hex(num_rows=4,num_cols=3)",
            "--p0",
            "lp",
            "--p1",
            "random",
        ]]),
    ),
    (
        "plot",
        Build::Bounded("reads run files and draws their points"),
    ),
    (
        "solve merge",
        Build::Bounded("reads logs of solved openings"),
    ),
    ("league show", Build::Bounded("replays one game of a log")),
    (
        "league merge",
        Build::Bounded("joins the shards' logs, a line a game"),
    ),
    (
        "pone",
        Build::Bounded(
            "its search stores the states of one player's own play, pruned as it proves them; it answers 4x4 in moments",
        ),
    ),
    (
        "bounds",
        Build::Bounded(
            "a depth-first walk that holds the beliefs on its path (checked against the memory limit); its work is estimated first and refused past --max-work",
        ),
    ),
    (
        "gtp",
        Build::Bounded(
            "the solver's transposition table is `param_dfpn tt_mb`, at most the machine's memory",
        ),
    ),
    (
        "analyze",
        Build::Bounded("position networks of one board, of at most 26x26 cells"),
    ),
    ("region", Build::TooLarge(&[&["region", "huge.region"]])),
    // A template has at most 16 empty cells, which machines hold:
    // refused under a limit given.
    (
        "template",
        Build::TooLarge(&[&["template", "fifteen.region", "--max-memory-gb", "0.05"]]),
    ),
    (
        "values build",
        Build::TooLarge(&[&[
            "values",
            "build",
            "--rounds",
            "0",
            "--seed-region",
            "huge.region",
            "--out",
            "v.txt",
        ]]),
    ),
    ("values query", Build::Bounded("reads a database")),
    (
        "serve",
        Build::Bounded(
            "each request builds what the command it stands for builds, through the same memory guard, one large build at a time (tests/serve.rs)",
        ),
    ),
];
