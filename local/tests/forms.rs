//! Game forms over outcome posets: the relations, canonical forms and sums
//! against results of Selinger (2022) and Demer and Selinger.

use darkhex_local::sum::{OutcomeMap, sum};
use darkhex_local::{Arena, Atom, GameId, Poset};
use proptest::prelude::*;

/// The superswitches G_0 = a, G_{n+1} = {a, b | G_n} (section 4.1).
fn superswitch(arena: &mut Arena, n: usize) -> GameId {
    let mut g = arena.parse("a").unwrap();
    for _ in 0..n {
        let (a, b) = (arena.parse("a").unwrap(), arena.parse("b").unwrap());
        g = arena.composite([a, b], [g]).unwrap();
    }
    g
}

/// The dual superswitches G_0^op = a, G_{n+1}^op = {G_n^op | a, b}.
fn dual_superswitch(arena: &mut Arena, n: usize) -> GameId {
    let mut g = arena.parse("a").unwrap();
    for _ in 0..n {
        let (a, b) = (arena.parse("a").unwrap(), arena.parse("b").unwrap());
        g = arena.composite([g], [a, b]).unwrap();
    }
    g
}

/// The map of wiring two 3-terminal regions together, by union-find on
/// their six terminals (G's are 0, 1, 2; H's 3, 4, 5): `joins` pairs that
/// the wiring connects, `out` the terminals of the result.
fn wiring(p: &Poset, q: &Poset, joins: &[(usize, usize)], out: &[usize]) -> OutcomeMap {
    // Terminal pairs each P3 atom joins: ⊥, a = 2-3, b = 1-3, c = 1-2, ⊤.
    let pairs = |x: &str| -> Vec<(usize, usize)> {
        match x {
            "a" => vec![(1, 2)],
            "b" => vec![(0, 2)],
            "c" => vec![(0, 1)],
            "⊤" => vec![(0, 1), (1, 2)],
            _ => vec![],
        }
    };
    let result = if out.len() == 2 {
        Poset::boolean()
    } else {
        Poset::p3()
    };
    OutcomeMap::new(p, q, &result, |x, y| {
        let mut parent: Vec<usize> = (0..6).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                x = p[x];
            }
            x
        }
        let union = |p: &mut Vec<usize>, a: usize, b: usize| {
            let (ra, rb) = (find(p, a), find(p, b));
            p[ra] = rb;
        };
        for (a, b) in pairs(p.atom_name(x)) {
            union(&mut parent, a, b);
        }
        for (a, b) in pairs(q.atom_name(y)) {
            union(&mut parent, a + 3, b + 3);
        }
        for &(a, b) in joins {
            union(&mut parent, a, b);
        }
        let mut j = |a: usize, b: usize| find(&mut parent, out[a]) == find(&mut parent, out[b]);
        let name = if out.len() == 2 {
            if j(0, 1) { "⊤" } else { "⊥" }
        } else {
            match (j(1, 2), j(0, 2), j(0, 1)) {
                (true, true, _) | (true, _, true) | (_, true, true) => "⊤",
                (true, false, false) => "a",
                (false, true, false) => "b",
                (false, false, true) => "c",
                _ => "⊥",
            }
        };
        result.atom(name).unwrap()
    })
    .unwrap()
}

#[test]
fn superswitches_increase_strictly_and_are_passable() {
    let mut arena = Arena::new(Poset::p3());
    let g: Vec<GameId> = (0..5).map(|n| superswitch(&mut arena, n)).collect();
    for n in 0..4 {
        assert!(arena.le(g[n], g[n + 1]), "G_{n} <= G_{}", n + 1);
        assert!(!arena.le(g[n + 1], g[n]), "G_{} is not <= G_{n}", n + 1);
        assert!(arena.is_passable(g[n]));
        let c = arena.canonical(g[n]);
        assert_eq!(c, g[n], "G_{n} is canonical already");
    }
}

#[test]
fn concatenation_lemma_4_1() {
    // G +_c H: G.1-H.1 and G.2-H.3 joined; terminals 1, 2, 3 are G.1, H.2, G.3.
    let p = Poset::p3();
    let f = wiring(&p, &p, &[(0, 3), (1, 5)], &[0, 4, 2]);
    let mut arena = Arena::new(p.clone());
    let g1 = superswitch(&mut arena, 1);
    for n in 0..4 {
        let gn = superswitch(&mut arena, n);
        let next = superswitch(&mut arena, n + 1);
        let mut out = Arena::new(p.clone());
        let s = sum(&arena, gn, &arena, g1, &f, &mut out);
        let s = out.canonical(s);
        let expected = out.parse(&arena.display(next)).unwrap();
        assert!(out.equivalent(s, expected), "G_{n} +_c G_1 ≃ G_{}", n + 1);
        assert_eq!(s, out.canonical(expected));
    }
}

#[test]
fn juxtaposition_proposition_4_4() {
    // G +_j H: G.1-H.1 and G.2-H.2 joined; the two terminals are G.3, H.3.
    let p = Poset::p3();
    let f = wiring(&p, &p, &[(0, 3), (1, 4)], &[2, 5]);
    let mut arena = Arena::new(p.clone());
    for n in 0..4 {
        for m in 0..4 {
            let g = superswitch(&mut arena, n);
            let h = dual_superswitch(&mut arena, m);
            let mut out = Arena::new(Poset::boolean());
            let s = sum(&arena, g, &arena, h, &f, &mut out);
            let s = out.canonical(s);
            let sign = n as i64 - m as i64 + 1;
            let expected = match sign {
                1.. => "⊤",
                0 => "{⊤ | ⊥}",
                _ => "⊥",
            };
            assert_eq!(out.display(s), expected, "G_{n} +_j G_{m}^op");
        }
    }
}

