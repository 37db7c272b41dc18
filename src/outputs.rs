//! The guard every command that writes files passes its paths through
//! before it starts work: no output may be another output or one of the
//! command's inputs (compared as canonical paths), none may replace a
//! darkhex file of another kind, SVG outputs must be named `.svg`, and each
//! must be writable.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use anyhow::{Result, bail};
use darkhex_algorithms::files::{FileKind, check_writable, identify};

/// What an output holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// A darkhex document (policy, checkpoint, PONE strategy).
    Document(FileKind),
    /// An SVG chart or picture.
    Svg,
    /// Edge patterns learnt by the Hex solver (read first when present).
    EdgePatterns,
}

impl Holds {
    fn what(self) -> String {
        match self {
            Holds::Document(kind) => format!("a {}", kind.what()),
            Holds::Svg => "an SVG chart".into(),
            Holds::EdgePatterns => "edge patterns".into(),
        }
    }
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

    /// A file the command writes.
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
    /// is badly named, would replace another output, an input or a darkhex
    /// file of another kind, or cannot be written.
    pub fn check(&self) -> Result<()> {
        for e in &self.entries {
            let Some(holds) = e.holds else { continue };
            let p = e.path.display();
            if holds == Holds::Svg && !has_extension(&e.path, "svg") {
                bail!(
                    "{} {p}: the file written there is an SVG chart; give a name ending in .svg",
                    e.option
                );
            }
            if e.path.is_file()
                && let Some(found) = identify(&e.path)
                && holds != Holds::Document(found)
            {
                bail!(
                    "{} {p} would replace a darkhex {} with {}: give another path, or remove the file first",
                    e.option,
                    found.what(),
                    holds.what()
                );
            }
        }
        // Devices (/dev/null) may be named by several outputs.
        let keys: Vec<Option<PathBuf>> = self
            .entries
            .iter()
            .map(|e| (!is_device(&e.path)).then(|| canonical(&e.path)))
            .collect();
        for (i, a) in self.entries.iter().enumerate() {
            for (j, b) in self.entries.iter().enumerate().skip(i + 1) {
                if keys[i].is_none() || keys[i] != keys[j] {
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
        for e in self.entries.iter().filter(|e| e.holds.is_some()) {
            check_writable(&e.path)?;
        }
        Ok(())
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
}
