//! JSON output: pretty, stable key order (structs and `BTreeMap`s), trailing
//! newline, escaped by JSON's rules only (it never passes the terminal
//! escaper, whose `\u{200e}` is no JSON escape). Inside strings, serde
//! escapes C0 controls; every other character that must not reach a
//! terminal or log raw (DEL, C1 controls, line separators, bidi overrides:
//! [`is_unsafe_char`]) is written as `\uXXXX` too, and a `##[` as
//! `#\u0023[`, so no line of a JSON report is a legacy workflow command when
//! printed in CI. Each is the same JSON value; a pretty-printed line can
//! never start with `::`.

use std::io::{self, Write as _};

use serde::Serialize;
use serde_json::ser::Formatter;

use super::escape::is_unsafe_char;

/// Serialize `value` as pretty JSON with a trailing newline.
pub fn to_json<T: Serialize>(value: &T) -> String {
    let mut buf = Vec::with_capacity(256);
    // Serializing our own report types cannot fail: every map key is a
    // string. Through [`write_json`], so the two agree byte for byte and a
    // type's serialization is compiled once.
    if let Err(e) = write_json(&mut buf, value) {
        return format!("{{\"error\": {}}}\n", serde_json::json!(e.to_string()));
    }
    // The formatter writes only what serde hands it (UTF-8) and ASCII escapes.
    String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Write `value` as pretty JSON with a trailing newline to `writer`, as it
/// is serialized: for documents too large to build in memory first
/// (`trace --format json` of a 100 MB trace). Byte for byte what
/// [`to_json`] returns.
///
/// The writer is a trait object: each report type's serialization is
/// compiled once, not once per kind of writer (stdout, file, counter).
pub fn write_json<T: Serialize>(writer: &mut dyn io::Write, value: &T) -> io::Result<()> {
    // serde writes token by token; a buffer turns those into 64 KiB writes
    // (to a `dyn Write` each token was a call of its own).
    let mut writer = io::BufWriter::with_capacity(64 * 1024, writer);
    let mut ser = serde_json::Serializer::with_formatter(&mut writer, Guarded::default());
    value.serialize(&mut ser).map_err(io::Error::from)?;
    writer.write_all(b"\n")?;
    writer.flush()
}

/// The length in bytes of [`to_json`]'s text of `value`, counted without
/// making it.
pub fn json_len<T: Serialize>(value: &T) -> io::Result<usize> {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    write_json(&mut count, value)?;
    Ok(count.0)
}

/// serde's pretty formatter (two spaces a level), with the extra escapes
/// of the module docs. A line break and its indent are one write: serde's
/// writes the indent a level at a time, which was a few percent of a large
/// `trace --format json`.
#[derive(Default)]
struct Guarded {
    level: usize,
    has_value: bool,
}

/// A line break and the indent of the deepest level written at once.
const BREAK: [u8; 129] = {
    let mut line = [b' '; 129];
    line[0] = b'\n';
    line
};

impl Guarded {
    fn new_line<W: ?Sized + io::Write>(&self, w: &mut W) -> io::Result<()> {
        let mut spaces = 2 * self.level;
        let first = spaces.min(BREAK.len() - 1);
        w.write_all(&BREAK[..=first])?;
        spaces -= first;
        while spaces > 0 {
            let more = spaces.min(BREAK.len() - 1);
            w.write_all(&BREAK[1..=more])?;
            spaces -= more;
        }
        Ok(())
    }

    fn open<W: ?Sized + io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.new_line(w)?;
        }
        w.write_all(bracket)
    }

    fn item<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.new_line(w)
    }
}

impl Formatter for Guarded {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // The common case: ASCII with no `#` and no DEL holds nothing to
        // escape (three word-at-a-time scans, not one byte loop).
        let bytes = fragment.as_bytes();
        if bytes.is_ascii() && !bytes.contains(&b'#') && !bytes.contains(&0x7f) {
            return writer.write_all(fragment.as_bytes());
        }
        // serde splits a string only at the characters it escapes (`"`, `\`,
        // C0), so a `##[` always lies inside one fragment.
        let mut rest = fragment;
        while let Some(i) = rest.find(|c: char| is_unsafe_char(c) || c == '#') {
            writer.write_all(&rest.as_bytes()[..i])?;
            let c = rest[i..].chars().next().unwrap_or('#');
            if c == '#' {
                if rest[i..].starts_with("##[") {
                    writer.write_all(b"#\\u0023[")?;
                    rest = &rest[i + 3..];
                } else {
                    writer.write_all(b"#")?;
                    rest = &rest[i + 1..];
                }
                continue;
            }
            // Every unsafe character is in the Basic Multilingual Plane.
            write!(writer, "\\u{:04x}", c as u32)?;
            rest = &rest[i + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(w, first)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_workflow_commands_are_escaped_without_changing_the_value() {
        let v = serde_json::json!({"name": "x ##[error]forged", "##[k": "#", "a": "###["});
        let s = to_json(&v);
        assert!(!s.contains("##["), "{s}");
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn unsafe_characters_are_json_escapes_of_the_same_value() {
        let raw = "a\u{200e}b\u{202e}c\u{7f}d\u{9b}e\u{2028}f\u{1b}[31mg\"\\\né";
        let v = serde_json::json!({ raw: [raw, "plain"] });
        let s = to_json(&v);
        assert!(
            s.contains("a\\u200eb\\u202ec\\u007fd\\u009be\\u2028f\\u001b[31mg"),
            "{s}"
        );
        assert!(!s.chars().any(|c| is_unsafe_char(c) && c != '\n'), "{s}");
        assert!(!s.contains("\\u{"), "{s}");
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
        // Plain values are serde's pretty output, byte for byte.
        let plain = serde_json::json!({"b": [1, 2.5, null], "a": {"x": "é y"}});
        assert_eq!(
            to_json(&plain),
            serde_json::to_string_pretty(&plain).unwrap() + "\n"
        );
    }

    /// Deeper than one indent write, empty containers, containers of
    /// empty containers: serde's pretty output, byte for byte.
    #[test]
    fn layout_is_serdes_pretty_output() {
        let mut deep = serde_json::json!(["bottom", {}, [], {"k": []}]);
        for i in 0..150 {
            deep = if i % 2 == 0 {
                serde_json::json!([deep, 1])
            } else {
                serde_json::json!({"a": deep, "b": {}})
            };
        }
        for v in [
            deep,
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!([[], [[]], {"a": {}}]),
            serde_json::json!("x"),
        ] {
            assert_eq!(
                to_json(&v),
                serde_json::to_string_pretty(&v).unwrap() + "\n"
            );
        }
    }

    /// The streamed JSON is `to_json`'s, and a reader that went away is a
    /// closed pipe (which `main` turns into exit 0), not another error.
    #[test]
    fn write_json_matches_to_json_and_keeps_a_closed_pipe() {
        struct Closed;
        impl io::Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::from(io::ErrorKind::BrokenPipe))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let value = serde_json::json!({"b": [1, "##[x]", "\u{200e}"], "a": null});
        let mut out = Vec::new();
        write_json(&mut out, &value).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), to_json(&value));

        let err = write_json(&mut Closed, &value).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }
}
