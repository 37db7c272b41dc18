//! The integration tests of darkhex-algorithms, one module per file.
//!
//! One test binary instead of one per file: each binary links the whole
//! crate and its dependencies again, and compiles again every generic
//! solver it instantiates (twenty binaries took 106 s of CPU to compile,
//! one takes 39 s). `cargo test --workspace --release --test algorithms lp::` runs
//! one file's tests (`--workspace` keeps the features, and so the build, of
//! the whole test run). A file added to tests/ must be named below
//! (`autotests = false` in Cargo.toml): the last test here checks it is.

// The files are the ones each binary was, unchanged: those that use
// tests/common declare it themselves, so it is loaded once per file.
#![allow(clippy::duplicate_mod)]

#[path = "approximate_br.rs"]
mod approximate_br;
#[path = "benchmark_games.rs"]
mod benchmark_games;
#[path = "cfr_exact.rs"]
mod cfr_exact;
#[path = "cfr_reference.rs"]
mod cfr_reference;
#[path = "compact_mccfr.rs"]
mod compact_mccfr;
#[path = "deep_cfr.rs"]
mod deep_cfr;
#[path = "double_oracle.rs"]
mod double_oracle;
#[path = "escher.rs"]
mod escher;
#[path = "lp.rs"]
mod lp;
#[path = "moved_paths.rs"]
mod moved_paths;
#[path = "policy_model.rs"]
mod policy_model;
#[path = "pone.rs"]
mod pone;
#[path = "pone_mccfr.rs"]
mod pone_mccfr;
#[path = "rcfr.rs"]
mod rcfr;
#[path = "restricted_br.rs"]
mod restricted_br;
#[path = "rl_dqn.rs"]
mod rl_dqn;
#[path = "rl_env.rs"]
mod rl_env;
#[path = "rl_nfsp.rs"]
mod rl_nfsp;
#[path = "rl_ppo.rs"]
mod rl_ppo;
#[path = "solvers.rs"]
mod solvers;
#[path = "stream.rs"]
mod stream;
#[path = "stream_cfr.rs"]
mod stream_cfr;
#[path = "table_mccfr.rs"]
mod table_mccfr;

#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let here = include_str!("main.rs");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".rs") && name != "main.rs" {
            let module = name.trim_end_matches(".rs");
            assert!(
                here.contains(&format!("#[path = \"{name}\"]\nmod {module};")),
                "tests/{name} is not run: name it in tests/main.rs"
            );
        }
    }
}
