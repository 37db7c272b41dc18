//! The files darkhex writes (policies, checkpoints, PONE strategies, league
//! logs): how each kind is recognised, written atomically and read back.
//!
//! A JSON file names its kind in a `format` field. A binary file starts with
//! one JSON line, `{"format":…,"version":…,"game":…,"bytes":N,"crc32":C}`,
//! followed by N bytes of MessagePack whose CRC-32 is C: a truncated or
//! damaged file is refused instead of loading wrong numbers, and `head -1`
//! shows what the file is.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Every kind of file darkhex writes and reads back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Policy,
    /// A trained network's policy (Deep CFR's average-policy network).
    Model,
    Checkpoint,
    PoneStrategy,
    LeagueLog,
    OpeningsLog,
    /// The finished parts of an interrupted `bounds` run.
    BoundsProgress,
    /// The Hex and Rex solver's transposition table, saved at a stop.
    SolverTable,
}

impl FileKind {
    pub const ALL: [FileKind; 8] = [
        FileKind::Policy,
        FileKind::Model,
        FileKind::Checkpoint,
        FileKind::PoneStrategy,
        FileKind::LeagueLog,
        FileKind::OpeningsLog,
        FileKind::BoundsProgress,
        FileKind::SolverTable,
    ];

    /// The `format` field that names the kind.
    pub fn format(self) -> &'static str {
        match self {
            FileKind::Policy => "darkhex-policy",
            FileKind::Model => "darkhex-model",
            FileKind::Checkpoint => "darkhex-checkpoint",
            FileKind::PoneStrategy => "darkhex-pone-strategy",
            FileKind::LeagueLog => "darkhex-league-log",
            FileKind::OpeningsLog => "darkhex-openings-log",
            FileKind::BoundsProgress => "darkhex-bounds-progress",
            FileKind::SolverTable => "darkhex-solver-table",
        }
    }

    pub fn from_format(format: &str) -> Option<FileKind> {
        FileKind::ALL.into_iter().find(|k| k.format() == format)
    }

    /// What a user calls it.
    pub fn what(self) -> &'static str {
        match self {
            FileKind::Policy => "policy",
            FileKind::Model => "policy model",
            FileKind::Checkpoint => "training checkpoint",
            FileKind::PoneStrategy => "PONE strategy",
            FileKind::LeagueLog => "league results log",
            FileKind::OpeningsLog => "log of solved openings",
            FileKind::BoundsProgress => "progress of a bounds run",
            FileKind::SolverTable => "solver table",
        }
    }

    /// The commands that read this kind.
    pub fn read_by(self) -> &'static str {
        match self {
            FileKind::Policy => {
                "`darkhex exploit GAME FILE` and the player `policy(file=FILE)` of play and league read it"
            }
            FileKind::Model => {
                "`darkhex exploit GAME FILE` and the player `policy(file=FILE)` of play and league read it, as they read a policy"
            }
            FileKind::Checkpoint => {
                "`darkhex train GAME --checkpoint FILE --resume` continues it; `darkhex train` writes the policy"
            }
            FileKind::PoneStrategy => {
                "`darkhex pone GAME --check-strategy FILE` checks it against every history of the game"
            }
            FileKind::LeagueLog => {
                "`darkhex league --out DIR` resumes it and `darkhex league show` replays its games"
            }
            FileKind::OpeningsLog => {
                "`darkhex solve GAME --openings --shard I/N --out FILE` resumes it and `darkhex solve merge` joins the shards"
            }
            FileKind::BoundsProgress => {
                "`darkhex bounds GAME --black FILE --white FILE --checkpoint PROGRESS` resumes it"
            }
            FileKind::SolverTable => {
                "`darkhex solve GAME --table FILE` (Hex and Rex) goes on from it, with the same game and rules"
            }
        }
    }
}

/// A path as an error shows it: on one line, whatever characters its name
/// holds (a name is user input, and may hold a newline).
pub fn shown(path: &Path) -> String {
    darkhex_games::one_line(&path.display().to_string())
}

