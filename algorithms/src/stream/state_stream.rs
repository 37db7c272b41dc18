//! Any game through its `State` API, for the streaming passes: the symbols
//! are the tokens each move appends to a player's information-state key.
//! Making one walks the whole tree once to learn the alphabet, so this is
//! for games that are small (poker) or small enough to cross-check the
//! dedicated streams.

use std::collections::BTreeSet;

use darkhex_games::analysis::{NodeView, TreeVisitor, WalkOptions, walk};
use darkhex_games::{Action, Game, NUM_PLAYERS, State, Token, Turn};

use super::error::StreamError;
use super::walkable::{MAX_MOVES, MAX_SYMBOLS, Moves, NO_SYMBOL, Shown, StreamGame};

#[derive(Clone, Debug)]
pub struct StateStream<G: Game> {
    game: G,
    alphabet: Vec<Token>,
    max_abs_utility: f64,
}

/// Collects tokens and checks that each move appends at most one token to
/// each key, that there are few enough moves, and that the game is zero-sum.
#[derive(Default)]
struct Survey {
    tokens: BTreeSet<Token>,
    problem: Option<StreamError>,
    max_abs_utility: f64,
    max_moves: usize,
}

impl<S: State> TreeVisitor<S> for Survey {
    /// The key lengths at the node.
    type Node = [usize; NUM_PLAYERS];

    fn visit(
        &mut self,
        node: &NodeView<S>,
        parent: Option<([usize; NUM_PLAYERS], usize)>,
    ) -> [usize; NUM_PLAYERS] {
        let lens = std::array::from_fn(|p| node.state.info_key(p).len());
        self.max_moves = self.max_moves.max(node.actions.len());
        for p in 0..NUM_PLAYERS {
            let key = node.state.info_key(p);
            let before = parent.map_or(0, |(l, _)| l[p]);
            if key.len() > before + 1 && self.problem.is_none() {
                self.problem = Some(StreamError::SeveralObservations {
                    game: String::new(),
                    player: p,
                });
            }
            self.tokens.extend(&key[before.min(key.len())..]);
        }
        if node.turn == Turn::Terminal {
            let r = node.state.returns();
            self.max_abs_utility = self.max_abs_utility.max(r[0].abs());
            if r[0] + r[1] != 0.0 && self.problem.is_none() {
                self.problem = Some(StreamError::NotZeroSum {
                    game: String::new(),
                    returns: r,
                });
            }
        }
        lens
    }
}

impl<G: Game> StateStream<G> {
    pub fn new(game: G) -> Result<Self, StreamError> {
        let mut survey = Survey::default();
        // An unlimited walk cannot fail.
        let _ = walk(&game, &WalkOptions::default(), &mut survey);
        let name = game.game_string();
        if let Some(mut problem) = survey.problem {
            match &mut problem {
                StreamError::SeveralObservations { game, .. }
                | StreamError::NotZeroSum { game, .. } => *game = name,
                _ => {}
            }
            return Err(problem);
        }
        if survey.tokens.len() > MAX_SYMBOLS {
            return Err(StreamError::TooManyObservations {
                game: name,
                symbols: survey.tokens.len(),
                max: MAX_SYMBOLS,
            });
        }
        if survey.max_moves > MAX_MOVES {
            return Err(StreamError::TooManyActions {
                game: name,
                actions: survey.max_moves,
                max: MAX_MOVES,
            });
        }
        Ok(StateStream {
            game,
            alphabet: survey.tokens.into_iter().collect(),
            max_abs_utility: survey.max_abs_utility,
        })
    }

    fn symbol(&self, t: Token) -> u8 {
        // Every token was seen by the survey walk.
        self.alphabet
            .binary_search(&t)
            .map_or(NO_SYMBOL, |s| s as u8)
    }
}

impl<G: Game> StreamGame for StateStream<G> {
    type Node = G::State;

    fn game_string(&self) -> String {
        self.game.game_string()
    }

    fn alphabet(&self) -> &[Token] {
        &self.alphabet
    }

    fn root(&self) -> G::State {
        self.game.new_initial_state()
    }

    fn turn(&self, node: &G::State) -> Turn {
        node.current_player()
    }

    fn moves(&self, node: &G::State, out: &mut Moves) {
        out.clear();
        match node.current_player() {
            Turn::Chance => {
                for (a, p) in node.chance_outcomes() {
                    out.push(a, p);
                }
            }
            Turn::Player(_) => {
                for a in node.legal_actions() {
                    out.push(a, 0.0);
                }
            }
            Turn::Terminal => {}
        }
    }

    fn apply(&self, node: &G::State, action: Action, child: &mut G::State) -> Shown {
        child.clone_from(node);
        child.apply(action);
        std::array::from_fn(|p| {
            let (before, after) = (node.info_key(p), child.info_key(p));
            if after.len() > before.len() {
                self.symbol(after[before.len()])
            } else {
                NO_SYMBOL
            }
        })
    }

    fn utility(&self, node: &G::State) -> f64 {
        node.returns()[0]
    }

    fn max_abs_utility(&self) -> f64 {
        self.max_abs_utility
    }
}
