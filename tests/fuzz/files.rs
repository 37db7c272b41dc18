//! Files a user hands back: policies, checkpoints, PONE strategies and
//! learnt edge patterns, each as JSON or in the checksummed binary form.

use std::path::PathBuf;

use darkhex::algorithms::hexsolve::edge_patterns::EdgePatterns;
use darkhex::algorithms::pone::{Strategy as PoneStrategy, verify_strategy};
use darkhex::algorithms::stream::build_tables;
use darkhex::algorithms::stream::tables::BuildOptions;
use darkhex::algorithms::{CompileOptions, GameTree, PolicyFile, Trainer, exploitability};
use darkhex::games::{AnyGame, load_game};
use darkhex::players::{play_game, prepare};
use proptest::prelude::*;

use super::{Bytes, documents, each_seed, guarded, mutated, one_line, run, seed_files, text};

/// Writes `bytes` to a file of its own (cases run on several threads).
fn file_of(bytes: &[u8], name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

/// A binary seed with its checksum made right again after mutation, so
/// that the decoder behind it is reached too.
fn with_fixed_checksum(bytes: Vec<u8>) -> Vec<u8> {
    let Some(end) = bytes.iter().position(|&b| b == b'\n') else {
        return bytes;
    };
    let Ok(mut header) = serde_json::from_slice::<serde_json::Value>(&bytes[..end]) else {
        return bytes;
    };
    if header.get("crc32").is_none() {
        return bytes;
    }
    let payload = &bytes[end + 1..];
    header["bytes"] = payload.len().into();
    header["crc32"] = crc32fast::hash(payload).into();
    let mut out = serde_json::to_vec(&header).unwrap();
    out.push(b'\n');
    out.extend_from_slice(payload);
    out
}

/// Seeds byte-mutated (half of them with their checksum mended) or
/// edited value by value.
fn file_inputs(target: &str) -> impl Strategy<Value = Bytes> {
    let mutated_bytes = (mutated(seed_files(target)), any::<bool>())
        .prop_map(|(b, mend)| if mend { with_fixed_checksum(b) } else { b });
    prop_oneof![mutated_bytes, documents(target)].prop_map(Bytes)
}

const POLICY_GAMES: &[&str] = &["kuhn_poker", "dark_hex(num_rows=2,num_cols=2)"];

fn check_policy(Bytes(bytes): &Bytes) -> Result<(), String> {
    let (_dir, path) = file_of(bytes, "p.bin");
    for name in POLICY_GAMES {
        let game = load_game(name).map_err(|e| e.to_string())?;
        match PolicyFile::load_for(&path, &game) {
            Ok(file) => {
                // What `exploit` does with it.
                let tree = GameTree::build(&game, &CompileOptions::default())
                    .map_err(|e| e.to_string())?;
                match file.to_tree_policy(&tree) {
                    Ok((policy, _)) => {
                        let e = exploitability(&tree, &policy);
                        if !e.exploitability.is_finite() {
                            return Err(format!("exploitability {}", e.exploitability));
                        }
                    }
                    Err(e) => one_line(&e)?,
                }
                // What `policy(file=...)` does with it.
                let spec = format!("policy(file={})", path.display());
                let factory = prepare(&spec, &game).map_err(|e| e.to_string())?;
                let mut players = [factory.create(0, 1), factory.create(1, 2)];
                play_game(&game, &mut players, 4, |_, _, _| {}).map_err(|e| e.to_string())?;
            }
            Err(e) => one_line(&e)?,
        }
    }
    Ok(())
}

#[test]
fn policy_files() {
    each_seed(
        "policies",
        seed_files("policies").into_iter().map(Bytes),
        check_policy,
    );
    run("policy files", 800, file_inputs("policies"), |input| {
        guarded("policies", input, check_policy)
    });
}

fn check_checkpoint(Bytes(bytes): &Bytes) -> Result<(), String> {
    let (dir, path) = file_of(bytes, "c.ckpt");
    let checkpoint = match darkhex::algorithms::Checkpoint::load(&path) {
        Ok(c) => c,
        Err(e) => return one_line(&e),
    };
    let game: AnyGame = match load_game(&checkpoint.game) {
        Ok(g) => g,
        Err(e) => return one_line(&e),
    };
    // Large games are not what this checks: their trees take a while.
    if !matches!(game, AnyGame::Kuhn(_) | AnyGame::Leduc(_)) {
        return Ok(());
    }
    let tree = GameTree::build(&game, &CompileOptions::default()).map_err(|e| e.to_string())?;
    let tables;
    let resumed = if checkpoint.needs_tables() {
        let options = BuildOptions::default();
        tables = build_tables(&game, &options).map_err(|e| e.to_string())?;
        Trainer::resume_over_tables(game, Some(&tree), &tables, checkpoint, None)
    } else {
        Trainer::resume(game, Some(&tree), checkpoint, None)
    };
    let mut trainer = match resumed {
        Ok(t) => t,
        Err(e) => return one_line(&e),
    };
    match trainer.run(2) {
        Ok(()) => {}
        Err(e) => return one_line(&e),
    }
    if let Err(e) = trainer.evaluate() {
        return one_line(&e);
    }
    trainer
        .save_policy(&dir.path().join("out.json"))
        .or_else(|e| one_line(&e))?;
    trainer
        .checkpoint()
        .save(&dir.path().join("again.ckpt"))
        .or_else(|e| one_line(&e))
}

#[test]
fn checkpoints() {
    each_seed(
        "checkpoints",
        seed_files("checkpoints").into_iter().map(Bytes),
        check_checkpoint,
    );
    run("checkpoints", 400, file_inputs("checkpoints"), |input| {
        guarded("checkpoints", input, check_checkpoint)
    });
}

fn check_strategy(Bytes(bytes): &Bytes) -> Result<(), String> {
    let (_dir, path) = file_of(bytes, "s.bin");
    let strategy = match PoneStrategy::load(&path) {
        Ok(s) => s,
        Err(e) => return one_line(&e),
    };
    for name in [
        "dark_hex(num_rows=3,num_cols=3)",
        "dark_hex(num_rows=2,num_cols=2)",
    ] {
        let AnyGame::DarkHex(game) = load_game(name).map_err(|e| e.to_string())? else {
            unreachable!()
        };
        if let Err(e) = verify_strategy(&game, &strategy, 50_000) {
            one_line(&e)?;
        }
    }
    Ok(())
}

#[test]
fn pone_strategies() {
    each_seed(
        "pone-strategies",
        seed_files("pone-strategies").into_iter().map(Bytes),
        check_strategy,
    );
    run(
        "PONE strategies",
        600,
        file_inputs("pone-strategies"),
        |input| guarded("pone-strategies", input, check_strategy),
    );
}

fn check_edges(input: &str) -> Result<(), String> {
    let table = EdgePatterns::new();
    match table.learn_text(input) {
        Ok(_) => Ok(()),
        Err(e) => one_line(&e),
    }
}

#[test]
fn edge_pattern_files() {
    each_seed(
        "edge-patterns",
        seed_files("edge-patterns").iter().map(|b| text(b)),
        |s| check_edges(s),
    );
    let strategy = mutated(seed_files("edge-patterns")).prop_map(|b| text(&b));
    run("edge pattern files", 1500, strategy, |input| {
        guarded("edge-patterns", input, |s| check_edges(s))
    });
}
