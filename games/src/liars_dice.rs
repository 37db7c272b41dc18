//! Liar's Dice as OpenSpiel defines it (`liars_dice`, two players, its
//! default "reset-face" bids): each player rolls `numdice` dice of
//! `dice_sides` faces in secret, player 0's first, one chance node a die.
//! Then the players bid in turn, each bid above the last: "quantity-face",
//! at least that many dice of the face among all dice, action
//! `(quantity - 1) * dice_sides + face - 1`. The highest face is wild: it
//! counts as any face. Instead of bidding, a player may call the last bid a lie (action
//! `numdice * 2 * dice_sides`): the bidder wins if the bid holds, the
//! caller otherwise (returns +1 and -1, no draws).
//!
//! A player observes their own dice, once they are all rolled and sorted
//! (OpenSpiel's information state shows them sorted, so dice rolled in
//! another order are the same information state), then every bid and the
//! call. The dice are one token, their rank among the sorted multisets.

use std::fmt;

use smallvec::SmallVec;

use crate::error::GameError;
use crate::game::{Action, Game, NUM_PLAYERS, State, Token, Turn};

/// At most this many dice a player: 5 dice of 6 faces already make 61
/// actions, near the 64 the information-state tables take.
pub const MAX_DICE: usize = 5;
/// At most this many faces a die.
pub const MAX_SIDES: usize = 10;
/// Token of a player's own dice: this plus the rank of the sorted dice.
pub const DICE: Token = 0x1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LiarsDiceGame {
    num_dice: u8,
    sides: u8,
}

impl LiarsDiceGame {
    /// `num_dice` from 1 to [`MAX_DICE`] a player, `dice_sides` from 1 to
    /// [`MAX_SIDES`]: `load_game` checks them; other values panic.
    pub fn new(num_dice: usize, dice_sides: usize) -> Self {
        assert!((1..=MAX_DICE).contains(&num_dice) && (1..=MAX_SIDES).contains(&dice_sides));
        LiarsDiceGame {
            num_dice: num_dice as u8,
            sides: dice_sides as u8,
        }
    }

    /// Dice each player rolls.
    pub fn num_dice(&self) -> usize {
        self.num_dice as usize
    }

    pub fn dice_sides(&self) -> usize {
        self.sides as usize
    }

    fn total_dice(&self) -> usize {
        NUM_PLAYERS * self.num_dice()
    }

    /// The call: the action after every bid.
    pub fn liar(&self) -> Action {
        (self.total_dice() * self.dice_sides()) as Action
    }

    /// The quantity and face of a bid.
    pub fn bid(&self, action: Action) -> (usize, usize) {
        let s = self.dice_sides();
        (action as usize / s + 1, action as usize % s + 1)
    }

    /// Sorted multisets of `len` dice with faces from `lowest` up.
    fn multisets(&self, len: usize, lowest: usize) -> u32 {
        let faces = self.dice_sides() + 1 - lowest;
        binomial(faces + len - 1, len)
    }

    /// The rank of sorted `dice` among the sorted multisets of as many
    /// dice, in lexicographic order.
    fn dice_rank(&self, dice: &[u8]) -> u32 {
        let mut rank = 0;
        let mut lowest = 1;
        for (i, &face) in dice.iter().enumerate() {
            for v in lowest..face as usize {
                rank += self.multisets(dice.len() - i - 1, v);
            }
            lowest = face as usize;
        }
        rank
    }

    /// The sorted dice a token shows, or `None` if it shows none.
    pub fn dice_of_token(&self, t: Token) -> Option<Vec<u8>> {
        t.checked_sub(DICE)
            .and_then(|rank| self.dice_of_rank(u32::from(rank)))
    }

