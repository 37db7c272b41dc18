//! The user guide (docs/) held to the program, so that it breaks the build
//! when it stops being true:
//!
//! - every `console` block of a page runs, and prints what the page shows
//!   (trycmd; `[..]` stands for part of a line, `...` for lines);
//! - every `gtp` block is a transcript that `darkhex gtp` answers as shown;
//! - docs/reference/commands.md is exactly the commands' `--help`;
//! - every example that a command's `--help` or the README gives appears in
//!   the guide, so none is undocumented or run nowhere;
//! - links between the pages reach a page and a heading that exist.
//!
//! After changing a command's help, regenerate the reference with
//! `DARKHEX_UPDATE_DOCS=1 cargo test --release --test docs`; after changing
//! what a command prints, fix the page (or let trycmd rewrite a block's
//! output with `TRYCMD=overwrite cargo test --release --test docs`, then
//! put back the `[..]` of what varies).

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_darkhex");
const UPDATE: &str = "DARKHEX_UPDATE_DOCS";
const REFERENCE: &str = "docs/reference/commands.md";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every Markdown page under docs/, in a fixed order.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("docs"), &mut out);
    assert!(out.len() > 10, "the guide's pages are missing");
    out
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A fenced code block: its info string, its lines and where it starts.
struct Block {
    info: String,
    lines: Vec<String>,
    line: usize,
}

impl Block {
    fn lang(&self) -> &str {
        self.info.split([' ', ',']).next().unwrap_or_default()
    }
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut current {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    current = Some(Block {
                        info: info.trim().to_string(),
                        lines: Vec::new(),
                        line: i + 1,
                    });
                }
            }
            Some(b) => {
                if line.starts_with("```") {
                    out.push(current.take().unwrap());
                } else {
                    b.lines.push(line.to_string());
                }
            }
        }
    }
    assert!(current.is_none(), "a code block is not closed");
    out
}

/// The command lines of a block (`$ ` prompts, `\` continuations joined,
/// `# comments` dropped), with runs of spaces made one.
fn command_lines(b: &Block) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in &b.lines {
        let line = line.strip_prefix("$ ").unwrap_or(line);
        let line = line.strip_prefix("> ").unwrap_or(line);
        if let Some(head) = line.trim_end().strip_suffix('\\') {
            pending += head;
            pending += " ";
            continue;
        }
        let full = pending.clone() + line;
        pending.clear();
        let code = match full.find("  #").or_else(|| full.find(" # ")) {
            Some(i) => &full[..i],
            None => &full,
        };
        out.push(normalise(code));
    }
    out
}

