//! Every game behind one enum, and the parser from game strings.

use std::fmt;

use crate::board::{Dims, MAX_SIDE};
use crate::dark_hex::{DarkHexGame, DarkHexState, Disclosure, GameVersion, ObsType};
use crate::error::GameError;
use crate::game::{Action, Game, NUM_PLAYERS, State, Token, Turn};
use crate::hex::{HexGame, HexState};
use crate::kuhn::{KuhnGame, KuhnState};
use crate::leduc::{LeducGame, LeducState};
use crate::liars_dice::{LiarsDiceGame, LiarsDiceState, MAX_DICE, MAX_SIDES};
use crate::phantom_ttt::{PhantomTttGame, PhantomTttState};
use crate::spec::Spec;

/// Names `load_game` accepts.
pub const GAME_NAMES: [&str; 8] = [
    "hex",
    "rex",
    "dark_hex",
    "dark_rex",
    "phantom_ttt",
    "kuhn_poker",
    "leduc_poker",
    "liars_dice",
];

/// Example game strings, one per family, for help texts and tours.
pub const EXAMPLE_GAME_STRINGS: [&str; 10] = [
    "hex(board_size=11)",
    "rex(num_rows=3,num_cols=4)",
    "dark_hex(num_rows=3,num_cols=3)",
    "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
    "dark_hex(board_size=3,disclosure=flash,obstype=reveal-numturns)",
    "dark_rex(board_size=3,gameversion=adh,disclosure=noise)",
    "phantom_ttt(gameversion=abrupt)",
    "kuhn_poker",
    "leduc_poker",
    "liars_dice",
];

/// Any game of this crate. Algorithms are generic over [`Game`]; this enum
/// lets a program pick the game at run time from a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnyGame {
    Hex(HexGame),
    DarkHex(DarkHexGame),
    PhantomTtt(PhantomTttGame),
    Kuhn(KuhnGame),
    Leduc(LeducGame),
    LiarsDice(LiarsDiceGame),
}

#[derive(Debug, PartialEq, Eq)]
pub enum AnyState {
    Hex(HexState),
    DarkHex(DarkHexState),
    PhantomTtt(PhantomTttState),
    Kuhn(KuhnState),
    Leduc(LeducState),
    LiarsDice(LiarsDiceState),
}

impl Clone for AnyState {
    fn clone(&self) -> Self {
        match self {
            AnyState::Hex(s) => AnyState::Hex(s.clone()),
            AnyState::DarkHex(s) => AnyState::DarkHex(s.clone()),
            AnyState::Kuhn(s) => AnyState::Kuhn(s.clone()),
            AnyState::PhantomTtt(s) => AnyState::PhantomTtt(s.clone()),
            AnyState::Leduc(s) => AnyState::Leduc(s.clone()),
            AnyState::LiarsDice(s) => AnyState::LiarsDice(s.clone()),
        }
    }

    // Restarting a game copies the initial state into the old one; the
    // states' own clone_from reuses their buffers instead of allocating.
    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (AnyState::Hex(a), AnyState::Hex(b)) => a.clone_from(b),
            (AnyState::DarkHex(a), AnyState::DarkHex(b)) => a.clone_from(b),
            (AnyState::Kuhn(a), AnyState::Kuhn(b)) => a.clone_from(b),
            (AnyState::PhantomTtt(a), AnyState::PhantomTtt(b)) => a.clone_from(b),
            (AnyState::Leduc(a), AnyState::Leduc(b)) => a.clone_from(b),
            (AnyState::LiarsDice(a), AnyState::LiarsDice(b)) => a.clone_from(b),
            (a, b) => *a = b.clone(),
        }
    }
}

