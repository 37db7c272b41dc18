//! The double oracle's strategies: pure strategies defined at every
//! information state (a listed move, else the lowest legal action), and a
//! mixture of them played as the behaviour strategy it is equivalent to.

use std::borrow::Cow;
use std::sync::RwLock;

use darkhex_games::{Action, Game, State, Token, Turn};
use rustc_hash::FxHashMap;

use crate::policy_file::{InfosetPolicy, PolicyFile};
use crate::pone::strategy::Strategy;
use crate::restricted_br::{Choice, FixedPolicy, RestrictedBrError};

/// A pure strategy of one player, complete: the listed move where there
/// is one, the lowest legal action everywhere else. Only moves other than
/// the lowest are listed, so two strategies that play alike wherever the
/// game reaches list the same moves (a best response lists only the
/// information states its own play reaches).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pure {
    moves: FxHashMap<Vec<Token>, Action>,
}

impl Pure {
    /// From (information state, move) pairs; the moves at their lowest
    /// legal action are dropped, as they are the default.
    pub fn new(moves: impl IntoIterator<Item = (Vec<Token>, Action, Action)>) -> Pure {
        Pure {
            moves: moves
                .into_iter()
                .filter(|(_, a, lowest)| a != lowest)
                .map(|(k, a, _)| (k, a))
                .collect(),
        }
    }

    /// A best response's choices.
    pub fn from_choices(choices: &[Choice]) -> Pure {
        Pure::new(
            choices
                .iter()
                .map(|c| (c.key.clone(), c.actions[c.best as usize], c.actions[0])),
        )
    }

    /// A policy file's entries for `player`, purified: the most likely
    /// action at each (the lowest of the most likely on a tie).
    pub fn purified(file: &PolicyFile, player: usize) -> Pure {
        Pure::new(file.infosets[player].iter().filter_map(|e| {
            let mut best = 0;
            for (i, &p) in e.probs.iter().enumerate() {
                if p > e.probs[best] {
                    best = i;
                }
            }
            Some((e.key.clone(), *e.actions.get(best)?, *e.actions.first()?))
        }))
    }

    /// A PONE strategy's moves, checked against the legal actions the game
    /// gives at each information state.
    pub fn from_pone<G: Game>(game: &G, strategy: &Strategy) -> Result<Pure, String> {
        let mut moves = Vec::with_capacity(strategy.moves.len());
        for (key, a) in &strategy.moves {
            let actions = game.info_state_actions(strategy.player, key)?;
            if actions.binary_search(a).is_err() {
                return Err(format!(
                    "the move {} at {} is not legal there",
                    game.action_name(*a),
                    game.describe_info_state(key)
                ));
            }
            moves.push((key.clone(), *a, actions[0]));
        }
        Ok(Pure::new(moves))
    }

    /// The move at `key`, whose legal actions are `actions`.
    pub fn action(&self, key: &[Token], actions: &[Action]) -> Result<Action, RestrictedBrError> {
        match self.moves.get(key) {
            None => Ok(actions[0]),
            Some(a) if actions.binary_search(a).is_ok() => Ok(*a),
            Some(a) => Err(RestrictedBrError::Policy(format!(
                "a pure strategy's move {a} at an information state of {} observations is not legal there",
                key.len()
            ))),
        }
    }

    /// The listed moves, sorted by information state.
    pub fn moves(&self) -> Vec<(Vec<Token>, Action)> {
        let mut out: Vec<_> = self.moves.iter().map(|(k, &a)| (k.clone(), a)).collect();
        out.sort();
        out
    }

    /// From [`Pure::moves`]'s list (a checkpoint's).
    pub fn from_moves(moves: Vec<(Vec<Token>, Action)>) -> Pure {
        Pure {
            moves: moves.into_iter().collect(),
        }
    }
}

/// A pure strategy played by `player` (the other player is not covered).
pub struct Seat<'a> {
    pub player: usize,
    pub pure: &'a Pure,
}

impl FixedPolicy for Seat<'_> {
    fn distribution(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        if player != self.player {
            return Ok(None);
        }
        let a = self.pure.action(key, actions)?;
        Ok(Some(Cow::Owned(
            actions.iter().map(|&b| f64::from(a == b)).collect(),
        )))
    }
}

/// The distributions a policy has given: the legal actions and their
/// probabilities, by information state. After a best response to the
/// policy they are its certificate.
#[derive(Default)]
pub(super) struct Kept(RwLock<FxHashMap<Vec<Token>, Distribution>>);

/// The legal actions and their probabilities.
type Distribution = (Vec<Action>, Vec<f64>);

