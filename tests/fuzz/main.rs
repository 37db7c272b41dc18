//! Fuzzing every parser a user feeds: game strings, player specs, moves,
//! policy files (JSON and binary), checkpoints, PONE strategies, edge
//! pattern files, league TOML and results logs, and GTP lines with the SGF
//! files `loadsgf` reads. Each input must give an answer or a one-line
//! error: no panic, no hang, no allocation past a bound.
//!
//! Inputs are seeds from `tests/fuzz/corpus` (files the tool wrote, and
//! hand-made edge cases), cut, bit-flipped, spliced with tokens that break
//! parsers, plus inputs generated from each grammar. proptest drives the
//! cases and shrinks a failure to a small input; a run is bounded (about
//! half a minute for the whole set). `DARKHEX_FUZZ_SCALE=10` runs ten times
//! as many cases. The cases are drawn from a fixed seed, so the suite gives
//! the same verdict on every machine; `DARKHEX_FUZZ_SEED=random` (or a
//! number) draws others. The input being tried is kept in
//! `target/tmp/fuzz-last-<target>`: an abort (an allocation past the bound,
//! a stack overflow) leaves it there.

#[path = "../common/mod.rs"]
mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};

/// No single allocation may exceed this: a length read from a file must
/// not become an allocation of that size.
const MAX_ALLOCATION: usize = 1 << 30;

struct Bounded;

