//! Values of Hex regions: the worked example of Demer and Selinger's
//! Figure 9, values computed two ways, sums against composed regions and
//! passability (their Theorem 3.4).

use std::path::PathBuf;

use darkhex_local::region::Region;
use darkhex_local::sum::{OutcomeMap, sum};
use darkhex_local::{Arena, GameId, Poset};
use proptest::prelude::*;

fn region_file(name: &str) -> Region {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("regions")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    Region::parse(&text).unwrap()
}

/// The value built canonically, and the full form canonicalised after.
fn two_ways(region: &Region) -> (Arena, GameId, GameId) {
    let mut arena = region.arena();
    let built = region.value(&mut arena, true).value;
    let raw = region.value(&mut arena, false).value;
    let after = arena.canonical(raw);
    (arena, built, after)
}

#[test]
fn figure_9_has_the_papers_game_form() {
    // "by recursively expanding G, we find that its game form is
    // {{⊤ | ⊤}, {⊤ | a} | {a | ⊥}, {⊤ | ⊥}}" (Demer and Selinger, 3.2).
    let region = region_file("figure9.region");
    assert_eq!(region.terminals(), 3);
    assert_eq!(region.cell_names(), ["x", "y"]);
    let mut arena = region.arena();
    let raw = region.value(&mut arena, false).value;
    let paper = arena
        .parse("{{⊤ | ⊤}, {⊤ | a} | {a | ⊥}, {⊤ | ⊥}}")
        .unwrap();
    assert_eq!(raw, paper, "got {}", arena.display(raw));
    let built = region.value(&mut arena, true).value;
    assert_eq!(built, arena.canonical(paper));
    assert!(arena.equivalent(built, paper));
    // {⊤ | ⊤} ≃ ⊤ dominates {⊤ | a}; White's move at x dominates.
    assert_eq!(arena.display(built), "{⊤ | {a | ⊥}}");
}

#[test]
fn a_bridge_is_worth_a_connection() {
    let bridge = region_file("bridge.region");
    let connected = region_file("connected.region");
    let (mut arena, b, b2) = two_ways(&bridge);
    assert_eq!(b, b2);
    let (carena, c, _) = two_ways(&connected);
    assert_eq!(arena.display(b), carena.display(c));
    assert_eq!(arena.display(b), "⊤");
    // The bridge is not ⊤ as a form: White's intrusion has to be answered.
    let raw = bridge.value(&mut arena, false).value;
    assert_ne!(raw, b);
    assert!(arena.is_monotone(raw));
}

#[test]
fn sums_of_regions_are_the_composed_regions() {
    // One empty cell between the terminals is * = {⊤ | ⊥}; two of them in
    // series (joined by a black stone) are * +_and *, in parallel (a
    // bridge) * +_or *.
    let b = Poset::boolean();
    let and = OutcomeMap::new(&b, &b, &b, |x, y| x.min(y)).unwrap();
    let or = OutcomeMap::new(&b, &b, &b, |x, y| x.max(y)).unwrap();
    let single = Region::parse("1 a 2").unwrap();
    let series = Region::parse("1 a B b 2").unwrap();
    let mut arena = single.arena();
    let star = single.value(&mut arena, true).value;
    assert_eq!(arena.display(star), "{⊤ | ⊥}");
    for (map, region) in [(and, series), (or, region_file("bridge.region"))] {
        let mut out = Arena::new(b.clone());
        let s = sum(&arena, star, &arena, star, &map, &mut out);
        let s = out.canonical(s);
        let r = region.value(&mut out, true).value;
        assert_eq!(s, r, "{} vs {}", out.display(s), out.display(r));
    }
}

#[test]
fn the_ziggurat_is_a_connection_and_values_are_passable() {
    for name in [
        "figure9.region",
        "bridge.region",
        "connected.region",
        "ziggurat.region",
    ] {
        let region = region_file(name);
        let (mut arena, built, after) = two_ways(&region);
        assert_eq!(built, after, "{name}");
        assert!(arena.is_passable(built), "{name}: {}", arena.display(built));
        let raw = region.value(&mut arena, false).value;
        assert!(arena.is_monotone(raw), "{name}");
    }
    let zig = region_file("ziggurat.region");
    assert_eq!(zig.empty_cells(), 8);
    let mut arena = zig.arena();
    let v = zig.value(&mut arena, true).value;
    assert_eq!(arena.display(v), "⊤");
}