#[test]
fn forms_read_back_what_they_print() {
    let mut arena = Arena::new(Poset::p3());
    let text = "{{⊤ | ⊤}, {⊤ | a} | {a | ⊥}, {⊤ | ⊥}}";
    let g = arena.parse(text).unwrap();
    assert_eq!(arena.parse(&arena.display(g)).unwrap(), g);
    assert_eq!(
        arena.parse("{top | bot}").unwrap(),
        arena.parse("{⊤|⊥}").unwrap()
    );
    for bad in ["{a | }", "{a b}", "{a | b", "z", "{a | b} c", ""] {
        assert!(arena.parse(bad).is_err(), "{bad:?} is refused");
    }
}

#[test]
fn outcome_maps_must_be_monotone() {
    let b = Poset::boolean();
    assert!(OutcomeMap::new(&b, &b, &b, |x, y| x.min(y)).is_ok());
    // Negation is not monotone.
    assert!(OutcomeMap::new(&b, &b, &b, |x, _| 1 - x).is_err());
}

#[test]
fn quotient_posets_order_their_atoms() {
    let corner = Poset::corner();
    let (a, c) = (corner.atom("a").unwrap(), corner.atom("c").unwrap());
    assert!(corner.le(c, a) && !corner.le(a, c));
    let p3 = Poset::p3();
    let (a, c) = (p3.atom("a").unwrap(), p3.atom("c").unwrap());
    assert!(!p3.le(c, a) && !p3.le(a, c));
    let fork = Poset::fork();
    assert_eq!(fork.len(), 4);
    assert!(fork.atom("c").is_none());
    // In a corner c <= a, so {c | ⊥} <= {a | ⊥} but not in P3.
    let mut ca = Arena::new(Poset::corner());
    let (x, y) = (ca.parse("{c | ⊥}").unwrap(), ca.parse("{a | ⊥}").unwrap());
    assert!(ca.le(x, y));
    let mut pa = Arena::new(Poset::p3());
    let (x, y) = (pa.parse("{c | ⊥}").unwrap(), pa.parse("{a | ⊥}").unwrap());
    assert!(!pa.le(x, y));
}

/// A random form over P3 of the given depth, as text.
fn form_text(depth: u32) -> impl Strategy<Value = String> {
    let atom =
        prop_oneof![Just("⊥"), Just("a"), Just("b"), Just("c"), Just("⊤")].prop_map(String::from);
    atom.prop_recursive(depth, 40, 3, |inner| {
        (
            prop::collection::vec(inner.clone(), 1..=3),
            prop::collection::vec(inner, 1..=3),
        )
            .prop_map(|(l, r)| format!("{{{} | {}}}", l.join(", "), r.join(", ")))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn canonical_form_is_equivalent_and_idempotent(text in form_text(4)) {
        let mut arena = Arena::new(Poset::p3());
        let g = arena.parse(&text).unwrap();
        let c = arena.canonical(g);
        prop_assert!(arena.equivalent(g, c), "{} ≄ {}", text, arena.display(c));
        prop_assert_eq!(arena.canonical(c), c);
        // Idempotent also when read afresh, without the memo.
        let mut fresh = Arena::new(Poset::p3());
        let c2 = fresh.parse(&arena.display(c)).unwrap();
        let c3 = fresh.canonical(c2);
        prop_assert_eq!(c3, c2);
        prop_assert!(arena.followers(c) <= arena.followers(g));
    }

    #[test]
    fn equivalent_forms_have_one_canonical_form(x in form_text(3), y in form_text(3)) {
        let mut arena = Arena::new(Poset::p3());
        let (g, h) = (arena.parse(&x).unwrap(), arena.parse(&y).unwrap());
        let (cg, ch) = (arena.canonical(g), arena.canonical(h));
        prop_assert_eq!(arena.equivalent(g, h), cg == ch, "{} and {}", x, y);
        prop_assert_eq!(arena.le(g, h), arena.le(cg, ch));
    }

    #[test]
    fn boolean_forms_have_one_canonical_form(x in form_text(3), y in form_text(3)) {
        // Over two atoms most random forms collapse, so equivalences are
        // frequent here: map a, b, c to ⊥, ⊤, ⊥.
        let to_bool = |t: &str| t.replace('a', "⊥").replace('b', "⊤").replace('c', "⊥");
        let mut arena = Arena::new(Poset::boolean());
        let (g, h) = (arena.parse(&to_bool(&x)).unwrap(), arena.parse(&to_bool(&y)).unwrap());
        let (cg, ch) = (arena.canonical(g), arena.canonical(h));
        prop_assert!(arena.equivalent(g, cg));
        prop_assert_eq!(arena.equivalent(g, h), cg == ch);
    }
}

#[test]
fn sums_of_forms_in_general_need_not_respect_equivalence() {
    let p = Poset::p3();
    let f = wiring(&p, &p, &[(0, 3), (1, 5)], &[0, 4, 2]);
    let mut arena = Arena::new(p.clone());
    let (g, k) = (
        arena.parse("{c | a}").unwrap(),
        arena.parse("{a | a}").unwrap(),
    );
    let a = arena.parse("a").unwrap();
    assert!(arena.equivalent(k, a));
    assert!(!arena.is_passable(g));
    let mut out = Arena::new(p);
    let (gk, ga) = (
        sum(&arena, g, &arena, k, &f, &mut out),
        sum(&arena, g, &arena, a, &f, &mut out),
    );
    assert!(!out.equivalent(gk, ga));
}

#[test]
fn atoms_have_ids_of_their_index() {
    let mut arena = Arena::new(Poset::p3());
    for a in 0..5u8 {
        assert_eq!(arena.atom(a as Atom), GameId(a as u32));
    }
}