impl Kept {
    pub(super) fn get(&self, key: &[Token]) -> Option<Vec<f64>> {
        let kept = self.0.read().unwrap_or_else(|e| e.into_inner());
        kept.get(key).map(|(_, probs)| probs.clone())
    }

    pub(super) fn keep(&self, key: &[Token], actions: &[Action], probs: &[f64]) {
        self.0
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.to_vec(), (actions.to_vec(), probs.to_vec()));
    }

    /// The distributions kept, sorted by key.
    pub(super) fn infosets(&self) -> Vec<InfosetPolicy> {
        let kept = self.0.read().unwrap_or_else(|e| e.into_inner());
        let mut out: Vec<InfosetPolicy> = kept
            .iter()
            .map(|(key, (actions, probs))| InfosetPolicy {
                key: key.clone(),
                actions: actions.clone(),
                probs: probs.clone(),
            })
            .collect();
        out.sort_by(|a, b| a.key.cmp(&b.key));
        out
    }
}

/// A mixture of `player`'s pure strategies, played as its behaviour
/// strategy (perfect recall makes them equivalent, Kuhn's theorem): at an
/// information state, each action's probability is the weight of the
/// strategies that play to the state and choose it there, over the weight
/// of those that play to it. Which strategies play to a state depends on
/// the player's own earlier moves, which the walk's history gives; each
/// state's distribution is worked out once and kept, and the kept ones are
/// the mixture's policy table.
pub struct Mixture<'a, G: Game> {
    game: &'a G,
    player: usize,
    strategies: Vec<(&'a Pure, f64)>,
    kept: Kept,
}

impl<'a, G: Game> Mixture<'a, G> {
    /// The strategies with positive weight (the weights need not add to 1).
    pub fn new(game: &'a G, player: usize, strategies: Vec<(&'a Pure, f64)>) -> Self {
        let total: f64 = strategies.iter().map(|s| s.1.max(0.0)).sum();
        Mixture {
            game,
            player,
            strategies: strategies
                .into_iter()
                .filter(|s| s.1 > 0.0)
                .map(|(p, w)| (p, w / total))
                .collect(),
            kept: Kept::default(),
        }
    }

    /// The distributions worked out so far: after a best response to the
    /// mixture, every information state its play reaches against any play
    /// of the other player's. Sorted by key.
    pub fn infosets(&self) -> Vec<InfosetPolicy> {
        self.kept.infosets()
    }

    fn work_out(
        &self,
        actions: &[Action],
        history: &[Action],
    ) -> Result<Vec<f64>, RestrictedBrError> {
        // The player's own earlier decisions: where, and what was played.
        let mut own: Vec<(Vec<Token>, Vec<Action>, Action)> = Vec::new();
        let mut state = self.game.new_initial_state();
        for &a in history {
            if state.current_player() == Turn::Player(self.player) {
                own.push((
                    state.info_key(self.player).to_vec(),
                    state.legal_actions(),
                    a,
                ));
            }
            state.apply(a);
        }
        let key = state.info_key(self.player).to_vec();
        let mut probs = vec![0.0; actions.len()];
        let mut total = 0.0;
        'strategies: for &(pure, w) in &self.strategies {
            for (k, legal, played) in &own {
                if pure.action(k, legal)? != *played {
                    continue 'strategies;
                }
            }
            let a = pure.action(&key, actions)?;
            let at = actions.binary_search(&a).unwrap_or(0);
            probs[at] += w;
            total += w;
        }
        if total <= 0.0 {
            return Err(RestrictedBrError::Policy(format!(
                "no strategy of the mixture plays to {}",
                self.game.describe_info_state(&key)
            )));
        }
        for p in &mut probs {
            *p /= total;
        }
        Ok(probs)
    }
}

impl<G: Game> FixedPolicy for Mixture<'_, G> {
    fn distribution(
        &self,
        player: usize,
        key: &[Token],
        _actions: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        if player != self.player {
            return Ok(None);
        }
        match self.kept.get(key) {
            Some(p) => Ok(Some(Cow::Owned(p))),
            None => Err(RestrictedBrError::Policy(
                "a mixture of pure strategies is asked with the history that led there".into(),
            )),
        }
    }

    fn distribution_after(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
        history: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        if player != self.player {
            return Ok(None);
        }
        if let Some(p) = self.kept.get(key) {
            return Ok(Some(Cow::Owned(p)));
        }
        let probs = self.work_out(actions, history)?;
        self.kept.keep(key, actions, &probs);
        Ok(Some(Cow::Owned(probs)))
    }
}
