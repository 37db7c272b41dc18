//! Dark Hex, Dark Rex and phantom tic-tac-toe for the streaming passes:
//! the real board as three bit sets, and win detection by one lookup in a
//! table of every stone set that wins for a player (joins their sides, or
//! holds a line of three). The three games share their rules of hidden
//! placement, and tic-tac-toe adds draws: a board filled without a line.
//! Its observations are those of [`darkhex_games::dark_hex`] and
//! [`darkhex_games::phantom_ttt`] (the same tokens, the same order), so
//! tables built on it agree with the State API's information states.

use darkhex_games::dark_hex::{DarkHexGame, Disclosure, GameVersion, ObsType, token};
use darkhex_games::phantom_ttt::{self, PhantomTttGame};
use darkhex_games::{Action, Game, NUM_PLAYERS, Token, Turn};

use super::error::StreamError;
use super::tables::Row;
use super::walkable::{MAX_SYMBOLS, Moves, NO_SYMBOL, PackedStream, Shown, StreamGame};

/// Three 20-bit sets pack into one word, and the win tables stay at 128 KB.
pub const MAX_CELLS: usize = 20;

const NO_WINNER: u8 = 2;
/// A tic-tac-toe board filled without a line.
const DRAW: u8 = 3;

/// A history reduced to what decides its future.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DarkHexNode {
    pub(super) stones: [u32; NUM_PLAYERS],
    /// Stones their owner's opponent has collided with.
    pub(super) revealed: u32,
    pub(super) to_move: u8,
    pub(super) winner: u8,
}

#[derive(Clone, Debug)]
pub struct DarkHexStream {
    game_string: String,
    cells: usize,
    all: u32,
    abrupt: bool,
    misere: bool,
    alphabet: Vec<Token>,
    /// What the opponent is shown of a placement.
    placement_shown: u8,
    /// What the owner of the stone on a cell is shown of a collision there.
    collision_shown: Vec<u8>,
    /// Bit `s` of `joins[p]` is set when stone set `s` wins for player p
    /// (joins their sides; in Dark Rex, loses).
    joins: [Vec<u64>; NUM_PLAYERS],
}

impl DarkHexStream {
    pub fn new(game: &DarkHexGame) -> Result<Self, StreamError> {
        let cells = game.dims().cells();
        if cells > MAX_CELLS {
            return Err(StreamError::BoardTooLarge {
                game: game.game_string(),
                cells,
                max: MAX_CELLS,
            });
        }
        Self::with_rules(
            game.game_string(),
            cells,
            game.version(),
            game.obstype(),
            game.disclosure(),
            game.is_misere(),
            [join_table(game, 0), join_table(game, 1)],
        )
    }

    /// Phantom tic-tac-toe: the same walk with lines of three for chains.
    pub fn phantom_ttt(game: &PhantomTttGame) -> Result<Self, StreamError> {
        let sets = 1usize << phantom_ttt::CELLS;
        let mut lines = vec![0u64; sets.div_ceil(64)];
        for s in (0..sets).filter(|&s| phantom_ttt::has_line(s as u16)) {
            lines[s >> 6] |= 1 << (s & 63);
        }
        Self::with_rules(
            game.game_string(),
            phantom_ttt::CELLS,
            game.version(),
            game.obstype(),
            Disclosure::None,
            false,
            [lines.clone(), lines],
        )
    }

    fn with_rules(
        game_string: String,
        cells: usize,
        version: GameVersion,
        obstype: ObsType,
        disclosure: Disclosure,
        misere: bool,
        joins: [Vec<u64>; NUM_PLAYERS],
    ) -> Result<Self, StreamError> {
        // Ascending tokens: placed, collided, opponent turn, noise, flash.
        let mut alphabet: Vec<Token> = (0..cells as Token).map(|c| token::PLACED | c).collect();
        alphabet.extend((0..cells as Token).map(|c| token::COLLIDED | c));
        let symbol_of_next = |alphabet: &Vec<Token>| alphabet.len() as u8;
        let turn = (obstype == ObsType::RevealNumTurns).then(|| {
            let s = symbol_of_next(&alphabet);
            alphabet.push(token::OPPONENT_TURN);
            s
        });
        let collision_shown: Vec<u8> = match disclosure {
            Disclosure::None => vec![turn.unwrap_or(NO_SYMBOL); cells],
            Disclosure::Noise => {
                let s = symbol_of_next(&alphabet);
                alphabet.push(token::NOISE);
                vec![s; cells]
            }
            Disclosure::Flash => {
                let base = symbol_of_next(&alphabet);
                alphabet.extend((0..cells as Token).map(|c| token::FLASH | c));
                (0..cells).map(|c| base + c as u8).collect()
            }
        };
        if alphabet.len() > MAX_SYMBOLS {
            return Err(StreamError::TooManyObservations {
                game: game_string,
                symbols: alphabet.len(),
                max: MAX_SYMBOLS,
            });
        }
        Ok(DarkHexStream {
            game_string,
            cells,
            all: ((1u64 << cells) - 1) as u32,
            abrupt: version == GameVersion::Abrupt,
            misere,
            alphabet,
            placement_shown: turn.unwrap_or(NO_SYMBOL),
            collision_shown,
            joins,
        })
    }