#[derive(Debug, Error)]
pub enum FileError {
    #[error("cannot read {}: {source}", shown(.path))]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", shown(.path))]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a valid {what} file: {reason}", shown(.path))]
    Malformed {
        path: PathBuf,
        what: &'static str,
        reason: String,
    },
    #[error("{} is a darkhex {found}, not a {expected}: {read_by}", shown(.path), found = found.what(), expected = expected.what(), read_by = found.read_by())]
    WrongKind {
        path: PathBuf,
        found: FileKind,
        expected: FileKind,
    },
    #[error("{} is not a darkhex {what}: {reason}", shown(.path))]
    Unrecognised {
        path: PathBuf,
        what: &'static str,
        reason: String,
    },
    #[error(
        "{} is a version {found} {what}; this darkhex reads version {supported} (write it again with this version)",
        shown(.path)
    )]
    Version {
        path: PathBuf,
        what: &'static str,
        found: u32,
        supported: u32,
    },
    #[error("{} is damaged: {reason}; it cannot be trusted (write it again)", shown(.path))]
    Damaged { path: PathBuf, reason: String },
}

/// A document darkhex writes: it names its kind, version and game.
pub trait Document: Serialize + DeserializeOwned {
    const KIND: FileKind;
    const VERSION: u32;
    fn game(&self) -> &str;
}

/// The encoding of a result file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Json,
    /// A header line and MessagePack: compact, exact for every f64, checksummed.
    Binary,
}

impl Encoding {
    /// `.json` files are JSON; anything else is binary.
    pub fn for_path(path: &Path) -> Encoding {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => Encoding::Json,
            _ => Encoding::Binary,
        }
    }
}

/// The first line of a binary file.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    game: String,
    bytes: u64,
    crc32: u32,
}

/// What every darkhex document holds, read without the rest.
#[derive(Debug, Deserialize)]
struct Probe {
    format: Option<String>,
    version: Option<u32>,
}

/// Where a file at a path goes.
enum Target<'a> {
    /// A device or pipe (/dev/null, /dev/stdout): written to directly,
    /// never replaced by a renamed file.
    Device,
    /// An ordinary file in this directory, which now exists.
    Dir(&'a Path),
}

fn target(path: &Path) -> std::io::Result<Target<'_>> {
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return Ok(Target::Device);
    }
    if path.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "it is a directory",
        ));
    }
    let dir = parent_dir(path);
    fs::create_dir_all(dir)?;
    Ok(Target::Dir(dir))
}

/// The error of writing `path`, in a user's words: the temporary file's
/// name in tempfile's messages means nothing to a user.
fn write_error(path: &Path) -> impl Fn(std::io::Error) -> FileError + '_ {
    move |source| FileError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::new(source.kind(), plain_io_message(&source)),
    }
}

/// Writes `bytes` to a temporary file beside `path`, syncs it, and renames it
/// over `path`: a reader sees the old file or the new one, never a torn one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    write_atomically_with(path, |w| w.write_all(bytes))
}

/// [`write_atomically`] with the contents written by `fill`, through a
/// buffer: a large document goes to disk without a copy of it in memory.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), FileError> {
    let err = write_error(path);
    let dir = match target(path).map_err(&err)? {
        Target::Device => {
            let mut out = std::io::BufWriter::new(fs::File::create(path).map_err(&err)?);
            fill(&mut out).map_err(&err)?;
            return out.flush().map_err(err);
        }
        Target::Dir(dir) => dir,
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(&err)?;
    {
        let mut out = std::io::BufWriter::new(tmp.as_file_mut());
        fill(&mut out).map_err(&err)?;
        out.flush().map_err(&err)?;
    }
    // Temporary files are private; results are ordinary files.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(fs::Permissions::from_mode(0o644))
            .map_err(&err)?;
    }
    tmp.as_file().sync_all().map_err(&err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// Fails, saying why, unless a file can be written at `path` (its directory
/// is created if needed): long runs check their outputs before they start.
pub fn check_writable(path: &Path) -> Result<(), FileError> {
    let err = write_error(path);
    match target(path).map_err(&err)? {
        Target::Device => fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map(drop)
            .map_err(err),
        Target::Dir(dir) => tempfile::NamedTempFile::new_in(dir).map(drop).map_err(err),
    }
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// An I/O error's message without the paths and codes libraries append.
fn plain_io_message(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = text.split(" at path ").next().unwrap_or(&text);
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text.to_string(),
    }
}

/// Serialises `doc` in `encoding` and writes it atomically, streaming:
/// the binary header needs the payload's length and checksum, so the
/// payload is encoded twice, once into a counter and once into the file,
/// rather than held in memory (a 3x3 Dark Hex policy is 1.5 GB of it).
pub fn save<D: Document>(path: &Path, doc: &D, encoding: Encoding) -> Result<(), FileError> {
    save_as::<D, D>(path, doc, doc.game(), encoding)
}

/// [`save`] of a document of kind `D` from `view`, anything that
/// serialises exactly as the `D` it stands for (a policy written row by
/// row from arrays, never held whole as a `D`).
pub fn save_as<D: Document, V: Serialize>(
    path: &Path,
    doc: &V,
    game: &str,
    encoding: Encoding,
) -> Result<(), FileError> {
    let failed = |e: String| FileError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    let header = match encoding {
        Encoding::Json => None,
        Encoding::Binary => {
            let mut counter = CrcCounter::default();
            rmp_serde::encode::write_named(&mut counter, doc).map_err(|e| failed(e.to_string()))?;
            let header = Header {
                format: D::KIND.format().to_string(),
                version: D::VERSION,
                game: game.to_string(),
                bytes: counter.bytes,
                crc32: counter.hasher.clone().finalize(),
            };
            Some(header)
        }
    };
    write_atomically_with(path, |out| {
        let Some(header) = &header else {
            return serde_json::to_writer(out, doc).map_err(std::io::Error::other);
        };
        serde_json::to_writer(&mut *out, header).map_err(std::io::Error::other)?;
        out.write_all(b"\n")?;
        let mut payload = CrcCounter {
            inner: Some(out),
            ..CrcCounter::default()
        };
        rmp_serde::encode::write_named(&mut payload, doc).map_err(std::io::Error::other)?;
        let crc32 = payload.hasher.finalize();
        if (payload.bytes, crc32) != (header.bytes, header.crc32) {
            return Err(std::io::Error::other(
                "the document changed between its two encodings",
            ));
        }
        Ok(())
    })
}

/// Counts and checksums what passes through it on the way to `inner`.
#[derive(Default)]
struct CrcCounter<'a> {
    inner: Option<&'a mut dyn Write>,
    bytes: u64,
    hasher: crc32fast::Hasher,
}