    /// The dice of a rank, or `None` past the last.
    fn dice_of_rank(&self, mut rank: u32) -> Option<Vec<u8>> {
        let n = self.num_dice();
        if rank >= self.multisets(n, 1) {
            return None;
        }
        let mut dice = Vec::with_capacity(n);
        let mut face = 1;
        for i in 0..n {
            loop {
                let below = self.multisets(n - i - 1, face);
                if rank < below {
                    break;
                }
                rank -= below;
                face += 1;
            }
            dice.push(face as u8);
        }
        Some(dice)
    }

    /// Whether `bid` holds over both players' dice (the highest face is wild).
    fn holds(&self, bid: Action, dice: &[[u8; MAX_DICE]; NUM_PLAYERS]) -> bool {
        let (quantity, face) = self.bid(bid);
        let matches = dice
            .iter()
            .flat_map(|d| &d[..self.num_dice()])
            .filter(|&&d| d as usize == face || d == self.sides)
            .count();
        matches >= quantity
    }
}

/// `n` choose `k`, small.
fn binomial(n: usize, k: usize) -> u32 {
    (0..k).fold(1u64, |acc, i| acc * (n - i) as u64 / (i + 1) as u64) as u32
}

fn dice_text(dice: &[u8]) -> String {
    let faces: Vec<String> = dice
        .iter()
        .map(|&d| {
            if d == 0 {
                "?".to_string()
            } else {
                d.to_string()
            }
        })
        .collect();
    faces.join(" ")
}

impl Game for LiarsDiceGame {
    type State = LiarsDiceState;

    fn new_initial_state(&self) -> LiarsDiceState {
        LiarsDiceState {
            game: *self,
            dice: [[0; MAX_DICE]; NUM_PLAYERS],
            rolled: 0,
            bids: SmallVec::new(),
            history: SmallVec::new(),
            logs: Default::default(),
        }
    }

    /// The bids and the call.
    fn num_distinct_actions(&self) -> usize {
        self.liar() as usize + 1
    }

    /// The rolls, every bid and the call.
    fn max_game_length(&self) -> usize {
        self.total_dice() + self.liar() as usize + 1
    }

    fn game_string(&self) -> String {
        let mut params = Vec::new();
        if self.num_dice != 1 {
            params.push(format!("numdice={}", self.num_dice));
        }
        if self.sides != 6 {
            params.push(format!("dice_sides={}", self.sides));
        }
        if params.is_empty() {
            "liars_dice".to_string()
        } else {
            format!("liars_dice({})", params.join(","))
        }
    }

    fn min_utility(&self) -> f64 {
        -1.0
    }

    fn max_utility(&self) -> f64 {
        1.0
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        let t = text.trim().to_ascii_lowercase();
        if t == "liar" {
            return Ok(self.liar());
        }
        let (total, sides) = (self.total_dice(), self.dice_sides());
        let bid = t.split_once('-').and_then(|(q, f)| {
            let (q, f) = (
                q.trim().parse::<usize>().ok()?,
                f.trim().parse::<usize>().ok()?,
            );
            ((1..=total).contains(&q) && (1..=sides).contains(&f))
                .then(|| ((q - 1) * sides + f - 1) as Action)
        });
        bid.ok_or_else(|| GameError::BadMove {
            text: text.to_string(),
            expected: format!("a bid QUANTITY-FACE from 1-1 to {total}-{sides}, or liar"),
        })
    }

    fn action_name(&self, action: Action) -> String {
        if action == self.liar() {
            "liar".to_string()
        } else if action < self.liar() {
            let (quantity, face) = self.bid(action);
            format!("{quantity}-{face}")
        } else {
            // Not an action of the game (a damaged file can name one).
            format!("action {action}")
        }
    }

    /// The face rolled.
    fn chance_outcome_name(&self, action: Action) -> String {
        (action + 1).to_string()
    }

    fn describe_token(&self, t: Token) -> String {
        if t >= DICE {
            match self.dice_of_token(t) {
                Some(dice) => format!("rolled {}", dice_text(&dice)),
                None => format!("token {t:#x}"),
            }
        } else if t == self.liar() {
            "liar".to_string()
        } else if t < self.liar() {
            format!("bid {}", self.action_name(t))
        } else {
            format!("token {t:#x}")
        }
    }

