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

/// Symlink hops followed before giving up (the kernel's limit is 40).
const MAX_LINK_HOPS: usize = 40;

/// Write `bytes` to `path` atomically: a hidden temp file in the same
/// directory (`.<name>.XXXXXX.agenteval-tmp`), fsync, rename over the
/// target, fsync of the directory. Creates parent directories. A new file
/// gets mode 0666 less the umask; a replaced file keeps its mode.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let file_name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let mode = std::fs::metadata(path).map_or(0o666, |m| m.permissions().mode() & 0o7777);
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(TEMP_SUFFIX)
        .permissions(std::fs::Permissions::from_mode(mode))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    // On error the temp file is removed when `tmp` drops.
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// fsync a directory, so a rename in it survives a crash.
fn sync_dir(dir: &Path) -> io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// Write an output file (`--out`): through a symlink to its target (the
/// link stays), atomically for a regular file, directly for a FIFO or a
/// character device (`/dev/stdout`, a process substitution); a directory or
/// a socket is refused.
pub fn write_output(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = resolve_links(path)?;
    match std::fs::metadata(&target) {
        Ok(m) if m.is_file() => write_atomic(&target, bytes),
        Ok(m) if m.file_type().is_fifo() || m.file_type().is_char_device() => {
            let mut f = std::fs::OpenOptions::new().write(true).open(&target)?;
            f.write_all(bytes)?;
            f.flush()
        }
        Ok(m) => Err(io::Error::other(format!(
            "`{}` is {}, not a file",
            target.display(),
            if m.is_dir() {
                "a directory"
            } else {
                "a socket or block device"
            }
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => write_atomic(&target, bytes),
        Err(e) => Err(e),
    }
}

/// `path` with every symlink in its last component followed (a dangling
/// link resolves to where it points, so the file is created there).
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut cur = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        match std::fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&cur)?;
                cur = match cur.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(cur),
        }
    }
    Err(io::Error::other(format!(
        "`{}`: too many levels of symbolic links",
        path.display()
    )))
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
/// a report; a symlink is written through; a FIFO or device is written
/// to directly (see [`write_output`]).
pub fn write_to(path: &Path, text: &str) -> Result<(), crate::output::OutputError> {
    if path.as_os_str() == "-" {
        return crate::output::write_stdout(text);
    }
    write_output(path, text.as_bytes()).map_err(|source| crate::output::OutputError::Write {
        path: path.to_path_buf(),
        source,
    })
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
    fn output_goes_through_symlinks_and_keeps_them() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap();
        write_output(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        // A dangling link: the file is created where it points.
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink("sub/made.json", &dangling).unwrap();
        write_output(&dangling, b"made").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("sub/made.json")).unwrap(),
            "made"
        );
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
}
