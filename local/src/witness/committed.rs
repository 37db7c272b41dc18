//! The committed witnesses in `local/witnesses/`, read back onto their
//! boards with the placement of their template, for the unit tests.

use std::path::{Path, PathBuf};

use crate::region::Region;
use darkhex_games::board::{BLACK, Dims, WHITE};
use darkhex_hexengine::analyst::CellLists;

use super::{Placement, placements};

/// This crate's folder, which holds templates/ and witnesses/.
fn local() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

pub(super) fn region(stem: &str) -> Region {
    let path = local().join("templates").join(format!("{stem}.region"));
    Region::parse(&std::fs::read_to_string(path).expect("template file")).expect("region")
}

/// One committed witness.
pub(super) struct Committed {
    pub file: String,
    pub cell: String,
    /// The probe's index in the template's carrier.
    pub x: usize,
    pub stones: CellLists,
    /// Every placement of the template that the diagram matches.
    pub fits: Vec<Placement>,
}

/// A witness diagram's cells by (row, column): its token (X, O, ., a
/// carrier cell's name, or * for the probe).
fn board_tokens(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split_whitespace().skip(1).map(String::from).collect())
        .collect()
}

/// Every witness diagram in `local/witnesses/`.
pub(super) fn committed() -> Vec<Committed> {
    let dir = local().join("witnesses");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("witness folder") {
        let path = entry.expect("entry").path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(base) = file.strip_suffix("-witness.txt") else {
            continue;
        };
        let (stem, cell) = base.rsplit_once('-').expect("TEMPLATE-CELL");
        let region = region(stem);
        let x = region.cell_names().iter().position(|n| n == cell).unwrap();
        let tokens = board_tokens(&std::fs::read_to_string(&path).unwrap());
        let side = tokens.len();
        let dims = Dims::new("hex", side, side).unwrap();
        let at = |c: usize| {
            let (r, col) = dims.row_col(c);
            tokens[r][col].as_str()
        };
        let mut stones: CellLists = [Vec::new(), Vec::new()];
        for c in 0..dims.cells() {
            match at(c) {
                "X" => stones[BLACK].push(c),
                "O" => stones[WHITE].push(c),
                _ => {}
            }
        }
        let names = region.cell_names();
        let fits = placements(&region, side)
            .unwrap()
            .into_iter()
            .filter(|p| p.dims.rows() == side)
            .filter(|p| {
                p.carrier
                    .iter()
                    .enumerate()
                    .all(|(i, &c)| at(c) == if i == x { "*" } else { names[i].as_str() })
                    && p.stones[BLACK].iter().all(|&c| at(c) == "X")
                    && p.stones[WHITE].iter().all(|&c| at(c) == "O")
            })
            .collect();
        let cell = cell.to_string();
        out.push(Committed {
            file,
            cell,
            x,
            stones,
            fits,
        });
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}