// SAFETY: every call goes to the system allocator unchanged, except that
// requests past the bound fail (null), which Rust turns into an abort.
unsafe impl GlobalAlloc for Bounded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MAX_ALLOCATION {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MAX_ALLOCATION {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > MAX_ALLOCATION {
            return std::ptr::null_mut();
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Bounded = Bounded;

/// The longest one input may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(20);

fn corpus(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz/corpus")
        .join(target)
}

/// The seed files of a target, sorted by name.
fn seed_files(target: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus(target))
        .unwrap_or_else(|e| panic!("corpus {target}: {e}"))
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let seeds: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(!seeds.is_empty(), "no seeds for {target}");
    seeds
}

/// The lines of a target's seed files (one seed a line).
fn seed_lines(target: &str) -> Vec<Vec<u8>> {
    seed_files(target)
        .iter()
        .flat_map(|f| {
            String::from_utf8_lossy(f)
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| l.as_bytes().to_vec())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Cases for a target: `base`, times `DARKHEX_FUZZ_SCALE`.
fn cases(base: u32) -> u32 {
    let scale: u32 = std::env::var("DARKHEX_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    base.saturating_mul(scale.max(1))
}

/// The seed cases are drawn from: fixed unless `DARKHEX_FUZZ_SEED` says
/// `random` or gives another number. A test suite whose verdict changes
/// from run to run cannot gate a change; exploring is a separate, longer run.
fn rng_seed() -> RngSeed {
    const FIXED: u64 = 0x0064_6172_6b68_6578;
    match std::env::var("DARKHEX_FUZZ_SEED").ok().as_deref() {
        None | Some("") => RngSeed::Fixed(FIXED),
        Some("random") => RngSeed::Random,
        Some(n) => {
            RngSeed::Fixed(n.parse().unwrap_or_else(|_| {
                panic!("DARKHEX_FUZZ_SEED is '{n}': give a number or 'random'")
            }))
        }
    }
}

/// Pieces that break parsers: numbers at and past their type's range,
/// JSON and TOML punctuation, separators of game strings and move lists.
const TOKENS: &[&str] = &[
    "0",
    "-1",
    "1",
    "255",
    "256",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "1e308",
    "1e309",
    "-0",
    "NaN",
    "inf",
    "null",
    "true",
    "\"",
    "\\",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    ";",
    "=",
    "(",
    ")",
    "\n",
    "\r\n",
    "\t",
    " ",
    "#",
    "[[players]]",
    "\u{0}",
    "é",
    "\u{feff}",
    "a1",
    "z99",
    "swap-pieces",
    "resign",
    "J",
    "Kh",
    "bet",
];

#[derive(Clone, Debug)]
enum Mutation {
    /// Cut the input here.
    Truncate(Index),
    FlipBit(Index, u8),
    SetByte(Index, u8),
    InsertToken(Index, usize),
    Delete(Index, u8),
    /// Repeat a short stretch many times (deep nesting, long lists).
    Repeat(Index, u8, u16),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => any::<Index>().prop_map(Mutation::Truncate),
        3 => (any::<Index>(), 0..8u8).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::SetByte(i, b)),
        3 => (any::<Index>(), 0..TOKENS.len()).prop_map(|(i, t)| Mutation::InsertToken(i, t)),
        2 => (any::<Index>(), 1..16u8).prop_map(|(i, n)| Mutation::Delete(i, n)),
        1 => (any::<Index>(), 1..12u8, 2..2000u16).prop_map(|(i, n, k)| Mutation::Repeat(i, n, k)),
    ]
}

fn mutate(seed: &[u8], mutations: &[Mutation]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for m in mutations {
        let at = |i: &Index, b: &Vec<u8>| {
            if b.is_empty() {
                0
            } else {
                i.index(b.len() + 1)
            }
        };
        match m {
            Mutation::Truncate(i) => b.truncate(at(i, &b)),
            Mutation::FlipBit(i, bit) if !b.is_empty() => {
                let p = i.index(b.len());
                b[p] ^= 1 << bit;
            }
            Mutation::SetByte(i, v) if !b.is_empty() => {
                let p = i.index(b.len());
                b[p] = *v;
            }
            Mutation::InsertToken(i, t) => {
                let p = at(i, &b);
                b.splice(p..p, TOKENS[*t].bytes());
            }
            Mutation::Delete(i, n) => {
                let p = at(i, &b).min(b.len());
                let end = (p + *n as usize).min(b.len());
                b.drain(p..end);
            }
            Mutation::Repeat(i, n, k) => {
                let p = at(i, &b).min(b.len());
                let end = (p + *n as usize).min(b.len());
                let piece = b[p..end].to_vec();
                let copies: Vec<u8> = piece
                    .iter()
                    .copied()
                    .cycle()
                    .take(piece.len() * *k as usize)
                    .collect();
                b.splice(end..end, copies);
            }
            _ => {}
        }
    }
    b
}

/// Seeds as given, or cut, flipped and spliced.
fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let n = seeds.len();
    (0..n, prop::collection::vec(mutation(), 0..5)).prop_map(move |(i, m)| mutate(&seeds[i], &m))
}

/// A file's bytes, shown as text with everything else escaped.
#[derive(Clone)]
struct Bytes(Vec<u8>);

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `check` on `input` on a thread of its own: a panic or an input
/// that takes longer than [`HANG`] fails the case, naming the input.
fn guarded<T: std::fmt::Debug + Send + 'static>(
    target: &str,
    input: T,
    check: impl FnOnce(&T) -> Result<(), String> + Send + 'static,
) -> Result<(), TestCaseError> {
    let described = format!("{input:?}");
    // Kept for an abort, which no guard can report.
    let last = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-last-{target}"));
    let _ = std::fs::write(&last, &described);
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(move || {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&input)));
            let _ = tx.send(outcome);
        })
        .unwrap();
    match rx.recv_timeout(HANG) {
        Ok(Ok(Ok(()))) => {
            let _ = worker.join();
            Ok(())
        }
        Ok(Ok(Err(e))) => Err(TestCaseError::fail(format!(
            "{target}: {e}\ninput: {described}"
        ))),
        Ok(Err(panic)) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(TestCaseError::fail(format!(
                "{target} panicked: {message}\ninput: {described}"
            )))
        }
        Err(_) => Err(TestCaseError::fail(format!(
            "{target}: no answer in {HANG:?}\ninput: {described}"
        ))),
    }
}