/// Parses a game string such as `dark_hex(num_rows=2,num_cols=3,gameversion=adh)`.
pub fn load_game(text: &str) -> Result<AnyGame, GameError> {
    let spec = Spec::parse(text)?;
    match spec.name.as_str() {
        "hex" | "rex" => {
            spec.check_params(&["board_size", "num_rows", "num_cols"])?;
            Ok(AnyGame::Hex(HexGame::new(
                dims(&spec, 11)?,
                spec.name == "rex",
            )))
        }
        "dark_hex" | "dark_rex" => {
            spec.check_params(&[
                "board_size",
                "num_rows",
                "num_cols",
                "gameversion",
                "obstype",
                "disclosure",
            ])?;
            let version = spec.get_choice(
                "gameversion",
                &GameVersion::NAMES,
                GameVersion::from_name,
                GameVersion::Classic,
            )?;
            let obstype = obstype(&spec)?;
            let disclosure = spec.get_choice(
                "disclosure",
                &Disclosure::NAMES,
                Disclosure::from_name,
                Disclosure::None,
            )?;
            Ok(AnyGame::DarkHex(DarkHexGame::new(
                dims(&spec, 3)?,
                version,
                obstype,
                disclosure,
                spec.name == "dark_rex",
            )))
        }
        "phantom_ttt" => {
            spec.check_params(&["gameversion", "obstype"])?;
            let version = spec.get_choice(
                "gameversion",
                &GameVersion::TTT_NAMES,
                GameVersion::from_ttt_name,
                GameVersion::Classic,
            )?;
            let obstype = obstype(&spec)?;
            Ok(AnyGame::PhantomTtt(PhantomTttGame::new(version, obstype)))
        }
        "liars_dice" => {
            spec.check_params(&["players", "numdice", "dice_sides"])?;
            // OpenSpiel's game takes more players; darkhex's games have two.
            if let Some(players) = spec.get("players").filter(|&v| v != "2") {
                return Err(GameError::BadValue {
                    game: spec.name.clone(),
                    param: "players".to_string(),
                    value: players.to_string(),
                    accepted: "2 (the games here have two players)".to_string(),
                });
            }
            Ok(AnyGame::LiarsDice(LiarsDiceGame::new(
                spec.get_usize("numdice", 1..=MAX_DICE, 1)?,
                spec.get_usize("dice_sides", 1..=MAX_SIDES, 6)?,
            )))
        }
        "kuhn_poker" => {
            spec.check_params(&[])?;
            Ok(AnyGame::Kuhn(KuhnGame))
        }
        "leduc_poker" => {
            spec.check_params(&[])?;
            Ok(AnyGame::Leduc(LeducGame))
        }
        other => Err(GameError::UnknownGame {
            name: other.to_string(),
            accepted: GAME_NAMES.join(", "),
        }),
    }
}

/// The `obstype` of the dark games, `reveal-nothing` unless given.
fn obstype(spec: &Spec) -> Result<ObsType, GameError> {
    spec.get_choice(
        "obstype",
        &ObsType::NAMES,
        ObsType::from_name,
        ObsType::RevealNothing,
    )
}

/// `board_size` sets both sides; `num_rows` and `num_cols` override it.
fn dims(spec: &Spec, default: usize) -> Result<Dims, GameError> {
    let size = spec.get_usize("board_size", 1..=MAX_SIDE, default)?;
    let rows = spec.get_usize("num_rows", 1..=MAX_SIDE, size)?;
    let cols = spec.get_usize("num_cols", 1..=MAX_SIDE, size)?;
    Dims::new(&spec.name, rows, cols)
}

impl std::str::FromStr for AnyGame {
    type Err = GameError;
    fn from_str(s: &str) -> Result<Self, GameError> {
        load_game(s)
    }
}

impl fmt::Display for AnyGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.game_string())
    }
}

impl AnyGame {
    /// The board dimensions of a board game.
    pub fn dims(&self) -> Option<Dims> {
        match self {
            AnyGame::Hex(g) => Some(g.dims()),
            AnyGame::DarkHex(g) => Some(g.dims()),
            AnyGame::PhantomTtt(_) => Some(crate::phantom_ttt::DIMS),
            _ => None,
        }
    }

    /// Whether the game hides the opponent's placements on a board (Dark
    /// Hex, Dark Rex, phantom tic-tac-toe): the games whose players see a
    /// view of the real board, and whose information-state tables are
    /// built without walking their histories.
    pub fn is_dark_board(&self) -> bool {
        matches!(self, AnyGame::DarkHex(_) | AnyGame::PhantomTtt(_))
    }
}

/// Calls `$body` with `$g` bound to the concrete game inside an [`AnyGame`],
/// so generic code runs monomorphised for each game.
#[macro_export]
macro_rules! with_game {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::AnyGame::Hex($g) => $body,
            $crate::AnyGame::DarkHex($g) => $body,
            $crate::AnyGame::PhantomTtt($g) => $body,
            $crate::AnyGame::Kuhn($g) => $body,
            $crate::AnyGame::Leduc($g) => $body,
            $crate::AnyGame::LiarsDice($g) => $body,
        }
    };
}

macro_rules! each_state {
    ($s:expr, $x:ident => $body:expr) => {
        match $s {
            AnyState::Hex($x) => $body,
            AnyState::DarkHex($x) => $body,
            AnyState::PhantomTtt($x) => $body,
            AnyState::Kuhn($x) => $body,
            AnyState::Leduc($x) => $body,
            AnyState::LiarsDice($x) => $body,
        }
    };
}

impl Game for AnyGame {
    type State = AnyState;

