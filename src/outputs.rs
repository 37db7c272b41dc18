//! The one guard every command's files pass through before any work
//! starts (`main` runs it on what each command declares in `files`): no
//! output may be another output or one of the command's inputs (compared
//! as canonical paths); an output replaces only a darkhex file of the kind
//! it writes (a rerun rewriting its policy), never a darkhex file of
//! another kind nor a file darkhex did not write; a folder output is a new
//! or empty folder or one of its own kind; SVG outputs are named `.svg`;
//! and each output must be writable.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use anyhow::{Result, bail};
use darkhex_algorithms::files::{FileKind, check_writable, identify};

/// What an output holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// A darkhex document (policy, model, checkpoint, PONE strategy,
    /// league results log, log of solved openings).
    Document(FileKind),
    /// An SVG chart or picture.
    Svg,
    /// Edge patterns learnt by the Hex solver (read first when present).
    EdgePatterns,
    /// A database of 3-terminal values (`darkhex values build`).
    ValueDatabase,
    /// A witness of a template probe, SGF or diagram (written into a
    /// witness folder, never named as an output).
    Witness,
    /// A league's folder: its results log and reports.
    LeagueFolder,
    /// A folder of template witnesses.
    WitnessFolder,
}

impl Holds {
    /// What a user calls it, with its article.
    pub fn what(self) -> String {
        match self {
            Holds::Document(FileKind::OpeningsLog) => "a log of solved openings".into(),
            Holds::Document(kind) => format!("a {}", kind.what()),
            Holds::Svg => "an SVG chart".into(),
            Holds::EdgePatterns => "edge patterns".into(),
            Holds::ValueDatabase => "a value database".into(),
            Holds::Witness => "a template witness".into(),
            Holds::LeagueFolder => "a league folder".into(),
            Holds::WitnessFolder => "a folder of witnesses".into(),
        }
    }

    /// What a file or folder found is called.
    fn found(self) -> String {
        match self {
            Holds::EdgePatterns => "a darkhex file of edge patterns".into(),
            h if h.is_folder() => h.what(),
            h => {
                let what = h.what();
                let noun = what.strip_prefix("an ").or(what.strip_prefix("a "));
                format!("a darkhex {}", noun.unwrap_or(&what))
            }
        }
    }

    fn is_folder(self) -> bool {
        matches!(self, Holds::LeagueFolder | Holds::WitnessFolder)
    }
}

/// What is at a path before the command runs.
#[derive(Debug, PartialEq, Eq)]
enum Found {
    /// Nothing to lose: no file, a device.
    Nothing,
    EmptyFile,
    /// A darkhex file or folder of this kind.
    Darkhex(Holds),
    /// A file darkhex does not write (or cannot recognise).
    Foreign,
    /// A folder holding files but no league results log.
    Folder,
    EmptyFolder,
}

/// Bytes of a file's start read to tell what it is: darkhex's documents
/// name their kind in the first line, and a text kind shows in its first
/// lines (a policy may be gigabytes).
const HEAD_BYTES: u64 = 64 * 1024;

fn found(path: &Path) -> Found {
    let Ok(meta) = std::fs::metadata(path) else {
        return Found::Nothing;
    };
    if meta.is_dir() {
        return match std::fs::read_dir(path).map(|mut d| d.next().is_none()) {
            Ok(true) => Found::EmptyFolder,
            // An empty log starts a league afresh.
            _ if is_league_log(&path.join("results.jsonl")) => Found::Darkhex(Holds::LeagueFolder),
            _ => Found::Folder,
        };
    }
    if !meta.is_file() {
        return Found::Nothing;
    }
    if meta.len() == 0 {
        return Found::EmptyFile;
    }
    if let Some(kind) = identify(path) {
        return Found::Darkhex(Holds::Document(kind));
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(HEAD_BYTES).read_to_end(&mut head));
    if read.is_err() {
        return Found::Foreign;
    }
    text_kind(&String::from_utf8_lossy(&head), meta.len() > HEAD_BYTES)
        .map_or(Found::Foreign, Found::Darkhex)
}

fn is_league_log(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0)
        || identify(path) == Some(FileKind::LeagueLog)
}

/// Why the text at `path` is not of kind `holds`, where its reader can say
/// (the line a file of edge patterns goes wrong on).
fn why_not(path: &Path, holds: Holds) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    match holds {
        Holds::EdgePatterns => darkhex_hexengine::hexsolve::edge_patterns::EdgePatterns::new()
            .learn_text(&text)
            .err()
            .map(|e| e.to_string()),
        _ => None,
    }
}

