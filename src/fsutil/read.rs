//! Reading an input file (trace, suite, cases, evidence, report, baseline,
//! history, event payload): only a regular file, only up to a size cap, and
//! for text, UTF-8 checked with the line and column of the first bad byte.
//!
//! The file is opened non-blocking, so a FIFO with no writer is refused at
//! once instead of hanging the gate; its type is checked on the open file.

use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::diagnostic::{FileDiagnostic, named_source};

/// Default cap on one input file: 256 MiB (`--max-file-size`).
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

static MAX_INPUT_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_INPUT_BYTES);

/// Set the cap once at start-up (`--max-file-size`, `AGENTEVAL_MAX_FILE_SIZE`).
pub fn set_max_input_bytes(bytes: u64) {
    MAX_INPUT_BYTES.store(bytes, Ordering::Relaxed);
}

pub fn max_input_bytes() -> u64 {
    MAX_INPUT_BYTES.load(Ordering::Relaxed)
}

/// Why an input file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("no such file")]
    NotFound(#[source] io::Error),
    #[error(transparent)]
    Io(io::Error),
    /// A FIFO, socket, device or directory.
    #[error("not a regular file ({kind})")]
    NotRegular { kind: &'static str },
    #[error("the file is larger than the {} limit ({})", human(*limit), human(*size))]
    TooLarge { size: u64, limit: u64 },
    /// Not UTF-8: the 1-based line and column of the first bad byte.
    #[error("the file is not valid UTF-8: byte 0x{byte:02X} at line {line}, column {column}")]
    NotUtf8 {
        line: usize,
        column: usize,
        byte: u8,
        /// The file's text up to the bad byte, for the snippet.
        prefix: String,
    },
}

impl InputError {
    /// The error as an `io::Error`, for callers that report every failure as I/O.
    pub fn into_io(self) -> io::Error {
        match self {
            Self::NotFound(e) | Self::Io(e) => e,
            other => io::Error::other(other.to_string()),
        }
    }

    /// A located diagnostic for the errors that are bad input (not
    /// "missing" or "I/O"), with a hint; `None` for those two.
    pub fn diagnostic(&self, path: &Path) -> Option<FileDiagnostic> {
        let d = FileDiagnostic::error(path, self.to_string());
        match self {
            Self::NotFound(_) | Self::Io(_) => None,
            Self::NotRegular { .. } => Some(d.with_help(
                "pass a regular file; FIFOs, sockets, devices and directories are refused so the gate never waits on a writer",
            )),
            Self::TooLarge { .. } => Some(d.with_help(
                "raise the limit with `--max-file-size` (or `AGENTEVAL_MAX_FILE_SIZE`), e.g. `--max-file-size 1GiB`",
            )),
            Self::NotUtf8 {
                line,
                column,
                prefix,
                ..
            } => {
                let mut text = prefix.clone();
                text.push('\u{FFFD}');
                let source = named_source(path, text);
                Some(
                    d.at(&source, *line, *column)
                        .with_label("not UTF-8")
                        .with_help("save the file as UTF-8"),
                )
            }
        }
    }
}

/// The regular file at `path`, opened without blocking on a FIFO, its
/// metadata and the cap; refused when it is not a regular file or is over
/// the cap.
fn open_input(path: &Path) -> Result<(std::fs::File, std::fs::Metadata, u64), InputError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => InputError::NotFound(e),
            _ => InputError::Io(e),
        })?;
    let meta = file.metadata().map_err(InputError::Io)?;
    let ft = meta.file_type();
    if !ft.is_file() {
        let kind = if ft.is_dir() {
            "a directory"
        } else if ft.is_fifo() {
            "a FIFO"
        } else if ft.is_socket() {
            "a socket"
        } else {
            "a device"
        };
        return Err(InputError::NotRegular { kind });
    }
    let limit = max_input_bytes();
    if meta.len() > limit {
        return Err(InputError::TooLarge {
            size: meta.len(),
            limit,
        });
    }
    Ok((file, meta, limit))
}