    #[inline]
    fn joined(&self, player: usize, stones: u32) -> bool {
        let s = stones as usize;
        self.joins[player][s >> 6] >> (s & 63) & 1 != 0
    }
}

/// A node in words for the walks specialised to Dark Hex: the stones and
/// the stones revealed by collisions. The player to move is the walk
/// functions' const parameter `M`, so that every index by player is a
/// constant and the board, rows and reach stay in registers (indexed by a
/// variable they went through the stack, and each child's copy stalled on
/// the store of the entry just changed).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RealBoard {
    pub stones: [u32; NUM_PLAYERS],
    pub revealed: u32,
}

impl RealBoard {
    pub fn of(node: &DarkHexNode) -> RealBoard {
        RealBoard {
            stones: node.stones,
            revealed: node.revealed,
        }
    }
}

/// What an attempt does to the real board.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Played {
    /// The game ended: player 0's utility.
    Over(f64),
    /// The cell held an opponent stone, now revealed.
    Collided(RealBoard),
    /// The stone went down and the game goes on.
    Placed(RealBoard),
}

/// A move's outcome, with each player's row after it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Child {
    /// The mover won (or, in Dark Rex, lost), or filled a tic-tac-toe
    /// board without a line: player 0's utility.
    Terminal(f64),
    /// The mover found an opponent stone: in classic Dark Hex they move again.
    Again(RealBoard, [u32; NUM_PLAYERS]),
    /// The opponent moves next.
    Passed(RealBoard, [u32; NUM_PLAYERS]),
}

impl DarkHexStream {
    /// The cells empty in the view of `M`, who is to move: their legal moves.
    #[inline(always)]
    pub(crate) fn legal<const M: usize>(&self, node: RealBoard) -> u32 {
        let seen = node.stones[M] | (node.stones[1 - M] & node.revealed);
        self.all & !seen
    }

    /// What `M`'s attempt on `cell` (empty in their view) does to `node`.
    #[inline(always)]
    pub(crate) fn play<const M: usize>(&self, node: RealBoard, cell: u32) -> Played {
        let o = 1 - M;
        let bit = 1u32 << cell;
        if node.stones[o] & bit != 0 {
            return Played::Collided(RealBoard {
                revealed: node.revealed | bit,
                ..node
            });
        }
        let mut stones = node.stones;
        stones[M] |= bit;
        if self.joined(M, stones[M]) {
            let winner = if self.misere { o } else { M };
            return Played::Over(if winner == 0 { 1.0 } else { -1.0 });
        }
        // Only tic-tac-toe fills its board without a winner.
        if stones[0] | stones[1] == self.all {
            return Played::Over(0.0);
        }
        Played::Placed(RealBoard { stones, ..node })
    }

    /// Whether a collision gives the mover another turn (classic rules).
    #[inline(always)]
    pub(crate) fn moves_again(&self) -> bool {
        !self.abrupt
    }

    /// The child of `node` under `M`'s move on `cell`, each player's row
    /// (`rows`, in the tables `table_rows`) moved by what it shows them;
    /// `mover_row` is `M`'s row's fields. The same child as [`Self::apply`]'s.
    #[inline(always)]
    pub(crate) fn child<const M: usize>(
        &self,
        table_rows: [&[Row]; NUM_PLAYERS],
        node: RealBoard,
        rows: [u32; NUM_PLAYERS],
        mover_row: &Row,
        cell: u32,
    ) -> Child {
        let o = 1 - M;
        let mut next_rows = rows;
        match self.play::<M>(node, cell) {
            Played::Over(u) => Child::Terminal(u),
            Played::Collided(child) => {
                next_rows[M] = mover_row.child((self.cells as u32 + cell) as u8);
                let shown = self.collision_shown[cell as usize];
                if shown != NO_SYMBOL {
                    next_rows[o] = table_rows[o][rows[o] as usize].child(shown);
                }
                if self.abrupt {
                    Child::Passed(child, next_rows)
                } else {
                    Child::Again(child, next_rows)
                }
            }
            Played::Placed(child) => {
                next_rows[M] = mover_row.child(cell as u8);
                if self.placement_shown != NO_SYMBOL {
                    next_rows[o] = table_rows[o][rows[o] as usize].child(self.placement_shown);
                }
                Child::Passed(child, next_rows)
            }
        }
    }
}

