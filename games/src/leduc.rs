//! Leduc poker as in OpenSpiel: six cards (three ranks, two of each), ante 1,
//! two betting rounds with raises of 2 then 4 and at most two raises each, a
//! public card between the rounds; a pair with the public card wins, then the
//! higher private card, else the pot is split.

use std::fmt;

use smallvec::SmallVec;

use crate::error::GameError;
use crate::game::{Action, Game, NUM_PLAYERS, State, Token, Turn};
use crate::poker::{Log, NO_CARD, parse_named, replay_info_state, settle};
/// The tokens of a card in an information-state key: the base plus the card.
pub use crate::poker::{PRIVATE_CARD, PUBLIC_CARD};

pub const FOLD: Action = 0;
pub const CALL: Action = 1;
pub const RAISE: Action = 2;
/// Cards in the deck: three ranks, two of each.
pub const DECK: usize = 6;
const CARDS: [&str; DECK] = ["Js", "Jh", "Qs", "Qh", "Ks", "Kh"];
const MAX_RAISES: u8 = 2;
const RAISE_SIZE: [u8; 2] = [2, 4];

fn rank(card: u8) -> u8 {
    card / 2
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LeducGame;

impl Game for LeducGame {
    type State = LeducState;

    fn new_initial_state(&self) -> LeducState {
        LeducState {
            hand: LeducHand::NEW,
            history: SmallVec::new(),
            logs: Default::default(),
        }
    }

    fn num_distinct_actions(&self) -> usize {
        3
    }

    /// Three deals and at most four actions per round (call, raise, raise, call).
    fn max_game_length(&self) -> usize {
        11
    }

    fn game_string(&self) -> String {
        "leduc_poker".to_string()
    }

    /// Ante 1, raises 2 + 2 in round one and 4 + 4 in round two.
    fn min_utility(&self) -> f64 {
        -13.0
    }

    fn max_utility(&self) -> f64 {
        13.0
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        parse_named(
            text,
            &[
                ("fold", FOLD),
                ("call", CALL),
                ("check", CALL),
                ("raise", RAISE),
                ("bet", RAISE),
            ],
        )
    }

    fn action_name(&self, action: Action) -> String {
        match action {
            FOLD => "fold".to_string(),
            CALL => "call".to_string(),
            RAISE => "raise".to_string(),
            // Not an action of the game (a damaged file can name one).
            other => format!("action {other}"),
        }
    }

    fn chance_outcome_name(&self, action: Action) -> String {
        CARDS
            .get(action as usize)
            .map_or_else(|| action.to_string(), |c| c.to_string())
    }

    fn describe_token(&self, t: Token) -> String {
        let card = |base: Token| CARDS.get(t.wrapping_sub(base) as usize);
        if let Some(c) = card(PUBLIC_CARD) {
            format!("public {c}")
        } else if let Some(c) = card(PRIVATE_CARD) {
            format!("dealt {c}")
        } else if t <= RAISE {
            self.action_name(t)
        } else {
            format!("token {t:#x}")
        }
    }

    fn info_state_actions(&self, player: usize, key: &[Token]) -> Result<Vec<Action>, String> {
        replay_info_state(self, player, key, DECK).map(|s| s.legal_actions())
    }
}

const NOBODY: u8 = NUM_PLAYERS as u8;

/// What decides a Leduc hand's future: the cards and the betting, in a dozen
/// bytes that copy in one move. The State below adds the history and the
/// players' logs; the sampled CFR walks over the information-state tables
/// use it bare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LeducHand {
    private: [u8; NUM_PLAYERS],
    public: u8,
    /// 0 or 1 while betting, 2 once the second round is over.
    round: u8,
    round_actions: u8,
    raises: u8,
    to_move: u8,
    /// Who folded, `NOBODY` until someone does.
    folded: u8,
    /// Ante 1 and at most 2 + 2 + 4 + 4: never above 13.
    contributions: [u8; NUM_PLAYERS],
}

impl LeducHand {
    /// The hand before the deal: antes in, no card dealt.
    pub const NEW: LeducHand = LeducHand {
        private: [NO_CARD; NUM_PLAYERS],
        public: NO_CARD,
        round: 0,
        round_actions: 0,
        raises: 0,
        to_move: 0,
        folded: NOBODY,
        contributions: [1; NUM_PLAYERS],
    };

    #[inline]
    pub fn turn(&self) -> Turn {
        if self.folded != NOBODY || self.round == 2 {
            Turn::Terminal
        } else if self.has(NO_CARD) || (self.round == 1 && self.public == NO_CARD) {
            Turn::Chance
        } else {
            Turn::Player(self.to_move as usize)
        }
    }

    #[inline]
    pub fn dealt(&self, card: u8) -> bool {
        self.has(card) || self.public == card
    }

