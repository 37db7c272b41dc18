//! Leduc poker for the walks over the tables: the rules of
//! [`darkhex_games::leduc`] on a node of a dozen bytes that copies in one
//! move, with the State API's observation tokens as symbols (so tables
//! built on it equal those built through [`super::StateStream`]), and no
//! allocation per move: the sampled CFR walks visit millions of nodes a
//! second here.

use darkhex_games::leduc::{
    CALL, DECK, FOLD, LeducGame, LeducHand, PRIVATE_CARD, PUBLIC_CARD, RAISE,
};
use darkhex_games::{Action, Game, NUM_PLAYERS, Token, Turn};

use super::walkable::{Moves, NO_SYMBOL, Shown, StreamGame};

/// A Leduc history reduced to what decides its future.
pub type LeducNode = LeducHand;

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
        3 + DECK as u8 + card
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
        LeducHand::NEW
    }

    #[inline(always)]
    fn turn(&self, n: &LeducNode) -> Turn {
        n.turn()
    }

    #[inline(always)]
    fn moves(&self, n: &LeducNode, out: &mut Moves) {
        out.clear();
        match n.turn() {
            Turn::Chance => {
                let mut left = n.undealt_mask();
                let p = 1.0 / left.count_ones() as f64;
                while left != 0 {
                    out.push(left.trailing_zeros() as Action, p);
                    left &= left - 1;
                }
            }
            Turn::Player(_) => {
                let [fold, raise] = n.bet_options();
                if fold {
                    out.push(FOLD, 0.0);
                }
                out.push(CALL, 0.0);
                if raise {
                    out.push(RAISE, 0.0);
                }
            }
            Turn::Terminal => {}
        }
    }

    #[inline(always)]
    fn apply(&self, n: &LeducNode, action: Action, child: &mut LeducNode) -> Shown {
        *child = *n;
        if n.turn() == Turn::Chance {
            let card = action as u8;
            return match child.deal(card) {
                Some(p) => {
                    let mut shown = [NO_SYMBOL; NUM_PLAYERS];
                    shown[p] = Self::private_symbol(card);
                    shown
                }
                None => [Self::public_symbol(card); NUM_PLAYERS],
            };
        }
        child.bet(action);
        [Self::action_symbol(action); NUM_PLAYERS]
    }

    /// Player 0's utility, as the game settles it.
    #[inline(always)]
    fn utility(&self, n: &LeducNode) -> f64 {
        n.returns()[0]
    }

    fn max_abs_utility(&self) -> f64 {
        LeducGame.max_utility()
    }
}