impl Write for CrcCounter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = match &mut self.inner {
            Some(w) => w.write(buf)?,
            None => buf.len(),
        };
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.as_mut().map_or(Ok(()), |w| w.flush())
    }
}

/// Reads a text file; the error names the path once and the reason plainly.
pub fn read_text(path: &Path) -> Result<String, FileError> {
    let bytes = read_bytes(path)?;
    String::from_utf8(bytes).map_err(|_| FileError::Malformed {
        path: path.to_path_buf(),
        what: "text",
        reason: "it is not UTF-8 text".into(),
    })
}

/// Reads a whole file; the error names the path once and the reason
/// plainly. Devices are refused.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, FileError> {
    let err = |source: std::io::Error| FileError::Read {
        path: path.to_path_buf(),
        source: std::io::Error::new(source.kind(), plain_io_message(&source)),
    };
    // A device (/dev/zero, /dev/urandom) never ends: reading it whole
    // would take all the memory there is.
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = fs::metadata(path).map_err(err)?.file_type();
        if kind.is_char_device() || kind.is_block_device() {
            return Err(err(std::io::Error::other(
                "it is a device, not a file darkhex wrote",
            )));
        }
    }
    fs::read(path).map_err(err)
}

/// How a file's bytes are laid out.
enum Layout<'a> {
    /// A header line and its checked payload.
    Binary {
        header: Header,
        payload: &'a [u8],
    },
    Json,
    /// MessagePack without a header, as darkhex wrote binary files before
    /// they carried checksums.
    Legacy,
}

fn layout<'a>(path: &Path, bytes: &'a [u8]) -> Result<Layout<'a>, FileError> {
    let first = bytes.iter().position(|b| !b.is_ascii_whitespace());
    if first.is_none_or(|i| bytes[i] != b'{') {
        return Ok(Layout::Legacy);
    }
    let line_end = bytes.iter().position(|&b| b == b'\n');
    if let Some(end) = line_end
        && let Ok(header) = serde_json::from_slice::<Header>(&bytes[..end])
    {
        let payload = &bytes[end + 1..];
        let damaged = |reason: String| FileError::Damaged {
            path: path.to_path_buf(),
            reason,
        };
        if payload.len() as u64 != header.bytes {
            return Err(damaged(format!(
                "its header announces {} bytes of data and {} follow{}",
                header.bytes,
                payload.len(),
                if (payload.len() as u64) < header.bytes {
                    " (the file was cut short)"
                } else {
                    ""
                }
            )));
        }
        if crc32fast::hash(payload) != header.crc32 {
            return Err(damaged(
                "its checksum does not match its contents (bytes were changed after darkhex wrote it)"
                    .into(),
            ));
        }
        return Ok(Layout::Binary { header, payload });
    }
    Ok(Layout::Json)
}