    /// The bids above the last one, and the call once there is a bid.
    fn info_state_actions(&self, player: usize, key: &[Token]) -> Result<Vec<Action>, String> {
        let (first, bids) = key
            .split_first()
            .ok_or("an information state starts with the player's dice")?;
        if self.dice_of_token(*first).is_none() {
            return Err(format!(
                "an information state starts with the player's dice, not {}",
                self.describe_token(*first)
            ));
        }
        let liar = self.liar();
        for (i, pair) in bids.windows(2).enumerate() {
            if pair[1] <= pair[0] {
                return Err(format!("bid {} is not above the one before", i + 2));
            }
        }
        if let Some(&last) = bids.last()
            && last >= liar
        {
            return Err(format!(
                "the game is over after {}",
                self.describe_token(last)
            ));
        }
        if bids.len() % NUM_PLAYERS != player {
            return Err(format!("player {player} does not move there"));
        }
        let start = bids.last().map_or(0, |&b| b + 1);
        let mut legal: Vec<Action> = (start..liar).collect();
        if !bids.is_empty() {
            legal.push(liar);
        }
        Ok(legal)
    }
}

/// A Liar's Dice hand: the dice and the bids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiarsDiceState {
    game: LiarsDiceGame,
    /// Each player's faces (1 and up; 0 before the roll), in the order
    /// rolled, and sorted once the player's last die is rolled.
    dice: [[u8; MAX_DICE]; NUM_PLAYERS],
    rolled: u8,
    /// The bids, then the call.
    bids: SmallVec<[Action; 16]>,
    history: SmallVec<[Action; 24]>,
    logs: [SmallVec<[Token; 16]>; NUM_PLAYERS],
}

impl LiarsDiceState {
    /// `player`'s dice (0 for a die not yet rolled).
    pub fn dice(&self, player: usize) -> &[u8] {
        &self.dice[player][..self.game.num_dice()]
    }

    /// `player`'s dice, sorted, once they are all rolled: what the player
    /// has observed of them.
    fn seen_dice(&self, player: usize) -> &[u8] {
        let rolled = (self.rolled as usize).saturating_sub(player * self.game.num_dice());
        if rolled >= self.game.num_dice() {
            self.dice(player)
        } else {
            &[]
        }
    }

    /// The bids so far, the call included.
    pub fn bids(&self) -> &[Action] {
        &self.bids
    }

    fn called(&self) -> bool {
        self.bids.last() == Some(&self.game.liar())
    }

    fn bid_names(&self) -> String {
        let names: Vec<String> = self
            .bids
            .iter()
            .map(|&b| self.game.action_name(b))
            .collect();
        names.join(" ")
    }
}

impl State for LiarsDiceState {
    fn current_player(&self) -> Turn {
        if (self.rolled as usize) < self.game.total_dice() {
            Turn::Chance
        } else if self.called() {
            Turn::Terminal
        } else {
            Turn::Player(self.bids.len() % NUM_PLAYERS)
        }
    }

