//! Writing files so that a reader (or a kill at any moment) never sees half
//! of one: a temp file in the target's directory, fsync, rename over the
//! target (`tempfile`'s `persist`), then fsync of the directory so the
//! rename itself is durable.

use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Temp files end with this; [`sweep_temp_files`] removes the ones a killed
/// writer left behind.
pub const TEMP_SUFFIX: &str = ".agenteval-tmp";

/// Write `bytes` to `path` atomically: a hidden temp file in the same
/// directory (`.<name>.XXXXXX.agenteval-tmp`), fsync, rename over the
/// target, fsync of the directory. Creates parent directories. A new file
/// gets mode 0666 less the umask; a replaced file keeps its mode.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, &mut |w| w.write_all(bytes))
}

/// [`write_atomic`] of what `body` writes, as it writes it.
fn write_atomic_with(
    path: &Path,
    body: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    body(&mut file)?;
    file.commit()
}

/// A file written atomically as it is produced (a baseline too large to
/// build in memory first): the bytes go to the temp file of
/// [`write_atomic`]; [`AtomicFile::commit`] makes them `path`'s, and a
/// drop without a commit removes them, leaving `path` as it was.
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
    dir: PathBuf,
}

impl AtomicFile {
    /// Create the temp file beside `path` (and `path`'s directories).
    pub fn create(path: &Path) -> io::Result<Self> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        std::fs::create_dir_all(dir)?;
        let file_name = path
            .file_name()
            .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        // The mode of the file being replaced, never of what a link points to.
        let mode = std::fs::symlink_metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map_or(0o666, |m| m.permissions().mode() & 0o7777);
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{file_name}."))
            .suffix(TEMP_SUFFIX)
            .permissions(std::fs::Permissions::from_mode(mode))
            .tempfile_in(dir)?;
        Ok(Self {
            tmp,
            path: path.to_path_buf(),
            dir: dir.to_path_buf(),
        })
    }

    /// fsync, rename over the target, fsync of the directory.
    pub fn commit(self) -> io::Result<()> {
        self.tmp.as_file().sync_all()?;
        // On error the temp file is removed when it drops.
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        sync_dir(&self.dir)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tmp.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tmp.flush()
    }
}

/// A writer that stops at the input cap, so that nothing the gate writes is
/// larger than what it reads back. Past the cap it writes nothing more but
/// goes on counting, so that [`CappedWriter::finish`] can say the size the
/// file would have had (and the `--max-file-size` that would take it).
pub struct CappedWriter<W> {
    inner: W,
    written: u64,
    limit: u64,
}

impl<W: Write> CappedWriter<W> {
    pub fn new(inner: W) -> Self {
        Self::with_limit(inner, super::read::max_input_bytes())
    }

    fn with_limit(inner: W, limit: u64) -> Self {
        Self {
            inner,
            written: 0,
            limit,
        }
    }

    /// The inner writer, or [`fits_read_cap`]'s error when the bytes did
    /// not fit.
    pub fn finish(self) -> io::Result<W> {
        if self.written > self.limit {
            return Err(cap_error(self.written, self.limit));
        }
        Ok(self.inner)
    }
}

impl<W: Write> Write for CappedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written = self.written.saturating_add(buf.len() as u64);
        if self.written > self.limit {
            return Ok(buf.len());
        }
        self.inner.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// fsync a directory, so a rename in it survives a crash.
fn sync_dir(dir: &Path) -> io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// Write an output file (`--out`, `--out-dir`), never through a link a pull
/// request could have committed (issue 25):
///
/// - a regular file, or nothing, at `path`: replaced atomically (temp file +
///   rename in the same directory; a link put there in the meantime is
///   replaced, not followed);
/// - a FIFO or a character device: written directly;
/// - a symbolic link: followed only to a FIFO or a character device
///   (`/dev/stdout`, `/dev/null`, a process substitution's `/dev/fd/63`);
///   a link to a file, a directory or nowhere is refused;
/// - a path inside the working directory whose directories lead outside it
///   through a link (`out -> /elsewhere`, `--out out/compare.json`) is
///   refused;
/// - a directory, a socket or a block device is refused.
///
/// A refusal is an [`io::Error`] whose message ends with a hint.
pub fn write_output(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_output_with(path, &mut |w| w.write_all(bytes))
}