/// Bytes of a file's start that [`identify`] reads.
const HEAD_BYTES: usize = 1 << 16;

/// The kind of darkhex file at `path`, if it is one, from its first bytes
/// only (a policy may be gigabytes): every kind starts with its `format`,
/// in the binary header line, the first field of a JSON document or the
/// first key of an old header-less MessagePack file.
pub fn identify(path: &Path) -> Option<FileKind> {
    use std::io::Read;
    let mut head = Vec::new();
    fs::File::open(path)
        .ok()?
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut head)
        .ok()?;
    if head.len() < HEAD_BYTES
        && let Some(kind) = identify_bytes(&head)
    {
        return Some(kind);
    }
    format_near_start(&head)
}

/// The kind named by the first `format` key of `head`: the key, at most a
/// few bytes of punctuation (`":"` in JSON, a string marker in
/// MessagePack), then a kind's format name.
fn format_near_start(head: &[u8]) -> Option<FileKind> {
    const KEY: &[u8] = b"format";
    let at = head.windows(KEY.len()).position(|w| w == KEY)?;
    let rest = &head[at + KEY.len()..];
    let skip = rest.iter().take(8).position(|b| b.is_ascii_alphabetic())?;
    let rest = &rest[skip..];
    FileKind::ALL.into_iter().find(|k| {
        let name = k.format().as_bytes();
        rest.starts_with(name)
            && rest
                .get(name.len())
                .is_none_or(|&b| !b.is_ascii_alphanumeric() && b != b'-')
    })
}

fn identify_bytes(bytes: &[u8]) -> Option<FileKind> {
    let format = match layout(Path::new(""), bytes) {
        Ok(Layout::Binary { header, .. }) => Some(header.format),
        Ok(Layout::Legacy) => rmp_serde::from_slice::<Probe>(bytes).ok()?.format,
        Ok(Layout::Json) | Err(_) => {
            let first_line = bytes.split(|&b| b == b'\n').next().unwrap_or(bytes);
            serde_json::from_slice::<Probe>(first_line)
                .or_else(|_| serde_json::from_slice::<Probe>(bytes))
                .ok()?
                .format
        }
    };
    FileKind::from_format(&format?)
}

