//! The database of realizable 3-terminal values: the values Demer and
//! Selinger list as realizable (their Figure 15) are found, every value
//! is passable, a round's count is the same on every build, the file
//! reads back to the same database and refuses damaged copies, and the
//! pinwheel's outcome map has the properties the paper's Lemma 4.10 uses.

use darkhex_local::database::{Database, PERMUTATIONS, default_seeds, pinwheel_outcome};
use darkhex_local::expansion::Limits;
use darkhex_local::region::Region;

fn built(max_atoms: u64, rounds: usize) -> Database {
    let mut db = Database::new(max_atoms);
    db.seed(&default_seeds().unwrap(), &Limits::default())
        .unwrap();
    for _ in 0..rounds {
        db.round().unwrap();
    }
    db
}

/// Figure 15 of "On 3-terminal positions in Hex": values with a Hex
/// realization.
const FIGURE_15: [&str; 15] = [
    "⊥",
    "⊤",
    "a",
    "b",
    "c",
    "{a | ⊥}",
    "{⊤ | a}",
    "{⊤ | {a | ⊥}}",
    "{{⊤ | b} | ⊥}",
    "{a, {⊤ | b} | ⊥}",
    "{a, {⊤ | c} | ⊥}",
    "{b, {⊤ | a, {c | ⊥}} | ⊥}",
    "{a, {⊤ | b} | a}",
    "{a, b | a}",
    "{a, b | {a, b | {a | ⊥}}}",
];

#[test]
fn the_values_demer_and_selinger_list_as_realizable_are_found() {
    let mut db = built(8, 2);
    for v in FIGURE_15 {
        assert!(db.lookup(v).unwrap().is_some(), "{v} is not found");
    }
    // The superswitch {a, b | a} needs two rounds of pinwheels.
    assert_eq!(db.lookup("{a, b | a}").unwrap().unwrap().round, 2);
    // Written another way, a value is found by its canonical form: {⊤ |
    // ⊤} is ⊤, and a dominated left option changes nothing.
    assert!(db.lookup("{{⊤ | ⊤} | {a | ⊥}}").unwrap().is_some());
    // Not every form is realizable: a value no region has.
    assert!(db.lookup("{⊥ | ⊤}").unwrap().is_none());
    let values: Vec<_> = db.entries().iter().map(|e| e.value).collect();
    for g in values {
        assert!(db.is_passable(g), "{} is not passable", db.display(g));
    }
}

#[test]
fn a_rounds_count_is_the_same_on_every_build_and_reads_back() {
    let a = built(6, 2);
    let b = built(6, 2);
    assert_eq!(a.counts(), b.counts());
    assert_eq!(a.to_text(), b.to_text());
    // Round 0: the 5 atoms and 3 seeds, renumbered and dualised.
    assert_eq!(a.counts()[0], 18);
    assert!(
        a.counts().windows(2).all(|w| w[0] < w[1]),
        "{:?}",
        a.counts()
    );
    let text = a.to_text();
    let back = Database::from_text(&text).unwrap();
    assert_eq!(back.to_text(), text);
    // Each value's recipe names only seeds and the three constructions.
    for i in 0..a.entries().len() {
        let r = a.recipe(i);
        assert!(!r.is_empty());
    }
}

#[test]
fn a_damaged_file_is_refused_in_one_line() {
    let text = built(6, 1).to_text();
    let refused = |t: &str, says: &str| {
        let err = Database::from_text(t).err().map(|e| e.to_string());
        let err = err.unwrap_or_else(|| panic!("accepted: {says}"));
        assert!(err.contains(says) && !err.contains('\n'), "{err}");
    };
    refused(&text.replacen("{a | ⊥}", "{b | ⊥}", 1), "checksum");
    let half: Vec<&str> = text.lines().take(text.lines().count() / 2).collect();
    refused(&half.join("\n"), "no checksum line");
    refused("", "no checksum line");
    // Edits with a checksum made to match are still read value by value.
    let resum = |body: &str| {
        let body = body.split("checksum ").next().unwrap().to_string();
        let h = body.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        format!("{body}checksum {h:016x}\n")
    };
    refused(
        &resum(&text.replacen("| {a | ⊥}", "| {{⊤ | ⊤} | ⊥}", 1)),
        "not in canonical form",
    );
    refused(&resum(&text.replacen("| {a | ⊥}", "| a", 1)), "twice");
    refused(
        &resum(&text.replacen("| {a | ⊥}", "| {q | ⊥}", 1)),
        "no atom",
    );
    refused(
        &resum(&text.replacen("dual 5", "dual 500", 1)),
        "not an earlier one",
    );
    refused(
        &resum(&text.replacen("max-atoms", "min-atoms", 1)),
        "starts no line",
    );
}

#[test]
fn the_pinwheel_joins_no_three_with_a_and_b_and_each_pair_somehow() {
    // Lemma 4.10's facts: components ending in a or b never join all
    // three outer terminals, and some such choice joins each pair.
    let (a, b, c, top, bot) = (1, 2, 3, 4, 0);
    let mut reached = Vec::new();
    for x in [a, b] {
        for y in [a, b] {
            for z in [a, b] {
                let o = pinwheel_outcome([x, y, z]);
                assert_ne!(o, top);
                reached.push(o);
            }
        }
    }
    for pair in [a, b, c] {
        assert!(reached.contains(&pair), "{reached:?}");
    }
    // Monotone: a better component never makes the outcome worse.
    let le = |x: u8, y: u8| x == y || x == bot || y == top;
    let atoms = [bot, a, b, c, top];
    for x in atoms {
        for y in atoms {
            for z in atoms {
                for x2 in atoms.into_iter().filter(|&x2| le(x, x2)) {
                    assert!(le(
                        pinwheel_outcome([x, y, z]),
                        pinwheel_outcome([x2, y, z])
                    ));
                }
            }
        }
    }
    // All three components joined everywhere: all terminals joined.
    assert_eq!(pinwheel_outcome([top, top, top]), top);
    assert_eq!(pinwheel_outcome([bot, bot, bot]), bot);
    assert_eq!(PERMUTATIONS.len(), 6);
}

#[test]
fn a_pinwheel_drawn_as_a_region_has_the_composed_value() {
    // Three one-cell components p, q, r round a white centre, each
    // touching its two inner stones (B) and its outer terminal: component
    // i's terminals X_i, X_{i+1}, O_i, as the composition numbers them.
    // The region's value, from its own expansion, must be the pinwheel of
    // the components' values; also with r white (component ⊥) and with
    // p black (component ⊤).
    let drawn = "- - - - 1\n - - B p -\n  3 r W B -\n   - B q - -\n    - - 2 - -\n";
    let mut db = Database::new(100);
    let p2 = db.parse("{⊤ | ⊥}").unwrap();
    let top = db.parse("⊤").unwrap();
    let bot = db.parse("⊥").unwrap();
    for (text, parts) in [
        (drawn.to_string(), [p2, p2, p2]),
        (drawn.replace('r', "W"), [p2, p2, bot]),
        (drawn.replace('p', "B"), [top, p2, p2]),
    ] {
        let region = Region::parse(&text).unwrap();
        let mut arena = region.arena();
        let v = region.value(&mut arena, true).value;
        let composed = db.pinwheel(parts);
        // Read into the database's arena, where equal values are one id.
        let drawn_value = db.parse(&arena.display(v)).unwrap();
        assert_eq!(composed, drawn_value, "{text}: {}", arena.display(v));
    }
    // Not a trivial value: Black moving first can join a pair.
    let g = db.pinwheel([p2, p2, p2]);
    assert_ne!(db.display(g), "⊥");
}