/// [`write_output`] of what `body` writes, as it writes it: a report too
/// large to build in memory first (issue 25).
pub fn write_output_with(
    path: &Path,
    body: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    check_directories_stay_inside(path)?;
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => write_through_link(path, body),
        Ok(m) if m.is_file() => write_atomic_with(path, body),
        Ok(m) if is_special(&m) => write_special(path, body),
        Ok(m) => Err(not_a_file(path, &m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => write_atomic_with(path, body),
        Err(e) => Err(e),
    }
}

/// A FIFO or a character device: written in place, never replaced.
fn is_special(m: &std::fs::Metadata) -> bool {
    m.file_type().is_fifo() || m.file_type().is_char_device()
}

fn not_a_file(path: &Path, m: &std::fs::Metadata) -> io::Error {
    io::Error::other(format!(
        "`{}` is {}, not a file (hint: pass a file path, or `-` for stdout)",
        path.display(),
        if m.is_dir() {
            "a directory"
        } else {
            "a socket or block device"
        }
    ))
}

/// `path` is a symbolic link: write through it only to a FIFO or a
/// character device. The type is checked before opening (a link to a FIFO
/// nobody reads would block) and again on the opened file (the link may
/// have changed in between); the open neither creates nor truncates, so a
/// refused target is left as it was.
fn write_through_link(
    path: &Path,
    body: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let refuse = |what: &str| {
        let to =
            std::fs::read_link(path).map_or_else(|_| "?".to_owned(), |t| t.display().to_string());
        io::Error::other(format!(
            "`{}` is a symbolic link to `{to}` ({what}); the gate writes through a link only to a \
             FIFO or a character device, never to a file, since a pull request can commit the link \
             (hint: remove the link, or pass the path it points to)",
            path.display()
        ))
    };
    match std::fs::metadata(path) {
        Ok(m) if is_special(&m) => {}
        Ok(m) if m.is_file() => return Err(refuse("a file")),
        Ok(m) if m.is_dir() => return Err(refuse("a directory")),
        Ok(_) => return Err(refuse("a socket or block device")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(refuse("which does not exist"));
        }
        Err(e) => return Err(e),
    }
    let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
    if !is_special(&f.metadata()?) {
        return Err(refuse("changed into a file while the gate wrote"));
    }
    body(&mut f)?;
    f.flush()
}

/// A FIFO or character device that is not a link: written directly.
fn write_special(
    path: &Path,
    body: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NOFOLLOW: if a link replaced the device since it was checked, fail.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    if !is_special(&f.metadata()?) {
        return Err(io::Error::other(format!(
            "`{}` changed while the gate wrote it (hint: write to a path nothing else changes)",
            path.display()
        )));
    }
    body(&mut f)?;
    f.flush()
}

/// When `path` lies lexically inside the working directory, the directories
/// that hold it must too once links are resolved: a committed link such as
/// `out -> /elsewhere` must not carry `--out out/compare.json` outside. The
/// nearest existing ancestor is checked, since the missing ones are created
/// under it. Paths that name a place outside the working directory (absolute
/// or with `..`) are the caller's choice and not checked.
pub fn check_directories_stay_inside(path: &Path) -> io::Result<()> {
    let Ok(cwd) = std::env::current_dir() else {
        return Ok(());
    };
    let Some(lexical) = normalize(&cwd.join(path)) else {
        return Ok(());
    };
    if !lexical.starts_with(&cwd) {
        return Ok(());
    }
    let Some(mut dir) = lexical.parent() else {
        return Ok(());
    };
    while std::fs::symlink_metadata(dir).is_err() {
        match dir.parent() {
            Some(p) => dir = p,
            None => return Ok(()),
        }
    }
    let real_cwd = std::fs::canonicalize(&cwd)?;
    let real_dir = std::fs::canonicalize(dir)?;
    if real_dir.starts_with(&real_cwd) {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "`{}` leads outside the working directory through a symbolic link (to `{}`); \
             a pull request can commit such a link (hint: remove the link, or pass the \
             resolved path)",
            dir.strip_prefix(&cwd).unwrap_or(dir).display(),
            real_dir.display()
        )))
    }
}

/// `path` (absolute) with `.` and `..` resolved lexically; `None` when a
/// `..` climbs above the root.
fn normalize(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// Remove temp files that a killed writer left in `dir`
/// (`.*.agenteval-tmp`). Call it only while holding the directory's lock,
/// so no live writer's file is taken. Returns how many were removed.
pub fn sweep_temp_files(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with('.') && name.ends_with(TEMP_SUFFIX)
        })
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// Write `text` to `path`, or to stdout when `path` is `-`. A regular file
/// is replaced atomically (temp file + rename) so a reader never sees half
/// a report; a FIFO or device is written to directly; a link is followed
/// only to a FIFO or device (see [`write_output`]).
///
/// A file larger than the gate reads back (`--max-file-size`) is not
/// written: a report or baseline the next step could not read is an error
/// here, with the size it would need (issue 25).
pub fn write_to(path: &Path, text: &str) -> Result<(), crate::output::OutputError> {
    if path.as_os_str() == "-" {
        return crate::output::write_document(text);
    }
    write_sized(path, text.len(), &mut |w| w.write_all(text.as_bytes()))
}

/// [`write_to`] of `value` as the pretty JSON of [`crate::output::to_json`],
/// byte for byte, written as it is serialized: a report is never built in
/// memory as text beside itself (at a large trace's run, the text of its
/// report was the peak, issue 25). The size is counted in a first pass,
/// so a file over the cap is not written at all, as with [`write_to`].
pub fn write_json_to<T: serde::Serialize>(
    path: &Path,
    value: &T,
) -> Result<(), crate::output::OutputError> {
    if path.as_os_str() == "-" {
        return crate::output::write_json_document(value);
    }
    let len =
        crate::output::json_len(value).map_err(|source| crate::output::OutputError::Write {
            path: path.to_path_buf(),
            source,
        })?;
    write_sized(path, len, &mut |w| crate::output::write_json(w, value))
}

