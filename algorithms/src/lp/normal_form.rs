//! The normal form of tiny games: every reduced pure strategy of each player
//! (an action at each infoset the player's own earlier choices reach), the
//! payoff matrix between them, and the matrix game solved as an LP.

use std::time::Instant;

use darkhex_games::NUM_PLAYERS;
use darkhex_games::analysis::InfosetTable;
use good_lp::{
    Constraint, Expression, ProblemVariables, Solution, SolverModel, Variable, variable,
};
use thiserror::Error;

use crate::best_response::exploitability;
use crate::lp::sequence_form::{SequencePayoffs, behaviour_from_plan};
use crate::lp::{LpBackend, LpError, LpSolution};
use crate::policy::TreePolicy;
use crate::tree::GameTree;

/// More reduced pure strategies than this per player are refused.
pub const DEFAULT_MAX_STRATEGIES: usize = 5000;

#[derive(Debug, Error)]
pub enum NormalFormError {
    #[error(
        "player {player} has more than {limit} reduced pure strategies; the normal form is for tiny games: use --method lp"
    )]
    TooManyStrategies { player: usize, limit: usize },
    #[error(transparent)]
    Lp(#[from] LpError),
}

/// A reduced pure strategy: (infoset, action index) for each infoset it reaches,
/// in infoset order.
pub type PureStrategy = Vec<(u32, u32)>;

#[derive(Clone, Debug)]
pub struct NormalForm {
    pub strategies: [Vec<PureStrategy>; NUM_PLAYERS],
    /// Player 0's expected payoff, row-major: rows are player 0's strategies.
    pub payoffs: Vec<f64>,
}

impl NormalForm {
    pub fn payoff(&self, row: usize, col: usize) -> f64 {
        self.payoffs[row * self.strategies[1].len() + col]
    }
}

/// Children of each sequence: the infosets whose parent it is.
fn infosets_after(table: &InfosetTable) -> Vec<Vec<u32>> {
    let mut after = vec![Vec::new(); table.num_slots() + 1];
    for (i, &parent) in table.parent.iter().enumerate() {
        after[parent as usize].push(i as u32);
    }
    after
}

/// All reduced pure strategies that extend sequence `seq`, or `None` past `limit`.
fn extensions(
    table: &InfosetTable,
    after: &[Vec<u32>],
    seq: usize,
    limit: usize,
) -> Option<Vec<PureStrategy>> {
    let mut result: Vec<PureStrategy> = vec![Vec::new()];
    for &i in &after[seq] {
        let mut choices = Vec::new();
        for (k, s) in table.slots(i as usize).enumerate() {
            for mut rest in extensions(table, after, s + 1, limit)? {
                rest.insert(0, (i, k as u32));
                choices.push(rest);
                if choices.len() > limit {
                    return None;
                }
            }
        }
        let mut next = Vec::with_capacity(result.len() * choices.len());
        for r in &result {
            for c in &choices {
                let mut s = r.clone();
                s.extend_from_slice(c);
                next.push(s);
                if next.len() > limit {
                    return None;
                }
            }
        }
        result = next;
    }
    Some(result)
}

/// The sequences a pure strategy plays (sequence ids, the empty one included).
fn sequences(table: &InfosetTable, strategy: &PureStrategy) -> Vec<u32> {
    let mut seqs: Vec<u32> = strategy
        .iter()
        .map(|&(i, k)| table.slot(i as usize, k as usize) as u32 + 1)
        .collect();
    seqs.push(0);
    seqs
}

