//! How large expansions grow: the estimates made before they start
//! against what they store, and the memory limit that stops them.

use std::cell::RefCell;
use std::path::PathBuf;

use darkhex_local::LocalError;
use darkhex_local::expansion::{Limits, PROGRESS_EVERY, Progress};
use darkhex_local::region::Region;
use darkhex_local::template::Template;

fn local_file(folder: &str, name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(folder)
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// `rows` x `cols` empty cells between terminal 1 above and 2 below, or
/// (with `three`) between 1 above, 2 on the left and 3 on the right.
fn parallelogram(rows: usize, cols: usize, three: bool) -> String {
    let row = |r: usize, cell: &str| format!("{}{}", " ".repeat(r), vec![cell; cols].join(" "));
    let mut lines = Vec::new();
    if three {
        lines.push(format!("W {} W", row(0, "1")));
        for r in 0..rows {
            lines.push(format!("{}2 {} 3", " ".repeat(r + 1), row(0, ".")));
        }
        lines.push(format!("{}W {}", " ".repeat(rows + 1), row(0, "W")));
    } else {
        lines.push(row(0, "1"));
        for r in 0..rows {
            lines.push(row(r + 1, "."));
        }
        lines.push(row(rows + 1, "2"));
    }
    lines.join("\n") + "\n"
}

#[test]
fn a_regions_estimate_bounds_what_its_expansion_stores_within_the_stated_factor() {
    // Region::estimate: the expansion stores 0.28 to 1.01 times the
    // estimate (the estimate's walks have a fixed seed).
    let regions = [
        local_file("regions", "ziggurat.region"),
        local_file("regions", "figure9.region"),
        parallelogram(2, 6, false),
        parallelogram(3, 4, false),
        parallelogram(3, 4, true),
        parallelogram(2, 7, true),
    ];
    for text in &regions {
        let region = Region::parse(text).unwrap();
        let estimate = region.estimate();
        let mut arena = region.arena();
        let stored = region.value(&mut arena, true).positions as f64;
        let ratio = stored / estimate.positions;
        assert!(
            (0.28..=1.02).contains(&ratio),
            "{text}: stored {stored}, estimated {} ± {}",
            estimate.positions,
            estimate.std_error
        );
        assert!(estimate.std_error < 0.05 * estimate.positions, "{text}");
    }
}

#[test]
fn a_templates_estimate_is_what_its_analysis_stores() {
    // Template::estimate counts the very positions the analysis stores,
    // up to the walks' error (at most 1% on these).
    let templates = [
        local_file("templates", "ziggurat.region"),
        local_file("templates", "half-star.region"),
        local_file("templates", "span.region"),
        parallelogram(3, 4, true),
    ];
    for text in &templates {
        let template = Template::new(Region::parse(text).unwrap()).unwrap();
        let estimate = template.estimate();
        let stored = template.analyse().positions as f64;
        assert!(
            (stored / estimate.positions - 1.0).abs() < 0.02,
            "{text}: stored {stored}, estimated {} ± {}",
            estimate.positions,
            estimate.std_error
        );
    }
}

#[test]
fn an_expansion_past_its_memory_limit_stops_with_what_it_held() {
    // 119,255 positions stored, 5 MB counted at the end: a limit of 1 MB
    // stops it at the first check, after PROGRESS_EVERY positions.
    let region = Region::parse(&parallelogram(3, 4, false)).unwrap();
    let seen = RefCell::new(Vec::new());
    let progress = |p: Progress| seen.borrow_mut().push(p);
    let limits = Limits {
        max_bytes: Some(1_000_000),
        progress: Some(&progress),
    };
    let mut arena = region.arena();
    match region.value_within(&mut arena, true, &limits) {
        Err(LocalError::OverLimit {
            positions,
            bytes,
            limit,
        }) => {
            assert_eq!((positions, limit), (PROGRESS_EVERY, 1_000_000));
            assert!(bytes > limit);
            assert_eq!(seen.borrow().len(), 1);
            assert_eq!(seen.borrow()[0].bytes, bytes);
        }
        other => panic!("not stopped: {other:?}"),
    }
    // Within a limit it has room for, the same value as without one, and
    // a report at every PROGRESS_EVERY positions.
    seen.borrow_mut().clear();
    let roomy = Limits {
        max_bytes: Some(100_000_000),
        progress: Some(&progress),
    };
    let mut limited = region.arena();
    let within = region.value_within(&mut limited, true, &roomy).unwrap();
    let mut free = region.arena();
    let without = region.value(&mut free, true);
    assert_eq!(within.positions, without.positions);
    assert_eq!(limited.display(within.value), free.display(without.value));
    let reported: Vec<usize> = seen.borrow().iter().map(|p| p.positions).collect();
    assert_eq!(reported, [PROGRESS_EVERY]);
    // A template's analysis stops the same way.
    let template = Template::new(Region::parse(&parallelogram(3, 4, true)).unwrap()).unwrap();
    let tight = Limits {
        max_bytes: Some(1_000_000),
        progress: None,
    };
    assert!(matches!(
        template.analyse_within(&tight),
        Err(LocalError::OverLimit {
            positions: PROGRESS_EVERY,
            ..
        })
    ));
}