/// Write `len` bytes that `body` makes to `path` (not `-`), refused when
/// they are over the read cap.
fn write_sized(
    path: &Path,
    len: usize,
    body: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> Result<(), crate::output::OutputError> {
    let error = |source| crate::output::OutputError::Write {
        path: path.to_path_buf(),
        source,
    };
    fits_read_cap(len).map_err(error)?;
    write_output_with(path, body).map_err(error)
}

/// `Ok` when `len` bytes are within the input cap, so the gate can read
/// the file it is about to write; else an error naming both sizes.
pub fn fits_read_cap(len: usize) -> std::io::Result<()> {
    let limit = super::read::max_input_bytes();
    let size = len as u64;
    if size <= limit {
        return Ok(());
    }
    Err(cap_error(size, limit))
}

fn cap_error(size: u64, limit: u64) -> io::Error {
    io::Error::other(format!(
        "it would be {}, larger than the {} limit the gate reads files up to; pass \
         `--max-file-size {}` (or set `AGENTEVAL_MAX_FILE_SIZE`) to this step and to every step that reads the \
         file, or write fewer cases per report (`--shard`, or split the suite)",
        super::read::human(size),
        super::read::human(limit),
        super::read::human_ceiling(size)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn atomic_write_replaces_and_creates_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/c.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(names(p.parent().unwrap()), ["c.json"]);
    }

    #[test]
    fn replaced_files_keep_their_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        std::fs::write(&p, "x").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"y").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    fn output_never_goes_through_a_link_to_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap();
        let err = write_output(&link, b"new").unwrap_err();
        assert!(
            err.to_string().contains("symbolic link to `real.json`"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "old");
        // A dangling link: nothing is created where it points.
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink("sub/made.json", &dangling).unwrap();
        let err = write_output(&dangling, b"made").unwrap_err();
        assert!(err.to_string().contains("does not exist"), "{err}");
        assert!(!dir.path().join("sub").exists());
        // A link to a character device is written through.
        let null = dir.path().join("null");
        std::os::unix::fs::symlink("/dev/null", &null).unwrap();
        write_output(&null, b"x").unwrap();
        assert!(
            std::fs::symlink_metadata(&null)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn a_link_put_at_the_temp_files_target_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "keep").unwrap();
        let link = dir.path().join("out.json");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        write_atomic(&link, b"report").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "report");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(
            normalize(Path::new("/a/./b/../c")),
            Some(PathBuf::from("/a/c"))
        );
        assert_eq!(normalize(Path::new("/a/../..")), None);
    }

    #[test]
    fn directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_output(dir.path(), b"x").unwrap_err();
        assert!(err.to_string().contains("a directory"), "{err}");
    }

    #[test]
    fn sweeping_removes_only_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("keep.json"), "").unwrap();
        std::fs::write(dir.path().join(".keep.json.abc123.agenteval-tmp"), "").unwrap();
        std::fs::write(dir.path().join("visible.agenteval-tmp"), "").unwrap();
        assert_eq!(sweep_temp_files(dir.path()), 1);
        assert_eq!(names(dir.path()), ["keep.json", "visible.agenteval-tmp"]);
    }

    #[test]
    fn a_capped_writer_stops_at_the_cap_and_says_the_whole_size() {
        let mut w = CappedWriter::with_limit(Vec::new(), 10);
        w.write_all(b"0123456789").unwrap();
        assert_eq!(
            w.finish().unwrap(),
            b"0123456789",
            "up to the cap, all of it"
        );

        let mut w = CappedWriter::with_limit(Vec::new(), 10);
        w.write_all(b"01234").unwrap();
        w.write_all(b"567890").unwrap();
        w.write_all(&[b'x'; 2037]).unwrap();
        assert_eq!(w.inner, b"01234", "nothing past the cap is written");
        let err = w.finish().unwrap_err().to_string();
        assert!(
            err.starts_with("it would be 2 KiB, larger than the 10 bytes limit"),
            "{err}"
        );
        assert!(err.contains("`--max-file-size 1MiB`"), "{err}");
    }

    #[test]
    fn a_json_document_is_written_as_to_json_makes_it_and_counted_alike() {
        let dir = tempfile::tempdir().unwrap();
        // Nesting, escapes the guarded formatter adds (`::`, `<`), non-ASCII
        // text and a long list, so the 64 KiB buffer fills more than once.
        let value = serde_json::json!({
            "a": [1, 2.5, null, true],
            "text": "::warning::<b>x</b> ünïcödé",
            "many": (0..20_000).map(|i| format!("item {i}")).collect::<Vec<_>>(),
        });
        let text = crate::output::to_json(&value);
        assert_eq!(crate::output::json_len(&value).unwrap(), text.len());
        let path = dir.path().join("out/report.json");
        write_json_to(&path, &value).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        // Through a link to a file it is refused, as `write_to` is.
        let target = dir.path().join("victim.txt");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(write_json_to(&link, &value).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    }
}
