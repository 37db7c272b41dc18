//! Every option of the CLI that names a file or folder, with what the
//! command does there. The CLI's own unit test requires this table to
//! hold exactly the options whose value is a path (so a new command or
//! option cannot go unlisted), and tests/guards.rs runs every writer it
//! lists against an existing file of each other kind.

/// The kinds of files and folders darkhex writes, and one it does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Policy,
    Model,
    Checkpoint,
    PoneStrategy,
    LeagueLog,
    OpeningsLog,
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
    pub const ALL: [Kind; 13] = [
        Kind::Policy,
        Kind::Model,
        Kind::Checkpoint,
        Kind::PoneStrategy,
        Kind::LeagueLog,
        Kind::OpeningsLog,
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
/// Deep CFR model) is listed once for each.
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
        "learn_edges",
        Role::Writes(
            Kind::EdgePatterns,
            &["solve", "hex(board_size=3)", "--learn-edges", "{}"],
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
];
