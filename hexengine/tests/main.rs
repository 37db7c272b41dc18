//! The integration tests of darkhex-hexengine, one module per file, in one
//! binary for the reason algorithms/tests/main.rs gives (each binary links
//! the crate and its dependencies again). A file added to tests/ must be
//! named below (`autotests = false` in Cargo.toml): the last test here
//! checks it is.

// Those that use tests/common declare it themselves, so it is loaded once
// per file.
#![allow(clippy::duplicate_mod)]

#[path = "hex_edge_patterns.rs"]
mod hex_edge_patterns;
#[path = "hex_inferior.rs"]
mod hex_inferior;
#[path = "hex_ladder_patterns.rs"]
mod hex_ladder_patterns;
#[path = "hex_solver.rs"]
mod hex_solver;
#[path = "hex_table_file.rs"]
mod hex_table_file;
#[path = "hex_vc.rs"]
mod hex_vc;
#[path = "rex_rules.rs"]
mod rex_rules;
#[path = "rex_solver.rs"]
mod rex_solver;

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