    /// Whether a private card is `card`: compared one by one, as a slice's
    /// `contains` on bytes calls out to memchr, a call per node of a walk.
    #[inline]
    fn has(&self, card: u8) -> bool {
        self.private[0] == card || self.private[1] == card
    }

    /// The cards left to deal, each equally likely.
    #[inline]
    pub fn undealt(&self) -> impl Iterator<Item = u8> + use<> {
        let left = self.undealt_mask();
        (0..DECK as u8).filter(move |&c| left >> c & 1 != 0)
    }

    /// The cards left to deal as bits (card `c` at bit `c`): the walks
    /// over the tables deal millions of cards a second.
    #[inline]
    pub fn undealt_mask(&self) -> u8 {
        let bit = |c: u8| if (c as usize) < DECK { 1u8 << c } else { 0 };
        let dealt = bit(self.private[0]) | bit(self.private[1]) | bit(self.public);
        ((1u8 << DECK) - 1) & !dealt
    }

    /// The mover's legal bets, in action order.
    #[inline]
    pub fn bets(&self) -> impl Iterator<Item = Action> + use<> {
        let [fold, raise] = self.bet_options();
        [(FOLD, fold), (CALL, true), (RAISE, raise)]
            .into_iter()
            .filter_map(|(a, ok)| ok.then_some(a))
    }

    /// Whether the mover may fold (facing a bet) and may raise; calling
    /// is always legal.
    #[inline]
    pub fn bet_options(&self) -> [bool; 2] {
        let p = self.to_move as usize;
        let facing_bet = self.contributions[p] < self.contributions[1 - p];
        [facing_bet, self.raises < MAX_RAISES]
    }

    /// Deals `card` at a chance node: the next private card, `Some(player)`,
    /// or the public card, `None`.
    #[inline]
    pub fn deal(&mut self, card: u8) -> Option<usize> {
        match self.private.iter().position(|&c| c == NO_CARD) {
            Some(p) => {
                self.private[p] = card;
                Some(p)
            }
            None => {
                self.public = card;
                None
            }
        }
    }

    /// The mover's bet; a call that closes a round starts the next.
    #[inline]
    pub fn bet(&mut self, action: Action) {
        let p = self.to_move as usize;
        let top = self.contributions[1 - p].max(self.contributions[p]);
        self.round_actions += 1;
        match action {
            FOLD => self.folded = p as u8,
            CALL => {
                self.contributions[p] = top;
                if self.round_actions >= 2 {
                    self.round += 1;
                    self.round_actions = 0;
                    self.raises = 0;
                    self.to_move = 0;
                    return;
                }
            }
            _ => {
                self.contributions[p] = top + RAISE_SIZE[self.round as usize];
                self.raises += 1;
            }
        }
        self.to_move = 1 - p as u8;
    }

    /// The players' returns at a terminal hand: the winner takes the
    /// loser's contribution; a tie returns every chip.
    pub fn returns(&self) -> [f64; NUM_PLAYERS] {
        let winner = if self.folded != NOBODY {
            Some(1 - self.folded as usize)
        } else {
            self.showdown_winner()
        };
        settle(self.contributions.map(u32::from), winner)
    }

