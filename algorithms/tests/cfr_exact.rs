//! The first CFR iteration in exact rational arithmetic against the
//! floating-point solver. Where an information state's regrets cancel
//! exactly (on abrupt boards, at states where every action is worth the
//! same in every history), a floating-point sum leaves a residue that
//! regret matching plays as a regret. Summed exactly (the default), the
//! rounded contributions leave every state with exact CFR's policy;
//! summed one by one in OpenSpiel's order they do not: that is why the
//! compiled and streaming solvers both sum exactly.

use darkhex_algorithms::tree::{CHANCE, TERMINAL};
use darkhex_algorithms::{CfrSolver, CfrVariant, CompileOptions, GameTree, SumOrder, TreePolicy};
use darkhex_games::{NUM_PLAYERS, load_game};
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};

fn exact(x: f64) -> BigRational {
    BigRational::from_float(x).expect("a finite number")
}

/// Exact CFR on a compiled tree: OpenSpiel's CFRSolver without rounding.
struct ExactCfr<'t> {
    tree: &'t GameTree,
    policy: [Vec<BigRational>; NUM_PLAYERS],
}

impl ExactCfr<'_> {
    fn new(tree: &GameTree) -> ExactCfr<'_> {
        let uniform = TreePolicy::uniform(tree);
        let policy = std::array::from_fn(|p| {
            let table = tree.infosets(p);
            let mut probs = vec![BigRational::zero(); table.num_slots()];
            for i in 0..table.len() {
                let slots = table.slots(i);
                let n = slots.len() as i64;
                for s in slots {
                    probs[s] = BigRational::new(1.into(), n.into());
                }
            }
            debug_assert_eq!(probs.len(), uniform.probs[p].len());
            probs
        });
        ExactCfr { tree, policy }
    }

    /// Player `p`'s expected utility at `node`, adding the counterfactual
    /// regrets of p's actions below it into `regrets`.
    fn value(
        &self,
        node: usize,
        p: usize,
        cf_reach: &BigRational,
        regrets: &mut [BigRational],
    ) -> BigRational {
        let tree = self.tree;
        match tree.kind(node) {
            TERMINAL => {
                let u = exact(tree.utility(node));
                if p == 0 { u } else { -u }
            }
            CHANCE => {
                let mut v = BigRational::zero();
                for (c, &q) in tree.children(node).zip(tree.chance_probs(node)) {
                    let q = exact(q);
                    v += &q * self.value(c, p, &(cf_reach * &q), regrets);
                }
                v
            }
            mover => {
                let mover = mover as usize;
                let slots = tree.infosets(mover).slots(tree.infoset(node));
                let sigma = &self.policy[mover][slots.clone()];
                let mut v = BigRational::zero();
                if mover == p {
                    let children: Vec<BigRational> = tree
                        .children(node)
                        .map(|c| self.value(c, p, cf_reach, regrets))
                        .collect();
                    for (s, c) in sigma.iter().zip(&children) {
                        v += s * c;
                    }
                    for (k, c) in children.iter().enumerate() {
                        regrets[slots.start + k] += cf_reach * (c - &v);
                    }
                } else {
                    for (c, s) in tree.children(node).zip(sigma) {
                        if !s.is_zero() {
                            v += s * self.value(c, p, &(cf_reach * s), regrets);
                        }
                    }
                }
                v
            }
        }
    }

    /// One iteration: player 0's update, then player 1's against it.
    fn iterate_once(&mut self) {
        for p in 0..NUM_PLAYERS {
            let table = self.tree.infosets(p);
            let mut regrets = vec![BigRational::zero(); table.num_slots()];
            let one = BigRational::from_integer(1.into());
            self.value(0, p, &one, &mut regrets);
            for i in 0..table.len() {
                let slots = table.slots(i);
                let positive: BigRational = regrets[slots.clone()]
                    .iter()
                    .filter(|r| r > &&BigRational::zero())
                    .sum();
                let n = slots.len() as i64;
                for s in slots {
                    self.policy[p][s] = if positive.is_zero() {
                        BigRational::new(1.into(), n.into())
                    } else if regrets[s] > BigRational::zero() {
                        &regrets[s] / &positive
                    } else {
                        BigRational::zero()
                    };
                }
            }
        }
    }
}

/// Information states where the solver's current policy after one
/// iteration is not exact CFR's, per player.
fn states_off(tree: &GameTree, exact: &ExactCfr, order: SumOrder) -> [usize; NUM_PLAYERS] {
    let mut solver = CfrSolver::with_sum_order(tree, CfrVariant::Vanilla, order);
    solver.iterate();
    let current = solver.current_policy();
    std::array::from_fn(|p| {
        let table = tree.infosets(p);
        (0..table.len())
            .filter(|&i| {
                table.slots(i).any(|s| {
                    let want = exact.policy[p][s].to_f64().expect("a probability");
                    (current.probs[p][s] - want).abs() > 1e-12
                })
            })
            .count()
    })
}

fn exact_cfr_once(name: &str) -> (GameTree, [usize; NUM_PLAYERS], [usize; NUM_PLAYERS]) {
    let tree = GameTree::build(&load_game(name).unwrap(), &CompileOptions::default()).unwrap();
    let mut exact = ExactCfr::new(&tree);
    exact.iterate_once();
    let ours = states_off(&tree, &exact, SumOrder::Exact);
    let openspiel = states_off(&tree, &exact, SumOrder::OpenSpiel);
    (tree, ours, openspiel)
}

/// On abrupt 2x3, exact sums leave every state with exact CFR's policy
/// after the first iteration, where OpenSpiel's order leaves 364 of player
/// 0's 4,033 and 125 of player 1's 2,725 off; on abrupt 3x2 the rounding
/// of the contributions themselves still decides 5 of player 0's 5,811
/// (no floating-point sum avoids that), against 342 and 26.
#[test]
fn exact_sums_keep_exact_cfrs_first_policies_where_openspiels_order_does_not() {
    let (_, ours, openspiel) = exact_cfr_once("dark_hex(num_rows=2,num_cols=3,gameversion=adh)");
    assert_eq!(ours, [0, 0], "abrupt 2x3, exact sums");
    assert!(openspiel[0] > 0 && openspiel[1] > 0, "{openspiel:?}");
    let (_, ours, openspiel) = exact_cfr_once("dark_hex(num_rows=3,num_cols=2,gameversion=adh)");
    for p in 0..NUM_PLAYERS {
        assert!(
            ours[p] * 10 <= openspiel[p],
            "abrupt 3x2: exact sums {ours:?}, OpenSpiel's order {openspiel:?}"
        );
    }
}

/// Where nothing cancels (classic Dark Hex, poker) both orders play exact
/// CFR's first policies.
#[test]
fn without_ties_both_orders_keep_exact_cfrs_first_policies() {
    for name in [
        "dark_hex(num_rows=2,num_cols=3,disclosure=flash)",
        "leduc_poker",
    ] {
        let (tree, ours, openspiel) = exact_cfr_once(name);
        assert!(tree.num_nodes() > 1000);
        assert_eq!((ours, openspiel), ([0, 0], [0, 0]), "{name}");
    }
}