/// Runs every seed of the corpus as it is, before any mutation: a seed
/// kept from a failure is tried on every run, whatever proptest draws.
fn each_seed<T: std::fmt::Debug + Send + 'static>(
    target: &str,
    inputs: impl IntoIterator<Item = T>,
    check: fn(&T) -> Result<(), String>,
) {
    for input in inputs {
        if let Err(e) = guarded(target, input, check) {
            panic!("{target}, a seed of the corpus: {e}");
        }
    }
}

fn run<S: Strategy>(
    target: &str,
    base_cases: u32,
    strategy: S,
    body: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let mut runner = TestRunner::new(Config {
        cases: cases(base_cases),
        failure_persistence: None,
        // A failure shrinks to a small input, within reason.
        max_shrink_iters: 2000,
        rng_seed: rng_seed(),
        ..Config::default()
    });
    if let Err(e) = runner.run(&strategy, body) {
        panic!("{target}: {e}");
    }
}

/// An error a user reads: one line (a cause may follow on a second), and
/// not empty.
fn one_line(e: &dyn std::fmt::Display) -> Result<(), String> {
    let s = e.to_string();
    // `DARKHEX_FUZZ_ERRORS=1`: every error on stderr, to see which parts
    // of a parser the inputs reach.
    if std::env::var_os("DARKHEX_FUZZ_ERRORS").is_some() {
        eprintln!("fuzz error: {s}");
    }
    if s.trim().is_empty() {
        return Err("an empty error message".into());
    }
    if s.lines().count() > 2 {
        return Err(format!("an error of {} lines: {s}", s.lines().count()));
    }
    Ok(())
}

mod files;
mod games_and_specs;
mod gtp;
mod league;

/// A change to one value of a parsed document: what keeps a file well
/// formed while making its contents wrong (an array cut short, a number
/// out of range, a field gone), which byte mutations rarely reach.
#[derive(Clone, Debug)]
enum Edit {
    Number(Index, usize),
    Truncate(Index, Index),
    Duplicate(Index, Index),
    Remove(Index, Index),
    Text(Index, usize),
}

const NUMBERS: &[f64] = &[
    0.0,
    -1.0,
    1.0,
    0.5,
    2.0,
    3.0,
    7.0,
    255.0,
    256.0,
    65535.0,
    65536.0,
    4294967295.0,
    4294967296.0,
    1.8446744073709552e19,
    1e308,
    -1e308,
];

const TEXTS: &[&str] = &[
    "",
    "kuhn_poker",
    "leduc_poker",
    "dark_hex(num_rows=2,num_cols=2)",
    "dark_hex(num_rows=3,num_cols=3)",
    "hex(board_size=26)",
    "darkhex-policy",
    "darkhex-checkpoint",
    "Cfr",
    "CfrPlus",
    "External",
    "random",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<Index>(), 0..NUMBERS.len()).prop_map(|(i, n)| Edit::Number(i, n)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Edit::Truncate(i, j)),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Edit::Duplicate(i, j)),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Edit::Remove(i, j)),
        1 => (any::<Index>(), 0..TEXTS.len()).prop_map(|(i, t)| Edit::Text(i, t)),
    ]
}

