//! Game strings shared by the tests.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

/// Every Dark Hex variant on a board: gameversion x disclosure x obstype.
pub fn variants(rows: usize, cols: usize) -> Vec<String> {
    variants_of("dark_hex", rows, cols)
}

/// [`variants`] of Dark Hex, then the same of Dark Rex.
pub fn hex_and_rex_variants(rows: usize, cols: usize) -> Vec<String> {
    let mut out = variants_of("dark_hex", rows, cols);
    out.extend(variants_of("dark_rex", rows, cols));
    out
}

fn variants_of(name: &str, rows: usize, cols: usize) -> Vec<String> {
    let mut out = Vec::new();
    for version in ["cdh", "adh"] {
        for disclosure in ["none", "noise", "flash"] {
            for obstype in ["reveal-nothing", "reveal-numturns"] {
                out.push(format!(
                    "{name}(num_rows={rows},num_cols={cols},gameversion={version},disclosure={disclosure},obstype={obstype})"
                ));
            }
        }
    }
    out
}