pub fn normal_form(tree: &GameTree, max_strategies: usize) -> Result<NormalForm, NormalFormError> {
    let mut strategies: [Vec<PureStrategy>; NUM_PLAYERS] = Default::default();
    for (p, out) in strategies.iter_mut().enumerate() {
        let table = tree.infosets(p);
        *out = extensions(table, &infosets_after(table), 0, max_strategies).ok_or(
            NormalFormError::TooManyStrategies {
                player: p,
                limit: max_strategies,
            },
        )?;
    }
    let payoffs_by_seq = SequencePayoffs::new(tree);
    let mut row_payoffs: Vec<Vec<(u32, f64)>> = vec![Vec::new(); tree.infosets(0).num_slots() + 1];
    for &(s0, s1, v) in &payoffs_by_seq.entries {
        row_payoffs[s0 as usize].push((s1, v));
    }
    let cols = strategies[1].len();
    let col_seqs: Vec<Vec<u32>> = strategies[1]
        .iter()
        .map(|s| sequences(tree.infosets(1), s))
        .collect();
    let mut payoffs = Vec::with_capacity(strategies[0].len() * cols);
    let mut against = vec![0.0; tree.infosets(1).num_slots() + 1];
    for s in &strategies[0] {
        against.fill(0.0);
        for seq in sequences(tree.infosets(0), s) {
            for &(s1, v) in &row_payoffs[seq as usize] {
                against[s1 as usize] += v;
            }
        }
        payoffs.extend(
            col_seqs
                .iter()
                .map(|t| t.iter().map(|&s1| against[s1 as usize]).sum::<f64>()),
        );
    }
    Ok(NormalForm {
        strategies,
        payoffs,
    })
}

/// max v subject to sum_i p_i M[i][j] >= v for every column j, p a distribution:
/// the value and the row player's mix.
pub fn solve_matrix_game(
    rows: usize,
    cols: usize,
    m: impl Fn(usize, usize) -> f64,
    backend: LpBackend,
) -> Result<(f64, Vec<f64>), LpError> {
    let mut vars = ProblemVariables::new();
    let p: Vec<Variable> = vars.add_vector(variable().min(0.0), rows);
    let v = vars.add(variable());
    let mut constraints = vec![p.iter().fold(Expression::from(0.0), |e, &x| e + x).eq(1.0)];
    for j in 0..cols {
        let mut e = Expression::with_capacity(rows + 1);
        for (i, &x) in p.iter().enumerate() {
            e.add_mul(m(i, j), x);
        }
        e.add_mul(-1.0, v);
        constraints.push(e.geq(0.0));
    }
    let problem = vars.maximise(v);
    let solved = match backend {
        LpBackend::Clarabel => optimum(problem.using(good_lp::clarabel), constraints, v, &p),
        LpBackend::Microlp => optimum(problem.using(good_lp::microlp), constraints, v, &p),
    };
    solved.map_err(|reason| LpError::Solver {
        backend: backend.name(),
        reason,
    })
}

/// The value and the row player's mix, whichever backend `model` uses.
fn optimum<M: SolverModel>(
    model: M,
    constraints: Vec<Constraint>,
    v: Variable,
    p: &[Variable],
) -> Result<(f64, Vec<f64>), String> {
    let s = model
        .with_all(constraints)
        .solve()
        .map_err(|e| e.to_string())?;
    Ok((s.value(v), p.iter().map(|&x| s.value(x)).collect()))
}

/// Solves the normal form as a matrix game for each player; the mixed
/// strategies become behaviour strategies through their realization plans.
pub fn solve_normal_form(
    tree: &GameTree,
    nf: &NormalForm,
    backend: LpBackend,
) -> Result<LpSolution, LpError> {
    let start = Instant::now();
    let (rows, cols) = (nf.strategies[0].len(), nf.strategies[1].len());
    let (v0, mix0) = solve_matrix_game(rows, cols, |i, j| nf.payoff(i, j), backend)?;
    let (v1, mix1) = solve_matrix_game(cols, rows, |j, i| -nf.payoff(i, j), backend)?;
    let solve_seconds = start.elapsed().as_secs_f64();
    if (v0 + v1).abs() > 1e-6 {
        return Err(LpError::Disagreement { v0, v1: -v1 });
    }
    let probs = std::array::from_fn(|p| {
        let table = tree.infosets(p);
        let mut plan = vec![0.0; table.num_slots() + 1];
        let mix = if p == 0 { &mix0 } else { &mix1 };
        for (s, &w) in nf.strategies[p].iter().zip(mix) {
            for seq in sequences(table, s) {
                plan[seq as usize] += w.max(0.0);
            }
        }
        behaviour_from_plan(table, &plan)
    });
    let policy = TreePolicy { probs };
    let (min, max) = tree.utility_range();
    Ok(LpSolution {
        value_p0: v0.clamp(min, max),
        exploitability: exploitability(tree, &policy),
        policy,
        variables: rows.max(cols) + 1,
        constraints: rows.max(cols) + 1,
        rounds: 1,
        support: [(rows, rows), (cols, cols)],
        build_seconds: 0.0,
        solve_seconds,
    })
}