    fn new_initial_state(&self) -> AnyState {
        match self {
            AnyGame::Hex(g) => AnyState::Hex(g.new_initial_state()),
            AnyGame::DarkHex(g) => AnyState::DarkHex(g.new_initial_state()),
            AnyGame::Kuhn(g) => AnyState::Kuhn(g.new_initial_state()),
            AnyGame::PhantomTtt(g) => AnyState::PhantomTtt(g.new_initial_state()),
            AnyGame::Leduc(g) => AnyState::Leduc(g.new_initial_state()),
            AnyGame::LiarsDice(g) => AnyState::LiarsDice(g.new_initial_state()),
        }
    }

    fn num_distinct_actions(&self) -> usize {
        with_game!(self, g => g.num_distinct_actions())
    }

    fn max_game_length(&self) -> usize {
        with_game!(self, g => g.max_game_length())
    }

    fn game_string(&self) -> String {
        with_game!(self, g => g.game_string())
    }

    fn min_utility(&self) -> f64 {
        with_game!(self, g => g.min_utility())
    }

    fn max_utility(&self) -> f64 {
        with_game!(self, g => g.max_utility())
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        with_game!(self, g => g.parse_action(text))
    }

    fn action_name(&self, action: Action) -> String {
        with_game!(self, g => g.action_name(action))
    }

    fn chance_outcome_name(&self, action: Action) -> String {
        with_game!(self, g => g.chance_outcome_name(action))
    }

    fn describe_token(&self, token: Token) -> String {
        with_game!(self, g => g.describe_token(token))
    }

    fn render_info_state(&self, player: usize, key: &[Token]) -> String {
        with_game!(self, g => g.render_info_state(player, key))
    }

    fn info_state_actions(&self, player: usize, key: &[Token]) -> Result<Vec<Action>, String> {
        with_game!(self, g => g.info_state_actions(player, key))
    }
}

impl State for AnyState {
    #[inline]
    fn current_player(&self) -> Turn {
        each_state!(self, s => s.current_player())
    }

    fn legal_actions_into(&self, out: &mut Vec<Action>) {
        each_state!(self, s => s.legal_actions_into(out))
    }

    fn legal_mask_into(&self, buf: &mut Vec<Action>, words: &mut [u64]) {
        each_state!(self, s => s.legal_mask_into(buf, words))
    }

    #[inline]
    fn pick_legal_action(
        &self,
        buf: &mut Vec<Action>,
        pick: impl FnOnce(usize) -> usize,
    ) -> Option<Action> {
        each_state!(self, s => s.pick_legal_action(buf, pick))
    }

    fn apply(&mut self, action: Action) {
        each_state!(self, s => s.apply(action))
    }

    fn check_action(&self, action: Action) -> Result<(), GameError> {
        each_state!(self, s => s.check_action(action))
    }

    fn returns(&self) -> [f64; NUM_PLAYERS] {
        each_state!(self, s => s.returns())
    }

    fn info_key(&self, player: usize) -> &[Token] {
        each_state!(self, s => s.info_key(player))
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        each_state!(self, s => s.chance_outcomes())
    }

    fn history(&self) -> &[Action] {
        each_state!(self, s => s.history())
    }

    fn view_string(&self, player: usize) -> String {
        each_state!(self, s => s.view_string(player))
    }
}

impl fmt::Display for AnyState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        each_state!(self, s => fmt::Display::fmt(s, f))
    }
}

