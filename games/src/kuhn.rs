//! Kuhn poker: three cards, one betting round; the smallest reference game.

use std::fmt;

use smallvec::SmallVec;

use crate::error::GameError;
use crate::game::{Action, Game, NUM_PLAYERS, State, Token, Turn};
use crate::poker::{Log, NO_CARD, PRIVATE_CARD, parse_named, replay_info_state, settle};

pub const PASS: Action = 0;
pub const BET: Action = 1;
const CARDS: [&str; 3] = ["J", "Q", "K"];

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KuhnGame;

impl Game for KuhnGame {
    type State = KuhnState;

    fn new_initial_state(&self) -> KuhnState {
        KuhnState {
            cards: [NO_CARD; NUM_PLAYERS],
            bets: SmallVec::new(),
            history: SmallVec::new(),
            logs: Default::default(),
        }
    }

    fn num_distinct_actions(&self) -> usize {
        2
    }

    fn max_game_length(&self) -> usize {
        5
    }

    fn game_string(&self) -> String {
        "kuhn_poker".to_string()
    }

    fn min_utility(&self) -> f64 {
        -2.0
    }

    fn max_utility(&self) -> f64 {
        2.0
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        parse_named(
            text,
            &[
                ("pass", PASS),
                ("check", PASS),
                ("fold", PASS),
                ("bet", BET),
                ("call", BET),
            ],
        )
    }

    fn action_name(&self, action: Action) -> String {
        match action {
            PASS => "pass".to_string(),
            BET => "bet".to_string(),
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
        match CARDS.get(t.wrapping_sub(PRIVATE_CARD) as usize) {
            Some(card) => format!("dealt {card}"),
            None if t <= BET => self.action_name(t),
            None => format!("token {t:#x}"),
        }
    }

    fn info_state_actions(&self, player: usize, key: &[Token]) -> Result<Vec<Action>, String> {
        replay_info_state(self, player, key, CARDS.len()).map(|s| s.legal_actions())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KuhnState {
    cards: [u8; NUM_PLAYERS],
    bets: SmallVec<[Action; 3]>,
    history: SmallVec<[Action; 5]>,
    logs: [Log; NUM_PLAYERS],
}

impl KuhnState {
    fn contributions(&self) -> [u32; NUM_PLAYERS] {
        let mut c = [1; NUM_PLAYERS];
        for (i, &b) in self.bets.iter().enumerate() {
            c[i % 2] += b as u32;
        }
        c
    }

    fn dealt(&self) -> usize {
        self.cards.iter().filter(|&&c| c != NO_CARD).count()
    }
}

impl State for KuhnState {
    fn current_player(&self) -> Turn {
        if self.dealt() < NUM_PLAYERS {
            return Turn::Chance;
        }
        match self.bets.as_slice() {
            [] => Turn::Player(0),
            [_] => Turn::Player(1),
            [PASS, BET] => Turn::Player(0),
            _ => Turn::Terminal,
        }
    }

    fn legal_actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        match self.current_player() {
            Turn::Player(_) => out.extend([PASS, BET]),
            Turn::Chance => out.extend(self.chance_outcomes().into_iter().map(|(a, _)| a)),
            Turn::Terminal => {}
        }
    }

    fn apply(&mut self, action: Action) {
        self.history.push(action);
        if self.current_player() == Turn::Chance {
            let p = self.dealt();
            self.cards[p] = action as u8;
            self.logs[p].push(PRIVATE_CARD + action);
        } else {
            self.bets.push(action);
            for log in &mut self.logs {
                log.push(action);
            }
        }
    }

    fn check_action(&self, action: Action) -> Result<(), GameError> {
        match self.current_player() {
            Turn::Terminal => Err(GameError::GameOver),
            Turn::Chance if !self.cards.contains(&(action as u8)) && (action as usize) < 3 => {
                Ok(())
            }
            Turn::Chance => Err(GameError::IllegalMove {
                name: action.to_string(),
                reason: "a chance node deals one of the cards J, Q, K not yet dealt".to_string(),
            }),
            Turn::Player(_) if action <= BET => Ok(()),
            Turn::Player(_) => Err(GameError::IllegalMove {
                name: action.to_string(),
                reason: "the actions are pass (0) and bet (1)".to_string(),
            }),
        }
    }

    fn returns(&self) -> [f64; NUM_PLAYERS] {
        if !self.is_terminal() {
            return [0.0; NUM_PLAYERS];
        }
        let folded = match self.bets.as_slice() {
            [PASS, BET, PASS] => Some(0),
            [BET, PASS] => Some(1),
            _ => None,
        };
        let winner = folded.map_or_else(
            || if self.cards[0] > self.cards[1] { 0 } else { 1 },
            |f| 1 - f,
        );
        settle(self.contributions(), Some(winner))
    }

    fn info_key(&self, player: usize) -> &[Token] {
        &self.logs[player]
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        if self.current_player() != Turn::Chance {
            return Vec::new();
        }
        let left: Vec<Action> = (0..3)
            .filter(|c| !self.cards.contains(&(*c as u8)))
            .collect();
        let p = 1.0 / left.len() as f64;
        left.into_iter().map(|a| (a, p)).collect()
    }

    fn history(&self) -> &[Action] {
        &self.history
    }

    fn view_string(&self, player: usize) -> String {
        let card = CARDS
            .get(self.cards[player] as usize)
            .copied()
            .unwrap_or("?");
        let bets: Vec<String> = self.bets.iter().map(|&b| KuhnGame.action_name(b)).collect();
        format!("card {card}; bets: {}\n", bets.join(" "))
    }
}

impl fmt::Display for KuhnState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |c: u8| CARDS.get(c as usize).copied().unwrap_or("?");
        let bets: Vec<String> = self.bets.iter().map(|&b| KuhnGame.action_name(b)).collect();
        writeln!(
            f,
            "cards {} {}; bets: {}",
            name(self.cards[0]),
            name(self.cards[1]),
            bets.join(" ")
        )
    }
}

/// OpenSpiel's layouts: the player, their card, then the bets (information
/// state) or each player's chips in the pot (observation).
impl crate::tensor::Tensors for KuhnGame {
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        vec![NUM_PLAYERS + CARDS.len() + 3 * 2]
    }

    fn observation_tensor_shape(&self) -> Vec<usize> {
        vec![NUM_PLAYERS + CARDS.len() + NUM_PLAYERS]
    }

    fn information_state_tensor_of_key(
        &self,
        player: usize,
        key: &[Token],
        out: &mut [f32],
    ) -> Result<(), String> {
        let state = replay_info_state(self, player, key, CARDS.len())?;
        self.information_state_tensor(&state, player, out);
        Ok(())
    }

    fn information_state_tensor(&self, state: &KuhnState, player: usize, out: &mut [f32]) {
        self.player_and_card(state, player, out);
        let bets = NUM_PLAYERS + CARDS.len();
        for (i, &b) in state.bets.iter().enumerate() {
            out[bets + 2 * i + b as usize] = 1.0;
        }
    }

    fn observation_tensor(&self, state: &KuhnState, player: usize, out: &mut [f32]) {
        self.player_and_card(state, player, out);
        let pot = NUM_PLAYERS + CARDS.len();
        for (p, c) in state.contributions().into_iter().enumerate() {
            out[pot + p] = c as f32;
        }
    }
}

impl KuhnGame {
    fn player_and_card(&self, state: &KuhnState, player: usize, out: &mut [f32]) {
        out[player] = 1.0;
        let card = state.cards[player] as usize;
        if card < CARDS.len() {
            out[NUM_PLAYERS + card] = 1.0;
        }
    }
}
