//! Leduc poker for the walks over the tables: the rules of
//! [`darkhex_games::leduc`] on a node of a dozen bytes that copies in one
//! move, with the State API's observation tokens as symbols (so tables
//! built on it equal those built through [`super::StateStream`]), and no
//! allocation per move: the sampled CFR walks visit millions of nodes a
//! second here.

use darkhex_games::leduc::{CALL, FOLD, LeducGame, PRIVATE_CARD, PUBLIC_CARD, RAISE};
use darkhex_games::{Action, Game, NUM_PLAYERS, Token, Turn};

use super::walkable::{Moves, NO_SYMBOL, Shown, StreamGame};

const DECK: u8 = 6;
const NO_CARD: u8 = u8::MAX;
const NOBODY: u8 = 2;
const MAX_RAISES: u8 = 2;
const RAISE_SIZE: [u8; 2] = [2, 4];
/// Ante 1, raises of 2 and 4, two a round.
const MAX_UTILITY: f64 = 13.0;

/// A Leduc history reduced to what decides its future.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LeducNode {
    private: [u8; NUM_PLAYERS],
    public: u8,
    /// 0 or 1 while betting, 2 once the second round is over.
    round: u8,
    round_actions: u8,
    raises: u8,
    to_move: u8,
    folded: u8,
    contributions: [u8; NUM_PLAYERS],
}

impl LeducNode {
    fn dealt(&self, card: u8) -> bool {
        self.private.contains(&card) || self.public == card
    }
}

#[derive(Clone, Debug)]
pub struct LeducStream {
    alphabet: Vec<Token>,
}

impl Default for LeducStream {
    fn default() -> Self {
        Self::new()
    }
}

impl LeducStream {
    pub fn new() -> Self {
        // Ascending: the actions, then private cards, then public cards.
        let mut alphabet = vec![FOLD, CALL, RAISE];
        alphabet.extend((0..DECK as Token).map(|c| PRIVATE_CARD + c));
        alphabet.extend((0..DECK as Token).map(|c| PUBLIC_CARD + c));
        LeducStream { alphabet }
    }

    fn action_symbol(action: Action) -> u8 {
        action as u8
    }

    fn private_symbol(card: u8) -> u8 {
        3 + card
    }

    fn public_symbol(card: u8) -> u8 {
        3 + DECK + card
    }
}

impl StreamGame for LeducStream {
    type Node = LeducNode;

    fn game_string(&self) -> String {
        LeducGame.game_string()
    }

    fn alphabet(&self) -> &[Token] {
        &self.alphabet
    }

    fn root(&self) -> LeducNode {
        LeducNode {
            private: [NO_CARD; NUM_PLAYERS],
            public: NO_CARD,
            round: 0,
            round_actions: 0,
            raises: 0,
            to_move: 0,
            folded: NOBODY,
            contributions: [1; NUM_PLAYERS],
        }
    }

    #[inline(always)]
    fn turn(&self, n: &LeducNode) -> Turn {
        if n.folded != NOBODY || n.round == 2 {
            Turn::Terminal
        } else if n.private.contains(&NO_CARD) || (n.round == 1 && n.public == NO_CARD) {
            Turn::Chance
        } else {
            Turn::Player(n.to_move as usize)
        }
    }

    #[inline(always)]
    fn moves(&self, n: &LeducNode, out: &mut Moves) {
        out.clear();
        match self.turn(n) {
            Turn::Chance => {
                let left = (0..DECK).filter(|&c| !n.dealt(c)).count();
                let p = 1.0 / left as f64;
                for c in (0..DECK).filter(|&c| !n.dealt(c)) {
                    out.push(c as Action, p);
                }
            }
            Turn::Player(m) => {
                if n.contributions[m] < n.contributions[1 - m] {
                    out.push(FOLD, 0.0);
                }
                out.push(CALL, 0.0);
                if n.raises < MAX_RAISES {
                    out.push(RAISE, 0.0);
                }
            }
            Turn::Terminal => {}
        }
    }

    #[inline(always)]
    fn apply(&self, n: &LeducNode, action: Action, child: &mut LeducNode) -> Shown {
        *child = *n;
        if self.turn(n) == Turn::Chance {
            let card = action as u8;
            return match n.private.iter().position(|&c| c == NO_CARD) {
                Some(p) => {
                    child.private[p] = card;
                    let mut shown = [NO_SYMBOL; NUM_PLAYERS];
                    shown[p] = Self::private_symbol(card);
                    shown
                }
                None => {
                    child.public = card;
                    [Self::public_symbol(card); NUM_PLAYERS]
                }
            };
        }
        let shown = [Self::action_symbol(action); NUM_PLAYERS];
        let p = n.to_move as usize;
        let top = n.contributions[1 - p].max(n.contributions[p]);
        child.round_actions += 1;
        match action {
            FOLD => child.folded = p as u8,
            CALL => {
                child.contributions[p] = top;
                if child.round_actions >= 2 {
                    child.round += 1;
                    child.round_actions = 0;
                    child.raises = 0;
                    child.to_move = 0;
                    return shown;
                }
            }
            _ => {
                child.contributions[p] = top + RAISE_SIZE[n.round as usize];
                child.raises += 1;
            }
        }
        child.to_move = 1 - p as u8;
        shown
    }

    /// Player 0's utility as [`darkhex_games::leduc`] settles it: the
    /// winner takes the loser's contribution; a tie returns every chip.
    fn utility(&self, n: &LeducNode) -> f64 {
        let winner = if n.folded != NOBODY {
            1 - n.folded as usize
        } else {
            let rank = |c: u8| c / 2;
            let paired = |p: usize| rank(n.private[p]) == rank(n.public);
            match (paired(0), paired(1)) {
                (true, false) => 0,
                (false, true) => 1,
                _ => match rank(n.private[0]).cmp(&rank(n.private[1])) {
                    std::cmp::Ordering::Greater => 0,
                    std::cmp::Ordering::Less => 1,
                    std::cmp::Ordering::Equal => return 0.0,
                },
            }
        };
        let won = n.contributions[1 - winner] as f64;
        if winner == 0 { won } else { -won }
    }

    fn max_abs_utility(&self) -> f64 {
        MAX_UTILITY
    }
}