fn normalise(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every command line the guide shows (README.md is the front page, not
/// the guide).
fn guide_commands() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for page in pages() {
        for b in blocks(&read(&page)) {
            if ["console", "sh", "text"].contains(&b.lang()) {
                out.extend(command_lines(&b));
            }
        }
    }
    out
}

fn help(args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .arg("--help")
        .output()
        .expect("the darkhex binary runs");
    assert!(out.status.success(), "darkhex {args:?} --help failed");
    String::from_utf8(out.stdout).expect("help is text")
}

/// The subcommands a help text lists, `help` aside.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// Every command path: [], [info], ..., [league], [league, show], ...
fn command_paths() -> Vec<Vec<String>> {
    fn visit(path: Vec<String>, out: &mut Vec<Vec<String>>) {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let subs = subcommands(&help(&args));
        out.push(path.clone());
        for s in subs {
            let mut p = path.clone();
            p.push(s);
            visit(p, out);
        }
    }
    let mut out = Vec::new();
    visit(Vec::new(), &mut out);
    out
}

fn render_reference() -> String {
    let paths = command_paths();
    let name = |p: &[String]| {
        std::iter::once("darkhex")
            .chain(p.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut text = String::from(
        "# Command reference\n\n\
         Every command's `--help`, as the program prints it. This page is generated by\n\
         tests/docs.rs, which fails when it differs from the program; regenerate it with\n\
         `DARKHEX_UPDATE_DOCS=1 cargo test --release --test docs`. The [guide](../README.md)\n\
         explains each command with examples.\n\n",
    );
    for p in &paths {
        let n = name(p);
        text += &format!("- [`{n}`](#{})\n", n.replace(' ', "-"));
    }
    for p in &paths {
        let args: Vec<&str> = p.iter().map(String::as_str).collect();
        text += &format!("\n## {}\n\n```text\n{}```\n", name(p), help(&args));
    }
    text
}

#[test]
fn the_command_reference_is_what_the_commands_print() {
    let path = root().join(REFERENCE);
    let now = render_reference();
    if std::env::var_os(UPDATE).is_some() {
        fs::write(&path, &now).unwrap();
        return;
    }
    let written = fs::read_to_string(&path).unwrap_or_default();
    if written != now {
        let first = written
            .lines()
            .zip(now.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| written.lines().count().min(now.lines().count()));
        panic!(
            "{REFERENCE} differs from the commands' --help (first at line {}: {:?} in the file, {:?} from the program); \
             regenerate it with `{UPDATE}=1 cargo test --release --test docs`",
            first + 1,
            written.lines().nth(first).unwrap_or("(end)"),
            now.lines().nth(first).unwrap_or("(end)")
        );
    }
}

#[test]
fn every_example_of_the_help_and_the_readme_is_in_the_guide() {
    let guide = guide_commands();
    let mut missing = Vec::new();
    for p in command_paths() {
        let args: Vec<&str> = p.iter().map(String::as_str).collect();
        let text = help(&args);
        let examples = text
            .lines()
            .skip_while(|l| *l != "Examples:")
            .skip(1)
            .take_while(|l| l.starts_with("  "));
        for e in examples {
            // "darkhex ...     (what it does)": the remark is not the command.
            let e = match e.trim().find("  (") {
                Some(i) => &e.trim()[..i],
                None => e.trim(),
            };
            if !guide.contains(&normalise(e)) {
                missing.push(format!("darkhex {} --help: {e}", args.join(" ")));
            }
        }
    }
    let readme = root().join("README.md");
    for b in blocks(&read(&readme)) {
        for c in command_lines(&b) {
            if c.starts_with("darkhex") && !guide.contains(&c) {
                missing.push(format!("README.md line {}: {c}", b.line));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "examples the guide does not show (add them to a page of docs/guide, in a console block if they run in seconds):\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_code_block_names_its_language() {
    // trycmd runs a block without one as commands.
    for page in pages().into_iter().chain([root().join("README.md")]) {
        for b in blocks(&read(&page)) {
            assert!(
                !b.info.is_empty(),
                "{} line {}: a code block without a language (console, sh, text, toml, json, rust, gtp)",
                shown(&page),
                b.line
            );
        }
    }
}

/// The commands of each page's `console` blocks run in a directory of the
/// page's own, which holds the files the page shows as ```LANG file=NAME.
#[test]
fn console_examples_print_what_the_guide_shows() {
    let start = std::env::current_dir().unwrap();
    let mut failed = Vec::new();
    for page in pages() {
        let text = read(&page);
        let all = blocks(&text);
        if !all.iter().any(|b| b.lang() == "console") {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        for b in &all {
            if let Some(name) = b
                .info
                .split_whitespace()
                .find_map(|w| w.strip_prefix("file="))
            {
                fs::write(dir.path().join(name), b.lines.join("\n") + "\n").unwrap();
            }
        }
        std::env::set_current_dir(dir.path()).unwrap();
        let ran = std::panic::catch_unwind(|| {
            let cases = trycmd::TestCases::new();
            cases
                .register_bin("darkhex", Path::new(BIN))
                .timeout(Duration::from_secs(120))
                .case(&page);
            cases.run();
        });
        std::env::set_current_dir(&start).unwrap();
        if ran.is_err() {
            failed.push(shown(&page));
        }
    }
    assert!(
        failed.is_empty(),
        "pages whose examples print something else (see above): {}",
        failed.join(", ")
    );
}

/// `[..]` in an expected line matches any text.
fn line_matches(expected: &str, actual: &str) -> bool {
    let mut parts = expected.split("[..]");
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

#[test]
fn gtp_transcripts_are_what_the_engine_answers() {
    let mut checked = 0;
    for page in pages() {
        for b in blocks(&read(&page))
            .into_iter()
            .filter(|b| b.lang() == "gtp")
        {
            // The block: a command, its answer, a blank line, and so on.
            let args: Vec<&str> = b.info.split_whitespace().skip(1).collect();
            let mut commands = Vec::new();
            let mut expected: Vec<Vec<String>> = Vec::new();
            let mut answer: Option<Vec<String>> = None;
            for line in &b.lines {
                match &mut answer {
                    None if line.trim().is_empty() => {}
                    None => {
                        commands.push(line.clone());
                        answer = Some(Vec::new());
                    }
                    Some(a) if line.trim().is_empty() => {
                        expected.push(std::mem::take(a));
                        answer = None;
                    }
                    Some(a) => a.push(line.trim_end().to_string()),
                }
            }
            expected.extend(answer);
            let gtp = [&["gtp"][..], &args].concat();
            let input = commands.join("\n") + "\nquit\n";
            let out = common::darkhex_with_input(&gtp, &input);
            let text = String::from_utf8(out.stdout).unwrap();
            let answers: Vec<Vec<String>> = text
                .split("\n\n")
                .map(|a| a.lines().map(|l| l.trim_end().to_string()).collect())
                .collect();
            for (i, (command, want)) in commands.iter().zip(&expected).enumerate() {
                let got = answers.get(i).cloned().unwrap_or_default();
                let same = got.len() == want.len()
                    && want.iter().zip(&got).all(|(w, g)| line_matches(w, g));
                assert!(
                    same,
                    "{} line {}: `{command}` answers {got:?}, the page shows {want:?}",
                    shown(&page),
                    b.line
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no GTP transcript found in the guide");
}

/// GitHub's anchor for a heading.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn links_between_the_pages_reach_pages_and_headings_that_exist() {
    let mut broken = Vec::new();
    for page in pages().into_iter().chain([root().join("README.md")]) {
        let text = read(&page);
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, heading) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            if !path.exists() {
                broken.push(format!("{}: {target} (no such file)", shown(&page)));
            } else if !heading.is_empty()
                && path.extension().is_some_and(|e| e == "md")
                && !anchors(&read(&path)).contains(heading)
            {
                broken.push(format!("{}: {target} (no such heading)", shown(&page)));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_line_matcher_reads_wildcards() {
    assert!(line_matches(
        "seconds          [..]",
        "seconds          0.011"
    ));
    assert!(line_matches("a [..] b [..] c", "a 1 b 2 c"));
    assert!(!line_matches("a [..] b", "a 1 c"));
    assert!(!line_matches("exact", "exactly"));
    assert!(line_matches("exact", "exact"));
}