/// Which stone sets join `player`'s two sides, by flood fill from the
/// first side within each set.
fn join_table(game: &DarkHexGame, player: usize) -> Vec<u64> {
    let dims = game.dims();
    let cells = dims.cells();
    let neighbours: Vec<u32> = (0..cells)
        .map(|c| dims.neighbours(c).fold(0, |m, n| m | 1 << n))
        .collect();
    let side = |first: bool| -> u32 {
        (0..cells)
            .filter(|&c| {
                let (r, col) = dims.row_col(c);
                match (player, first) {
                    (0, true) => r == 0,
                    (0, false) => r + 1 == dims.rows(),
                    (_, true) => col == 0,
                    (_, false) => col + 1 == dims.cols(),
                }
            })
            .fold(0, |m, c| m | 1 << c)
    };
    let (start, goal) = (side(true), side(false));
    let sets = 1usize << cells;
    let mut table = vec![0u64; sets.div_ceil(64)];
    for s in 0..sets {
        let stones = s as u32;
        let mut reached = stones & start;
        loop {
            let mut grown = reached;
            let mut rest = reached;
            while rest != 0 {
                grown |= neighbours[rest.trailing_zeros() as usize];
                rest &= rest - 1;
            }
            grown &= stones;
            if grown == reached {
                break;
            }
            reached = grown;
        }
        if reached & goal != 0 {
            table[s >> 6] |= 1 << (s & 63);
        }
    }
    table
}

impl StreamGame for DarkHexStream {
    type Node = DarkHexNode;

    fn game_string(&self) -> String {
        self.game_string.clone()
    }

    fn alphabet(&self) -> &[Token] {
        &self.alphabet
    }

    fn root(&self) -> DarkHexNode {
        DarkHexNode {
            stones: [0, 0],
            revealed: 0,
            to_move: 0,
            winner: NO_WINNER,
        }
    }

    #[inline]
    fn turn(&self, node: &DarkHexNode) -> Turn {
        if node.winner == NO_WINNER {
            Turn::Player(node.to_move as usize)
        } else {
            Turn::Terminal
        }
    }

    #[inline]
    fn moves(&self, node: &DarkHexNode, out: &mut Moves) {
        out.clear();
        let m = node.to_move as usize;
        let seen = node.stones[m] | (node.stones[1 - m] & node.revealed);
        let mut free = self.all & !seen;
        while free != 0 {
            out.push(free.trailing_zeros() as Action, 0.0);
            free &= free - 1;
        }
    }

    #[inline(always)]
    fn apply(&self, node: &DarkHexNode, action: Action, child: &mut DarkHexNode) -> Shown {
        let m = node.to_move as usize;
        let cell = action as usize;
        let bit = 1u32 << cell;
        *child = *node;
        let mut shown = [NO_SYMBOL; NUM_PLAYERS];
        if node.stones[1 - m] & bit != 0 {
            child.revealed |= bit;
            shown[m] = (self.cells + cell) as u8;
            shown[1 - m] = self.collision_shown[cell];
            if self.abrupt {
                child.to_move = 1 - m as u8;
            }
        } else {
            child.stones[m] |= bit;
            shown[m] = cell as u8;
            shown[1 - m] = self.placement_shown;
            if self.joined(m, child.stones[m]) {
                child.winner = if self.misere { 1 - m as u8 } else { m as u8 };
            } else if child.stones[0] | child.stones[1] == self.all {
                child.winner = DRAW;
            } else {
                child.to_move = 1 - m as u8;
            }
        }
        shown
    }

    #[inline]
    fn utility(&self, node: &DarkHexNode) -> f64 {
        match node.winner {
            0 => 1.0,
            DRAW => 0.0,
            _ => -1.0,
        }
    }

    fn max_abs_utility(&self) -> f64 {
        1.0
    }
}

impl PackedStream for DarkHexStream {
    #[inline]
    fn pack(&self, n: &DarkHexNode) -> u64 {
        n.stones[0] as u64
            | (n.stones[1] as u64) << 20
            | (n.revealed as u64) << 40
            | (n.to_move as u64) << 60
            | (n.winner as u64) << 61
    }

    #[inline]
    fn unpack(&self, key: u64) -> DarkHexNode {
        let set = |shift: u32| ((key >> shift) & 0xF_FFFF) as u32;
        DarkHexNode {
            stones: [set(0), set(20)],
            revealed: set(40),
            to_move: (key >> 60 & 1) as u8,
            winner: (key >> 61 & 3) as u8,
        }
    }
}