/// Every value of a document, as JSON pointers, depth first.
fn pointers(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                pointers(x, format!("{at}/{i}"), out);
            }
        }
        serde_json::Value::Object(map) => {
            for (k, x) in map {
                pointers(
                    x,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
    out.push(at);
}

fn apply_edit(doc: &mut serde_json::Value, e: &Edit) {
    let mut all = Vec::new();
    pointers(doc, String::new(), &mut all);
    let pick = |i: &Index, want: &dyn Fn(&serde_json::Value) -> bool, doc: &serde_json::Value| {
        let fitting: Vec<&String> = all
            .iter()
            .filter(|p| doc.pointer(p).is_some_and(want))
            .collect();
        (!fitting.is_empty()).then(|| fitting[i.index(fitting.len())].clone())
    };
    match e {
        Edit::Number(i, n) => {
            if let Some(p) = pick(i, &|v| v.is_number(), doc)
                && let Some(v) = doc.pointer_mut(&p)
            {
                let x = NUMBERS[*n];
                *v = if x >= 0.0 && x.fract() == 0.0 && x < 1.9e19 {
                    serde_json::Value::from(x as u64)
                } else if x.fract() == 0.0 && x > -9.2e18 && x < 0.0 {
                    serde_json::Value::from(x as i64)
                } else {
                    serde_json::Value::from(x)
                };
            }
        }
        Edit::Truncate(i, j) => {
            if let Some(p) = pick(i, &|v| v.as_array().is_some_and(|a| !a.is_empty()), doc)
                && let Some(serde_json::Value::Array(a)) = doc.pointer_mut(&p)
            {
                let keep = j.index(a.len());
                a.truncate(keep);
            }
        }
        Edit::Duplicate(i, j) => {
            if let Some(p) = pick(i, &|v| v.as_array().is_some_and(|a| !a.is_empty()), doc)
                && let Some(serde_json::Value::Array(a)) = doc.pointer_mut(&p)
            {
                let x = a[j.index(a.len())].clone();
                a.push(x);
            }
        }
        Edit::Remove(i, j) => {
            if let Some(p) = pick(i, &|v| v.as_object().is_some_and(|m| !m.is_empty()), doc)
                && let Some(serde_json::Value::Object(m)) = doc.pointer_mut(&p)
            {
                let key = m.keys().nth(j.index(m.len())).cloned().unwrap_or_default();
                m.remove(&key);
            }
        }
        Edit::Text(i, t) => {
            if let Some(p) = pick(i, &|v| v.is_string(), doc)
                && let Some(v) = doc.pointer_mut(&p)
            {
                *v = TEXTS[*t].into();
            }
        }
    }
}

/// A document darkhex wrote, edited value by value and written back in its
/// own layout: JSON, JSON lines, or a binary header with MessagePack whose
/// length and checksum are made right again.
fn edit_document(bytes: &[u8], edits: &[Edit]) -> Vec<u8> {
    let edited = |mut doc: serde_json::Value| {
        for e in edits {
            apply_edit(&mut doc, e);
        }
        doc
    };
    if let Ok(doc) = serde_json::from_slice::<serde_json::Value>(bytes) {
        return serde_json::to_vec(&edited(doc)).unwrap();
    }
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    let header = serde_json::from_slice::<serde_json::Value>(&bytes[..end]);
    let payload = bytes.get(end + 1..).unwrap_or_default();
    match (header, rmp_serde::from_slice::<serde_json::Value>(payload)) {
        (Ok(mut header), Ok(doc)) if header.get("crc32").is_some() => {
            let payload = rmp_serde::to_vec_named(&edited(doc)).unwrap();
            header["bytes"] = payload.len().into();
            header["crc32"] = crc32fast::hash(&payload).into();
            let mut out = serde_json::to_vec(&header).unwrap();
            out.push(b'\n');
            out.extend_from_slice(&payload);
            out
        }
        // JSON lines (a league log): each line edited alike.
        _ => {
            let text = String::from_utf8_lossy(bytes);
            let mut out = String::new();
            for (n, line) in text.lines().enumerate() {
                match serde_json::from_str::<serde_json::Value>(line) {
                    // Edits land on the game lines, the header now and then.
                    Ok(doc) if n > 0 || edits.len().is_multiple_of(3) => {
                        out += &serde_json::to_string(&edited(doc)).unwrap()
                    }
                    _ => out += line,
                }
                out.push('\n');
            }
            out.into_bytes()
        }
    }
}

/// Seeds of a file target, byte-mutated or edited value by value.
fn documents(target: &str) -> impl Strategy<Value = Vec<u8>> + use<> {
    let seeds = seed_files(target);
    let n = seeds.len();
    prop_oneof![
        mutated(seeds.clone()),
        (0..n, prop::collection::vec(edit(), 1..4))
            .prop_map(move |(i, e)| edit_document(&seeds[i], &e)),
    ]
}