/// The darkhex text kind that `head`, a file's first bytes, begins
/// (`cut`: the file goes on past them).
fn text_kind(head: &str, cut: bool) -> Option<Holds> {
    let start = head.trim_start_matches('\u{feff}').trim_start();
    if start.starts_with("<svg") || start.starts_with("<?xml") && start.contains("<svg") {
        return Some(Holds::Svg);
    }
    if head.lines().next() == Some(darkhex_local::database::HEADER) {
        return Some(Holds::ValueDatabase);
    }
    if darkhex_local::witness::is_witness_text(head) {
        return Some(Holds::Witness);
    }
    // The last line of a cut head may be cut too.
    let whole = match (cut, head.rfind('\n')) {
        (true, Some(end)) => &head[..end],
        _ => head,
    };
    darkhex_hexengine::hexsolve::edge_patterns::is_pattern_text(whole)
        .then_some(Holds::EdgePatterns)
}

/// One path a command reads or writes, with the option that names it.
struct Entry {
    option: String,
    path: PathBuf,
    /// `None` for what is read.
    holds: Option<Holds>,
}

/// The files of one command run; see the module documentation.
#[derive(Default)]
pub struct Files {
    entries: Vec<Entry>,
}

impl Files {
    pub fn new() -> Self {
        Self::default()
    }

    /// A file the command reads, named by `option` in messages.
    pub fn reads(mut self, option: &str, path: Option<&Path>) -> Self {
        if let Some(path) = path {
            self.entries.push(Entry {
                option: option.to_string(),
                path: path.to_path_buf(),
                holds: None,
            });
        }
        self
    }

    /// A file (or folder) the command writes.
    pub fn writes(mut self, option: &str, path: Option<&Path>, holds: Holds) -> Self {
        if let Some(path) = path {
            self.entries.push(Entry {
                option: option.to_string(),
                path: path.to_path_buf(),
                holds: Some(holds),
            });
        }
        self
    }

    /// Refuses the run, in one line saying what to change, when an output
    /// is badly named, would replace another output, an input, a file of
    /// another kind or one darkhex did not write, or cannot be written.
    pub fn check(&self) -> Result<()> {
        for e in &self.entries {
            if let Some(holds) = e.holds {
                check_one(&e.option, &e.path, holds)?;
            }
        }
        self.check_distinct()?;
        for e in &self.entries {
            match e.holds {
                // A file can be made inside (the folder is made if need be).
                Some(h) if h.is_folder() => check_writable(&e.path.join(".darkhex-check"))?,
                Some(_) => check_writable(&e.path)?,
                None => {}
            }
        }
        Ok(())
    }