    fn legal_actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        match self.current_player() {
            Turn::Chance => out.extend(0..self.game.sides as Action),
            Turn::Player(_) => {
                let start = self.bids.last().map_or(0, |&b| b + 1);
                out.extend(start..self.game.liar());
                if !self.bids.is_empty() {
                    out.push(self.game.liar());
                }
            }
            Turn::Terminal => {}
        }
    }

    fn apply(&mut self, action: Action) {
        self.history.push(action);
        if self.current_player() == Turn::Chance {
            let n = self.game.num_dice();
            let (p, slot) = (self.rolled as usize / n, self.rolled as usize % n);
            self.dice[p][slot] = action as u8 + 1;
            self.rolled += 1;
            if slot + 1 == n {
                let dice = &mut self.dice[p][..n];
                dice.sort_unstable();
                let rank = self.game.dice_rank(dice);
                self.logs[p].push(DICE + rank as Token);
            }
            return;
        }
        self.bids.push(action);
        for log in &mut self.logs {
            log.push(action);
        }
    }

    fn check_action(&self, action: Action) -> Result<(), GameError> {
        match self.current_player() {
            Turn::Terminal => Err(GameError::GameOver),
            Turn::Chance if action < self.game.sides as Action => Ok(()),
            Turn::Chance => Err(GameError::IllegalMove {
                name: action.to_string(),
                reason: format!("a die shows a face from 1 to {}", self.game.sides),
            }),
            Turn::Player(_) => {
                let legal = self.legal_actions();
                if legal.contains(&action) {
                    return Ok(());
                }
                let first = self.game.action_name(legal[0]);
                let reason = match self.bids.last() {
                    None => {
                        format!("the first bid is one from {first} up; liar needs a bid to call")
                    }
                    Some(&last) if legal[0] == self.game.liar() => format!(
                        "no bid is above {}: liar is the only move",
                        self.game.action_name(last)
                    ),
                    Some(&last) => format!(
                        "a bid must be above {}: one from {first} up, or liar",
                        self.game.action_name(last)
                    ),
                };
                Err(GameError::IllegalMove {
                    name: self.game.action_name(action),
                    reason,
                })
            }
        }
    }

    fn returns(&self) -> [f64; NUM_PLAYERS] {
        if !self.called() {
            return [0.0; NUM_PLAYERS];
        }
        // The call is the last action and the bid it calls the one before.
        let n = self.bids.len();
        let bidder = (n - 2) % NUM_PLAYERS;
        let winner = if self.game.holds(self.bids[n - 2], &self.dice) {
            bidder
        } else {
            1 - bidder
        };
        if winner == 0 {
            [1.0, -1.0]
        } else {
            [-1.0, 1.0]
        }
    }

    fn info_key(&self, player: usize) -> &[Token] {
        &self.logs[player]
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        if self.current_player() != Turn::Chance {
            return Vec::new();
        }
        let p = 1.0 / f64::from(self.game.sides);
        (0..self.game.sides as Action).map(|a| (a, p)).collect()
    }

    fn history(&self) -> &[Action] {
        &self.history
    }

    fn view_string(&self, player: usize) -> String {
        format!(
            "dice {}; bids: {}\n",
            dice_text(self.dice(player)),
            self.bid_names()
        )
    }
}

impl fmt::Display for LiarsDiceState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "dice {} | {}; bids: {}",
            dice_text(self.dice(0)),
            dice_text(self.dice(1)),
            self.bid_names()
        )
    }
}

/// OpenSpiel's layouts, value for value where a player moves: the player
/// one-hot, each of their dice one-hot over the faces, then a column for
/// each bid and the call (information state: every bid made; observation:
/// the last two). The dice are shown, sorted, once they are all rolled, as
/// the information state has them: OpenSpiel shows each die as it lands
/// and sorts them when both players have rolled, so with several dice a
/// player's tensor between their first roll and the first bid differs
/// (and would tell apart histories the player cannot).
impl crate::tensor::Tensors for LiarsDiceGame {
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        vec![NUM_PLAYERS + self.num_dice() * self.dice_sides() + self.liar() as usize + 1]
    }

    fn observation_tensor_shape(&self) -> Vec<usize> {
        self.information_state_tensor_shape()
    }

    fn information_state_tensor(&self, state: &LiarsDiceState, player: usize, out: &mut [f32]) {
        self.write_tensor(state, player, state.bids.len(), out);
    }

    /// The key is the player's dice, then every bid: checked as a policy
    /// file's keys are, then written as a state's tensor is.
    fn information_state_tensor_of_key(
        &self,
        player: usize,
        key: &[Token],
        out: &mut [f32],
    ) -> Result<(), String> {
        self.info_state_actions(player, key)?;
        let dice = key
            .first()
            .and_then(|&t| self.dice_of_token(t))
            .ok_or("an information state starts with the player's dice")?;
        let bids: Vec<usize> = key[1..].iter().map(|&b| b as usize).collect();
        self.write_parts(player, &dice, &bids, out);
        Ok(())
    }

    fn observation_tensor(&self, state: &LiarsDiceState, player: usize, out: &mut [f32]) {
        self.write_tensor(state, player, NUM_PLAYERS, out);
    }
}