/// Each game's own tensors; a state of another game than `self` (which no
/// caller builds) leaves `out` as it is.
impl crate::tensor::Tensors for AnyGame {
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        with_game!(self, g => g.information_state_tensor_shape())
    }

    fn observation_tensor_shape(&self) -> Vec<usize> {
        with_game!(self, g => g.observation_tensor_shape())
    }

    fn information_state_tensor(&self, state: &AnyState, player: usize, out: &mut [f32]) {
        match (self, state) {
            (AnyGame::Hex(g), AnyState::Hex(s)) => g.information_state_tensor(s, player, out),
            (AnyGame::DarkHex(g), AnyState::DarkHex(s)) => {
                g.information_state_tensor(s, player, out)
            }
            (AnyGame::Kuhn(g), AnyState::Kuhn(s)) => g.information_state_tensor(s, player, out),
            (AnyGame::PhantomTtt(g), AnyState::PhantomTtt(s)) => {
                g.information_state_tensor(s, player, out)
            }
            (AnyGame::Leduc(g), AnyState::Leduc(s)) => g.information_state_tensor(s, player, out),
            (AnyGame::LiarsDice(g), AnyState::LiarsDice(s)) => {
                g.information_state_tensor(s, player, out)
            }
            _ => {}
        }
    }

    fn information_state_tensor_of_key(
        &self,
        player: usize,
        key: &[Token],
        out: &mut [f32],
    ) -> Result<(), String> {
        with_game!(self, g => g.information_state_tensor_of_key(player, key, out))
    }

    fn observation_tensor(&self, state: &AnyState, player: usize, out: &mut [f32]) {
        match (self, state) {
            (AnyGame::Hex(g), AnyState::Hex(s)) => g.observation_tensor(s, player, out),
            (AnyGame::DarkHex(g), AnyState::DarkHex(s)) => g.observation_tensor(s, player, out),
            (AnyGame::Kuhn(g), AnyState::Kuhn(s)) => g.observation_tensor(s, player, out),
            (AnyGame::PhantomTtt(g), AnyState::PhantomTtt(s)) => {
                g.observation_tensor(s, player, out)
            }
            (AnyGame::Leduc(g), AnyState::Leduc(s)) => g.observation_tensor(s, player, out),
            (AnyGame::LiarsDice(g), AnyState::LiarsDice(s)) => g.observation_tensor(s, player, out),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_strings_parse_back() {
        for text in EXAMPLE_GAME_STRINGS.iter().chain(&[
            "hex",
            "dark_hex",
            "dark_hex(num_rows=2,num_cols=3,obstype=reveal-numturns)",
            "dark_rex(board_size=4)",
            "hex(num_rows=1,num_cols=26)",
            "phantom_ttt(obstype=reveal-numturns,gameversion=abrupt)",
            "liars_dice(dice_sides=4,numdice=2)",
            "liars_dice(players=2,numdice=1)",
        ]) {
            let g = load_game(text).unwrap();
            let canon = g.game_string();
            assert_eq!(load_game(&canon).unwrap(), g, "{text} -> {canon}");
        }
        assert_eq!(
            load_game("hex").unwrap().game_string(),
            "hex(board_size=11)"
        );
        assert_eq!(
            load_game("dark_hex").unwrap().game_string(),
            "dark_hex(board_size=3)"
        );
        for (text, canon) in [
            ("phantom_ttt(gameversion=classical)", "phantom_ttt"),
            (
                "phantom_ttt(obstype=reveal-numturns,gameversion=abrupt)",
                "phantom_ttt(gameversion=abrupt,obstype=reveal-numturns)",
            ),
            ("liars_dice(players=2,numdice=1,dice_sides=6)", "liars_dice"),
            (
                "liars_dice(dice_sides=4,numdice=2)",
                "liars_dice(numdice=2,dice_sides=4)",
            ),
        ] {
            assert_eq!(load_game(text).unwrap().game_string(), canon);
        }
    }

    #[test]
    fn errors_name_the_accepted_values() {
        let e = load_game("chess").unwrap_err().to_string();
        assert!(
            e.contains("chess") && e.contains("dark_hex") && e.contains("leduc_poker"),
            "{e}"
        );
        let e = load_game("hex(size=3)").unwrap_err().to_string();
        assert!(
            e.contains("size") && e.contains("board_size, num_rows, num_cols"),
            "{e}"
        );
        let e = load_game("hex(board_size=0)").unwrap_err().to_string();
        assert!(e.contains("from 1 to 26"), "{e}");
        let e = load_game("hex(board_size=27)").unwrap_err().to_string();
        assert!(e.contains("27"), "{e}");
        let e = load_game("dark_hex(gameversion=xdh)")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cdh, adh"), "{e}");
        let e = load_game("dark_hex(disclosure=loud)")
            .unwrap_err()
            .to_string();
        assert!(e.contains("none, noise, flash"), "{e}");
        let e = load_game("phantom_ttt(gameversion=cdh)")
            .unwrap_err()
            .to_string();
        assert!(e.contains("classical, abrupt"), "{e}");
        let e = load_game("phantom_ttt(board_size=4)")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("accepted parameters are gameversion, obstype"),
            "{e}"
        );
        let e = load_game("liars_dice(players=3)").unwrap_err().to_string();
        assert!(
            e.contains("'3'") && e.contains("accepted values are 2"),
            "{e}"
        );
        let e = load_game("liars_dice(bidding_rule=reset-quantity)")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("bidding_rule") && e.contains("players, numdice, dice_sides"),
            "{e}"
        );
        let e = load_game("liars_dice(numdice=6)").unwrap_err().to_string();
        assert!(e.contains("integers from 1 to 5"), "{e}");
        let e = load_game("kuhn_poker(players=3)").unwrap_err().to_string();
        assert!(e.contains("none"), "{e}");
        assert!(load_game("hex(board_size=-1)").is_err());
        assert!(load_game("hex(board_size=3.5)").is_err());
    }
}