/// Reads a document written by [`save`]: refuses files of another kind
/// (saying which they are), of another version, and damaged ones.
pub fn load<D: Document>(path: &Path) -> Result<D, FileError> {
    let bytes = read_bytes(path)?;
    let what = D::KIND.what();
    let malformed = |reason: String| FileError::Malformed {
        path: path.to_path_buf(),
        what,
        reason,
    };
    let (probe, decoded): (Probe, Result<D, String>) = match layout(path, &bytes)? {
        Layout::Binary { header, payload } => (
            Probe {
                format: Some(header.format),
                version: Some(header.version),
            },
            rmp_serde::from_slice(payload).map_err(|e| e.to_string()),
        ),
        Layout::Json => {
            let probe =
                serde_json::from_slice::<Probe>(&bytes).map_err(|e| {
                    match identify_bytes(&bytes) {
                        Some(found) if found != D::KIND => FileError::WrongKind {
                            path: path.to_path_buf(),
                            found,
                            expected: D::KIND,
                        },
                        _ => malformed(e.to_string()),
                    }
                })?;
            (
                probe,
                serde_json::from_slice(&bytes).map_err(|e| e.to_string()),
            )
        }
        Layout::Legacy => {
            let probe =
                rmp_serde::from_slice::<Probe>(&bytes).map_err(|_| FileError::Unrecognised {
                    path: path.to_path_buf(),
                    what,
                    reason: "it is neither JSON nor a darkhex binary file".into(),
                })?;
            (
                probe,
                rmp_serde::from_slice(&bytes).map_err(|e| e.to_string()),
            )
        }
    };
    let Some(format) = probe.format else {
        return Err(FileError::Unrecognised {
            path: path.to_path_buf(),
            what,
            reason: format!(
                "it has no \"format\" field (a {what} has \"format\": \"{}\")",
                D::KIND.format()
            ),
        });
    };
    match FileKind::from_format(&format) {
        Some(k) if k == D::KIND => {}
        Some(found) => {
            return Err(FileError::WrongKind {
                path: path.to_path_buf(),
                found,
                expected: D::KIND,
            });
        }
        None => {
            return Err(FileError::Unrecognised {
                path: path.to_path_buf(),
                what,
                reason: format!("its format is '{format}', not '{}'", D::KIND.format()),
            });
        }
    }
    if let Some(v) = probe.version
        && v != D::VERSION
    {
        return Err(FileError::Version {
            path: path.to_path_buf(),
            what,
            found: v,
            supported: D::VERSION,
        });
    }
    decoded.map_err(malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Doc {
        format: String,
        version: u32,
        game: String,
        values: Vec<f64>,
    }

    impl Document for Doc {
        const KIND: FileKind = FileKind::Policy;
        const VERSION: u32 = 1;
        fn game(&self) -> &str {
            &self.game
        }
    }

    fn doc() -> Doc {
        Doc {
            format: "darkhex-policy".into(),
            version: 1,
            game: "kuhn_poker".into(),
            values: vec![0.25, 1.0 / 3.0, f64::MIN_POSITIVE],
        }
    }

    #[test]
    fn binary_files_round_trip_and_refuse_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.bin");
        save(&path, &doc(), Encoding::Binary).unwrap();
        assert_eq!(load::<Doc>(&path).unwrap(), doc());
        assert_eq!(identify(&path), Some(FileKind::Policy));
        let json = dir.path().join("p.json");
        save(&json, &doc(), Encoding::Json).unwrap();
        assert_eq!(identify(&json), Some(FileKind::Policy));
        let good = fs::read(&path).unwrap();
        // One flipped bit in the payload.
        let mut bad = good.clone();
        let last = bad.len() - 3;
        bad[last] ^= 0x10;
        fs::write(&path, &bad).unwrap();
        let e = load::<Doc>(&path).unwrap_err().to_string();
        assert!(e.contains("checksum"), "{e}");
        // Cut short.
        fs::write(&path, &good[..good.len() - 5]).unwrap();
        let e = load::<Doc>(&path).unwrap_err().to_string();
        assert!(e.contains("cut short"), "{e}");
    }

    #[test]
    fn large_files_are_identified_from_their_first_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        let mut d = doc();
        d.values = vec![0.5; 20_000];
        for encoding in [Encoding::Json, Encoding::Binary] {
            save(&path, &d, encoding).unwrap();
            assert!(fs::metadata(&path).unwrap().len() > HEAD_BYTES as u64);
            assert_eq!(identify(&path), Some(FileKind::Policy));
        }
        // Header-less MessagePack, as older versions wrote binary files.
        fs::write(&path, rmp_serde::to_vec_named(&d).unwrap()).unwrap();
        assert_eq!(identify(&path), Some(FileKind::Policy));
        // A pretty-printed document, and files that merely mention a kind.
        fs::write(&path, serde_json::to_string_pretty(&d).unwrap()).unwrap();
        assert_eq!(identify(&path), Some(FileKind::Policy));
        fs::write(&path, "a darkhex-policy file\n".repeat(10_000)).unwrap();
        assert_eq!(identify(&path), None);
        fs::write(&path, "\"format\": \"darkhex-policy-like\"").unwrap();
        assert_eq!(identify(&path), None);
    }

    #[test]
    fn other_kinds_are_named_with_the_command_that_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        fs::write(
            &path,
            r#"{"format":"darkhex-pone-strategy","version":1,"game":"dark_hex(board_size=2)","player":0,"from":[],"moves":[]}"#,
        )
        .unwrap();
        let e = load::<Doc>(&path).unwrap_err().to_string();
        assert!(
            e.contains("PONE strategy") && e.contains("darkhex pone"),
            "{e}"
        );
        fs::write(&path, r#"{"values":[1]}"#).unwrap();
        let e = load::<Doc>(&path).unwrap_err().to_string();
        assert!(e.contains("no \"format\" field"), "{e}");
        let mut d = doc();
        d.version = 7;
        save(&path, &d, Encoding::Json).unwrap();
        let e = load::<Doc>(&path).unwrap_err().to_string();
        assert!(e.contains("version 7"), "{e}");
    }

    #[test]
    fn unwritable_paths_are_found_before_writing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_writable(&dir.path().join("sub/out.json")).is_ok());
        let e = check_writable(dir.path()).unwrap_err().to_string();
        assert!(e.contains("directory"), "{e}");
        let e = check_writable(Path::new("/proc/none/x.bin"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("cannot write /proc/none/x.bin") && !e.contains("os error"),
            "{e}"
        );
    }
}