    fn showdown_winner(&self) -> Option<usize> {
        let paired = |p: usize| rank(self.private[p]) == rank(self.public);
        match (paired(0), paired(1)) {
            (true, false) => Some(0),
            (false, true) => Some(1),
            _ => match rank(self.private[0]).cmp(&rank(self.private[1])) {
                std::cmp::Ordering::Greater => Some(0),
                std::cmp::Ordering::Less => Some(1),
                std::cmp::Ordering::Equal => None,
            },
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeducState {
    hand: LeducHand,
    history: SmallVec<[Action; 11]>,
    logs: [Log; NUM_PLAYERS],
}

impl State for LeducState {
    fn current_player(&self) -> Turn {
        self.hand.turn()
    }

    fn legal_actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        match self.current_player() {
            Turn::Player(_) => out.extend(self.hand.bets()),
            Turn::Chance => out.extend(self.hand.undealt().map(Action::from)),
            Turn::Terminal => {}
        }
    }

    fn apply(&mut self, action: Action) {
        self.history.push(action);
        if self.current_player() == Turn::Chance {
            match self.hand.deal(action as u8) {
                Some(p) => self.logs[p].push(PRIVATE_CARD + action),
                None => {
                    for log in &mut self.logs {
                        log.push(PUBLIC_CARD + action);
                    }
                }
            }
            return;
        }
        for log in &mut self.logs {
            log.push(action);
        }
        self.hand.bet(action);
    }

    fn check_action(&self, action: Action) -> Result<(), GameError> {
        match self.current_player() {
            Turn::Terminal => Err(GameError::GameOver),
            Turn::Chance if (action as usize) < DECK && !self.hand.dealt(action as u8) => Ok(()),
            Turn::Chance => Err(GameError::IllegalMove {
                name: action.to_string(),
                reason: format!(
                    "a chance node deals a card not yet dealt, from {}",
                    CARDS.join(" ")
                ),
            }),
            Turn::Player(_) => {
                if self.legal_actions().contains(&action) {
                    Ok(())
                } else {
                    let legal: Vec<String> = self
                        .legal_actions()
                        .iter()
                        .map(|&a| LeducGame.action_name(a))
                        .collect();
                    Err(GameError::IllegalMove {
                        name: LeducGame.action_name(action),
                        reason: format!("legal actions are {}", legal.join(", ")),
                    })
                }
            }
        }
    }

    fn returns(&self) -> [f64; NUM_PLAYERS] {
        match self.current_player() {
            Turn::Terminal => self.hand.returns(),
            _ => [0.0; NUM_PLAYERS],
        }
    }

    fn info_key(&self, player: usize) -> &[Token] {
        &self.logs[player]
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        if self.current_player() != Turn::Chance {
            return Vec::new();
        }
        let left: Vec<Action> = self.hand.undealt().map(Action::from).collect();
        let p = 1.0 / left.len() as f64;
        left.into_iter().map(|a| (a, p)).collect()
    }

    fn history(&self) -> &[Action] {
        &self.history
    }

    fn view_string(&self, player: usize) -> String {
        let card = |c: u8| CARDS.get(c as usize).copied().unwrap_or("?");
        format!(
            "card {}; public {}; pot {} / {}\n",
            card(self.hand.private[player]),
            card(self.hand.public),
            self.hand.contributions[0],
            self.hand.contributions[1]
        )
    }
}

impl fmt::Display for LeducState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let card = |c: u8| CARDS.get(c as usize).copied().unwrap_or("?");
        // Player 0's log holds every public event after their own deal.
        let events: Vec<String> = self.logs[0]
            .iter()
            .skip(1)
            .map(|&t| LeducGame.describe_token(t))
            .collect();
        writeln!(
            f,
            "cards {} {}; contributions {} {}; {}",
            card(self.hand.private[0]),
            card(self.hand.private[1]),
            self.hand.contributions[0],
            self.hand.contributions[1],
            events.join(", ")
        )
    }
}

/// Bets a round can hold: call, raise, raise, call.
const ROUND_SLOTS: usize = 4;

/// OpenSpiel's layouts: the player, their card, the public card, then the
/// bets of each round (information state) or each player's chips in the pot
/// (observation).
impl crate::tensor::Tensors for LeducGame {
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        vec![NUM_PLAYERS + 2 * DECK + 2 * ROUND_SLOTS * 2]
    }

    fn observation_tensor_shape(&self) -> Vec<usize> {
        vec![NUM_PLAYERS + 2 * DECK + NUM_PLAYERS]
    }

    fn information_state_tensor_of_key(
        &self,
        player: usize,
        key: &[Token],
        out: &mut [f32],
    ) -> Result<(), String> {
        let state = replay_info_state(self, player, key, DECK)?;
        self.information_state_tensor(&state, player, out);
        Ok(())
    }

    fn information_state_tensor(&self, state: &LeducState, player: usize, out: &mut [f32]) {
        self.player_and_cards(state, player, out);
        let bets = NUM_PLAYERS + 2 * DECK;
        let (mut round, mut slot) = (0, 0);
        for &t in &state.logs[player] {
            if t >= PUBLIC_CARD {
                (round, slot) = (1, 0);
            } else if t < PRIVATE_CARD {
                // A fold ends the hand and has no column, as in OpenSpiel.
                if t != FOLD {
                    out[bets + (round * ROUND_SLOTS + slot) * 2 + t as usize - 1] = 1.0;
                }
                slot += 1;
            }
        }
    }

    fn observation_tensor(&self, state: &LeducState, player: usize, out: &mut [f32]) {
        self.player_and_cards(state, player, out);
        let pot = NUM_PLAYERS + 2 * DECK;
        for (p, &c) in state.hand.contributions.iter().enumerate() {
            out[pot + p] = f32::from(c);
        }
    }
}

impl LeducGame {
    fn player_and_cards(&self, state: &LeducState, player: usize, out: &mut [f32]) {
        out[player] = 1.0;
        let (own, public) = (state.hand.private[player], state.hand.public);
        if (own as usize) < DECK {
            out[NUM_PLAYERS + own as usize] = 1.0;
        }
        if (public as usize) < DECK {
            out[NUM_PLAYERS + DECK + public as usize] = 1.0;
        }
    }
}