    fn check_distinct(&self) -> Result<()> {
        // Devices (/dev/null) may be named by several outputs.
        let keys: Vec<Option<PathBuf>> = self
            .entries
            .iter()
            .map(|e| (!is_device(&e.path)).then(|| canonical(&e.path)))
            .collect();
        for (i, a) in self.entries.iter().enumerate() {
            for (j, b) in self.entries.iter().enumerate().skip(i + 1) {
                let same = match (&keys[i], &keys[j]) {
                    (Some(x), Some(y)) => x == y || inside(x, y, a, b),
                    _ => false,
                };
                if !same {
                    continue;
                }
                let (a, b) = if a.holds.is_some() { (a, b) } else { (b, a) };
                match (a.holds, b.holds) {
                    (Some(_), Some(_)) => bail!(
                        "{} {} and {} {} are the same file: each output needs its own path",
                        a.option,
                        a.path.display(),
                        b.option,
                        b.path.display()
                    ),
                    (Some(_), None) => bail!(
                        "{} {} would overwrite {} {}, which this command reads: give the output another path",
                        a.option,
                        a.path.display(),
                        b.option,
                        b.path.display()
                    ),
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// Whether one of two paths is an input file inside the other, a folder
/// output (a league folder holding the log it is merged from).
fn inside(x: &Path, y: &Path, a: &Entry, b: &Entry) -> bool {
    let folder = |e: &Entry| e.holds.is_some_and(Holds::is_folder);
    (folder(a) && b.holds.is_none() && y.starts_with(x))
        || (folder(b) && a.holds.is_none() && x.starts_with(y))
}

/// The checks of one output on its own; see [`Files::check`].
fn check_one(option: &str, path: &Path, holds: Holds) -> Result<()> {
    let p = path.display();
    if holds == Holds::Svg && !has_extension(path, "svg") {
        bail!("{option} {p}: the file written there is an SVG chart; give a name ending in .svg");
    }
    let what = holds.what();
    let remove = "give another path, or remove the file first";
    match (holds.is_folder(), found(path)) {
        (_, Found::Nothing) | (false, Found::EmptyFile) | (true, Found::EmptyFolder) => Ok(()),
        (_, Found::Darkhex(h)) if h == holds => Ok(()),
        // Witnesses never replace a file: those already there are kept.
        (true, Found::Folder) if holds == Holds::WitnessFolder => Ok(()),
        (true, Found::Folder) => bail!(
            "{option} {p} holds files but no league results log: give a new or empty directory, or a league's own"
        ),
        (true, Found::Darkhex(h)) if h.is_folder() => {
            bail!(
                "{option} {p} is {}, not {what}: give another directory",
                h.found()
            )
        }
        (true, Found::Darkhex(h)) => bail!(
            "{option} {p} is {}, not a directory: {what} is a directory; give a directory's path",
            h.found()
        ),
        (true, Found::Foreign | Found::EmptyFile) => bail!(
            "{option} {p} is a file, not a directory: {what} is a directory; give a directory's path"
        ),
        (false, Found::EmptyFolder | Found::Folder) => {
            bail!("{option} {p} is a directory: {what} is a file; give a file's path")
        }
        (false, Found::Darkhex(h)) if h.is_folder() => {
            bail!(
                "{option} {p} is {}: {what} is a file; give a file's path",
                h.found()
            )
        }
        (false, Found::Darkhex(h)) => {
            bail!(
                "{option} {p} would replace {} with {what}: {remove}",
                h.found()
            )
        }
        (false, Found::Foreign) => {
            let why = why_not(path, holds).map_or(String::new(), |w| format!(" ({w})"));
            bail!(
                "{option} {p} exists and is not {what} darkhex wrote{why}; darkhex replaces only files of the kind it writes: {remove}"
            )
        }
    }
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// A device or pipe rather than a file or directory.
fn is_device(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// `path` made absolute with links resolved, also when it does not exist
/// yet: its longest existing ancestor is resolved and the rest appended,
/// with `.` and `..` applied.
fn canonical(path: &Path) -> PathBuf {
    let absolute = std::env::current_dir()
        .map(|d| d.join(path))
        .unwrap_or_else(|_| path.to_path_buf());
    let mut rest: Vec<OsString> = Vec::new();
    let mut base = absolute.as_path();
    loop {
        if let Ok(resolved) = base.canonicalize() {
            let mut out = resolved;
            for part in rest.iter().rev() {
                match Path::new(part).components().next() {
                    Some(Component::ParentDir) => {
                        out.pop();
                    }
                    Some(Component::CurDir) | None => {}
                    _ => out.push(part),
                }
            }
            return out;
        }
        match (base.parent(), base.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                base = parent;
            }
            // `..` or `.` at the end of a missing path: keep it for the
            // loop above, which applies it once the base resolves.
            (Some(parent), None) => {
                rest.push(
                    base.components()
                        .next_back()
                        .map_or_else(OsString::new, |c| c.as_os_str().to_os_string()),
                );
                base = parent;
            }
            _ => return absolute,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_paths_name_the_same_file_the_same_way() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        let same = [
            d.join("x.json"),
            d.join("sub/../x.json"),
            d.join("./x.json"),
            d.join("new/../x.json"),
        ];
        let first = canonical(&same[0]);
        for p in &same {
            assert_eq!(canonical(p), first, "{}", p.display());
        }
        assert_ne!(canonical(&d.join("sub/x.json")), first);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("sub"), d.join("link")).unwrap();
            assert_eq!(canonical(&d.join("link/y")), canonical(&d.join("sub/y")));
        }
    }

    #[test]
    fn text_kinds_are_told_from_their_first_lines() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let read = |p: &str| std::fs::read_to_string(repo.join(p)).unwrap();
        let patterns = read("hexengine/data/edge-patterns.txt");
        assert_eq!(text_kind(&patterns, false), Some(Holds::EdgePatterns));
        // A head cut inside a line still reads as patterns.
        let cut = &patterns[..patterns.len() - 3];
        assert_eq!(text_kind(cut, true), Some(Holds::EdgePatterns));
        assert_eq!(text_kind(cut, false), None);
        for w in ["bridge-a-witness.sgf", "bridge-a-witness.txt"] {
            let text = read(&format!("local/witnesses/{w}"));
            assert_eq!(text_kind(&text, false), Some(Holds::Witness), "{w}");
        }
        let db = format!("{}\nv 0 0 1 x\n", darkhex_local::database::HEADER);
        assert_eq!(text_kind(&db, false), Some(Holds::ValueDatabase));
        let svg = "<?xml version=\"1.0\"?>\n<svg width=\"10\"></svg>";
        assert_eq!(text_kind(svg, false), Some(Holds::Svg));
        for other in [
            "notes\n",
            "# a comment alone\n",
            "1;2;3 is not a pattern\n",
            "<html></html>",
            "",
        ] {
            assert_eq!(text_kind(other, false), None, "{other}");
        }
    }
}
