//! Hex games in SGF (`GM[11]`, as HexGui writes them): the board size, the
//! set-up stones and the moves of the main line.

use anyhow::{Result, anyhow, bail};
use darkhex_games::board::{BLACK, Dims, WHITE};
use sgf_parse::unknown_game::Prop;
use sgf_parse::{GameTree, parse};

/// A position as an SGF file gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfGame {
    pub dims: Dims,
    /// Stones added by `AB`/`AW` before the first move.
    pub setup: Vec<(usize, usize)>,
    /// (colour, cell) of each move of the main line.
    pub moves: Vec<(usize, usize)>,
    /// `PL`: the colour to move after the first `.0` moves (players
    /// alternate after it).
    pub player: Option<(usize, usize)>,
}

impl SgfGame {
    /// The colour to move after the first `played` moves, when the file
    /// says it with `PL` at or before that point.
    pub fn to_move_after(&self, played: usize) -> Option<usize> {
        let (at, colour) = self.player?;
        (at <= played).then(|| colour ^ ((played - at) % 2))
    }
}

/// The Hex game in `text`; cells are named as in GTP (`c4`).
pub fn read_hex_sgf(text: &str) -> Result<SgfGame> {
    let trees = parse(text).map_err(|e| anyhow!("not an SGF file: {e}"))?;
    let tree = trees
        .into_iter()
        .next()
        .ok_or_else(|| anyhow!("the SGF file holds no game"))?;
    let root = match tree {
        GameTree::Unknown(node) => node,
        GameTree::GoGame(_) => bail!(
            "the SGF file is a Go game (GM[1], the default when GM is missing); Hex files have GM[11]"
        ),
    };
    match root.get_property("GM") {
        Some(Prop::GM(11)) => {}
        Some(Prop::GM(g)) => bail!("the SGF file is for game GM[{g}]; Hex files have GM[11]"),
        _ => bail!("the SGF file does not say its game; Hex files have GM[11]"),
    }
    let (cols, rows) = match root.get_property("SZ") {
        Some(Prop::SZ((c, r))) => (*c as usize, *r as usize),
        _ => bail!("the SGF file has no board size (SZ)"),
    };
    let dims = Dims::new("hex", rows, cols)?;
    let cell = |text: &str| -> Result<usize> {
        dims.parse_cell(text)
            .map_err(|e| anyhow!("in the SGF file, '{text}': {e}"))
    };
    let mut game = SgfGame {
        dims,
        setup: Vec::new(),
        moves: Vec::new(),
        player: None,
    };
    for node in root.main_variation() {
        for prop in node.properties() {
            match prop {
                Prop::AB(cells) | Prop::AW(cells) => {
                    let colour = if matches!(prop, Prop::AB(_)) {
                        BLACK
                    } else {
                        WHITE
                    };
                    let mut sorted: Vec<&String> = cells.iter().collect();
                    sorted.sort();
                    for c in sorted {
                        game.setup.push((colour, cell(c)?));
                    }
                }
                Prop::PL(colour) => {
                    let colour = match colour {
                        sgf_parse::Color::Black => BLACK,
                        sgf_parse::Color::White => WHITE,
                    };
                    game.player = Some((game.moves.len(), colour));
                }
                Prop::Invalid(name, values) if name == "PL" => bail!(
                    "the SGF file's PL[{}] names no player: accepted are PL[B] and PL[W]",
                    values.join("][")
                ),
                Prop::B(m) | Prop::W(m) => {
                    let colour = if matches!(prop, Prop::B(_)) {
                        BLACK
                    } else {
                        WHITE
                    };
                    if m.eq_ignore_ascii_case("swap-pieces") || m.eq_ignore_ascii_case("swap") {
                        bail!("the SGF file swaps pieces: darkhex plays Hex without the swap rule");
                    }
                    if m.eq_ignore_ascii_case("resign") {
                        break;
                    }
                    game.moves.push((colour, cell(m)?));
                }
                _ => {}
            }
        }
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hexgui_games() {
        let g = read_hex_sgf("(;FF[4]AP[HexGui:0.9]GM[11]SZ[5];B[c3];W[b4];B[d2])").unwrap();
        assert_eq!(g.dims, Dims::new("hex", 5, 5).unwrap());
        let d = g.dims;
        assert_eq!(
            g.moves,
            vec![
                (BLACK, d.parse_cell("c3").unwrap()),
                (WHITE, d.parse_cell("b4").unwrap()),
                (BLACK, d.parse_cell("d2").unwrap()),
            ]
        );
        let g = read_hex_sgf("(;GM[11]SZ[4:3]AB[a1][b2]AW[c3])").unwrap();
        assert_eq!((g.dims.rows(), g.dims.cols()), (3, 4));
        assert_eq!(g.setup.len(), 3);
        assert_eq!(g.to_move_after(0), None);
    }

    #[test]
    fn reads_the_player_to_move() {
        let g = read_hex_sgf("(;GM[11]SZ[5]AB[a1]PL[W];W[b2];B[c3])").unwrap();
        assert_eq!(g.player, Some((0, WHITE)));
        assert_eq!(g.to_move_after(0), Some(WHITE));
        assert_eq!(g.to_move_after(1), Some(BLACK));
        assert_eq!(g.to_move_after(2), Some(WHITE));
        let g = read_hex_sgf("(;GM[11]SZ[5];B[a1]PL[B])").unwrap();
        assert_eq!(g.to_move_after(0), None);
        assert_eq!(g.to_move_after(1), Some(BLACK));
        let err = read_hex_sgf("(;GM[11]SZ[5]PL[X])").unwrap_err().to_string();
        assert!(!err.is_empty() && !err.contains('\n'), "{err}");
    }

    #[test]
    fn refuses_other_games_and_bad_cells() {
        for (text, says) in [
            ("(;GM[1]SZ[9];B[de])", "Go game"),
            ("(;SZ[5];B[c3])", "the default when GM is missing"),
            ("(;GM[11]SZ[5];B[z9])", "'z9'"),
            ("(;GM[11];B[a1])", "no board size"),
            ("not sgf", "not an SGF file"),
            ("(;GM[11]SZ[5];B[c3];W[swap-pieces])", "swap"),
        ] {
            let err = read_hex_sgf(text).unwrap_err().to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
    }
}
