//! The fixed player's policy as the walk asks for it: a distribution over
//! the legal actions at an information state, or nothing where the source
//! does not cover the state (the walk then plays its stated default).

use std::borrow::Cow;
use std::sync::Mutex;

use darkhex_games::abstraction::Abstraction;
use darkhex_games::{Action, Token};
use rustc_hash::FxHashMap;

use super::RestrictedBrError;
use crate::fa::model::PolicyModel;
use crate::policy_file::PolicyTable;
use crate::pone::strategy::Strategy;

/// A policy of one or both players the responder plays against.
pub trait FixedPolicy: Sync {
    /// `player`'s distribution over `actions` (the legal ones, ascending)
    /// at the information state `key`; `None` where the source has no
    /// entry.
    fn distribution(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError>;

    /// The same, told the actions that led to the state asked about: a
    /// source whose answer depends on the player's own earlier moves (a
    /// mixture of pure strategies, which one cannot read off a key) works
    /// them out from these.
    fn distribution_after(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
        _history: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        self.distribution(player, key, actions)
    }

    /// The abstraction (without rotation) whose keys decide the answers,
    /// as an abstract policy file's are: information states with one
    /// abstract key get one distribution, so what the walk met can be
    /// written down under these keys, no larger than the source. `None`:
    /// the game's own keys.
    fn recall(&self) -> Option<Abstraction> {
        None
    }
}

/// A policy file's table.
impl FixedPolicy for PolicyTable {
    fn distribution(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        match self.get(player, key) {
            Some((a, p)) if a == actions => Ok(Some(Cow::Borrowed(p))),
            Some(_) => Err(RestrictedBrError::Policy(format!(
                "player {player}'s entry at an information state of {} observations lists other actions than the legal ones",
                key.len()
            ))),
            None => Ok(None),
        }
    }

    fn recall(&self) -> Option<Abstraction> {
        self.lift()
    }
}

/// A probability-one strategy: its owner's move, with probability 1, at
/// every information state it lists.
pub struct PoneMoves {
    owner: usize,
    moves: FxHashMap<Vec<Token>, Action>,
}

impl PoneMoves {
    pub fn new(strategy: &Strategy) -> PoneMoves {
        PoneMoves {
            owner: strategy.player,
            moves: strategy.moves.iter().cloned().collect(),
        }
    }

    pub fn owner(&self) -> usize {
        self.owner
    }
}

impl FixedPolicy for PoneMoves {
    fn distribution(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        if player != self.owner {
            return Ok(None);
        }
        let Some(&chosen) = self.moves.get(key) else {
            return Ok(None);
        };
        let Ok(at) = actions.binary_search(&chosen) else {
            return Err(RestrictedBrError::Policy(format!(
                "the strategy's move {chosen} at an information state of {} observations is not legal there",
                key.len()
            )));
        };
        let mut probs = vec![0.0; actions.len()];
        probs[at] = 1.0;
        Ok(Some(Cow::Owned(probs)))
    }
}

/// A player's distributions already asked for, by information state.
type Answers = FxHashMap<(usize, Vec<Token>), Vec<f64>>;

/// A trained network, asked once per information state: the walk meets
/// an information state once per history in it, so the answers are kept.
pub struct ModelPolicy<'a> {
    model: &'a PolicyModel,
    cache: Mutex<Answers>,
}

impl<'a> ModelPolicy<'a> {
    pub fn new(model: &'a PolicyModel) -> Self {
        ModelPolicy {
            model,
            cache: Mutex::new(FxHashMap::default()),
        }
    }
}

impl FixedPolicy for ModelPolicy<'_> {
    fn distribution(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        let index = (player, key.to_vec());
        if let Some(p) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&index)
        {
            return Ok(Some(Cow::Owned(p.clone())));
        }
        let probs = self
            .model
            .policy(player, key, actions)
            .map_err(|e| RestrictedBrError::Policy(e.to_string()))?;
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(index, probs.clone());
        Ok(Some(Cow::Owned(probs)))
    }
}

/// `probs` with every probability below `threshold` removed and the rest
/// renormalised; where none reaches it, the most likely action alone (the
/// first of them on a tie, as purifying picks it): a mixed policy cut to
/// a support a restricted best response can walk. A tie is not kept
/// whole, so a state the training never weighted (uniform there) stays
/// pure.
pub fn thresholded(probs: &[f64], threshold: f64) -> Vec<f64> {
    let mut kept: Vec<f64> = probs
        .iter()
        .map(|&p| if p >= threshold { p } else { 0.0 })
        .collect();
    let total: f64 = kept.iter().sum();
    if total > 0.0 {
        return kept.iter().map(|p| p / total).collect();
    }
    let mut best = 0;
    for (i, &p) in probs.iter().enumerate() {
        if p > probs[best] {
            best = i;
        }
    }
    if let Some(b) = kept.get_mut(best) {
        *b = 1.0;
    }
    kept
}

/// Another policy with its distributions [`thresholded`]. The default at
/// states the source lacks is the walk's ([`super::Missing`]), not cut.
pub struct Thresholded<'a> {
    pub source: &'a dyn FixedPolicy,
    pub threshold: f64,
}

impl FixedPolicy for Thresholded<'_> {
    fn distribution(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        Ok(self
            .source
            .distribution(player, key, actions)?
            .map(|p| Cow::Owned(thresholded(&p, self.threshold))))
    }

    fn distribution_after(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
        history: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        Ok(self
            .source
            .distribution_after(player, key, actions, history)?
            .map(|p| Cow::Owned(thresholded(&p, self.threshold))))
    }

    fn recall(&self) -> Option<Abstraction> {
        self.source.recall()
    }
}

/// Each player's policy from its own source (a Black file and a White
/// file, say).
pub struct PerSeat<'a>(pub [Option<&'a dyn FixedPolicy>; 2]);

impl FixedPolicy for PerSeat<'_> {
    fn distribution(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        match self.0.get(player).copied().flatten() {
            Some(p) => p.distribution(player, key, actions),
            None => Ok(None),
        }
    }

    fn distribution_after(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
        history: &[Action],
    ) -> Result<Option<Cow<'_, [f64]>>, RestrictedBrError> {
        match self.0.get(player).copied().flatten() {
            Some(p) => p.distribution_after(player, key, actions, history),
            None => Ok(None),
        }
    }
}