/// The bytes of the regular file at `path`, at most [`max_input_bytes`].
pub fn read_input(path: &Path) -> Result<Vec<u8>, InputError> {
    let (file, meta, limit) = open_input(path)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // The file may grow while it is read: never take more than the cap.
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(InputError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// [`read_input`] as UTF-8 text (a leading byte-order mark is kept for the
/// parser to reject or skip).
pub fn read_input_text(path: &Path) -> Result<String, InputError> {
    text_from_bytes(read_input(path)?)
}

/// A reader of the regular file at `path` that fails on the first byte
/// that is not UTF-8 and past the cap: [`read_input_text`] for a parser
/// that reads as it goes, so a large file is not held whole (issue 25).
/// Its errors say only that the read failed; read the file with
/// [`read_input_text`] to say where and why.
pub fn open_input_text(path: &Path) -> Result<impl Read, InputError> {
    let (file, _, limit) = open_input(path)?;
    Ok(Utf8Reader {
        inner: io::BufReader::with_capacity(64 * 1024, file.take(limit.saturating_add(1))),
        carry: Vec::new(),
        read: 0,
        limit,
    })
}

/// [`open_input_text`]'s reader: checks each chunk as it passes, carrying
/// an unfinished character (at most three bytes) to the next.
struct Utf8Reader<R> {
    inner: R,
    carry: Vec<u8>,
    read: u64,
    limit: u64,
}

impl<R: Read> Read for Utf8Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read = self.read.saturating_add(n as u64);
        if self.read > self.limit {
            return Err(io::Error::other("over the input cap"));
        }
        if n == 0 {
            if self.carry.is_empty() {
                return Ok(0);
            }
            return Err(io::Error::new(io::ErrorKind::InvalidData, "not UTF-8"));
        }
        let joined;
        let data = if self.carry.is_empty() {
            &buf[..n]
        } else {
            joined = [self.carry.as_slice(), &buf[..n]].concat();
            joined.as_slice()
        };
        match std::str::from_utf8(data) {
            Ok(_) => self.carry.clear(),
            // Only the last character is cut short: the next read ends it.
            Err(e) if e.error_len().is_none() => self.carry = data[e.valid_up_to()..].to_vec(),
            Err(_) => return Err(io::Error::new(io::ErrorKind::InvalidData, "not UTF-8")),
        }
        Ok(n)
    }
}

/// `bytes` as UTF-8 text, or where the first bad byte is.
pub fn text_from_bytes(bytes: Vec<u8>) -> Result<String, InputError> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.into_bytes();
        let prefix = String::from_utf8_lossy(&bytes[..valid]).into_owned();
        let line = prefix.matches('\n').count() + 1;
        let line_start = prefix.rfind('\n').map_or(0, |i| i + 1);
        let column = prefix[line_start..].chars().count() + 1;
        InputError::NotUtf8 {
            line,
            column,
            byte: bytes[valid],
            prefix,
        }
    })
}

/// `1048576` → `1 MiB`.
pub(crate) fn human(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{} {unit}", bytes / size);
        }
        if bytes >= size {
            return format!("{:.1} {unit}", bytes as f64 / size as f64);
        }
    }
    format!("{bytes} bytes")
}

/// The smallest whole number of MiB (or GiB past 10 GiB) that holds
/// `bytes`, in the `--max-file-size` syntax.
pub(crate) fn human_ceiling(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    if bytes > 10 * GIB {
        format!("{}GiB", bytes.div_ceil(GIB))
    } else {
        format!("{}MiB", bytes.div_ceil(MIB))
    }
}