impl LiarsDiceGame {
    /// The tensor with the last `shown` bids.
    fn write_tensor(&self, state: &LiarsDiceState, player: usize, shown: usize, out: &mut [f32]) {
        let skip = state.bids.len().saturating_sub(shown);
        let bids: Vec<usize> = state.bids[skip..].iter().map(|&b| b as usize).collect();
        self.write_parts(player, state.seen_dice(player), &bids, out);
    }

    /// The player one-hot, the dice the player saw, the bids given.
    fn write_parts(&self, player: usize, dice: &[u8], bids: &[usize], out: &mut [f32]) {
        out[player] = 1.0;
        let sides = self.dice_sides();
        for (d, &face) in dice.iter().enumerate() {
            out[NUM_PLAYERS + d * sides + face as usize - 1] = 1.0;
        }
        let at = NUM_PLAYERS + self.num_dice() * sides;
        for &b in bids {
            out[at + b] = 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dice_ranks_number_the_sorted_multisets_in_order() {
        let game = LiarsDiceGame::new(3, 4);
        let mut all = Vec::new();
        for a in 1..=4u8 {
            for b in a..=4 {
                for c in b..=4 {
                    all.push([a, b, c]);
                }
            }
        }
        assert_eq!(all.len() as u32, game.multisets(3, 1));
        for (rank, dice) in all.iter().enumerate() {
            assert_eq!(game.dice_rank(dice), rank as u32);
            assert_eq!(game.dice_of_rank(rank as u32).unwrap(), dice.to_vec());
        }
        assert_eq!(game.dice_of_rank(all.len() as u32), None);
    }

    #[test]
    fn the_bidder_wins_when_the_bid_holds_counting_wild_sixes() {
        let game = LiarsDiceGame::new(1, 6);
        let play = |moves: &[&str]| {
            let mut s = game.new_initial_state();
            for m in moves {
                let a = crate::parse_move(&game, &s, m).unwrap();
                s.apply(a);
            }
            s
        };
        // Dice 3 and 6: two threes hold (the six is wild), three do not.
        assert_eq!(
            play(&["3", "6", "1-2", "2-3", "liar"]).returns(),
            [-1.0, 1.0]
        );
        assert_eq!(play(&["3", "6", "2-3", "liar"]).returns(), [1.0, -1.0]);
        assert_eq!(play(&["3", "5", "2-3", "liar"]).returns(), [-1.0, 1.0]);
        let s = play(&["3", "5", "2-3"]);
        assert_eq!(s.current_player(), Turn::Player(1));
        assert_eq!(
            s.info_key(1),
            &[DICE + 4, game.parse_action("2-3").unwrap()]
        );
        assert!(s.check_action(game.parse_action("1-6").unwrap()).is_err());
        let e = play(&["3", "5"]).check_action(game.liar()).unwrap_err();
        assert!(e.to_string().contains("liar needs a bid"), "{e}");
    }

    #[test]
    fn dice_rolled_in_another_order_are_the_same_information_state() {
        let game = LiarsDiceGame::new(2, 6);
        let key = |rolls: [Action; 4]| {
            let mut s = game.new_initial_state();
            for r in rolls {
                s.apply(r);
            }
            (s.info_key(0).to_vec(), s.dice(0).to_vec())
        };
        assert_eq!(key([4, 1, 0, 0]), key([1, 4, 5, 5]));
        assert_eq!(key([4, 1, 0, 0]).1, vec![2, 5]);
    }
}