#[test]
fn a_fork_identifies_c_with_bottom() {
    let text = "W W 2 W\n 1 x y W\n  W 3 W -\n";
    let fork = Region::parse(&format!("poset fork\n{text}")).unwrap();
    let mut arena = fork.arena();
    let v = fork.value(&mut arena, true).value;
    assert_eq!(arena.poset().name(), "fork");
    assert_eq!(arena.display(v), "{⊤ | {a | ⊥}}");
}

#[test]
fn malformed_regions_are_refused_with_the_line() {
    for (text, says) in [
        ("1 . 2\n. Z .", "line 2"),
        ("1 . 2 3 4", "'4' is not a cell"),
        ("1 . .", "terminals must be 1 and 2"),
        ("1 3 .", "terminals must be 1 and 2"),
        ("1 x x 2", "used twice"),
        ("poset p3\n1 . 2", "for 3 terminals"),
        ("poset boolean\n1 . 2 3", "for 2 terminals"),
        ("poset klein\n1 . 2", "unknown poset"),
        ("1 .. 2", "not one cell"),
        ("", "terminals"),
    ] {
        let err = Region::parse(text).unwrap_err().to_string();
        assert!(err.contains(says), "{text:?}: {err}");
        assert!(!err.contains('\n'), "one line: {err}");
    }
    let big = format!("1 {} 2", ["."; 65].join(" "));
    assert!(
        Region::parse(&big)
            .unwrap_err()
            .to_string()
            .contains("at most 64")
    );
}

/// A random region: terminal 1 above, 2 below (and 3 at the left when
/// `three`), two rows of 5 random cells between.
fn random_region(three: impl Strategy<Value = bool>) -> impl Strategy<Value = String> {
    let cell = prop_oneof![Just('.'), Just('.'), Just('W'), Just('B')];
    (prop::collection::vec(cell, 10), three).prop_map(|(cells, three)| {
        let row = |i: usize| {
            cells[i * 5..i * 5 + 5]
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let side = if three { "3" } else { "W" };
        format!(
            "1 1 1 1 1 W\n {side} {} W\n  {side} {} W\n   2 2 2 2 2 2\n",
            row(0),
            row(1)
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_regions_agree_two_ways_and_are_passable(text in random_region(any::<bool>())) {
        let region = Region::parse(&text).unwrap();
        let (mut arena, built, after) = two_ways(&region);
        prop_assert_eq!(built, after, "{}", text);
        prop_assert!(arena.is_passable(built), "{}: {}", text, arena.display(built));
        let raw = region.value(&mut arena, false).value;
        prop_assert!(arena.is_monotone(raw));
    }

    #[test]
    fn sums_of_region_values_respect_the_order(
        x in random_region(Just(false)),
        y in random_region(Just(false)),
        z in random_region(Just(false)),
    ) {
        // Region values are passable, and for passable games G <= H gives
        // G +_f K <= H +_f K, and summing canonical forms changes nothing.
        let b = Poset::boolean();
        let mut arena = Arena::new(b.clone());
        let raw: Vec<GameId> = [&x, &y, &z]
            .iter()
            .map(|t| Region::parse(t).unwrap().value(&mut arena, false).value)
            .collect();
        let (g, h, k) = (raw[0], raw[1], raw[2]);
        for f in [|p: u8, q: u8| p.min(q), |p: u8, q: u8| p.max(q)] {
            let f = OutcomeMap::new(&b, &b, &b, f).unwrap();
            let mut out = Arena::new(b.clone());
            let gk = sum(&arena, g, &arena, k, &f, &mut out);
            let hk = sum(&arena, h, &arena, k, &f, &mut out);
            if arena.le(g, h) {
                prop_assert!(out.le(gk, hk));
            }
            let (cg, ck) = (arena.canonical(g), arena.canonical(k));
            let s = sum(&arena, cg, &arena, ck, &f, &mut out);
            prop_assert!(out.equivalent(s, gk));
        }
    }
}