/// Parse a size such as `1000`, `64KiB`, `256MiB`, `1GiB`, `10MB`, `2G`
/// (K/M/G and KB/MB/GB are powers of 1000; KiB/MiB/GiB of 1024).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).map_or(t, |i| &t[..i]);
    let unit = t[digits.len()..].trim();
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size; write e.g. `256MiB`"))?;
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "m" | "mb" => 1_000_000,
        "g" | "gb" => 1_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        _ => {
            return Err(format!(
                "unknown unit `{unit}` in `{text}`; use KiB, MiB or GiB"
            ));
        }
    };
    match n.checked_mul(mult) {
        Some(0) => Err("the size limit must be at least 1 byte".to_owned()),
        Some(v) => Ok(v),
        None => Err(format!("`{text}` is too large")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("64KiB"), Ok(65_536));
        assert_eq!(parse_size("256 MiB"), Ok(256 << 20));
        assert_eq!(parse_size("2G"), Ok(2_000_000_000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("").is_err());
        assert_eq!(human(256 << 20), "256 MiB");
    }

    #[test]
    fn invalid_utf8_is_located() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.yaml");
        std::fs::write(&p, b"a: 1\nb: x\xFFy\n").unwrap();
        let err = read_input_text(&p).unwrap_err();
        assert!(
            matches!(
                err,
                InputError::NotUtf8 {
                    line: 2,
                    column: 5,
                    byte: 0xFF,
                    ..
                }
            ),
            "{err:?}"
        );
        let d = err.diagnostic(&p).unwrap();
        assert!(
            d.one_line().ends_with(
                "s.yaml:2:5: the file is not valid UTF-8: byte 0xFF at line 2, column 5"
            ),
            "{}",
            d.one_line()
        );
    }

    #[test]
    fn fifos_and_directories_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(matches!(
            read_input(&fifo),
            Err(InputError::NotRegular { kind: "a FIFO" })
        ));
        assert!(matches!(
            read_input(dir.path()),
            Err(InputError::NotRegular {
                kind: "a directory"
            })
        ));
        assert!(matches!(
            read_input(&dir.path().join("missing")),
            Err(InputError::NotFound(_))
        ));
    }

    /// Bytes through a `Utf8Reader` whose source hands out `step` bytes a
    /// read, so characters are cut at every place.
    fn through_utf8_reader(bytes: &[u8], step: usize) -> io::Result<Vec<u8>> {
        struct Steps<'a>(&'a [u8], usize);
        impl Read for Steps<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut reader = Utf8Reader {
            inner: Steps(bytes, step),
            carry: Vec::new(),
            read: 0,
            limit: 1 << 20,
        };
        let mut out = Vec::new();
        reader.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn the_text_reader_takes_utf8_cut_anywhere_and_refuses_the_rest() {
        let text = "a é € 𝄞 \"ok\"".as_bytes();
        for step in 1..=text.len() {
            assert_eq!(
                through_utf8_reader(text, step).unwrap(),
                text,
                "step {step}"
            );
        }
        // A bad byte, a lone continuation byte, a character cut off at the end.
        for bad in [&b"ab\xffcd"[..], b"a\x80", b"x \xe2\x82"] {
            for step in 1..=bad.len() {
                let err = through_utf8_reader(bad, step).unwrap_err();
                assert_eq!(
                    err.kind(),
                    io::ErrorKind::InvalidData,
                    "{bad:?} step {step}"
                );
            }
        }
        // Past the cap, whatever the bytes.
        let mut reader = Utf8Reader {
            inner: &b"0123456789"[..],
            carry: Vec::new(),
            read: 0,
            limit: 4,
        };
        assert!(reader.read_to_end(&mut Vec::new()).is_err());
        // The file reader: the same checks as `read_input_text`.
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.json");
        std::fs::write(&good, "{\"a\": \"é\"}").unwrap();
        let mut text = String::new();
        open_input_text(&good)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "{\"a\": \"é\"}");
        assert!(matches!(
            open_input_text(dir.path()),
            Err(InputError::NotRegular { .. })
        ));
    }
}
